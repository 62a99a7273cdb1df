/* Heft: Baraff's linear-time factorization, the "baraff" solver (Baraff,
 * SIGGRAPH 1996, [Baraff 1996], §6-8 and Appendix A).
 *
 * Primary rows: the equality rows (unbounded, no friction index) of joints
 * whose body pairs form a forest. With y the velocity change and C = diag(eps)
 * the compliance, they satisfy the KKT system of §6 (eq. 8), here with -C in
 * the lower right so that it stays quasi-definite:
 *
 *     [  M   -J^T ] [ y      ]   [ f  ]        (J W J^T + C) lambda = b
 *     [ -J   -C   ] [ lambda ] = [ -b ]   <=>  when f = 0, y = W J^T lambda
 *
 * Its graph (nodes: bodies and joints) is the forest itself; ordered children
 * first by a depth-first search (§7.1, Appendix A "ordermatrix") it factors as
 * L D L^T with no fill in O(n) (§7.3, Appendix A "factor" and "solve"). The
 * static world is a vertex of the forest: a tree holds at most one joint to the
 * world, and that joint is the tree's root (a constraint leaf would have a
 * zero pivot).
 *
 * Auxiliary rows (§8): equality blocks that would close a loop (the spanning
 * forest is taken by union-find in row order), limits, motors, contacts and
 * friction. By anticipation (§8.1, §8.2 steps 1-6): one sparse solve with
 * f = 0 gives the primary response y0 to b; one sparse solve per auxiliary
 * row j with f = J_j^T gives column j of W^ J_a^T, so the k x k matrix
 * A^ = J_a W^ J_a^T + C_a and b^ = b_a - J_a y0; that MLCP is solved by bpp;
 * a last sparse solve with f = J_a^T mu gives the primary impulses.
 *
 * Anything the method cannot take (no structured form, a body with a singular
 * mass block that is not static, a pivot that is not definite) is solved by
 * bpp-skyline on the whole problem, and stats->fallback says so. A problem
 * without primary rows (no joint tree) is its own auxiliary problem: it goes
 * to bpp-skyline as it stands, not as a dense copy. */
#include "baraff.h"
#include "bpp.h"

#include <math.h>
#include <string.h>

#include "mlcp.h"
#include "row_math.h"
#include "workspace.h"
#include "solve_frame.h"
#include "state_bytes.h"

typedef struct baraff_state {
    heft_solver_options options;
    /* the auxiliary problem's solver (bpp: its A^ is dense) and the whole
     * problem's (bpp-skyline: banded, in body space where that fits) */
    const heft_solver_vtable *bpp, *full;
    void *aux_bpp, *full_bpp;
    /* the whole problem from an unconverged answer (rescue_whole) and
     * whether this state is a pivoting solver's last stage (no rescue) */
    const heft_solver_vtable *rescue;
    void *rescue_bpp;
    double *rescue_start, *rescue_answer;
    size_t rescue_start_cap, rescue_answer_cap;
    int nested;
    heft_baraff_info info;
    /* topology key and symbolic data */
    int key_valid, key_n, key_nbodies;
    int32_t *key;
    int nnodes, nbody_nodes;
    int *node_dim, *node_off, *node_parent, *node_ref; /* ref: body, or first of prim rows */
    int *forward;                                      /* children first */
    size_t *d_off, *j_off;                             /* D/Dinv and J storage per node */
    int *body_node;                                    /* per body: node, -1 static */
    unsigned char *is_static;
    int *prim_rows; /* primary rows grouped by node: rows of constraint node c start at
                       prim_rows + node_ref[c] */
    int nprim;
    int *aux_rows, naux;
    int *aux_index; /* per row: index among the aux rows, -1 */
    /* union-find and DFS scratch */
    int *uf, *stack, *adj_start, *adj;
    /* numeric */
    double *D, *Dinv, *J, *x, *tmp, *y0, *yj, *col, *measure;
    size_t total_dim, d_total, j_total;
    /* the auxiliary MLCP */
    heft_mlcp aux;
    double *aux_A, *aux_b, *aux_lo, *aux_hi, *aux_l0, *mu;
    int32_t *aux_findex;
    uint8_t *aux_kind;
    size_t key_cap, node_dim_cap, node_off_cap, node_parent_cap, node_ref_cap, forward_cap,
        d_off_cap, j_off_cap, body_node_cap, is_static_cap, prim_cap, aux_rows_cap, aux_index_cap,
        uf_cap, stack_cap, adj_start_cap, adj_cap, D_cap, Dinv_cap, J_cap, x_cap, tmp_cap, y0_cap,
        yj_cap, col_cap, aux_A_cap, aux_b_cap, aux_lo_cap, aux_hi_cap, aux_l0_cap, mu_cap,
        aux_findex_cap, aux_kind_cap, measure_cap;
} baraff_state;

heft_baraff_info heft_baraff_get_info(const void *state) {
    return ((const baraff_state *)state)->info;
}

static void *baraff_create(const heft_solver_options *options) {
    baraff_state *s = heft_alloc(sizeof *s);
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof *s);
    s->options = options != NULL ? *options : heft_solver_default_options();
    s->bpp = heft_solver_find("bpp");
    s->full = heft_solver_find("bpp-skyline");
    if (s->bpp == NULL || s->full == NULL || (s->aux_bpp = s->bpp->create(&s->options)) == NULL) {
        heft_free(s);
        return NULL;
    }
    heft_bpp_set_nested(s->aux_bpp);
    return s;
}

