/* pgs and the position correction (docs/pgs.md "A light chain under a heavy
 * load"): the 100-link chain under 100 kg holds for a minute at 50 sweeps;
 * joints' corrections that are not a runaway (too slow, or fast for fewer
 * than 15 solves in a row) change no bit of an answer; contacts' are taken
 * apart from the first solve; a latched state still answers
 * the problem (the correction is solved apart, not dropped), and what it
 * remembers survives a save and restore. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp.h"
#include "planted.h"
#include "runner.h"

/* ---- the chain ------------------------------------------------------------ */

typedef struct chain_watch {
    double lateral_max; /* m: farthest any body got from the vertical through the pivot */
    double z_min, z_max;
    double kinetic; /* J: after the last step watched */
} chain_watch;

static void watch_chain(void *user, heft_world *w, int step) {
    chain_watch *c = user;
    (void)step;
    heft_body_id bodies[128];
    const int count = heft_world_bodies(w, bodies, 128);
    cr_assert_eq(count, 101);
    c->kinetic = 0.0;
    for (int i = 0; i < count; ++i) {
        const heft_vec3 x = heft_body_position(w, bodies[i]);
        const heft_vec3 v = heft_body_linear_velocity(w, bodies[i]);
        c->kinetic += 0.5 * heft_body_mass(w, bodies[i]) * heft_v3_dot(v, v);
        c->lateral_max = fmax(c->lateral_max, hypot(x.x, x.y));
        c->z_min = fmin(c->z_min, x.z);
        c->z_max = fmax(c->z_max, x.z);
    }
}

/* 100 links of 1 kg (0.5 m) on ball joints hanging exactly vertical at rest
 * with 100 kg, h = 1/60 s, pgs at its default 50 sweeps, 60 s. Before the
 * correction was kept out of the warm start the joints opened by 904 m and
 * the bodies flew tens of metres sideways; now the widest gap is 3.0 cm (in
 * the first seconds: the island latches at 0.52 s, with 9 mm gaps, and the
 * tension the warm start built overshoots) and 1.3 mm at the end, with the
 * chain at rest. The bounds: every gap under 5 cm and under 5 mm at the
 * end; the links' and the load's kinetic energy at the end under 1 J (it
 * was 1e5 to 1e6 J when the chain flew apart); every body within 0.1 m of
 * the vertical and between the pivot (z = 51.5 m) and 2 m under the load's
 * lowest point at rest (its centre at 1.25 m, radius 0.25 m). */
Test(pgs_position, hundred_link_chain_under_100_kg_holds_for_60_s_at_50_sweeps, .timeout = 300) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = "hanging-chain";
    cfg.solver = "pgs";
    cfg.params.links = 100;
    cfg.params.load_mass = 100.0;
    cfg.params.angle_deg = 0.0;
    cfg.params.angle_set = 1;
    cfg.steps = 3600;
    chain_watch watch = {0.0, INFINITY, -INFINITY, 0.0};
    cfg.frame = watch_chain;
    cfg.frame_user = &watch;
    run_result r;
    cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
    double gap = 0.0, gap_end = 0.0;
    for (int i = 0; i < r.joint_count; ++i) {
        gap = fmax(gap, r.joints[i].max_gap);
    }
    heft_joint_id joints[128];
    const int count = heft_world_joints(r.world, joints, 128);
    for (int i = 0; i < count; ++i) {
        gap_end = fmax(gap_end, heft_joint_gap(r.world, joints[i]));
    }
    cr_log_info("100-link chain, 100 kg, pgs 50 sweeps, 60 s: widest gap %.3e m (%.3e m at the "
                "end), kinetic energy at the end %.3e J, %.3e m off the vertical, z in "
                "[%.3f, %.3f] m",
                gap, gap_end, watch.kinetic, watch.lateral_max, watch.z_min, watch.z_max);
    cr_assert_eq(r.nonfinite_steps, 0);
    cr_assert_lt(gap, 0.05, "widest joint gap %g m", gap);
    cr_assert_lt(gap_end, 0.005, "joint gap at the end %g m", gap_end);
    cr_assert_lt(watch.kinetic, 1.0, "kinetic energy at the end %g J", watch.kinetic);
    cr_assert_lt(watch.lateral_max, 0.1, "a body got %g m off the vertical", watch.lateral_max);
    cr_assert_gt(watch.z_min, 1.25 - 0.25 - 2.0, "a body sank to z = %g m", watch.z_min);
    cr_assert_lt(watch.z_max, 51.5, "a body rose to z = %g m", watch.z_max);
    run_result_free(&r);
}

