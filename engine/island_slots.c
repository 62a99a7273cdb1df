/* The persistent solver state of each island (design "The solver interface":
 * per-island state belongs to the solver and is rebuilt when the island's
 * topology changes). Islands are matched across steps by their stable id
 * (engine/island.c), so an island keeps its state when bodies elsewhere
 * come and go; a changed row signature resets the state. */
#include <string.h>

#include "world.h"

/* The place of key in the slots, or where it would go (*found 0). */
static int slot_place(const island_slots *set, int64_t key, int *found) {
    int lo = 0, hi = set->count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (set->items[mid].key == key) {
            *found = 1;
            return mid;
        }
        if (set->items[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    *found = 0;
    return lo;
}

island_slot *island_slots_claim(heft_world *w, island_slots *set, int64_t key) {
    int found;
    const int at = slot_place(set, key, &found);
    if (found) {
        set->items[at].used = 1;
        return &set->items[at];
    }
    if (!array_grow((void **)&set->items, &set->capacity, set->count + 1, sizeof(island_slot))) {
        return NULL;
    }
    void *state = w->solver->create(&w->solver_options);
    if (!state) {
        return NULL;
    }
    /* sized ahead for the island the world was reserved for, so that its
     * growth to that size allocates nothing; a state that memory was too
     * short to size is still usable, and sizes itself as it solves */
    const heft_solver_capacity c = {w->reserved_rows, w->reserved_bodies, w->reserved_envelope};
    if (w->reserved_rows > 0 && w->solver->reserve != NULL) {
        (void)w->solver->reserve(state, &c);
    }
    /* insert in key order */
    memmove(&set->items[at + 1], &set->items[at], sizeof(island_slot) * (size_t)(set->count - at));
    island_slot *s = &set->items[at];
    s->key = key;
    s->signature = 0;
    s->state = state;
    s->used = 1;
    s->fresh = 1;
    set->count++;
    return s;
}

island_slot *island_slots_find(island_slots *set, int64_t key) {
    int found;
    const int at = slot_place(set, key, &found);
    return found ? &set->items[at] : NULL;
}

void island_slot_match(heft_world *w, island_slot *s, uint64_t signature) {
    if (s->fresh) {
        s->fresh = 0; /* a new state has nothing to forget */
    } else if (s->signature != signature) {
        w->solver->reset(s->state);
    }
    s->signature = signature;
}

void *island_slots_state(heft_world *w, island_slots *set, int64_t key, uint64_t signature) {
    island_slot *s = island_slots_claim(w, set, key);
    if (!s) {
        return NULL;
    }
    island_slot_match(w, s, signature);
    return s->state;
}

void island_slots_keep(island_slots *set, int64_t key) {
    island_slot *s = island_slots_find(set, key);
    if (s) {
        s->used = 1;
    }
}

void island_slots_keep_sleeping(heft_world *w, island_slots *set) {
    for (int32_t k = 0; k < w->island_high; ++k) {
        if (w->islands[k].id != 0 && w->islands[k].sleeping) {
            island_slots_keep(set, w->islands[k].id);
        }
    }
}

void island_slots_sweep(heft_world *w, island_slots *set) {
    int kept = 0;
    for (int i = 0; i < set->count; ++i) {
        if (set->items[i].used) {
            set->items[i].used = 0;
            set->items[kept++] = set->items[i];
        } else {
            w->solver->destroy(set->items[i].state);
        }
    }
    set->count = kept;
}

void island_slots_clear(heft_world *w, island_slots *set) {
    for (int i = 0; i < set->count; ++i) {
        w->solver->destroy(set->items[i].state);
    }
    set->count = 0;
}
