/* heft-peers: the pyramids, the dropped boxes and the hanging chain built in
 * Heft and in the peer engines found at configure time (Bullet, ODE,
 * MuJoCo), stepped side by side in one run; prints ms per step and accuracy
 * as a Markdown table and writes it with a CSV (and a gnuplot PNG when
 * gnuplot is installed) into --out. docs/benchmarks.md "Against the peers". */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "peers.h"

double peer_heft_tolerance = 0.0;
double peer_heft_accept = 0.0;

static const peer_engine *const engines[] = {
    &peer_heft_pgs, &peer_heft_skyline,  &peer_heft_skyline_2,
#ifdef HEFT_PEER_BULLET
    &peer_bullet,
#endif
#ifdef HEFT_PEER_ODE
    &peer_ode_step, &peer_ode_quickstep,
#endif
#ifdef HEFT_PEER_MUJOCO
    &peer_mujoco,
#endif
};
#define ENGINE_COUNT ((int)(sizeof engines / sizeof engines[0]))

static const char *const missing[] = {
#ifndef HEFT_PEER_BULLET
    "bullet (libbullet-dev)",
#endif
#ifndef HEFT_PEER_ODE
    "ode (libode-dev)",
#endif
#ifndef HEFT_PEER_MUJOCO
    "mujoco (libmujoco-dev)",
#endif
    NULL};

typedef struct scene_spec {
    const char *name;
    peer_scene scene;
    int steps; /* 0: --steps */
} scene_spec;

static const scene_spec scene_specs[] = {
    {"pyramid10", {PEER_PYRAMID, 10, 0.0}, 0},
    {"pyramid20", {PEER_PYRAMID, 20, 0.0}, 0},
    {"boxes1000", {PEER_BOXES, 1000, 0.0}, 0},
    {"chain100", {PEER_CHAIN, 100, 100.0}, 0},
};
#define SCENE_COUNT ((int)(sizeof scene_specs / sizeof scene_specs[0]))

typedef struct result {
    int ran;            /* 0: create failed */
    double step_ms;     /* mean over the steps, median over the repetitions */
    double solver_ms;   /* mean per step of the solver's iterations, or -1 */
    double sweeps;      /* mean iterations per step, or -1 */
    double row_passes;  /* mean rows swept per step over every pass, or -1 */
    double rows;        /* mean rows of the solve per step, or -1 */
    double penetration; /* m, deepest over the run */
    double gap;         /* m, chain: widest joint gap over the run */
    double drift;       /* m, pyramid: farthest any box moved from its start; chain: load drop */
    int nonfinite;      /* steps with a non-finite pose */
    double error_max;   /* J, largest MLCP error over the run, or -1 (not exposed) */
    int unconverged;    /* steps with an island left unconverged, or -1 (not exposed) */
    int steps;          /* steps run: fewer than asked when the time budget ran out */
    double settled_ms;  /* mean over the steps after SETTLE_STEPS, median over the
                           repetitions, or -1 (no such step) */
    double reps_ms[32], reps_settled_ms[32];
    int reps;
    /* each repetition's means by its index, NAN where the engine did not
     * run: the paired ratios against --versus */
    double rep_ms[32], rep_settled_ms[32];
    /* the lowest cores_free() measured before and after its repetitions
     * and the longest round_trip_ns() before them, NAN: none */
    double cores_free_low, round_trip_high;
    int reruns; /* repetitions run again (RERUNS_MAX) */
} result;

/* A repetition before or after which cores_free() read less than the
 * cores less a half is run again, at most this many times: another program
 * took part of the machine while it ran */
#define RERUNS_MAX 2

/* The median and range, over the repetitions both ran, of an engine's mean
 * step over the reference engine's in the same repetition: the two runs of a
 * repetition are seconds apart, so a machine whose speed wanders between
 * repetitions moves both. count 0: no repetition to pair. */
typedef struct paired {
    double median, lo, hi;
    int count;
} paired;

