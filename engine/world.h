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
 * island's stable id and reset when its rows change. */
typedef struct island_slot {
    int64_t key;        /* the island's id (island.id) */
    uint64_t signature; /* hash of the island's rows (bodies, kinds) */
    void *state;
    int used;  /* seen in the current step */
    int fresh; /* made in this step, its signature not yet set */
} island_slot;

/* One worker of the application's task system (island_tasks.c): the memory
 * an island's MLCP is built in and the rescue its solve may run, so that
 * islands solved at the same time share nothing. */
typedef struct island_worker {
    arena scratch;
    narrow_scratch narrow; /* the narrowphase's, for the pairs this worker collides */
    heft_fallback *fallback;
    heft_solver_options options; /* the ones fallback was made with */
} island_worker;

/* A persistent island (engine/island.c): dynamic bodies joined by joints
 * and contacts, kept from step to step. Joined when a joint or contact first
 * joins two of them, split when one of its links has ended. */
typedef struct island {
    int64_t id;         /* stable and never reused (keys the solver states); 0 when free */
    int32_t body_first; /* its bodies (body.island_next), -1 when empty */
    int body_count;
    int32_t free_next; /* free list of island slots */
    int links_removed; /* joints and contacts between its bodies ended since its last split */
    int sleeping;      /* the step skips its bodies, rows and solve */
    int step_index;    /* index in the step's island set, -1 */
} world_island;

/* The states of the current solver for every island, ascending by key. */
typedef struct island_slots {
    island_slot *items;
    int count, capacity;
} island_slots;

/* the step's kinds of task world_tasks_run keeps a record of (there are
 * about twenty); a kind beyond them is always handed out */
#define WORLD_TASK_KINDS 32

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

    /* persistent islands and sleeping (engine/island.c, engine/sleep.c); the
     * settings are in def (enable_sleep, sleep_*_speed, time_to_sleep) */
    world_island *islands;
    int island_capacity, island_high, island_free, island_live;
    int64_t island_next_id;
    int32_t *island_scratch; /* the split's lists */
    int island_scratch_capacity;
    int wake_contacts_pending; /* bodies with wake_contacts set */
    /* bodies that woke and fell asleep in the last step and by calls since
     * (heft_world_body_events) */
    heft_body_id *woke_events, *slept_events;
    int woke_count, woke_capacity;
    int slept_count, slept_capacity;

    island_slots velocity_slots; /* the step's MLCPs */
    island_slots position_slots; /* post-stabilization's projections */

    heft_island_stats *island_stats;
    int island_stats_capacity;
    int island_stats_count; /* islands of the last (sub)step in island_stats */
    heft_step_stats stats;

    heft_island_callback island_callback;
    void *island_callback_user;

    /* the application's task system (heft_world_set_task_system); worker_count
     * is 0 without one */
    heft_enqueue_task_fn *enqueue_task;
    heft_finish_task_fn *finish_task;
    void *task_user;
    int worker_count;
    island_worker *workers;
    /* the step's tasks that last ran too briefly to pay for the task
     * system's round trip, and run on the stepping thread for now
     * (world_tasks_run); cleared with the task system */
    struct world_task_kind {
        heft_task_fn *task;
        int on_caller;    /* calls left on the stepping thread before it is handed out again */
        int shared_left;  /* calls handed out before one on the stepping thread, to time it */
        double caller_us; /* its last time on the stepping thread, us; -1: not yet run there */
    } task_kinds[WORLD_TASK_KINDS];
    int task_kind_count;
    /* rows and bodies the rescues' scratch is reserved for (island_tasks.c),
     * ahead of the largest island */
    int rescue_rows, rescue_bodies;
    /* rows and bodies of the largest island reserved ahead
     * (heft_world_capacity.rows): each new island state is sized for them */
    int reserved_rows, reserved_bodies, reserved_envelope;

    arena scratch;
    double time;
    int64_t steps;

    /* collision (collision/): the broad phase, and restitution only above this speed */
    broad_phase broad;
    double restitution_threshold;
};

