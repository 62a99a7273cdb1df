/* Heft: sparse block LDL^T of an equality block (block_ldl.h; [Mizerski 2020],
 * slides "Block LDL" to "Body Shattering"). */
#include "block_ldl.h"

#include <math.h>
#include <string.h>

/* Two doubles in one SSE2 register (the GCC and Clang vector extension):
 * the numeric phase's hot loops work on pairs of adjacent entries, which
 * -O2 does not pair by itself. Loads and stores go through memcpy (no
 * alignment assumed); on other targets the compiler splits them. */
typedef double pair __attribute__((vector_size(16)));

static inline pair load_pair(const double *x) {
    pair v;
    memcpy(&v, x, sizeof v);
    return v;
}

static inline void store_pair(double *x, pair v) {
    memcpy(x, &v, sizeof v);
}

heft_block_ldl_config heft_block_ldl_default_config(void) {
    heft_block_ldl_config c;
    c.ordering = HEFT_ORDER_MIN_EDGE;
    c.shatter_degree = 20;
    c.shard_constraints = 2;
    c.regularization = 1e-12;
    return c;
}

void heft_block_ldl_release(heft_block_ldl *f) {
    if (f == NULL)
        return;
    void *arrays[] = {f->src,        f->ra,
                      f->rb,         f->body_origin,
                      f->body_scale, f->response,
                      f->inv_pivot,  f->node_start,
                      f->row_node,   f->order,
                      f->pos,        f->value_off,
                      f->height,     f->erow_off,
                      f->erow,       f->rsi_off,
                      f->rsi,        f->edge_off,
                      f->edge_node,  f->edge_row,
                      f->values,     f->ltemp,
                      f->work,       f->body_w,
                      f->products,   (void *)f->row_jac};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
    const heft_block_ldl_config config = f->config;
    memset(f, 0, sizeof *f);
    f->config = config;
}

/* ---- small growable int lists for the symbolic phase ------------------------------ */

typedef struct int_list {
    int *v;
    int len, cap;
} int_list;

static int list_push(int_list *l, int x) {
    if (l->len == l->cap) {
        const int cap = l->cap < 4 ? 4 : 2 * l->cap;
        int *v = heft_realloc(l->v, sizeof(int) * (size_t)cap);
        if (v == NULL)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->len++] = x;
    return 0;
}

static void *alloc_zero(size_t count, size_t elem) {
    if (count == 0)
        count = 1;
    void *p = heft_alloc(count * elem);
    if (p != NULL)
        memset(p, 0, count * elem);
    return p;
}

/* ---- graph elimination (slides "Gaussian Elimination on Graphs", "MECA") ----------- */

typedef struct graph {
    int n;
    int_list *adj;
    unsigned char *alive;
    int *mark;
    int stamp;
} graph;

/* Drops eliminated nodes from v's list; returns its degree. */
static int compact(graph *g, int v) {
    int_list *l = &g->adj[v];
    int k = 0;
    for (int i = 0; i < l->len; ++i)
        if (g->alive[l->v[i]])
            l->v[k++] = l->v[i];
    l->len = k;
    return k;
}

/* Edges eliminating v would create: pairs of its neighbours not yet joined. */
static long long new_edges(graph *g, int v) {
    const int deg = compact(g, v);
    const int stamp = ++g->stamp;
    for (int i = 0; i < deg; ++i)
        g->mark[g->adj[v].v[i]] = stamp;
    long long joined = 0;
    for (int i = 0; i < deg; ++i) {
        const int_list *lu = &g->adj[g->adj[v].v[i]];
        for (int k = 0; k < lu->len; ++k)
            joined += g->alive[lu->v[k]] && g->mark[lu->v[k]] == stamp;
    }
    return (long long)deg * (deg - 1) / 2 - joined / 2;
}

static long long score(graph *g, int v, int ordering) {
    if (ordering == HEFT_ORDER_MIN_DEGREE)
        return compact(g, v);
    if (ordering == HEFT_ORDER_NATURAL)
        return 0;
    return new_edges(g, v);
}

/* Eliminates every node; fills order/pos and the edge sequences (edge_off,
 * edge nodes in *edges). Returns the fill edge count, or -1. */
/* A binary min-heap of (score, degree, node) with lazy deletion: a node's
 * entry is current only when its version matches; rescoring pushes anew. */
typedef struct heap_entry {
    long long score;
    int deg, v, version;
} heap_entry;

typedef struct heap {
    heap_entry *e;
    int len, cap;
} heap;

static int entry_less(const heap_entry *a, const heap_entry *b) {
    if (a->score != b->score)
        return a->score < b->score;
    if (a->deg != b->deg)
        return a->deg < b->deg;
    return a->v < b->v;
}

static int heap_push(heap *h, heap_entry x) {
    if (h->len == h->cap) {
        const int cap = h->cap < 16 ? 16 : 2 * h->cap;
        heap_entry *e = heft_realloc(h->e, sizeof *e * (size_t)cap);
        if (e == NULL)
            return -1;
        h->e = e;
        h->cap = cap;
    }
    int i = h->len++;
    while (i > 0 && entry_less(&x, &h->e[(i - 1) / 2])) {
        h->e[i] = h->e[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->e[i] = x;
    return 0;
}

static heap_entry heap_pop(heap *h) {
    const heap_entry top = h->e[0], last = h->e[--h->len];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= h->len)
            break;
        if (c + 1 < h->len && entry_less(&h->e[c + 1], &h->e[c]))
            ++c;
        if (!entry_less(&h->e[c], &last))
            break;
        h->e[i] = h->e[c];
        i = c;
    }
    if (h->len > 0)
        h->e[i] = last;
    return top;
}

static int rescore(graph *g, heap *h, int *version, int v, int ordering) {
    const long long sc = score(g, v, ordering);
    const heap_entry x = {sc, compact(g, v), v, ++version[v]};
    return heap_push(h, x);
}

/* Eliminates every node; fills order/pos and the edge sequences (edge_off,
 * edge nodes in *edges). Ties: fewer neighbours, then lower index. Returns
 * the fill edge count, or -1. */
