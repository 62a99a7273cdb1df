/* Heft: reverse Cuthill-McKee ordering and the skyline it gives ([Lefebvre 2020]
 * §2.2.3; Cuthill & McKee 1969, George & Liu 1979 for the start node). See
 * ordering.h. */
#include "ordering.h"
#include "row_math.h"

#include "workspace.h"

/* ---- fingerprints ------------------------------------------------------------ */

/* FNV-1a over 32-bit words: cheap, and the same on every machine. */
static uint64_t mix(uint64_t h, uint32_t word) {
    for (int k = 0; k < 4; ++k) {
        h ^= (word >> (8 * k)) & 0xffu;
        h *= 0x100000001b3ull;
    }
    return h;
}

#define KEY_SEED 0xcbf29ce484222325ull

uint64_t heft_ordering_dense_key(int n, const double *A) {
    uint64_t h = mix(mix(KEY_SEED, 2u), (uint32_t)n);
    for (int i = 0; i < n; ++i) {
        const double *row = &A[(size_t)i * (size_t)n];
        for (int j = 0; j < i; ++j)
            if (row[j] != 0.0)
                h = mix(mix(h, (uint32_t)i), (uint32_t)j);
    }
    return h;
}

int heft_ordering_holds(const heft_ordering *o, const heft_mlcp *p) {
    const int n = p->n;
    if (o->n != n)
        return 0;
    if (p->A != NULL)
        return o->from_dense && o->key == heft_ordering_dense_key(n, p->A);
    if (o->from_dense || o->nbodies != p->nbodies)
        return 0;
    const int32_t *pair = o->pairs;
    for (int i = 0; i < n; ++i, pair += 2)
        if (pair[0] != heft_row_body(p, p->rows[i].a) || pair[1] != heft_row_body(p, p->rows[i].b))
            return 0;
    return 1;
}

/* ---- RCM ----------------------------------------------------------------------- */

static int degree(const int *xadj, int v) {
    return xadj[v + 1] - xadj[v];
}

/* v comes before u in Cuthill-McKee order among siblings */
static int before(const int *xadj, int v, int u) {
    const int dv = degree(xadj, v), du = degree(xadj, u);
    return dv < du || (dv == du && v < u);
}

/* Breadth-first level structure from root over nodes not yet placed
 * (placed[v] == 0), marking with stamp. Leaves the nodes in queue by level;
 * returns the eccentricity of root and sets [*first, *end) to the last level. */
static int level_structure(int root, const int *xadj, const int *adj, const int *placed, int *seen,
                           int stamp, int *queue, int *first, int *end) {
    int head = 0, tail = 0, depth = 0;
    queue[tail++] = root;
    seen[root] = stamp;
    int level_begin = 0;
    for (;;) {
        const int level_end = tail;
        for (head = level_begin; head < level_end; ++head) {
            const int v = queue[head];
            for (int e = xadj[v]; e < xadj[v + 1]; ++e) {
                const int u = adj[e];
                if (!placed[u] && seen[u] != stamp) {
                    seen[u] = stamp;
                    queue[tail++] = u;
                }
            }
        }
        if (tail == level_end) {
            *first = level_begin;
            *end = level_end;
            return depth;
        }
        level_begin = level_end;
        ++depth;
    }
}

/* George & Liu: move to a smallest-degree node of the last level while that
 * makes the level structure deeper. */
static int pseudo_peripheral(int seed, const int *xadj, const int *adj, const int *placed,
                             int *seen, int *stamp, int *queue) {
    int root = seed, first, end;
    int depth = level_structure(root, xadj, adj, placed, seen, ++*stamp, queue, &first, &end);
    for (;;) {
        int candidate = queue[first];
        for (int q = first + 1; q < end; ++q)
            if (before(xadj, queue[q], candidate))
                candidate = queue[q];
        const int d =
            level_structure(candidate, xadj, adj, placed, seen, ++*stamp, queue, &first, &end);
        if (d <= depth)
            return root;
        root = candidate;
        depth = d;
    }
}

