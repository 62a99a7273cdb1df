/* Gear: couples two hinges so that the angle of the second turns ratio times
 * the angle of the first, RX_b - RX_b0 = ratio (RX_a - RX_a0) (a negative
 * ratio for an external mesh). The row is coupling.c's; this file says which
 * joints a gear accepts. */
#include "error.h"
#include "joint.h"

int gear_joint_check(const joint *ja, const joint *jb, int dof[2]) {
    if (ja->type != HEFT_JOINT_HINGE || jb->type != HEFT_JOINT_HINGE) {
        heft_set_error("a gear couples two hinge joints");
        return 0;
    }
    dof[0] = HEFT_DOF_RX;
    dof[1] = HEFT_DOF_RX;
    return 1;
}
