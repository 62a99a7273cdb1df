/* Heft: grow-only workspaces of the solver library (private header).
 *
 * A solver's per-island state keeps its scratch arrays between solves and
 * only ever makes them larger, so once an island has been solved at its
 * largest size a solve allocates nothing (docs/architecture.md "No allocation in the
 * hot path"). An array that must grow again at least doubles (capacity_ahead):
 * an island whose rows creep up a contact at a time (a chain winding onto a
 * drum) would otherwise have every workspace sized to the row count reallocated
 * at each new largest solve. Contents are not kept when an array grows. */
#ifndef HEFT_SOLVER_WORKSPACE_H
#define HEFT_SOLVER_WORKSPACE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "array.h"
#include "mlcp.h"

/* Returns an array of at least count elements of elem bytes: old itself when
 * it is large enough (*cap counts its elements), else a new one of
 * capacity_ahead(*cap, count) elements (old is freed, its contents are not
 * kept). Returns NULL, with *cap = 0, on overflow or allocation failure. */
static inline void *heft_workspace_grow(void *old, size_t *cap, size_t count, size_t elem) {
    if (count <= *cap && old != NULL)
        return old;
    heft_free(old);
    const size_t ahead = old != NULL ? capacity_ahead(*cap, count) : count;
    if (elem == 0 || ahead <= SIZE_MAX / elem)
        count = ahead;
    *cap = 0;
    if (count == 0)
        count = 1; /* a valid pointer even for empty problems */
    if (elem != 0 && count > SIZE_MAX / elem)
        return NULL;
    void *fresh = heft_alloc(count * elem);
    if (fresh != NULL)
        *cap = count;
    return fresh;
}

/* HEFT_RESERVE(array, cap, count): grows a typed array; true on success. */
#define HEFT_RESERVE(array, cap, count)                                                            \
    (((array) = heft_workspace_grow((array), &(cap), (size_t)(count), sizeof *(array))) != NULL)

/* As heft_workspace_grow, but the array's first used elements are kept
 * (an array that holds what the next solve starts from, grown between
 * solves); on failure old stays as it was. Returns 1, or 0 when out of
 * memory. */
static inline int heft_workspace_grow_keeping(void **array, size_t *cap, size_t count, size_t used,
                                              size_t elem) {
    if (count <= *cap && *array != NULL)
        return 1;
    if (elem == 0 || count > SIZE_MAX / elem)
        return 0;
    void *fresh = heft_alloc(count * elem);
    if (fresh == NULL)
        return 0;
    if (*array != NULL && used > 0)
        memcpy(fresh, *array, (used < *cap ? used : *cap) * elem);
    heft_free(*array);
    *array = fresh;
    *cap = count;
    return 1;
}

/* HEFT_RESERVE_KEEPING(array, cap, count, used): the same for a typed array. */
#define HEFT_RESERVE_KEEPING(array, cap, count, used)                                              \
    heft_workspace_grow_keeping((void **)&(array), &(cap), (size_t)(count), (size_t)(used),        \
                                sizeof *(array))

/* Sorts a short int array ascending in place (insertion sort: the index
 * lists of a sparse column, a few dozen entries). */
static inline void heft_sort_indices(int *a, int n) {
    for (int e = 1; e < n; ++e) {
        const int key = a[e];
        int f = e - 1;
        while (f >= 0 && a[f] > key) {
            a[f + 1] = a[f];
            --f;
        }
        a[f + 1] = key;
    }
}

#endif
