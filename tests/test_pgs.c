/* Tests of the "pgs" solver, the registry, heft_solve and the allocation
 * hooks. The convergence tests use planted problems (planted.h): the answer
 * is known, so the solver is held to it, not just to a small residual. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp.h"
#include "counting_allocator.h"
#include "planted.h"

/* Options for "solve it exactly": the stopping energy is far below the
 * error the tests demand, and the sweep budget is never the reason to stop. */
static heft_solver_options exact_options(void) {
    heft_solver_options o = heft_solver_default_options();
    o.tolerance = 1e-26;
    o.max_iterations = 100000;
    return o;
}

static int solve_with_pgs(const heft_solver_options *o, const heft_mlcp *p, double *lambda,
                          heft_solver_stats *stats) {
    const heft_solver_vtable *pgs = heft_solver_find("pgs");
    cr_assert_not_null(pgs);
    void *state = pgs->create(o);
    cr_assert_not_null(state);
    const int rc = pgs->solve(state, p, lambda, stats);
    pgs->destroy(state);
    return rc;
}

/* Solves a planted problem and holds PGS to the planted answer. */
static void expect_planted_solution(planted_problem *pp, const char *form, int n, int seed) {
    const heft_solver_options o = exact_options();
    double *lambda = malloc(sizeof(double) * (size_t)n);
    heft_solver_stats st;
    const int rc = solve_with_pgs(&o, pp->p, lambda, &st);
    const double diff = planted_max_diff(lambda, pp->solution, n);
    heft_mlcp_error err = heft_mlcp_measure(pp->p, lambda, NULL);
    cr_log_info("pgs %s n=%d seed=%d: %d sweeps, error max %.3g J sum %.3g J, |lambda - "
                "lambda*| %.3g (free %d, at lo %d, at hi %d, sticking %d, sliding %d, "
                "separated %d)",
                form, n, seed, st.iterations, st.error_max, st.error_sum, diff, pp->free_rows,
                pp->at_lo, pp->at_hi, pp->sticking, pp->sliding, pp->separated);
    cr_assert_eq(rc, HEFT_SOLVE_OK, "%s n=%d seed=%d: rc %d after %d sweeps", form, n, seed, rc,
                 st.iterations);
    cr_assert_eq(st.converged, 1);
    cr_assert_eq(st.n, n);
    cr_assert(st.iterations > 1 && st.iterations < o.max_iterations);
    cr_assert(st.error_max < 1e-8, "%s n=%d seed=%d: error %g J", form, n, seed, st.error_max);
    cr_assert_eq(st.error_max, err.max); /* the stats are the measure of the answer */
    cr_assert_eq(st.bound_violations, 0);
    cr_assert(diff < 1e-6, "%s n=%d seed=%d: |lambda - lambda*| = %g", form, n, seed, diff);
    cr_assert(st.time_total_ms >= st.time_solve_ms && st.time_solve_ms >= 0.0);
    free(lambda);
}

/* Diagonal dominance of the planted problems, through the compliance
 * (structured) or the diagonal (dense): enough for PGS to converge on every
 * seed used here. With friction coupled to the normal impulses PGS is not
 * guaranteed to converge: at dominance 0.02 structured n = 200 seed 4 falls
 * into a period-2 cycle (found while choosing these values). */
#define STRUCTURED_DOMINANCE 0.1
#define DENSE_DOMINANCE 0.1
#define SEEDS 5

/* Over the seeds of one size the index sets must hold every kind of row, or
 * the tests would prove less than their names say. */
static void expect_mixed_index_sets(const planted_problem *pp, int count, int n) {
    int free_rows = 0, at_lo = 0, at_hi = 0, sticking = 0, sliding = 0, separated = 0;
    for (int k = 0; k < count; ++k) {
        free_rows += pp[k].free_rows;
        at_lo += pp[k].at_lo;
        at_hi += pp[k].at_hi;
        sticking += pp[k].sticking;
        sliding += pp[k].sliding;
        separated += pp[k].separated;
    }
    cr_assert(free_rows > 0 && at_lo > 0 && at_hi > 0);
    if (n >= 50)
        cr_assert(sticking > 0 && sliding > 0 && separated > 0,
                  "n=%d: sticking %d, sliding %d, separated %d", n, sticking, sliding, separated);
}

