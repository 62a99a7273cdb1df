/* Tests of the block principal pivoting solvers "bpp", "bpp-downdate" and
 * "bpp-skyline" (solver/bpp.c; [Lefebvre 2020] chapter 2, [Ho 2022] §2.5).
 *
 * The three differ only in how they solve A_FF lambda_F = b_F - A_FT lambda_T,
 * so on the same problem they must walk the same index sets and give the same
 * lambda to round-off. Planted problems (planted.h) have a known answer. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpp.h"
#include "mlcp.h"
#include "counting_allocator.h"
#include "planted.h"
#include "testdata.h"

static const char *const solvers[3] = {"bpp", "bpp-downdate", "bpp-skyline"};

/* Diagonal dominance of the planted problems (through the compliance): lower
 * than the PGS tests use, since a pivoting solver does not need it. */
#define DOMINANCE 0.02

static int solve_once(const char *name, const heft_solver_options *o, const heft_mlcp *p,
                      double *lambda, heft_solver_stats *stats) {
    const heft_solver_vtable *vt = heft_solver_find(name);
    cr_assert_not_null(vt, "%s is not registered", name);
    void *state = vt->create(o);
    cr_assert_not_null(state);
    const int rc = vt->solve(state, p, lambda, stats);
    vt->destroy(state);
    return rc;
}

