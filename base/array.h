/* Growable arrays: capacity doubled from 16 until it holds what is needed. */
#ifndef HEFT_ARRAY_H
#define HEFT_ARRAY_H

#include <stddef.h>

/* Grows *array (of *capacity elements of element_size bytes) to hold at least
 * need elements through heft_realloc. Returns 1, or 0 when out of memory (the
 * array and capacity are then unchanged). */
int array_grow(void **array, int *capacity, int need, size_t element_size);

/* The capacity a workspace of cap elements grows to when it must hold
 * need > cap: need the first time (cap 0), else at least twice cap. An
 * island's rows creep up a contact at a time (a chain winding onto a
 * drum); sized to each new need alone, a workspace would be reallocated
 * at every new row. */
static inline size_t capacity_ahead(size_t cap, size_t need) {
    return cap > 0 && cap <= (size_t)-1 / 2 && 2 * cap > need ? 2 * cap : need;
}

#endif
