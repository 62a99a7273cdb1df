/* Sleeping islands (docs/sleeping.md): a settled pile falls asleep and the
 * step leaves it alone; what touches it wakes only the islands touched;
 * the API's changes wake a body; islands keep their ids while their bodies
 * stay joined. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "counting_allocator.h"
#include "heft.h"
#include "scenario.h"

#define STEP (1.0 / 60.0)
#define HALF 0.2 /* boxes of 0.4 m */

static heft_world *sleeping_world(const char *solver) {
    heft_world_def wd = heft_default_world_def();
    wd.enable_sleep = 1;
    wd.solver = solver;
    heft_world *w = heft_world_create(&wd);
    cr_assert_not_null(w, "%s", heft_last_error());
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    heft_body_id ground = heft_create_body(w, &gd);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    cr_assert(heft_shape_is_valid(w, heft_create_shape(w, ground, &plane)));
    return w;
}

static heft_body_id add_box(heft_world *w, heft_vec3 at) {
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(HALF, HALF, HALF);
    const heft_body_id b = scenario_add_body(w, NULL, at, heft_quat_identity(), 2.5,
                                             heft_inertia_box(2.5, sd.half_extents), &sd);
    cr_assert(heft_body_is_valid(w, b), "%s", heft_last_error());
    return b;
}

/* stacks x stacks columns of high boxes, 1 m apart: one island each */
enum { STACKS = 3, HIGH = 3, PILE = STACKS * STACKS * HIGH };

static void add_pile(heft_world *w, heft_body_id *out) {
    int n = 0;
    for (int k = 0; k < STACKS * STACKS; ++k) {
        for (int j = 0; j < HIGH; ++j) {
            out[n++] = add_box(w, heft_v3(k % STACKS, k / STACKS, HALF + 0.005 + j * 0.405));
        }
    }
}

/* Steps until every box sleeps (at most 10 s); returns the steps taken. */
static int settle(heft_world *w, int bodies) {
    for (int i = 1; i <= 600; ++i) {
        cr_assert_eq(heft_world_step(w, STEP), HEFT_OK, "%s", heft_last_error());
        if (heft_world_stats(w)->bodies_sleeping == bodies) {
            return i;
        }
    }
    cr_assert_fail("%d of %d bodies asleep after 10 s", heft_world_stats(w)->bodies_sleeping,
                   bodies);
    return 0;
}

Test(sleeping, a_settled_pile_falls_asleep_and_the_step_leaves_it_alone) {
    heft_world *w = sleeping_world("bpp-skyline");
    heft_body_id pile[PILE];
    add_pile(w, pile);
    int slept = 0;
    for (int i = 0; i < 600 && heft_world_stats(w)->bodies_sleeping < PILE; ++i) {
        cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
        slept += heft_world_body_events(w).fell_asleep_count;
    }
    const heft_step_stats *st = heft_world_stats(w);
    cr_assert_eq(st->bodies_sleeping, PILE);
    cr_assert_eq(st->islands_sleeping, STACKS * STACKS, "one island a stack");
    cr_assert_eq(slept, PILE, "each box reported asleep once");
    heft_vec3 at[PILE];
    heft_quat q[PILE];
    for (int i = 0; i < PILE; ++i) {
        cr_assert_eq(heft_body_is_awake(w, pile[i]), 0);
        at[i] = heft_body_position(w, pile[i]);
        q[i] = heft_body_orientation(w, pile[i]);
        heft_vec3 v = heft_body_linear_velocity(w, pile[i]);
        cr_assert(v.x == 0.0 && v.y == 0.0 && v.z == 0.0, "a sleeping body is at rest");
    }
    const int contacts = heft_world_contact_count(w);
    cr_assert_gt(contacts, 0);
    for (int s = 0; s < 120; ++s) {
        cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
        st = heft_world_stats(w);
        /* nothing stepped, solved or integrated; the contacts kept */
        cr_assert_eq(st->islands, 0);
        cr_assert_eq(st->bodies, 0);
        cr_assert_eq(st->rows, 0);
        cr_assert_eq(st->contacts, contacts);
        cr_assert_eq(heft_world_body_events(w).woke_count, 0);
        cr_assert_eq(heft_world_body_events(w).fell_asleep_count, 0);
        heft_contact_events ce = heft_world_contact_events(w);
        cr_assert_eq(ce.begin_count + ce.end_count, 0, "kept contacts neither begin nor end");
    }
    for (int i = 0; i < PILE; ++i) {
        heft_vec3 p = heft_body_position(w, pile[i]);
        heft_quat r = heft_body_orientation(w, pile[i]);
        /* exactly: the step did not touch them */
        cr_assert(p.x == at[i].x && p.y == at[i].y && p.z == at[i].z && r.w == q[i].w &&
                  r.x == q[i].x && r.y == q[i].y && r.z == q[i].z);
    }
    heft_world_destroy(w);
}

