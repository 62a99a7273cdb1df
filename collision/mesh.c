/* Triangle meshes: validation, the copy, real edges, and a median-split
 * bounding volume hierarchy for box queries and rays. */
#include "mesh.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"

static size_t align8(size_t n) {
    return (n + 7) & ~(size_t)7;
}

typedef struct build_ctx {
    tri_mesh *m;
    heft_vec3 *centroid;
    int node_count;
} build_ctx;

static aabb triangle_box(const tri_mesh *m, int t) {
    const int32_t *ix = &m->indices[3 * t];
    heft_vec3 a = m->vertices[ix[0]], b = m->vertices[ix[1]], c = m->vertices[ix[2]];
    return aabb_make(v3_min(a, v3_min(b, c)), v3_max(a, v3_max(b, c)));
}

/* Builds the node at index node over order[first .. first + count). */
static void build_node(build_ctx *ctx, int node, int first, int count) {
    tri_mesh *m = ctx->m;
    mesh_node *n = &m->nodes[node];
    aabb box = triangle_box(m, m->order[first]);
    heft_vec3 clo = ctx->centroid[m->order[first]], chi = clo;
    for (int i = first + 1; i < first + count; ++i) {
        box = aabb_union(box, triangle_box(m, m->order[i]));
        clo = v3_min(clo, ctx->centroid[m->order[i]]);
        chi = v3_max(chi, ctx->centroid[m->order[i]]);
    }
    n->box = box;
    if (count <= 4) {
        n->child = -1;
        n->first = first;
        n->count = count;
        return;
    }
    heft_vec3 ext = heft_v3_sub(chi, clo);
    int axis = ext.x >= ext.y && ext.x >= ext.z ? 0 : (ext.y >= ext.z ? 1 : 2);
    /* partial sort around the median centroid along the axis (quickselect) */
    int lo = first, hi = first + count - 1, k = first + count / 2;
    while (lo < hi) {
        double pivot = v3_get(ctx->centroid[m->order[(lo + hi) / 2]], axis);
        int i = lo, j = hi;
        while (i <= j) {
            while (v3_get(ctx->centroid[m->order[i]], axis) < pivot) {
                i++;
            }
            while (v3_get(ctx->centroid[m->order[j]], axis) > pivot) {
                j--;
            }
            if (i <= j) {
                int32_t t = m->order[i];
                m->order[i] = m->order[j];
                m->order[j] = t;
                i++;
                j--;
            }
        }
        if (k <= j) {
            hi = j;
        } else if (k >= i) {
            lo = i;
        } else {
            break;
        }
    }
    int child = ctx->node_count;
    ctx->node_count += 2;
    n->child = child;
    n->first = 0;
    n->count = 0;
    int left = k - first;
    build_node(ctx, child, first, left);
    build_node(ctx, child + 1, k, count - left);
}

typedef struct edge_rec {
    int32_t lo, hi; /* vertex indices, lo < hi */
    int32_t tri;
    int32_t edge;
} edge_rec;

static int compare_edges(const void *pa, const void *pb) {
    const edge_rec *a = pa, *b = pb;
    if (a->lo != b->lo) {
        return a->lo < b->lo ? -1 : 1;
    }
    if (a->hi != b->hi) {
        return a->hi < b->hi ? -1 : 1;
    }
    return (a->tri > b->tri) - (a->tri < b->tri);
}

/* An edge between two triangles is real when it is a ridge (each triangle's
 * third vertex lies below the other's plane); flat and concave edges are
 * internal, and contacts there take the face normal. */
