/* Distance (rod): the anchors stay `length` apart. One row along the line
 * between them, n = (x_b - x_a) / |x_b - x_a|:
 *   phi = |x_b - x_a| - length,  J v = n . (v_b + w_b x r_b - v_a - w_a x r_a).
 * With stiffness and damping it is a spring-damper of rest length `length`. */
#include "joint.h"

int distance_joint_row_count(const joint *j) {
    (void)j;
    return 1;
}

void distance_joint_measure(const joint_frame *f, joint_coordinate *c) {
    heft_vec3 d = heft_v3_sub(f->anchor_b, f->anchor_a);
    double len = heft_v3_length(d);
    /* anchors on top of each other: no direction; any will do for one step */
    heft_vec3 n = len > 1e-12 ? heft_v3_scale(d, 1.0 / len) : heft_v3(0.0, 0.0, 1.0);
    row r;
    row_set_linear(&r, n, f->ra, f->rb);
    for (int k = 0; k < 6; ++k) {
        c->ja[k] = r.ja[k];
        c->jb[k] = r.jb[k];
    }
    c->value = len;
    /* at the free velocities, as every coordinate's rate (joint_coordinate.c) */
    heft_vec3 va =
        heft_v3_add(f->a->free_linear_velocity, heft_v3_cross(f->a->free_angular_velocity, f->ra));
    heft_vec3 vb =
        heft_v3_add(f->b->free_linear_velocity, heft_v3_cross(f->b->free_angular_velocity, f->rb));
    c->rate = heft_v3_dot(n, heft_v3_sub(vb, va));
}

void distance_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                              const row_context *ctx, joint_rows *out) {
    (void)bodies;
    joint_coordinate c;
    distance_joint_measure(f, &c);
    double epsilon, gamma;
    row_softness(ctx, j->stiffness, j->damping, &epsilon, &gamma);
    coordinate_lock_row(out, 0, HEFT_DOF_X, &c, c.value - j->length, epsilon, gamma);
}
