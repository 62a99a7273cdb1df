/* The rescue of a failed or unconverged solve (solver/fallback.c,
 * heft_solve_with_fallback), the policy the engine applies around every
 * island's solver: the answers it keeps are PGS's, bit for bit, exactly
 * where the policy says, and the solver's own otherwise. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp.h"
#include "planted.h"

/* Solvers that answer what the test sets: NaN and success, a given answer
 * and "not converged", or a refusal. */
static const double *given_answer;
static int given_rc;

static void *given_create(const heft_solver_options *o) {
    (void)o;
    static int token;
    return &token;
}
static int given_solve(void *s, const heft_mlcp *p, double *lambda, heft_solver_stats *st) {
    (void)s;
    for (int i = 0; i < p->n; ++i)
        lambda[i] = given_answer != NULL ? given_answer[i] : NAN;
    st->iterations = 7;
    st->restarts = 1;
    return given_rc;
}
static void given_reset(void *s) {
    (void)s;
}
static void given_destroy(void *s) {
    (void)s;
}
static const heft_solver_vtable given_solver = {.name = "test-given",
                                                .description = "answers what the test sets",
                                                .create = given_create,
                                                .solve = given_solve,
                                                .reset = given_reset,
                                                .destroy = given_destroy};

/* PGS with the options, from start (NULL: the problem's warm start). */
static int pgs_from(const heft_solver_options *o, const heft_mlcp *p, const double *start,
                    double *lambda, heft_solver_stats *st) {
    const heft_solver_vtable *pgs = heft_solver_find("pgs");
    void *state = pgs->create(o);
    heft_mlcp from = *p;
    if (start != NULL)
        from.lambda0 = (double *)start;
    memset(st, 0, sizeof *st);
    const int rc = pgs->solve(state, &from, lambda, st);
    pgs->destroy(state);
    return rc;
}

static void expect_same_bits(const double *x, const double *y, int n) {
    cr_assert_eq(memcmp(x, y, sizeof(double) * (size_t)n), 0, "the answers differ");
}

/* A solver that answers NaN (and claims success) is replaced by PGS from
 * the warm start: the same bits as PGS alone, its sweeps added to the
 * iterations and counted as the rescue's. */
Test(fallback, a_nan_answer_is_replaced_by_pgs_bit_for_bit) {
    planted_problem pp = planted_structured(60, 0.02, 0, 3);
    const int n = pp.p->n;
    const heft_solver_options o = heft_solver_default_options();
    double *lambda = malloc(sizeof(double) * (size_t)n), *pgs = malloc(sizeof(double) * (size_t)n);
    heft_solver_stats st, ps;
    const int prc = pgs_from(&o, pp.p, NULL, pgs, &ps);
    heft_fallback *f = heft_fallback_create(&o);
    given_answer = NULL;
    given_rc = HEFT_SOLVE_OK;
    heft_fallback_report report;
    const int rc =
        heft_solve_with_fallback(f, &given_solver, (void *)1, pp.p, lambda, &st, &report);
    cr_log_info("rescued %d, %d sweeps, answer %d, %.3g J", report.rescued, report.rescue_sweeps,
                st.answer, st.error_max);
    cr_assert_eq(rc, prc);
    cr_assert_eq(report.rescued, 1);
    cr_assert_eq(report.rescue_sweeps, ps.iterations);
    cr_assert_eq(st.iterations, 7 + ps.iterations);
    cr_assert_eq(st.restarts, 1, "the solver's own counts are kept");
    cr_assert_eq(st.answer, HEFT_ANSWER_PGS);
    expect_same_bits(lambda, pgs, n);
    cr_assert_eq(st.error_max, heft_mlcp_measure(pp.p, pgs, NULL).max);
    /* without a state (the solver could not be created) the same */
    cr_assert_eq(heft_solve_with_fallback(f, &given_solver, NULL, pp.p, lambda, &st, &report), prc);
    expect_same_bits(lambda, pgs, n);
    heft_fallback_destroy(f);
    free(lambda);
    free(pgs);
    planted_free(&pp);
}

/* An unconverged answer far off is polished by PGS from it and compared
 * with PGS from the warm start; the smaller error of the three is kept
 * (here PGS's polish, whose bits must match a PGS solve started there). A
 * near-exact unconverged answer is kept as the solver's own. */