static void baraff_destroy(void *state) {
    baraff_state *s = state;
    if (s == NULL)
        return;
    s->bpp->destroy(s->aux_bpp);
    if (s->full_bpp != NULL)
        s->full->destroy(s->full_bpp);
    if (s->rescue_bpp != NULL)
        s->rescue->destroy(s->rescue_bpp);
    heft_free(s->rescue_start);
    heft_free(s->rescue_answer);
    void *arrays[] = {
        s->key,    s->node_dim,  s->node_off,  s->node_parent, s->node_ref, s->forward,   s->d_off,
        s->j_off,  s->body_node, s->is_static, s->prim_rows,   s->aux_rows, s->aux_index, s->uf,
        s->stack,  s->adj_start, s->adj,       s->D,           s->Dinv,     s->J,         s->x,
        s->tmp,    s->y0,        s->yj,        s->col,         s->aux_A,    s->aux_b,     s->aux_lo,
        s->aux_hi, s->aux_l0,    s->mu,        s->aux_findex,  s->aux_kind, s->measure};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
    heft_free(s);
}

void heft_baraff_set_nested(void *state) {
    ((baraff_state *)state)->nested = 1;
}

static void baraff_reset(void *state) {
    baraff_state *s = state;
    s->key_valid = 0;
    if (s->aux_bpp != NULL && s->bpp->reset != NULL)
        s->bpp->reset(s->aux_bpp);
    if (s->full_bpp != NULL && s->full->reset != NULL)
        s->full->reset(s->full_bpp);
}

/* ---- symbolic phase: forest, primary and auxiliary rows, DFS order ---------------------- */

static int body_is_static(const heft_mlcp_body *b) {
    if (b->inv_mass != 0.0)
        return 0;
    for (int k = 0; k < 6; ++k)
        if (b->inv_inertia[k] != 0.0)
            return 0;
    return 1;
}

static int equality_row(const heft_mlcp *p, int i) {
    return p->findex[i] < 0 && isinf(p->lo[i]) && p->lo[i] < 0.0 && isinf(p->hi[i]) &&
           p->hi[i] > 0.0;
}

