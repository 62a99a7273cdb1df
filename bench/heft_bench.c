/* heft-bench: the solver comparisons of bench.md, in one run.
 *
 * Each scene is recorded once with one solver; every island MLCP of every step
 * is kept. Then every solver answers the same problems, replayed in step order
 * with its own per-island state (so warm starts and kept index sets work as in
 * the engine), several repetitions with the solver order rotated, and the
 * median time per problem is kept. Times are therefore ratios measured side
 * by side in one process; absolute times are reported with the machine. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "block_ldl.h"
#include "bpp.h"
#include "cli.h"
#include "downdate_break_even.h"
#include "hard_family.h"
#include "lemke.h"
#include "newton.h"
#include "mechanisms.h"
#include "pcg.h"
#include "precond.h"
#include "runner.h"
#include "solver_cli.h"
#include "sparse_sym.h"

#ifndef HEFT_BUILD_TYPE
#define HEFT_BUILD_TYPE "unknown"
#endif

#define MAX_SOLVERS 16
#define MAX_SCENES 16

/* Set when an output file lost data; the run then exits with 1. Tables
 * that silently miss rows would read as results. */
static int output_failed;

/* Closes an output file, saying on stderr when anything written to it was
 * lost (a full disk); 0, or -1 then, and nothing may plot the file (gnuplot
 * reading a CSV that is a link to /dev/full or a FIFO never returns). */
static int close_output(FILE *f, const char *path) {
    char err[1200];
    if (cli_finish_output(f, path, err, sizeof err) != 0) {
        fprintf(stderr, "heft-bench: %s\n", err);
        output_failed = 1;
        return -1;
    }
    return 0;
}

/* Puts DIR/SCENE-SUFFIX, or DIR/SUFFIX when scene is NULL (the files of the
 * whole run), into path; 0, or -1 (reported and counted as lost output) when
 * the name does not fit in path_size bytes: a cut name would be another file. */
static int output_path(const char *dir, const char *scene, const char *suffix, char *path,
                       size_t path_size) {
    const char *dash = scene ? "-" : "";
    scene = scene ? scene : "";
    const int len = snprintf(path, path_size, "%s/%s%s%s", dir, scene, dash, suffix);
    if (len < 0 || (size_t)len >= path_size) {
        fprintf(stderr, "heft-bench: cannot write %s/%s%s%s: the path is longer than %zu bytes\n",
                dir, scene, dash, suffix, path_size - 1);
        output_failed = 1;
        return -1;
    }
    return 0;
}

/* Opens the file output_path names for writing; NULL (reported and counted
 * as lost output) when it cannot be made or its name does not fit. */
static FILE *open_output(const char *dir, const char *scene, const char *suffix, char *path,
                         size_t path_size) {
    if (output_path(dir, scene, suffix, path, path_size) != 0) {
        return NULL;
    }
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "heft-bench: cannot write %s: %s\n", path, strerror(errno));
        output_failed = 1;
    }
    return f;
}

/* A gnuplot command line, on the heap at the length it needs: the commands
 * embed --out, and one cut at a fixed size is a shell syntax error that
 * loses the plot without a word. */
typedef struct plot_command {
    char *text;
    size_t len;
    int failed; /* out of memory: nothing may run */
} plot_command;