static void planted_sizes(int n, int dense) {
    planted_problem pp[SEEDS];
    for (int seed = 1; seed <= SEEDS; ++seed) {
        pp[seed - 1] = dense ? planted_dense(n, DENSE_DOMINANCE, (uint64_t)seed)
                             : planted_structured(n, STRUCTURED_DOMINANCE, 0, (uint64_t)seed);
        cr_assert_not_null(pp[seed - 1].p);
    }
    expect_mixed_index_sets(pp, SEEDS, n);
    for (int seed = 1; seed <= SEEDS; ++seed) {
        expect_planted_solution(&pp[seed - 1], dense ? "dense" : "structured", n, seed);
        planted_free(&pp[seed - 1]);
    }
}

static void planted_structured_sizes(int n) {
    planted_sizes(n, 0);
}

static void planted_dense_sizes(int n) {
    planted_sizes(n, 1);
}

Test(pgs, solves_planted_structured_problem_10_rows) {
    planted_structured_sizes(10);
}
Test(pgs, solves_planted_structured_problem_50_rows) {
    planted_structured_sizes(50);
}
Test(pgs, solves_planted_structured_problem_200_rows) {
    planted_structured_sizes(200);
}
Test(pgs, solves_planted_dense_problem_10_rows) {
    planted_dense_sizes(10);
}
Test(pgs, solves_planted_dense_problem_50_rows) {
    planted_dense_sizes(50);
}
Test(pgs, solves_planted_dense_problem_200_rows) {
    planted_dense_sizes(200);
}

/* The same island given with its structure and as a dense A alone: the two
 * paths of the solver must agree on the answer and on the sweep count. */
Test(pgs, structured_and_dense_only_forms_give_the_same_answer) {
    for (int seed = 1; seed <= 3; ++seed) {
        const int n = 120;
        planted_problem pp = planted_structured(n, STRUCTURED_DOMINANCE, 1, (uint64_t)seed);
        const heft_solver_options o = exact_options();
        double ls[120], ld[120];
        heft_solver_stats ss, sd;
        cr_assert_eq(solve_with_pgs(&o, pp.p, ls, &ss), HEFT_SOLVE_OK);
        heft_mlcp_row *rows = pp.p->rows;
        pp.p->rows = NULL;
        cr_assert_eq(solve_with_pgs(&o, pp.p, ld, &sd), HEFT_SOLVE_OK);
        pp.p->rows = rows;
        cr_log_info("pgs same island n=%d seed=%d: structured %d sweeps, dense %d sweeps", n, seed,
                    ss.iterations, sd.iterations);
        cr_assert(planted_max_diff(ls, ld, n) < 1e-9);
        cr_assert(planted_max_diff(ls, pp.solution, n) < 1e-6);
        cr_assert(abs(ss.iterations - sd.iterations) <= 2);
        planted_free(&pp);
    }
}

/* The structured sweep (rows as records, static sides on a zero slot, the
 * products summed in pairs) is the same Gauss-Seidel iteration as the dense
 * one, sweep for sweep, not only at the same fixed point: after 1, 3 and 10
 * sweeps from a cold start both give the same impulses to rounding, with
 * over-relaxation, on islands with static sides and friction rows. */
