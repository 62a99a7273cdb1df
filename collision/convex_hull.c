/* Convex hull construction: quickhull (Barber, Dobkin & Huhdanpaa 1996) with
 * outside sets, farthest point first; then coplanar triangles are merged into
 * polygon faces, vertices left in the middle of an edge are dropped, and the
 * result is stored as half-edges with face planes and mass properties. */
#include "convex_hull.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

typedef struct qh_face {
    int v[3];
    int nb[3]; /* neighbour across the edge v[i] -> v[i+1] */
    heft_vec3 n;
    double d;
    int alive;
    int outside; /* first point of the outside set, -1 if empty */
    int stamp;   /* iteration in which state was set */
    int state;   /* visibility from the current eye: 1 visible, 2 not */
    int group;   /* merged face it belongs to */
} qh_face;

typedef struct qh {
    const heft_vec3 *p;
    int count;
    int *next_point; /* outside-set links */
    qh_face *faces;
    int face_count, face_capacity;
    double tol;
} qh;

static double face_distance(const qh_face *f, heft_vec3 x) {
    return heft_v3_dot(f->n, x) - f->d;
}

static int face_plane(qh *q, qh_face *f) {
    heft_vec3 a = q->p[f->v[0]], b = q->p[f->v[1]], c = q->p[f->v[2]];
    heft_vec3 n = heft_v3_cross(heft_v3_sub(b, a), heft_v3_sub(c, a));
    double len = heft_v3_length(n);
    if (!(len > 0.0)) {
        return 0;
    }
    f->n = heft_v3_scale(n, 1.0 / len);
    f->d = heft_v3_dot(f->n, heft_v3_scale(heft_v3_add(a, heft_v3_add(b, c)), 1.0 / 3.0));
    return 1;
}

static int add_face(qh *q, int a, int b, int c) {
    if (q->face_count == q->face_capacity) {
        int cap = q->face_capacity ? 2 * q->face_capacity : 64;
        qh_face *nf = heft_realloc(q->faces, (size_t)cap * sizeof(qh_face));
        if (!nf) {
            return -1;
        }
        q->faces = nf;
        q->face_capacity = cap;
    }
    qh_face *f = &q->faces[q->face_count];
    memset(f, 0, sizeof *f);
    f->v[0] = a, f->v[1] = b, f->v[2] = c;
    f->nb[0] = f->nb[1] = f->nb[2] = -1;
    f->alive = 1;
    f->outside = -1;
    f->group = -1;
    if (!face_plane(q, f)) {
        return -1;
    }
    return q->face_count++;
}

/* The edge index of face f that runs a -> b, -1 if none. */
static int edge_index(const qh_face *f, int a, int b) {
    for (int i = 0; i < 3; ++i) {
        if (f->v[i] == a && f->v[(i + 1) % 3] == b) {
            return i;
        }
    }
    return -1;
}

/* Puts point i on the outside set of the face among [first, last) it is
 * farthest above; returns 0 if it is above none. */
static int assign_point(qh *q, int i, int first, int last) {
    int best = -1;
    double best_d = q->tol;
    for (int f = first; f < last; ++f) {
        if (!q->faces[f].alive) {
            continue;
        }
        double d = face_distance(&q->faces[f], q->p[i]);
        if (d > best_d) {
            best_d = d;
            best = f;
        }
    }
    if (best < 0) {
        return 0;
    }
    q->next_point[i] = q->faces[best].outside;
    q->faces[best].outside = i;
    return 1;
}

typedef struct horizon_edge {
    int face, edge;
} horizon_edge;

