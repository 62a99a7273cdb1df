/* Universal (Cardan): the anchors coincide (three ball rows) and the arm
 * fixed in a (axis u_a) stays perpendicular to the arm fixed in b (u_b), so
 * b turns about both arms but not about the third direction:
 *   phi = u_a . u_b,  d/dt phi = (w_a - w_b) . (u_a x u_b),
 * one angular row with J v = (u_b x u_a) . (w_b - w_a). */
#include "joint.h"

int universal_joint_row_count(const joint *j) {
    (void)j;
    return 4;
}

void universal_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                               const row_context *ctx, joint_rows *out) {
    (void)bodies;
    ball_joint_fill_point_rows(j, f, ctx, out);
    heft_vec3 ua = heft_quat_rotate(f->a->orientation, j->local_axis_a);
    heft_vec3 ub = heft_quat_rotate(f->b->orientation, j->local_axis_b);
    row *r = joint_rows_add(out, 3, HEFT_JOINT_ROW_CONSTRAINT, -1, 1);
    row_set_angular(r, heft_v3_cross(ub, ua));
    r->phi = heft_v3_dot(ua, ub);
    row_softness(ctx, j->stiffness, j->damping, &r->epsilon, &r->gamma);
    r->lo = -INFINITY;
    r->hi = INFINITY;
}
