/* Joints: each joint's Jacobian is the time derivative of its constraint
 * error, reactions read back as forces, and the joints hold. */
#include <criterion/criterion.h>

#include "world.h"

static double urand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xFFFF) / 65535.0 * 2.0 - 1.0;
}

static heft_vec3 rvec(unsigned *s) {
    return heft_v3(urand(s), urand(s), urand(s));
}

/* phi, rows and tags of the joint at the bodies' current poses */
static int joint_phis(heft_world *w, heft_joint_id id, double *phi, row *rows,
                      joint_row_tag *tags) {
    joint *j = world_joint(w, id);
    row_context ctx = {1.0 / 60.0, 1e-10, 0.2};
    cr_assert_leq(joint_row_count(j), HEFT_JOINT_MAX_ROWS);
    int n = joint_fill_tagged_rows(j, w->bodies, &ctx, rows, tags);
    cr_assert_leq(n, joint_row_count(j), "a joint wrote more rows than it said it could");
    for (int i = 0; i < n; ++i) {
        phi[i] = rows[i].phi;
    }
    return n;
}

static void move_bodies(heft_world *w, double dt) {
    for (int i = 0; i < w->body_high; ++i) {
        body *b = &w->bodies[i];
        b->position = heft_v3_madd(b->position, dt, b->linear_velocity);
        /* exact rotation by omega dt, so the difference quotient is clean */
        double angle = heft_v3_length(b->angular_velocity) * fabs(dt);
        if (angle > 0.0) {
            heft_vec3 axis = heft_v3_scale(b->angular_velocity, dt < 0 ? -1.0 : 1.0);
            b->orientation = heft_quat_mul(heft_quat_axis_angle(axis, angle), b->orientation);
        }
    }
}

static heft_quat rquat(unsigned *s) {
    return heft_quat_normalize(heft_q(urand(s), urand(s), urand(s), urand(s) + 1.5));
}

static heft_body_id random_body(heft_world *w, heft_vec3 at, unsigned *seed) {
    heft_body_def bd = heft_default_body_def();
    bd.position = at;
    bd.orientation = rquat(seed);
    bd.linear_velocity = rvec(seed);
    bd.angular_velocity = rvec(seed);
    return heft_create_body(w, &bd);
}

/* A joint case: the type, how the def is completed, and what is set on the
 * joint once made (limits around the coordinates the joint has then, so that
 * every limit row is present). */
typedef struct jacobian_case {
    heft_joint_type type;
    int to_world;
    void (*configure)(heft_joint_def *def);
    void (*after)(heft_world *w, heft_joint_id id);
} jacobian_case;

/* limits 5 mm (5 mrad) either side of where the coordinate is */
static void limit_around(heft_world *w, heft_joint_id id, heft_joint_dof dof) {
    double c = heft_joint_coordinate(w, id, dof);
    heft_joint_limit l = {1, c - 0.005, c + 0.005, 0.0, 0.0};
    cr_assert_eq(heft_joint_set_limit(w, id, dof, &l), HEFT_OK, "%s", heft_last_error());
}

static heft_joint_motor motor(heft_motor_mode mode) {
    heft_joint_motor m = {mode, 0.7, 0.3, 50.0, 100.0, 10.0};
    return m;
}

/* Two random bodies, the joint, then body b moved to a random pose away from
 * the joint's manifold, so phi and its derivative are generic. For gears and
 * racks, four bodies and the two coupled joints on dynamic carriers. */
