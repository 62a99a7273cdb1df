/* The backstop's Newton stage (newton.c): exact answers on stalled scene
 * islands, dependent rows, and a stage that ends within its budget and
 * says so. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp.h"
#include "newton.h"

#define ACCEPT 1e-10 /* J, the acceptance line of the MLCP format */

static heft_mlcp *read_problem(const char *path) {
    heft_mlcp *p = NULL;
    char err[256];
    cr_assert_eq(heft_mlcp_read_file(path, &p, NULL, err, sizeof err), 0, "%s", err);
    return p;
}

/* lambda (to free) from bpp-skyline on p, which must return HEFT_SOLVE_OK */
static double *solve_with_bpp_skyline(const heft_mlcp *p, const heft_solver_options *o,
                                      heft_solver_stats *st) {
    double *lambda = calloc((size_t)p->n, sizeof(double));
    cr_assert_not_null(lambda);
    cr_assert_eq(heft_solve("bpp-skyline", o, p, lambda, st), HEFT_SOLVE_OK);
    return lambda;
}

/* From the warm start of an island where block pivoting cycled (435 rows,
 * 808 LCP variables, where a Lemke path from the all-slack basis takes
 * about 3,000 pivots), the stage ends within 1e-10 J in a few steps. */
Test(newton, a_stalled_winch_island_ends_exact_from_its_warm_start) {
    heft_mlcp *p = read_problem(HEFT_TESTDATA_DIR "/winch-stall-step300.mlcp");
    const int n = p->n;
    double *answer = calloc((size_t)n, sizeof(double));
    double *work = malloc(sizeof(double) * (size_t)(n + 6 * p->nbodies));
    heft_newton ws;
    memset(&ws, 0, sizeof ws);
    heft_newton_result r;
    heft_newton_solve(&ws, p, p->lambda0, ACCEPT, 50, answer, work, &r);
    cr_assert_eq(r.status, HEFT_NEWTON_SOLVED, "status %d after %d steps, %.3e J", r.status,
                 r.steps, r.error_max);
    cr_assert_leq(r.steps, 20);
    const heft_mlcp_error e = heft_mlcp_measure(p, answer, NULL);
    cr_assert_lt(e.max, ACCEPT);
    cr_assert_eq(e.bound_violations, 0);
    cr_assert_float_eq(e.max, r.error_max, 1e-300);
    heft_newton_release(&ws);
    free(work);
    free(answer);
    heft_mlcp_destroy(p);
}

/* The same island through bpp-skyline with the restart from PGS turned off:
 * the answer is the backstop's, exact, and its Newton steps are counted. */
Test(newton, bpp_skyline_ends_a_stalled_island_through_the_stage) {
    heft_mlcp *p = read_problem(HEFT_TESTDATA_DIR "/winch-stall-step300.mlcp");
    heft_solver_options o = heft_solver_default_options();
    o.bpp_pgs_sweeps = 0;
    heft_solver_stats st;
    double *lambda = solve_with_bpp_skyline(p, &o, &st);
    cr_assert(st.converged);
    cr_assert_eq(st.answer, HEFT_ANSWER_BACKSTOP);
    cr_assert_gt(st.newton_steps, 0);
    cr_assert_geq(st.backstop_pivots, st.newton_steps);
    cr_assert_lt(heft_mlcp_measure(p, lambda, NULL).max, ACCEPT);
    free(lambda);
    heft_mlcp_destroy(p);
}

/* The pyramid of base 10's island of its step 1 (1,740 rows, 4,060 LCP
 * variables) under bpp-skyline, the restart from PGS on (the default) or
 * off: converged within the tolerance, in its boxes. */
