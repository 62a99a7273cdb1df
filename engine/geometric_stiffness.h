/* Geometric stiffness (Andrews, Teichmann & Kry, "Geometric Stiffness for
 * Real-time Constrained Multibody Dynamics", Eurographics 2017; docs/architecture.md
 * "The step", 4). Private to the library. */
#ifndef HEFT_GEOMETRIC_STIFFNESS_H
#define HEFT_GEOMETRIC_STIFFNESS_H

#include "joint.h"

/* Adds, for each dynamic body of the joint, the column norms of the
 * derivative of that body's constraint impulse J_body^T lambda (lambda: the
 * joint's impulses of the last step, N s) with respect to its own pose (three
 * translations, three rotations about the world axes) to k (6 per body
 * index: N s/m three times, then N m s/rad three times). bodies is modified
 * and restored (poses are perturbed to difference the joint's Jacobian). */
void geometric_stiffness_accumulate(const joint *j, body *bodies, const row_context *ctx,
                                    double *k);

/* The same for one joint without touching bodies, so that joints sharing a
 * body can run at once: out receives end a's six sums, then end b's (zero
 * for an end that is not dynamic). The joint's end indices change while it
 * runs and are restored: nothing else may read the joint meanwhile. Returns
 * 0, or -1 for a joint whose rows read other joints' bodies (gear, rack),
 * left to geometric_stiffness_accumulate. */
int geometric_stiffness_of_joint(joint *j, const body *bodies, const row_context *ctx,
                                 double out[12]);

/* The joints whose geometric stiffness was asked for this step and cannot
 * act: the world's solver is iterative (heft_step_stats). */
struct heft_world;
int geometric_stiffness_skipped(const struct heft_world *w);

#endif
