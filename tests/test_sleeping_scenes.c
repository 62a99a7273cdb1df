/* The demo scenes with sleeping on against the same run with it off
 * (docs/sleeping.md): the machines, chains and pendulums never sleep and
 * step bit for bit as without it, their checks and final states identical;
 * the heavy chain's numbers (2,000 kg on 1 kg links with geometric
 * stiffness) are unchanged; the scenes that come to rest keep the outcome of
 * every check. One solver a scene: the one its check passes under in
 * test_scenes, at the timeline length used there. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "runner.h"

typedef enum {
    MOVES,    /* nothing may sleep: everything bit-identical */
    SETTLES,  /* bodies come to rest and sleep: the checks' outcomes identical */
    WAITS_FOR /* one body rests until the machine reaches it: values to 1e-9 */
} sleep_kind;

typedef struct sleep_case {
    const char *scene;
    const char *variant;
    int size;
    const char *solver;
    int steps; /* 0: the scene's own timeline */
    int geometric_stiffness;
    sleep_kind kind;
    const char *sleeper; /* WAITS_FOR: the body that may sleep */
} sleep_case;

typedef struct sleepers {
    char names[8][48];
    int count;
    int other; /* bodies beyond the first eight names */
} sleepers;

static void note_sleepers(void *user, heft_world *w, int step) {
    (void)step;
    sleepers *s = user;
    heft_body_events ev = heft_world_body_events(w);
    for (int i = 0; i < ev.fell_asleep_count; ++i) {
        const char *name = heft_body_name(w, ev.fell_asleep[i]);
        int known = 0;
        for (int k = 0; k < s->count; ++k) {
            known |= strcmp(s->names[k], name) == 0;
        }
        if (!known && s->count < 8) {
            snprintf(s->names[s->count++], sizeof s->names[0], "%s", name);
        } else if (!known) {
            s->other++;
        }
    }
}

static void run_one(const sleep_case *c, int sleeping, sleepers *slept, run_result *r) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = c->scene;
    cfg.solver = c->solver;
    cfg.steps = c->steps;
    cfg.params.variant = c->variant;
    cfg.params.size = c->size;
    cfg.geometric_stiffness = c->geometric_stiffness;
    cfg.sleeping = sleeping;
    cfg.frame = sleeping ? note_sleepers : NULL;
    cfg.frame_user = slept;
    cr_assert_eq(run_scenario(&cfg, r), 0, "%s/%s: %s", c->scene, c->solver, r->error);
}

static int same_state(const run_result *a, const run_result *b, char *why, size_t size) {
    heft_body_id ids[256];
    int n = heft_world_bodies(a->world, ids, 256);
    for (int i = 0; i < n && i < 256; ++i) {
        heft_body_state x, y;
        heft_body_get_state(a->world, ids[i], &x);
        heft_body_get_state(b->world, ids[i], &y);
        if (memcmp(&x.position, &y.position, sizeof x.position) != 0 ||
            memcmp(&x.orientation, &y.orientation, sizeof x.orientation) != 0 ||
            memcmp(&x.linear_velocity, &y.linear_velocity, sizeof x.linear_velocity) != 0 ||
            memcmp(&x.angular_velocity, &y.angular_velocity, sizeof x.angular_velocity) != 0) {
            snprintf(why, size, "body %s differs", heft_body_name(a->world, ids[i]));
            return 0;
        }
    }
    for (int j = 0; j < a->joint_count; ++j) {
        if (a->joints[j].max_gap != b->joints[j].max_gap) {
            snprintf(why, size, "joint %s's largest gap %.17g against %.17g", a->joints[j].name,
                     a->joints[j].max_gap, b->joints[j].max_gap);
            return 0;
        }
    }
    return 1;
}

