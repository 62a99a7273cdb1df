/* Convex views of shapes in world frame, their supporting features, the
 * dispatch over pair families, and manifolds built from features. */
#include "convex.h"

#include <string.h>

void convex_view_sphere(convex_view *cv, heft_vec3 center, double radius) {
    memset(cv, 0, sizeof *cv);
    cv->kind = CONVEX_POINT;
    cv->radius = radius;
    cv->p[0] = cv->p[1] = center;
    cv->centroid = center;
    cv->size = radius;
    cv->proxy.points = cv->p;
    cv->proxy.count = 1;
}

void convex_view_capsule(convex_view *cv, heft_vec3 a, heft_vec3 b, double radius) {
    memset(cv, 0, sizeof *cv);
    cv->kind = CONVEX_SEGMENT;
    cv->radius = radius;
    cv->p[0] = a;
    cv->p[1] = b;
    cv->centroid = heft_v3_scale(heft_v3_add(a, b), 0.5);
    cv->size = radius + 0.5 * heft_v3_length(heft_v3_sub(b, a));
    cv->proxy.points = cv->p;
    cv->proxy.count = 2;
}

static void finish_polytope(convex_view *cv, const convex_hull *h) {
    cv->kind = CONVEX_POLYTOPE;
    cv->hull = h;
    double s = 0.0;
    for (int i = 0; i < h->vertex_count; ++i) {
        /* a comparison, not the library's fmax: s and d are never NaN
         * together, and fmax keeps s when d is */
        const double d = v3_length2(heft_v3_sub(cv->v[i], cv->centroid));
        s = d > s ? d : s;
    }
    cv->size = sqrt(s);
    cv->proxy.points = cv->v;
    cv->proxy.count = h->vertex_count;
}

void convex_view_polytope(convex_view *cv, const convex_hull *h, const transform *t,
                          convex_storage *st) {
    convex_view_polytope_into(cv, h, t, st->v, st->planes);
}

void convex_view_polytope_into(convex_view *cv, const convex_hull *h, const transform *t,
                               heft_vec3 *v, hull_plane *planes) {
    memset(cv, 0, sizeof *cv);
    for (int i = 0; i < h->vertex_count; ++i) {
        v[i] = transform_point(t, h->vertices[i]);
    }
    for (int f = 0; f < h->face_count; ++f) {
        planes[f].normal = transform_vector(t, h->planes[f].normal);
        planes[f].offset = h->planes[f].offset + heft_v3_dot(planes[f].normal, t->p);
    }
    cv->v = v;
    cv->planes = planes;
    cv->centroid = transform_point(t, h->centroid);
    finish_polytope(cv, h);
}

void convex_view_world_polytope(convex_view *cv, const convex_hull *h) {
    memset(cv, 0, sizeof *cv);
    cv->v = h->vertices;
    cv->planes = h->planes;
    cv->centroid = h->centroid;
    finish_polytope(cv, h);
}

void convex_view_cylinder(convex_view *cv, const transform *t, double radius, double half_length) {
    memset(cv, 0, sizeof *cv);
    cv->kind = CONVEX_CYLINDER;
    cv->centroid = t->p;
    cv->x_axis = transform_vector(t, heft_v3(1.0, 0.0, 0.0));
    cv->y_axis = transform_vector(t, heft_v3(0.0, 1.0, 0.0));
    cv->axis = transform_vector(t, heft_v3(0.0, 0.0, 1.0));
    cv->cyl_radius = radius;
    cv->cyl_half = half_length;
    cv->size = fmax(radius, half_length);
    cv->proxy.cylinder = 1;
    cv->proxy.center = t->p;
    cv->proxy.axis = cv->axis;
    cv->proxy.radius = radius;
    cv->proxy.half_length = half_length;
}

void polytope_face_feature(const convex_view *cv, int face, feature *f) {
    const convex_hull *h = cv->hull;
    int e0 = h->face_edge[face], e = e0, n = 0;
    do {
        const hull_half_edge *he = &h->edges[e];
        if (n < FEATURE_MAX) {
            f->v[n] = cv->v[he->origin];
            f->vid[n] = he->origin;
            f->eid[n] = (uint16_t)(e < he->twin ? e : he->twin);
            n++;
        }
        e = he->next;
    } while (e != e0);
    f->count = n;
    f->normal = cv->planes[face].normal;
    f->fid = (uint16_t)face;
}

static void point_feature(feature *f, heft_vec3 p, int id) {
    f->count = 1;
    f->v[0] = p;
    f->vid[0] = (uint16_t)id;
    f->eid[0] = (uint16_t)id;
    f->fid = 0;
    f->normal = heft_v3(0.0, 0.0, 0.0);
}

