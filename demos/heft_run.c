/* heft-run: runs a scenario headless and prints what happened (design
 * "Programs"; the JSON is documented in docs/heft-run.md). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "runner.h"
#include "solver_cli.h"

static void usage(FILE *f) {
    fprintf(f, "usage: heft-run [--scenario NAME | --scene FILE] [--solver NAME] [--steps N]\n"
               "                [--h SECONDS]\n"
               "                [--links N] [--link-mass KG] [--load-mass KG] [--angle DEG]\n"
               "                [--length M] [--variant NAME] [--size N]\n"
               "                [--geometric-stiffness] [--post-stabilization N] [--substeps N]\n"
               "                [--contact-compliance M_PER_N] [--sleep]\n"
               "                [--json] [--csv FILE] [--ascii] [--strict] [--list]\n"
               "                [--export-mlcp DIR [--at STEP[,STEP...]] [--every K]]\n");
    solver_cli_usage(f, "                ");
    fprintf(
        f,
        "Runs a scenario headless. --json prints one JSON object at the end (docs/heft-run.md);\n"
        "--csv writes per-step statistics; --ascii draws the scene in the terminal;\n"
        "--strict exits with 3 when a check fails; --export-mlcp writes the islands of the\n"
        "steps chosen by --at and --every (0-based, as in the CSV) as "
        "DIR/SCENE-sSTEP-iISLAND.mlcp.\n"
        "The solver options are heft-mlcp solve's (docs/heft-mlcp.md).\n");
}

/* ---- the terminal picture: a side view (x right, z up) ------------------- */

#define ASCII_W 72
#define ASCII_H 22

typedef struct ascii_state {
    int every;
    double xmin, xmax, zmin, zmax;
    int framed;
} ascii_state;

static void ascii_draw(void *user, heft_world *w, int step) {
    ascii_state *a = user;
    if (step % a->every != 0) {
        return;
    }
    int n = heft_world_bodies(w, NULL, 0);
    heft_body_id *ids = calloc((size_t)n + 1, sizeof *ids);
    if (!ids) {
        return;
    }
    heft_world_bodies(w, ids, n);
    if (!a->framed) {
        /* fix the frame on the first picture, with room to swing */
        a->xmin = a->zmin = 1e300;
        a->xmax = a->zmax = -1e300;
        for (int i = 0; i < n; ++i) {
            heft_vec3 p = heft_body_position(w, ids[i]);
            a->xmin = fmin(a->xmin, p.x);
            a->xmax = fmax(a->xmax, p.x);
            a->zmin = fmin(a->zmin, p.z);
            a->zmax = fmax(a->zmax, p.z);
        }
        double span = fmax(a->xmax - a->xmin, a->zmax - a->zmin) + 1.0;
        double cx = 0.5 * (a->xmin + a->xmax);
        a->xmin = cx - span;
        a->xmax = cx + span;
        a->zmin -= 0.5;
        a->zmax += 0.5;
        a->framed = 1;
    }
    char grid[ASCII_H][ASCII_W + 1];
    for (int r = 0; r < ASCII_H; ++r) {
        memset(grid[r], ' ', ASCII_W);
        grid[r][ASCII_W] = '\0';
    }
    if (a->zmin <= 0.0 && a->zmax >= 0.0) {
        int r = (int)((a->zmax - 0.0) / (a->zmax - a->zmin) * (ASCII_H - 1) + 0.5);
        memset(grid[r], '=', ASCII_W);
    }
    for (int i = 0; i < n; ++i) {
        heft_body_state s;
        heft_body_get_state(w, ids[i], &s);
        if (s.type == HEFT_BODY_STATIC) {
            continue;
        }
        int c = (int)((s.position.x - a->xmin) / (a->xmax - a->xmin) * (ASCII_W - 1) + 0.5);
        int r = (int)((a->zmax - s.position.z) / (a->zmax - a->zmin) * (ASCII_H - 1) + 0.5);
        if (c >= 0 && c < ASCII_W && r >= 0 && r < ASCII_H) {
            grid[r][c] = s.mass >= 50.0 ? '@' : 'o';
        }
    }
    free(ids);
    const heft_step_stats *st = heft_world_stats(w);
    printf("t = %6.2f s   islands %d   rows %d   solver %s   iterations %d   MLCP error %.2e J\n",
           heft_world_time(w), st->islands, st->rows, heft_world_solver(w), st->iterations_max,
           st->error_max);
    for (int r = 0; r < ASCII_H; ++r) {
        printf("|%s|\n", grid[r]);
    }
}