/* Runs quickhull; 1 on success, 0 on numerical failure, -1 out of memory. */
static int quickhull(qh *q, const int init[4]) {
    int a = init[0], b = init[1], c = init[2], d = init[3];
    heft_vec3 n = heft_v3_cross(heft_v3_sub(q->p[b], q->p[a]), heft_v3_sub(q->p[c], q->p[a]));
    if (heft_v3_dot(n, heft_v3_sub(q->p[d], q->p[a])) > 0.0) {
        int t = b;
        b = c;
        c = t;
    }
    int tri[4][3] = {{a, b, c}, {b, a, d}, {c, b, d}, {a, c, d}};
    for (int k = 0; k < 4; ++k) {
        if (add_face(q, tri[k][0], tri[k][1], tri[k][2]) < 0) {
            return q->faces ? 0 : -1;
        }
    }
    for (int f = 0; f < 4; ++f) {
        for (int i = 0; i < 3; ++i) {
            int u = q->faces[f].v[i], v = q->faces[f].v[(i + 1) % 3];
            for (int g = 0; g < 4; ++g) {
                if (g != f && edge_index(&q->faces[g], v, u) >= 0) {
                    q->faces[f].nb[i] = g;
                }
            }
        }
    }
    for (int i = 0; i < q->count; ++i) {
        q->next_point[i] = -1;
        if (i != a && i != b && i != c && i != d) {
            assign_point(q, i, 0, 4);
        }
    }
    /* at most 2n - 4 faces are alive at any time, with 3 edges each */
    int max_alive = 2 * q->count + 16;
    int *stack = heft_alloc(sizeof(int) * (size_t)max_alive);
    horizon_edge *horizon = heft_alloc(sizeof(horizon_edge) * (size_t)(3 * max_alive));
    int *by_a = heft_alloc(sizeof(int) * (size_t)q->count);
    int *by_b = heft_alloc(sizeof(int) * (size_t)q->count);
    int *visible = heft_alloc(sizeof(int) * (size_t)max_alive);
    int rc = 1;
    if (!stack || !horizon || !by_a || !by_b || !visible) {
        rc = -1;
        goto done;
    }
    for (int i = 0; i < q->count; ++i) {
        by_a[i] = by_b[i] = -1;
    }
    for (int iteration = 0; iteration < q->count; ++iteration) {
        int f0 = -1;
        for (int f = 0; f < q->face_count; ++f) {
            if (q->faces[f].alive && q->faces[f].outside >= 0) {
                f0 = f;
                break;
            }
        }
        if (f0 < 0) {
            break; /* every point is inside */
        }
        int eye = -1;
        double eye_d = -INFINITY;
        for (int i = q->faces[f0].outside; i >= 0; i = q->next_point[i]) {
            double dd = face_distance(&q->faces[f0], q->p[i]);
            if (dd > eye_d) {
                eye_d = dd;
                eye = i;
            }
        }
        heft_vec3 e = q->p[eye];
        /* the faces the eye sees, connected to f0; the horizon around them */
        int nvis = 0, nhor = 0, top = 0, stamp = iteration + 1;
        q->faces[f0].stamp = stamp;
        q->faces[f0].state = 1;
        stack[top++] = f0;
        while (top > 0) {
            int f = stack[--top];
            if (nvis >= max_alive) {
                rc = 0;
                goto done;
            }
            visible[nvis++] = f;
            for (int i = 0; i < 3; ++i) {
                int g = q->faces[f].nb[i];
                if (g < 0) {
                    rc = 0;
                    goto done;
                }
                qh_face *fg = &q->faces[g];
                if (fg->stamp != stamp) {
                    fg->stamp = stamp;
                    fg->state = face_distance(fg, e) > q->tol ? 1 : 2;
                    if (fg->state == 1) {
                        if (top >= max_alive) {
                            rc = 0;
                            goto done;
                        }
                        stack[top++] = g;
                    }
                }
                if (fg->state == 2) {
                    if (nhor >= 3 * max_alive) {
                        rc = 0;
                        goto done;
                    }
                    horizon[nhor].face = f;
                    horizon[nhor].edge = i;
                    nhor++;
                }
            }
        }
        /* a cone of new faces from the horizon to the eye */
        int first_new = q->face_count;
        for (int k = 0; k < nhor; ++k) {
            qh_face *f = &q->faces[horizon[k].face];
            int u = f->v[horizon[k].edge], v = f->v[(horizon[k].edge + 1) % 3];
            int g = f->nb[horizon[k].edge];
            int nf = add_face(q, u, v, eye);
            if (nf < 0) {
                rc = 0;
                goto done;
            }
            q->faces[nf].nb[0] = g;
            int gi = edge_index(&q->faces[g], v, u);
            if (gi < 0 || by_a[u] >= 0 || by_b[v] >= 0) {
                rc = 0; /* the horizon is not a simple loop */
                goto done;
            }
            q->faces[g].nb[gi] = nf;
            by_a[u] = nf;
            by_b[v] = nf;
        }
        for (int nf = first_new; nf < q->face_count; ++nf) {
            qh_face *f = &q->faces[nf];
            int u = f->v[0], v = f->v[1];
            f->nb[1] = by_a[v]; /* the edge v -> eye borders the new face starting at v */
            f->nb[2] = by_b[u]; /* the edge eye -> u borders the new face ending at u */
            if (f->nb[1] < 0 || f->nb[2] < 0) {
                rc = 0;
                goto done;
            }
        }
        for (int nf = first_new; nf < q->face_count; ++nf) {
            by_a[q->faces[nf].v[0]] = -1;
            by_b[q->faces[nf].v[1]] = -1;
        }
        for (int k = 0; k < nvis; ++k) {
            qh_face *f = &q->faces[visible[k]];
            f->alive = 0;
            int i = f->outside;
            f->outside = -1;
            while (i >= 0) {
                int next = q->next_point[i];
                if (i != eye) {
                    assign_point(q, i, first_new, q->face_count);
                }
                i = next;
            }
        }
    }
done:
    heft_free(stack);
    heft_free(horizon);
    heft_free(by_a);
    heft_free(by_b);
    heft_free(visible);
    return rc;
}

