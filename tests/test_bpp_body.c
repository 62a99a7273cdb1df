/* bpp-skyline's solves in body space (solver/bpp_body.c, docs/bpp.md
 * "Solves in body space"): A_FF x = r through K = M + J_F^T E_F^-1 J_F and
 * a refinement against the exact A, on islands with more contact rows than
 * body coordinates. The backend is checked against a dense Cholesky
 * factorization of A_FF, and the whole solver against the dense bpp. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body_space.h"
#include "bpp.h"
#include "dense_cholesky.h"
#include "mlcp.h"
#include "planted.h"
#include "solve_frame.h"
#include "testdata.h"

/* The files carry the dense A beside the structured form; a test that
 * changes the structure drops A, as the engine's islands have none. */
static heft_mlcp *read_structured(const char *name) {
    heft_mlcp *p = read_testdata(name);
    p->A = NULL; /* part of the problem's one block: heft_mlcp_destroy frees it */
    return p;
}

static double max_abs(const double *x, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* A bpp-skyline state with p prepared, as a solve prepares it (its diag
 * reserved), which must take p in body space; st zeroed. */
static bpp_state *body_state(const heft_mlcp *p, heft_solver_stats *st) {
    heft_solver_options o = heft_solver_default_options();
    bpp_state *s = heft_bpp_create(&o, BPP_SKYLINE);
    cr_assert_not_null(s);
    memset(st, 0, sizeof *st);
    s->diag = malloc(sizeof(double) * (size_t)p->n);
    s->diag_cap = (size_t)p->n;
    cr_assert_eq(heft_bpp_skyline_prepare(s, p, st), 0);
    cr_assert(heft_bpp_body_active(s), "the island is taken in body space");
    return s;
}

/* The dense bpp with body space held off in its Newton stage: every stage
 * of the solve on rows, an independent reference. */
static int rows_only_solve(const heft_mlcp *p, double *lambda, heft_solver_stats *st) {
    heft_solver_options o = heft_solver_default_options();
    bpp_state *s = heft_bpp_create(&o, BPP_REFACTOR);
    cr_assert_not_null(s);
    s->newton.body_off = 1;
    const int rc = heft_bpp_solve(s, p, lambda, st);
    heft_bpp_destroy(s);
    return rc;
}

/* The dense A and the solve of A_FF x_F = r_F by a dense Cholesky of the
 * gathered block. */
static void dense_free_solve(const heft_mlcp *p, const double *A, const unsigned char *tight,
                             const double *r, double *x) {
    const int n = p->n;
    int f = 0;
    int *rows = malloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i)
        if (!tight[i])
            rows[f++] = i;
    double *L = malloc(sizeof(double) * (size_t)f * (size_t)f), *y = malloc(sizeof(double) * f);
    for (int a = 0; a < f; ++a) {
        y[a] = r[rows[a]];
        for (int c = 0; c < f; ++c)
            L[(size_t)a * f + c] = A[(size_t)rows[a] * n + rows[c]];
    }
    cr_assert_eq(heft_dense_cholesky_factor(L, f), 0);
    heft_dense_cholesky_solve(L, f, y);
    for (int i = 0; i < n; ++i)
        x[i] = 0.0;
    for (int a = 0; a < f; ++a)
        x[rows[a]] = y[a];
    free(rows);
    free(L);
    free(y);
}

/* The first step of the pyramid of base 10: 1,740 contact rows on 55 boxes
 * (330 body coordinates), every row with the contact compliance. The body
 * backend's product, columns and solves of A_FF for random tight sets
 * against the dense A: the product and columns to round-off, the solves
 * to a residual of 1e-13 of |r| + max A_ii |x| (the row skyline's
 * Cholesky reaches about 1e-15 there), and within 1e-9 of the dense
 * Cholesky's x relative to its size. */