/* Appends printf-style text. */
static void plot_command_add(plot_command *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void plot_command_add(plot_command *c, const char *fmt, ...) {
    if (c->failed) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= SIZE_MAX - c->len) {
        c->failed = 1;
        return;
    }
    char *text = realloc(c->text, c->len + (size_t)n + 1);
    if (!text) {
        c->failed = 1;
        return;
    }
    c->text = text;
    va_start(ap, fmt);
    vsnprintf(c->text + c->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    c->len += (size_t)n;
}

/* Starts a plot command, cd DIR and then gnuplot -e "SCRIPT" when there is
 * a gnuplot, the script begun with a PNG terminal of SIZE ("W,H") reading
 * comma-separated data: the rest of the script follows (its output file
 * first), and plot_command_run closes it. DIR goes to system()'s sh as one
 * single-quoted word, each ' in it as '\'' (the only character that ends
 * such a word); it reaches no other layer, as gnuplot is given names
 * relative to DIR, so a --out with an apostrophe plots like any other. */
static void plot_command_start(plot_command *c, const char *dir, const char *size) {
    /* "--": a directory named "-" or "-x" is a directory, not an option of cd */
    plot_command_add(c, "cd -- '");
    for (const char *q; (q = strchr(dir, '\'')) != NULL; dir = q + 1) {
        plot_command_add(c, "%.*s'\\''", (int)(q - dir), dir);
    }
    plot_command_add(c, "%s' && command -v gnuplot >/dev/null 2>&1 && gnuplot -e \"", dir);
    plot_command_add(c, "set terminal pngcairo noenhanced size %s; set datafile separator ','; ",
                     size);
}

/* Runs the command that plots DIR/SCENE-SUFFIX and frees it: 1 when it made
 * the plot, 0 when not (gnuplot missing or failed), -1 when the command could
 * not be built (reported and counted as lost output). */
static int plot_command_run(plot_command *c, const char *scene, const char *suffix) {
    int rc;
    plot_command_add(c, "\" 2>/dev/null");
    if (c->failed || !c->text) {
        fprintf(stderr, "heft-bench: cannot plot %s-%s: out of memory for its gnuplot command\n",
                scene, suffix);
        output_failed = 1;
        rc = -1;
    } else {
        rc = system(c->text) == 0;
    }
    free(c->text);
    memset(c, 0, sizeof *c);
    return rc;
}

/* ---- recording: deep copies of the islands' problems --------------------- */

typedef struct recorded {
    int step;
    int island;
    heft_mlcp *p;
} recorded;

typedef struct recording {
    recorded *items;
    int count, capacity;
    int from, every; /* keeps the problems of steps from, from + every, ... (1-based) */
} recording;

static int step_kept(const recording *r, int step) {
    return step >= r->from && (step - r->from) % r->every == 0;
}

static heft_mlcp *mlcp_copy(const heft_mlcp *src) {
    heft_mlcp *p =
        heft_mlcp_create(src->n, src->nbodies,
                         HEFT_MLCP_STRUCTURED | HEFT_MLCP_META | (src->A ? HEFT_MLCP_DENSE : 0));
    if (!p) {
        return NULL;
    }
    size_t n = (size_t)src->n;
    memcpy(p->b, src->b, n * sizeof(double));
    memcpy(p->lo, src->lo, n * sizeof(double));
    memcpy(p->hi, src->hi, n * sizeof(double));
    memcpy(p->findex, src->findex, n * sizeof(int32_t));
    if (src->kind) {
        memcpy(p->kind, src->kind, n);
    }
    if (src->block) {
        memcpy(p->block, src->block, n * sizeof(int32_t));
    }
    if (src->lambda0) {
        memcpy(p->lambda0, src->lambda0, n * sizeof(double));
    }
    memcpy(p->bodies, src->bodies, (size_t)src->nbodies * sizeof(heft_mlcp_body));
    memcpy(p->rows, src->rows, n * sizeof(heft_mlcp_row));
    memcpy(p->epsilon, src->epsilon, n * sizeof(double));
    if (src->A) {
        memcpy(p->A, src->A, n * n * sizeof(double));
    }
    return p;
}

static void record_island(void *user, int step, int island, const heft_mlcp *p,
                          const double *lambda, const heft_solver_stats *stats) {
    (void)lambda;
    (void)stats;
    recording *r = user;
    if (!step_kept(r, step + 1)) {
        return;
    }
    if (r->count == r->capacity) {
        int cap = r->capacity ? 2 * r->capacity : 256;
        recorded *items = realloc(r->items, (size_t)cap * sizeof *items);
        if (!items) {
            return;
        }
        r->items = items;
        r->capacity = cap;
    }
    heft_mlcp *copy = mlcp_copy(p);
    if (copy) {
        r->items[r->count].step = step + 1;
        r->items[r->count].island = island;
        r->items[r->count].p = copy;
        r->count++;
    }
}

static void recording_free(recording *r) {
    for (int i = 0; i < r->count; ++i) {
        heft_mlcp_destroy(r->items[i].p);
    }
    free(r->items);
    memset(r, 0, sizeof *r);
}

/* ---- measurement ---------------------------------------------------------- */

typedef struct solver_result {
    const heft_solver_vtable *solver;
    double *time_ms; /* per problem, median over repetitions */
    double *error;   /* per problem */
    int *iterations; /* per problem */
    int *tight;      /* per problem: tight set of the last pivoting step */
    int *converged;
    int *inner;        /* per problem: inner iterations (PCG inside pivoting steps) */
    double *imaginary; /* per problem: fraction of the preconditioners' columns that were
                          imaginary ([Ho 2022] Figure 6.4), -1 when none was computed */
} solver_result;

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    if (n == 0) {
        return 0.0;
    }
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Replays the recording through one solver with per-island states. */
static void replay(const recording *rec, const heft_solver_vtable *s, const heft_solver_options *o,
                   double *times, solver_result *out) {
    void *states[4096] = {0};
    double *lambda = NULL;
    int lambda_cap = 0;
    for (int i = 0; i < rec->count; ++i) {
        const recorded *r = &rec->items[i];
        int k = r->island < 4096 ? r->island : 4095;
        if (!states[k]) {
            states[k] = s->create(o);
        }
        if (r->p->n > lambda_cap) {
            free(lambda);
            lambda_cap = r->p->n;
            lambda = malloc((size_t)lambda_cap * sizeof *lambda);
        }
        heft_solver_stats st;
        memset(&st, 0, sizeof st);
        double t0 = heft_time_ms();
        int rc = s->solve(states[k], r->p, lambda, &st);
        times[i] = heft_time_ms() - t0;
        if (out) {
            heft_mlcp_error e = heft_mlcp_measure(r->p, lambda, NULL);
            out->error[i] = e.max;
            out->iterations[i] = st.iterations;
            out->tight[i] =
                st.tight_trace_count > 0 ? st.tight_trace[st.tight_trace_count - 1] : -1;
            out->converged[i] = rc == HEFT_SOLVE_OK;
            out->inner[i] = st.inner_iterations;
            out->imaginary[i] =
                st.preconditioned_columns_sum > 0
                    ? (double)st.imaginary_columns_sum / (double)st.preconditioned_columns_sum
                    : -1.0;
        }
    }
    for (int k = 0; k < 4096; ++k) {
        if (states[k]) {
            s->destroy(states[k]);
        }
    }
    free(lambda);
}

/* ---- output helpers -------------------------------------------------------- */

static void machine_line(FILE *f) {
    char cpu[256] = "unknown CPU";
    FILE *c = fopen("/proc/cpuinfo", "r");
    if (c) {
        char line[512];
        while (fgets(line, sizeof line, c)) {
            if (!strncmp(line, "model name", 10)) {
                char *colon = strchr(line, ':');
                if (colon) {
                    snprintf(cpu, sizeof cpu, "%s", colon + 2);
                    cpu[strcspn(cpu, "\n")] = '\0';
                }
                break;
            }
        }
        fclose(c); /* read only */
    }
    time_t now = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    long cores = 0;
    FILE *n = popen("nproc 2>/dev/null", "r");
    if (n) {
        if (fscanf(n, "%ld", &cores) != 1) {
            cores = 0;
        }
        pclose(n);
    }
#if defined(__clang__)
    const char *compiler = "clang " __clang_version__;
#elif defined(__GNUC__)
    const char *compiler = "gcc " __VERSION__;
#else
    const char *compiler = "unknown compiler";
#endif
    fprintf(f, "Machine: %s, %ld cores; build %s; %s; %s.\n\n", cpu, cores, HEFT_BUILD_TYPE,
            compiler, date);
}

typedef struct stats4 {
    double min, max, mean, med;
} stats4;

static stats4 summarize(const double *v, int n) {
    stats4 s = {0, 0, 0, 0};
    if (n == 0) {
        return s;
    }
    double *copy = malloc((size_t)n * sizeof *copy);
    if (!copy) {
        return s;
    }
    memcpy(copy, v, (size_t)n * sizeof *copy);
    s.min = s.max = v[0];
    for (int i = 0; i < n; ++i) {
        s.min = v[i] < s.min ? v[i] : s.min;
        s.max = v[i] > s.max ? v[i] : s.max;
        s.mean += v[i] / n;
    }
    s.med = median(copy, n);
    free(copy);
    return s;
}

/* ---- one scene --------------------------------------------------------------- */

typedef struct bench_config {
    const char *out;
    const char *record_solver;
    int reps;
    int steps;
    int from;           /* replay the problems of steps >= from */
    int every;          /* and of every every-th of those steps */
    int preconditioner; /* the PCG solvers' (heft_preconditioner), -1: the default */
    int imaginary;      /* also PCG alone per preconditioner on each step's largest island */
    const char *solvers[MAX_SOLVERS];
    int solver_count;
} bench_config;

/* [Ho 2022] Figure 6.4: for the largest island of each replayed step, each PCG
 * solver's mean fraction of imaginary columns (over the preconditioners of
 * its solve) and its inner iterations. CSV and, with gnuplot, a scatter plot.
 * Returns 1 when the plot was written. */
static int write_figure_6_4(const bench_config *bc, const char *scene, const recording *rec,
                            const solver_result *res, int ns) {
    int pcg[MAX_SOLVERS], np = 0;
    for (int si = 0; si < ns; ++si) {
        for (int i = 0; i < rec->count; ++i) {
            if (res[si].imaginary[i] >= 0.0) {
                pcg[np++] = si;
                break;
            }
        }
    }
    if (np == 0) {
        return 0;
    }
    char path[1024];
    FILE *csv = open_output(bc->out, scene, "imaginary.csv", path, sizeof path);
    if (!csv) {
        return 0;
    }
    fprintf(csv, "step,rows");
    for (int k = 0; k < np; ++k) {
        fprintf(csv, ",%s_imaginary_percent,%s_inner", res[pcg[k]].solver->name,
                res[pcg[k]].solver->name);
    }
    fputc('\n', csv);
    for (int i = 0; i < rec->count;) {
        int j = i, big = i; /* the problems of one step are consecutive */
        while (j < rec->count && rec->items[j].step == rec->items[i].step) {
            big = rec->items[j].p->n > rec->items[big].p->n ? j : big;
            ++j;
        }
        fprintf(csv, "%d,%d", rec->items[big].step, rec->items[big].p->n);
        for (int k = 0; k < np; ++k) {
            const double f = res[pcg[k]].imaginary[big];
            fprintf(csv, ",%.4f,%d", f >= 0.0 ? 100.0 * f : 0.0, res[pcg[k]].inner[big]);
        }
        fputc('\n', csv);
        i = j;
    }
    if (close_output(csv, path) != 0) {
        return 0;
    }
    plot_command cmd = {0};
    plot_command_start(&cmd, bc->out, "700,500");
    plot_command_add(
        &cmd,
        "set output '%s-imaginary.png'; set key autotitle "
        "columnhead; set xlabel 'imaginary columns, mean over the solve (%% of columns)'; "
        "set ylabel 'inner PCG iterations'; set logscale y; plot ",
        scene);
    for (int k = 0; k < np; ++k) {
        plot_command_add(&cmd, "%s'%s-imaginary.csv' using %d:%d with points", k ? ", " : "", scene,
                         3 + 2 * k, 4 + 2 * k);
    }
    return plot_command_run(&cmd, scene, "imaginary.png") == 1;
}

/* [Ho 2022] Figure 6.4 without the pivoting: PCG on A lambda = b of the largest
 * island of each replayed step (to 1e-8 relative), preconditioned by Jacobi,
 * IC(0) with imaginary columns and IC(0) with diagonal compensation, against
 * the imaginary columns of the IC(0). CSV, plot, and a summary table in md.
 * Returns 0, or -1 when out of memory. */
static int bench_imaginary_pcg(const bench_config *bc, const char *scene, const recording *rec,
                               FILE *md) {
    enum { KINDS = 3 };
    static const int kinds[KINDS] = {HEFT_PRECOND_JACOBI, HEFT_PRECOND_IC0_IMAGINARY,
                                     HEFT_PRECOND_IC0_SHIFT};
    char path[1024];
    FILE *csv = open_output(bc->out, scene, "imaginary-pcg.csv", path, sizeof path);
    if (!csv) {
        return 0;
    }
    fprintf(csv, "step,rows,imaginary_columns,imaginary_percent,jacobi,ic0-imaginary,ic0-shift,"
                 "ic0_breaks_down\n");
    /* problems and iterations summed: none, up to 1%, over 1% imaginary */
    long count[3] = {0, 0, 0}, its[3][KINDS] = {{0}}, breakdowns = 0;
    int rc = 0;
    for (int i = 0; i < rec->count && rc == 0;) {
        int j = i, big = i;
        while (j < rec->count && rec->items[j].step == rec->items[i].step) {
            big = rec->items[j].p->n > rec->items[big].p->n ? j : big;
            ++j;
        }
        i = j;
        const heft_mlcp *p = rec->items[big].p;
        if (p->n < 10) {
            continue;
        }
        heft_sparse_sym A;
        memset(&A, 0, sizeof A);
        double *x = malloc(sizeof(double) * (size_t)p->n);
        if (!x || heft_sparse_sym_from_mlcp(&A, p) != 0) {
            free(x);
            heft_sparse_sym_release(&A);
            rc = -1;
            break;
        }
        long it[KINDS];
        int imaginary = 0;
        for (int k = 0; k < KINDS; ++k) {
            heft_precond P;
            heft_precond_init(&P, kinds[k]);
            it[k] = -1;
            if (heft_precond_compute(&P, &A) == 0) {
                memset(x, 0, sizeof(double) * (size_t)p->n);
                heft_pcg_work w;
                memset(&w, 0, sizeof w);
                const heft_pcg_stop stop = {1e-8, 0.0, 100000};
                const heft_pcg_result r = heft_pcg_solve(&A, &P, p->b, x, stop, &w);
                it[k] = r.converged ? r.iterations : -1;
                heft_pcg_release(&w);
            }
            if (kinds[k] == HEFT_PRECOND_IC0_IMAGINARY) {
                imaginary = P.imaginary_columns;
            }
            heft_precond_release(&P);
        }
        heft_precond ic0;
        heft_precond_init(&ic0, HEFT_PRECOND_IC0);
        const int broke = heft_precond_compute(&ic0, &A) == 1;
        heft_precond_release(&ic0);
        breakdowns += broke;
        const double percent = 100.0 * imaginary / p->n;
        fprintf(csv, "%d,%d,%d,%.4f,%ld,%ld,%ld,%d\n", rec->items[big].step, p->n, imaginary,
                percent, it[0], it[1], it[2], broke);
        const int bucket = imaginary == 0 ? 0 : percent <= 1.0 ? 1 : 2;
        count[bucket]++;
        for (int k = 0; k < KINDS; ++k) {
            its[bucket][k] += it[k] >= 0 ? it[k] : 100000; /* not converged: the cap */
        }
        free(x);
        heft_sparse_sym_release(&A);
    }
    if (close_output(csv, path) != 0) {
        return rc;
    }
    if (rc != 0 || count[0] + count[1] + count[2] == 0) {
        return rc;
    }
    fprintf(md,
            "PCG alone on A lambda = b of the largest island of each replayed step (to 1e-8 "
            "relative; [Ho 2022] Figure 6.4 without the pivoting; `%s-imaginary-pcg.csv`). Plain "
            "IC(0) broke down on %ld of %ld.\n\n",
            scene, breakdowns, count[0] + count[1] + count[2]);
    fprintf(md, "| imaginary columns of IC(0) | problems | PCG iterations, mean: jacobi | "
                "ic0-imaginary | ic0-shift |\n|---|---|---|---|---|\n");
    static const char *const names[3] = {"none", "up to 1% of the columns", "over 1%"};
    for (int b = 0; b < 3; ++b) {
        if (count[b] > 0) {
            fprintf(md, "| %s | %ld | %.0f | %.0f | %.0f |\n", names[b], count[b],
                    (double)its[b][0] / count[b], (double)its[b][1] / count[b],
                    (double)its[b][2] / count[b]);
        }
    }
    plot_command cmd = {0};
    plot_command_start(&cmd, bc->out, "700,500");
    plot_command_add(&cmd,
                     "set output '%s-imaginary-pcg.png'; set key autotitle "
                     "columnhead; set xlabel 'imaginary columns of IC(0) (%% of the columns)'; "
                     "set ylabel 'PCG iterations to 1e-8'; set logscale y; plot for [c=5:7] "
                     "'%s-imaginary-pcg.csv' "
                     "using 4:c with points",
                     scene, scene);
    if (plot_command_run(&cmd, scene, "imaginary-pcg.png") == 1) {
        fprintf(md, "\n![%s PCG against imaginary columns](%s-imaginary-pcg.png)\n", scene, scene);
    }
    fputc('\n', md);
    return 0;
}

static void solver_results_free(solver_result *res, int ns) {
    for (int si = 0; si < ns; ++si) {
        free(res[si].time_ms);
        free(res[si].error);
        free(res[si].iterations);
        free(res[si].tight);
        free(res[si].converged);
        free(res[si].inner);
        free(res[si].imaginary);
    }
}

static int bench_scene(const bench_config *bc, const char *scene_name, const char *scene,
                       const scenario_params *params, FILE *md) {
    recording rec = {0};
    rec.from = bc->from > 1 ? bc->from : 1;
    rec.every = bc->every > 1 ? bc->every : 1;
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = scene_name;
    cfg.solver = bc->record_solver;
    cfg.steps = bc->steps;
    cfg.params = *params;
    cfg.island = record_island;
    cfg.island_user = &rec;
    run_result rr;
    if (run_scenario(&cfg, &rr) != 0) {
        fprintf(stderr, "heft-bench: %s: %s\n", scene, rr.error);
        return -1;
    }
    int steps = rr.steps;
    run_result_free(&rr);
    int np = rec.count;
    fprintf(stderr, "heft-bench: %s: %d steps recorded with %s, %d island problems\n", scene, steps,
            bc->record_solver, np);

    /* the solver options the scene runs with (its configure hook), so the
     * replay starts each solve as the engine did */
    heft_world_def wd = heft_default_world_def();
    heft_solver_options o = heft_solver_default_options();
    const scenario_desc *desc = scenario_find(scene_name);
    if (desc && desc->configure) {
        desc->configure(&wd, &o);
    }
    if (bc->preconditioner >= 0) {
        o.preconditioner = bc->preconditioner;
    }
    solver_result res[MAX_SOLVERS];
    memset(res, 0, sizeof res);
    int ns = 0;
    for (int i = 0; i < bc->solver_count; ++i) {
        const heft_solver_vtable *s = heft_solver_find(bc->solvers[i]);
        if (!s) {
            continue;
        }
        res[ns].solver = s;
        res[ns].time_ms = calloc((size_t)np + 1, sizeof(double));
        res[ns].error = calloc((size_t)np + 1, sizeof(double));
        res[ns].iterations = calloc((size_t)np + 1, sizeof(int));
        res[ns].tight = calloc((size_t)np + 1, sizeof(int));
        res[ns].converged = calloc((size_t)np + 1, sizeof(int));
        res[ns].inner = calloc((size_t)np + 1, sizeof(int));
        res[ns].imaginary = calloc((size_t)np + 1, sizeof(double));
        ns++;
    }
    double *samples = calloc((size_t)np * (size_t)bc->reps * MAX_SOLVERS + 1, sizeof(double));
    double *times = calloc((size_t)np + 1, sizeof(double));
    /* per-step sums (a step may have several islands) */
    double *step_time = calloc((size_t)(steps + 1) * MAX_SOLVERS, sizeof(double));
    int *step_tight =
        calloc((size_t)steps + 1, sizeof(int)); /* from the reference BPP if present */
    int *step_rows = calloc((size_t)steps + 1, sizeof(int));
    int allocated = samples && times && step_time && step_tight && step_rows;
    for (int si = 0; si < ns; ++si) {
        allocated = allocated && res[si].time_ms && res[si].error && res[si].iterations &&
                    res[si].tight && res[si].converged && res[si].inner && res[si].imaginary;
    }
    if (!allocated) {
        fprintf(stderr, "heft-bench: %s: out of memory for %d problems x %d repetitions\n", scene,
                np, bc->reps);
        solver_results_free(res, ns);
        free(samples);
        free(times);
        free(step_time);
        free(step_tight);
        free(step_rows);
        recording_free(&rec);
        return -1;
    }
    /* interleaved repetitions: solver order rotated each time */
    for (int rep = 0; rep < bc->reps; ++rep) {
        for (int j = 0; j < ns; ++j) {
            int si = (j + rep) % ns;
            replay(&rec, res[si].solver, &o, times, rep == 0 ? &res[si] : NULL);
            for (int i = 0; i < np; ++i) {
                samples[((size_t)si * (size_t)np + (size_t)i) * (size_t)bc->reps + (size_t)rep] =
                    times[i];
            }
        }
    }
    for (int si = 0; si < ns; ++si) {
        for (int i = 0; i < np; ++i) {
            res[si].time_ms[i] = median(
                &samples[((size_t)si * (size_t)np + (size_t)i) * (size_t)bc->reps], bc->reps);
        }
    }

    int ref = -1;
    for (int si = 0; si < ns; ++si) {
        if (!strcmp(res[si].solver->name, "bpp")) {
            ref = si;
        }
    }
    for (int i = 0; i < np; ++i) {
        int st = rec.items[i].step;
        if (st < 0 || st > steps) {
            continue;
        }
        step_rows[st] += rec.items[i].p->n;
        for (int si = 0; si < ns; ++si) {
            step_time[st * MAX_SOLVERS + si] += res[si].time_ms[i];
        }
        if (ref >= 0 && res[ref].tight[i] > 0) {
            step_tight[st] += res[ref].tight[i];
        }
    }

    /* CSV of the per-step times and tight fraction (bench items 4) */
    char path[1024];
    FILE *csv = open_output(bc->out, scene, "steps.csv", path, sizeof path);
    int written = 0;
    if (csv) {
        fprintf(csv, "step,rows,tight_fraction");
        for (int si = 0; si < ns; ++si) {
            fprintf(csv, ",%s_ms", res[si].solver->name);
        }
        fputc('\n', csv);
        for (int st = 1; st <= steps; ++st) {
            if (!step_kept(&rec, st)) {
                continue;
            }
            fprintf(csv, "%d,%d,%.6f", st, step_rows[st],
                    step_rows[st] ? (double)step_tight[st] / step_rows[st] : 0.0);
            for (int si = 0; si < ns; ++si) {
                fprintf(csv, ",%.6f", step_time[st * MAX_SOLVERS + si]);
            }
            fputc('\n', csv);
        }
        written = close_output(csv, path) == 0;
    }
    /* plot (bench item 4), when gnuplot is there */
    int plotted = 0;
    if (written) {
        plot_command cmd = {0};
        plot_command_start(&cmd, bc->out, "900,500");
        plot_command_add(
            &cmd,
            "set output '%s-steps.png'; set key autotitle "
            "columnhead outside; set xlabel 'step'; set ylabel 'solve time per step (ms)'; set "
            "logscale y; "
            "plot for [c=4:%d] '%s-steps.csv' using 1:c with lines",
            scene, 3 + ns, scene);
        plotted = plot_command_run(&cmd, scene, "steps.png") == 1;
    }

    /* Markdown tables (bench items 1, 2, 3) */
    int with_tight = 0, largest = 0;
    for (int i = 0; i < np; ++i) {
        largest = rec.items[i].p->n > largest ? rec.items[i].p->n : largest;
    }
    int kept = 0;
    for (int st = 1; st <= steps; ++st) {
        with_tight += step_tight[st] > 0;
        kept += step_kept(&rec, st);
    }
    char window[96] = "";
    if (rec.from > 1 || rec.every > 1) {
        snprintf(window, sizeof window, " (replayed: steps %d to %d, every %d: %d steps)", rec.from,
                 steps, rec.every, kept);
    }
    fprintf(md,
            "### %s\n\n%d steps of %s%s, %d island problems (largest %d rows), recorded with `%s`; "
            "%d repetitions, median per problem.%s\n\n",
            scene, steps, "1/60 s", window, np, largest, bc->record_solver, bc->reps,
            ref >= 0 ? "" : " (no `bpp` registered: no tight-variable column)");
    if (bc->preconditioner >= 0) {
        static const char *const kinds[HEFT_PRECOND_COUNT] = {"jacobi", "ic0", "ic0-shift", "ict",
                                                              "ic0-imaginary"};
        fprintf(md, "PCG solvers preconditioned by `%s`.\n\n", kinds[bc->preconditioner]);
    }
    fprintf(md,
            "| solver | mean ms/step | max ms/step | speed-up vs bpp | mean ms/step, steps with "
            "tight rows (%d) | "
            "speed-up vs bpp there | iterations mean / max | inner iterations mean | imaginary "
            "columns (%%) | "
            "not converged | MLCP error min / median / mean / max (J) |\n",
            with_tight);
    fprintf(md, "|---|---|---|---|---|---|---|---|---|---|---|\n");
    double ref_tight_mean = 0.0, ref_mean = 0.0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int si = 0; si < ns; ++si) {
            double sum = 0.0, mx = 0.0, tight_sum = 0.0;
            for (int st = 1; st <= steps; ++st) {
                if (!step_kept(&rec, st)) {
                    continue;
                }
                double t = step_time[st * MAX_SOLVERS + si];
                sum += t;
                mx = t > mx ? t : mx;
                if (step_tight[st] > 0) {
                    tight_sum += t;
                }
            }
            double tight_mean = with_tight ? tight_sum / with_tight : 0.0;
            if (pass == 0) {
                if (si == ref) {
                    ref_tight_mean = tight_mean;
                    ref_mean = kept ? sum / kept : 0.0;
                }
                continue;
            }
            double it_sum = 0.0, inner_sum = 0.0, imag_sum = 0.0;
            int it_max = 0, nc = 0, imag_count = 0;
            for (int i = 0; i < np; ++i) {
                inner_sum += res[si].inner[i];
                if (res[si].imaginary[i] >= 0.0) {
                    imag_sum += res[si].imaginary[i];
                    imag_count++;
                }
                it_sum += res[si].iterations[i];
                it_max = res[si].iterations[i] > it_max ? res[si].iterations[i] : it_max;
                nc += !res[si].converged[i];
            }
            stats4 e = summarize(res[si].error, np);
            char speed[32] = "-", speed_all[32] = "-", imag[32] = "-";
            if (ref >= 0 && tight_mean > 0.0 && with_tight) {
                snprintf(speed, sizeof speed, "%.2f", ref_tight_mean / tight_mean);
            }
            const double mean = kept ? sum / kept : 0.0;
            if (ref >= 0 && mean > 0.0) {
                snprintf(speed_all, sizeof speed_all, "%.2f", ref_mean / mean);
            }
            if (imag_count > 0) {
                snprintf(imag, sizeof imag, "%.2f", 100.0 * imag_sum / imag_count);
            }
            fprintf(md,
                    "| `%s` | %.4f | %.4f | %s | %.4f | %s | %.1f / %d | %.1f | %s | %d | %.1e / "
                    "%.1e / %.1e / %.1e |\n",
                    res[si].solver->name, mean, mx, speed_all, tight_mean, speed,
                    np ? it_sum / np : 0.0, it_max, np ? inner_sum / np : 0.0, imag, nc, e.min,
                    e.med, e.mean, e.max);
        }
    }
    fprintf(md, "\nPer-step times: `%s-steps.csv`.\n\n", scene);
    if (plotted) {
        fprintf(md, "![%s](%s-steps.png)\n\n", scene, scene);
    }
    if (write_figure_6_4(bc, scene, &rec, res, ns)) {
        fprintf(
            md,
            "Inner iterations against imaginary columns ([Ho 2022] Figure 6.4), the largest island "
            "of each step: `%s-imaginary.csv`.\n\n![%s imaginary columns](%s-imaginary.png)\n\n",
            scene, scene, scene);
    }
    if (bc->imaginary && bench_imaginary_pcg(bc, scene, &rec, md) != 0) {
        fprintf(stderr, "heft-bench: %s: out of memory in the imaginary-column table\n", scene);
    }
    solver_results_free(res, ns);
    free(samples);
    free(times);
    free(step_time);
    free(step_tight);
    free(step_rows);
    recording_free(&rec);
    return 0;
}