static int mark_real_edges(tri_mesh *m) {
    int ne = 3 * m->triangle_count;
    edge_rec *e = heft_alloc(sizeof(edge_rec) * (size_t)ne);
    if (!e) {
        return 0;
    }
    for (int t = 0; t < m->triangle_count; ++t) {
        for (int i = 0; i < 3; ++i) {
            int32_t a = m->indices[3 * t + i], b = m->indices[3 * t + (i + 1) % 3];
            edge_rec *r = &e[3 * t + i];
            r->lo = a < b ? a : b;
            r->hi = a < b ? b : a;
            r->tri = t;
            r->edge = i;
        }
        m->real_edges[t] = 0;
    }
    qsort(e, (size_t)ne, sizeof(edge_rec), compare_edges);
    for (int i = 0; i < ne;) {
        int j = i + 1;
        while (j < ne && e[j].lo == e[i].lo && e[j].hi == e[i].hi) {
            j++;
        }
        if (j - i == 2) {
            int t1 = e[i].tri, t2 = e[i + 1].tri;
            int32_t a1 = m->indices[3 * t1 + e[i].edge], a2 = m->indices[3 * t2 + e[i + 1].edge];
            int32_t q1 = m->indices[3 * t1 + (e[i].edge + 2) % 3];
            int32_t q2 = m->indices[3 * t2 + (e[i + 1].edge + 2) % 3];
            heft_vec3 p = m->vertices[e[i].lo];
            double len = heft_v3_length(heft_v3_sub(m->vertices[e[i].hi], p));
            double s1 = heft_v3_dot(m->normals[t1], heft_v3_sub(m->vertices[q2], p));
            double s2 = heft_v3_dot(m->normals[t2], heft_v3_sub(m->vertices[q1], p));
            int opposite = a1 != a2; /* consistently wound neighbours run the edge both ways */
            int ridge = s1 < -1e-9 * len && s2 < -1e-9 * len;
            if (!opposite || ridge) {
                m->real_edges[t1] |= (uint8_t)(1u << e[i].edge);
                m->real_edges[t2] |= (uint8_t)(1u << e[i + 1].edge);
            }
        } else {
            for (int k = i; k < j; ++k) { /* border or non-manifold edge */
                m->real_edges[e[k].tri] |= (uint8_t)(1u << e[k].edge);
            }
        }
        i = j;
    }
    heft_free(e);
    return 1;
}

tri_mesh *mesh_create(const heft_mesh_def *d) {
    if (!d->vertices || !d->indices || d->vertex_count < 3 || d->triangle_count < 1) {
        heft_set_error("a mesh needs at least 3 vertices and 1 triangle");
        return NULL;
    }
    if (d->triangle_count > (1 << 24) || d->vertex_count > (1 << 26)) {
        heft_set_error("a mesh takes at most 2^24 triangles and 2^26 vertices");
        return NULL;
    }
    for (int i = 0; i < d->vertex_count; ++i) {
        if (!heft_v3_isfinite(d->vertices[i])) {
            heft_set_error("mesh vertex %d is not finite", i);
            return NULL;
        }
    }
    for (int t = 0; t < d->triangle_count; ++t) {
        for (int k = 0; k < 3; ++k) {
            int32_t ix = d->indices[3 * t + k];
            if (ix < 0 || ix >= d->vertex_count) {
                heft_set_error("mesh triangle %d has index %d out of range [0, %d)", t, (int)ix,
                               d->vertex_count);
                return NULL;
            }
        }
        heft_vec3 a = d->vertices[d->indices[3 * t]], b = d->vertices[d->indices[3 * t + 1]],
                  c = d->vertices[d->indices[3 * t + 2]];
        heft_vec3 ab = heft_v3_sub(b, a), ac = heft_v3_sub(c, a);
        double area2 = heft_v3_length(heft_v3_cross(ab, ac));
        double scale = fmax(v3_length2(ab), v3_length2(ac));
        if (!(area2 > 1e-12 * scale) || !(scale > 0.0)) {
            heft_set_error("mesh triangle %d has zero area", t);
            return NULL;
        }
    }
    int nv = d->vertex_count, nt = d->triangle_count, nn = 2 * nt;
    size_t off_v = align8(sizeof(tri_mesh));
    size_t off_n = off_v + align8(sizeof(heft_vec3) * (size_t)nv);
    size_t off_nodes = off_n + align8(sizeof(heft_vec3) * (size_t)nt);
    size_t off_i = off_nodes + align8(sizeof(mesh_node) * (size_t)nn);
    size_t off_o = off_i + align8(sizeof(int32_t) * 3 * (size_t)nt);
    size_t off_r = off_o + align8(sizeof(int32_t) * (size_t)nt);
    size_t total = off_r + align8((size_t)nt);
    char *block = heft_alloc(total);
    heft_vec3 *centroid = heft_alloc(sizeof(heft_vec3) * (size_t)nt);
    if (!block || !centroid) {
        heft_free(block);
        heft_free(centroid);
        heft_set_error("out of memory");
        return NULL;
    }
    memset(block, 0, total);
    tri_mesh *m = (tri_mesh *)block;
    m->vertex_count = nv;
    m->triangle_count = nt;
    m->vertices = (heft_vec3 *)(block + off_v);
    m->normals = (heft_vec3 *)(block + off_n);
    m->nodes = (mesh_node *)(block + off_nodes);
    m->indices = (int32_t *)(block + off_i);
    m->order = (int32_t *)(block + off_o);
    m->real_edges = (uint8_t *)(block + off_r);
    memcpy(m->vertices, d->vertices, sizeof(heft_vec3) * (size_t)nv);
    memcpy(m->indices, d->indices, sizeof(int32_t) * 3 * (size_t)nt);
    for (int t = 0; t < nt; ++t) {
        heft_vec3 a = m->vertices[m->indices[3 * t]], b = m->vertices[m->indices[3 * t + 1]],
                  c = m->vertices[m->indices[3 * t + 2]];
        m->normals[t] = heft_v3_normalize(heft_v3_cross(heft_v3_sub(b, a), heft_v3_sub(c, a)));
        centroid[t] = heft_v3_scale(heft_v3_add(a, heft_v3_add(b, c)), 1.0 / 3.0);
        m->order[t] = t;
    }
    build_ctx ctx = {m, centroid, 1};
    build_node(&ctx, 0, 0, nt);
    m->node_count = ctx.node_count;
    heft_free(centroid);
    if (!mark_real_edges(m)) {
        heft_free(block);
        heft_set_error("out of memory");
        return NULL;
    }
    return m;
}

