/* heft-soak: long runs of the scenes, to show that nothing degrades with
 * time. For each scene and solver asked for, steps the scene for the given
 * simulated time (operators on their timelines, then holding their last
 * input) and reports, per run:
 *   - non-finite poses or velocities (counted over all steps and bodies),
 *   - steps with a dynamic body outside the scene's bounds, and of them the
 *     steps with one below the bounds' floor (through the ground: a scene's
 *     sides also hold bodies rolling away on an endless plane, which a
 *     long run may see leave them),
 *   - the mechanical energy (kinetic plus gravity's potential, J) at its
 *     largest in the first and in the last simulated minute (--window:
 *     another span, for runs too slow for minutes; --settle: the first
 *     window starts later, once a scene that changes phase, such as the
 *     winch winding its whole chain in, has reached the state it then
 *     holds, so that like is compared with like),
 *   - the mean step time of the first and of the last minute, and their
 *     ratio (the step must not grow slower); process CPU time, so that the
 *     ratio means something on a machine that is busy with other work,
 *   - the resident set size after the first minute and at the end, and of
 *     it the anonymous part (resident less file-backed pages, from
 *     /proc/self/statm, Linux), which must stay flat: the file-backed pages
 *     are the code of the program and its libraries, paged in when a path
 *     first runs (the winch's wound chain first calls the C library's sincos
 *     in its second minute) and bounded by the code's size.
 * Output: one Markdown table row per run on stdout, a CSV line per run
 * into --csv FILE, and with --trace FILE a CSV line per simulated minute
 * (each --window) of every run as it goes, to follow a run of hours, with
 * the bytes the engine holds (counted through the allocation hooks) and
 * the window's solver work (unconverged solves, Newton steps, steps that
 * reached Lemke's method and its pivots, the slowest step). Exit status 1 when a run broke
 * one of the limits of docs/benchmarks.md ("Soaks"), 2 on bad arguments. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "heft.h"
#include "mlcp.h"
#include "scenario.h"

#define SOAK_MAX_BODIES 4096

typedef struct soak_result {
    long nonfinite;
    long out_of_bounds_steps;
    long below_floor_steps;             /* of them, with a body below bounds_lo.z */
    double energy_first, energy_last;   /* J, largest |E| in the first and last minute */
    double step_ms_first, step_ms_last; /* mean over the first and last minute */
    double rss_first_mb, rss_last_mb;
    double anon_first_mb, anon_last_mb; /* of the resident set, not file-backed */
    int steps;
    int failed_step; /* -1, or the step whose heft_world_step failed */
} soak_result;

/* --trim: the C library's free heap pages returned before each reading */
static int trim_heap;

/* The resident set (MB) and, in *anon, its part not backed by files. With
 * --trim, glibc first gives back the pages of its heap that hold only freed
 * blocks (malloc_trim), so that what is read is the memory in use rather
 * than what the allocator keeps for later: blocks freed below a block still
 * in use stay resident otherwise, and a workspace that grows leaves its old
 * block there. */
static double rss_mb(double *anon) {
    *anon = 0.0;
#ifdef __GLIBC__
    if (trim_heap)
        malloc_trim(0);
#endif
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return 0.0;
    long pages = 0, resident = 0, shared = 0;
    if (fscanf(f, "%ld %ld %ld", &pages, &resident, &shared) != 3)
        resident = shared = 0;
    fclose(f);
    *anon = (double)(resident - shared) * 4096.0 / (1024.0 * 1024.0);
    return (double)resident * 4096.0 / (1024.0 * 1024.0);
}

/* The bytes the engine holds, counted through heft's allocation hooks
 * (each block carries its size in a header of 16 bytes, which keeps the
 * C library's alignment): unlike the resident set, it leaves out the
 * program's code and memory allocated but not yet touched, so a trace tells
 * the engine's growth from the pages around it. */
#define SOAK_HEADER 16
static size_t held_bytes;

static void *held_alloc(size_t n, void *user) {
    (void)user;
    if (n > SIZE_MAX - SOAK_HEADER)
        return NULL;
    unsigned char *p = malloc(n + SOAK_HEADER);
    if (p == NULL)
        return NULL;
    memcpy(p, &n, sizeof n);
    memset(p + SOAK_HEADER, 0, n); /* written once, as the default allocator does */
    held_bytes += n;
    return p + SOAK_HEADER;
}

static void held_free(void *q, void *user) {
    (void)user;
    if (q == NULL)
        return;
    unsigned char *p = (unsigned char *)q - SOAK_HEADER;
    size_t n;
    memcpy(&n, p, sizeof n);
    held_bytes -= n;
    free(p);
}