/* The steps a scene takes to land or start moving: the mean after them is
 * the settled cost, which a long run approaches (the pyramids' first steps
 * cost tens to hundreds of settled ones under a direct solver) */
#define SETTLE_STEPS 30

/* bytes of an output file's path (--out and the file's name) */
#define PEERS_PATH_MAX 1024

static double now_ms(void) {
    struct timespec t;
    timespec_get(&t, TIME_UTC);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

static void rotate(const double q[4], const double v[3], double out[3]) {
    /* v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z) */
    const double w = q[0], u[3] = {q[1], q[2], q[3]};
    double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    double cc[3] = {u[1] * c[2] - u[2] * c[1], u[2] * c[0] - u[0] * c[2],
                    u[0] * c[1] - u[1] * c[0]};
    for (int k = 0; k < 3; ++k) {
        out[k] = v[k] + 2.0 * w * c[k] + 2.0 * cc[k];
    }
}

/* The point of body pose at local offset (0, 0, z). */
static void anchor(const peer_pose *pose, double z, double out[3]) {
    const double local[3] = {0.0, 0.0, z};
    rotate(pose->q, local, out);
    for (int k = 0; k < 3; ++k) {
        out[k] += pose->p[k];
    }
}

static double dist(const double a[3], const double b[3]) {
    return sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                (a[2] - b[2]) * (a[2] - b[2]));
}

/* The widest joint gap of the chain from the poses alone, the same for every
 * engine. */