Test(bpp_body, solves_of_a_pyramid_island_match_a_dense_cholesky) {
    heft_mlcp *p = read_structured("pyramid10-step1.mlcp");
    const int n = p->n;
    cr_assert_eq(n, 1740);
    double *A = malloc(sizeof(double) * (size_t)n * (size_t)n);
    heft_mlcp_assemble_dense(p, A);
    heft_solver_stats st;
    bpp_state *s = body_state(p, &st);
    for (int i = 0; i < n; ++i)
        cr_assert_leq(fabs(s->diag[i] - A[(size_t)i * n + i]), 1e-14 * A[(size_t)i * n + i]);

    planted_rng rng = {7};
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    double *r = malloc(sizeof(double) * n), *ref = malloc(sizeof(double) * n);
    unsigned char *tight = malloc((size_t)n);
    /* y = A x, and column j of A added in, against the dense A */
    for (int i = 0; i < n; ++i)
        x[i] = planted_uniform(&rng, -1.0, 1.0);
    heft_bpp_skyline_multiply(s, n, x, y);
    for (int i = 0; i < n; ++i) {
        double d = 0.0;
        for (int j = 0; j < n; ++j)
            d += A[(size_t)i * n + j] * x[j];
        cr_assert_leq(fabs(y[i] - d), 1e-12 * (1.0 + fabs(d)), "row %d", i);
    }
    for (int j = 0; j < n; j += 97) {
        memset(y, 0, sizeof(double) * n);
        heft_bpp_skyline_add_column(s, n, j, -2.0, y);
        for (int i = 0; i < n; ++i)
            cr_assert_leq(fabs(y[i] + 2.0 * A[(size_t)i * n + j]), 1e-13, "column %d row %d", j, i);
    }
    const double tight_share[4] = {0.0, 0.1, 0.5, 0.9};
    for (int round = 0; round < 4; ++round) {
        for (int i = 0; i < n; ++i) {
            tight[i] = planted_uniform(&rng, 0.0, 1.0) < tight_share[round];
            r[i] = x[i] = planted_uniform(&rng, -1.0, 1.0);
        }
        const int before = st.body_factorizations;
        cr_assert_eq(heft_bpp_skyline_solve(s, n, tight, x, &st), 0);
        cr_assert(heft_bpp_body_active(s));
        cr_assert_eq(st.body_factorizations, before + 1);
        dense_free_solve(p, A, tight, r, ref);
        double dmax = 0.0, rmax = 0.0, res = 0.0, diff = 0.0;
        for (int i = 0; i < n; ++i) {
            if (tight[i]) {
                cr_assert_eq(x[i], 0.0);
                continue;
            }
            double ax = 0.0;
            for (int j = 0; j < n; ++j)
                ax += A[(size_t)i * n + j] * x[j];
            res = fmax(res, fabs(ax - r[i]));
            dmax = fmax(dmax, A[(size_t)i * n + i]);
            rmax = fmax(rmax, fabs(r[i]));
            diff = fmax(diff, fabs(x[i] - ref[i]));
        }
        const double scale = rmax + dmax * max_abs(x, n);
        cr_log_info("tight share %.1f: residual %.2e of the scale, |x - x_dense| %.2e of |x|",
                    tight_share[round], res / scale, diff / max_abs(ref, n));
        cr_assert_leq(res, 1e-13 * scale, "share %.1f: %.3e", tight_share[round], res / scale);
        cr_assert_leq(diff, 1e-9 * max_abs(ref, n), "share %.1f", tight_share[round]);
    }
    heft_bpp_destroy(s);
    free(A);
    free(x);
    free(y);
    free(r);
    free(ref);
    free(tight);
    heft_mlcp_destroy(p);
}

/* K assembled a body pair's run of rows at a time (the rows of a contact
 * manifold share their bodies) holds the same bits as K assembled row by
 * row: the same products added to each entry in the same order. On the
 * pyramid island, with none, some and most of the rows tight. */
Test(bpp_body, k_assembled_by_runs_of_a_body_pair_is_k_row_by_row_to_the_bit) {
    heft_mlcp *p = read_structured("pyramid10-step1.mlcp");
    const int n = p->n;
    double *diag = malloc(sizeof(double) * (size_t)n);
    heft_body_space b;
    memset(&b, 0, sizeof b);
    cr_assert_eq(heft_body_space_take(&b, p, 0.0, NULL, diag), 1);
    const size_t stored = b.start[b.m];
    double *rowwise = malloc(sizeof(double) * stored), *runs = malloc(sizeof(double) * stored);
    unsigned char *tight = malloc((size_t)n);
    planted_rng rng = {11};
    const double tight_share[3] = {0.0, 0.3, 0.9};
    int longest = 0;
    for (int round = 0; round < 3; ++round) {
        for (int i = 0; i < n; ++i)
            tight[i] = planted_uniform(&rng, 0.0, 1.0) < tight_share[round];
        heft_body_space_mass(&b, rowwise, NULL);
        for (int i = 0; i < n; ++i)
            if (!tight[i])
                heft_body_space_add_row(&b, &p->rows[i], p->rows[i].ja, p->rows[i].jb,
                                        1.0 / p->epsilon[i], rowwise, NULL);
        heft_body_space_mass(&b, runs, NULL);
        int runs_taken = 0;
        for (int i = 0; i < n; ++runs_taken) {
            const int next = heft_body_space_add_pair_rows(&b, p, i, tight, runs);
            cr_assert_gt(next, i);
            longest = next - i > longest ? next - i : longest;
            i = next;
        }
        cr_assert_lt(runs_taken, n, "rows of one pair were taken together");
        cr_assert_eq(memcmp(rowwise, runs, sizeof(double) * stored), 0,
                     "tight share %.1f: K differs", tight_share[round]);
    }
    cr_assert_geq(longest, 3, "a contact's three rows make one run");
    heft_body_space_release(&b);
    free(diag);
    free(rowwise);
    free(runs);
    free(tight);
    heft_mlcp_destroy(p);
}