static void *held_realloc(void *q, size_t n, void *user) {
    if (q == NULL)
        return held_alloc(n, user);
    if (n > SIZE_MAX - SOAK_HEADER)
        return NULL;
    unsigned char *p = (unsigned char *)q - SOAK_HEADER;
    size_t old;
    memcpy(&old, p, sizeof old);
    unsigned char *grown = realloc(p, n + SOAK_HEADER);
    if (grown == NULL)
        return NULL;
    memcpy(grown, &n, sizeof n);
    if (n > old)
        memset(grown + SOAK_HEADER + old, 0, n - old);
    held_bytes = held_bytes - old + n;
    return grown + SOAK_HEADER;
}

static double cpu_ms(void) {
    return 1e3 * (double)clock() / (double)CLOCKS_PER_SEC;
}

static int finite3(heft_vec3 v) {
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

/* kinetic plus gravity's potential energy of the dynamic bodies; counts
 * non-finite states and bodies out of the box [lo, hi] */
static double energy(heft_world *w, heft_vec3 g, const scenario_desc *d, long *nonfinite,
                     int *outside, int *below) {
    static heft_body_id ids[SOAK_MAX_BODIES];
    const int n = heft_world_bodies(w, ids, SOAK_MAX_BODIES);
    const int bounded = d->bounds_hi.x > d->bounds_lo.x;
    double e = 0.0;
    *outside = *below = 0;
    for (int i = 0; i < n && i < SOAK_MAX_BODIES; ++i) {
        heft_body_state s;
        if (heft_body_get_state(w, ids[i], &s) != HEFT_OK || s.type != HEFT_BODY_DYNAMIC)
            continue;
        if (!finite3(s.position) || !finite3(s.linear_velocity) || !finite3(s.angular_velocity)) {
            (*nonfinite)++;
            continue;
        }
        if (bounded && (s.position.x < d->bounds_lo.x || s.position.y < d->bounds_lo.y ||
                        s.position.z < d->bounds_lo.z || s.position.x > d->bounds_hi.x ||
                        s.position.y > d->bounds_hi.y || s.position.z > d->bounds_hi.z))
            *outside = 1;
        if (bounded && s.position.z < d->bounds_lo.z)
            *below = 1;
        const double m = s.mass;
        e += 0.5 * m * heft_v3_dot(s.linear_velocity, s.linear_velocity);
        /* rotational energy about the centre of mass, 0.5 w . I w, in the
         * body frame where the inertia is given */
        heft_vec3 wb = heft_quat_rotate_inv(s.orientation, s.angular_velocity);
        heft_vec3 iw = heft_mat3_mulv(s.inertia, wb);
        e += 0.5 * heft_v3_dot(wb, iw);
        e -= m * heft_v3_dot(g, s.position);
    }
    return e;
}

/* Where a run's trace goes (NULL: none), one line per window of steps. */
typedef struct soak_trace {
    FILE *f;
    const char *scene, *variant, *solver;
} soak_trace;

static soak_result soak(const scenario_desc *d, const char *solver, double seconds, double settle,
                        double window, const scenario_params *params, const soak_trace *trace) {
    soak_result r;
    memset(&r, 0, sizeof r);
    r.failed_step = -1;
    heft_world_def wd = heft_default_world_def();
    heft_solver_options o = heft_solver_default_options();
    wd.solver = solver;
    if (d->configure)
        d->configure(&wd, &o);
    heft_world *w = heft_world_create(&wd);
    if (w == NULL || heft_world_set_solver_options(w, &o) != HEFT_OK) {
        fprintf(stderr, "heft-soak: %s under %s: %s\n", d->name, solver, heft_last_error());
        r.failed_step = 0;
        heft_world_destroy(w);
        return r;
    }
    scenario *s = d->create(w, params);
    if (s == NULL) {
        fprintf(stderr, "heft-soak: %s could not be built: %s\n", d->name, heft_last_error());
        r.failed_step = 0;
        heft_world_destroy(w);
        return r;
    }
    const double h = d->h > 0.0 ? d->h : 1.0 / 60.0;
    const int steps = (int)(seconds / h + 0.5);
    const int settle_steps = (int)(settle / h + 0.5) < steps ? (int)(settle / h + 0.5) : 0;
    const int window_steps = (int)(window / h + 0.5) < steps - settle_steps
                                 ? (int)(window / h + 0.5)
                                 : steps - settle_steps;
    const heft_vec3 g = wd.gravity;
    double t_first = 0.0, t_last = 0.0;
    double t_span = 0.0, energy_span = 0.0; /* the trace's current window */
    long nonfinite_span = 0, outside_span = 0, below_span = 0;
    /* the window's solver work, which tells a scene whose islands got
     * harder from an engine that got slower at the same work */
    long unconverged_span = 0, newton_span = 0, lemke_span = 0, lemke_steps_span = 0;
    double slowest_span = 0.0;
    /* and its size: contact points and rows over the islands, summed */
    double contacts_span = 0.0, rows_span = 0.0;
    for (int i = 0; i < steps; ++i) {
        if (d->control)
            d->control(s, w, i, h);
        const double t0 = cpu_ms();
        if (heft_world_step(w, h) != HEFT_OK) {
            r.failed_step = i;
            break;
        }
        const double dt = cpu_ms() - t0;
        if (d->observe)
            d->observe(s, w, i, h);
        int outside = 0, below = 0;
        const double e = fabs(energy(w, g, d, &r.nonfinite, &outside, &below));
        r.out_of_bounds_steps += outside;
        r.below_floor_steps += below;
        if (i >= settle_steps && i < settle_steps + window_steps) {
            t_first += dt;
            r.energy_first = fmax(r.energy_first, e);
        }
        if (i >= steps - window_steps) {
            t_last += dt;
            r.energy_last = fmax(r.energy_last, e);
        }
        if (i == settle_steps + window_steps - 1)
            r.rss_first_mb = rss_mb(&r.anon_first_mb);
        r.steps = i + 1;
        if (trace->f != NULL) {
            const heft_step_stats *st = heft_world_stats(w);
            const long lemke = (long)st->backstop_pivots - st->newton_steps;
            unconverged_span += st->not_converged;
            newton_span += st->newton_steps;
            lemke_span += lemke;
            lemke_steps_span += lemke > 0;
            slowest_span = fmax(slowest_span, dt);
            contacts_span += st->contacts;
            rows_span += st->rows;
            t_span += dt;
            energy_span = fmax(energy_span, e);
            outside_span += outside;
            below_span += below;
            if (r.steps % window_steps == 0 || r.steps == steps) {
                const int span =
                    r.steps % window_steps == 0 ? window_steps : r.steps % window_steps;
                double anon;
                const double rss = rss_mb(&anon);
                fprintf(trace->f,
                        "%s,%s,%s,%.3f,%d,%ld,%ld,%.9g,%.6g,%.3f,%.4f,%ld,%.3f,%ld,%ld,%ld,%ld,%."
                        "3f,%.1f,"
                        "%.1f\n",
                        trace->scene, trace->variant, trace->solver, r.steps * h, r.steps,
                        r.nonfinite - nonfinite_span, outside_span, energy_span, t_span / span, rss,
                        (double)held_bytes / (1024.0 * 1024.0), below_span, anon, unconverged_span,
                        newton_span, lemke_steps_span, lemke_span, slowest_span,
                        contacts_span / span, rows_span / span);
                fflush(trace->f);
                unconverged_span = newton_span = lemke_span = lemke_steps_span = 0;
                slowest_span = contacts_span = rows_span = 0.0;
                t_span = energy_span = 0.0;
                nonfinite_span = r.nonfinite;
                outside_span = below_span = 0;
            }
        }
    }
    r.rss_last_mb = rss_mb(&r.anon_last_mb);
    r.step_ms_first = window_steps > 0 ? t_first / window_steps : 0.0;
    r.step_ms_last = window_steps > 0 ? t_last / window_steps : 0.0;
    d->destroy(s);
    heft_world_destroy(w);
    return r;
}

/* the limits a run must keep (docs/benchmarks.md "Soaks") */
static int soak_passes(const soak_result *r, int steps_wanted) {
    const double growth = r->step_ms_first > 0.0 ? r->step_ms_last / r->step_ms_first : 1.0;
    const double rss = r->anon_first_mb > 0.0 ? r->anon_last_mb / r->anon_first_mb : 1.0;
    return r->failed_step < 0 && r->steps == steps_wanted && r->nonfinite == 0 &&
           r->out_of_bounds_steps == 0 && growth <= 1.2 && rss <= 1.02 &&
           r->energy_last <= 10.0 * r->energy_first + 1.0;
}

static void usage(FILE *f) {
    fprintf(f, "usage: heft-soak [--seconds S] [--window S] [--settle S] [--solver NAME]...\n"
               "                 [--scenario NAME]...\n"
               "                 [--variant NAME] [--size N] [--csv FILE] [--trace FILE] [--trim]\n"
               "Runs each scene under each solver for S simulated seconds (default 600)\n"
               "and prints a Markdown row per run (docs/benchmarks.md, \"Soaks\").\n"
               "The first and the last --window seconds (default 60) are compared; the\n"
               "first starts after --settle seconds (default 0). --trace FILE: a CSV line\n"
               "per window of every run as it goes. --trim: glibc's free heap pages are\n"
               "returned (malloc_trim) before each reading of the memory.\n"
               "Defaults: every scene, pgs and bpp-skyline.\n");
}

int main(int argc, char **argv) {
#ifdef __GLIBC__
    /* The C library's threshold for giving a block its own mapping fixed
     * at its default, 128 kB. Left to adjust itself, glibc raises it to
     * the size of the first such block that is freed, and keeps the larger
     * blocks allocated after on its heap, resident once they are freed: a
     * stage that runs once in minutes and returns its 5 MB then reads as
     * growth of the anonymous memory, while the memory the engine holds is
     * flat (docs/benchmarks.md "Soaks"). An application sets the same. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
    double seconds = 600.0, window = 60.0, settle = 0.0;
    const char *solvers[16];
    int nsolvers = 0;
    const char *scenes[32];
    int nscenes = 0;
    const char *csv_path = NULL, *trace_path = NULL;
    scenario_params params;
    memset(&params, 0, sizeof params);
    static const struct option longopts[] = {
        {"seconds", required_argument, NULL, 't'},  {"solver", required_argument, NULL, 's'},
        {"scenario", required_argument, NULL, 'c'}, {"variant", required_argument, NULL, 'v'},
        {"size", required_argument, NULL, 'n'},     {"csv", required_argument, NULL, 'o'},
        {"window", required_argument, NULL, 'w'},   {"settle", required_argument, NULL, 'e'},
        {"trace", required_argument, NULL, 'r'},    {"trim", no_argument, NULL, 'm'},
        {"help", no_argument, NULL, 'h'},           {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (opt) {
        case 't':
            seconds = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(seconds > 0.0) || seconds > 86400.0) {
                fprintf(stderr, "heft-soak: --seconds must lie in (0, 86400], got %s\n", optarg);
                return 2;
            }
            break;
        case 'w':
            window = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(window > 0.0) || window > 3600.0) {
                fprintf(stderr, "heft-soak: --window must lie in (0, 3600], got %s\n", optarg);
                return 2;
            }
            break;
        case 'e':
            settle = strtod(optarg, &end);
            if (end == optarg || *end != '\0' || !(settle >= 0.0) || settle > 86400.0) {
                fprintf(stderr, "heft-soak: --settle must lie in [0, 86400], got %s\n", optarg);
                return 2;
            }
            break;
        case 's':
            if (nsolvers == 16 || heft_solver_find(optarg) == NULL) {
                fprintf(stderr, "heft-soak: unknown solver \"%s\" (or more than 16)\n", optarg);
                return 2;
            }
            solvers[nsolvers++] = optarg;
            break;
        case 'c':
            if (nscenes == 32 || scenario_find(optarg) == NULL) {
                fprintf(stderr, "heft-soak: unknown scenario \"%s\" (or more than 32)\n", optarg);
                return 2;
            }
            scenes[nscenes++] = optarg;
            break;
        case 'v':
            params.variant = optarg;
            break;
        case 'n': {
            const long v = strtol(optarg, &end, 10);
            if (end == optarg || *end != '\0' || v < 1 || v > 1000) {
                fprintf(stderr, "heft-soak: --size must lie in [1, 1000], got %s\n", optarg);
                return 2;
            }
            params.size = (int)v;
            break;
        }
        case 'o':
            csv_path = optarg;
            break;
        case 'r':
            trace_path = optarg;
            break;
        case 'm':
            trim_heap = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "heft-soak: unexpected argument \"%s\"\n", argv[optind]);
        return 2;
    }
    if (settle > 0.0 && settle + 2.0 * window > seconds) {
        fprintf(stderr,
                "heft-soak: --settle %g and two windows of %g s do not fit in --seconds %g\n",
                settle, window, seconds);
        return 2;
    }
    if (nsolvers == 0) {
        solvers[nsolvers++] = "pgs";
        solvers[nsolvers++] = "bpp-skyline";
    }
    if (nscenes == 0)
        for (int i = 0; i < scenario_count() && nscenes < 32; ++i)
            scenes[nscenes++] = scenario_at(i)->name;
    FILE *csv = NULL;
    if (csv_path != NULL) {
        csv = fopen(csv_path, "w");
        if (csv == NULL) {
            fprintf(stderr, "heft-soak: cannot write %s\n", csv_path);
            return 2;
        }
        fprintf(csv, "scenario,variant,solver,seconds,steps,nonfinite,out_of_bounds_steps,"
                     "energy_first_j,energy_last_j,step_ms_first,step_ms_last,rss_first_mb,"
                     "rss_last_mb,pass,below_floor_steps,anon_first_mb,anon_last_mb\n");
    }
    soak_trace trace = {NULL, NULL, NULL, NULL};
    if (trace_path != NULL) {
        trace.f = fopen(trace_path, "w");
        if (trace.f == NULL) {
            fprintf(stderr, "heft-soak: cannot write %s\n", trace_path);
            if (csv != NULL)
                fclose(csv);
            return 2;
        }
        fprintf(trace.f, "scenario,variant,solver,seconds,steps,nonfinite,out_of_bounds_steps,"
                         "energy_max_j,step_ms,rss_mb,engine_mb,below_floor_steps,anon_mb,"
                         "unconverged_solves,newton_steps,lemke_steps,lemke_pivots,slowest_step_ms,"
                         "contacts_mean,rows_mean\n");
        static const heft_allocator held = {held_alloc, held_realloc, held_free, NULL};
        heft_set_allocator(&held); /* before any world is made */
    }
    char span[64];
    if (window == 60.0)
        snprintf(span, sizeof span, "minute");
    else
        snprintf(span, sizeof span, "%g s", window);
    if (settle > 0.0) {
        const size_t used = strlen(span);
        snprintf(span + used, sizeof span - used, " (first from %g s)", settle);
    }
    printf("| scene | solver | simulated s | non-finite | steps out of bounds (below the floor) "
           "| max energy, first / last %s (J) | ms a step, first / last %s | growth | RSS MB "
           "(anonymous), after the first %s / end | pass |\n",
           span, span, span);
    printf("|---|---|---|---|---|---|---|---|---|---|\n");
    int all = 1;
    for (int c = 0; c < nscenes; ++c) {
        const scenario_desc *d = scenario_find(scenes[c]);
        for (int k = 0; k < nsolvers; ++k) {
            trace.scene = d->name;
            trace.variant = params.variant ? params.variant : "";
            trace.solver = solvers[k];
            const soak_result r = soak(d, solvers[k], seconds, settle, window, &params, &trace);
            const double h = d->h > 0.0 ? d->h : 1.0 / 60.0;
            const int wanted = (int)(seconds / h + 0.5);
            const int pass = soak_passes(&r, wanted);
            all &= pass;
            const double growth = r.step_ms_first > 0.0 ? r.step_ms_last / r.step_ms_first : 0.0;
            printf(
                "| %s%s%s | %s | %.0f | %ld | %ld (%ld) | %.4g / %.4g | %.3g / %.3g | %.2f | %.1f "
                "(%.2f) / %.1f (%.2f) | %s |\n",
                d->name, params.variant ? " " : "", params.variant ? params.variant : "",
                solvers[k], r.steps * h, r.nonfinite, r.out_of_bounds_steps, r.below_floor_steps,
                r.energy_first, r.energy_last, r.step_ms_first, r.step_ms_last, growth,
                r.rss_first_mb, r.anon_first_mb, r.rss_last_mb, r.anon_last_mb,
                pass ? "yes" : "**no**");
            fflush(stdout);
            if (csv != NULL)
                fprintf(csv,
                        "%s,%s,%s,%.3f,%d,%ld,%ld,%.9g,%.9g,%.6g,%.6g,%.3f,%.3f,%d,%ld,%.3f,%.3f\n",
                        d->name, params.variant ? params.variant : "", solvers[k], r.steps * h,
                        r.steps, r.nonfinite, r.out_of_bounds_steps, r.energy_first, r.energy_last,
                        r.step_ms_first, r.step_ms_last, r.rss_first_mb, r.rss_last_mb, pass,
                        r.below_floor_steps, r.anon_first_mb, r.anon_last_mb);
        }
    }
    if (csv != NULL && (fflush(csv) != 0 || ferror(csv) || fclose(csv) != 0)) {
        fprintf(stderr, "heft-soak: writing %s failed\n", csv_path);
        return 2;
    }
    if (trace.f != NULL && (fflush(trace.f) != 0 || ferror(trace.f) || fclose(trace.f) != 0)) {
        fprintf(stderr, "heft-soak: writing %s failed\n", trace_path);
        return 2;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "heft-soak: writing the table failed\n");
        return 2;
    }
    return all ? 0 : 1;
}
