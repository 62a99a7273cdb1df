/* The persistent solver state of each island (design "The solver interface":
 * per-island state belongs to the solver and is rebuilt when the island's
 * topology changes). Islands are matched across steps by their stable id
 * (engine/island.c), so an island keeps its state when bodies elsewhere
 * come and go; a changed row signature resets the state. */
#include <string.h>

#include "world.h"

void *island_slots_state(heft_world *w, island_slots *set, int64_t key, uint64_t signature) {
    int lo = 0, hi = set->count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        island_slot *s = &set->items[mid];
        if (s->key == key) {
            if (s->signature != signature) {
                w->solver->reset(s->state);
                s->signature = signature;
            }
            s->used = 1;
            return s->state;
        }
        if (s->key < key) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    if (!array_grow((void **)&set->items, &set->capacity, set->count + 1, sizeof(island_slot))) {
        return NULL;
    }
    void *state = w->solver->create(&w->solver_options);
    if (!state) {
        return NULL;
    }
    /* insert in key order */
    memmove(&set->items[lo + 1], &set->items[lo], sizeof(island_slot) * (size_t)(set->count - lo));
    island_slot *s = &set->items[lo];
    s->key = key;
    s->signature = signature;
    s->state = state;
    s->used = 1;
    set->count++;
    return state;
}

void island_slots_keep(island_slots *set, int64_t key) {
    int lo = 0, hi = set->count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (set->items[mid].key == key) {
            set->items[mid].used = 1;
            return;
        }
        if (set->items[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
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