/* island solver states (island_slots.c) */
void *island_slots_state(heft_world *w, island_slots *set, int64_t key, uint64_t signature);
/* The same in two halves, so that the signature can be found on a worker:
 * claim finds or makes key's slot (it allocates and reorders the slots, and
 * a pointer it returned lasts until the next claim); match then resets the
 * slot's state when signature is not the one it was used with (the state's
 * own memory only). */
island_slot *island_slots_claim(heft_world *w, island_slots *set, int64_t key);
island_slot *island_slots_find(island_slots *set, int64_t key);
void island_slot_match(heft_world *w, island_slot *s, uint64_t signature);
void island_slots_keep(island_slots *set, int64_t key); /* an island without rows keeps its state */
void island_slots_keep_sleeping(heft_world *w,
                                island_slots *set);        /* sleeping islands keep theirs */
void island_slots_sweep(heft_world *w, island_slots *set); /* drops states not used this step */
void island_slots_clear(heft_world *w, island_slots *set); /* drops every state */

/* parallel islands (island_tasks.c) */
/* Readies the workers for a step: arenas reset, rescues made for the current
 * solver options. 0 when out of memory. */
int island_workers_prepare(heft_world *w, int max_rows, int max_bodies);
/* Sizes the rescues (the step's, each worker's) for islands of rows rows on
 * bodies bodies from now on; 0 when memory runs out. */
int island_workers_reserve(heft_world *w, int rows, int bodies);
/* Runs task over items [0, count): on the task system when there is one,
 * else on the calling thread as worker 0. */
void island_tasks_run(heft_world *w, heft_task_fn *task, int count, void *context);
/* The same with ranges of at least min_range items (for cheap items). */
void world_tasks_run(heft_world *w, heft_task_fn *task, int count, int min_range, void *context);
/* The narrowphase scratch of worker (the broad phase's without workers). */
narrow_scratch *island_worker_narrow(heft_world *w, int worker);
/* A worker's memory and rescue; without a task system, the world's own. */
arena *island_worker_arena(heft_world *w, int worker);
heft_fallback *island_worker_fallback(heft_world *w, int worker);
void island_workers_release(heft_world *w);

/* post-stabilization (post_stabilization.c): projects the joints' positions
 * back onto their constraints without adding energy to an island; fills the
 * post_stabilization_* fields of st (the largest joint error left, the
 * islands limited, the energy change) */
struct island_set;
typedef struct post_pass post_pass;
/* The memory of the step's post-stabilization, or NULL when out of scratch
 * memory (then no projection). */
post_pass *post_stabilize_begin(heft_world *w, const struct island_set *is);
/* Island k's poses and energy before the projections, from a task once its
 * bodies have moved. */
void post_stabilize_save_island(post_pass *pp, int k);
/* With a direct solver, readies each island's projections, energy guard
 * and joint gaps to run in its own item of the step's island task
 * (post_stabilize_island, after post_stabilize_save_island); 0 when they
 * run as post_stabilize's own tasks instead (an iterative solver, or out of
 * scratch memory). */
int post_stabilize_plan(heft_world *w, const struct island_set *is, double h, post_pass *pp);
void post_stabilize_island(post_pass *pp, arena *a, int k);
/* saved: every island's post_stabilize_save_island has run (and with a
 * plan, its post_stabilize_island) */
void post_stabilize(heft_world *w, const struct island_set *is, double h, heft_step_stats *st,
                    post_pass *pp, int saved);

/* the Baumgarte factor of rigid joint rows with the current solver */
double world_joint_baumgarte(const heft_world *w);

/* id helpers (world.c) */
body *world_body(const heft_world *w, heft_body_id id);
/* The same, or NULL with a message naming function and saying why (the
 * world NULL, or the id never made or destroyed since); body.c. */
body *live_body(const heft_world *w, heft_body_id id, const char *function);
joint *world_joint(const heft_world *w, heft_joint_id id);
/* the same, setting heft_last_error (naming function) when there is none */
joint *world_joint_or_error(const heft_world *w, heft_joint_id id, const char *function);

#endif
