/* Couplings and transmissions: gears, racks, the universal joint; and the
 * six-DOF joint against the joints it generalises. */
#include "joint_scene.h"

/* a wheel of mass m, radius r on a hinge to the world at p about axis */
static heft_joint_id wheel(heft_world *w, heft_body_id *body, heft_vec3 p, heft_vec3 axis, double m,
                           double r) {
    heft_body_def bd = heft_default_body_def();
    bd.position = p;
    /* the cylinder's z along the axis */
    heft_vec3 z = heft_v3(0, 0, 1), u = heft_v3_normalize(axis);
    heft_vec3 c = heft_v3_cross(z, u);
    double s = heft_v3_length(c), co = heft_v3_dot(z, u);
    bd.orientation = s > 1e-12 ? heft_quat_axis_angle(c, atan2(s, co)) : heft_quat_identity();
    bd.mass = m;
    bd.inertia = heft_inertia_cylinder(m, r, 0.05);
    *body = heft_create_body(w, &bd);
    heft_joint_def d = scene_joint_def(w, HEFT_JOINT_HINGE, HEFT_WORLD_FRAME, *body, p, axis);
    return scene_create(w, &d);
}

static heft_joint_motor velocity_motor(double speed, double max) {
    heft_joint_motor m = {HEFT_MOTOR_VELOCITY, speed, 0.0, max, 0.0, 0.0};
    return m;
}

Test(joint_couplings, a_gear_keeps_its_ratio_in_velocity) {
    heft_world *w = scene_world(NULL);
    heft_body_id g1, g2;
    heft_joint_id h1 = wheel(w, &g1, heft_v3(0, 0, 1), heft_v3(0, 1, 0), 5.0, 0.2);
    heft_joint_id h2 = wheel(w, &g2, heft_v3(0.6, 0, 1), heft_v3(0, 1, 0), 40.0, 0.4);
    heft_joint_motor m = velocity_motor(3.0, 200.0);
    cr_assert_eq(heft_joint_set_motor(w, h1, HEFT_DOF_RX, &m), HEFT_OK);
    heft_joint_def gd = heft_default_joint_def(HEFT_JOINT_GEAR);
    gd.joint_a = h1;
    gd.joint_b = h2;
    gd.ratio = -0.5; /* an external mesh, half the speed */
    heft_joint_id gear = scene_create(w, &gd);
    double worst = 0.0;
    for (int i = 0; i < 600; ++i) {
        /* a varying load on the output */
        heft_body_apply_torque(w, g2, heft_v3(0.0, 30.0 * sin(0.1 * i), 0.0));
        cr_assert_eq(heft_world_step(w, STEP), HEFT_OK);
        double w1 = heft_joint_coordinate_velocity(w, h1, HEFT_DOF_RX);
        double w2 = heft_joint_coordinate_velocity(w, h2, HEFT_DOF_RX);
        worst = fmax(worst, fabs(w2 - gd.ratio * w1) / fabs(gd.ratio * w1));
    }
    double a1 = heft_joint_coordinate(w, h1, HEFT_DOF_RX),
           a2 = heft_joint_coordinate(w, h2, HEFT_DOF_RX);
    cr_log_info(
        "gear: worst relative ratio error %.3e over 10 s; angles %.6f and %.6f rad (%.3f turns)",
        worst, a1, a2, a1 / (2 * HEFT_PI));
    cr_assert_lt(worst, 1e-6, "ratio error %g", worst);
    cr_assert_gt(a1, 28.0, "the input should have made several turns (%g rad)", a1);
    /* angles count turns: the output made half as many, the other way (the
     * phase error is the integrator's, not fed back) */
    cr_assert_float_eq(a2, -0.5 * a1, 0.05, "angles %g %g", a1, a2);
    cr_assert(heft_joint_is_valid(w, gear));
    heft_world_destroy(w);
}

