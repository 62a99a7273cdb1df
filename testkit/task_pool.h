/* A small thread pool on POSIX threads in the shape of heft's task system
 * (heft_world_set_task_system), for the tests and benchmarks: the library
 * itself starts no thread. The calling thread is worker 0 and runs items
 * too; items are handed out one range at a time from a shared counter. */
#ifndef HEFT_TASK_POOL_H
#define HEFT_TASK_POOL_H

#include <heft/heft.h>

typedef struct task_pool task_pool;

/* workers in [1, HEFT_MAX_WORKERS], the calling thread included; NULL when
 * out of memory or threads. */
task_pool *task_pool_create(int workers);
void task_pool_destroy(task_pool *pool);
int task_pool_workers(const task_pool *pool);
/* Items worker has run since the pool was made (through the pool's own
 * enqueue; a one-worker pool runs tasks inline and counts nothing). */
long task_pool_items_run(task_pool *pool, int worker);
/* The wall-clock time worker has spent inside those items, in ms. */
double task_pool_busy_ms(task_pool *pool, int worker);
/* The callbacks to hand heft_world_set_task_system with the pool as user. */
void *task_pool_enqueue(heft_task_fn *task, int item_count, int min_range, void *task_context,
                        void *user);
void task_pool_finish(void *handle, void *user);
/* Sets the pool as world's task system. */
heft_result task_pool_attach(task_pool *pool, heft_world *world);

/* A task system without threads (worker_count 2): each task runs at once on
 * the calling thread, its items split between worker indices 0 and 1, so
 * the workers' scratch and rescues are used as with threads. user, when not
 * NULL, points to an int counting the tasks handed to it. */
void *task_inline_enqueue(heft_task_fn *task, int item_count, int min_range, void *task_context,
                          void *user);
void task_inline_finish(void *handle, void *user);

#endif
