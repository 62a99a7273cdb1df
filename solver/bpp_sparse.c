/* Heft: the "bpp-sparse" solver, block principal pivoting whose A_FF is a
 * sparse Cholesky factor kept up to date by row additions and deletions.
 *
 * The pivoting loop is bpp's (bpp.c); this file is the backend that solves
 * A_FF x_F = b_F. It holds one factor L D L^T of A' = P A_F' P^T, where A_F'
 * is A with every tight row and column replaced by those of the identity, so
 * that with b_T = 0 a solve gives x_F and x_T = 0. P is a fill-reducing
 * ordering (AMD, through CHOLMOD [Davis 2009]); its symbolic analysis is kept
 * while the sparsity pattern of A is the same. When the tight set changes:
 *
 *   - a variable that becomes tight is deleted from the factor, a row
 *     deletion (cholmod_rowdel: its row and column of L become the
 *     identity's, a rank-2 downdate of the rest);
 *   - a variable that becomes free is added back, a row addition
 *     (cholmod_rowadd, a rank-2 update) with its column of A restricted to
 *     the rows free at that moment;
 *   - when more variables change than BPP_SPARSE_UPDATE_LIMIT allows (a
 *     fraction of n, see below), A_F' is factored afresh with the kept
 *     analysis instead.
 *
 * This is the sparse counterpart of the thesis' downdated skyline [Lefebvre
 * 2020, Alg. 2.2-2.6]: the factor follows the pivoting in both directions,
 * not only from L0 down, and the fill is what AMD leaves, not an envelope.
 * Counted in the statistics: factorizations (numeric factorizations),
 * downdates (row deletions) and updates (row additions). */
#include "bpp.h"

#ifdef HEFT_HAVE_CHOLMOD

#include <math.h>
#include <string.h>

#include <cholmod.h>

#include "sparse_sym.h"
#include "workspace.h"

/* Row updates cost about as much as a factorization once this fraction of
 * the rows changes set in one pivoting step (a row addition or deletion is
 * a rank-2 modification touching the columns of L below it; measured on
 * the pyramid of base 10, where a fresh numeric factorization costs about
 * as much as 30 row modifications of its 1,200 rows). At least a few rows
 * always go by updates. */
#define BPP_SPARSE_UPDATE_FRACTION 0.025
#define BPP_SPARSE_UPDATE_MIN 8

struct bpp_sparse_backend {
    cholmod_common common;
    int common_started;
    heft_sparse_sym A;        /* the problem's A, lower triangle */
    cholmod_sparse *Ac;       /* A_F' in CHOLMOD's form (lower, stype -1) */
    cholmod_factor *symbolic; /* the analysis of A's pattern */
    cholmod_factor *L;        /* the factor of the current A_F' */
    cholmod_sparse *R;        /* one column for a row addition, n x 1 */
    cholmod_dense *B, *X, *Y, *E;
    cholmod_dense *BK, *XK;           /* k right-hand sides and their solutions */
    int *pattern_start, *pattern_row; /* A's pattern the analysis was made for */
    size_t pattern_start_cap, pattern_row_cap;
    int pattern_n;
    int *inverse_perm;             /* inverse_perm[i]: row i's place in P */
    unsigned char *factored_tight; /* the tight set L is the factor of */
    size_t inverse_perm_cap, factored_tight_cap;
    int L_valid;
    double *column; /* scratch, n, kept zero between uses */
    double *first;  /* the first right-hand side of a solve of k, n */
    size_t column_cap, first_cap;
    /* A with both triangles, compressed columns: a column of A in
     * O(its entries), for the friction coupling and the row additions */
    int *full_start, *full_row, *full_fill;
    double *full_val;
    size_t full_start_cap, full_row_cap, full_fill_cap, full_val_cap;
};

static void release_cholmod(struct bpp_sparse_backend *b) {
    if (!b->common_started)
        return;
    cholmod_free_sparse(&b->Ac, &b->common);
    cholmod_free_factor(&b->symbolic, &b->common);
    cholmod_free_factor(&b->L, &b->common);
    cholmod_free_sparse(&b->R, &b->common);
    cholmod_free_dense(&b->B, &b->common);
    cholmod_free_dense(&b->X, &b->common);
    cholmod_free_dense(&b->Y, &b->common);
    cholmod_free_dense(&b->E, &b->common);
    cholmod_free_dense(&b->BK, &b->common);
    cholmod_free_dense(&b->XK, &b->common);
    cholmod_finish(&b->common);
    b->common_started = 0;
}

