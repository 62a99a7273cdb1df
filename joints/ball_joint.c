/* Ball-in-socket: the two anchors coincide. Three rows along the world axes
 * ([Mizerski 2020], "Ball in socket" constraint and Jacobian):
 *   phi_e = e . (x_b - x_a),  J v = e . (v_b + w_b x r_b - v_a - w_a x r_a).
 * Optional swing-twist limits: a cone on the angle between the two axes
 * (HEFT_DOF_SWING, upper bound only) and a range on the twist about a's axis
 * (HEFT_DOF_RX). */
#include "joint.h"

int ball_joint_row_count(const joint *j) {
    return 3 + (j->limit[HEFT_DOF_RX].enabled ? 2 : 0) + (j->limit[HEFT_DOF_SWING].enabled ? 1 : 0);
}

void ball_joint_fill_point_rows(const joint *j, const joint_frame *f, const row_context *ctx,
                                joint_rows *out) {
    static const heft_vec3 axes[3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    heft_vec3 gap = heft_v3_sub(f->anchor_b, f->anchor_a);
    double epsilon, gamma;
    row_softness(ctx, j->stiffness, j->damping, &epsilon, &gamma);
    for (int k = 0; k < 3; ++k) {
        row *r = joint_rows_add(out, k, HEFT_JOINT_ROW_CONSTRAINT, -1, 1);
        row_set_linear(r, axes[k], f->ra, f->rb);
        r->phi = heft_v3_dot(axes[k], gap);
        r->epsilon = epsilon;
        r->gamma = gamma;
        r->lo = -INFINITY;
        r->hi = INFINITY;
    }
}

void ball_joint_swing(const joint_frame *f, const joint *j, joint_coordinate *c) {
    /* swing = acos(u_a . u_b); d(u_a . u_b)/dt = (w_a - w_b) . (u_a x u_b), so
     * d swing/dt = m . (w_b - w_a) with m = u_a x u_b / |u_a x u_b| */
    (void)j;
    heft_vec3 ua = heft_quat_rotate(f->qa, heft_v3(1.0, 0.0, 0.0));
    heft_vec3 ub = heft_quat_rotate(f->qb, heft_v3(1.0, 0.0, 0.0));
    heft_vec3 m = heft_v3_cross(ua, ub);
    double s = heft_v3_length(m), co = heft_v3_dot(ua, ub);
    c->value = atan2(s, co);
    /* at zero swing there is no direction; the cone's row is not near then */
    m = s > 1e-12 ? heft_v3_scale(m, 1.0 / s) : heft_v3(0.0, 0.0, 0.0);
    row r;
    row_set_angular(&r, m);
    for (int k = 0; k < 6; ++k) {
        c->ja[k] = r.ja[k];
        c->jb[k] = r.jb[k];
    }
    heft_vec3 wa = f->a->free_angular_velocity, wb = f->b->free_angular_velocity;
    c->rate = heft_v3_dot(m, heft_v3_sub(wb, wa));
}

void ball_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                          const row_context *ctx, joint_rows *out) {
    ball_joint_fill_point_rows(j, f, ctx, out);
    if (j->limit[HEFT_DOF_RX].enabled) {
        joint_ends e = joint_get_ends(j);
        joint_coordinate c;
        joint_coordinate_measure(bodies, &e, HEFT_DOF_RX, &c);
        coordinate_limit_rows(out, HEFT_DOF_RX, &c, joint_coordinate_value(j, &c, HEFT_DOF_RX),
                              &j->limit[HEFT_DOF_RX], ctx);
    }
    if (j->limit[HEFT_DOF_SWING].enabled) {
        joint_coordinate c;
        ball_joint_swing(f, j, &c);
        heft_joint_limit cone = j->limit[HEFT_DOF_SWING];
        cone.lower = -INFINITY;
        coordinate_limit_rows(out, HEFT_DOF_SWING, &c, c.value, &cone, ctx);
    }
}