static int contains(const heft_body_id *ids, int n, heft_body_id id) {
    for (int i = 0; i < n; ++i) {
        if (ids[i].index == id.index && ids[i].generation == id.generation) {
            return 1;
        }
    }
    return 0;
}

Test(sleeping, a_box_dropped_on_a_sleeping_stack_wakes_that_stack_only) {
    heft_world *w = sleeping_world("bpp-skyline");
    heft_body_id pile[PILE];
    add_pile(w, pile);
    settle(w, PILE);
    const int64_t stack_island = heft_body_island_id(w, pile[0]);
    cr_assert_gt(stack_island, 0);
    for (int i = 1; i < HIGH; ++i) {
        cr_assert_eq(heft_body_island_id(w, pile[i]), stack_island);
    }
    heft_vec3 at[PILE];
    for (int i = 0; i < PILE; ++i) {
        at[i] = heft_body_position(w, pile[i]);
    }
    /* dropped from 0.5 m above the first stack's top */
    heft_vec3 top = at[HIGH - 1];
    heft_body_id dropped = add_box(w, heft_v3(top.x, top.y, top.z + 0.9));
    int woke = 0, woke_stack = 0;
    for (int s = 0; s < 60; ++s) {
        cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
        heft_body_events ev = heft_world_body_events(w);
        woke += ev.woke_count;
        for (int i = 0; i < HIGH; ++i) {
            woke_stack += contains(ev.woke, ev.woke_count, pile[i]);
        }
        /* every other stack sleeps on, untouched */
        for (int i = HIGH; i < PILE; ++i) {
            cr_assert_eq(heft_body_is_awake(w, pile[i]), 0, "step %d: box %d woke", s, i);
            heft_vec3 p = heft_body_position(w, pile[i]);
            cr_assert(p.x == at[i].x && p.y == at[i].y && p.z == at[i].z);
        }
    }
    cr_assert_eq(woke_stack, HIGH, "the touched stack woke, each box once");
    cr_assert_eq(woke, HIGH, "and nothing else woke");
    /* the box joined the stack's island, which kept its id (the larger keeps it) */
    cr_assert_eq(heft_body_island_id(w, dropped), stack_island);
    cr_assert_eq(heft_body_island_id(w, pile[0]), stack_island);
    cr_assert_gt(heft_body_position(w, dropped).z, top.z + 0.3, "the box rests on the stack");
    settle(w, PILE + 1);
    cr_assert_eq(heft_world_stats(w)->islands_sleeping, STACKS * STACKS);
    heft_world_destroy(w);
}

/* One box asleep on the ground, put to sleep by the API. */
static heft_body_id sleeping_box(heft_world *w) {
    heft_body_id b = add_box(w, heft_v3(0.0, 0.0, HALF));
    cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
    cr_assert_eq(heft_body_set_awake(w, b, 0), HEFT_OK, "%s", heft_last_error());
    cr_assert_eq(heft_body_is_awake(w, b), 0);
    heft_body_events ev = heft_world_body_events(w);
    cr_assert(contains(ev.fell_asleep, ev.fell_asleep_count, b), "reported before the next step");
    return b;
}

/* After the call: awake, reported among the woken before the next step, and
 * the step after it moves it (falls back asleep after time_to_sleep). */