static int eliminate_graph(graph *g, int ordering, int *order, int *pos, int *edge_off,
                           int_list *edges) {
    const int n = g->n;
    int *version = heft_alloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    heap h = {0};
    if (version == NULL)
        return -1;
    for (int v = 0; v < n; ++v) {
        version[v] = 0;
        if (ordering != HEFT_ORDER_NATURAL && rescore(g, &h, version, v, ordering) != 0)
            goto fail;
    }
    int fill = 0;
    for (int step = 0; step < n; ++step) {
        int v = step;
        if (ordering != HEFT_ORDER_NATURAL) {
            for (;;) { /* the best current entry */
                const heap_entry top = heap_pop(&h);
                if (g->alive[top.v] && top.version == version[top.v]) {
                    v = top.v;
                    break;
                }
            }
        }
        const int deg = compact(g, v);
        order[step] = v;
        pos[v] = step;
        edge_off[step] = edges->len;
        for (int i = 0; i < deg; ++i)
            if (list_push(edges, g->adj[v].v[i]) != 0)
                goto fail;
        g->alive[v] = 0;
        /* the Schur complement of v joins its neighbours pairwise */
        for (int i = 0; i < deg; ++i) {
            const int u = g->adj[v].v[i];
            const int stamp = ++g->stamp;
            for (int k = 0; k < g->adj[u].len; ++k)
                g->mark[g->adj[u].v[k]] = stamp;
            for (int j = i + 1; j < deg; ++j) {
                const int w = g->adj[v].v[j];
                if (g->mark[w] == stamp)
                    continue;
                if (list_push(&g->adj[u], w) != 0 || list_push(&g->adj[w], u) != 0)
                    goto fail;
                ++fill;
            }
        }
        if (ordering == HEFT_ORDER_NATURAL)
            continue;
        /* scores that may have changed: the neighbours, and for MECA theirs */
        const int stamp = ++g->stamp;
        for (int i = 0; i < deg; ++i) {
            const int u = g->adj[v].v[i];
            if (g->mark[u] != stamp) {
                g->mark[u] = stamp;
                if (rescore(g, &h, version, u, ordering) != 0)
                    goto fail;
            }
            if (ordering == HEFT_ORDER_MIN_EDGE)
                for (int k = 0; k < g->adj[u].len; ++k) {
                    const int w = g->adj[u].v[k];
                    if (g->alive[w] && g->mark[w] != stamp) {
                        g->mark[w] = stamp;
                        if (rescore(g, &h, version, w, ordering) != 0)
                            goto fail;
                    }
                }
        }
    }
    edge_off[n] = edges->len;
    heft_free(version);
    heft_free(h.e);
    return fill;
fail:
    heft_free(version);
    heft_free(h.e);
    return -1;
}

/* ---- symbolic phase ------------------------------------------------------------------- */

static int same_node(const heft_mlcp *p, int r0, int r1) {
    if (p->block != NULL)
        return p->block[r0] == p->block[r1];
    return p->rows[r0].a == p->rows[r1].a && p->rows[r0].b == p->rows[r1].b;
}

static int32_t dynamic_or_static(const heft_mlcp *p, int32_t b) {
    return b >= 0 && b < p->nbodies ? b : -1;
}

/* Rows of L^T in the scratch: h rounded up to even, so the numeric phase's
 * loops over them go two at a time with no remainder (and -O2 pairs them). */
static int padded_height(int h) {
    return (h + 1) & ~1;
}

/* End of the run of rows from `row` (before `end`) with the same two bodies:
 * a node's rows are one run unless its rows join different bodies. */
static int run_end(const heft_block_ldl *f, int row, int end) {
    int r = row + 1;
    while (r < end && f->ra[r] == f->ra[row] && f->rb[r] == f->rb[row])
        ++r;
    return r;
}

/* The products of one stored block, rows [i0, i1) by columns [l0, l1) at
 * values + out: one per pair of runs and per body they share. A diagonal
 * block (i0 == l0) keeps its lower triangle. Stores them when list is not
 * NULL; returns how many. */
static int block_products(const heft_block_ldl *f, int i0, int i1, int l0, int l1, size_t out,
                          int stride, int diagonal, heft_block_ldl_product *list) {
    int n = 0;
    for (int a = i0; a < i1; a = run_end(f, a, i1)) {
        const int a_end = run_end(f, a, i1);
        for (int b = l0; b < l1 && !(diagonal && b > a); b = run_end(f, b, l1)) {
            const int b_end = run_end(f, b, l1);
            const int32_t side_a[2] = {f->ra[a], f->rb[a]}, side_b[2] = {f->ra[b], f->rb[b]};
            for (int s = 0; s < 2; ++s)
                for (int t = 0; t < 2; ++t) {
                    if (side_a[s] < 0 || side_a[s] != side_b[t])
                        continue;
                    if (list != NULL) {
                        heft_block_ldl_product *x = &list[n];
                        x->out = (uint32_t)(out + (size_t)(a - i0) * stride + (size_t)(b - l0));
                        x->row_i = a;
                        x->row_l = b;
                        x->rows = a_end - a;
                        x->cols = b_end - b;
                        x->stride = stride;
                        x->side_i = (unsigned char)s;
                        x->side_l = (unsigned char)t;
                        x->lower = (unsigned char)(diagonal && a == b);
                    }
                    ++n;
                }
        }
    }
    return n;
}

/* Every pivot's N and the E blocks of its original edges (fill edges share
 * no body and start at zero). */
static int assembly_products(const heft_block_ldl *f, heft_block_ldl_product *list) {
    int n = 0;
    for (int k = 0; k < f->nnodes; ++k) {
        const int v = f->order[k], base = f->node_start[v];
        const int d = f->node_start[v + 1] - base;
        n += block_products(f, base, base + d, base, base + d, f->value_off[k], d, 1,
                            list != NULL ? list + n : NULL);
        for (int x = f->edge_off[k]; x < f->edge_off[k + 1]; ++x) {
            const int u = f->edge_node[x];
            const size_t out = f->value_off[k] + (size_t)d * d + (size_t)f->edge_row[x] * d;
            n += block_products(f, f->node_start[u], f->node_start[u + 1], base, base + d, out, d,
                                0, list != NULL ? list + n : NULL);
        }
    }
    return n;
}

