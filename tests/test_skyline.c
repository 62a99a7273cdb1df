/* Tests of the skyline storage and kernels (solver/skyline.h: [Lefebvre 2020]
 * §2.2.3, Alg. 2.5 and 2.6) and of the reverse Cuthill-McKee ordering that
 * produces the skyline (solver/ordering.h). */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dense_cholesky.h"
#include "ordering.h"
#include "planted.h"
#include "avx_state.h"
#include "skyline.h"

/* A random SPD matrix with a given envelope: row r has entries in columns
 * first[r]..r (some of them zero), diagonally dominant. Dense row-major. */
static double *random_profile_spd(int m, const int *first, uint64_t seed) {
    planted_rng rng = {seed};
    double *A = calloc((size_t)m * (size_t)m, sizeof(double));
    for (int r = 0; r < m; ++r)
        for (int k = first[r]; k < r; ++k) {
            const double v = (k == first[r] || planted_uniform(&rng, 0, 1) < 0.7)
                                 ? planted_uniform(&rng, -1.0, 1.0)
                                 : 0.0;
            A[(size_t)r * m + k] = A[(size_t)k * m + r] = v;
        }
    for (int r = 0; r < m; ++r) {
        double off = 0.0;
        for (int k = 0; k < m; ++k)
            if (k != r)
                off += fabs(A[(size_t)r * m + k]);
        A[(size_t)r * m + r] = off * planted_uniform(&rng, 0.6, 1.2) + 0.05;
    }
    return A;
}

/* A skyline matrix built from a dense one and its row envelope. */
typedef struct sky_matrix {
    int m;
    int *last;
    size_t *start;
    double *values;
} sky_matrix;

static sky_matrix sky_from_dense(const double *A, int m, const int *first) {
    sky_matrix s = {m, malloc(sizeof(int) * m), malloc(sizeof(size_t) * (m + 1)), NULL};
    for (int k = 0; k < m; ++k)
        s.last[k] = k;
    for (int r = 0; r < m; ++r)
        for (int k = first[r]; k < r; ++k)
            if (s.last[k] < r)
                s.last[k] = r;
    for (int k = 1; k < m; ++k)
        if (s.last[k] < s.last[k - 1])
            s.last[k] = s.last[k - 1];
    const size_t stored = heft_skyline_layout(m, s.last, s.start);
    cr_assert(stored > 0);
    s.values = malloc(sizeof(double) * stored);
    for (int k = 0; k < m; ++k)
        for (int r = k; r <= s.last[k]; ++r)
            s.values[s.start[k] + r - k] = A[(size_t)r * m + k];
    return s;
}

static heft_skyline view(sky_matrix s) {
    heft_skyline v = {s.m, s.last, s.start, s.values};
    return v;
}

static void sky_free(sky_matrix *s) {
    free(s->last);
    free(s->start);
    free(s->values);
}

static int *banded_first(int m, int half_band) {
    int *first = malloc(sizeof(int) * m);
    for (int r = 0; r < m; ++r)
        first[r] = r > half_band ? r - half_band : 0;
    return first;
}

static int *random_first(int m, int widest, uint64_t seed) {
    planted_rng rng = {seed};
    int *first = malloc(sizeof(int) * m);
    for (int r = 0; r < m; ++r) {
        const int w = planted_int(&rng, 0, widest + 1);
        first[r] = r > w ? r - w : 0;
    }
    return first;
}

/* The entry (r, k) of a skyline factor, 0 outside the envelope. */
static double sky_at(sky_matrix s, int r, int k) {
    return r <= s.last[k] ? s.values[s.start[k] + r - k] : 0.0;
}

/* max |L_sky(F, F) - chol(A_FF)| / max |chol(A_FF)|, with the skyline
 * factor downdated (Alg. 2.5) or refactored with the tight rows left out */