void heft_bpp_sparse_release(bpp_state *s) {
    struct bpp_sparse_backend *b = s->sparse;
    if (b == NULL)
        return;
    release_cholmod(b);
    heft_sparse_sym_release(&b->A);
    heft_free(b->pattern_start);
    heft_free(b->pattern_row);
    heft_free(b->inverse_perm);
    heft_free(b->factored_tight);
    heft_free(b->column);
    heft_free(b->first);
    heft_free(b->full_start);
    heft_free(b->full_row);
    heft_free(b->full_fill);
    heft_free(b->full_val);
    heft_free(b);
    s->sparse = NULL;
}

static int same_pattern(const struct bpp_sparse_backend *b) {
    const int n = b->A.n;
    if (b->symbolic == NULL || b->pattern_n != n)
        return 0;
    if (memcmp(b->pattern_start, b->A.col_start, sizeof(int) * (size_t)(n + 1)) != 0)
        return 0;
    return memcmp(b->pattern_row, b->A.row, sizeof(int) * (size_t)b->A.col_start[n]) == 0;
}

/* CHOLMOD's matrix of A's pattern (values filled per factorization), its
 * analysis with AMD, and the workspaces of the solves. */
static int analyze(struct bpp_sparse_backend *b) {
    const int n = b->A.n;
    const size_t nnz = (size_t)b->A.col_start[n];
    cholmod_common *c = &b->common;
    cholmod_free_sparse(&b->Ac, c);
    cholmod_free_factor(&b->symbolic, c);
    cholmod_free_factor(&b->L, c);
    cholmod_free_sparse(&b->R, c);
    cholmod_free_dense(&b->B, c);
    b->L_valid = 0;
    b->Ac = cholmod_allocate_sparse((size_t)n, (size_t)n, nnz, 1, 1, -1, CHOLMOD_REAL, c);
    b->R = cholmod_allocate_sparse((size_t)n, 1, (size_t)n, 1, 1, 0, CHOLMOD_REAL, c);
    b->B = cholmod_zeros((size_t)n, 1, CHOLMOD_REAL, c);
    if (b->Ac == NULL || b->R == NULL || b->B == NULL)
        return -1;
    int *cp = b->Ac->p, *ri = b->Ac->i;
    double *v = b->Ac->x;
    memcpy(cp, b->A.col_start, sizeof(int) * (size_t)(n + 1));
    memcpy(ri, b->A.row, sizeof(int) * nnz);
    memcpy(v, b->A.val, sizeof(double) * nnz);
    b->symbolic = cholmod_analyze(b->Ac, c);
    if (b->symbolic == NULL)
        return -1;
    if (!HEFT_RESERVE(b->pattern_start, b->pattern_start_cap, (size_t)(n + 1)) ||
        !HEFT_RESERVE(b->pattern_row, b->pattern_row_cap, nnz) ||
        !HEFT_RESERVE(b->inverse_perm, b->inverse_perm_cap, (size_t)n))
        return -1;
    memcpy(b->pattern_start, b->A.col_start, sizeof(int) * (size_t)(n + 1));
    memcpy(b->pattern_row, b->A.row, sizeof(int) * nnz);
    b->pattern_n = n;
    const int *perm = b->symbolic->Perm;
    for (int k = 0; k < n; ++k)
        b->inverse_perm[perm[k]] = k;
    return 0;
}

/* Both triangles of A from its lower one; each column's rows ascending
 * (those above the diagonal come from earlier columns, in order). */
