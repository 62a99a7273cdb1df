/* Capsule against capsule: the closest points of the two axes, or, when the
 * axes are nearly parallel and overlap, a point at each end of the overlap so
 * that a capsule lying along another rests on two points. */
#include "convex.h"

int collide_capsules(const convex_view *a, const convex_view *b, double margin, manifold *m) {
    double s, t;
    segments_closest(a->p[0], a->p[1], b->p[0], b->p[1], &s, &t);
    heft_vec3 pa = v3_lerp(a->p[0], a->p[1], s), pb = v3_lerp(b->p[0], b->p[1], t);
    heft_vec3 diff = heft_v3_sub(pb, pa);
    double d = heft_v3_length(diff);
    m->count = 0;
    if (d - a->radius - b->radius > margin) {
        return 0;
    }
    heft_vec3 n;
    if (d > 1e-12 * (a->size + b->size)) {
        n = heft_v3_scale(diff, 1.0 / d);
    } else {
        /* the axes cross: push along their common normal, away from a's centre */
        heft_vec3 ua = heft_v3_sub(a->p[1], a->p[0]), ub = heft_v3_sub(b->p[1], b->p[0]);
        n = heft_v3_cross(ua, ub);
        if (!(heft_v3_length(n) > 1e-12 * (a->size + b->size) * (a->size + b->size))) {
            n = heft_v3_length(ua) > 0.0 ? v3_perpendicular(ua) : heft_v3(0.0, 0.0, 1.0);
        }
        n = heft_v3_normalize(n);
        if (heft_v3_dot(n, heft_v3_sub(b->centroid, a->centroid)) < 0.0) {
            n = heft_v3_neg(n);
        }
    }
    contact_point pts[2];
    int count = segment_pair_points(a->p[0], a->p[1], a->radius, b->p[0], b->p[1], b->radius, n,
                                    margin, pts);
    if (count == 0) {
        pts[0] = manifold_single(pb, n, d, a->radius, b->radius,
                                 feature_id(FEATURE_KIND_POINT, 0, 0, 0));
        count = pts[0].separation <= margin;
    }
    for (int i = 0; i < count; ++i) {
        m->points[i] = pts[i];
    }
    m->count = count;
    manifold_sort(m->points, count);
    return count;
}
