#include "slots.h"

#include <string.h>

#include "array.h"

static slot_header *at(void *items, size_t size, int index) {
    return (slot_header *)((char *)items + (size_t)index * size);
}

int slots_acquire(void **items, int *capacity, int *high, int *free_head, size_t size) {
    int index;
    if (*free_head >= 0) {
        index = *free_head;
    } else {
        if (!array_grow(items, capacity, *high + 1, size)) {
            return -1;
        }
        index = *high;
        at(*items, size, index)->generation = 1;
    }
    slot_header *h = at(*items, size, index);
    uint32_t generation = h->generation;
    if (*free_head >= 0) {
        *free_head = h->next_free;
    } else {
        (*high)++;
    }
    memset(h, 0, size);
    h->generation = generation;
    h->alive = 1;
    h->next_free = -1;
    return index;
}

void slots_release(void *items, size_t size, int index, int *free_head) {
    slot_header *h = at(items, size, index);
    h->alive = 0;
    h->generation++;
    h->next_free = *free_head;
    *free_head = index;
}

void *slots_get(void *items, size_t size, int high, int index, uint32_t generation) {
    if (index < 0 || index >= high) {
        return NULL;
    }
    slot_header *h = at(items, size, index);
    return (h->alive && h->generation == generation) ? h : NULL;
}