static void check_case(const jacobian_case *jc, int trials) {
    unsigned seed = 12345u + (unsigned)jc->type * 7u + (unsigned)jc->to_world;
    for (int trial = 0; trial < trials; ++trial) {
        heft_world *w = heft_world_create(NULL);
        heft_vec3 base = rvec(&seed);
        heft_body_id a = random_body(w, base, &seed);
        heft_body_id b = random_body(w, heft_v3_add(base, heft_v3(0.3, -0.2, 0.5)), &seed);
        heft_joint_def jd = heft_default_joint_def(jc->type);
        heft_joint_id id;
        if (jc->type == HEFT_JOINT_GEAR || jc->type == HEFT_JOINT_RACK) {
            /* hinge a (carrier a) - b; hinge or slider c (carrier d) - e; the gear on b and e */
            heft_body_id c = random_body(w, heft_v3_add(base, heft_v3(-0.4, 0.1, 0.2)), &seed);
            heft_body_id d = random_body(w, heft_v3_add(base, heft_v3(0.2, 0.6, -0.3)), &seed);
            heft_joint_def h1 = heft_default_joint_def(HEFT_JOINT_HINGE);
            h1.body_a = jc->to_world ? HEFT_WORLD_FRAME : a;
            h1.body_b = b;
            cr_assert_eq(heft_joint_def_set_world_frame(w, &h1, rvec(&seed), rvec(&seed)), HEFT_OK);
            heft_joint_def h2 = heft_default_joint_def(
                jc->type == HEFT_JOINT_GEAR ? HEFT_JOINT_HINGE : HEFT_JOINT_PRISMATIC);
            h2.body_a = d;
            h2.body_b = c;
            cr_assert_eq(heft_joint_def_set_world_frame(w, &h2, rvec(&seed), rvec(&seed)), HEFT_OK);
            jd.joint_a = heft_create_joint(w, &h1);
            jd.joint_b = heft_create_joint(w, &h2);
            jd.ratio = 1.7;
        } else {
            jd.body_a = jc->to_world ? HEFT_WORLD_FRAME : a;
            jd.body_b = b;
            cr_assert_eq(heft_joint_def_set_world_frame(w, &jd, rvec(&seed), rvec(&seed)), HEFT_OK);
            /* a slightly violated joint, so phi is not at a stationary point */
            jd.local_anchor_b = heft_v3_add(jd.local_anchor_b, heft_v3(0.01, 0.02, -0.01));
            jd.local_axis_b = heft_v3_add(jd.local_axis_b, heft_v3(0.05, 0.0, 0.03));
        }
        if (jc->configure) {
            jc->configure(&jd);
        }
        id = heft_create_joint(w, &jd);
        cr_assert(heft_joint_is_valid(w, id), "%s", heft_last_error());
        /* move b (and every body) off the manifold: up to about a radian and 0.2 m */
        for (int i = 0; i < w->body_high; ++i) {
            body *x = &w->bodies[i];
            x->position = heft_v3_madd(x->position, 0.2, rvec(&seed));
            x->orientation = heft_quat_mul(heft_quat_axis_angle(rvec(&seed), 0.8 * urand(&seed)),
                                           x->orientation);
            /* the coupling rows read the carriers' free velocities */
            x->free_linear_velocity = x->linear_velocity;
            x->free_angular_velocity = x->angular_velocity;
        }
        if (jc->after) {
            jc->after(w, id);
        }
        double phi_p[HEFT_JOINT_MAX_ROWS], phi_m[HEFT_JOINT_MAX_ROWS];
        row rows[HEFT_JOINT_MAX_ROWS], scratch[HEFT_JOINT_MAX_ROWS];
        joint_row_tag tags[HEFT_JOINT_MAX_ROWS], tags2[HEFT_JOINT_MAX_ROWS];
        int n = joint_phis(w, id, phi_p, rows, tags);
        cr_assert_eq(n, joint_row_count(world_joint(w, id)),
                     "type %d: every row should be present (%d)", jc->type, n);
        const double dt = 1e-6;
        move_bodies(w, dt);
        cr_assert_eq(joint_phis(w, id, phi_p, scratch, tags2), n);
        move_bodies(w, -2.0 * dt);
        cr_assert_eq(joint_phis(w, id, phi_m, scratch, tags2), n);
        move_bodies(w, dt);
        const joint *j = world_joint(w, id);
        for (int i = 0; i < n; ++i) {
            const body *ba = joint_end_body(w->bodies, j->body_a), *bb = &w->bodies[j->body_b];
            double va[6], vb[6];
            row_put6(va, ba->linear_velocity, ba->angular_velocity);
            row_put6(vb, bb->linear_velocity, bb->angular_velocity);
            double jv = 0.0;
            for (int k = 0; k < 6; ++k) {
                jv += rows[i].ja[k] * va[k] + rows[i].jb[k] * vb[k];
            }
            /* the coupling row carries the carriers' part of d phi/dt in its
             * target; a motor's target is a wish, not part of phi */
            if (tags[i].role != HEFT_JOINT_ROW_MOTOR) {
                jv -= rows[i].target;
            }
            double fd = (phi_p[i] - phi_m[i]) / (2.0 * dt);
            cr_assert(fabs(jv - fd) < 1e-6 * (1.0 + fabs(fd)),
                      "joint type %d row %d (role %d, dof %d): J v = %.12g, d phi/dt = %.12g",
                      jc->type, i, tags[i].role, tags[i].dof, jv, fd);
        }
        heft_world_destroy(w);
    }
}

