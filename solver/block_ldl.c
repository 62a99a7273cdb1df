/* Heft: sparse block LDL^T of an equality block (block_ldl.h; paper 003,
 * slides "Block LDL" to "Body Shattering"). */
#include "block_ldl.h"

#include <math.h>
#include <string.h>

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
    void *arrays[] = {f->src,      f->ra,        f->rb,         f->body_origin, f->body_scale,
                      f->response, f->diag,      f->node_start, f->row_node,    f->order,
                      f->pos,      f->value_off, f->height,     f->erow_off,    f->erow,
                      f->rsi_off,  f->rsi,       f->edge_off,   f->edge_node,   f->edge_row,
                      f->values,   f->ltemp,     f->work,       (void *)f->jac};
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
    f->response = alloc_zero(12 * nr, sizeof(double));
    f->diag = alloc_zero(nr, sizeof(double));
    f->jac = alloc_zero(2 * nr, sizeof(const double *));
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
        !f->response || !f->diag || !f->jac || !f->work || !f->node_start || !f->order || !f->pos ||
        !f->value_off || !f->height || !f->erow_off || !f->rsi_off || !f->edge_off)
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
    int eoff = 0, max_hd = 1;
    double flops = 0.0, stored = 0.0;
    for (int k = 0; k < f->nnodes; ++k) {
        int *seq = f->edge_node + f->edge_off[k];
        const int len = f->edge_off[k + 1] - f->edge_off[k];
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
        if (h * d > max_hd)
            max_hd = h * d;
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
    f->ltemp = alloc_zero((size_t)max_hd, sizeof(double));
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

static double dot6(const double *x, const double *y) {
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3] + x[4] * y[4] + x[5] * y[5];
}

/* out = s W j for one body of the problem (W = inverse mass and inertia). */
static void weighted(const heft_mlcp_body *body, double s, const double *j, double *out) {
    const double *I = body->inv_inertia;
    const double m = s * body->inv_mass;
    out[0] = m * j[0];
    out[1] = m * j[1];
    out[2] = m * j[2];
    out[3] = s * (I[0] * j[3] + I[1] * j[4] + I[2] * j[5]);
    out[4] = s * (I[1] * j[3] + I[3] * j[4] + I[4] * j[5]);
    out[5] = s * (I[2] * j[3] + I[4] * j[4] + I[5] * j[5]);
}

/* H_il = J_i W J_l^T over the bodies rows i and l share. */
static double h_entry(const heft_block_ldl *f, int i, int l) {
    const int32_t bi[2] = {f->ra[i], f->rb[i]}, bl[2] = {f->ra[l], f->rb[l]};
    double sum = 0.0;
    for (int s = 0; s < 2; ++s) {
        if (bi[s] < 0)
            continue;
        for (int t = 0; t < 2; ++t)
            if (bl[t] == bi[s])
                sum += dot6(f->jac[2 * (size_t)i + s], &f->response[12 * (size_t)l + 6 * t]);
    }
    return sum;
}

#define HEFT_BLOCK_KERNEL_MAX 6

/* LDL^T of the d x d lower block N in place: D on the diagonal, unit L below. */
static inline __attribute__((always_inline)) int ldl_block(double *N, int d) {
    for (int j = 0; j < d; ++j) {
        double dj = N[j * d + j];
        for (int k = 0; k < j; ++k)
            dj -= N[j * d + k] * N[j * d + k] * N[k * d + k];
        if (!(dj > 0.0) || !isfinite(dj))
            return -1;
        N[j * d + j] = dj;
        for (int i = j + 1; i < d; ++i) {
            double v = N[i * d + j];
            for (int k = 0; k < j; ++k)
                v -= N[i * d + k] * N[j * d + k] * N[k * d + k];
            N[i * d + j] = v / dj;
        }
    }
    return 0;
}

/* x = N^-1 x with N's LDL^T in place. */
static inline __attribute__((always_inline)) void ldl_block_solve(const double *N, int d,
                                                                  double *x) {
    for (int j = 0; j < d; ++j)
        for (int k = 0; k < j; ++k)
            x[j] -= N[j * d + k] * x[k];
    for (int j = 0; j < d; ++j)
        x[j] /= N[j * d + j];
    for (int j = d - 1; j >= 0; --j)
        for (int k = j + 1; k < d; ++k)
            x[j] -= N[k * d + j] * x[k];
}

/* Slide "Implementation": eliminatePivot. N (d x d) then E (h x d) at block;
 * S is the whole packed array, rsi the pivot's scatter indices. */
