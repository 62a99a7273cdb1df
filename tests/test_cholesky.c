/* Tests of the dense LL^T kernels of the BPP solvers (solver/dense_cholesky.h):
 * the factorization, the row-deletion downdate of [Lefebvre 2020] Alg. 2.3 and the
 * solve that skips deleted rows (Alg. 2.4). The yardstick of the downdate is
 * the thesis's Table 2.4: the downdated factor against a fresh Cholesky of
 * A_FF, here on random SPD matrices, to 1e-9 relative. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dense_cholesky.h"
#include "planted.h"

/* Random symmetric positive definite m x m (row-major): B B^T / m plus a
 * diagonal shift; shift small gives a condition number in the thousands. */
static double *random_spd(int m, double shift, uint64_t seed) {
    planted_rng rng = {seed};
    const size_t um = (size_t)m;
    double *B = malloc(sizeof(double) * um * um);
    double *A = malloc(sizeof(double) * um * um);
    for (size_t k = 0; k < um * um; ++k)
        B[k] = planted_uniform(&rng, -1.0, 1.0);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j <= i; ++j) {
            double s = 0.0;
            for (int k = 0; k < m; ++k)
                s += B[i * um + k] * B[j * um + k];
            A[i * um + j] = A[j * um + i] = s / m + (i == j ? shift : 0.0);
        }
    free(B);
    return A;
}

/* The tight set of one case: every row with removed[r] != 0. */
static void random_tight_set(unsigned char *removed, int m, double fraction, uint64_t seed) {
    planted_rng rng = {seed};
    memset(removed, 0, (size_t)m);
    const int count = (int)lround(fraction * m);
    for (int placed = 0; placed < count;) {
        const int r = planted_int(&rng, 0, m);
        if (!removed[r]) {
            removed[r] = 1;
            ++placed;
        }
    }
}

/* max |L_downdated(F, F) - chol(A_FF)| / max |chol(A_FF)| */
static double downdate_difference(const double *A, int m, const unsigned char *removed,
                                  double *scratch_sigma) {
    const size_t um = (size_t)m;
    double *L = malloc(sizeof(double) * um * um);
    memcpy(L, A, sizeof(double) * um * um);
    cr_assert_eq(heft_dense_cholesky_factor(L, m), 0);
    for (int i = 0; i < m; ++i)
        if (removed[i])
            cr_assert_eq(heft_dense_cholesky_remove(L, m, i, scratch_sigma), 0);

    int *F = malloc(sizeof(int) * um), f = 0;
    for (int i = 0; i < m; ++i)
        if (!removed[i])
            F[f++] = i;
    double *Lf = malloc(sizeof(double) * (size_t)f * (size_t)f + 1);
    for (int c = 0; c < f; ++c)
        for (int r = 0; r < f; ++r)
            Lf[(size_t)c * f + r] = A[(size_t)F[r] * um + F[c]];
    cr_assert_eq(heft_dense_cholesky_factor(Lf, f), 0);
    double diff = 0.0, scale = 0.0;
    for (int c = 0; c < f; ++c)
        for (int r = c; r < f; ++r) {
            const double fresh = Lf[(size_t)c * f + r];
            diff = fmax(diff, fabs(L[(size_t)F[c] * um + F[r]] - fresh));
            scale = fmax(scale, fabs(fresh));
        }
    free(L);
    free(F);
    free(Lf);
    return f > 0 ? diff / scale : 0.0;
}

Test(dense_cholesky, factor_solves_an_spd_system_to_round_off) {
    const int m = 120;
    double *A = random_spd(m, 0.01, 5);
    double *L = malloc(sizeof(double) * m * m);
    memcpy(L, A, sizeof(double) * m * m);
    cr_assert_eq(heft_dense_cholesky_factor(L, m), 0);
    double x[120], b[120];
    planted_rng rng = {9};
    for (int i = 0; i < m; ++i)
        b[i] = x[i] = planted_uniform(&rng, -1.0, 1.0);
    heft_dense_cholesky_solve(L, m, x);
    double res = 0.0;
    for (int i = 0; i < m; ++i) {
        double s = -b[i];
        for (int j = 0; j < m; ++j)
            s += A[i * m + j] * x[j];
        res = fmax(res, fabs(s));
    }
    cr_log_info("dense cholesky m=%d: |A x - b|_max = %.3g", m, res);
    cr_assert(res < 1e-10, "residual %g", res);
    free(A);
    free(L);
}

Test(dense_cholesky, non_positive_pivot_is_reported_with_its_column) {
    double A[9] = {4, 2, 0, 2, 1, 0, 0, 0, 1}; /* rank deficient in column 1 */
    cr_assert_eq(heft_dense_cholesky_factor(A, 3), 2);
    double B[4] = {1, 0, 0, NAN};
    cr_assert_eq(heft_dense_cholesky_factor(B, 2), 2);
}