/* ---- the solver alone ------------------------------------------------------- */

static double *bias_from(const heft_mlcp *p, double fraction, double floor) {
    double *bias = malloc(sizeof(double) * (size_t)p->n);
    cr_assert_not_null(bias);
    for (int i = 0; i < p->n; ++i) {
        bias[i] = fraction * p->b[i];
        if (fabs(bias[i]) < floor) {
            bias[i] = copysign(floor, bias[i]);
        }
    }
    return bias;
}

/* Zeroes the bias of the contacts' normal rows, whose correction is taken
 * apart from the first solve (the joints' only once latched). */
static void joints_only(const heft_mlcp *p, double *bias) {
    for (int i = 0; i < p->n; ++i) {
        if (p->kind[i] == HEFT_ROW_NORMAL) {
            bias[i] = 0.0;
        }
    }
}

/* Solves p solves times with one state, each from the last answer as the
 * engine hands it on (bit for bit); returns the last answer in lambda. */
static void solve_in_a_row(const heft_solver_options *o, heft_mlcp *p, int solves, double *lambda) {
    const heft_solver_vtable *pgs = heft_solver_find("pgs");
    void *state = pgs->create(o);
    cr_assert_not_null(state);
    heft_solver_stats st;
    for (int k = 0; k < solves; ++k) {
        pgs->solve(state, p, lambda, &st);
        memcpy(p->lambda0, lambda, sizeof(double) * (size_t)p->n);
    }
    memset(p->lambda0, 0, sizeof(double) * (size_t)p->n);
    pgs->destroy(state);
}

/* Nothing latches on joints' corrections under 5 cm/s however long they
 * last, nor on faster ones for 14 solves in a row, nor on NaN or infinite
 * corrections on any row: the answers are the ones without a bias, bit for
 * bit (the joints PGS holds are stepped exactly as before). */
Test(pgs_position, corrections_that_are_not_a_runaway_change_no_bit) {
    planted_problem pp = planted_structured(120, 0.5, 0, 31);
    const int n = pp.p->n;
    double *slow = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; ++i) {
        slow[i] = (i % 2 ? 1.0 : -1.0) * 0.049;
    }
    double *fast = bias_from(pp.p, 0.5, 0.06);
    joints_only(pp.p, slow);
    joints_only(pp.p, fast);
    double *broken = malloc(sizeof(double) * (size_t)n); /* never a correction */
    for (int i = 0; i < n; ++i) {
        broken[i] = i % 2 ? NAN : -INFINITY;
    }
    heft_solver_options o = heft_solver_default_options();
    double *plain = malloc(sizeof(double) * (size_t)n), *with = malloc(sizeof(double) * (size_t)n);
    const struct {
        double *bias;
        int solves;
    } runs[] = {{slow, 40}, {fast, 14}, {broken, 40}};
    for (int k = 0; k < 3; ++k) {
        pp.p->bias = NULL;
        solve_in_a_row(&o, pp.p, runs[k].solves, plain);
        pp.p->bias = runs[k].bias;
        solve_in_a_row(&o, pp.p, runs[k].solves, with);
        cr_assert_eq(memcmp(plain, with, sizeof(double) * (size_t)n), 0, "run %d", k);
    }
    pp.p->bias = NULL;
    free(slow);
    free(fast);
    free(broken);
    free(plain);
    free(with);
    planted_free(&pp);
}

/* Latched, the correction is solved apart, not dropped: on rows without
 * bounds (a joint's), solved to the end, the sum of the two answers is the
 * answer of the problem without the split, to 1e-9 relative. (With rows at
 * their bounds the sum is the velocity answer plus a correction kept in the
 * rows' boxes, not the step's MLCP answer, as with split impulses.) */
