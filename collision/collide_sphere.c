/* Spheres against spheres and capsules: closest points of the centres (and
 * the capsule's axis), one contact point. */
#include "convex.h"

/* The direction from p to q, or fallback when they coincide. */
static heft_vec3 direction(heft_vec3 p, heft_vec3 q, double tiny, heft_vec3 fallback,
                           double *dist) {
    heft_vec3 d = heft_v3_sub(q, p);
    double l = heft_v3_length(d);
    *dist = l;
    return l > tiny ? heft_v3_scale(d, 1.0 / l) : fallback;
}

int collide_spheres(const convex_view *a, const convex_view *b, double margin, manifold *m) {
    double d;
    heft_vec3 n =
        direction(a->p[0], b->p[0], 1e-12 * (a->size + b->size), heft_v3(0.0, 0.0, 1.0), &d);
    contact_point c = manifold_single(b->p[0], n, d, a->radius, b->radius,
                                      feature_id(FEATURE_KIND_POINT, 0, 0, 0));
    m->count = 0;
    if (c.separation <= margin) {
        m->points[m->count++] = c;
    }
    return m->count;
}

int collide_sphere_capsule(const convex_view *a, const convex_view *b, double margin, manifold *m) {
    double t = segment_closest_t(b->p[0], b->p[1], a->p[0]);
    heft_vec3 q = v3_lerp(b->p[0], b->p[1], t);
    double d;
    heft_vec3 axis = heft_v3_sub(b->p[1], b->p[0]);
    heft_vec3 fallback =
        heft_v3_length(axis) > 0.0 ? v3_perpendicular(axis) : heft_v3(0.0, 0.0, 1.0);
    heft_vec3 n = direction(a->p[0], q, 1e-12 * (a->size + b->size), fallback, &d);
    contact_point c =
        manifold_single(q, n, d, a->radius, b->radius, feature_id(FEATURE_KIND_POINT, 0, 0, 0));
    m->count = 0;
    if (c.separation <= margin) {
        m->points[m->count++] = c;
    }
    return m->count;
}
