/* Slots: the storage behind ids (index + generation) for bodies, joints and
 * shapes. Each of those structs starts with a slot header; a destroyed slot
 * goes on a free list and its generation moves on, so stale ids are caught.
 * Private to the library. */
#ifndef HEFT_SLOTS_H
#define HEFT_SLOTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct slot_header {
    uint32_t generation; /* generations start at 1: a zeroed id is never valid */
    int alive;
    int next_free;
} slot_header;

/* Takes a free slot (or grows the array) and returns its index, the item
 * zeroed but for its header (alive, next generation kept); -1 when out of
 * memory, with nothing changed. */
int slots_acquire(void **items, int *capacity, int *high, int *free_head, size_t size);
/* Puts the slot back on the free list; its generation moves on. */
void slots_release(void *items, size_t size, int index, int *free_head);
/* The item at index if it is alive with this generation, else NULL. */
void *slots_get(void *items, size_t size, int high, int index, uint32_t generation);

#endif
