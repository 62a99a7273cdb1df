/* Islands (docs/architecture.md "The step", 4): dynamic bodies joined by
 * joints and contacts. They persist across steps (engine/island.c): two
 * islands are joined in the step where a joint or contact first joins two
 * of their bodies, and an island one of whose links ended is split once, in
 * the next step, by a walk of its remaining links. Static and kinematic
 * bodies do not join islands. An island is the unit that sleeps
 * (engine/sleep.c). Private. */
#ifndef HEFT_ISLAND_H
#define HEFT_ISLAND_H

#include "arena.h"
#include "body.h"
#include "row.h"

typedef struct heft_world heft_world;

/* The awake islands of one step in compressed form: island k has the bodies
 * bodies[body_start[k] .. body_start[k+1]) and the rows
 * rows[row_start[k] .. row_start[k+1]), both ascending. Islands are ordered
 * by their lowest body index; key[k] is the persistent island's id and
 * index[k] its slot in w->islands. */
typedef struct island_set {
    int count;
    int *body_start, *bodies;
    int *row_start, *rows;
    int64_t *key;
    int32_t *index;
    int moving_alone; /* awake bodies that move outside the islands (kinematic ones) */
} island_set;

/* Gives every awake dynamic body without an island one of its own. Returns 0
 * when out of memory. */
int islands_ensure(heft_world *w);
/* Joins the islands of every joint and contact between two awake dynamic
 * bodies. */
void islands_link(heft_world *w);
/* Splits every awake island whose links ended. Returns 0 when out of memory
 * (the islands then stay whole, which is only slower). */
int islands_split_marked(heft_world *w);
/* Splits island k into its connected parts (the largest keeps k's id). */
int island_split(heft_world *w, int32_t k);
/* The step's islands of awake bodies; sets island and island_local of
 * every body (-1 for static, kinematic and sleeping ones). Returns 0 when
 * the arena is out of memory. */
int islands_gather(heft_world *w, arena *a, const row *rows, int row_count, island_set *out);

/* A link of body b's island ended (a joint or contact with another dynamic
 * body): the island may have come apart. */
void island_mark_link_removed(heft_world *w, int32_t b);
/* Body b is being destroyed or stops being dynamic: out of its island. */
void island_remove_body(heft_world *w, int32_t b);
/* Frees every island (world destruction). */
void islands_release(heft_world *w);

#endif
