/* Joint definitions: bad ones are refused with an error and change nothing;
 * setters likewise; destruction cascades to couplings; collide_connected,
 * breaking, names and frames. */
#include <criterion/criterion.h>

#include "joint_scene.h"
#include "world.h"
#include "world_snapshot.h"

static heft_world *world;
static heft_body_id a, b, ground, kinematic;
static heft_joint_id hinge, slider, ball;
static world_snapshot before;
static heft_joint_id joints_before[16];
static int joint_count_before;

static void build(heft_world *w) {
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0.0, 0.0, 1.0);
    a = heft_create_body(w, &bd);
    bd.position = heft_v3(0.0, 0.0, 2.0);
    b = heft_create_body(w, &bd);
    bd.type = HEFT_BODY_STATIC;
    bd.position = heft_v3(0.0, 0.0, 0.0);
    ground = heft_create_body(w, &bd);
    bd.type = HEFT_BODY_KINEMATIC;
    kinematic = heft_create_body(w, &bd);
    heft_joint_def d = scene_joint_def(w, HEFT_JOINT_HINGE, HEFT_WORLD_FRAME, a, heft_v3(0, 0, 1),
                                       heft_v3(0, 1, 0));
    heft_joint_motor m = {HEFT_MOTOR_VELOCITY, 1.0, 0.0, 10.0, 0.0, 0.0};
    d.motor[HEFT_DOF_RX] = m;
    hinge = scene_create(w, &d);
    d = scene_joint_def(w, HEFT_JOINT_PRISMATIC, ground, b, heft_v3(0, 0, 2), heft_v3(0, 0, 1));
    slider = scene_create(w, &d);
    d = scene_joint_def(w, HEFT_JOINT_BALL, a, b, heft_v3(0, 0, 1.5), heft_v3(0, 0, 1));
    ball = scene_create(w, &d);
}

static void setup(void) {
    world = heft_world_create(NULL);
    build(world);
    heft_world_step(world, STEP);
    world_snapshot_take(world, &before);
    joint_count_before = heft_world_joints(world, joints_before, 16);
}

static void teardown(void) {
    heft_world_destroy(world);
}

/* the snapshot, the joint list, and the next ten steps are as they were */
static void assert_unchanged(void) {
    world_snapshot after;
    world_snapshot_take(world, &after);
    cr_assert(world_snapshot_equal(&before, &after), "the world changed");
    heft_joint_id now[16];
    cr_assert_eq(heft_world_joints(world, now, 16), joint_count_before);
    cr_assert_eq(memcmp(now, joints_before, sizeof(heft_joint_id) * (size_t)joint_count_before), 0);
    cr_assert_neq(heft_last_error()[0], '\0', "no error message");
    /* a twin world that never saw the refused calls steps identically */
    heft_world *twin = heft_world_create(NULL);
    build(twin);
    heft_world_step(twin, STEP);
    for (int i = 0; i < 10; ++i) {
        heft_world_step(world, STEP);
        heft_world_step(twin, STEP);
    }
    /* field by field: two worlds' snapshots differ in struct padding */
    heft_body_id ids[16];
    int n = heft_world_bodies(world, ids, 16);
    cr_assert_eq(n, heft_world_body_count(twin));
    int same = 1;
    for (int i = 0; i < n; ++i) {
        heft_body_state s1, s2;
        heft_body_get_state(world, ids[i], &s1);
        heft_body_get_state(twin, ids[i], &s2);
        same &= s1.position.x == s2.position.x && s1.position.y == s2.position.y &&
                s1.position.z == s2.position.z && s1.orientation.w == s2.orientation.w &&
                s1.orientation.x == s2.orientation.x && s1.orientation.y == s2.orientation.y &&
                s1.orientation.z == s2.orientation.z &&
                s1.linear_velocity.x == s2.linear_velocity.x &&
                s1.linear_velocity.y == s2.linear_velocity.y &&
                s1.linear_velocity.z == s2.linear_velocity.z &&
                s1.angular_velocity.x == s2.angular_velocity.x &&
                s1.angular_velocity.y == s2.angular_velocity.y &&
                s1.angular_velocity.z == s2.angular_velocity.z;
    }
    heft_world_destroy(twin);
    cr_assert(same, "a refused call changed how the world moves");
}

