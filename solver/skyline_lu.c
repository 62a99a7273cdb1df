/* Heft: the free rows' coupled system in two envelopes (skyline_lu.h). */
#include <math.h>

#include "skyline.h"
#include "skyline_lu.h"

heft_lu_env heft_lu_gather(const heft_lu_source *src, int kept, double *lower, double *upper,
                           unsigned char *out, const double *scale) {
    const int m = kept;
    heft_skyline_gather_kept(src->start, src->A, m, src->row, src->kept_last, src->kept_start,
                             lower);
    heft_skyline_gather_kept(src->start, src->A, m, src->row, src->kept_last, src->kept_start,
                             upper);
    for (int k = 0; k < m; ++k)
        out[k] = 0;
    const heft_lu_env e = {m, src->kept_last, src->kept_start, lower, upper, out, scale};
    return e;
}

void heft_lu_scales(const heft_lu_source *src, const heft_lu_env *e, double *scale) {
    for (int k = 0; k < e->m; ++k)
        scale[k] = fmax(fabs(e->lower[e->start[k]]), src->A[src->start[src->row[k]]]);
}

/* M[i][j] += v for kept rows i and j (A's order), in the kept rows'
 * envelope; 0 when (i, j) lies outside A's envelope, which on two kept rows
 * is outside theirs too. */
static int add_entry(const heft_lu_source *src, const heft_lu_env *e, int i, int j, double v) {
    const int *last = src->last, *kept = src->prev;
    const int ki = kept[i], kj = kept[j];
    if (i >= j) {
        if (i > last[j])
            return 0;
        e->lower[src->kept_start[kj] + (size_t)(ki - kj)] += v;
    } else {
        if (j > last[i])
            return 0;
        e->upper[src->kept_start[ki] + (size_t)(kj - ki)] += v;
    }
    return 1;
}

int heft_lu_couple(const heft_lu_source *src, const heft_lu_env *e, int t, int f, double kappa) {
    const int *last = src->last;
    const size_t *start = src->start;
    int dropped = 0;
    for (int r = heft_skyline_first_reaching(last, t); r < t; ++r) {
        const double a = src->A[start[r] + (size_t)(t - r)];
        if (a != 0.0 && !src->out_A[r] && !add_entry(src, e, r, f, kappa * a))
            ++dropped;
    }
    for (int r = t; r <= last[t]; ++r) {
        const double a = src->A[start[t] + (size_t)(r - t)];
        if (a != 0.0 && !src->out_A[r] && !add_entry(src, e, r, f, kappa * a))
            ++dropped;
    }
    return dropped;
}

/* y[u] -= a[u] b for u in [from, to] (a and y apart, so vector loops) */
static inline void sub_scaled(double *restrict y, const double *restrict a, double b, int from,
                              int to) {
    if (b != 0.0)
        for (int u = from; u <= to; ++u)
            y[u] -= a[u] * b;
}

/* y[u] -= a[u] b, then y[u] -= c[u] d, each entry in that order, for u in
 * [from, to]: two pivots' updates in one pass over y, rounded as one after
 * the other */
static inline void sub_scaled2(double *restrict y, const double *restrict a, double b,
                               const double *restrict c, double d, int from, int to) {
    if (b == 0.0 || d == 0.0) {
        sub_scaled(y, a, b, from, to);
        sub_scaled(y, c, d, from, to);
        return;
    }
    for (int u = from; u <= to; ++u) {
        double v = y[u] - a[u] * b;
        y[u] = v - c[u] * d;
    }
}

/* Pivot k's first step, when it passes: checks the pivot, scales column k
 * of L. Returns 1 when k is a pivot, 0 when it was dropped as dependent
 * (out[k] = 2), -1 on a non-finite pivot. */
static int take_pivot(const heft_lu_env *e, int k, double dependent) {
    double *lk = e->lower + e->start[k];
    const double pivot = lk[0];
    if (!isfinite(pivot))
        return -1;
    if (!(fabs(pivot) > dependent * e->scale[k])) {
        e->out[k] = 2;
        return 0;
    }
    const int len = e->last[k] - k;
    const double inv = 1.0 / pivot;
    for (int t = 1; t <= len; ++t)
        lk[t] *= inv;
    return 1;
}

