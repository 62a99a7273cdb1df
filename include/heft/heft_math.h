/* Heft: small double-precision vector, quaternion and 3x3 matrix math.
 * Everything is inline and by value; the engine, joints and collision use it,
 * and so can applications. Quaternions are (w, x, y, z), unit length for
 * rotations; matrices are row-major. */
#ifndef HEFT_MATH_H
#define HEFT_MATH_H

#include <math.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HEFT_PI 3.14159265358979323846

typedef struct heft_vec3 {
    double x, y, z;
} heft_vec3;

typedef struct heft_quat {
    double w, x, y, z;
} heft_quat;

typedef struct heft_mat3 {
    double m[3][3];
} heft_mat3;

static inline heft_vec3 heft_v3(double x, double y, double z) {
    heft_vec3 r = {x, y, z};
    return r;
}
static inline heft_vec3 heft_v3_add(heft_vec3 a, heft_vec3 b) {
    return heft_v3(a.x + b.x, a.y + b.y, a.z + b.z);
}
static inline heft_vec3 heft_v3_sub(heft_vec3 a, heft_vec3 b) {
    return heft_v3(a.x - b.x, a.y - b.y, a.z - b.z);
}
static inline heft_vec3 heft_v3_scale(heft_vec3 a, double s) {
    return heft_v3(a.x * s, a.y * s, a.z * s);
}
static inline heft_vec3 heft_v3_neg(heft_vec3 a) {
    return heft_v3(-a.x, -a.y, -a.z);
}
/* a + s * b */
static inline heft_vec3 heft_v3_madd(heft_vec3 a, double s, heft_vec3 b) {
    return heft_v3(a.x + s * b.x, a.y + s * b.y, a.z + s * b.z);
}
static inline double heft_v3_dot(heft_vec3 a, heft_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline heft_vec3 heft_v3_cross(heft_vec3 a, heft_vec3 b) {
    return heft_v3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x);
}
static inline double heft_v3_length(heft_vec3 a) {
    return sqrt(heft_v3_dot(a, a));
}
static inline heft_vec3 heft_v3_normalize(heft_vec3 a) {
    double l = heft_v3_length(a);
    return l > 0.0 ? heft_v3_scale(a, 1.0 / l) : heft_v3(0.0, 0.0, 0.0);
}
static inline int heft_v3_isfinite(heft_vec3 a) {
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}
/* Two unit vectors t1, t2 with (n, t1, t2) right-handed and orthonormal; a
 * fixed function of n, so that tangent directions are the same from step to
 * step for the same normal (warm starts of friction rows depend on it). */
static inline void heft_v3_basis(heft_vec3 n, heft_vec3 *t1, heft_vec3 *t2) {
    /* cross n with the coordinate axis least aligned with it */
    heft_vec3 a = fabs(n.x) < 0.57735 ? heft_v3(1.0, 0.0, 0.0) : heft_v3(0.0, 1.0, 0.0);
    *t1 = heft_v3_normalize(heft_v3_cross(n, a));
    *t2 = heft_v3_cross(n, *t1);
}

static inline heft_quat heft_q(double w, double x, double y, double z) {
    heft_quat r = {w, x, y, z};
    return r;
}
static inline heft_quat heft_quat_identity(void) {
    return heft_q(1.0, 0.0, 0.0, 0.0);
}
static inline heft_quat heft_quat_mul(heft_quat a, heft_quat b) {
    return heft_q(a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                  a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                  a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                  a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w);
}
static inline heft_quat heft_quat_conj(heft_quat a) {
    return heft_q(a.w, -a.x, -a.y, -a.z);
}
static inline double heft_quat_norm(heft_quat a) {
    return sqrt(a.w * a.w + a.x * a.x + a.y * a.y + a.z * a.z);
}
static inline heft_quat heft_quat_normalize(heft_quat a) {
    double l = heft_quat_norm(a);
    return l > 0.0 ? heft_q(a.w / l, a.x / l, a.y / l, a.z / l) : heft_quat_identity();
}
static inline int heft_quat_isfinite(heft_quat a) {
    return isfinite(a.w) && isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}