Test(pgs_position, a_latched_state_answers_a_joint_problem_as_without_the_split) {
    for (int seed = 1; seed <= 4; ++seed) {
        planted_problem pp = planted_structured(90, 0.5, 0, (uint64_t)seed);
        heft_mlcp *p = pp.p;
        const int n = p->n;
        for (int i = 0; i < n; ++i) {
            p->lo[i] = -INFINITY;
            p->hi[i] = INFINITY;
            p->findex[i] = -1;
        }
        heft_solver_options o = heft_solver_default_options();
        o.tolerance = 1e-28;
        o.max_iterations = 20000;
        double *plain = malloc(sizeof(double) * (size_t)n);
        double *split = malloc(sizeof(double) * (size_t)n);
        solve_in_a_row(&o, p, 16, plain);
        double *bias = bias_from(p, 0.5, 0.06);
        p->bias = bias;
        solve_in_a_row(&o, p, 16, split); /* latched at the 15th */
        double scale = 0.0;
        for (int i = 0; i < n; ++i) {
            scale = fmax(scale, fabs(plain[i]));
        }
        const double diff = planted_max_diff(plain, split, n);
        cr_log_info("seed %d: split against unsplit answer %.3e (largest impulse %.3e)", seed, diff,
                    scale);
        cr_assert_lt(diff, 1e-9 * scale, "seed %d: %g apart", seed, diff);
        p->bias = NULL;
        free(bias);
        free(plain);
        free(split);
        planted_free(&pp);
    }
}

/* A contact's push out of penetration is taken apart from the first solve,
 * with no latch: on rows without bounds, solved to the end, the two answers'
 * sum is the answer without the split to 1e-9 relative; the share is
 * remembered (the state saves it) and the next solve's warm start loses it,
 * so its answer differs from one that keeps it. */
Test(pgs_position, a_contact_correction_is_taken_apart_from_the_first_solve) {
    const heft_solver_vtable *pgs = heft_solver_find("pgs");
    planted_problem pp = planted_structured(90, 0.5, 0, 5);
    heft_mlcp *p = pp.p;
    const int n = p->n;
    int contacts = 0;
    for (int i = 0; i < n; ++i) {
        p->lo[i] = -INFINITY;
        p->hi[i] = INFINITY;
        p->findex[i] = -1;
        contacts += p->kind[i] == HEFT_ROW_NORMAL;
    }
    cr_assert_gt(contacts, 5);
    double *bias = calloc((size_t)n, sizeof(double));
    for (int i = 0; i < n; ++i) {
        if (p->kind[i] == HEFT_ROW_NORMAL) {
            bias[i] = 0.1; /* 6 mm deep at h = 1/60 s and Baumgarte 0.2 */
        }
    }
    heft_solver_options o = heft_solver_default_options();
    o.tolerance = 1e-28;
    o.max_iterations = 20000;
    double *plain = malloc(sizeof(double) * (size_t)n), *split = malloc(sizeof(double) * (size_t)n);
    double *next = malloc(sizeof(double) * (size_t)n), *kept = malloc(sizeof(double) * (size_t)n);
    heft_solver_stats st;
    void *a = pgs->create(&o), *b = pgs->create(&o);
    pgs->solve(a, p, plain, &st); /* no bias: no split, nothing remembered */
    cr_assert_eq(pgs->save_state(a, NULL, 0), 0);
    p->bias = bias;
    pgs->solve(b, p, split, &st);
    double scale = 0.0;
    for (int i = 0; i < n; ++i) {
        scale = fmax(scale, fabs(plain[i]));
    }
    const double diff = planted_max_diff(plain, split, n);
    cr_log_info("contact correction apart: %.3e from the unsplit answer (largest impulse %.3e)",
                diff, scale);
    cr_assert_lt(diff, 1e-9 * scale, "%g apart", diff);
    cr_assert_eq(pgs->save_state(b, NULL, 0), 3 * sizeof(int32_t) + 2 * sizeof(double) * (size_t)n,
                 "the share is remembered");
    /* the next solve from the last answer: with the share taken off the warm
     * start against a state that keeps it (cut short, so the start shows) */
    o.max_iterations = 2;
    void *c = pgs->create(&o), *d = pgs->create(&o);
    pgs->solve(c, p, next, &st);
    p->bias = NULL;
    pgs->solve(d, p, kept, &st);
    p->bias = bias;
    memcpy(p->lambda0, next, sizeof(double) * (size_t)n);
    pgs->solve(c, p, next, &st);
    memcpy(p->lambda0, kept, sizeof(double) * (size_t)n);
    p->bias = NULL;
    pgs->solve(d, p, kept, &st);
    cr_assert_gt(planted_max_diff(next, kept, n), 1e-6 * scale,
                 "the warm start kept the correction");
    memset(p->lambda0, 0, sizeof(double) * (size_t)n);
    p->bias = NULL;
    pgs->destroy(a);
    pgs->destroy(b);
    pgs->destroy(c);
    pgs->destroy(d);
    free(bias);
    free(plain);
    free(split);
    free(next);
    free(kept);
    planted_free(&pp);
}