static void segment_feature(feature *f, heft_vec3 a, heft_vec3 b, int ida, int idb, int edge) {
    f->count = 2;
    f->v[0] = a;
    f->v[1] = b;
    f->vid[0] = (uint16_t)ida;
    f->vid[1] = (uint16_t)idb;
    f->eid[0] = f->eid[1] = (uint16_t)edge;
    f->fid = 0;
    f->normal = heft_v3(0.0, 0.0, 0.0);
}

static void polytope_feature(const convex_view *cv, heft_vec3 d, feature *f) {
    const convex_hull *h = cv->hull;
    int best = 0;
    double bd = -INFINITY;
    for (int k = 0; k < h->face_count; ++k) {
        double x = heft_v3_dot(cv->planes[k].normal, d);
        if (x > bd) {
            bd = x;
            best = k;
        }
    }
    if (bd >= FEATURE_FACE_COS) {
        polytope_face_feature(cv, best, f);
        return;
    }
    int i = convex_hull_support(cv->v, h->vertex_count, d);
    int best_e = -1;
    double best_s = INFINITY;
    for (int e = 0; e < h->edge_count; ++e) {
        if (h->edges[e].origin != i) {
            continue;
        }
        int j = h->edges[h->edges[e].next].origin;
        heft_vec3 dir = heft_v3_sub(cv->v[j], cv->v[i]);
        double len = heft_v3_length(dir);
        double s = len > 0.0 ? fabs(heft_v3_dot(dir, d)) / len : INFINITY;
        if (s < best_s) {
            best_s = s;
            best_e = e;
        }
    }
    if (best_e >= 0 && best_s <= FEATURE_EDGE_SIN) {
        int j = h->edges[h->edges[best_e].next].origin;
        int twin = h->edges[best_e].twin;
        segment_feature(f, cv->v[i], cv->v[j], i, j, best_e < twin ? best_e : twin);
        return;
    }
    point_feature(f, cv->v[i], i);
}

static void cylinder_feature(const convex_view *cv, heft_vec3 d, feature *f) {
    heft_vec3 u = cv->axis;
    double c = heft_v3_dot(u, d), r = cv->cyl_radius, hl = cv->cyl_half;
    if (fabs(c) >= FEATURE_FACE_COS) {
        int top = c > 0.0;
        heft_vec3 center = heft_v3_madd(cv->centroid, top ? hl : -hl, u);
        for (int k = 0; k < CYLINDER_CAP_POINTS; ++k) {
            /* counter-clockwise about the outward normal: ascending angles on
             * top (x cross y = axis), descending on the bottom */
            int m = top ? k : CYLINDER_CAP_POINTS - 1 - k;
            double ang = 2.0 * HEFT_PI * m / CYLINDER_CAP_POINTS;
            f->v[k] = heft_v3_madd(heft_v3_madd(center, r * cos(ang), cv->x_axis), r * sin(ang),
                                   cv->y_axis);
            f->vid[k] = (uint16_t)((top ? 0 : CYLINDER_CAP_POINTS) + m);
        }
        for (int k = 0; k < CYLINDER_CAP_POINTS; ++k) {
            f->eid[k] = f->vid[k];
        }
        f->count = CYLINDER_CAP_POINTS;
        f->normal = top ? u : heft_v3_neg(u);
        f->fid = (uint16_t)(top ? 0 : 1);
        return;
    }
    heft_vec3 radial = heft_v3_madd(d, -c, u);
    double rl = heft_v3_length(radial);
    radial = rl > 1e-12 ? heft_v3_scale(radial, 1.0 / rl) : cv->x_axis;
    if (fabs(c) <= FEATURE_EDGE_SIN) {
        heft_vec3 side = heft_v3_madd(cv->centroid, r, radial);
        segment_feature(f, heft_v3_madd(side, -hl, u), heft_v3_madd(side, hl, u),
                        2 * CYLINDER_CAP_POINTS, 2 * CYLINDER_CAP_POINTS + 1,
                        2 * CYLINDER_CAP_POINTS);
        return;
    }
    heft_vec3 rim = heft_v3_madd(heft_v3_madd(cv->centroid, c > 0.0 ? hl : -hl, u), r, radial);
    point_feature(f, rim, 2 * CYLINDER_CAP_POINTS + 2 + (c > 0.0));
}

void convex_feature(const convex_view *cv, heft_vec3 d, feature *f) {
    switch (cv->kind) {
    case CONVEX_POINT:
        point_feature(f, cv->p[0], 0);
        return;
    case CONVEX_SEGMENT: {
        heft_vec3 u = heft_v3_sub(cv->p[1], cv->p[0]);
        double len = heft_v3_length(u);
        if (!(len > 1e-12 * cv->size)) {
            point_feature(f, cv->p[0], 0);
            return;
        }
        double c = heft_v3_dot(u, d) / len;
        if (fabs(c) < 0.7) {
            segment_feature(f, cv->p[0], cv->p[1], 0, 1, 0);
        } else {
            point_feature(f, c > 0.0 ? cv->p[1] : cv->p[0], c > 0.0);
        }
        return;
    }
    case CONVEX_POLYTOPE:
        polytope_feature(cv, d, f);
        return;
    case CONVEX_CYLINDER:
        cylinder_feature(cv, d, f);
        return;
    }
}

