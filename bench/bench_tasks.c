/* heft-bench-tasks: the step with the islands solved serially and through
 * a task system of W POSIX threads (docs/tasks.md, docs/benchmarks.md
 * "Parallel islands"). The scene is the stacking scene's boxes variant
 * (stacks of five 0.4 m boxes dropped on a plane, one island a stack), built
 * twice in one run; both worlds are stepped over the same steps, interleaved
 * in blocks of 10 so that both see the same machine. Times are wall-clock
 * per step (a parallel step's CPU time is spread over threads); the two runs
 * must end bit-identical, which the program checks. The serial run goes
 * through a one-worker task system that runs each task inline and times it
 * in thread CPU time: the share of the step inside tasks gives the speed-up
 * W workers could reach at best (Amdahl's bound), whatever the load.
 *
 * With --machines N the world holds N copies of a machine scene instead
 * (--scene crane or forklift, default crane), 20 m apart along y on one
 * ground plane, each driven by its own copy of the scene's operator
 * timeline: N independent islands of joints, motors and contacts.
 *
 * usage: heft-bench-tasks [--stacks N] [--steps N] [--workers W] [--solver NAME]
 *                         [--machines N [--scene NAME]]
 * (default: 200 stacks = 1,000 boxes, 300 steps, 2 workers, bpp-skyline).
 * Exits 1 when the two runs differ. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runner.h"
#include "task_pool.h"

#define MAX_MACHINES 256
#define MACHINE_SPACING 20.0 /* m between copies, far beyond either machine's reach */

typedef struct timed_run {
    run_result r;
    scenario *copies[MAX_MACHINES]; /* the machines after the first (r.scene) */
    int copy_count;
    heft_body_id *ids;
    int count;
    double step_ms;  /* wall clock, summed */
    double cpu_ms;   /* the stepping thread's CPU time, summed */
    double tasks_ms; /* of which inside the task system's items (the serial run's) */
} timed_run;

/* Adds copies 1 .. machines-1 of the scene r was opened on, each moved
 * MACHINE_SPACING * k along y; a copy's ground is dropped, the first one's
 * serves all. The scenes joined to the world frame (a fixed anchor) cannot
 * be moved and are refused. */
static int add_machines(timed_run *t, int machines) {
    heft_world *w = t->r.world;
    scenario_params params;
    memset(&params, 0, sizeof params);
    for (int k = 1; k < machines; ++k) {
        const int before = heft_world_body_count(w);
        heft_body_id *old = malloc(sizeof *old * (size_t)(before + 1));
        if (!old) {
            return -1;
        }
        heft_world_bodies(w, old, before);
        scenario *s = t->r.desc->create(w, &params);
        if (!s) {
            fprintf(stderr, "heft-bench-tasks: copy %d: %s\n", k, heft_last_error());
            free(old);
            return -1;
        }
        t->copies[t->copy_count++] = s;
        const int after = heft_world_body_count(w);
        heft_body_id *all = malloc(sizeof *all * (size_t)(after + 1));
        if (!all) {
            free(old);
            return -1;
        }
        heft_world_bodies(w, all, after);
        for (int i = 0; i < after; ++i) {
            int seen = 0;
            for (int j = 0; j < before && !seen; ++j) {
                seen = memcmp(&all[i], &old[j], sizeof all[i]) == 0;
            }
            if (seen) {
                continue;
            }
            heft_body_state bs;
            heft_body_get_state(w, all[i], &bs);
            const char *name = heft_body_name(w, all[i]);
            if (bs.type == HEFT_BODY_STATIC && name && strcmp(name, "ground") == 0) {
                heft_destroy_body(w, all[i]);
                continue;
            }
            heft_vec3 p = heft_body_position(w, all[i]);
            p.y += MACHINE_SPACING * k;
            if (heft_body_set_transform(w, all[i], p, heft_body_orientation(w, all[i])) !=
                HEFT_OK) {
                fprintf(stderr, "heft-bench-tasks: %s\n", heft_last_error());
                free(old);
                free(all);
                return -1;
            }
        }
        free(old);
        free(all);
    }
    return 0;
}