/* ---- from triangles to polygon faces --------------------------------------- */

typedef struct face_loops {
    int face_count;
    int *start;  /* face_count + 1 offsets into vertex */
    int *vertex; /* loops, counter-clockwise seen from outside */
} face_loops;

/* Merges coplanar neighbouring triangles; fills loops (one per merged face). */
static int merge_faces(qh *q, face_loops *loops) {
    int nf = q->face_count;
    int *queue = heft_alloc(sizeof(int) * (size_t)nf);
    int *members = heft_alloc(sizeof(int) * (size_t)nf);
    int *next_vertex = heft_alloc(sizeof(int) * (size_t)q->count);
    loops->start = heft_alloc(sizeof(int) * (size_t)(nf + 1));
    loops->vertex = heft_alloc(sizeof(int) * (size_t)(3 * nf));
    loops->face_count = 0;
    if (!queue || !members || !next_vertex || !loops->start || !loops->vertex) {
        heft_free(queue);
        heft_free(members);
        heft_free(next_vertex);
        return -1;
    }
    for (int i = 0; i < q->count; ++i) {
        next_vertex[i] = -1;
    }
    int written = 0, group = 0;
    for (int f = 0; f < nf; ++f) {
        qh_face *seed = &q->faces[f];
        if (!seed->alive || seed->group >= 0) {
            continue;
        }
        /* flood fill over coplanar neighbours */
        int head = 0, tail = 0, nm = 0;
        seed->group = group;
        queue[tail++] = f;
        while (head < tail) {
            int g = queue[head++];
            members[nm++] = g;
            for (int i = 0; i < 3; ++i) {
                int h = q->faces[g].nb[i];
                qh_face *fh = &q->faces[h];
                if (fh->group >= 0 || heft_v3_dot(fh->n, seed->n) < 1.0 - 1e-10) {
                    continue;
                }
                int flat = 1;
                for (int k = 0; k < 3; ++k) {
                    flat &= fabs(face_distance(seed, q->p[fh->v[k]])) <= 10.0 * q->tol;
                }
                if (flat) {
                    fh->group = group;
                    queue[tail++] = h;
                }
            }
        }
        /* boundary of the group as one loop */
        int nb = 0, first = -1;
        for (int k = 0; k < nm; ++k) {
            qh_face *g = &q->faces[members[k]];
            for (int i = 0; i < 3; ++i) {
                if (q->faces[g->nb[i]].group != group) {
                    int u = g->v[i];
                    if (next_vertex[u] >= 0) {
                        nb = -1; /* a vertex twice on the boundary: not a disc */
                        break;
                    }
                    next_vertex[u] = g->v[(i + 1) % 3];
                    first = first < 0 ? u : (u < first ? u : first);
                    nb++;
                }
            }
            if (nb < 0) {
                break;
            }
        }
        int len = 0;
        if (nb > 0) {
            for (int u = first; len <= nb; u = next_vertex[u]) {
                len++;
                if (next_vertex[u] == first) {
                    break;
                }
            }
        }
        int ok = nb > 0 && len == nb && nb <= HULL_MAX_FACE_VERTICES;
        if (ok) {
            loops->start[loops->face_count++] = written;
            int u = first;
            for (int k = 0; k < nb; ++k) {
                loops->vertex[written++] = u;
                u = next_vertex[u];
            }
        }
        /* clear the boundary links */
        for (int k = 0; k < nm; ++k) {
            qh_face *g = &q->faces[members[k]];
            for (int i = 0; i < 3; ++i) {
                next_vertex[g->v[i]] = -1;
            }
        }
        if (!ok) {
            /* keep the group's triangles as faces of their own */
            for (int k = 0; k < nm; ++k) {
                qh_face *g = &q->faces[members[k]];
                loops->start[loops->face_count++] = written;
                for (int i = 0; i < 3; ++i) {
                    loops->vertex[written++] = g->v[i];
                }
            }
        }
        group++;
    }
    loops->start[loops->face_count] = written;
    heft_free(queue);
    heft_free(members);
    heft_free(next_vertex);
    return 1;
}