static inline __attribute__((always_inline)) int eliminate_pivot(double *S, double *restrict ltemp,
                                                                 double *block, const uint32_t *rsi,
                                                                 int h, int d) {
    double *N = block, *E = block + d * d;
    if (ldl_block(N, d) != 0)
        return -1;
    for (int i = 0; i < h; ++i) { /* L = E N^-1, row by row (N is symmetric) */
        double *l = ltemp + (size_t)i * d;
        for (int c = 0; c < d; ++c)
            l[c] = E[(size_t)i * d + c];
        ldl_block_solve(N, d, l);
    }
    /* S -= E L^T, lower triangle, through the indices. The row of E is read
     * into registers first: the stores into S never touch E_{*,k}, but the
     * compiler cannot know that. Four dot products at a time, so their
     * dependency chains overlap (slide "Reduction Step: 70% CPU Time"). */
    double e[HEFT_BLOCK_KERNEL_MAX];
    for (int i = 0; i < h; ++i) {
        const double *erow = E + (size_t)i * d;
        if (d <= HEFT_BLOCK_KERNEL_MAX) {
            for (int c = 0; c < d; ++c)
                e[c] = erow[c];
            erow = e;
        }
        int j = 0;
        for (; j + 3 <= i; j += 4) {
            const double *l0 = ltemp + (size_t)j * d;
            double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            for (int c = 0; c < d; ++c) {
                s0 += erow[c] * l0[c];
                s1 += erow[c] * l0[d + c];
                s2 += erow[c] * l0[2 * d + c];
                s3 += erow[c] * l0[3 * d + c];
            }
            S[rsi[0]] -= s0;
            S[rsi[1]] -= s1;
            S[rsi[2]] -= s2;
            S[rsi[3]] -= s3;
            rsi += 4;
        }
        for (; j <= i; ++j) {
            const double *l = ltemp + (size_t)j * d;
            double dot = 0.0;
            for (int c = 0; c < d; ++c)
                dot += erow[c] * l[c];
            S[*rsi++] -= dot;
        }
    }
    memcpy(E, ltemp, sizeof(double) * (size_t)h * (size_t)d);
    return 0;
}

/* One function per block size: d is a constant in each, so the compiler
 * unrolls the small loops (the slides' template<uint degree>). */
#define HEFT_PIVOT_KERNEL(D)                                                                       \
    static int eliminate_pivot_##D(double *S, double *ltemp, double *block, const uint32_t *rsi,   \
                                   int h) {                                                        \
        return eliminate_pivot(S, ltemp, block, rsi, h, D);                                        \
    }
HEFT_PIVOT_KERNEL(1)
HEFT_PIVOT_KERNEL(2)
HEFT_PIVOT_KERNEL(3)
HEFT_PIVOT_KERNEL(4)
HEFT_PIVOT_KERNEL(5)
HEFT_PIVOT_KERNEL(6)

static int eliminate_pivot_generic(double *S, double *ltemp, double *block, const uint32_t *rsi,
                                   int h, int d) {
    return eliminate_pivot(S, ltemp, block, rsi, h, d);
}

int heft_block_ldl_factor(heft_block_ldl *f, const heft_mlcp *p, int npivots) {
    if (!f->valid || p == NULL || p->rows == NULL)
        return -1;
    if (npivots < 0 || npivots > f->nnodes)
        npivots = f->nnodes;
    const double reg = f->config.regularization > 0.0 ? f->config.regularization : 0.0;
    /* W J^T of every row and H_ii */
    for (int i = 0; i < f->nrows; ++i) {
        f->jac[2 * (size_t)i] = jacobian(f, p, i, 0);
        f->jac[2 * (size_t)i + 1] = jacobian(f, p, i, 1);
    }
    for (int i = 0; i < f->nrows; ++i) {
        const int32_t side[2] = {f->ra[i], f->rb[i]};
        double *resp = &f->response[12 * (size_t)i];
        memset(resp, 0, 12 * sizeof(double));
        for (int s = 0; s < 2; ++s)
            if (side[s] >= 0)
                weighted(&p->bodies[f->body_origin[side[s]]], f->body_scale[side[s]],
                         jacobian(f, p, i, s), resp + 6 * s);
        f->diag[i] = h_entry(f, i, i);
    }
    /* assemble H~ into the packed layout */
    memset(f->values, 0, sizeof(double) * f->values_count);
    for (int k = 0; k < f->nnodes; ++k) {
        const int v = f->order[k], base = f->node_start[v];
        const int d = f->node_start[v + 1] - base, h = f->height[k];
        double *N = f->values + f->value_off[k], *E = N + d * d;
        for (int r = 0; r < d; ++r) {
            for (int c = 0; c < r; ++c)
                N[r * d + c] = h_entry(f, base + r, base + c);
            const int src = f->src[base + r];
            const double eps = src >= 0 && p->epsilon != NULL ? p->epsilon[src] : 0.0;
            N[r * d + r] = f->diag[base + r] + eps + reg * f->diag[base + r];
        }
        const int *er = f->erow + f->erow_off[k];
        for (int i = 0; i < h; ++i)
            for (int c = 0; c < d; ++c)
                E[(size_t)i * d + c] = h_entry(f, er[i], base + c);
    }
    /* slide "Implementation": the switch over pivot sizes */
    for (int k = 0; k < npivots; ++k) {
        const int v = f->order[k];
        const int d = f->node_start[v + 1] - f->node_start[v], h = f->height[k];
        double *block = f->values + f->value_off[k];
        const uint32_t *rsi = f->rsi + f->rsi_off[k];
        int rc;
        switch (d) {
        case 1:
            rc = eliminate_pivot_1(f->values, f->ltemp, block, rsi, h);
            break;
        case 2:
            rc = eliminate_pivot_2(f->values, f->ltemp, block, rsi, h);
            break;
        case 3:
            rc = eliminate_pivot_3(f->values, f->ltemp, block, rsi, h);
            break;
        case 4:
            rc = eliminate_pivot_4(f->values, f->ltemp, block, rsi, h);
            break;
        case 5:
            rc = eliminate_pivot_5(f->values, f->ltemp, block, rsi, h);
            break;
        case 6:
            rc = eliminate_pivot_6(f->values, f->ltemp, block, rsi, h);
            break;
        default:
            rc = eliminate_pivot_generic(f->values, f->ltemp, block, rsi, h, d);
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
        ldl_block_solve(f->values + f->value_off[k], f->node_start[v + 1] - base, z + base);
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