static double chain_gap(const peer_engine *e, void *w, const peer_scene *scene, peer_pose *poses) {
    const int n = scene->size + 1;
    for (int i = 0; i < n; ++i) {
        e->pose(w, i, &poses[i]);
    }
    double pivot[3], up[3], down[3], widest = 0.0;
    peer_chain_pivot(scene, pivot);
    for (int i = 0; i < n; ++i) {
        const double top = i == scene->size ? PEER_LOAD_RADIUS : 0.5 * PEER_LINK_LENGTH;
        anchor(&poses[i], top, down);
        if (i == 0) {
            memcpy(up, pivot, sizeof up);
        } else {
            anchor(&poses[i - 1], -0.5 * PEER_LINK_LENGTH, up);
        }
        const double g = dist(up, down);
        widest = g > widest || isnan(g) ? g : widest;
    }
    return widest;
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static paired pair_reps(const double *mine, const double *ref, int reps) {
    double q[32];
    paired out = {0.0, 0.0, 0.0, 0};
    for (int k = 0; k < reps && k < 32; ++k) {
        if (mine[k] > 0.0 && ref[k] > 0.0 && isfinite(mine[k]) && isfinite(ref[k])) {
            q[out.count++] = mine[k] / ref[k];
        }
    }
    if (out.count == 0) {
        return out;
    }
    qsort(q, (size_t)out.count, sizeof(double), cmp_double);
    /* an even count: the mean of the two middle ratios */
    out.median = 0.5 * (q[(out.count - 1) / 2] + q[out.count / 2]);
    out.lo = q[0];
    out.hi = q[out.count - 1];
    return out;
}

/* "3.31 (3.12-3.40)": the median paired ratio and its range; "" when none. */
static void format_paired(char *out, size_t len, paired r) {
    out[0] = '\0';
    if (r.count == 1) {
        snprintf(out, len, "%.2f", r.median);
    } else if (r.count > 1) {
        snprintf(out, len, "%.2f (%.2f-%.2f)", r.median, r.lo, r.hi);
    }
}

/* The same for the CSV: median, low, high, or three empty fields. */
static void format_paired_csv(char *out, size_t len, paired r) {
    if (r.count > 0) {
        snprintf(out, len, "%.6g,%.6g,%.6g", r.median, r.lo, r.hi);
    } else {
        snprintf(out, len, ",,");
    }
}

/* One run of one engine on one scene: times every step and keeps the
 * accuracy figures. */
static void run_once(const peer_engine *e, const scene_spec *spec, int steps, double h,
                     double budget_ms, result *r) {
    void *w = e->create(&spec->scene, e->variant);
    if (!w) {
        return;
    }
    const int n = e->body_count(w);
    peer_pose *poses = calloc((size_t)n + 1, sizeof *poses);
    double(*start)[3] = calloc((size_t)n + 1, sizeof *start);
    if (!poses || !start) {
        free(poses);
        free(start);
        e->destroy(w);
        return;
    }
    for (int i = 0; i < n; ++i) {
        e->pose(w, i, &poses[i]);
        memcpy(start[i], poses[i].p, sizeof start[i]);
    }
    double total = 0.0, settled = 0.0, solver = 0.0, sweeps = 0.0, rows = 0.0, row_passes = 0.0;
    double error_max = e->mlcp_error ? 0.0 : -1.0;
    int unconverged = e->unconverged ? 0 : -1;
    int timed_solver = e->solver_ms != NULL, done = 0;
    const double started = now_ms();
    for (int s = 0; s < steps && now_ms() - started < budget_ms; ++s, ++done) {
        const int wall = e->threads > 1;
        const double t0 = wall ? now_ms() : peer_cpu_ms();
        e->step(w, h);
        const double step_ms =
            (wall ? now_ms() : peer_cpu_ms()) - t0 - (e->overhead_ms ? e->overhead_ms(w) : 0.0);
        total += step_ms;
        settled += s >= SETTLE_STEPS ? step_ms : 0.0;
        if (timed_solver) {
            const double ms = e->solver_ms(w);
            timed_solver = ms != -1.0; /* -1: not measured (a difference may be below 0) */
            solver += ms;
            const int iterations = e->solver_iterations(w);
            const int step_rows = e->solver_rows ? e->solver_rows(w) : 0;
            sweeps += iterations;
            rows += step_rows;
            row_passes += e->solver_row_passes ? e->solver_row_passes(w)
                                               : (double)iterations * (double)step_rows;
        }
        if (e->mlcp_error) {
            const double err = e->mlcp_error(w);
            error_max = err > error_max || isnan(err) ? err : error_max;
        }
        if (e->unconverged) {
            unconverged += e->unconverged(w) > 0;
        }
        const double pen = e->penetration(w);
        r->penetration = pen > r->penetration ? pen : r->penetration;
        if (spec->scene.kind == PEER_CHAIN) {
            const double g = chain_gap(e, w, &spec->scene, poses);
            r->gap = g > r->gap || isnan(g) ? g : r->gap;
        }
        int finite = 1;
        for (int i = 0; i < n && finite; ++i) {
            e->pose(w, i, &poses[i]);
            finite = isfinite(poses[i].p[0]) && isfinite(poses[i].p[1]) && isfinite(poses[i].p[2]);
        }
        r->nonfinite += !finite;
    }
    for (int i = 0; i < n; ++i) {
        e->pose(w, i, &poses[i]);
        double d = spec->scene.kind == PEER_CHAIN ? start[i][2] - poses[i].p[2]
                                                  : dist(start[i], poses[i].p);
        if (spec->scene.kind == PEER_CHAIN && i != n - 1) {
            continue; /* the chain's drift is its load's drop */
        }
        r->drift = d > r->drift || isnan(d) ? d : r->drift;
    }
    r->error_max =
        error_max > r->error_max || isnan(error_max) || r->reps == 0 ? error_max : r->error_max;
    r->unconverged = unconverged > r->unconverged || r->reps == 0 ? unconverged : r->unconverged;
    r->ran = done > 0;
    r->steps = done;
    if (r->reps < 32 && done > 0) {
        r->reps_settled_ms[r->reps] =
            done > SETTLE_STEPS ? settled / (double)(done - SETTLE_STEPS) : -1.0;
        r->reps_ms[r->reps++] = total / done;
    }
    r->solver_ms = timed_solver && done > 0 ? solver / done : -1.0;
    r->sweeps = timed_solver && done > 0 ? sweeps / done : -1.0;
    r->rows = timed_solver && done > 0 && e->solver_rows ? rows / done : -1.0;
    r->row_passes = r->rows >= 0.0 ? row_passes / done : -1.0;
    free(poses);
    free(start);
    e->destroy(w);
}

static void machine(char *out, size_t len) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256], model[200] = "unknown CPU";
    int cores = 0;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0 && strcmp(model, "unknown CPU") == 0) {
            const char *c = strchr(line, ':');
            if (c) {
                snprintf(model, sizeof model, "%s", c + 2);
                model[strcspn(model, "\n")] = 0;
            }
        }
        cores += strncmp(line, "processor", 9) == 0;
    }
    if (f) {
        fclose(f);
    }
    double load = -1.0;
    f = fopen("/proc/loadavg", "r");
    if (f) {
        if (fscanf(f, "%lf", &load) != 1) {
            load = -1.0;
        }
        fclose(f);
    }
    snprintf(out, len, "%s, %d cores, load average %.1f at the start", model, cores, load);
}