Test(pgs, structured_sweep_is_the_dense_sweep_to_rounding) {
    for (int seed = 1; seed <= 3; ++seed) {
        const int n = 150;
        planted_problem pp = planted_structured(n, STRUCTURED_DOMINANCE, 1, (uint64_t)seed);
        const int sweeps[3] = {1, 3, 10};
        for (int k = 0; k < 3; ++k) {
            heft_solver_options o = heft_solver_default_options();
            o.tolerance = 0.0;
            o.max_iterations = sweeps[k];
            o.warm_start = 0;
            o.relaxation = 1.2;
            double ls[150], ld[150];
            heft_solver_stats ss, sd;
            solve_with_pgs(&o, pp.p, ls, &ss);
            heft_mlcp_row *rows = pp.p->rows;
            pp.p->rows = NULL;
            solve_with_pgs(&o, pp.p, ld, &sd);
            pp.p->rows = rows;
            cr_assert_eq(ss.iterations, sweeps[k]);
            cr_assert_eq(sd.iterations, sweeps[k]);
            double scale = 0.0;
            for (int i = 0; i < n; ++i)
                scale = fmax(scale, fabs(ld[i]));
            const double diff = planted_max_diff(ls, ld, n);
            cr_log_info("pgs seed %d after %d sweeps: |structured - dense| = %.3g (scale %.3g)",
                        seed, sweeps[k], diff, scale);
            cr_assert(diff <= 1e-12 * fmax(scale, 1.0), "seed %d, %d sweeps: %g", seed, sweeps[k],
                      diff);
        }
        planted_free(&pp);
    }
}

Test(pgs, over_relaxation_reaches_the_same_answer) {
    planted_problem pp = planted_structured(100, STRUCTURED_DOMINANCE, 0, 7);
    heft_solver_options o = exact_options();
    o.relaxation = 1.3;
    double lambda[100];
    heft_solver_stats st;
    cr_assert_eq(solve_with_pgs(&o, pp.p, lambda, &st), HEFT_SOLVE_OK);
    cr_log_info("pgs relaxation 1.3 n=100: %d sweeps, error %.3g J", st.iterations, st.error_max);
    cr_assert(st.error_max < 1e-8);
    cr_assert(planted_max_diff(lambda, pp.solution, 100) < 1e-6);
    planted_free(&pp);
}

Test(pgs, warm_start_from_the_exact_answer_converges_in_one_sweep) {
    for (int dense = 0; dense <= 1; ++dense) {
        planted_problem pp = dense ? planted_dense(80, DENSE_DOMINANCE, 4)
                                   : planted_structured(80, STRUCTURED_DOMINANCE, 0, 4);
        memcpy(pp.p->lambda0, pp.solution, sizeof(double) * 80);
        heft_solver_options o = heft_solver_default_options(); /* tolerance 1e-12 */
        double lambda[80];
        heft_solver_stats st;
        cr_assert_eq(solve_with_pgs(&o, pp.p, lambda, &st), HEFT_SOLVE_OK);
        cr_assert_eq(st.iterations, 1, "%s: %d sweeps", dense ? "dense" : "structured",
                     st.iterations);
        cr_assert(planted_max_diff(lambda, pp.solution, 80) < 1e-12);
        cr_assert(st.error_max < 1e-20);

        /* the same problem with warm starting switched off needs many sweeps */
        o.warm_start = 0;
        cr_assert_eq(solve_with_pgs(&o, pp.p, lambda, &st), HEFT_SOLVE_OK);
        cr_assert(st.iterations > 5, "cold start: %d sweeps", st.iterations);
        planted_free(&pp);
    }
}

Test(pgs, sweep_budget_stops_iteration_and_reports_not_converged) {
    planted_problem pp = planted_structured(60, STRUCTURED_DOMINANCE, 0, 2);
    heft_solver_options o = exact_options();
    o.max_iterations = 3;
    double lambda[60];
    heft_solver_stats st;
    cr_assert_eq(solve_with_pgs(&o, pp.p, lambda, &st), HEFT_SOLVE_NOT_CONVERGED);
    cr_assert_eq(st.iterations, 3);
    cr_assert_eq(st.converged, 0);
    cr_assert(st.error_max > 1e-8);       /* three sweeps are not enough, and the stats say so */
    cr_assert_eq(st.bound_violations, 0); /* but the answer is always inside its boxes */
    planted_free(&pp);
}

