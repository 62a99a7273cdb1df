/* Heft: skyline (envelope) storage, its LL^T factorization, the downdate of
 * Alg. 2.5 and the solve of Alg. 2.6 ([Lefebvre 2020] §2.2.3). See skyline.h for
 * the layout: column k holds rows k..s_k contiguously. */
#include "skyline.h"

#include <math.h>
#include <string.h>

size_t heft_skyline_layout(int m, const int *last, size_t *start) {
    size_t total = 0;
    int previous = 0;
    for (int k = 0; k < m; ++k) {
        if (last[k] < k || last[k] >= m || last[k] < previous)
            return 0;
        previous = last[k];
        start[k] = total;
        total += (size_t)(last[k] - k) + 1;
    }
    start[m] = total;
    return total;
}

int heft_skyline_kept(int m, const int *last, const unsigned char *removed, int *row, int *prev,
                      int *kept_last, size_t *kept_start) {
    int kept = 0;
    for (int r = 0; r < m; ++r) {
        if (!removed[r])
            row[kept++] = r;
        prev[r] = kept - 1;
    }
    kept_start[0] = 0;
    for (int k = 0; k < kept; ++k) {
        kept_last[k] = prev[last[row[k]]];
        kept_start[k + 1] = kept_start[k] + (size_t)(kept_last[k] - k) + 1;
    }
    return kept;
}

void heft_skyline_gather_kept(const size_t *start, const double *from, int kept, const int *row,
                              const int *kept_last, const size_t *kept_start, double *to) {
    for (int k = 0; k < kept; ++k) {
        const double *src = from + start[row[k]];
        double *dst = to + kept_start[k];
        for (int j = k; j <= kept_last[k]; ++j)
            dst[j - k] = src[row[j] - row[k]];
    }
}

void heft_skyline_scatter_kept(const int *last, const size_t *start, int kept, const int *row,
                               const int *prev, const size_t *kept_start, double *values) {
    /* backwards: every entry moves to a place at or after its own, and a
     * removed row's zero lands past every entry not yet read */
    for (int k = kept - 1; k >= 0; --k) {
        const int r = row[k];
        const double *src = values + kept_start[k];
        double *dst = values + start[r];
        for (int q = last[r]; q >= r; --q) {
            const int j = prev[q];
            dst[q - r] = row[j] == q ? src[j - k] : 0.0;
        }
    }
}

size_t heft_skyline_room(int m, const int *last, size_t stored, size_t cap) {
    if (stored <= cap)
        return stored;
    int tallest = 0;
    for (int k = 0; k < m; ++k)
        tallest = last[k] - k + 1 > tallest ? last[k] - k + 1 : tallest;
    const size_t band = (size_t)m * (size_t)tallest;
    return band > stored ? band : stored;
}

static inline double *column(heft_skyline s, int k) {
    return &s.values[s.start[k]];
}

/* y[u] -= x[u] a for u < n: each entry on its own, so two at a time with
 * SSE2 gives the bits of one at a time (a product, then a difference, no
 * fused multiply-add). It is the inner loop of the factorization and of the
 * forward substitution. y and x do not overlap. */
#if defined(__SSE2__)
#include <emmintrin.h>

static inline void subtract_scaled(double *restrict y, const double *restrict x, double a, int n) {
    const __m128d va = _mm_set1_pd(a);
    int u = 0;
    for (; u + 2 <= n; u += 2)
        _mm_storeu_pd(y + u, _mm_sub_pd(_mm_loadu_pd(y + u), _mm_mul_pd(_mm_loadu_pd(x + u), va)));
    if (u < n)
        y[u] -= x[u] * a;
}
#else
static inline void subtract_scaled(double *restrict y, const double *restrict x, double a, int n) {
    for (int u = 0; u < n; ++u)
        y[u] -= x[u] * a;
}
#endif

/* y[u] = (y[u] - x1[u] a1) - x2[u] a2 for u < n: two columns' updates in
 * one pass, each product and difference rounded as when the columns come
 * one after the other. */