/* ---- quality of motion (bench item 7) ------------------------------------------ */

static void bench_motion(const bench_config *bc, FILE *md) {
    fprintf(
        md,
        "### Quality of motion: hanging chain, 20 x 1 kg\n\n"
        "Largest joint gap over %d steps of 1/60 s, run live with each solver (default "
        "options).\n\n"
        "| solver | 10 kg load | 100 kg load | 2,000 kg load | 2,000 kg, geometric stiffness |\n"
        "|---|---|---|---|---|\n",
        bc->steps);
    for (int i = 0; i < bc->solver_count; ++i) {
        if (!heft_solver_find(bc->solvers[i])) {
            continue;
        }
        fprintf(md, "| `%s` |", bc->solvers[i]);
        double loads[4] = {10.0, 100.0, 2000.0, 2000.0};
        for (int k = 0; k < 4; ++k) {
            run_config cfg;
            memset(&cfg, 0, sizeof cfg);
            cfg.scenario = "hanging-chain";
            cfg.solver = bc->solvers[i];
            cfg.steps = bc->steps;
            cfg.params.load_mass = loads[k];
            cfg.geometric_stiffness = (k == 3);
            run_result r;
            if (run_scenario(&cfg, &r) != 0) {
                fprintf(md, " error |");
                continue;
            }
            double gap = 0.0;
            for (int j = 0; j < r.joint_count; ++j) {
                gap = r.joints[j].max_gap > gap ? r.joints[j].max_gap : gap;
            }
            fprintf(md, " %.3g m |", gap);
            run_result_free(&r);
        }
        fputc('\n', md);
    }
    fputc('\n', md);
}