int segment_pair_points(heft_vec3 a0, heft_vec3 a1, double ra, heft_vec3 b0, heft_vec3 b1,
                        double rb, heft_vec3 n, double margin, contact_point *out) {
    heft_vec3 ua = heft_v3_sub(a1, a0), ub = heft_v3_sub(b1, b0);
    double la = heft_v3_length(ua), lb = heft_v3_length(ub);
    if (!(la > 0.0) || !(lb > 0.0) ||
        heft_v3_length(heft_v3_cross(ua, ub)) > FEATURE_EDGE_SIN * la * lb) {
        return 0;
    }
    /* along the bisector of the two directions, so that the result does not
     * depend on which segment is a */
    ua = heft_v3_scale(ua, 1.0 / la);
    ub = heft_v3_scale(ub, heft_v3_dot(ua, ub) >= 0.0 ? 1.0 / lb : -1.0 / lb);
    heft_vec3 u = heft_v3_normalize(heft_v3_add(ua, ub));
    double sa0 = heft_v3_dot(a0, u), sa1 = heft_v3_dot(a1, u), sb0 = heft_v3_dot(b0, u),
           sb1 = heft_v3_dot(b1, u);
    double lo = fmax(fmin(sa0, sa1), fmin(sb0, sb1)), hi = fmin(fmax(sa0, sa1), fmax(sb0, sb1));
    if (!(hi - lo > 1e-6 * (la + lb))) {
        return 0;
    }
    int m = 0;
    for (int k = 0; k < 2; ++k) {
        double x = k == 0 ? lo : hi;
        /* the points of each segment whose projection on u is x */
        heft_vec3 pa = v3_lerp(a0, a1, (x - sa0) / (sa1 - sa0));
        heft_vec3 pb = v3_lerp(b0, b1, (x - sb0) / (sb1 - sb0));
        heft_vec3 diff = heft_v3_sub(pb, pa);
        double d = heft_v3_length(diff);
        heft_vec3 nk = d > 1e-12 * (la + lb) ? heft_v3_scale(diff, 1.0 / d) : n;
        if (heft_v3_dot(nk, n) < 0.0) {
            /* the cores cross: keep the pair's normal */
            nk = n;
            d = heft_v3_dot(diff, n);
        }
        double sep = d - ra - rb;
        if (sep <= margin) {
            out[m].point = heft_v3_madd(pb, -rb, nk);
            out[m].normal = nk;
            out[m].separation = sep;
            out[m].feature = feature_id(FEATURE_KIND_EDGES, 0, (unsigned)k, 0);
            m++;
        }
    }
    return m;
}

/* The line a shape's side feature runs along: a cylinder's axis, a capsule's
 * segment, else the feature itself. */
static void core_line(const convex_view *cv, const feature *f, heft_vec3 *p, heft_vec3 *u) {
    if (cv->kind == CONVEX_CYLINDER) {
        *p = cv->centroid;
        *u = cv->axis;
    } else if (cv->kind == CONVEX_SEGMENT) {
        *p = cv->p[0];
        *u = heft_v3_normalize(heft_v3_sub(cv->p[1], cv->p[0]));
    } else {
        *p = f->v[0];
        *u = heft_v3_normalize(heft_v3_sub(f->v[1], f->v[0]));
    }
}

/* Two line features with a cylinder side among them: the normal from the
 * lines themselves (their common perpendicular) is exact, where EPA's on
 * curved surfaces is good to about 1e-6 rad. */
static heft_vec3 refine_line_normal(const convex_view *a, const feature *fa, const convex_view *b,
                                    const feature *fb, heft_vec3 n) {
    heft_vec3 pa, ua, pb, ub;
    core_line(a, fa, &pa, &ua);
    core_line(b, fb, &pb, &ub);
    heft_vec3 c = heft_v3_cross(ua, ub), r;
    if (heft_v3_length(c) > FEATURE_EDGE_SIN) {
        r = c;
    } else {
        heft_vec3 d = heft_v3_sub(pb, pa);
        r = heft_v3_madd(d, -heft_v3_dot(d, ua), ua);
    }
    double len = heft_v3_length(r);
    if (!(len > 1e-12 * (a->size + b->size))) {
        return n;
    }
    r = heft_v3_scale(r, heft_v3_dot(r, n) >= 0.0 ? 1.0 / len : -1.0 / len);
    return heft_v3_dot(r, n) > 0.999 ? r : n;
}