static void run_case(const sleep_case *c) {
    run_result off, on;
    sleepers slept;
    memset(&slept, 0, sizeof slept);
    run_one(c, 0, &slept, &off);
    run_one(c, 1, &slept, &on);
    char names[512] = "";
    for (int k = 0; k < slept.count; ++k) {
        strncat(names, " ", sizeof names - strlen(names) - 1);
        strncat(names, slept.names[k], sizeof names - strlen(names) - 1);
    }
    cr_log_info("%s%s%s under %s, %d steps: %d steps with bodies asleep, at most %d;%s%s", c->scene,
                c->variant ? " " : "", c->variant ? c->variant : "", c->solver, on.steps,
                on.sleeping_steps, on.sleeping_bodies_max, names, slept.other ? " ..." : "");
    cr_assert_eq(off.sleeping_steps, 0, "%s: sleeping off, yet bodies slept", c->scene);
    cr_assert_eq(on.check_count, off.check_count);
    for (int i = 0; i < off.check_count; ++i) {
        const scenario_check *a = &off.checks[i], *b = &on.checks[i];
        cr_assert_eq(a->pass, b->pass,
                     "%s: check %s %s with sleeping off (%.17g), %s with it on (%.17g)", c->scene,
                     a->name, a->pass ? "passes" : "fails", a->value, b->pass ? "passes" : "fails",
                     b->value);
        if (c->kind == MOVES) {
            cr_assert(a->value == b->value, "%s: check %s %.17g against %.17g", c->scene, a->name,
                      a->value, b->value);
        } else if (c->kind == WAITS_FOR) {
            /* the resting body's velocities below the thresholds were set to
             * zero when it fell asleep: the rest differs by rounding */
            cr_assert_leq(fabs(a->value - b->value), 1e-9 * fmax(1.0, fabs(a->value)),
                          "%s: check %s %.17g against %.17g", c->scene, a->name, a->value,
                          b->value);
        }
    }
    if (c->kind == MOVES) {
        cr_assert_eq(on.sleeping_steps, 0, "%s: a moving scene slept:%s", c->scene, names);
        char why[160];
        cr_assert(same_state(&off, &on, why, sizeof why), "%s: %s", c->scene, why);
        cr_assert_eq(off.mlcp_error_max, on.mlcp_error_max);
        cr_assert_eq(off.solves, on.solves);
        cr_assert_eq(off.pivot_steps, on.pivot_steps);
    } else if (c->kind == WAITS_FOR) {
        cr_assert_eq(slept.count, 1, "%s: only %s may sleep, slept:%s", c->scene, c->sleeper,
                     names);
        cr_assert_str_eq(slept.names[0], c->sleeper);
    } else {
        cr_assert_gt(on.sleeping_bodies_max, 0, "%s: nothing came to rest", c->scene);
    }
    run_result_free(&off);
    run_result_free(&on);
}

Test(sleeping_scenes, the_moving_scenes_never_sleep_and_step_as_without_it, .timeout = 600) {
    static const sleep_case cases[] = {
        {"pendulum", NULL, 0, "pgs", 0, 0, MOVES, NULL},
        {"hanging-chain", NULL, 0, "pgs", 0, 0, MOVES, NULL},
        {"crane", NULL, 0, "bpp-skyline", 0, 0, MOVES, NULL},
        {"winch", NULL, 0, "pgs", 0, 0, MOVES, NULL},
        {"chain", NULL, 0, "bpp-skyline", 0, 0, MOVES, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_case(&cases[i]);
    }
}

/* 2,000 kg on 1 kg links at h = 1/60 s (docs/heavy-loads.md): the joint
 * gaps after every step are the same to the last bit */
Test(sleeping_scenes, the_heavy_chain_numbers_do_not_change, .timeout = 600) {
    static const sleep_case cases[] = {
        {"hanging-chain", NULL, 0, "bpp-skyline", 0, 1, MOVES, NULL},
        {"hanging-chain", NULL, 0, "bpp", 0, 1, MOVES, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_case(&cases[i]);
    }
}

Test(sleeping_scenes, the_forklift_lets_only_the_waiting_crate_sleep, .timeout = 600) {
    static const sleep_case c = {"forklift", NULL, 0, "bpp-skyline", 0, 0, WAITS_FOR, "crate"};
    run_case(&c);
}

Test(sleeping_scenes, the_scenes_at_rest_keep_their_checks, .timeout = 600) {
    static const sleep_case cases[] = {
        {"box-on-ground", NULL, 0, "pgs", 0, 0, SETTLES, NULL},
        {"stacking", "boxes", 0, "bpp-skyline", 600, 0, SETTLES, NULL},
        {"stacking", "pyramid", 5, "pgs", 600, 0, SETTLES, NULL},
        {"stacking", "wall", 0, "pgs", 300, 0, SETTLES, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        run_case(&cases[i]);
    }
}