static heft_solver_stats solve_pyramid_island(int restart) {
    heft_mlcp *p = read_problem(HEFT_TESTDATA_DIR "/pyramid10-step1.mlcp");
    heft_solver_options o = heft_solver_default_options();
    if (!restart)
        o.bpp_pgs_sweeps = 0;
    heft_solver_stats st;
    double *lambda = solve_with_bpp_skyline(p, &o, &st);
    cr_assert(st.converged, "%.3e J", st.error_max);
    const heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
    cr_assert_leq(e.max, o.tolerance, "%.3e J", e.max);
    cr_assert_eq(e.bound_violations, 0);
    free(lambda);
    heft_mlcp_destroy(p);
    return st;
}

/* The first step of the pyramid of base 10 (1,740 rows, 55 boxes on
 * four-point faces made regular only by their compliance, so that A_FF has
 * some 770 pivots near 1e-4 of its diagonal; its LCP, some 4,000
 * variables, is above Lemke's cap). With the restart off the Newton stage
 * is the last one: its best start came within 1e-10 J, and from there the
 * steps of the fixed 1e-6 shift were 0.18 long for impulses of 0.9, the
 * line search kept an eighth of them or less, and the solve ended
 * unconverged at 9.1e-11 J. The shift that grows when the line search cuts
 * a step, and the longer last stage, end it within the solver's tolerance
 * (1e-12 J, the error measure's max). */
Test(newton, a_pyramid_island_above_lemkes_cap_ends_exact) {
    const heft_solver_stats st = solve_pyramid_island(0);
    cr_assert_eq(st.answer, HEFT_ANSWER_BACKSTOP);
    /* the far starts left out (next test): 92, against 132 with every one */
    cr_assert_leq(st.newton_steps, 100, "%d Newton steps", st.newton_steps);
}

/* The same island with the restart, the default: once a Newton stage has
 * come near an answer, a start a million times farther off is not run (what
 * follows on an island too large for Lemke's method goes on from the
 * nearest point anyway). It ends in 92 Newton steps, as without the
 * restart; running every start took 107. */
Test(newton, above_lemkes_cap_a_far_start_is_left_out) {
    const heft_solver_stats st = solve_pyramid_island(1);
    cr_log_info("%d Newton steps", st.newton_steps);
    cr_assert_leq(st.newton_steps, 100, "%d Newton steps", st.newton_steps);
}

/* The winch's island of step 1,088 (426 rows, 942 LCP variables): with the
 * fixed shift the Newton stage stalled from every start and Lemke's method
 * ended it, after 80 Newton steps and three backstop stages (0.5 s). With
 * the shift that grows when the line search cuts a step, the Newton stage
 * ends it exact on its own, within one start's 25 steps. */
Test(newton, the_winch_island_of_step_1088_ends_in_the_newton_stage) {
    heft_mlcp *p = read_problem(HEFT_TESTDATA_DIR "/winch-step1088.mlcp");
    heft_solver_options o = heft_solver_default_options();
    heft_solver_stats st;
    double *lambda = solve_with_bpp_skyline(p, &o, &st);
    cr_assert(st.converged);
    cr_assert_eq(st.answer, HEFT_ANSWER_BACKSTOP);
    cr_assert_eq(st.backstops, 1, "%d backstop stages", st.backstops);
    cr_assert_leq(st.newton_steps, 25);
    cr_assert_eq(st.backstop_pivots, st.newton_steps); /* no Lemke pivots */
    cr_assert_leq(heft_mlcp_measure(p, lambda, NULL).max, o.tolerance);
    free(lambda);
    heft_mlcp_destroy(p);
}

/* The winch's island of step 1,441 (417 rows) from its warm start, 2.1e-8
 * J off: the first phase wanders and stalls with nothing better than the
 * start (the stage ended there, after 26 steps, before the second phase);
 * the second phase, from the best point, holds the rows that leave their
 * boxes at their bound and ends within the solver's tolerance. Through
 * bpp-skyline the island then needs no Lemke pivots (8,567 before, and 1.4
 * s against some 30 ms). */