static void expect_woken(heft_world *w, heft_body_id b, const char *what) {
    cr_assert_eq(heft_body_is_awake(w, b), 1, "%s did not wake the body", what);
    heft_body_events ev = heft_world_body_events(w);
    cr_assert(contains(ev.woke, ev.woke_count, b), "%s: no wake event", what);
    cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
    cr_assert_eq(heft_world_stats(w)->bodies, 1, "%s: the body was not stepped", what);
    ev = heft_world_body_events(w);
    cr_assert_eq(ev.woke_count, 0, "%s: the last step's events only", what);
}

Test(sleeping, the_api_wakes_a_sleeping_body) {
    heft_world *w = sleeping_world("pgs");
    heft_body_id b = sleeping_box(w);
    cr_assert_eq(heft_body_wake(w, b), HEFT_OK);
    expect_woken(w, b, "heft_body_wake");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    cr_assert_eq(heft_body_set_awake(w, b, 1), HEFT_OK);
    expect_woken(w, b, "heft_body_set_awake");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    cr_assert_eq(heft_body_set_linear_velocity(w, b, heft_v3(1.0, 0.0, 0.0)), HEFT_OK);
    expect_woken(w, b, "a linear velocity");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    cr_assert_eq(heft_body_set_angular_velocity(w, b, heft_v3(0.0, 0.0, 1.0)), HEFT_OK);
    expect_woken(w, b, "an angular velocity");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    cr_assert_eq(heft_body_apply_force(w, b, heft_v3(10.0, 0.0, 0.0), heft_v3(0.0, 0.0, HALF)),
                 HEFT_OK);
    expect_woken(w, b, "a force");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    cr_assert_eq(heft_body_apply_torque(w, b, heft_v3(0.0, 0.0, 1.0)), HEFT_OK);
    expect_woken(w, b, "a torque");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    cr_assert_eq(heft_body_set_transform(w, b, heft_v3(0.0, 0.0, 1.0), heft_quat_identity()),
                 HEFT_OK);
    expect_woken(w, b, "a new pose");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    cr_assert_eq(heft_body_set_mass(w, b, 5.0, heft_inertia_box(5.0, heft_v3(HALF, HALF, HALF))),
                 HEFT_OK);
    expect_woken(w, b, "a mass");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    heft_shape_def sd = heft_default_shape_def();
    sd.radius = 0.1;
    sd.local_position = heft_v3(0.0, 0.0, HALF);
    cr_assert(heft_shape_is_valid(w, heft_create_shape(w, b, &sd)));
    expect_woken(w, b, "a new shape");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_a = HEFT_WORLD_FRAME;
    jd.body_b = b;
    heft_joint_def_set_world_frame(w, &jd, heft_v3(0.0, 0.0, 1.0), heft_v3(0, 0, 1));
    heft_joint_id j = heft_create_joint(w, &jd);
    cr_assert(heft_joint_is_valid(w, j), "%s", heft_last_error());
    expect_woken(w, b, "a new joint");
    cr_assert_eq(heft_body_set_awake(w, b, 0), HEFT_OK);
    heft_joint_limit limit = {1, -0.1, 0.1, 0.0, 0.0};
    cr_assert_eq(heft_joint_set_limit(w, j, HEFT_DOF_RX, &limit), HEFT_OK, "%s", heft_last_error());
    expect_woken(w, b, "a joint's limit");
    cr_assert_eq(heft_body_set_awake(w, b, 0), HEFT_OK);
    cr_assert_eq(heft_destroy_joint(w, j), HEFT_OK);
    expect_woken(w, b, "a destroyed joint");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    cr_assert_eq(heft_world_set_gravity(w, heft_v3(0.0, 1.0, -9.81)), HEFT_OK);
    expect_woken(w, b, "new gravity");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    cr_assert_eq(heft_body_set_sleep_enabled(w, b, 0), HEFT_OK);
    expect_woken(w, b, "a body's sleep switched off");
    for (int i = 0; i < 120; ++i) {
        heft_world_step(w, STEP);
    }
    cr_assert_eq(heft_body_is_awake(w, b), 1, "a body that may not sleep stays awake");
    heft_world_destroy(w);

    w = sleeping_world("pgs");
    b = sleeping_box(w);
    cr_assert_eq(heft_world_set_sleeping(w, 0), HEFT_OK);
    expect_woken(w, b, "the world's sleep switched off");
    for (int i = 0; i < 120; ++i) {
        heft_world_step(w, STEP);
    }
    cr_assert_eq(heft_body_is_awake(w, b), 1);
    cr_assert_eq(heft_world_stats(w)->islands_sleeping, 0);
    heft_world_destroy(w);
}