/* ---- downdate break-even (bench item 5, the thesis's Figure 2.4) ------------- */

static void bench_break_even(const bench_config *bc, FILE *md) {
    static const int sizes[] = {50, 100, 200, 500, 1000, 2000};
    static const double fractions[] = {0.01, 0.02, 0.05, 0.10, 0.15, 0.20, 0.30, 0.50};
    static const int bands[] = {-1, 40};
    char path[1024];
    FILE *csv = open_output(bc->out, NULL, "break-even.csv", path, sizeof path);
    if (csv) {
        fprintf(csv, "storage,m,tight_fraction,downdate_ms,refactor_ms,ratio,max_difference\n");
    }
    fprintf(
        md,
        "### Downdate break-even\n\nTime of downdating L0 against refactoring A_FF (median of %d), "
        "as the ratio downdate/refactor: below 1 downdating wins. Dense storage uses "
        "bpp-downdate's "
        "kernels, skyline storage (half-bandwidth 40) bpp-skyline's.\n\n",
        bc->reps);
    for (int b = 0; b < 2; ++b) {
        fprintf(md, "| %s: m \\ tight | ", bands[b] < 0 ? "dense" : "skyline");
        for (size_t f = 0; f < sizeof fractions / sizeof *fractions; ++f) {
            fprintf(md, "%g%% | ", 100.0 * fractions[f]);
        }
        fprintf(md, "\n|---|");
        for (size_t f = 0; f < sizeof fractions / sizeof *fractions; ++f) {
            fprintf(md, "---|");
        }
        fputc('\n', md);
        for (size_t i = 0; i < sizeof sizes / sizeof *sizes; ++i) {
            if (bands[b] < 0 && sizes[i] > 1000 && bc->reps < 3) {
                continue;
            }
            fprintf(md, "| %d | ", sizes[i]);
            for (size_t f = 0; f < sizeof fractions / sizeof *fractions; ++f) {
                heft_downdate_timing t;
                if (heft_bench_downdate_vs_refactor(sizes[i], fractions[f], bands[b], bc->reps,
                                                    1234u + (uint64_t)i, &t) != 0) {
                    fprintf(md, "- | ");
                    continue;
                }
                double ratio = t.refactor_ms > 0.0 ? t.downdate_ms / t.refactor_ms : 0.0;
                fprintf(md, "%.2f | ", ratio);
                if (csv) {
                    fprintf(csv, "%s,%d,%.3f,%.6f,%.6f,%.4f,%.3e\n",
                            bands[b] < 0 ? "dense" : "skyline", sizes[i], fractions[f],
                            t.downdate_ms, t.refactor_ms, ratio, t.max_difference);
                }
            }
            fputc('\n', md);
        }
        fputc('\n', md);
    }
    if (!csv || close_output(csv, path) != 0) {
        return;
    }
    /* plot: ratio against tight fraction, one line per size, both storages */
    for (int b = 0; b < 2; ++b) {
        const char *storage = bands[b] < 0 ? "dense" : "skyline";
        plot_command cmd = {0};
        plot_command_start(&cmd, bc->out, "800,450");
        plot_command_add(
            &cmd,
            "set output 'break-even-%s.png'; set logscale y; "
            "set xlabel 'tight variables (%%)'; set ylabel 'downdate time / refactor time'; "
            "set title '%s storage'; set key left top; "
            "plot for [m in '50 100 200 500 1000 2000'] '< grep ^%s, break-even.csv' "
            "using (\\$2==m+0 ? 100*\\$3 : 1/0):6 with linespoints title 'm = '.m, 1 with lines dt "
            "2 "
            "title 'break-even'",
            storage, storage, storage);
        if (plot_command_run(&cmd, "break-even", storage) == 1) {
            fprintf(md, "![%s break-even](break-even-%s.png)\n\n", storage, storage);
        }
    }
}

