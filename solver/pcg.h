/* Heft: preconditioned conjugate gradient on a symmetric sparse matrix
 * (private header; [Ho 2022] Alg. 8). */
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
    double residual; /* ||b - A x|| at the end (the recurrence's) */
    int converged;   /* residual <= tolerance * ||b|| */
} heft_pcg_result;

/* When a PCG solve stops (Alg. 8 line 18): ||r|| <= relative ||b|| and, when
 * energy > 0, no row's residual worth more than energy joules,
 * r_i^2 / (2 A_ii) <= energy (the yardstick of the MLCP error: an inexact
 * solve then moves no row's answer by more than the solvers' tolerance);
 * or max_iterations. */
typedef struct heft_pcg_stop {
    double relative;
    double energy;
    int max_iterations;
} heft_pcg_stop;

/* The adaptive PCG tolerance of bpp-pcg and pgcg: when the index sets held
 * but the inexact solves left friction rows off the bounds of their new
 * normal impulses, the relative tolerance is multiplied by HEFT_PCG_TIGHTEN,
 * down to HEFT_PCG_TOLERANCE_FLOOR (about 450 ulps of ||b_F||), for the rest
 * of that solve (docs/pcg.md "The adaptive PCG tolerance"). */
#define HEFT_PCG_TIGHTEN 1e-4
#define HEFT_PCG_TOLERANCE_FLOOR 1e-13

/* Solves A x = b from the guess in x ([Ho 2022] §5.3 warm start; Alg. 8 line 3
 * starts from 0). P may be NULL (plain CG, Alg. 3). Returns iterations -1
 * when out of memory. */
heft_pcg_result heft_pcg_solve(const heft_sparse_sym *A, const heft_precond *P, const double *b,
                               double *x, heft_pcg_stop stop, heft_pcg_work *w);

/* The stopping test on a residual r of A (diagonal first in each column). */
int heft_pcg_done(const heft_sparse_sym *A, const double *r, double rnorm, double bnorm,
                  heft_pcg_stop stop);

int heft_pcg_reserve(heft_pcg_work *w, int n);
void heft_pcg_release(heft_pcg_work *w);

#endif