int heft_block_ldl_analyze(heft_block_ldl *f, const heft_mlcp *p, const int *rows, int count,
                           const heft_block_ldl_config *config) {
    heft_block_ldl_release(f);
    if (config != NULL)
        f->config = *config;
    if (p == NULL || p->rows == NULL || count < 0 || p->nbodies < 0)
        return -1;
    for (int i = 0; i < count; ++i) {
        if (rows[i] < 0 || rows[i] >= p->n)
            return -1;
        const heft_mlcp_row *r = &p->rows[rows[i]];
        if (r->a >= p->nbodies || r->b >= p->nbodies)
            return -1;
    }
    const int nb = p->nbodies;
    int rc = -1, nsys_bodies = nb;
    /* temporaries */
    int *chosen_node = alloc_zero((size_t)count, sizeof(int));
    int *degree = alloc_zero((size_t)nb, sizeof(int));
    int *marker = alloc_zero((size_t)nb, sizeof(int));
    int *shards = alloc_zero((size_t)nb, sizeof(int));
    int *shard_first = alloc_zero((size_t)nb, sizeof(int));
    int *shard_cur = alloc_zero((size_t)nb, sizeof(int));
    int *seen = alloc_zero((size_t)nb, sizeof(int));
    graph g = {0};
    int_list edges = {0};
    int_list *body_nodes = NULL;
    if (!chosen_node || !degree || !marker || !shards || !shard_first || !shard_cur || !seen)
        goto done;

    /* nodes of the chosen rows: runs of rows of one block */
    int nchosen_nodes = 0;
    for (int i = 0; i < count; ++i) {
        if (i == 0 || !same_node(p, rows[i - 1], rows[i]))
            ++nchosen_nodes;
        chosen_node[i] = nchosen_nodes - 1;
    }
    /* constraint degree of every body: nodes touching it */
    for (int b = 0; b < nb; ++b)
        marker[b] = -1;
    for (int i = 0; i < count; ++i) {
        const int32_t side[2] = {p->rows[rows[i]].a, p->rows[rows[i]].b};
        for (int s = 0; s < 2; ++s)
            if (side[s] >= 0 && marker[side[s]] != chosen_node[i]) {
                marker[side[s]] = chosen_node[i];
                ++degree[side[s]];
            }
    }
    /* shattering (slide "Body Shattering"): shards of equal mass, chained */
    int nfixed_nodes = 0;
    const int per_shard = f->config.shard_constraints > 0 ? f->config.shard_constraints : 2;
    for (int b = 0; b < nb; ++b) {
        shards[b] = 1;
        if (f->config.shatter_degree > 0 && degree[b] > f->config.shatter_degree) {
            shards[b] = (degree[b] + per_shard - 1) / per_shard;
            if (shards[b] < 2)
                shards[b] = 2;
            shard_first[b] = nsys_bodies; /* shards 1..s-1; shard 0 is the body itself */
            nsys_bodies += shards[b] - 1;
            nfixed_nodes += shards[b] - 1;
            f->stats.shattered_bodies++;
            f->stats.shards += shards[b] - 1;
        }
    }
    f->nchosen = count;
    f->nrows = count + 6 * nfixed_nodes;
    f->nbodies = nsys_bodies;
    f->nnodes = nchosen_nodes + nfixed_nodes;
    const size_t nr = (size_t)f->nrows, nn = (size_t)f->nnodes;
    f->src = alloc_zero(nr, sizeof(int));
    f->ra = alloc_zero(nr, sizeof(int32_t));
    f->rb = alloc_zero(nr, sizeof(int32_t));
    f->row_node = alloc_zero(nr, sizeof(int));
    f->body_origin = alloc_zero((size_t)nsys_bodies, sizeof(int));
    f->body_scale = alloc_zero((size_t)nsys_bodies, sizeof(double));
    f->response = alloc_zero(12 * nr + 1, sizeof(double));
    f->row_jac = alloc_zero(2 * nr, sizeof(const double *));
    f->inv_pivot = alloc_zero(nr, sizeof(double));
    f->body_w = alloc_zero(7 * (size_t)nsys_bodies, sizeof(double));
    f->work = alloc_zero(nr, sizeof(double));
    f->node_start = alloc_zero(nn + 1, sizeof(int));
    f->order = alloc_zero(nn, sizeof(int));
    f->pos = alloc_zero(nn, sizeof(int));
    f->value_off = alloc_zero(nn + 1, sizeof(size_t));
    f->height = alloc_zero(nn, sizeof(int));
    f->erow_off = alloc_zero(nn + 1, sizeof(int));
    f->rsi_off = alloc_zero(nn + 1, sizeof(size_t));
    f->edge_off = alloc_zero(nn + 1, sizeof(int));
    if (!f->src || !f->ra || !f->rb || !f->row_node || !f->body_origin || !f->body_scale ||
        !f->response || !f->row_jac || !f->inv_pivot || !f->body_w || !f->work || !f->node_start ||
        !f->order || !f->pos || !f->value_off || !f->height || !f->erow_off || !f->rsi_off ||
        !f->edge_off)
        goto done;
    for (int b = 0; b < nb; ++b) {
        f->body_origin[b] = b;
        f->body_scale[b] = shards[b];
        for (int t = 1; t < shards[b]; ++t) {
            f->body_origin[shard_first[b] + t - 1] = b;
            f->body_scale[shard_first[b] + t - 1] = shards[b];
        }
    }
    /* system rows: the chosen ones with shattered bodies mapped to a shard */
    for (int b = 0; b < nb; ++b)
        marker[b] = -1;
    for (int i = 0; i < count; ++i) {
        const heft_mlcp_row *r = &p->rows[rows[i]];
        int32_t side[2] = {dynamic_or_static(p, r->a), dynamic_or_static(p, r->b)};
        for (int s = 0; s < 2; ++s) {
            const int32_t b = side[s];
            if (b < 0 || shards[b] == 1)
                continue;
            if (marker[b] != chosen_node[i]) { /* the node's shard: runs of per_shard nodes */
                marker[b] = chosen_node[i];
                shard_cur[b] = seen[b]++ / per_shard;
                if (shard_cur[b] >= shards[b])
                    shard_cur[b] = shards[b] - 1;
            }
            side[s] = shard_cur[b] == 0 ? b : shard_first[b] + shard_cur[b] - 1;
        }
        f->src[i] = rows[i];
        f->ra[i] = side[0];
        f->rb[i] = side[1];
        f->row_node[i] = chosen_node[i];
        if (i == 0 || chosen_node[i] != chosen_node[i - 1])
            f->node_start[chosen_node[i]] = i;
    }
    /* the fixed joints between consecutive shards: 6 rows J = [I, -I] */
    int row = count, node = nchosen_nodes;
    for (int b = 0; b < nb; ++b)
        for (int t = 0; t + 1 < shards[b]; ++t, ++node) {
            f->node_start[node] = row;
            for (int axis = 0; axis < 6; ++axis, ++row) {
                f->src[row] = -1 - axis;
                f->ra[row] = t == 0 ? b : shard_first[b] + t - 1;
                f->rb[row] = shard_first[b] + t;
                f->row_node[row] = node;
            }
        }
    f->node_start[f->nnodes] = f->nrows;

    /* the constraint graph: nodes joined when they share a body */
    body_nodes = alloc_zero((size_t)nsys_bodies, sizeof(int_list));
    g.n = f->nnodes;
    g.adj = alloc_zero(nn, sizeof(int_list));
    g.alive = alloc_zero(nn, 1);
    g.mark = alloc_zero(nn, sizeof(int));
    if (!body_nodes || !g.adj || !g.alive || !g.mark)
        goto done;
    for (int v = 0; v < f->nnodes; ++v) {
        g.alive[v] = 1;
        g.mark[v] = -1;
        for (int i = f->node_start[v]; i < f->node_start[v + 1]; ++i) {
            const int32_t side[2] = {f->ra[i], f->rb[i]};
            for (int s = 0; s < 2; ++s) {
                const int32_t b = side[s];
                if (b < 0)
                    continue;
                const int_list *l = &body_nodes[b];
                if (l->len > 0 && l->v[l->len - 1] == v)
                    continue;
                if (list_push(&body_nodes[b], v) != 0)
                    goto done;
            }
        }
    }
    int nedges = 0;
    for (int v = 0; v < f->nnodes; ++v) {
        const int stamp = ++g.stamp;
        g.mark[v] = stamp;
        for (int i = f->node_start[v]; i < f->node_start[v + 1]; ++i) {
            const int32_t side[2] = {f->ra[i], f->rb[i]};
            for (int s = 0; s < 2; ++s) {
                if (side[s] < 0)
                    continue;
                const int_list *l = &body_nodes[side[s]];
                for (int k = 0; k < l->len; ++k)
                    if (g.mark[l->v[k]] != stamp) {
                        g.mark[l->v[k]] = stamp;
                        if (list_push(&g.adj[v], l->v[k]) != 0)
                            goto done;
                        nedges += l->v[k] > v;
                    }
            }
        }
    }
    f->stats.edges = nedges;
    const int fill = eliminate_graph(&g, f->config.ordering, f->order, f->pos, f->edge_off, &edges);
    if (fill < 0)
        goto done;
    f->stats.fill_edges = fill;
    f->edge_node = edges.v;
    edges.v = NULL;
    const int total_edges = f->edge_off[f->nnodes];
    f->edge_row = alloc_zero((size_t)total_edges, sizeof(int));
    if (f->edge_node == NULL && total_edges > 0)
        goto done;
    if (f->edge_row == NULL)
        goto done;

    /* edge sequences in pivot order; the packed layout */
    size_t voff = 0, roff = 0;
    int eoff = 0, max_scratch = 1;
    double flops = 0.0, stored = 0.0;
    for (int k = 0; k < f->nnodes; ++k) {
        const int len = f->edge_off[k + 1] - f->edge_off[k];
        /* a mechanism without edges (one joint) has no edge array at all:
         * offsetting NULL, even by zero, is undefined behaviour */
        int *seq = len > 0 ? f->edge_node + f->edge_off[k] : NULL;
        for (int i = 1; i < len; ++i) /* insertion sort by pivot position */
            for (int j = i; j > 0 && f->pos[seq[j - 1]] > f->pos[seq[j]]; --j) {
                const int t = seq[j];
                seq[j] = seq[j - 1];
                seq[j - 1] = t;
            }
        const int v = f->order[k];
        const int d = f->node_start[v + 1] - f->node_start[v];
        int h = 0;
        for (int i = 0; i < len; ++i) {
            f->edge_row[f->edge_off[k] + i] = h;
            h += f->node_start[seq[i] + 1] - f->node_start[seq[i]];
        }
        f->value_off[k] = voff;
        f->height[k] = h;
        f->erow_off[k] = eoff;
        f->rsi_off[k] = roff;
        voff += (size_t)d * (size_t)d + (size_t)h * (size_t)d;
        roff += (size_t)h * (size_t)(h + 1) / 2;
        eoff += h;
        if (2 * d * padded_height(h) > max_scratch)
            max_scratch = 2 * d * padded_height(h);
        flops += (double)d * d * d / 6.0 + (double)h * d * d + (double)d * h * (h + 1) / 2.0;
        f->stats.block_sizes[d <= 6 ? d : 7]++;
        stored += (double)d * d;
    }
    f->value_off[f->nnodes] = voff;
    f->erow_off[f->nnodes] = eoff;
    f->rsi_off[f->nnodes] = roff;
    if (voff >= UINT32_MAX)
        goto done;
    f->values_count = voff;
    f->rsi_count = roff;
    f->values = alloc_zero(voff, sizeof(double));
    f->ltemp = alloc_zero((size_t)max_scratch, sizeof(double));
    f->erow = alloc_zero((size_t)eoff, sizeof(int));
    f->rsi = alloc_zero(roff, sizeof(uint32_t));
    if (!f->values || !f->ltemp || !f->erow || !f->rsi)
        goto done;
    for (int k = 0; k < f->nnodes; ++k) {
        int e = f->erow_off[k];
        for (int i = f->edge_off[k]; i < f->edge_off[k + 1]; ++i)
            for (int r = f->node_start[f->edge_node[i]]; r < f->node_start[f->edge_node[i] + 1];
                 ++r)
                f->erow[e++] = r;
    }
    /* the reduction scatter indices (slide "Reduction Scattering Indexation") */
    for (int k = 0; k < f->nnodes; ++k) {
        const int h = f->height[k];
        const int *er = f->erow + f->erow_off[k];
        uint32_t *rsi = f->rsi + f->rsi_off[k];
        for (int i = 0; i < h; ++i) {
            const int a = f->row_node[er[i]], ra = er[i] - f->node_start[a];
            for (int j = 0; j <= i; ++j) {
                const int b = f->row_node[er[j]], rb = er[j] - f->node_start[b];
                size_t target;
                if (a == b) {
                    const int da = f->node_start[a + 1] - f->node_start[a];
                    target = f->value_off[f->pos[a]] + (size_t)ra * da + (size_t)rb;
                } else { /* b is eliminated before a: E_{a,b} is in b's edge matrix */
                    const int kb = f->pos[b];
                    const int db = f->node_start[b + 1] - f->node_start[b];
                    int found = -1;
                    for (int x = f->edge_off[kb]; x < f->edge_off[kb + 1]; ++x)
                        if (f->edge_node[x] == a) {
                            found = x;
                            break;
                        }
                    if (found < 0)
                        goto done; /* cannot happen: the elimination joined a and b */
                    target = f->value_off[kb] + (size_t)db * db +
                             (size_t)(f->edge_row[found] + ra) * db + (size_t)rb;
                }
                *rsi++ = (uint32_t)target;
            }
        }
    }
    /* the numeric phase reads one scatter index per run of a row against one
     * neighbour (E rows of one node): the layout makes each run consecutive */
    for (int k = 0; k < f->nnodes; ++k) {
        const int *group_row = f->edge_row + f->edge_off[k];
        const int ngroups = f->edge_off[k + 1] - f->edge_off[k];
        const uint32_t *rsi = f->rsi + f->rsi_off[k];
        for (int gi = 0; gi < ngroups; ++gi) {
            const int i_end = gi + 1 < ngroups ? group_row[gi + 1] : f->height[k];
            for (int i = group_row[gi]; i < i_end; ++i)
                for (int gj = 0; gj <= gi; ++gj) {
                    const int j0 = group_row[gj], j1 = gj < gi ? group_row[gj + 1] : i + 1;
                    const uint32_t *row_rsi = rsi + (size_t)i * (i + 1) / 2;
                    for (int j = j0 + 1; j < j1; ++j)
                        if (row_rsi[j] != row_rsi[j0] + (uint32_t)(j - j0))
                            goto done; /* cannot happen */
                }
        }
    }
    /* the block products of the assembly: count, then fill */
    f->nproducts = assembly_products(f, NULL);
    f->products = alloc_zero((size_t)f->nproducts, sizeof(heft_block_ldl_product));
    if (f->products == NULL)
        goto done;
    assembly_products(f, f->products);
    /* statistics of the original H (edges before fill) */
    {
        /* off-diagonal blocks of H: pairs of nodes sharing a body */
        double off = 0.0;
        for (int v = 0; v < f->nnodes; ++v) {
            const int stamp = ++g.stamp;
            g.mark[v] = stamp;
            const int dv = f->node_start[v + 1] - f->node_start[v];
            for (int i = f->node_start[v]; i < f->node_start[v + 1]; ++i) {
                const int32_t side[2] = {f->ra[i], f->rb[i]};
                for (int s = 0; s < 2; ++s) {
                    if (side[s] < 0)
                        continue;
                    const int_list *l = &body_nodes[side[s]];
                    for (int k = 0; k < l->len; ++k)
                        if (g.mark[l->v[k]] != stamp) {
                            g.mark[l->v[k]] = stamp;
                            off +=
                                (double)dv * (f->node_start[l->v[k] + 1] - f->node_start[l->v[k]]);
                        }
                }
            }
        }
        stored += off;
    }
    f->stats.nodes = f->nnodes;
    f->stats.dim = f->nrows;
    f->stats.density = f->nrows > 0 ? stored / ((double)f->nrows * f->nrows) : 0.0;
    f->stats.factor_entries = voff;
    f->stats.flops = flops;
    f->valid = 1;
    rc = 0;
done:
    if (g.adj != NULL)
        for (int v = 0; v < g.n; ++v)
            heft_free(g.adj[v].v);
    if (body_nodes != NULL)
        for (int b = 0; b < nsys_bodies; ++b)
            heft_free(body_nodes[b].v);
    heft_free(body_nodes);
    heft_free(g.adj);
    heft_free(g.alive);
    heft_free(g.mark);
    heft_free(edges.v);
    heft_free(chosen_node);
    heft_free(degree);
    heft_free(marker);
    heft_free(shards);
    heft_free(shard_first);
    heft_free(shard_cur);
    heft_free(seen);
    if (rc != 0)
        heft_block_ldl_release(f);
    return rc;
}