static int uf_find(int *uf, int x) {
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

/* The body of side s of row i as the forest sees it: -1 for static. */
static int32_t side_body(const baraff_state *s, const heft_mlcp *p, int i, int side) {
    const int32_t b = side == 0 ? p->rows[i].a : p->rows[i].b;
    return b >= 0 && !s->is_static[b] ? b : -1;
}

/* Builds the key (per row: equality, a, b, block; per body: static) and
 * returns 1 when it differs from the last one. */
static int topology_changed(baraff_state *s, const heft_mlcp *p) {
    const int n = p->n, nb = p->nbodies;
    int changed = !s->key_valid || s->key_n != n || s->key_nbodies != nb;
    for (int i = 0; i < n; ++i) {
        const int32_t k[4] = {equality_row(p, i), p->rows[i].a, p->rows[i].b,
                              p->block != NULL ? p->block[i] : -1};
        if (!changed)
            changed = memcmp(&s->key[4 * (size_t)i], k, sizeof k) != 0;
        memcpy(&s->key[4 * (size_t)i], k, sizeof k);
    }
    for (int b = 0; b < nb; ++b) {
        const int32_t st = body_is_static(&p->bodies[b]);
        if (!changed)
            changed = s->key[4 * (size_t)n + b] != st;
        s->key[4 * (size_t)n + b] = st;
        s->is_static[b] = (unsigned char)st;
    }
    s->key_n = n;
    s->key_nbodies = nb;
    return changed;
}

static int same_block(const heft_mlcp *p, int r0, int r1) {
    if (p->block != NULL)
        return p->block[r0] == p->block[r1];
    return p->rows[r0].a == p->rows[r1].a && p->rows[r0].b == p->rows[r1].b;
}

static int symbolic(baraff_state *s, const heft_mlcp *p) {
    const int n = p->n, nb = p->nbodies;
    const size_t un = (size_t)n, unb = (size_t)nb;
    /* worst case: every row its own node, plus every body */
    const size_t max_nodes = un + unb;
    if (!HEFT_RESERVE(s->node_dim, s->node_dim_cap, max_nodes) ||
        !HEFT_RESERVE(s->node_off, s->node_off_cap, max_nodes) ||
        !HEFT_RESERVE(s->node_parent, s->node_parent_cap, max_nodes) ||
        !HEFT_RESERVE(s->node_ref, s->node_ref_cap, max_nodes) ||
        !HEFT_RESERVE(s->forward, s->forward_cap, max_nodes) ||
        !HEFT_RESERVE(s->d_off, s->d_off_cap, max_nodes) ||
        !HEFT_RESERVE(s->j_off, s->j_off_cap, max_nodes) ||
        !HEFT_RESERVE(s->body_node, s->body_node_cap, unb) ||
        !HEFT_RESERVE(s->prim_rows, s->prim_cap, un) ||
        !HEFT_RESERVE(s->aux_rows, s->aux_rows_cap, un) ||
        !HEFT_RESERVE(s->aux_index, s->aux_index_cap, un) ||
        !HEFT_RESERVE(s->uf, s->uf_cap, unb + 1) ||
        !HEFT_RESERVE(s->stack, s->stack_cap, max_nodes) ||
        !HEFT_RESERVE(s->adj_start, s->adj_start_cap, max_nodes + 1) ||
        !HEFT_RESERVE(s->adj, s->adj_cap, 4 * un + 1))
        return -1;
    /* body nodes first */
    int nn = 0;
    for (int b = 0; b < nb; ++b) {
        s->body_node[b] = -1;
        if (!s->is_static[b]) {
            s->body_node[b] = nn;
            s->node_dim[nn] = 6;
            s->node_ref[nn] = b;
            ++nn;
        }
    }
    s->nbody_nodes = nn;
    for (int b = 0; b <= nb; ++b)
        s->uf[b] = b; /* vertex nb is the static world */
    /* which rows may be equalities: a normal row read by friction rows may not */
    for (int i = 0; i < n; ++i)
        s->aux_index[i] = equality_row(p, i);
    for (int i = 0; i < n; ++i)
        if (p->findex[i] >= 0 && p->findex[i] < n)
            s->aux_index[p->findex[i]] = 0;
    /* blocks of equality rows: a spanning forest by union-find, in row order */
    s->nprim = s->naux = 0;
    s->info.loop_closures = 0;
    int i = 0;
    while (i < n) {
        int end = i + 1;
        if (s->aux_index[i])
            while (end < n && s->aux_index[end] && same_block(p, i, end))
                ++end;
        int primary = s->aux_index[i];
        const int32_t a = side_body(s, p, i, 0), b = side_body(s, p, i, 1);
        for (int r = i; r < end && primary; ++r) /* one body pair for the whole block */
            primary = side_body(s, p, r, 0) == a && side_body(s, p, r, 1) == b;
        primary = primary && (a >= 0 || b >= 0) && a != b;
        if (primary) {
            const int u = uf_find(s->uf, a >= 0 ? a : nb), v = uf_find(s->uf, b >= 0 ? b : nb);
            if (u == v) {
                primary = 0; /* closes a loop (through the world, perhaps) */
                s->info.loop_closures++;
            } else {
                s->uf[u] = v;
            }
        }
        if (primary) {
            s->node_dim[nn] = end - i;
            s->node_ref[nn] = s->nprim;
            for (int r = i; r < end; ++r)
                s->prim_rows[s->nprim++] = r;
            ++nn;
        } else {
            for (int r = i; r < end; ++r)
                s->aux_rows[s->naux++] = r;
        }
        i = end;
    }
    s->nnodes = nn;
    for (int r = 0; r < n; ++r)
        s->aux_index[r] = -1;
    for (int k = 0; k < s->naux; ++k)
        s->aux_index[s->aux_rows[k]] = k;
    /* adjacency of the forest (CSR): constraint nodes and their bodies */
    for (int v = 0; v <= nn; ++v)
        s->adj_start[v] = 0;
    for (int c = s->nbody_nodes; c < nn; ++c) {
        const int r = s->prim_rows[s->node_ref[c]];
        for (int side = 0; side < 2; ++side) {
            const int32_t b = side_body(s, p, r, side);
            if (b >= 0) {
                s->adj_start[c + 1]++;
                s->adj_start[s->body_node[b] + 1]++;
            }
        }
    }
    for (int v = 0; v < nn; ++v)
        s->adj_start[v + 1] += s->adj_start[v];
    for (int v = 0; v < nn; ++v)
        s->stack[v] = s->adj_start[v]; /* fill cursor */
    for (int c = s->nbody_nodes; c < nn; ++c) {
        const int r = s->prim_rows[s->node_ref[c]];
        for (int side = 0; side < 2; ++side) {
            const int32_t b = side_body(s, p, r, side);
            if (b >= 0) {
                const int bn = s->body_node[b];
                s->adj[s->stack[c]++] = bn;
                s->adj[s->stack[bn]++] = c;
            }
        }
    }
    /* depth-first search, children first (Appendix A "ordermatrix"); roots: the
     * joints to the world, then any body not reached */
    for (int v = 0; v < nn; ++v)
        s->node_parent[v] = -2; /* unvisited */
    int nf = 0, trees = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int root = 0; root < nn; ++root) {
            if (s->node_parent[root] != -2)
                continue;
            if (pass == 0) { /* a constraint node with a single body: tied to the world */
                if (root < s->nbody_nodes || s->adj_start[root + 1] - s->adj_start[root] != 1)
                    continue;
            }
            ++trees;
            /* iterative DFS: stack of nodes; a node is emitted after its children */
            int top = 0;
            s->node_parent[root] = -1;
            s->stack[top++] = root;
            while (top > 0) {
                const int v = s->stack[top - 1];
                int pushed = 0;
                for (int e = s->adj_start[v]; e < s->adj_start[v + 1]; ++e) {
                    const int u = s->adj[e];
                    if (s->node_parent[u] == -2) {
                        s->node_parent[u] = v;
                        s->stack[top++] = u;
                        pushed = 1;
                        break;
                    }
                }
                if (!pushed) {
                    s->forward[nf++] = v;
                    --top;
                }
            }
        }
    /* storage */
    size_t xoff = 0, doff = 0, joff = 0;
    for (int v = 0; v < nn; ++v) {
        const int d = s->node_dim[v];
        s->node_off[v] = (int)xoff;
        s->d_off[v] = doff;
        s->j_off[v] = joff;
        xoff += (size_t)d;
        doff += (size_t)d * (size_t)d;
        if (s->node_parent[v] >= 0)
            joff += (size_t)d * (size_t)s->node_dim[s->node_parent[v]];
    }
    s->total_dim = xoff;
    s->d_total = doff;
    s->j_total = joff;
    /* without primary rows the whole problem goes to bpp-skyline
     * (solve_whole): no dense auxiliary matrix */
    const size_t k = s->nprim > 0 ? (size_t)s->naux : 0;
    if (!HEFT_RESERVE(s->D, s->D_cap, doff) || !HEFT_RESERVE(s->Dinv, s->Dinv_cap, doff) ||
        !HEFT_RESERVE(s->J, s->J_cap, joff) || !HEFT_RESERVE(s->x, s->x_cap, xoff) ||
        !HEFT_RESERVE(s->tmp, s->tmp_cap, 64) || !HEFT_RESERVE(s->y0, s->y0_cap, 6 * unb) ||
        !HEFT_RESERVE(s->yj, s->yj_cap, 6 * unb) || !HEFT_RESERVE(s->col, s->col_cap, 64) ||
        !HEFT_RESERVE(s->aux_A, s->aux_A_cap, k * k) || !HEFT_RESERVE(s->aux_b, s->aux_b_cap, k) ||
        !HEFT_RESERVE(s->aux_lo, s->aux_lo_cap, k) || !HEFT_RESERVE(s->aux_hi, s->aux_hi_cap, k) ||
        !HEFT_RESERVE(s->aux_l0, s->aux_l0_cap, k) || !HEFT_RESERVE(s->mu, s->mu_cap, k) ||
        !HEFT_RESERVE(s->aux_findex, s->aux_findex_cap, k) ||
        !HEFT_RESERVE(s->aux_kind, s->aux_kind_cap, k))
        return -1;
    size_t maxd = 6; /* the scratch of a node's products: its largest block */
    for (int v = 0; v < nn; ++v)
        if ((size_t)s->node_dim[v] > maxd)
            maxd = (size_t)s->node_dim[v];
    if (!HEFT_RESERVE(s->tmp, s->tmp_cap, 2 * maxd * maxd + 64) ||
        !HEFT_RESERVE(s->col, s->col_cap, 2 * maxd * maxd + 64))
        return -1;
    s->info.primary_rows = s->nprim;
    s->info.auxiliary_rows = s->naux;
    s->info.nodes = nn;
    s->info.trees = trees;
    s->info.symbolic_count++;
    return 0;
}