/* Opens the scene: the stacking scene's boxes with `stacks` stacks when
 * machines is 0, else `machines` copies of scene. */
static int open_run(const char *solver, int stacks, const char *scene, int machines, timed_run *t) {
    if (machines > 0 && strcmp(scene, "crane") != 0 && strcmp(scene, "forklift") != 0) {
        fprintf(stderr,
                "heft-bench-tasks: --scene %s: only crane and forklift can be copied "
                "(the others hang from the world frame)\n",
                scene);
        return -1;
    }
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.solver = solver;
    if (machines > 0) {
        cfg.scenario = scene;
    } else {
        cfg.scenario = "stacking";
        cfg.params.variant = "boxes";
        cfg.params.size = stacks;
    }
    int steps = 0;
    double h = 0.0;
    memset(t, 0, sizeof *t);
    if (run_open(&cfg, &t->r, &steps, &h) != 0) {
        fprintf(stderr, "heft-bench-tasks: %s\n", t->r.error);
        return -1;
    }
    if (machines > 0 && add_machines(t, machines) != 0) {
        return -1;
    }
    t->count = heft_world_body_count(t->r.world);
    t->ids = malloc(sizeof *t->ids * (size_t)(t->count + 1));
    if (!t->ids) {
        return -1;
    }
    heft_world_bodies(t->r.world, t->ids, t->count);
    return 0;
}

static void close_run(timed_run *t) {
    for (int i = 0; i < t->copy_count; ++i) {
        t->r.desc->destroy(t->copies[i]);
    }
    free(t->ids);
    run_result_free(&t->r);
}

static double thread_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

/* The serial run's task system: one worker that runs every task inline on
 * the stepping thread and times it, so the run is the serial step (the same
 * bits) and tells which share of it the task system could spread. */
static void *timing_enqueue(heft_task_fn *task, int item_count, int min_range, void *task_context,
                            void *user) {
    (void)min_range;
    timed_run *t = user;
    const double t0 = thread_cpu_ms();
    task(0, item_count, 0, task_context);
    t->tasks_ms += thread_cpu_ms() - t0;
    return NULL;
}

static void timing_finish(void *handle, void *user) {
    (void)handle;
    (void)user;
}

static int step_block(timed_run *t, int first_step, int steps, double h) {
    for (int i = 0; i < steps; ++i) {
        if (t->r.desc->control) {
            t->r.desc->control(t->r.scene, t->r.world, first_step + i, h);
            for (int k = 0; k < t->copy_count; ++k) {
                t->r.desc->control(t->copies[k], t->r.world, first_step + i, h);
            }
        }
        const double t0 = heft_time_ms(), c0 = thread_cpu_ms();
        if (heft_world_step(t->r.world, h) != HEFT_OK) {
            fprintf(stderr, "heft-bench-tasks: %s\n", heft_last_error());
            return -1;
        }
        t->step_ms += heft_time_ms() - t0;
        t->cpu_ms += thread_cpu_ms() - c0;
    }
    return 0;
}

