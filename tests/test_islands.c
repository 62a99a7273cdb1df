/* Islands: dynamic bodies joined by joints and contacts, kept from step to
 * step (engine/island.c); static bodies do not join them. */
#include <criterion/criterion.h>

#include "heft.h"
#include "world.h"

static heft_body_id add_chain(heft_world *w, heft_body_id anchor, double x, int links) {
    heft_body_id prev = anchor, b = {-1, 0};
    for (int i = 0; i < links; ++i) {
        heft_body_def bd = heft_default_body_def();
        bd.position = heft_v3(x, 0.0, 10.0 - 0.5 * (i + 0.5));
        b = heft_create_body(w, &bd);
        heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
        jd.body_a = prev;
        jd.body_b = b;
        heft_joint_def_set_world_frame(w, &jd, heft_v3(x, 0.0, 10.0 - 0.5 * i), heft_v3(0, 0, 1));
        cr_assert(heft_joint_is_valid(w, heft_create_joint(w, &jd)), "%s", heft_last_error());
        prev = b;
    }
    return b;
}

Test(islands, two_separate_chains_make_two_islands) {
    heft_world *w = heft_world_create(NULL);
    add_chain(w, HEFT_WORLD_FRAME, 0.0, 5);
    add_chain(w, HEFT_WORLD_FRAME, 3.0, 7);
    heft_world_step(w, 1.0 / 60.0);
    const heft_step_stats *st = heft_world_stats(w);
    cr_assert_eq(st->islands, 2);
    heft_island_stats a, b;
    cr_assert_eq(heft_world_island_stats(w, 0, &a), HEFT_OK);
    cr_assert_eq(heft_world_island_stats(w, 1, &b), HEFT_OK);
    cr_assert_eq(a.bodies, 5);
    cr_assert_eq(a.rows, 15);
    cr_assert_eq(b.bodies, 7);
    cr_assert_eq(b.rows, 21);
    cr_assert_eq(heft_world_island_stats(w, 2, &b), HEFT_ERROR_INVALID_ARGUMENT);
    heft_world_destroy(w);
}

Test(islands, bodies_joined_to_one_static_body_stay_separate_islands) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    heft_body_id ground = heft_create_body(w, &gd);
    add_chain(w, ground, 0.0, 3);
    add_chain(w, ground, 2.0, 3);
    add_chain(w, ground, 4.0, 3);
    heft_world_step(w, 1.0 / 60.0);
    cr_assert_eq(heft_world_stats(w)->islands, 3);
    cr_assert_eq(heft_world_stats(w)->rows_max, 9);
    heft_world_destroy(w);
}

Test(islands, joining_two_chains_merges_their_islands) {
    heft_world *w = heft_world_create(NULL);
    heft_body_id end1 = add_chain(w, HEFT_WORLD_FRAME, 0.0, 4);
    heft_body_id end2 = add_chain(w, HEFT_WORLD_FRAME, 1.0, 4);
    heft_world_step(w, 1.0 / 60.0);
    cr_assert_eq(heft_world_stats(w)->islands, 2);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_a = end1;
    jd.body_b = end2;
    heft_joint_def_set_world_frame(w, &jd, heft_v3(0.5, 0.0, 8.0), heft_v3(0, 0, 1));
    heft_create_joint(w, &jd);
    heft_world_step(w, 1.0 / 60.0);
    cr_assert_eq(heft_world_stats(w)->islands, 1);
    cr_assert_eq(heft_world_stats(w)->rows, 27);
    heft_world_destroy(w);
}

/* ---- persistent islands under churn (engine/island.c) ------------------- */

/* The island lists agree with the bodies, and what joins two awake bodies
 * (an unbroken joint, a contact) has them in one island. */
