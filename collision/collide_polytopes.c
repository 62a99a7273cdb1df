/* Polytope against polytope (boxes, hulls, mesh triangles): the separating
 * axis test over the face normals of both and the cross products of edge
 * pairs that form a face of the Minkowski difference (Gregorius, GDC 2013),
 * then either the incident face clipped against the reference face (face
 * axis) or the closest points of the two edges (edge axis). Two boxes
 * replace the walk over edge pairs by the nine cross products of their face
 * axes, with the same rules and the same answer to round-off. */
#include "collide_polytopes.h"

#include <string.h>

typedef struct face_query {
    int face;
    double separation;
} face_query;

/* Separation of b from a's face plane f: b's support against its normal. */
static double face_separation(const convex_view *a, int f, const convex_view *b) {
    heft_vec3 n = a->planes[f].normal;
    int s = convex_hull_support(b->v, b->hull->vertex_count, heft_v3_neg(n));
    return heft_v3_dot(n, b->v[s]) - a->planes[f].offset;
}

/* face_separation of both of box a's faces on axis c from one projection of
 * b's vertices, when the two faces' world normals n and m are negations to
 * the bit: v . -n is then -(n . v) and v . -m is n . v to the bit, so the
 * support against n is the first vertex of least n . v and the one against m
 * the first of greatest, the very vertices convex_hull_support picks.
 * Returns 0 (nothing set) when the normals are not such. */
static int box_axis_separations(const convex_view *a, int c, const convex_view *b, double *plus,
                                double *minus) {
    const convex_hull *h = a->hull;
    const int fp = h->box_face[c], fm = h->box_face_neg[c];
    const heft_vec3 n = a->planes[fp].normal, m = a->planes[fm].normal;
    const heft_vec3 neg = heft_v3_neg(n);
    if (memcmp(&neg, &m, sizeof neg) != 0) {
        return 0;
    }
    int most = 0;
    double lo = heft_v3_dot(n, b->v[0]), hi = lo;
    for (int i = 1; i < b->hull->vertex_count; ++i) {
        const double d = heft_v3_dot(n, b->v[i]);
        if (d < lo) {
            lo = d;
        }
        if (d > hi) {
            hi = d;
            most = i;
        }
    }
    *plus = lo - a->planes[fp].offset;
    *minus = heft_v3_dot(m, b->v[most]) - a->planes[fm].offset;
    return 1;
}

/* Largest separation of b from a's face planes. A box's opposite faces
 * share one projection of b (box_axis_separations): the same numbers as
 * face by face, for half the dot products. */
