/* Heft: the allocation hooks.
 *
 * Every allocation of the engine and of the solvers goes through heft_alloc,
 * heft_realloc and heft_free, so an application can route memory to its own
 * allocator and a test can count calls (the "no allocation after warm-up"
 * rule of docs/architecture.md is checked that way). */
#include "base.h"

#include <stdlib.h>

/* A block is written once when it is allocated: the engine allocates ahead
 * (arrays double, the step's arena takes half again its peak, workspaces
 * grow ahead of their rows), and a block left untouched would page in during
 * some later step, a page fault in a real-time step and a resident set that
 * grows long after the last allocation. One write a page is enough; through
 * a volatile pointer, because a compiler may turn malloc and a memset of
 * zeros into calloc, whose fresh pages stay untouched. */
static void touch_pages(void *p, size_t size) {
    volatile unsigned char *bytes = p;
    for (size_t i = 0; i < size; i += 4096) {
        bytes[i] = 0;
    }
    if (size > 0) {
        bytes[size - 1] = 0;
    }
}

static void *default_alloc(size_t size, void *user) {
    (void)user;
    void *p = malloc(size);
    if (p != NULL) {
        touch_pages(p, size);
    }
    return p;
}

static void *default_realloc(void *ptr, size_t size, void *user) {
    (void)user;
    return realloc(ptr, size);
}

static void default_free(void *ptr, void *user) {
    (void)user;
    free(ptr);
}

static heft_allocator current = {default_alloc, default_realloc, default_free, NULL};

/* A hook set is all or nothing: mixing an application's alloc with the C
 * library's free would corrupt both heaps, so a NULL allocator or any NULL
 * function restores all three defaults. */
void heft_set_allocator(const heft_allocator *allocator) {
    if (allocator == NULL || allocator->alloc == NULL || allocator->realloc == NULL ||
        allocator->free == NULL) {
        current.alloc = default_alloc;
        current.realloc = default_realloc;
        current.free = default_free;
        current.user = NULL;
        return;
    }
    current = *allocator;
}

void *heft_alloc(size_t size) {
    return current.alloc(size, current.user);
}

void *heft_realloc(void *ptr, size_t size) {
    return current.realloc(ptr, size, current.user);
}

/* Freeing NULL is a no-op that does not reach the hook, so cleanup paths
 * may free unconditionally without showing up in an allocation count. */
void heft_free(void *ptr) {
    if (ptr != NULL)
        current.free(ptr, current.user);
}