static double skyline_difference(const double *A, int m, const int *first,
                                 const unsigned char *removed, int refactor) {
    sky_matrix s = sky_from_dense(A, m, first);
    double *sigma = malloc(sizeof(double) * m);
    if (refactor) {
        cr_assert_eq(heft_skyline_factor(view(s), removed), 0);
    } else {
        cr_assert_eq(heft_skyline_factor(view(s), NULL), 0);
        for (int i = 0; i < m; ++i)
            if (removed[i])
                cr_assert_eq(heft_skyline_remove(view(s), i, sigma), 0);
    }
    int *F = malloc(sizeof(int) * m), f = 0;
    for (int i = 0; i < m; ++i)
        if (!removed[i])
            F[f++] = i;
    double *Lf = malloc(sizeof(double) * (size_t)f * f + 1);
    for (int c = 0; c < f; ++c)
        for (int r = 0; r < f; ++r)
            Lf[(size_t)c * f + r] = A[(size_t)F[r] * m + F[c]];
    cr_assert_eq(heft_dense_cholesky_factor(Lf, f), 0);
    double diff = 0.0, scale = 0.0;
    for (int c = 0; c < f; ++c)
        for (int r = c; r < f; ++r) {
            const double fresh = Lf[(size_t)c * f + r];
            diff = fmax(diff, fabs(sky_at(s, F[r], F[c]) - fresh));
            scale = fmax(scale, fabs(fresh));
        }
    free(F);
    free(Lf);
    free(sigma);
    sky_free(&s);
    return f > 0 ? diff / scale : 0.0;
}

static void random_removed(unsigned char *removed, int m, double fraction, uint64_t seed) {
    planted_rng rng = {seed};
    memset(removed, 0, (size_t)m);
    for (int placed = 0; placed < (int)lround(fraction * m);) {
        const int r = planted_int(&rng, 0, m);
        if (!removed[r]) {
            removed[r] = 1;
            ++placed;
        }
    }
}

Test(skyline, storage_of_a_banded_matrix_is_its_envelope) {
    const int cases[][2] = {{100, 4}, {1000, 12}, {50, 0}, {30, 29}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; ++c) {
        const int m = cases[c][0], b = cases[c][1];
        int *first = banded_first(m, b);
        double *A = random_profile_spd(m, first, 3);
        sky_matrix s = sky_from_dense(A, m, first);
        /* m (b + 1) - b (b + 1) / 2 entries: the band and the diagonal, no more */
        const size_t expected = (size_t)m * (b + 1) - (size_t)b * (b + 1) / 2;
        cr_log_info("skyline m=%d half-bandwidth %d: %zu stored entries (dense lower: %zu)", m, b,
                    s.start[m], (size_t)m * (m + 1) / 2);
        cr_assert_eq(s.start[m], expected, "m=%d b=%d: %zu stored, %zu expected", m, b, s.start[m],
                     expected);
        for (int k = 0; k < m; ++k)
            cr_assert_eq(s.last[k], k + b < m ? k + b : m - 1);
        free(first);
        free(A);
        sky_free(&s);
    }
}

Test(skyline, layout_refuses_a_skyline_that_is_not_monotone) {
    const int last[4] = {2, 1, 3, 3};
    size_t start[5];
    cr_assert_eq(heft_skyline_layout(4, last, start), 0);
    const int beyond[3] = {1, 3, 2};
    cr_assert_eq(heft_skyline_layout(3, beyond, start), 0);
}

Test(skyline, factor_equals_the_dense_factor_on_a_variable_profile) {
    const int m = 150;
    int *first = random_first(m, 9, 11);
    double *A = random_profile_spd(m, first, 12);
    sky_matrix s = sky_from_dense(A, m, first);
    cr_assert_eq(heft_skyline_factor(view(s), NULL), 0);
    double *L = malloc(sizeof(double) * m * m);
    memcpy(L, A, sizeof(double) * m * m);
    cr_assert_eq(heft_dense_cholesky_factor(L, m), 0);
    double diff = 0.0;
    for (int k = 0; k < m; ++k)
        for (int r = k; r < m; ++r) {
            diff = fmax(diff, fabs(sky_at(s, r, k) - L[(size_t)k * m + r]));
            if (r > s.last[k])
                cr_assert_eq(L[(size_t)k * m + r], 0.0, "fill outside the skyline at (%d, %d)", r,
                             k);
        }
    cr_log_info("skyline vs dense factor, m=%d, %zu stored: max difference %.3g", m, s.start[m],
                diff);
    cr_assert(diff < 1e-12);
    free(first);
    free(A);
    free(L);
    sky_free(&s);
}