static face_query query_faces(const convex_view *a, const convex_view *b) {
    face_query q = {-1, -INFINITY};
    const convex_hull *h = a->hull;
    double sep_of[6];
    if (h->box) {
        for (int c = 0; c < 3; ++c) {
            const int fp = h->box_face[c], fm = h->box_face_neg[c];
            if (!box_axis_separations(a, c, b, &sep_of[fp], &sep_of[fm])) {
                sep_of[fp] = face_separation(a, fp, b);
                sep_of[fm] = face_separation(a, fm, b);
            }
        }
    }
    for (int f = 0; f < h->face_count; ++f) {
        double sep = h->box ? sep_of[f] : face_separation(a, f, b);
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

edge_query polytope_query_edges(const convex_view *a, const convex_view *b) {
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

/* A box in world frame: its centre, the unit normals of its +x, +y, +z
 * faces and its half extents. */
typedef struct box_frame {
    const convex_hull *hull;
    heft_vec3 center, axis[3];
    double half[3];
} box_frame;

/* The box frame of a hull found to be a box when it was built
 * (convex_hull.h); 0 for any other hull. */
static int box_frame_of(const convex_view *cv, box_frame *f) {
    const convex_hull *h = cv->hull;
    if (!h->box) {
        return 0;
    }
    for (int c = 0; c < 3; ++c) {
        f->half[c] = h->box_half[c];
        f->axis[c] = cv->planes[h->box_face[c]].normal;
    }
    f->hull = h;
    f->center = cv->centroid;
    return 1;
}

/* The half-edge (the lower of its twin pair, as the general query reports
 * it) of the box's edge along axis that supports direction dir: the edge
 * between the two corners whose other coordinates carry dir's signs. */
static int box_edge(const box_frame *f, int axis, heft_vec3 dir) {
    const convex_hull *h = f->hull;
    int want = 0, mask = 0;
    for (int c = 0; c < 3; ++c) {
        if (c != axis) {
            mask |= 1 << c;
            want |= (heft_v3_dot(dir, f->axis[c]) > 0.0) << c;
        }
    }
    int ends[2] = {-1, -1}, found = 0;
    for (int k = 0; k < 8 && found < 2; ++k) {
        heft_vec3 v = h->vertices[k];
        int signs = (v.x > 0.0) | (v.y > 0.0) << 1 | (v.z > 0.0) << 2;
        if ((signs & mask) == want) {
            ends[found++] = k;
        }
    }
    for (int e = 0; e < h->edge_count; ++e) {
        int o = h->edges[e].origin, p = h->edges[h->edges[e].twin].origin;
        if ((o == ends[0] && p == ends[1]) || (o == ends[1] && p == ends[0])) {
            return e;
        }
    }
    return -1;
}

/* The axes that tie for the deepest edge separation: rare at random, but
 * the rule in stacks of equal boxes turned alike to the bit (u_i x v_j and
 * u_j x v_i then give the same number), so they are kept and named only
 * when the contact is on an edge pair. */
typedef struct box_edge_axes {
    int count;
    int axis[18][2];
    heft_vec3 normal[18];
} box_edge_axes;

/* The separation along u_i x v_j (unit axis c / len) of two boxes whose
 * centres are d apart, r[i][j] = u_i . v_j: the one formula of the
 * closed-form edge query, shared with the box pair's early answers so that
 * both read the same bits. -INFINITY where len < 1e-6 (parallel edges). */
static inline __attribute__((always_inline)) double
box_edge_axis(const heft_vec3 *u, const heft_vec3 *v, const double *ha, const double *hb,
              double r[3][3], heft_vec3 d, int i, int j, heft_vec3 *c, double *len, double *dc) {
    static const int after[3] = {1, 2, 0}, before[3] = {2, 0, 1};
    const int i1 = after[i], i2 = before[i], j1 = after[j], j2 = before[j];
    *c = heft_v3_cross(u[i], v[j]);
    *len = heft_v3_length(*c);
    if (*len < 1e-6) {
        return -INFINITY;
    }
    /* (u_i x v_j) . u_i1 = -v_j . u_i2, and so on round both frames */
    double extent = ha[i1] * fabs(r[i2][j]) + ha[i2] * fabs(r[i1][j]) + hb[j1] * fabs(r[i][j2]) +
                    hb[j2] * fabs(r[i][j1]);
    *dc = heft_v3_dot(*c, d);
    return (fabs(*dc) - extent) / *len;
}

/* Gottschalk's OBB axes (Gottschalk, Lin and Manocha, SIGGRAPH 1996) with
 * the general query's rules: an axis u_i x v_j is skipped where the
 * general query's arcs would not cross strictly (a zero entry in row i or
 * column j of the relative rotation, the axis then being a face axis) and
 * where the edges are parallel; of an axis's two senses, the one along
 * which b's centre lies from a's is the deeper (the walk meets both). The edges are left unnamed
 * (-1): box_name_edges names them. */
static edge_query box_deepest_edges(const box_frame *fa, const box_frame *fb, box_edge_axes *ties) {
    double r[3][3];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r[i][j] = heft_v3_dot(fa->axis[i], fb->axis[j]);
        }
    }
    heft_vec3 d = heft_v3_sub(fb->center, fa->center);
    edge_query best = {-1, -1, -INFINITY, {0.0, 0.0, 0.0}};
    ties->count = 0;
    /* the next two axes round a frame from a table (a remainder is a
     * division, and this runs for every box pair) */
    static const int after[3] = {1, 2, 0}, before[3] = {2, 0, 1};
    for (int i = 0; i < 3; ++i) {
        const int i1 = after[i], i2 = before[i];
        for (int j = 0; j < 3; ++j) {
            const int j1 = after[j], j2 = before[j];
            if (r[i][j1] == 0.0 || r[i][j2] == 0.0 || r[i1][j] == 0.0 || r[i2][j] == 0.0) {
                continue;
            }
            heft_vec3 c;
            double len, dc;
            const double sep =
                box_edge_axis(fa->axis, fb->axis, fa->half, fb->half, r, d, i, j, &c, &len, &dc);
            if (len < 1e-6) {
                continue; /* parallel edges: the face axes cover them */
            }
            if (sep < best.separation) {
                continue;
            }
            if (sep > best.separation) {
                best.separation = sep;
                ties->count = 0;
            }
            /* both senses tie when the centres are level along the axis */
            for (int sense = 0; sense < (dc == 0.0 ? 2 : 1); ++sense) {
                int k = ties->count++;
                ties->axis[k][0] = i;
                ties->axis[k][1] = j;
                ties->normal[k] = heft_v3_scale(c, (dc < 0.0 || sense == 1 ? -1.0 : 1.0) / len);
            }
        }
    }
    if (ties->count > 0) {
        best.normal = ties->normal[0];
    }
    return best;
}

/* Names the edges of the deepest axis; of tied axes, the lower pair of
 * edge indices wins, as in the general query's loop order. */
static void box_name_edges(const box_frame *fa, const box_frame *fb, const box_edge_axes *ties,
                           edge_query *q) {
    for (int k = 0; k < ties->count; ++k) {
        heft_vec3 n = ties->normal[k];
        int ea = box_edge(fa, ties->axis[k][0], n),
            eb = box_edge(fb, ties->axis[k][1], heft_v3_neg(n));
        if (k == 0 || ea < q->edge_a || (ea == q->edge_a && eb < q->edge_b)) {
            q->edge_a = ea;
            q->edge_b = eb;
            q->normal = n;
        }
    }
}

int box_query_edges(const convex_view *a, const convex_view *b, edge_query *q) {
    box_frame fa, fb;
    if (!box_frame_of(a, &fa) || !box_frame_of(b, &fb)) {
        return 0;
    }
    box_edge_axes ties;
    *q = box_deepest_edges(&fa, &fb, &ties);
    box_name_edges(&fa, &fb, &ties, q);
    return 1;
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

/* separation_known 0: the reference face's separation is taken here, and
 * only when the clipping leaves nothing (face_separation: the bits the face
 * query gives, a box's paired faces included) */
static int face_contact(const convex_view *ref, int face, const convex_view *inc, int ref_is_a,
                        double separation, int separation_known, double margin, manifold *m) {
    feature fr, fi;
    polytope_face_feature(ref, face, &fr);
    polytope_face_feature(inc, incident_face(inc, fr.normal), &fi);
    contact_point pts[2 * FEATURE_MAX + 8];
    int n = clip_features(&fr, &fi, ref_is_a, 0.0, 0.0, margin, pts, 2 * FEATURE_MAX + 8);
    if (n == 0) {
        /* rounding clipped everything: the incident vertex deepest below the face */
        if (!separation_known) {
            separation = face_separation(ref, face, inc);
        }
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

int collide_polytopes_general(const convex_view *a, const convex_view *b, double margin,
                              manifold *m) {
    m->count = 0;
    face_query fa = query_faces(a, b);
    if (fa.separation > margin) {
        return 0;
    }
    face_query fb = query_faces(b, a);
    if (fb.separation > margin) {
        return 0;
    }
    if (fa.face < 0 || fb.face < 0) {
        return 0; /* a non-finite vertex compares with nothing: no face, no contact */
    }
    /* two boxes take the closed form, whose edges are named only when
     * the contact is on them */
    box_frame box_a, box_b;
    box_edge_axes ties;
    int boxes = box_frame_of(a, &box_a) && box_frame_of(b, &box_b);
    edge_query eq = boxes ? box_deepest_edges(&box_a, &box_b, &ties) : polytope_query_edges(a, b);
    if (eq.separation > margin) {
        return 0;
    }
    /* faces are preferred: they give several points and stable ids */
    const double edge_tol = 1e-3, face_tol = 1e-4;
    double face_best = fa.separation > fb.separation ? fa.separation : fb.separation;
    if (boxes && eq.separation > face_best + edge_tol) {
        box_name_edges(&box_a, &box_b, &ties, &eq);
    }
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
        return face_contact(b, fb.face, a, 0, fb.separation, 1, margin, m);
    }
    return face_contact(a, fa.face, b, 1, fa.separation, 1, margin, m);
}

/* The face separations of box a against box b in closed form: for a's axis
 * u_c, b's corners project to u_c . centre_b -+ sum_j hb_j |u_c . v_j|. The
 * face query takes the same numbers from b's eight world corners; the two
 * differ by the rounding of the corners, the normals and the dot products,
 * a few units of the last place of the coordinates and sizes involved. */
static inline __attribute__((always_inline)) void box_face_bounds(const convex_view *a,
                                                                  const convex_view *b,
                                                                  double r[3][3], int transposed,
                                                                  double *sep) {
    const convex_hull *ha = a->hull, *hb = b->hull;
    for (int c = 0; c < 3; ++c) {
        const double r0 = transposed ? r[0][c] : r[c][0], r1 = transposed ? r[1][c] : r[c][1],
                     r2 = transposed ? r[2][c] : r[c][2];
        const double extent =
            hb->box_half[0] * fabs(r0) + hb->box_half[1] * fabs(r1) + hb->box_half[2] * fabs(r2);
        const int fp = ha->box_face[c], fm = ha->box_face_neg[c];
        const double t = heft_v3_dot(a->planes[fp].normal, b->centroid);
        sep[fp] = t - extent - a->planes[fp].offset;
        sep[fm] = -t - extent - a->planes[fm].offset;
    }
}

/* The face of greatest separation (the first of equals, as query_faces
 * takes it) when no other face is within 4 eps of it, else -1. */
static inline __attribute__((always_inline)) int box_face_decided(const double *sep, double eps,
                                                                  double *best) {
    int f = 0;
    double first = sep[0], second = -INFINITY;
    for (int k = 1; k < 6; ++k) {
        if (sep[k] > first) {
            second = first;
            first = sep[k];
            f = k;
        } else if (sep[k] > second) {
            second = sep[k];
        }
    }
    *best = first;
    return first - second > 4.0 * eps ? f : -1;
}

/* box_deepest_edges' step for the axis u_i x v_j on its separation alone:
 * edge becomes the larger of the two where the axis counts. Returns 0 on a
 * NaN. */
static inline __attribute__((always_inline)) int
edge_axis_max(const heft_vec3 *u, const heft_vec3 *v, const double *ha, const double *hb,
              double r[3][3], unsigned zero, heft_vec3 d, int i, int j, double *edge) {
    /* a zero in row i or column j of r, (i, j) itself aside */
    const unsigned cross = (7u << 3 * i | 73u << j) & ~(1u << (3 * i + j));
    if (zero & cross) {
        return 1;
    }
    heft_vec3 c;
    double len, dc;
    const double sep = box_edge_axis(u, v, ha, hb, r, d, i, j, &c, &len, &dc);
    if (!(len >= 1e-6)) {
        return len < 1e-6; /* parallel edges, or NaN */
    }
    *edge = sep > *edge ? sep : *edge;
    return 1;
}

/* The general path's choice between two tied faces by area (face_area of
 * the world corners): 1 where b's face is the larger by more than 1e-9 of
 * the two, 0 where a's is, -1 where neither is. A box's face is 4 h_1 h_2 in
 * its own frame; the world corners' area differs from that by their
 * rounding, under 2e-14 size (size + |centre|), so a bound fifty times that
 * decides unless the two areas differ by about 1e-9 of their sum; there
 * the corners' areas are taken as the general path takes them. */
static int box_larger_face(const convex_view *a, int face_a, const convex_view *b, int face_b) {
    const convex_view *box[2] = {a, b};
    const int face[2] = {face_a, face_b};
    double area[2], bound = 0.0;
    for (int s = 0; s < 2; ++s) {
        const convex_hull *h = box[s]->hull;
        int c = 0;
        while (c < 2 && h->box_face[c] != face[s] && h->box_face_neg[c] != face[s]) {
            ++c;
        }
        area[s] = 4.0 * h->box_half[c == 0 ? 1 : 0] * h->box_half[c == 2 ? 1 : 2];
        const heft_vec3 o = box[s]->centroid;
        const double size = box[s]->size;
        bound += 1e-12 * size * (size + fabs(o.x) + fabs(o.y) + fabs(o.z));
    }
    const double gap = fabs(area[0] - area[1]), sum = area[0] + area[1];
    if (gap + bound < 1e-9 * (sum - bound)) {
        return -1;
    }
    if (gap - bound > 1e-9 * (sum + bound)) {
        return area[1] > area[0];
    }
    const double area_a = face_area(a, face_a), area_b = face_area(b, face_b);
    if (fabs(area_a - area_b) > 1e-9 * (area_a + area_b)) {
        return area_b > area_a;
    }
    return -1;
}

/* Two boxes (collide_polytopes.h), answered without the face queries' 48
 * dot products over the corners where bounds decide every choice
 * collide_polytopes_general makes:
 * each face separation is known to within eps from box_face_bounds, eps a
 * thousand times the rounding that separates the two ways of computing it,
 * so each comparison whose sides are more than a few eps apart comes out as
 * it does on the exact numbers; the edge axes are taken with the very
 * formula of box_deepest_edges. The contact is then clipped from the same
 * faces as the general path clips it, to the bit. Returns -1 where a choice
 * is within the bounds (a near tie, a separation at the margin), on an edge
 * contact and on any non-finite number: the general path then answers. */
int collide_boxes_bounded(const convex_view *a, const convex_view *b, double margin, manifold *m) {
    m->count = 0;
    const convex_hull *ha = a->hull, *hb = b->hull;
    heft_vec3 u[3], v[3];
    for (int c = 0; c < 3; ++c) {
        u[c] = a->planes[ha->box_face[c]].normal;
        v[c] = b->planes[hb->box_face[c]].normal;
    }
    double r[3][3];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r[i][j] = heft_v3_dot(u[i], v[j]);
        }
    }
    const heft_vec3 ca = a->centroid, cb = b->centroid;
    /* the scale of every number compared below, the margin and the
     * tolerances included, so that eps also covers the rounding of the
     * comparisons' own sums */
    const double eps = 1e-11 * (fabs(ca.x) + fabs(ca.y) + fabs(ca.z) + fabs(cb.x) + fabs(cb.y) +
                                fabs(cb.z) + a->size + b->size + fabs(margin) + 1e-3);
    double sa[6], sb[6];
    box_face_bounds(a, b, r, 0, sa);
    box_face_bounds(b, a, r, 1, sb);
    double finite = eps;
    for (int k = 0; k < 6; ++k) {
        finite += sa[k] + sb[k];
    }
    if (!isfinite(finite)) {
        return -1;
    }
    double best_a, best_b;
    const int face_a = box_face_decided(sa, eps, &best_a);
    if (best_a > margin + 2.0 * eps) {
        return 0;
    }
    if (!(best_a < margin - 2.0 * eps)) {
        return -1;
    }
    const int face_b = box_face_decided(sb, eps, &best_b);
    if (best_b > margin + 2.0 * eps) {
        return 0;
    }
    if (!(best_b < margin - 2.0 * eps)) {
        return -1;
    }
    /* the deepest edge axis, as box_deepest_edges finds it, in its order
     * (written out: constant indices keep r in registers) */
    const heft_vec3 d = heft_v3_sub(cb, ca);
    const double *ha_half = ha->box_half, *hb_half = hb->box_half;
    unsigned zero = 0; /* bit 3 i + j: r[i][j] is zero */
    for (int k = 0; k < 9; ++k) {
        zero |= (unsigned)(r[k / 3][k % 3] == 0.0) << k;
    }
    double edge = -INFINITY;
    if (!edge_axis_max(u, v, ha_half, hb_half, r, zero, d, 0, 0, &edge) ||
        !edge_axis_max(u, v, ha_half, hb_half, r, zero, d, 0, 1, &edge) ||
        !edge_axis_max(u, v, ha_half, hb_half, r, zero, d, 0, 2, &edge) ||
        !edge_axis_max(u, v, ha_half, hb_half, r, zero, d, 1, 0, &edge) ||
        !edge_axis_max(u, v, ha_half, hb_half, r, zero, d, 1, 1, &edge) ||
        !edge_axis_max(u, v, ha_half, hb_half, r, zero, d, 1, 2, &edge) ||
        !edge_axis_max(u, v, ha_half, hb_half, r, zero, d, 2, 0, &edge) ||
        !edge_axis_max(u, v, ha_half, hb_half, r, zero, d, 2, 1, &edge) ||
        !edge_axis_max(u, v, ha_half, hb_half, r, zero, d, 2, 2, &edge)) {
        return -1;
    }
    if (edge > margin) {
        return 0;
    }
    /* faces are preferred (collide_polytopes_general's tolerances): the
     * edge axis gives the contact only beyond edge_tol, left to the
     * general path */
    const double edge_tol = 1e-3, face_tol = 1e-4;
    const double face_best = best_a > best_b ? best_a : best_b;
    if (face_a < 0 || face_b < 0 || !(edge < face_best - 2.0 * eps + edge_tol)) {
        return -1;
    }
    int use_b;
    if (best_b - best_a > face_tol + 4.0 * eps) {
        use_b = 1;
    } else if (best_b - best_a < face_tol - 4.0 * eps) {
        const double gap = fabs(best_b - best_a);
        if (gap < face_tol - 4.0 * eps) {
            /* a tie, settled as the general path settles it */
            const int larger = box_larger_face(a, face_a, b, face_b);
            if (larger >= 0) {
                use_b = larger;
            } else {
                use_b = centroid_before(b->centroid, a->centroid);
            }
        } else if (gap > face_tol + 4.0 * eps) {
            use_b = 0;
        } else {
            return -1;
        }
    } else {
        return -1;
    }
    if (use_b) {
        return face_contact(b, face_b, a, 0, 0.0, 0, margin, m);
    }
    return face_contact(a, face_a, b, 1, 0.0, 0, margin, m);
}

int collide_polytopes(const convex_view *a, const convex_view *b, double margin, manifold *m) {
    if (a->hull->box && b->hull->box) {
        const int n = collide_boxes_bounded(a, b, margin, m);
        if (n >= 0) {
            return n;
        }
    }
    return collide_polytopes_general(a, b, margin, m);
}
