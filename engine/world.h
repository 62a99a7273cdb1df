/* The world as the engine stores it. Private to the library. */
#ifndef HEFT_WORLD_H
#define HEFT_WORLD_H

#include "arena.h"
#include "body.h"
#include "joint.h"
#include "shape.h"

/* Persistent solver state of one island, matched across steps by the
 * island's lowest body index and reset when its rows change. */
typedef struct island_slot {
    int32_t key;         /* lowest body index of the island */
    uint64_t signature;  /* hash of the island's rows (bodies, kinds) */
    void *state;
    int used;            /* seen in the current step */
} island_slot;

struct heft_world {
    heft_world_def def;
    char solver_name[32];
    const heft_solver_vtable *solver;
    void *fallback_state;   /* a pgs state for islands whose answer is not finite */

    body *bodies;
    int body_capacity, body_high; /* body_high: one past the highest index ever used */
    int body_free;                /* free list head, -1 if none */
    int body_live;

    joint *joints;
    int joint_capacity, joint_high, joint_free, joint_live;

    shape *shapes;
    int shape_capacity, shape_high, shape_free, shape_live;

    contact_set contacts;

    island_slot *slots;
    int slot_count, slot_capacity;

    heft_island_stats *island_stats;
    int island_stats_capacity;
    heft_step_stats stats;

    heft_island_callback island_callback;
    void *island_callback_user;

    arena scratch;
    double time;
    int64_t steps;
};

/* id helpers (world.c) */
body *world_body(const heft_world *w, heft_body_id id);
joint *world_joint(const heft_world *w, heft_joint_id id);

/* grows a persistent array to hold at least need elements */
int world_grow(void **array, int *capacity, int need, size_t element_size);

#endif
