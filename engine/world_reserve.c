/* Capacity reserved ahead (heft_world_reserve): the arrays that grow with the
 * world's bodies, shapes, joints, contacts and pairs, and the workspaces that
 * grow with the rows of its largest island, sized once for the peak the
 * application expects, so that the steps reaching it allocate nothing. */
#include "contact.h"
#include "error.h"
#include "world.h"

/* array_grow writes the elements it adds, so what is reserved is resident
 * and the step that first uses it takes no page fault. */

static int reserve_bodies(heft_world *w, int n) {
    if (n == 0) {
        return 1;
    }
    /* a body may be a lone island; a split walks its island's bodies with four
     * lists of them (island.c) */
    return array_grow((void **)&w->bodies, &w->body_capacity, n, sizeof(body)) &&
           array_grow((void **)&w->contacts.first, &w->contacts.first_capacity, n,
                      sizeof(int32_t)) &&
           array_grow((void **)&w->islands, &w->island_capacity, n, sizeof(world_island)) &&
           array_grow((void **)&w->island_scratch, &w->island_scratch_capacity, 4 * n + 4,
                      sizeof(int32_t)) &&
           array_grow((void **)&w->island_stats, &w->island_stats_capacity, n + 1,
                      sizeof(heft_island_stats)) &&
           array_grow((void **)&w->woke_events, &w->woke_capacity, n, sizeof(heft_body_id)) &&
           array_grow((void **)&w->slept_events, &w->slept_capacity, n, sizeof(heft_body_id)) &&
           array_grow((void **)&w->velocity_slots.items, &w->velocity_slots.capacity, n,
                      sizeof(island_slot)) &&
           array_grow((void **)&w->position_slots.items, &w->position_slots.capacity, n,
                      sizeof(island_slot));
}

static int reserve_shapes(heft_world *w, int n) {
    if (n == 0) {
        return 1;
    }
    /* a tree of n leaves has 2 n - 1 nodes */
    return array_grow((void **)&w->shapes, &w->shape_capacity, n, sizeof(shape)) &&
           array_grow((void **)&w->broad.moved, &w->broad.moved_capacity, n, sizeof(int32_t)) &&
           tree_reserve(&w->broad.tree, 2 * n);
}

static int reserve_joints(heft_world *w, int n) {
    if (n == 0) {
        return 1;
    }
    return array_grow((void **)&w->joints, &w->joint_capacity, n, sizeof(joint)) &&
           array_grow((void **)&w->broken_events, &w->broken_capacity, n,
                      sizeof(heft_joint_broken_event));
}

static int reserve_contacts(heft_world *w, int n) {
    if (n == 0) {
        return 1;
    }
    contact_set *set = &w->contacts;
    /* an update holds the last step's points (for warm starts and sleeping
     * pairs) beside the new ones before it sorts them out: twice the points;
     * each point is on two bodies' lists */
    return contact_set_reserve(set, 2 * n) &&
           array_grow((void **)&set->next, &set->next_capacity, 2 * n, sizeof(int32_t));
}

static int reserve_pairs(heft_world *w, int n) {
    if (n == 0) {
        return 1;
    }
    contact_set *set = &w->contacts;
    broad_phase *bp = &w->broad;
    /* the broad phase merges an update's new pairs (found from both sides)
     * into the old ones before it drops those that parted: twice the pairs;
     * each pair may begin, end or strike once in a step */
    return array_grow((void **)&bp->pairs, &bp->pair_capacity, 2 * n, sizeof(uint64_t)) &&
           array_grow((void **)&bp->found, &bp->found_capacity, 2 * n, sizeof(uint64_t)) &&
           array_grow((void **)&set->pair_job, &set->pair_job_capacity, 2 * n + 1,
                      sizeof(int32_t)) &&
           array_grow((void **)&set->jobs, &set->job_capacity, n, sizeof(narrow_job)) &&
           array_grow((void **)&set->job_first, &set->job_first_capacity, n + 1, sizeof(int)) &&
           array_grow((void **)&set->begin_events, &set->begin_capacity, n,
                      sizeof(heft_contact_begin_event)) &&
           array_grow((void **)&set->end_events, &set->end_capacity, n,
                      sizeof(heft_contact_end_event)) &&
           array_grow((void **)&set->hit_events, &set->hit_capacity, n,
                      sizeof(heft_contact_hit_event));
}

