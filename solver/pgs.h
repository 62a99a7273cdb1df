/* Heft: projected Gauss-Seidel inside other solvers. The pivoting solvers
 * (bpp.c, pgcg.c) restart a stalled solve from the index sets of a PGS
 * answer (heft_bpp_pgs_answer); they hold a PGS state of their own and
 * reserve its workspace with theirs, so that a solve of a size already seen
 * allocates nothing. */
#ifndef HEFT_SOLVER_PGS_H
#define HEFT_SOLVER_PGS_H

#include "mlcp.h"

extern const heft_solver_vtable heft_pgs_solver;

/* Makes a PGS state (heft_pgs_solver.create) ready to solve problems of p's
 * size without allocating. Returns 0 when out of memory. */
int heft_pgs_reserve(void *state, const heft_mlcp *p);
/* The same for problems of n rows on nbodies bodies, in the structured form
 * when structured is non-zero (the dense form's needs are a part of it). */
int heft_pgs_reserve_size(void *state, int n, int nbodies, int structured);

/* A PGS state (heft_pgs_solver.create's) that solves the problems as they
 * are, with no position pass and nothing remembered (docs/pgs.md): the
 * rescues and restarts inside other solvers, whose answers are compared by
 * their MLCP error. NULL when out of memory. */
void *heft_pgs_create_inner(const heft_solver_options *options);

/* The PGS state of a pivoting solver's restart: from the problem's lambda0,
 * options->bpp_pgs_sweeps sweeps unrelaxed, stopping at options->tolerance.
 * NULL when out of memory; heft_pgs_solver.destroy releases it. */
void *heft_pgs_create_for_restart(const heft_solver_options *options);

/* With plain = 1 a PGS state sweeps the rows in their own order and runs
 * the update of every row, also where it cannot move (the default, 0, sweeps
 * them in schedule_rows' order and skips the rows boxed at [0, 0]): the
 * reference the sweep's answers are tested against, bit for bit
 * (docs/pgs.md "The sweep's order and the rows it skips"). */
void heft_pgs_plain_sweep(void *state, int plain);

#endif
