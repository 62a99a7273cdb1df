/* Hinge: the anchors coincide (three ball rows) and the axis fixed in body b
 * stays parallel to the one fixed in body a: two angular rows on directions
 * t1, t2 orthogonal to a's axis (003, "Hinge" constraint and Jacobian):
 *   phi_k = t_k . u_b,  d/dt phi_k = (t_k x u_b) . (w_a - w_b). */
#include "joint.h"

int hinge_joint_row_count(const joint *j) {
    (void)j;
    return 5;
}

void hinge_joint_fill_rows(const joint *j, const joint_frame *f, const row_context *ctx, row *out) {
    ball_joint_fill_point_rows(j, f, ctx, out);
    heft_vec3 ub = heft_quat_rotate(f->b->orientation, j->local_axis_b);
    /* t1, t2 fixed in body a (built from its local axis), so that their rate
     * is w_a x t and the Jacobian below is exact */
    heft_vec3 t[2];
    heft_v3_basis(j->local_axis_a, &t[0], &t[1]);
    t[0] = heft_quat_rotate(f->a->orientation, t[0]);
    t[1] = heft_quat_rotate(f->a->orientation, t[1]);
    double epsilon, gamma;
    row_softness(ctx, j->stiffness, j->damping, &epsilon, &gamma);
    for (int k = 0; k < 2; ++k) {
        row *r = &out[3 + k];
        /* J v = u . (w_b - w_a) with u = -(t_k x u_b) = u_b x t_k */
        row_set_angular(r, heft_v3_cross(ub, t[k]));
        r->phi = heft_v3_dot(t[k], ub);
        r->epsilon = epsilon;
        r->gamma = gamma;
        r->lo = -INFINITY;
        r->hi = INFINITY;
        r->kind = HEFT_ROW_BILATERAL;
    }
}