/* ---- numeric phase -------------------------------------------------------------------- */

/* The Jacobian of a fixed joint between shards: +e_axis on a, -e_axis on b. */
static const double unit_rows[2][6][6] = {
    {{1, 0, 0, 0, 0, 0},
     {0, 1, 0, 0, 0, 0},
     {0, 0, 1, 0, 0, 0},
     {0, 0, 0, 1, 0, 0},
     {0, 0, 0, 0, 1, 0},
     {0, 0, 0, 0, 0, 1}},
    {{-1, 0, 0, 0, 0, 0},
     {0, -1, 0, 0, 0, 0},
     {0, 0, -1, 0, 0, 0},
     {0, 0, 0, -1, 0, 0},
     {0, 0, 0, 0, -1, 0},
     {0, 0, 0, 0, 0, -1}},
};

static const double *jacobian(const heft_block_ldl *f, const heft_mlcp *p, int row, int side) {
    const int src = f->src[row];
    if (src >= 0)
        return side == 0 ? p->rows[src].ja : p->rows[src].jb;
    return unit_rows[side][-1 - src];
}

/* Once per factor: each system row's two Jacobian blocks (row_jac) and
 * W J^T by component, response[(6 side + axis) nrows + row], so that
 * consecutive rows of one component are adjacent for the assembly (0 on a
 * static side). W of each system body first: its inverse mass and inertia
 * times its shard count. */
