/* Tests of the MLCP type: creation, dense assembly, residual, bounds and the
 * error measure of mlcp-format.md. */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp.h"
#include "planted.h"

/* ---- creation ---------------------------------------------------------------- */

Test(mlcp, create_fills_a_neutral_problem) {
    heft_mlcp *p = heft_mlcp_create(4, 3, HEFT_MLCP_DENSE | HEFT_MLCP_STRUCTURED | HEFT_MLCP_META);
    cr_assert_not_null(p);
    cr_assert_eq(p->n, 4);
    cr_assert_eq(p->nbodies, 3);
    cr_assert_eq(p->owned_, (void *)p);
    for (int i = 0; i < 4; ++i) {
        cr_assert_eq(p->b[i], 0.0);
        cr_assert(isinf(p->lo[i]) && p->lo[i] < 0);
        cr_assert(isinf(p->hi[i]) && p->hi[i] > 0);
        cr_assert_eq(p->findex[i], -1);
        cr_assert_eq(p->rows[i].a, -1);
        cr_assert_eq(p->rows[i].b, -1);
        cr_assert_eq(p->epsilon[i], 0.0);
        cr_assert_eq(p->lambda0[i], 0.0);
        cr_assert_eq(p->kind[i], HEFT_ROW_BILATERAL);
        cr_assert_eq(p->block[i], i);
        for (int j = 0; j < 4; ++j)
            cr_assert_eq(p->A[i * 4 + j], 0.0);
    }
    /* every array is writable to its end (ASan checks the block layout) */
    p->kind[3] = HEFT_ROW_MOTOR;
    p->bodies[2].inv_inertia[5] = 1.0;
    p->rows[3].jb[5] = 1.0;
    heft_mlcp_destroy(p);
}

Test(mlcp, create_rejects_bad_sizes_and_leaves_absent_parts_null) {
    cr_assert_null(heft_mlcp_create(-1, 0, HEFT_MLCP_DENSE));
    cr_assert_null(heft_mlcp_create(3, -2, HEFT_MLCP_STRUCTURED));
    cr_assert_null(heft_mlcp_create(3, 2, HEFT_MLCP_DENSE)); /* bodies without a structured form */
    heft_mlcp *p = heft_mlcp_create(5, 0, HEFT_MLCP_DENSE);
    cr_assert_not_null(p);
    cr_assert_null(p->rows);
    cr_assert_null(p->bodies);
    cr_assert_null(p->epsilon);
    cr_assert_null(p->kind);
    cr_assert_null(p->lambda0);
    heft_mlcp_destroy(p);
    heft_mlcp *empty = heft_mlcp_create(0, 0, HEFT_MLCP_STRUCTURED);
    cr_assert_not_null(empty);
    heft_mlcp_destroy(empty);
    heft_mlcp_destroy(NULL);
}

/* ---- dense assembly ------------------------------------------------------------ */

/* Two bodies, three rows; A worked out by hand (see the comment below). */
static heft_mlcp *two_body_problem(void) {
    heft_mlcp *p = heft_mlcp_create(3, 2, HEFT_MLCP_STRUCTURED);
    /* body 0: M^-1 = 2 I3, I^-1 = [[1, .5, 0], [.5, 2, 0], [0, 0, 3]] */
    p->bodies[0].inv_mass = 2.0;
    const double i0[6] = {1.0, 0.5, 0.0, 2.0, 0.0, 3.0};
    memcpy(p->bodies[0].inv_inertia, i0, sizeof i0);
    /* body 1: M^-1 = 0.5 I3, I^-1 = [[4, 0, 0], [0, 1, .25], [0, .25, 2]] */
    p->bodies[1].inv_mass = 0.5;
    const double i1[6] = {4.0, 0.0, 0.0, 1.0, 0.25, 2.0};
    memcpy(p->bodies[1].inv_inertia, i1, sizeof i1);

    /* row 0: body 0 against the world */
    p->rows[0] = (heft_mlcp_row){0, -1, {1, 0, 0, 0, 1, 1}, {0}};
    p->epsilon[0] = 0.1;
    /* row 1: body 0 against body 1 */
    p->rows[1] = (heft_mlcp_row){0, 1, {1, 1, 0, 1, 0, 0}, {0, -1, 0, 0, 0, 1}};
    p->epsilon[1] = 0.0;
    /* row 2: the world against body 1 (world on side a) */
    p->rows[2] = (heft_mlcp_row){-1, 1, {0}, {0, 0, 1, 0, 1, 0}};
    p->epsilon[2] = 0.25;
    return p;
}

