/* Random mechanisms for the direct solvers' tests: bodies with random masses
 * and inertias, joints of d bilateral rows with random Jacobian blocks between
 * two bodies (or a body and the world, -1), and optional frictional contacts
 * against the world. Everything is in the structured form (and META parts). */
#ifndef HEFT_TESTKIT_MECHANISMS_H
#define HEFT_TESTKIT_MECHANISMS_H

#include <stdint.h>

#include "mlcp.h"

typedef struct mech_joint {
    int a, b, d;
} mech_joint;

/* njoints joints, then ncontacts contacts (3 rows: normal, two friction with
 * mu = 0.5) on random bodies. Equality rows: b random in [-1, 1]; normal rows
 * b in [0.5, 1.5] (pressing). epsilon: eps on every row. */
heft_mlcp *mech_build(int nbodies, const mech_joint *joints, int njoints, int ncontacts, double eps,
                      uint64_t seed);

/* Joint lists (returned arrays are malloc'd; *count set). d of each joint
 * drawn from [dmin, dmax]. */
mech_joint *mech_random_tree(int nbodies, int dmin, int dmax, uint64_t seed, int *count);
/* A tree whose joints gather on a few bodies, as in a vehicle: body b hangs
 * from body floor(b u^2), u uniform in [0, 1). H is denser than a random tree's. */
mech_joint *mech_clustered_tree(int nbodies, int dmin, int dmax, uint64_t seed, int *count);
/* A closed loop of links joints, link k to link k + 1 (a tracked vehicle's track). */
mech_joint *mech_track(int links, int d, int *count);
mech_joint *mech_chain(int nbodies, int d, int loop_every, int *count); /* + loop closures */
mech_joint *mech_hub(int spokes, int dmin, int dmax, uint64_t seed, int *count); /* body 0 hub */

/* Dense reference: lambda = A^-1 b by Cholesky of the assembled A (n <= 2000). */
void mech_dense_solve(const heft_mlcp *p, double *lambda);

/* max |x - y| / max |y| */
double mech_relative(const double *x, const double *y, int n);

#endif
