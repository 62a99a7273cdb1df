/* Heft: symmetric sparse matrices in compressed columns, lower triangle only
 * (private header of the solver library; [Ho 2022] §6: "a compressed sparse
 * column format is used to store the incomplete Cholesky factorizations and
 * other sparse matrices").
 *
 * Column j holds its diagonal first, then the entries below it in ascending
 * row order. The PCG family works on principal submatrices A_FF of A, one per
 * free set; heft_sparse_sym_principal cuts one out in O(nnz(A)) with no
 * search, into arrays that only grow. */
#ifndef HEFT_SPARSE_SYM_H
#define HEFT_SPARSE_SYM_H

#include <stddef.h>

#include "mlcp.h"

typedef struct heft_sparse_sym {
    int n;
    int *col_start; /* n + 1 */
    int *row;       /* nnz */
    double *val;    /* nnz */
    size_t col_start_cap, row_cap, val_cap;
    /* scratch of the assembly from the structured form */
    double *acc, *response;
    int *mark, *touched, *body_start, *body_rows;
    size_t acc_cap, response_cap, mark_cap, touched_cap, body_start_cap, body_rows_cap;
} heft_sparse_sym;

static inline int heft_sparse_sym_nnz(const heft_sparse_sym *a) {
    return a->col_start[a->n];
}

/* The lower triangle of p's A, from the dense A when present, else from the
 * structured form (rows sharing a body couple through that body's M^-1).
 * Entries exactly zero are not stored (diagonals always are). Returns 0, or
 * -1 when out of memory. */
int heft_sparse_sym_from_mlcp(heft_sparse_sym *a, const heft_mlcp *p);

/* The principal submatrix of the rows with keep[i] != 0, numbered in order;
 * local[i] gets row i's place in it (-1 when dropped). shift (may be NULL)
 * is added to the kept diagonals (adaptive regularization, [Ho 2022] Alg. 9).
 * Returns the size, or -1 when out of memory. */
int heft_sparse_sym_principal(const heft_sparse_sym *a, const unsigned char *keep,
                              const double *shift, heft_sparse_sym *out, int *local);

/* y = A x */
void heft_sparse_sym_multiply(const heft_sparse_sym *a, const double *x, double *y);

void heft_sparse_sym_release(heft_sparse_sym *a);

/* Both triangles of a symmetric matrix in compressed columns, each column's
 * rows ascending: column j of A in O(its entries), where the lower triangle
 * alone needs a pass over every earlier column. */
typedef struct heft_sparse_full {
    int n;
    int *col_start; /* n + 1 */
    int *row;       /* nnz */
    double *val;    /* nnz */
    int *fill;      /* n, scratch */
    size_t col_start_cap, row_cap, val_cap, fill_cap;
} heft_sparse_full;

/* f from the lower triangle a, into arrays that only grow. Returns 0, or -1
 * when out of memory. */
int heft_sparse_full_from_sym(heft_sparse_full *f, const heft_sparse_sym *a);

void heft_sparse_full_release(heft_sparse_full *f);

#endif