static int build_full(struct bpp_sparse_backend *b) {
    const int n = b->A.n;
    const size_t nnz = (size_t)b->A.col_start[n];
    const size_t full = 2 * nnz - (size_t)n;
    if (!HEFT_RESERVE(b->full_start, b->full_start_cap, (size_t)n + 1) ||
        !HEFT_RESERVE(b->full_fill, b->full_fill_cap, (size_t)n) ||
        !HEFT_RESERVE(b->full_row, b->full_row_cap, full) ||
        !HEFT_RESERVE(b->full_val, b->full_val_cap, full))
        return -1;
    for (int j = 0; j <= n; ++j)
        b->full_start[j] = 0;
    for (int j = 0; j < n; ++j) {
        for (int q = b->A.col_start[j]; q < b->A.col_start[j + 1]; ++q) {
            const int i = b->A.row[q];
            b->full_start[j + 1]++;
            if (i != j)
                b->full_start[i + 1]++;
        }
    }
    for (int j = 0; j < n; ++j) {
        b->full_start[j + 1] += b->full_start[j];
        b->full_fill[j] = b->full_start[j];
    }
    for (int j = 0; j < n; ++j) {
        for (int q = b->A.col_start[j]; q < b->A.col_start[j + 1]; ++q) {
            const int i = b->A.row[q];
            const double v = b->A.val[q];
            b->full_row[b->full_fill[j]] = i;
            b->full_val[b->full_fill[j]++] = v;
            if (i != j) {
                b->full_row[b->full_fill[i]] = j;
                b->full_val[b->full_fill[i]++] = v;
            }
        }
    }
    return 0;
}

int heft_bpp_sparse_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats) {
    const double start = heft_time_ms();
    const int n = p->n;
    const size_t un = (size_t)n;
    if (s->sparse == NULL) {
        s->sparse = heft_alloc(sizeof *s->sparse);
        if (s->sparse == NULL)
            return -1;
        memset(s->sparse, 0, sizeof *s->sparse);
    }
    struct bpp_sparse_backend *b = s->sparse;
    if (!b->common_started) {
        cholmod_common *c = &b->common;
        if (!cholmod_start(c))
            return -1;
        b->common_started = 1;
        /* a fresh factorization is supernodal where that pays (CHOLMOD's
         * own rule); row additions and deletions need a simplicial
         * L D L^T, to which the factor is turned when the first one comes */
        c->supernodal = CHOLMOD_AUTO;
        c->final_ll = 0;
        c->nmethods = 1;
        c->method[0].ordering = CHOLMOD_AMD;
        c->postorder = 1;
        c->print = 0;
        c->error_handler = NULL;
    }
    if (heft_sparse_sym_from_mlcp(&b->A, p) != 0 ||
        !HEFT_RESERVE(b->factored_tight, b->factored_tight_cap, un) ||
        !HEFT_RESERVE(b->column, b->column_cap, un) || !HEFT_RESERVE(b->first, b->first_cap, un) ||
        !HEFT_RESERVE(s->factored_tight, s->factored_tight_cap, un) || build_full(b) != 0)
        return -1;
    for (int j = 0; j < n; ++j) {
        s->diag[j] = b->A.val[b->A.col_start[j]];
        b->column[j] = 0.0;
    }
    const double ordering_start = heft_time_ms();
    if (!same_pattern(b)) {
        if (analyze(b) != 0)
            return -1;
        stats->time_ordering_ms += heft_time_ms() - ordering_start;
    }
    /* the values of A changed with the step: the factor is made again */
    b->L_valid = 0;
    s->factored_valid = 0;
    stats->time_assembly_ms += heft_time_ms() - start - (heft_time_ms() - ordering_start);
    return 0;
}

void heft_bpp_sparse_multiply(bpp_state *s, int n, const double *x, double *y) {
    (void)n;
    heft_sparse_sym_multiply(&s->sparse->A, x, y);
}

void heft_bpp_sparse_add_column(bpp_state *s, int n, int j, double c, double *out) {
    (void)n;
    const struct bpp_sparse_backend *b = s->sparse;
    for (int q = b->full_start[j]; q < b->full_start[j + 1]; ++q)
        out[b->full_row[q]] += c * b->full_val[q];
}

/* A_F' into Ac (A's pattern, tight rows and columns zero but a unit
 * diagonal, the regularization's shifts on the free diagonal), then its
 * numeric factorization from the kept analysis. */