/* By hand:
 *   A00 = 2*(1) + (0,1,1) I0 (0,1,1) = 2 + (0.5+2+0)*... = 2 + 5 = 7, + 0.1
 *         (I0 (0,1,1) = (0.5, 2, 3), dotted with (0,1,1) = 5)
 *   A01 = 2*(1*1) + (0,1,1) I0 (1,0,0) = 2 + (0.5 + 0) = 2.5   (body 0 only)
 *   A02 = 0                                                     (no shared body)
 *   A11 = 2*(1+1) + (1,0,0) I0 (1,0,0) + 0.5*1 + (0,0,1) I1 (0,0,1) = 4 + 1 + 0.5 + 2 = 7.5
 *   A12 = 0.5*((0,-1,0).(0,0,1)) + (0,0,1) I1 (0,1,0) = 0 + 0.25  (body 1 only)
 *   A22 = 0.5*1 + (0,1,0) I1 (0,1,0) + 0.25 = 0.5 + 1 + 0.25 = 1.75 */
static const double two_body_A[9] = {7.1, 2.5, 0.0, 2.5, 7.5, 0.25, 0.0, 0.25, 1.75};

Test(mlcp, assemble_dense_matches_hand_computed_two_body_problem) {
    heft_mlcp *p = two_body_problem();
    double A[9];
    memset(A, 0xff, sizeof A); /* NaN everywhere: every entry must be written */
    heft_mlcp_assemble_dense(p, A);
    for (int k = 0; k < 9; ++k)
        cr_assert(fabs(A[k] - two_body_A[k]) <= 1e-14, "A[%d][%d] = %.17g, expected %.17g", k / 3,
                  k % 3, A[k], two_body_A[k]);
    for (int i = 0; i < 3; ++i)
        cr_assert(fabs(heft_mlcp_diagonal(p, i) - two_body_A[4 * i]) <= 1e-14);
    heft_mlcp_destroy(p);
}

Test(mlcp, assemble_dense_counts_a_body_named_on_both_sides_once_per_pair) {
    /* One body on both sides of a row: J = ja + jb on that body. */
    heft_mlcp *p = heft_mlcp_create(1, 1, HEFT_MLCP_STRUCTURED);
    p->bodies[0].inv_mass = 3.0;
    p->rows[0] = (heft_mlcp_row){0, 0, {1, 0, 0, 0, 0, 0}, {1, 0, 0, 0, 0, 0}};
    double A;
    heft_mlcp_assemble_dense(p, &A);
    cr_assert_float_eq(A, 3.0 * 2.0 * 2.0, 1e-14); /* (1+1) * 3 * (1+1) */
    cr_assert_float_eq(heft_mlcp_diagonal(p, 0), 12.0, 1e-14);
    heft_mlcp_destroy(p);
}

/* ---- residual ------------------------------------------------------------------ */

Test(mlcp, structured_residual_equals_dense_residual) {
    for (uint64_t seed = 1; seed <= 5; ++seed) {
        const int n = 90, nb = 25;
        heft_mlcp *p = planted_random_structured(n, nb, 0.3, 1, seed);
        cr_assert_not_null(p);
        planted_rng rng = {seed};
        double lambda[90], w_struct[90], w_dense[90], work[6 * 25];
        for (int i = 0; i < n; ++i)
            lambda[i] = planted_uniform(&rng, -3.0, 3.0);
        heft_mlcp_residual(p, lambda, w_struct, work); /* structured: work given */
        heft_mlcp_residual(p, lambda, w_dense, NULL);  /* dense: no work, A present */
        double scale = 0.0;
        for (int i = 0; i < n; ++i) {
            double s = fabs(p->b[i]);
            for (int j = 0; j < n; ++j)
                s += fabs(p->A[i * n + j] * lambda[j]);
            scale = fmax(scale, s);
        }
        const double diff = planted_max_diff(w_struct, w_dense, n);
        cr_assert(diff <= 1e-12 * scale, "seed %d: |w_struct - w_dense| = %g, scale %g", (int)seed,
                  diff, scale);
        cr_assert(planted_max_diff(w_struct, w_struct, n) == 0.0); /* no NaN */
        heft_mlcp_destroy(p);
    }
}

/* The residual, the diagonal and the error measure of the structured form
 * written one product at a time, in the order the library promises to
 * keep (the engine's answers, and so its poses, depend on every bit): J^T
 * lambda summed per body row by row, M^-1 once per body, each row's two
 * sides dotted in turn; A_ii as heft_mlcp_assemble_dense sums it. */
