/* Heft: the preconditioners of the PCG family (precond.h; [Ho 2022] §4.1). */
#include "precond.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "workspace.h"

/* ic0-shift and ict: first shift tried after gamma = 0, and the number of
 * doublings before giving up (gamma then passes 1e-3 * 2^60). */
#define PRECOND_FIRST_SHIFT 1e-3
#define PRECOND_MAX_ATTEMPTS 60

static const char *const names[HEFT_PRECOND_COUNT] = {"jacobi", "ic0", "ic0-shift", "ict",
                                                      "ic0-imaginary"};

const char *heft_precond_name(int kind) {
    return kind >= 0 && kind < HEFT_PRECOND_COUNT ? names[kind] : "?";
}

int heft_precond_parse(const char *name) {
    for (int k = 0; name != NULL && k < HEFT_PRECOND_COUNT; ++k)
        if (strcmp(name, names[k]) == 0)
            return k;
    return -1;
}

void heft_precond_init(heft_precond *P, int kind) {
    memset(P, 0, sizeof *P);
    P->kind = kind;
    P->ict_drop = 1e-3;
    P->ict_fill = 10;
}

void heft_precond_release(heft_precond *P) {
    void *arrays[] = {P->col_start, P->row,  P->val,  P->eta,        P->work,
                      P->pattern,   P->head, P->link, P->next_entry, P->marker};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
    const int kind = P->kind;
    const double drop = P->ict_drop;
    const int fill = P->ict_fill;
    heft_precond_init(P, kind);
    P->ict_drop = drop;
    P->ict_fill = fill;
}

/* ---- IC(0), Alg. 4 and Alg. 6 ---------------------------------------------- */

/* Right-looking zero-fill factorization in place on a copy of tril(A) (+ gamma
 * diag). imaginary: Alg. 6 (a negative pivot marks the column, line 6);
 * otherwise Alg. 4, and a pivot <= 0 is a breakdown (returns 1). marker[] maps
 * the rows of the column being updated to their entries. */
static int ic0_factor(heft_precond *P, const heft_sparse_sym *a, double gamma, int imaginary) {
    const int n = a->n;
    const int nnz = heft_sparse_sym_nnz(a);
    memcpy(P->col_start, a->col_start, sizeof(int) * ((size_t)n + 1));
    memcpy(P->row, a->row, sizeof(int) * (size_t)nnz);
    memcpy(P->val, a->val, sizeof(double) * (size_t)nnz);
    for (int j = 0; j < n; ++j)
        P->val[P->col_start[j]] *= 1.0 + gamma;
    for (int i = 0; i < n; ++i)
        P->marker[i] = -1;
    P->imaginary_columns = 0;
    for (int i = 0; i < n; ++i) {
        const int d0 = P->col_start[i], end = P->col_start[i + 1];
        double d = P->val[d0];
        signed char eta = 1;
        if (imaginary) {
            if (d < 0.0) { /* Alg. 6 lines 5-7 */
                eta = -1;
                P->imaginary_columns++;
            }
            /* a zero pivot would still break down ([Ho 2022] §4.1.5); take a tiny
             * one of the original diagonal's scale instead */
            const double floor = 1e-14 * fabs(a->val[a->col_start[i]]);
            if (fabs(d) < floor || d == 0.0)
                d = eta * (floor > 0.0 ? floor : 1e-300);
        } else if (!(d > 0.0) || !isfinite(d)) {
            return 1; /* Alg. 4 line 4 takes the root of a negative number */
        }
        const double lii = sqrt(eta * d); /* Alg. 6 line 8 */
        P->val[d0] = lii;
        P->eta[i] = eta;
        for (int e = d0 + 1; e < end; ++e) /* lines 9-14 (Alg. 4 lines 5-8) */
            P->val[e] = eta * P->val[e] / lii;
        /* lines 15-21: L_kj -= eta_i L_ki L_ji for k >= j > i in the pattern */
        for (int e = d0 + 1; e < end; ++e) {
            const int j = P->row[e];
            const double lji = P->val[e];
            for (int f = P->col_start[j]; f < P->col_start[j + 1]; ++f)
                P->marker[P->row[f]] = f;
            for (int g = e; g < end; ++g) {
                const int at = P->marker[P->row[g]];
                if (at >= 0) /* line 17: skip fill-ins */
                    P->val[at] -= eta * P->val[g] * lji;
            }
            for (int f = P->col_start[j]; f < P->col_start[j + 1]; ++f)
                P->marker[P->row[f]] = -1;
        }
    }
    return 0;
}