static void refused(const heft_joint_def *d, const char *what) {
    heft_joint_id id = heft_create_joint(world, d);
    cr_assert_lt(id.index, 0, "%s was accepted", what);
    cr_assert(!heft_joint_is_valid(world, id));
}

TestSuite(joint_defs, .init = setup, .fini = teardown);

Test(joint_defs, zero_or_nan_axes_are_refused) {
    static const heft_joint_type types[] = {HEFT_JOINT_HINGE, HEFT_JOINT_PRISMATIC,
                                            HEFT_JOINT_CYLINDRICAL, HEFT_JOINT_UNIVERSAL,
                                            HEFT_JOINT_SIX_DOF};
    for (size_t k = 0; k < sizeof types / sizeof types[0]; ++k) {
        heft_joint_def d =
            scene_joint_def(world, types[k], a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
        d.local_axis_a = heft_v3(0.0, 0.0, 0.0);
        refused(&d, "a zero axis");
        d = scene_joint_def(world, types[k], a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
        d.local_axis_b = heft_v3(NAN, 0.0, 1.0);
        refused(&d, "a NaN axis");
    }
    heft_joint_def d = heft_default_joint_def(HEFT_JOINT_HINGE);
    d.body_b = a;
    cr_assert_neq(heft_joint_def_set_world_frame(world, &d, heft_v3(0, 0, 0), heft_v3(0, 0, 0)),
                  HEFT_OK);
    assert_unchanged();
}

Test(joint_defs, nan_anchors_are_refused) {
    heft_joint_def d =
        scene_joint_def(world, HEFT_JOINT_BALL, a, b, heft_v3(0, 0, 1.5), heft_v3(0, 0, 1));
    d.local_anchor_a.y = NAN;
    refused(&d, "a NaN anchor");
    d = scene_joint_def(world, HEFT_JOINT_DISTANCE, a, b, heft_v3(0, 0, 1.5), heft_v3(0, 0, 1));
    d.local_anchor_b.z = INFINITY;
    refused(&d, "an infinite anchor");
    cr_assert_neq(heft_joint_def_set_world_frame(world, &d, heft_v3(NAN, 0, 0), heft_v3(0, 0, 1)),
                  HEFT_OK);
    assert_unchanged();
}

Test(joint_defs, limits_with_lower_above_upper_are_refused) {
    heft_joint_def d =
        scene_joint_def(world, HEFT_JOINT_HINGE, a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
    heft_joint_limit l = {1, 0.5, -0.5, 0.0, 0.0};
    d.limit[HEFT_DOF_RX] = l;
    refused(&d, "lower > upper");
    d.limit[HEFT_DOF_RX].lower = NAN;
    refused(&d, "a NaN bound");
    d.limit[HEFT_DOF_RX].lower = -1.0;
    d.limit[HEFT_DOF_RX].stiffness = -3.0;
    refused(&d, "a negative limit stiffness");
    d = scene_joint_def(world, HEFT_JOINT_SIX_DOF, a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
    d.dof_mode[HEFT_DOF_Y] = HEFT_DOF_LIMITED;
    d.limit[HEFT_DOF_Y].lower = 1.0; /* LIMITED reads the bounds even with enabled == 0 */
    refused(&d, "a six-DOF limited coordinate with lower > upper");
    d = scene_joint_def(world, HEFT_JOINT_BALL, a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
    heft_joint_limit cone = {1, 0.0, 4.0, 0.0, 0.0};
    d.limit[HEFT_DOF_SWING] = cone;
    refused(&d, "a cone wider than pi");
    d.limit[HEFT_DOF_SWING].upper = 0.0;
    refused(&d, "a cone of zero half-angle");
    heft_joint_limit ok = {1, -1.0, 1.0, 0.0, 0.0};
    cr_assert_eq(heft_joint_set_limit(world, hinge, HEFT_DOF_RX, &l), HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(heft_joint_set_limit(world, hinge, HEFT_DOF_X, &ok), HEFT_ERROR_INVALID_ARGUMENT,
                 "a hinge has no limit on X");
    cr_assert_eq(heft_joint_set_limit(world, hinge, (heft_joint_dof)9, &ok),
                 HEFT_ERROR_INVALID_ARGUMENT);
    assert_unchanged();
}

Test(joint_defs, joints_between_two_non_dynamic_bodies_are_refused) {
    heft_joint_def d = scene_joint_def(world, HEFT_JOINT_FIXED, ground, kinematic, heft_v3(0, 0, 0),
                                       heft_v3(0, 0, 1));
    refused(&d, "a static-kinematic joint");
    d = scene_joint_def(world, HEFT_JOINT_HINGE, HEFT_WORLD_FRAME, ground, heft_v3(0, 0, 0),
                        heft_v3(0, 0, 1));
    refused(&d, "a world-static joint");
    d = scene_joint_def(world, HEFT_JOINT_BALL, a, a, heft_v3(0, 0, 0), heft_v3(0, 0, 1));
    refused(&d, "a joint of a body to itself");
    d.type = (heft_joint_type)42;
    d.body_b = b;
    refused(&d, "an unknown type");
    assert_unchanged();
}

Test(joint_defs, couplings_of_the_wrong_joints_are_refused) {
    heft_joint_def d = heft_default_joint_def(HEFT_JOINT_GEAR);
    d.joint_a = hinge;
    d.joint_b = ball;
    refused(&d, "a gear between a hinge and a ball joint");
    d.joint_b = slider;
    refused(&d, "a gear between a hinge and a slider");
    d.joint_b = hinge;
    refused(&d, "a gear of a hinge with itself");
    d.type = HEFT_JOINT_RACK;
    d.joint_a = slider;
    d.joint_b = hinge;
    refused(&d, "a rack with the slider first");
    d.joint_a = hinge;
    d.joint_b.generation += 7;
    refused(&d, "a rack on a stale joint");
    d.joint_b = slider;
    d.ratio = NAN;
    refused(&d, "a NaN ratio");
    assert_unchanged();
}

Test(joint_defs, bad_motors_lengths_and_thresholds_are_refused) {
    heft_joint_def d =
        scene_joint_def(world, HEFT_JOINT_BALL, a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
    heft_joint_motor m = {HEFT_MOTOR_VELOCITY, 1.0, 0.0, 10.0, 0.0, 0.0};
    d.motor[HEFT_DOF_RX] = m;
    refused(&d, "a motor on a ball joint");
    d = scene_joint_def(world, HEFT_JOINT_SIX_DOF, a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
    d.motor[HEFT_DOF_RY] = m;
    refused(&d, "a motor on a locked coordinate");
    d = scene_joint_def(world, HEFT_JOINT_HINGE, a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
    d.motor[HEFT_DOF_RX] = m;
    d.motor[HEFT_DOF_RX].max_force = -1.0;
    refused(&d, "a negative max force");
    d.motor[HEFT_DOF_RX].max_force = 10.0;
    d.motor[HEFT_DOF_RX].target_velocity = NAN;
    refused(&d, "a NaN target");
    d.motor[HEFT_DOF_RX].target_velocity = 0.0;
    d.motor[HEFT_DOF_RX].mode = (heft_motor_mode)7;
    refused(&d, "an unknown motor mode");
    d = scene_joint_def(world, HEFT_JOINT_ROPE, a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
    refused(&d, "a rope of length zero (anchors together)");
    d.length = -2.0;
    refused(&d, "a negative length");
    d = scene_joint_def(world, HEFT_JOINT_HINGE, a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
    d.break_force = 0.0;
    refused(&d, "a zero break force");
    d.break_force = NAN;
    refused(&d, "a NaN break force");
    d = scene_joint_def(world, HEFT_JOINT_UNIVERSAL, a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
    d.local_axis_b = d.local_axis_a;
    refused(&d, "a universal joint with parallel arms");
    d = scene_joint_def(world, HEFT_JOINT_SIX_DOF, a, b, heft_v3(0, 0, 1.5), heft_v3(1, 0, 0));
    d.dof_mode[2] = (heft_dof_mode)5;
    refused(&d, "an unknown coordinate mode");
    /* setters */
    cr_assert_eq(heft_joint_set_motor(world, hinge, HEFT_DOF_RX, &d.motor[0]), HEFT_OK,
                 "turning it off is fine");
    heft_joint_motor bad = m;
    bad.stiffness = -1.0;
    heft_joint_motor on = {HEFT_MOTOR_VELOCITY, 1.0, 0.0, 10.0, 0.0, 0.0};
    cr_assert_eq(heft_joint_set_motor(world, hinge, HEFT_DOF_RX, &on), HEFT_OK);
    cr_assert_eq(heft_joint_set_motor(world, hinge, HEFT_DOF_RX, &bad),
                 HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(heft_joint_set_motor(world, hinge, HEFT_DOF_X, &on), HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(heft_joint_set_motor_velocity(world, hinge, HEFT_DOF_RX, NAN),
                 HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(heft_joint_set_motor_velocity(world, ball, HEFT_DOF_RX, 1.0),
                 HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(heft_joint_set_length(world, hinge, 1.0), HEFT_ERROR_INVALID_ARGUMENT);
    heft_joint_id stale = hinge;
    stale.generation++;
    cr_assert_eq(heft_joint_set_motor_velocity(world, stale, HEFT_DOF_RX, 1.0),
                 HEFT_ERROR_INVALID_ID);
    assert_unchanged();
}

Test(joint_defs, destroying_a_hinge_destroys_its_gear) {
    heft_body_id c = scene_body(world, heft_v3(1, 0, 1), 1.0, heft_mat3_zero());
    heft_joint_def d = scene_joint_def(world, HEFT_JOINT_HINGE, HEFT_WORLD_FRAME, c,
                                       heft_v3(1, 0, 1), heft_v3(0, 1, 0));
    heft_joint_id h2 = scene_create(world, &d);
    heft_joint_def g = heft_default_joint_def(HEFT_JOINT_GEAR);
    g.joint_a = hinge;
    g.joint_b = h2;
    heft_joint_id gear = scene_create(world, &g);
    cr_assert(joint_bodies_connected(world, a.index, c.index),
              "gear wheels do not collide by default");
    cr_assert_eq(heft_destroy_joint(world, h2), HEFT_OK);
    cr_assert(!heft_joint_is_valid(world, gear), "the gear outlived its hinge");
    cr_assert(heft_joint_is_valid(world, hinge));
    cr_assert(!joint_bodies_connected(world, a.index, c.index));
    g.joint_b = slider;
    g.type = HEFT_JOINT_RACK;
    heft_joint_id rack = scene_create(world, &g);
    cr_assert_eq(heft_destroy_body(world, a), HEFT_OK);
    cr_assert(!heft_joint_is_valid(world, hinge));
    cr_assert(!heft_joint_is_valid(world, rack), "the rack outlived its pinion's body");
    cr_assert(heft_joint_is_valid(world, slider));
}

Test(joint_defs, jointed_bodies_do_not_collide_unless_asked) {
    cr_assert(joint_bodies_connected(world, a.index, b.index));
    cr_assert(joint_bodies_connected(world, b.index, a.index));
    cr_assert(joint_bodies_connected(world, ground.index, b.index));
    cr_assert(!joint_bodies_connected(world, ground.index, a.index));
    cr_assert(joint_bodies_connected(world, -1, a.index), "the hinge joins a to the world frame");
    heft_joint_def d =
        scene_joint_def(world, HEFT_JOINT_ROPE, ground, a, heft_v3(0, 0, 0), heft_v3(0, 0, 1));
    d.local_anchor_b = heft_v3(0.0, 0.0, 0.0);
    d.collide_connected = 1;
    scene_create(world, &d);
    cr_assert(!joint_bodies_connected(world, ground.index, a.index),
              "collide_connected = 1 lets them collide");
    cr_assert_eq(heft_destroy_joint(world, ball), HEFT_OK);
    cr_assert(!joint_bodies_connected(world, a.index, b.index));
}

Test(joint_defs, a_joint_breaks_above_its_threshold_and_not_below) {
    for (int k = 0; k < 2; ++k) {
        heft_world *w = heft_world_create(NULL);
        heft_body_id bob = scene_body(w, heft_v3(0, 0, 1), 10.0, heft_mat3_zero());
        heft_joint_def d = scene_joint_def(w, HEFT_JOINT_BALL, HEFT_WORLD_FRAME, bob,
                                           heft_v3(0, 0, 1.5), heft_v3(0, 0, 1));
        d.break_force = k ? 120.0 : 80.0; /* the bob weighs 98.1 N */
        heft_joint_id j = scene_create(w, &d);
        for (int i = 0; i < 30; ++i) {
            heft_world_step(w, STEP);
        }
        if (k) {
            cr_assert(!heft_joint_is_broken(w, j));
            cr_assert_float_eq(heft_body_position(w, bob).z, 1.0, 1e-3);
        } else {
            cr_assert(heft_joint_is_broken(w, j));
            cr_assert_eq(heft_joint_row_count(w, j), 0);
            cr_assert_lt(heft_body_position(w, bob).z, 0.0, "a broken joint holds nothing");
            cr_assert(!joint_bodies_connected(w, -1, bob.index),
                      "broken joints let their bodies collide");
        }
        heft_world_destroy(w);
    }
}

Test(joint_defs, anchors_and_axes_given_in_world_frame_land_in_body_frames) {
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(1.0, 2.0, 3.0);
    bd.orientation = heft_quat_axis_angle(heft_v3(1, 2, 3), 0.9);
    heft_body_id c = heft_create_body(world, &bd);
    heft_joint_def d = heft_default_joint_def(HEFT_JOINT_UNIVERSAL);
    d.body_a = b;
    d.body_b = c;
    d.name = "cross";
    d.user_data = &before;
    heft_vec3 anchor = heft_v3(1.5, 2.0, 2.5), axis = heft_v3(0.0, 3.0, 4.0);
    cr_assert_eq(heft_joint_def_set_world_frame(world, &d, anchor, axis), HEFT_OK);
    heft_vec3 pa = heft_body_world_point(world, b, d.local_anchor_a),
              pc = heft_body_world_point(world, c, d.local_anchor_b);
    cr_assert_lt(heft_v3_length(heft_v3_sub(pa, anchor)), 1e-12);
    cr_assert_lt(heft_v3_length(heft_v3_sub(pc, anchor)), 1e-12);
    heft_vec3 ua = heft_quat_rotate(heft_body_orientation(world, b), d.local_axis_a);
    heft_vec3 uc = heft_quat_rotate(heft_body_orientation(world, c), d.local_axis_b);
    cr_assert_lt(heft_v3_length(heft_v3_sub(ua, heft_v3(0.0, 0.6, 0.8))), 1e-12);
    cr_assert_lt(fabs(heft_v3_dot(ua, uc)), 1e-12,
                 "a universal joint's second arm is perpendicular");
    heft_joint_id j = scene_create(world, &d);
    cr_assert_str_eq(heft_joint_name(world, j), "cross");
    cr_assert_eq(heft_joint_user_data(world, j), &before);
    cr_assert_eq(heft_joint_get_type(world, j), HEFT_JOINT_UNIVERSAL);
    cr_assert_lt(heft_joint_gap(world, j), 1e-12);
    /* angles start at zero when the joint is made */
    heft_joint_def h = scene_joint_def(world, HEFT_JOINT_SIX_DOF, b, c, anchor, axis);
    heft_joint_id six = scene_create(world, &h);
    for (int k = 0; k < 6; ++k) {
        cr_assert_lt(fabs(heft_joint_coordinate(world, six, (heft_joint_dof)k)), 1e-12);
    }
}