/* ---- the block LDL on the slides' mechanisms (heft-bench --ldl) ----------------------- */

/* [Mizerski 2020] slides "Sparse Methods" and "Track": the numeric phase (assembly
 * of H~ and the block LDL^T) of a mechanism timed call by call, min, 10th
 * percentile and median over reps; assembly alone is factor with 0 pivots. */
typedef struct ldl_case {
    const char *name;
    const char *slides;
    heft_mlcp *p;
    mech_joint *joints;
} ldl_case;

static double percentile(double *v, int n, double q) {
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return v[(int)(q * (n - 1))];
}

static int bench_ldl_case(const ldl_case *c, int reps) {
    const heft_mlcp *p = c->p;
    int *rows = malloc((size_t)p->n * sizeof *rows);
    double *factor_us = malloc((size_t)reps * sizeof *factor_us);
    double *assembly_us = malloc((size_t)reps * sizeof *assembly_us);
    double *solve_us = malloc((size_t)reps * sizeof *solve_us);
    double *x = malloc((size_t)p->n * sizeof *x), *ref = malloc((size_t)p->n * sizeof *ref);
    heft_block_ldl f;
    memset(&f, 0, sizeof f);
    const heft_block_ldl_config config = heft_block_ldl_default_config();
    int rc = -1;
    if (!rows || !factor_us || !assembly_us || !solve_us || !x || !ref) {
        goto done;
    }
    for (int i = 0; i < p->n; ++i) {
        rows[i] = i;
    }
    if (heft_block_ldl_analyze(&f, p, rows, p->n, &config) != 0) {
        goto done;
    }
    for (int r = 0; r < reps; ++r) { /* interleaved, so both see the same machine load */
        double t0 = heft_time_ms();
        if (heft_block_ldl_factor(&f, p, 0) != 0) {
            goto done;
        }
        double t1 = heft_time_ms();
        if (heft_block_ldl_factor(&f, p, -1) != 0) {
            goto done;
        }
        double t2 = heft_time_ms();
        heft_block_ldl_solve(&f, p->b, x);
        double t3 = heft_time_ms();
        assembly_us[r] = 1000.0 * (t1 - t0);
        factor_us[r] = 1000.0 * (t2 - t1);
        solve_us[r] = 1000.0 * (t3 - t2);
    }
    mech_dense_solve(p, ref);
    const heft_block_ldl_stats *s = &f.stats;
    const double fmin_us = percentile(factor_us, reps, 0.0);
    printf("%s: %d joints, dim %d, density %.1f%%, %d fill edges, pivots of 1..6 rows:", c->name,
           s->nodes, s->dim, 100.0 * s->density, s->fill_edges);
    for (int d = 1; d <= 6; ++d) {
        printf(" %d", s->block_sizes[d]);
    }
    printf("\n  multiply-adds (slides' count) %.1fk, flops %.1fk (%s)\n", s->flops / 1000.0,
           2.0 * s->flops / 1000.0, c->slides);
    printf("  factor  min %.1f us, p10 %.1f, median %.1f (%.2f Gflop/s at the min)\n", fmin_us,
           percentile(factor_us, reps, 0.1), percentile(factor_us, reps, 0.5),
           2.0 * s->flops / (fmin_us * 1000.0));
    printf("  of it assembly of H~  min %.1f us, median %.1f\n", percentile(assembly_us, reps, 0.0),
           percentile(assembly_us, reps, 0.5));
    printf("  solve   min %.1f us, median %.1f; vs dense Cholesky %.1e relative\n",
           percentile(solve_us, reps, 0.0), percentile(solve_us, reps, 0.5),
           mech_relative(x, ref, p->n));
    rc = 0;
done:
    heft_block_ldl_release(&f);
    free(rows);
    free(factor_us);
    free(assembly_us);
    free(solve_us);
    free(x);
    free(ref);
    return rc;
}

static int bench_ldl(int reps) {
    int count = 0;
    ldl_case cases[2];
    /* slide "Sparse Methods": 50 constraints, dim 246, density 12%; a tree whose
     * joints gather on a few bodies (seed chosen for dim 246, 12.0%) */
    cases[0].name = "50-joint mechanism";
    cases[0].slides = "slides: dim 246, 12%, 90k flops, 70 us on a Core i9";
    cases[0].joints = mech_clustered_tree(50, 4, 6, 135, &count);
    cases[0].p = mech_build(50, cases[0].joints, count, 0, 1e-8, 1135);
    /* slide "Track": 40 constraints, dim 200, density 7.5%: a closed loop of hinges */
    cases[1].name = "40-joint track";
    cases[1].slides = "slides: dim 200, 7.5%, 43k flops, 35 us";
    cases[1].joints = mech_track(40, 5, &count);
    cases[1].p = mech_build(40, cases[1].joints, count, 0, 1e-8, 73);
    machine_line(stdout);
    printf("Block LDL numeric phase, %d calls each (times per call).\n", reps);
    int rc = 0;
    for (int c = 0; c < 2; ++c) {
        if (!cases[c].p || bench_ldl_case(&cases[c], reps) != 0) {
            fprintf(stderr, "heft-bench: the block LDL failed on the %s\n", cases[c].name);
            rc = 1;
        }
        heft_mlcp_destroy(cases[c].p);
        free(cases[c].joints);
    }
    return rc;
}

/* ---- --backstop: the variants of the pivoting family's exact backstop ---------------- */

/* The CSV of --backstop --out DIR (NULL: the table only) */
static FILE *backstop_csv;

/* The variants, in the order of the table; their index is the CSV's last column */
#define BACKSTOP_VARIANTS 11
static const char *const backstop_variants[BACKSTOP_VARIANTS] = {
    "pgs 1000 sweeps (the guess)",
    "lemke, all-slack start",
    "lemke, from PGS's answer",
    "lemke, proximal 1e-6 from the start",
    "newton, from PGS's answer",
    "newton, from the warm start",
    "newton, from zero",
    "bpp-skyline, restart off",
    "bpp-skyline, restart on",
    "lemke, all-slack start, dense B^-1",
    "joints eliminated (baraff), from PGS's answer"};

/* One variant on one problem: its time, the answer's error, its pivots or
 * steps; a row of the table, and of the CSV when one is open. */
static void backstop_row(const char *name, int variant, const heft_mlcp *p, double ms, double error,
                         int pivots, const char *status) {
    printf("| %s | %d | %s | %.2f | %.3g | %d | %s |\n", name, p->n, backstop_variants[variant], ms,
           error, pivots, status);
    if (backstop_csv != NULL)
        fprintf(backstop_csv, "\"%s\",%d,\"%s\",%.6f,%.6e,%d,%d\n", name, p->n,
                backstop_variants[variant], ms, error > 1e-300 ? error : 1e-300, pivots, variant);
}