static void check_jacobian(heft_joint_type type, int to_world) {
    jacobian_case jc = {type, to_world, NULL, NULL};
    check_case(&jc, 20);
}

Test(joints, ball_joint_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_BALL, 0);
}
Test(joints, ball_joint_to_world_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_BALL, 1);
}
Test(joints, hinge_joint_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_HINGE, 0);
}
Test(joints, fixed_joint_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_FIXED, 0);
}
Test(joints, fixed_joint_to_world_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_FIXED, 1);
}
Test(joints, prismatic_joint_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_PRISMATIC, 0);
}
Test(joints, cylindrical_joint_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_CYLINDRICAL, 0);
}
Test(joints, universal_joint_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_UNIVERSAL, 0);
}
Test(joints, distance_joint_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_DISTANCE, 0);
}
Test(joints, six_dof_all_locked_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_SIX_DOF, 0);
}
Test(joints, gear_row_is_the_derivative_of_its_error_with_moving_carriers) {
    check_jacobian(HEFT_JOINT_GEAR, 0);
}
Test(joints, gear_row_is_the_derivative_of_its_error_on_the_world) {
    check_jacobian(HEFT_JOINT_GEAR, 1);
}
Test(joints, rack_row_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_RACK, 0);
}

/* limit and motor rows */

static void ball_limits(heft_world *w, heft_joint_id id) {
    limit_around(w, id, HEFT_DOF_RX);
    heft_joint_limit cone = {1, 0.0, heft_joint_coordinate(w, id, HEFT_DOF_SWING) + 0.005, 0.0,
                             0.0};
    cr_assert_eq(heft_joint_set_limit(w, id, HEFT_DOF_SWING, &cone), HEFT_OK, "%s",
                 heft_last_error());
}
Test(joints, ball_swing_and_twist_limit_rows_are_derivatives_of_their_errors) {
    jacobian_case jc = {HEFT_JOINT_BALL, 0, NULL, ball_limits};
    check_case(&jc, 20);
}

static void velocity_motor_rx(heft_joint_def *d) {
    d->motor[HEFT_DOF_RX] = motor(HEFT_MOTOR_VELOCITY);
}
static void position_motor_rx(heft_joint_def *d) {
    d->motor[HEFT_DOF_RX] = motor(HEFT_MOTOR_POSITION);
}
static void limit_rx(heft_world *w, heft_joint_id id) {
    limit_around(w, id, HEFT_DOF_RX);
}
Test(joints, hinge_limit_and_velocity_motor_rows_are_derivatives_of_their_errors) {
    jacobian_case jc = {HEFT_JOINT_HINGE, 0, velocity_motor_rx, limit_rx};
    check_case(&jc, 20);
}
Test(joints, hinge_to_world_position_motor_row_is_the_derivative_of_its_error) {
    jacobian_case jc = {HEFT_JOINT_HINGE, 1, position_motor_rx, limit_rx};
    check_case(&jc, 20);
}

static void motor_x(heft_joint_def *d) {
    d->motor[HEFT_DOF_X] = motor(HEFT_MOTOR_POSITION);
}
static void limit_x(heft_world *w, heft_joint_id id) {
    limit_around(w, id, HEFT_DOF_X);
}
Test(joints, prismatic_limit_and_motor_rows_are_derivatives_of_their_errors) {
    jacobian_case jc = {HEFT_JOINT_PRISMATIC, 0, motor_x, limit_x};
    check_case(&jc, 20);
}

