/* Heft: adaptive regularization of the friction rows (private header; paper
 * [Ho 2022] §5.4, Alg. 9), an option of bpp, bpp-pcg and pgcg.
 *
 * Each friction row counts how often it went into or out of the tight sets
 * (PIVOTCOUNT(i)); past its limit d_i (initially
 * options.regularization_pivot_limit), and while free, its diagonal in the
 * linear solves of A_FF gets options.regularization_shift more and d_i
 * doubles. Only the solves see the shift: w = A lambda - b and the error
 * measure use the problem's A, so a shifted free friction row is left with
 * w_i = -shift lambda_i, the "instantaneous slip" the paper accepts. */
#ifndef HEFT_ADAPTIVE_REGULARIZATION_H
#define HEFT_ADAPTIVE_REGULARIZATION_H

#include <stddef.h>
#include <stdint.h>

#include "mlcp.h"

typedef struct heft_adaptive_reg {
    int n;
    int *pivots;   /* PIVOTCOUNT per row */
    int *limit;    /* d per row */
    double *shift; /* the diagonal shift per row, added by the solves of A_FF */
    size_t pivots_cap, limit_cap, shift_cap;
} heft_adaptive_reg;

/* Starts a solve of n rows: counts 0, limits d0, shifts 0. Returns 0 or -1
 * when out of memory. */
int heft_adaptive_reg_begin(heft_adaptive_reg *r, int n, int initial_limit);

/* One outer iteration's pivots (set -> next, BPP_FREE = 0 meaning free), then
 * Alg. 9 on the friction rows free in next. Returns the number of rows shifted
 * now (the solves must then use the new diagonal). */
int heft_adaptive_reg_update(heft_adaptive_reg *r, const heft_mlcp *p, const uint8_t *set,
                             const uint8_t *next, double epsilon);

void heft_adaptive_reg_release(heft_adaptive_reg *r);

#endif
