/* Motors: boxed rows J v = target with |lambda| <= h F_max (design "The MLCP
 * of an island"), velocity and position modes, targets set every step. */
#include "joint_scene.h"

/* a 10 kg wheel of radius 0.3 m on a hinge to the world through its centre,
 * axis along world y (gravity exerts no torque about it) */
static heft_joint_id wheel_on_hinge(heft_world *w, heft_body_id *wheel, heft_joint_motor m) {
    heft_quat lying = heft_quat_axis_angle(heft_v3(1, 0, 0), -HEFT_PI / 2); /* body z to world y */
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0.0, 0.0, 1.0);
    bd.orientation = lying;
    bd.mass = 10.0;
    bd.inertia = heft_inertia_cylinder(10.0, 0.3, 0.05);
    *wheel = heft_create_body(w, &bd);
    heft_joint_def d = scene_joint_def(w, HEFT_JOINT_HINGE, HEFT_WORLD_FRAME, *wheel, bd.position,
                                       heft_v3(0, 1, 0));
    d.motor[HEFT_DOF_RX] = m;
    return scene_create(w, &d);
}

static heft_joint_motor velocity_motor(double speed, double max_torque) {
    heft_joint_motor m = {HEFT_MOTOR_VELOCITY, speed, 0.0, max_torque, 0.0, 0.0};
    return m;
}

Test(joint_motors, hinge_motor_reaches_its_speed_without_exceeding_its_torque) {
    heft_world *w = scene_world(NULL);
    heft_body_id wheel;
    heft_joint_id j = wheel_on_hinge(w, &wheel, velocity_motor(5.0, 20.0));
    double worst_excess = -1e300, first_torque = 0.0;
    for (int i = 0; i < 180; ++i) {
        /* a load: 8 N m against the motor */
        heft_body_apply_torque(w, wheel, heft_v3(0.0, -8.0, 0.0));
        cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
        double torque = heft_joint_motor_force(w, j, HEFT_DOF_RX);
        worst_excess = fmax(worst_excess, fabs(torque) - 20.0);
        if (i == 0) {
            first_torque = torque;
        }
    }
    double speed = heft_joint_coordinate_velocity(w, j, HEFT_DOF_RX);
    double torque = heft_joint_motor_force(w, j, HEFT_DOF_RX);
    cr_log_info(
        "hinge motor: speed %.9f rad/s (target 5), error %.2e; torque %.6f N m; first step %.6f; "
        "largest |torque| - limit %.3e",
        speed, fabs(speed - 5.0) / 5.0, torque, first_torque, worst_excess);
    cr_assert_lt(fabs(speed - 5.0), 0.01 * 5.0, "speed %g, target 5", speed);
    cr_assert_leq(worst_excess, 1e-9 * 20.0, "the motor exceeded its 20 N m by %g", worst_excess);
    cr_assert_float_eq(first_torque, 20.0, 1e-9, "accelerating, the motor gives all it has: %g",
                       first_torque);
    cr_assert_float_eq(torque, 8.0, 1e-3, "at speed it holds the 8 N m load: %g", torque);
    /* the readback as a world vector: the reaction torque on the wheel about
     * its axis is the motor's */
    heft_vec3 f, t;
    heft_joint_reaction(w, j, &f, &t);
    cr_assert_float_eq(t.y, torque, 1e-9, "reaction torque about y %g, motor %g", t.y, torque);
    cr_assert_float_eq(f.z, 98.1, 1e-6, "the hinge carries the wheel's weight: %g", f.z);
    heft_world_destroy(w);
}

Test(joint_motors, an_overloaded_hinge_motor_gives_its_limit_and_no_more) {
    heft_world *w = scene_world(NULL);
    heft_body_id wheel;
    heft_joint_id j = wheel_on_hinge(w, &wheel, velocity_motor(5.0, 20.0));
    for (int i = 0; i < 60; ++i) {
        heft_body_apply_torque(w, wheel, heft_v3(0.0, -30.0, 0.0));
        heft_world_step(w, STEP);
        cr_assert_float_eq(heft_joint_motor_force(w, j, HEFT_DOF_RX), 20.0, 1e-9);
    }
    /* net 10 N m the wrong way: the wheel turns backwards, I = m r^2 / 2 */
    double expected = -10.0 / (0.5 * 10.0 * 0.09) * 1.0;
    cr_assert_float_eq(heft_joint_coordinate_velocity(w, j, HEFT_DOF_RX), expected, 1e-6);
    heft_world_destroy(w);
}