Test(skyline, downdated_factor_equals_fresh_factor_of_A_FF) {
    const double fractions[] = {0.01, 0.05, 0.15, 0.3, 0.5};
    double worst = 0.0;
    for (int shape = 0; shape < 2; ++shape) {
        const int m = shape ? 400 : 120;
        int *first = shape ? banded_first(m, 10) : random_first(m, 14, 31);
        double *A = random_profile_spd(m, first, 32 + (uint64_t)shape);
        unsigned char *removed = malloc((size_t)m);
        for (size_t f = 0; f < sizeof fractions / sizeof fractions[0]; ++f) {
            random_removed(removed, m, fractions[f], 50 + f);
            const double d = skyline_difference(A, m, first, removed, 0);
            const double r = skyline_difference(A, m, first, removed, 1);
            cr_log_info("skyline %s m=%d tight %.0f%%: downdate %.3g, refactor %.3g (relative)",
                        shape ? "band" : "profile", m, 100 * fractions[f], d, r);
            cr_assert(d < 1e-9, "downdate: %g", d);
            cr_assert(r < 1e-12, "refactor: %g", r);
            worst = fmax(worst, d);
        }
        memset(removed, 0, (size_t)m);
        removed[0] = removed[m - 1] = 1;
        for (int i = m / 2; i < m / 2 + 20; ++i)
            removed[i] = 1;
        cr_assert(skyline_difference(A, m, first, removed, 0) < 1e-9);
        free(first);
        free(A);
        free(removed);
    }
    cr_log_info("skyline downdate vs fresh factor, worst relative difference: %.3g", worst);
}

Test(skyline, solve_and_multiply_agree_with_the_dense_matrix) {
    const int m = 200;
    int *first = random_first(m, 12, 41);
    double *A = random_profile_spd(m, first, 42);
    sky_matrix s = sky_from_dense(A, m, first);
    double x[200], y[200], b[200];
    planted_rng rng = {43};
    for (int i = 0; i < m; ++i)
        x[i] = planted_uniform(&rng, -1.0, 1.0);
    heft_skyline_multiply(view(s), x, y);
    for (int i = 0; i < m; ++i) {
        double sum = 0.0;
        for (int j = 0; j < m; ++j)
            sum += A[(size_t)i * m + j] * x[j];
        cr_assert(fabs(sum - y[i]) < 1e-12);
    }
    /* Alg. 2.6 with 10% of the rows removed solves A_FF */
    unsigned char removed[200];
    random_removed(removed, m, 0.1, 44);
    double sigma[200];
    cr_assert_eq(heft_skyline_factor(view(s), NULL), 0);
    for (int i = 0; i < m; ++i)
        if (removed[i])
            heft_skyline_remove(view(s), i, sigma);
    for (int i = 0; i < m; ++i)
        b[i] = x[i] = removed[i] ? NAN : planted_uniform(&rng, -1.0, 1.0);
    heft_skyline_solve(view(s), removed, x);
    double res = 0.0;
    for (int i = 0; i < m; ++i) {
        if (removed[i]) {
            cr_assert_eq(x[i], 0.0);
            continue;
        }
        double sum = -b[i];
        for (int j = 0; j < m; ++j)
            if (!removed[j])
                sum += A[(size_t)i * m + j] * x[j];
        res = fmax(res, fabs(sum));
    }
    cr_assert(res < 1e-11, "residual %g", res);
    free(first);
    free(A);
    sky_free(&s);
}

/* The kernels one entry at a time, as written in [Lefebvre 2020] Alg. 2.6
 * and the right-looking factorization: the reference the two-at-a-time
 * kernels must match bit for bit. */