void heft_rcm(int n, const int *xadj, const int *adj, int *perm, int *work) {
    int *placed = work, *seen = work + n, *queue = work + 2 * (size_t)n;
    for (int v = 0; v < n; ++v)
        placed[v] = seen[v] = 0;
    int stamp = 0, count = 0;
    for (int seed = 0; seed < n; ++seed) {
        if (placed[seed])
            continue;
        const int root = pseudo_peripheral(seed, xadj, adj, placed, seen, &stamp, queue);
        /* Cuthill-McKee: breadth first, children by increasing degree */
        int head = count;
        perm[count++] = root;
        placed[root] = 1;
        while (head < count) {
            const int v = perm[head++];
            const int children = count;
            for (int e = xadj[v]; e < xadj[v + 1]; ++e) {
                const int u = adj[e];
                if (placed[u])
                    continue;
                placed[u] = 1;
                /* insertion into the sorted run perm[children .. count) */
                int at = count++;
                while (at > children && before(xadj, u, perm[at - 1])) {
                    perm[at] = perm[at - 1];
                    --at;
                }
                perm[at] = u;
            }
        }
    }
    for (int a = 0, b = n - 1; a < b; ++a, --b) { /* the reverse */
        const int t = perm[a];
        perm[a] = perm[b];
        perm[b] = t;
    }
}

size_t heft_envelope(int n, const int *xadj, const int *adj, const int *inverse, int *last) {
    for (int k = 0; k < n; ++k)
        last[k] = k;
    /* last[f_r] >= r for every row r; then a running maximum gives
     * max { r : f_r <= k } */
    for (int v = 0; v < n; ++v) {
        const int r = inverse[v];
        int f = r;
        for (int e = xadj[v]; e < xadj[v + 1]; ++e)
            if (inverse[adj[e]] < f)
                f = inverse[adj[e]];
        if (last[f] < r)
            last[f] = r;
    }
    size_t total = 0;
    for (int k = 0; k < n; ++k) {
        if (k > 0 && last[k] < last[k - 1])
            last[k] = last[k - 1];
        total += (size_t)(last[k] - k) + 1;
    }
    return total;
}

/* ---- building -------------------------------------------------------------------- */

static int reserve_nodes(heft_ordering *o, int n) {
    const size_t un = (size_t)n;
    return HEFT_RESERVE(o->perm, o->perm_cap, un) && HEFT_RESERVE(o->inverse, o->inverse_cap, un) &&
           HEFT_RESERVE(o->last, o->last_cap, un) && HEFT_RESERVE(o->xadj, o->xadj_cap, un + 1) &&
           HEFT_RESERVE(o->work, o->work_cap, 3 * un);
}

/* RCM on the graph in o, then the inverse and the skyline. */
static void finish(heft_ordering *o, int n) {
    heft_rcm(n, o->xadj, o->adj, o->perm, o->work);
    for (int k = 0; k < n; ++k)
        o->inverse[o->perm[k]] = k;
    o->envelope = heft_envelope(n, o->xadj, o->adj, o->inverse, o->last);
    o->tallest = 0;
    for (int k = 0; k < n; ++k)
        o->tallest = o->last[k] - k + 1 > o->tallest ? o->last[k] - k + 1 : o->tallest;
    o->n = n;
}

int heft_ordering_reserve(heft_ordering *o, int rows, int bodies, int envelope) {
    if (rows <= 0)
        return 1;
    const size_t un = (size_t)rows, edges = envelope > 0 ? 2 * (size_t)envelope : 0;
    return reserve_nodes(o, rows) &&
           HEFT_RESERVE(o->body_start, o->body_start_cap, (size_t)(bodies > 0 ? bodies : 0) + 1) &&
           HEFT_RESERVE(o->body_rows, o->body_rows_cap, 2 * un) &&
           HEFT_RESERVE(o->pairs, o->pairs_cap, 2 * un) &&
           (edges == 0 || HEFT_RESERVE(o->adj, o->adj_cap, edges));
}