/* ---- ICT, Alg. 5 --------------------------------------------------------------- */

/* Column-by-column (left-looking) form of Alg. 5: column i gathers the updates
 * of every earlier column with an entry in row i (lines 18-25 applied when the
 * column is reached), then the drops of lines 6-8 and 13-15 with
 * tau_i = eps ||a_i|| (line 3) on the updated entries, then the cap of line 17
 * (the p largest off-diagonals). head[r]/link[k] chain the earlier columns
 * by the row of their next entry below the current column. */
static int cmp_abs_desc(const void *x, const void *y, const double *w) {
    const double a = fabs(w[*(const int *)x]), b = fabs(w[*(const int *)y]);
    return (a < b) - (a > b);
}

static const double *sort_weights; /* qsort has no user pointer; single-threaded use */

static int by_weight(const void *x, const void *y) {
    return cmp_abs_desc(x, y, sort_weights);
}

static int by_index(const void *x, const void *y) {
    return (*(const int *)x > *(const int *)y) - (*(const int *)x < *(const int *)y);
}

static int ict_factor(heft_precond *P, const heft_sparse_sym *a, double gamma) {
    const int n = a->n, cap = P->ict_fill > 0 ? P->ict_fill : 0;
    for (int i = 0; i < n; ++i) {
        P->work[i] = 0.0;
        P->marker[i] = -1;
        P->head[i] = -1;
    }
    int k = 0;
    P->col_start[0] = 0; /* column i ends at col_start[i + 1], set when it is done */
    for (int i = 0; i < n; ++i) {
        int count = 0;
        double norm = 0.0;
        for (int e = a->col_start[i]; e < a->col_start[i + 1]; ++e) {
            const int r = a->row[e];
            const double v = a->val[e] * (r == i ? 1.0 + gamma : 1.0);
            P->work[r] = v;
            P->marker[r] = i;
            if (r != i)
                P->pattern[count++] = r;
            norm += v * v;
        }
        const double tau = P->ict_drop * sqrt(norm); /* line 3 */
        if (P->marker[i] != i) {
            P->work[i] = 0.0;
            P->marker[i] = i;
        }
        /* updates from earlier columns c with L_ic != 0 */
        for (int c = P->head[i]; c >= 0;) {
            const int next_c = P->link[c];
            const int at = P->next_entry[c];
            const double lic = P->val[at];
            for (int e = at; e < P->col_start[c + 1]; ++e) {
                const int r = P->row[e];
                if (P->marker[r] != i) {
                    P->marker[r] = i;
                    P->work[r] = 0.0;
                    P->pattern[count++] = r;
                }
                P->work[r] -= P->val[e] * lic;
            }
            if (at + 1 < P->col_start[c + 1]) {
                P->next_entry[c] = at + 1;
                const int r = P->row[at + 1];
                P->link[c] = P->head[r];
                P->head[r] = c;
            }
            c = next_c;
        }
        const double d = P->work[i];
        if (!(d > 0.0) || !isfinite(d))
            return 1;
        const double lii = sqrt(d); /* line 10 */
        int kept = 0;
        for (int x = 0; x < count; ++x) { /* lines 6-8, 13-15 and 21-23 */
            const int r = P->pattern[x];
            if (fabs(P->work[r]) >= tau && P->work[r] != 0.0)
                P->pattern[kept++] = r;
        }
        if (kept > cap) { /* line 17 */
            sort_weights = P->work;
            qsort(P->pattern, (size_t)kept, sizeof(int), by_weight);
            kept = cap;
        }
        qsort(P->pattern, (size_t)kept, sizeof(int), by_index);
        P->row[k] = i;
        P->val[k++] = lii;
        for (int x = 0; x < kept; ++x) {
            P->row[k] = P->pattern[x];
            P->val[k++] = P->work[P->pattern[x]] / lii; /* line 12 */
        }
        P->col_start[i + 1] = k;
        P->eta[i] = 1;
        if (kept > 0) {
            const int first = P->col_start[i] + 1;
            P->next_entry[i] = first;
            P->link[i] = P->head[P->row[first]];
            P->head[P->row[first]] = i;
        }
    }
    P->col_start[n] = k;
    return 0;
}

