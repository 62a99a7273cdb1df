/* Rope: the anchors at most `length` apart. A one-sided row on the distance
 * (distance_joint_measure), an upper limit at `length`:
 *   phi = length - |x_b - x_a| >= 0,  lambda >= 0,
 * written only when the rope is near taut; a slack rope has no row and pulls
 * nothing. With stiffness and damping it is an elastic rope that stretches
 * past `length` as a spring. */
#include "joint.h"

int rope_joint_row_count(const joint *j) {
    (void)j;
    return 1;
}

void rope_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                          const row_context *ctx, joint_rows *out) {
    (void)bodies;
    joint_coordinate c;
    distance_joint_measure(f, &c);
    heft_joint_limit taut = {1, -INFINITY, j->length, j->stiffness, j->damping};
    coordinate_limit_rows(out, HEFT_DOF_X, &c, c.value, &taut, ctx);
}