/* ---- numeric phase: Appendix A "factor" and "solve" ---------------------------------- */

/* inv = A^-1 for sign * A positive definite (d x d, row-major); L: d*d scratch.
 * Footnote 8 of §9: the blocks are definite, so Cholesky does with no tolerance. */
static int definite_inverse(const double *A, int d, double sign, double *inv, double *L) {
    for (int j = 0; j < d; ++j) {
        double djj = sign * A[j * d + j];
        for (int k = 0; k < j; ++k)
            djj -= L[j * d + k] * L[j * d + k];
        if (!(djj > 0.0) || !isfinite(djj))
            return -1;
        L[j * d + j] = sqrt(djj);
        for (int i = j + 1; i < d; ++i) {
            double v = sign * A[i * d + j];
            for (int k = 0; k < j; ++k)
                v -= L[i * d + k] * L[j * d + k];
            L[i * d + j] = v / L[j * d + j];
        }
    }
    for (int c = 0; c < d; ++c) {        /* column c of (sign A)^-1 */
        double *z = inv + (size_t)c * d; /* symmetric: row c = column c */
        for (int i = 0; i < d; ++i) {
            double v = i == c ? 1.0 : 0.0;
            for (int k = 0; k < i; ++k)
                v -= L[i * d + k] * z[k];
            z[i] = v / L[i * d + i];
        }
        for (int i = d - 1; i >= 0; --i) {
            double v = z[i];
            for (int k = i + 1; k < d; ++k)
                v -= L[k * d + i] * z[k];
            z[i] = v / L[i * d + i];
        }
        for (int i = 0; i < d; ++i)
            z[i] *= sign;
    }
    return 0;
}

static const double *row_jacobian(const heft_mlcp *p, int i, int side) {
    return side == 0 ? p->rows[i].ja : p->rows[i].jb;
}

/* The side of row r on body b (the forest never joins a body to itself). */
static int side_of(const baraff_state *s, const heft_mlcp *p, int r, int32_t b) {
    return side_body(s, p, r, 0) == b ? 0 : 1;
}

/* Appendix A "factor": D and H_{n,parent} from the problem, then leaves to root
 * n.Dinv = n.D^-1, n.J = n.Dinv n.J, parent.D -= n.J^T n.D n.J. */
