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