#if defined(__SSE2__)
static inline void subtract_scaled2(double *restrict y, const double *restrict x1, double a1,
                                    const double *restrict x2, double a2, int n) {
    const __m128d v1 = _mm_set1_pd(a1), v2 = _mm_set1_pd(a2);
    int u = 0;
    for (; u + 2 <= n; u += 2) {
        __m128d v = _mm_sub_pd(_mm_loadu_pd(y + u), _mm_mul_pd(_mm_loadu_pd(x1 + u), v1));
        _mm_storeu_pd(y + u, _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(x2 + u), v2)));
    }
    if (u < n)
        y[u] = (y[u] - x1[u] * a1) - x2[u] * a2;
}
#else
static inline void subtract_scaled2(double *restrict y, const double *restrict x1, double a1,
                                    const double *restrict x2, double a2, int n) {
    for (int u = 0; u < n; ++u)
        y[u] = (y[u] - x1[u] * a1) - x2[u] * a2;
}
#endif

/* y[u] *= a for u < n, two entries at a time (a product each: the bits of
 * one at a time) */
#if defined(__SSE2__)
static inline void scale_entries(double *y, double a, int n) {
    const __m128d va = _mm_set1_pd(a);
    int u = 0;
    for (; u + 2 <= n; u += 2)
        _mm_storeu_pd(y + u, _mm_mul_pd(_mm_loadu_pd(y + u), va));
    if (u < n)
        y[u] *= a;
}
#else
static inline void scale_entries(double *y, double a, int n) {
    for (int u = 0; u < n; ++u)
        y[u] *= a;
}
#endif

/* Column k, every update received: L_kk = sqrt of the pivot and the rest of
 * the column divided by it. Returns 0, or k + 1 when the pivot is not
 * positive and finite. */
static inline int finish_column(heft_skyline s, int k) {
    double *ck = column(s, k);
    const double pivot = ck[0];
    if (!(pivot > 0.0) || !isfinite(pivot))
        return k + 1;
    const double lkk = sqrt(pivot);
    ck[0] = lkk;
    scale_entries(ck + 1, 1.0 / lkk, s.last[k] - k);
    return 0;
}

/* y[u] = (((y[u] - x0[u] a0) - x1[u] a1) - x2[u] a2) - x3[u] a3 and the
 * same with three sources: the updates of a panel's columns in one pass,
 * each product and difference rounded as when the columns come one after
 * the other. */
#if defined(__SSE2__)
static inline void subtract_scaled4(double *restrict y, const double *restrict x0, double a0,
                                    const double *restrict x1, double a1, const double *restrict x2,
                                    double a2, const double *restrict x3, double a3, int n) {
    const __m128d v0 = _mm_set1_pd(a0), v1 = _mm_set1_pd(a1), v2 = _mm_set1_pd(a2),
                  v3 = _mm_set1_pd(a3);
    int u = 0;
    for (; u + 2 <= n; u += 2) {
        __m128d v = _mm_sub_pd(_mm_loadu_pd(y + u), _mm_mul_pd(_mm_loadu_pd(x0 + u), v0));
        v = _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(x1 + u), v1));
        v = _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(x2 + u), v2));
        _mm_storeu_pd(y + u, _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(x3 + u), v3)));
    }
    if (u < n)
        y[u] = (((y[u] - x0[u] * a0) - x1[u] * a1) - x2[u] * a2) - x3[u] * a3;
}

static inline void subtract_scaled3(double *restrict y, const double *restrict x0, double a0,
                                    const double *restrict x1, double a1, const double *restrict x2,
                                    double a2, int n) {
    const __m128d v0 = _mm_set1_pd(a0), v1 = _mm_set1_pd(a1), v2 = _mm_set1_pd(a2);
    int u = 0;
    for (; u + 2 <= n; u += 2) {
        __m128d v = _mm_sub_pd(_mm_loadu_pd(y + u), _mm_mul_pd(_mm_loadu_pd(x0 + u), v0));
        v = _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(x1 + u), v1));
        _mm_storeu_pd(y + u, _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(x2 + u), v2)));
    }
    if (u < n)
        y[u] = ((y[u] - x0[u] * a0) - x1[u] * a1) - x2[u] * a2;
}
#else
static inline void subtract_scaled4(double *restrict y, const double *restrict x0, double a0,
                                    const double *restrict x1, double a1, const double *restrict x2,
                                    double a2, const double *restrict x3, double a3, int n) {
    for (int u = 0; u < n; ++u)
        y[u] = (((y[u] - x0[u] * a0) - x1[u] * a1) - x2[u] * a2) - x3[u] * a3;
}

static inline void subtract_scaled3(double *restrict y, const double *restrict x0, double a0,
                                    const double *restrict x1, double a1, const double *restrict x2,
                                    double a2, int n) {
    for (int u = 0; u < n; ++u)
        y[u] = ((y[u] - x0[u] * a0) - x1[u] * a1) - x2[u] * a2;
}
#endif

