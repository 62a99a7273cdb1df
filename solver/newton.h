/* Heft: semismooth Newton on the box-friction MLCP, the first stage of the
 * pivoting family's backstop (private header; newton.c,
 * docs/friction-backstop.md).
 *
 * Block pivoting takes a full step to the point its index sets give and
 * re-reads the sets by a fixed rule; on the friction coupling it cycles,
 * and a singular A_FF (redundant contacts) stops its factorization. The
 * Newton stage solves the same linear systems but keeps only steps that
 * lower the error measure (a line search on it), reads the sets off each
 * new point, and factors the coupled, nonsymmetric system of the free rows
 * in skyline storage without pivoting, dropping the rows whose pivot
 * vanishes (they are dependent: their step is zero). It converges fast from
 * near an answer and ends exactly there; it is not finite in theory, so it
 * has a budget and says when it did not finish (Lemke's method is the
 * finite stage behind it). */
#ifndef HEFT_SOLVER_NEWTON_H
#define HEFT_SOLVER_NEWTON_H

#include <stddef.h>
#include <stdint.h>

#include "body_space.h"
#include "envelope.h"
#include "mlcp.h"
#include "ordering.h"

typedef enum heft_newton_status {
    HEFT_NEWTON_SOLVED = 0,  /* the answer is within the tolerance */
    HEFT_NEWTON_STALLED = 1, /* no step lowered the error any more */
    HEFT_NEWTON_BUDGET = 2,  /* the step budget ran out */
    HEFT_NEWTON_FAILED = 3   /* out of memory or a non-finite number: no answer */
} heft_newton_status;

typedef struct heft_newton_result {
    int status;        /* heft_newton_status */
    int steps;         /* Newton steps (factorizations of the coupled system) */
    int line_searches; /* trial points evaluated beyond the full steps */
    int dropped;       /* rows dropped as dependent, over every step */
    int outside;       /* coupling entries dropped for lying outside A's envelope (a
                          dense A with an exact zero where the structure has none) */
    int held_rounds;   /* steps solved again after holding rows that left their boxes */
    int envelope;      /* numbers in each envelope array (heft_ordering_room), 0 in body
                          space */
    double error_max;  /* J, heft_mlcp_measure of the answer (INFINITY when none) */
} heft_newton_result;

/* Grow-only workspace, kept by the solver that uses it. */
typedef struct heft_newton {
    heft_ordering ordering;
    int ordering_valid;
    heft_envelope_work env;
    size_t *start;
    double *A_sky, *lower, *upper;
    double *lambda, *trial, *w, *wt, *dir, *g, *kappa, *diag, *px, *py, *best;
    uint8_t *set, *trial_set;
    unsigned char *out;
    /* the free rows' envelope (skyline_lu.h heft_lu_gather), k_prev its map from
     * A's rows, k_scale the kept rows' pivot scales */
    int *k_row, *k_prev, *k_last;
    size_t *k_start;
    double *k_scale;
    unsigned char *k_out;
    /* set by the caller when no stage follows (Lemke's method cannot take
     * the problem): a start then ends only when it stalls or stops making
     * progress (NEWTON_STAGNANT steps that lower its error by less than a fifth), not on a
     * run of short steps that still lower the error */
    int last_stage;
    /* the direction in body space (newton.c "In body space"): the island
     * taken, this start's use of it, and body space turned off (tests) */
    heft_body_space body;
    int body_active, body_off;
    size_t start_cap, A_sky_cap, lower_cap, upper_cap, lambda_cap, trial_cap, w_cap, wt_cap,
        dir_cap, g_cap, kappa_cap, diag_cap, px_cap, py_cap, best_cap, set_cap, trial_set_cap,
        out_cap, k_row_cap, k_prev_cap, k_last_cap, k_start_cap, k_scale_cap, k_out_cap;
} heft_newton;

/* From start (n values, any; non-finite ones read as 0), at most max_steps
 * Newton steps towards an answer with heft_mlcp_measure's max within tau
 * (J). answer gets the point with the smallest error seen, clamped into its
 * boxes. measure_work: n + 6 nbodies doubles. p must pass heft_mlcp_check. */
void heft_newton_solve(heft_newton *ws, const heft_mlcp *p, const double *start, double tau,
                       int max_steps, double *answer, double *measure_work,
                       heft_newton_result *result);

/* Sizes ws for problems of up to rows rows on bodies bodies whose
 * envelope arrays hold at most envelope numbers (heft_ordering_room; 0:
 * those are sized at their first use), so that solving them in the rows
 * allocates nothing. Returns 0 when memory runs out. */
int heft_newton_reserve(heft_newton *ws, int rows, int bodies, int envelope);

void heft_newton_release(heft_newton *ws);

#endif