Test(sleeping, what_a_sleeping_body_rests_on_or_meets_wakes_it) {
    /* a static box made where it overlaps the sleeping box */
    heft_world *w = sleeping_world("pgs");
    heft_body_id b = sleeping_box(w);
    heft_body_def sd = heft_default_body_def();
    sd.type = HEFT_BODY_STATIC;
    sd.position = heft_v3(0.35, 0.0, HALF);
    heft_body_id wall = heft_create_body(w, &sd);
    heft_shape_def box = heft_default_shape_def();
    box.type = HEFT_SHAPE_BOX;
    box.half_extents = heft_v3(HALF, HALF, HALF);
    cr_assert(heft_shape_is_valid(w, heft_create_shape(w, wall, &box)));
    cr_assert_eq(heft_body_is_awake(w, b), 0, "not before the step finds the contact");
    cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
    cr_assert_eq(heft_body_is_awake(w, b), 1, "the new static box's contact woke it");
    heft_world_destroy(w);

    /* the lower box of a sleeping pair is destroyed: the upper one falls */
    w = sleeping_world("bpp-skyline");
    heft_body_id lower = add_box(w, heft_v3(0.0, 0.0, HALF + 0.005));
    heft_body_id upper = add_box(w, heft_v3(0.0, 0.0, 3 * HALF + 0.01));
    settle(w, 2);
    const double z = heft_body_position(w, upper).z;
    cr_assert_eq(heft_destroy_body(w, lower), HEFT_OK);
    cr_assert_eq(heft_body_is_awake(w, upper), 1, "destroying what it rests on wakes it");
    for (int i = 0; i < 60; ++i) {
        cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
    }
    cr_assert_lt(heft_body_position(w, upper).z, z - 0.3, "it fell onto the ground");
    cr_assert_eq(heft_world_stats(w)->islands + heft_world_stats(w)->islands_sleeping, 1);
    heft_world_destroy(w);
}

Test(sleeping, a_body_that_may_not_sleep_keeps_its_island_awake) {
    heft_world *w = sleeping_world("bpp-skyline");
    heft_body_id a = add_box(w, heft_v3(0.0, 0.0, HALF + 0.005));
    heft_body_id b = add_box(w, heft_v3(0.0, 0.0, 3 * HALF + 0.01));
    heft_body_id c = add_box(w, heft_v3(2.0, 0.0, HALF + 0.005));
    cr_assert_eq(heft_body_set_sleep_enabled(w, b, 0), HEFT_OK);
    for (int i = 0; i < 300; ++i) {
        cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
    }
    cr_assert_eq(heft_body_is_awake(w, a), 1, "a's island holds b, which may not sleep");
    cr_assert_eq(heft_body_is_awake(w, b), 1);
    cr_assert_eq(heft_body_is_awake(w, c), 0, "c, alone, sleeps");
    cr_assert_eq(heft_body_island_id(w, a), heft_body_island_id(w, b));
    cr_assert_neq(heft_body_island_id(w, a), heft_body_island_id(w, c));
    heft_world_destroy(w);
}