Test(joint_motors, a_motor_with_zero_target_is_joint_friction) {
    heft_world *w = scene_world(NULL);
    heft_body_id wheel;
    heft_joint_id j = wheel_on_hinge(w, &wheel, velocity_motor(0.0, 2.0));
    heft_body_set_angular_velocity(w, wheel, heft_v3(0.0, 3.0, 0.0));
    for (int i = 0; i < 30; ++i) {
        heft_world_step(w, STEP);
    }
    /* decelerates at 2 N m / 0.45 kg m^2 */
    double expected = 3.0 - 30 * STEP * 2.0 / 0.45;
    cr_assert_float_eq(heft_joint_coordinate_velocity(w, j, HEFT_DOF_RX), expected, 1e-9);
    cr_assert_float_eq(heft_joint_motor_force(w, j, HEFT_DOF_RX), -2.0, 1e-9);
    heft_world_destroy(w);
}

Test(joint_motors, an_operator_changes_the_target_every_step) {
    heft_world *w = scene_world(NULL);
    heft_body_id wheel;
    heft_joint_id j = wheel_on_hinge(w, &wheel, velocity_motor(0.0, 1e4));
    double worst = 0.0;
    for (int i = 0; i < 240; ++i) {
        double target = 2.0 * sin(0.05 * i);
        cr_assert_eq(heft_joint_set_motor_velocity(w, j, HEFT_DOF_RX, target), HEFT_OK);
        heft_world_step(w, STEP);
        worst = fmax(worst, fabs(heft_joint_coordinate_velocity(w, j, HEFT_DOF_RX) - target));
    }
    cr_assert_lt(worst, 1e-6, "the wheel lags its target by %g rad/s", worst);
    heft_world_destroy(w);
}

Test(joint_motors, a_position_motor_turns_the_hinge_to_its_target) {
    heft_world *w = scene_world(NULL);
    heft_body_id wheel;
    heft_joint_motor m = {HEFT_MOTOR_POSITION, 0.0, 1.0, 50.0, 400.0, 40.0};
    heft_joint_id j = wheel_on_hinge(w, &wheel, m);
    double peak = 0.0;
    for (int i = 0; i < 240; ++i) {
        heft_world_step(w, STEP);
        peak = fmax(peak, fabs(heft_joint_motor_force(w, j, HEFT_DOF_RX)));
    }
    cr_assert_float_eq(heft_joint_coordinate(w, j, HEFT_DOF_RX), 1.0, 1e-4);
    cr_assert_leq(peak, 50.0 * (1.0 + 1e-12));
    /* a new target past a whole turn: angles count turns */
    heft_joint_set_motor_position(w, j, HEFT_DOF_RX, 1.0 + 2.0 * HEFT_PI);
    for (int i = 0; i < 600; ++i) {
        heft_world_step(w, STEP);
    }
    cr_assert_float_eq(heft_joint_coordinate(w, j, HEFT_DOF_RX), 1.0 + 2.0 * HEFT_PI, 1e-4);
    heft_world_destroy(w);
}

/* a 1,000 kg load on a vertical slider from the world (the forklift's mast) */
static heft_joint_id mast(heft_world *w, heft_body_id *load, double max_force) {
    *load = scene_body(w, heft_v3(0.0, 0.0, 0.5), 1000.0,
                       heft_inertia_box(1000.0, heft_v3(0.5, 0.5, 0.5)));
    heft_joint_def d = scene_joint_def(w, HEFT_JOINT_PRISMATIC, HEFT_WORLD_FRAME, *load,
                                       heft_v3(0, 0, 0.5), heft_v3(0, 0, 1));
    heft_joint_motor m = {HEFT_MOTOR_VELOCITY, 0.5, 0.0, max_force, 0.0, 0.0};
    d.motor[HEFT_DOF_X] = m;
    return scene_create(w, &d);
}

Test(joint_motors, a_prismatic_motor_lifts_a_tonne_at_its_set_speed) {
    heft_world *w = scene_world(NULL);
    heft_body_id load;
    heft_joint_id j = mast(w, &load, 2e4);
    double worst = 0.0;
    for (int i = 0; i < 120; ++i) {
        heft_world_step(w, STEP);
        if (i >= 10) { /* at 20 kN the tonne is up to speed in 3 steps */
            worst = fmax(worst, fabs(heft_body_linear_velocity(w, load).z - 0.5));
        }
    }
    double force = heft_joint_motor_force(w, j, HEFT_DOF_X);
    cr_log_info("prismatic motor: worst speed error %.3e m/s of 0.5; force %.6f N", worst, force);
    cr_assert_lt(worst, 0.005, "lift speed off by %g m/s", worst);
    cr_assert_float_eq(force, 1000.0 * 9.81, 1e-3, "the motor carries the load: %g N", force);
    /* 2 s at 0.5 m/s, less half the 3-step start */
    cr_assert_float_eq(heft_joint_coordinate(w, j, HEFT_DOF_X), 1.0, 0.5 * 3 * STEP);
    heft_world_destroy(w);
}