static void scalar_residual(const heft_mlcp *p, const double *lambda, double *w) {
    double dv[6 * 25] = {0};
    for (int i = 0; i < p->n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        for (int k = 0; k < 6; ++k) {
            if (r->a >= 0)
                dv[6 * r->a + k] += r->ja[k] * lambda[i];
            if (r->b >= 0)
                dv[6 * r->b + k] += r->jb[k] * lambda[i];
        }
    }
    for (int k = 0; k < p->nbodies; ++k) {
        const double *I = p->bodies[k].inv_inertia, *x = &dv[6 * k];
        const double m = p->bodies[k].inv_mass;
        const double out[6] = {m * x[0],
                               m * x[1],
                               m * x[2],
                               I[0] * x[3] + I[1] * x[4] + I[2] * x[5],
                               I[1] * x[3] + I[3] * x[4] + I[4] * x[5],
                               I[2] * x[3] + I[4] * x[4] + I[5] * x[5]};
        memcpy(&dv[6 * k], out, sizeof out);
    }
    for (int i = 0; i < p->n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        double wi = p->epsilon[i] * lambda[i] - p->b[i];
        const double *sides[2] = {r->ja, r->jb};
        const int32_t bodies[2] = {r->a, r->b};
        for (int s = 0; s < 2; ++s)
            if (bodies[s] >= 0) {
                const double *j = sides[s], *v = &dv[6 * bodies[s]];
                wi += j[0] * v[0] + j[1] * v[1] + j[2] * v[2] + j[3] * v[3] + j[4] * v[4] +
                      j[5] * v[5];
            }
        w[i] = wi;
    }
}

static int same_bits(double x, double y) {
    return memcmp(&x, &y, sizeof x) == 0;
}

Test(mlcp, structured_residual_diagonal_and_measure_keep_the_scalar_bits) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
        const int n = 90, nb = 25;
        heft_mlcp *p = planted_random_structured(n, nb, 0.3, 0, seed);
        cr_assert_not_null(p);
        /* rows with one body on both sides too */
        for (int i = 0; i < n; i += 7)
            if (p->rows[i].a >= 0 && p->findex[i] < 0) {
                p->rows[i].b = p->rows[i].a;
                for (int k = 0; k < 6; ++k)
                    p->rows[i].jb[k] = 0.25 * (k + 1) - p->rows[i].ja[k];
            }
        planted_rng rng = {seed};
        double lambda[90], w[90], expect[90], work[90 + 6 * 25];
        for (int i = 0; i < n; ++i) {
            lambda[i] = planted_uniform(&rng, -3.0, 3.0);
            if (p->findex[i] < 0) {
                p->lo[i] = i % 3 == 0 ? 0.0 : -INFINITY;
                p->hi[i] = i % 5 == 0 ? 1.0 : INFINITY;
            }
        }
        heft_mlcp_residual(p, lambda, w, work);
        scalar_residual(p, lambda, expect);
        heft_mlcp_error sum = {0.0, 0.0, -1, 0, 0};
        double *A = malloc(sizeof(double) * (size_t)n * (size_t)n);
        heft_mlcp_assemble_dense(p, A);
        for (int i = 0; i < n; ++i) {
            cr_assert(same_bits(w[i], expect[i]), "seed %d row %d: w %.17g, expected %.17g",
                      (int)seed, i, w[i], expect[i]);
            const double d = A[(size_t)i * n + i];
            cr_assert(same_bits(heft_mlcp_diagonal(p, i), d), "seed %d row %d: A_ii", (int)seed, i);
            /* the row error of mlcp-format.md, clamped with comparisons */
            double lo, hi;
            heft_mlcp_bounds(p, lambda, i, &lo, &hi);
            const double step = expect[i] / d, target = lambda[i] - step;
            const double proj = target < lo ? lo : (target > hi ? hi : target);
            const double change = proj == target ? step : lambda[i] - proj;
            const double e = 0.5 * change * change * d;
            sum.sum += e;
            if (sum.worst_row < 0 || e > sum.max) {
                sum.max = e;
                sum.worst_row = i;
            }
        }
        const heft_mlcp_error got = heft_mlcp_measure(p, lambda, work);
        cr_assert(same_bits(got.max, sum.max) && same_bits(got.sum, sum.sum) &&
                      got.worst_row == sum.worst_row,
                  "seed %d: measure %.17g %.17g row %d, expected %.17g %.17g row %d", (int)seed,
                  got.max, got.sum, got.worst_row, sum.max, sum.sum, sum.worst_row);
        free(A);
        heft_mlcp_destroy(p);
    }
}

