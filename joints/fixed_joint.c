/* Fixed (weld): the anchors coincide and body b keeps the orientation
 * relative to body a that it had at creation: q_b = q_a q_rel. Three ball
 * rows and three angular rows along the world axes on the small rotation
 * that takes the target orientation to the current one. */
#include "joint.h"

int fixed_joint_row_count(const joint *j) {
    (void)j;
    return 6;
}

void fixed_joint_fill_rows(const joint *j, const joint_frame *f, const row_context *ctx, row *out) {
    static const heft_vec3 axes[3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    ball_joint_fill_point_rows(j, f, ctx, out);
    heft_quat target = heft_quat_mul(f->a->orientation, j->relative_rotation);
    /* world-frame rotation from the target to the current orientation of b */
    heft_vec3 theta = heft_quat_small_angle(heft_quat_mul(f->b->orientation, heft_quat_conj(target)));
    double epsilon, gamma;
    row_softness(ctx, j->stiffness, j->damping, &epsilon, &gamma);
    for (int k = 0; k < 3; ++k) {
        row *r = &out[3 + k];
        row_set_angular(r, axes[k]);
        r->phi = heft_v3_dot(axes[k], theta);
        r->epsilon = epsilon;
        r->gamma = gamma;
        r->lo = -INFINITY;
        r->hi = INFINITY;
        r->kind = HEFT_ROW_BILATERAL;
    }
}