int heft_ordering_from_structure(heft_ordering *o, const heft_mlcp *p) {
    const int n = p->n, nb = p->nbodies > 0 ? p->nbodies : 0;
    if (!reserve_nodes(o, n) || !HEFT_RESERVE(o->body_start, o->body_start_cap, (size_t)nb + 1) ||
        !HEFT_RESERVE(o->body_rows, o->body_rows_cap, 2 * (size_t)n) ||
        !HEFT_RESERVE(o->pairs, o->pairs_cap, 2 * (size_t)n))
        return -1;

    /* rows of every body (ascending), a row once per body it touches */
    for (int k = 0; k <= nb; ++k)
        o->body_start[k] = 0;
    for (int i = 0; i < n; ++i) {
        const int32_t a = heft_row_body(p, p->rows[i].a), b = heft_row_body(p, p->rows[i].b);
        if (a >= 0)
            o->body_start[a + 1]++;
        if (b >= 0 && b != a)
            o->body_start[b + 1]++;
    }
    for (int k = 0; k < nb; ++k)
        o->body_start[k + 1] += o->body_start[k];
    for (int i = 0; i < n; ++i) {
        const int32_t a = heft_row_body(p, p->rows[i].a), b = heft_row_body(p, p->rows[i].b);
        if (a >= 0)
            o->body_rows[o->body_start[a]++] = i;
        if (b >= 0 && b != a)
            o->body_rows[o->body_start[b]++] = i;
    }
    for (int k = nb; k > 0; --k) /* the fill moved every start to the next body's */
        o->body_start[k] = o->body_start[k - 1];
    o->body_start[0] = 0;

    /* neighbours: the other rows of the row's bodies, each once (mark) */
    int *mark = o->work;
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < n; ++i)
            mark[i] = -1;
        size_t edges = 0;
        for (int i = 0; i < n; ++i) {
            if (pass == 0)
                o->xadj[i] = (int)edges;
            const int32_t bodies[2] = {heft_row_body(p, p->rows[i].a),
                                       heft_row_body(p, p->rows[i].b)};
            mark[i] = i;
            for (int s = 0; s < 2; ++s) {
                const int32_t body = bodies[s];
                if (body < 0 || (s == 1 && body == bodies[0]))
                    continue;
                for (int e = o->body_start[body]; e < o->body_start[body + 1]; ++e) {
                    const int q = o->body_rows[e];
                    if (mark[q] == i)
                        continue;
                    mark[q] = i;
                    if (pass == 1)
                        o->adj[edges] = q;
                    ++edges;
                }
            }
        }
        if (pass == 0) {
            if (edges > (size_t)INT32_MAX)
                return -1;
            o->xadj[n] = (int)edges;
            if (!HEFT_RESERVE(o->adj, o->adj_cap, edges))
                return -1;
        }
    }
    finish(o, n);
    o->from_dense = 0;
    o->nbodies = p->nbodies;
    for (int i = 0; i < n; ++i) {
        o->pairs[2 * i] = heft_row_body(p, p->rows[i].a);
        o->pairs[2 * i + 1] = heft_row_body(p, p->rows[i].b);
    }
    return 0;
}

int heft_ordering_from_dense(heft_ordering *o, int n, const double *A) {
    if (!reserve_nodes(o, n))
        return -1;
    const size_t un = (size_t)n;
    for (int i = 0; i <= n; ++i)
        o->xadj[i] = 0;
    size_t edges = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j)
            if (A[(size_t)i * un + j] != 0.0) {
                o->xadj[i + 1]++;
                o->xadj[j + 1]++;
                edges += 2;
            }
    if (edges > (size_t)INT32_MAX || !HEFT_RESERVE(o->adj, o->adj_cap, edges))
        return -1;
    for (int i = 0; i < n; ++i)
        o->xadj[i + 1] += o->xadj[i];
    int *cursor = o->work;
    for (int i = 0; i < n; ++i)
        cursor[i] = o->xadj[i];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < i; ++j)
            if (A[(size_t)i * un + j] != 0.0) {
                o->adj[cursor[i]++] = j;
                o->adj[cursor[j]++] = i;
            }
    finish(o, n);
    o->from_dense = 1;
    o->key = heft_ordering_dense_key(n, A);
    return 0;
}

void heft_ordering_release(heft_ordering *o) {
    heft_free(o->perm);
    heft_free(o->inverse);
    heft_free(o->last);
    heft_free(o->xadj);
    heft_free(o->adj);
    heft_free(o->body_start);
    heft_free(o->body_rows);
    heft_free(o->work);
    heft_free(o->pairs);
    *o = (heft_ordering){0};
}
