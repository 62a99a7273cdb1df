/* Six-DOF: each joint coordinate (X, Y, Z of b's anchor in a's joint frame;
 * RX, RY, RZ, the angles 2 atan2(q_k, q_w) of the relative rotation; see
 * joint_coordinate.c) is locked (one bilateral row, phi = the coordinate),
 * free, or limited (one-sided rows near its bounds), and a free or limited
 * coordinate may have a motor. All locked is a weld; X, Y, Z locked a ball
 * joint; Y, Z, RY, RZ locked a cylindrical joint. Locking RY and RZ holds
 * q_y = q_z = 0: the rotation is about the axis alone. */
#include "joint.h"

static int limited(const joint *j, int dof) {
    return j->dof_mode[dof] == HEFT_DOF_LIMITED ||
           (j->dof_mode[dof] == HEFT_DOF_FREE && j->limit[dof].enabled);
}

int six_dof_joint_row_count(const joint *j) {
    int n = 0;
    for (int dof = 0; dof < 6; ++dof) {
        if (j->dof_mode[dof] == HEFT_DOF_LOCKED) {
            n += 1;
        } else {
            n += (limited(j, dof) ? 2 : 0) + (j->motor[dof].mode != HEFT_MOTOR_OFF ? 1 : 0);
        }
    }
    return n;
}

void six_dof_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                             const row_context *ctx, joint_rows *out) {
    (void)f;
    joint_ends e = joint_get_ends(j);
    for (int dof = 0; dof < 6; ++dof) {
        int lim = limited(j, dof), mot = j->motor[dof].mode != HEFT_MOTOR_OFF;
        int locked = j->dof_mode[dof] == HEFT_DOF_LOCKED;
        if (!locked && !lim && !mot) {
            continue;
        }
        joint_coordinate c;
        joint_coordinate_measure(bodies, &e, dof, &c);
        if (locked) {
            double epsilon, gamma;
            joint_row_softness(j, dof, ctx, &epsilon, &gamma);
            coordinate_lock_row(out, dof, dof, &c, c.value, epsilon, gamma);
            continue;
        }
        double value = joint_coordinate_value(j, &c, dof);
        if (lim) {
            coordinate_limit_rows(out, dof, &c, value, &j->limit[dof], ctx);
        }
        coordinate_motor_row(out, dof, &c, value, &j->motor[dof], ctx);
    }
}