Test(pgs, row_without_inverse_mass_stays_at_zero_clamped_into_its_box) {
    /* row 0 touches only the world and has no compliance: d = 0 */
    heft_mlcp *p = heft_mlcp_create(2, 1, HEFT_MLCP_STRUCTURED);
    p->bodies[0].inv_mass = 1.0;
    p->rows[0] = (heft_mlcp_row){-1, -1, {1, 0, 0, 0, 0, 0}, {0}};
    p->lo[0] = 0.5;
    p->hi[0] = 2.0;
    p->b[0] = 3.0;
    p->rows[1] = (heft_mlcp_row){0, -1, {1, 0, 0, 0, 0, 0}, {0}};
    p->b[1] = 2.0; /* lambda_1 = 2 */
    const heft_solver_options o = exact_options();
    double lambda[2];
    heft_solver_stats st;
    cr_assert_eq(solve_with_pgs(&o, p, lambda, &st), HEFT_SOLVE_OK);
    cr_assert_eq(lambda[0], 0.5);
    cr_assert_float_eq(lambda[1], 2.0, 1e-12);
    heft_mlcp_destroy(p);
}

Test(pgs, nan_in_the_problem_is_reported_as_failed) {
    planted_problem pp = planted_structured(30, STRUCTURED_DOMINANCE, 0, 5);
    pp.p->b[7] = NAN;
    double lambda[30];
    heft_solver_stats st;
    const heft_solver_options o = exact_options();
    cr_assert_eq(solve_with_pgs(&o, pp.p, lambda, &st), HEFT_SOLVE_FAILED);
    cr_assert_eq(st.converged, 0);
    cr_assert(st.iterations <= 2, "kept sweeping NaN: %d sweeps", st.iterations);
    cr_assert(isinf(st.error_max));
    planted_free(&pp);
}

/* The forklift's steering knuckle as a problem: a 0.9 kg body on ball
 * joints between a 2,430 kg chassis and a 67 kg wheel (rows on the bodies'
 * centres, so only their masses count), the wheel pushed sideways and the
 * chassis the other way. */
static heft_mlcp *knuckle_problem(void) {
    heft_mlcp *p = heft_mlcp_create(6, 3, HEFT_MLCP_STRUCTURED | HEFT_MLCP_META);
    cr_assert_not_null(p);
    const double mass[3] = {2430.0, 0.9, 67.05};
    for (int k = 0; k < 3; ++k) {
        p->bodies[k].inv_mass = 1.0 / mass[k];
        p->bodies[k].inv_inertia[0] = p->bodies[k].inv_inertia[3] = p->bodies[k].inv_inertia[5] =
            1.0 / mass[k];
    }
    for (int j = 0; j < 2; ++j)
        for (int axis = 0; axis < 3; ++axis) {
            const int i = 3 * j + axis;
            heft_mlcp_row r = {j, j + 1, {0}, {0}};
            r.ja[axis] = -1.0; /* J v = v_(j+1) - v_j along the axis */
            r.jb[axis] = 1.0;
            p->rows[i] = r;
            p->kind[i] = HEFT_ROW_BILATERAL;
            p->block[i] = j;
            p->epsilon[i] = 1e-10;
            p->b[i] = (j == 0 ? 1.0 : -2.0) * (axis + 1.0);
        }
    return p;
}

/* PGS alone passes impulses through the light body at about 1 - 2 m/M of the
 * rest a sweep; its block (the six joint rows of the 0.9 kg body, solved
 * together after each sweep) answers within the first sweeps. A ratio above
 * the problem's (2,700) leaves the papers' sweep, bit for bit. */
