/* Hinge: the anchors coincide (three ball rows) and the axis fixed in body b
 * stays parallel to the one fixed in body a: two angular rows on directions
 * t1, t2 orthogonal to a's axis ([Mizerski 2020], "Hinge" constraint and Jacobian):
 *   phi_k = t_k . u_b,  d/dt phi_k = (t_k x u_b) . (w_a - w_b).
 * The hinge angle is the RX coordinate (joint_coordinate.c), with an optional
 * limit and motor. */
#include "joint.h"

int hinge_joint_row_count(const joint *j) {
    return 5 + (j->limit[HEFT_DOF_RX].enabled ? 2 : 0) +
           (j->motor[HEFT_DOF_RX].mode != HEFT_MOTOR_OFF ? 1 : 0);
}

void hinge_joint_fill_axis_rows(const joint *j, const joint_frame *f, const row_context *ctx,
                                int first, joint_rows *out) {
    heft_vec3 ub = heft_quat_rotate(f->qb, heft_v3(1.0, 0.0, 0.0));
    /* t1, t2: y and z of a's joint frame, fixed in body a, so that their rate
     * is w_a x t and the Jacobian below is exact */
    heft_vec3 t[2] = {heft_quat_rotate(f->qa, heft_v3(0.0, 1.0, 0.0)),
                      heft_quat_rotate(f->qa, heft_v3(0.0, 0.0, 1.0))};
    for (int k = 0; k < 2; ++k) {
        int dof = HEFT_DOF_RY + k;
        row *r = joint_rows_add(out, first + k, HEFT_JOINT_ROW_CONSTRAINT, dof, 1);
        /* J v = u . (w_b - w_a) with u = -(t_k x u_b) = u_b x t_k */
        row_set_angular(r, heft_v3_cross(ub, t[k]));
        r->phi = heft_v3_dot(t[k], ub);
        joint_row_softness(j, dof, ctx, &r->epsilon, &r->gamma);
        r->lo = -INFINITY;
        r->hi = INFINITY;
    }
}

void hinge_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                           const row_context *ctx, joint_rows *out) {
    ball_joint_fill_point_rows(j, f, ctx, out);
    hinge_joint_fill_axis_rows(j, f, ctx, 3, out);
    if (j->limit[HEFT_DOF_RX].enabled || j->motor[HEFT_DOF_RX].mode != HEFT_MOTOR_OFF) {
        joint_ends e = joint_get_ends(j);
        joint_coordinate c;
        joint_coordinate_measure(bodies, &e, HEFT_DOF_RX, &c);
        double angle = joint_coordinate_value(j, &c, HEFT_DOF_RX);
        if (j->limit[HEFT_DOF_RX].enabled) {
            coordinate_limit_rows(out, HEFT_DOF_RX, &c, angle, &j->limit[HEFT_DOF_RX], ctx);
        }
        coordinate_motor_row(out, HEFT_DOF_RX, &c, angle, &j->motor[HEFT_DOF_RX], ctx);
    }
}
