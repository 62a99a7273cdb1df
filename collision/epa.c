/* EPA, the expanding polytope algorithm: grows a polytope inside the
 * Minkowski difference a - b from GJK's last simplex, always towards the face
 * nearest the origin, until the support point in that face's normal
 * direction adds nothing. The nearest face then gives the penetration normal
 * and depth, its barycentric weights the deepest points. */
#include <string.h>

#include "gjk.h"

#define EPA_MAX_VERTICES 160
#define EPA_MAX_FACES 320
#define EPA_MAX_EDGES 480

typedef struct epa_face {
    int v[3];
    heft_vec3 n;
    double d;
    int alive;
} epa_face;

typedef struct epa {
    gjk_vertex verts[EPA_MAX_VERTICES];
    int nv;
    epa_face faces[EPA_MAX_FACES];
    int nf;
    const convex_proxy *a, *b;
} epa;

static gjk_vertex support(const epa *e, heft_vec3 d) {
    gjk_vertex v;
    v.a = proxy_support(e->a, d, &v.ia);
    v.b = proxy_support(e->b, heft_v3_neg(d), &v.ib);
    v.w = heft_v3_sub(v.a, v.b);
    return v;
}

static int add_face(epa *e, int a, int b, int c) {
    if (e->nf >= EPA_MAX_FACES) {
        return 0;
    }
    epa_face *f = &e->faces[e->nf++];
    f->v[0] = a, f->v[1] = b, f->v[2] = c;
    heft_vec3 pa = e->verts[a].w;
    heft_vec3 n = heft_v3_cross(heft_v3_sub(e->verts[b].w, pa), heft_v3_sub(e->verts[c].w, pa));
    double len = heft_v3_length(n);
    f->alive = 1;
    if (len > 0.0) {
        f->n = heft_v3_scale(n, 1.0 / len);
        f->d = heft_v3_dot(f->n, pa);
    } else {
        f->n = heft_v3(0.0, 0.0, 0.0);
        f->d = INFINITY; /* a sliver is never the nearest face */
    }
    return 1;
}