/* ---- MLCP export: every island of the chosen steps as an .mlcp file -------- */

#define EXPORT_MAX_AT 1024

typedef struct export_state {
    const char *dir;
    const char *scenario;
    const char *solver;
    int at[EXPORT_MAX_AT]; /* steps given by --at */
    int at_count;
    int every; /* also every step that is a multiple of this (0: none) */
    int written;
    int failed;
    char error[4400];
} export_state;

/* Adds the steps of a comma-separated list; 0, or -1 with a message. */
static int export_add_steps(export_state *e, const char *list, char *err, size_t err_size) {
    for (const char *c = list;;) {
        char token[32];
        size_t len = strcspn(c, ",");
        if (len >= sizeof token) {
            snprintf(err, err_size, "--at wants steps separated by commas, not \"%.40s\"", c);
            return -1;
        }
        memcpy(token, c, len);
        token[len] = '\0';
        int step = 0;
        if (cli_int("--at", token, 0, INT_MAX, &step, err, err_size) != 0) {
            return -1;
        }
        if (e->at_count == EXPORT_MAX_AT) {
            snprintf(err, err_size, "--at: at most %d steps", EXPORT_MAX_AT);
            return -1;
        }
        e->at[e->at_count++] = step;
        if (c[len] == '\0') {
            return 0;
        }
        c += len + 1;
    }
}

static int export_wanted(const export_state *e, int step) {
    if (e->every > 0 && step % e->every == 0) {
        return 1;
    }
    for (int i = 0; i < e->at_count; ++i) {
        if (e->at[i] == step) {
            return 1;
        }
    }
    return 0;
}