Test(mlcp, residual_without_workspace_or_dense_form_still_uses_the_structure) {
    heft_mlcp *p = two_body_problem();
    const double lambda[3] = {1.0, -2.0, 0.5};
    p->b[0] = 1.0;
    p->b[1] = -1.0;
    p->b[2] = 0.25;
    double w[3];
    heft_mlcp_residual(p, lambda, w, NULL);
    for (int i = 0; i < 3; ++i) {
        double expect = -p->b[i];
        for (int j = 0; j < 3; ++j)
            expect += two_body_A[3 * i + j] * lambda[j];
        cr_assert(fabs(w[i] - expect) <= 1e-13, "w[%d] = %.17g, expected %.17g", i, w[i], expect);
    }
    heft_mlcp_destroy(p);
}

/* ---- bounds --------------------------------------------------------------------- */

Test(mlcp, friction_bounds_follow_the_normal_impulse) {
    heft_mlcp *p = heft_mlcp_create(3, 0, HEFT_MLCP_DENSE);
    p->lo[0] = 0.0;
    p->hi[0] = INFINITY;
    p->findex[1] = 0;
    p->hi[1] = 0.5;
    p->lo[1] = -0.5;
    p->lo[2] = -1.0;
    p->hi[2] = 2.0;
    double lo, hi;
    heft_mlcp_bounds(p, (const double[]){4.0, 0.0, 0.0}, 1, &lo, &hi);
    cr_assert_eq(lo, -2.0);
    cr_assert_eq(hi, 2.0);
    heft_mlcp_bounds(p, (const double[]){-4.0, 0.0, 0.0}, 1, &lo, &hi); /* negative normal */
    cr_assert_eq(lo, 0.0);
    cr_assert_eq(hi, 0.0);
    heft_mlcp_bounds(p, (const double[]){NAN, 0.0, 0.0}, 1, &lo, &hi);
    cr_assert_eq(lo, 0.0);
    cr_assert_eq(hi, 0.0);
    heft_mlcp_bounds(p, (const double[]){4.0, 0.0, 0.0}, 2, &lo, &hi);
    cr_assert_eq(lo, -1.0);
    cr_assert_eq(hi, 2.0);
    heft_mlcp_destroy(p);
}

/* ---- the error measure ------------------------------------------------------------ */

/* A = [[2, 1, 0], [1, 4, 1], [0, 1, 2]], dyadic numbers so that every product is exact. */
static heft_mlcp *small_dense(void) {
    heft_mlcp *p = heft_mlcp_create(3, 0, HEFT_MLCP_DENSE);
    const double A[9] = {2, 1, 0, 1, 4, 1, 0, 1, 2};
    memcpy(p->A, A, sizeof A);
    return p;
}

Test(error, is_zero_at_a_known_exact_solution) {
    heft_mlcp *p = small_dense();
    /* lambda = (1, 0.5, -0.25): row 0 free, row 1 at lo with w = 0.75, row 2 at hi with w = -0.5 */
    const double lambda[3] = {1.0, 0.5, -0.25};
    const double w[3] = {0.0, 0.75, -0.5};
    p->lo[1] = 0.5;
    p->hi[1] = 3.0;
    p->hi[2] = -0.25;
    for (int i = 0; i < 3; ++i) {
        double a = 0.0;
        for (int j = 0; j < 3; ++j)
            a += p->A[3 * i + j] * lambda[j];
        p->b[i] = a - w[i];
    }
    heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
    cr_assert_eq(e.max, 0.0);
    cr_assert_eq(e.sum, 0.0);
    cr_assert_eq(e.bound_violations, 0);
    cr_assert_eq(e.nonfinite, 0);
    cr_assert_eq(e.worst_row, 0);
    heft_mlcp_destroy(p);
}

