/* Heft: projected Gauss-Seidel inside other solvers. The pivoting solvers
 * (bpp.c) restart a stalled solve from the index sets of a PGS answer; they
 * hold a PGS state of their own and reserve its workspace with theirs, so
 * that a solve of a size already seen allocates nothing. */
#ifndef HEFT_SOLVER_PGS_H
#define HEFT_SOLVER_PGS_H

#include "mlcp.h"

extern const heft_solver_vtable heft_pgs_solver;

/* Makes a PGS state (heft_pgs_solver.create) ready to solve problems of p's
 * size without allocating. Returns 0 when out of memory. */
int heft_pgs_reserve(void *state, const heft_mlcp *p);

#endif
