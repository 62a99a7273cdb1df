/* Cylindrical: body b's anchor stays on a's axis line (Y and Z, as the
 * prismatic joint) and b's axis stays parallel to a's (the hinge's two
 * alignment rows): four rows; b slides along and turns about the axis. X and
 * RX each take an optional limit and motor. */
#include "joint.h"

static int has(const joint *j, int dof) {
    return j->limit[dof].enabled || j->motor[dof].mode != HEFT_MOTOR_OFF;
}

int cylindrical_joint_row_count(const joint *j) {
    int n = 4;
    for (int dof = HEFT_DOF_X; dof <= HEFT_DOF_RX; dof += HEFT_DOF_RX) {
        n += (j->limit[dof].enabled ? 2 : 0) + (j->motor[dof].mode != HEFT_MOTOR_OFF ? 1 : 0);
    }
    return n;
}

void cylindrical_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                                 const row_context *ctx, joint_rows *out) {
    joint_ends e = joint_get_ends(j);
    joint_coordinate c;
    for (int dof = HEFT_DOF_Y; dof <= HEFT_DOF_Z; ++dof) {
        double epsilon, gamma;
        joint_row_softness(j, dof, ctx, &epsilon, &gamma);
        joint_coordinate_measure(bodies, &e, dof, &c);
        coordinate_lock_row(out, dof - HEFT_DOF_Y, dof, &c, c.value, epsilon, gamma);
    }
    hinge_joint_fill_axis_rows(j, f, ctx, 2, out);
    for (int dof = HEFT_DOF_X; dof <= HEFT_DOF_RX; dof += HEFT_DOF_RX) {
        if (!has(j, dof)) {
            continue;
        }
        joint_coordinate_measure(bodies, &e, dof, &c);
        double value = joint_coordinate_value(j, &c, dof);
        if (j->limit[dof].enabled) {
            coordinate_limit_rows(out, dof, &c, value, &j->limit[dof], ctx);
        }
        coordinate_motor_row(out, dof, &c, value, &j->motor[dof], ctx);
    }
}
