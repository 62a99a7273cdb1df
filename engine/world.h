/* The world as the engine stores it. Private to the library. */
#ifndef HEFT_WORLD_H
#define HEFT_WORLD_H

#include "arena.h"
#include "mlcp.h"
#include "array.h"
#include "body.h"
#include "broad_phase.h"
#include "joint.h"
#include "contact.h"
#include "shape.h"

/* Persistent solver state of one island, matched across steps by the
 * island's lowest body index and reset when its rows change. */
typedef struct island_slot {
    int32_t key;        /* lowest body index of the island */
    uint64_t signature; /* hash of the island's rows (bodies, kinds) */
    void *state;
    int used; /* seen in the current step */
} island_slot;

/* The states of the current solver for every island, ascending by key. */
typedef struct island_slots {
    island_slot *items;
    int count, capacity;
} island_slots;

struct heft_world {
    heft_world_def def;
    heft_solver_options solver_options; /* heft_world_set_solver_options */
    char solver_name[32];
    const heft_solver_vtable *solver;
    heft_fallback *fallback; /* the rescue of failed or unconverged island solves */

    body *bodies;
    int body_capacity, body_high; /* body_high: one past the highest index ever used */
    int body_free;                /* free list head, -1 if none */
    int body_live;

    joint *joints;
    int joint_capacity, joint_high, joint_free, joint_live;

    shape *shapes;
    int shape_capacity, shape_high, shape_free, shape_live;

    contact_set contacts;
    /* joints broken in the current step (heft_world_joint_events) */
    heft_joint_broken_event *broken_events;
    int broken_count, broken_capacity;

    island_slots velocity_slots; /* the step's MLCPs */
    island_slots position_slots; /* post-stabilization's projections */

    heft_island_stats *island_stats;
    int island_stats_capacity;
    int island_stats_count; /* islands of the last (sub)step in island_stats */
    heft_step_stats stats;

    heft_island_callback island_callback;
    void *island_callback_user;

    arena scratch;
    double time;
    int64_t steps;

    /* collision (collision/): the broad phase, and restitution only above this speed */
    broad_phase broad;
    double restitution_threshold;
};

/* island solver states (island_slots.c) */
void *island_slots_state(heft_world *w, island_slots *set, int32_t key, uint64_t signature);
void island_slots_keep(island_slots *set, int32_t key); /* an island without rows keeps its state */
void island_slots_sweep(heft_world *w, island_slots *set); /* drops states not used this step */
void island_slots_clear(heft_world *w, island_slots *set); /* drops every state */

/* post-stabilization (post_stabilization.c): projects the joints' positions
 * back onto their constraints without adding energy to an island; fills the
 * post_stabilization_* fields of st (the largest joint error left, the
 * islands limited, the energy change) */
struct island_set;
void post_stabilize(heft_world *w, const struct island_set *is, double h, heft_step_stats *st);

/* the Baumgarte factor of rigid joint rows with the current solver */
double world_joint_baumgarte(const heft_world *w);

/* id helpers (world.c) */
body *world_body(const heft_world *w, heft_body_id id);
joint *world_joint(const heft_world *w, heft_joint_id id);
/* the same, setting heft_last_error (naming function) when there is none */
joint *world_joint_or_error(const heft_world *w, heft_joint_id id, const char *function);

#endif