static int factor(baraff_state *s, const heft_mlcp *p) {
    double flops = 0.0;
    for (int v = 0; v < s->nnodes; ++v) {
        const int d = s->node_dim[v];
        double *D = s->D + s->d_off[v];
        memset(D, 0, sizeof(double) * (size_t)d * (size_t)d);
        if (v < s->nbody_nodes) { /* M: the mass and the inverse of the inverse inertia */
            const heft_mlcp_body *body = &p->bodies[s->node_ref[v]];
            if (!(body->inv_mass > 0.0) || !isfinite(body->inv_mass))
                return -1;
            const double *I = body->inv_inertia;
            const double W3[9] = {I[0], I[1], I[2], I[1], I[3], I[4], I[2], I[4], I[5]};
            double M3[9];
            if (definite_inverse(W3, 3, 1.0, M3, s->tmp) != 0)
                return -1;
            for (int k = 0; k < 3; ++k) {
                D[k * 6 + k] = 1.0 / body->inv_mass;
                for (int l = 0; l < 3; ++l)
                    D[(3 + k) * 6 + 3 + l] = M3[3 * k + l];
            }
        } else { /* -C */
            const int *rows = s->prim_rows + s->node_ref[v];
            for (int q = 0; q < d; ++q)
                D[q * d + q] = p->epsilon != NULL ? -p->epsilon[rows[q]] : 0.0;
        }
        const int par = s->node_parent[v];
        if (par < 0)
            continue;
        double *H = s->J + s->j_off[v]; /* H_{v,parent}: d x d_parent */
        const int dp = s->node_dim[par];
        if (v >= s->nbody_nodes) { /* joint under its body: -j */
            const int *rows = s->prim_rows + s->node_ref[v];
            const int32_t b = s->node_ref[par];
            for (int q = 0; q < d; ++q) {
                const double *j = row_jacobian(p, rows[q], side_of(s, p, rows[q], b));
                for (int c = 0; c < 6; ++c)
                    H[q * 6 + c] = -j[c];
            }
        } else { /* body under its joint: -j^T */
            const int *rows = s->prim_rows + s->node_ref[par];
            const int32_t b = s->node_ref[v];
            for (int q = 0; q < dp; ++q) {
                const double *j = row_jacobian(p, rows[q], side_of(s, p, rows[q], b));
                for (int c = 0; c < 6; ++c)
                    H[c * dp + q] = -j[c];
            }
        }
    }
    for (int idx = 0; idx < s->nnodes; ++idx) {
        const int v = s->forward[idx], d = s->node_dim[v];
        double *Dinv = s->Dinv + s->d_off[v];
        /* bodies' pivots are positive definite, joints' negative definite */
        const double sign = v < s->nbody_nodes ? 1.0 : -1.0;
        if (definite_inverse(s->D + s->d_off[v], d, sign, Dinv, s->tmp) != 0)
            return -1;
        flops += (double)d * d * d;
        const int par = s->node_parent[v];
        if (par < 0)
            continue;
        const int dp = s->node_dim[par];
        double *J = s->J + s->j_off[v], *Dp = s->D + s->d_off[par], *t = s->col;
        for (int i = 0; i < d; ++i) /* t = Dinv H */
            for (int c = 0; c < dp; ++c) {
                double sum = 0.0;
                for (int k = 0; k < d; ++k)
                    sum += Dinv[i * d + k] * J[k * dp + c];
                t[i * dp + c] = sum;
            }
        for (int r = 0; r < dp; ++r) /* D_parent -= H^T Dinv H */
            for (int c = 0; c < dp; ++c) {
                double sum = 0.0;
                for (int k = 0; k < d; ++k)
                    sum += J[k * dp + r] * t[k * dp + c];
                Dp[r * dp + c] -= sum;
            }
        memcpy(J, t, sizeof(double) * (size_t)d * (size_t)dp);
        flops += (double)d * d * dp + (double)d * dp * dp;
    }
    s->info.flops += flops;
    return 0;
}

/* Appendix A "solve": H x = x in place. */
static void sparse_solve(baraff_state *s) {
    double *x = s->x, flops = 0.0;
    for (int idx = 0; idx < s->nnodes; ++idx) { /* leaves up: parent -= J^T x */
        const int v = s->forward[idx], par = s->node_parent[v];
        if (par < 0)
            continue;
        const int d = s->node_dim[v], dp = s->node_dim[par];
        const double *J = s->J + s->j_off[v];
        const double *xv = x + s->node_off[v];
        double *xp = x + s->node_off[par];
        for (int k = 0; k < d; ++k)
            for (int c = 0; c < dp; ++c)
                xp[c] -= J[k * dp + c] * xv[k];
        flops += (double)d * dp;
    }
    for (int idx = s->nnodes - 1; idx >= 0; --idx) { /* root down */
        const int v = s->forward[idx], d = s->node_dim[v], par = s->node_parent[v];
        const double *Dinv = s->Dinv + s->d_off[v];
        double *xv = x + s->node_off[v], *t = s->tmp;
        for (int i = 0; i < d; ++i) {
            double sum = 0.0;
            for (int k = 0; k < d; ++k)
                sum += Dinv[i * d + k] * xv[k];
            t[i] = sum;
        }
        memcpy(xv, t, sizeof(double) * (size_t)d);
        flops += (double)d * d;
        if (par < 0)
            continue;
        const int dp = s->node_dim[par];
        const double *J = s->J + s->j_off[v], *xp = x + s->node_off[par];
        for (int i = 0; i < d; ++i)
            for (int c = 0; c < dp; ++c)
                xv[i] -= J[i * dp + c] * xp[c];
        flops += (double)d * dp;
    }
    s->info.flops += flops;
}

/* x = [f; -b_P] with f = 0 */
static void set_primary_rhs(baraff_state *s, const heft_mlcp *p) {
    memset(s->x, 0, sizeof(double) * s->total_dim);
    for (int c = s->nbody_nodes; c < s->nnodes; ++c) {
        const int *rows = s->prim_rows + s->node_ref[c];
        for (int q = 0; q < s->node_dim[c]; ++q)
            s->x[s->node_off[c] + q] = -p->b[rows[q]];
    }
}

/* f += scale J_i^T */
static void add_row_force(baraff_state *s, const heft_mlcp *p, int i, double scale) {
    for (int side = 0; side < 2; ++side) {
        const int32_t b = side_body(s, p, i, side);
        if (b < 0)
            continue;
        const double *j = row_jacobian(p, i, side);
        double *f = s->x + s->node_off[s->body_node[b]];
        for (int c = 0; c < 6; ++c)
            f[c] += scale * j[c];
    }
}

