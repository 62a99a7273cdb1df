/* Fixed (weld): the anchors coincide and body b keeps the orientation
 * relative to body a that it had at creation: q_b = q_a q_rel. Three ball
 * rows and three angular rows along the world axes on the rotation vector
 * theta = 2 vec(q_e) of the error q_e = q_b conj(q_a q_rel) (sign taken so
 * that w_e >= 0). Since dq_e/dt = ((0, w_b) q_e - q_e (0, w_a)) / 2,
 *   d theta/dt = w_e (w_b - w_a) + (w_a + w_b) x v_e,
 * so row k has J_b = w_e e_k + v_e x e_k and J_a = -w_e e_k + v_e x e_k:
 * exact at any pose, (-e_k, e_k) at the assembled one. */
#include "joint.h"

int fixed_joint_row_count(const joint *j) {
    (void)j;
    return 6;
}

void fixed_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                           const row_context *ctx, joint_rows *out) {
    static const heft_vec3 axes[3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    (void)bodies;
    ball_joint_fill_point_rows(j, f, ctx, out);
    heft_quat target = heft_quat_mul(f->a->orientation, j->relative_rotation);
    heft_quat qe = heft_quat_mul(f->b->orientation, heft_quat_conj(target));
    if (qe.w < 0.0) {
        qe = heft_q(-qe.w, -qe.x, -qe.y, -qe.z);
    }
    heft_vec3 ve = heft_v3(qe.x, qe.y, qe.z);
    double epsilon, gamma;
    row_softness(ctx, j->stiffness, j->damping, &epsilon, &gamma);
    for (int k = 0; k < 3; ++k) {
        row *r = joint_rows_add(out, 3 + k, HEFT_JOINT_ROW_CONSTRAINT, -1, 1);
        heft_vec3 side = heft_v3_cross(ve, axes[k]);
        row_put6(r->ja, heft_v3(0.0, 0.0, 0.0), heft_v3_madd(side, -qe.w, axes[k]));
        row_put6(r->jb, heft_v3(0.0, 0.0, 0.0), heft_v3_madd(side, qe.w, axes[k]));
        r->phi = 2.0 * heft_v3_dot(axes[k], ve);
        r->epsilon = epsilon;
        r->gamma = gamma;
        r->lo = -INFINITY;
        r->hi = INFINITY;
    }
}