/* The whole solve: bpp-skyline on the pyramid island (in body space) and
 * the dense bpp with every stage on rows both end within the tolerance,
 * and, A + E being positive definite, at the same impulses. */
Test(bpp_body, the_pyramid_island_ends_exact_and_as_the_dense_bpp) {
    heft_mlcp *p = read_structured("pyramid10-step1.mlcp");
    const int n = p->n;
    heft_solver_options o = heft_solver_default_options();
    double *sky = calloc((size_t)n, sizeof(double)), *dense = calloc((size_t)n, sizeof(double));
    heft_solver_stats st, sd;
    cr_assert_eq(heft_solve("bpp-skyline", &o, p, sky, &st), HEFT_SOLVE_OK);
    cr_assert_gt(st.body_factorizations, 0);
    cr_assert_eq(st.answer, HEFT_ANSWER_BACKSTOP, "this island ends in the backstop");
    cr_assert_eq(rows_only_solve(p, dense, &sd), HEFT_SOLVE_OK);
    cr_assert_eq(sd.body_factorizations, 0);
    const heft_mlcp_error es = heft_mlcp_measure(p, sky, NULL);
    const heft_mlcp_error ed = heft_mlcp_measure(p, dense, NULL);
    cr_assert_leq(es.max, o.tolerance, "%.3e J", es.max);
    cr_assert_leq(ed.max, o.tolerance, "%.3e J", ed.max);
    cr_assert_eq(es.bound_violations, 0);
    double diff = 0.0;
    for (int i = 0; i < n; ++i)
        diff = fmax(diff, fabs(sky[i] - dense[i]));
    cr_log_info("bpp-skyline %.2e J in %d steps (%d body factorizations), bpp %.2e J; "
                "largest impulse difference %.2e of %.2e",
                es.max, st.iterations, st.body_factorizations, ed.max, diff, max_abs(dense, n));
    cr_assert_leq(diff, 1e-5 * max_abs(dense, n));
    free(sky);
    free(dense);
    heft_mlcp_destroy(p);
}

/* Islands body space does not take stay in rows: a row without compliance,
 * a body without mass, an island with fewer rows than 1.5 times its body
 * coordinates (the pyramid island cut short), and the chain's island,
 * whose rigid joint rows have a compliance of about 1e-10 of their A_ii.
 * Those that are well-posed are solved as before. */
Test(bpp_body, islands_it_does_not_take_stay_in_rows) {
    for (int variant = 0; variant < 4; ++variant) {
        heft_mlcp *p =
            read_structured(variant == 3 ? "chain-step120.mlcp" : "pyramid10-step1.mlcp");
        if (variant == 0)
            p->epsilon[17] = 0.0;
        else if (variant == 1)
            p->bodies[3].inv_mass = 0.0;
        else if (variant == 2)
            p->n = (int)(1.5 * 6 * p->nbodies) - 1; /* the first rows only */
        for (int i = 0; i < p->n; ++i)              /* friction rows of normals past the cut */
            if (p->findex[i] >= p->n)
                p->findex[i] = -1;
        heft_solver_options o = heft_solver_default_options();
        double *lambda = calloc((size_t)p->n, sizeof(double));
        heft_solver_stats st;
        const int rc = heft_solve("bpp-skyline", &o, p, lambda, &st);
        cr_assert_eq(st.body_factorizations, 0, "variant %d", variant);
        cr_assert_gt(st.factorizations, 0, "variant %d", variant);
        if (variant == 0 || variant == 3) {
            cr_assert_eq(rc, HEFT_SOLVE_OK, "variant %d: %.3e J", variant, st.error_max);
            cr_assert_leq(heft_mlcp_measure(p, lambda, NULL).max, o.tolerance);
        }
        free(lambda);
        heft_mlcp_destroy(p);
    }
}

