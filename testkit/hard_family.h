/* The hard family of planted box-friction MLCPs (hard_family.c), beside the
 * easy one of planted.c: rows above the degrees of freedom, hence a singular
 * A, and nothing that regularizes it.
 *
 * Bodies are boxes with masses spread log-uniformly over [1, mass_ratio] kg
 * (ratios up to 1e4). Rows come as they do from a pile of boxes: four-point
 * faces (a normal and two friction rows per point: 12 rows, rank 6 at most)
 * between two bodies or a body and the world, single contact points, ball
 * joints (three bilateral rows) and boxed motor rows (a motor's pair is a
 * jointed one), with every body in several of them; a jointed pair never
 * touches (the engine filters those collisions). No row has a compliance. A solution lambda* and w*
 * of the complementarity each row asks for are chosen first (pressing, separating, sticking and
 * sliding contacts; impulses scaled with the bodies' masses) and b = A lambda* - w*. Sizes 50 to
 * 1,000 rows. Judged at 1e-10 J by heft_mlcp_measure. */
#ifndef HEFT_TESTS_HARD_FAMILY_H
#define HEFT_TESTS_HARD_FAMILY_H

#include <stdint.h>

#include "mlcp.h"

typedef struct hard_problem {
    heft_mlcp *p;     /* structured form and dense A, compliance 0 */
    double *solution; /* lambda*, n entries */
    int faces;        /* four-point faces */
    int rank;         /* rank of A (numerical, relative 1e-10), -1 when not computed */
} hard_problem;

/* A problem of about rows rows (the first block that reaches it completes;
 * at most rows + 11), masses in [1, mass_ratio]. */
hard_problem hard_family_problem(int rows, double mass_ratio, uint64_t seed);
void hard_family_free(hard_problem *hp);

/* The numerical rank of hp->p's A (a pivoted Cholesky; tests only). */
int hard_family_rank(const hard_problem *hp);

/* The member k of the family's test sweep (k = 0 .. count-1): sizes 50 to
 * max_rows, mass ratios 1, 1e2 and 1e4, seeds from k. */
hard_problem hard_family_member(int k, int max_rows);

#endif