static void backstop_problem(const char *name, const heft_mlcp *p) {
    static const char *status_names[] = {"solved",  "inexact",   "ray",      "budget",
                                         "invalid", "no memory", "too large"};
    const int n = p->n;
    double *lambda = calloc((size_t)n, sizeof(double));
    double *guess = calloc((size_t)n, sizeof(double));
    double *work = malloc(sizeof(double) * (size_t)(n + 6 * (p->rows ? p->nbodies : 0)));
    heft_lemke ws;
    memset(&ws, 0, sizeof ws);
    /* PGS's answer, the guess of the warm variant (1,000 sweeps from zero) */
    heft_solver_options po = heft_solver_default_options();
    po.max_iterations = 1000;
    heft_solver_stats st;
    double t0 = heft_time_ms();
    heft_solve("pgs", &po, p, guess, &st);
    backstop_row(name, 0, p, heft_time_ms() - t0, st.error_max, st.iterations, "-");
    for (int v = 0; v < 4; ++v) {
        heft_lemke_options o = heft_lemke_default_options(n, 1e-12);
        o.dense = v == 3; /* the sparse LU's path against the dense inverse's */
        const double *guesses[1] = {guess};
        if (v == 2)
            o.proximal = 1e-6;
        heft_lemke_result r;
        t0 = heft_time_ms();
        heft_lemke_solve(&ws, p, NULL, guesses, v == 1 ? 1 : 0, &o, lambda, work, &r);
        backstop_row(name, v == 3 ? 9 : 1 + v, p, heft_time_ms() - t0, r.error_max,
                     r.pivots + r.crash_pivots, status_names[r.status]);
    }
    static const char *newton_names[] = {"solved", "stalled", "budget", "failed"};
    heft_newton nw;
    memset(&nw, 0, sizeof nw);
    for (int v = 0; v < 3; ++v) {
        const double *from = v == 0 ? guess : (v == 1 ? p->lambda0 : NULL);
        if (v == 1 && from == NULL)
            continue;
        double *start = calloc((size_t)n, sizeof(double));
        if (from != NULL)
            memcpy(start, from, sizeof(double) * (size_t)n);
        heft_newton_result r;
        t0 = heft_time_ms();
        heft_newton_solve(&nw, p, start, 1e-12, 50, lambda, work, &r);
        backstop_row(name, 4 + v, p, heft_time_ms() - t0, r.error_max, r.steps,
                     newton_names[r.status]);
        free(start);
    }
    heft_newton_release(&nw);
    /* the last stage alone: Baraff's auxiliary problem from PGS's answer
     * (problems without joints' rows skip it) */
    {
        heft_solver_options o = heft_solver_default_options();
        o.bpp_pgs_sweeps = 0;
        heft_bpp_elimination elim = {NULL, NULL};
        heft_solver_stats es;
        memset(&es, 0, sizeof es);
        double *start = calloc((size_t)n, sizeof(double));
        t0 = heft_time_ms();
        const int found = heft_bpp_eliminated(p, &o, &elim, guess, 1e-12, start, lambda, work, &es);
        const double ms = heft_time_ms() - t0;
        if (found >= 0) /* no row for a problem without joints' rows */
            backstop_row(name, 10, p, ms, heft_mlcp_measure(p, lambda, work).max,
                         es.backstop_pivots, found > 0 ? "solved" : "inexact");
        heft_bpp_elimination_release(&elim);
        free(start);
    }
    for (int restart = 0; restart < 2; ++restart) {
        heft_solver_options o = heft_solver_default_options();
        o.bpp_pgs_sweeps = restart ? 1000 : 0;
        t0 = heft_time_ms();
        const int rc = heft_solve("bpp-skyline", &o, p, lambda, &st);
        char status[64];
        snprintf(status, sizeof status, "rc %d, answer %d, %d backstops", rc, st.answer,
                 st.backstops);
        backstop_row(name, 7 + restart, p, heft_time_ms() - t0, st.error_max, st.backstop_pivots,
                     status);
    }
    heft_lemke_release(&ws);
    free(lambda);
    free(guess);
    free(work);
}

/* heft-bench --hard-family [--first K0] [--members K] [--rows N] [--restart 0|1]
 * [--budget F] [--solvers a,b,...] [--export DIR]: the hard family's members
 * K0 .. K0+K-1 of up to N rows solved by each solver from zero, with the PGS
 * restart off (0, the default) or on (1) and Lemke's pivot budget F
 * (backstop_pivot_budget, default the library's): a row per solve (error,
 * time, backstop counts, which answer was kept) and a summary per solver
 * (solved to 1e-10 J, rescued by the backstop, mean and largest time).
 * --export writes each member as DIR/hard-K.mlcp first, for heft-mlcp. */
/* bytes of an exported member's path */
#define HARD_PATH_MAX 4096

static int bench_hard_family(int argc, char **argv) {
    int first = 0, members = 40, rows = 1000, restart = 0;
    char solvers[512] = "bpp,bpp-skyline,bpp-pcg,baraff,pgcg";
    double budget = heft_solver_default_options().backstop_pivot_budget;
    const char *export_dir = NULL;
    for (int i = 2; i < argc; ++i) {
        char err[256];
        int *target = NULL;
        int lo = 0, hi = 100000;
        if (!strcmp(argv[i], "--first"))
            target = &first;
        else if (!strcmp(argv[i], "--members"))
            target = &members, lo = 1;
        else if (!strcmp(argv[i], "--rows"))
            target = &rows, lo = 8;
        else if (!strcmp(argv[i], "--restart"))
            target = &restart, hi = 1;
        if (target != NULL && i + 1 < argc) {
            if (cli_int(argv[i], argv[i + 1], lo, hi, target, err, sizeof err) != 0) {
                fprintf(stderr, "heft-bench: %s\n", err);
                return 2;
            }
            ++i;
        } else if (!strcmp(argv[i], "--solvers") && i + 1 < argc) {
            snprintf(solvers, sizeof solvers, "%s", argv[++i]);
        } else if (!strcmp(argv[i], "--budget") && i + 1 < argc) {
            if (cli_double("--budget", argv[++i], 0.0, HEFT_BACKSTOP_PIVOT_BUDGET_LIMIT,
                           CLI_LO_OPEN, "Lemke's pivots per LCP variable", &budget, err,
                           sizeof err) != 0) {
                fprintf(stderr, "heft-bench: %s\n", err);
                return 2;
            }
        } else if (!strcmp(argv[i], "--export") && i + 1 < argc) {
            export_dir = argv[++i];
            /* DIR/hard-K.mlcp is built in HARD_PATH_MAX bytes */
            if (strlen(export_dir) + sizeof "/hard-100000.mlcp" > HARD_PATH_MAX) {
                fprintf(stderr,
                        "heft-bench: --export wants a directory of at most %zu characters, not "
                        "%zu\n",
                        HARD_PATH_MAX - sizeof "/hard-100000.mlcp", strlen(export_dir));
                return 2;
            }
        } else {
            fprintf(stderr, "heft-bench: --hard-family: unknown argument '%s'\n", argv[i]);
            return 2;
        }
    }
    const char *names[MAX_SOLVERS];
    int count = 0;
    for (char *tok = strtok(solvers, ","); tok != NULL && count < MAX_SOLVERS;
         tok = strtok(NULL, ","))
        names[count++] = tok;
    int solved[MAX_SOLVERS] = {0}, rescued[MAX_SOLVERS] = {0};
    double total_ms[MAX_SOLVERS] = {0}, worst_ms[MAX_SOLVERS] = {0};
    printf("Lemke's pivot budget (backstop_pivot_budget): %g pivots per LCP variable\n\n", budget);
    printf("| member | rows | solver | restart | error (J) | ms | backstops | backstop pivots | "
           "answer |\n|---|---|---|---|---|---|---|---|---|\n");
    for (int k = first; k < first + members; ++k) {
        hard_problem hp = hard_family_member(k, rows);
        const heft_mlcp *p = hp.p;
        if (export_dir != NULL) {
            char path[HARD_PATH_MAX];
            snprintf(path, sizeof path, "%s/hard-%d.mlcp", export_dir, k);
            if (heft_mlcp_write_file(path, p, NULL, NULL) != 0) {
                fprintf(stderr, "heft-bench: cannot write %s: %s\n", path, strerror(errno));
                hard_family_free(&hp);
                return 1;
            }
        }
        double *lambda = malloc(sizeof(double) * (size_t)p->n);
        for (int s = 0; s < count; ++s) {
            memset(lambda, 0, sizeof(double) * (size_t)p->n);
            heft_solver_options o = heft_solver_default_options();
            o.bpp_pgs_sweeps = restart ? 1000 : 0;
            o.backstop_pivot_budget = budget;
            heft_solver_stats st;
            const double t0 = heft_time_ms();
            const int rc = heft_solve(names[s], &o, p, lambda, &st);
            const double ms = heft_time_ms() - t0;
            const double e = heft_mlcp_measure(p, lambda, NULL).max;
            const int ok = rc != HEFT_SOLVE_FAILED && e < 1e-10;
            solved[s] += ok;
            rescued[s] += ok && st.answer == HEFT_ANSWER_BACKSTOP;
            total_ms[s] += ms;
            worst_ms[s] = fmax(worst_ms[s], ms);
            printf("| %d | %d | %s | %d | %.3g | %.0f | %d | %d | %d |\n", k, p->n, names[s],
                   restart, e, ms, st.backstops, st.backstop_pivots, st.answer);
            fflush(stdout);
        }
        free(lambda);
        hard_family_free(&hp);
    }
    printf("\n| solver | restart | solved to 1e-10 J | by the backstop | mean ms | largest ms |\n"
           "|---|---|---|---|---|---|\n");
    for (int s = 0; s < count; ++s)
        printf("| %s | %s | %d / %d | %d | %.0f | %.0f |\n", names[s], restart ? "on" : "off",
               solved[s], members, rescued[s], total_ms[s] / members, worst_ms[s]);
    return 0;
}