static int same_state(const timed_run *a, const timed_run *b) {
    for (int i = 0; i < a->count; ++i) {
        heft_vec3 pa = heft_body_position(a->r.world, a->ids[i]);
        heft_vec3 pb = heft_body_position(b->r.world, b->ids[i]);
        heft_vec3 va = heft_body_linear_velocity(a->r.world, a->ids[i]);
        heft_vec3 vb = heft_body_linear_velocity(b->r.world, b->ids[i]);
        if (memcmp(&pa, &pb, sizeof pa) != 0 || memcmp(&va, &vb, sizeof va) != 0) {
            return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv) {
    int stacks = 200, steps = 300, workers = 2, machines = 0;
    const char *solver = "bpp-skyline", *scene = "crane";
    for (int i = 1; i < argc; ++i) {
        if (i + 1 < argc && strcmp(argv[i], "--stacks") == 0) {
            stacks = atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--steps") == 0) {
            steps = atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--workers") == 0) {
            workers = atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--solver") == 0) {
            solver = argv[++i];
        } else if (i + 1 < argc && strcmp(argv[i], "--machines") == 0) {
            machines = atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--scene") == 0) {
            scene = argv[++i];
        } else {
            fprintf(stderr, "usage: heft-bench-tasks [--stacks N] [--steps N] [--workers W] "
                            "[--solver NAME] [--machines N [--scene crane|forklift]]\n");
            return 2;
        }
    }
    if (stacks < 1 || stacks > 20000 || steps < 1 || workers < 1 || workers > HEFT_MAX_WORKERS ||
        machines < 0 || machines > MAX_MACHINES) {
        fprintf(stderr,
                "heft-bench-tasks: --stacks in [1, 20000], --steps >= 1, --workers in "
                "[1, %d], --machines in [1, %d]\n",
                HEFT_MAX_WORKERS, MAX_MACHINES);
        return 2;
    }
    timed_run serial, parallel;
    if (open_run(solver, stacks, scene, machines, &serial) != 0 ||
        open_run(solver, stacks, scene, machines, &parallel) != 0) {
        return 1;
    }
    if (heft_world_set_task_system(serial.r.world, timing_enqueue, timing_finish, &serial, 1) !=
        HEFT_OK) {
        fprintf(stderr, "heft-bench-tasks: %s\n", heft_last_error());
        return 1;
    }
    task_pool *pool = task_pool_create(workers);
    if (!pool || task_pool_attach(pool, parallel.r.world) != HEFT_OK) {
        fprintf(stderr, "heft-bench-tasks: no task pool of %d workers\n", workers);
        return 1;
    }
    const double h = 1.0 / 60.0;
    for (int done = 0; done < steps; done += 10) {
        int block = steps - done < 10 ? steps - done : 10;
        if (step_block(&serial, done, block, h) != 0 ||
            step_block(&parallel, done, block, h) != 0) {
            return 1;
        }
    }
    const int same = same_state(&serial, &parallel);
    const heft_step_stats *s = heft_world_stats(serial.r.world);
    if (machines > 0) {
        printf("heft-bench-tasks: %d bodies (%d %ss and the ground), %s, %d steps of 1/60 s, %d "
               "workers\n",
               serial.count, machines, scene, solver, steps, workers);
    } else {
        printf("heft-bench-tasks: %d bodies (%d stacks of 5 boxes and the ground), %s, %d steps "
               "of 1/60 s, %d workers\n",
               serial.count, stacks, solver, steps, workers);
    }
    printf("  islands solved in the last step  %d\n", s->islands_solved);
    const double share = serial.tasks_ms / serial.cpu_ms;
    printf("  serial step                      %.3f ms (CPU %.3f ms, in tasks %.0f%%)\n",
           serial.step_ms / steps, serial.cpu_ms / steps, 100.0 * share);
    printf("  bound if the tasks ran %d times as fast: %.2fx\n", workers,
           1.0 / (1.0 - share + share / workers));
    printf("  %d workers step                   %.3f ms\n", workers, parallel.step_ms / steps);
    printf("  ratio parallel / serial          %.3f (speed-up %.2fx)\n",
           parallel.step_ms / serial.step_ms, serial.step_ms / parallel.step_ms);
    long all = 0, helpers = 0;
    for (int i = 0; i < workers; ++i) {
        long n = task_pool_items_run(pool, i);
        all += n;
        helpers += i > 0 ? n : 0;
    }
    printf("  island items run by the helper threads %.0f%% of %ld\n",
           all > 0 ? 100.0 * (double)helpers / (double)all : 0.0, all);
    /* the items' time on the workers against the serial run's: what
     * running them apart costs beyond the serial share (memory one core
     * wrote and another reads, waits for the slowest range) */
    double busy = 0.0;
    printf("  time in items a step             ");
    for (int i = 0; i < workers; ++i) {
        const double b = task_pool_busy_ms(pool, i) / steps;
        busy += b;
        printf("%s%.3f", i > 0 ? " + " : "", b);
    }
    printf(" ms (%.2fx the serial run's %.3f ms)\n", busy / (serial.tasks_ms / steps),
           serial.tasks_ms / steps);
    printf("  end states bit-identical         %s\n", same ? "yes" : "NO");
    close_run(&serial);
    close_run(&parallel);
    task_pool_destroy(pool);
    return same ? 0 : 1;
}