/* A compliance at the edge of what body space takes (1.01e-8 of A_ii,
 * three orders below the engine's contacts) on boxes whose masses span
 * two orders: the refinement still reaches round-off (or hands the solve
 * to the row skyline), and the solve ends within the tolerance, at the
 * dense bpp's answer. */
Test(bpp_body, a_compliance_at_the_edge_still_ends_exact) {
    heft_mlcp *p = read_structured("pyramid10-step1.mlcp");
    const int n = p->n;
    planted_rng rng = {11};
    for (int k = 0; k < p->nbodies; ++k) {
        const double scale = pow(10.0, planted_uniform(&rng, -1.0, 1.0));
        p->bodies[k].inv_mass *= scale;
        for (int c = 0; c < 6; ++c)
            p->bodies[k].inv_inertia[c] *= scale;
    }
    for (int i = 0; i < n; ++i) {
        p->epsilon[i] = 0.0;
        p->epsilon[i] = 1.01e-8 * heft_mlcp_diagonal(p, i);
    }
    heft_solver_options o = heft_solver_default_options();
    double *sky = calloc((size_t)n, sizeof(double)), *dense = calloc((size_t)n, sizeof(double));
    heft_solver_stats st, sd;
    const int rc = heft_solve("bpp-skyline", &o, p, sky, &st);
    cr_log_info("bpp-skyline: %d factorizations, %d in body space, %.2e J, answer %d",
                st.factorizations, st.body_factorizations, st.error_max, st.answer);
    const int rd = rows_only_solve(p, dense, &sd);
    cr_log_info("bpp: %.2e J, answer %d", sd.error_max, sd.answer);
    cr_assert_gt(st.body_factorizations, 0);
    cr_assert_eq(rd, HEFT_SOLVE_OK, "%.3e J", sd.error_max);
    cr_assert_eq(rc, HEFT_SOLVE_OK, "%.3e J", st.error_max);
    cr_assert_leq(heft_mlcp_measure(p, sky, NULL).max, o.tolerance);
    /* every factorization in body space: the refinement held throughout */
    cr_assert_eq(st.body_factorizations, st.factorizations);
    /* the impulses of so nearly redundant contacts are not determined (the
     * two answers differ by 0.19 of 0.9), their effect is: w = A lambda - b
     * of both within 1e-6 of |b| */
    double *ws = malloc(sizeof(double) * n), *wd = malloc(sizeof(double) * n);
    double *work = malloc(sizeof(double) * 6 * (size_t)p->nbodies);
    heft_mlcp_residual(p, sky, ws, work);
    heft_mlcp_residual(p, dense, wd, work);
    double diff = 0.0;
    for (int i = 0; i < n; ++i)
        diff = fmax(diff, fabs(ws[i] - wd[i]));
    cr_log_info("w of the two answers %.2e apart, |b| %.2e", diff, max_abs(p->b, n));
    cr_assert_leq(diff, 1e-6 * max_abs(p->b, n), "%.3e", diff);
    free(ws);
    free(wd);
    free(work);
    free(sky);
    free(dense);
    heft_mlcp_destroy(p);
}

/* Body space let down to a compliance of 1e-14 of A_ii (the state's floor
 * lowered, which only tests do): the refinement cannot reach round-off,
 * the row skyline takes the solve over from the step where that happened,
 * and the solve ends within the tolerance all the same. The next solve
 * tries body space again and goes the same way (no pause: a state's
 * answers do not depend on its history). */