/* mkdir -p: every missing directory of path; 0 or -1 with errno. */
static int make_directories(const char *path) {
    char buf[4096];
    size_t len = strlen(path);
    if (len == 0 || len >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, len + 1);
    for (size_t i = 1; i <= len; ++i) {
        if (buf[i] == '/' || buf[i] == '\0') {
            char saved = buf[i];
            buf[i] = '\0';
            if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
                return -1;
            }
            buf[i] = saved;
        }
    }
    struct stat st;
    if (stat(path, &st) != 0) {
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* The island callback: the island's MLCP as the engine gave it to the
 * solver (structured form, A assembled by the writer, warm start as
 * lambda0). The solver's answer is described in a comment, not written as
 * a solution: it need not be exact. */
static void export_island(void *user, int step, int island, const heft_mlcp *problem,
                          const double *lambda, const heft_solver_stats *stats) {
    export_state *e = user;
    (void)lambda;
    if (e->failed || !export_wanted(e, step)) {
        return;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/%s-s%d-i%d.mlcp", e->dir, e->scenario, step, island);
    FILE *f = fopen(path, "w");
    if (!f) {
        snprintf(e->error, sizeof e->error, "cannot write %s: %s", path, strerror(errno));
        e->failed = 1;
        return;
    }
    fprintf(f, "# exported by heft-run: scenario %s, step %d, island %d, %d rows, %d bodies\n",
            e->scenario, step, island, problem->n, problem->nbodies);
    fprintf(f,
            "# solver %s answered with MLCP error max %.6e J after %d iterations (%s);\n"
            "# lambda0 is the warm start it was given. Its answer is not written: it need not be "
            "exact.\n",
            e->solver, stats->error_max, stats->iterations,
            stats->converged ? "converged" : "not converged");
    int rc = heft_mlcp_write(f, problem, NULL, NULL);
    int why = errno;
    if (fclose(f) != 0 && rc == 0) {
        rc = -1;
        why = errno;
    }
    if (rc != 0) {
        snprintf(e->error, sizeof e->error, "cannot write %s: %s", path,
                 why == EINVAL ? "the island's problem is not representable (NaN or bad bounds)"
                               : strerror(why));
        remove(path);
        e->failed = 1;
        return;
    }
    e->written++;
}

/* Options without a short form: ids above every character. */
enum {
    OPT_SCENARIO = 0x100,
    OPT_SCENE,
    OPT_SOLVER,
    OPT_STEPS,
    OPT_H,
    OPT_LINKS,
    OPT_LINK_MASS,
    OPT_LOAD_MASS,
    OPT_ANGLE,
    OPT_LENGTH,
    OPT_VARIANT,
    OPT_SIZE,
    OPT_GEOMETRIC_STIFFNESS,
    OPT_POST_STABILIZATION,
    OPT_SUBSTEPS,
    OPT_CONTACT_COMPLIANCE,
    OPT_SLEEP,
    OPT_JSON,
    OPT_CSV,
    OPT_ASCII,
    OPT_STRICT,
    OPT_LIST,
    OPT_EXPORT_MLCP,
    OPT_AT,
    OPT_EVERY
};

static const struct option long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"scenario", required_argument, NULL, OPT_SCENARIO},
    {"scene", required_argument, NULL, OPT_SCENE},
    {"solver", required_argument, NULL, OPT_SOLVER},
    {"steps", required_argument, NULL, OPT_STEPS},
    {"h", required_argument, NULL, OPT_H},
    {"links", required_argument, NULL, OPT_LINKS},
    {"link-mass", required_argument, NULL, OPT_LINK_MASS},
    {"load-mass", required_argument, NULL, OPT_LOAD_MASS},
    {"angle", required_argument, NULL, OPT_ANGLE},
    {"length", required_argument, NULL, OPT_LENGTH},
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"size", required_argument, NULL, OPT_SIZE},
    {"geometric-stiffness", no_argument, NULL, OPT_GEOMETRIC_STIFFNESS},
    {"post-stabilization", required_argument, NULL, OPT_POST_STABILIZATION},
    {"substeps", required_argument, NULL, OPT_SUBSTEPS},
    {"contact-compliance", required_argument, NULL, OPT_CONTACT_COMPLIANCE},
    {"sleep", no_argument, NULL, OPT_SLEEP},
    {"json", no_argument, NULL, OPT_JSON},
    {"csv", required_argument, NULL, OPT_CSV},
    {"ascii", no_argument, NULL, OPT_ASCII},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"list", no_argument, NULL, OPT_LIST},
    {"export-mlcp", required_argument, NULL, OPT_EXPORT_MLCP},
    {"at", required_argument, NULL, OPT_AT},
    {"every", required_argument, NULL, OPT_EVERY},
    SOLVER_CLI_OPTIONS,
    {NULL, 0, NULL, 0},
};

static void list_registry(FILE *f) {
    fprintf(f, "scenarios:\n");
    for (int k = 0; k < scenario_count(); ++k) {
        const scenario_desc *d = scenario_at(k);
        fprintf(f, "  %-16s %s\n", d->name, d->description);
    }
    fprintf(f, "solvers:\n");
    for (int k = 0; k < heft_solver_count(); ++k) {
        fprintf(f, "  %-16s %s\n", heft_solver_at(k)->name, heft_solver_at(k)->description);
    }
}

/* Exit status once everything is printed: a lost standard output (a full
 * disk, a closed pipe) is a failed run, not a silent success. */
static int finish(int status) {
    char err[256];
    if (cli_finish_output(stdout, "the standard output", err, sizeof err) != 0) {
        fprintf(stderr, "heft-run: %s\n", err);
        return status == 0 || status == 3 ? 1 : status;
    }
    return status;
}

/* What the run prints, and where. */
typedef struct run_output {
    int json, ascii, strict;
    const char *csv_path;
} run_output;