Test(newton, a_start_that_stalls_ends_exact_in_its_second_phase) {
    heft_mlcp *p = read_problem(HEFT_TESTDATA_DIR "/winch-step1441.mlcp");
    const int n = p->n;
    double *answer = calloc((size_t)n, sizeof(double));
    heft_newton ws;
    memset(&ws, 0, sizeof ws);
    heft_newton_result r;
    heft_newton_solve(&ws, p, p->lambda0, 1e-12, 60, answer, NULL, &r);
    cr_assert_eq(r.status, HEFT_NEWTON_SOLVED, "status %d after %d steps, %.3e J", r.status,
                 r.steps, r.error_max);
    cr_assert_gt(r.steps, 10, "the first phase ran its course (%d steps)", r.steps);
    heft_mlcp_error e = heft_mlcp_measure(p, answer, NULL);
    cr_assert_leq(e.max, 1e-12, "%.3e J", e.max);
    cr_assert_eq(e.bound_violations, 0);
    heft_newton_release(&ws);

    heft_solver_options o = heft_solver_default_options();
    heft_solver_stats st;
    cr_assert_eq(heft_solve("bpp-skyline", &o, p, answer, &st), HEFT_SOLVE_OK);
    cr_assert(st.converged);
    cr_assert_eq(st.backstop_pivots, st.newton_steps, "%d Lemke pivots",
                 st.backstop_pivots - st.newton_steps);
    e = heft_mlcp_measure(p, answer, NULL);
    cr_assert_leq(e.max, o.tolerance, "%.3e J", e.max);
    free(answer);
    heft_mlcp_destroy(p);
}

/* Two free rows that are one constraint written twice (A singular, b in its
 * range): the proximal shift of the free rows' diagonal keeps the system
 * solvable, the steps split the impulse evenly between the two rows (the
 * shifted system is symmetric in them), and the answer is exact. */
Test(newton, a_dependent_pair_of_rows_ends_exact) {
    heft_mlcp *p = heft_mlcp_create(3, 0, HEFT_MLCP_DENSE);
    cr_assert_not_null(p);
    /* rows 0 and 1 equal, row 2 a contact normal apart */
    const double A[9] = {2, 2, 0, 2, 2, 0, 0, 0, 1};
    memcpy(p->A, A, sizeof A);
    p->b[0] = p->b[1] = 4.0;
    p->b[2] = -1.0; /* pushes the normal row against its bound */
    p->lo[2] = 0.0;
    const double start[3] = {0, 0, 5};
    double answer[3];
    heft_newton ws;
    memset(&ws, 0, sizeof ws);
    heft_newton_result r;
    heft_newton_solve(&ws, p, start, 1e-26, 10, answer, NULL, &r);
    cr_assert_eq(r.status, HEFT_NEWTON_SOLVED, "status %d, %.3e J", r.status, r.error_max);
    cr_assert_float_eq(answer[0] + answer[1], 2.0, 1e-12);
    cr_assert_float_eq(answer[0], answer[1], 1e-9);
    cr_assert_float_eq(answer[2], 0.0, 1e-15);
    cr_assert_lt(heft_mlcp_measure(p, answer, NULL).max, ACCEPT);
    heft_newton_release(&ws);
    heft_mlcp_destroy(p);
}

/* A problem without a solution (the same rows with b = (1, 2)): the stage
 * ends within its budget, says it did not solve, and answers a point no
 * worse than its start. */
Test(newton, an_inconsistent_problem_ends_unsolved_within_the_budget) {
    heft_mlcp *p = heft_mlcp_create(2, 0, HEFT_MLCP_DENSE);
    cr_assert_not_null(p);
    const double A[4] = {1, 1, 1, 1};
    memcpy(p->A, A, sizeof A);
    p->b[0] = 1.0;
    p->b[1] = 2.0;
    const double start[2] = {0, 0};
    double answer[2];
    heft_newton ws;
    memset(&ws, 0, sizeof ws);
    heft_newton_result r;
    heft_newton_solve(&ws, p, start, ACCEPT, 25, answer, NULL, &r);
    cr_assert_neq(r.status, HEFT_NEWTON_SOLVED);
    cr_assert_leq(r.steps, 25);
    cr_assert(isfinite(answer[0]) && isfinite(answer[1]));
    cr_assert_leq(r.error_max, heft_mlcp_measure(p, start, NULL).max);
    heft_newton_release(&ws);
    heft_mlcp_destroy(p);
}