/* Drops vertices on only two faces (points in the middle of an edge). */
static void drop_edge_vertices(face_loops *loops, int point_count, int *face_degree) {
    memset(face_degree, 0, sizeof(int) * (size_t)point_count);
    for (int k = 0; k < loops->start[loops->face_count]; ++k) {
        face_degree[loops->vertex[k]]++;
    }
    int written = 0;
    for (int f = 0; f < loops->face_count; ++f) {
        int s = loops->start[f], e = loops->start[f + 1];
        loops->start[f] = written;
        int kept = 0;
        for (int k = s; k < e; ++k) {
            if (face_degree[loops->vertex[k]] >= 3 || (e - s) - (k - s) + kept <= 3) {
                loops->vertex[written++] = loops->vertex[k];
                kept++;
            }
        }
    }
    loops->start[loops->face_count] = written;
}

typedef struct edge_key {
    uint32_t key;
    int index;
} edge_key;

static int compare_edge_key(const void *a, const void *b) {
    uint32_t x = ((const edge_key *)a)->key, y = ((const edge_key *)b)->key;
    return (x > y) - (x < y);
}

/* Volume, centre of mass and inertia at unit density (tetrahedra from the
 * centroid over a fan of each face; covariance form of Blow & Binstock). */
static void hull_mass(convex_hull *h) {
    const heft_vec3 o = h->centroid;
    double vol = 0.0;
    heft_vec3 c = heft_v3(0.0, 0.0, 0.0);
    double C[3][3] = {{0.0}};
    for (int f = 0; f < h->face_count; ++f) {
        int e0 = h->face_edge[f];
        heft_vec3 a = heft_v3_sub(h->vertices[h->edges[e0].origin], o);
        for (int e = h->edges[e0].next; h->edges[e].next != e0; e = h->edges[e].next) {
            heft_vec3 b = heft_v3_sub(h->vertices[h->edges[e].origin], o);
            heft_vec3 cc = heft_v3_sub(h->vertices[h->edges[h->edges[e].next].origin], o);
            double det = heft_v3_dot(a, heft_v3_cross(b, cc));
            vol += det / 6.0;
            c = heft_v3_madd(c, det / 24.0, heft_v3_add(a, heft_v3_add(b, cc)));
            /* det * A C_can A^T with C_can = [[2,1,1],[1,2,1],[1,1,2]] / 120 */
            double A[3][3] = {{a.x, b.x, cc.x}, {a.y, b.y, cc.y}, {a.z, b.z, cc.z}};
            for (int i = 0; i < 3; ++i) {
                for (int j = 0; j < 3; ++j) {
                    double s = 0.0;
                    for (int k = 0; k < 3; ++k) {
                        for (int l = 0; l < 3; ++l) {
                            s += A[i][k] * (k == l ? 2.0 : 1.0) * A[j][l];
                        }
                    }
                    C[i][j] += det * s / 120.0;
                }
            }
        }
    }
    h->volume = vol;
    heft_vec3 com = vol > 0.0 ? heft_v3_scale(c, 1.0 / vol) : heft_v3(0.0, 0.0, 0.0);
    h->center = heft_v3_add(o, com);
    double x[3] = {com.x, com.y, com.z};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            C[i][j] -= vol * x[i] * x[j]; /* covariance about the centre of mass */
        }
    }
    double tr = C[0][0] + C[1][1] + C[2][2];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            h->inertia.m[i][j] = (i == j ? tr : 0.0) - C[i][j];
        }
    }
}

