/* Test problems with a known answer: random boxed MLCPs whose solution is
 * chosen first (the "planted" solution) and whose b is built to fit it.
 *
 * A planted problem has an SPD matrix A (from random bodies and Jacobian rows,
 * or a random dense B B^T), a chosen lambda* and index set, and
 * b = A lambda* - w* with w* of the sign complementarity asks for each row:
 * 0 for free rows, > 0 at a lower bound, < 0 at an upper bound. Friction rows
 * are coupled to a normal row with mu (ODE's findex). Diagonal dominance is
 * added through the compliance epsilon so that PGS converges. */
#ifndef HEFT_TESTKIT_PLANTED_H
#define HEFT_TESTKIT_PLANTED_H

#include <stdint.h>

#include "mlcp.h"

/* splitmix64: the same numbers on every machine and libc. */
typedef struct planted_rng {
    uint64_t state;
} planted_rng;

uint64_t planted_next(planted_rng *rng);
double planted_uniform(planted_rng *rng, double lo, double hi);
int planted_int(planted_rng *rng, int lo, int hi_exclusive);

/* A random structured problem (no bounds, b random): n rows on nbodies
 * bodies, some rows attached to the static world, epsilon = dominance times
 * the row's off-diagonal absolute sum of J M^-1 J^T. Has META parts and a
 * dense A assembled when with_dense. */
heft_mlcp *planted_random_structured(int n, int nbodies, double dominance, int with_dense,
                                     uint64_t seed);

typedef struct planted_problem {
    heft_mlcp *p;
    double *solution;                                          /* lambda*, n entries */
    double *w;                                                 /* w* = A lambda* - b, n entries */
    int free_rows, at_lo, at_hi, sticking, sliding, separated; /* the index set, counted */
} planted_problem;

/* Planted problem on a random structured island (A assembled as well when
 * with_dense; remove p->rows to get the dense-only form). */
planted_problem planted_structured(int n, double dominance, int with_dense, uint64_t seed);
/* Planted problem on a dense-only A = B B^T / n + diagonal dominance. */
planted_problem planted_dense(int n, double dominance, uint64_t seed);
void planted_free(planted_problem *pp);

/* max_i |x_i - y_i| */
double planted_max_diff(const double *x, const double *y, int n);

/* The 240 harder planted friction problems (structured, with the friction
 * coupling: 30, 60, 120 and 240 rows, seeds 1-30, no added dominance and
 * 0.02) solved by the named solver with options o; returns how many end at
 * an MLCP error of 1e-8 J or more (or fail), and prints each of them to
 * stderr. */
int planted_hard_friction_failures(const char *solver, const heft_solver_options *o);

#endif