/* heft-bench --backstop [--members K] [--rows N] [FILE.mlcp ...]: the files
 * given, else the first K members of the hard family (tests/hard_family.h)
 * of up to N rows. */
static int bench_backstop(int argc, char **argv) {
    int members = 10, rows = 200, files = 0;
    const char *out = NULL;
    for (int i = 2; i + 1 < argc; ++i)
        if (!strcmp(argv[i], "--out"))
            out = argv[i + 1];
    char path[1024];
    if (out != NULL) {
        backstop_csv = open_output(out, "backstop", "variants.csv", path, sizeof path);
        if (backstop_csv == NULL)
            return 1;
        fprintf(backstop_csv, "problem,rows,variant,ms,error_j,pivots,index\n");
    }
    printf("| problem | rows | variant | ms | error (J) | pivots | status |\n"
           "|---|---|---|---|---|---|---|\n");
    for (int i = 2; i < argc; ++i) {
        char err[256];
        if (!strcmp(argv[i], "--members") && i + 1 < argc) {
            if (cli_int("--members", argv[++i], 1, 100000, &members, err, sizeof err) != 0) {
                fprintf(stderr, "heft-bench: %s\n", err);
                return 2;
            }
        } else if (!strcmp(argv[i], "--rows") && i + 1 < argc) {
            if (cli_int("--rows", argv[++i], 8, 100000, &rows, err, sizeof err) != 0) {
                fprintf(stderr, "heft-bench: %s\n", err);
                return 2;
            }
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            ++i; /* read above */
        } else {
            heft_mlcp *p;
            if (heft_mlcp_read_file(argv[i], &p, NULL, err, sizeof err) != 0) {
                fprintf(stderr, "%s\n", err);
                return 1;
            }
            const char *base = strrchr(argv[i], '/');
            backstop_problem(base ? base + 1 : argv[i], p);
            heft_mlcp_destroy(p);
            ++files;
        }
    }
    for (int k = 0; files == 0 && k < members; ++k) {
        hard_problem hp = hard_family_member(k, rows);
        char name[32];
        snprintf(name, sizeof name, "hard family %d", k);
        backstop_problem(name, hp.p);
        hard_family_free(&hp);
    }
    if (backstop_csv != NULL) {
        FILE *csv = backstop_csv;
        backstop_csv = NULL;
        if (close_output(csv, path) != 0)
            return 1;
        /* time against error, one point per problem and variant */
        plot_command cmd = {0};
        plot_command_start(&cmd, out, "900,600");
        plot_command_add(
            &cmd,
            "set output 'backstop-variants.png'; set logscale xy; set format y '%%.0e'; set xlabel "
            "'time per solve (ms)'; set ylabel 'error of the answer (J; 1e-300: exact)'; "
            "set key outside right; plot ");
        /* inside the shell's double quotes: the columns' $ escaped, the titles
         * (some with an apostrophe) in gnuplot's double quotes */
        for (int v = 0; v < BACKSTOP_VARIANTS; ++v) {
            plot_command_add(
                &cmd,
                "%s'backstop-variants.csv' using (\\$7 == %d ? \\$4 : 1/0):5 with points "
                "title \\\"%s\\\"",
                v ? ", " : "", v, backstop_variants[v]);
        }
        const int plotted = plot_command_run(&cmd, "backstop", "variants.png");
        if (plotted < 0)
            return 1;
        if (plotted == 0)
            fprintf(stderr, "heft-bench: no plot (gnuplot missing or failed)\n");
    }
    return 0;
}

static void usage(FILE *f) {
    fprintf(
        f, "usage: heft-bench [--out DIR] [--scenes a,b,...] [--solvers a,b,...]\n"
           "                  [--record-solver NAME] [--reps N] [--steps N] [--from STEP]\n"
           "                  [--every K] [--imaginary 0|1]\n"
           "                  [--preconditioner jacobi|ic0|ic0-shift|ict|ic0-imaginary]\n"
           "       heft-bench --ldl [--reps N]\n"
           "       heft-bench --backstop [--members K] [--rows N] [--out DIR] [FILE.mlcp ...]\n"
           "       heft-bench --hard-family [--first K0] [--members K] [--rows N] [--restart 0|1]\n"
           "                  [--budget F] [--solvers a,b,...] [--export DIR]\n"
           "Writes DIR/results.md (tables), per-step CSV files and PNG plots (gnuplot).\n"
           "A scene is NAME[:VARIANT[:SIZE]] (stacking:pyramid:5).\n"
           "--from, --every: record the whole run, replay only steps STEP, STEP+K, ... (1-based).\n"
           "--imaginary 1: also PCG alone on each replayed step's largest island, per\n"
           "preconditioner, against IC(0)'s imaginary columns ([Ho 2022] Figure 6.4).\n"
           "--ldl: times the block LDL of ldl-pgs on the slides' two mechanisms (default\n"
           "10000 calls) and prints the figures.\n"
           "--backstop: the exact backstop's variants (docs/friction-backstop.md) on the\n"
           "files, else on the first K (10) hard-family problems of up to N (200) rows:\n"
           "time and error per solve, a Markdown table; with --out, DIR/backstop-variants.csv\n"
           "and its plot (time against error, gnuplot).\n"
           "--hard-family: the hard family's members K0.. (0, 40 of them, up to 1000 rows)\n"
           "solved from zero by each solver (bpp, bpp-skyline, bpp-pcg, baraff, pgcg), the\n"
           "PGS restart off or on, Lemke's pivot budget F per LCP variable (the library's\n"
           "default 60): a row per solve and the count solved to 1e-10 J; --export writes\n"
           "each member as DIR/hard-K.mlcp (heft-mlcp reads them).\n");
}

/* A scene to benchmark: NAME[:VARIANT[:SIZE]], checked before anything runs. */
typedef struct scene_spec {
    char name[64], variant[64], label[160];
    scenario_params params;
} scene_spec;

static int parse_scene(const char *text, scene_spec *spec, char *err, size_t err_size) {
    memset(spec, 0, sizeof *spec);
    size_t name_len = strcspn(text, ":");
    const char *rest = text[name_len] == ':' ? text + name_len + 1 : NULL;
    size_t variant_len = rest ? strcspn(rest, ":") : 0;
    const char *size = rest && rest[variant_len] == ':' ? rest + variant_len + 1 : NULL;
    if (name_len == 0 || name_len >= sizeof spec->name || variant_len >= sizeof spec->variant ||
        (rest && variant_len == 0)) {
        snprintf(err, err_size, "--scenes wants NAME[:VARIANT[:SIZE]], not \"%.60s\"", text);
        return -1;
    }
    memcpy(spec->name, text, name_len);
    memcpy(spec->variant, rest ? rest : "", variant_len);
    const scenario_desc *d = scenario_find(spec->name);
    if (!d) {
        snprintf(err, err_size, "--scenes: unknown scenario \"%.63s\" (heft-run --list shows them)",
                 spec->name);
        return -1;
    }
    spec->params.variant = spec->variant[0] ? spec->variant : NULL;
    if (size && cli_int("--scenes SIZE", size, 1, INT_MAX, &spec->params.size, err, err_size)) {
        return -1;
    }
    if (!strcmp(spec->name, "hanging-chain")) {
        /* the solvers are compared here, not the heavy load (heavy-loads.md) */
        spec->params.load_mass = 10.0;
    }
    char why[400];
    if (scenario_check_params(d, &spec->params, why, sizeof why) != 0) {
        snprintf(err, err_size, "--scenes %.60s: %s", text, why);
        return -1;
    }
    snprintf(spec->label, sizeof spec->label, "%.63s%s%.63s", spec->name,
             spec->variant[0] ? "-" : "", spec->variant);
    if (spec->params.size > 0) {
        snprintf(spec->label + strlen(spec->label), sizeof spec->label - strlen(spec->label), "-%d",
                 spec->params.size);
    }
    return 0;
}

