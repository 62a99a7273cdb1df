/* Heft: SuiteSparse's allocations served from regions Heft owns
 * (suitesparse_region.h). */
#include "suitesparse_region.h"

#include <stdint.h>
#include <string.h>

#include "workspace.h"

/* Every block carries its size and the offset of the block before it, so
 * that realloc can copy it and a free of the last blocks gives their room
 * back (UMFPACK frees its work arrays and shrinks its memory at the end of
 * a factorization). 16 bytes keep the blocks aligned as malloc's are. */
typedef struct block_header {
    size_t size;
    size_t prev; /* with BLOCK_FREED set once freed */
} block_header;

#define BLOCK_FREED ((size_t)1 << (sizeof(size_t) * 8 - 1))

#define REGION_ALIGN ((size_t)16)
#define REGION_HEADER (sizeof(block_header) > REGION_ALIGN ? sizeof(block_header) : REGION_ALIGN)
#define REGION_NONE (SIZE_MAX >> 1) /* no block; the top bit is BLOCK_FREED */

int heft_ss_region_reset(heft_ss_region *r) {
    for (size_t k = 0; k < r->spills; ++k)
        heft_free(r->spill[k]);
    r->spills = 0;
    r->used = 0;
    r->top = REGION_NONE;
    r->spilled = 0;
    if (r->peak <= r->cap)
        return 1;
    heft_free(r->base);
    const size_t want = capacity_ahead(r->cap, r->peak);
    r->base = heft_alloc(want);
    r->cap = r->base != NULL ? want : 0;
    return r->base != NULL;
}

void heft_ss_region_release(heft_ss_region *r) {
    for (size_t k = 0; k < r->spills; ++k)
        heft_free(r->spill[k]);
    heft_free(r->spill);
    heft_free(r->base);
    memset(r, 0, sizeof *r);
}

#ifdef HEFT_HAVE_UMFPACK
#include <SuiteSparse_config.h>
#include <stdatomic.h>

static size_t rounded(size_t n) {
    return n <= SIZE_MAX - REGION_HEADER - REGION_ALIGN
               ? REGION_HEADER + ((n + REGION_ALIGN - 1) & ~(REGION_ALIGN - 1))
               : SIZE_MAX;
}

static int in_region(const heft_ss_region *r, const void *p) {
    const unsigned char *b = p;
    return r->base != NULL && b >= r->base && b < r->base + r->cap;
}

static block_header *header_of(void *p) {
    return (block_header *)((unsigned char *)p - REGION_HEADER);
}

static void note_peak(heft_ss_region *r) {
    if (r->used + r->spilled > r->peak)
        r->peak = r->used + r->spilled;
}

static void *region_take(heft_ss_region *r, size_t n) {
    const size_t need = rounded(n);
    if (need == SIZE_MAX)
        return NULL;
    /* first fit among the blocks freed so far, from the end down, as a
     * heap would reuse them: UMFPACK frees its work arrays while it
     * allocates others */
    size_t end = r->used;
    for (size_t at = r->top; at != REGION_NONE;) {
        block_header *h = (block_header *)(r->base + at);
        const size_t prev = h->prev & ~BLOCK_FREED;
        if ((h->prev & BLOCK_FREED) && end - at >= need) {
            h->prev = prev;
            h->size = n;
            return r->base + at + REGION_HEADER;
        }
        end = at;
        at = prev;
    }
    unsigned char *block;
    if (r->base != NULL && r->cap - r->used >= need) {
        block = r->base + r->used;
        ((block_header *)block)->prev = r->top;
        r->top = r->used;
        r->used += need;
    } else {
        /* spilled: its own block until the next reset, which grows the
         * region to hold it */
        if (r->spills == r->spill_cap) { /* the list keeps its entries as it grows */
            const size_t more = r->spill_cap > 0 ? 2 * r->spill_cap : 16;
            void **list = more <= SIZE_MAX / sizeof *list ? heft_alloc(more * sizeof *list) : NULL;
            if (list == NULL)
                return NULL;
            if (r->spills > 0)
                memcpy(list, r->spill, r->spills * sizeof *list);
            heft_free(r->spill);
            r->spill = list;
            r->spill_cap = more;
        }
        block = heft_alloc(need);
        if (block == NULL)
            return NULL;
        r->spill[r->spills++] = block;
        r->spilled += need;
        ((block_header *)block)->prev = REGION_NONE;
    }
    ((block_header *)block)->size = n;
    note_peak(r);
    return block + REGION_HEADER;
}

/* A block freed inside a region is marked for reuse; the freed blocks at
 * the end of the region give their room back. A spilled block stays until
 * the reset. */
