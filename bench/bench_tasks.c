/* heft-bench-tasks: the step with the islands solved serially and through
 * a task system of W POSIX threads (docs/tasks.md, docs/benchmarks.md
 * "Parallel islands"). The scene is the stacking scene's boxes variant
 * (stacks of five 0.4 m boxes dropped on a plane, one island a stack), built
 * twice in one run; both worlds are stepped over the same steps, interleaved
 * in blocks of 10 so that both see the same machine. Times are wall-clock
 * per step (a parallel step's CPU time is spread over threads); the two runs
 * must end bit-identical, which the program checks.
 *
 * usage: heft-bench-tasks [--stacks N] [--steps N] [--workers W] [--solver NAME]
 * (default: 200 stacks = 1,000 boxes, 300 steps, 2 workers, bpp-skyline).
 * Exits 1 when the two runs differ. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "task_pool.h"

typedef struct timed_run {
    run_result r;
    heft_body_id *ids;
    int count;
    double step_ms;   /* wall clock, summed */
    double island_ms; /* the step's rows and solve times as the engine reports them */
} timed_run;

static int open_boxes(const char *solver, int stacks, timed_run *t) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = "stacking";
    cfg.solver = solver;
    cfg.params.variant = "boxes";
    cfg.params.size = stacks;
    int steps = 0;
    double h = 0.0;
    memset(t, 0, sizeof *t);
    if (run_open(&cfg, &t->r, &steps, &h) != 0) {
        fprintf(stderr, "heft-bench-tasks: %s\n", t->r.error);
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

static int step_block(timed_run *t, int steps, double h) {
    for (int i = 0; i < steps; ++i) {
        double t0 = heft_time_ms();
        if (heft_world_step(t->r.world, h) != HEFT_OK) {
            fprintf(stderr, "heft-bench-tasks: %s\n", heft_last_error());
            return -1;
        }
        t->step_ms += heft_time_ms() - t0;
        const heft_step_stats *s = heft_world_stats(t->r.world);
        t->island_ms += s->time_rows_ms + s->time_solve_ms;
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
    int stacks = 200, steps = 300, workers = 2;
    const char *solver = "bpp-skyline";
    for (int i = 1; i < argc; ++i) {
        if (i + 1 < argc && strcmp(argv[i], "--stacks") == 0) {
            stacks = atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--steps") == 0) {
            steps = atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--workers") == 0) {
            workers = atoi(argv[++i]);
        } else if (i + 1 < argc && strcmp(argv[i], "--solver") == 0) {
            solver = argv[++i];
        } else {
            fprintf(stderr, "usage: heft-bench-tasks [--stacks N] [--steps N] [--workers W] "
                            "[--solver NAME]\n");
            return 2;
        }
    }
    if (stacks < 1 || stacks > 20000 || steps < 1 || workers < 1 || workers > HEFT_MAX_WORKERS) {
        fprintf(stderr,
                "heft-bench-tasks: --stacks in [1, 20000], --steps >= 1, --workers in "
                "[1, %d]\n",
                HEFT_MAX_WORKERS);
        return 2;
    }
    timed_run serial, parallel;
    if (open_boxes(solver, stacks, &serial) != 0 || open_boxes(solver, stacks, &parallel) != 0) {
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
        if (step_block(&serial, block, h) != 0 || step_block(&parallel, block, h) != 0) {
            return 1;
        }
    }
    const int same = same_state(&serial, &parallel);
    const heft_step_stats *s = heft_world_stats(serial.r.world);
    printf("heft-bench-tasks: %d bodies (%d stacks of 5 boxes and the ground), %s, %d steps of "
           "1/60 s, %d workers\n",
           serial.count, stacks, solver, steps, workers);
    printf("  islands solved in the last step  %d\n", s->islands_solved);
    printf("  serial step                      %.3f ms (islands: %.3f ms, %.0f%%)\n",
           serial.step_ms / steps, serial.island_ms / steps,
           100.0 * serial.island_ms / serial.step_ms);
    const double share = serial.island_ms / serial.step_ms;
    printf("  bound if the islands' share ran %d times as fast: %.2fx\n", workers,
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
    printf("  end states bit-identical         %s\n", same ? "yes" : "NO");
    free(serial.ids);
    free(parallel.ids);
    run_result_free(&serial.r);
    run_result_free(&parallel.r);
    task_pool_destroy(pool);
    return same ? 0 : 1;
}
