/* Heft: preconditioned conjugate gradient on a symmetric sparse matrix
 * (private header; paper 004 Alg. 8). */
#ifndef HEFT_PCG_H
#define HEFT_PCG_H

#include <stddef.h>

#include "precond.h"
#include "sparse_sym.h"

typedef struct heft_pcg_work {
    double *r, *z, *q, *Aq;
    size_t r_cap, z_cap, q_cap, Aq_cap;
} heft_pcg_work;

typedef struct heft_pcg_result {
    int iterations;
    double residual;  /* ||b - A x|| at the end (the recurrence's) */
    int converged;    /* residual <= tolerance * ||b|| */
} heft_pcg_result;

/* Solves A x = b from the guess in x (004 §5.3 warm start; Alg. 8 line 3
 * starts from 0), until ||r|| <= tolerance ||b|| or max_iterations. P may be
 * NULL (plain CG, Alg. 3). Returns iterations -1 when out of memory. */
heft_pcg_result heft_pcg_solve(const heft_sparse_sym *A, const heft_precond *P, const double *b,
                               double *x, double tolerance, int max_iterations,
                               heft_pcg_work *w);

int heft_pcg_reserve(heft_pcg_work *w, int n);
void heft_pcg_release(heft_pcg_work *w);

#endif
