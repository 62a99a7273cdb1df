/* Heft: the "auto" solver, which answers each island with the direct solver
 * measured fastest for its kind (docs/auto-solver.md).
 *
 * It solves nothing itself. Per island (its state is the island's, as any
 * solver's) it looks at the problem and hands it to one of
 *
 *   bpp-skyline  islands of joints only, whatever their size (a tree of
 *                joints is banded once reverse Cuthill-McKee has ordered it,
 *                and the skyline downdates follow the pivoting cheaply), and
 *                islands with contacts below AUTO_SPARSE_ROWS rows;
 *   bpp-sparse   islands with contacts of AUTO_SPARSE_ROWS rows or more,
 *                when Heft is built with CHOLMOD (else bpp-skyline), unless
 *                bpp-skyline takes them in body space (body_space.h: more
 *                compliant contact rows than body coordinates), where it
 *                took a sixth of bpp-sparse's CPU time on the pyramids of
 *                base 17 and 20; on small contact islands bpp-sparse took
 *                up to 1.76 times bpp-skyline's (the 1,000 boxes' 60-row
 *                stacks).
 *
 * An island whose size goes back and forth around the threshold would lose
 * its kept index sets at every change of solver, so it goes back to
 * bpp-skyline only below AUTO_SKYLINE_ROWS (hysteresis). Each delegate keeps
 * its own state between steps; the one taken over is reset first, as its
 * kept sets are from an older step. The statistics are the delegate's, with
 * stats->delegate naming it. */
#include "body_space.h"
#include "mlcp.h"
#include "state_bytes.h"

#include <string.h>

/* Contact islands from this many rows go to bpp-sparse (docs/auto-solver.md
 * "Thresholds" has the measurements behind it). */
#define AUTO_SPARSE_ROWS 4000
/* ... and back to bpp-skyline below this many */
#define AUTO_SKYLINE_ROWS 3200

extern const heft_solver_vtable heft_bpp_skyline_solver;
#ifdef HEFT_HAVE_CHOLMOD
extern const heft_solver_vtable heft_bpp_sparse_solver;
#endif

enum { AUTO_SKYLINE = 0, AUTO_SPARSE = 1, AUTO_DELEGATES = 2 };

typedef struct auto_state {
    heft_solver_options options;
    void *delegate[AUTO_DELEGATES]; /* created on first use */
    int current;                    /* the last solve's delegate, -1 before any */
} auto_state;

static const heft_solver_vtable *delegate_table(int which) {
#ifdef HEFT_HAVE_CHOLMOD
    if (which == AUTO_SPARSE)
        return &heft_bpp_sparse_solver;
#else
    (void)which;
#endif
    return &heft_bpp_skyline_solver;
}

/* A contact row: a normal or friction row by its kind, or without kinds a
 * friction row (findex) or a row bounded to [0, inf) that is not a limit. */
static int has_contacts(const heft_mlcp *p) {
    for (int i = 0; i < p->n; ++i) {
        if (p->kind != NULL) {
            if (p->kind[i] == HEFT_ROW_NORMAL || p->kind[i] == HEFT_ROW_FRICTION)
                return 1;
        } else if (p->findex != NULL && p->findex[i] >= 0) {
            return 1;
        }
    }
    return 0;
}

static int choose(const auto_state *s, const heft_mlcp *p) {
#ifdef HEFT_HAVE_CHOLMOD
    if (!has_contacts(p))
        return AUTO_SKYLINE;
    const int limit = s->current == AUTO_SPARSE ? AUTO_SKYLINE_ROWS : AUTO_SPARSE_ROWS;
    if (p->n < limit || heft_body_space_fits(p, HEFT_BODY_SPACE_MIN_COMPLIANCE))
        return AUTO_SKYLINE;
    return AUTO_SPARSE;
#else
    (void)s;
    (void)p;
    (void)has_contacts;
    return AUTO_SKYLINE;
#endif
}

static void *auto_create(const heft_solver_options *options) {
    if (options == NULL || heft_solver_options_check(options, NULL, 0) != 0)
        return NULL;
    auto_state *s = heft_alloc(sizeof *s);
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof *s);
    s->options = *options;
    s->current = -1;
    return s;
}

