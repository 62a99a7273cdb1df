/* Heft: downdating against refactoring, timed with the solvers' own kernels
 * (see downdate_break_even.h; [Lefebvre 2020] §2.2.2, Figure 2.4). */
#include "downdate_break_even.h"

#include <math.h>
#include <string.h>

#include "dense_cholesky.h"
#include "mlcp.h"
#include "skyline.h"

static uint64_t next_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform(uint64_t *state) {
    return (double)(next_random(state) >> 11) * 0x1.0p-53 * 2.0 - 1.0;
}

static void sort_times(double *t, int count) {
    for (int i = 1; i < count; ++i)
        for (int j = i; j > 0 && t[j] < t[j - 1]; --j) {
            const double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
}

static double median(double *t, int count) {
    sort_times(t, count);
    return count % 2 ? t[count / 2] : 0.5 * (t[count / 2 - 1] + t[count / 2]);
}

/* Everything one measurement needs, in one allocation. */
typedef struct bench_memory {
    double *A, *L0, *L, *fresh, *sigma, *times_down, *times_re;
    unsigned char *tight;
    int *last, *free_rows;
    size_t *start;
    void *block;
} bench_memory;

static int bench_alloc(bench_memory *b, int m, size_t stored, int reps) {
    const size_t um = (size_t)m, ur = (size_t)reps;
    const size_t doubles = 4 * stored + um + 2 * ur;
    const size_t bytes =
        doubles * sizeof(double) + (um + 1) * sizeof(size_t) + 2 * um * sizeof(int) + um + 16;
    unsigned char *mem = heft_alloc(bytes);
    if (mem == NULL)
        return -1;
    b->block = mem;
    double *d = (double *)mem;
    b->A = d;
    b->L0 = d + stored;
    b->L = d + 2 * stored;
    b->fresh = d + 3 * stored;
    b->sigma = d + 4 * stored;
    b->times_down = b->sigma + um;
    b->times_re = b->times_down + ur;
    b->start = (size_t *)(b->times_re + ur);
    b->last = (int *)(b->start + um + 1);
    b->free_rows = b->last + um;
    b->tight = (unsigned char *)(b->free_rows + um);
    return 0;
}

int heft_bench_downdate_vs_refactor(int m, double tight_fraction, int half_bandwidth,
                                    int repetitions, uint64_t seed, heft_downdate_timing *out) {
    if (m < 2 || repetitions < 1 || !(tight_fraction >= 0.0 && tight_fraction < 1.0) || out == NULL)
        return -1;
    const int dense = half_bandwidth < 0 || half_bandwidth >= m - 1;
    const int band = dense ? m - 1 : half_bandwidth;
    const size_t um = (size_t)m;
    size_t stored = 0;
    for (int k = 0; k < m; ++k)
        stored += (size_t)((k + band < m ? k + band : m - 1) - k) + 1;
    if (dense)
        stored = um * um; /* the dense kernels use the full square */
    bench_memory b;
    if (bench_alloc(&b, m, stored, repetitions) != 0)
        return -1;

    /* the matrix: random in the band, diagonally dominant */
    uint64_t rng = seed * 0x2545F4914F6CDD1Dull + 1;
    heft_skyline sky = {m, b.last, b.start, NULL};
    if (dense) {
        for (int r = 0; r < m; ++r)
            for (int c = 0; c < r; ++c)
                b.A[(size_t)r * um + c] = b.A[(size_t)c * um + r] = uniform(&rng);
        for (int r = 0; r < m; ++r) {
            double off = 0.0;
            for (int c = 0; c < m; ++c)
                off += c != r ? fabs(b.A[(size_t)r * um + c]) : 0.0;
            b.A[(size_t)r * um + r] = off + 1.0;
        }
    } else {
        for (int k = 0; k < m; ++k)
            b.last[k] = k + band < m ? k + band : m - 1;
        heft_skyline_layout(m, b.last, b.start);
        for (int k = 0; k < m; ++k)
            for (int r = k + 1; r <= b.last[k]; ++r)
                b.A[b.start[k] + (size_t)(r - k)] = uniform(&rng);
        for (int k = 0; k < m; ++k) {
            double off = 0.0;
            for (int r = k + 1; r <= b.last[k]; ++r)
                off += fabs(b.A[b.start[k] + (size_t)(r - k)]);
            for (int c = k - band > 0 ? k - band : 0; c < k; ++c)
                off += fabs(b.A[b.start[c] + (size_t)(k - c)]);
            b.A[b.start[k]] = off + 1.0;
        }
    }

    /* the tight set */
    int tight = (int)lround(tight_fraction * m);
    if (tight < 1)
        tight = 1;
    if (tight > m - 1)
        tight = m - 1;
    memset(b.tight, 0, um);
    for (int placed = 0; placed < tight;) {
        const int r = (int)(next_random(&rng) % um);
        if (!b.tight[r]) {
            b.tight[r] = 1;
            ++placed;
        }
    }
    int first = 0, f = 0;
    while (!b.tight[first])
        ++first;
    for (int r = 0; r < m; ++r)
        if (!b.tight[r])
            b.free_rows[f++] = r;

    /* L0, once: not part of either time (the solver has it before pivoting) */
    memcpy(b.L0, b.A, sizeof(double) * stored);
    const int ok = dense ? heft_dense_cholesky_factor(b.L0, m) == 0
                         : (sky.values = b.L0, heft_skyline_factor(sky, NULL) == 0);
    if (!ok) {
        heft_free(b.block);
        return -1;
    }
    memcpy(b.L, b.L0, sizeof(double) * stored);

    for (int rep = 0; rep < repetitions; ++rep) {
        /* downdate: L = L0 from the first changed column, then Alg. 2.3/2.5 */
        double t0 = heft_time_ms();
        if (dense) {
            heft_dense_cholesky_copy_columns(b.L, b.L0, m, first + 1);
            for (int r = first; r < m; ++r)
                if (b.tight[r])
                    heft_dense_cholesky_remove(b.L, m, r, b.sigma);
        } else {
            heft_skyline l = {m, b.last, b.start, b.L}, l0 = {m, b.last, b.start, b.L0};
            heft_skyline_copy_columns(l, l0, first + 1);
            for (int r = first; r < m; ++r)
                if (b.tight[r])
                    heft_skyline_remove(l, r, b.sigma);
        }
        b.times_down[rep] = heft_time_ms() - t0;

        /* refactor: what bpp does (gather A_FF, factor) or bpp-skyline past
         * its threshold (copy A, factor leaving the tight rows out) */
        t0 = heft_time_ms();
        if (dense) {
            for (int c = 0; c < f; ++c) {
                const double *Acol = &b.A[(size_t)b.free_rows[c] * um];
                double *Fcol = &b.fresh[(size_t)c * (size_t)f];
                for (int r = c; r < f; ++r)
                    Fcol[r] = Acol[b.free_rows[r]];
            }
            heft_dense_cholesky_factor(b.fresh, f);
        } else {
            memcpy(b.fresh, b.A, sizeof(double) * stored);
            heft_skyline s = {m, b.last, b.start, b.fresh};
            heft_skyline_factor(s, b.tight);
        }
        b.times_re[rep] = heft_time_ms() - t0;
    }

    /* the two factors of A_FF against each other */
    double diff = 0.0, scale = 0.0;
    for (int c = 0; c < f; ++c)
        for (int r = c; r < f; ++r) {
            const int gr = b.free_rows[r], gc = b.free_rows[c];
            double down, fresh;
            if (dense) {
                down = b.L[(size_t)gc * um + (size_t)gr];
                fresh = b.fresh[(size_t)c * (size_t)f + (size_t)r];
            } else {
                if (gr > b.last[gc])
                    continue;
                down = b.L[b.start[gc] + (size_t)(gr - gc)];
                fresh = b.fresh[b.start[gc] + (size_t)(gr - gc)];
            }
            diff = fmax(diff, fabs(down - fresh));
            scale = fmax(scale, fabs(fresh));
        }

    out->m = m;
    out->tight = tight;
    out->half_bandwidth = dense ? -1 : band;
    out->stored = stored;
    out->downdate_ms = median(b.times_down, repetitions);
    out->refactor_ms = median(b.times_re, repetitions);
    out->max_difference = scale > 0.0 ? diff / scale : 0.0;
    heft_free(b.block);
    return 0;
}