static void region_give_back(heft_ss_region *r, void *p) {
    if (!in_region(r, p))
        return;
    header_of(p)->prev |= BLOCK_FREED;
    while (r->top != REGION_NONE) {
        const block_header *h = (const block_header *)(r->base + r->top);
        if (!(h->prev & BLOCK_FREED))
            break;
        r->used = r->top;
        r->top = h->prev & ~BLOCK_FREED;
    }
}

static void *region_resize(heft_ss_region *r, void *p, size_t n) {
    if (p == NULL)
        return region_take(r, n);
    block_header *h = header_of(p);
    const size_t old = h->size;
    if (in_region(r, p) && (size_t)((unsigned char *)p - r->base) - REGION_HEADER == r->top) {
        const size_t at = r->top, need = rounded(n);
        if (need != SIZE_MAX &&
            r->cap - at >= need) { /* the last block grows or shrinks in place */
            r->used = at + need;
            h->size = n;
            note_peak(r);
            return p;
        }
    } else if (n <= old) {
        return p; /* a block inside shrinks in place */
    }
    void *fresh = region_take(r, n);
    if (fresh != NULL) {
        memcpy(fresh, p, old < n ? old : n);
        region_give_back(r, p);
    }
    return fresh;
}

static _Thread_local heft_ss_region *current;

/* The functions installed before Heft's, to which every call made outside
 * a region goes. Written once, before installed becomes 2. */
static void *(*prior_malloc)(size_t);
static void *(*prior_calloc)(size_t, size_t);
static void *(*prior_realloc)(void *, size_t);
static void (*prior_free)(void *);
static atomic_int installed; /* 0: not yet, 1: being installed, 2: installed */

static void *ss_malloc(size_t n) {
    heft_ss_region *r = current;
    if (r == NULL) {
        (void)atomic_load(&installed); /* orders the read of the prior functions */
        return prior_malloc(n);
    }
    return region_take(r, n);
}

static void *ss_calloc(size_t count, size_t size) {
    heft_ss_region *r = current;
    if (r == NULL) {
        (void)atomic_load(&installed);
        return prior_calloc(count, size);
    }
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    void *p = region_take(r, count * size);
    if (p != NULL)
        memset(p, 0, count * size);
    return p;
}

static void *ss_realloc(void *p, size_t n) {
    heft_ss_region *r = current;
    if (r == NULL) {
        (void)atomic_load(&installed);
        return prior_realloc(p, n);
    }
    return region_resize(r, p, n);
}

static void ss_free(void *p) {
    heft_ss_region *r = current;
    if (r == NULL) {
        (void)atomic_load(&installed);
        prior_free(p);
        return;
    }
    if (p != NULL)
        region_give_back(r, p);
}

#if SUITESPARSE_MAIN_VERSION >= 7
static int ours(void) {
    return SuiteSparse_config_malloc_func_get() == ss_malloc &&
           SuiteSparse_config_calloc_func_get() == ss_calloc &&
           SuiteSparse_config_realloc_func_get() == ss_realloc &&
           SuiteSparse_config_free_func_get() == ss_free;
}

static void install(void) {
    prior_malloc = SuiteSparse_config_malloc_func_get();
    prior_calloc = SuiteSparse_config_calloc_func_get();
    prior_realloc = SuiteSparse_config_realloc_func_get();
    prior_free = SuiteSparse_config_free_func_get();
    SuiteSparse_config_malloc_func_set(ss_malloc);
    SuiteSparse_config_calloc_func_set(ss_calloc);
    SuiteSparse_config_realloc_func_set(ss_realloc);
    SuiteSparse_config_free_func_set(ss_free);
}
#else
static int ours(void) {
    return SuiteSparse_config.malloc_func == ss_malloc &&
           SuiteSparse_config.calloc_func == ss_calloc &&
           SuiteSparse_config.realloc_func == ss_realloc && SuiteSparse_config.free_func == ss_free;
}

static void install(void) {
    prior_malloc = SuiteSparse_config.malloc_func;
    prior_calloc = SuiteSparse_config.calloc_func;
    prior_realloc = SuiteSparse_config.realloc_func;
    prior_free = SuiteSparse_config.free_func;
    SuiteSparse_config.malloc_func = ss_malloc;
    SuiteSparse_config.calloc_func = ss_calloc;
    SuiteSparse_config.realloc_func = ss_realloc;
    SuiteSparse_config.free_func = ss_free;
}
#endif

int heft_ss_region_hooks(void) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&installed, &expected, 1)) {
        install();
        atomic_store(&installed, 2);
    } else {
        while (atomic_load(&installed) != 2) {
            /* another thread is installing them: eight stores */
        }
    }
    return ours();
}

heft_ss_region *heft_ss_region_enter(heft_ss_region *r) {
    heft_ss_region *was = current;
    current = r;
    return was;
}
#else
int heft_ss_region_hooks(void) {
    return 0;
}

heft_ss_region *heft_ss_region_enter(heft_ss_region *r) {
    (void)r;
    return NULL;
}
#endif
