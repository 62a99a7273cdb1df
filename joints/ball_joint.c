/* Ball-in-socket: the two anchors coincide. Three rows along the world axes
 * (003, "Ball in socket" constraint and Jacobian):
 *   phi_e = e . (x_b - x_a),  J v = e . (v_b + w_b x r_b - v_a - w_a x r_a). */
#include "joint.h"

int ball_joint_row_count(const joint *j) {
    (void)j;
    return 3;
}

void ball_joint_fill_point_rows(const joint *j, const joint_frame *f, const row_context *ctx,
                                row *out) {
    static const heft_vec3 axes[3] = {{1.0, 0.0, 0.0}, {0.0, 1.0, 0.0}, {0.0, 0.0, 1.0}};
    heft_vec3 gap = heft_v3_sub(f->anchor_b, f->anchor_a);
    double epsilon, gamma;
    row_softness(ctx, j->stiffness, j->damping, &epsilon, &gamma);
    for (int k = 0; k < 3; ++k) {
        row *r = &out[k];
        row_set_linear(r, axes[k], f->ra, f->rb);
        r->phi = heft_v3_dot(axes[k], gap);
        r->epsilon = epsilon;
        r->gamma = gamma;
        r->lo = -INFINITY;
        r->hi = INFINITY;
        r->kind = HEFT_ROW_BILATERAL;
    }
}

void ball_joint_fill_rows(const joint *j, const joint_frame *f, const row_context *ctx, row *out) {
    ball_joint_fill_point_rows(j, f, ctx, out);
}