/* subtract_scaled4 four entries at a time where the processor has AVX:
 * the target attribute enables AVX alone, so the compiler cannot fuse a
 * product and a difference into an FMA, and each entry gets the same
 * product and differences in the same order (the same bits). The factor
 * of a pyramid's K spends most of its time here. */
#if defined(__x86_64__) && defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#define SKYLINE_AVX 1
#include <immintrin.h>

__attribute__((target("avx"))) static inline void
subtract_scaled4_avx(double *restrict y, const double *restrict x0, double a0,
                     const double *restrict x1, double a1, const double *restrict x2, double a2,
                     const double *restrict x3, double a3, int n) {
    const __m256d v0 = _mm256_set1_pd(a0), v1 = _mm256_set1_pd(a1), v2 = _mm256_set1_pd(a2),
                  v3 = _mm256_set1_pd(a3);
    int u = 0;
    for (; u + 4 <= n; u += 4) {
        __m256d v =
            _mm256_sub_pd(_mm256_loadu_pd(y + u), _mm256_mul_pd(_mm256_loadu_pd(x0 + u), v0));
        v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(x1 + u), v1));
        v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(x2 + u), v2));
        _mm256_storeu_pd(y + u, _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(x3 + u), v3)));
    }
    /* the registers' upper halves given back unused before any SSE2 code
     * runs (tests/test_body_space_lu.c says why) */
    _mm256_zeroupper();
    for (; u < n; ++u)
        y[u] = (((y[u] - x0[u] * a0) - x1[u] * a1) - x2[u] * a2) - x3[u] * a3;
}
#endif

typedef void subtract_scaled4_fn(double *restrict y, const double *restrict x0, double a0,
                                 const double *restrict x1, double a1, const double *restrict x2,
                                 double a2, const double *restrict x3, double a3, int n);

/* The columns of a panel: up to four kept columns in a row. */
#define PANEL 4

/* Column c's updates from the panel's sources i = from..count-1 (columns
 * k + i, every one reaching c), on rows c..s_{k+i}: the source's entries
 * from x[i], its multiplier L(c, k + i) in a[i]. The reaches do not
 * decrease with i, so row c + u gets the updates of the sources whose reach
 * passes u, a suffix of them, in ascending order: the order of one column
 * at a time. A zero multiplier is no update (as one column at a time skips
 * it): then the sources go one by one. */
static inline void panel_update(double *y, const double *const *x, const double *a, const int *n,
                                int from, int count) {
    int zero = 0;
    for (int i = from; i < count; ++i)
        zero |= a[i] == 0.0;
    if (zero || count - from == 1) {
        for (int i = from; i < count; ++i)
            if (a[i] != 0.0)
                subtract_scaled(y, x[i], a[i], n[i]);
        return;
    }
    int done = 0, i = from;
    /* the rows every remaining source reaches, in one pass */
    while (i < count) {
        const int upto = n[i];
        const int len = upto - done;
        if (len > 0) {
            double *yy = y + done;
            switch (count - i) {
            case 4:
                subtract_scaled4(yy, x[i] + done, a[i], x[i + 1] + done, a[i + 1], x[i + 2] + done,
                                 a[i + 2], x[i + 3] + done, a[i + 3], len);
                break;
            case 3:
                subtract_scaled3(yy, x[i] + done, a[i], x[i + 1] + done, a[i + 1], x[i + 2] + done,
                                 a[i + 2], len);
                break;
            case 2:
                subtract_scaled2(yy, x[i] + done, a[i], x[i + 1] + done, a[i + 1], len);
                break;
            default:
                subtract_scaled(yy, x[i] + done, a[i], len);
                break;
            }
            done = upto;
        }
        ++i;
    }
}

/* Right-looking Cholesky inside the envelope. Column k updates the columns
 * c in (k, s_k] on rows c..s_k; s_k <= s_c because s is nondecreasing, so
 * every update lands inside column c's storage. A removed column does no
 * update and a removed target column is not updated: the kept entries are
 * then exactly the factor of A_FF (the removed variables take no part).
 *
 * Up to four kept columns k..k+3 at a time (a panel): each is finished
 * after the updates of the panel's columns before it, then every later
 * column gets the panel's updates in one pass (k's, then k + 1's, ...:
 * each entry's order of one column at a time, so the bits are the same).
 * A pass costs a load and a store of the target's entries and a test or
 * two whatever the number of sources, and the columns are short (12 to 23
 * entries on a stack of boxes): four sources a pass take a quarter of the
 * passes. */
