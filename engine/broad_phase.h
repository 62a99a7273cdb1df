/* The broad phase: every shape but planes has a leaf with an enlarged box in
 * a dynamic AABB tree; a leaf is re-inserted only when its shape leaves the
 * enlarged box, and only re-inserted leaves look for new pairs. The pairs
 * persist, sorted by shape indices, until the enlarged boxes part. Planes
 * are few and unbounded: they live in a list. Private to the library. */
#ifndef HEFT_BROAD_PHASE_H
#define HEFT_BROAD_PHASE_H

#include "aabb_tree.h"
#include "narrowphase.h"

typedef struct broad_phase {
    aabb_tree tree;
    int32_t *moved; /* shapes re-inserted since the last pair update */
    int moved_count, moved_capacity;
    uint64_t *pairs; /* (lower shape index << 32) | higher, ascending */
    int pair_count, pair_capacity;
    uint64_t *found; /* candidate pairs of one update */
    int found_count, found_capacity;
    int32_t *planes; /* plane shapes, ascending */
    int plane_count, plane_capacity;
    int planes_dirty; /* a plane was added or moved: test it against every leaf */
    double h;         /* the last step's length: the speculative distances */
    narrow_scratch scratch;
} broad_phase;

typedef struct heft_world heft_world;

static inline uint64_t pair_key(int32_t a, int32_t b) {
    return a < b ? ((uint64_t)(uint32_t)a << 32) | (uint32_t)b
                 : ((uint64_t)(uint32_t)b << 32) | (uint32_t)a;
}

void broad_phase_init(broad_phase *bp);
void broad_phase_release(broad_phase *bp);
/* A new shape: its leaf (or plane entry). 0 when out of memory. */
int broad_phase_add(heft_world *w, int32_t shape);
/* A shape about to be destroyed: its leaf, its pairs. */
void broad_phase_remove(heft_world *w, int32_t shape);
/* Moves the leaves of shapes that left their enlarged boxes (and computes
 * every shape's box for this step). */
void broad_phase_refresh(heft_world *w);
/* refresh, then the pairs: new ones of moved leaves, parted ones dropped.
 * 0 when out of memory. */
int broad_phase_update(heft_world *w);
/* May shapes a and b ever collide (different bodies, one dynamic)? */
int broad_phase_may_pair(const heft_world *w, int32_t a, int32_t b);
/* Does the plane shape p's solid side reach box? */
int plane_overlaps_box(const shape *p, const aabb *box);

#endif
