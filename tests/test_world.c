/* The world: solver switching, statistics, fallbacks, determinism. */
#include <criterion/criterion.h>

#include <string.h>

#include "heft.h"
#include "mlcp.h"
#include "runner.h"

static void *nan_create(const heft_solver_options *o) {
    (void)o;
    static int token;
    return &token;
}
static int nan_solve(void *s, const heft_mlcp *p, double *lambda, heft_solver_stats *st) {
    (void)s;
    for (int i = 0; i < p->n; ++i) {
        lambda[i] = NAN;
    }
    st->iterations = 1;
    return HEFT_SOLVE_OK; /* it lies: the engine must still catch the NaN */
}
static void nan_reset(void *s) {
    (void)s;
}
static void nan_destroy(void *s) {
    (void)s;
}

static const heft_solver_vtable nan_solver = {.name = "test-nan",
                                              .description = "returns NaN",
                                              .create = nan_create,
                                              .solve = nan_solve,
                                              .reset = nan_reset,
                                              .destroy = nan_destroy};

Test(world, solver_answer_with_nan_falls_back_to_pgs_and_world_stays_finite) {
    heft_solver_register(&nan_solver); /* may already be there from another test: fine */
    run_config cfg = {0};
    cfg.scenario = "hanging-chain";
    cfg.params.load_mass = 10.0;
    cfg.steps = 1;
    run_result r;
    cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
    cr_assert_eq(heft_world_set_solver(r.world, "test-nan"), HEFT_OK);
    for (int i = 0; i < 60; ++i) {
        cr_assert_eq(heft_world_step(r.world, 1.0 / 60.0), HEFT_OK);
        cr_assert_eq(heft_world_stats(r.world)->fallbacks, 1);
    }
    heft_body_id ids[64];
    int n = heft_world_bodies(r.world, ids, 64);
    double gap = 0.0;
    for (int i = 0; i < n; ++i) {
        heft_vec3 p = heft_body_position(r.world, ids[i]);
        cr_assert(heft_v3_isfinite(p));
    }
    heft_joint_id js[64];
    int nj = heft_world_joints(r.world, js, 64);
    for (int i = 0; i < nj; ++i) {
        gap = fmax(gap, heft_joint_gap(r.world, js[i]));
    }
    cr_assert_lt(gap, 5e-3, "PGS fallback should hold the chain: gap %g", gap);
    run_result_free(&r);
}

/* The island solves of one step, summed from the island callback, and the
 * run's totals from heft_world_stats. */
typedef struct island_sums {
    long solves, restarts, pgs_sweeps, frozen_rounds, backstops, backstop_pivots, newton_steps,
        factorizations, downdates, answers[5];
} island_sums;

typedef struct count_check {
    island_sums step; /* this step's islands, from the callback */
    long islands_solved, pivot_steps, factorizations, restarts, answers_pgs, rescued, backstops;
} count_check;

static void sum_island(void *user, int step, int island, const heft_mlcp *problem,
                       const double *lambda, const heft_solver_stats *stats) {
    (void)step;
    (void)island;
    (void)problem;
    (void)lambda;
    island_sums *s = &((count_check *)user)->step;
    s->solves++;
    s->restarts += stats->restarts;
    s->pgs_sweeps += stats->pgs_sweeps;
    s->frozen_rounds += stats->frozen_rounds;
    s->backstops += stats->backstops;
    s->backstop_pivots += stats->backstop_pivots;
    s->newton_steps += stats->newton_steps;
    s->factorizations += stats->factorizations;
    s->downdates += stats->downdates;
    cr_assert(stats->answer >= HEFT_ANSWER_SOLVER && stats->answer <= HEFT_ANSWER_ZERO);
    s->answers[stats->answer]++;
}

/* After each step: the step's counts against the sums of its islands (from
 * the callback and from heft_world_island_stats). */
