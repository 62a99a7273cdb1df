/* Heft: preconditioners of the PCG family behind one interface (private
 * header; [Ho 2022] §4.1).
 *
 *   jacobi         P = diag(A_FF)
 *   ic0            IC(0), Alg. 4: L has the pattern of tril(A_FF); fails on a
 *                  non-positive pivot (breakdown)
 *   ic0-shift      IC(0) of A_FF + gamma diag(A_FF) (§4.1.2, diagonal
 *                  compensation), gamma = 0, then 1e-3 doubled until the
 *                  factorization completes
 *   ict            Alg. 5: fill kept when above the column's drop tolerance
 *                  tau_i = eps ||a_i||, at most p off-diagonals per column;
 *                  on a breakdown, retried with the growing shift of ic0-shift
 *   ic0-imaginary  Alg. 6 (factor) and Alg. 7 (solve): IC(0) that marks a
 *                  column imaginary (eta_i = -1) where its pivot is negative
 *                  instead of failing; the default
 *
 * With eta = diag(eta_i), the imaginary factor is P = L eta L^T with L real:
 * column i of the complex factor is L_i times sqrt(eta_i), and L L^H of the
 * complex factor is L eta L^T ([Ho 2022] eq. 4.3). */
#ifndef HEFT_PRECOND_H
#define HEFT_PRECOND_H

#include <stddef.h>

#include "mlcp.h"
#include "sparse_sym.h"

/* The kinds are heft_preconditioner (mlcp.h). */
/* "jacobi", "ic0", "ic0-shift", "ict", "ic0-imaginary" */
const char *heft_precond_name(int kind);
/* -1 for an unknown name */
int heft_precond_parse(const char *name);

typedef struct heft_precond {
    int kind;
    int n;
    double ict_drop; /* ICT's eps */
    int ict_fill;    /* ICT's p */
    /* results of the last compute */
    int imaginary_columns; /* ic0-imaginary: columns with eta_i = -1 */
    double shift;          /* ic0-shift, ict: the gamma that worked */
    int attempts;          /* factorizations tried */
    /* the factor: compressed columns, diagonal first (or diag for jacobi) */
    int *col_start, *row;
    double *val;
    signed char *eta;
    /* ICT's left-looking scratch */
    double *work;
    int *pattern, *head, *link, *next_entry, *marker;
    size_t col_start_cap, row_cap, val_cap, eta_cap, work_cap, pattern_cap, head_cap, link_cap,
        next_entry_cap, marker_cap;
} heft_precond;

/* Sets kind and the ICT parameters (drop 1e-3, fill 10). */
void heft_precond_init(heft_precond *P, int kind);

/* Computes P for the SPD matrix a. Returns 0, 1 on a breakdown (plain ic0 met
 * a non-positive pivot: P is unusable), -1 when out of memory. */
int heft_precond_compute(heft_precond *P, const heft_sparse_sym *a);

/* z = P^-1 r (z may not alias r) */
void heft_precond_apply(const heft_precond *P, const double *r, double *z);

void heft_precond_release(heft_precond *P);

/* Reports the preconditioner just computed in stats: imaginary_columns (the
 * last one's) and the two sums over the solve. */
void heft_precond_count(const heft_precond *P, heft_solver_stats *stats);

#endif