/* The wall of 96 bricks while it falls: its islands (2,800 to 3,132 rows,
 * LCPs of some 7,000 variables) are above Lemke's cap, and the Newton
 * stage stalled about 1e-6 J off from every start the solve had. This is
 * the island of step 25 cut down to its bottom 24 bricks (696 rows), with
 * Lemke's method turned off to stand for the cap: the solve used to end
 * unconverged at 1.5e-8 J (the Newton stage's answer, 85 steps). PGS,
 * chained from the best answer so far (at most 30 times bpp_pgs_sweeps
 * sweeps), brings it near enough for the last Newton stage to end it within
 * the solver's tolerance (1e-12 J, the error measure's max). The early
 * Newton stages now come within 1e-9 J, the last stage from there stalls at
 * 2.9e-10 J, and the approach by PGS runs after it. The bound on the Newton
 * steps: max_pivots before the restart, 60 in the first stage, 150 in the
 * last one from the solve's points and 150 from PGS's iterate. */
Test(newton, a_wall_island_without_lemke_ends_exact_after_pgs_approaches_it) {
    heft_mlcp *p = read_problem(HEFT_TESTDATA_DIR "/wall-step25-bottom24.mlcp");
    double *lambda = calloc((size_t)p->n, sizeof(double));
    heft_solver_options o = heft_solver_default_options();
    o.backstop_max_variables = HEFT_BACKSTOP_OFF;
    heft_solver_stats st;
    cr_assert_eq(heft_solve("bpp-skyline", &o, p, lambda, &st), HEFT_SOLVE_OK, "%.3e J",
                 st.error_max);
    cr_assert(st.converged);
    cr_assert_eq(st.answer, HEFT_ANSWER_BACKSTOP);
    cr_assert_eq(st.backstop_pivots, st.newton_steps); /* no Lemke pivots */
    cr_assert_leq(st.newton_steps, o.max_pivots + 60 + 2 * 150);
    cr_assert_gt(st.pgs_sweeps, o.bpp_pgs_sweeps, "the approach by PGS ran");
    cr_assert_leq(st.pgs_sweeps, 31 * o.bpp_pgs_sweeps);
    const heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
    cr_assert_leq(e.max, o.tolerance, "%.3e J", e.max);
    cr_assert_eq(e.bound_violations, 0);
    free(lambda);
    heft_mlcp_destroy(p);
}

/* The winch's island of step 3,793 (381 rows, the chain wound on the drum):
 * the early Newton stage runs from the warm start and stalls, PGS's restart
 * and the frozen boxes follow, and the backstop's Newton stage meets the
 * warm start again among its starts. heft_newton_solve is a function of its
 * start, so a start that stalled once in a solve is not run again, and its
 * steps go to the next start: the stage ends the solve in 88 Newton steps,
 * where running the warm start again took 113 and left the solve to
 * Lemke's method (6,598 pivots). */
Test(newton, a_start_that_stalled_is_not_run_again_in_the_same_solve) {
    heft_mlcp *p = read_problem(HEFT_TESTDATA_DIR "/winch-step3793.mlcp");
    heft_solver_options o = heft_solver_default_options();
    heft_solver_stats st;
    double *lambda = solve_with_bpp_skyline(p, &o, &st);
    cr_assert(st.converged);
    cr_assert_lt(heft_mlcp_measure(p, lambda, NULL).max, o.tolerance);
    cr_assert_gt(st.newton_steps, 0);
    cr_assert_leq(st.newton_steps, 100, "%d Newton steps", st.newton_steps);
    /* no Lemke pivot: the Newton stage ended it */
    cr_assert_eq(st.backstop_pivots, st.newton_steps, "%d Lemke pivots",
                 st.backstop_pivots - st.newton_steps);
    free(lambda);
    heft_mlcp_destroy(p);
}
