/* Polytope against polytope (boxes, hulls, mesh triangles): the separating
 * axis test over the face normals of both and the cross products of edge
 * pairs that form a face of the Minkowski difference (Gregorius, GDC 2013),
 * then either the incident face clipped against the reference face (face
 * axis) or the closest points of the two edges (edge axis). */
#include "convex.h"

typedef struct face_query {
    int face;
    double separation;
} face_query;

typedef struct edge_query {
    int edge_a, edge_b;
    double separation;
    heft_vec3 normal;
} edge_query;

/* Largest separation of b from a's face planes. */
static face_query query_faces(const convex_view *a, const convex_view *b) {
    face_query q = {-1, -INFINITY};
    for (int f = 0; f < a->hull->face_count; ++f) {
        heft_vec3 n = a->planes[f].normal;
        int s = convex_hull_support(b->v, b->hull->vertex_count, heft_v3_neg(n));
        double sep = heft_v3_dot(n, b->v[s]) - a->planes[f].offset;
        if (sep > q.separation) {
            q.separation = sep;
            q.face = f;
        }
    }
    return q;
}

/* One unique edge of a polytope in world frame: its end points and the
 * normals of its two faces. */
typedef struct world_edge {
    heft_vec3 p, q, e, u, v;
    int index;
} world_edge;

static int world_edges(const convex_view *cv, world_edge *out) {
    const convex_hull *h = cv->hull;
    int n = 0;
    for (int i = 0; i < h->edge_count; ++i) {
        const hull_half_edge *he = &h->edges[i];
        if (he->twin < i) {
            continue; /* each edge once */
        }
        world_edge *x = &out[n++];
        x->p = cv->v[he->origin];
        x->q = cv->v[h->edges[he->twin].origin];
        x->e = heft_v3_sub(x->q, x->p);
        x->u = cv->planes[he->face].normal;
        x->v = cv->planes[h->edges[he->twin].face].normal;
        x->index = i;
    }
    return n;
}

static edge_query query_edges(const convex_view *a, const convex_view *b) {
    edge_query q = {-1, -1, -INFINITY, {0.0, 0.0, 0.0}};
    double tiny = 1e-12 * (a->size + b->size);
    world_edge ea[HULL_MAX_EDGES / 2], eb[HULL_MAX_EDGES / 2];
    int na = world_edges(a, ea), nb = world_edges(b, eb);
    /* b's arcs on the Gauss map of the Minkowski difference are negated */
    for (int j = 0; j < nb; ++j) {
        eb[j].u = heft_v3_neg(eb[j].u);
        eb[j].v = heft_v3_neg(eb[j].v);
    }
    for (int i = 0; i < na; ++i) {
        const world_edge *x = &ea[i];
        heft_vec3 bxa = heft_v3_neg(x->e);
        double len1 = heft_v3_length(x->e);
        for (int j = 0; j < nb; ++j) {
            const world_edge *y = &eb[j];
            /* do the arcs u1 v1 and -u2 -v2 cross? (is_minkowski_face) */
            double cba = heft_v3_dot(y->u, bxa), dba = heft_v3_dot(y->v, bxa);
            if (cba * dba >= 0.0) {
                continue;
            }
            heft_vec3 dxc = heft_v3_neg(y->e);
            double adc = heft_v3_dot(x->u, dxc), bdc = heft_v3_dot(x->v, dxc);
            if (adc * bdc >= 0.0 || cba * bdc <= 0.0) {
                continue;
            }
            heft_vec3 c = heft_v3_cross(x->e, y->e);
            double len = heft_v3_length(c);
            if (len < 1e-6 * len1 * heft_v3_length(y->e)) {
                continue; /* parallel edges: the face axes cover them */
            }
            heft_vec3 n = heft_v3_scale(c, 1.0 / len);
            /* away from a (for a flat a, towards b) */
            double side = heft_v3_dot(n, heft_v3_sub(x->p, a->centroid));
            if (fabs(side) <= tiny) {
                side = heft_v3_dot(n, heft_v3_sub(b->centroid, y->p));
                if (fabs(side) <= tiny) {
                    continue;
                }
            }
            if (side < 0.0) {
                n = heft_v3_neg(n);
            }
            double sep = heft_v3_dot(n, heft_v3_sub(y->p, x->p));
            if (sep > q.separation) {
                q.separation = sep;
                q.edge_a = x->index;
                q.edge_b = y->index;
                q.normal = n;
            }
        }
    }
    return q;
}

/* the face of b most against normal n */
static int incident_face(const convex_view *b, heft_vec3 n) {
    int best = 0;
    double bd = INFINITY;
    for (int f = 0; f < b->hull->face_count; ++f) {
        double d = heft_v3_dot(b->planes[f].normal, n);
        if (d < bd) {
            bd = d;
            best = f;
        }
    }
    return best;
}

