/* GJK: the closest point of the Minkowski difference a - b to the origin,
 * found over simplices of support points. Each simplex is reduced to the
 * smallest sub-simplex whose Voronoi region holds the origin, and the search
 * stops when a new support point brings no progress (exactly, for
 * polytopes) or less than a relative 1e-13 of |v|^2. */
#include "gjk.h"

#include <string.h>

heft_vec3 proxy_support(const convex_proxy *p, heft_vec3 d, int *index) {
    if (p->cylinder) {
        *index = -1;
        double c = heft_v3_dot(d, p->axis);
        heft_vec3 radial = heft_v3_madd(d, -c, p->axis);
        /* again: for d nearly along the axis the first pass leaves rounding
         * along the axis that the normalisation below would blow up */
        radial = heft_v3_madd(radial, -heft_v3_dot(radial, p->axis), p->axis);
        double rl = heft_v3_length(radial);
        heft_vec3 s = heft_v3_madd(p->center, c >= 0.0 ? p->half_length : -p->half_length, p->axis);
        if (rl > 1e-300) {
            s = heft_v3_madd(s, p->radius / rl, radial);
        }
        return s;
    }
    int best = 0;
    double bd = heft_v3_dot(p->points[0], d);
    for (int i = 1; i < p->count; ++i) {
        double x = heft_v3_dot(p->points[i], d);
        if (x > bd) {
            bd = x;
            best = i;
        }
    }
    *index = best;
    return p->points[best];
}

static gjk_vertex support_vertex(const convex_proxy *a, const convex_proxy *b, heft_vec3 d) {
    gjk_vertex v;
    v.a = proxy_support(a, d, &v.ia);
    v.b = proxy_support(b, heft_v3_neg(d), &v.ib);
    v.w = heft_v3_sub(v.a, v.b);
    return v;
}

/* keeps the vertices with positive weight */
static void compact(gjk_simplex *s) {
    int n = 0;
    for (int i = 0; i < s->count; ++i) {
        if (s->bary[i] > 0.0) {
            s->v[n] = s->v[i];
            s->bary[n] = s->bary[i];
            n++;
        }
    }
    if (n == 0) { /* cannot happen with weights summing to 1; keep one vertex */
        s->bary[0] = 1.0;
        n = 1;
    }
    s->count = n;
}

static void solve2(gjk_simplex *s) {
    heft_vec3 a = s->v[0].w, b = s->v[1].w;
    heft_vec3 e = heft_v3_sub(b, a);
    double ee = heft_v3_dot(e, e);
    double t = ee > 0.0 ? -heft_v3_dot(a, e) / ee : 0.0;
    if (t <= 0.0) {
        s->bary[0] = 1.0, s->bary[1] = 0.0;
    } else if (t >= 1.0) {
        s->bary[0] = 0.0, s->bary[1] = 1.0;
    } else {
        s->bary[0] = 1.0 - t, s->bary[1] = t;
    }
    compact(s);
}

static void solve3(gjk_simplex *s) {
    double bary[3];
    heft_vec3 zero = heft_v3(0.0, 0.0, 0.0);
    triangle_closest_point(s->v[0].w, s->v[1].w, s->v[2].w, zero, bary);
    for (int i = 0; i < 3; ++i) {
        s->bary[i] = bary[i];
    }
    compact(s);
}

