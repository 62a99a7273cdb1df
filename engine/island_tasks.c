/* Parallel islands (docs/tasks.md): the application's task system runs the
 * islands' MLCP builds and solves. An island's build and solve touch only
 * its own memory: its rows' entries of the step's row map, its problem in
 * the running worker's arena, its solver state, its lambda and statistics,
 * and the worker's rescue (whose PGS keeps no answer from one solve to the
 * next). The step sums the islands' statistics in island order afterwards,
 * so the results do not depend on which worker ran which island. */
#include <limits.h>
#include <string.h>

#include "array.h"
#include "error.h"
#include "world.h"

static void release_workers(island_worker *workers, int count) {
    for (int i = 0; workers && i < count; ++i) {
        arena_release(&workers[i].scratch);
        narrow_scratch_release(&workers[i].narrow);
        heft_fallback_destroy(workers[i].fallback);
    }
    heft_free(workers);
}

void island_workers_release(heft_world *w) {
    release_workers(w->workers, w->worker_count);
    w->workers = NULL;
    w->worker_count = 0;
}

heft_result heft_world_set_task_system(heft_world *w, heft_enqueue_task_fn *enqueue,
                                       heft_finish_task_fn *finish, void *user, int worker_count) {
    if (!w) {
        heft_set_error("heft_world_set_task_system: world is NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (w->contacts.in_callback) {
        heft_set_error("heft_world_set_task_system: called from a pair filter or pre-solve "
                       "callback");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!enqueue && !finish) {
        island_workers_release(w);
        w->task_kind_count = 0;
        w->enqueue_task = NULL;
        w->finish_task = NULL;
        w->task_user = NULL;
        return HEFT_OK;
    }
    if (!enqueue || !finish) {
        heft_set_error("heft_world_set_task_system: enqueue and finish must both be given, or "
                       "both NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (worker_count < 1 || worker_count > HEFT_MAX_WORKERS) {
        heft_set_error("heft_world_set_task_system: worker_count %d outside [1, %d]", worker_count,
                       HEFT_MAX_WORKERS);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    island_worker *workers = heft_alloc(sizeof *workers * (size_t)worker_count);
    if (!workers) {
        heft_set_error("heft_world_set_task_system: out of memory");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    memset(workers, 0, sizeof *workers * (size_t)worker_count);
    for (int i = 0; i < worker_count; ++i) {
        arena_init(&workers[i].scratch);
        memcpy(&workers[i].options, &w->solver_options, sizeof workers[i].options);
        workers[i].fallback = heft_fallback_create(&w->solver_options);
        if (!workers[i].fallback) {
            release_workers(workers, worker_count);
            heft_set_error("heft_world_set_task_system: out of memory");
            return HEFT_ERROR_OUT_OF_MEMORY;
        }
    }
    /* a world reserved ahead keeps its steps free of allocation with workers too */
    for (int i = 0; i < worker_count && w->rescue_rows > 0; ++i) {
        if (!heft_fallback_reserve(workers[i].fallback, w->rescue_rows, w->rescue_bodies)) {
            release_workers(workers, worker_count);
            heft_set_error("heft_world_set_task_system: out of memory");
            return HEFT_ERROR_OUT_OF_MEMORY;
        }
    }
    island_workers_release(w);
    w->workers = workers;
    w->worker_count = worker_count;
    w->task_kind_count = 0; /* another task system: every task is handed out again */
    w->enqueue_task = enqueue;
    w->finish_task = finish;
    w->task_user = user;
    return HEFT_OK;
}

int heft_world_worker_count(const heft_world *w) {
    if (!w) {
        heft_set_error("heft_world_worker_count: world is NULL");
        return 1;
    }
    return w->worker_count > 0 ? w->worker_count : 1;
}

/* The room reserved ahead of n (capacity_ahead), within an int. */
static int room_ahead(int reserved, int n) {
    if (n <= reserved)
        return reserved;
    const size_t ahead = capacity_ahead((size_t)reserved, (size_t)n);
    return ahead <= INT_MAX ? (int)ahead : n;
}

int island_workers_prepare(heft_world *w, int max_rows, int max_bodies) {
    w->rescue_rows = room_ahead(w->rescue_rows, max_rows);
    w->rescue_bodies = room_ahead(w->rescue_bodies, max_bodies);
    max_rows = w->rescue_rows;
    max_bodies = w->rescue_bodies;
    if (w->worker_count == 0) { /* the step's own rescue (none when it could not be made) */
        return w->fallback == NULL || heft_fallback_reserve(w->fallback, max_rows, max_bodies);
    }
    /* which islands a worker gets changes from step to step, so each arena
     * is made to hold what all of them used in the last step, and each
     * rescue what the step's largest island needs: once warm, no share of
     * the islands overflows an arena or a rescue (nothing allocates) */
    size_t total = 0;
    for (int i = 0; i < w->worker_count; ++i) {
        total += w->workers[i].scratch.peak;
    }
    for (int i = 0; i < w->worker_count; ++i) {
        island_worker *k = &w->workers[i];
        (void)arena_reset_to_hold(&k->scratch, total); /* short of memory: overflow chunks */
        /* the rescue's PGS takes the world's solver options, which may have
         * changed since the last step */
        if (memcmp(&k->options, &w->solver_options, sizeof k->options) != 0) {
            heft_fallback *f = heft_fallback_create(&w->solver_options);
            if (!f) {
                return 0;
            }
            heft_fallback_destroy(k->fallback);
            k->fallback = f;
            memcpy(&k->options, &w->solver_options, sizeof k->options);
        }
        if (!heft_fallback_reserve(k->fallback, max_rows, max_bodies)) {
            return 0;
        }
    }
    return 1;
}

int island_workers_reserve(heft_world *w, int rows, int bodies) {
    w->rescue_rows = rows > w->rescue_rows ? rows : w->rescue_rows;
    w->rescue_bodies = bodies > w->rescue_bodies ? bodies : w->rescue_bodies;
    if (w->fallback != NULL &&
        !heft_fallback_reserve(w->fallback, w->rescue_rows, w->rescue_bodies)) {
        return 0;
    }
    for (int i = 0; i < w->worker_count; ++i) {
        if (!heft_fallback_reserve(w->workers[i].fallback, w->rescue_rows, w->rescue_bodies)) {
            return 0;
        }
    }
    return 1;
}

/* Where a task runs. Handed out, a task costs the task system's round trip
 * beside its items; on the stepping thread, only its items. So the step
 * times both: the wall clock from enqueue to finish, and each range's own
 * time (summed per worker index, which two ranges never share at once).
 * A task whose items would take less time on the stepping thread than the
 * whole round trip took, and at most TASK_CALLER_MAX_US, runs there from
 * the next step on; every TASK_PROBE_CALLS calls it is handed out again,
 * to see whether that still holds (the pool's threads may have been busy
 * elsewhere when it was measured). Their time on one thread is their
 * ranges' time on the workers, or the time they last took on the stepping
 * thread when that was less: spread over two cores they read data the
 * other core wrote, so they run slower there than alone, and a task handed
 * out is run on the stepping thread once (after TASK_FIRST_PROBE calls,
 * then every TASK_PROBE_CALLS) to learn it. On a 2-core EPYC a pool's
 * round trip costs 3 to 5 us, and on the 100-link chain two threads took
 * 0.099 ms a step against 0.066 on one: its six small tasks each paid the
 * trip. A task of more than TASK_CALLER_MAX_US on the workers is always
 * handed out (the islands of 1,000 boxes take about a millisecond), so a
 * hiccup of the pool cannot keep the step on one thread. Which thread runs
 * an item never changes a result (docs/tasks.md), only the time. */
#define TASK_CALLER_MAX_US 50.0
#define TASK_PROBE_CALLS 64
#define TASK_FIRST_PROBE 2

/* The record of task's kind, made when there is room, else NULL. */
static struct world_task_kind *task_kind(heft_world *w, heft_task_fn *task) {
    for (int k = 0; k < w->task_kind_count; ++k)
        if (w->task_kinds[k].task == task)
            return &w->task_kinds[k];
    if (w->task_kind_count == WORLD_TASK_KINDS)
        return NULL;
    struct world_task_kind *kind = &w->task_kinds[w->task_kind_count++];
    kind->task = task;
    kind->on_caller = 0;
    kind->shared_left = TASK_FIRST_PROBE;
    kind->caller_us = -1.0;
    return kind;
}

/* A task handed out through run_timed: the engine's task, its context, and
 * the time its ranges took on each worker index, each worker's sum on a
 * cache line of its own: in one array, the ends of ranges on two cores
 * would write one line (with the task and context every range reads) and
 * pass it back and forth between them. On the 1,000 boxes of
 * heft-bench-tasks, in the VM's slow state, two workers stepped 1.48x
 * faster than one with the sums apart and 1.43x with them in one array
 * (three alternations). */
typedef struct timed_task {
    heft_task_fn *task;
    void *context;
    int workers; /* the sums kept: the world's worker count */
    struct {
        _Alignas(64) double ms;
    } busy[HEFT_MAX_WORKERS];
} timed_task;

static void run_timed(int begin, int end, int worker, void *context) {
    timed_task *t = context;
    const double start = heft_time_ms();
    t->task(begin, end, worker, t->context);
    if ((unsigned)worker < (unsigned)t->workers)
        t->busy[worker].ms += heft_time_ms() - start;
}

void world_tasks_run(heft_world *w, heft_task_fn *task, int count, int min_range, void *context) {
    if (count <= 0) {
        return;
    }
    if (w->worker_count == 0 || count <= min_range) {
        /* no task system, or one range: nothing to share, and handing it
         * out would only add the task system's round trip (no other task
         * runs now, so worker 0's scratch is free) */
        task(0, count, 0, context);
        return;
    }
    struct world_task_kind *kind = task_kind(w, task);
    if (kind != NULL && kind->on_caller > 0) {
        const double start = heft_time_ms();
        task(0, count, 0, context); /* worker 0's scratch is free, as above */
        const double us = 1e3 * (heft_time_ms() - start);
        kind->caller_us = us;
        kind->on_caller = us <= TASK_CALLER_MAX_US ? kind->on_caller - 1 : 0;
        return;
    }
    timed_task timed;
    timed.task = task;
    timed.context = context;
    timed.workers = w->worker_count;
    for (int k = 0; k < w->worker_count; ++k)
        timed.busy[k].ms = 0.0;
    const double start = heft_time_ms();
    void *handle = w->enqueue_task(run_timed, count, min_range, &timed, w->task_user);
    if (handle) {
        w->finish_task(handle, w->task_user);
    }
    const double wall_us = 1e3 * (heft_time_ms() - start);
    double busy_us = 0.0;
    for (int k = 0; k < w->worker_count; ++k)
        busy_us += 1e3 * timed.busy[k].ms;
    if (kind == NULL || busy_us > TASK_CALLER_MAX_US)
        return;
    /* its items on one thread: their time on the workers, or less when the
     * stepping thread ran them faster itself (their data in its caches) */
    const double alone_us =
        kind->caller_us >= 0.0 && kind->caller_us < busy_us ? kind->caller_us : busy_us;
    if (alone_us < wall_us) {
        kind->on_caller = TASK_PROBE_CALLS;
    } else if (--kind->shared_left <= 0) {
        kind->shared_left = TASK_PROBE_CALLS;
        kind->on_caller = 1; /* once on the stepping thread, to time it there */
    }
}

void island_tasks_run(heft_world *w, heft_task_fn *task, int count, void *context) {
    world_tasks_run(w, task, count, 1, context);
}

narrow_scratch *island_worker_narrow(heft_world *w, int worker) {
    return w->worker_count > 0 ? &w->workers[worker].narrow : &w->broad.scratch;
}

arena *island_worker_arena(heft_world *w, int worker) {
    return w->worker_count > 0 ? &w->workers[worker].scratch : &w->scratch;
}

heft_fallback *island_worker_fallback(heft_world *w, int worker) {
    return w->worker_count > 0 ? w->workers[worker].fallback : w->fallback;
}
