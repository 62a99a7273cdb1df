/* Heft: the frame every solver's solve() runs in (private header of the
 * solver library). The start zeroes the statistics, records the problem's
 * size, starts the clock and refuses a problem no solver can take; the end
 * measures the answer by the one error measure (mlcp-format.md), records
 * whether it converged and the total time. Each solver adds only what is its
 * own: its phases' times and counts. */
#ifndef HEFT_SOLVE_FRAME_H
#define HEFT_SOLVE_FRAME_H

#include "mlcp.h"

typedef struct heft_solve_frame {
    double start; /* heft_time_ms() at the start */
} heft_solve_frame;

/* Returns HEFT_SOLVE_FAILED for a problem with a negative size or, with rows
 * to solve, neither A nor the structured form; HEFT_SOLVE_OK (converged)
 * when there is nothing to solve (n == 0); -1 when the solve goes on. */
int heft_solve_begin(const heft_mlcp *p, heft_solver_stats *stats, heft_solve_frame *frame);

/* Fills stats' error fields from lambda (measure_work: n + 6 nbodies
 * doubles), converged and time_total_ms, and returns the measurement (its
 * nonfinite count tells a solver whether it has an answer at all). */
heft_mlcp_error heft_solve_finish(const heft_mlcp *p, const double *lambda, int converged,
                                  const heft_solve_frame *frame, double *measure_work,
                                  heft_solver_stats *stats);

/* heft_mlcp_measure with the rows' A_ii given (as heft_mlcp_diagonal gives
 * them, to the bit), for a solver that measures one problem several times:
 * computed for every row, they cost a measure about a third of its time.
 * diag NULL: computed. */
heft_mlcp_error heft_mlcp_measure_diagonal(const heft_mlcp *p, const double *lambda,
                                           const double *diag, double *work);

/* Adds the counts of a stage that ran another solver (stage, from that
 * solver's own solve) to stats: one more backstop run plus the stage's own
 * backstop runs, pivots, Newton steps, PGS sweeps, restarts, frozen-box
 * rounds, factorizations and downdates, and its pivoting steps as inner
 * iterations. */
void heft_stats_add_stage(heft_solver_stats *stats, const heft_solver_stats *stage);

#endif
