/* Heft: symmetric sparse matrices, compressed columns, lower triangle
 * (sparse_sym.h). */
#include "sparse_sym.h"

#include <string.h>

#include "row_math.h"
#include "workspace.h"

static int reserve_columns(heft_sparse_sym *a, int n, size_t nnz) {
    return HEFT_RESERVE(a->col_start, a->col_start_cap, (size_t)n + 1) &&
           HEFT_RESERVE(a->row, a->row_cap, nnz) && HEFT_RESERVE(a->val, a->val_cap, nnz);
}

/* Grows row/val to hold at least need entries, keeping the first used ones. */
static int grow_entries(heft_sparse_sym *a, size_t used, size_t need) {
    if (need <= a->row_cap && need <= a->val_cap)
        return 1;
    size_t cap = a->row_cap > 16 ? a->row_cap : 16;
    while (cap < need)
        cap *= 2;
    int *row = heft_alloc(cap * sizeof *row);
    double *val = heft_alloc(cap * sizeof *val);
    if (row == NULL || val == NULL) {
        heft_free(row);
        heft_free(val);
        return 0;
    }
    if (used > 0) {
        memcpy(row, a->row, used * sizeof *row);
        memcpy(val, a->val, used * sizeof *val);
    }
    heft_free(a->row);
    heft_free(a->val);
    a->row = row;
    a->val = val;
    a->row_cap = a->val_cap = cap;
    return 1;
}

static int from_dense(heft_sparse_sym *a, const heft_mlcp *p) {
    const int n = p->n;
    const size_t un = (size_t)n;
    size_t nnz = 0;
    for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i)
            nnz += i == j || p->A[(size_t)i * un + j] != 0.0;
    if (!reserve_columns(a, n, nnz))
        return -1;
    size_t k = 0;
    for (int j = 0; j < n; ++j) {
        a->col_start[j] = (int)k;
        for (int i = j; i < n; ++i) {
            const double v = p->A[(size_t)i * un + j];
            if (i == j || v != 0.0) {
                a->row[k] = i;
                a->val[k++] = v;
            }
        }
    }
    a->col_start[n] = (int)k;
    a->n = n;
    return 0;
}

static int valid_body(const heft_mlcp *p, int b) {
    return b >= 0 && b < p->nbodies;
}

static int from_structured(heft_sparse_sym *a, const heft_mlcp *p) {
    const int n = p->n, nb = p->nbodies;
    const size_t un = (size_t)n;
    if (!HEFT_RESERVE(a->acc, a->acc_cap, un) ||
        !HEFT_RESERVE(a->mark, a->mark_cap, un > (size_t)nb ? un : (size_t)nb) ||
        !HEFT_RESERVE(a->touched, a->touched_cap, un) ||
        !HEFT_RESERVE(a->response, a->response_cap, 12 * un) ||
        !HEFT_RESERVE(a->body_start, a->body_start_cap, (size_t)nb + 1) ||
        !HEFT_RESERVE(a->body_rows, a->body_rows_cap, 2 * un) ||
        !HEFT_RESERVE(a->col_start, a->col_start_cap, un + 1))
        return -1;
    /* rows touching each body, ascending (counting sort) */
    for (int b = 0; b <= nb; ++b)
        a->body_start[b] = 0;
    for (int i = 0; i < n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        if (valid_body(p, r->a))
            a->body_start[r->a + 1]++;
        if (valid_body(p, r->b) && r->b != r->a)
            a->body_start[r->b + 1]++;
        if (valid_body(p, r->a))
            heft_body_inverse_mass_times(&p->bodies[r->a], r->ja, &a->response[12 * (size_t)i]);
        else
            memset(&a->response[12 * (size_t)i], 0, 6 * sizeof(double));
        if (valid_body(p, r->b))
            heft_body_inverse_mass_times(&p->bodies[r->b], r->jb, &a->response[12 * (size_t)i + 6]);
        else
            memset(&a->response[12 * (size_t)i + 6], 0, 6 * sizeof(double));
    }
    for (int b = 0; b < nb; ++b)
        a->body_start[b + 1] += a->body_start[b];
    for (int b = 0; b < nb; ++b)
        a->mark[b] = 0;
    for (int i = 0; i < n; ++i) { /* mark[] as fill counters per body */
        const heft_mlcp_row *r = &p->rows[i];
        if (valid_body(p, r->a))
            a->body_rows[a->body_start[r->a] + a->mark[r->a]++] = i;
        if (valid_body(p, r->b) && r->b != r->a)
            a->body_rows[a->body_start[r->b] + a->mark[r->b]++] = i;
    }
    for (int i = 0; i < n; ++i) {
        a->mark[i] = -1;
        a->acc[i] = 0.0;
    }

    size_t k = 0;
    for (int j = 0; j < n; ++j) {
        const heft_mlcp_row *rj = &p->rows[j];
        const double *resp = &a->response[12 * (size_t)j];
        int count = 0;
        for (int side = 0; side < 2; ++side) {
            const int body = side == 0 ? rj->a : rj->b;
            if (!valid_body(p, body) || (side == 1 && body == rj->a))
                continue;
            for (int e = a->body_start[body]; e < a->body_start[body + 1]; ++e) {
                const int i = a->body_rows[e];
                if (i < j)
                    continue;
                const heft_mlcp_row *ri = &p->rows[i];
                double v = 0.0;
                /* J_i M^-1 J_j^T through this body: both sides of row i that
                 * sit on it, against row j's response on it */
                const double *rb = body == rj->a ? resp : resp + 6;
                if (ri->a == body)
                    for (int c = 0; c < 6; ++c)
                        v += ri->ja[c] * rb[c];
                if (ri->b == body)
                    for (int c = 0; c < 6; ++c)
                        v += ri->jb[c] * rb[c];
                if (a->mark[i] != j) {
                    a->mark[i] = j;
                    a->touched[count++] = i;
                    a->acc[i] = 0.0;
                }
                a->acc[i] += v;
            }
        }
        if (a->mark[j] != j) {
            a->mark[j] = j;
            a->touched[count++] = j;
            a->acc[j] = 0.0;
        }
        if (p->epsilon != NULL)
            a->acc[j] += p->epsilon[j];
        /* ascending rows, diagonal first (columns are short) */
        heft_sort_indices(a->touched, count);
        if (!grow_entries(a, k, k + (size_t)count))
            return -1;
        a->col_start[j] = (int)k;
        for (int x = 0; x < count; ++x) {
            const int i = a->touched[x];
            if (i != j && a->acc[i] == 0.0)
                continue;
            a->row[k] = i;
            a->val[k++] = a->acc[i];
        }
    }
    a->col_start[n] = (int)k;
    a->n = n;
    return 0;
}

