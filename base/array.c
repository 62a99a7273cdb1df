#include "array.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "base.h"

int array_grow(void **array, int *capacity, int need, size_t element_size) {
    if (need <= *capacity) {
        return 1;
    }
    if (need < 0 || element_size == 0) {
        return 0;
    }
    int cap = *capacity > 0 ? *capacity : 16;
    while (cap < need) {
        if (cap > INT_MAX / 2) {
            return 0;
        }
        cap *= 2;
    }
    if ((size_t)cap > SIZE_MAX / element_size) {
        return 0;
    }
    void *p = heft_realloc(*array, (size_t)cap * element_size);
    if (!p) {
        return 0;
    }
    /* the new elements written once, as the default allocator writes a new
     * block (base/memory.c): the growth's pages resident now, not when a
     * later step first reaches them */
    memset((char *)p + (size_t)*capacity * element_size, 0,
           (size_t)(cap - *capacity) * element_size);
    *array = p;
    *capacity = cap;
    return 1;
}