Test(fallback, an_unconverged_answer_keeps_the_smallest_error_of_three) {
    planted_problem pp = planted_structured(60, 0.02, 0, 5);
    const int n = pp.p->n;
    const heft_solver_options o = heft_solver_default_options();
    double *lambda = malloc(sizeof(double) * (size_t)n);
    double *off = malloc(sizeof(double) * (size_t)n), *polish = malloc(sizeof(double) * (size_t)n),
           *warm = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; ++i) /* near the answer, then off on one row */
        off[i] = pp.solution[i];
    off[0] += 10.0;
    heft_solver_stats st, s1, s2;
    pgs_from(&o, pp.p, off, polish, &s1);
    pgs_from(&o, pp.p, NULL, warm, &s2);
    const double e_off = heft_mlcp_measure(pp.p, off, NULL).max;
    const double e_polish = heft_mlcp_measure(pp.p, polish, NULL).max;
    const double e_warm = heft_mlcp_measure(pp.p, warm, NULL).max;
    cr_log_info("errors: the solver's %.3g J, PGS from it %.3g J, PGS from the warm start %.3g J",
                e_off, e_polish, e_warm);
    cr_assert_lt(e_polish, fmin(e_off, e_warm), "the problem no longer tells the three apart");
    heft_fallback *f = heft_fallback_create(&o);
    given_answer = off;
    given_rc = HEFT_SOLVE_NOT_CONVERGED;
    heft_fallback_report report;
    cr_assert_eq(heft_solve_with_fallback(f, &given_solver, (void *)1, pp.p, lambda, &st, &report),
                 HEFT_SOLVE_NOT_CONVERGED);
    cr_assert_eq(report.rescued, 1);
    cr_assert_eq(report.rescue_sweeps, s1.iterations + s2.iterations);
    cr_assert_eq(st.answer, HEFT_ANSWER_PGS);
    cr_assert_eq(st.converged, 0);
    expect_same_bits(lambda, polish, n);
    cr_assert_eq(st.error_max, e_polish);

    /* the planted answer itself, called unconverged: nothing beats it */
    given_answer = pp.solution;
    heft_solve_with_fallback(f, &given_solver, (void *)1, pp.p, lambda, &st, &report);
    cr_assert_eq(report.rescued, 0);
    cr_assert_eq(st.answer, HEFT_ANSWER_SOLVER);
    expect_same_bits(lambda, pp.solution, n);

    /* PGS itself is not polished by PGS: one solve, no rescue */
    const heft_solver_vtable *pgs = heft_solver_find("pgs");
    heft_solver_options few = o;
    few.max_iterations = 3;
    void *state = pgs->create(&few);
    heft_solve_with_fallback(f, pgs, state, pp.p, lambda, &st, &report);
    cr_assert_eq(st.iterations, 3);
    cr_assert_eq(report.rescued, 0);
    cr_assert_eq(report.rescue_sweeps, 0);
    pgs->destroy(state);
    heft_fallback_destroy(f);
    free(lambda);
    free(off);
    free(polish);
    free(warm);
    planted_free(&pp);
}

/* ---- reserving the scratch memory ------------------------------------------------ */

static long fallback_allocations;

static void *counting_alloc(size_t n, void *user) {
    (void)user;
    fallback_allocations++;
    return malloc(n);
}
static void *counting_realloc(void *p, size_t n, void *user) {
    (void)user;
    fallback_allocations++;
    return realloc(p, n);
}
static void counting_free(void *p, void *user) {
    (void)user;
    free(p);
}

/* After heft_fallback_reserve for a problem's size, a solve allocates
 * nothing, whether it converged or failed (its answer NaN) and the rescue's
 * PGS answered; without it the first solve grows the scratch. Bad counts
 * are refused. */
