/* Manifolds: feature clipping (Sutherland-Hodgman against the reference
 * face's side planes, as in the box-box clipping of ODE and Box2D), merging
 * and reduction to 4 points. */
#include "manifold.h"

#define CLIP_MAX (2 * FEATURE_MAX + 8)

typedef struct clip_vertex {
    heft_vec3 p;
    uint64_t id;
} clip_vertex;

/* A vertex this close to a side plane, relative to the side's length, is
 * on it: kept as it is, and a segment that ends there is not cut. Faces of
 * one size resting on one another (stacked boxes, a pyramid's boxes side
 * by side) put incident edges along the side planes, where the cut of a
 * segment whose ends lie a rounding or a solver's settling (1e-10 to 1e-7
 * m) to either side lands anywhere along it: on the pyramid of base 20 a
 * corner of one contact went from 5.0 to 7.3 mm and back every step, its
 * impulses were carried over to a point of another feature, and the
 * island's warm start answered on 19 of 270 settled steps (222 with the
 * band; docs/collision.md "Clipping along shared sides"). */
#define CLIP_ON_PLANE 1e-6

/* Keeps the part of the polyline (closed if closed) with s . x <= offset,
 * a vertex within tol of the plane counted as on it. Each vertex's
 * distance is taken once: a closed polyline met it as the end of one
 * segment and the start of the next. */
static int clip_plane(const clip_vertex *in, int n, int closed, heft_vec3 s, double offset,
                      double tol, unsigned ref_edge, int flip, const uint16_t *inc_eid,
                      const int *edge_of, int *edge_out, clip_vertex *out) {
    double dist[CLIP_MAX];
    int kept = 0;
    for (int i = 0; i < n; ++i) {
        const double d = heft_v3_dot(s, in[i].p) - offset;
        /* written so that a NaN distance stays NaN: its vertex is dropped */
        dist[i] = d <= tol && d >= -tol ? 0.0 : d;
        kept += dist[i] <= 0.0;
    }
    int m = 0;
    if (n == 1) {
        if (dist[0] <= 0.0) {
            out[m] = in[0];
            edge_out[m] = edge_of[0];
            m++;
        }
        return m;
    }
    if (closed && kept == n) {
        /* nothing to cut (the side of a face resting on a face of its size
         * often is): what the walk below gives, each vertex kept as the end
         * of its segment, the first one last */
        for (int i = 1; i < n; ++i) {
            out[i - 1] = in[i];
            edge_out[i - 1] = edge_of[i];
        }
        out[n - 1] = in[0];
        edge_out[n - 1] = edge_of[0];
        return n;
    }
    int segments = closed ? n : n - 1;
    if (!closed) {
        /* an open polyline: the first point is kept on its own */
        if (dist[0] <= 0.0) {
            out[m] = in[0];
            edge_out[m] = edge_of[0];
            m++;
        }
    }
    for (int i = 0; i < segments; ++i) {
        const int next = i + 1 < n ? i + 1 : 0;
        const clip_vertex *a = &in[i], *b = &in[next];
        const double da = dist[i], db = dist[next];
        if ((da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0)) {
            double t = da / (da - db);
            if (m < CLIP_MAX) {
                out[m].p = v3_lerp(a->p, b->p, t);
                out[m].id = feature_id(FEATURE_KIND_CLIP, flip, inc_eid[edge_of[i]], ref_edge);
                edge_out[m] = edge_of[i];
                m++;
            }
        }
        if (db <= 0.0 && m < CLIP_MAX) {
            out[m] = *b;
            edge_out[m] = edge_of[next];
            m++;
        }
    }
    return m;
}