int manifold_from_features(const convex_view *a, const convex_view *b, heft_vec3 n, heft_vec3 pa,
                           heft_vec3 pb, double dist, double margin, manifold *m) {
    feature fa, fb;
    convex_feature(a, n, &fa);
    convex_feature(b, heft_v3_neg(n), &fb);
    if (fa.count == 2 && fb.count == 2 &&
        (a->kind == CONVEX_CYLINDER || b->kind == CONVEX_CYLINDER)) {
        heft_vec3 refined = refine_line_normal(a, &fa, b, &fb, n);
        if (refined.x != n.x || refined.y != n.y || refined.z != n.z) {
            n = refined;
            convex_feature(a, n, &fa);
            convex_feature(b, heft_v3_neg(n), &fb);
        }
    }
    double ra = a->radius, rb = b->radius;
    contact_point pts[2 * FEATURE_MAX + 8];
    int count = 0;
    if (fa.count >= 3 && fb.count >= 3) {
        double align_a = heft_v3_dot(fa.normal, n), align_b = -heft_v3_dot(fb.normal, n);
        if (align_a >= align_b - 1e-9) {
            count = clip_features(&fa, &fb, 1, ra, rb, margin, pts, 2 * FEATURE_MAX + 8);
        } else {
            count = clip_features(&fb, &fa, 0, ra, rb, margin, pts, 2 * FEATURE_MAX + 8);
        }
    } else if (fa.count >= 3 && fb.count == 2) {
        count = clip_features(&fa, &fb, 1, ra, rb, margin, pts, 2 * FEATURE_MAX + 8);
    } else if (fa.count == 2 && fb.count >= 3) {
        count = clip_features(&fb, &fa, 0, ra, rb, margin, pts, 2 * FEATURE_MAX + 8);
    } else if (fa.count == 2 && fb.count == 2) {
        count = segment_pair_points(fa.v[0], fa.v[1], ra, fb.v[0], fb.v[1], rb, n, margin, pts);
    }
    if (count == 0 && fa.count <= 2 && fb.count <= 2) {
        /* points and lines are exact where GJK's and EPA's witnesses are
         * not (on curved cylinders): their closest points */
        double s, t;
        segments_closest(fa.v[0], fa.v[fa.count - 1], fb.v[0], fb.v[fb.count - 1], &s, &t);
        pa = v3_lerp(fa.v[0], fa.v[fa.count - 1], s);
        pb = v3_lerp(fb.v[0], fb.v[fb.count - 1], t);
        dist = heft_v3_dot(heft_v3_sub(pb, pa), n);
    }
    if (count == 0) {
        contact_point c = manifold_single(pb, n, dist, ra, rb,
                                          feature_id(FEATURE_KIND_POINT, 0, fa.vid[0], fb.vid[0]));
        if (c.separation > margin) {
            m->count = 0;
            return 0;
        }
        pts[count++] = c;
    }
    count = manifold_reduce(pts, count);
    for (int i = 0; i < count; ++i) {
        m->points[i] = pts[i];
    }
    m->count = count;
    manifold_sort(m->points, count);
    return count;
}

int centroid_before(heft_vec3 a, heft_vec3 b) {
    /* z first: in stacks the lower body stays the reference as bodies drift
     * sideways, which keeps feature ids (and warm starts) */
    if (a.z != b.z) {
        return a.z < b.z;
    }
    if (a.x != b.x) {
        return a.x < b.x;
    }
    return a.y < b.y;
}

static void flip(manifold *m) {
    for (int i = 0; i < m->count; ++i) {
        contact_point *c = &m->points[i];
        c->point = heft_v3_madd(c->point, -c->separation, c->normal);
        c->normal = heft_v3_neg(c->normal);
    }
}

int collide_convex(const convex_view *a, const convex_view *b, double margin, manifold *m) {
    m->count = 0;
    /* a canonical order (by kind; two cylinders by centre) makes the result
     * independent of the order of the shapes */
    if (a->kind > b->kind || (a->kind == CONVEX_CYLINDER && b->kind == CONVEX_CYLINDER &&
                              centroid_before(b->centroid, a->centroid))) {
        int n = collide_convex(b, a, margin, m);
        flip(m);
        return n;
    }
    if (a->kind == CONVEX_POINT && b->kind == CONVEX_POINT) {
        return collide_spheres(a, b, margin, m);
    }
    if (a->kind == CONVEX_POINT && b->kind == CONVEX_SEGMENT) {
        return collide_sphere_capsule(a, b, margin, m);
    }
    if (a->kind == CONVEX_SEGMENT && b->kind == CONVEX_SEGMENT) {
        return collide_capsules(a, b, margin, m);
    }
    if (a->kind == CONVEX_POLYTOPE && b->kind == CONVEX_POLYTOPE) {
        return collide_polytopes(a, b, margin, m);
    }
    return collide_gjk(a, b, margin, m);
}