static int auto_solve(void *state, const heft_mlcp *p, double *lambda, heft_solver_stats *stats) {
    auto_state *s = state;
    if (p == NULL || lambda == NULL || stats == NULL)
        return HEFT_SOLVE_FAILED;
    const int which = p->n > 0 ? choose(s, p) : AUTO_SKYLINE;
    const heft_solver_vtable *vt = delegate_table(which);
    if (s->delegate[which] == NULL) {
        s->delegate[which] = vt->create(&s->options);
        if (s->delegate[which] == NULL) {
            memset(stats, 0, sizeof *stats);
            stats->n = p->n;
            return HEFT_SOLVE_FAILED;
        }
    } else if (s->current >= 0 && s->current != which && vt->reset != NULL) {
        vt->reset(s->delegate[which]);
    }
    s->current = which;
    const int rc = vt->solve(s->delegate[which], p, lambda, stats);
    stats->delegate = vt->name;
    return rc;
}

static void auto_reset(void *state) {
    auto_state *s = state;
    for (int k = 0; k < AUTO_DELEGATES; ++k) {
        const heft_solver_vtable *vt = delegate_table(k);
        if (s->delegate[k] != NULL && vt->reset != NULL)
            vt->reset(s->delegate[k]);
    }
}

static void auto_destroy(void *state) {
    auto_state *s = state;
    if (s == NULL)
        return;
    for (int k = 0; k < AUTO_DELEGATES; ++k)
        if (s->delegate[k] != NULL)
            delegate_table(k)->destroy(s->delegate[k]);
    heft_free(s);
}

/* What carries over is the last solve's choice (it sets the hysteresis and
 * whether a delegate is reset) and each created delegate's own state, saved
 * one after the other with their sizes. */
static size_t auto_save_state(const void *state, void *buffer, size_t capacity) {
    const auto_state *s = state;
    state_writer w = {buffer, capacity, 0};
    if (s == NULL)
        return 0;
    state_put_int(&w, s->current);
    for (int k = 0; k < AUTO_DELEGATES; ++k) {
        const heft_solver_vtable *vt = delegate_table(k);
        const int has = s->delegate[k] != NULL && vt->save_state != NULL;
        const size_t n = has ? vt->save_state(s->delegate[k], NULL, 0) : 0;
        const uint64_t size = has ? (uint64_t)n : UINT64_MAX;
        state_put(&w, &size, sizeof size);
        if (has) {
            unsigned char *at = buffer != NULL && w.size <= capacity && n <= capacity - w.size
                                    ? (unsigned char *)buffer + w.size
                                    : NULL;
            if (at != NULL)
                vt->save_state(s->delegate[k], at, n);
            w.size += n;
        }
    }
    return w.size;
}

static int auto_restore_state(void *state, const void *buffer, size_t size) {
    auto_state *s = state;
    if (s == NULL || (buffer == NULL && size > 0))
        return -1;
    auto_reset(s);
    state_reader r = {buffer, size, 0, 0};
    const int current = state_get_int(&r, -1, AUTO_DELEGATES - 1);
    if (r.bad)
        return -1;
    for (int k = 0; k < AUTO_DELEGATES; ++k) {
        const heft_solver_vtable *vt = delegate_table(k);
        uint64_t n = 0;
        if (!state_get(&r, &n, sizeof n))
            return -1;
        if (n == UINT64_MAX)
            continue;
        if (n > r.size - r.at || vt->restore_state == NULL)
            return -1;
        if (s->delegate[k] == NULL && (s->delegate[k] = vt->create(&s->options)) == NULL)
            return -1;
        if (vt->restore_state(s->delegate[k], r.buffer + r.at, (size_t)n) != 0)
            return -1;
        r.at += (size_t)n;
    }
    if (r.at != size)
        return -1;
    s->current = current;
    return 0;
}

extern const heft_solver_vtable heft_auto_solver;

const heft_solver_vtable heft_auto_solver = {
    "auto",
    "bpp-skyline on joint islands and small contact islands, bpp-sparse on large contact islands "
    "(when built with CHOLMOD); stats name the one used",
    auto_create,
    auto_solve,
    auto_reset,
    auto_destroy,
    1,
    auto_save_state,
    auto_restore_state,
    1,    /* its delegates' answers are measured by heft_bpp_answer */
    NULL, /* reserve: workspaces sized at the first solve of each size */
};