/* J_i y, y read from the body part of x */
static double row_velocity(const baraff_state *s, const heft_mlcp *p, int i) {
    double sum = 0.0;
    for (int side = 0; side < 2; ++side) {
        const int32_t b = side_body(s, p, i, side);
        if (b < 0)
            continue;
        const double *j = row_jacobian(p, i, side);
        const double *y = s->x + s->node_off[s->body_node[b]];
        for (int c = 0; c < 6; ++c)
            sum += j[c] * y[c];
    }
    return sum;
}

/* One step of iterative refinement of the primary rows, the auxiliary impulses
 * held: w_P = J_P W J^T lambda + C lambda - b from the structured form, then
 * A_PP dlambda = -w_P by one more sparse solve (KKT right-hand side -(-w_P)).
 * The quasi-definite LDL^T of a stiff chain loses a few digits; this wins
 * them back at the cost of one O(n) solve. */
static void refine_primary(baraff_state *s, const heft_mlcp *p, double *lambda) {
    double *dv = s->yj;
    memset(dv, 0, sizeof(double) * 6 * (size_t)p->nbodies);
    double w6[6];
    for (int i = 0; i < p->n; ++i) {
        if (lambda[i] == 0.0)
            continue;
        for (int side = 0; side < 2; ++side) {
            const int32_t b = side_body(s, p, i, side);
            if (b < 0)
                continue;
            const heft_mlcp_body *body = &p->bodies[b];
            heft_body_inverse_mass_times(body, row_jacobian(p, i, side), w6);
            heft_axpy6(lambda[i], w6, &dv[6 * b]);
        }
    }
    memset(s->x, 0, sizeof(double) * s->total_dim);
    for (int c = s->nbody_nodes; c < s->nnodes; ++c) {
        const int *rows = s->prim_rows + s->node_ref[c];
        for (int q = 0; q < s->node_dim[c]; ++q) {
            const int i = rows[q];
            double w = (p->epsilon != NULL ? p->epsilon[i] * lambda[i] : 0.0) - p->b[i];
            for (int side = 0; side < 2; ++side) {
                const int32_t b = side_body(s, p, i, side);
                if (b < 0)
                    continue;
                const double *j = row_jacobian(p, i, side);
                for (int k = 0; k < 6; ++k)
                    w += j[k] * dv[6 * b + k];
            }
            s->x[s->node_off[c] + q] = w;
        }
    }
    sparse_solve(s);
    for (int c = s->nbody_nodes; c < s->nnodes; ++c) {
        const int *rows = s->prim_rows + s->node_ref[c];
        for (int q = 0; q < s->node_dim[c]; ++q)
            lambda[rows[q]] += s->x[s->node_off[c] + q];
    }
}

/* The whole problem by bpp-skyline: where the method cannot take it
 * (fallback 1: the answer is another solver's, and stats->fallback says
 * so), or where it has no primary rows (fallback 0): then the auxiliary
 * problem is the problem itself (A^ = J W J^T + C, b^ = b), and its rows
 * are solved as they stand, banded, instead of as a dense k x k copy whose
 * Cholesky costs k^3 / 6 a factorization (2.7 s against 0.11 s a solve on
 * the 1,918 contact rows of the 40-layer tower). */
static int solve_whole(baraff_state *s, const heft_mlcp *p, double *lambda,
                       heft_solver_stats *stats, int fallback) {
    if (s->full_bpp == NULL) {
        if ((s->full_bpp = s->full->create(&s->options)) == NULL)
            return HEFT_SOLVE_FAILED;
        heft_bpp_set_nested(s->full_bpp);
    }
    const int rc = s->full->solve(s->full_bpp, p, lambda, stats);
    if (fallback)
        stats->fallback = 1;
    return rc;
}

/* The auxiliary problem's bpp counts are this solve's (stats->factorizations
 * already holds the LDL^T of the primary rows), and so is the answer it
 * kept: the primary impulses follow from the auxiliary ones, so an
 * auxiliary answer from PGS (or the warm start) makes the whole answer
 * PGS's. */
static void add_auxiliary_counts(heft_solver_stats *stats, const heft_solver_stats *aux) {
    stats->iterations = aux->iterations;
    stats->tight_trace_count = aux->tight_trace_count;
    memcpy(stats->tight_trace, aux->tight_trace, sizeof stats->tight_trace);
    stats->fallback = aux->fallback;
    stats->factorizations += aux->factorizations;
    stats->downdates += aux->downdates;
    stats->restarts = aux->restarts;
    stats->pgs_sweeps = aux->pgs_sweeps;
    stats->frozen_rounds = aux->frozen_rounds;
    stats->backstops = aux->backstops;
    stats->backstop_pivots = aux->backstop_pivots;
    stats->newton_steps = aux->newton_steps;
    stats->pcg_tightenings = aux->pcg_tightenings;
    stats->regularized_rows = aux->regularized_rows;
    stats->answer = aux->answer;
}

/* An auxiliary problem left open: bpp-skyline on the whole problem from
 * this answer, its joints' rows split into Lemke's pairs, whose own last
 * stage (heft_bpp_eliminated) comes back to a nested baraff from its best
 * point. The two LCPs end different problems of the hard family: from zero,
 * baraff left member 18 (749 rows) at 0.057 J and the whole problem's
 * stages did not end it either; bpp-skyline from baraff's answer ends it at
 * 3e-29 J. The skyline, not bpp's dense Cholesky, so that a large island
 * costs what its band does. Its state is reset before each use (a solve
 * depends on its problem alone). Returns 2 when lambda was replaced by an
 * answer within the tolerance, 1 by a better one short of it, 0 when it
 * was kept. */