/* Reads one option into the run's settings; 0, or -1 with a message. */
static int take_option(int id, const char *v, run_config *cfg, run_output *out,
                       export_state *exporter, char *err, size_t err_size) {
    scenario_params *p = &cfg->params;
    switch (id) {
    case OPT_SCENARIO:
        cfg->scenario = v;
        return 0;
    case OPT_SCENE: /* a scene file (docs/scene-format.md) */
        cfg->scene_file = v;
        return 0;
    case OPT_SOLVER:
        cfg->solver = v;
        return 0;
    case OPT_STEPS:
        return cli_int("--steps", v, 1, 100000000, &cfg->steps, err, err_size);
    case OPT_H:
        return cli_double("--h", v, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL, &cfg->h, err, err_size);
    case OPT_LINKS:
        return cli_int("--links", v, 1, SCENARIO_MAX_BODIES - 1, &p->links, err, err_size);
    case OPT_LINK_MASS:
        return cli_double("--link-mass", v, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL, &p->link_mass, err,
                          err_size);
    case OPT_LOAD_MASS:
        return cli_double("--load-mass", v, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL, &p->load_mass, err,
                          err_size);
    case OPT_ANGLE:
        p->angle_set = 1;
        return cli_double("--angle", v, -180.0, 180.0, 0, "degrees in [-180, 180]", &p->angle_deg,
                          err, err_size);
    case OPT_LENGTH:
        return cli_double("--length", v, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL, &p->length, err,
                          err_size);
    case OPT_VARIANT:
        p->variant = v; /* checked against the scene once all options are read */
        return 0;
    case OPT_SIZE:
        return cli_int("--size", v, 1, INT_MAX, &p->size, err, err_size);
    case OPT_GEOMETRIC_STIFFNESS:
        cfg->geometric_stiffness = 1;
        return 0;
    case OPT_POST_STABILIZATION:
        return cli_int("--post-stabilization", v, 0, 100, &cfg->post_stabilization, err, err_size);
    case OPT_SUBSTEPS:
        return cli_int("--substeps", v, 1, 1000, &cfg->substeps, err, err_size);
    case OPT_CONTACT_COMPLIANCE:
        cfg->has_contact_compliance = 1;
        return cli_double("--contact-compliance", v, 0.0, 1.0, 0, NULL, &cfg->contact_compliance,
                          err, err_size);
    case OPT_SLEEP:
        cfg->sleeping = 1;
        return 0;
    case OPT_JSON:
        out->json = 1;
        return 0;
    case OPT_ASCII:
        out->ascii = 1;
        return 0;
    case OPT_STRICT:
        out->strict = 1;
        return 0;
    case OPT_CSV:
        out->csv_path = v;
        return 0;
    case OPT_EXPORT_MLCP:
        if (*v == '\0') {
            snprintf(err, err_size, "--export-mlcp wants a directory, not \"\"");
            return -1;
        }
        exporter->dir = v;
        return 0;
    case OPT_AT:
        return export_add_steps(exporter, v, err, err_size);
    case OPT_EVERY:
        return cli_int("--every", v, 1, INT_MAX, &exporter->every, err, err_size);
    }
    int taken = solver_cli_option(id, v, &cfg->options, err, err_size);
    if (taken == 0) {
        snprintf(err, err_size, "option %d is not handled", id);
        return -1;
    }
    cfg->has_options = 1;
    return taken > 0 ? 0 : -1;
}