/* Rotation by angle (radians) about a unit axis. */
static inline heft_quat heft_quat_axis_angle(heft_vec3 axis, double angle) {
    heft_vec3 u = heft_v3_normalize(axis);
    double s = sin(0.5 * angle);
    return heft_q(cos(0.5 * angle), u.x * s, u.y * s, u.z * s);
}
static inline heft_vec3 heft_quat_rotate(heft_quat q, heft_vec3 v) {
    /* v + 2 w (u x v) + 2 u x (u x v), u the vector part */
    heft_vec3 u = heft_v3(q.x, q.y, q.z);
    heft_vec3 t = heft_v3_scale(heft_v3_cross(u, v), 2.0);
    return heft_v3_add(heft_v3_madd(v, q.w, t), heft_v3_cross(u, t));
}
static inline heft_vec3 heft_quat_rotate_inv(heft_quat q, heft_vec3 v) {
    return heft_quat_rotate(heft_quat_conj(q), v);
}
/* Small rotation vector of a unit quaternion (2 * vector part, sign chosen so
 * that the rotation is the short way round). */
static inline heft_vec3 heft_quat_small_angle(heft_quat q) {
    double s = q.w < 0.0 ? -2.0 : 2.0;
    return heft_v3(s * q.x, s * q.y, s * q.z);
}
/* Semi-implicit quaternion update q+ = q + h H(q) omega with omega in world
 * frame ([Ho 2022] eq. 2.2, 2.3, 2.7: dq/dt = 0.5 (0, omega) q), then renormalised. */
static inline heft_quat heft_quat_integrate(heft_quat q, heft_vec3 omega, double h) {
    heft_quat dq = heft_quat_mul(heft_q(0.0, omega.x, omega.y, omega.z), q);
    heft_quat r = heft_q(q.w + 0.5 * h * dq.w, q.x + 0.5 * h * dq.x, q.y + 0.5 * h * dq.y,
                         q.z + 0.5 * h * dq.z);
    return heft_quat_normalize(r);
}

static inline heft_mat3 heft_mat3_zero(void) {
    heft_mat3 r = {{{0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}}};
    return r;
}
static inline heft_mat3 heft_mat3_diag(double a, double b, double c) {
    heft_mat3 r = heft_mat3_zero();
    r.m[0][0] = a;
    r.m[1][1] = b;
    r.m[2][2] = c;
    return r;
}
static inline heft_mat3 heft_mat3_identity(void) {
    return heft_mat3_diag(1.0, 1.0, 1.0);
}
static inline heft_vec3 heft_mat3_mulv(heft_mat3 a, heft_vec3 v) {
    return heft_v3(a.m[0][0] * v.x + a.m[0][1] * v.y + a.m[0][2] * v.z,
                   a.m[1][0] * v.x + a.m[1][1] * v.y + a.m[1][2] * v.z,
                   a.m[2][0] * v.x + a.m[2][1] * v.y + a.m[2][2] * v.z);
}
static inline heft_mat3 heft_mat3_mul(heft_mat3 a, heft_mat3 b) {
    heft_mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
        }
    }
    return r;
}
static inline heft_mat3 heft_mat3_transpose(heft_mat3 a) {
    heft_mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = a.m[j][i];
        }
    }
    return r;
}
static inline heft_mat3 heft_mat3_add(heft_mat3 a, heft_mat3 b) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            a.m[i][j] += b.m[i][j];
        }
    }
    return a;
}
static inline heft_mat3 heft_mat3_scale(heft_mat3 a, double s) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            a.m[i][j] *= s;
        }
    }
    return a;
}
static inline double heft_mat3_det(heft_mat3 a) {
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
/* Inverse; returns the zero matrix when a is singular. */
static inline heft_mat3 heft_mat3_inverse(heft_mat3 a) {
    double d = heft_mat3_det(a);
    heft_mat3 r = heft_mat3_zero();
    if (d == 0.0 || !isfinite(d)) {
        return r;
    }
    double s = 1.0 / d;
    r.m[0][0] = s * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]);
    r.m[0][1] = s * (a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2]);
    r.m[0][2] = s * (a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1]);
    r.m[1][0] = s * (a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2]);
    r.m[1][1] = s * (a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0]);
    r.m[1][2] = s * (a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2]);
    r.m[2][0] = s * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
    r.m[2][1] = s * (a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1]);
    r.m[2][2] = s * (a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0]);
    return r;
}
/* Rotation matrix of a unit quaternion. */
static inline heft_mat3 heft_quat_to_mat3(heft_quat q) {
    heft_mat3 r;
    double xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    double xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    double wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    r.m[0][0] = 1.0 - 2.0 * (yy + zz);
    r.m[0][1] = 2.0 * (xy - wz);
    r.m[0][2] = 2.0 * (xz + wy);
    r.m[1][0] = 2.0 * (xy + wz);
    r.m[1][1] = 1.0 - 2.0 * (xx + zz);
    r.m[1][2] = 2.0 * (yz - wx);
    r.m[2][0] = 2.0 * (xz - wy);
    r.m[2][1] = 2.0 * (yz + wx);
    r.m[2][2] = 1.0 - 2.0 * (xx + yy);
    return r;
}
/* R A R^T: a body-frame tensor in world frame. The products of
 * heft_mat3_mul(heft_mat3_mul(rot, a), heft_mat3_transpose(rot)) summed in
 * the same order, written out: the step refreshes every moving body's world
 * inertia, and the loops passed the matrices through memory (about twice
 * the instructions). */