Test(error, free_row_is_half_w_squared_over_d) {
    heft_mlcp *p = small_dense();
    p->b[0] = 1.0; /* all rows unbounded */
    p->b[1] = -3.0;
    p->b[2] = 0.5;
    const double lambda[3] = {0.3, -0.2, 0.7};
    double w[3];
    heft_mlcp_residual(p, lambda, w, NULL);
    double sum = 0.0, max = 0.0;
    int worst = -1;
    for (int i = 0; i < 3; ++i) {
        const double e = 0.5 * w[i] * w[i] / p->A[4 * i];
        sum += e;
        if (e > max) {
            max = e;
            worst = i;
        }
    }
    heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
    cr_assert(fabs(e.max - max) <= 1e-15 * max, "max %.17g vs %.17g", e.max, max);
    cr_assert(fabs(e.sum - sum) <= 1e-15 * sum);
    cr_assert_eq(e.worst_row, worst);
    cr_assert_eq(worst, 1); /* w = (0.4 - 1, 0.2 + 3, 1.2 - 0.5): row 1 is largest */
    heft_mlcp_destroy(p);
}

Test(error, free_row_keeps_digits_of_a_tiny_residual) {
    /* lambda large, w tiny: lambda - (lambda - w/d) would return 0 */
    heft_mlcp *p = heft_mlcp_create(1, 0, HEFT_MLCP_DENSE);
    p->A[0] = 1.0;
    const double lambda[1] = {1e6};
    p->b[0] = 1e6 - 1e-9;           /* w about 1e-9, 9 ulps of 1e6 */
    const double w = 1e6 - p->b[0]; /* exact (Sterbenz) */
    cr_assert(w > 0.0);
    heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
    cr_assert(e.max > 0.0);
    cr_assert(fabs(e.max - 0.5 * w * w) <= 1e-12 * 0.5 * w * w);
    heft_mlcp_destroy(p);
}

Test(error, tight_row_uses_the_projection_onto_its_box) {
    heft_mlcp *p = small_dense();
    p->lo[0] =
        0.0; /* row 0: lambda 0.25, w large positive: the step would go to -inf, clamps at 0 */
    p->b[0] = -10.0;
    p->lo[2] = -1.0; /* row 2: lambda 0.5, the step lands inside: free formula */
    p->hi[2] = 1.0;
    const double lambda[3] = {0.25, 0.0, 0.5};
    double w[3];
    heft_mlcp_residual(p, lambda, w, NULL);
    cr_assert(w[0] > 0.0 && 0.25 - w[0] / 2.0 < 0.0); /* the projection is active */
    const double e0 = 0.5 * 0.25 * 0.25 * 2.0;        /* 0.5 (lambda - 0)^2 d */
    const double e1 = 0.5 * w[1] * w[1] / 4.0;
    const double e2 = 0.5 * w[2] * w[2] / 2.0;
    cr_assert(fabs(0.5 - w[2] / 2.0) < 1.0);
    heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
    cr_assert(fabs(e.sum - (e0 + e1 + e2)) <= 1e-15 * (e0 + e1 + e2), "sum %.17g vs %.17g", e.sum,
              e0 + e1 + e2);
    cr_assert(fabs(e.max - fmax(e0, fmax(e1, e2))) <= 1e-15);

    /* a tight row that is right (w > 0 at lo) has zero error although w != 0 */
    const double at_lo[3] = {0.0, 0.0, 0.0};
    p->b[1] = 0.0;
    p->b[2] = 0.0;
    e = heft_mlcp_measure(p, at_lo, NULL);
    cr_assert_eq(e.max, 0.0);
    heft_mlcp_destroy(p);
}

Test(error, counts_bound_violations_beyond_relative_tolerance) {
    heft_mlcp *p = heft_mlcp_create(6, 0, HEFT_MLCP_DENSE);
    for (int i = 0; i < 6; ++i)
        p->A[7 * i] = 1.0;
    p->lo[0] = 0.0;   /* row 0: lambda -1e-13, inside the 1e-12 tolerance */
    p->lo[1] = 0.0;   /* row 1: lambda -1e-9, a violation */
    p->hi[2] = 1e6;   /* row 2: 1e6 + 1e-7 is within 1e-12 relative of 1e6 */
    p->hi[3] = 1e6;   /* row 3: 1e6 + 1e-5 is not */
    p->lo[4] = 0.0;   /* row 4: normal, lambda 2 */
    p->findex[5] = 4; /* row 5: friction mu 0.5, lambda 1.5 > 0.5 * 2 */
    p->hi[5] = 0.5;
    const double lambda[6] = {-1e-13, -1e-9, 1e6 + 1e-7, 1e6 + 1e-5, 2.0, 1.5};
    heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
    cr_assert_eq(e.bound_violations, 3);
    cr_assert_eq(e.nonfinite, 0);
    /* Row 5's error uses the friction box [-1, 1]: lambda 0.5, w = 0.5 + 2 = 2.5,
     * the step to -2 clamps at -1, e = 0.5 * 1.5^2 * 1 (the constant hi 0.5 and
     * lo -inf would give 0.5 * 2.5^2). */
    p->b[4] = 2.0;
    p->b[5] = -2.0;
    const double inside[6] = {0, 0, 0, 0, 2.0, 0.5};
    e = heft_mlcp_measure(p, inside, NULL);
    cr_assert_eq(e.bound_violations, 0);
    cr_assert_eq(e.max, 0.5 * 1.5 * 1.5, "max %.17g", e.max);
    cr_assert_eq(e.worst_row, 5);
    heft_mlcp_destroy(p);
}