static size_t align8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

/* The hull's one block: the struct, then its vertices, planes, half-edges
 * and face edges, each at a multiple of 8 bytes. */
typedef struct hull_layout {
    size_t vertices, planes, edges, face_edge, total;
} hull_layout;

static hull_layout layout_of(int nv, int nf, int ne) {
    hull_layout l;
    l.vertices = align8(sizeof(convex_hull));
    l.planes = l.vertices + align8(sizeof(heft_vec3) * (size_t)nv);
    l.edges = l.planes + align8(sizeof(hull_plane) * (size_t)nf);
    l.face_edge = l.edges + align8(sizeof(hull_half_edge) * (size_t)ne);
    l.total = l.face_edge + align8(sizeof(uint16_t) * (size_t)nf);
    return l;
}

/* points the arrays of h at their places in its block */
static void hull_place_arrays(convex_hull *h) {
    hull_layout l = layout_of(h->vertex_count, h->face_count, h->edge_count);
    char *block = (char *)h;
    h->vertices = (heft_vec3 *)(block + l.vertices);
    h->planes = (hull_plane *)(block + l.planes);
    h->edges = (hull_half_edge *)(block + l.edges);
    h->face_edge = (uint16_t *)(block + l.face_edge);
}

/* Whether h is a box centred on its local origin and aligned with its
 * axes (convex_hull.h): sets h->box, box_half and the box_face fields. */
static void hull_find_box(convex_hull *h) {
    h->box = 0;
    if (h->vertex_count != 8 || h->face_count != 6 || h->edge_count != 24) {
        return;
    }
    for (int c = 0; c < 3; ++c) {
        h->box_half[c] = fabs(v3_get(h->vertices[0], c));
        if (!(h->box_half[c] > 0.0)) {
            return;
        }
    }
    for (int k = 1; k < 8; ++k) {
        for (int c = 0; c < 3; ++c) {
            if (fabs(v3_get(h->vertices[k], c)) != h->box_half[c]) {
                return;
            }
        }
    }
    int found = 0;
    for (int f = 0; f < 6; ++f) {
        for (int c = 0; c < 3; ++c) {
            if (v3_get(h->planes[f].normal, c) > 0.5) {
                h->box_face[c] = f;
                found |= 1 << c;
            } else if (v3_get(h->planes[f].normal, c) < -0.5) {
                h->box_face_neg[c] = f;
                found |= 8 << c;
            }
        }
    }
    h->box = found == 63;
}