int clip_features(const feature *ref, const feature *inc, int ref_is_a, double ra, double rb,
                  double margin, contact_point *out, int max) {
    clip_vertex buf[2][CLIP_MAX];
    int edges[2][CLIP_MAX]; /* for each vertex: the incident edge that starts there */
    int flip = !ref_is_a;
    int n = inc->count < CLIP_MAX ? inc->count : CLIP_MAX;
    int closed = n >= 3;
    for (int i = 0; i < n; ++i) {
        buf[0][i].p = inc->v[i];
        buf[0][i].id = feature_id(FEATURE_KIND_VERTEX, flip, ref->fid, inc->vid[i]);
        edges[0][i] = i;
    }
    int cur = 0;
    heft_vec3 nr = ref->normal;
    for (int j = 0; j < ref->count && n > 0; ++j) {
        heft_vec3 a = ref->v[j], b = ref->v[(j + 1) % ref->count];
        heft_vec3 s = heft_v3_cross(heft_v3_sub(b, a), nr);
        double len = heft_v3_length(s);
        if (!(len > 0.0)) {
            continue;
        }
        s = heft_v3_scale(s, 1.0 / len);
        /* |s| before the scaling is the side's length (nr is a unit normal
         * of the face the side lies in) */
        const double tol = CLIP_ON_PLANE * len;
        /* the incident edge after a vertex: for an open segment, edge 0 throughout */
        int nn = clip_plane(buf[cur], n, closed, s, heft_v3_dot(s, a), tol, ref->eid[j], flip,
                            inc->eid, edges[cur], edges[1 - cur], buf[1 - cur]);
        cur = 1 - cur;
        n = nn;
        closed = closed && n >= 3;
    }
    int m = 0;
    heft_vec3 r0 = ref->v[0];
    for (int i = 0; i < n && m < max; ++i) {
        heft_vec3 p = buf[cur][i].p;
        double d = heft_v3_dot(heft_v3_sub(p, r0), nr);
        double sep = d - ra - rb;
        if (sep > margin) {
            continue;
        }
        contact_point *c = &out[m++];
        c->separation = sep;
        c->feature = buf[cur][i].id;
        if (ref_is_a) {
            /* the incident point is on b's core */
            c->normal = nr;
            c->point = heft_v3_madd(p, -rb, nr);
        } else {
            /* the incident point is on a's core: project it onto b's face */
            c->normal = heft_v3_neg(nr);
            c->point = heft_v3_madd(p, rb - d, nr);
        }
    }
    return m;
}

contact_point manifold_single(heft_vec3 pb, heft_vec3 n, double dist, double ra, double rb,
                              uint64_t id) {
    contact_point c;
    c.point = heft_v3_madd(pb, -rb, n);
    c.normal = n;
    c.separation = dist - ra - rb;
    c.feature = id;
    return c;
}

static void swap_points(contact_point *p, int i, int j) {
    contact_point t = p[i];
    p[i] = p[j];
    p[j] = t;
}

/* x beats y by more than rounding, or ties and has the lower feature id:
 * the choices below do not flip under tiny perturbations (rigid motions,
 * drift), which keeps feature ids, and so warm starts, stable */
static int better(double x, double y, uint64_t fx, uint64_t fy, double tol) {
    if (x > y + tol) {
        return 1;
    }
    /* the features without the flip bit: the same whichever shape is a */
    uint64_t unflip = ~((uint64_t)1 << 28);
    return x >= y - tol && (fx & unflip) < (fy & unflip);
}

/* Halfway between the two surfaces: the same point whichever shape is a. */
static heft_vec3 mid(const contact_point *c) {
    return heft_v3_madd(c->point, -0.5 * c->separation, c->normal);
}

/* Sorts the points by separation, nearest to contact (deepest) first, ties
 * by feature id. */
static void sort_nearest_first(contact_point *p, int n) {
    for (int i = 1; i < n; ++i) {
        contact_point x = p[i];
        int j = i - 1;
        while (j >= 0 && (p[j].separation > x.separation ||
                          (p[j].separation == x.separation && p[j].feature > x.feature))) {
            p[j + 1] = p[j];
            j--;
        }
        p[j + 1] = x;
    }
}

/* Orders the points nearest to contact first (ties by feature id, so that
 * the choice does not flip from step to step) and returns how many are
 * within MANIFOLD_NEAR_BAND of the points' extent of the nearest. Where
 * fewer than 4 are, manifold_reduce keeps the 4 nearest; otherwise it seeks
 * the largest area among those within the band only. So no point is kept
 * that is farther from contact than a dropped one by more than the band:
 * with a fast body's speculative reach (tens of centimetres) a tumbling
 * brick had all its corners within the margin, the area alone kept corners
 * 14-18 cm up and dropped one 3.8 cm up, which went 4.3 cm into the ground
 * within the step. A face resting on its points has them all within the
 * band and keeps its area. */