Test(pgs, a_light_body_between_heavy_ones_is_solved_as_a_block) {
    heft_mlcp *p = knuckle_problem();
    heft_solver_options o = heft_solver_default_options();
    heft_solver_stats with, without, above;
    double blocked[6], plain[6], high[6];
    cr_assert_eq(solve_with_pgs(&o, p, blocked, &with), HEFT_SOLVE_OK);
    o.pgs_light_ratio = 0.0;
    cr_assert_eq(solve_with_pgs(&o, p, plain, &without), HEFT_SOLVE_NOT_CONVERGED);
    o.pgs_light_ratio = 3000.0;
    cr_assert_eq(solve_with_pgs(&o, p, high, &above), HEFT_SOLVE_NOT_CONVERGED);
    cr_log_info("knuckle: blocks %d sweeps, error %.3g J; without %d sweeps, error %.3g J",
                with.iterations, with.error_max, without.iterations, without.error_max);
    cr_assert(with.error_max < 1e-20, "with the block: %g J", with.error_max);
    cr_assert(with.iterations <= 3, "with the block: %d sweeps", with.iterations);
    cr_assert(without.error_max > 1e-3, "without: %g J", without.error_max);
    cr_assert(memcmp(plain, high, sizeof plain) == 0);
    heft_mlcp_destroy(p);
}

Test(pgs, empty_problem_converges_at_once) {
    heft_mlcp *p = heft_mlcp_create(0, 0, HEFT_MLCP_STRUCTURED);
    heft_solver_stats st;
    const heft_solver_options o = heft_solver_default_options();
    cr_assert_eq(solve_with_pgs(&o, p, NULL, &st), HEFT_SOLVE_OK);
    cr_assert_eq(st.iterations, 0);
    heft_mlcp_destroy(p);
}

/* ---- registry and heft_solve ---------------------------------------------------- */

Test(registry, finds_pgs_by_name) {
    const heft_solver_vtable *vt = heft_solver_find("pgs");
    cr_assert_not_null(vt);
    cr_assert_str_eq(vt->name, "pgs");
    cr_assert_not_null(vt->description);
    cr_assert(heft_solver_count() >= 1);
    int found = 0;
    for (int i = 0; i < heft_solver_count(); ++i)
        found += heft_solver_at(i) == vt;
    cr_assert_eq(found, 1);
    cr_assert_null(heft_solver_at(-1));
    cr_assert_null(heft_solver_at(heft_solver_count()));
}

Test(registry, unknown_name_is_null) {
    cr_assert_null(heft_solver_find("nope"));
    cr_assert_null(heft_solver_find(""));
    cr_assert_null(heft_solver_find(NULL));
}

static void *dummy_create(const heft_solver_options *o) {
    (void)o;
    static int token;
    return &token;
}

static int dummy_solve(void *s, const heft_mlcp *p, double *lambda, heft_solver_stats *st) {
    (void)s;
    (void)st;
    for (int i = 0; i < p->n; ++i)
        lambda[i] = 0.0;
    return HEFT_SOLVE_NOT_CONVERGED;
}

static void dummy_destroy(void *s) {
    (void)s;
}

Test(registry, duplicate_or_unnamed_registration_fails_and_a_new_name_is_added) {
    const heft_solver_vtable dup = {.name = "pgs",
                                    .description = "an impostor",
                                    .create = dummy_create,
                                    .solve = dummy_solve,
                                    .destroy = dummy_destroy};
    const heft_solver_vtable unnamed = {.description = "no name",
                                        .create = dummy_create,
                                        .solve = dummy_solve,
                                        .destroy = dummy_destroy};
    static const heft_solver_vtable mine = {.name = "zero",
                                            .description = "answers zero",
                                            .create = dummy_create,
                                            .solve = dummy_solve,
                                            .destroy = dummy_destroy};
    const int before = heft_solver_count();
    cr_assert_eq(heft_solver_register(&dup), -1);
    cr_assert_eq(heft_solver_register(&unnamed), -1);
    cr_assert_eq(heft_solver_register(NULL), -1);
    cr_assert_eq(heft_solver_count(), before);
    cr_assert_str_eq(heft_solver_find("pgs")->description, heft_solver_at(0)->description);
    cr_assert_neq(heft_solver_find("pgs"), &dup);

    const int index = heft_solver_register(&mine);
    cr_assert_eq(index, before);
    cr_assert_eq(heft_solver_count(), before + 1);
    cr_assert_eq(heft_solver_find("zero"), &mine);
    cr_assert_eq(heft_solver_at(index), &mine);
    cr_assert_eq(heft_solver_register(&mine), -1);
}