static void gather_rows(heft_block_ldl *f, const heft_mlcp *p) {
    const size_t nrows = (size_t)f->nrows;
    double *restrict bw = f->body_w, *restrict resp = f->response;
    for (int i = 0; i < f->nrows; ++i) {
        f->row_jac[2 * i] = jacobian(f, p, i, 0);
        f->row_jac[2 * i + 1] = jacobian(f, p, i, 1);
    }
    for (int b = 0; b < f->nbodies; ++b) {
        const heft_mlcp_body *body = &p->bodies[f->body_origin[b]];
        const double s = f->body_scale[b];
        bw[7 * b] = s * body->inv_mass;
        for (int k = 0; k < 6; ++k)
            bw[7 * b + 1 + k] = s * body->inv_inertia[k];
    }
    for (int i = 0; i < f->nrows; ++i) {
        const int32_t side[2] = {f->ra[i], f->rb[i]};
        for (int s = 0; s < 2; ++s) {
            double *out = resp + 6 * (size_t)s * nrows + (size_t)i;
            if (side[s] < 0) {
                for (int k = 0; k < 6; ++k)
                    out[k * nrows] = 0.0;
                continue;
            }
            const double *j = f->row_jac[2 * i + s], *w = bw + 7 * (size_t)side[s];
            const double *I = w + 1;
            out[0] = w[0] * j[0];
            out[nrows] = w[0] * j[1];
            out[2 * nrows] = w[0] * j[2];
            out[3 * nrows] = I[0] * j[3] + I[1] * j[4] + I[2] * j[5];
            out[4 * nrows] = I[1] * j[3] + I[3] * j[4] + I[4] * j[5];
            out[5 * nrows] = I[2] * j[3] + I[4] * j[4] + I[5] * j[5];
        }
    }
}

