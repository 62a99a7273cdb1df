/* Per-step scratch memory: a bump allocator reset at the start of every step.
 * When a step needs more than the block holds, the extra comes from overflow
 * chunks and the next reset grows the block to the peak, so once a scene has
 * warmed up a step makes no allocation at all. */
#ifndef HEFT_ARENA_H
#define HEFT_ARENA_H

#include <stddef.h>

typedef struct arena_chunk arena_chunk;

typedef struct arena {
    char *data;
    size_t capacity;
    size_t used;
    size_t peak; /* largest total demand since the last reset */
    arena_chunk *overflow;
} arena;

void arena_init(arena *a);
void arena_release(arena *a);
/* Forgets every allocation; grows the block if the last step overflowed. */
void arena_reset(arena *a);
/* Forgets every allocation and makes the block hold at least bytes (with
 * the headroom of arena_reset), for an arena whose demand in a step can be
 * any part of a known total; 0 when out of memory (the arena still works). */
int arena_reset_to_hold(arena *a, size_t bytes);
/* 16-byte aligned; NULL only when the system is out of memory. */
void *arena_alloc(arena *a, size_t bytes);
/* arena_alloc of count elements, zero-filled. */
void *arena_calloc(arena *a, size_t count, size_t size);

#endif