Test(joint_motors, a_weak_prismatic_motor_lets_the_tonne_down) {
    heft_world *w = scene_world(NULL);
    heft_body_id load;
    heft_joint_id j = mast(w, &load, 5000.0);
    for (int i = 0; i < 60; ++i) {
        heft_world_step(w, STEP);
        cr_assert_float_eq(heft_joint_motor_force(w, j, HEFT_DOF_X), 5000.0, 1e-6);
    }
    /* (5000 - 9810) N on 1000 kg */
    cr_assert_float_eq(heft_body_linear_velocity(w, load).z, (5000.0 / 1000.0 - 9.81) * 1.0, 1e-6);
    heft_world_destroy(w);
}

Test(joint_motors, a_cylindrical_joint_slides_and_turns_on_two_motors) {
    heft_world *w = scene_world(NULL);
    heft_body_id b = scene_body(w, heft_v3(0, 0, 1), 5.0, heft_inertia_cylinder(5.0, 0.1, 0.5));
    heft_joint_def d = scene_joint_def(w, HEFT_JOINT_CYLINDRICAL, HEFT_WORLD_FRAME, b,
                                       heft_v3(0, 0, 1), heft_v3(1, 0, 0));
    heft_joint_motor slide = {HEFT_MOTOR_VELOCITY, 0.3, 0.0, 1e3, 0.0, 0.0};
    heft_joint_motor turn = {HEFT_MOTOR_VELOCITY, -2.0, 0.0, 1e3, 0.0, 0.0};
    d.motor[HEFT_DOF_X] = slide;
    d.motor[HEFT_DOF_RX] = turn;
    heft_joint_id j = scene_create(w, &d);
    for (int i = 0; i < 60; ++i) {
        heft_world_step(w, STEP);
    }
    cr_assert_float_eq(heft_joint_coordinate_velocity(w, j, HEFT_DOF_X), 0.3, 1e-6);
    cr_assert_float_eq(heft_joint_coordinate_velocity(w, j, HEFT_DOF_RX), -2.0, 1e-6);
    cr_assert_float_eq(heft_joint_coordinate(w, j, HEFT_DOF_RX), -2.0, 2.0 * STEP + 1e-6);
    cr_assert_lt(heft_joint_gap(w, j), 1e-4);
    heft_world_destroy(w);
}

Test(joint_motors, a_six_dof_motor_drives_a_free_coordinate) {
    heft_world *w = scene_world(NULL);
    heft_body_id b = scene_body(w, heft_v3(0, 0, 1), 2.0, heft_mat3_zero());
    heft_joint_def d = scene_joint_def(w, HEFT_JOINT_SIX_DOF, HEFT_WORLD_FRAME, b, heft_v3(0, 0, 1),
                                       heft_v3(0, 0, 1));
    d.dof_mode[HEFT_DOF_RX] = HEFT_DOF_FREE;
    d.dof_mode[HEFT_DOF_Y] = HEFT_DOF_FREE;
    heft_joint_motor spin = {HEFT_MOTOR_VELOCITY, 1.5, 0.0, 100.0, 0.0, 0.0};
    heft_joint_motor place = {HEFT_MOTOR_POSITION, 0.0, 0.25, 100.0, 0.0, 0.0};
    d.motor[HEFT_DOF_RX] = spin;
    d.motor[HEFT_DOF_Y] = place;
    heft_joint_id j = scene_create(w, &d);
    for (int i = 0; i < 120; ++i) {
        heft_world_step(w, STEP);
    }
    cr_assert_float_eq(heft_joint_coordinate_velocity(w, j, HEFT_DOF_RX), 1.5, 1e-6);
    cr_assert_float_eq(heft_joint_coordinate(w, j, HEFT_DOF_Y), 0.25, 1e-4);
    cr_assert_lt(fabs(heft_joint_coordinate(w, j, HEFT_DOF_Z)), 1e-4, "Z is locked");
    heft_world_destroy(w);
}