/* The solvers of a comma-separated list, each registered; 0 or -1. */
static int parse_solvers(char *list, bench_config *bc, char *err, size_t err_size) {
    const char *names[64];
    int count = heft_solver_count() < 64 ? heft_solver_count() : 64;
    for (int k = 0; k < count; ++k) {
        names[k] = heft_solver_at(k)->name;
    }
    bc->solver_count = 0;
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int k = 0;
        if (cli_choice("--solvers", tok, names, count, &k, err, err_size) != 0) {
            return -1;
        }
        if (bc->solver_count == MAX_SOLVERS) {
            snprintf(err, err_size, "--solvers: at most %d solvers", MAX_SOLVERS);
            return -1;
        }
        bc->solvers[bc->solver_count++] = names[k];
    }
    if (bc->solver_count == 0) {
        snprintf(err, err_size, "--solvers wants at least one solver");
        return -1;
    }
    return 0;
}

enum {
    OPT_OUT = 0x100,
    OPT_SCENES,
    OPT_SOLVERS,
    OPT_RECORD_SOLVER,
    OPT_REPS,
    OPT_STEPS,
    OPT_PRECONDITIONER,
    OPT_IMAGINARY,
    OPT_FROM,
    OPT_EVERY,
    OPT_LDL
};

static const struct option long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"out", required_argument, NULL, OPT_OUT},
    {"scenes", required_argument, NULL, OPT_SCENES},
    {"solvers", required_argument, NULL, OPT_SOLVERS},
    {"record-solver", required_argument, NULL, OPT_RECORD_SOLVER},
    {"reps", required_argument, NULL, OPT_REPS},
    {"steps", required_argument, NULL, OPT_STEPS},
    {"preconditioner", required_argument, NULL, OPT_PRECONDITIONER},
    {"imaginary", required_argument, NULL, OPT_IMAGINARY},
    {"from", required_argument, NULL, OPT_FROM},
    {"every", required_argument, NULL, OPT_EVERY},
    {"ldl", no_argument, NULL, OPT_LDL},
    {NULL, 0, NULL, 0},
};

/* Exit status once stdout holds everything: 1 when part of it was lost. */
static int finish(int status) {
    char err[256];
    if (cli_finish_output(stdout, "the standard output", err, sizeof err) != 0) {
        fprintf(stderr, "heft-bench: %s\n", err);
        return status ? status : 1;
    }
    return status;
}

int main(int argc, char **argv) {
    bench_config bc;
    memset(&bc, 0, sizeof bc);
    bc.out = "bench-results";
    bc.steps = 600;
    bc.preconditioner = -1;
    bc.record_solver = heft_solver_find("bpp") ? "bpp" : "pgs";
    /* NAME[:VARIANT[:SIZE]]; the default is what runs in a few minutes on
     * two cores (the chain round the rod has islands of 1,000 rows, which
     * the dense solvers take seconds a step on: add it with --scenes) */
    static const char *const default_scenes[] = {
        "hanging-chain", "crane", "winch", "forklift", "stacking:boxes", "stacking:pyramid:5"};
    static const char *all_solvers[] = {"bpp",     "bpp-downdate", "bpp-skyline", "ldl-pgs", "pgs",
                                        "bpp-pcg", "pgcg",         "baraff",      "cr"};
    for (int i = 0; i < (int)(sizeof all_solvers / sizeof *all_solvers); ++i) {
        if (heft_solver_find(all_solvers[i])) {
            bc.solvers[bc.solver_count++] = all_solvers[i];
        }
    }
    /* heft-bench --backstop [--members N] [--rows N] [FILE.mlcp ...] */
    if (argc > 1 && !strcmp(argv[1], "--backstop"))
        return finish(bench_backstop(argc, argv));
    if (argc > 1 && !strcmp(argv[1], "--hard-family"))
        return finish(bench_hard_family(argc, argv));
    scene_spec scenes[MAX_SCENES];
    int scene_count = 0, ldl = 0, reps = 0, others = 0;
    const char *scene_list = NULL;
    char err[512];
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1;) {
        int rc = 0;
        others += c != OPT_LDL && c != OPT_REPS;
        switch (c) {
        case 'h':
            usage(stdout);
            return finish(0);
        case '?':
        case ':':
            cli_getopt_error(c, argv, long_options, "heft-bench", err, sizeof err);
            rc = -1;
            break;
        case OPT_OUT:
            bc.out = optarg;
            break;
        case OPT_SCENES:
            scene_list = optarg;
            break;
        case OPT_SOLVERS:
            rc = parse_solvers(optarg, &bc, err, sizeof err);
            break;
        case OPT_RECORD_SOLVER:
            bc.record_solver = optarg;
            if (!heft_solver_find(optarg)) {
                snprintf(err, sizeof err,
                         "--record-solver: unknown solver \"%s\" (heft-run --list shows them)",
                         optarg);
                rc = -1;
            }
            break;
        case OPT_REPS:
            /* --ldl's calls are microseconds each; a scene's replays are not */
            rc = cli_int("--reps", optarg, 1, 10000000, &reps, err, sizeof err);
            break;
        case OPT_STEPS:
            rc = cli_int("--steps", optarg, 1, 1000000, &bc.steps, err, sizeof err);
            break;
        case OPT_PRECONDITIONER:
            rc = cli_choice("--preconditioner", optarg, solver_cli_preconditioners,
                            HEFT_PRECOND_COUNT, &bc.preconditioner, err, sizeof err);
            break;
        case OPT_IMAGINARY:
            rc = cli_int("--imaginary", optarg, 0, 1, &bc.imaginary, err, sizeof err);
            break;
        case OPT_FROM:
            rc = cli_int("--from", optarg, 1, INT_MAX, &bc.from, err, sizeof err);
            break;
        case OPT_EVERY:
            rc = cli_int("--every", optarg, 1, INT_MAX, &bc.every, err, sizeof err);
            break;
        case OPT_LDL:
            ldl = 1;
            break;
        }
        if (rc != 0) {
            fprintf(stderr, "heft-bench: %s\n", err);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "heft-bench: unexpected argument \"%s\" (heft-bench --help)\n",
                argv[optind]);
        return 2;
    }
    if (ldl) {
        if (others) {
            fprintf(stderr, "heft-bench: --ldl takes only --reps\n");
            return 2;
        }
        /* about 1 s a mechanism: the minimum needs a quiet moment */
        return finish(bench_ldl(reps ? reps : 10000));
    }
    bc.reps = reps ? reps : 5;
    if (bc.reps > 1000) {
        fprintf(stderr, "heft-bench: --reps %d: at most 1000 for the scenes (--ldl takes more)\n",
                bc.reps);
        return 2;
    }
    char list[1024];
    const char *const *names = default_scenes;
    int name_count = (int)(sizeof default_scenes / sizeof *default_scenes);
    const char *split[MAX_SCENES + 1];
    if (scene_list) {
        snprintf(list, sizeof list, "%s", scene_list);
        name_count = 0;
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
            if (name_count == MAX_SCENES) {
                fprintf(stderr, "heft-bench: --scenes: at most %d scenes\n", MAX_SCENES);
                return 2;
            }
            split[name_count++] = tok;
        }
        names = split;
    }
    for (int i = 0; i < name_count; ++i) {
        if (parse_scene(names[i], &scenes[scene_count++], err, sizeof err) != 0) {
            fprintf(stderr, "heft-bench: %s\n", err);
            return 2;
        }
    }
    /* before the directory is made: a run that cannot write its results
     * leaves nothing behind */
    char path[1024];
    if (output_path(bc.out, NULL, "results.md", path, sizeof path) != 0) {
        return 1;
    }
    if (mkdir(bc.out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "heft-bench: cannot create %s: %s\n", bc.out, strerror(errno));
        return 2;
    }
    FILE *md = fopen(path, "w");
    if (!md) {
        fprintf(stderr, "heft-bench: cannot write %s: %s\n", path, strerror(errno));
        return 2;
    }
    fprintf(md, "# Heft solver benchmarks\n\n");
    machine_line(md);
    for (int i = 0; i < scene_count; ++i) {
        /* a results file that cannot be written stops the run before the
         * next scene's minutes of measurement */
        errno = 0;
        if (fflush(md) != 0 || ferror(md)) {
            fprintf(stderr, "heft-bench: cannot write %s: %s\n", path,
                    errno ? strerror(errno) : "a write failed");
            fclose(md);
            return 1;
        }
        if (bench_scene(&bc, scenes[i].name, scenes[i].label, &scenes[i].params, md) != 0) {
            close_output(md, path);
            return 1;
        }
    }
    bench_motion(&bc, md);
    bench_break_even(&bc, md);
    close_output(md, path);
    if (output_failed) {
        return 1;
    }
    fprintf(stderr, "heft-bench: wrote %s\n", path);
    return 0;
}
