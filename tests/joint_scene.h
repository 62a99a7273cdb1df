/* Small scene builders for the joint tests (test_joint_*.c), through the
 * public API only. */
#ifndef HEFT_TEST_JOINT_SCENE_H
#define HEFT_TEST_JOINT_SCENE_H

#include <criterion/criterion.h>

#include "heft.h"

#define STEP (1.0 / 60.0)

static inline heft_body_id scene_body(heft_world *w, heft_vec3 position, double mass,
                                      heft_mat3 inertia) {
    heft_body_def bd = heft_default_body_def();
    bd.position = position;
    bd.mass = mass;
    bd.inertia = inertia;
    heft_body_id id = heft_create_body(w, &bd);
    cr_assert(heft_body_is_valid(w, id), "%s", heft_last_error());
    return id;
}

/* A joint of the given type between a (HEFT_WORLD_FRAME allowed) and b with
 * its frame at a world anchor and axis; def_out (may be NULL) receives the
 * def for further changes before creation when create is 0. */
static inline heft_joint_def scene_joint_def(heft_world *w, heft_joint_type type, heft_body_id a,
                                             heft_body_id b, heft_vec3 anchor, heft_vec3 axis) {
    heft_joint_def d = heft_default_joint_def(type);
    d.body_a = a;
    d.body_b = b;
    cr_assert_eq(heft_joint_def_set_world_frame(w, &d, anchor, axis), HEFT_OK, "%s",
                 heft_last_error());
    return d;
}

static inline heft_joint_id scene_create(heft_world *w, const heft_joint_def *d) {
    heft_joint_id id = heft_create_joint(w, d);
    cr_assert(heft_joint_is_valid(w, id), "joint refused: %s", heft_last_error());
    return id;
}

static inline heft_world *scene_world(const char *solver) {
    heft_world_def wd = heft_default_world_def();
    if (solver) {
        wd.solver = solver;
    }
    heft_world *w = heft_world_create(&wd);
    cr_assert_not_null(w, "%s", heft_last_error());
    return w;
}

#endif