/* The probe of cores_free(): a fixed stretch of dependent integer work
 * (xorshift), about 5 ms on the machines of docs/benchmarks.md */
#define PROBE_ITERATIONS 5000000L
#define PROBE_THREADS_MAX 8

static void *probe_work(void *arg) {
    uint64_t x = 88172645463325252ull;
    for (long i = 0; i < PROBE_ITERATIONS; ++i) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    *(uint64_t *)arg = x;
    return NULL;
}

/* ms of the probe on `threads` threads at once (the calling one among them) */
static double probe_ms(int threads) {
    pthread_t helpers[PROBE_THREADS_MAX];
    uint64_t sink[PROBE_THREADS_MAX];
    const double t0 = now_ms();
    int started = 1;
    for (int k = 1; k < threads; ++k) {
        if (pthread_create(&helpers[started], NULL, probe_work, &sink[k]) == 0) {
            ++started;
        }
    }
    probe_work(&sink[0]);
    for (int k = 1; k < started; ++k) {
        pthread_join(helpers[k], NULL);
    }
    return started == threads ? now_ms() - t0 : NAN;
}

/* The cores the probes use: those online, at most PROBE_THREADS_MAX */
static int probe_cores(void) {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online < 1 ? 1 : (online > PROBE_THREADS_MAX ? PROBE_THREADS_MAX : (int)online);
}

/* How many cores the next run finds free: the probe alone (the least of
 * three runs), then on every core at once (the middle of three), their
 * ratio times the cores. 2.0 on two cores: both free; 1.0: one core's worth
 * left, as when another tenant of a virtual machine takes the second. The
 * engines stepping on several threads read their speed-up off it; a
 * one-thread engine's time is CPU time and moves less. */
static double cores_free(void) {
    const int cores = probe_cores();
    double alone = INFINITY, together[3];
    for (int k = 0; k < 3; ++k) {
        alone = fmin(alone, probe_ms(1));
        together[k] = probe_ms(cores);
    }
    qsort(together, 3, sizeof together[0], cmp_double);
    return cores * alone / together[1];
}

/* The round trips of round_trip_ns(), about 10 ms in all */
#define ROUND_TRIPS 20000

typedef struct bounce {
    _Alignas(64) atomic_int ball;
} bounce;