static double face_area(const convex_view *cv, int face) {
    const convex_hull *h = cv->hull;
    int e0 = h->face_edge[face];
    heft_vec3 p0 = cv->v[h->edges[e0].origin], sum = heft_v3(0.0, 0.0, 0.0);
    for (int e = h->edges[e0].next; h->edges[e].next != e0; e = h->edges[e].next) {
        sum = heft_v3_add(sum,
                          heft_v3_cross(heft_v3_sub(cv->v[h->edges[e].origin], p0),
                                        heft_v3_sub(cv->v[h->edges[h->edges[e].next].origin], p0)));
    }
    return 0.5 * heft_v3_length(sum);
}

static int face_contact(const convex_view *ref, int face, const convex_view *inc, int ref_is_a,
                        double separation, double margin, manifold *m) {
    feature fr, fi;
    polytope_face_feature(ref, face, &fr);
    polytope_face_feature(inc, incident_face(inc, fr.normal), &fi);
    contact_point pts[2 * FEATURE_MAX + 8];
    int n = clip_features(&fr, &fi, ref_is_a, 0.0, 0.0, margin, pts, 2 * FEATURE_MAX + 8);
    if (n == 0) {
        /* rounding clipped everything: the incident vertex deepest below the face */
        int s = convex_hull_support(inc->v, inc->hull->vertex_count, heft_v3_neg(fr.normal));
        heft_vec3 p = inc->v[s];
        heft_vec3 normal = ref_is_a ? fr.normal : heft_v3_neg(fr.normal);
        pts[0].normal = normal;
        pts[0].separation = separation;
        pts[0].point = ref_is_a ? p : heft_v3_madd(p, -separation, fr.normal);
        pts[0].feature = feature_id(FEATURE_KIND_VERTEX, !ref_is_a, fr.fid, (unsigned)s);
        n = 1;
    }
    n = manifold_reduce(pts, n);
    for (int i = 0; i < n; ++i) {
        m->points[i] = pts[i];
    }
    m->count = n;
    manifold_sort(m->points, n);
    return n;
}

int collide_polytopes(const convex_view *a, const convex_view *b, double margin, manifold *m) {
    m->count = 0;
    face_query fa = query_faces(a, b);
    if (fa.separation > margin) {
        return 0;
    }
    face_query fb = query_faces(b, a);
    if (fb.separation > margin) {
        return 0;
    }
    edge_query eq = query_edges(a, b);
    if (eq.separation > margin) {
        return 0;
    }
    /* faces are preferred: they give several points and stable ids */
    const double edge_tol = 1e-3, face_tol = 1e-4;
    double face_best = fa.separation > fb.separation ? fa.separation : fb.separation;
    if (eq.edge_a >= 0 && eq.separation > face_best + edge_tol) {
        const convex_hull *ha = a->hull, *hb = b->hull;
        heft_vec3 p1 = a->v[ha->edges[eq.edge_a].origin],
                  q1 = a->v[ha->edges[ha->edges[eq.edge_a].twin].origin];
        heft_vec3 p2 = b->v[hb->edges[eq.edge_b].origin],
                  q2 = b->v[hb->edges[hb->edges[eq.edge_b].twin].origin];
        double s, t;
        segments_closest(p1, q1, p2, q2, &s, &t);
        heft_vec3 cb = v3_lerp(p2, q2, t);
        m->points[0].point = cb;
        m->points[0].normal = eq.normal;
        m->points[0].separation = eq.separation;
        m->points[0].feature =
            feature_id(FEATURE_KIND_EDGES, 0, (unsigned)eq.edge_a, (unsigned)eq.edge_b);
        m->count = 1;
        return 1;
    }
    int use_b = fb.separation > fa.separation + face_tol;
    if (!use_b && fabs(fb.separation - fa.separation) <= face_tol) {
        /* a tie: a mesh triangle is the reference (the incident face's
         * vertices inside it are the contact's corners; its cuts along
         * internal edges are dropped), then the larger face, then the one
         * whose shape comes first by centre, whatever the order of the two */
        double area_a = face_area(a, fa.face), area_b = face_area(b, fb.face);
        int tri_a = a->hull->face_count == 2, tri_b = b->hull->face_count == 2;
        if (tri_a != tri_b) {
            use_b = tri_b;
        } else if (fabs(area_a - area_b) > 1e-9 * (area_a + area_b)) {
            use_b = area_b > area_a;
        } else {
            use_b = centroid_before(b->centroid, a->centroid);
        }
    }
    if (use_b) {
        return face_contact(b, fb.face, a, 0, fb.separation, margin, m);
    }
    return face_contact(a, fa.face, b, 1, fa.separation, margin, m);
}