static int rescue_whole(baraff_state *s, const heft_mlcp *p, double *lambda, double kept_error,
                        heft_solver_stats *stats) {
    const int n = p->n;
    if (s->rescue_bpp == NULL) {
        s->rescue = heft_solver_find("bpp-skyline");
        if (s->rescue == NULL || (s->rescue_bpp = s->rescue->create(&s->options)) == NULL)
            return 0;
    }
    if (!HEFT_RESERVE(s->rescue_start, s->rescue_start_cap, (size_t)n) ||
        !HEFT_RESERVE(s->rescue_answer, s->rescue_answer_cap, (size_t)n))
        return 0;
    if (s->rescue->reset != NULL)
        s->rescue->reset(s->rescue_bpp);
    memcpy(s->rescue_start, lambda, sizeof(double) * (size_t)n);
    heft_mlcp q = *p;
    q.lambda0 = s->rescue_start;
    heft_solver_stats rs;
    memset(&rs, 0, sizeof rs);
    const int rc = s->rescue->solve(s->rescue_bpp, &q, s->rescue_answer, &rs);
    heft_stats_add_stage(stats, &rs);
    if (rc == HEFT_SOLVE_FAILED || !(rs.error_max < kept_error))
        return 0;
    memcpy(lambda, s->rescue_answer, sizeof(double) * (size_t)n);
    stats->answer = HEFT_ANSWER_BACKSTOP;
    return rc == HEFT_SOLVE_OK ? 2 : 1;
}

static int baraff_solve(void *state, const heft_mlcp *p, double *lambda, heft_solver_stats *stats) {
    baraff_state *s = state;
    heft_solve_frame frame;
    const int begun = heft_solve_begin(p, stats, &frame);
    if (begun >= 0)
        return begun;
    const double start = frame.start;
    const int n = p->n;
    if (p->b == NULL || p->lo == NULL || p->hi == NULL || p->findex == NULL)
        return HEFT_SOLVE_FAILED;
    if (p->rows == NULL)
        return solve_whole(s, p, lambda, stats, 1); /* dense only: no structure to use */
    if (!heft_mlcp_structure_valid(p))
        return HEFT_SOLVE_FAILED;
    const size_t un = (size_t)n, unb = (size_t)p->nbodies;
    if (!HEFT_RESERVE(s->key, s->key_cap, 4 * un + unb) ||
        !HEFT_RESERVE(s->is_static, s->is_static_cap, unb) ||
        !HEFT_RESERVE(s->measure, s->measure_cap, un + 6 * unb))
        return HEFT_SOLVE_FAILED;
    s->info.flops = 0.0;
    const double t0 = heft_time_ms();
    if (topology_changed(s, p)) {
        s->key_valid = 0;
        if (symbolic(s, p) != 0)
            return HEFT_SOLVE_FAILED;
        s->key_valid = 1;
    }
    stats->time_ordering_ms = heft_time_ms() - t0;
    if (s->nprim == 0)
        return solve_whole(s, p, lambda, stats, 0);
    const double t1 = heft_time_ms();
    if (factor(s, p) != 0)
        return solve_whole(s, p, lambda, stats, 1);
    stats->factorizations = 1;
    stats->time_factor_ms = heft_time_ms() - t1;

    /* §8.2 step 2: the primary response to b alone */
    const double t2 = heft_time_ms();
    set_primary_rhs(s, p);
    sparse_solve(s);
    const int k = s->naux;
    int rc = HEFT_SOLVE_OK, converged = 1;
    if (k > 0) {
        const size_t uk = (size_t)k;
        for (int a = 0; a < k; ++a) /* b^ = b_a - J_a y0 */
            s->aux_b[a] = p->b[s->aux_rows[a]] - row_velocity(s, p, s->aux_rows[a]);
        /* step 3: one sparse solve per auxiliary row for a column of J_a W^ J_a^T */
        for (int j = 0; j < k; ++j) {
            memset(s->x, 0, sizeof(double) * s->total_dim);
            add_row_force(s, p, s->aux_rows[j], 1.0);
            sparse_solve(s);
            for (int i = 0; i < k; ++i)
                s->aux_A[(size_t)i * uk + (size_t)j] = row_velocity(s, p, s->aux_rows[i]);
            s->info.flops += 12.0 * k;
        }
        for (int i = 0; i < k; ++i) { /* symmetric up to rounding: make it exactly so */
            for (int j = 0; j < i; ++j) {
                const double m =
                    0.5 * (s->aux_A[(size_t)i * uk + j] + s->aux_A[(size_t)j * uk + i]);
                s->aux_A[(size_t)i * uk + j] = s->aux_A[(size_t)j * uk + i] = m;
            }
            if (p->epsilon != NULL)
                s->aux_A[(size_t)i * uk + i] += p->epsilon[s->aux_rows[i]];
        }
        /* step 4: the auxiliary MLCP, by bpp */
        for (int a = 0; a < k; ++a) {
            const int r = s->aux_rows[a];
            s->aux_lo[a] = p->lo[r];
            s->aux_hi[a] = p->hi[r];
            s->aux_findex[a] = -1;
            if (p->findex[r] >= 0) {
                if (p->findex[r] >= n || s->aux_index[p->findex[r]] < 0)
                    return solve_whole(s, p, lambda, stats, 1);
                s->aux_findex[a] = s->aux_index[p->findex[r]];
            }
            s->aux_kind[a] = p->kind != NULL ? p->kind[r] : 0;
            s->aux_l0[a] = p->lambda0 != NULL ? p->lambda0[r] : 0.0;
        }
        memset(&s->aux, 0, sizeof s->aux);
        s->aux.n = k;
        s->aux.A = s->aux_A;
        s->aux.b = s->aux_b;
        s->aux.lo = s->aux_lo;
        s->aux.hi = s->aux_hi;
        s->aux.findex = s->aux_findex;
        s->aux.kind = p->kind != NULL ? s->aux_kind : NULL;
        s->aux.lambda0 = p->lambda0 != NULL ? s->aux_l0 : NULL;
        heft_solver_stats aux_stats;
        rc = s->bpp->solve(s->aux_bpp, &s->aux, s->mu, &aux_stats);
        if (rc == HEFT_SOLVE_FAILED)
            return solve_whole(s, p, lambda, stats, 1);
        converged = aux_stats.converged;
        add_auxiliary_counts(stats, &aux_stats);
        /* step 5: the primary impulses under f = J_a^T mu */
        set_primary_rhs(s, p);
        for (int a = 0; a < k; ++a)
            add_row_force(s, p, s->aux_rows[a], s->mu[a]);
        sparse_solve(s);
        for (int a = 0; a < k; ++a)
            lambda[s->aux_rows[a]] = s->mu[a];
    }
    for (int c = s->nbody_nodes; c < s->nnodes; ++c) {
        const int *rows = s->prim_rows + s->node_ref[c];
        for (int q = 0; q < s->node_dim[c]; ++q)
            lambda[rows[q]] = s->x[s->node_off[c] + q];
    }
    refine_primary(s, p, lambda);
    stats->time_solve_ms = heft_time_ms() - t2;

    const heft_solve_frame end_frame = {start};
    heft_mlcp_error err = heft_solve_finish(p, lambda, converged, &end_frame, s->measure, stats);
    if (!stats->converged && !s->nested && err.nonfinite == 0) {
        const int rescued = rescue_whole(s, p, lambda, err.max, stats);
        if (rescued > 0) {
            converged = rescued == 2;
            rc = converged ? HEFT_SOLVE_OK : rc;
            err = heft_solve_finish(p, lambda, converged, &end_frame, s->measure, stats);
        }
    }
    int finite = err.nonfinite == 0;
    for (int i = 0; i < n; ++i)
        finite = finite && isfinite(lambda[i]);
    if (!finite) {
        for (int i = 0; i < n; ++i)
            lambda[i] = 0.0;
        stats->converged = 0;
        return HEFT_SOLVE_FAILED;
    }
    return rc == HEFT_SOLVE_OK && converged ? HEFT_SOLVE_OK : HEFT_SOLVE_NOT_CONVERGED;
}