Test(registry, default_options_are_the_documented_values) {
    const heft_solver_options o = heft_solver_default_options();
    cr_assert_eq(o.max_iterations, 50);
    cr_assert_eq(o.tolerance, 1e-12);
    cr_assert_eq(o.relaxation, 1.0);
    cr_assert_eq(o.warm_start, 1);
    cr_assert_eq(o.max_pivots, 35);
    cr_assert_eq(o.keep_index_sets, 1);
    cr_assert_eq(o.skyline_refactor_fraction, 0.15);
    cr_assert_eq(o.pgs_light_ratio, 100.0);
}

Test(registry, heft_solve_solves_and_measures) {
    planted_problem pp = planted_structured(50, STRUCTURED_DOMINANCE, 0, 11);
    const heft_solver_options o = exact_options();
    double lambda[50];
    heft_solver_stats st;
    cr_assert_eq(heft_solve("pgs", &o, pp.p, lambda, &st), HEFT_SOLVE_OK);
    const heft_mlcp_error err = heft_mlcp_measure(pp.p, lambda, NULL);
    cr_assert_eq(st.error_max, err.max);
    cr_assert_eq(st.error_sum, err.sum);
    cr_assert(st.error_max < 1e-8);
    cr_assert(planted_max_diff(lambda, pp.solution, 50) < 1e-6);
    cr_assert(st.time_total_ms >= st.time_solve_ms);
    cr_assert_eq(heft_solve("nope", &o, pp.p, lambda, &st), HEFT_SOLVE_FAILED);

    heft_solver_options two = o;
    two.max_iterations = 2;
    cr_assert_eq(heft_solve("pgs", &two, pp.p, lambda, &st), HEFT_SOLVE_NOT_CONVERGED);
    cr_assert_eq(st.iterations, 2);
    cr_assert(st.error_max > 1e-8);

    /* NULL options are the defaults, NULL stats are allowed */
    const int rc = heft_solve("pgs", NULL, pp.p, lambda, NULL);
    cr_assert(rc == HEFT_SOLVE_OK || rc == HEFT_SOLVE_NOT_CONVERGED);
    planted_free(&pp);
}

/* ---- allocation --------------------------------------------------------------- */

Test(allocation, second_solve_of_the_same_size_makes_no_allocation) {
    planted_problem pp = planted_structured(90, STRUCTURED_DOMINANCE, 1, 3);
    planted_problem small = planted_structured(40, STRUCTURED_DOMINANCE, 1, 3);
    counting_allocator_install();

    const heft_solver_vtable *pgs = heft_solver_find("pgs");
    const heft_solver_options o = heft_solver_default_options();
    void *state = pgs->create(&o);
    double lambda[90];
    heft_solver_stats st;
    counting_allocator_calls = 0;
    pgs->solve(state, pp.p, lambda, &st); /* warm-up: the workspace grows */
    cr_assert(counting_allocator_calls > 0, "the hook is not in use");

    counting_allocator_calls = 0;
    pgs->solve(state, pp.p, lambda, &st);
    cr_assert_eq(counting_allocator_calls, 0, "structured: %d calls", counting_allocator_calls);

    heft_mlcp_row *rows = pp.p->rows; /* the dense path, same size */
    pp.p->rows = NULL;
    pgs->solve(state, pp.p, lambda, &st);
    cr_assert_eq(counting_allocator_calls, 0, "dense: %d calls", counting_allocator_calls);
    pp.p->rows = rows;

    pgs->solve(state, small.p, lambda, &st); /* a smaller island fits too */
    cr_assert_eq(counting_allocator_calls, 0, "smaller: %d calls", counting_allocator_calls);

    pgs->destroy(state);
    cr_assert(counting_allocator_calls > 0); /* and the workspace is given back through the hook */
    heft_set_allocator(NULL);
    counting_allocator_calls = 0;
    void *m = heft_alloc(16);
    heft_free(m);
    cr_assert_eq(counting_allocator_calls, 0, "NULL restores malloc/free");
    planted_free(&pp);
    planted_free(&small);
}
