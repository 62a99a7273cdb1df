/* Growable arrays: capacity doubled from 16 until it holds what is needed. */
#ifndef HEFT_ARRAY_H
#define HEFT_ARRAY_H

#include <stddef.h>

/* Grows *array (of *capacity elements of element_size bytes) to hold at least
 * need elements through heft_realloc. Returns 1, or 0 when out of memory (the
 * array and capacity are then unchanged). */
int array_grow(void **array, int *capacity, int need, size_t element_size);

#endif