static int reference_factor(sky_matrix s, const unsigned char *removed) {
    for (int k = 0; k < s.m; ++k) {
        if (removed != NULL && removed[k])
            continue;
        double *ck = &s.values[s.start[k]];
        if (!(ck[0] > 0.0))
            return k + 1;
        ck[0] = sqrt(ck[0]);
        const int len = s.last[k] - k;
        const double inv = 1.0 / ck[0];
        for (int t = 1; t <= len; ++t)
            ck[t] *= inv;
        for (int t = 1; t <= len; ++t) {
            const int c = k + t;
            if (ck[t] == 0.0 || (removed != NULL && removed[c]))
                continue;
            double *cc = &s.values[s.start[c]];
            for (int u = 0; u <= len - t; ++u)
                cc[u] -= ck[t + u] * ck[t];
        }
    }
    return 0;
}

/* The backward substitution sums its products in four running sums
 * (t - 1 = 0, 1, 2, 3 mod 4, the last (s_i - i) mod 4 terms in the first),
 * then (s0 + s2) + (s1 + s3), and multiplies by the pivot's reciprocal (the
 * division is then off the chain from one row to the next). */
static void reference_solve(sky_matrix s, const unsigned char *removed, double *x) {
    for (int i = 0; i < s.m; ++i) {
        if (removed != NULL && removed[i])
            continue;
        const double *ci = &s.values[s.start[i]];
        const double xi = x[i] / ci[0];
        x[i] = xi;
        if (xi == 0.0)
            continue;
        for (int t = 1; t <= s.last[i] - i; ++t)
            x[i + t] -= ci[t] * xi;
    }
    for (int i = 0; i < s.m; ++i)
        if (removed != NULL && removed[i])
            x[i] = 0.0;
    for (int i = s.m - 1; i >= 0; --i) {
        if (removed != NULL && removed[i])
            continue;
        const double *ci = &s.values[s.start[i]];
        const int len = s.last[i] - i;
        double sum[4] = {0.0, 0.0, 0.0, 0.0};
        int t = 1;
        for (; t + 3 <= len; t += 4)
            for (int lane = 0; lane < 4; ++lane)
                sum[lane] += ci[t + lane] * x[i + t + lane];
        for (; t <= len; ++t)
            sum[0] += ci[t] * x[i + t];
        x[i] = (x[i] - ((sum[0] + sum[2]) + (sum[1] + sum[3]))) * (1.0 / ci[0]);
    }
}

static void reference_multiply(sky_matrix s, const double *x, double *y) {
    for (int k = 0; k < s.m; ++k)
        y[k] = 0.0;
    for (int k = 0; k < s.m; ++k) {
        const double *ck = &s.values[s.start[k]];
        double yk = ck[0] * x[k];
        for (int t = 1; t <= s.last[k] - k; ++t) {
            yk += ck[t] * x[k + t];
            y[k + t] += ck[t] * x[k];
        }
        y[k] += yk;
    }
}

/* A random profile of m rows about width wide, made diagonally dominant
 * (so that A_FF is SPD for any F), in count copies, and 20% of its rows
 * marked in removed (m entries); seed, seed + 100 and seed + 200 draw the
 * three. */
static void dominant_copies(int m, int width, uint64_t seed, unsigned char *removed,
                            sky_matrix *copies, int count) {
    int *first = random_first(m, width, seed);
    double *A = random_profile_spd(m, first, seed + 100);
    for (int r = 0; r < m; ++r)
        for (int k = 0; k < m; ++k)
            if (k != r)
                A[(size_t)r * m + r] += fabs(A[(size_t)r * m + k]);
    random_removed(removed, m, 0.2, seed + 200);
    for (int c = 0; c < count; ++c)
        copies[c] = sky_from_dense(A, m, first);
    free(first);
    free(A);
}

/* Two factors of one matrix hold the same bits in the kept entries (the
 * removed columns hold garbage, skyline.h) */
static void assert_same_kept(sky_matrix a, sky_matrix b, const unsigned char *cut, int case_id) {
    for (int k = 0; k < a.m; ++k)
        if (cut == NULL || !cut[k])
            for (int r = k; r <= a.last[k]; ++r)
                if (cut == NULL || !cut[r])
                    cr_assert_eq(memcmp(&a.values[a.start[k] + r - k],
                                        &b.values[b.start[k] + r - k], sizeof(double)),
                                 0, "factor (%d, %d), case %d", r, k, case_id);
}