Test(joint_couplings, a_gear_on_a_turning_carrier_keeps_the_relative_ratio_closely) {
    /* both gears hinged to a gearbox that itself turns about the same axis on a
     * motorised hinge: the carrier's rate enters the gear row explicitly */
    heft_world *w = scene_world("bpp");
    heft_body_id box = scene_body(w, heft_v3(0.3, 0, 1), 50.0, heft_mat3_zero());
    heft_joint_def hb = scene_joint_def(w, HEFT_JOINT_HINGE, HEFT_WORLD_FRAME, box,
                                        heft_v3(0.3, 0, 1), heft_v3(0, 1, 0));
    hb.motor[HEFT_DOF_RX] = velocity_motor(0.5, 1e4);
    heft_joint_id hbox = scene_create(w, &hb);
    heft_body_id g1 = scene_body(w, heft_v3(0, 0, 1), 2.0, heft_mat3_zero());
    heft_body_id g2 = scene_body(w, heft_v3(0.6, 0, 1), 4.0, heft_mat3_zero());
    heft_joint_def d1 =
        scene_joint_def(w, HEFT_JOINT_HINGE, box, g1, heft_v3(0, 0, 1), heft_v3(0, 1, 0));
    d1.motor[HEFT_DOF_RX] = velocity_motor(2.0, 1e3);
    heft_joint_def d2 =
        scene_joint_def(w, HEFT_JOINT_HINGE, box, g2, heft_v3(0.6, 0, 1), heft_v3(0, 1, 0));
    heft_joint_id h1 = scene_create(w, &d1), h2 = scene_create(w, &d2);
    heft_joint_def gd = heft_default_joint_def(HEFT_JOINT_GEAR);
    gd.joint_a = h1;
    gd.joint_b = h2;
    gd.ratio = 3.0;
    scene_create(w, &gd);
    double worst = 0.0;
    for (int i = 0; i < 300; ++i) {
        heft_joint_set_motor_velocity(w, hbox, HEFT_DOF_RX, 0.5 * sin(0.05 * i));
        heft_world_step(w, STEP);
        if (i > 0) {
            double w1 = heft_joint_coordinate_velocity(w, h1, HEFT_DOF_RX);
            double w2 = heft_joint_coordinate_velocity(w, h2, HEFT_DOF_RX);
            worst = fmax(worst, fabs(w2 - 3.0 * w1) / fabs(3.0 * w1));
        }
    }
    cr_log_info("gear on a turning carrier: worst relative ratio error %.3e", worst);
    /* the carrier's speed changes by up to 0.025 rad/s per step, which the
     * explicit carrier term sees one step late */
    cr_assert_lt(worst, 2e-2, "ratio error %g", worst);
    heft_world_destroy(w);
}

Test(joint_couplings, a_rack_moves_ratio_metres_per_radian_and_lifts_its_load) {
    heft_world *w = scene_world(NULL);
    heft_body_id pinion, rack;
    heft_joint_id hp = wheel(w, &pinion, heft_v3(0, 0, 1), heft_v3(0, 1, 0), 3.0, 0.1);
    rack =
        scene_body(w, heft_v3(0.1, 0, 1), 100.0, heft_inertia_box(100.0, heft_v3(0.05, 0.05, 1.0)));
    heft_joint_def sd = scene_joint_def(w, HEFT_JOINT_PRISMATIC, HEFT_WORLD_FRAME, rack,
                                        heft_v3(0.1, 0, 1), heft_v3(0, 0, 1));
    heft_joint_id slider = scene_create(w, &sd);
    heft_joint_motor m = velocity_motor(-2.0, 500.0);
    heft_joint_set_motor(w, hp, HEFT_DOF_RX, &m);
    heft_joint_def rd = heft_default_joint_def(HEFT_JOINT_RACK);
    rd.joint_a = hp;
    rd.joint_b = slider;
    rd.ratio = -0.1; /* turning about +y the other way lifts the rack */
    scene_create(w, &rd);
    double worst = 0.0;
    for (int i = 0; i < 120; ++i) {
        heft_world_step(w, STEP);
        double wp = heft_joint_coordinate_velocity(w, hp, HEFT_DOF_RX);
        double vr = heft_joint_coordinate_velocity(w, slider, HEFT_DOF_X);
        worst = fmax(worst, fabs(vr - rd.ratio * wp));
    }
    cr_assert_lt(worst, 1e-7, "rack off its pinion by %g m/s", worst);
    cr_assert_float_eq(heft_body_linear_velocity(w, rack).z, 0.2, 1e-6);
    /* lifting 100 kg at 0.1 m per radian takes 98.1 N m */
    cr_assert_float_eq(heft_joint_motor_force(w, hp, HEFT_DOF_RX), -98.1, 1e-3);
    heft_world_destroy(w);
}