static int factor_fresh(bpp_state *s, const unsigned char *tight, heft_solver_stats *stats) {
    struct bpp_sparse_backend *b = s->sparse;
    cholmod_common *c = &b->common;
    const int n = b->A.n;
    double *v = b->Ac->x;
    for (int j = 0; j < n; ++j) {
        for (int q = b->A.col_start[j]; q < b->A.col_start[j + 1]; ++q) {
            const int i = b->A.row[q];
            if (i == j)
                v[q] =
                    tight[j] ? 1.0 : b->A.val[q] + (s->reg_shift != NULL ? s->reg_shift[j] : 0.0);
            else
                v[q] = tight[i] || tight[j] ? 0.0 : b->A.val[q];
        }
    }
    /* from the kept analysis: a factor changed by row updates has columns of
     * other lengths than the analysis gives */
    cholmod_free_factor(&b->L, c);
    b->L = cholmod_copy_factor(b->symbolic, c);
    if (b->L == NULL)
        return -1;
    if (!cholmod_factorize(b->Ac, b->L, c) || c->status != CHOLMOD_OK)
        return -1;
    stats->factorizations++;
    memcpy(b->factored_tight, tight, (size_t)n);
    b->L_valid = 1;
    return 0;
}

/* Column j of A restricted to the rows whose mark is 0 (and j itself),
 * permuted into the factor's order, as R. */
static void restricted_column(struct bpp_sparse_backend *b, int j, const unsigned char *mark) {
    for (int q = b->full_start[j]; q < b->full_start[j + 1]; ++q)
        b->column[b->full_row[q]] = b->full_val[q];
    int *rp = b->R->p, *ri = b->R->i;
    double *rx = b->R->x;
    const int n = b->A.n;
    /* R's rows must be sorted: walk the factor's order */
    const int *perm = b->symbolic->Perm;
    int count = 0;
    for (int k = 0; k < n; ++k) {
        const int i = perm[k];
        if ((i == j || !mark[i]) && b->column[i] != 0.0) {
            ri[count] = k;
            rx[count] = b->column[i];
            count++;
        }
    }
    for (int q = b->full_start[j]; q < b->full_start[j + 1]; ++q)
        b->column[b->full_row[q]] = 0.0;
    rp[0] = 0;
    rp[1] = count;
}

/* Brings the factor from the tight set it was made for to tight[]: row
 * deletions first, then row additions, each with the rows free at that
 * moment. Returns 0, or -1 when CHOLMOD failed (the caller refactors). */
static int follow_pivoting(bpp_state *s, const unsigned char *tight, heft_solver_stats *stats) {
    struct bpp_sparse_backend *b = s->sparse;
    cholmod_common *c = &b->common;
    const int n = b->A.n;
    unsigned char *cur = b->factored_tight;
    if (b->L->is_super || b->L->is_ll) {
        if (!cholmod_change_factor(CHOLMOD_REAL, 0, 0, 0, 0, b->L, c))
            return -1;
    }
    for (int i = 0; i < n; ++i) {
        if (tight[i] && !cur[i]) {
            if (!cholmod_rowdel((size_t)b->inverse_perm[i], NULL, b->L, c))
                return -1;
            cur[i] = 1;
            stats->downdates++;
        }
    }
    for (int i = 0; i < n; ++i) {
        if (!tight[i] && cur[i]) {
            restricted_column(b, i, cur);
            const int k = b->inverse_perm[i];
            if (!cholmod_rowadd((size_t)k, b->R, b->L, c))
                return -1;
            /* D(k) first in column k: a pivot that is not positive means the
             * new A_FF is not positive definite */
            const double d = ((const double *)b->L->x)[((const int *)b->L->p)[k]];
            if (!(d > 0.0) || !isfinite(d))
                return -1;
            cur[i] = 0;
            stats->updates++;
        }
    }
    return 0;
}