static void check_islands(const heft_world *w, int after_step) {
    int listed = 0, live = 0;
    for (int32_t k = 0; k < w->island_high; ++k) {
        const world_island *is = &w->islands[k];
        if (is->id == 0) {
            continue;
        }
        live++;
        int n = 0;
        int32_t prev = -1;
        for (int32_t b = is->body_first; b >= 0; b = w->bodies[b].island_next) {
            const body *bd = &w->bodies[b];
            cr_assert(bd->slot.alive && bd->type == HEFT_BODY_DYNAMIC, "island %d holds body %d", k,
                      b);
            cr_assert_eq(bd->island_id, k);
            cr_assert_eq(bd->island_prev, prev);
            cr_assert_eq(bd->sleeping, is->sleeping, "body %d and its island disagree", b);
            prev = b;
            cr_assert_leq(++n, is->body_count, "island %d's list runs past its count", k);
        }
        cr_assert_eq(n, is->body_count);
        cr_assert_gt(n, 0, "island %d is empty", k);
        listed += n;
    }
    cr_assert_eq(live, w->island_live);
    int with_island = 0;
    for (int32_t i = 0; i < w->body_high; ++i) {
        const body *b = &w->bodies[i];
        if (b->slot.alive && b->type == HEFT_BODY_DYNAMIC) {
            with_island += b->island_id >= 0;
            cr_assert(after_step ? b->island_id >= 0 : 1, "body %d has no island after a step", i);
        }
    }
    cr_assert_eq(listed, with_island);
    if (!after_step) {
        return;
    }
    for (int32_t i = 0; i < w->joint_high; ++i) {
        const joint *j = &w->joints[i];
        if (j->slot.alive && !j->broken && j->body_a >= 0 &&
            w->bodies[j->body_a].type == HEFT_BODY_DYNAMIC) {
            cr_assert_eq(w->bodies[j->body_a].island_id, w->bodies[j->body_b].island_id,
                         "joint %d spans two islands", i);
        }
    }
    for (int i = 0; i < w->contacts.count; ++i) {
        const contact *c = &w->contacts.items[i];
        const body *a = &w->bodies[c->body_a], *b = &w->bodies[c->body_b];
        if (a->type == HEFT_BODY_DYNAMIC && b->type == HEFT_BODY_DYNAMIC) {
            cr_assert_eq(a->island_id, b->island_id, "contact %d spans two islands", i);
        }
    }
}

static uint32_t next_random(uint32_t *s) {
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

/* Bodies and joints made and destroyed, bodies kicked, put to sleep and
 * woken at random, with sleeping on and a short time to sleep: after every
 * call and every step the lists hold. */
static void churn(int substeps) {
    heft_world_def wd = heft_default_world_def();
    wd.enable_sleep = 1;
    wd.time_to_sleep = 0.1;
    wd.substeps = substeps;
    heft_world *w = heft_world_create(&wd);
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    heft_body_id ground = heft_create_body(w, &gd);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    heft_create_shape(w, ground, &plane);
    heft_shape_def box = heft_default_shape_def();
    box.type = HEFT_SHAPE_BOX;
    box.half_extents = heft_v3(0.2, 0.2, 0.2);
    uint32_t seed = 12345u;
    int slept = 0, split = 0, steps = 600;
    for (int s = 0; s < steps; ++s) {
        heft_body_id ids[128];
        int n = heft_world_bodies(w, ids, 128);
        uint32_t op = next_random(&seed) % 10;
        heft_body_id pick = ids[1 + (n > 1 ? next_random(&seed) % (uint32_t)(n - 1) : 0)];
        if ((op < 3 && n < 100) || n < 4) {
            heft_body_def bd = heft_default_body_def();
            bd.position = heft_v3((next_random(&seed) % 7) * 0.35, (next_random(&seed) % 3) * 0.35,
                                  0.25 + (next_random(&seed) % 5) * 0.45);
            heft_create_shape(w, heft_create_body(w, &bd), &box);
        } else if (op == 3 && n > 1) {
            cr_assert_eq(heft_destroy_body(w, pick), HEFT_OK);
        } else if (op == 4 && n > 2) {
            heft_body_id other = ids[1 + next_random(&seed) % (uint32_t)(n - 1)];
            if (other.index != pick.index) {
                heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_DISTANCE);
                jd.body_a = pick;
                jd.body_b = other;
                heft_create_joint(w, &jd);
            }
        } else if (op == 5) {
            heft_joint_id js[128];
            int nj = heft_world_joints(w, js, 128);
            if (nj > 0) {
                cr_assert_eq(heft_destroy_joint(w, js[next_random(&seed) % (uint32_t)nj]), HEFT_OK);
                split++;
            }
        } else if (op == 6) {
            heft_body_set_linear_velocity(w, pick, heft_v3(0.0, 0.0, 2.0));
        } else if (op == 7) {
            cr_assert_eq(heft_body_set_awake(w, pick, 0), HEFT_OK);
        } else if (op == 8) {
            cr_assert_eq(heft_body_wake(w, pick), HEFT_OK);
        }
        check_islands(w, 0);
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
        check_islands(w, 1);
        slept += heft_world_stats(w)->islands_sleeping > 0;
    }
    cr_log_info("%d bodies, %d joints, %d islands live; %d steps with a sleeping island, %d "
                "joints destroyed",
                heft_world_body_count(w), heft_world_joint_count(w), w->island_live, slept, split);
    cr_assert_gt(slept, 0, "the churn never let an island sleep");
    heft_world_destroy(w);
}

Test(islands, lists_hold_through_random_churn) {
    churn(1);
}

Test(islands, lists_hold_through_random_churn_in_substeps) {
    churn(3);
}
