/* The pool of task_pool.h: one task at a time (the engine finishes each task
 * before it enqueues the next), items claimed with an atomic counter so a
 * slow worker leaves its share to the others. */
#include "task_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

typedef struct task_pool task_pool;

typedef struct helper_arg {
    task_pool *pool;
    int worker;
} helper_arg;

struct task_pool {
    int workers;
    pthread_t threads[HEFT_MAX_WORKERS];
    pthread_mutex_t mutex;
    pthread_cond_t wake, done;
    /* the task: set under the mutex before generation is bumped */
    heft_task_fn *task;
    void *context;
    int items, range;
    atomic_int next;
    unsigned generation;
    int busy; /* helper threads still on the current task */
    int stop;
    helper_arg args[HEFT_MAX_WORKERS];
    atomic_long items_run[HEFT_MAX_WORKERS];
};

static void run_items(task_pool *p, int worker) {
    for (;;) {
        int begin = atomic_fetch_add(&p->next, p->range);
        if (begin >= p->items) {
            return;
        }
        int end = begin + p->range < p->items ? begin + p->range : p->items;
        p->task(begin, end, worker, p->context);
        atomic_fetch_add(&p->items_run[worker], end - begin);
    }
}

static void *helper_main(void *arg) {
    helper_arg *a = arg;
    task_pool *p = a->pool;
    unsigned seen = 0;
    pthread_mutex_lock(&p->mutex);
    for (;;) {
        while (!p->stop && p->generation == seen) {
            pthread_cond_wait(&p->wake, &p->mutex);
        }
        if (p->stop) {
            break;
        }
        seen = p->generation;
        pthread_mutex_unlock(&p->mutex);
        run_items(p, a->worker);
        pthread_mutex_lock(&p->mutex);
        if (--p->busy == 0) {
            pthread_cond_signal(&p->done);
        }
    }
    pthread_mutex_unlock(&p->mutex);
    return NULL;
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
    pthread_cond_init(&p->done, NULL);
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
    p->stop = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    for (int i = 1; i < p->workers; ++i) {
        pthread_join(p->threads[i], NULL);
    }
    pthread_cond_destroy(&p->done);
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
    pthread_mutex_lock(&p->mutex);
    p->task = task;
    p->context = task_context;
    p->items = item_count;
    p->range = min_range > 0 ? min_range : 1;
    atomic_store(&p->next, 0);
    p->busy = p->workers - 1;
    p->generation++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mutex);
    return p;
}

void task_pool_finish(void *handle, void *user) {
    task_pool *p = user;
    (void)handle;
    run_items(p, 0);
    pthread_mutex_lock(&p->mutex);
    while (p->busy > 0) {
        pthread_cond_wait(&p->done, &p->mutex);
    }
    pthread_mutex_unlock(&p->mutex);
}

heft_result task_pool_attach(task_pool *p, heft_world *world) {
    return heft_world_set_task_system(world, task_pool_enqueue, task_pool_finish, p, p->workers);
}
