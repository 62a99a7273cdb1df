/* Heft: the dense backends of the block principal pivoting solvers.
 *
 * bpp ([Lefebvre 2020] Alg. 2.1): A_FF is gathered into an f x f array and
 * factored at every pivoting step (line 4), then solved (line 7).
 *
 * bpp-downdate (Alg. 2.2): L0 = chol(A) once per solve (line 2); at every
 * pivoting step L = L0 (line 7), one downdate per tight variable in
 * ascending order (lines 8-11, Alg. 2.3), and the solve skipping tight rows
 * (line 14, Alg. 2.4).
 *
 * Two savings that do not change any number: a step whose tight set is the
 * one the factor was made for only solves (the friction bounds moved, the
 * index sets did not); and line 7 copies only the columns of L that can
 * differ from L0 (a downdate of variable i touches columns > i only, so
 * columns up to the first tight variable of the previous and of the current
 * step are already those of L0). */
#include <math.h>
#include <string.h>

#include "bpp.h"
#include "dense_cholesky.h"
#include "workspace.h"

int heft_bpp_dense_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats) {
    const double start = heft_time_ms();
    const int n = p->n;
    const size_t un = (size_t)n;
    if (p->A != NULL) {
        s->A = p->A;
    } else {
        if (!HEFT_RESERVE(s->A_own, s->A_own_cap, un * un))
            return -1;
        heft_mlcp_assemble_dense(p, s->A_own);
        s->A = s->A_own;
    }
    for (int i = 0; i < n; ++i)
        s->diag[i] = s->A[(size_t)i * un + i];

    const int ok = s->backend == BPP_REFACTOR
                       ? HEFT_RESERVE(s->factor, s->factor_cap, un * un) &&
                             HEFT_RESERVE(s->free_rows, s->free_rows_cap, un) &&
                             HEFT_RESERVE(s->sigma, s->sigma_cap, un)
                       : HEFT_RESERVE(s->factor, s->factor_cap, un * un) &&
                             HEFT_RESERVE(s->factor0, s->factor0_cap, un * un) &&
                             HEFT_RESERVE(s->sigma, s->sigma_cap, un);
    if (!ok || !HEFT_RESERVE(s->factored_tight, s->factored_tight_cap, un))
        return -1;
    s->factored_valid = 0;
    s->L0_valid = 0;
    s->dirty_from = 0;
    stats->time_assembly_ms += heft_time_ms() - start;
    return 0;
}

void heft_bpp_dense_multiply(const bpp_state *s, int n, const double *x, double *y) {
    const size_t un = (size_t)n;
    for (int i = 0; i < n; ++i) {
        const double *row = &s->A[(size_t)i * un];
        double sum = 0.0;
        for (int j = 0; j < n; ++j)
            sum += row[j] * x[j];
        y[i] = sum;
    }
}

void heft_bpp_dense_add_column(const bpp_state *s, int n, int j, double c, double *out) {
    const double *row = &s->A[(size_t)j * (size_t)n]; /* A is symmetric: row j is column j */
    for (int i = 0; i < n; ++i)
        out[i] += c * row[i];
}

/* The factor in hand was made for this tight set. */
static int factor_matches(const bpp_state *s, int n, const unsigned char *tight) {
    return s->factored_valid && memcmp(s->factored_tight, tight, (size_t)n) == 0;
}

static void remember_factor(bpp_state *s, int n, const unsigned char *tight) {
    memcpy(s->factored_tight, tight, (size_t)n);
    s->factored_valid = 1;
}

int heft_bpp_refactor_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                            heft_solver_stats *stats) {
    const size_t un = (size_t)n;
    int f = 0;
    for (int i = 0; i < n; ++i)
        if (!tight[i])
            s->free_rows[f++] = i;
    if (!factor_matches(s, n, tight)) {
        const double start = heft_time_ms();
        s->factored_valid = 0;
        /* A_FF, column-major lower part (the storage of dense_cholesky.h) */
        const size_t uf = (size_t)f;
        for (int c = 0; c < f; ++c) {
            const double *Acol = &s->A[(size_t)s->free_rows[c] * un];
            double *Lcol = &s->factor[(size_t)c * uf];
            for (int r = c; r < f; ++r)
                Lcol[r] = Acol[s->free_rows[r]];
            if (s->reg_shift != NULL) /* adaptive regularization, [Ho 2022] Alg. 9 line 4 */
                Lcol[c] += s->reg_shift[s->free_rows[c]];
        }
        const int rc = heft_dense_cholesky_factor(s->factor, f);
        stats->factorizations++;
        stats->time_factor_ms += heft_time_ms() - start;
        if (rc != 0)
            return -1;
        remember_factor(s, n, tight);
    }
    /* Alg. 2.1 line 7 on the gathered right-hand side (sigma is this
     * backend's compact vector) */
    for (int c = 0; c < f; ++c)
        s->sigma[c] = x[s->free_rows[c]];
    heft_dense_cholesky_solve(s->factor, f, s->sigma);
    for (int i = 0; i < n; ++i)
        if (tight[i])
            x[i] = 0.0;
    for (int c = 0; c < f; ++c)
        x[s->free_rows[c]] = s->sigma[c];
    return 0;
}

int heft_bpp_downdate_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                            heft_solver_stats *stats) {
    const size_t un = (size_t)n;
    const double start = heft_time_ms();
    if (!s->L0_valid) { /* Alg. 2.2 line 2: L0 = chol(A), once per solve */
        memcpy(s->factor0, s->A, sizeof(double) * un * un);
        const int rc = heft_dense_cholesky_factor(s->factor0, n);
        stats->factorizations++;
        if (rc != 0) {
            stats->time_factor_ms += heft_time_ms() - start;
            return -1;
        }
        s->L0_valid = 1;
        s->dirty_from = 0; /* L holds nothing yet */
    }
    if (!factor_matches(s, n, tight)) {
        s->factored_valid = 0;
        int first = n;
        for (int i = 0; i < n && first == n; ++i)
            if (tight[i])
                first = i;
        if (first == n) {
            s->factor_is_L0 = 1; /* nothing to remove: L0 is L_FF */
        } else {
            s->factor_is_L0 = 0;
            /* line 7: L = L0, the columns that can differ */
            const int from = s->dirty_from < first + 1 ? s->dirty_from : first + 1;
            heft_dense_cholesky_copy_columns(s->factor, s->factor0, n, from);
            /* lines 8-11: one downdate per tight variable, ascending */
            for (int i = first; i < n; ++i) {
                if (!tight[i])
                    continue;
                stats->downdates++;
                if (heft_dense_cholesky_remove(s->factor, n, i, s->sigma) != 0) {
                    s->dirty_from = 0;
                    stats->time_factor_ms += heft_time_ms() - start;
                    return -1;
                }
            }
            s->dirty_from = first + 1;
        }
        remember_factor(s, n, tight);
    }
    stats->time_factor_ms += heft_time_ms() - start;
    /* line 14, Alg. 2.4 */
    heft_dense_cholesky_solve_skipping(s->factor_is_L0 ? s->factor0 : s->factor, n, tight, x);
    return 0;
}