/* Adds support points until the simplex is a tetrahedron with volume. */
static int blow_up(epa *e, double tol) {
    if (e->nv == 1) {
        static const double dirs[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                          {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
        for (int k = 0; k < 6 && e->nv == 1; ++k) {
            gjk_vertex w = support(e, heft_v3(dirs[k][0], dirs[k][1], dirs[k][2]));
            if (heft_v3_length(heft_v3_sub(w.w, e->verts[0].w)) > tol) {
                e->verts[e->nv++] = w;
            }
        }
    }
    if (e->nv == 2) {
        heft_vec3 d = heft_v3_normalize(heft_v3_sub(e->verts[1].w, e->verts[0].w));
        heft_vec3 e1 = v3_perpendicular(d), e2 = heft_v3_cross(d, e1);
        for (int k = 0; k < 6 && e->nv == 2; ++k) {
            double ang = k * HEFT_PI / 3.0;
            gjk_vertex w =
                support(e, heft_v3_add(heft_v3_scale(e1, cos(ang)), heft_v3_scale(e2, sin(ang))));
            heft_vec3 r = heft_v3_sub(w.w, e->verts[0].w);
            if (heft_v3_length(heft_v3_madd(r, -heft_v3_dot(r, d), d)) > tol) {
                e->verts[e->nv++] = w;
            }
        }
    }
    if (e->nv == 3) {
        heft_vec3 p0 = e->verts[0].w;
        heft_vec3 n = heft_v3_normalize(
            heft_v3_cross(heft_v3_sub(e->verts[1].w, p0), heft_v3_sub(e->verts[2].w, p0)));
        for (int k = 0; k < 2 && e->nv == 3; ++k) {
            gjk_vertex w = support(e, k == 0 ? n : heft_v3_neg(n));
            if (fabs(heft_v3_dot(n, heft_v3_sub(w.w, p0))) > tol) {
                e->verts[e->nv++] = w;
            }
        }
    }
    return e->nv == 4;
}

int epa_penetration(const convex_proxy *a, const convex_proxy *b, const gjk_simplex *start,
                    heft_vec3 *normal, double *depth, heft_vec3 *pa, heft_vec3 *pb) {
    epa e;
    e.a = a;
    e.b = b;
    e.nv = start->count;
    e.nf = 0;
    memcpy(e.verts, start->v, sizeof(gjk_vertex) * (size_t)start->count);
    /* the size of the difference, for tolerances */
    double scale = 0.0;
    static const double probe[6][3] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                       {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
    for (int k = 0; k < 6; ++k) {
        gjk_vertex w = support(&e, heft_v3(probe[k][0], probe[k][1], probe[k][2]));
        scale = fmax(scale, heft_v3_length(w.w));
    }
    if (!(scale > 0.0)) {
        return 0;
    }
    if (!blow_up(&e, 1e-9 * scale)) {
        return 0;
    }
    heft_vec3 centroid = heft_v3(0.0, 0.0, 0.0);
    for (int i = 0; i < 4; ++i) {
        centroid = heft_v3_madd(centroid, 0.25, e.verts[i].w);
    }
    static const int tet[4][3] = {{0, 1, 2}, {0, 3, 1}, {0, 2, 3}, {1, 3, 2}};
    for (int k = 0; k < 4; ++k) {
        int i0 = tet[k][0], i1 = tet[k][1], i2 = tet[k][2];
        heft_vec3 n = heft_v3_cross(heft_v3_sub(e.verts[i1].w, e.verts[i0].w),
                                    heft_v3_sub(e.verts[i2].w, e.verts[i0].w));
        if (heft_v3_dot(n, heft_v3_sub(centroid, e.verts[i0].w)) > 0.0) {
            int t = i1;
            i1 = i2;
            i2 = t;
        }
        add_face(&e, i0, i1, i2);
    }
    int best = 0;
    int edges[EPA_MAX_EDGES][2];
    /* the nearest face's distance only grows; when rounding breaks that (the
     * polytope of a curved shape grows slivers), the last good face is kept */
    epa_face last = {{0, 0, 0}, {0.0, 0.0, 0.0}, -INFINITY, 0};
    gjk_vertex last_v[3];
    for (int iteration = 0; iteration < 128; ++iteration) {
        best = -1;
        for (int f = 0; f < e.nf; ++f) {
            if (e.faces[f].alive && (best < 0 || e.faces[f].d < e.faces[best].d)) {
                best = f;
            }
        }
        if (best < 0 || !isfinite(e.faces[best].d)) {
            return 0;
        }
        epa_face *fb = &e.faces[best];
        if (fb->d < last.d - 1e-12 * scale) {
            break;
        }
        last = *fb;
        for (int k = 0; k < 3; ++k) {
            last_v[k] = e.verts[fb->v[k]];
        }
        gjk_vertex w = support(&e, fb->n);
        double gain = heft_v3_dot(fb->n, w.w) - fb->d;
        if (gain <= 1e-11 * scale || e.nv >= EPA_MAX_VERTICES) {
            break;
        }
        int duplicate = 0;
        for (int i = 0; i < e.nv; ++i) {
            duplicate |=
                (e.verts[i].w.x == w.w.x && e.verts[i].w.y == w.w.y && e.verts[i].w.z == w.w.z);
        }
        if (duplicate) {
            break;
        }
        int iw = e.nv;
        e.verts[e.nv++] = w;
        /* remove the faces the new point sees; their outline is the horizon */
        int ne = 0, overflow = 0;
        for (int f = 0; f < e.nf; ++f) {
            epa_face *ff = &e.faces[f];
            if (!ff->alive ||
                heft_v3_dot(ff->n, heft_v3_sub(w.w, e.verts[ff->v[0]].w)) <= 1e-12 * scale) {
                continue;
            }
            ff->alive = 0;
            for (int k = 0; k < 3; ++k) {
                int u = ff->v[k], v = ff->v[(k + 1) % 3], found = -1;
                for (int j = 0; j < ne; ++j) {
                    if (edges[j][0] == v && edges[j][1] == u) {
                        found = j;
                        break;
                    }
                }
                if (found >= 0) {
                    edges[found][0] = edges[ne - 1][0];
                    edges[found][1] = edges[ne - 1][1];
                    ne--;
                } else if (ne < EPA_MAX_EDGES) {
                    edges[ne][0] = u;
                    edges[ne][1] = v;
                    ne++;
                } else {
                    overflow = 1;
                }
            }
        }
        /* compact the face list so it does not fill with dead faces */
        int kept = 0;
        for (int f = 0; f < e.nf; ++f) {
            if (e.faces[f].alive) {
                e.faces[kept++] = e.faces[f];
            }
        }
        e.nf = kept;
        if (overflow || e.nf + ne > EPA_MAX_FACES) {
            return 0;
        }
        for (int j = 0; j < ne; ++j) {
            add_face(&e, edges[j][0], edges[j][1], iw);
        }
    }
    if (!isfinite(last.d)) {
        return 0;
    }
    const epa_face *f = &last;
    double bary[3];
    heft_vec3 p = heft_v3_scale(f->n, f->d);
    triangle_closest_point(last_v[0].w, last_v[1].w, last_v[2].w, p, bary);
    heft_vec3 xa = heft_v3(0.0, 0.0, 0.0), xb = heft_v3(0.0, 0.0, 0.0);
    for (int k = 0; k < 3; ++k) {
        xa = heft_v3_madd(xa, bary[k], last_v[k].a);
        xb = heft_v3_madd(xb, bary[k], last_v[k].b);
    }
    *normal = f->n;
    *depth = f->d > 0.0 ? f->d : 0.0;
    *pa = xa;
    *pb = xb;
    return 1;
}