/* Factor (all rows, and 20% removed), solve and product give the reference
 * kernels' bits exactly, on profiles of odd and even column lengths; the
 * factor's four-column passes on AVX (where the processor has it) and on
 * SSE2 alone give the same bits, and the AVX ones give the registers' upper
 * halves back unused (left in use, every later SSE2 instruction of the
 * thread pays for them). */
Test(skyline, kernels_give_the_bits_of_one_entry_at_a_time) {
    const int m = 301;
    for (uint64_t seed = 0; seed < 6; ++seed) {
        unsigned char removed[301];
        sky_matrix copies[3];
        dominant_copies(m, 5 + 7 * (int)seed, 100 + seed, removed, copies, 3);
        sky_matrix a = copies[0], b = copies[1], narrow = copies[2];
        const unsigned char *cut = seed % 2 ? removed : NULL;
        const size_t stored = a.start[m];
        double x[301], xa[301], xb[301], ya[301], yb[301];
        planted_rng rng = {400 + seed};
        for (int i = 0; i < m; ++i)
            x[i] = planted_uniform(&rng, -1.0, 1.0);
        heft_skyline_multiply(view(a), x, ya);
        reference_multiply(b, x, yb);
        cr_assert_eq(memcmp(ya, yb, sizeof ya), 0, "product, seed %d", (int)seed);
        avx_zero_upper_halves();
        cr_assert_eq(heft_skyline_factor(view(a), cut), 0, "seed %d", (int)seed);
        if (avx_state_readable())
            cr_assert_eq(avx_upper_halves_in_use(), 0, "upper halves left in use, seed %d",
                         (int)seed);
        cr_assert_eq(reference_factor(b, cut), 0, "seed %d", (int)seed);
        assert_same_kept(a, b, cut, (int)seed);
        cr_assert_eq(heft_skyline_factor_wide(view(narrow), cut, 0), 0, "seed %d", (int)seed);
        assert_same_kept(narrow, b, cut, (int)seed);
        memcpy(xa, x, sizeof x);
        memcpy(xb, x, sizeof x);
        heft_skyline_solve(view(a), cut, xa);
        reference_solve(b, cut, xb);
        cr_assert_eq(memcmp(xa, xb, sizeof xa), 0, "solve, seed %d", (int)seed);
        cr_assert_gt(stored, (size_t)m);
        sky_free(&a);
        sky_free(&b);
        sky_free(&narrow);
    }
}

/* Block profiles, as a stack of boxes gives (each block of rows coupled to
 * the block before, so that the skyline's last row stays the same over a
 * block and jumps at its end), with about 30% of the entries zero: the
 * factorization's four-column panels, their zero multipliers and their
 * sources of unequal reach give the reference's bits, with and without
 * removed rows. */
Test(skyline, factor_of_block_profiles_gives_the_bits_of_one_entry_at_a_time) {
    const int m = 120;
    const int blocks[4] = {12, 5, 7, 3};
    for (int b = 0; b < 8; ++b) {
        const int size = blocks[b % 4];
        int *first = malloc(sizeof(int) * m);
        for (int r = 0; r < m; ++r)
            first[r] = r / size > 0 ? (r / size - 1) * size + (b / 4) * (size / 2) : 0;
        double *A = random_profile_spd(m, first, 500 + (uint64_t)b);
        unsigned char removed[120];
        random_removed(removed, m, 0.15, 600 + (uint64_t)b);
        const unsigned char *cut = b % 2 ? removed : NULL;
        sky_matrix a = sky_from_dense(A, m, first), r = sky_from_dense(A, m, first);
        cr_assert_eq(heft_skyline_factor(view(a), cut), 0, "profile %d", b);
        cr_assert_eq(reference_factor(r, cut), 0, "profile %d", b);
        assert_same_kept(a, r, cut, b);
        free(first);
        free(A);
        sky_free(&a);
        sky_free(&r);
    }
}

/* A_FF factored in the envelope of the free rows alone (heft_skyline_kept,
 * gathered from A's layout, put back after) holds the bits of the factor of
 * A's envelope with the tight rows removed, and solves to the same bits;
 * gathered in place, the same. Random and block profiles, 0 to 90% of the
 * rows removed. */