/* a Cardan joint between two shafts on hinges, bent by beta: tan th2 = tan th1 cos beta */
Test(joint_couplings, a_universal_joint_transmits_rotation_as_cardan_says) {
    const double beta = 30.0 * HEFT_PI / 180.0;
    heft_vec3 d = heft_v3(cos(beta), sin(beta), 0.0);
    heft_world *w = scene_world(NULL);
    heft_body_id a, b;
    heft_joint_id ha = wheel(w, &a, heft_v3(-0.5, 0, 0), heft_v3(1, 0, 0), 2.0, 0.05);
    heft_joint_id hb = wheel(w, &b, heft_v3_scale(d, 0.5), d, 2.0, 0.05);
    heft_joint_motor m = velocity_motor(2.0, 1e3);
    heft_joint_set_motor(w, ha, HEFT_DOF_RX, &m);
    heft_joint_def u = heft_default_joint_def(HEFT_JOINT_UNIVERSAL);
    u.body_a = a;
    u.body_b = b;
    cr_assert_eq(heft_joint_def_set_world_axes(w, &u, heft_v3(0, 0, 0), heft_v3(0, 0, 1),
                                               heft_v3_cross(heft_v3(0, 0, 1), d)),
                 HEFT_OK);
    heft_joint_id uj = scene_create(w, &u);
    double worst = 0.0, ratio_lo = 1e9, ratio_hi = 0.0;
    for (int i = 0; i < 400; ++i) {
        heft_world_step(w, STEP);
        double t1 = heft_joint_coordinate(w, ha, HEFT_DOF_RX),
               t2 = heft_joint_coordinate(w, hb, HEFT_DOF_RX);
        double raw = atan2(sin(t1) * cos(beta), cos(t1));
        double expected = raw + 2.0 * HEFT_PI * round((t1 - raw) / (2.0 * HEFT_PI));
        worst = fmax(worst, fabs(t2 - expected));
        double r = heft_joint_coordinate_velocity(w, hb, HEFT_DOF_RX) /
                   heft_joint_coordinate_velocity(w, ha, HEFT_DOF_RX);
        ratio_lo = fmin(ratio_lo, r);
        ratio_hi = fmax(ratio_hi, r);
    }
    double t1 = heft_joint_coordinate(w, ha, HEFT_DOF_RX);
    cr_log_info(
        "universal: %.3f input turns, worst Cardan angle error %.3e rad; speed ratio %.4f .. %.4f "
        "(cos b = %.4f, 1/cos b = %.4f); gap %.2e m",
        t1 / (2 * HEFT_PI), worst, ratio_lo, ratio_hi, cos(beta), 1 / cos(beta),
        heft_joint_gap(w, uj));
    cr_assert_gt(t1, 2.0 * 2.0 * HEFT_PI, "two turns of the input");
    cr_assert_lt(worst, HEFT_PI / 180.0, "output off the Cardan law by %g rad", worst);
    cr_assert_float_eq(ratio_lo, cos(beta), 0.01);
    cr_assert_float_eq(ratio_hi, 1.0 / cos(beta), 0.01);
    heft_world_destroy(w);
}

/* Two bodies spinning about a ball joint without gravity (a tumbling,
 * gyroscopic motion), the second welded to the first by a fixed joint or by an
 * all-locked six-DOF joint: the same motion. (Under gravity the same pair is
 * a sensitive rigid pendulum: the two welds' different drift corrections,
 * 1e-10 m at the second step, grow to 6e-5 m in 2 s.) */