static inline __attribute__((always_inline)) int
factor_panels(heft_skyline s, const unsigned char *removed, subtract_scaled4_fn *four) {
    int k = 0;
    while (k < s.m) {
        if (removed != NULL && removed[k]) {
            ++k;
            continue;
        }
        int w = 1;
        while (w < PANEL && k + w < s.m && !(removed != NULL && removed[k + w]))
            ++w;
        const double *x[PANEL];
        double a[PANEL];
        int n[PANEL];
        /* inside the panel: column k + q gets the updates of k..k+q-1 */
        for (int q = 0; q < w; ++q) {
            const int c = k + q;
            double *cc = column(s, c);
            for (int i = 0; i < q; ++i) {
                const int src = k + i;
                if (s.last[src] < c)
                    continue;
                const double *cs = column(s, src);
                const double lcs = cs[c - src];
                if (lcs != 0.0)
                    subtract_scaled(cc, cs + (c - src), lcs, s.last[src] - c + 1);
            }
            const int rc = finish_column(s, c);
            if (rc != 0)
                return rc;
        }
        /* the later columns within the panel's reach */
        const int end = s.last[k + w - 1];
        int from = 0, c = k + w;
        if (w == PANEL) {
            /* the columns every source reaches, each multiplier nonzero:
             * one pass over the rows all four reach, then the rows of the
             * longer sources (no gathering into arrays: the columns are
             * short, and that bookkeeping cost as much as the updates) */
            const double *c0 = column(s, k), *c1 = column(s, k + 1), *c2 = column(s, k + 2),
                         *c3 = column(s, k + 3);
            const int l0 = s.last[k], l1 = s.last[k + 1], l2 = s.last[k + 2], l3 = s.last[k + 3];
            for (; c <= l0; ++c) {
                if (removed != NULL && removed[c])
                    continue;
                const int t = c - k;
                const double a0 = c0[t], a1 = c1[t - 1], a2 = c2[t - 2], a3 = c3[t - 3];
                double *cc = column(s, c);
                if (a0 != 0.0 && a1 != 0.0 && a2 != 0.0 && a3 != 0.0) {
                    const int n0 = l0 - c + 1;
                    four(cc, c0 + t, a0, c1 + t - 1, a1, c2 + t - 2, a2, c3 + t - 3, a3, n0);
                    if (l3 > l0) {
                        const int n1 = l1 - c + 1, n2 = l2 - c + 1, n3 = l3 - c + 1;
                        subtract_scaled3(cc + n0, c1 + t - 1 + n0, a1, c2 + t - 2 + n0, a2,
                                         c3 + t - 3 + n0, a3, n1 - n0);
                        subtract_scaled2(cc + n1, c2 + t - 2 + n1, a2, c3 + t - 3 + n1, a3,
                                         n2 - n1);
                        subtract_scaled(cc + n2, c3 + t - 3 + n2, a3, n3 - n2);
                    }
                    continue;
                }
                const double *xs[PANEL] = {c0 + t, c1 + t - 1, c2 + t - 2, c3 + t - 3};
                const double as[PANEL] = {a0, a1, a2, a3};
                const int ns[PANEL] = {l0 - c + 1, l1 - c + 1, l2 - c + 1, l3 - c + 1};
                panel_update(cc, xs, as, ns, 0, PANEL);
            }
        }
        for (; c <= end; ++c) {
            while (s.last[k + from] < c) /* the sources reaching c: a suffix */
                ++from;
            if (removed != NULL && removed[c])
                continue;
            for (int i = from; i < w; ++i) {
                const double *cs = column(s, k + i);
                x[i] = cs + (c - k - i);
                a[i] = x[i][0];
                n[i] = s.last[k + i] - c + 1;
            }
            panel_update(column(s, c), x, a, n, from, w);
        }
        k += w;
    }
    return 0;
}

static int factor_sse2(heft_skyline s, const unsigned char *removed) {
    return factor_panels(s, removed, subtract_scaled4);
}

#if defined(SKYLINE_AVX)
__attribute__((target("avx"))) static int factor_avx(heft_skyline s, const unsigned char *removed) {
    return factor_panels(s, removed, subtract_scaled4_avx);
}
#endif

int heft_skyline_factor_wide(heft_skyline s, const unsigned char *removed, int wide) {
#if defined(SKYLINE_AVX)
    if (wide && __builtin_cpu_supports("avx"))
        return factor_avx(s, removed);
#else
    (void)wide;
#endif
    return factor_sse2(s, removed);
}

