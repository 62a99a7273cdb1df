/* Closest points on segments and triangles (the Voronoi-region tests of
 * Ericson, Real-Time Collision Detection, 5.1.5 and 5.1.9). */
#include "geometry.h"

static double clamp01(double x) {
    return x < 0.0 ? 0.0 : (x > 1.0 ? 1.0 : x);
}

void segments_closest(heft_vec3 p1, heft_vec3 q1, heft_vec3 p2, heft_vec3 q2, double *s,
                      double *t) {
    heft_vec3 d1 = heft_v3_sub(q1, p1), d2 = heft_v3_sub(q2, p2), r = heft_v3_sub(p1, p2);
    double a = heft_v3_dot(d1, d1), e = heft_v3_dot(d2, d2), f = heft_v3_dot(d2, r);
    double tiny = 1e-300;
    if (a <= tiny && e <= tiny) {
        *s = *t = 0.0;
        return;
    }
    if (a <= tiny) {
        *s = 0.0;
        *t = clamp01(f / e);
        return;
    }
    double c = heft_v3_dot(d1, r);
    if (e <= tiny) {
        *t = 0.0;
        *s = clamp01(-c / a);
        return;
    }
    double b = heft_v3_dot(d1, d2);
    double denom = a * e - b * b;
    double ss = 0.0;
    /* parallel (denom ~ 0): any s works; take 0 and let the clamps decide */
    if (denom > 1e-14 * a * e) {
        ss = clamp01((b * f - c * e) / denom);
    }
    double tt = (b * ss + f) / e;
    if (tt < 0.0) {
        tt = 0.0;
        ss = clamp01(-c / a);
    } else if (tt > 1.0) {
        tt = 1.0;
        ss = clamp01((b - c) / a);
    }
    *s = ss;
    *t = tt;
}

heft_vec3 triangle_closest_point(heft_vec3 a, heft_vec3 b, heft_vec3 c, heft_vec3 p, double *bary) {
    heft_vec3 ab = heft_v3_sub(b, a), ac = heft_v3_sub(c, a), ap = heft_v3_sub(p, a);
    double d1 = heft_v3_dot(ab, ap), d2 = heft_v3_dot(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) {
        bary[0] = 1.0, bary[1] = 0.0, bary[2] = 0.0;
        return a;
    }
    heft_vec3 bp = heft_v3_sub(p, b);
    double d3 = heft_v3_dot(ab, bp), d4 = heft_v3_dot(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) {
        bary[0] = 0.0, bary[1] = 1.0, bary[2] = 0.0;
        return b;
    }
    double vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        double v = d1 / (d1 - d3);
        bary[0] = 1.0 - v, bary[1] = v, bary[2] = 0.0;
        return heft_v3_madd(a, v, ab);
    }
    heft_vec3 cp = heft_v3_sub(p, c);
    double d5 = heft_v3_dot(ab, cp), d6 = heft_v3_dot(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) {
        bary[0] = 0.0, bary[1] = 0.0, bary[2] = 1.0;
        return c;
    }
    double vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        double w = d2 / (d2 - d6);
        bary[0] = 1.0 - w, bary[1] = 0.0, bary[2] = w;
        return heft_v3_madd(a, w, ac);
    }
    double va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        double w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        bary[0] = 0.0, bary[1] = 1.0 - w, bary[2] = w;
        return heft_v3_madd(b, w, heft_v3_sub(c, b));
    }
    double denom = va + vb + vc;
    if (!(denom > 0.0)) {
        /* a degenerate (zero-area) triangle: the best of its three edges */
        double best = INFINITY;
        heft_vec3 q = a;
        heft_vec3 v[3] = {a, b, c};
        for (int i = 0; i < 3; ++i) {
            heft_vec3 e0 = v[i], e1 = v[(i + 1) % 3];
            double t = segment_closest_t(e0, e1, p);
            heft_vec3 x = v3_lerp(e0, e1, t);
            double d = v3_length2(heft_v3_sub(x, p));
            if (d < best) {
                best = d;
                q = x;
                bary[i] = 1.0 - t, bary[(i + 1) % 3] = t, bary[(i + 2) % 3] = 0.0;
            }
        }
        return q;
    }
    double v = vb / denom, w = vc / denom;
    bary[0] = 1.0 - v - w, bary[1] = v, bary[2] = w;
    return heft_v3_add(a, heft_v3_add(heft_v3_scale(ab, v), heft_v3_scale(ac, w)));
}

double triangle_ray(const triangle *tri, heft_vec3 o, heft_vec3 d, double max_t) {
    if (heft_v3_dot(d, tri->n) >= 0.0) {
        return -1.0; /* parallel or from behind */
    }
    heft_vec3 e1 = heft_v3_sub(tri->v[1], tri->v[0]), e2 = heft_v3_sub(tri->v[2], tri->v[0]);
    heft_vec3 p = heft_v3_cross(d, e2);
    double det = heft_v3_dot(e1, p);
    if (det == 0.0) {
        return -1.0;
    }
    double inv = 1.0 / det;
    heft_vec3 s = heft_v3_sub(o, tri->v[0]);
    double u = heft_v3_dot(s, p) * inv;
    if (u < 0.0 || u > 1.0) {
        return -1.0;
    }
    heft_vec3 q = heft_v3_cross(s, e1);
    double v = heft_v3_dot(d, q) * inv;
    if (v < 0.0 || u + v > 1.0) {
        return -1.0;
    }
    double t = heft_v3_dot(e2, q) * inv;
    return (t >= 0.0 && t <= max_t) ? t : -1.0;
}
