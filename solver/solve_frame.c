#include "solve_frame.h"

#include <string.h>

int heft_solve_begin(const heft_mlcp *p, heft_solver_stats *stats, heft_solve_frame *frame) {
    frame->start = heft_time_ms();
    memset(stats, 0, sizeof *stats);
    stats->n = p->n;
    if (p->n < 0 || (p->A == NULL && p->rows == NULL && p->n > 0))
        return HEFT_SOLVE_FAILED;
    if (p->n == 0) {
        stats->converged = 1;
        return HEFT_SOLVE_OK;
    }
    return -1;
}

heft_mlcp_error heft_solve_finish(const heft_mlcp *p, const double *lambda, int converged,
                                  const heft_solve_frame *frame, double *measure_work,
                                  heft_solver_stats *stats) {
    const heft_mlcp_error err = heft_mlcp_measure(p, lambda, measure_work);
    stats->error_max = err.max;
    stats->error_sum = err.sum;
    stats->bound_violations = err.bound_violations;
    stats->converged = converged;
    stats->time_total_ms = heft_time_ms() - frame->start;
    return err;
}

void heft_stats_add_stage(heft_solver_stats *stats, const heft_solver_stats *stage) {
    stats->backstops += 1 + stage->backstops;
    stats->backstop_pivots += stage->backstop_pivots;
    stats->newton_steps += stage->newton_steps;
    stats->pgs_sweeps += stage->pgs_sweeps;
    stats->restarts += stage->restarts;
    stats->frozen_rounds += stage->frozen_rounds;
    stats->factorizations += stage->factorizations;
    stats->downdates += stage->downdates;
    stats->inner_iterations += stage->iterations;
}