Test(fallback, reserve_makes_the_measure_allocate_nothing) {
    planted_problem pp = planted_structured(60, 0.02, 0, 7);
    const int n = pp.p->n;
    const heft_solver_options o = heft_solver_default_options();
    double *answer = malloc(sizeof(double) * (size_t)n),
           *lambda = malloc(sizeof(double) * (size_t)n);
    heft_solver_stats st;
    cr_assert_eq(pgs_from(&o, pp.p, NULL, answer, &st), HEFT_SOLVE_OK);
    given_answer = answer;
    given_rc = HEFT_SOLVE_OK;
    static const heft_allocator counting = {counting_alloc, counting_realloc, counting_free, NULL};
    long without = 0, with = 0;
    for (int reserve = 0; reserve < 2; ++reserve) {
        heft_fallback *f = heft_fallback_create(&o);
        cr_assert_not_null(f);
        if (reserve) {
            cr_assert_eq(heft_fallback_reserve(f, n, pp.p->nbodies), 1);
        }
        heft_set_allocator(&counting);
        fallback_allocations = 0;
        heft_solve_with_fallback(f, &given_solver, (void *)1, pp.p, lambda, &st, NULL);
        heft_set_allocator(NULL);
        *(reserve ? &with : &without) = fallback_allocations;
        expect_same_bits(lambda, answer, n);
        cr_assert_eq(heft_fallback_reserve(f, -1, 0), 0);
        cr_assert_eq(heft_fallback_reserve(f, 0, -1), 0);
        heft_fallback_destroy(f);
    }
    cr_assert_eq(heft_fallback_reserve(NULL, 10, 1), 0);
    cr_assert_gt(without, 0, "the first solve without a reserve allocated nothing");
    cr_assert_eq(with, 0, "%ld allocations after the reserve", with);

    /* a NaN answer: the rescue's PGS answers, from reserved memory */
    for (int reserve = 0; reserve < 2; ++reserve) {
        heft_fallback *f = heft_fallback_create(&o);
        cr_assert_not_null(f);
        if (reserve)
            cr_assert_eq(heft_fallback_reserve(f, n, pp.p->nbodies), 1);
        given_answer = NULL;
        heft_set_allocator(&counting);
        fallback_allocations = 0;
        heft_solve_with_fallback(f, &given_solver, (void *)1, pp.p, lambda, &st, NULL);
        heft_set_allocator(NULL);
        cr_assert_eq(st.answer, HEFT_ANSWER_PGS);
        if (reserve)
            cr_assert_eq(fallback_allocations, 0, "%ld allocations in the reserved rescue",
                         fallback_allocations);
        else
            cr_assert_gt(fallback_allocations, 0);
        heft_fallback_destroy(f);
    }
    free(answer);
    free(lambda);
    planted_free(&pp);
}

/* A solver whose table says it measures its answers reports exactly what
 * heft_mlcp_measure says of the answer it returns, converged or not (the
 * engine takes those numbers instead of measuring again): planted friction
 * problems of 30 to 120 rows, with the default options and with too few
 * pivoting steps to converge. */
Test(fallback, a_solver_that_measures_its_answer_reports_the_measure) {
    int checked = 0;
    for (int k = 0; k < heft_solver_count(); ++k) {
        const heft_solver_vtable *vt = heft_solver_at(k);
        if (!vt->measures_answer)
            continue;
        for (int budget = 0; budget < 2; ++budget) {
            heft_solver_options o = heft_solver_default_options();
            if (budget)
                o.max_pivots = 1;
            for (int seed = 1; seed <= 4; ++seed) {
                planted_problem pp = planted_structured(30 * seed, 0.02, 0, (uint64_t)seed);
                void *state = vt->create(&o);
                cr_assert_not_null(state, "%s", vt->name);
                double *lambda = calloc((size_t)pp.p->n, sizeof(double));
                heft_solver_stats st;
                memset(&st, 0, sizeof st);
                const int rc = vt->solve(state, pp.p, lambda, &st);
                if (rc != HEFT_SOLVE_FAILED) {
                    const heft_mlcp_error e = heft_mlcp_measure(pp.p, lambda, NULL);
                    cr_assert_eq(st.error_max, e.max, "%s: %.17g against %.17g J", vt->name,
                                 st.error_max, e.max);
                    cr_assert_eq(st.error_sum, e.sum, "%s", vt->name);
                    cr_assert_eq(st.bound_violations, e.bound_violations, "%s", vt->name);
                    ++checked;
                }
                vt->destroy(state);
                free(lambda);
                planted_free(&pp);
            }
        }
    }
    cr_log_info("answers checked: %d", checked);
    /* pgs, bpp, bpp-downdate, bpp-skyline, and with CHOLMOD bpp-sparse and auto */
    cr_assert_geq(checked, 8 * 4);
}