static double max_abs(const double *x, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* The friction rows of a planted problem turned into plain boxes with the
 * bounds they have at the planted answer: the same answer, no coupling. */
static void decouple_friction(planted_problem *pp) {
    heft_mlcp *p = pp->p;
    for (int i = 0; i < p->n; ++i) {
        if (p->findex[i] < 0)
            continue;
        double lo, hi;
        heft_mlcp_bounds(p, pp->solution, i, &lo, &hi);
        p->lo[i] = lo;
        p->hi[i] = hi;
        p->findex[i] = -1;
    }
}

static int count_friction(const heft_mlcp *p) {
    int c = 0;
    for (int i = 0; i < p->n; ++i)
        c += p->findex[i] >= 0;
    return c;
}

/* Solves one planted problem with the three solvers and holds them to the
 * planted answer, to an MLCP error below 1e-10 J and to each other. */
static void expect_three_agree(planted_problem *pp, const char *form, int seed) {
    const heft_mlcp *p = pp->p;
    const int n = p->n;
    const heft_solver_options o = heft_solver_default_options();
    double *lambda[3];
    heft_solver_stats st[3];
    for (int s = 0; s < 3; ++s) {
        lambda[s] = malloc(sizeof(double) * n);
        const int rc = solve_once(solvers[s], &o, p, lambda[s], &st[s]);
        char trace[256] = "";
        for (int k = 0, at = 0; k < st[s].tight_trace_count && at < 240; ++k)
            at += snprintf(trace + at, sizeof trace - (size_t)at, "%s%d", k ? "," : "",
                           st[s].tight_trace[k]);
        cr_log_info("%-12s %s n=%d seed=%d: rc %d, %d steps (tight %s), %d factorizations, %d "
                    "downdates, error %.3g J, |lambda - lambda*| %.3g, %.3f ms (factor %.3f, "
                    "ordering %.3f, assembly %.3f)",
                    solvers[s], form, n, seed, rc, st[s].iterations, trace, st[s].factorizations,
                    st[s].downdates, st[s].error_max, planted_max_diff(lambda[s], pp->solution, n),
                    st[s].time_total_ms, st[s].time_factor_ms, st[s].time_ordering_ms,
                    st[s].time_assembly_ms);
        cr_assert_eq(rc, HEFT_SOLVE_OK, "%s %s n=%d seed=%d: rc %d after %d steps", solvers[s],
                     form, n, seed, rc, st[s].iterations);
        cr_assert_eq(st[s].converged, 1);
        cr_assert_eq(st[s].n, n);
        cr_assert(st[s].error_max < 1e-10, "%s: error %g J", solvers[s], st[s].error_max);
        cr_assert_eq(st[s].bound_violations, 0);
        cr_assert(st[s].iterations >= 1 && st[s].iterations <= o.max_pivots);
        cr_assert_eq(st[s].tight_trace_count, st[s].iterations);
        cr_assert(st[s].factorizations >= 1);
        cr_assert(st[s].time_total_ms >= st[s].time_factor_ms);
        const heft_mlcp_error err = heft_mlcp_measure(p, lambda[s], NULL);
        cr_assert_eq(st[s].error_max, err.max);
        /* the planted answer (unique here: A is positive definite) */
        const double scale = fmax(1.0, max_abs(pp->solution, n));
        cr_assert(planted_max_diff(lambda[s], pp->solution, n) < 1e-7 * scale,
                  "%s: |lambda - lambda*| = %g", solvers[s],
                  planted_max_diff(lambda[s], pp->solution, n));
    }
    const double scale = max_abs(lambda[0], n);
    for (int s = 1; s < 3; ++s) {
        const double d = planted_max_diff(lambda[0], lambda[s], n);
        cr_assert(d <= 1e-9 * scale, "%s vs bpp: %g (scale %g)", solvers[s], d, scale);
        cr_assert_eq(st[s].iterations, st[0].iterations, "%s walked other index sets", solvers[s]);
    }
    for (int s = 0; s < 3; ++s)
        free(lambda[s]);
}

static void planted_case(int n, int friction, int seeds) {
    for (int seed = 1; seed <= seeds; ++seed) {
        planted_problem pp = planted_structured(n, DOMINANCE, 0, (uint64_t)seed);
        cr_assert_not_null(pp.p);
        if (!friction)
            decouple_friction(&pp);
        cr_assert(friction ? count_friction(pp.p) > 0 : count_friction(pp.p) == 0);
        cr_assert(pp.at_lo + pp.at_hi + pp.sliding > 0, "no tight row: nothing to pivot");
        expect_three_agree(&pp, friction ? "friction" : "boxes", seed);
        planted_free(&pp);
    }
}

Test(bpp, three_solvers_agree_on_planted_problem_10_rows_with_friction) {
    planted_case(10, 1, 4);
}
Test(bpp, three_solvers_agree_on_planted_problem_50_rows_with_friction) {
    planted_case(50, 1, 3);
}
Test(bpp, three_solvers_agree_on_planted_problem_200_rows_with_friction) {
    planted_case(200, 1, 2);
}
Test(bpp, three_solvers_agree_on_planted_problem_1000_rows_with_friction, .timeout = 300) {
    planted_case(1000, 1, 1);
}
Test(bpp, three_solvers_agree_on_planted_problem_10_rows_without_friction) {
    planted_case(10, 0, 4);
}
Test(bpp, three_solvers_agree_on_planted_problem_50_rows_without_friction) {
    planted_case(50, 0, 3);
}
Test(bpp, three_solvers_agree_on_planted_problem_200_rows_without_friction) {
    planted_case(200, 0, 2);
}
Test(bpp, three_solvers_agree_on_planted_problem_1000_rows_without_friction, .timeout = 300) {
    planted_case(1000, 0, 1);
}

/* The same planted problem given only as a dense A (no structure): the
 * skyline solver orders the nonzero pattern of A instead. */
Test(bpp, three_solvers_agree_on_dense_only_planted_problems) {
    for (int seed = 1; seed <= 2; ++seed) {
        planted_problem pp = planted_structured(150, DOMINANCE, 1, (uint64_t)seed);
        pp.p->rows = NULL;
        pp.p->nbodies = 0;
        expect_three_agree(&pp, "dense-only", seed);
        planted_free(&pp);
    }
    planted_problem dense = planted_dense(60, 0.1, 3);
    expect_three_agree(&dense, "dense B B^T", 3);
    planted_free(&dense);
}

/* ---- cycling ------------------------------------------------------------------------ */

/* A 3 x 3 LCP (lambda >= 0, w >= 0) on which block pivoting from all-free
 * cycles: {} -> {0,1} -> {0,2} -> {} ... (found by a search over small
 * integer SPD matrices; det A = 16). Its answer is lambda = (0, 21/38, 4/19)
 * with row 0 tight. */
static heft_mlcp *cycling_problem(void) {
    static const double A[9] = {6, -7, 11, -7, 10, -12, 11, -12, 22};
    static const double b[3] = {-2, 3, -2};
    heft_mlcp *p = heft_mlcp_create(3, 0, HEFT_MLCP_DENSE);
    memcpy(p->A, A, sizeof A);
    memcpy(p->b, b, sizeof b);
    for (int i = 0; i < 3; ++i)
        p->lo[i] = 0.0;
    return p;
}

/* Block pivoting cycles; after BPP_CYCLE_BUDGET steps without a new low it
 * stops and, without the restart from PGS's answer, the fall-back of bpp.c
 * ("frozen friction boxes": here no friction, so fixed boxes) solves the
 * problem as a box-constrained QP by projected Newton, which cannot cycle.
 * With the restart see the_restart_from_pgs_converges_where_pivoting_stalled. */
Test(bpp, cycling_problem_falls_back_to_projected_newton_and_solves_it) {
    heft_mlcp *p = cycling_problem();
    heft_solver_options o = heft_solver_default_options();
    o.bpp_pgs_sweeps = 0;
    for (int s = 0; s < 3; ++s) {
        double lambda[3];
        heft_solver_stats st;
        const int rc = solve_once(solvers[s], &o, p, lambda, &st);
        cr_log_info("%s on the cycling problem: rc %d, %d steps, tight %d %d %d %d %d %d %d, "
                    "fallback %d, lambda (%.6f %.6f %.6f)",
                    solvers[s], rc, st.iterations, st.tight_trace[0], st.tight_trace[1],
                    st.tight_trace[2], st.tight_trace[3], st.tight_trace[4], st.tight_trace[5],
                    st.tight_trace[6], st.fallback, lambda[0], lambda[1], lambda[2]);
        cr_assert_eq(rc, HEFT_SOLVE_OK);
        cr_assert_eq(st.fallback, 1, "%s did not fall back", solvers[s]);
        /* the cycle {} {0,1} {0,2} twice over (budget), then one projected
         * Newton step from the best iterate (there is no warm start) holding
         * row 0, whose full step is the answer */
        const int trace[7] = {0, 2, 2, 0, 2, 0, 1};
        cr_assert_eq(st.iterations, 7);
        for (int k = 0; k < 7; ++k)
            cr_assert_eq(st.tight_trace[k], trace[k]);
        cr_assert(fabs(lambda[0]) < 1e-15);
        cr_assert(fabs(lambda[1] - 21.0 / 38.0) < 1e-14);
        cr_assert(fabs(lambda[2] - 4.0 / 19.0) < 1e-14);
        cr_assert(st.error_max < 1e-28);
    }
    heft_mlcp_destroy(p);
}

/* The iterate of one index set of the cycling problem: lambda_T = 0, A_FF
 * lambda_F = b_F (Cramer-free: by the solver itself would be circular, so by
 * elimination here). */
static void iterate_of(const heft_mlcp *p, const int *tight, double *lambda) {
    int F[3], f = 0;
    for (int i = 0; i < 3; ++i)
        if (!tight[i])
            F[f++] = i;
    double M[3][4];
    for (int r = 0; r < f; ++r) {
        for (int c = 0; c < f; ++c)
            M[r][c] = p->A[F[r] * 3 + F[c]];
        M[r][f] = p->b[F[r]];
    }
    for (int k = 0; k < f; ++k)
        for (int r = k + 1; r < f; ++r) {
            const double m = M[r][k] / M[k][k];
            for (int c = k; c <= f; ++c)
                M[r][c] -= m * M[k][c];
        }
    double x[3];
    for (int k = f - 1; k >= 0; --k) {
        double sum = M[k][f];
        for (int c = k + 1; c < f; ++c)
            sum -= M[k][c] * x[c];
        x[k] = sum / M[k][k];
    }
    for (int i = 0; i < 3; ++i)
        lambda[i] = 0.0;
    for (int r = 0; r < f; ++r)
        lambda[F[r]] = x[r];
}

/* A budget spent inside the cycle (3 steps: one turn, no stall seen yet)
 * ends the pivoting without an answer; the frozen-box fall-back starts from
 * the best iterate (the one of smallest MLCP error among the three of the
 * cycle, each with two infeasible variables) and finishes within a budget
 * of its own. */
Test(bpp, a_budget_spent_inside_a_cycle_is_finished_by_projected_newton) {
    heft_mlcp *p = cycling_problem();
    heft_solver_options o = heft_solver_default_options();
    o.max_pivots = 3; /* one turn of the cycle */
    const int sets[3][3] = {{0, 0, 0}, {1, 1, 0}, {1, 0, 1}};
    double best_error = INFINITY;
    for (int k = 0; k < 3; ++k) {
        double it[3];
        iterate_of(p, sets[k], it);
        for (int i = 0; i < 3; ++i) /* inside its box, as the fall-back takes it */
            it[i] = fmax(it[i], 0.0);
        const heft_mlcp_error e = heft_mlcp_measure(p, it, NULL);
        cr_log_info("cycle iterate %d: lambda (%.4f %.4f %.4f), error %.4g J", k, it[0], it[1],
                    it[2], e.max);
        best_error = fmin(best_error, e.max);
    }
    cr_assert_gt(best_error, 1e-3); /* no iterate of the cycle is near the answer */
    for (int s = 0; s < 3; ++s) {
        double lambda[3];
        heft_solver_stats st;
        const int rc = solve_once(solvers[s], &o, p, lambda, &st);
        cr_log_info("%s: rc %d after %d steps", solvers[s], rc, st.iterations);
        cr_assert_eq(rc, HEFT_SOLVE_OK);
        cr_assert_eq(st.fallback, 1);
        cr_assert(st.iterations > 3 && st.iterations <= 6, "%d", st.iterations);
        cr_assert(fabs(lambda[0]) < 1e-15);
        cr_assert(fabs(lambda[1] - 21.0 / 38.0) < 1e-14);
        cr_assert(fabs(lambda[2] - 4.0 / 19.0) < 1e-14);
    }
    heft_mlcp_destroy(p);
}

/* ---- redundant rows ----------------------------------------------------------------- */

/* A 2 kg box resting on the ground on one contact (normal and two friction
 * rows) and held sideways by a bilateral row given twice (two identical rows
 * of J): J M^-1 J^T is singular, the compliance 1e-10 makes A positive
 * definite with a condition number near 1e10. */
static heft_mlcp *redundant_problem(void) {
    heft_mlcp *p = heft_mlcp_create(5, 1, HEFT_MLCP_STRUCTURED | HEFT_MLCP_META);
    p->bodies[0].inv_mass = 0.5;
    p->bodies[0].inv_inertia[0] = p->bodies[0].inv_inertia[3] = p->bodies[0].inv_inertia[5] = 6.0;
    const double h = 1.0 / 60.0, g = 9.81;
    /* normal row: z */
    p->rows[0] = (heft_mlcp_row){0, -1, {0, 0, 1, 0.1, 0, 0}, {0}};
    p->kind[0] = HEFT_ROW_NORMAL;
    p->lo[0] = 0.0;
    p->b[0] = g * h; /* -J (v + h M^-1 f) with v = 0, f = -m g */
    /* friction rows x, y with mu = 0.5 */
    p->rows[1] = (heft_mlcp_row){0, -1, {1, 0, 0, 0, 0.1, 0}, {0}};
    p->rows[2] = (heft_mlcp_row){0, -1, {0, 1, 0, 0, 0, 0.1}, {0}};
    p->findex[1] = p->findex[2] = 0;
    p->hi[1] = p->hi[2] = 0.5;
    p->kind[1] = p->kind[2] = HEFT_ROW_FRICTION;
    p->b[1] = 0.3; /* pushed along x */
    /* the same bilateral row twice: holds y */
    for (int r = 3; r < 5; ++r) {
        p->rows[r] = (heft_mlcp_row){0, -1, {0, 1, 0, 0, 0, 0}, {0}};
        p->b[r] = 0.2;
    }
    for (int i = 0; i < 5; ++i)
        p->epsilon[i] = 1e-10;
    return p;
}

Test(bpp, redundant_rows_with_compliance_are_solved) {
    heft_mlcp *p = redundant_problem();
    const heft_solver_options o = heft_solver_default_options();
    double answers[3][5];
    for (int s = 0; s < 3; ++s) {
        double *lambda = answers[s];
        heft_solver_stats st;
        const int rc = solve_once(solvers[s], &o, p, lambda, &st);
        cr_log_info("%s redundant rows: rc %d, %d steps, error %.3g J, lambda (%.6g %.6g %.6g "
                    "%.6g %.6g)",
                    solvers[s], rc, st.iterations, st.error_max, lambda[0], lambda[1], lambda[2],
                    lambda[3], lambda[4]);
        cr_assert_eq(rc, HEFT_SOLVE_OK);
        cr_assert(st.error_max < 1e-10, "error %g", st.error_max);
        cr_assert_eq(st.bound_violations, 0);
        /* the twin rows share their impulse equally (the compliance decides) */
        cr_assert(fabs(lambda[3] - lambda[4]) < 1e-6 * fabs(lambda[3]));
        cr_assert(lambda[0] > 0.0);
        for (int i = 0; i < 5; ++i)
            cr_assert(isfinite(lambda[i]));
    }
    /* how the twins split their impulse depends on A to a condition number of
     * about 1e10, so the solvers agree on it to round-off times that; on
     * everything the physics sees (the other rows, the twins' sum) they agree
     * to 1e-9 */
    const double scale = max_abs(answers[0], 5);
    for (int s = 1; s < 3; ++s) {
        for (int i = 0; i < 3; ++i)
            cr_assert(fabs(answers[s][i] - answers[0][i]) <= 1e-9 * scale);
        cr_assert(fabs(answers[s][3] + answers[s][4] - answers[0][3] - answers[0][4]) <=
                  1e-9 * scale);
        cr_assert(fabs(answers[s][3] - answers[0][3]) <= 1e-5 * scale);
    }
    heft_mlcp_destroy(p);
}

/* Redundant rows across a whole planted island: every 7th row duplicated
 * (same bodies, same Jacobian), compliance 1e-10 everywhere. */
Test(bpp, planted_island_with_duplicated_rows_is_solved) {
    planted_problem pp = planted_structured(90, DOMINANCE, 0, 8);
    heft_mlcp *p = pp.p;
    for (int i = 7; i < p->n; i += 7) {
        if (p->findex[i] >= 0 || p->findex[i - 1] >= 0 || p->kind[i] == HEFT_ROW_NORMAL ||
            p->kind[i - 1] == HEFT_ROW_NORMAL)
            continue;
        p->rows[i] = p->rows[i - 1];
        p->lo[i] = p->lo[i - 1];
        p->hi[i] = p->hi[i - 1];
        p->b[i] = p->b[i - 1];
    }
    for (int i = 0; i < p->n; ++i)
        p->epsilon[i] = 1e-10;
    const heft_solver_options o = heft_solver_default_options();
    double lambda[3][90];
    for (int s = 0; s < 3; ++s) {
        heft_solver_stats st;
        const int rc = solve_once(solvers[s], &o, p, lambda[s], &st);
        cr_log_info("%s duplicated rows n=90: rc %d, %d steps, error %.3g J", solvers[s], rc,
                    st.iterations, st.error_max);
        cr_assert_eq(rc, HEFT_SOLVE_OK);
        cr_assert(st.error_max < 1e-10, "%s: error %g", solvers[s], st.error_max);
        cr_assert_eq(st.bound_violations, 0);
    }
    for (int s = 1; s < 3; ++s)
        cr_assert(planted_max_diff(lambda[0], lambda[s], 90) <= 1e-6 * max_abs(lambda[0], 90));
    planted_free(&pp);
}

/* ---- warm start and state ------------------------------------------------------------ */

Test(bpp, kept_index_sets_reduce_pivoting_steps_on_a_perturbed_resolve) {
    for (int s = 0; s < 3; ++s) {
        planted_problem pp = planted_structured(300, DOMINANCE, 0, 5);
        heft_mlcp *p = pp.p;
        const int n = p->n;
        const heft_solver_vtable *vt = heft_solver_find(solvers[s]);
        heft_solver_options o = heft_solver_default_options();
        void *state = vt->create(&o);
        double *lambda = malloc(sizeof(double) * n);
        heft_solver_stats first, warm, cold;
        cr_assert_eq(vt->solve(state, p, lambda, &first), HEFT_SOLVE_OK);

        /* the next step: b moves by 1% of its size, the impulses warm start */
        planted_rng rng = {99};
        for (int i = 0; i < n; ++i)
            p->b[i] += 0.01 * planted_uniform(&rng, -1.0, 1.0) * fmax(1.0, fabs(p->b[i]));
        memcpy(p->lambda0, lambda, sizeof(double) * n);
        cr_assert_eq(vt->solve(state, p, lambda, &warm), HEFT_SOLVE_OK);

        o.keep_index_sets = 0;
        o.warm_start = 0; /* no sets read off the warm start either: all free */
        void *fresh = vt->create(&o);
        cr_assert_eq(vt->solve(fresh, p, lambda, &cold), HEFT_SOLVE_OK);
        cr_log_info("%s n=%d: first solve %d steps, perturbed re-solve %d steps from the kept "
                    "sets, %d from all-free",
                    solvers[s], n, first.iterations, warm.iterations, cold.iterations);
        cr_assert(warm.iterations < cold.iterations);
        cr_assert(warm.error_max < 1e-10 && cold.error_max < 1e-10);

        /* reset() forgets the sets: the sets are then read off the warm
         * start (fewer steps than all-free), and with no warm start it is
         * the all-free count again */
        vt->reset(state);
        heft_solver_stats reread;
        cr_assert_eq(vt->solve(state, p, lambda, &reread), HEFT_SOLVE_OK);
        cr_assert(reread.iterations < cold.iterations, "%d steps from the warm start's sets",
                  reread.iterations);
        cr_assert(reread.error_max < 1e-10);
        vt->reset(state);
        memset(p->lambda0, 0, sizeof(double) * n);
        cr_assert_eq(vt->solve(state, p, lambda, &warm), HEFT_SOLVE_OK);
        cr_assert_eq(warm.iterations, cold.iterations);
        vt->destroy(state);
        vt->destroy(fresh);
        free(lambda);
        planted_free(&pp);
    }
}

/* A warm start that already answers is the answer: no pivoting step, no
 * factorization, the same impulses; one off by 1e-3 relative is pivoted
 * from. Over every block-pivoting solver, on planted problems with and
 * without friction (the answer known to round-off, the error measure
 * within 1e-10 J). */
Test(bpp, a_warm_start_that_answers_ends_the_solve_before_any_factorization) {
    const char *const names[] = {"bpp", "bpp-downdate", "bpp-skyline", "bpp-pcg", "bpp-sparse"};
    for (int k = 0; k < 5; ++k) {
        const heft_solver_vtable *vt = heft_solver_find(names[k]);
        if (vt == NULL)
            continue; /* bpp-sparse without SuiteSparse */
        for (int friction = 0; friction < 2; ++friction) {
            planted_problem pp = planted_structured(120, DOMINANCE, 0, 11 + friction);
            heft_mlcp *p = pp.p;
            const int n = p->n;
            if (!friction)
                decouple_friction(&pp);
            heft_solver_options o = heft_solver_default_options();
            void *state = vt->create(&o);
            double *lambda = malloc(sizeof(double) * n);
            heft_solver_stats st;
            memset(p->lambda0, 0, sizeof(double) * n);
            cr_assert_eq(vt->solve(state, p, lambda, &st), HEFT_SOLVE_OK, "%s", names[k]);
            cr_assert(st.iterations > 0 && st.factorizations > 0);

            memcpy(p->lambda0, lambda, sizeof(double) * n);
            heft_solver_stats again;
            double *second = malloc(sizeof(double) * n);
            cr_assert_eq(vt->solve(state, p, second, &again), HEFT_SOLVE_OK, "%s", names[k]);
            cr_assert_eq(again.iterations, 0, "%s: %d pivoting steps", names[k], again.iterations);
            cr_assert_eq(again.factorizations, 0);
            cr_assert_eq(again.answer, HEFT_ANSWER_SOLVER);
            cr_assert(again.converged && again.error_max <= 1e-10);
            cr_assert_eq(memcmp(second, lambda, sizeof(double) * n), 0, "%s", names[k]);

            /* off by 1e-3 of the largest impulse: above the tolerance, so
             * the solve pivots, and from the sets read off it */
            const double off = 1e-3 * fmax(max_abs(lambda, n), 1.0);
            for (int i = 0; i < n; ++i)
                p->lambda0[i] = lambda[i] + (i % 2 ? off : -off);
            cr_assert_eq(vt->solve(state, p, second, &again), HEFT_SOLVE_OK, "%s", names[k]);
            cr_assert(again.iterations > 0, "%s", names[k]);
            cr_assert(again.error_max <= 1e-10);
            for (int i = 0; i < n; ++i)
                cr_assert(fabs(second[i] - pp.solution[i]) <=
                              1e-6 * fmax(1.0, fabs(pp.solution[i])),
                          "%s row %d: %g against %g", names[k], i, second[i], pp.solution[i]);
            vt->destroy(state);
            free(lambda);
            free(second);
            planted_free(&pp);
        }
    }
}

Test(bpp, kept_sets_of_another_size_are_not_used) {
    planted_problem big = planted_structured(120, DOMINANCE, 0, 2);
    planted_problem small = planted_structured(60, DOMINANCE, 0, 2);
    for (int s = 0; s < 3; ++s) {
        const heft_solver_vtable *vt = heft_solver_find(solvers[s]);
        const heft_solver_options o = heft_solver_default_options();
        void *state = vt->create(&o);
        double lambda[120];
        heft_solver_stats a, b, c;
        cr_assert_eq(vt->solve(state, big.p, lambda, &a), HEFT_SOLVE_OK);
        cr_assert_eq(vt->solve(state, small.p, lambda, &b), HEFT_SOLVE_OK);
        cr_assert_eq(b.tight_trace[0], 0, "%s started from another problem's sets", solvers[s]);
        cr_assert(planted_max_diff(lambda, small.solution, 60) < 1e-7);
        cr_assert_eq(vt->solve(state, big.p, lambda, &c), HEFT_SOLVE_OK);
        cr_assert(planted_max_diff(lambda, big.solution, 120) < 1e-7);
        vt->destroy(state);
    }
    planted_free(&big);
    planted_free(&small);
}

Test(bpp, skyline_ordering_is_kept_until_reset) {
    planted_problem pp = planted_structured(200, DOMINANCE, 0, 4);
    const heft_solver_vtable *vt = heft_solver_find("bpp-skyline");
    const heft_solver_options o = heft_solver_default_options();
    void *state = vt->create(&o);
    double lambda[200];
    heft_solver_stats st;
    cr_assert_eq(vt->solve(state, pp.p, lambda, &st), HEFT_SOLVE_OK);
    cr_assert(st.time_ordering_ms > 0.0);
    cr_assert_eq(vt->solve(state, pp.p, lambda, &st), HEFT_SOLVE_OK);
    cr_assert_eq(st.time_ordering_ms, 0.0, "the ordering was redone for the same topology");
    vt->reset(state);
    cr_assert_eq(vt->solve(state, pp.p, lambda, &st), HEFT_SOLVE_OK);
    cr_assert(st.time_ordering_ms > 0.0, "reset() did not drop the ordering");
    /* a new topology is noticed without reset() */
    pp.p->rows[5].b = pp.p->rows[5].a == 0 ? 1 : 0;
    vt->solve(state, pp.p, lambda, &st);
    cr_assert(st.time_ordering_ms > 0.0);
    cr_assert(st.error_max < 1e-10);
    vt->destroy(state);
    planted_free(&pp);
}

/* ---- the skyline's refactoring threshold ------------------------------------------- */

Test(bpp, skyline_refactoring_and_downdating_give_the_same_answer) {
    planted_problem pp = planted_structured(250, DOMINANCE, 0, 6);
    heft_solver_options o = heft_solver_default_options();
    double down[250], re[250];
    heft_solver_stats sd, sr;
    o.skyline_refactor_fraction = 1.0; /* never refactor */
    cr_assert_eq(solve_once("bpp-skyline", &o, pp.p, down, &sd), HEFT_SOLVE_OK);
    o.skyline_refactor_fraction = 0.0; /* refactor whenever a variable is tight */
    cr_assert_eq(solve_once("bpp-skyline", &o, pp.p, re, &sr), HEFT_SOLVE_OK);
    cr_log_info("bpp-skyline n=250: downdating %d factorizations %d downdates; refactoring %d "
                "factorizations %d downdates",
                sd.factorizations, sd.downdates, sr.factorizations, sr.downdates);
    cr_assert_eq(sd.factorizations, 1);
    cr_assert(sd.downdates > 0);
    cr_assert_eq(sd.fallback, 0);
    cr_assert_eq(sr.downdates, 0);
    cr_assert(sr.factorizations > 1);
    cr_assert_eq(sr.fallback, 0, "a refactoring is counted, not flagged as a fall-back");
    cr_assert(planted_max_diff(down, re, 250) <= 1e-9 * max_abs(down, 250));
    planted_free(&pp);
}

/* With the default options bpp-skyline downdates when few variables are
 * tight and refactors A_FF when downdating would cost more (many tight rows,
 * or a narrow band where each downdate runs down the whole band). */
Test(bpp, skyline_downdates_few_tight_rows_and_refactors_many) {
    /* a dense A (full envelope), every row free but three pushed onto a bound */
    planted_problem pp = planted_dense(120, 0.1, 12);
    heft_mlcp *p = pp.p;
    for (int i = 0; i < p->n; ++i) {
        p->lo[i] = -INFINITY;
        p->hi[i] = INFINITY;
        p->findex[i] = -1;
    }
    double free_answer[120], lambda[250];
    heft_solver_stats st;
    cr_assert_eq(solve_once("bpp", NULL, p, free_answer, &st), HEFT_SOLVE_OK);
    const int pushed[3] = {10, 50, 90};
    for (int k = 0; k < 3; ++k)
        p->lo[pushed[k]] = free_answer[pushed[k]] + 0.5;
    const heft_solver_options o = heft_solver_default_options();
    cr_assert_eq(solve_once("bpp-skyline", &o, p, lambda, &st), HEFT_SOLVE_OK);
    cr_log_info("bpp-skyline, 3 of 120 rows tight: %d steps, %d factorizations, %d downdates",
                st.iterations, st.factorizations, st.downdates);
    cr_assert_eq(st.fallback, 0);
    cr_assert_eq(st.factorizations, 1);
    cr_assert(st.downdates >= 3);
    for (int k = 0; k < 3; ++k)
        cr_assert_eq(lambda[pushed[k]], p->lo[pushed[k]]);
    planted_free(&pp);

    /* a planted island with about half its rows tight */
    planted_problem many = planted_structured(250, DOMINANCE, 0, 6);
    cr_assert_eq(solve_once("bpp-skyline", &o, many.p, lambda, &st), HEFT_SOLVE_OK);
    cr_log_info("bpp-skyline, planted n=250: tight %d of 250 at the end, %d factorizations, %d "
                "downdates",
                st.tight_trace[st.tight_trace_count - 1], st.factorizations, st.downdates);
    cr_assert_eq(st.fallback, 0, "a refactoring is counted, not flagged as a fall-back");
    cr_assert(st.factorizations > 1);
    cr_assert_eq(st.downdates, 0);
    planted_free(&many);
}

/* ---- budget, failures -------------------------------------------------------------- */

Test(bpp, one_pivoting_step_is_not_enough_and_says_so) {
    planted_problem pp = planted_structured(80, DOMINANCE, 0, 3);
    heft_solver_options o = heft_solver_default_options();
    o.max_pivots = 1;
    for (int s = 0; s < 3; ++s) {
        double lambda[80];
        heft_solver_stats st;
        /* one pivoting step, then one projected Newton step on the frozen
         * boxes (bpp.c): the budget applies to each; then the backstop, its
         * Newton stage within twice the budget (newton.c) and Lemke's method
         * (lemke.c), whose answer is exact and says it is the backstop's */
        cr_assert_eq(solve_once(solvers[s], &o, pp.p, lambda, &st), HEFT_SOLVE_OK);
        cr_assert_eq(st.iterations, 2);
        cr_assert_eq(st.frozen_rounds, 1);
        cr_assert_geq(st.backstops, 1);
        cr_assert_leq(st.backstops, 2);
        cr_assert_leq(st.newton_steps, 2 * o.max_pivots);
        cr_assert_gt(st.backstop_pivots, 0);
        cr_assert_eq(st.answer, HEFT_ANSWER_BACKSTOP);
        cr_assert_eq(st.bound_violations, 0); /* clamped into the boxes */
        cr_assert_lt(st.error_max, 1e-10);
    }
    planted_free(&pp);
}

Test(bpp, singular_matrix_fails_cleanly_without_nan) {
    /* A = [1 1; 1 1] with no compliance and b = (1, 2): no lambda makes
     * w = 0. The all-free factorization meets a zero pivot at once and the
     * backstop finds no solution; the answer is the best point seen, not
     * converged */
    heft_mlcp *p = heft_mlcp_create(2, 0, HEFT_MLCP_DENSE);
    const double A[4] = {1, 1, 1, 1};
    memcpy(p->A, A, sizeof A);
    p->b[0] = 1.0;
    p->b[1] = 2.0;
    heft_solver_options o = heft_solver_default_options();
    o.bpp_pgs_sweeps = 0;
    for (int s = 0; s < 3; ++s) {
        double lambda[2] = {NAN, NAN};
        heft_solver_stats st;
        cr_assert_eq(solve_once(solvers[s], &o, p, lambda, &st), HEFT_SOLVE_NOT_CONVERGED);
        cr_assert(isfinite(lambda[0]) && isfinite(lambda[1]), "%s left NaN", solvers[s]);
        cr_assert_eq(st.factorizations, 1);
        /* every stage of the backstop ran: Newton, Lemke's method, and
         * Newton again from the basis Lemke's method ended on */
        cr_assert_eq(st.backstops, 3);
        cr_assert_gt(st.newton_steps, 0);
        cr_assert_eq(st.converged, 0);
        /* no better than the least-squares point lambda_1 + lambda_2 = 1.5
         * (0.125 J), no worse than lambda = 0 (2 J) */
        cr_assert_geq(st.error_max, 0.125 * (1.0 - 1e-9), "%s", solvers[s]);
        cr_assert_leq(st.error_max, 2.0, "%s", solvers[s]);
    }
    /* with the restart from PGS (the default) the answer is PGS's, which
     * the pivoting from its sets cannot confirm (A_FF is singular again) */
    o = heft_solver_default_options();
    for (int s = 0; s < 3; ++s) {
        double lambda[2] = {NAN, NAN};
        heft_solver_stats st;
        cr_assert_eq(solve_once(solvers[s], &o, p, lambda, &st), HEFT_SOLVE_NOT_CONVERGED, "%s",
                     solvers[s]);
        cr_assert(isfinite(lambda[0]) && isfinite(lambda[1]), "%s left NaN", solvers[s]);
        cr_assert_eq(st.restarts, 1);
    }
    heft_mlcp_destroy(p);
}

Test(bpp, nan_in_the_problem_is_reported_as_failed) {
    planted_problem pp = planted_structured(40, DOMINANCE, 0, 5);
    pp.p->b[7] = NAN;
    const heft_solver_options o = heft_solver_default_options();
    for (int s = 0; s < 3; ++s) {
        double lambda[40];
        for (int i = 0; i < 40; ++i)
            lambda[i] = 5.0;
        heft_solver_stats st;
        cr_assert_eq(solve_once(solvers[s], &o, pp.p, lambda, &st), HEFT_SOLVE_FAILED);
        cr_assert_eq(st.converged, 0);
        for (int i = 0; i < 40; ++i) /* refused before anything is written */
            cr_assert_eq(lambda[i], 5.0);
    }
    planted_free(&pp);
}

Test(bpp, empty_problem_converges_at_once) {
    heft_mlcp *p = heft_mlcp_create(0, 0, HEFT_MLCP_STRUCTURED);
    const heft_solver_options o = heft_solver_default_options();
    for (int s = 0; s < 3; ++s) {
        heft_solver_stats st;
        cr_assert_eq(solve_once(solvers[s], &o, p, NULL, &st), HEFT_SOLVE_OK);
        cr_assert_eq(st.iterations, 0);
    }
    heft_mlcp_destroy(p);
}

Test(bpp, registered_under_their_design_names) {
    for (int s = 0; s < 3; ++s) {
        const heft_solver_vtable *vt = heft_solver_find(solvers[s]);
        cr_assert_not_null(vt);
        cr_assert_str_eq(vt->name, solvers[s]);
        cr_assert_not_null(vt->reset);
        cr_assert_not_null(vt->description);
    }
}

/* ---- outside problems ------------------------------------------------------------- */

/* The Siconos LCP, MLCP and relay problems converted to .mlcp (tests/data/siconos,
 * README.md there): every one has a symmetric positive definite A and a
 * solution checked in exact arithmetic. */
Test(bpp, siconos_problems_are_solved_to_their_known_solutions) {
    static const char *const files[] = {"PDSym_mlcp",      "lcp_deudeu", "lcp_mmc",   "lcp_trivial",
                                        "legacy_trivial2", "relay1",     "relay_2x2", "relay_4x4",
                                        "relay_simple2",   "step_1x1",   "step_2x2",  "step_4x4"};
    const heft_solver_options o = heft_solver_default_options();
    for (size_t f = 0; f < sizeof files / sizeof files[0]; ++f) {
        char path[512], err[256];
        snprintf(path, sizeof path, "%s/siconos/%s.mlcp", HEFT_TESTDATA_DIR, files[f]);
        heft_mlcp *p = NULL;
        double *solution = NULL;
        cr_assert_eq(heft_mlcp_read_file(path, &p, &solution, err, sizeof err), 0, "%s", err);
        cr_assert_not_null(solution, "%s has no solution section", files[f]);
        const int n = p->n;
        const double scale = fmax(1.0, max_abs(solution, n));
        double *lambda = malloc(sizeof(double) * n);
        for (int s = 0; s < 3; ++s) {
            heft_solver_stats st;
            const int rc = solve_once(solvers[s], &o, p, lambda, &st);
            const double d = planted_max_diff(lambda, solution, n);
            cr_log_info("%-12s %-16s n=%2d: rc %d, %d steps, error %.3g J, |lambda - solution| "
                        "%.3g",
                        solvers[s], files[f], n, rc, st.iterations, st.error_max, d);
            cr_assert_eq(rc, HEFT_SOLVE_OK, "%s on %s", solvers[s], files[f]);
            cr_assert(st.error_max < 1e-10, "%s on %s: error %g J", solvers[s], files[f],
                      st.error_max);
            cr_assert(d <= 1e-9 * scale, "%s on %s: %g from the solution", solvers[s], files[f], d);
        }
        free(lambda);
        heft_free(solution);
        heft_mlcp_destroy(p);
    }
}

/* ---- allocation --------------------------------------------------------------------- */

Test(bpp, repeated_solve_of_the_same_size_makes_no_allocation) {
    planted_problem pp = planted_structured(150, DOMINANCE, 0, 9);
    planted_problem dense = planted_structured(150, DOMINANCE, 1, 9);
    dense.p->rows = NULL;
    dense.p->nbodies = 0;
    for (int s = 0; s < 3; ++s) {
        const heft_solver_vtable *vt = heft_solver_find(solvers[s]);
        const heft_solver_options o = heft_solver_default_options();
        counting_allocator_install();
        void *state = vt->create(&o);
        double lambda[150];
        heft_solver_stats st;
        counting_allocator_calls = 0;
        vt->solve(state, pp.p, lambda, &st); /* warm-up: the workspace grows */
        cr_assert(counting_allocator_calls > 0, "the hook is not in use");

        counting_allocator_calls = 0;
        cr_assert_eq(vt->solve(state, pp.p, lambda, &st), HEFT_SOLVE_OK);
        cr_assert_eq(counting_allocator_calls, 0, "%s structured: %d calls", solvers[s],
                     counting_allocator_calls);
        pp.p->b[3] += 0.01; /* the next step: other numbers, same island */
        cr_assert_eq(vt->solve(state, pp.p, lambda, &st), HEFT_SOLVE_OK);
        cr_assert_eq(counting_allocator_calls, 0, "%s next step: %d calls", solvers[s],
                     counting_allocator_calls);

        vt->solve(state, dense.p, lambda, &st); /* dense-only form: warm-up once */
        counting_allocator_calls = 0;
        cr_assert_eq(vt->solve(state, dense.p, lambda, &st), HEFT_SOLVE_OK);
        cr_assert_eq(counting_allocator_calls, 0, "%s dense: %d calls", solvers[s],
                     counting_allocator_calls);

        vt->destroy(state);
        heft_set_allocator(NULL);
    }
    planted_free(&pp);
    planted_free(&dense);
}

/* bpp-skyline solves a step with friction rows coupled to free normal rows
 * by one LU of the coupled system in the free rows' envelope (bpp_skyline.c,
 * skyline_lu.h) where the Woodbury identity takes k + 1 solves with A_FF's
 * Cholesky factor, one per coupled normal and one more (bpp.c,
 * couple_friction). The two are the same system: from all free, on the
 * winch's island of step 70 (the chain dragged over the ground, tens of
 * coupled normals a step) and on the chain's island of step 600, both
 * pivot through the same number of steps to answers that agree to
 * round-off, and the LU counts one solve a coupled step
 * (inner_iterations) where the Woodbury solves count k + 1. */
Test(bpp, skyline_solves_a_coupled_step_by_one_lu) {
    const char *files[2] = {"winch-step70.mlcp", "chain-step600.mlcp"};
    for (int f = 0; f < 2; ++f) {
        heft_mlcp *p = read_testdata(files[f]);
        double *lu = malloc(sizeof(double) * p->n), *wood = malloc(sizeof(double) * p->n);
        heft_solver_options o = heft_solver_default_options();
        o.warm_start = 0;
        heft_solver_stats sl, sw;
        cr_assert_eq(solve_once("bpp-skyline", &o, p, lu, &sl), HEFT_SOLVE_OK);
        o.skyline_refactor_fraction = 1.0; /* downdates alone: the Woodbury solves */
        cr_assert_eq(solve_once("bpp-skyline", &o, p, wood, &sw), HEFT_SOLVE_OK);
        cr_log_info("%s (%d rows), LU: %d steps, %d coupled solves, %.3g J; Woodbury: %d "
                    "steps, %d solves, %.3g J; largest difference %.3g of %.3g",
                    files[f], p->n, sl.iterations, sl.inner_iterations, sl.error_max, sw.iterations,
                    sw.inner_iterations, sw.error_max, planted_max_diff(lu, wood, p->n),
                    max_abs(wood, p->n));
        cr_assert(sl.error_max <= o.tolerance && sw.error_max <= o.tolerance);
        cr_assert_eq(sl.iterations, sw.iterations);
        cr_assert_leq(planted_max_diff(lu, wood, p->n), 1e-8 * max_abs(wood, p->n));
        cr_assert_gt(sl.inner_iterations, 0, "no coupled step");
        cr_assert_leq(sl.inner_iterations, sl.iterations, "more than one solve a coupled step");
        cr_assert_gt(sw.inner_iterations, 2 * sl.inner_iterations);
        free(lu);
        free(wood);
        heft_mlcp_destroy(p);
    }
}

/* An island of the winch (456 rows: 50 links on the ground, the drum
 * pulling; tests/data/winch-step70.mlcp, exported by heft-run at step 70).
 * From the index sets read off its warm start, one block pivot makes 112
 * tight variables 210 and the pivoting stalls (single pivoting took 111
 * steps to converge); from all free it converges in 7. A stalled pivoting
 * goes to the frozen boxes and the Newton stage from the warm start before
 * any restart from PGS (bpp.c), and they end it exactly. */
Test(bpp, a_stalled_warm_start_ends_exact_before_the_restart) {
    heft_mlcp *p = read_testdata("winch-step70.mlcp");
    double *lambda = malloc(sizeof(double) * p->n);
    for (int s = 0; s < 3; ++s) {
        for (int warm = 0; warm < 2; ++warm) {
            heft_solver_options o = heft_solver_default_options();
            o.warm_start = warm;
            heft_solver_stats st;
            const int rc = solve_once(solvers[s], &o, p, lambda, &st);
            cr_log_info("%s on the winch, %s: rc %d, %d steps, %d restarts, error %.3g J",
                        solvers[s], warm ? "warm-start sets" : "all free", rc, st.iterations,
                        st.restarts, st.error_max);
            cr_assert_eq(rc, HEFT_SOLVE_OK, "%s, warm %d", solvers[s], warm);
            cr_assert(st.error_max < 1e-10);
            cr_assert_eq(st.restarts, 0, "%s: %d restarts", solvers[s], st.restarts);
            cr_assert_eq(st.fallback, warm, "%s: the stall is from the warm sets", solvers[s]);
            cr_assert(st.iterations <= 20, "%s: %d steps", solvers[s], st.iterations);
        }
    }
    free(lambda);
    heft_mlcp_destroy(p);
}

/* An island of a winch whose drum lifts the chain up its front
 * (tests/data/winch-stall-step300.mlcp, 435 rows: 43 links dragged over the
 * ground, 4 friction rows per link sliding or sticking, exported at step
 * 300 of that variant of the scene). Block pivoting with the friction
 * coupling cycles from the warm-start sets and from all free alike; the
 * solvers used to answer the warm start (1.7e-3 J). The frozen-box fall-back
 * (bpp.c) answers a solution of the problem whose friction boxes come from
 * the warm start's normal impulses, refrozen while its budget lasts: the
 * error falls 250-fold (6.6e-6 J), and the joint rows' velocity error from
 * 0.11 m/s to 7.9e-4 m/s (exact in the frozen solution; the answer's
 * friction impulses are then clamped into the boxes of its own normal
 * impulses, which moves them). */
Test(bpp, a_stalled_friction_solve_answers_the_frozen_boxes) {
    heft_mlcp *p = read_testdata("winch-stall-step300.mlcp");
    const int n = p->n;
    double *lambda = malloc(sizeof(double) * n), *w = malloc(sizeof(double) * n);
    double *work = malloc(sizeof(double) * (size_t)(n + 6 * p->nbodies + 1));
    memcpy(lambda, p->lambda0, sizeof(double) * n);
    heft_bpp_clamp_answer(p, lambda);
    const double warm = heft_mlcp_measure(p, lambda, work).max;
    heft_solver_options o = heft_solver_default_options();
    o.bpp_pgs_sweeps = 0; /* the restart from PGS converges here (below) */
    for (int s = 0; s < 3; ++s) {
        heft_solver_stats st;
        const int rc = solve_once(solvers[s], &o, p, lambda, &st);
        heft_mlcp_residual(p, lambda, w, work);
        double joint = 0.0, joint_warm = 0.0;
        for (int i = 0; i < n; ++i)
            if (p->kind[i] == HEFT_ROW_BILATERAL)
                joint = fmax(joint, fabs(w[i]));
        heft_mlcp_residual(p, p->lambda0, w, work);
        for (int i = 0; i < n; ++i)
            if (p->kind[i] == HEFT_ROW_BILATERAL)
                joint_warm = fmax(joint_warm, fabs(w[i]));
        cr_log_info("%s on the stalled winch: rc %d, %d steps, error %.3g J (warm start %.3g J), "
                    "joint rows |w| %.2g m/s (warm start %.2g)",
                    solvers[s], rc, st.iterations, st.error_max, warm, joint, joint_warm);
        cr_assert_eq(st.fallback, 1);
        cr_assert(st.iterations <= 2 * o.max_pivots);
        cr_assert(st.error_max < warm / 100.0, "%s: %g J, warm start %g J", solvers[s],
                  st.error_max, warm);
        cr_assert(joint < joint_warm / 50.0, "%s: joint rows |w| %g, warm start %g", solvers[s],
                  joint, joint_warm);
    }
    free(work);
    free(w);
    free(lambda);
    heft_mlcp_destroy(p);
}

/* A stack of five boxes rocking under PGS (tests/data/boxes-pgs-step149.mlcp,
 * 60 rows): block pivoting stalls after 12 steps and the frozen-box rounds
 * finish it. Their first round, from the warm start, took 77 projected-Newton
 * iterations when a failed projected search fell back on the scaled gradient
 * alone (f fell by 1e-3 of itself per step); with the Newton step cut at the
 * first bound it meets as the second try it takes 20, and the whole solve 67
 * steps instead of 124. With 60 pivots allowed it now converges; it did not. */
Test(bpp, frozen_rounds_on_a_rocking_box_stack_take_cut_newton_steps) {
    heft_mlcp *p = read_testdata("boxes-pgs-step149.mlcp");
    double *lambda = malloc(sizeof(double) * p->n);
    heft_solver_options o = heft_solver_default_options();
    o.max_pivots = 60;
    o.bpp_pgs_sweeps = 0; /* the frozen rounds alone */
    for (int s = 0; s < 3; ++s) {
        heft_solver_stats st;
        const int rc = solve_once(solvers[s], &o, p, lambda, &st);
        cr_log_info("%s on the rocking stack: rc %d, %d steps, error %.3g J", solvers[s], rc,
                    st.iterations, st.error_max);
        cr_assert_eq(st.fallback, 1);
        cr_assert_eq(rc, HEFT_SOLVE_OK, "%s: %d steps, %.3g J", solvers[s], st.iterations,
                     st.error_max);
        cr_assert_lt(st.error_max, 1e-12);
        cr_assert_leq(st.iterations, 80);
    }
    free(lambda);
    heft_mlcp_destroy(p);
}

/* A log tower of 15 layers hit by the ball (717 rows;
 * tests/data/tower15-step30.mlcp): without the restart from PGS the BPP
 * solvers run out of pivots, and their best iterate (fewest infeasible
 * variables) had an MLCP error of 3.9e3 J where the warm start they were
 * given has 82 J. An answer that did not converge is never worse than the
 * warm start. (With the restart they converge: below.) */
Test(bpp, an_unconverged_answer_is_no_worse_than_the_warm_start) {
    heft_mlcp *p = read_testdata("tower15-step30.mlcp");
    const int n = p->n;
    double *lambda = malloc(sizeof(double) * n);
    double *work = malloc(sizeof(double) * (size_t)(n + 6 * p->nbodies + 1));
    memcpy(lambda, p->lambda0, sizeof(double) * n);
    heft_bpp_clamp_answer(p, lambda); /* as the solvers clamp */
    const double warm = heft_mlcp_measure(p, lambda, work).max;
    heft_solver_options o = heft_solver_default_options();
    o.bpp_pgs_sweeps = 0;
    for (int s = 0; s < 3; ++s) {
        heft_solver_stats st;
        const int rc = solve_once(solvers[s], &o, p, lambda, &st);
        cr_log_info("%s on the tower: rc %d, %d steps, error %.4g J (warm start %.4g J)",
                    solvers[s], rc, st.iterations, st.error_max, warm);
        cr_assert(rc == HEFT_SOLVE_OK || rc == HEFT_SOLVE_NOT_CONVERGED);
        cr_assert(st.error_max <= warm * (1.0 + 1e-12), "%s: %g J against the warm start's %g",
                  solvers[s], st.error_max, warm);
    }
    free(work);
    free(lambda);
    heft_mlcp_destroy(p);
}

/* Where block pivoting stalls, the stages behind it end the solve exactly
 * with the default options: the frozen boxes and the Newton stage from the
 * warm start, then the restart from the index sets of a PGS answer, then
 * the backstop (bpp.c). The problems: the 3 x 3 cycling LCP; the log tower
 * of 15 layers hit by the ball, where the pivoting diverged (246 tight
 * variables to 536 in four block pivots; 82 J, the warm start, without the
 * later stages); the winch island whose coupled friction cycled from every
 * start; the rocking stack of five boxes. The restart happens at most once,
 * within its sweeps, and the pivoting steps stay within max_pivots. */
Test(bpp, the_restart_from_pgs_converges_where_pivoting_stalled, .timeout = 120) {
    const char *files[4] = {NULL, "tower15-step30.mlcp", "winch-stall-step300.mlcp",
                            "boxes-pgs-step149.mlcp"};
    const heft_solver_options o = heft_solver_default_options();
    int restarted = 0;
    for (int f = 0; f < 4; ++f) {
        heft_mlcp *p = files[f] != NULL ? read_testdata(files[f]) : cycling_problem();
        double *lambda = malloc(sizeof(double) * p->n);
        for (int s = 0; s < 3; ++s) {
            heft_solver_stats st;
            const int rc = solve_once(solvers[s], &o, p, lambda, &st);
            const char *name = files[f] != NULL ? files[f] : "the cycling LCP";
            cr_log_info("%s on %s: rc %d, %d steps, %d restarts after %d PGS sweeps, %.3g J",
                        solvers[s], name, rc, st.iterations, st.restarts, st.pgs_sweeps,
                        st.error_max);
            cr_assert_eq(rc, HEFT_SOLVE_OK, "%s on %s: %.3g J", solvers[s], name, st.error_max);
            cr_assert_lt(st.error_max, 1e-12, "%s on %s", solvers[s], name);
            cr_assert_leq(st.restarts, 1, "%s on %s", solvers[s], name);
            cr_assert_eq(st.pgs_sweeps > 0, st.restarts, "%s on %s", solvers[s], name);
            cr_assert_leq(st.pgs_sweeps, o.bpp_pgs_sweeps);
            restarted += st.restarts;
            cr_assert_leq(st.iterations, o.max_pivots, "%s on %s", solvers[s], name);
        }
        free(lambda);
        heft_mlcp_destroy(p);
    }
    /* the tower's stall is the one the restart's point ends */
    cr_log_info("restarts over the problems and solvers: %d", restarted);
    cr_assert_gt(restarted, 0);
}

/* The harder planted friction problems (30, 60, 120 and 240 rows, seeds
 * 1-30, no added dominance and 0.02, with the friction coupling: 240
 * problems). Block pivoting with the frozen-box fall-back, the restart from
 * PGS off, left 9 of them unsolved with the default 35 steps (5 with
 * 200: 240 rows, seeds 4, 19, 22, 25 at no dominance, 0.03-0.18 J; seed 4
 * at 0.02) before the exact backstop (lemke.c), 6 with it (all 240 rows,
 * LCPs above the 400 variables the solvers hand it); with the
 * restart every one is solved to 1e-8 J, by bpp and bpp-skyline alike,
 * with the default options. */
Test(bpp, the_restart_from_pgs_solves_every_hard_planted_friction_problem, .timeout = 300) {
    heft_solver_options o = heft_solver_default_options();
    cr_expect_eq(planted_hard_friction_failures("bpp", &o), 0);
    cr_expect_eq(planted_hard_friction_failures("bpp-skyline", &o), 0);
    o.bpp_pgs_sweeps = 0;
    const int without = planted_hard_friction_failures("bpp", &o);
    cr_log_info("bpp without the restart: %d of 240 unsolved", without);
    /* the 6 left have 240 rows: LCPs above the solvers' backstop cap */
    cr_expect_leq(without, 6, "without the restart, with the backstop: %d unsolved", without);
}

/* A warm start exact to round-off answers whatever sets it reads as. Row 1
 * of A = I, b = (1, 0), lambda >= 0 is degenerate at the answer (1, 0):
 * lambda_1 = 0 and w_1 = 0. Pivoting from all free holds it free; the same
 * answer as a warm start reads it as tight at its bound, so a check of the
 * sets against the last answer's refused the exact warm start and factored
 * again for the same answer (on the settled pyramid of base 20, warm starts
 * 1e-22 J off were refused so, step after step). */
Test(bpp, an_exact_warm_start_answers_on_other_sets) {
    const char *const names[] = {"bpp", "bpp-downdate", "bpp-skyline", "bpp-pcg"};
    heft_mlcp *p = heft_mlcp_create(2, 0, HEFT_MLCP_DENSE);
    const double A[4] = {1, 0, 0, 1};
    memcpy(p->A, A, sizeof A);
    p->b[0] = 1.0;
    p->b[1] = 0.0;
    p->lo[0] = p->lo[1] = 0.0;
    double lambda0[2] = {0.0, 0.0};
    p->lambda0 = lambda0;
    for (int k = 0; k < 4; ++k) {
        const heft_solver_vtable *vt = heft_solver_find(names[k]);
        const heft_solver_options o = heft_solver_default_options();
        void *state = vt->create(&o);
        double lambda[2];
        heft_solver_stats st;
        lambda0[0] = lambda0[1] = 0.0;
        cr_assert_eq(vt->solve(state, p, lambda, &st), HEFT_SOLVE_OK, "%s", names[k]);
        cr_assert_gt(st.factorizations, 0, "%s", names[k]);
        cr_assert_eq(lambda[0], 1.0, "%s", names[k]);
        cr_assert_eq(lambda[1], 0.0, "%s", names[k]);
        /* 1e-10 off: 5e-21 J, within a millionth of the tolerance */
        lambda0[0] = 1.0 + 1e-10;
        lambda0[1] = 0.0;
        cr_assert_eq(vt->solve(state, p, lambda, &st), HEFT_SOLVE_OK, "%s", names[k]);
        cr_assert_eq(st.factorizations, 0, "%s: the exact warm start refused", names[k]);
        cr_assert_eq(st.iterations, 0, "%s", names[k]);
        cr_assert(st.converged && st.error_max > 0.0 && st.error_max <= 1e-20, "%s: %g J", names[k],
                  st.error_max);
        cr_assert_eq(lambda[0], lambda0[0], "%s", names[k]);
        cr_assert_eq(lambda[1], 0.0, "%s", names[k]);
        /* 1e-4 off (5e-9 J): pivoted from, to the answer */
        lambda0[0] = 1.0 + 1e-4;
        cr_assert_eq(vt->solve(state, p, lambda, &st), HEFT_SOLVE_OK, "%s", names[k]);
        cr_assert_gt(st.factorizations, 0, "%s", names[k]);
        cr_assert(fabs(lambda[0] - 1.0) <= 1e-15 && lambda[1] == 0.0, "%s", names[k]);
        vt->destroy(state);
    }
    p->lambda0 = NULL;
    heft_mlcp_destroy(p);
}
