/* bench-load: what opening a scene file costs against stepping it
 * (docs/benchmarks.md "Loading a scene file"). In one run, on the same
 * clock: heft_world_load of the file, the first heft_world_step of the world
 * it made (the step that meets every contact for the first time and builds
 * the solver's states), and a snapshot's save and restore
 * (heft_world_save_state, heft_world_restore_state) after that step; each
 * the median of --repeat runs, each load and first step on a fresh world.
 * Times are the process's CPU time (clock()), so that other jobs on a busy
 * machine move them less; the numbers that matter are the ratios. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "heft.h"

#ifndef HEFT_SCENES_DIR
#error "HEFT_SCENES_DIR must name assets/scenes"
#endif

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* CPU time, ms */
static double cpu_ms(void) {
    return 1e3 * (double)clock() / CLOCKS_PER_SEC;
}

static void usage(FILE *out) {
    fprintf(out, "usage: bench-load [--scene FILE] [--solver NAME] [--repeat N]\n"
                 "  --scene FILE   the scene file (default: the pyramid of base 20,\n"
                 "                 " HEFT_SCENES_DIR "/stacking-pyramid.json)\n"
                 "  --solver NAME  the solver of the first step (default: the file's)\n"
                 "  --repeat N     runs of each measurement, the median kept (default 7)\n");
}

int main(int argc, char **argv) {
    const char *path = HEFT_SCENES_DIR "/stacking-pyramid.json";
    const char *solver = NULL;
    int repeat = 7;
    for (int i = 1; i < argc; ++i) {
        char err[128];
        if (strcmp(argv[i], "--scene") == 0 && i + 1 < argc) {
            path = argv[++i];
        } else if (strcmp(argv[i], "--solver") == 0 && i + 1 < argc) {
            solver = argv[++i];
        } else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            if (cli_int("--repeat", argv[++i], 1, 1000, &repeat, err, sizeof err) != 0) {
                fprintf(stderr, "bench-load: %s\n", err);
                return 2;
            }
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    double *load = calloc((size_t)repeat, sizeof(double));
    double *step = calloc((size_t)repeat, sizeof(double));
    double *save = calloc((size_t)repeat, sizeof(double));
    double *restore = calloc((size_t)repeat, sizeof(double));
    if (!load || !step || !save || !restore) {
        fprintf(stderr, "bench-load: out of memory\n");
        return 1;
    }
    int bodies = 0, rows = 0;
    size_t snapshot = 0;
    char used[32] = "";
    for (int r = 0; r < repeat; ++r) {
        heft_scene_info info;
        double t0 = cpu_ms();
        heft_world *w = heft_world_load(path, &info);
        double t1 = cpu_ms();
        if (!w) {
            fprintf(stderr, "bench-load: %s\n", heft_last_error());
            return 1;
        }
        if (solver && heft_world_set_solver(w, solver) != HEFT_OK) {
            fprintf(stderr, "bench-load: %s\n", heft_last_error());
            return 1;
        }
        double t2 = cpu_ms();
        if (heft_world_step(w, info.time_step) != HEFT_OK) {
            fprintf(stderr, "bench-load: %s\n", heft_last_error());
            return 1;
        }
        double t3 = cpu_ms();
        if (heft_world_save_state(w, NULL, 0, &snapshot) != HEFT_OK) {
            return 1;
        }
        void *buffer = malloc(snapshot);
        double t4 = cpu_ms();
        heft_result saved = buffer ? heft_world_save_state(w, buffer, snapshot, &snapshot)
                                   : HEFT_ERROR_OUT_OF_MEMORY;
        double t5 = cpu_ms();
        heft_result restored =
            saved == HEFT_OK ? heft_world_restore_state(w, buffer, snapshot) : saved;
        double t6 = cpu_ms();
        if (restored != HEFT_OK) {
            fprintf(stderr, "bench-load: %s\n", heft_last_error());
            return 1;
        }
        load[r] = t1 - t0;
        step[r] = t3 - t2;
        save[r] = t5 - t4;
        restore[r] = t6 - t5;
        bodies = heft_world_body_count(w);
        rows = heft_world_stats(w)->rows;
        snprintf(used, sizeof used, "%s", heft_world_solver(w));
        free(buffer);
        heft_world_destroy(w);
    }
    double l = median(load, repeat), s = median(step, repeat);
    double sv = median(save, repeat), rs = median(restore, repeat);
    printf("scene file      %s\n", path);
    printf("world           %d bodies, %d rows in the first step, solver %s\n", bodies, rows, used);
    printf("runs            %d (medians of CPU time)\n", repeat);
    printf("load            %.3f ms\n", l);
    printf("first step      %.3f ms\n", s);
    printf("load / step     %.4f\n", l / s);
    printf("snapshot        %zu bytes: save %.3f ms (%.4f of the step), restore %.3f ms "
           "(%.4f)\n",
           snapshot, sv, sv / s, rs, rs / s);
    free(load);
    free(step);
    free(save);
    free(restore);
    return 0;
}
