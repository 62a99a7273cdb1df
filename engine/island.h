/* Islands: union-find over dynamic bodies joined by rows (design "The step",
 * 4). Static and kinematic bodies do not join islands. Private. */
#ifndef HEFT_ISLAND_H
#define HEFT_ISLAND_H

#include "arena.h"
#include "body.h"
#include "row.h"

/* The islands of one step in compressed form: island k has the bodies
 * bodies[body_start[k] .. body_start[k+1]) and the rows
 * rows[row_start[k] .. row_start[k+1]), both ascending. Islands are ordered
 * by their lowest body index, which is also their key across steps. */
typedef struct island_set {
    int count;
    int *body_start, *bodies;
    int *row_start, *rows;
} island_set;

/* Sets island and island_local of every body (-1 for static and kinematic
 * ones). Returns 0 when the arena is out of memory. */
int islands_build(arena *a, body *bodies, int body_count, const row *rows, int row_count,
                  island_set *out);

#endif