static int order_by_nearness(contact_point *p, int n, double size) {
    sort_nearest_first(p, n);
    const double limit = p[0].separation + MANIFOLD_NEAR_BAND * size;
    int near = 1;
    while (near < n && p[near].separation <= limit) {
        near++;
    }
    return near;
}

int manifold_reduce(contact_point *p, int n) {
    if (n <= MANIFOLD_MAX_POINTS) {
        return n;
    }
    double size = 0.0;
    for (int i = 1; i < n; ++i) {
        const double d = heft_v3_length(heft_v3_sub(mid(&p[i]), mid(&p[0])));
        size = d > size ? d : size; /* fmax's answer, without the call */
    }
    n = order_by_nearness(p, n, size);
    if (n <= MANIFOLD_MAX_POINTS) {
        return MANIFOLD_MAX_POINTS;
    }
    double tol = 1e-9 * (size + 1e-300);
    /* 1: the deepest */
    int best = 0;
    for (int i = 1; i < n; ++i) {
        if (better(-p[i].separation, -p[best].separation, p[i].feature, p[best].feature, tol)) {
            best = i;
        }
    }
    swap_points(p, 0, best);
    heft_vec3 normal = p[0].normal;
    /* 2: the farthest from it */
    best = 1;
    for (int i = 2; i < n; ++i) {
        if (better(heft_v3_length(heft_v3_sub(mid(&p[i]), mid(&p[0]))),
                   heft_v3_length(heft_v3_sub(mid(&p[best]), mid(&p[0]))), p[i].feature,
                   p[best].feature, tol)) {
            best = i;
        }
    }
    swap_points(p, 1, best);
    /* 3: the largest triangle with them */
    heft_vec3 e = heft_v3_sub(mid(&p[1]), mid(&p[0]));
    double el = heft_v3_length(e);
    best = 2;
    double bd = -1.0;
    for (int i = 2; i < n; ++i) {
        double a = fabs(heft_v3_dot(heft_v3_cross(e, heft_v3_sub(mid(&p[i]), mid(&p[0]))), normal));
        if (best == i || better(a, bd, p[i].feature, p[best].feature, tol * el)) {
            bd = a;
            best = i;
        }
    }
    swap_points(p, 2, best);
    /* 4: the point adding the most area outside the triangle */
    heft_vec3 q[3] = {mid(&p[0]), mid(&p[1]), mid(&p[2])};
    double orient =
        heft_v3_dot(heft_v3_cross(heft_v3_sub(q[1], q[0]), heft_v3_sub(q[2], q[0])), normal);
    double sign = orient >= 0.0 ? 1.0 : -1.0;
    best = -1;
    bd = 0.0;
    for (int i = 3; i < n; ++i) {
        double gain = 0.0;
        for (int k = 0; k < 3; ++k) {
            heft_vec3 a = q[k], b = q[(k + 1) % 3];
            double s =
                sign *
                heft_v3_dot(heft_v3_cross(heft_v3_sub(b, a), heft_v3_sub(mid(&p[i]), a)), normal);
            gain = -s > gain ? -s : gain;
        }
        if (gain > tol * el &&
            (best < 0 || better(gain, bd, p[i].feature, p[best].feature, tol * el))) {
            bd = gain;
            best = i;
        }
    }
    if (best < 0) {
        return 3;
    }
    swap_points(p, 3, best);
    return 4;
}

int manifold_merge(contact_point *p, int n, double distance) {
    /* deepest first, then greedily keep points away from the kept ones */
    sort_nearest_first(p, n);
    int m = 0;
    double d2 = distance * distance;
    for (int i = 0; i < n; ++i) {
        int near = 0;
        for (int k = 0; k < m && !near; ++k) {
            near = v3_length2(heft_v3_sub(p[i].point, p[k].point)) <= d2 &&
                   heft_v3_dot(p[i].normal, p[k].normal) > 0.999;
        }
        if (!near) {
            p[m++] = p[i];
        }
    }
    return m;
}

void manifold_sort(contact_point *p, int n) {
    for (int i = 1; i < n; ++i) {
        contact_point x = p[i];
        int j = i - 1;
        while (j >= 0 && p[j].feature > x.feature) {
            p[j + 1] = p[j];
            j--;
        }
        p[j + 1] = x;
    }
}
