/* Joints: each joint's Jacobian is the time derivative of its constraint
 * error, reactions read back as forces, and the joints hold. */
#include <criterion/criterion.h>

#include "world.h"

static double urand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xFFFF) / 65535.0 * 2.0 - 1.0;
}

static heft_vec3 rvec(unsigned *s) { return heft_v3(urand(s), urand(s), urand(s)); }

/* phi of every row of the joint at the bodies' current poses */
static int joint_phis(heft_world *w, heft_joint_id id, double *phi, row *rows) {
    joint *j = world_joint(w, id);
    row_context ctx = {1.0 / 60.0, 1e-10, 0.2};
    int n = joint_row_count(j);
    memset(rows, 0, sizeof(row) * (size_t)n);
    joint_fill_rows(j, w->bodies, &ctx, rows);
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

static void check_jacobian(heft_joint_type type, int to_world) {
    unsigned seed = 12345u + (unsigned)type * 7u + (unsigned)to_world;
    for (int trial = 0; trial < 20; ++trial) {
        heft_world *w = heft_world_create(NULL);
        heft_body_def bd = heft_default_body_def();
        bd.position = rvec(&seed);
        bd.orientation = heft_quat_normalize(heft_q(urand(&seed), urand(&seed), urand(&seed), urand(&seed) + 1.5));
        bd.linear_velocity = rvec(&seed);
        bd.angular_velocity = rvec(&seed);
        heft_body_id a = heft_create_body(w, &bd);
        bd.position = heft_v3_add(bd.position, heft_v3(0.3, -0.2, 0.5));
        bd.orientation = heft_quat_normalize(heft_q(urand(&seed), urand(&seed), urand(&seed) + 1.5, urand(&seed)));
        bd.linear_velocity = rvec(&seed);
        bd.angular_velocity = rvec(&seed);
        heft_body_id b = heft_create_body(w, &bd);
        heft_joint_def jd = heft_default_joint_def(type);
        jd.body_a = to_world ? HEFT_WORLD_FRAME : a;
        jd.body_b = b;
        cr_assert_eq(heft_joint_def_set_world_frame(w, &jd, rvec(&seed), rvec(&seed)), HEFT_OK);
        /* a slightly violated joint, so phi is not at a stationary point */
        jd.local_anchor_b = heft_v3_add(jd.local_anchor_b, heft_v3(0.01, 0.02, -0.01));
        jd.local_axis_b = heft_v3_add(jd.local_axis_b, heft_v3(0.05, 0.0, 0.03));
        heft_joint_id id = heft_create_joint(w, &jd);
        cr_assert(heft_joint_is_valid(w, id), "%s", heft_last_error());
        body *ba = world_body(w, a), *bb = world_body(w, b);
        double phi_p[HEFT_JOINT_MAX_ROWS], phi_m[HEFT_JOINT_MAX_ROWS];
        row rows[HEFT_JOINT_MAX_ROWS], scratch[HEFT_JOINT_MAX_ROWS];
        int n = joint_phis(w, id, phi_p, rows);
        const double dt = 1e-6;
        move_bodies(w, dt);
        joint_phis(w, id, phi_p, scratch);
        move_bodies(w, -2.0 * dt);
        joint_phis(w, id, phi_m, scratch);
        move_bodies(w, dt);
        for (int i = 0; i < n; ++i) {
            double va[6] = {0}, vb[6] = {0};
            if (!to_world) {
                memcpy(va, &ba->linear_velocity, sizeof(heft_vec3));
                memcpy(va + 3, &ba->angular_velocity, sizeof(heft_vec3));
            }
            memcpy(vb, &bb->linear_velocity, sizeof(heft_vec3));
            memcpy(vb + 3, &bb->angular_velocity, sizeof(heft_vec3));
            double jv = 0.0;
            for (int k = 0; k < 6; ++k) {
                jv += rows[i].ja[k] * va[k] + rows[i].jb[k] * vb[k];
            }
            double fd = (phi_p[i] - phi_m[i]) / (2.0 * dt);
            cr_assert(fabs(jv - fd) < 1e-6 * (1.0 + fabs(fd)),
                      "joint type %d row %d: J v = %.12g, d phi/dt = %.12g", type, i, jv, fd);
        }
        heft_world_destroy(w);
    }
}

Test(joints, ball_joint_jacobian_is_the_derivative_of_its_error) { check_jacobian(HEFT_JOINT_BALL, 0); }
Test(joints, ball_joint_to_world_jacobian_is_the_derivative_of_its_error) {
    check_jacobian(HEFT_JOINT_BALL, 1);
}
Test(joints, hinge_joint_jacobian_is_the_derivative_of_its_error) { check_jacobian(HEFT_JOINT_HINGE, 0); }
Test(joints, fixed_joint_jacobian_is_the_derivative_of_its_error) { check_jacobian(HEFT_JOINT_FIXED, 0); }

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
    cr_assert_lt(fabs(omega.x) + fabs(omega.z), 1e-3, "off-axis spin left: %g %g", omega.x, omega.z);
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
    cr_assert_lt(heft_v3_length(heft_v3_sub(p, bd.position)), 1e-3, "moved to %g %g %g", p.x, p.y, p.z);
    cr_assert_lt(heft_v3_length(heft_quat_small_angle(q)), 1e-3);
    heft_vec3 f, t;
    heft_joint_reaction(w, j, &f, &t);
    cr_assert_float_eq(f.z, 2.0 * 9.81, 1e-3);
    /* the weld carries the moment of the weight about the anchor: 2 kg g 0.5 m about -y */
    cr_assert_float_eq(t.y, -2.0 * 9.81 * 0.5, 1e-2, "torque %g %g %g", t.x, t.y, t.z);
    heft_world_destroy(w);
}

Test(joints, soft_joint_deflects_by_weight_over_stiffness) {
    /* epsilon = 1/(h c + h^2 k), gamma = h k/(c + h k) (004 eq. 2.23) make the
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
    cr_assert_float_eq(heft_joint_gap(w, j), expected, 1e-6 * expected + 1e-9, "gap %.9g expected %.9g",
                       heft_joint_gap(w, j), expected);
    cr_assert_float_eq(heft_body_position(w, b).z, 1.0 - expected, 1e-8);
    heft_world_destroy(w);
}