/* H~ = J W J^T + diag(epsilon) + reg diag(J W J^T) into the packed layout:
 * the symbolic phase's block products, each entry a 6-term product, two
 * entries of a row at a time (one SSE2 register each way); slide
 * "Compliance and Regularization" for the diagonal. */
static void assemble(heft_block_ldl *f, const heft_mlcp *p) {
    double *restrict values = f->values;
    const double *restrict resp = f->response;
    const double *const *row_jac = f->row_jac;
    const size_t nrows = (size_t)f->nrows;
    memset(values, 0, sizeof(double) * f->values_count);
    for (int x = 0; x < f->nproducts; ++x) {
        const heft_block_ldl_product *q = &f->products[x];
        double *out = values + q->out;
        const double *w = resp + 6 * q->side_l * nrows + (size_t)q->row_l;
        for (int r = 0; r < q->rows; ++r, out += q->stride) {
            const double *ji = row_jac[2 * (q->row_i + r) + q->side_i];
            const double j0 = ji[0], j1 = ji[1], j2 = ji[2], j3 = ji[3], j4 = ji[4], j5 = ji[5];
            const double *w0 = w, *w1 = w0 + nrows, *w2 = w1 + nrows, *w3 = w2 + nrows,
                         *w4 = w3 + nrows, *w5 = w4 + nrows;
            const int cols = q->lower ? r + 1 : q->cols;
            /* an odd last pair reads one row past the block (the response
             * has one spare entry at its end) and keeps the first */
            for (int c = 0; c < cols; c += 2) {
                const pair sum = (j0 * load_pair(w0 + c) + j1 * load_pair(w1 + c)) +
                                 (j2 * load_pair(w2 + c) + j3 * load_pair(w3 + c)) +
                                 (j4 * load_pair(w4 + c) + j5 * load_pair(w5 + c));
                if (c + 1 < cols)
                    store_pair(out + c, load_pair(out + c) + sum);
                else
                    out[c] += sum[0];
            }
        }
    }
    const double reg = f->config.regularization > 0.0 ? f->config.regularization : 0.0;
    for (int k = 0; k < f->nnodes; ++k) {
        const int v = f->order[k], base = f->node_start[v];
        const int d = f->node_start[v + 1] - base;
        double *N = values + f->value_off[k];
        for (int r = 0; r < d; ++r) {
            const int src = f->src[base + r];
            const double eps = src >= 0 && p->epsilon != NULL ? p->epsilon[src] : 0.0;
            N[r * d + r] += eps + reg * N[r * d + r];
        }
    }
}

#define HEFT_BLOCK_KERNEL_MAX 6

/* LDL^T of the d x d lower block N in place (D on the diagonal, unit L
 * below), and 1 / D into inv so that nothing after divides. */
static inline __attribute__((always_inline)) int ldl_block(double *restrict N, double *restrict inv,
                                                           int d) {
#pragma GCC unroll 6
    for (int j = 0; j < d; ++j) {
        double dj = N[j * d + j];
#pragma GCC unroll 6
        for (int k = 0; k < j; ++k)
            dj -= N[j * d + k] * N[j * d + k] * N[k * d + k];
        if (!(dj > 0.0) || !isfinite(dj))
            return -1;
        N[j * d + j] = dj;
        const double r = 1.0 / dj;
        inv[j] = r;
        for (int i = j + 1; i < d; ++i) {
            double v = N[i * d + j];
#pragma GCC unroll 6
            for (int k = 0; k < j; ++k)
                v -= N[i * d + k] * N[j * d + k] * N[k * d + k];
            N[i * d + j] = v * r;
        }
    }
    return 0;
}

/* t[0..n) -= (E L^T) of one row of E (broadcast in e) against n rows of L,
 * whose transpose starts at lt (rows hp apart), two entries at a time. An
 * odd run's last pair reads one entry past it (still inside the scratch)
 * and keeps only the first. */
static inline __attribute__((always_inline)) void reduce_run(double *restrict t,
                                                             const double *restrict lt, int hp,
                                                             const pair *restrict e, int n, int d) {
    for (int j = 0; j < n; j += 2) {
        pair sum = e[0] * load_pair(lt + j);
#pragma GCC unroll 6
        for (int c = 1; c < d; ++c)
            sum += e[c] * load_pair(lt + c * hp + j);
        if (j + 1 < n)
            store_pair(t + j, load_pair(t + j) - sum);
        else
            t[j] -= sum[0];
    }
}

/* The same for two rows of E (e and f) into their own targets, each pair of
 * L^T read once for both. */
static inline __attribute__((always_inline)) void
reduce_two_runs(double *restrict te, double *restrict tf, const double *restrict lt, int hp,
                const pair *restrict e, const pair *restrict f, int n, int d) {
    for (int j = 0; j < n; j += 2) {
        pair l = load_pair(lt + j);
        pair se = e[0] * l, sf = f[0] * l;
#pragma GCC unroll 6
        for (int c = 1; c < d; ++c) {
            l = load_pair(lt + c * hp + j);
            se += e[c] * l;
            sf += f[c] * l;
        }
        if (j + 1 < n) {
            store_pair(te + j, load_pair(te + j) - se);
            store_pair(tf + j, load_pair(tf + j) - sf);
        } else {
            te[j] -= se[0];
            tf[j] -= sf[0];
        }
    }
}

/* Slide "Implementation": eliminatePivot. N (d x d) then E (h x d) of the
 * pivot; S is the whole packed array, rsi the pivot's scatter indices. The
 * stores into S never touch this pivot's N or E (they go to later pivots),
 * which is what the restrict qualifiers promise.
 *
 * For d <= 6 (d a constant, the loops over it unrolled): L = E N^-1 two rows
 * of E at a time, kept transposed in the scratch (d rows of h rounded up to
 * even) and row-major after it; the reduction S -= E L^T then runs along h
 * two entries at a time with independent sums. Each pair is one SSE2
 * operation and no dependency chain is longer than d. */