Test(error, handles_infinite_bounds) {
    heft_mlcp *p = heft_mlcp_create(4, 0, HEFT_MLCP_DENSE);
    for (int i = 0; i < 4; ++i)
        p->A[5 * i] = 4.0;
    /* row 0: (-inf, inf); row 1: (-inf, 1]; row 2: [-1, inf); row 3: (-inf, inf) at huge lambda */
    p->hi[1] = 1.0;
    p->lo[2] = -1.0;
    p->b[0] = 2.0;   /* w0 = 4*0 - 2 = -2 -> free: 0.5 * 4 / 4 = 0.5 */
    p->b[1] = -8.0;  /* lambda 1 at hi, w = 4 + 8 = 12 > 0: p = 1 - 3 = -2, e = 0.5 * 9 * 4 = 18 */
    p->b[2] = 4.0;   /* lambda -1 at lo, w = -4 - 4 = -8 < 0: p = -1 + 2 = 1, e = 0.5 * 4 * 4 = 8 */
    p->b[3] = 4e300; /* lambda 1e300: w = 0 */
    const double lambda[4] = {0.0, 1.0, -1.0, 1e300};
    heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
    cr_assert(isfinite(e.sum));
    cr_assert_float_eq(e.sum, 0.5 + 18.0 + 8.0, 1e-13);
    cr_assert_eq(e.max, 18.0);
    cr_assert_eq(e.worst_row, 1);
    cr_assert_eq(e.bound_violations, 0);
    cr_assert_eq(e.nonfinite, 0);
    heft_mlcp_destroy(p);
}

Test(error, counts_nonfinite_rows_and_reports_infinite_error) {
    heft_mlcp *p = small_dense();
    const double lambda[3] = {NAN, 0.0, 0.0};
    heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
    /* in the dense product 0 * NaN is NaN, so the NaN reaches every w */
    cr_assert_eq(e.nonfinite, 3);
    cr_assert(isinf(e.max));
    cr_assert_eq(e.worst_row, 0);
    heft_mlcp_destroy(p);
}

Test(error, structured_and_dense_forms_and_given_workspace_agree) {
    heft_mlcp *p = planted_random_structured(40, 12, 0.2, 1, 9);
    planted_rng rng = {42};
    double lambda[40], work[40 + 6 * 12];
    for (int i = 0; i < 40; ++i) {
        lambda[i] = planted_uniform(&rng, -1, 1);
        p->lo[i] = -0.5;
        p->hi[i] = 0.5;
    }
    heft_mlcp_error ws = heft_mlcp_measure(p, lambda, work); /* structured residual */
    heft_mlcp_error wa = heft_mlcp_measure(p, lambda, NULL);
    heft_mlcp_row *rows = p->rows;
    p->rows = NULL; /* dense only */
    heft_mlcp_error wd = heft_mlcp_measure(p, lambda, NULL);
    p->rows = rows;
    cr_assert(ws.max > 0.0);
    cr_assert(fabs(ws.max - wd.max) <= 1e-12 * ws.max);
    cr_assert(fabs(ws.sum - wd.sum) <= 1e-12 * ws.sum);
    cr_assert_eq(ws.sum, wa.sum);
    cr_assert_eq(ws.worst_row, wd.worst_row);
    cr_assert_eq(ws.bound_violations, wd.bound_violations);
    cr_assert(ws.bound_violations > 5); /* |lambda| > 0.5 happens about half the time */
    heft_mlcp_destroy(p);
}

Test(error, empty_problem_has_no_error) {
    heft_mlcp *p = heft_mlcp_create(0, 0, HEFT_MLCP_DENSE);
    heft_mlcp_error e = heft_mlcp_measure(p, NULL, NULL);
    cr_assert_eq(e.max, 0.0);
    cr_assert_eq(e.worst_row, -1);
    heft_mlcp_destroy(p);
}
