/* Islands: union-find over dynamic bodies; static bodies do not join them. */
#include <criterion/criterion.h>

#include "heft.h"

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