/* Packs the loops into the half-edge form. */
static convex_hull *build_half_edges(const heft_vec3 *points, int point_count,
                                     const face_loops *loops, int *remap) {
    int nf = loops->face_count, ne = loops->start[nf];
    for (int i = 0; i < point_count; ++i) {
        remap[i] = -1;
    }
    int nv = 0;
    for (int k = 0; k < ne; ++k) {
        remap[loops->vertex[k]] = 0;
    }
    for (int i = 0; i < point_count; ++i) {
        if (remap[i] == 0) {
            remap[i] = nv++;
        }
    }
    if (nv > HULL_MAX_VERTICES) {
        heft_set_error("the hull has %d vertices, more than %d: use fewer points", nv,
                       HULL_MAX_VERTICES);
        return NULL;
    }
    if (ne > HULL_MAX_EDGES || nf > HULL_MAX_FACES) {
        heft_set_error("the hull has too many faces");
        return NULL;
    }
    size_t total = layout_of(nv, nf, ne).total;
    char *block = heft_alloc(total);
    edge_key *keys = heft_alloc(sizeof(edge_key) * (size_t)ne);
    if (!block || !keys) {
        heft_free(block);
        heft_free(keys);
        heft_set_error("out of memory");
        return NULL;
    }
    memset(block, 0, total);
    convex_hull *h = (convex_hull *)block;
    h->vertex_count = nv;
    h->edge_count = ne;
    h->face_count = nf;
    hull_place_arrays(h);
    heft_vec3 sum = heft_v3(0.0, 0.0, 0.0);
    for (int i = 0; i < point_count; ++i) {
        if (remap[i] >= 0) {
            h->vertices[remap[i]] = points[i];
            sum = heft_v3_add(sum, points[i]);
        }
    }
    h->centroid = heft_v3_scale(sum, 1.0 / nv);
    for (int f = 0; f < nf; ++f) {
        int s = loops->start[f], m = loops->start[f + 1] - s;
        h->face_edge[f] = (uint16_t)s;
        heft_vec3 n = heft_v3(0.0, 0.0, 0.0), mean = heft_v3(0.0, 0.0, 0.0);
        for (int k = 0; k < m; ++k) {
            int e = s + k;
            int u = remap[loops->vertex[s + k]], v = remap[loops->vertex[s + (k + 1) % m]];
            h->edges[e].origin = (uint16_t)u;
            h->edges[e].next = (uint16_t)(s + (k + 1) % m);
            h->edges[e].face = (uint16_t)f;
            keys[e].key = ((uint32_t)u << 16) | (uint32_t)v;
            keys[e].index = e;
            /* Newell's normal */
            heft_vec3 pu = h->vertices[u], pv = h->vertices[v];
            n.x += (pu.y - pv.y) * (pu.z + pv.z);
            n.y += (pu.z - pv.z) * (pu.x + pv.x);
            n.z += (pu.x - pv.x) * (pu.y + pv.y);
            mean = heft_v3_add(mean, pu);
        }
        h->planes[f].normal = heft_v3_normalize(n);
        h->planes[f].offset = heft_v3_dot(h->planes[f].normal, heft_v3_scale(mean, 1.0 / m));
    }
    qsort(keys, (size_t)ne, sizeof(edge_key), compare_edge_key);
    for (int e = 0; e < ne; ++e) {
        uint32_t u = h->edges[e].origin, v = h->edges[h->edges[e].next].origin;
        edge_key want = {(v << 16) | u, 0};
        edge_key *t = bsearch(&want, keys, (size_t)ne, sizeof(edge_key), compare_edge_key);
        if (!t) {
            heft_free(block);
            heft_free(keys);
            heft_set_error("hull construction failed: the points are numerically degenerate");
            return NULL;
        }
        h->edges[e].twin = (uint16_t)t->index;
    }
    heft_free(keys);
    hull_mass(h);
    if (!(h->volume > 0.0)) {
        heft_free(block);
        heft_set_error("hull has no volume: the points are coplanar");
        return NULL;
    }
    hull_find_box(h);
    return h;
}

static int farthest_from_line(const heft_vec3 *p, int n, heft_vec3 a, heft_vec3 b, double *dist) {
    heft_vec3 u = heft_v3_normalize(heft_v3_sub(b, a));
    int best = -1;
    double bd = -1.0;
    for (int i = 0; i < n; ++i) {
        heft_vec3 d = heft_v3_sub(p[i], a);
        double x = v3_length2(heft_v3_madd(d, -heft_v3_dot(d, u), u));
        if (x > bd) {
            bd = x;
            best = i;
        }
    }
    *dist = sqrt(bd);
    return best;
}

