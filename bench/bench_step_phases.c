/* heft-bench-phases: where the step of the 1,000 dropped boxes of
 * heft-peers' boxes1000 goes (docs/benchmarks.md "The 1,000 boxes under
 * bpp-skyline"). 1 m unit cubes of 1 kg in a 10 x 10 x 10 grid 1.5 m
 * apart, the lowest 0.5 m above a plane, stepped at h = 1/60 s through the
 * public API; prints the step's phases as the world reports them (ms a
 * step), the process CPU time a step and a hash of the final poses, which
 * must not change when only the speed of the step does, whatever the
 * number of workers.
 *
 * usage: heft-bench-phases [--steps N] [--workers W] [--solver NAME]
 * [--window N] (default 300 steps, 1 worker, bpp-skyline; --window also
 * prints the phases of every N steps: the boxes fall, land and come to
 * rest, and each part of the run costs differently). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <heft/heft.h>

#include "task_pool.h"

#define SIDE 10
#define COUNT (SIDE * SIDE * SIDE)

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* FNV-1a over the bytes of the poses: any change of a bit shows */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t n) {
    const unsigned char *c = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= c[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int arg_int(int argc, char **argv, int *i, int lo, int hi) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s needs a value\n", argv[*i]);
        exit(2);
    }
    char *end = NULL;
    long v = strtol(argv[++*i], &end, 10);
    if (!end || *end || v < lo || v > hi) {
        fprintf(stderr, "%s: %s is not in [%d, %d]\n", argv[*i - 1], argv[*i], lo, hi);
        exit(2);
    }
    return (int)v;
}

int main(int argc, char **argv) {
    int steps = 300, workers = 1, window = 0;
    const char *solver = "bpp-skyline";
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--steps")) {
            steps = arg_int(argc, argv, &i, 1, 1000000);
        } else if (!strcmp(argv[i], "--workers")) {
            workers = arg_int(argc, argv, &i, 1, HEFT_MAX_WORKERS);
        } else if (!strcmp(argv[i], "--window")) {
            window = arg_int(argc, argv, &i, 1, 1000000);
        } else if (!strcmp(argv[i], "--solver") && i + 1 < argc) {
            solver = argv[++i];
        } else {
            fprintf(stderr, "usage: heft-bench-phases [--steps N] [--workers W] [--solver NAME] "
                            "[--window N]\n");
            return 2;
        }
    }
    heft_world_def wd = heft_default_world_def();
    heft_world *w = heft_world_create(&wd);
    if (!w || heft_world_set_solver(w, solver) != HEFT_OK) {
        fprintf(stderr, "%s\n", heft_last_error());
        return 1;
    }
    task_pool *pool = NULL;
    if (workers > 1) {
        pool = task_pool_create(workers);
        if (!pool || task_pool_attach(pool, w) != HEFT_OK) {
            fprintf(stderr, "no task pool of %d workers\n", workers);
            return 1;
        }
    }
    heft_body_def ground = heft_default_body_def();
    ground.type = HEFT_BODY_STATIC;
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    heft_create_shape(w, heft_create_body(w, &ground), &plane);
    heft_shape_def box = heft_default_shape_def();
    box.type = HEFT_SHAPE_BOX;
    box.half_extents = heft_v3(0.5, 0.5, 0.5);
    static heft_body_id ids[COUNT];
    for (int i = 0; i < COUNT; ++i) {
        const int x = i % SIDE, y = (i / SIDE) % SIDE, z = i / (SIDE * SIDE);
        heft_body_def bd = heft_default_body_def();
        bd.position = heft_v3((x - 4.5) * 1.5, (y - 4.5) * 1.5, 1.0 + z * 1.5);
        ids[i] = heft_create_body(w, &bd);
        heft_create_shape(w, ids[i], &box);
        heft_body_set_mass(w, ids[i], 1.0, heft_inertia_box(1.0, box.half_extents));
    }
    double collision = 0.0, rows = 0.0, solve = 0.0, integrate = 0.0, total = 0.0, cpu = 0.0;
    double mark[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0}; /* the sums at the window's start */
    for (int k = 0; k < steps; ++k) {
        const double t0 = cpu_ms();
        if (heft_world_step(w, 1.0 / 60.0) != HEFT_OK) {
            fprintf(stderr, "step %d: %s\n", k, heft_last_error());
            return 1;
        }
        cpu += cpu_ms() - t0;
        const heft_step_stats *st = heft_world_stats(w);
        collision += st->time_collision_ms;
        rows += st->time_rows_ms;
        solve += st->time_solve_ms;
        integrate += st->time_integrate_ms;
        total += st->time_total_ms;
        if (window > 0 && (k + 1) % window == 0) {
            const double now[6] = {total, collision, rows, solve, integrate, cpu};
            printf("  steps %d-%d: total %.3f  collision %.3f  rows %.3f  solve %.3f  integrate "
                   "%.3f  process CPU %.3f\n",
                   k + 1 - window, k, (now[0] - mark[0]) / window, (now[1] - mark[1]) / window,
                   (now[2] - mark[2]) / window, (now[3] - mark[3]) / window,
                   (now[4] - mark[4]) / window, (now[5] - mark[5]) / window);
            memcpy(mark, now, sizeof mark);
        }
    }
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < COUNT; ++i) {
        const heft_vec3 p = heft_body_position(w, ids[i]);
        const heft_quat q = heft_body_orientation(w, ids[i]);
        h = hash_bytes(h, &p, sizeof p);
        h = hash_bytes(h, &q, sizeof q);
    }
    const double n = steps;
    printf("solver %s, %d workers, %d steps: ms a step (wall clock, the world's "
           "statistics)\n",
           solver, workers, steps);
    printf("  total %.3f  collision %.3f  rows %.3f  solve %.3f  integrate %.3f  other %.3f\n",
           total / n, collision / n, rows / n, solve / n, integrate / n,
           (total - collision - rows - solve - integrate) / n);
    printf("  process CPU %.3f ms a step\n", cpu / n);
    printf("  poses hash %016llx\n", (unsigned long long)h);
    heft_world_destroy(w);
    task_pool_destroy(pool);
    return 0;
}