/* returns 1 when the origin is inside the tetrahedron */
static int solve4(gjk_simplex *s) {
    static const int faces[4][4] = {{0, 1, 2, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {1, 3, 2, 0}};
    heft_vec3 p[4];
    for (int i = 0; i < 4; ++i) {
        p[i] = s->v[i].w;
    }
    double best = INFINITY;
    gjk_simplex best_s = *s;
    int any_outside = 0;
    double scale = 0.0;
    for (int i = 0; i < 4; ++i) {
        scale = fmax(scale, v3_length2(p[i]));
    }
    for (int f = 0; f < 4; ++f) {
        heft_vec3 a = p[faces[f][0]], b = p[faces[f][1]], c = p[faces[f][2]], d = p[faces[f][3]];
        heft_vec3 n = heft_v3_cross(heft_v3_sub(b, a), heft_v3_sub(c, a));
        double so = -heft_v3_dot(n, a), sd = heft_v3_dot(n, heft_v3_sub(d, a));
        int degenerate = fabs(sd) <= 1e-14 * heft_v3_length(n) * sqrt(scale);
        if (!degenerate && so * sd >= 0.0) {
            continue; /* the origin is on the inner side of this face */
        }
        any_outside = 1;
        double bary[3];
        heft_vec3 zero = heft_v3(0.0, 0.0, 0.0);
        heft_vec3 q = triangle_closest_point(a, b, c, zero, bary);
        double dist = v3_length2(q);
        if (dist < best) {
            best = dist;
            gjk_simplex t;
            t.count = 3;
            for (int k = 0; k < 3; ++k) {
                t.v[k] = s->v[faces[f][k]];
                t.bary[k] = bary[k];
            }
            compact(&t);
            best_s = t;
        }
    }
    if (!any_outside) {
        for (int i = 0; i < 4; ++i) {
            s->bary[i] = 0.25;
        }
        return 1;
    }
    *s = best_s;
    return 0;
}

static heft_vec3 closest(const gjk_simplex *s) {
    heft_vec3 v = heft_v3(0.0, 0.0, 0.0);
    for (int i = 0; i < s->count; ++i) {
        v = heft_v3_madd(v, s->bary[i], s->v[i].w);
    }
    return v;
}

static void witnesses(const gjk_simplex *s, heft_vec3 *pa, heft_vec3 *pb) {
    heft_vec3 a = heft_v3(0.0, 0.0, 0.0), b = heft_v3(0.0, 0.0, 0.0);
    for (int i = 0; i < s->count; ++i) {
        a = heft_v3_madd(a, s->bary[i], s->v[i].a);
        b = heft_v3_madd(b, s->bary[i], s->v[i].b);
    }
    *pa = a;
    *pb = b;
}

static int same_vertex(const gjk_vertex *x, const gjk_vertex *y) {
    if (x->ia >= 0 && x->ib >= 0 && y->ia >= 0 && y->ib >= 0) {
        return x->ia == y->ia && x->ib == y->ib;
    }
    return x->w.x == y->w.x && x->w.y == y->w.y && x->w.z == y->w.z;
}

void gjk_distance(const convex_proxy *a, const convex_proxy *b, double max_distance,
                  gjk_output *out) {
    memset(out, 0, sizeof *out);
    heft_vec3 start = a->cylinder ? a->center : a->points[0];
    start = heft_v3_sub(start, b->cylinder ? b->center : b->points[0]);
    if (v3_length2(start) == 0.0) {
        start = heft_v3(1.0, 0.0, 0.0);
    }
    gjk_simplex s;
    s.count = 1;
    s.v[0] = support_vertex(a, b, heft_v3_neg(start));
    s.bary[0] = 1.0;
    heft_vec3 v = s.v[0].w;
    double scale2 = v3_length2(v);
    int it = 0;
    for (; it < 128; ++it) {
        double vv = v3_length2(v);
        if (vv <= 1e-28 * fmax(scale2, 1e-300) || vv == 0.0) {
            out->overlap = 1;
            break;
        }
        gjk_vertex w = support_vertex(a, b, heft_v3_neg(v));
        scale2 = fmax(scale2, v3_length2(w.w));
        int duplicate = 0;
        for (int i = 0; i < s.count; ++i) {
            duplicate |= same_vertex(&s.v[i], &w);
        }
        if (duplicate || vv - heft_v3_dot(v, w.w) <= 1e-11 * vv) {
            break;
        }
        /* v . w / |v| bounds the distance from below */
        double vw = heft_v3_dot(v, w.w);
        if (vw > 0.0 && vw * vw > max_distance * max_distance * vv) {
            out->iterations = it;
            out->simplex = s;
            witnesses(&s, &out->pa, &out->pb);
            out->distance = vw / sqrt(vv);
            return;
        }
        gjk_simplex saved = s;
        s.v[s.count++] = w;
        int inside = 0;
        switch (s.count) {
        case 2:
            solve2(&s);
            break;
        case 3:
            solve3(&s);
            break;
        default:
            inside = solve4(&s);
            break;
        }
        if (inside) {
            out->overlap = 1;
            break;
        }
        heft_vec3 nv = closest(&s);
        if (v3_length2(nv) >= vv) {
            s = saved; /* no progress: rounding; the last simplex is the answer */
            break;
        }
        v = nv;
    }
    out->iterations = it;
    out->simplex = s;
    witnesses(&s, &out->pa, &out->pb);
    out->distance = out->overlap ? 0.0 : heft_v3_length(heft_v3_sub(out->pa, out->pb));
}
