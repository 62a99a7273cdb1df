/* The pairs without a closed form: spheres and capsules against polytopes,
 * and everything against cylinders. GJK gives the distance between the cores
 * (the shapes less their radii) and the normal; when the cores overlap, the
 * separating axes (a point or segment against a polytope) or EPA (with a
 * cylinder) give the penetration. The points then come from the features
 * along the normal (manifold_from_features). */
#include "convex.h"

/* Separating axes of a point or segment core a against polytope b: b's face
 * normals and the cross products of a's segment with b's edges. Gives the
 * normal (a to b), the signed core distance and the deepest points. */
static void core_axes(const convex_view *a, const convex_view *b, heft_vec3 *normal, double *dist,
                      heft_vec3 *pa, heft_vec3 *pb) {
    int na = a->kind == CONVEX_POINT ? 1 : 2;
    double best = -INFINITY;
    heft_vec3 n = heft_v3(0.0, 0.0, 1.0);
    for (int f = 0; f < b->hull->face_count; ++f) {
        const hull_plane *pl = &b->planes[f];
        double sep = INFINITY;
        for (int i = 0; i < na; ++i) {
            sep = fmin(sep, heft_v3_dot(pl->normal, a->p[i]) - pl->offset);
        }
        if (sep > best) {
            best = sep;
            n = heft_v3_neg(pl->normal);
        }
    }
    if (na == 2) {
        heft_vec3 u = heft_v3_sub(a->p[1], a->p[0]);
        const convex_hull *h = b->hull;
        for (int e = 0; e < h->edge_count; ++e) {
            if (h->edges[e].twin < e) {
                continue;
            }
            heft_vec3 d =
                heft_v3_sub(b->v[h->edges[h->edges[e].twin].origin], b->v[h->edges[e].origin]);
            heft_vec3 c = heft_v3_cross(u, d);
            double len = heft_v3_length(c);
            if (len < 1e-6 * heft_v3_length(u) * heft_v3_length(d)) {
                continue;
            }
            c = heft_v3_scale(c, 1.0 / len);
            if (heft_v3_dot(c, heft_v3_sub(b->centroid, a->centroid)) < 0.0) {
                c = heft_v3_neg(c);
            }
            int s = convex_hull_support(b->v, h->vertex_count, heft_v3_neg(c));
            double sep =
                heft_v3_dot(c, b->v[s]) - fmax(heft_v3_dot(c, a->p[0]), heft_v3_dot(c, a->p[1]));
            if (sep > best) {
                best = sep;
                n = c;
            }
        }
    }
    /* a's core point deepest along n, and b's surface point in front of it */
    heft_vec3 p = a->p[0];
    if (na == 2 && heft_v3_dot(a->p[1], n) > heft_v3_dot(a->p[0], n)) {
        p = a->p[1];
    }
    *normal = n;
    *dist = best;
    *pa = p;
    *pb = heft_v3_madd(p, best, n);
}

/* A sphere against a triangle: the closest point of the triangle, exactly. */
static int sphere_triangle(const convex_view *a, const convex_view *b, double margin, manifold *m) {
    double bary[3];
    heft_vec3 q = triangle_closest_point(b->v[0], b->v[1], b->v[2], a->p[0], bary);
    heft_vec3 d = heft_v3_sub(q, a->p[0]);
    double dist = heft_v3_length(d);
    heft_vec3 n;
    if (dist > 1e-12 * (a->size + b->size)) {
        n = heft_v3_scale(d, 1.0 / dist);
    } else {
        /* the centre on the triangle: push along the face normal, out of its side */
        n = b->planes[0].normal;
        dist = 0.0;
    }
    double sep = dist - a->radius;
    m->count = 0;
    if (sep <= margin) {
        m->points[0] =
            manifold_single(q, n, dist, a->radius, 0.0, feature_id(FEATURE_KIND_POINT, 0, 0, 0));
        m->count = 1;
    }
    return m->count;
}

int collide_gjk(const convex_view *a, const convex_view *b, double margin, manifold *m) {
    m->count = 0;
    if (a->kind == CONVEX_POINT && b->kind == CONVEX_POLYTOPE && b->hull->vertex_count == 3) {
        return sphere_triangle(a, b, margin, m);
    }
    gjk_output g;
    gjk_distance(&a->proxy, &b->proxy, a->radius + b->radius + margin, &g);
    double ra = a->radius, rb = b->radius, tiny = 1e-10 * (a->size + b->size);
    heft_vec3 n, pa, pb;
    double dist;
    if (!g.overlap && g.distance > tiny) {
        dist = g.distance;
        if (dist - ra - rb > margin) {
            return 0;
        }
        n = heft_v3_scale(heft_v3_sub(g.pb, g.pa), 1.0 / dist);
        pa = g.pa;
        pb = g.pb;
    } else if (b->kind == CONVEX_POLYTOPE && a->kind <= CONVEX_SEGMENT) {
        core_axes(a, b, &n, &dist, &pa, &pb);
        if (dist - ra - rb > margin) {
            return 0;
        }
    } else {
        double depth;
        if (!epa_penetration(&a->proxy, &b->proxy, &g.simplex, &n, &depth, &pa, &pb)) {
            return 0;
        }
        dist = -depth;
    }
    return manifold_from_features(a, b, n, pa, pb, dist, margin, m);
}