static void motors_x_rx(heft_joint_def *d) {
    d->motor[HEFT_DOF_X] = motor(HEFT_MOTOR_VELOCITY);
    d->motor[HEFT_DOF_RX] = motor(HEFT_MOTOR_POSITION);
}
static void limits_x_rx(heft_world *w, heft_joint_id id) {
    limit_around(w, id, HEFT_DOF_X);
    limit_around(w, id, HEFT_DOF_RX);
}
Test(joints, cylindrical_limit_and_motor_rows_are_derivatives_of_their_errors) {
    jacobian_case jc = {HEFT_JOINT_CYLINDRICAL, 0, motors_x_rx, limits_x_rx};
    check_case(&jc, 20);
}

static void rope_taut(heft_world *w, heft_joint_id id) {
    /* shorter than the anchors' distance now: the rope row is there */
    double d = heft_joint_coordinate(w, id, HEFT_DOF_X);
    cr_assert_eq(heft_joint_set_length(w, id, d - 0.003), HEFT_OK);
}
Test(joints, rope_row_is_the_derivative_of_its_error) {
    jacobian_case jc = {HEFT_JOINT_ROPE, 0, NULL, rope_taut};
    check_case(&jc, 20);
}

/* six-DOF: every mode and a motor on each free or limited coordinate */
static void six_dof_mixed(heft_joint_def *d) {
    static const heft_dof_mode modes[6] = {HEFT_DOF_LIMITED, HEFT_DOF_LOCKED, HEFT_DOF_FREE,
                                           HEFT_DOF_LIMITED, HEFT_DOF_LOCKED, HEFT_DOF_FREE};
    for (int k = 0; k < 6; ++k) {
        d->dof_mode[k] = modes[k];
        d->limit[k].lower = -1.0;
        d->limit[k].upper = 1.0;
    }
    d->motor[HEFT_DOF_X] = motor(HEFT_MOTOR_VELOCITY);
    d->motor[HEFT_DOF_Z] = motor(HEFT_MOTOR_POSITION);
    d->motor[HEFT_DOF_RX] = motor(HEFT_MOTOR_POSITION);
    d->motor[HEFT_DOF_RZ] = motor(HEFT_MOTOR_VELOCITY);
}
static void six_dof_limits(heft_world *w, heft_joint_id id) {
    limit_around(w, id, HEFT_DOF_X);
    limit_around(w, id, HEFT_DOF_RX);
}
Test(joints, six_dof_lock_limit_and_motor_rows_are_derivatives_of_their_errors) {
    jacobian_case jc = {HEFT_JOINT_SIX_DOF, 0, six_dof_mixed, six_dof_limits};
    check_case(&jc, 20);
}
static void six_dof_angles_free(heft_joint_def *d) {
    for (int k = 3; k < 6; ++k) {
        d->dof_mode[k] = HEFT_DOF_LIMITED;
    }
}
static void six_dof_angle_limits(heft_world *w, heft_joint_id id) {
    limit_around(w, id, HEFT_DOF_RX);
    limit_around(w, id, HEFT_DOF_RY);
    limit_around(w, id, HEFT_DOF_RZ);
}
Test(joints, six_dof_angle_limit_rows_are_derivatives_of_their_errors) {
    jacobian_case jc = {HEFT_JOINT_SIX_DOF, 1, six_dof_angles_free, six_dof_angle_limits};
    check_case(&jc, 20);
}

Test(joints, reaction_of_a_hanging_mass_is_its_weight) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.mass = 10.0;
    bd.position = heft_v3(0.0, 0.0, 1.0);
    heft_body_id b = heft_create_body(w, &bd);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_b = b;
    heft_joint_def_set_world_frame(w, &jd, heft_v3(0.0, 0.0, 2.0), heft_v3(0, 0, 1));
    heft_joint_id j = heft_create_joint(w, &jd);
    for (int i = 0; i < 60; ++i) {
        heft_world_step(w, 1.0 / 60.0);
    }
    heft_vec3 f, t;
    cr_assert_eq(heft_joint_reaction(w, j, &f, &t), HEFT_OK);
    cr_assert_float_eq(f.z, 98.1, 1e-6, "reaction %g %g %g", f.x, f.y, f.z);
    cr_assert_float_eq(f.x, 0.0, 1e-9);
    cr_assert_float_eq(heft_v3_length(t), 0.0, 1e-6, "a ball joint carries no torque");
    cr_assert_eq(heft_joint_row_count(w, j), 3);
    cr_assert_float_eq(heft_joint_row_impulse(w, j, 2), 98.1 / 60.0, 1e-8);
    heft_world_destroy(w);
}

