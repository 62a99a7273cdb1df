/* Lemke's method (lemke.c): the sparse path (an LU of the basis by
 * UMFPACK, eta columns between factorizations) against the dense B^-1 on
 * random problems, and a hard-family problem whose LCP is above the
 * 1,000 variables the dense path was limited to. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hard_family.h"
#include "lemke.h"
#include "mlcp.h"
#include "planted.h"

#define TAU 1e-12 /* J, the backstop's acceptance (heft_mlcp_measure's max) */

typedef struct lemke_run {
    int status;
    double error;
    int pivots, factorizations;
} lemke_run;

static lemke_run run(const heft_mlcp *p, const double *guess, int dense, double *lambda) {
    heft_lemke ws;
    memset(&ws, 0, sizeof ws);
    double *work = malloc(sizeof(double) * (size_t)(p->n + 6 * p->nbodies + 1));
    heft_lemke_options o = heft_lemke_default_options(p->n, TAU);
    o.dense = dense;
    heft_lemke_result r;
    const double *guesses[1] = {guess};
    heft_lemke_solve(&ws, p, NULL, guesses, guess != NULL, &o, lambda, work, &r);
    heft_lemke_release(&ws);
    free(work);
    lemke_run out = {r.status, r.error_max, r.pivots + r.crash_pivots, r.factorizations};
    return out;
}

/* Planted friction problems with an SPD A (a unique answer): both paths
 * end within TAU, at the same impulses to 1e-7 of the largest, from the
 * all-slack basis and from a guess (the planted answer scaled by 0.9,
 * which exercises the crash pivots). */
Test(lemke, sparse_and_dense_paths_give_the_same_answer) {
    int compared = 0, factorizations = 0;
    for (int seed = 1; seed <= 12; ++seed)
        for (int size = 0; size < 3; ++size) {
            const int n = 30 << size;
            planted_problem pp = planted_structured(n, 0.02, 1, (uint64_t)seed);
            const heft_mlcp *p = pp.p;
            double *guess = malloc(sizeof(double) * (size_t)n);
            for (int i = 0; i < n; ++i)
                guess[i] = 0.9 * pp.solution[i];
            double scale = 0.0;
            for (int i = 0; i < n; ++i)
                scale = fmax(scale, fabs(pp.solution[i]));
            for (int warm = 0; warm < 2; ++warm) {
                double *ld = calloc((size_t)n, sizeof(double));
                double *ls = calloc((size_t)n, sizeof(double));
                const lemke_run d = run(p, warm ? guess : NULL, 1, ld);
                const lemke_run s = run(p, warm ? guess : NULL, 0, ls);
                cr_assert_eq(d.status, HEFT_LEMKE_SOLVED, "seed %d, %d rows: dense %d", seed, n,
                             d.status);
                cr_assert_eq(s.status, HEFT_LEMKE_SOLVED, "seed %d, %d rows: sparse %d", seed, n,
                             s.status);
                cr_assert_eq(d.factorizations, 0);
                cr_assert_leq(s.error, TAU);
                cr_assert_lt(planted_max_diff(ld, ls, n), 1e-7 * (scale + 1e-300),
                             "seed %d, %d rows, warm %d: %g apart (largest impulse %g)", seed, n,
                             warm, planted_max_diff(ld, ls, n), scale);
                factorizations += s.factorizations;
                ++compared;
                free(ld);
                free(ls);
            }
            free(guess);
            planted_free(&pp);
        }
    cr_assert_eq(compared, 72);
#ifdef HEFT_HAVE_UMFPACK
    cr_assert_gt(factorizations, 0); /* the sparse path ran */
#endif
}

/* A member of the hard family (583 rows: four-point faces, a singular A,
 * no compliance) whose LCP has 1,348 variables, above the dense path's
 * former limit of 1,000: the sparse path ends it within 1e-10 J from the
 * all-slack basis alone. */
Test(lemke, a_hard_family_member_above_1000_variables_ends_exact, .timeout = 300) {
    hard_problem hp = hard_family_member(26, 1000);
    const heft_mlcp *p = hp.p;
    double *lambda = calloc((size_t)p->n, sizeof(double));
    heft_lemke ws;
    memset(&ws, 0, sizeof ws);
    double *work = malloc(sizeof(double) * (size_t)(p->n + 6 * p->nbodies));
    heft_lemke_options o = heft_lemke_default_options(p->n, TAU);
    heft_lemke_result r;
    cr_assert_eq(heft_lemke_solve(&ws, p, NULL, NULL, 0, &o, lambda, work, &r), HEFT_LEMKE_SOLVED,
                 "status %d after %d pivots", r.status, r.pivots);
    cr_assert_gt(r.lcp_size, 1000);
    cr_assert_lt(heft_mlcp_measure(p, lambda, NULL).max, 1e-10);
#ifdef HEFT_HAVE_UMFPACK
    cr_assert_gt(r.factorizations, 0);
#endif
    heft_lemke_release(&ws);
    free(work);
    free(lambda);
    hard_family_free(&hp);
}