Test(sleeping, a_moving_kinematic_body_wakes_what_it_touches) {
    heft_world *w = sleeping_world("pgs");
    heft_body_id b = sleeping_box(w);
    heft_body_def kd = heft_default_body_def();
    kd.type = HEFT_BODY_KINEMATIC;
    kd.position = heft_v3(-2.0, 0.0, HALF);
    heft_body_id k = heft_create_body(w, &kd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(HALF, HALF, HALF);
    cr_assert(heft_shape_is_valid(w, heft_create_shape(w, k, &sd)));
    /* at rest 1.6 m away, nothing happens */
    for (int i = 0; i < 30; ++i) {
        heft_world_step(w, STEP);
    }
    cr_assert_eq(heft_body_is_awake(w, b), 0);
    cr_assert_eq(heft_body_set_linear_velocity(w, k, heft_v3(1.0, 0.0, 0.0)), HEFT_OK);
    int woke_at = -1;
    for (int i = 0; i < 180 && woke_at < 0; ++i) {
        heft_world_step(w, STEP);
        if (heft_body_is_awake(w, b)) {
            woke_at = i;
        }
    }
    cr_assert_geq(woke_at, 0, "the kinematic box reached the sleeping one");
    /* the gap of 1.2 m closes at 1 m/s: within the contact margin 0.05 m */
    cr_assert_geq((woke_at + 1) * STEP, 1.2 - 0.05 - 2 * STEP, "woke at step %d", woke_at);
    for (int i = 0; i < 60; ++i) {
        heft_world_step(w, STEP);
    }
    cr_assert_gt(heft_body_position(w, b).x, 0.5, "pushed along");
    heft_world_destroy(w);
}

/* A chain of n links hanging from the world at x. */
static void add_chain(heft_world *w, double x, int n, heft_body_id *out, heft_joint_id *joints) {
    heft_body_id prev = HEFT_WORLD_FRAME;
    for (int i = 0; i < n; ++i) {
        heft_body_def bd = heft_default_body_def();
        bd.position = heft_v3(x, 0.0, 10.0 - 0.5 * (i + 0.5));
        out[i] = heft_create_body(w, &bd);
        heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
        jd.body_a = prev;
        jd.body_b = out[i];
        heft_joint_def_set_world_frame(w, &jd, heft_v3(x, 0.0, 10.0 - 0.5 * i), heft_v3(0, 0, 1));
        joints[i] = heft_create_joint(w, &jd);
        cr_assert(heft_joint_is_valid(w, joints[i]), "%s", heft_last_error());
        prev = out[i];
    }
}

Test(sleeping, islands_keep_their_ids_and_a_cut_chain_splits) {
    heft_world_def wd = heft_default_world_def(); /* sleeping off: ids are kept all the same */
    heft_world *w = heft_world_create(&wd);
    heft_body_id a[4], b[7];
    heft_joint_id ja[4], jb[7];
    add_chain(w, 0.0, 4, a, ja);
    add_chain(w, 3.0, 7, b, jb);
    cr_assert_eq(heft_body_island_id(w, a[0]), -1, "no island before the first step");
    heft_world_step(w, STEP);
    const int64_t ia = heft_body_island_id(w, a[0]), ib = heft_body_island_id(w, b[0]);
    cr_assert(ia > 0 && ib > 0 && ia != ib);
    heft_island_stats s0, s1;
    cr_assert_eq(heft_world_island_stats(w, 0, &s0), HEFT_OK);
    cr_assert_eq(heft_world_island_stats(w, 1, &s1), HEFT_OK);
    cr_assert_eq(s0.island_id, ia);
    cr_assert_eq(s1.island_id, ib);
    /* the first chain's top link goes: its island keeps its id although its
     * lowest body changed */
    cr_assert_eq(heft_destroy_body(w, a[0]), HEFT_OK);
    heft_world_step(w, STEP);
    cr_assert_eq(heft_world_stats(w)->islands, 2);
    cr_assert_eq(heft_body_island_id(w, a[1]), ia);
    cr_assert_eq(heft_body_island_id(w, b[0]), ib);
    /* the second chain is cut between links 2 and 3: 3 and 4 links */
    cr_assert_eq(heft_destroy_joint(w, jb[3]), HEFT_OK);
    heft_world_step(w, STEP);
    cr_assert_eq(heft_world_stats(w)->islands, 3);
    cr_assert_eq(heft_body_island_id(w, b[3]), ib, "the larger part keeps the id");
    cr_assert_eq(heft_body_island_id(w, b[6]), ib);
    const int64_t ic = heft_body_island_id(w, b[0]);
    cr_assert(ic > 0 && ic != ib && ic != ia);
    cr_assert_eq(heft_body_island_id(w, b[2]), ic);
    heft_world_destroy(w);
}

Test(sleeping, bad_thresholds_and_ids_are_refused) {
    heft_world_def wd = heft_default_world_def();
    wd.sleep_linear_speed = NAN;
    cr_assert_null(heft_world_create(&wd));
    cr_assert(strstr(heft_last_error(), "sleep") != NULL, "%s", heft_last_error());
    wd = heft_default_world_def();
    wd.time_to_sleep = -1.0;
    cr_assert_null(heft_world_create(&wd));
    wd = heft_default_world_def();
    wd.enable_sleep = 2;
    cr_assert_null(heft_world_create(&wd));
    heft_world *w = sleeping_world("pgs");
    const double bad[] = {NAN, -1e-9, INFINITY, -INFINITY};
    for (int i = 0; i < 4; ++i) {
        cr_assert_eq(heft_world_set_sleep_thresholds(w, bad[i], 0.1, 0.5),
                     HEFT_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(heft_world_set_sleep_thresholds(w, 0.1, bad[i], 0.5),
                     HEFT_ERROR_INVALID_ARGUMENT);
        cr_assert_eq(heft_world_set_sleep_thresholds(w, 0.1, 0.1, bad[i]),
                     HEFT_ERROR_INVALID_ARGUMENT);
    }
    heft_world_def now = heft_world_get_def(w);
    cr_assert(now.sleep_linear_speed == 0.05 && now.sleep_angular_speed == 0.05 &&
              now.time_to_sleep == 0.5);
    cr_assert_eq(heft_world_set_sleep_thresholds(w, 0.0, 0.0, 0.0), HEFT_OK);
    heft_body_id gone = add_box(w, heft_v3(0.0, 0.0, 1.0));
    cr_assert_eq(heft_destroy_body(w, gone), HEFT_OK);
    cr_assert_eq(heft_body_wake(w, gone), HEFT_ERROR_INVALID_ID);
    cr_assert_eq(heft_body_set_awake(w, gone, 1), HEFT_ERROR_INVALID_ID);
    cr_assert_eq(heft_body_set_sleep_enabled(w, gone, 0), HEFT_ERROR_INVALID_ID);
    cr_assert_eq(heft_body_is_awake(w, gone), 0);
    cr_assert_eq(heft_body_island_id(w, gone), -1);
    heft_body_id b = add_box(w, heft_v3(0.0, 0.0, 1.0));
    cr_assert_eq(heft_body_set_awake(w, b, 2), HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(heft_body_set_sleep_enabled(w, b, -1), HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(heft_world_set_sleeping(w, 3), HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(heft_world_sleeping(w), 1);
    cr_assert_eq(heft_body_sleep_enabled(w, b), 1);
    cr_assert_eq(heft_world_set_sleeping(NULL, 1), HEFT_ERROR_INVALID_ARGUMENT);
    heft_body_events ev = heft_world_body_events(NULL);
    cr_assert(ev.woke == NULL && ev.woke_count == 0 && ev.fell_asleep_count == 0);
    heft_world_destroy(w);
}

Test(sleeping, the_settings_round_trip_through_a_scene_file) {
    heft_world *w = sleeping_world("pgs");
    cr_assert_eq(heft_world_set_sleep_thresholds(w, 0.02, 0.03, 1.25), HEFT_OK);
    heft_body_id a = add_box(w, heft_v3(0.0, 0.0, 1.0));
    heft_body_id b = add_box(w, heft_v3(2.0, 0.0, 1.0));
    cr_assert_eq(heft_body_set_sleep_enabled(w, b, 0), HEFT_OK);
    char path[] = "/tmp/heft-sleeping-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(heft_world_save(w, path, NULL), HEFT_OK, "%s", heft_last_error());
    heft_world *back = heft_world_load(path, NULL);
    remove(path);
    cr_assert_not_null(back, "%s", heft_last_error());
    heft_world_def d = heft_world_get_def(back);
    cr_assert_eq(d.enable_sleep, 1);
    cr_assert(d.sleep_linear_speed == 0.02 && d.sleep_angular_speed == 0.03 &&
              d.time_to_sleep == 1.25);
    heft_body_id ids[4];
    cr_assert_eq(heft_world_bodies(back, ids, 4), 3);
    cr_assert_eq(heft_body_sleep_enabled(back, ids[1]), 1, "box a");
    cr_assert_eq(heft_body_sleep_enabled(back, ids[2]), 0, "box b");
    (void)a;
    heft_world_destroy(back);
    heft_world_destroy(w);
}

/* The islands, their solver states and the event arrays are kept: once a
 * pile has fallen asleep and woken once, doing it again allocates nothing. */
Test(sleeping, sleeping_and_waking_again_allocates_nothing) {
    counting_allocator_install();
    heft_world *w = sleeping_world("bpp-skyline");
    heft_body_id pile[PILE];
    add_pile(w, pile);
    long calls = 0;
    for (int cycle = 0; cycle < 3; ++cycle) {
        settle(w, PILE);
        for (int k = 0; k < STACKS * STACKS; ++k) {
            cr_assert_eq(heft_body_wake(w, pile[k * HIGH]), HEFT_OK);
        }
        cr_assert_eq(heft_world_stats(w)->bodies_sleeping, PILE, "the stats are the last step's");
        cr_assert_eq(heft_world_body_events(w).woke_count, PILE);
        if (cycle == 1) {
            counting_allocator_calls = 0;
        }
    }
    calls = counting_allocator_calls;
    heft_world_destroy(w);
    heft_set_allocator(NULL);
    cr_assert_eq(calls, 0, "%ld allocations in the third cycle", calls);
}

/* A box asleep inside a static sensor stays inside it: no end event while it
 * sleeps; kicked out, it ends once. */
Test(sleeping, a_sensor_keeps_a_sleeping_visitor) {
    heft_world *w = sleeping_world("pgs");
    heft_body_def sd = heft_default_body_def();
    sd.type = HEFT_BODY_STATIC;
    sd.position = heft_v3(0.0, 0.0, 0.5);
    heft_body_id zone = heft_create_body(w, &sd);
    heft_shape_def sensor = heft_default_shape_def();
    sensor.type = HEFT_SHAPE_BOX;
    sensor.half_extents = heft_v3(1.0, 1.0, 0.5);
    sensor.is_sensor = 1;
    cr_assert(heft_shape_is_valid(w, heft_create_shape(w, zone, &sensor)), "%s", heft_last_error());
    heft_body_id b = add_box(w, heft_v3(0.0, 0.0, HALF));
    int begins = 0, ends = 0, slept_steps = 0;
    for (int i = 0; i < 120; ++i) {
        cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
        begins += heft_world_sensor_events(w).begin_count;
        ends += heft_world_sensor_events(w).end_count;
        slept_steps += !heft_body_is_awake(w, b);
    }
    cr_assert_gt(slept_steps, 60, "the box slept");
    cr_assert_eq(begins, 1);
    cr_assert_eq(ends, 0, "no end while it sleeps inside");
    cr_assert_eq(heft_body_set_transform(w, b, heft_v3(5.0, 0.0, HALF), heft_quat_identity()),
                 HEFT_OK);
    cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
    cr_assert_eq(heft_world_sensor_events(w).end_count, 1, "moved out: one end");
    heft_world_destroy(w);
}

typedef struct sleep_boxes {
    int segments, other;
} sleep_boxes;

static void count_segment(void *context, heft_vec3 a, heft_vec3 b, heft_color color) {
    (void)a;
    (void)b;
    sleep_boxes *c = context;
    if (color == HEFT_COLOR_SLEEP) {
        c->segments++;
    } else {
        c->other++;
    }
}

/* HEFT_DRAW_SLEEP: one box (12 segments) a sleeping island, nothing awake. */
Test(sleeping, debug_draw_shows_the_sleeping_islands) {
    heft_world *w = sleeping_world("bpp-skyline");
    heft_body_id pile[PILE];
    add_pile(w, pile);
    sleep_boxes c = {0, 0};
    heft_debug_draw d = heft_default_debug_draw();
    d.segment = count_segment;
    d.context = &c;
    heft_world_step(w, STEP);
    cr_assert_eq(heft_world_draw(w, &d, HEFT_DRAW_SLEEP), HEFT_OK);
    cr_assert_eq(c.segments + c.other, 0, "nothing asleep, nothing drawn");
    settle(w, PILE);
    cr_assert_eq(heft_world_draw(w, &d, HEFT_DRAW_SLEEP), HEFT_OK);
    cr_assert_eq(c.segments, 12 * STACKS * STACKS);
    cr_assert_eq(c.other, 0);
    heft_world_destroy(w);
}
