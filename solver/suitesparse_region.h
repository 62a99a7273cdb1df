/* Heft: SuiteSparse's allocations served from a region Heft owns (private
 * header; suitesparse_region.c, docs/memory.md).
 *
 * UMFPACK allocates its symbolic and numeric objects through the function
 * pointers of SuiteSparse_config, by default the C library's malloc. Lemke's
 * sparse basis is refactored every 64 pivots, so left to the C heap these
 * blocks are allocated and freed thousands of times a minute, outside
 * Heft's allocation hooks, and the holes they leave let the heap grow for
 * minutes. Heft puts its own functions into SuiteSparse_config once: while a
 * thread has entered a region they serve that region, a block allocated
 * ahead through heft_alloc and reused at every factorization; otherwise they
 * pass every call on to the functions that were installed before (the C
 * library's, or an application's), so other users of SuiteSparse see no
 * change. */
#ifndef HEFT_SOLVER_SUITESPARSE_REGION_H
#define HEFT_SOLVER_SUITESPARSE_REGION_H

#include <stddef.h>

typedef struct heft_ss_region {
    unsigned char *base; /* the region, cap bytes (heft_alloc) */
    size_t cap;
    size_t used;    /* bytes handed out from base */
    size_t top;     /* offset of the last block handed out (a free of it gives it back) */
    size_t spilled; /* bytes of the blocks that did not fit, since the last reset */
    size_t peak;    /* the most used + spilled: what the region is grown to at a reset */
    void **spill;   /* blocks that did not fit (heft_alloc), freed at the next reset */
    size_t spills, spill_cap;
} heft_ss_region;

/* Puts Heft's functions into SuiteSparse_config, once for the process and
 * safe to call from any thread. Returns 1 when they are the ones installed
 * (0: SuiteSparse is not built in, or an application has set its own since;
 * regions are then not used and SuiteSparse allocates as it would). */
int heft_ss_region_hooks(void);

/* Makes r (NULL: none) the calling thread's region for SuiteSparse's
 * allocations; returns the region it replaces. */
heft_ss_region *heft_ss_region_enter(heft_ss_region *r);

/* Forgets every block r handed out and, when they did not all fit, grows r
 * to the largest demand seen (at least doubling), so that the same calls
 * fit next time. Returns 0 when that growth failed (r then spills). */
int heft_ss_region_reset(heft_ss_region *r);

void heft_ss_region_release(heft_ss_region *r);

#endif