Test(skyline, the_free_rows_envelope_gives_the_bits_of_the_removed_rows_factor) {
    const int m = 150;
    for (int c = 0; c < 10; ++c) {
        int *first = c % 2 ? random_first(m, 4 + 6 * c, 700 + (uint64_t)c) : banded_first(m, 3 + c);
        double *A = random_profile_spd(m, first, 800 + (uint64_t)c);
        for (int r = 0; r < m; ++r) /* diagonally dominant: A_FF is SPD for any F */
            for (int k = 0; k < m; ++k)
                if (k != r)
                    A[(size_t)r * m + r] += fabs(A[(size_t)r * m + k]);
        unsigned char removed[150];
        random_removed(removed, m, 0.1 * c, 900 + (uint64_t)c);
        sky_matrix a = sky_from_dense(A, m, first), full = sky_from_dense(A, m, first);
        const size_t stored = a.start[m];
        int row[150], prev[150], kept_last[150];
        size_t kept_start[151];
        const int kept = heft_skyline_kept(m, a.last, removed, row, prev, kept_last, kept_start);
        int expected = 0;
        for (int r = 0; r < m; ++r)
            expected += !removed[r];
        cr_assert_eq(kept, expected, "case %d", c);
        cr_assert_leq(kept_start[kept], stored, "case %d", c);
        /* into a second array, then in place over a copy of A's layout */
        double *moved = malloc(sizeof(double) * stored);
        heft_skyline_gather_kept(a.start, a.values, kept, row, kept_last, kept_start, moved);
        heft_skyline_gather_kept(a.start, a.values, kept, row, kept_last, kept_start, a.values);
        cr_assert_eq(memcmp(moved, a.values, sizeof(double) * kept_start[kept]), 0, "case %d", c);
        const heft_skyline free_rows = {kept, kept_last, kept_start, a.values};
        cr_assert_eq(heft_skyline_factor(free_rows, NULL), 0, "case %d", c);
        heft_skyline_scatter_kept(a.last, a.start, kept, row, prev, kept_start, a.values);
        cr_assert_eq(heft_skyline_factor(view(full), removed), 0, "case %d", c);
        for (int k = 0; k < m; ++k) {
            if (removed[k])
                continue;
            for (int r = k; r <= a.last[k]; ++r) {
                const double got = a.values[a.start[k] + r - k];
                if (removed[r])
                    cr_assert_eq(got, 0.0, "removed (%d, %d), case %d", r, k, c);
                else
                    cr_assert_eq(memcmp(&got, &full.values[full.start[k] + r - k], sizeof(double)),
                                 0, "factor (%d, %d), case %d", r, k, c);
            }
        }
        double xa[150], xb[150];
        planted_rng rng = {1000 + (uint64_t)c};
        for (int i = 0; i < m; ++i)
            xa[i] = xb[i] = planted_uniform(&rng, -1.0, 1.0);
        heft_skyline_solve(view(a), removed, xa);
        heft_skyline_solve(view(full), removed, xb);
        cr_assert_eq(memcmp(xa, xb, sizeof xa), 0, "solve, case %d", c);
        free(moved);
        free(first);
        free(A);
        sky_free(&a);
        sky_free(&full);
    }
}

/* ---- reverse Cuthill-McKee -------------------------------------------------------- */

/* A chain of `links` bodies, body 0 hung from the world, each joint three rows
 * on (k - 1, k); the rows are then shuffled. */
static heft_mlcp *shuffled_chain(int links, uint64_t seed, int shuffle) {
    const int n = 3 * links;
    heft_mlcp *p = heft_mlcp_create(n, links, HEFT_MLCP_STRUCTURED);
    int *order = malloc(sizeof(int) * n);
    for (int i = 0; i < n; ++i)
        order[i] = i;
    planted_rng rng = {seed};
    for (int i = n - 1; shuffle && i > 0; --i) {
        const int j = planted_int(&rng, 0, i + 1);
        const int t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < links; ++k) {
        p->bodies[k].inv_mass = 1.0;
        p->bodies[k].inv_inertia[0] = p->bodies[k].inv_inertia[3] = p->bodies[k].inv_inertia[5] =
            1.0;
        for (int r = 0; r < 3; ++r) {
            heft_mlcp_row *row = &p->rows[order[3 * k + r]];
            row->a = k - 1;
            row->b = k;
            row->ja[r] = k > 0 ? 1.0 : 0.0;
            row->jb[r] = -1.0;
            p->epsilon[order[3 * k + r]] = 1e-8;
        }
    }
    free(order);
    return p;
}