Test(bpp_body, a_solve_body_space_cannot_refine_is_taken_over_by_the_rows) {
    heft_mlcp *p = read_structured("pyramid10-step1.mlcp");
    const int n = p->n;
    for (int i = 0; i < n; ++i) {
        p->epsilon[i] = 0.0;
        p->epsilon[i] = 1e-14 * heft_mlcp_diagonal(p, i);
    }
    heft_solver_options o = heft_solver_default_options();
    bpp_state *s = heft_bpp_create(&o, BPP_SKYLINE);
    s->body_min_compliance = 1e-15;
    double *lambda = calloc((size_t)n, sizeof(double));
    for (int round = 0; round < 2; ++round) {
        heft_solver_stats st;
        const int rc = heft_bpp_solve(s, p, lambda, &st);
        cr_log_info("round %d: %d factorizations, %d in body space, %.2e J", round,
                    st.factorizations, st.body_factorizations, st.error_max);
        cr_assert_eq(st.body_factorizations, 1, "round %d", round);
        cr_assert_gt(st.factorizations, st.body_factorizations);
        cr_assert_eq(rc, HEFT_SOLVE_OK, "round %d: %.3e J", round, st.error_max);
        cr_assert_leq(heft_mlcp_measure(p, lambda, NULL).max, o.tolerance);
        memset(lambda, 0, sizeof(double) * (size_t)n);
    }
    heft_bpp_destroy(s);
    free(lambda);
    heft_mlcp_destroy(p);
}

/* The friction coupling's system through the bodies (bpp.c "the friction
 * coupling", heft_bpp_body_coupled_solve): on the pyramid island, for
 * random sets of friction rows held at a bound of the box of their free
 * normal row, (A_FF + C) x = r (column f of A_FF plus kappa_t times column
 * t of A for each such t) with a residual of round-off, 1e-13 of |r| +
 * max |M_aa| |x|, and within 1e-7 of a dense LU's x (the more rows are
 * coupled, the worse the system's condition: 1e-10 with 300, 5e-9 with
 * 850). A few coupled rows go by the Woodbury identity on K's Cholesky
 * factor, hundreds by K's unsymmetric LU (body_space.h). */
Test(bpp_body, the_coupled_friction_system_matches_a_dense_lu) {
    heft_mlcp *p = read_structured("pyramid10-step1.mlcp");
    const int n = p->n;
    double *A = malloc(sizeof(double) * (size_t)n * (size_t)n);
    heft_mlcp_assemble_dense(p, A);
    heft_solver_stats st;
    bpp_state *s = body_state(p, &st);
    planted_rng rng = {23};
    unsigned char *tight = malloc((size_t)n);
    double *kappa = malloc(sizeof(double) * n), *x = malloc(sizeof(double) * n);
    double *r = malloc(sizeof(double) * n);
    int *rows = malloc(sizeof(int) * n), *slot = malloc(sizeof(int) * n);
    /* a few coupled rows (the Woodbury identity on K's Cholesky factor),
     * then hundreds (K's unsymmetric LU) */
    const double share[4] = {0.01, 0.3, 0.6, 0.9};
    for (int round = 0; round < 4; ++round) {
        for (int i = 0; i < n; ++i) {
            kappa[i] = 0.0;
            tight[i] = p->findex[i] < 0 && planted_uniform(&rng, 0.0, 1.0) < 0.2;
        }
        int coupled = 0;
        for (int t = 0; t < n; ++t)
            if (p->findex[t] >= 0 && !tight[p->findex[t]] &&
                planted_uniform(&rng, 0.0, 1.0) < share[round]) {
                tight[t] = 1;
                kappa[t] = (planted_uniform(&rng, 0.0, 1.0) < 0.5 ? -1.0 : 1.0) * fabs(p->hi[t]);
                ++coupled;
            } else if (p->findex[t] >= 0 && tight[p->findex[t]]) {
                tight[t] = 1; /* a friction row of a tight normal row: held at zero */
            }
        int f = 0;
        for (int i = 0; i < n; ++i) {
            slot[i] = tight[i] ? -1 : f;
            if (!tight[i])
                rows[f++] = i;
            r[i] = x[i] = tight[i] ? 0.0 : planted_uniform(&rng, -1.0, 1.0);
        }
        cr_assert_eq(heft_bpp_body_coupled_solve(s, tight, kappa, x, &st), 0, "round %d", round);
        cr_assert_eq(heft_bpp_body_used_lu(s), round > 0, "round %d: Woodbury or LU", round);
        /* the dense matrix of the free rows, row-major, and its LU */
        double *M = malloc(sizeof(double) * (size_t)f * (size_t)f), *y = malloc(sizeof(double) * f);
        int *pivot = malloc(sizeof(int) * f);
        for (int a = 0; a < f; ++a) {
            y[a] = r[rows[a]];
            for (int c = 0; c < f; ++c)
                M[(size_t)a * f + c] = A[(size_t)rows[a] * n + rows[c]];
        }
        for (int t = 0; t < n; ++t)
            if (kappa[t] != 0.0)
                for (int a = 0; a < f; ++a)
                    M[(size_t)a * f + slot[p->findex[t]]] += kappa[t] * A[(size_t)rows[a] * n + t];
        /* the body solve's residual, relative to |r| + max |M_aa| |x| */
        double res = 0.0, rmax = 0.0, dmax = 0.0, xmax = 0.0;
        for (int a = 0; a < f; ++a) {
            double mx = 0.0;
            for (int c = 0; c < f; ++c)
                mx += M[(size_t)a * f + c] * x[rows[c]];
            res = fmax(res, fabs(mx - r[rows[a]]));
            rmax = fmax(rmax, fabs(r[rows[a]]));
            dmax = fmax(dmax, fabs(M[(size_t)a * f + a]));
            xmax = fmax(xmax, fabs(x[rows[a]]));
        }
        cr_assert(heft_bpp_lu_factor(M, f, pivot));
        heft_bpp_lu_solve(M, f, pivot, y);
        double diff = 0.0, size = 0.0;
        for (int a = 0; a < f; ++a) {
            diff = fmax(diff, fabs(x[rows[a]] - y[a]));
            size = fmax(size, fabs(y[a]));
        }
        for (int i = 0; i < n; ++i)
            if (tight[i])
                cr_assert_eq(x[i], 0.0);
        cr_log_info("%d coupled friction rows, %d free: residual %.2e of the scale, "
                    "|x - x_dense| %.2e of |x|",
                    coupled, f, res / (rmax + dmax * xmax), diff / size);
        cr_assert_gt(coupled, 5);
        cr_assert_leq(res, 1e-13 * (rmax + dmax * xmax), "round %d", round);
        cr_assert_leq(diff, 1e-7 * size, "round %d", round);
        free(M);
        free(y);
        free(pivot);
    }
    heft_bpp_destroy(s);
    free(A);
    free(tight);
    free(kappa);
    free(x);
    free(r);
    free(rows);
    free(slot);
    heft_mlcp_destroy(p);
}