int heft_bpp_sparse_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                          heft_solver_stats *stats) {
    struct bpp_sparse_backend *b = s->sparse;
    cholmod_common *c = &b->common;
    const double start = heft_time_ms();
    int changes = 0;
    if (b->L_valid) {
        for (int i = 0; i < n; ++i)
            changes += tight[i] != b->factored_tight[i];
    }
    int limit = (int)(BPP_SPARSE_UPDATE_FRACTION * n);
    if (limit < BPP_SPARSE_UPDATE_MIN)
        limit = BPP_SPARSE_UPDATE_MIN;
    /* adaptive regularization shifts diagonals between steps: refactor */
    if (!b->L_valid || changes > limit || s->reg_shift != NULL) {
        if (factor_fresh(s, tight, stats) != 0)
            return -1;
    } else if (changes > 0 && follow_pivoting(s, tight, stats) != 0) {
        if (factor_fresh(s, tight, stats) != 0)
            return -1;
    }
    /* a zero or negative pivot: A_FF is not positive definite */
    if (c->status != CHOLMOD_OK || b->L->minor < (size_t)n) {
        stats->time_factor_ms += heft_time_ms() - start;
        return -1;
    }
    stats->time_factor_ms += heft_time_ms() - start;
    double *bx = b->B->x;
    for (int i = 0; i < n; ++i)
        bx[i] = tight[i] ? 0.0 : x[i];
    if (!cholmod_solve2(CHOLMOD_A, b->L, b->B, NULL, &b->X, NULL, &b->Y, &b->E, c))
        return -1;
    const double *xx = b->X->x;
    for (int i = 0; i < n; ++i) {
        x[i] = tight[i] ? 0.0 : xx[i];
        if (!isfinite(x[i]))
            return -1;
    }
    return 0;
}

double *heft_bpp_sparse_columns(bpp_state *s, int n, int k) {
    struct bpp_sparse_backend *b = s->sparse;
    cholmod_common *c = &b->common;
    if (b->BK == NULL || b->BK->nrow != (size_t)n || b->BK->ncol != (size_t)k) {
        cholmod_free_dense(&b->BK, c);
        b->BK = cholmod_allocate_dense((size_t)n, (size_t)k, (size_t)n, CHOLMOD_REAL, c);
        if (b->BK == NULL)
            return NULL;
    }
    double *x = b->BK->x;
    memset(x, 0, sizeof(double) * (size_t)n * (size_t)k);
    return x;
}

int heft_bpp_sparse_solve_columns(bpp_state *s, int n, const unsigned char *tight, int k,
                                  heft_solver_stats *stats) {
    struct bpp_sparse_backend *b = s->sparse;
    cholmod_common *c = &b->common;
    /* brings the factor to this tight set (the solve of the first column
     * does it; the columns' tight entries are zero as the solve wants) */
    double *bk = b->BK->x;
    double *first = b->first;
    memcpy(first, bk, sizeof(double) * (size_t)n);
    if (heft_bpp_sparse_solve(s, n, tight, first, stats) != 0)
        return -1;
    for (int q = 0; q < k; ++q)
        for (int i = 0; i < n; ++i)
            if (tight[i])
                bk[(size_t)q * (size_t)n + (size_t)i] = 0.0;
    if (!cholmod_solve2(CHOLMOD_A, b->L, b->BK, NULL, &b->XK, NULL, &b->Y, &b->E, c))
        return -1;
    const double *xk = b->XK->x;
    for (size_t q = 0; q < (size_t)n * (size_t)k; ++q) {
        const size_t i = q % (size_t)n;
        bk[q] = tight[i] ? 0.0 : xk[q];
        if (!isfinite(bk[q]))
            return -1;
    }
    return 0;
}

static void *bpp_sparse_create(const heft_solver_options *options) {
    return heft_bpp_create(options, BPP_SPARSE);
}

/* Found by registry.c, which declares it the same way. */
extern const heft_solver_vtable heft_bpp_sparse_solver;

const heft_solver_vtable heft_bpp_sparse_solver = {
    "bpp-sparse",
    "block principal pivoting on a sparse Cholesky factor (AMD ordering, CHOLMOD) kept up to "
    "date by row additions and deletions as the index sets change",
    bpp_sparse_create,
    heft_bpp_solve,
    heft_bpp_reset,
    heft_bpp_destroy,
    1,
    heft_bpp_save_state,
    heft_bpp_restore_state,
    1,    /* heft_bpp_answer measures the answer */
    NULL, /* reserve: workspaces sized at the first solve of each size */
};

#endif