static void welded_pendulum(const char *solver, heft_joint_type weld, heft_vec3 *p, heft_quat *q) {
    heft_world *w = scene_world(solver);
    heft_world_set_gravity(w, heft_v3(0.0, 0.0, 0.0));
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0.8, 0.0, 0.0);
    bd.mass = 3.0;
    bd.inertia = heft_inertia_box(3.0, heft_v3(0.4, 0.05, 0.05));
    bd.angular_velocity = heft_v3(0.3, 0.0, 0.7);
    heft_body_id a = heft_create_body(w, &bd);
    bd.position = heft_v3(1.2, 0.3, -0.2);
    bd.orientation = heft_quat_axis_angle(heft_v3(1, 1, 0), 0.6);
    bd.mass = 1.5;
    bd.inertia = heft_inertia_box(1.5, heft_v3(0.1, 0.3, 0.05));
    bd.angular_velocity = heft_v3(0.0, 0.0, 0.0);
    heft_body_id b = heft_create_body(w, &bd);
    heft_joint_def pivot = scene_joint_def(w, HEFT_JOINT_BALL, HEFT_WORLD_FRAME, a,
                                           heft_v3(0.2, 0, 0), heft_v3(0, 0, 1));
    scene_create(w, &pivot);
    heft_joint_def wd =
        scene_joint_def(w, weld, a, b, heft_v3(1.1, 0.1, -0.1), heft_v3(0.2, 1.0, 0.3));
    scene_create(w, &wd);
    for (int i = 0; i < 120; ++i) {
        heft_world_step(w, STEP);
    }
    *p = heft_body_position(w, b);
    *q = heft_body_orientation(w, b);
    heft_world_destroy(w);
}

static void compare_welds(const char *solver, double tolerance) {
    heft_vec3 p1, p2;
    heft_quat q1, q2;
    welded_pendulum(solver, HEFT_JOINT_FIXED, &p1, &q1);
    welded_pendulum(solver, HEFT_JOINT_SIX_DOF, &p2, &q2);
    double dp = heft_v3_length(heft_v3_sub(p1, p2));
    double dq = heft_v3_length(heft_quat_small_angle(heft_quat_mul(q1, heft_quat_conj(q2))));
    cr_log_info("%s: fixed vs six-DOF all locked after 2 s: %.3e m, %.3e rad", solver, dp, dq);
    cr_assert_lt(dp, tolerance, "%s: positions differ by %g m", solver, dp);
    cr_assert_lt(dq, tolerance, "%s: orientations differ by %g rad", solver, dq);
    cr_assert_gt(heft_v3_length(heft_v3_sub(p1, heft_v3(1.2, 0.3, -0.2))), 0.05,
                 "the pair should have turned");
}

Test(joint_couplings, six_dof_all_locked_moves_as_a_fixed_joint) {
    compare_welds("bpp", 1e-7);
    compare_welds("pgs", 1e-6);
}

Test(joint_couplings, a_rod_keeps_its_length_and_a_soft_one_is_a_spring) {
    heft_world *w = scene_world(NULL);
    heft_body_id bob = scene_body(w, heft_v3(1.0, 0.0, 0.0), 1.0, heft_mat3_zero());
    heft_joint_def d = heft_default_joint_def(HEFT_JOINT_DISTANCE);
    d.body_b = bob; /* anchors: the world origin and the bob's centre, 1 m apart */
    heft_joint_id rod = scene_create(w, &d);
    double worst = 0.0;
    for (int i = 0; i < 300; ++i) {
        heft_world_step(w, STEP);
        worst = fmax(worst, heft_joint_gap(w, rod));
    }
    /* a velocity-level constraint drifts by v^2 h^2 / (2 L) per step, which
     * Baumgarte (gamma = 0.2) pulls back: falling from horizontal (v^2 = 2 g L)
     * the gap settles near g h^2 / gamma = 13.6 mm */
    cr_assert_lt(worst, 1.1 * 9.81 * STEP * STEP / 0.2, "the rod's length changed by %g m", worst);
    heft_world_destroy(w);

    w = scene_world(NULL);
    bob = scene_body(w, heft_v3(0.0, 0.0, -1.0), 10.0, heft_mat3_zero());
    d.body_b = bob;
    d.stiffness = 2e4;
    d.damping = 2e3;
    heft_joint_id spring = scene_create(w, &d);
    for (int i = 0; i < 600; ++i) {
        heft_world_step(w, STEP);
    }
    cr_assert_float_eq(heft_joint_coordinate(w, spring, HEFT_DOF_X), 1.0 + 98.1 / 2e4, 1e-7);
    heft_world_destroy(w);
}