/* The Newton stage twice from one start on the pyramid island (its sides
 * swapped on every friction row when swap: the same A), first with body
 * space (way 0), then with it held off (way 1): res[way], and the
 * workspace's body_active at the end in active[way]. The two answers must
 * be the same impulses within 1e-6 of their size, and the steps within 2.
 * The start is an answer with every impulse moved by up to 1% (of the
 * largest), seeded by seed. */
static void newton_both_ways(int swap, uint64_t seed, heft_newton_result res[2], int active[2]) {
    heft_mlcp *p = read_structured("pyramid10-step1.mlcp");
    const int n = p->n;
    double *start = calloc((size_t)n, sizeof(double));
    heft_solver_options o = heft_solver_default_options();
    heft_solver_stats st;
    cr_assert_eq(heft_solve("bpp-skyline", &o, p, start, &st), HEFT_SOLVE_OK);
    const double size = max_abs(start, n);
    planted_rng rng = {seed};
    for (int i = 0; i < n; ++i)
        start[i] += 0.01 * size * planted_uniform(&rng, -1.0, 1.0);
    for (int t = 0; swap && t < n; ++t) {
        if (p->findex[t] < 0)
            continue;
        heft_mlcp_row *r = &p->rows[t];
        const int32_t a = r->a;
        double ja[6];
        memcpy(ja, r->ja, sizeof ja);
        r->a = r->b;
        memcpy(r->ja, r->jb, sizeof ja);
        r->b = a;
        memcpy(r->jb, ja, sizeof ja);
    }
    double *answer[2], *work = malloc(sizeof(double) * ((size_t)n + 6 * (size_t)p->nbodies));
    for (int way = 0; way < 2; ++way) {
        heft_newton ws;
        memset(&ws, 0, sizeof ws);
        ws.last_stage = 1;
        ws.body_off = way == 1;
        answer[way] = malloc(sizeof(double) * n);
        heft_newton_solve(&ws, p, start, 1e-12, 100, answer[way], work, &res[way]);
        cr_log_info("swap %d, body space %s: status %d after %d steps, %.2e J", swap,
                    way == 0 ? "on" : "off", res[way].status, res[way].steps, res[way].error_max);
        active[way] = ws.body_active;
        heft_newton_release(&ws);
    }
    cr_assert_leq(abs(res[0].steps - res[1].steps), 2);
    double diff = 0.0;
    for (int i = 0; i < n; ++i)
        diff = fmax(diff, fabs(answer[0][i] - answer[1][i]));
    cr_assert_leq(diff, 1e-6 * max_abs(answer[1], n));
    free(answer[0]);
    free(answer[1]);
    free(start);
    free(work);
    heft_mlcp_destroy(p);
}

