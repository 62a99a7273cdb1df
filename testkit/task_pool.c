/* The pool of task_pool.h: one task at a time (the engine finishes each task
 * before it enqueues the next). Each worker first takes the items of its
 * own share of [0, item_count), the w-th of W equal parts, a range at a
 * time from a counter of its own, then claims what is left of the others'
 * shares, so a slow worker leaves its items to the others. The shares keep
 * the same items on the same thread from task to task (the step's tasks go
 * over the islands, bodies and joints in the same order), so each core
 * finds in its cache what it wrote in the task before.
 *
 * A step enqueues about ten tasks, some of them a few microseconds long, so
 * what a task costs beyond its items matters:
 * - the finishing thread waits for the task's items to be done, not for
 *   every helper to have looked at it (a helper still waking up would
 *   otherwise add its wake-up latency to every task);
 * - helpers poll for the next task for a millisecond before they sleep,
 *   so the tasks of one step find them awake.
 * A helper that wakes late must not run the next task's items with the last
 * task's function: each counter carries the task's generation in its high
 * bits, and an item is claimed by compare-and-swap only under the
 * generation the helper read the task under. */
#include "task_pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* how long a helper polls for the next task before it sleeps, and the
 * polls of the finishing thread before it yields its core to a helper still
 * running */
#ifndef TASK_POOL_SPIN_US
#define TASK_POOL_SPIN_US 1000
#endif
#define FINISH_SPINS 2000

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return 1e6 * (double)t.tv_sec + 1e-3 * (double)t.tv_nsec;
}

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
    /* the counters each on a cache line of its own */
    _Alignas(64) atomic_int done; /* items of the current task finished */
    _Alignas(64) atomic_uint generation;
    atomic_int stop;
    unsigned published; /* the last generation, the enqueuing thread's own */
    helper_arg args[HEFT_MAX_WORKERS];
    struct {
        _Alignas(64) atomic_long n;
        _Atomic double busy_us;    /* wall time inside the items */
    } items_run[HEFT_MAX_WORKERS]; /* one line a worker */
    struct {
        _Alignas(64) atomic_uint_least64_t next; /* generation << 32 | the share's next item */
    } share[HEFT_MAX_WORKERS];
};

/* The end of worker w's share of items. */
static int share_end(int items, int workers, int w) {
    return (int)(((long long)items * (w + 1)) / workers);
}

/* Claims and runs ranges of share w of generation gen's task, up to end;
 * returns the items run, or -1 when the task is no longer gen's. */
static int run_share(task_pool *p, int worker, unsigned gen, int w, int end, int range,
                     heft_task_fn *task, void *context, double *busy) {
    int ran = 0;
    uint_least64_t cur = atomic_load(&p->share[w].next);
    for (;;) {
        if ((unsigned)(cur >> 32) != gen) {
            return -1; /* a later task: the fields read by the caller may be its own */
        }
        const int begin = (int)(cur & 0xffffffffu);
        if (begin >= end) {
            return ran;
        }
        const int stop = end - begin > range ? begin + range : end;
        const uint_least64_t claimed = ((uint_least64_t)gen << 32) | (uint_least64_t)stop;
        if (!atomic_compare_exchange_weak(&p->share[w].next, &cur, claimed)) {
            continue; /* cur now holds the counter's value */
        }
        const double t0 = now_us();
        task(begin, stop, worker, context);
        *busy += now_us() - t0;
        ran += stop - begin;
        cur = atomic_load(&p->share[w].next);
    }
}

/* Runs generation gen's items: the worker's own share, then what is left
 * of the others'; the items it ran are counted once, at the end, when they
 * are all done. */
static void run_items(task_pool *p, int worker, unsigned gen) {
    heft_task_fn *task = atomic_load(&p->task);
    void *context = atomic_load(&p->context);
    const int items = atomic_load(&p->items), range = atomic_load(&p->range);
    int ran = 0;
    double busy = 0.0;
    for (int k = 0; k < p->workers; ++k) {
        const int w = (worker + k) % p->workers;
        const int n = run_share(p, worker, gen, w, share_end(items, p->workers, w), range, task,
                                context, &busy);
        if (n < 0) {
            break;
        }
        ran += n;
    }
    if (ran > 0) {
        /* only this worker writes its own time */
        atomic_store(&p->items_run[worker].busy_us,
                     atomic_load(&p->items_run[worker].busy_us) + busy);
        atomic_fetch_add(&p->items_run[worker].n, ran);
        atomic_fetch_add(&p->done, ran);
    }
}

static void *helper_main(void *arg) {
    helper_arg *a = arg;
    task_pool *p = a->pool;
    unsigned seen = 0;
    for (;;) {
        unsigned gen = atomic_load(&p->generation);
        const double until = now_us() + TASK_POOL_SPIN_US;
        for (int spin = 1; gen == seen && !atomic_load(&p->stop); ++spin) {
            if (spin % 256 == 0) {
                if (now_us() > until) {
                    break;
                }
                /* a machine with more runnable threads than cores gets its
                 * core back between polls; an idle one returns at once */
                sched_yield();
            }
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
    /* the counters' lines need the pool aligned to them */
    task_pool *p = aligned_alloc(_Alignof(task_pool), sizeof *p);
    if (!p) {
        return NULL;
    }
    memset(p, 0, sizeof *p);
    p->workers = workers;
    pthread_mutex_init(&p->mutex, NULL);
    pthread_cond_init(&p->wake, NULL);
    atomic_init(&p->task, NULL);
    atomic_init(&p->context, NULL);
    atomic_init(&p->items, 0);
    atomic_init(&p->range, 1);
    for (int i = 0; i < HEFT_MAX_WORKERS; ++i) {
        atomic_init(&p->share[i].next, 0);
    }
    atomic_init(&p->done, 0);
    atomic_init(&p->generation, 0);
    atomic_init(&p->stop, 0);
    for (int i = 0; i < HEFT_MAX_WORKERS; ++i) {
        atomic_init(&p->items_run[i].n, 0);
        atomic_init(&p->items_run[i].busy_us, 0.0);
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
    return worker >= 0 && worker < p->workers ? atomic_load(&p->items_run[worker].n) : 0;
}

double task_pool_busy_ms(task_pool *p, int worker) {
    return worker >= 0 && worker < p->workers ? 1e-3 * atomic_load(&p->items_run[worker].busy_us)
                                              : 0.0;
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
    /* the counters first: from here no helper can claim under an older
     * generation, whatever task fields it reads */
    for (int w = 0; w < p->workers; ++w) {
        const int begin = w > 0 ? share_end(item_count, p->workers, w - 1) : 0;
        atomic_store(&p->share[w].next, ((uint_least64_t)gen << 32) | (uint_least64_t)begin);
    }
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

void *task_inline_enqueue(heft_task_fn *task, int item_count, int min_range, void *task_context,
                          void *user) {
    (void)min_range;
    if (user != NULL)
        ++*(int *)user;
    task(0, item_count / 2, 0, task_context);
    task(item_count / 2, item_count, 1, task_context);
    return NULL; /* already run */
}

void task_inline_finish(void *handle, void *user) {
    (void)handle;
    (void)user;
}