/* Right-looking: pivot k updates column c of L (rows c..s_k) by
 * -L[r][k] U[k][c] and row c of U (columns c+1..s_k) by -L[c][k] U[k][r].
 * Two pivots k, k + 1 are taken together where both are kept: their
 * updates of a column or row go in one pass, each entry still updated by
 * k and then by k + 1, so the factor is the same to the bit as one pivot
 * at a time and the columns are read and written half as often. Column k
 * of L and row k of U are read only, and every column and row written
 * lies past them (restrict). */
int heft_lu_factor(const heft_lu_env *e, double dependent) {
    const int m = e->m;
    const int *last = e->last;
    const size_t *start = e->start;
    int dropped = 0;
    for (int k = 0; k < m; ++k) {
        if (e->out[k])
            continue;
        const int taken = take_pivot(e, k, dependent);
        if (taken < 0)
            return -1;
        if (taken == 0) {
            ++dropped;
            continue;
        }
        const double *lk = e->lower + start[k];
        const double *uk = e->upper + start[k];
        const int sk = last[k];
        int k1 = k + 1, pair = 0;
        if (k1 < m && k1 <= sk && !e->out[k1]) {
            /* pivot k's update of column and row k + 1, then pivot k + 1 */
            sub_scaled(e->lower + start[k1], lk + 1, uk[1], 0, sk - k1);
            sub_scaled(e->upper + start[k1], uk + 1, lk[1], 1, sk - k1);
            const int taken1 = take_pivot(e, k1, dependent);
            if (taken1 < 0)
                return -1;
            dropped += taken1 == 0;
            pair = taken1 == 1;
        }
        if (!pair) {
            /* pivot k alone (a k + 1 dropped above is out, so skipped) */
            for (int c = k + 1; c <= sk; ++c) {
                if (e->out[c])
                    continue;
                const int t = c - k;
                sub_scaled(e->lower + start[c], lk + t, uk[t], 0, sk - c);
                sub_scaled(e->upper + start[c], uk + t, lk[t], 1, sk - c);
            }
            continue;
        }
        const double *l1 = e->lower + start[k1];
        const double *u1 = e->upper + start[k1];
        const int s1 = last[k1]; /* >= sk: the skyline only grows */
        for (int c = k1 + 1; c <= s1; ++c) {
            if (e->out[c])
                continue;
            double *lc = e->lower + start[c];
            double *uc = e->upper + start[c];
            const int t1 = c - k1;
            if (c <= sk) {
                const int t = c - k;
                sub_scaled2(lc, lk + t, uk[t], l1 + t1, u1[t1], 0, sk - c);
                sub_scaled(lc, l1 + t1, u1[t1], sk - c + 1, s1 - c);
                sub_scaled2(uc, uk + t, lk[t], u1 + t1, l1[t1], 1, sk - c);
                sub_scaled(uc, u1 + t1, l1[t1], sk - c + 1 > 1 ? sk - c + 1 : 1, s1 - c);
            } else {
                sub_scaled(lc, l1 + t1, u1[t1], 0, s1 - c);
                sub_scaled(uc, u1 + t1, l1[t1], 1, s1 - c);
            }
        }
        k = k1;
    }
    return dropped;
}

void heft_lu_substitute(const heft_lu_env *e, double *x) {
    const int m = e->m;
    const int *last = e->last;
    const size_t *start = e->start;
    for (int k = 0; k < m; ++k) {
        if (e->out[k]) {
            x[k] = 0.0;
            continue;
        }
        const double xk = x[k];
        if (xk == 0.0)
            continue;
        const double *lk = e->lower + start[k];
        for (int t = 1; t <= last[k] - k; ++t)
            x[k + t] -= lk[t] * xk;
    }
    for (int k = m - 1; k >= 0; --k) {
        if (e->out[k])
            continue;
        const double *uk = e->upper + start[k];
        double sum = x[k];
        for (int t = 1; t <= last[k] - k; ++t)
            sum -= uk[t] * x[k + t];
        x[k] = sum / e->lower[start[k]];
    }
}