/* An island of the winch (step 1,088, 426 rows, 942 LCP variables) where,
 * with the pivoting solvers' budgets, every unshifted Lemke path from its
 * warm start and from the all-slack basis ended on a basis short of the
 * tolerance (at best 2e-7 J). The proximal rounds that follow converged
 * towards the answer but were stopped after their first round, which was
 * not better than the guess's path: they now go on while each round
 * improves on the one before, and end it exact. (Inside bpp-skyline the
 * Newton stage now ends this island before Lemke's method is called:
 * test_newton.c.) */
Test(lemke, proximal_rounds_go_on_while_they_improve) {
    heft_mlcp *p = NULL;
    char err[256];
    cr_assert_eq(
        heft_mlcp_read_file(HEFT_TESTDATA_DIR "/winch-step1088.mlcp", &p, NULL, err, sizeof err), 0,
        "%s", err);
    double *lambda = calloc((size_t)p->n, sizeof(double));
    double *work = malloc(sizeof(double) * (size_t)(p->n + 6 * p->nbodies + 1));
    const int N = heft_lemke_size(p);
    heft_lemke_options o = heft_lemke_default_options(p->n, TAU);
    o.max_pivots = 30 * N; /* the pivoting solvers' backstop budgets (bpp.c) */
    o.max_total_pivots = 60 * N;
    o.max_guess_pivots = 5 * N;
    heft_lemke ws;
    memset(&ws, 0, sizeof ws);
    heft_lemke_result r;
    const double *guesses[1] = {p->lambda0};
    heft_lemke_solve(&ws, p, NULL, guesses, 1, &o, lambda, work, &r);
    cr_assert_eq(r.status, HEFT_LEMKE_SOLVED, "status %d, %.3e J after %d rounds", r.status,
                 r.error_max, r.rounds);
    cr_assert_geq(r.rounds, 2, "%d rounds", r.rounds);
    const double e = heft_mlcp_measure(p, lambda, NULL).max;
    cr_assert_leq(e, TAU, "%.3e J", e);
    heft_lemke_release(&ws);
    free(work);
    free(lambda);
    heft_mlcp_destroy(p);
}

/* An island of the winch (step 4,404 of its timeline held on, 486 rows,
 * 1,082 LCP variables) that bpp-skyline sent to Lemke's method: paths from
 * its guesses end on bases 1.8e-6 J and 6e-10 J short of the tolerance,
 * where a few Newton steps end it, but the paths that followed (from the
 * all-slack basis, about 1,300 pivots each, and the proximal rounds) were
 * run first, and the solve ended unconverged at 1.9e-11 J after 12,150
 * backstop steps. Each path's answer within 1e-2 J is now polished before
 * the next path: converged, within TAU, in at most 5,000 steps (1,939
 * measured). */
Test(lemke, a_near_miss_is_polished_before_the_next_path) {
    heft_mlcp *p = NULL;
    char err[256];
    cr_assert_eq(
        heft_mlcp_read_file(HEFT_TESTDATA_DIR "/winch-step4404.mlcp", &p, NULL, err, sizeof err), 0,
        "%s", err);
    double *lambda = calloc((size_t)p->n, sizeof(double));
    heft_solver_stats st;
    const int rc = heft_solve("bpp-skyline", NULL, p, lambda, &st);
    cr_log_info("%d backstop stages, %d steps (%d Newton's), %.3e J", st.backstops,
                st.backstop_pivots, st.newton_steps, st.error_max);
    cr_assert_eq(rc, HEFT_SOLVE_OK, "%.3e J", st.error_max);
    cr_assert_eq(st.answer, HEFT_ANSWER_BACKSTOP);
    const double e = heft_mlcp_measure(p, lambda, NULL).max;
    cr_assert_leq(e, TAU, "%.3e J", e);
    cr_assert_leq(st.backstop_pivots, 5000, "%d backstop steps", st.backstop_pivots);
    free(lambda);
    heft_mlcp_destroy(p);
}