/* The envelope of the rows in their given order. */
static size_t identity_envelope(const heft_ordering *o, int *bandwidth) {
    const int n = o->n;
    int *inverse = calloc((size_t)n, sizeof(int)), *last = calloc((size_t)n, sizeof(int));
    for (int i = 0; i < n; ++i)
        inverse[i] = i;
    const size_t env = heft_envelope(n, o->xadj, o->adj, inverse, last);
    *bandwidth = 0;
    for (int k = 0; k < n; ++k)
        if (last[k] - k > *bandwidth)
            *bandwidth = last[k] - k;
    free(inverse);
    free(last);
    return env;
}

static int bandwidth_of(const heft_ordering *o) {
    int b = 0;
    for (int k = 0; k < o->n; ++k)
        if (o->last[k] - k > b)
            b = o->last[k] - k;
    return b;
}

Test(ordering, rcm_brings_a_shuffled_chain_back_to_its_band) {
    const int links = 300;
    heft_mlcp *natural = shuffled_chain(links, 1, 0);
    heft_mlcp *shuffled = shuffled_chain(links, 1, 1);
    heft_ordering on = {0}, os = {0};
    cr_assert_eq(heft_ordering_from_structure(&on, natural), 0);
    cr_assert_eq(heft_ordering_from_structure(&os, shuffled), 0);
    int band_natural, band_shuffled;
    const size_t env_natural = identity_envelope(&on, &band_natural);
    const size_t env_shuffled = identity_envelope(&os, &band_shuffled);
    const int band_rcm = bandwidth_of(&os);
    cr_log_info("chain of %d links (%d rows): envelope natural %zu (bandwidth %d), shuffled %zu "
                "(%d), after RCM %zu (%d)",
                links, 3 * links, env_natural, band_natural, env_shuffled, band_shuffled,
                os.envelope, band_rcm);
    cr_assert_eq(band_natural, 5); /* a joint's rows see their own joint and the two next to it */
    cr_assert(env_shuffled > 20 * env_natural);
    cr_assert(os.envelope <= env_natural, "RCM %zu > natural %zu", os.envelope, env_natural);
    cr_assert(band_rcm <= band_natural);
    /* a permutation */
    int *seen = calloc((size_t)os.n, sizeof(int));
    for (int k = 0; k < os.n; ++k) {
        cr_assert(os.perm[k] >= 0 && os.perm[k] < os.n);
        cr_assert_eq(seen[os.perm[k]]++, 0);
        cr_assert_eq(os.inverse[os.perm[k]], k);
    }
    free(seen);
    heft_ordering_release(&on);
    heft_ordering_release(&os);
    heft_mlcp_destroy(natural);
    heft_mlcp_destroy(shuffled);
}