/* The count towards the latch, the latch and the memory of a latched state
 * (its last answer and position share) are what its save_state writes: a
 * state restored from it answers the next problem bit for bit as the
 * original does; one that counts nothing saves nothing. */
Test(pgs_position, a_latched_state_saves_and_restores_its_memory) {
    const heft_solver_vtable *pgs = heft_solver_find("pgs");
    planted_problem pp = planted_structured(60, 0.5, 0, 7);
    const int n = pp.p->n;
    heft_solver_options o = heft_solver_default_options();
    void *a = pgs->create(&o), *b = pgs->create(&o);
    double *first = malloc(sizeof(double) * (size_t)n);
    double *x = malloc(sizeof(double) * (size_t)n), *y = malloc(sizeof(double) * (size_t)n);
    heft_solver_stats st;
    pgs->solve(a, pp.p, first, &st);
    cr_assert_eq(pgs->save_state(a, NULL, 0), 0, "saved bytes with nothing counted");

    double *bias = bias_from(pp.p, 0.5, 0.06);
    pp.p->bias = bias;
    for (int k = 0; k < 15; ++k) {
        pgs->solve(a, pp.p, first, &st);
        memcpy(pp.p->lambda0, first, sizeof(double) * (size_t)n);
    }
    const size_t size = pgs->save_state(a, NULL, 0);
    cr_assert_eq(size, 3 * sizeof(int32_t) + 2 * sizeof(double) * (size_t)n);
    unsigned char *bytes = malloc(size);
    cr_assert_eq(pgs->save_state(a, bytes, size), size);
    cr_assert_eq(pgs->restore_state(b, bytes, size), 0);
    cr_assert_eq(pgs->restore_state(b, bytes, size - 1), -1, "a cut buffer is refused");
    cr_assert_eq(pgs->restore_state(b, bytes, size), 0);

    /* the next step: the engine hands the last answer back as the warm start */
    pgs->solve(a, pp.p, x, &st);
    pgs->solve(b, pp.p, y, &st);
    cr_assert_eq(memcmp(x, y, sizeof(double) * (size_t)n), 0);

    pp.p->bias = NULL;
    pgs->destroy(a);
    pgs->destroy(b);
    free(bias);
    free(bytes);
    free(first);
    free(x);
    free(y);
    planted_free(&pp);
}

/* ---- the position sweeps in the step's statistics --------------------------- */

typedef struct inner_watch {
    long step_sum;   /* heft_step_stats.inner_iterations_sum over the steps */
    long island_sum; /* the islands' solver.inner_iterations over the steps */
    long velocity;   /* the islands' solver.iterations over the steps */
    int steps;
} inner_watch;

static void watch_inner(void *user, heft_world *w, int step) {
    inner_watch *c = user;
    (void)step;
    const heft_step_stats *st = heft_world_stats(w);
    c->step_sum += st->inner_iterations_sum;
    for (int i = 0; i < st->islands; ++i) {
        heft_island_stats ist;
        cr_assert_eq(heft_world_island_stats(w, i, &ist), HEFT_OK);
        c->island_sum += ist.solver.inner_iterations;
        c->velocity += ist.solver.iterations;
    }
    ++c->steps;
}

/* The stacks of five boxes under pgs: the contacts press into one another,
 * so each solve runs position sweeps after its velocity sweeps, and the
 * step's statistics count them (inner_iterations_sum, heft-run's
 * stats.inner_iterations): the islands' own counts summed, step by step,
 * and not a small part of the velocity sweeps. */
Test(pgs_position, the_steps_statistics_count_the_position_sweeps) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = "stacking";
    cfg.solver = "pgs";
    cfg.steps = 30;
    inner_watch watch = {0, 0, 0, 0};
    cfg.frame = watch_inner;
    cfg.frame_user = &watch;
    run_result r;
    cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
    cr_log_info("stacked boxes, pgs, 30 steps: %ld position sweeps, %ld velocity sweeps",
                watch.step_sum, watch.velocity);
    cr_assert_eq(watch.steps, 30);
    cr_assert_eq(watch.step_sum, watch.island_sum);
    cr_assert_eq(r.inner_iterations, watch.step_sum);
    cr_assert_gt(watch.step_sum, watch.velocity / 10, "%ld position sweeps against %ld",
                 watch.step_sum, watch.velocity);
    run_result_free(&r);
}