int heft_skyline_factor(heft_skyline s, const unsigned char *removed) {
    return heft_skyline_factor_wide(s, removed, 1);
}

/* Alg. 2.5: the downdate of Alg. 2.3 with every column update cut at the
 * skyline (lines 12-16 run on rows k+1..s_k only). sigma starts as
 * L(i+1..s_i, i) (line 3) and after column k it can be nonzero only up to
 * s_k (s is nondecreasing), so the loop over k (line 4) stops at the first
 * column past the reach of sigma instead of running to m. The old column is
 * scaled by sqrt(z) / y as in heft_dense_cholesky_remove (see the note on
 * line 16 there). */
int heft_skyline_remove(heft_skyline s, int i, double *sigma) {
    const double *ci = column(s, i);
    int reach = s.last[i]; /* sigma is zero past this row */
    for (int r = i + 1; r <= reach; ++r)
        sigma[r] = ci[r - i];
    double beta = 1.0;
    int finite = 1;
    for (int k = i + 1; k <= reach; ++k) {
        const double x = sigma[k];
        if (x == 0.0)
            continue;
        double *ck = column(s, k);
        const int end = s.last[k];
        while (reach < end) /* sigma grows into rows it has not touched yet */
            sigma[++reach] = 0.0;
        const double y = ck[0];
        const double z = y * y + x * x / beta;
        const double gamma = beta * y * y + x * x;
        const double root = sqrt(z);
        ck[0] = root;
        beta += (x * x) / (y * y);
        const double along = x / y, scale = root / y, mix = root * x / gamma;
        for (int r = k + 1; r <= end; ++r) {
            double *l = &ck[r - k];
            sigma[r] -= along * *l;
            *l = scale * *l + mix * sigma[r];
        }
        finite = finite && isfinite(root) && isfinite(beta);
    }
    return finite ? 0 : -1;
}

/* sum over t < n of c[t] y[t], the backward substitution's inner product,
 * in four running sums (t = 0, 1, 2, 3 mod 4; the last n mod 4 terms go to
 * the first), then (s0 + s2) + (s1 + s3): with one running sum each row
 * waited on the latency of every addition. The four sums are two SSE2
 * registers and give the bits of the plain loops below. */
#if defined(__SSE2__)
static inline double column_dot(const double *c, const double *y, int n) {
    __m128d a = _mm_setzero_pd(), b = _mm_setzero_pd();
    int t = 0;
    for (; t + 4 <= n; t += 4) {
        a = _mm_add_pd(a, _mm_mul_pd(_mm_loadu_pd(c + t), _mm_loadu_pd(y + t)));
        b = _mm_add_pd(b, _mm_mul_pd(_mm_loadu_pd(c + t + 2), _mm_loadu_pd(y + t + 2)));
    }
    double sa[2], sb[2];
    _mm_storeu_pd(sa, a);
    _mm_storeu_pd(sb, b);
    double s0 = sa[0];
    for (; t < n; ++t)
        s0 += c[t] * y[t];
    return (s0 + sb[0]) + (sa[1] + sb[1]);
}
#else
static inline double column_dot(const double *c, const double *y, int n) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int t = 0;
    for (; t + 4 <= n; t += 4) {
        s0 += c[t] * y[t];
        s1 += c[t + 1] * y[t + 1];
        s2 += c[t + 2] * y[t + 2];
        s3 += c[t + 3] * y[t + 3];
    }
    for (; t < n; ++t)
        s0 += c[t] * y[t];
    return (s0 + s2) + (s1 + s3);
}
#endif

/* Alg. 2.6: lines 3-10 (forward) and 11-18 (backward), the sets F* cut at
 * the skyline (x > i and x <= s_i). As in the dense solve, removed entries of
 * x are zeroed before the backward pass so a column can be used whole. The
 * backward pass multiplies by the pivot's reciprocal, which does not wait
 * on the row before (a division did, and the two divisions a row were a
 * third of a solve on the 1,000 boxes' stacks). */
void heft_skyline_solve(heft_skyline s, const unsigned char *removed, double *x) {
    const int m = s.m;
    for (int i = 0; i < m; ++i) {
        if (removed != NULL && removed[i])
            continue;
        const double *ci = column(s, i);
        const double xi = x[i] / ci[0];
        x[i] = xi;
        if (xi == 0.0)
            continue;
        subtract_scaled(x + i + 1, ci + 1, xi, s.last[i] - i);
    }
    if (removed != NULL)
        for (int i = 0; i < m; ++i)
            if (removed[i])
                x[i] = 0.0;
    for (int i = m - 1; i >= 0; --i) {
        if (removed != NULL && removed[i])
            continue;
        const double *ci = column(s, i);
        x[i] = (x[i] - column_dot(ci + 1, x + i + 1, s.last[i] - i)) * (1.0 / ci[0]);
    }
}