static inline __attribute__((always_inline)) int
eliminate_pivot(double *S, double *restrict N, double *restrict E, double *restrict inv,
                double *restrict lt, const uint32_t *restrict rsi, const int *restrict group_row,
                int ngroups, int h, int d) {
    const int hp = padded_height(h);
    if (ldl_block(N, inv, d) != 0)
        return -1;
    double *restrict lrow = lt + (size_t)d * hp; /* L, row-major as E */
    if (d <= HEFT_BLOCK_KERNEL_MAX) {
        /* N's factor as pairs (both halves the same), so the loop below
         * multiplies registers and never broadcasts */
        pair coef[HEFT_BLOCK_KERNEL_MAX * HEFT_BLOCK_KERNEL_MAX];
#pragma GCC unroll 6
        for (int j = 0; j < d; ++j) {
#pragma GCC unroll 6
            for (int k = 0; k < j; ++k)
                coef[j * d + k] = (pair){N[j * d + k], N[j * d + k]};
            coef[j * d + j] = (pair){inv[j], inv[j]};
        }
        /* L = E N^-1 two rows at a time: x[j] holds column j of both */
        for (int i = 0; i < h; i += 2) {
            const int two = i + 1 < h;
            pair x[HEFT_BLOCK_KERNEL_MAX];
#pragma GCC unroll 6
            for (int j = 0; j < d; ++j)
                x[j] = (pair){E[i * d + j], two ? E[(i + 1) * d + j] : 0.0};
#pragma GCC unroll 6
            for (int j = 1; j < d; ++j)
#pragma GCC unroll 6
                for (int k = 0; k < j; ++k)
                    x[j] -= coef[j * d + k] * x[k];
#pragma GCC unroll 6
            for (int j = 0; j < d; ++j)
                x[j] *= coef[j * d + j];
#pragma GCC unroll 6
            for (int j = d - 2; j >= 0; --j)
#pragma GCC unroll 6
                for (int k = j + 1; k < d; ++k)
                    x[j] -= coef[k * d + j] * x[k];
#pragma GCC unroll 6
            for (int j = 0; j < d; ++j) {
                store_pair(lt + j * hp + i, x[j]);
                lrow[i * d + j] = x[j][0];
                if (two)
                    lrow[(i + 1) * d + j] = x[j][1];
            }
        }
    } else { /* the generic kernel: the same steps, one entry at a time */
        for (int c = 0; c < d; ++c) {
            for (int i = 0; i < h; ++i)
                lt[c * hp + i] = E[i * d + c];
            if (h < hp)
                lt[c * hp + h] = 0.0;
        }
        for (int j = 1; j < d; ++j)
            for (int k = 0; k < j; ++k)
                for (int i = 0; i < hp; ++i)
                    lt[j * hp + i] -= N[j * d + k] * lt[k * hp + i];
        for (int j = 0; j < d; ++j)
            for (int i = 0; i < hp; ++i)
                lt[j * hp + i] *= inv[j];
        for (int j = d - 2; j >= 0; --j)
            for (int k = j + 1; k < d; ++k)
                for (int i = 0; i < hp; ++i)
                    lt[j * hp + i] -= N[k * d + j] * lt[k * hp + i];
        for (int i = 0; i < h; ++i)
            for (int c = 0; c < d; ++c)
                lrow[i * d + c] = lt[c * hp + i];
    }
    /* S -= E L^T, lower triangle (slide "Reduction Step: 70% CPU Time").
     * E's rows come in groups, one per later neighbour (the edge sequence,
     * first rows in group_row); the entries of row i against one group are
     * consecutive in the layout (one row of an N or E block), so each run
     * reads its first scatter index and goes two entries at a time. Two
     * rows of one group share their runs against the earlier groups, and
     * take them together. */
    for (int g = 0; g < ngroups; ++g) {
        const int i_end = g + 1 < ngroups ? group_row[g + 1] : h;
        int i = group_row[g];
        if (d <= HEFT_BLOCK_KERNEL_MAX)
            for (; i + 1 < i_end; i += 2) {
                pair a[HEFT_BLOCK_KERNEL_MAX] = {{0}}, b[HEFT_BLOCK_KERNEL_MAX] = {{0}};
#pragma GCC unroll 6
                for (int c = 0; c < d; ++c) {
                    a[c] = (pair){E[i * d + c], E[i * d + c]};
                    b[c] = (pair){E[(i + 1) * d + c], E[(i + 1) * d + c]};
                }
                const uint32_t *rsi_a = rsi + (size_t)i * (i + 1) / 2, *rsi_b = rsi_a + i + 1;
                for (int gj = 0; gj < g; ++gj) {
                    const int j0 = group_row[gj], j1 = group_row[gj + 1];
                    reduce_two_runs(S + rsi_a[j0], S + rsi_b[j0], lt + j0, hp, a, b, j1 - j0, d);
                }
                const int j0 = group_row[g];
                reduce_run(S + rsi_a[j0], lt + j0, hp, a, i + 1 - j0, d);
                reduce_run(S + rsi_b[j0], lt + j0, hp, b, i + 2 - j0, d);
            }
        for (; i < i_end; ++i) {
            const double *e = E + (size_t)i * d;
            const uint32_t *row_rsi = rsi + (size_t)i * (i + 1) / 2;
            if (d <= HEFT_BLOCK_KERNEL_MAX) {
                pair a[HEFT_BLOCK_KERNEL_MAX] = {{0}};
#pragma GCC unroll 6
                for (int c = 0; c < d; ++c)
                    a[c] = (pair){e[c], e[c]};
                for (int gj = 0; gj <= g; ++gj) {
                    const int j0 = group_row[gj], j1 = gj < g ? group_row[gj + 1] : i + 1;
                    reduce_run(S + row_rsi[j0], lt + j0, hp, a, j1 - j0, d);
                }
            } else {
                for (int j = 0; j <= i; ++j) {
                    double sum = 0.0;
                    for (int c = 0; c < d; ++c)
                        sum += e[c] * lt[c * hp + j];
                    S[row_rsi[j]] -= sum;
                }
            }
        }
    }
    memcpy(E, lrow, sizeof(double) * (size_t)h * (size_t)d); /* E <- L */
    return 0;
}

/* One function per block size: d is a constant in each, so the compiler
 * unrolls the loops over d (the slides' template<uint degree>). */