/* The Newton stage on the pyramid island from a perturbed answer: it steps
 * in body space (heft_newton.body_active) and ends within 1e-12 J; with
 * body space held off it steps on the rows' envelope, in as many steps, to
 * the same impulses. */
Test(bpp_body, the_newton_stage_steps_in_body_space_and_ends_as_on_rows) {
    heft_newton_result res[2];
    int active[2];
    newton_both_ways(0, 5, res, active);
    for (int way = 0; way < 2; ++way) {
        cr_assert_eq(active[way], way == 0);
        cr_assert_eq(res[way].status, HEFT_NEWTON_SOLVED, "way %d", way);
        cr_assert_leq(res[way].error_max, 1e-12);
    }
}

/* The Newton stage's way back to rows: with every friction row's sides
 * swapped (a and b, ja and jb: the same A), a friction row held on its
 * normal's box is on other bodies than its normal row by index, which
 * body space does not fold, so the first such step hands the start to the
 * rows' envelope, built there for the first time in this workspace (the
 * engine before read that ordering before building it: a NULL array). The
 * start ends as the same start on rows from the beginning does (on this
 * problem the rows' ordering, built from the swapped pairs, leaves both
 * 8.5e-11 J off after 47 steps: above 1e-12 J, near an answer). */
Test(bpp_body, the_newton_stage_goes_back_to_rows_mid_start) {
    heft_newton_result res[2];
    int active[2];
    newton_both_ways(1, 9, res, active);
    cr_assert(!active[0] && !active[1], "both starts ended on rows");
    cr_assert_eq(res[0].status, res[1].status);
    cr_assert_leq(res[0].error_max, 1e-9);
}

/* The pivoting solvers measure a problem with its rows' A_ii computed once
 * and hand them to body space: that is right only when they are, to the
 * bit, what the error measure and body space compute row by row. On the
 * pyramid island (1,740 rows, no dense A) and a random answer: the same
 * A_ii, the same body-space diagonal when handed in, the same measure. */
Test(bpp_body, the_measures_diagonal_given_is_the_one_computed_to_the_bit) {
    heft_mlcp *p = read_structured("pyramid10-step1.mlcp");
    cr_assert_null(p->A);
    const int n = p->n;
    double *known = malloc(sizeof(double) * (size_t)n);
    double *diag = malloc(sizeof(double) * (size_t)n), *again = malloc(sizeof(double) * (size_t)n);
    double *x = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; ++i)
        known[i] = heft_mlcp_diagonal(p, i);
    heft_body_space b;
    memset(&b, 0, sizeof b);
    cr_assert_eq(heft_body_space_take(&b, p, 0.0, NULL, diag), 1);
    cr_assert_eq(heft_body_space_take(&b, p, 0.0, known, again), 1);
    cr_assert_eq(memcmp(diag, known, sizeof(double) * (size_t)n), 0);
    cr_assert_eq(memcmp(again, known, sizeof(double) * (size_t)n), 0);
    planted_rng rng = {5};
    for (int i = 0; i < n; ++i)
        x[i] = planted_uniform(&rng, 0.0, 2.0);
    heft_bpp_clamp_answer(p, x);
    const heft_mlcp_error e = heft_mlcp_measure(p, x, NULL);
    const heft_mlcp_error g = heft_mlcp_measure_diagonal(p, x, known, NULL);
    cr_assert_gt(e.max, 0.0);
    cr_assert_eq(memcmp(&e.max, &g.max, sizeof e.max), 0);
    cr_assert_eq(memcmp(&e.sum, &g.sum, sizeof e.sum), 0);
    cr_assert_eq(e.worst_row, g.worst_row);
    /* a diagonal that is not the problem's changes the measure: the test
     * above can fail */
    known[e.worst_row] *= 2.0;
    const heft_mlcp_error h = heft_mlcp_measure_diagonal(p, x, known, NULL);
    cr_assert_neq(h.sum, e.sum);
    heft_body_space_release(&b);
    free(known);
    free(diag);
    free(again);
    free(x);
    heft_mlcp_destroy(p);
}
