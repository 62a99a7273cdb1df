/* Prismatic (slider): body b keeps its orientation relative to body a and its
 * anchor on a's axis line; it slides along the axis. Five rows, all on joint
 * coordinates (joint_coordinate.c): Y and Z, the anchor's offsets from the
 * line in a's frame (phi = t_k . (x_b - x_a), t_k fixed in a), and RX, RY, RZ,
 * the relative rotation (phi = 2 atan2(q_k, q_w)). The slide X takes an
 * optional limit and motor. */
#include "joint.h"

int prismatic_joint_row_count(const joint *j) {
    return 5 + (j->limit[HEFT_DOF_X].enabled ? 2 : 0) +
           (j->motor[HEFT_DOF_X].mode != HEFT_MOTOR_OFF ? 1 : 0);
}

void prismatic_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                               const row_context *ctx, joint_rows *out) {
    (void)f;
    static const int locked[5] = {HEFT_DOF_Y, HEFT_DOF_Z, HEFT_DOF_RX, HEFT_DOF_RY, HEFT_DOF_RZ};
    joint_ends e = joint_get_ends(j);
    joint_coordinate c;
    for (int k = 0; k < 5; ++k) {
        int dof = locked[k];
        double epsilon, gamma;
        joint_row_softness(j, dof, ctx, &epsilon, &gamma);
        joint_coordinate_measure(bodies, &e, dof, &c);
        coordinate_lock_row(out, k, dof, &c, c.value, epsilon, gamma);
    }
    if (j->limit[HEFT_DOF_X].enabled || j->motor[HEFT_DOF_X].mode != HEFT_MOTOR_OFF) {
        joint_coordinate_measure(bodies, &e, HEFT_DOF_X, &c);
        if (j->limit[HEFT_DOF_X].enabled) {
            coordinate_limit_rows(out, HEFT_DOF_X, &c, c.value, &j->limit[HEFT_DOF_X], ctx);
        }
        coordinate_motor_row(out, HEFT_DOF_X, &c, c.value, &j->motor[HEFT_DOF_X], ctx);
    }
}
