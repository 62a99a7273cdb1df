/* Small geometry shared by the collision files: axis-aligned boxes, rigid
 * transforms (rotation matrix plus translation), closest points on segments
 * and triangles. Private to the library. */
#ifndef HEFT_GEOMETRY_H
#define HEFT_GEOMETRY_H

#include <float.h>
#include <stdint.h>

#include "heft_math.h"

typedef struct aabb {
    heft_vec3 lo, hi;
} aabb;

/* x_world = R x_local + p */
typedef struct transform {
    heft_mat3 R;
    heft_vec3 p;
} transform;

static inline double v3_get(heft_vec3 v, int i) {
    return i == 0 ? v.x : (i == 1 ? v.y : v.z);
}
static inline heft_vec3 v3_min(heft_vec3 a, heft_vec3 b) {
    return heft_v3(fmin(a.x, b.x), fmin(a.y, b.y), fmin(a.z, b.z));
}
static inline heft_vec3 v3_max(heft_vec3 a, heft_vec3 b) {
    return heft_v3(fmax(a.x, b.x), fmax(a.y, b.y), fmax(a.z, b.z));
}
static inline double v3_length2(heft_vec3 a) {
    return heft_v3_dot(a, a);
}
static inline heft_vec3 v3_lerp(heft_vec3 a, heft_vec3 b, double t) {
    return heft_v3_madd(a, t, heft_v3_sub(b, a));
}
/* A unit vector perpendicular to n (n need not be unit). */
static inline heft_vec3 v3_perpendicular(heft_vec3 n) {
    heft_vec3 a = fabs(n.x) < 0.57735 ? heft_v3(1.0, 0.0, 0.0) : heft_v3(0.0, 1.0, 0.0);
    return heft_v3_normalize(heft_v3_cross(n, a));
}

static inline transform transform_make(heft_vec3 p, heft_quat q) {
    transform t;
    t.R = heft_quat_to_mat3(q);
    t.p = p;
    return t;
}
static inline heft_vec3 transform_point(const transform *t, heft_vec3 v) {
    return heft_v3_add(heft_mat3_mulv(t->R, v), t->p);
}
static inline heft_vec3 transform_vector(const transform *t, heft_vec3 v) {
    return heft_mat3_mulv(t->R, v);
}
/* R^T v */
static inline heft_vec3 transform_inv_vector(const transform *t, heft_vec3 v) {
    const heft_mat3 *R = &t->R;
    return heft_v3(R->m[0][0] * v.x + R->m[1][0] * v.y + R->m[2][0] * v.z,
                   R->m[0][1] * v.x + R->m[1][1] * v.y + R->m[2][1] * v.z,
                   R->m[0][2] * v.x + R->m[1][2] * v.y + R->m[2][2] * v.z);
}
static inline heft_vec3 transform_inv_point(const transform *t, heft_vec3 v) {
    return transform_inv_vector(t, heft_v3_sub(v, t->p));
}
/* a * b: first b, then a */
static inline transform transform_mul(const transform *a, const transform *b) {
    transform r;
    r.R = heft_mat3_mul(a->R, b->R);
    r.p = transform_point(a, b->p);
    return r;
}

static inline aabb aabb_make(heft_vec3 lo, heft_vec3 hi) {
    aabb b;
    b.lo = lo;
    b.hi = hi;
    return b;
}
static inline aabb aabb_union(aabb a, aabb b) {
    return aabb_make(v3_min(a.lo, b.lo), v3_max(a.hi, b.hi));
}
static inline int aabb_overlap(const aabb *a, const aabb *b) {
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y && b->lo.y <= a->hi.y &&
           a->lo.z <= b->hi.z && b->lo.z <= a->hi.z;
}
/* a contains b */
static inline int aabb_contains(const aabb *a, const aabb *b) {
    return a->lo.x <= b->lo.x && a->lo.y <= b->lo.y && a->lo.z <= b->lo.z && b->hi.x <= a->hi.x &&
           b->hi.y <= a->hi.y && b->hi.z <= a->hi.z;
}
static inline aabb aabb_grow(aabb a, double r) {
    heft_vec3 e = heft_v3(r, r, r);
    return aabb_make(heft_v3_sub(a.lo, e), heft_v3_add(a.hi, e));
}
/* half the surface area: the insertion cost of the tree */
static inline double aabb_perimeter(aabb a) {
    heft_vec3 d = heft_v3_sub(a.hi, a.lo);
    return d.x * d.y + d.y * d.z + d.z * d.x;
}
/* The box of a local box under a transform. */
static inline aabb aabb_transform(const transform *t, aabb local) {
    heft_vec3 c = heft_v3_scale(heft_v3_add(local.lo, local.hi), 0.5);
    heft_vec3 e = heft_v3_scale(heft_v3_sub(local.hi, local.lo), 0.5);
    heft_vec3 wc = transform_point(t, c);
    heft_vec3 we;
    we.x = fabs(t->R.m[0][0]) * e.x + fabs(t->R.m[0][1]) * e.y + fabs(t->R.m[0][2]) * e.z;
    we.y = fabs(t->R.m[1][0]) * e.x + fabs(t->R.m[1][1]) * e.y + fabs(t->R.m[1][2]) * e.z;
    we.z = fabs(t->R.m[2][0]) * e.x + fabs(t->R.m[2][1]) * e.y + fabs(t->R.m[2][2]) * e.z;
    return aabb_make(heft_v3_sub(wc, we), heft_v3_add(wc, we));
}
/* The box of a world box seen in the frame of t (x_local = R^T (x - p)). */
static inline aabb aabb_inv_transform(const transform *t, aabb world) {
    transform inv;
    inv.R = heft_mat3_transpose(t->R);
    inv.p = heft_v3_neg(heft_mat3_mulv(inv.R, t->p));
    return aabb_transform(&inv, world);
}

/* Closest point of segment [a, b] to p, as the parameter t in [0, 1]. */
static inline double segment_closest_t(heft_vec3 a, heft_vec3 b, heft_vec3 p) {
    heft_vec3 e = heft_v3_sub(b, a);
    double ee = heft_v3_dot(e, e);
    if (ee <= 0.0) {
        return 0.0;
    }
    double t = heft_v3_dot(heft_v3_sub(p, a), e) / ee;
    return t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
}

/* One triangle of a mesh or height field, in the shape's frame. */
typedef struct triangle {
    heft_vec3 v[3];
    heft_vec3 n;        /* unit, (v1 - v0) x (v2 - v0) direction: the colliding side */
    uint8_t real_edges; /* bit i: edge v[i] -> v[i+1] is convex or on the border, so
                           contact normals from it are real (not an internal edge) */
    int32_t index;
} triangle;

/* Ray against a triangle from its front side (Moller-Trumbore): the
 * parameter t of origin + t dir in [0, max_t], or -1. */
double triangle_ray(const triangle *tri, heft_vec3 origin, heft_vec3 dir, double max_t);

/* Closest points of segments [p1, q1] and [p2, q2]: parameters s, t. */
void segments_closest(heft_vec3 p1, heft_vec3 q1, heft_vec3 p2, heft_vec3 q2, double *s, double *t);

/* Closest point of triangle abc to p, with barycentric weights (u, v, w). */
heft_vec3 triangle_closest_point(heft_vec3 a, heft_vec3 b, heft_vec3 c, heft_vec3 p, double *bary);

#endif