int main(int argc, char **argv) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = "hanging-chain";
    cfg.solver = "pgs";
    cfg.options = heft_solver_default_options();
    run_output out = {0};
    export_state exporter;
    memset(&exporter, 0, sizeof exporter);
    char err[512];
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1;) {
        if (c == 'h') {
            usage(stdout);
            return finish(0);
        }
        if (c == OPT_LIST) {
            list_registry(stdout);
            return finish(0);
        }
        if (c == '?' || c == ':') {
            cli_getopt_error(c, argv, long_options, "heft-run", err, sizeof err);
            fprintf(stderr, "heft-run: %s\n", err);
            return 2;
        }
        if (take_option(c, optarg, &cfg, &out, &exporter, err, sizeof err) != 0) {
            fprintf(stderr, "heft-run: %s\n", err);
            return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "heft-run: unexpected argument \"%s\" (heft-run --help)\n", argv[optind]);
        return 2;
    }
    const char *csv_path = out.csv_path;
    char bad[160];
    if (cfg.has_options && heft_solver_options_check(&cfg.options, bad, sizeof bad) != 0) {
        fprintf(stderr, "heft-run: %s\n", bad);
        return 2;
    }
    if (!scenario_find(cfg.scenario)) {
        fprintf(stderr, "heft-run: unknown scenario \"%.64s\" (--list shows them)\n", cfg.scenario);
        return 2;
    }
    if (!heft_solver_find(cfg.solver)) {
        fprintf(stderr, "heft-run: unknown solver \"%.64s\" (--list shows them)\n", cfg.solver);
        return 2;
    }
    if (scenario_check_params(scenario_find(cfg.scenario), &cfg.params, err, sizeof err) != 0) {
        fprintf(stderr, "heft-run: %s\n", err);
        return 2;
    }
    if (exporter.dir || exporter.at_count || exporter.every) {
        int steps = cfg.steps > 0 ? cfg.steps : scenario_find(cfg.scenario)->steps;
        if (!exporter.dir) {
            fprintf(stderr, "heft-run: --at and --every choose steps for --export-mlcp DIR\n");
            return 2;
        }
        if (!exporter.at_count && !exporter.every) {
            fprintf(stderr, "heft-run: --export-mlcp needs --at STEP or --every K\n");
            return 2;
        }
        for (int i = 0; i < exporter.at_count; ++i) {
            if (exporter.at[i] >= steps) {
                fprintf(stderr, "heft-run: --at %d: the run has steps 0 to %d\n", exporter.at[i],
                        steps - 1);
                return 2;
            }
        }
        if (make_directories(exporter.dir) != 0) {
            fprintf(stderr, "heft-run: cannot create %s: %s\n", exporter.dir, strerror(errno));
            return 2;
        }
        exporter.scenario = cfg.scenario;
        exporter.solver = cfg.solver;
        cfg.island = export_island;
        cfg.island_user = &exporter;
    }
    FILE *csv = NULL;
    if (csv_path) {
        csv = fopen(csv_path, "w");
        if (!csv) {
            fprintf(stderr, "heft-run: cannot write %s: %s\n", csv_path, strerror(errno));
            return 2;
        }
        cfg.csv = csv;
    }
    ascii_state art = {0};
    if (out.ascii) {
        int steps = cfg.steps > 0 ? cfg.steps : scenario_find(cfg.scenario)->steps;
        art.every = steps / 6 > 0 ? steps / 6 : 1;
        cfg.frame = ascii_draw;
        cfg.frame_user = &art;
    }
    /* --scene FILE runs the file with its own solver unless --solver names
     * one (an unambiguous prefix of --solver counts too) */
    if (cfg.scene_file) {
        int solver_given = 0;
        for (int k = 1; k < argc; ++k) {
            solver_given |= !strncmp(argv[k], "--so", 4);
        }
        cfg.solver = solver_given ? cfg.solver : NULL;
    }
    run_result r;
    int rc = run_scenario(&cfg, &r);
    if (csv && cli_finish_output(csv, csv_path, err, sizeof err) != 0) {
        if (rc == 0) {
            fprintf(stderr, "heft-run: %s\n", err);
            run_result_free(&r);
        } else { /* the run stopped on it and says at which step, and why */
            fprintf(stderr, "heft-run: %s: %s\n", csv_path, r.error);
        }
        return 1;
    }
    if (rc != 0) {
        fprintf(stderr, "heft-run: %s\n", r.error);
        return 1;
    }
    if (exporter.failed) {
        fprintf(stderr, "heft-run: export stopped after %d files: %s\n", exporter.written,
                exporter.error);
        run_result_free(&r);
        return 1;
    }
    if (exporter.dir) {
        fprintf(stderr, "heft-run: exported %d island MLCP%s to %s%s\n", exporter.written,
                exporter.written == 1 ? "" : "s", exporter.dir,
                exporter.written ? "" : " (no island had rows at the chosen steps)");
    }
    if (out.json) {
        run_write_json(stdout, &r);
    } else {
        printf("%s with %s: %d steps of %.6g s\n", r.desc->name, r.solver, r.steps, r.h);
        printf("  solve %.4f ms mean, %.4f ms max; %.1f iterations mean; MLCP error max %.3e J\n",
               r.solve_ms_mean, r.solve_ms_max, r.iterations_mean, r.mlcp_error_max);
        for (int i = 0; i < r.check_count; ++i) {
            printf("  %-24s %s  value %.6g  limit %.6g\n", r.checks[i].name,
                   r.checks[i].pass ? "pass" : "FAIL", r.checks[i].value, r.checks[i].limit);
        }
    }
    int pass = run_all_checks_pass(&r);
    run_result_free(&r);
    return finish((out.strict && !pass) ? 3 : 0);
}