static size_t baraff_save_state(const void *state, void *buffer, size_t capacity);
static int baraff_restore_state(void *state, const void *buffer, size_t size);

extern const heft_solver_vtable heft_baraff_solver;
const heft_solver_vtable heft_baraff_solver = {
    "baraff",
    "O(n) LDL^T of the KKT system of tree joints, the rest by anticipation and bpp (Baraff 1996)",
    baraff_create,
    baraff_solve,
    baraff_reset,
    baraff_destroy,
    1,
    baraff_save_state,
    baraff_restore_state,
    0,
    NULL, /* reserve: workspaces sized at the first solve of each size */
};

/* Baraff's factorization is rebuilt from the next problem; what carries
 * over is in its pivoting solvers (the auxiliary rows' and, once made, the
 * whole problem's), saved one after the other with their sizes. */
static size_t baraff_save_state(const void *state, void *buffer, size_t capacity) {
    const baraff_state *s = state;
    state_writer w = {buffer, capacity, 0};
    if (s == NULL)
        return 0;
    const void *parts[2] = {s->aux_bpp, s->full_bpp};
    const heft_solver_vtable *vt[2] = {s->bpp, s->full};
    for (int i = 0; i < 2; ++i) {
        const int has = parts[i] != NULL && vt[i]->save_state != NULL;
        const size_t n = has ? vt[i]->save_state(parts[i], NULL, 0) : 0;
        const uint64_t size = has ? (uint64_t)n : UINT64_MAX;
        state_put(&w, &size, sizeof size);
        if (has) {
            unsigned char *at = buffer != NULL && w.size <= capacity && n <= capacity - w.size
                                    ? (unsigned char *)buffer + w.size
                                    : NULL;
            if (at != NULL)
                vt[i]->save_state(parts[i], at, n);
            w.size += n;
        }
    }
    return w.size;
}

static int baraff_restore_state(void *state, const void *buffer, size_t size) {
    baraff_state *s = state;
    if (s == NULL || (buffer == NULL && size > 0))
        return -1;
    baraff_reset(s);
    state_reader r = {buffer, size, 0, 0};
    void **parts[2] = {&s->aux_bpp, &s->full_bpp};
    const heft_solver_vtable *vt[2] = {s->bpp, s->full};
    for (int i = 0; i < 2; ++i) {
        uint64_t n = 0;
        if (!state_get(&r, &n, sizeof n))
            return -1;
        if (n == UINT64_MAX)
            continue;
        if (n > r.size - r.at || vt[i]->restore_state == NULL)
            return -1;
        if (*parts[i] == NULL) {
            if ((*parts[i] = vt[i]->create(&s->options)) == NULL)
                return -1;
            heft_bpp_set_nested(*parts[i]);
        }
        if (vt[i]->restore_state(*parts[i], r.buffer + r.at, (size_t)n) != 0)
            return -1;
        r.at += (size_t)n;
    }
    return r.at == size ? 0 : -1;
}
