/* Heft: the "ldl-pgs" solver's private hooks, for tests and benchmarks.
 *
 * The registry's create() takes only heft_solver_options; the block LDL's own
 * settings (ordering, shattering, regularization) have defaults
 * (heft_block_ldl_default_config) and may be changed on a state here. */
#ifndef HEFT_LDL_PGS_H
#define HEFT_LDL_PGS_H

#include "block_ldl.h"

/* Sets the block LDL configuration of an ldl-pgs state; the next solve redoes
 * the symbolic phase. */
void heft_ldl_pgs_configure(void *state, const heft_block_ldl_config *config);

/* The factorization of the last solve (its stats: flops, fill, sizes). */
const heft_block_ldl *heft_ldl_pgs_factorization(const void *state);

/* Symbolic phases run by this state so far (the topology cache at work). */
int heft_ldl_pgs_symbolic_count(const void *state);

#endif