static void *bounce_back(void *arg) {
    bounce *b = arg;
    for (int i = 0; i < ROUND_TRIPS; ++i) {
        while (atomic_load_explicit(&b->ball, memory_order_acquire) != 2 * i + 1) {
        }
        atomic_store_explicit(&b->ball, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

/* ns for a cache line to go to another core and back: one thread sets a
 * counter, another answers, in turn. A step on several threads hands out
 * some ten tasks, each claimed and finished through shared counters, and
 * its islands' data cross cores between tasks, so the engines' speed-up
 * depends on it where cores_free() sees nothing (docs/benchmarks.md "Two
 * threads on a virtual machine"). NAN when the thread could not start. */
static double round_trip_ns(void) {
    static bounce b;
    atomic_store(&b.ball, 0);
    pthread_t other;
    if (pthread_create(&other, NULL, bounce_back, &b) != 0) {
        return NAN;
    }
    const double t0 = now_ms();
    for (int i = 0; i < ROUND_TRIPS; ++i) {
        atomic_store_explicit(&b.ball, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&b.ball, memory_order_acquire) != 2 * i + 2) {
        }
    }
    const double t = now_ms() - t0;
    pthread_join(other, NULL);
    return 1e6 * t / ROUND_TRIPS;
}

static void usage(void) {
    fprintf(stderr, "usage: heft-peers [--scenes LIST] [--engines LIST] [--steps N] [--reps N] "
                    "[--budget S] [--tolerance J] [--accept J] [--versus ENGINE] [--out DIR]\n"
                    "scenes: pyramid10 pyramid20 boxes1000 chain100 (default all); engines by the "
                    "names of the table (default all found). Times are means over the steps, "
                    "medians over the repetitions, engines rotated between repetitions; an engine "
                    "stops a scene after --budget seconds of wall time (default 120); "
                    "--tolerance sets Heft's solver tolerance (default the engine's, 1e-12 J); "
                    "--accept its backstop_accept (default 0: the tolerance); --versus the engine "
                    "every engine's time is divided by, repetition by repetition (default "
                    "bullet).\n");
}

static int listed(const char *list, const char *name) {
    if (!list) {
        return 1;
    }
    const size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n) {
        if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == 0)) {
            return 1;
        }
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *scenes = NULL, *names = NULL, *out = "bench-peers", *versus = "bullet";
    int steps = 300, reps = 3;
    double budget = 120.0;
    for (int i = 1; i < argc; ++i) {
        const int more = i + 1 < argc;
        if (!strcmp(argv[i], "--scenes") && more) {
            scenes = argv[++i];
        } else if (!strcmp(argv[i], "--engines") && more) {
            names = argv[++i];
        } else if (!strcmp(argv[i], "--steps") && more) {
            steps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--reps") && more) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--budget") && more) {
            budget = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--tolerance") && more) {
            char *end = NULL;
            peer_heft_tolerance = strtod(argv[++i], &end);
            if (end == argv[i] || *end != '\0' || !(peer_heft_tolerance > 0.0) ||
                !isfinite(peer_heft_tolerance)) {
                fprintf(stderr,
                        "heft-peers: --tolerance wants a positive number of joules, not "
                        "'%s'\n",
                        argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--accept") && more) {
            char *end = NULL;
            peer_heft_accept = strtod(argv[++i], &end);
            if (end == argv[i] || *end != '\0' || !(peer_heft_accept >= 0.0) ||
                !isfinite(peer_heft_accept)) {
                fprintf(stderr, "heft-peers: --accept wants a number of joules >= 0, not '%s'\n",
                        argv[i]);
                return 2;
            }
        } else if (!strcmp(argv[i], "--versus") && more) {
            versus = argv[++i];
            int known = 0;
            for (int e = 0; e < ENGINE_COUNT; ++e) {
                known = known || !strcmp(engines[e]->name, versus);
            }
            if (!known) {
                fprintf(stderr, "heft-peers: --versus wants an engine of this build, not '%s'\n",
                        versus);
                return 2;
            }
        } else if (!strcmp(argv[i], "--out") && more) {
            out = argv[++i];
            /* the files' paths are built in PEERS_PATH_MAX bytes */
            if (strlen(out) + sizeof "/results.csv" > PEERS_PATH_MAX) {
                fprintf(stderr,
                        "heft-peers: --out wants a directory of at most %zu characters, not %zu\n",
                        PEERS_PATH_MAX - sizeof "/results.csv", strlen(out));
                return 2;
            }
        } else {
            usage();
            return 2;
        }
    }
    if (steps < 1 || reps < 1 || reps > 32) {
        usage();
        return 2;
    }
    for (int k = 0; missing[k]; ++k) {
        printf("skipped: %s not found at configure time\n", missing[k]);
    }
    const double h = 1.0 / 60.0;
    static result results[SCENE_COUNT][ENGINE_COUNT > 0 ? ENGINE_COUNT : 1];
    for (int sc = 0; sc < SCENE_COUNT; ++sc) {
        for (int e = 0; e < ENGINE_COUNT; ++e) {
            for (int k = 0; k < 32; ++k) {
                results[sc][e].rep_ms[k] = results[sc][e].rep_settled_ms[k] = NAN;
            }
            results[sc][e].cores_free_low = results[sc][e].round_trip_high = NAN;
        }
    }
    char where[400];
    machine(where, sizeof where);
    for (int sc = 0; sc < SCENE_COUNT; ++sc) {
        if (!listed(scenes, scene_specs[sc].name)) {
            continue;
        }
        for (int rep = 0; rep < reps; ++rep) {
            for (int k = 0; k < ENGINE_COUNT; ++k) {
                const int e = (k + rep) % ENGINE_COUNT; /* rotated between repetitions */
                if (!listed(names, engines[e]->name)) {
                    continue;
                }
                result *r = &results[sc][e];
                for (int attempt = 0;; ++attempt) {
                    const double free_before = cores_free();
                    const double trip = round_trip_ns();
                    fprintf(stderr, "%s %s rep %d (cores free %.2f, round trip %.0f ns)\n",
                            scene_specs[sc].name, engines[e]->name, rep, free_before, trip);
                    const int before = r->reps;
                    run_once(engines[e], &scene_specs[sc], steps, h, 1e3 * budget, r);
                    const double free_after = cores_free();
                    const double low = fmin(free_before, free_after); /* a NaN ignored */
                    if (isfinite(low) && low < probe_cores() - 0.5 && attempt < RERUNS_MAX &&
                        r->reps > before) {
                        /* its times dropped; the accuracy it measured is the next run's */
                        fprintf(stderr, "  cores free %.2f before it, %.2f after: run again\n",
                                free_before, free_after);
                        r->reps = before;
                        r->reruns++;
                        continue;
                    }
                    if (isfinite(low) && !(low >= r->cores_free_low)) {
                        r->cores_free_low = low;
                    }
                    if (isfinite(trip) && !(trip <= r->round_trip_high)) {
                        r->round_trip_high = trip;
                    }
                    if (r->reps > before) {
                        r->rep_ms[rep] = r->reps_ms[r->reps - 1];
                        r->rep_settled_ms[rep] = r->reps_settled_ms[r->reps - 1];
                    }
                    break;
                }
            }
        }
    }
    mkdir(out, 0777);
    char path[PEERS_PATH_MAX];
    snprintf(path, sizeof path, "%s/results.md", out);
    FILE *md = fopen(path, "w");
    snprintf(path, sizeof path, "%s/results.csv", out);
    FILE *csv = fopen(path, "w");
    if (!md || !csv) {
        fprintf(stderr, "heft-peers: cannot write into %s\n", out);
        return 1;
    }
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
    fprintf(md,
            "# heft-peers\n\n%s; %s; h = 1/60 s, %d steps, median of %d repetitions; "
            "times are CPU time of the stepping thread (wall-clock time for the engines "
            "stepping on several threads).\n\n",
            where, date, steps, reps);
    if (peer_heft_tolerance > 0.0) {
        fprintf(md, "Heft's solver tolerance: %g J.\n\n", peer_heft_tolerance);
    }
    if (peer_heft_accept > 0.0) {
        fprintf(md, "Heft's backstop_accept: %g J.\n\n", peer_heft_accept);
    }
    fprintf(md,
            "`x %s`: each repetition's mean step divided by %s's in the same repetition, the "
            "median over the repetitions and, in brackets, the lowest and highest.\n\n",
            versus, versus);
    fprintf(md, "`sweeps`: the solver's iterations a step (Heft's `pgs`: its velocity sweeps, "
                "the most any island ran). `passes`: the sweeps over the rows a step, every "
                "island's weighted by its rows, with Heft's position sweeps, which `pgs` runs "
                "after the velocity sweeps while contacts are pressed into one another "
                "(Bullet's split impulse is timed inside its iterations). `ms/pass` and "
                "`ns/row/pass` divide the solver's time by them.\n\n");
    fprintf(md,
            "`cores free`: the fewest of the machine's cores a fixed loop found free just "
            "before and after the engine's repetitions (its time alone over its time on "
            "every core at once, times the cores); a repetition with fewer than the cores "
            "less a half free was run again, at most %d times (`reruns`): another program "
            "took part of the machine. `round trip ns`: the longest time, over the same "
            "repetitions, for a cache line to go from one core to another and back; it sets "
            "what a task handed to another core costs, and with it the engines stepping on "
            "several threads.\n\n",
            RERUNS_MAX);
    fprintf(
        md,
        "| scene | engine | steps | ms/step | x heft pgs | x %s | ms/step after step %d | "
        "x %s after step %d | solver ms/step | sweeps | passes | "
        "ms/pass | rows | ns/row/pass | penetration m | joint gap m | drift m | "
        "non-finite steps | MLCP error max J | unconverged steps | cores free | round trip ns | "
        "reruns |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
        "---|\n",
        versus, SETTLE_STEPS, versus, SETTLE_STEPS);
    fprintf(csv, "scene,engine,steps,ms_per_step,settled_ms_per_step,"
                 "versus_ratio,versus_ratio_low,versus_ratio_high,"
                 "settled_versus_ratio,settled_versus_ratio_low,settled_versus_ratio_high,"
                 "solver_ms_per_step,"
                 "sweeps_per_step,passes_per_step,ms_per_pass,"
                 "rows,ns_per_row_pass,"
                 "penetration_m,joint_gap_m,drift_m,nonfinite_steps,mlcp_error_max_j,"
                 "unconverged_steps,cores_free_low,round_trip_ns_high,reruns\n");
    for (int sc = 0; sc < SCENE_COUNT; ++sc) {
        double base = -1.0;
        const result *ref = NULL;
        for (int e = 0; e < ENGINE_COUNT; ++e) {
            if (!strcmp(engines[e]->name, versus) && results[sc][e].ran) {
                ref = &results[sc][e];
            }
        }
        for (int e = 0; e < ENGINE_COUNT; ++e) {
            result *r = &results[sc][e];
            if (r->ran) {
                qsort(r->reps_ms, (size_t)r->reps, sizeof(double), cmp_double);
                r->step_ms = r->reps_ms[r->reps / 2];
                qsort(r->reps_settled_ms, (size_t)r->reps, sizeof(double), cmp_double);
                r->settled_ms = r->reps_settled_ms[r->reps / 2];
                if (engines[e] == &peer_heft_pgs) {
                    base = r->step_ms;
                }
            }
        }
        for (int e = 0; e < ENGINE_COUNT; ++e) {
            const result *r = &results[sc][e];
            if (!r->ran) {
                continue;
            }
            const int chain = scene_specs[sc].scene.kind == PEER_CHAIN;
            char ratio[32] = "", solver[32] = "", sweeps[32] = "", passes[32] = "", per[32] = "",
                 gap[32] = "", rows[32] = "", per_row[32] = "", error[32] = "",
                 unconverged[32] = "", settled[32] = "", vs[48] = "", vs_settled[48] = "",
                 vs_csv[80] = ",,", vs_settled_csv[80] = ",,", free[32] = "", trip[32] = "";
            if (isfinite(r->cores_free_low)) {
                snprintf(free, sizeof free, "%.2f", r->cores_free_low);
            }
            if (isfinite(r->round_trip_high)) {
                snprintf(trip, sizeof trip, "%.0f", r->round_trip_high);
            }
            if (ref != NULL) {
                const paired all = pair_reps(r->rep_ms, ref->rep_ms, reps);
                const paired later = pair_reps(r->rep_settled_ms, ref->rep_settled_ms, reps);
                format_paired(vs, sizeof vs, all);
                format_paired(vs_settled, sizeof vs_settled, later);
                format_paired_csv(vs_csv, sizeof vs_csv, all);
                format_paired_csv(vs_settled_csv, sizeof vs_settled_csv, later);
            }
            if (r->settled_ms >= 0.0) {
                snprintf(settled, sizeof settled, "%.3f", r->settled_ms);
            }
            if (r->error_max >= 0.0 || isnan(r->error_max)) {
                snprintf(error, sizeof error, "%.2e", r->error_max);
            }
            if (r->unconverged >= 0) {
                snprintf(unconverged, sizeof unconverged, "%d", r->unconverged);
            }
            if (base > 0.0) {
                snprintf(ratio, sizeof ratio, "%.2f", r->step_ms / base);
            }
            if (r->solver_ms >= 0.0) {
                snprintf(solver, sizeof solver, "%.3f", r->solver_ms);
                snprintf(sweeps, sizeof sweeps, "%.1f", r->sweeps);
                if (r->rows > 0.0 && r->row_passes > 0.0) {
                    /* a pass: one sweep over the rows, velocity or position */
                    const double per_step = r->row_passes / r->rows;
                    snprintf(passes, sizeof passes, "%.1f", per_step);
                    snprintf(per, sizeof per, "%.4f", r->solver_ms / per_step);
                    snprintf(rows, sizeof rows, "%.0f", r->rows);
                    snprintf(per_row, sizeof per_row, "%.1f", 1e6 * r->solver_ms / r->row_passes);
                }
            }
            if (chain) {
                snprintf(gap, sizeof gap, "%.3g", r->gap);
            }
            fprintf(
                md,
                "| %s | %s | %d | %.3f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %.3g "
                "| %s | %.3g | %d | %s | %s | %s | %s | %d |\n",
                scene_specs[sc].name, engines[e]->name, r->steps, r->step_ms, ratio, vs, settled,
                vs_settled, solver, sweeps, passes, per, rows, per_row, r->penetration, gap,
                r->drift, r->nonfinite, error, unconverged, free, trip, r->reruns);
            fprintf(csv,
                    "%s,%s,%d,%.6g,%s,%s,%s,%s,%s,%s,%s,%s,%s,%.6g,%s,%.6g,%d,%s,%s,%s,%s,%d\n",
                    scene_specs[sc].name, engines[e]->name, r->steps, r->step_ms, settled, vs_csv,
                    vs_settled_csv, solver, sweeps, passes, per, rows, per_row, r->penetration, gap,
                    r->drift, r->nonfinite, error, unconverged, free, trip, r->reruns);
        }
    }
    const int md_bad = ferror(md) | fclose(md);
    const int csv_bad = ferror(csv) | fclose(csv);
    if (md_bad || csv_bad) {
        fprintf(stderr, "heft-peers: writing the results into %s failed\n", out);
        return 1;
    }
    snprintf(path, sizeof path, "%s/results.md", out);
    FILE *show = fopen(path, "r");
    char line[512];
    while (show && fgets(line, sizeof line, show)) {
        fputs(line, stdout);
    }
    if (show) {
        fclose(show);
    }
    /* the plot: ms per step, one cluster of bars per scene, log scale */
    if (system("command -v gnuplot > /dev/null 2>&1") == 0) {
        char cmd[4096];
        snprintf(cmd, sizeof cmd,
                 "cd '%s' && awk -F, 'NR > 1 { print $1 \",\" $2 \",\" $4 }' results.csv > "
                 "plot.csv && gnuplot -e \"set terminal png size 1100,600; set output "
                 "'results.png'; set datafile separator ','; set logscale y; set ylabel 'ms "
                 "per step'; set style data histograms; set style fill solid; set xtics "
                 "rotate by -30; set key off; plot 'plot.csv' using 3:xtic(sprintf('%%s "
                 "%%s', stringcolumn(1), stringcolumn(2)))\" && rm -f plot.csv",
                 out);
        if (system(cmd) != 0) {
            fprintf(stderr, "heft-peers: gnuplot failed; the tables are written\n");
        }
    }
    return 0;
}
