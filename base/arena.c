#include "arena.h"

#include <stdint.h>
#include <string.h>

#include "mlcp.h"

struct arena_chunk {
    arena_chunk *next;
    size_t size;
};

#define ARENA_ALIGN 16
#define CHUNK_HEADER ((sizeof(arena_chunk) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1))

static size_t align_up(size_t n) {
    return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

void arena_init(arena *a) {
    memset(a, 0, sizeof(*a));
}

static void free_overflow(arena *a) {
    while (a->overflow) {
        arena_chunk *next = a->overflow->next;
        heft_free(a->overflow);
        a->overflow = next;
    }
}

void arena_release(arena *a) {
    free_overflow(a);
    heft_free(a->data);
    arena_init(a);
}

void arena_reset(arena *a) {
    if (a->overflow) {
        free_overflow(a);
        /* grow to the peak with headroom, so the next step fits in one block */
        size_t want = align_up(a->peak + a->peak / 2 + 4096);
        char *bigger = heft_alloc(want);
        if (bigger) {
            heft_free(a->data);
            a->data = bigger;
            a->capacity = want;
        }
    }
    a->used = 0;
    a->peak = 0;
}

int arena_reset_to_hold(arena *a, size_t bytes) {
    arena_reset(a);
    if (a->capacity >= bytes) {
        return 1;
    }
    size_t want = align_up(bytes + bytes / 2 + 4096);
    char *bigger = heft_alloc(want);
    if (!bigger) {
        return 0;
    }
    heft_free(a->data);
    a->data = bigger;
    a->capacity = want;
    return 1;
}

void *arena_alloc(arena *a, size_t bytes) {
    size_t n = align_up(bytes ? bytes : 1);
    a->peak += n;
    if (a->used + n <= a->capacity) {
        void *p = a->data + a->used;
        a->used += n;
        return p;
    }
    arena_chunk *c = heft_alloc(CHUNK_HEADER + n);
    if (!c) {
        return NULL;
    }
    c->next = a->overflow;
    c->size = n;
    a->overflow = c;
    return (char *)c + CHUNK_HEADER;
}

void *arena_calloc(arena *a, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) {
        return NULL;
    }
    void *p = arena_alloc(a, count * size);
    if (p) {
        memset(p, 0, count * size);
    }
    return p;
}