convex_hull *convex_hull_build(const heft_vec3 *points, int count) {
    if (!points || count < 4) {
        heft_set_error("a convex hull needs at least 4 points (got %d)", points ? count : 0);
        return NULL;
    }
    if (count > HULL_MAX_POINTS) {
        heft_set_error("a convex hull takes at most %d points (got %d)", HULL_MAX_POINTS, count);
        return NULL;
    }
    heft_vec3 lo = points[0], hi = points[0];
    for (int i = 0; i < count; ++i) {
        if (!heft_v3_isfinite(points[i])) {
            heft_set_error("hull point %d is not finite", i);
            return NULL;
        }
        lo = v3_min(lo, points[i]);
        hi = v3_max(hi, points[i]);
    }
    heft_vec3 ext = heft_v3_sub(hi, lo);
    double size = fmax(ext.x, fmax(ext.y, ext.z));
    double mag = fmax(fmax(fabs(lo.x), fabs(hi.x)),
                      fmax(fmax(fabs(lo.y), fabs(hi.y)), fmax(fabs(lo.z), fabs(hi.z))));
    if (!(size > 1e-12 * fmax(mag, 1e-300))) {
        heft_set_error("hull points coincide");
        return NULL;
    }
    /* initial simplex: the farthest pair of the axis extremes, then the point
     * farthest from their line, then the one farthest from that plane */
    int ext_idx[6] = {0, 0, 0, 0, 0, 0};
    for (int i = 0; i < count; ++i) {
        for (int k = 0; k < 3; ++k) {
            if (v3_get(points[i], k) < v3_get(points[ext_idx[2 * k]], k)) {
                ext_idx[2 * k] = i;
            }
            if (v3_get(points[i], k) > v3_get(points[ext_idx[2 * k + 1]], k)) {
                ext_idx[2 * k + 1] = i;
            }
        }
    }
    int i0 = 0, i1 = 0;
    double best = -1.0;
    for (int a = 0; a < 6; ++a) {
        for (int b = a + 1; b < 6; ++b) {
            double d = v3_length2(heft_v3_sub(points[ext_idx[a]], points[ext_idx[b]]));
            if (d > best) {
                best = d;
                i0 = ext_idx[a];
                i1 = ext_idx[b];
            }
        }
    }
    double span = sqrt(best);
    double dline;
    int i2 = farthest_from_line(points, count, points[i0], points[i1], &dline);
    if (!(dline > 1e-6 * span)) {
        heft_set_error("hull points are collinear");
        return NULL;
    }
    heft_vec3 n = heft_v3_normalize(
        heft_v3_cross(heft_v3_sub(points[i1], points[i0]), heft_v3_sub(points[i2], points[i0])));
    int i3 = -1;
    double dplane = 0.0;
    for (int i = 0; i < count; ++i) {
        double d = fabs(heft_v3_dot(n, heft_v3_sub(points[i], points[i0])));
        if (d > dplane) {
            dplane = d;
            i3 = i;
        }
    }
    if (!(dplane > 1e-6 * span)) {
        heft_set_error("hull points are coplanar");
        return NULL;
    }
    qh q;
    memset(&q, 0, sizeof q);
    q.p = points;
    q.count = count;
    q.tol = 1e-10 * fmax(span, mag);
    q.next_point = heft_alloc(sizeof(int) * (size_t)count);
    int *work = heft_alloc(sizeof(int) * (size_t)count);
    convex_hull *h = NULL;
    face_loops loops;
    memset(&loops, 0, sizeof loops);
    if (!q.next_point || !work) {
        heft_set_error("out of memory");
        goto out;
    }
    int init[4] = {i0, i1, i2, i3};
    int rc = quickhull(&q, init);
    if (rc <= 0) {
        heft_set_error(rc < 0 ? "out of memory"
                              : "hull construction failed: the points are numerically degenerate");
        goto out;
    }
    if (merge_faces(&q, &loops) < 0) {
        heft_set_error("out of memory");
        goto out;
    }
    drop_edge_vertices(&loops, count, work);
    h = build_half_edges(points, count, &loops, work);
out:
    heft_free(loops.start);
    heft_free(loops.vertex);
    heft_free(q.faces);
    heft_free(q.next_point);
    heft_free(work);
    return h;
}

