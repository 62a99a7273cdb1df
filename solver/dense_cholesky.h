/* Heft: dense LL^T Cholesky factorization, row deletion by rank-1 downdate,
 * and the solve that skips removed rows (private header of the solver
 * library).
 *
 * [Lefebvre 2020] (Lefebvre 2020), chapter 2: the factorization of Alg. 2.1 line 4
 * and Alg. 2.2 line 2, the DOWNDATE of Alg. 2.3 and the CHOLSOLVE of Alg. 2.4.
 *
 * Storage: an m x m array of doubles. The input is a symmetric matrix in
 * row-major order (being symmetric, it reads the same column-major). The
 * factor L overwrites it column by column: L(r, c), r >= c, is at
 * L[c * m + r], so a column of L is contiguous, which is how Alg. 2.3 walks
 * it. Entries above the diagonal of L (r < c) are left as they were and are
 * never read. */
#ifndef HEFT_DENSE_CHOLESKY_H
#define HEFT_DENSE_CHOLESKY_H

#include <stddef.h>

/* Factors the symmetric positive definite a (m x m) in place into L.
 * Returns 0, or k + 1 when the pivot of column k is not positive and finite
 * (a is then partly overwritten; no NaN is produced by the factorization
 * itself). */
int heft_dense_cholesky_factor(double *a, int m);

/* Solves L L^T x = x in place. */
void heft_dense_cholesky_solve(const double *L, int m, double *x);

/* Alg. 2.3: removes row and column i from the matrix L L^T, in place. Only
 * the trailing block (columns i+1..m-1) changes; column i is left as it is
 * and must be skipped from then on (Alg. 2.4). Removing several rows must be
 * done in ascending order of i, each on the result of the previous one.
 * sigma: m doubles of scratch. Returns 0, or -1 when a non-finite number
 * appeared (the input held one). */
int heft_dense_cholesky_remove(double *L, int m, int i, double *sigma);

/* Alg. 2.4: solves L_FF L_FF^T x_F = x_F where F is the set of rows with
 * removed[r] == 0 and L holds L_FF in place (after heft_dense_cholesky_remove
 * of every removed row). The removed entries of x are set to 0. */
void heft_dense_cholesky_solve_skipping(const double *L, int m, const unsigned char *removed,
                                        double *x);

/* Copies columns first..m-1 of the factor src into dst (lower parts only). */
void heft_dense_cholesky_copy_columns(double *dst, const double *src, int m, int first);

#endif