#define HEFT_PIVOT_KERNEL(D)                                                                       \
    static __attribute__((noinline)) int eliminate_pivot_##D(                                      \
        double *S, double *N, double *E, double *inv, double *lt, const uint32_t *rsi,             \
        const int *group_row, int ngroups, int h) {                                                \
        return eliminate_pivot(S, N, E, inv, lt, rsi, group_row, ngroups, h, D);                   \
    }
HEFT_PIVOT_KERNEL(1)
HEFT_PIVOT_KERNEL(2)
HEFT_PIVOT_KERNEL(3)
HEFT_PIVOT_KERNEL(4)
HEFT_PIVOT_KERNEL(5)
HEFT_PIVOT_KERNEL(6)

static int eliminate_pivot_generic(double *S, double *N, double *E, double *inv, double *lt,
                                   const uint32_t *rsi, const int *group_row, int ngroups, int h,
                                   int d) {
    return eliminate_pivot(S, N, E, inv, lt, rsi, group_row, ngroups, h, d);
}

int heft_block_ldl_factor(heft_block_ldl *f, const heft_mlcp *p, int npivots) {
    if (!f->valid || p == NULL || p->rows == NULL)
        return -1;
    if (npivots < 0 || npivots > f->nnodes)
        npivots = f->nnodes;
    gather_rows(f, p);
    assemble(f, p);
    /* slide "Implementation": the switch over pivot sizes */
    double *S = f->values, *lt = f->ltemp;
    for (int k = 0; k < npivots; ++k) {
        const int v = f->order[k], base = f->node_start[v];
        const int d = f->node_start[v + 1] - base, h = f->height[k];
        double *N = S + f->value_off[k], *E = N + d * d, *inv = f->inv_pivot + base;
        const uint32_t *rsi = f->rsi + f->rsi_off[k];
        const int *groups = f->edge_row + f->edge_off[k];
        const int ngroups = f->edge_off[k + 1] - f->edge_off[k];
        int rc;
        switch (d) {
        case 1:
            rc = eliminate_pivot_1(S, N, E, inv, lt, rsi, groups, ngroups, h);
            break;
        case 2:
            rc = eliminate_pivot_2(S, N, E, inv, lt, rsi, groups, ngroups, h);
            break;
        case 3:
            rc = eliminate_pivot_3(S, N, E, inv, lt, rsi, groups, ngroups, h);
            break;
        case 4:
            rc = eliminate_pivot_4(S, N, E, inv, lt, rsi, groups, ngroups, h);
            break;
        case 5:
            rc = eliminate_pivot_5(S, N, E, inv, lt, rsi, groups, ngroups, h);
            break;
        case 6:
            rc = eliminate_pivot_6(S, N, E, inv, lt, rsi, groups, ngroups, h);
            break;
        default:
            rc = eliminate_pivot_generic(S, N, E, inv, lt, rsi, groups, ngroups, h, d);
            break;
        }
        if (rc != 0) {
            f->factored = 0;
            return -1;
        }
    }
    f->factored = npivots;
    return 0;
}

/* x = N^-1 x with N's LDL^T in place and its inverse pivots. */
static void ldl_block_solve(const double *N, const double *inv, int d, double *x) {
    for (int j = 0; j < d; ++j)
        for (int k = 0; k < j; ++k)
            x[j] -= N[j * d + k] * x[k];
    for (int j = 0; j < d; ++j)
        x[j] *= inv[j];
    for (int j = d - 1; j >= 0; --j)
        for (int k = j + 1; k < d; ++k)
            x[j] -= N[k * d + j] * x[k];
}

/* Slide "Inverse Operator": H^-1 v = L^-T (D^-1 (L^-1 v)), each L_{*,k} used as is. */
void heft_block_ldl_solve(heft_block_ldl *f, const double *r, double *x) {
    double *z = f->work;
    for (int i = 0; i < f->nchosen; ++i)
        z[i] = r[i];
    for (int i = f->nchosen; i < f->nrows; ++i)
        z[i] = 0.0; /* the shards' fixed joints hold exactly */
    for (int k = 0; k < f->nnodes; ++k) {
        const int v = f->order[k], base = f->node_start[v];
        const int d = f->node_start[v + 1] - base, h = f->height[k];
        const double *L = f->values + f->value_off[k] + d * d;
        const int *er = f->erow + f->erow_off[k];
        for (int i = 0; i < h; ++i) {
            double dot = 0.0;
            for (int c = 0; c < d; ++c)
                dot += L[(size_t)i * d + c] * z[base + c];
            z[er[i]] -= dot;
        }
    }
    for (int k = 0; k < f->nnodes; ++k) {
        const int v = f->order[k], base = f->node_start[v];
        ldl_block_solve(f->values + f->value_off[k], f->inv_pivot + base,
                        f->node_start[v + 1] - base, z + base);
    }
    for (int k = f->nnodes - 1; k >= 0; --k) {
        const int v = f->order[k], base = f->node_start[v];
        const int d = f->node_start[v + 1] - base, h = f->height[k];
        const double *L = f->values + f->value_off[k] + d * d;
        const int *er = f->erow + f->erow_off[k];
        for (int i = 0; i < h; ++i)
            for (int c = 0; c < d; ++c)
                z[base + c] -= L[(size_t)i * d + c] * z[er[i]];
    }
    for (int i = 0; i < f->nchosen; ++i)
        x[i] = z[i];
}

double heft_block_ldl_entry(const heft_block_ldl *f, int i, int j) {
    if (!f->valid || i < 0 || j < 0 || i >= f->nrows || j >= f->nrows)
        return 0.0;
    int a = f->row_node[i], b = f->row_node[j];
    if (f->pos[a] < f->pos[b] || (a == b && i < j)) {
        const int t = i;
        i = j;
        j = t;
        a = f->row_node[i];
        b = f->row_node[j];
    }
    const int ra = i - f->node_start[a], rb = j - f->node_start[b];
    const int kb = f->pos[b], db = f->node_start[b + 1] - f->node_start[b];
    const double *N = f->values + f->value_off[kb];
    if (a == b)
        return N[ra * db + rb];
    for (int x = f->edge_off[kb]; x < f->edge_off[kb + 1]; ++x)
        if (f->edge_node[x] == a)
            return N[(size_t)db * db + (size_t)(f->edge_row[x] + ra) * db + (size_t)rb];
    return 0.0;
}
