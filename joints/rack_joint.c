/* Rack and pinion: couples a hinge (the pinion, joint_a) with a prismatic or
 * cylindrical joint (the rack, joint_b) so that the rack moves ratio metres
 * per radian of the pinion, X_b - X_b0 = ratio (RX_a - RX_a0): ratio is the
 * pitch radius (signed). The row is coupling.c's; this file says which joints
 * a rack accepts. A cable drum paying out a prismatic hoist is the same. */
#include "error.h"
#include "joint.h"

int rack_joint_check(const joint *ja, const joint *jb, int dof[2]) {
    if (ja->type != HEFT_JOINT_HINGE ||
        (jb->type != HEFT_JOINT_PRISMATIC && jb->type != HEFT_JOINT_CYLINDRICAL)) {
        heft_set_error(
            "a rack couples a hinge (joint_a) with a prismatic or cylindrical joint (joint_b)");
        return 0;
    }
    dof[0] = HEFT_DOF_RX;
    dof[1] = HEFT_DOF_X;
    return 1;
}