/* ---- the interface -------------------------------------------------------------- */

void heft_precond_count(const heft_precond *P, heft_solver_stats *stats) {
    stats->imaginary_columns = P->imaginary_columns;
    stats->imaginary_columns_sum += P->imaginary_columns;
    stats->preconditioned_columns_sum += P->n;
}

int heft_precond_compute(heft_precond *P, const heft_sparse_sym *a) {
    const int n = a->n;
    const size_t un = (size_t)n, nnz = (size_t)heft_sparse_sym_nnz(a);
    P->n = n;
    P->imaginary_columns = 0;
    P->shift = 0.0;
    P->attempts = 0;
    if (!HEFT_RESERVE(P->col_start, P->col_start_cap, un + 1) ||
        !HEFT_RESERVE(P->eta, P->eta_cap, un) || !HEFT_RESERVE(P->marker, P->marker_cap, un))
        return -1;
    if (P->kind == HEFT_PRECOND_JACOBI) {
        if (!HEFT_RESERVE(P->val, P->val_cap, un))
            return -1;
        for (int j = 0; j < n; ++j) {
            const double d = a->val[a->col_start[j]];
            P->val[j] = d > 0.0 ? 1.0 / d : 1.0;
        }
        P->attempts = 1;
        return 0;
    }
    if (P->kind == HEFT_PRECOND_ICT) {
        /* a column has at most n - 1 off-diagonals, so a larger fill (up to
         * INT_MAX, which the options allow) keeps them all; sized in size_t
         * so that no int arithmetic can overflow */
        size_t fill = P->ict_fill > 0 ? (size_t)P->ict_fill : 0;
        if (un > 0 && fill > un - 1)
            fill = un - 1;
        const size_t room = un * (fill + 1);
        if (!HEFT_RESERVE(P->row, P->row_cap, room) || !HEFT_RESERVE(P->val, P->val_cap, room) ||
            !HEFT_RESERVE(P->work, P->work_cap, un) ||
            !HEFT_RESERVE(P->pattern, P->pattern_cap, un) ||
            !HEFT_RESERVE(P->head, P->head_cap, un) || !HEFT_RESERVE(P->link, P->link_cap, un) ||
            !HEFT_RESERVE(P->next_entry, P->next_entry_cap, un))
            return -1;
    } else if (!HEFT_RESERVE(P->row, P->row_cap, nnz) || !HEFT_RESERVE(P->val, P->val_cap, nnz)) {
        return -1;
    }
    double gamma = 0.0;
    for (int attempt = 0; attempt < PRECOND_MAX_ATTEMPTS; ++attempt) {
        P->attempts++;
        int rc;
        if (P->kind == HEFT_PRECOND_ICT)
            rc = ict_factor(P, a, gamma);
        else
            rc = ic0_factor(P, a, gamma, P->kind == HEFT_PRECOND_IC0_IMAGINARY);
        if (rc == 0) {
            P->shift = gamma;
            return 0;
        }
        if (P->kind == HEFT_PRECOND_IC0)
            return 1;
        gamma = gamma == 0.0 ? PRECOND_FIRST_SHIFT : 2.0 * gamma; /* §4.1.2 */
    }
    return 1;
}

void heft_precond_apply(const heft_precond *P, const double *r, double *z) {
    const int n = P->n;
    if (P->kind == HEFT_PRECOND_JACOBI) {
        for (int i = 0; i < n; ++i)
            z[i] = P->val[i] * r[i];
        return;
    }
    /* Alg. 7: L y = r (forward, by columns), y_i *= eta_i, L^T z = y
     * (backward, by rows of L^T = columns of L) */
    memcpy(z, r, sizeof(double) * (size_t)n);
    for (int i = 0; i < n; ++i) {
        const int d0 = P->col_start[i];
        const double zi = z[i] / P->val[d0];
        z[i] = zi;
        for (int e = d0 + 1; e < P->col_start[i + 1]; ++e)
            z[P->row[e]] -= P->val[e] * zi;
    }
    for (int i = 0; i < n; ++i)
        z[i] *= P->eta[i];
    for (int i = n - 1; i >= 0; --i) {
        const int d0 = P->col_start[i];
        double zi = z[i];
        for (int e = d0 + 1; e < P->col_start[i + 1]; ++e)
            zi -= P->val[e] * z[P->row[e]];
        z[i] = zi / P->val[d0];
    }
}
