/* Heft: the bytes of a solver state's save_state and restore_state
 * (private header of the solver library). A writer counts every byte and
 * stores them only while they fit, so one pass answers both the size query
 * and the copy; a reader refuses to run past the end. */
#ifndef HEFT_SOLVER_STATE_BYTES_H
#define HEFT_SOLVER_STATE_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "workspace.h"

typedef struct state_writer {
    unsigned char *buffer; /* NULL: count only */
    size_t capacity, size;
} state_writer;

static inline void state_put(state_writer *w, const void *data, size_t n) {
    if (w->buffer != NULL && n > 0 && w->size <= w->capacity && n <= w->capacity - w->size)
        memcpy(w->buffer + w->size, data, n);
    w->size += n;
}

static inline void state_put_int(state_writer *w, int32_t v) {
    state_put(w, &v, sizeof v);
}

typedef struct state_reader {
    const unsigned char *buffer;
    size_t size, at;
    int bad;
} state_reader;

static inline int state_get(state_reader *r, void *data, size_t n) {
    if (r->bad || n > r->size - r->at) {
        r->bad = 1;
        return 0;
    }
    if (n > 0)
        memcpy(data, r->buffer + r->at, n);
    r->at += n;
    return 1;
}

/* An int in [lo, hi], else the reader turns bad and lo is returned. */
static inline int32_t state_get_int(state_reader *r, int32_t lo, int32_t hi) {
    int32_t v = lo;
    if (state_get(r, &v, sizeof v) && (v < lo || v > hi)) {
        r->bad = 1;
        v = lo;
    }
    return r->bad ? lo : v;
}

/* Kept index sets and answer of n rows (n -1: none): the part of bpp's,
 * pgcg's and cr's states that changes the next solve. set may be NULL (cr
 * keeps no sets). */
static inline void state_put_kept(state_writer *w, int n, const uint8_t *set,
                                  const double *lambda) {
    const int32_t kept = n > 0 && lambda != NULL ? n : -1;
    state_put_int(w, kept);
    if (kept > 0) {
        if (set != NULL)
            state_put(w, set, (size_t)kept);
        state_put(w, lambda, sizeof(double) * (size_t)kept);
    }
}

/* Reads what state_put_kept wrote into the arrays (grown as needed); returns
 * the kept n (-1: none), or -2 when the bytes are short or the memory is. */
static inline int state_get_kept(state_reader *r, uint8_t **set, size_t *set_cap, double **lambda,
                                 size_t *lambda_cap) {
    const int32_t n = state_get_int(r, -1, INT32_MAX / 16);
    if (r->bad)
        return -2;
    if (n <= 0)
        return -1;
    const size_t un = (size_t)n;
    if ((set != NULL && !HEFT_RESERVE(*set, *set_cap, un)) ||
        !HEFT_RESERVE(*lambda, *lambda_cap, un))
        return -2;
    if ((set != NULL && !state_get(r, *set, un)) || !state_get(r, *lambda, sizeof(double) * un))
        return -2;
    return n;
}

#endif