Test(ordering, rcm_of_a_shuffled_dense_band_recovers_the_bandwidth) {
    const int m = 240, b = 3;
    int *first = banded_first(m, b);
    double *band = random_profile_spd(m, first, 61);
    for (int r = 0; r < m; ++r) /* every in-band entry nonzero, so the graph is the band */
        for (int k = first[r]; k < r; ++k)
            if (band[(size_t)r * m + k] == 0.0)
                band[(size_t)r * m + k] = band[(size_t)k * m + r] = 0.25;
    int *shuffle = malloc(sizeof(int) * m);
    for (int i = 0; i < m; ++i)
        shuffle[i] = i;
    planted_rng rng = {62};
    for (int i = m - 1; i > 0; --i) {
        const int j = planted_int(&rng, 0, i + 1), t = shuffle[i];
        shuffle[i] = shuffle[j];
        shuffle[j] = t;
    }
    double *A = malloc(sizeof(double) * m * m);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < m; ++j)
            A[(size_t)i * m + j] = band[(size_t)shuffle[i] * m + shuffle[j]];
    heft_ordering o = {0};
    cr_assert_eq(heft_ordering_from_dense(&o, m, A), 0);
    int band_shuffled;
    const size_t env_shuffled = identity_envelope(&o, &band_shuffled);
    const size_t env_band = (size_t)m * (b + 1) - (size_t)b * (b + 1) / 2;
    cr_log_info("dense band m=%d b=%d shuffled: envelope %zu (bandwidth %d), after RCM %zu (%d), "
                "band %zu",
                m, b, env_shuffled, band_shuffled, o.envelope, bandwidth_of(&o), env_band);
    cr_assert_eq(bandwidth_of(&o), b);
    cr_assert_eq(o.envelope, env_band);
    cr_assert_eq(o.key, heft_ordering_dense_key(m, A));
    free(first);
    free(band);
    free(shuffle);
    free(A);
    heft_ordering_release(&o);
}

Test(ordering, rcm_is_deterministic_and_handles_disconnected_rows) {
    /* two chains and rows on the world only: three kinds of component */
    heft_mlcp *p = shuffled_chain(40, 5, 1);
    p->rows[7].a = -1;
    p->rows[7].b = -1; /* an isolated row */
    heft_ordering a = {0}, b = {0};
    cr_assert_eq(heft_ordering_from_structure(&a, p), 0);
    cr_assert_eq(heft_ordering_from_structure(&b, p), 0);
    cr_assert_eq(memcmp(a.perm, b.perm, sizeof(int) * a.n), 0);
    cr_assert(heft_ordering_holds(&a, p));
    cr_assert_eq(a.xadj[8] - a.xadj[7], 0);
    p->rows[7].b = 3; /* the topology changed: the ordering no longer holds */
    cr_assert_not(heft_ordering_holds(&a, p));
    p->rows[7].b = -1;
    cr_assert(heft_ordering_holds(&a, p));
    p->rows[7].b = p->nbodies; /* outside the body list: the static world, as before */
    cr_assert(heft_ordering_holds(&a, p));
    p->nbodies += 1; /* one more body, no row on it: not the same problem */
    cr_assert_not(heft_ordering_holds(&a, p));
    p->nbodies -= 1;
    p->n -= 1; /* one row fewer */
    cr_assert_not(heft_ordering_holds(&a, p));
    p->n += 1;
    heft_ordering_release(&a);
    heft_ordering_release(&b);
    heft_mlcp_destroy(p);
}

/* ---- the break-even measurement (bench.md item 5) ------------------------------------ */

#include "downdate_break_even.h"

Test(bench, downdate_against_refactor_measures_equal_factors) {
    const int bands[3] = {-1, 8, 40};
    for (int k = 0; k < 3; ++k) {
        heft_downdate_timing t;
        cr_assert_eq(heft_bench_downdate_vs_refactor(300, 0.1, bands[k], 3, 7, &t), 0);
        cr_log_info("m=%d tight=%d band=%d stored=%zu: downdate %.3f ms, refactor %.3f ms, "
                    "difference %.3g",
                    t.m, t.tight, t.half_bandwidth, t.stored, t.downdate_ms, t.refactor_ms,
                    t.max_difference);
        cr_assert_eq(t.m, 300);
        cr_assert_eq(t.tight, 30);
        cr_assert_eq(t.half_bandwidth, bands[k]);
        cr_assert(t.downdate_ms >= 0.0 && t.refactor_ms >= 0.0);
        cr_assert(t.max_difference < 1e-9);
        const size_t b = (size_t)bands[k];
        if (bands[k] > 0)
            cr_assert_eq(t.stored, 300 * (b + 1) - b * (b + 1) / 2);
    }
    heft_downdate_timing t;
    cr_assert_eq(heft_bench_downdate_vs_refactor(1, 0.1, -1, 3, 7, &t), -1);
    cr_assert_eq(heft_bench_downdate_vs_refactor(100, 1.5, -1, 3, 7, &t), -1);
}