/* The step's scratch for a world of these counts. Measured on the demo
 * scenes, a step holds 370 (stacks: contacts alone) to 1,170 bytes (a chain
 * of 101 joints) a row of all its islands, its joints' and bodies' own
 * arrays included; the step's rows are taken as the largest island's, or
 * three a contact point when that is more (islands of contacts alone). */
static size_t scratch_bytes(int rows, int bodies, int joints, int contacts) {
    const size_t contact_rows = (size_t)3 * (size_t)contacts;
    const size_t all = contact_rows > (size_t)rows ? contact_rows : (size_t)rows;
    return 1024 * (all + (size_t)bodies + (size_t)joints) + 256 * (size_t)contacts;
}

/* The step's scratch (and each worker's), the rescues and every island
 * state, present and to come, sized for an island of rows rows on the
 * reserved bodies (or the world's). */
static int reserve_rows(heft_world *w, const heft_world_capacity *c) {
    const int envelope = c->envelope > w->reserved_envelope ? c->envelope : w->reserved_envelope;
    /* an envelope alone widens the rows reserved before, or waits for them */
    const int rows = c->rows > 0 ? c->rows : (c->envelope > 0 ? w->reserved_rows : 0);
    if (rows == 0) {
        w->reserved_envelope = envelope;
        return 1;
    }
    const int bodies = c->bodies > 0 ? c->bodies : w->body_live;
    const int joints = c->joints > 0 ? c->joints : w->joint_live;
    const int contacts = c->contacts > 0 ? c->contacts : w->contacts.count;
    const size_t bytes = scratch_bytes(rows, bodies, joints, contacts);
    if (!arena_reset_to_hold(&w->scratch, bytes)) {
        return 0;
    }
    for (int i = 0; i < w->worker_count; ++i) {
        if (!arena_reset_to_hold(&w->workers[i].scratch, bytes)) {
            return 0;
        }
    }
    /* the capacity is taken on only once everything is sized: after a
     * reservation that ran out of memory the islands made later are sized
     * as before it */
    const heft_solver_capacity sc = {rows > w->reserved_rows ? rows : w->reserved_rows,
                                     bodies > w->reserved_bodies ? bodies : w->reserved_bodies,
                                     envelope};
    if (!island_workers_reserve(w, sc.rows, sc.bodies)) {
        return 0;
    }
    if (w->solver->reserve != NULL) {
        island_slots *sets[2] = {&w->velocity_slots, &w->position_slots};
        for (int k = 0; k < 2; ++k) {
            for (int i = 0; i < sets[k]->count; ++i) {
                if (!w->solver->reserve(sets[k]->items[i].state, &sc)) {
                    return 0;
                }
            }
        }
    }
    w->reserved_rows = sc.rows;
    w->reserved_bodies = sc.bodies;
    w->reserved_envelope = sc.envelope;
    return 1;
}

static int count_ok(const char *field, int n) {
    if (n < 0 || n > HEFT_CAPACITY_MAX) {
        heft_set_error("heft_world_reserve: %s = %d outside [0, HEFT_CAPACITY_MAX = %d]", field, n,
                       HEFT_CAPACITY_MAX);
        return 0;
    }
    return 1;
}

heft_result heft_world_reserve(heft_world *w, const heft_world_capacity *c) {
    if (!w || !c) {
        heft_set_error("heft_world_reserve: %s is NULL", w ? "capacity" : "world");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (w->contacts.in_callback) {
        heft_set_error("heft_world_reserve: called from a pair filter or pre-solve callback");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!count_ok("bodies", c->bodies) || !count_ok("shapes", c->shapes) ||
        !count_ok("joints", c->joints) || !count_ok("contacts", c->contacts) ||
        !count_ok("pairs", c->pairs) || !count_ok("rows", c->rows) ||
        !count_ok("envelope", c->envelope)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!reserve_bodies(w, c->bodies) || !reserve_shapes(w, c->shapes) ||
        !reserve_joints(w, c->joints) || !reserve_contacts(w, c->contacts) ||
        !reserve_pairs(w, c->pairs) || !reserve_rows(w, c)) {
        heft_set_error("heft_world_reserve: out of memory (bodies %d, shapes %d, joints %d, "
                       "contacts %d, pairs %d, rows %d, envelope %d)",
                       c->bodies, c->shapes, c->joints, c->contacts, c->pairs, c->rows,
                       c->envelope);
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    return HEFT_OK;
}

int heft_world_contact_pairs(const heft_world *w) {
    return w ? w->broad.pair_count : 0;
}