void mesh_free(tri_mesh *m) {
    heft_free(m);
}

aabb mesh_bounds(const tri_mesh *m) {
    return m->nodes[0].box;
}

int mesh_query(const tri_mesh *m, aabb box, int32_t *out, int max) {
    int stack[128], top = 0, n = 0;
    stack[top++] = 0;
    while (top > 0) {
        const mesh_node *node = &m->nodes[stack[--top]];
        if (!aabb_overlap(&node->box, &box)) {
            continue;
        }
        if (node->child < 0) {
            for (int i = node->first; i < node->first + node->count; ++i) {
                int t = m->order[i];
                aabb tb = triangle_box(m, t);
                if (aabb_overlap(&tb, &box)) {
                    if (n < max) {
                        out[n] = t;
                    }
                    n++;
                }
            }
        } else if (top + 2 <= 128) {
            stack[top++] = node->child + 1;
            stack[top++] = node->child;
        }
    }
    return n;
}

void mesh_triangle(const tri_mesh *m, int t, triangle *out) {
    for (int k = 0; k < 3; ++k) {
        out->v[k] = m->vertices[m->indices[3 * t + k]];
    }
    out->n = m->normals[t];
    out->real_edges = m->real_edges[t];
    out->index = t;
}

double aabb_ray(const aabb *b, heft_vec3 o, heft_vec3 inv, double max_t) {
    double t0 = 0.0, t1 = max_t;
    for (int k = 0; k < 3; ++k) {
        double oi = v3_get(o, k), id = v3_get(inv, k);
        double lo = v3_get(b->lo, k), hi = v3_get(b->hi, k);
        if (isinf(id)) {
            if (oi < lo || oi > hi) {
                return -1.0;
            }
            continue;
        }
        double ta = (lo - oi) * id, tb = (hi - oi) * id;
        if (ta > tb) {
            double t = ta;
            ta = tb;
            tb = t;
        }
        t0 = ta > t0 ? ta : t0;
        t1 = tb < t1 ? tb : t1;
        if (t0 > t1) {
            return -1.0;
        }
    }
    return t0;
}

int mesh_ray_cast(const tri_mesh *m, heft_vec3 o, heft_vec3 d, double max_t, double *t_hit) {
    heft_vec3 inv = heft_v3(1.0 / d.x, 1.0 / d.y, 1.0 / d.z);
    int stack[128], top = 0, best = -1;
    double best_t = max_t;
    stack[top++] = 0;
    while (top > 0) {
        const mesh_node *node = &m->nodes[stack[--top]];
        if (aabb_ray(&node->box, o, inv, best_t) < 0.0) {
            continue;
        }
        if (node->child < 0) {
            for (int i = node->first; i < node->first + node->count; ++i) {
                triangle tri;
                mesh_triangle(m, m->order[i], &tri);
                double t = triangle_ray(&tri, o, d, best_t);
                if (t >= 0.0 && (best < 0 || t < best_t || (t == best_t && tri.index < best))) {
                    best_t = t;
                    best = tri.index;
                }
            }
        } else if (top + 2 <= 128) {
            stack[top++] = node->child + 1;
            stack[top++] = node->child;
        }
    }
    *t_hit = best_t;
    return best;
}