Test(joints, hinge_keeps_its_axis_while_spinning_under_gravity) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.mass = 5.0;
    bd.inertia = heft_inertia_box(5.0, heft_v3(0.5, 0.1, 0.1));
    bd.position = heft_v3(0.5, 0.0, 1.0);
    bd.angular_velocity = heft_v3(1.0, 3.0, 0.5); /* off-axis spin the hinge must remove */
    heft_body_id b = heft_create_body(w, &bd);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_HINGE);
    jd.body_b = b;
    heft_joint_def_set_world_frame(w, &jd, heft_v3(0.0, 0.0, 1.0), heft_v3(0, 1, 0));
    heft_joint_id j = heft_create_joint(w, &jd);
    double worst = 0.0;
    for (int i = 0; i < 300; ++i) {
        heft_world_step(w, 1.0 / 60.0);
        heft_vec3 axis = heft_quat_rotate(heft_body_orientation(w, b), heft_v3(0, 1, 0));
        worst = fmax(worst, acos(fmin(1.0, fabs(axis.y))));
        /* velocity-level constraints drift outward by about r (w h)^2 / 2 per
         * step, which Baumgarte (gamma = 0.2) pulls back: at up to 6 rad/s on
         * a 0.5 m arm that bounds the gap near 1.1e-2 m */
        cr_assert_lt(heft_joint_gap(w, j), 1.5e-2);
    }
    heft_vec3 omega = heft_body_angular_velocity(w, b);
    cr_assert_lt(fabs(omega.x) + fabs(omega.z), 1e-3, "off-axis spin left: %g %g", omega.x,
                 omega.z);
    cr_assert_lt(worst, 0.05, "axis tilted by %g rad", worst);
    heft_world_destroy(w);
}

Test(joints, fixed_joint_holds_a_cantilever) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.mass = 2.0;
    bd.inertia = heft_inertia_box(2.0, heft_v3(0.5, 0.05, 0.05));
    bd.position = heft_v3(0.5, 0.0, 1.0);
    heft_body_id b = heft_create_body(w, &bd);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_FIXED);
    jd.body_b = b;
    heft_joint_def_set_world_frame(w, &jd, heft_v3(0.0, 0.0, 1.0), heft_v3(0, 0, 1));
    heft_joint_id j = heft_create_joint(w, &jd);
    for (int i = 0; i < 300; ++i) {
        heft_world_step(w, 1.0 / 60.0);
    }
    heft_vec3 p = heft_body_position(w, b);
    heft_quat q = heft_body_orientation(w, b);
    cr_assert_lt(heft_v3_length(heft_v3_sub(p, bd.position)), 1e-3, "moved to %g %g %g", p.x, p.y,
                 p.z);
    cr_assert_lt(heft_v3_length(heft_quat_small_angle(q)), 1e-3);
    heft_vec3 f, t;
    heft_joint_reaction(w, j, &f, &t);
    cr_assert_float_eq(f.z, 2.0 * 9.81, 1e-3);
    /* the weld carries the moment of the weight about the anchor: 2 kg g 0.5 m about -y */
    cr_assert_float_eq(t.y, -2.0 * 9.81 * 0.5, 1e-2, "torque %g %g %g", t.x, t.y, t.z);
    heft_world_destroy(w);
}

Test(joints, soft_joint_deflects_by_weight_over_stiffness) {
    /* epsilon = 1/(h c + h^2 k), gamma = h k/(c + h k) ([Ho 2022] eq. 2.23) make the
     * joint a spring-damper: a 10 kg mass on k = 1e4 N/m settles m g / k below */
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.mass = 10.0;
    bd.position = heft_v3(0.0, 0.0, 1.0);
    heft_body_id b = heft_create_body(w, &bd);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_b = b;
    jd.stiffness = 1e4;
    jd.damping = 500.0;
    heft_joint_def_set_world_frame(w, &jd, heft_v3(0.0, 0.0, 1.0), heft_v3(0, 0, 1));
    heft_joint_id j = heft_create_joint(w, &jd);
    for (int i = 0; i < 600; ++i) {
        heft_world_step(w, 1.0 / 60.0);
    }
    double expected = 10.0 * 9.81 / 1e4;
    cr_assert_float_eq(heft_joint_gap(w, j), expected, 1e-6 * expected + 1e-9,
                       "gap %.9g expected %.9g", heft_joint_gap(w, j), expected);
    cr_assert_float_eq(heft_body_position(w, b).z, 1.0 - expected, 1e-8);
    heft_world_destroy(w);
}