convex_hull *convex_hull_copy(const convex_hull *h) {
    size_t total = layout_of(h->vertex_count, h->face_count, h->edge_count).total;
    convex_hull *c = heft_alloc(total);
    if (!c) {
        heft_set_error("out of memory");
        return NULL;
    }
    memcpy(c, h, total);
    hull_place_arrays(c);
    return c;
}

/* Scenes hold many boxes of one size (stacks, walls, chains of links), and
 * building a box's hull costs far more than copying one: the last box
 * built is kept, per thread, and its copy is what quickhull would make of
 * the same corners, bit for bit. */
#define HULL_BOX_BYTES 1024

static _Thread_local struct {
    heft_vec3 half_extents;
    int valid;
    union {
        convex_hull hull;
        double align;
        unsigned char bytes[HULL_BOX_BYTES];
    } block;
} last_box;

convex_hull *convex_hull_box(heft_vec3 he) {
    if (last_box.valid && memcmp(&last_box.half_extents, &he, sizeof he) == 0) {
        return convex_hull_copy(&last_box.block.hull);
    }
    heft_vec3 c[8];
    for (int k = 0; k < 8; ++k) {
        c[k] = heft_v3((k & 1) ? he.x : -he.x, (k & 2) ? he.y : -he.y, (k & 4) ? he.z : -he.z);
    }
    convex_hull *h = convex_hull_build(c, 8);
    size_t total = h ? layout_of(h->vertex_count, h->face_count, h->edge_count).total : 0;
    last_box.valid = h && total <= sizeof last_box.block;
    if (last_box.valid) {
        last_box.half_extents = he;
        memcpy(last_box.block.bytes, h, total);
        hull_place_arrays(&last_box.block.hull);
    }
    return h;
}

void convex_hull_free(convex_hull *h) {
    heft_free(h);
}

int convex_hull_support(const heft_vec3 *v, int count, heft_vec3 d) {
    int best = 0;
    double bd = heft_v3_dot(v[0], d);
    for (int i = 1; i < count; ++i) {
        double x = heft_v3_dot(v[i], d);
        if (x > bd) {
            bd = x;
            best = i;
        }
    }
    return best;
}

static const hull_half_edge triangle_edges[6] = {
    {1, 5, 0, 0}, {2, 4, 1, 0}, {0, 3, 2, 0}, /* front: 0 -> 1 -> 2 */
    {4, 2, 0, 1}, {5, 1, 2, 1}, {3, 0, 1, 1}, /* back: 0 -> 2 -> 1 */
};
static const uint16_t triangle_face_edge[2] = {0, 3};

void triangle_hull_make(triangle_hull *t, heft_vec3 a, heft_vec3 b, heft_vec3 c) {
    t->vertices[0] = a;
    t->vertices[1] = b;
    t->vertices[2] = c;
    heft_vec3 n = heft_v3_normalize(heft_v3_cross(heft_v3_sub(b, a), heft_v3_sub(c, a)));
    t->planes[0].normal = n;
    t->planes[0].offset = heft_v3_dot(n, a);
    t->planes[1].normal = heft_v3_neg(n);
    t->planes[1].offset = -t->planes[0].offset;
    convex_hull *h = &t->hull;
    memset(h, 0, sizeof *h);
    h->vertex_count = 3;
    h->edge_count = 6;
    h->face_count = 2;
    h->vertices = t->vertices;
    h->edges = (hull_half_edge *)triangle_edges;
    h->face_edge = (uint16_t *)triangle_face_edge;
    h->planes = t->planes;
    h->centroid = heft_v3_scale(heft_v3_add(a, heft_v3_add(b, c)), 1.0 / 3.0);
    h->center = h->centroid;
}
