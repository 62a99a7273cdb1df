/* heft-bench-sleep: what a settled pile costs a step with sleeping on and
 * off (docs/sleeping.md, docs/benchmarks.md "Sleeping"). The pile is the
 * stacking scene's boxes variant (stacks of five 0.4 m boxes on a plane),
 * built twice in one run: one world with sleeping off, one with it on. Both
 * are stepped until every box of the second sleeps, then both are timed over
 * the same steps, interleaved in blocks so that both see the same machine.
 * Times are the thread's CPU time per step.
 *
 * usage: heft-bench-sleep [--stacks N] [--steps N] [--solver NAME]...
 * (default: 200 stacks = 1,000 boxes, 600 timed steps, solvers pgs at 200
 * sweeps and bpp-skyline). Exits 1 when the pile does not fall asleep. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runner.h"

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return 1e3 * (double)t.tv_sec + 1e-6 * (double)t.tv_nsec;
}

typedef struct pile_run {
    const char *solver;
    int settle_steps; /* steps until every box slept */
    double awake_ms, asleep_ms;
    int bodies, asleep_bodies, awake_islands;
} pile_run;

static int open_pile(const char *solver, int stacks, int sleeping, run_result *r) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = "stacking";
    cfg.solver = solver;
    cfg.params.variant = "boxes";
    cfg.params.size = stacks;
    cfg.sleeping = sleeping;
    if (strcmp(solver, "pgs") == 0) {
        /* at its default 50 sweeps the stacks rock and never rest
         * (test_scenes, stacked_boxes_come_to_rest) */
        cfg.options = heft_solver_default_options();
        cfg.options.max_iterations = 200;
        cfg.has_options = 1;
    }
    int steps;
    double h;
    if (run_open(&cfg, r, &steps, &h) != 0) {
        fprintf(stderr, "heft-bench-sleep: %s\n", r->error);
        return -1;
    }
    return 0;
}

static int measure(const char *solver, int stacks, int timed, pile_run *out) {
    const double h = 1.0 / 60.0;
    const int settle_max = 3600;
    run_result off, on;
    if (open_pile(solver, stacks, 0, &off) != 0) {
        return -1;
    }
    if (open_pile(solver, stacks, 1, &on) != 0) {
        run_result_free(&off);
        return -1;
    }
    memset(out, 0, sizeof *out);
    out->solver = solver;
    out->bodies = heft_world_body_count(on.world) - 1; /* the ground is static */
    int step = 0;
    for (; step < settle_max; ++step) {
        if (heft_world_step(off.world, h) != HEFT_OK || heft_world_step(on.world, h) != HEFT_OK) {
            fprintf(stderr, "heft-bench-sleep: step failed: %s\n", heft_last_error());
            break;
        }
        if (heft_world_stats(on.world)->bodies_sleeping == out->bodies) {
            break;
        }
    }
    out->settle_steps = step + 1;
    /* interleaved blocks of 20 steps */
    double t_off = 0.0, t_on = 0.0;
    for (int done = 0; done < timed; done += 20) {
        double t0 = cpu_ms();
        for (int i = 0; i < 20; ++i) {
            heft_world_step(off.world, h);
        }
        double t1 = cpu_ms();
        for (int i = 0; i < 20; ++i) {
            heft_world_step(on.world, h);
        }
        double t2 = cpu_ms();
        t_off += t1 - t0;
        t_on += t2 - t1;
    }
    const int blocks = (timed + 19) / 20;
    out->awake_ms = t_off / (20.0 * blocks);
    out->asleep_ms = t_on / (20.0 * blocks);
    out->asleep_bodies = heft_world_stats(on.world)->bodies_sleeping;
    out->awake_islands = heft_world_stats(on.world)->islands;
    run_result_free(&off);
    run_result_free(&on);
    return 0;
}

int main(int argc, char **argv) {
    int stacks = 200, timed = 600;
    const char *solvers[8];
    int nsolvers = 0;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--stacks") == 0 && i + 1 < argc) {
            stacks = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--steps") == 0 && i + 1 < argc) {
            timed = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--solver") == 0 && i + 1 < argc && nsolvers < 8) {
            solvers[nsolvers++] = argv[++i];
        } else {
            fprintf(stderr,
                    "usage: heft-bench-sleep [--stacks N] [--steps N] [--solver NAME]...\n");
            return 2;
        }
    }
    if (stacks < 1 || stacks > 20000 || timed < 20 || timed > 1000000) {
        fprintf(stderr, "heft-bench-sleep: --stacks takes 1 to 20,000, --steps 20 to 1,000,000\n");
        return 2;
    }
    if (nsolvers == 0) {
        solvers[nsolvers++] = "pgs";
        solvers[nsolvers++] = "bpp-skyline";
    }
    printf("| solver | boxes | steps to sleep | awake step, ms | asleep step, ms | ratio |\n");
    printf("|---|---|---|---|---|---|\n");
    int failed = 0;
    for (int s = 0; s < nsolvers; ++s) {
        pile_run r;
        if (measure(solvers[s], stacks, timed, &r) != 0) {
            return 2;
        }
        const int asleep = r.asleep_bodies == r.bodies;
        printf("| %s%s | %d | %d | %.3f | %.4f | %.0f |\n", r.solver,
               strcmp(r.solver, "pgs") == 0 ? " (200 sweeps)" : "", r.bodies, r.settle_steps,
               r.awake_ms, r.asleep_ms, r.awake_ms / r.asleep_ms);
        if (!asleep) {
            fprintf(stderr, "heft-bench-sleep: under %s %d of %d boxes asleep\n", r.solver,
                    r.asleep_bodies, r.bodies);
            failed = 1;
        }
    }
    return failed;
}
