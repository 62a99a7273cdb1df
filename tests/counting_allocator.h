/* A counting allocator for the tests that prove a step or a solve allocates
 * nothing after warm-up: every allocation of the engine and solvers goes
 * through heft_alloc/heft_realloc/heft_free, and counting_allocator_calls
 * counts the calls (frees too: a step that frees has allocated). */
#ifndef HEFT_TEST_COUNTING_ALLOCATOR_H
#define HEFT_TEST_COUNTING_ALLOCATOR_H

#include <stdlib.h>

#include "mlcp.h"

static int counting_allocator_calls;
/* the largest block asked for (a test that proves some matrix is never
 * formed bounds it) */
static size_t counting_allocator_largest;

static inline void *counting_allocator_alloc(size_t n, void *user) {
    (void)user;
    counting_allocator_calls++;
    counting_allocator_largest = n > counting_allocator_largest ? n : counting_allocator_largest;
    return malloc(n);
}

static inline void *counting_allocator_realloc(void *p, size_t n, void *user) {
    (void)user;
    counting_allocator_calls++;
    counting_allocator_largest = n > counting_allocator_largest ? n : counting_allocator_largest;
    return realloc(p, n);
}

static inline void counting_allocator_free(void *p, void *user) {
    (void)user;
    counting_allocator_calls++;
    free(p);
}

/* Installs the counting allocator (and zeroes the count and the largest
 * block); heft_set_allocator(NULL) removes it. */
static inline void counting_allocator_install(void) {
    static const heft_allocator counting = {counting_allocator_alloc, counting_allocator_realloc,
                                            counting_allocator_free, NULL};
    counting_allocator_calls = 0;
    counting_allocator_largest = 0;
    heft_set_allocator(&counting);
}

#endif