Test(dense_cholesky, downdated_factor_equals_fresh_factor_of_A_FF) {
    const int sizes[] = {12, 60, 200};
    const double fractions[] = {0.01, 0.05, 0.15, 0.3, 0.5};
    double worst = 0.0;
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const int m = sizes[s];
        for (int conditioned = 0; conditioned < 2; ++conditioned) {
            double *A = random_spd(m, conditioned ? 1e-3 : 1.0, 100 + (uint64_t)m);
            unsigned char *removed = malloc((size_t)m);
            double *sigma = malloc(sizeof(double) * m);
            for (size_t f = 0; f < sizeof fractions / sizeof fractions[0]; ++f) {
                random_tight_set(removed, m, fractions[f], 7 * (uint64_t)m + f);
                const double d = downdate_difference(A, m, removed, sigma);
                cr_log_info("downdate m=%d shift=%g tight=%.0f%%: relative difference %.3g", m,
                            conditioned ? 1e-3 : 1.0, 100 * fractions[f], d);
                cr_assert(d < 1e-9, "m=%d fraction %g: %g", m, fractions[f], d);
                worst = fmax(worst, d);
            }
            /* the edges: first row, last row, a contiguous block, every other row */
            memset(removed, 0, (size_t)m);
            removed[0] = 1;
            cr_assert(downdate_difference(A, m, removed, sigma) < 1e-9);
            memset(removed, 0, (size_t)m);
            removed[m - 1] = 1;
            cr_assert(downdate_difference(A, m, removed, sigma) < 1e-9);
            memset(removed, 0, (size_t)m);
            for (int i = m / 3; i < m / 2; ++i)
                removed[i] = 1;
            cr_assert(downdate_difference(A, m, removed, sigma) < 1e-9);
            for (int i = 0; i < m; ++i)
                removed[i] = (unsigned char)(i % 2);
            cr_assert(downdate_difference(A, m, removed, sigma) < 1e-9);
            free(A);
            free(removed);
            free(sigma);
        }
    }
    cr_log_info("downdate vs fresh factor, worst relative difference: %.3g", worst);
}

/* Alg. 2.4: the solve skipping the removed rows equals the solve of A_FF. */
Test(dense_cholesky, solve_skipping_tight_rows_solves_A_FF) {
    const int m = 90;
    double *A = random_spd(m, 0.05, 21);
    double *L = malloc(sizeof(double) * m * m);
    memcpy(L, A, sizeof(double) * m * m);
    cr_assert_eq(heft_dense_cholesky_factor(L, m), 0);
    unsigned char removed[90];
    double sigma[90], x[90], b[90];
    random_tight_set(removed, m, 0.2, 3);
    for (int i = 0; i < m; ++i)
        if (removed[i])
            heft_dense_cholesky_remove(L, m, i, sigma);
    planted_rng rng = {4};
    for (int i = 0; i < m; ++i)
        b[i] = x[i] = removed[i] ? NAN : planted_uniform(&rng, -1.0, 1.0);
    heft_dense_cholesky_solve_skipping(L, m, removed, x);
    double res = 0.0;
    for (int i = 0; i < m; ++i) {
        if (removed[i]) {
            cr_assert_eq(x[i], 0.0);
            continue;
        }
        double s = -b[i];
        for (int j = 0; j < m; ++j)
            if (!removed[j])
                s += A[i * m + j] * x[j];
        res = fmax(res, fabs(s));
    }
    cr_log_info("solve skipping 20%% tight rows, m=%d: |A_FF x_F - b_F|_max = %.3g", m, res);
    cr_assert(res < 1e-10);
    free(A);
    free(L);
}

/* Why dense_cholesky.c scales the old column in line 16 of Alg. 2.3: the
 * update exactly as printed leaves a matrix that is not a factor of A_FF. */
Test(dense_cholesky, alg_2_3_line_16_as_printed_is_not_a_factor) {
    const int m = 30, i = 4;
    double *A = random_spd(m, 0.5, 77);
    double *L = malloc(sizeof(double) * m * m);
    memcpy(L, A, sizeof(double) * m * m);
    cr_assert_eq(heft_dense_cholesky_factor(L, m), 0);
    double sigma[30];
    for (int r = i + 1; r < m; ++r)
        sigma[r] = L[i * m + r];
    double beta = 1.0;
    for (int k = i + 1; k < m; ++k) {
        const double x = sigma[k], y = L[k * m + k];
        const double z = y * y + x * x / beta, gamma = beta * y * y + x * x;
        L[k * m + k] = sqrt(z);
        beta += x * x / (y * y);
        for (int r = k + 1; r < m; ++r) {
            sigma[r] -= x / y * L[k * m + r];
            L[k * m + r] += sqrt(z) * x / gamma * sigma[r]; /* no sqrt(z) / y scaling */
        }
    }
    unsigned char removed[30] = {0};
    removed[i] = 1;
    /* the printed version against the real factor of A_FF */
    double *M = malloc(sizeof(double) * m * m);
    memcpy(M, A, sizeof(double) * m * m);
    cr_assert_eq(heft_dense_cholesky_factor(M, m), 0);
    cr_assert_eq(heft_dense_cholesky_remove(M, m, i, sigma), 0);
    double diff = 0.0;
    for (int c = i + 1; c < m; ++c)
        for (int r = c; r < m; ++r)
            diff = fmax(diff, fabs(L[c * m + r] - M[c * m + r]));
    cr_log_info("Alg. 2.3 as printed vs the factor of A_FF: max difference %.3g", diff);
    cr_assert(diff > 1e-5); /* far above the 1e-15 of the scaled update */
    cr_assert(downdate_difference(A, m, removed, sigma) < 1e-12);
    free(A);
    free(L);
    free(M);
}