/* y += column k's part of A x: the lower entries' products summed into
 * y[k] in order, the upper ones added to the later rows. */
static inline void multiply_column(heft_skyline s, int k, const double *x, double *y) {
    const double *ck = column(s, k);
    const int len = s.last[k] - k;
    const double xk = x[k];
    double yk = ck[0] * xk;
    for (int t = 1; t <= len; ++t) {
        yk += ck[t] * x[k + t];
        y[k + t] += ck[t] * xk;
    }
    y[k] += yk;
}

/* Columns two at a time: each column's sum into y[k] is a chain of
 * additions that waits on the one before, and two chains side by side
 * take the time of one. Every y[j] still gets column k's term before
 * column k + 1's, and each sum is taken in the same order, so y is the
 * same to the bit as one column at a time (the skyline's last rows do
 * not decrease: column k + 1 reaches at least as far as column k). */
void heft_skyline_multiply(heft_skyline s, const double *x, double *y) {
    const int m = s.m;
    for (int k = 0; k < m; ++k)
        y[k] = 0.0;
    int k = 0;
    for (; k + 1 < m; k += 2) {
        const double *c0 = column(s, k), *c1 = column(s, k + 1);
        const int last0 = s.last[k], last1 = s.last[k + 1];
        if (last0 < k + 1) { /* column k holds its diagonal alone */
            multiply_column(s, k, x, y);
            multiply_column(s, k + 1, x, y);
            continue;
        }
        const double x0 = x[k], x1 = x[k + 1];
        double y0 = c0[0] * x0;
        y0 += c0[1] * x1;
        y[k + 1] += c0[1] * x0;
        double y1 = c1[0] * x1;
        int j = k + 2;
#if defined(__SSE2__)
        /* two rows j, j + 1 at a time: y[j] and y[j + 1] side by side, and
         * the two sums y0, y1 side by side, each lane's products and
         * additions in the scalar loop's order */
        {
            const __m128d vx0 = _mm_set1_pd(x0), vx1 = _mm_set1_pd(x1);
            __m128d sums = _mm_set_pd(y1, y0);
            for (; j + 1 <= last0; j += 2) {
                const __m128d a0 = _mm_loadu_pd(c0 + (j - k)), a1 = _mm_loadu_pd(c1 + (j - k - 1));
                const __m128d xj = _mm_loadu_pd(x + j);
                __m128d yj = _mm_loadu_pd(y + j);
                yj = _mm_add_pd(yj, _mm_mul_pd(a0, vx0));
                _mm_storeu_pd(y + j, _mm_add_pd(yj, _mm_mul_pd(a1, vx1)));
                sums =
                    _mm_add_pd(sums, _mm_mul_pd(_mm_unpacklo_pd(a0, a1), _mm_unpacklo_pd(xj, xj)));
                sums =
                    _mm_add_pd(sums, _mm_mul_pd(_mm_unpackhi_pd(a0, a1), _mm_unpackhi_pd(xj, xj)));
            }
            double two[2];
            _mm_storeu_pd(two, sums);
            y0 = two[0];
            y1 = two[1];
        }
#endif
        for (; j <= last0; ++j) {
            const double a0 = c0[j - k], a1 = c1[j - k - 1], xj = x[j];
            y0 += a0 * xj;
            y1 += a1 * xj;
            y[j] += a0 * x0;
            y[j] += a1 * x1;
        }
        for (; j <= last1; ++j) {
            const double a1 = c1[j - k - 1];
            y1 += a1 * x[j];
            y[j] += a1 * x1;
        }
        y[k] += y0;
        y[k + 1] += y1;
    }
    if (k < m)
        multiply_column(s, k, x, y);
}

void heft_skyline_copy_columns(heft_skyline dst, heft_skyline src, int first) {
    if (first < 0)
        first = 0;
    if (first >= src.m)
        return;
    const size_t from = src.start[first], to = src.start[src.m];
    memcpy(&dst.values[from], &src.values[from], sizeof(double) * (to - from));
}

int heft_skyline_first_reaching(const int *last, int k) {
    int lo = 0, hi = k;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (last[mid] >= k)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}
