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
    void *handle = w->enqueue_task(task, count, min_range, context, w->task_user);
    if (handle) {
        w->finish_task(handle, w->task_user);
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