static void check_step(void *user, heft_world *w, int step) {
    (void)step;
    count_check *c = user;
    const island_sums *s = &c->step;
    const heft_step_stats *st = heft_world_stats(w);
    cr_assert_eq(st->islands_solved, s->solves);
    cr_assert_eq(st->restarts, s->restarts);
    cr_assert_eq(st->pgs_sweeps, s->pgs_sweeps);
    cr_assert_eq(st->frozen_rounds, s->frozen_rounds);
    cr_assert_eq(st->backstops, s->backstops);
    cr_assert_eq(st->backstop_pivots, s->backstop_pivots);
    cr_assert_eq(st->newton_steps, s->newton_steps);
    cr_assert_eq(st->factorizations, s->factorizations);
    cr_assert_eq(st->downdates, s->downdates);
    cr_assert_eq(st->answers_solver, s->answers[HEFT_ANSWER_SOLVER]);
    cr_assert_eq(st->answers_backstop, s->answers[HEFT_ANSWER_BACKSTOP]);
    cr_assert_eq(st->answers_pgs, s->answers[HEFT_ANSWER_PGS]);
    cr_assert_eq(st->answers_warm_start, s->answers[HEFT_ANSWER_WARM_START]);
    cr_assert_eq(st->answers_zero, s->answers[HEFT_ANSWER_ZERO]);
    long steps = 0, sweeps = 0, kept = 0;
    for (int i = 0; i < st->islands; ++i) {
        heft_island_stats is;
        cr_assert_eq(heft_world_island_stats(w, i, &is), HEFT_OK);
        steps += is.solver.iterations - is.rescue_sweeps;
        sweeps += is.rescue_sweeps;
        kept += is.pgs_fallback;
        if (is.pgs_fallback)
            cr_assert_eq(is.solver.answer, HEFT_ANSWER_PGS);
    }
    cr_assert_eq(st->pivot_steps, steps);
    cr_assert_eq(st->rescue_sweeps, sweeps);
    cr_assert_eq(st->fallbacks, kept);
    c->islands_solved += st->islands_solved;
    c->pivot_steps += st->pivot_steps;
    c->factorizations += st->factorizations;
    c->restarts += st->restarts;
    c->backstops += st->backstops;
    c->answers_pgs += st->answers_pgs;
    c->rescued += st->fallbacks;
    memset(&c->step, 0, sizeof c->step);
}

/* heft_step_stats sums the solvers' counts of every island solve: the
 * winch (one island of about 450 rows) under bpp-skyline reaches the
 * backstop's stages now and then; the stacking scene (boxes side by side,
 * several islands) checks the sums over islands. */
Test(world, step_counts_sum_the_counts_of_the_island_solves) {
    const char *scenes[2] = {"winch", "stacking"};
    for (int k = 0; k < 2; ++k) {
        count_check c;
        memset(&c, 0, sizeof c);
        run_config cfg = {0};
        cfg.scenario = scenes[k];
        cfg.solver = "bpp-skyline";
        cfg.steps = 200;
        cfg.island = sum_island;
        cfg.island_user = &c;
        cfg.frame = check_step;
        cfg.frame_user = &c;
        run_result r;
        cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
        cr_log_info(
            "%s under bpp-skyline, 200 steps: %ld island solves, %ld pivoting steps, "
            "%ld factorizations, %ld restarts from PGS, %ld backstop stages, %ld PGS answers "
            "kept (%ld by the engine)",
            scenes[k], c.islands_solved, c.pivot_steps, c.factorizations, c.restarts, c.backstops,
            c.answers_pgs, c.rescued);
        cr_assert_gt(c.pivot_steps, 0);
        cr_assert_gt(c.factorizations, 0);
        /* the run's JSON sums the same counts */
        cr_assert_eq(r.solves, c.islands_solved);
        cr_assert_eq(r.pivot_steps, c.pivot_steps);
        cr_assert_eq(r.restarts, c.restarts);
        cr_assert_eq(r.answers_pgs, c.answers_pgs);
        cr_assert_eq(r.backstops, c.backstops);
        if (k == 0)
            cr_assert_gt(c.backstops, 0, "the winch's solves no longer reach the backstop");
        else
            cr_assert_gt(c.islands_solved, 200, "the stack is one island");
        run_result_free(&r);
    }
}

Test(world, switching_solver_between_steps_keeps_the_motion_going) {
    run_config cfg = {0};
    cfg.scenario = "hanging-chain";
    cfg.params.load_mass = 10.0;
    cfg.steps = 30;
    run_result r;
    cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
    cr_assert_eq(heft_world_set_solver(r.world, "pgs"), HEFT_OK);
    heft_solver_options o = heft_world_solver_options(r.world);
    o.max_iterations = 10;
    cr_assert_eq(heft_world_set_solver_options(r.world, &o), HEFT_OK);
    heft_world_step(r.world, 1.0 / 60.0);
    cr_assert_leq(heft_world_stats(r.world)->iterations_max, 10);
    cr_assert_eq(heft_world_stats(r.world)->islands, 1);
    heft_island_stats is;
    cr_assert_eq(heft_world_island_stats(r.world, 0, &is), HEFT_OK);
    cr_assert_eq(is.rows, 63);
    cr_assert_eq(is.solver.n, 63);
    cr_assert(is.solver.error_max >= 0.0 && isfinite(is.solver.error_max));
    run_result_free(&r);
}

Test(world, same_scene_gives_bit_identical_states) {
    double pos[2][3];
    for (int k = 0; k < 2; ++k) {
        run_config cfg = {0};
        cfg.scenario = "hanging-chain";
        cfg.steps = 120;
        run_result r;
        cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
        heft_body_id ids[64];
        int n = heft_world_bodies(r.world, ids, 64);
        heft_vec3 p = heft_body_position(r.world, ids[n - 1]);
        pos[k][0] = p.x;
        pos[k][1] = p.y;
        pos[k][2] = p.z;
        run_result_free(&r);
    }
    cr_assert(memcmp(pos[0], pos[1], sizeof pos[0]) == 0);
}
