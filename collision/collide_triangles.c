/* Convex shapes against triangle meshes and height fields. Each triangle
 * under the shape's box is a flat polytope collided like any other; then
 * - triangles are one-sided: a shape whose centre is behind a triangle's
 *   plane, and contact normals pointing behind it, are ignored;
 * - contacts on an internal edge (flat or concave, not a ridge) take the
 *   face normal, so shapes slide across triangle seams without catching;
 * - the points of all triangles merge and reduce to 4 per pair, each keeping
 *   its triangle index in the feature id. */
#include <stdlib.h>

#include "narrowphase.h"

static int grow_triangles(narrow_scratch *s, int need) {
    if (need <= s->triangle_capacity) {
        return 1;
    }
    int cap = s->triangle_capacity ? s->triangle_capacity : 64;
    while (cap < need) {
        cap *= 2;
    }
    int32_t *p = heft_realloc(s->triangles, sizeof(int32_t) * (size_t)cap);
    if (!p) {
        return 0;
    }
    s->triangles = p;
    s->triangle_capacity = cap;
    return 1;
}

static int grow_points(narrow_scratch *s, int need) {
    if (need <= s->point_capacity) {
        return 1;
    }
    int cap = s->point_capacity ? s->point_capacity : 64;
    while (cap < need) {
        cap *= 2;
    }
    contact_point *p = heft_realloc(s->points, sizeof(contact_point) * (size_t)cap);
    if (!p) {
        return 0;
    }
    s->points = p;
    s->point_capacity = cap;
    return 1;
}

int narrow_scratch_reserve(narrow_scratch *s, int triangles, int points) {
    return grow_triangles(s, triangles) && grow_points(s, points);
}

static int compare_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

static int query(const shape *a, aabb box, narrow_scratch *s) {
    for (;;) {
        int n = a->type == HEFT_SHAPE_MESH
                    ? mesh_query(a->mesh, box, s->triangles, s->triangle_capacity)
                    : height_field_query(a->field, box, s->triangles, s->triangle_capacity);
        if (n <= s->triangle_capacity) {
            return n;
        }
        if (!grow_triangles(s, n)) {
            return -1;
        }
    }
}

/* Is the contact on an internal edge or vertex of the triangle? */
static int on_internal_feature(const triangle *tri, const heft_vec3 w[3], heft_vec3 p, double tol) {
    double bary[3];
    triangle_closest_point(w[0], w[1], w[2], p, bary);
    int on_edge[3], count = 0;
    for (int e = 0; e < 3; ++e) {
        /* edge e runs v[e] -> v[e+1]; the weight of the opposite vertex vanishes on it */
        on_edge[e] = bary[(e + 2) % 3] <= tol;
        count += on_edge[e];
    }
    if (count == 0) {
        return 0;
    }
    for (int e = 0; e < 3; ++e) {
        if (on_edge[e] && (tri->real_edges & (1u << e))) {
            return 0; /* a real edge (or a vertex with one) keeps its normal */
        }
    }
    return 1;
}

/* Does p project into the triangle (within tol)? */
static int over_triangle(const heft_vec3 w[3], heft_vec3 n, heft_vec3 p, double tol) {
    for (int e = 0; e < 3; ++e) {
        heft_vec3 side = heft_v3_normalize(heft_v3_cross(heft_v3_sub(w[(e + 1) % 3], w[e]), n));
        if (heft_v3_dot(side, heft_v3_sub(p, w[e])) > tol) {
            return 0;
        }
    }
    return 1;
}

int collide_triangles(const shape *a, const transform *ta, const convex_view *b, aabb b_box,
                      double margin, narrow_scratch *scratch, manifold *m) {
    m->count = 0;
    aabb local = aabb_inv_transform(ta, b_box);
    int nt = query(a, local, scratch);
    if (nt < 0) {
        return -1;
    }
    if (nt == 0) {
        return 0;
    }
    qsort(scratch->triangles, (size_t)nt, sizeof(int32_t), compare_int32);
    if (!grow_points(scratch, MANIFOLD_MAX_POINTS * nt)) {
        return -1;
    }
    contact_point *pts = scratch->points;
    int count = 0;
    for (int k = 0; k < nt; ++k) {
        triangle tri;
        if (a->type == HEFT_SHAPE_MESH) {
            mesh_triangle(a->mesh, scratch->triangles[k], &tri);
        } else {
            height_field_triangle(a->field, scratch->triangles[k], &tri);
        }
        heft_vec3 w[3];
        for (int i = 0; i < 3; ++i) {
            w[i] = transform_point(ta, tri.v[i]);
        }
        heft_vec3 n = transform_vector(ta, tri.n);
        if (heft_v3_dot(n, heft_v3_sub(b->centroid, w[0])) < 0.0) {
            continue; /* behind the triangle */
        }
        triangle_hull th;
        triangle_hull_make(&th, w[0], w[1], w[2]);
        convex_view tv;
        convex_view_world_polytope(&tv, &th.hull);
        manifold tm;
        collide_convex(&tv, b, margin, &tm);
        for (int i = 0; i < tm.count; ++i) {
            contact_point c = tm.points[i];
            double align = heft_v3_dot(c.normal, n);
            if (align <= 1e-6) {
                continue; /* pushes towards the solid side */
            }
            if (FEATURE_KIND_OF(c.feature) == FEATURE_KIND_CLIP) {
                /* cut by an internal edge: the neighbour makes the same
                 * point, and neither is a corner of the contact region */
                heft_vec3 on_triangle = heft_v3_madd(c.point, -c.separation, c.normal);
                if (on_internal_feature(&tri, w, on_triangle, 1e-9)) {
                    continue;
                }
            }
            if (align < 1.0 - 1e-9) {
                heft_vec3 on_triangle = heft_v3_madd(c.point, -c.separation, c.normal);
                if (on_internal_feature(&tri, w, on_triangle, 1e-6)) {
                    /* the face normal instead; the point must then lie over
                     * this triangle (a neighbour owns it otherwise) */
                    c.separation = heft_v3_dot(heft_v3_sub(c.point, w[0]), n);
                    c.normal = n;
                    if (c.separation > margin || !over_triangle(w, n, c.point, 1e-9 * b->size)) {
                        continue;
                    }
                }
            }
            c.feature |= (uint64_t)(uint32_t)tri.index << 32;
            pts[count++] = c;
        }
    }
    count = manifold_merge(pts, count, 1e-4 + 1e-3 * b->size);
    count = manifold_reduce(pts, count);
    for (int i = 0; i < count; ++i) {
        m->points[i] = pts[i];
    }
    m->count = count;
    manifold_sort(m->points, count);
    return count;
}
