/* Joint coordinates: where body b's joint frame is in body a's, and the exact
 * derivative of each coordinate, from which limits, motors, locked six-DOF
 * coordinates and couplings make their rows. Exact (not just right at the
 * assembled pose) so that J v = d(phi)/dt for every row at any pose, which
 * the tests check by finite differences. */
#include <string.h>

#include "joint.h"

const body *joint_end_body(const body *bodies, int32_t i) {
    static const body world_frame = {.orientation = {1.0, 0.0, 0.0, 0.0}, .type = HEFT_BODY_STATIC};
    return i >= 0 ? &bodies[i] : &world_frame;
}

void joint_end_velocity(const body *bodies, int32_t i, double v[6]) {
    const body *b = joint_end_body(bodies, i);
    row_put6(v, b->free_linear_velocity, b->free_angular_velocity);
}

static double dot6(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

static heft_vec3 unit_axis(int k) {
    return heft_v3(k == 0, k == 1, k == 2);
}

static double quat_component(heft_quat q, int k) {
    return k == 0 ? q.x : (k == 1 ? q.y : q.z);
}

void joint_coordinate_measure(const body *bodies, const joint_ends *e, int dof,
                              joint_coordinate *c) {
    const body *a = joint_end_body(bodies, e->body_a), *b = joint_end_body(bodies, e->body_b);
    heft_quat qa = heft_quat_mul(a->orientation, e->frame_a);
    if (dof < 3) {
        /* X, Y, Z: d = e_k . (x_b - x_a), e_k fixed in a. Its rate is
         * e_k . (v_b + w_b x r_b - v_a - w_a x r_a) + (w_a x e_k) . (x_b - x_a),
         * which is row_set_linear with a's lever arm taken to x_b instead of x_a. */
        heft_vec3 axis = heft_quat_rotate(qa, unit_axis(dof));
        heft_vec3 xa =
            heft_v3_add(a->position, heft_quat_rotate(a->orientation, e->local_anchor_a));
        heft_vec3 xb =
            heft_v3_add(b->position, heft_quat_rotate(b->orientation, e->local_anchor_b));
        row r;
        row_set_linear(&r, axis, heft_v3_sub(xb, a->position), heft_v3_sub(xb, b->position));
        c->value = heft_v3_dot(axis, heft_v3_sub(xb, xa));
        memcpy(c->ja, r.ja, sizeof c->ja);
        memcpy(c->jb, r.jb, sizeof c->jb);
    } else {
        /* RX, RY, RZ: theta_k = 2 atan2(q_k, q_w) of q = conj(Q_a) Q_b, the
         * rotation of b's frame in a's. With w = w_b - w_a in a's frame, dq/dt =
         * (0, w) q / 2, so d theta_k/dt = g . w with
         *   g = (q_w^2 e_k + q_w (v x e_k) + q_k v) / (q_w^2 + q_k^2),
         * v the vector part of q (e_k when b turns about e_k alone). */
        int k = dof - 3;
        heft_quat q = heft_quat_mul(heft_quat_conj(qa), heft_quat_mul(b->orientation, e->frame_b));
        if (q.w < 0.0) {
            q = heft_q(-q.w, -q.x, -q.y, -q.z);
        }
        double qk = quat_component(q, k);
        heft_vec3 v = heft_v3(q.x, q.y, q.z), ek = unit_axis(k);
        double den = q.w * q.w + qk * qk;
        heft_vec3 g = ek;
        if (den > 1e-300) {
            g = heft_v3_scale(heft_v3_add(heft_v3_add(heft_v3_scale(ek, q.w * q.w),
                                                      heft_v3_scale(heft_v3_cross(v, ek), q.w)),
                                          heft_v3_scale(v, qk)),
                              1.0 / den);
        }
        heft_vec3 n = heft_quat_rotate(qa, g);
        row r;
        row_set_angular(&r, n);
        c->value = 2.0 * atan2(qk, q.w);
        memcpy(c->ja, r.ja, sizeof c->ja);
        memcpy(c->jb, r.jb, sizeof c->jb);
    }
    double va[6], vb[6];
    joint_end_velocity(bodies, e->body_a, va);
    joint_end_velocity(bodies, e->body_b, vb);
    c->rate = dot6(c->ja, va) + dot6(c->jb, vb);
}

double joint_unwrap_angle(double raw, double last) {
    const double turn = 2.0 * HEFT_PI;
    return raw + turn * round((last - raw) / turn);
}

double joint_coordinate_value(const joint *j, const joint_coordinate *c, int dof) {
    return dof >= HEFT_DOF_RX && dof <= HEFT_DOF_RZ
               ? joint_unwrap_angle(c->value, j->coordinate_last[dof])
               : c->value;
}

heft_quat joint_quat_from_axes(heft_vec3 x, heft_vec3 y, heft_vec3 z) {
    /* the columns of R are x, y, z; Shepperd's choice of the largest pivot */
    double m00 = x.x, m11 = y.y, m22 = z.z;
    double tr = m00 + m11 + m22;
    heft_quat q;
    if (tr > 0.0) {
        double s = 2.0 * sqrt(1.0 + tr);
        q = heft_q(0.25 * s, (y.z - z.y) / s, (z.x - x.z) / s, (x.y - y.x) / s);
    } else if (m00 > m11 && m00 > m22) {
        double s = 2.0 * sqrt(1.0 + m00 - m11 - m22);
        q = heft_q((y.z - z.y) / s, 0.25 * s, (y.x + x.y) / s, (z.x + x.z) / s);
    } else if (m11 > m22) {
        double s = 2.0 * sqrt(1.0 + m11 - m00 - m22);
        q = heft_q((z.x - x.z) / s, (y.x + x.y) / s, 0.25 * s, (z.y + y.z) / s);
    } else {
        double s = 2.0 * sqrt(1.0 + m22 - m00 - m11);
        q = heft_q((x.y - y.x) / s, (z.x + x.z) / s, (z.y + y.z) / s, 0.25 * s);
    }
    return heft_quat_normalize(q);
}