int heft_sparse_sym_from_mlcp(heft_sparse_sym *a, const heft_mlcp *p) {
    if (p->n < 0)
        return -1;
    if (p->A != NULL)
        return from_dense(a, p);
    if (p->rows == NULL || p->nbodies <= 0)
        return -1;
    return from_structured(a, p);
}

int heft_sparse_sym_principal(const heft_sparse_sym *a, const unsigned char *keep,
                              const double *shift, heft_sparse_sym *out, int *local) {
    const int n = a->n;
    int f = 0;
    size_t nnz = 0;
    for (int i = 0; i < n; ++i)
        local[i] = keep[i] ? f++ : -1;
    for (int j = 0; j < n; ++j)
        if (keep[j])
            for (int e = a->col_start[j]; e < a->col_start[j + 1]; ++e)
                nnz += keep[a->row[e]] != 0;
    if (!reserve_columns(out, f, nnz))
        return -1;
    size_t k = 0;
    for (int j = 0; j < n; ++j) {
        if (!keep[j])
            continue;
        out->col_start[local[j]] = (int)k;
        for (int e = a->col_start[j]; e < a->col_start[j + 1]; ++e) {
            const int i = a->row[e];
            if (!keep[i])
                continue;
            out->row[k] = local[i];
            out->val[k++] = a->val[e] + (i == j && shift != NULL ? shift[j] : 0.0);
        }
    }
    out->col_start[f] = (int)k;
    out->n = f;
    return f;
}

void heft_sparse_sym_multiply(const heft_sparse_sym *a, const double *x, double *y) {
    const int n = a->n;
    for (int i = 0; i < n; ++i)
        y[i] = 0.0;
    for (int j = 0; j < n; ++j) {
        const double xj = x[j];
        double sum = 0.0;
        for (int e = a->col_start[j]; e < a->col_start[j + 1]; ++e) {
            const int i = a->row[e];
            const double v = a->val[e];
            if (i == j) {
                sum += v * xj;
            } else {
                y[i] += v * xj;
                sum += v * x[i];
            }
        }
        y[j] += sum;
    }
}

void heft_sparse_sym_release(heft_sparse_sym *a) {
    void *arrays[] = {a->col_start, a->row,     a->val,        a->acc,      a->response,
                      a->mark,      a->touched, a->body_start, a->body_rows};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
    memset(a, 0, sizeof *a);
}

int heft_sparse_full_from_sym(heft_sparse_full *f, const heft_sparse_sym *a) {
    const int n = a->n;
    const size_t nnz = (size_t)a->col_start[n];
    const size_t full = n > 0 ? 2 * nnz - (size_t)n : 1;
    if (!HEFT_RESERVE(f->col_start, f->col_start_cap, (size_t)n + 1) ||
        !HEFT_RESERVE(f->fill, f->fill_cap, (size_t)(n > 0 ? n : 1)) ||
        !HEFT_RESERVE(f->row, f->row_cap, full) || !HEFT_RESERVE(f->val, f->val_cap, full))
        return -1;
    f->n = n;
    for (int j = 0; j <= n; ++j)
        f->col_start[j] = 0;
    for (int j = 0; j < n; ++j)
        for (int q = a->col_start[j]; q < a->col_start[j + 1]; ++q) {
            const int i = a->row[q];
            f->col_start[j + 1]++;
            if (i != j)
                f->col_start[i + 1]++;
        }
    for (int j = 0; j < n; ++j) {
        f->col_start[j + 1] += f->col_start[j];
        f->fill[j] = f->col_start[j];
    }
    /* column by column: the rows above the diagonal arrive from earlier
     * columns in ascending order, then the column's own, ascending too */
    for (int j = 0; j < n; ++j)
        for (int q = a->col_start[j]; q < a->col_start[j + 1]; ++q) {
            const int i = a->row[q];
            const double v = a->val[q];
            f->row[f->fill[j]] = i;
            f->val[f->fill[j]++] = v;
            if (i != j) {
                f->row[f->fill[i]] = j;
                f->val[f->fill[i]++] = v;
            }
        }
    return 0;
}

void heft_sparse_full_release(heft_sparse_full *f) {
    heft_free(f->col_start);
    heft_free(f->row);
    heft_free(f->val);
    heft_free(f->fill);
    memset(f, 0, sizeof *f);
}
