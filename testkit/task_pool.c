/* The pool of task_pool.h: one task at a time (the engine finishes each task
 * before it enqueues the next), items claimed from a shared counter so a
 * slow worker leaves its share to the others.
 *
 * A step enqueues about ten tasks, some of them a few microseconds long, so
 * what a task costs beyond its items matters:
 * - the finishing thread waits for the task's items to be done, not for
 *   every helper to have looked at it (a helper still waking up would
 *   otherwise add its wake-up latency to every task);
 * - helpers spin a little on the task counter before they sleep, so the
 *   tasks of one step find them awake.
 * A helper that wakes late must not run the next task's items with the last
 * task's function: the counter carries the task's generation in its high
 * bits, and an item is claimed by compare-and-swap only under the
 * generation the helper read the task under. */
#include "task_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* polls of the counter before a helper sleeps (tens of microseconds), and
 * before the finishing thread yields its core to a helper still running */
#define HELPER_SPINS 20000
#define FINISH_SPINS 2000

typedef struct helper_arg {
    task_pool *pool;
    int worker;
} helper_arg;

struct task_pool {
    int workers;
    pthread_t threads[HEFT_MAX_WORKERS];
    pthread_mutex_t mutex;
    pthread_cond_t wake;
    int sleepers; /* helpers waiting on wake, under the mutex */
    /* the task, stored before its generation is published */
    _Atomic(heft_task_fn *) task;
    _Atomic(void *) context;
    atomic_int items, range;
    atomic_uint_least64_t next; /* generation << 32 | the next unclaimed item */
    atomic_int done;            /* items of the current task finished */
    atomic_uint generation;
    atomic_int stop;
    unsigned published; /* the last generation, the enqueuing thread's own */
    helper_arg args[HEFT_MAX_WORKERS];
    atomic_long items_run[HEFT_MAX_WORKERS];
};

/* Claims and runs ranges of generation gen's task until none is left or
 * the task is no longer gen's. */
static void run_items(task_pool *p, int worker, unsigned gen) {
    heft_task_fn *task = atomic_load(&p->task);
    void *context = atomic_load(&p->context);
    const int items = atomic_load(&p->items), range = atomic_load(&p->range);
    uint_least64_t cur = atomic_load(&p->next);
    for (;;) {
        if ((unsigned)(cur >> 32) != gen) {
            return; /* a later task: the fields read above may be its own */
        }
        const int begin = (int)(cur & 0xffffffffu);
        if (begin >= items) {
            return;
        }
        const int end = items - begin > range ? begin + range : items;
        const uint_least64_t claimed = ((uint_least64_t)gen << 32) | (uint_least64_t)end;
        if (!atomic_compare_exchange_weak(&p->next, &cur, claimed)) {
            continue; /* cur now holds the counter's value */
        }
        task(begin, end, worker, context);
        atomic_fetch_add(&p->items_run[worker], end - begin);
        atomic_fetch_add(&p->done, end - begin);
        cur = atomic_load(&p->next);
    }
}

static void *helper_main(void *arg) {
    helper_arg *a = arg;
    task_pool *p = a->pool;
    unsigned seen = 0;
    for (;;) {
        unsigned gen = atomic_load(&p->generation);
        for (int spin = 0; spin < HELPER_SPINS && gen == seen && !atomic_load(&p->stop); ++spin) {
            gen = atomic_load(&p->generation);
        }
        if (gen == seen && !atomic_load(&p->stop)) {
            pthread_mutex_lock(&p->mutex);
            p->sleepers++;
            while (!atomic_load(&p->stop) && atomic_load(&p->generation) == seen) {
                pthread_cond_wait(&p->wake, &p->mutex);
            }
            p->sleepers--;
            pthread_mutex_unlock(&p->mutex);
            gen = atomic_load(&p->generation);
        }
        if (atomic_load(&p->stop)) {
            return NULL;
        }
        seen = gen;
        run_items(p, a->worker, gen);
    }
}

task_pool *task_pool_create(int workers) {
    if (workers < 1 || workers > HEFT_MAX_WORKERS) {
        return NULL;
    }
    task_pool *p = calloc(1, sizeof *p);
    if (!p) {
        return NULL;
    }
    p->workers = workers;
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->wake, NULL);
    atomic_init(&p->task, NULL);
    atomic_init(&p->context, NULL);
    atomic_init(&p->items, 0);
    atomic_init(&p->range, 1);
    atomic_init(&p->next, 0);
    atomic_init(&p->done, 0);
    atomic_init(&p->generation, 0);
    atomic_init(&p->stop, 0);
    for (int i = 0; i < HEFT_MAX_WORKERS; ++i) {
        atomic_init(&p->items_run[i], 0);
    }
    for (int i = 1; i < workers; ++i) {
        p->args[i].pool = p;
        p->args[i].worker = i;
        if (pthread_create(&p->threads[i], NULL, helper_main, &p->args[i]) != 0) {
            p->workers = i;
            task_pool_destroy(p);
            return NULL;
        }
    }
    return p;
}

void task_pool_destroy(task_pool *p) {
    if (!p) {
        return;
    }
    pthread_mutex_lock(&p->mutex);
    atomic_store(&p->stop, 1);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    for (int i = 1; i < p->workers; ++i) {
        pthread_join(p->threads[i], NULL);
    }
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mutex);
    free(p);
}

long task_pool_items_run(task_pool *p, int worker) {
    return worker >= 0 && worker < p->workers ? atomic_load(&p->items_run[worker]) : 0;
}

int task_pool_workers(const task_pool *p) {
    return p->workers;
}

void *task_pool_enqueue(heft_task_fn *task, int item_count, int min_range, void *task_context,
                        void *user) {
    task_pool *p = user;
    if (p->workers == 1) {
        task(0, item_count, 0, task_context);
        return NULL; /* already run */
    }
    const unsigned gen = ++p->published;
    /* the counter first: from here no helper can claim under an older
     * generation, whatever task fields it reads */
    atomic_store(&p->next, (uint_least64_t)gen << 32);
    atomic_store(&p->done, 0);
    atomic_store(&p->task, task);
    atomic_store(&p->context, task_context);
    atomic_store(&p->items, item_count);
    atomic_store(&p->range, min_range > 0 ? min_range : 1);
    atomic_store(&p->generation, gen);
    pthread_mutex_lock(&p->mutex);
    if (p->sleepers > 0) {
        pthread_cond_broadcast(&p->wake);
    }
    pthread_mutex_unlock(&p->mutex);
    return p;
}

void task_pool_finish(void *handle, void *user) {
    task_pool *p = user;
    (void)handle;
    run_items(p, 0, p->published);
    const int items = atomic_load(&p->items);
    for (int spin = 0; atomic_load(&p->done) < items; ++spin) {
        if (spin >= FINISH_SPINS) {
            sched_yield(); /* a helper is inside an item: let it have the core */
        }
    }
}

heft_result task_pool_attach(task_pool *p, heft_world *world) {
    return heft_world_set_task_system(world, task_pool_enqueue, task_pool_finish, p, p->workers);
}