static inline heft_mat3 heft_mat3_rotate_tensor(heft_mat3 rot, heft_mat3 a) {
    double(*R)[3] = rot.m;
    double(*A)[3] = a.m;
    double T[3][3];
    T[0][0] = R[0][0] * A[0][0] + R[0][1] * A[1][0] + R[0][2] * A[2][0];
    T[0][1] = R[0][0] * A[0][1] + R[0][1] * A[1][1] + R[0][2] * A[2][1];
    T[0][2] = R[0][0] * A[0][2] + R[0][1] * A[1][2] + R[0][2] * A[2][2];
    T[1][0] = R[1][0] * A[0][0] + R[1][1] * A[1][0] + R[1][2] * A[2][0];
    T[1][1] = R[1][0] * A[0][1] + R[1][1] * A[1][1] + R[1][2] * A[2][1];
    T[1][2] = R[1][0] * A[0][2] + R[1][1] * A[1][2] + R[1][2] * A[2][2];
    T[2][0] = R[2][0] * A[0][0] + R[2][1] * A[1][0] + R[2][2] * A[2][0];
    T[2][1] = R[2][0] * A[0][1] + R[2][1] * A[1][1] + R[2][2] * A[2][1];
    T[2][2] = R[2][0] * A[0][2] + R[2][1] * A[1][2] + R[2][2] * A[2][2];
    heft_mat3 w;
    w.m[0][0] = T[0][0] * R[0][0] + T[0][1] * R[0][1] + T[0][2] * R[0][2];
    w.m[0][1] = T[0][0] * R[1][0] + T[0][1] * R[1][1] + T[0][2] * R[1][2];
    w.m[0][2] = T[0][0] * R[2][0] + T[0][1] * R[2][1] + T[0][2] * R[2][2];
    w.m[1][0] = T[1][0] * R[0][0] + T[1][1] * R[0][1] + T[1][2] * R[0][2];
    w.m[1][1] = T[1][0] * R[1][0] + T[1][1] * R[1][1] + T[1][2] * R[1][2];
    w.m[1][2] = T[1][0] * R[2][0] + T[1][1] * R[2][1] + T[1][2] * R[2][2];
    w.m[2][0] = T[2][0] * R[0][0] + T[2][1] * R[0][1] + T[2][2] * R[0][2];
    w.m[2][1] = T[2][0] * R[1][0] + T[2][1] * R[1][1] + T[2][2] * R[1][2];
    w.m[2][2] = T[2][0] * R[2][0] + T[2][1] * R[2][1] + T[2][2] * R[2][2];
    return w;
}
static inline int heft_mat3_isfinite(heft_mat3 a) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            if (!isfinite(a.m[i][j])) {
                return 0;
            }
        }
    }
    return 1;
}

#ifdef __cplusplus
}
#endif

#endif
