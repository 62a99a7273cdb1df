/* The world: solver switching, statistics, fallbacks, determinism. */
#include <criterion/criterion.h>

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

static const heft_solver_vtable nan_solver = {"test-nan", "returns NaN", nan_create, nan_solve,
                                              nan_reset,  nan_destroy,   0};

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