Test(joints, a_soft_coordinate_sags_by_weight_over_its_own_stiffness) {
    /* a slider along world x whose Y coordinate (heft_v3_basis of x: world z)
     * is a spring of 1e4 N/m; its other rows stay rigid */
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.mass = 10.0;
    bd.position = heft_v3(0.0, 0.0, 1.0);
    heft_body_id b = heft_create_body(w, &bd);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_PRISMATIC);
    jd.body_b = b;
    heft_joint_def_set_world_frame(w, &jd, bd.position, heft_v3(1, 0, 0));
    jd.dof_stiffness[HEFT_DOF_Y] = 1e4;
    jd.dof_damping[HEFT_DOF_Y] = 500.0;
    heft_joint_id j = heft_create_joint(w, &jd);
    cr_assert(heft_joint_is_valid(w, j), "%s", heft_last_error());
    for (int i = 0; i < 600; ++i) {
        heft_world_step(w, 1.0 / 60.0);
    }
    double expected = -10.0 * 9.81 / 1e4;
    cr_assert_float_eq(heft_joint_coordinate(w, j, HEFT_DOF_Y), expected, 1e-6 * fabs(expected));
    cr_assert_float_eq(heft_body_position(w, b).z, 1.0 + expected, 1e-8);
    cr_assert_lt(fabs(heft_joint_coordinate(w, j, HEFT_DOF_Z)), 1e-9, "Z is rigid");
    cr_assert_lt(fabs(heft_joint_coordinate(w, j, HEFT_DOF_RY)) +
                     fabs(heft_joint_coordinate(w, j, HEFT_DOF_RZ)),
                 1e-9, "the rotation is rigid");
    heft_world_destroy(w);
}

Test(joints, a_soft_gear_is_a_torsional_spring) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    heft_joint_id h[2];
    heft_body_id g[2];
    for (int k = 0; k < 2; ++k) {
        bd.position = heft_v3(0.5 * k, 0.0, 1.0);
        g[k] = heft_create_body(w, &bd);
        heft_joint_def hd = heft_default_joint_def(HEFT_JOINT_HINGE);
        hd.body_b = g[k];
        heft_joint_def_set_world_frame(w, &hd, bd.position, heft_v3(0, 1, 0));
        if (k == 0) { /* the input held still */
            heft_joint_motor hold = {HEFT_MOTOR_VELOCITY, 0.0, 0.0, INFINITY, 0.0, 0.0};
            hd.motor[HEFT_DOF_RX] = hold;
        }
        h[k] = heft_create_joint(w, &hd);
    }
    heft_joint_def gd = heft_default_joint_def(HEFT_JOINT_GEAR);
    gd.joint_a = h[0];
    gd.joint_b = h[1];
    gd.ratio = 2.0;
    gd.stiffness = 1e3; /* N m/rad */
    gd.damping = 50.0;
    heft_joint_id gear = heft_create_joint(w, &gd);
    cr_assert(heft_joint_is_valid(w, gear), "%s", heft_last_error());
    for (int i = 0; i < 600; ++i) {
        heft_body_apply_torque(w, g[1], heft_v3(0.0, 10.0, 0.0));
        heft_world_step(w, 1.0 / 60.0);
    }
    /* the spring is on the phase RX_b - ratio RX_a (the held input creeps by
     * a micro-radian: its motor holds a speed, not an angle) */
    double a0 = heft_joint_coordinate(w, h[0], HEFT_DOF_RX),
           a1 = heft_joint_coordinate(w, h[1], HEFT_DOF_RX);
    cr_assert_float_eq(a1 - 2.0 * a0, 10.0 / 1e3, 1e-8, "phase %g", a1 - 2.0 * a0);
    cr_assert_lt(fabs(a0), 1e-5);
    heft_world_destroy(w);
}
