/* Bad input is refused with an error and leaves the world exactly as it was. */
#include <criterion/criterion.h>
#include <string.h>

#include "heft.h"
#include "world_snapshot.h"

static heft_world *world;
static heft_body_id a, b;
static world_snapshot before;

static void setup(void) {
    world = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0.0, 0.0, 1.0);
    a = heft_create_body(world, &bd);
    bd.position = heft_v3(0.0, 0.0, 2.0);
    b = heft_create_body(world, &bd);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_a = a;
    jd.body_b = b;
    heft_joint_def_set_world_frame(world, &jd, heft_v3(0.0, 0.0, 1.5), heft_v3(0, 0, 1));
    heft_create_joint(world, &jd);
    heft_world_step(world, 1.0 / 60.0);
    world_snapshot_take(world, &before);
}

static void teardown(void) {
    heft_world_destroy(world);
}

static void assert_unchanged(void) {
    world_snapshot after;
    world_snapshot_take(world, &after);
    cr_assert(world_snapshot_equal(&before, &after), "the world changed");
    cr_assert_neq(heft_last_error()[0], '\0', "no error message");
}

TestSuite(bad_input, .init = setup, .fini = teardown);

Test(bad_input, negative_mass_is_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.mass = -1.0;
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    assert_unchanged();
    cr_assert_neq(heft_body_set_mass(world, a, -2.0, heft_mat3_identity()), HEFT_OK);
    assert_unchanged();
}

Test(bad_input, nan_mass_is_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.mass = NAN;
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    assert_unchanged();
}

Test(bad_input, inertia_not_positive_definite_is_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.inertia = heft_mat3_diag(1.0, -1.0, 1.0);
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    bd.inertia = heft_mat3_diag(1.0, 1.0, 1.0);
    bd.inertia.m[0][1] = 0.5; /* not symmetric */
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    assert_unchanged();
}

Test(bad_input, nan_pose_is_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0.0, NAN, 0.0);
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    cr_assert_neq(heft_body_set_transform(world, a, heft_v3(INFINITY, 0, 0), heft_quat_identity()),
                  HEFT_OK);
    cr_assert_neq(heft_body_set_linear_velocity(world, a, heft_v3(NAN, 0, 0)), HEFT_OK);
    cr_assert_neq(heft_body_apply_force(world, a, heft_v3(NAN, 0, 0), heft_v3(0, 0, 0)), HEFT_OK);
    assert_unchanged();
}

Test(bad_input, zero_quaternion_is_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.orientation = heft_q(0.0, 0.0, 0.0, 0.0);
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    cr_assert_neq(heft_body_set_transform(world, a, heft_v3(0, 0, 0), heft_q(0, 0, 0, 0)), HEFT_OK);
    assert_unchanged();
}

Test(bad_input, joint_between_a_body_and_itself_is_refused) {
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_HINGE);
    jd.body_a = a;
    jd.body_b = a;
    cr_assert_lt(heft_create_joint(world, &jd).index, 0);
    assert_unchanged();
}

Test(bad_input, joint_with_stale_or_missing_body_is_refused) {
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_a = a;
    jd.body_b.index = 17;
    jd.body_b.generation = 1;
    cr_assert_lt(heft_create_joint(world, &jd).index, 0);
    jd.body_b = b;
    jd.body_b.generation += 1; /* stale */
    cr_assert_lt(heft_create_joint(world, &jd).index, 0);
    jd.body_b = b;
    jd.stiffness = NAN;
    cr_assert_lt(heft_create_joint(world, &jd).index, 0);
    assert_unchanged();
}

Test(bad_input, unknown_solver_name_is_refused) {
    cr_assert_eq(heft_world_set_solver(world, "no-such-solver"), HEFT_ERROR_UNKNOWN_SOLVER);
    cr_assert_str_eq(heft_world_solver(world), "pgs");
    assert_unchanged();
}

Test(bad_input, bad_time_step_is_refused) {
    cr_assert_neq(heft_world_step(world, 0.0), HEFT_OK);
    cr_assert_neq(heft_world_step(world, -1.0 / 60.0), HEFT_OK);
    cr_assert_neq(heft_world_step(world, NAN), HEFT_OK);
    cr_assert_neq(heft_world_step(world, INFINITY), HEFT_OK);
    assert_unchanged();
}

Test(bad_input, degenerate_shapes_are_refused) {
    heft_shape_def sd = heft_default_shape_def();
    sd.radius = 0.0;
    cr_assert_lt(heft_create_shape(world, a, &sd).index, 0);
    sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(1.0, -1.0, 1.0);
    cr_assert_lt(heft_create_shape(world, a, &sd).index, 0);
    sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_PLANE; /* planes belong to static bodies */
    cr_assert_lt(heft_create_shape(world, a, &sd).index, 0);
    assert_unchanged();
}

Test(bad_input, bad_solver_options_are_refused) {
    heft_solver_options o = heft_solver_default_options();
    o.relaxation = 2.5;
    cr_assert_neq(heft_world_set_solver_options(world, &o), HEFT_OK);
    o = heft_solver_default_options();
    o.tolerance = NAN;
    cr_assert_neq(heft_world_set_solver_options(world, &o), HEFT_OK);
    o = heft_solver_default_options();
    o.bpp_pgs_sweeps = -1;
    cr_assert_neq(heft_world_set_solver_options(world, &o), HEFT_OK);
    cr_assert(strstr(heft_last_error(), "bpp_pgs_sweeps") != NULL, "%s", heft_last_error());
    assert_unchanged();
}

Test(bad_input, stale_ids_are_refused_after_destroy) {
    heft_body_def bd = heft_default_body_def();
    heft_body_id c = heft_create_body(world, &bd);
    cr_assert_eq(heft_destroy_body(world, c), HEFT_OK);
    cr_assert_eq(heft_destroy_body(world, c), HEFT_ERROR_INVALID_ID);
    cr_assert(!heft_body_is_valid(world, c));
    /* the slot is reused under a new generation: the old id stays invalid */
    heft_body_id d = heft_create_body(world, &bd);
    cr_assert_eq(d.index, c.index);
    cr_assert(!heft_body_is_valid(world, c));
    cr_assert(heft_body_is_valid(world, d));
}

Test(bad_input, world_def_with_unknown_solver_makes_no_world) {
    heft_world_def wd = heft_default_world_def();
    wd.solver = "nope";
    cr_assert_null(heft_world_create(&wd));
    wd = heft_default_world_def();
    wd.gravity.z = NAN;
    cr_assert_null(heft_world_create(&wd));
}
