/* Heft: dense LL^T factorization, downdate by row deletion, and the solve
 * that skips deleted rows ([Lefebvre 2020], Alg. 2.1 line 4, Alg. 2.3, Alg. 2.4).
 * Storage is described in dense_cholesky.h: column c of L is contiguous at
 * L[c * m + c .. c * m + m - 1]. */
#include "dense_cholesky.h"

#include <math.h>
#include <string.h>

/* Right-looking (outer product) Cholesky: column k is scaled by its pivot,
 * then subtracted from every later column. With columns contiguous every
 * inner loop is a stride-1 axpy. */
int heft_dense_cholesky_factor(double *a, int m) {
    const size_t um = (size_t)m;
    for (int k = 0; k < m; ++k) {
        double *ck = &a[(size_t)k * um];
        const double pivot = ck[k];
        if (!(pivot > 0.0) || !isfinite(pivot))
            return k + 1;
        const double lkk = sqrt(pivot);
        ck[k] = lkk;
        const double inv = 1.0 / lkk;
        for (int r = k + 1; r < m; ++r)
            ck[r] *= inv;
        for (int c = k + 1; c < m; ++c) {
            const double lck = ck[c];
            if (lck == 0.0)
                continue;
            double *cc = &a[(size_t)c * um];
            for (int r = c; r < m; ++r)
                cc[r] -= ck[r] * lck;
        }
    }
    return 0;
}

void heft_dense_cholesky_solve(const double *L, int m, double *x) {
    heft_dense_cholesky_solve_skipping(L, m, NULL, x);
}

/* Alg. 2.3. Deleting row and column i from A = L L^T leaves the trailing
 * block as L22 L22^T + sigma sigma^T with sigma = L(i+1..m, i) (Davis & Hager
 * 2005), a rank-1 modification of the trailing factor, done column by column
 * (the LL^T form of Gill, Golub, Murray & Saunders' method C1).
 *
 * Line 16 as printed in the thesis adds (sqrt(z) x / gamma) sigma to the old
 * column; the factor of the modified matrix also needs the old column scaled
 * by sqrt(z) / y (the new diagonal over the old one). Without that scaling
 * the result is not a factor of A_FF (test_cholesky checks it against a
 * fresh factorization), so it is applied here. */
int heft_dense_cholesky_remove(double *L, int m, int i, double *sigma) {
    const size_t um = (size_t)m;
    const double *ci = &L[(size_t)i * um];
    for (int r = i + 1; r < m; ++r) /* line 3: sigma = L(i+1..m, i) */
        sigma[r] = ci[r];
    double beta = 1.0; /* line 2 */
    int finite = 1;
    for (int k = i + 1; k < m; ++k) { /* lines 4-5 */
        const double x = sigma[k];    /* line 6 */
        if (x == 0.0)
            continue; /* column k and beta are unchanged, sigma too */
        double *ck = &L[(size_t)k * um];
        const double y = ck[k];                    /* line 7 */
        const double z = y * y + x * x / beta;     /* line 8 */
        const double gamma = beta * y * y + x * x; /* line 9 */
        const double root = sqrt(z);
        ck[k] = root;              /* line 10 */
        beta += (x * x) / (y * y); /* line 11 */
        const double along = x / y, scale = root / y, mix = root * x / gamma;
        for (int r = k + 1; r < m; ++r) { /* lines 12-16 */
            sigma[r] -= along * ck[r];
            ck[r] = scale * ck[r] + mix * sigma[r];
        }
        finite = finite && isfinite(root) && isfinite(beta);
    }
    return finite ? 0 : -1;
}

/* Alg. 2.4. Forward substitution L y = b over the kept rows (lines 3-10),
 * then backward L^T x = y (lines 11-18). The sets F* of the paper are the
 * kept rows after i: here the removed entries of x are held at zero before
 * the backward pass, so a whole column can be used without testing each row
 * (a removed row contributes L(j, i) * 0). */
void heft_dense_cholesky_solve_skipping(const double *L, int m, const unsigned char *removed,
                                        double *x) {
    const size_t um = (size_t)m;
    for (int i = 0; i < m; ++i) {
        if (removed != NULL && removed[i])
            continue;
        const double *ci = &L[(size_t)i * um];
        const double xi = x[i] / ci[i]; /* line 4 */
        x[i] = xi;
        if (xi == 0.0)
            continue;
        for (int j = i + 1; j < m; ++j) /* lines 5-9; removed rows are overwritten below */
            x[j] -= ci[j] * xi;
    }
    if (removed != NULL)
        for (int i = 0; i < m; ++i)
            if (removed[i])
                x[i] = 0.0;
    for (int i = m - 1; i >= 0; --i) {
        if (removed != NULL && removed[i])
            continue;
        const double *ci = &L[(size_t)i * um];
        double s = x[i];
        for (int j = i + 1; j < m; ++j) /* lines 12-16 */
            s -= ci[j] * x[j];
        x[i] = s / ci[i]; /* line 17 */
    }
}

void heft_dense_cholesky_copy_columns(double *dst, const double *src, int m, int first) {
    const size_t um = (size_t)m;
    for (int c = first < 0 ? 0 : first; c < m; ++c)
        memcpy(&dst[(size_t)c * um + c], &src[(size_t)c * um + c], sizeof(double) * (um - c));
}
