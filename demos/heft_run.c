/* heft-run: runs a scenario headless and prints what happened (design
 * "Programs"; the JSON is documented in docs/heft-run.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ldl_cli.h"
#include "runner.h"

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: heft-run [--scenario NAME] [--solver NAME] [--steps N] [--h SECONDS]\n"
        "                [--scene FILE]\n"
        "                [--links N] [--link-mass KG] [--load-mass KG] [--angle DEG] [--length M]\n"
        "                [--variant NAME] [--size N]\n"
        "                [--iterations N] [--tolerance J] [--relaxation W]\n"
        "                [--max-pivots N] [--pgs-restart SWEEPS]\n"
        "                [--ldl-ordering min-edge|min-degree|natural] [--ldl-shatter N]\n"
        "                [--ldl-shard N] [--ldl-regularization EPS]\n"
        "                [--geometric-stiffness] [--post-stabilization N] [--substeps N]\n"
        "                [--contact-compliance M_PER_N]\n"
        "                [--json] [--csv FILE] [--ascii] [--strict] [--list]\n"
        "                [--export-mlcp DIR [--at STEP[,STEP...]] [--every K]]\n"
        "Runs a scenario headless. --json prints one JSON object at the end (docs/heft-run.md);\n"
        "--csv writes per-step statistics; --ascii draws the scene in the terminal;\n"
        "--strict exits with 3 when a check fails; --export-mlcp writes the islands of the\n"
        "steps chosen by --at and --every (0-based, as in the CSV) as "
        "DIR/SCENE-sSTEP-iISLAND.mlcp.\n");
}

static int parse_int(const char *s, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 0 || v > 100000000) {
        return 0;
    }
    *out = (int)v;
    return 1;
}

static int parse_double(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) {
        return 0;
    }
    *out = v;
    return 1;
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

static int export_add_steps(export_state *e, const char *list) {
    const char *c = list;
    for (;;) {
        char *end;
        errno = 0;
        long v = strtol(c, &end, 10);
        if (errno || end == c || v < 0 || v > 100000000 || (*end && *end != ',')) {
            return 0;
        }
        if (e->at_count == EXPORT_MAX_AT) {
            return 0;
        }
        e->at[e->at_count++] = (int)v;
        if (!*end) {
            return 1;
        }
        c = end + 1;
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

int main(int argc, char **argv) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = "hanging-chain";
    cfg.solver = "pgs";
    cfg.options = heft_solver_default_options();
    int json = 0, ascii = 0, strict = 0;
    const char *csv_path = NULL;
    export_state exporter;
    memset(&exporter, 0, sizeof exporter);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        int ok = 1, takes_value = 1;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--list")) {
            printf("scenarios:\n");
            for (int k = 0; k < scenario_count(); ++k) {
                printf("  %-16s %s\n", scenario_at(k)->name, scenario_at(k)->description);
            }
            printf("solvers:\n");
            for (int k = 0; k < heft_solver_count(); ++k) {
                printf("  %-16s %s\n", heft_solver_at(k)->name, heft_solver_at(k)->description);
            }
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = 1;
            takes_value = 0;
        } else if (!strcmp(a, "--ascii")) {
            ascii = 1;
            takes_value = 0;
        } else if (!strcmp(a, "--strict")) {
            strict = 1;
            takes_value = 0;
        } else if (!strcmp(a, "--geometric-stiffness")) {
            cfg.geometric_stiffness = 1;
            takes_value = 0;
        } else if (!v) {
            fprintf(stderr, "heft-run: %s needs a value (or is unknown)\n", a);
            usage(stderr);
            return 2;
        } else if (!strcmp(a, "--scenario")) {
            cfg.scenario = v;
        } else if (!strcmp(a, "--scene")) {
            cfg.scene_file = v; /* a scene file (docs/scene-format.md) */
        } else if (!strcmp(a, "--solver")) {
            cfg.solver = v;
        } else if (!strcmp(a, "--csv")) {
            csv_path = v;
        } else if (!strcmp(a, "--steps")) {
            ok = parse_int(v, &cfg.steps) && cfg.steps > 0;
        } else if (!strcmp(a, "--h")) {
            ok = parse_double(v, &cfg.h) && cfg.h > 0.0;
        } else if (!strcmp(a, "--links")) {
            ok = parse_int(v, &cfg.params.links) && cfg.params.links > 0;
        } else if (!strcmp(a, "--variant")) {
            cfg.params.variant = v;
            ok = v != NULL;
        } else if (!strcmp(a, "--size")) {
            ok = parse_int(v, &cfg.params.size) && cfg.params.size > 0;
        } else if (!strcmp(a, "--link-mass")) {
            ok = parse_double(v, &cfg.params.link_mass) && cfg.params.link_mass > 0.0;
        } else if (!strcmp(a, "--load-mass")) {
            ok = parse_double(v, &cfg.params.load_mass) && cfg.params.load_mass > 0.0;
        } else if (!strcmp(a, "--angle")) {
            ok = parse_double(v, &cfg.params.angle_deg);
        } else if (!strcmp(a, "--length")) {
            ok = parse_double(v, &cfg.params.length) && cfg.params.length > 0.0;
        } else if (!strcmp(a, "--iterations")) {
            ok = parse_int(v, &cfg.options.max_iterations);
            cfg.has_options = 1;
        } else if (!strcmp(a, "--tolerance")) {
            ok = parse_double(v, &cfg.options.tolerance) && cfg.options.tolerance >= 0.0;
            cfg.has_options = 1;
        } else if (!strcmp(a, "--relaxation")) {
            ok = parse_double(v, &cfg.options.relaxation);
            cfg.has_options = 1;
        } else if (!strcmp(a, "--max-pivots")) {
            ok = parse_int(v, &cfg.options.max_pivots) && cfg.options.max_pivots > 0;
            cfg.has_options = 1;
        } else if (!strcmp(a, "--pgs-restart")) {
            ok = parse_int(v, &cfg.options.bpp_pgs_sweeps) && cfg.options.bpp_pgs_sweeps >= 0;
            cfg.has_options = 1;
        } else if (ldl_cli_option(a, v, &cfg.options, &ok)) {
            cfg.has_options = 1;
        } else if (!strcmp(a, "--post-stabilization")) {
            ok = parse_int(v, &cfg.post_stabilization) && cfg.post_stabilization <= 100;
        } else if (!strcmp(a, "--contact-compliance")) {
            ok = parse_double(v, &cfg.contact_compliance) && cfg.contact_compliance >= 0.0 &&
                 cfg.contact_compliance <= 1.0;
            cfg.has_contact_compliance = 1;
        } else if (!strcmp(a, "--substeps")) {
            ok = parse_int(v, &cfg.substeps) && cfg.substeps >= 1 && cfg.substeps <= 1000;
        } else if (!strcmp(a, "--export-mlcp")) {
            exporter.dir = v;
            ok = *v != '\0';
        } else if (!strcmp(a, "--at")) {
            ok = export_add_steps(&exporter, v);
        } else if (!strcmp(a, "--every")) {
            ok = parse_int(v, &exporter.every) && exporter.every > 0;
        } else {
            fprintf(stderr, "heft-run: unknown option %s\n", a);
            usage(stderr);
            return 2;
        }
        if (!ok) {
            fprintf(stderr, "heft-run: bad value for %s: %s\n", a, v);
            return 2;
        }
        i += takes_value;
    }
    char bad[160];
    if (cfg.has_options && heft_solver_options_check(&cfg.options, bad, sizeof bad) != 0) {
        fprintf(stderr, "heft-run: %s\n", bad);
        return 2;
    }
    if (!scenario_find(cfg.scenario)) {
        fprintf(stderr, "heft-run: unknown scenario \"%s\" (--list shows them)\n", cfg.scenario);
        return 2;
    }
    if (!heft_solver_find(cfg.solver)) {
        fprintf(stderr, "heft-run: unknown solver \"%s\" (--list shows them)\n", cfg.solver);
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
    if (ascii) {
        int steps = cfg.steps > 0 ? cfg.steps : scenario_find(cfg.scenario)->steps;
        art.every = steps / 6 > 0 ? steps / 6 : 1;
        cfg.frame = ascii_draw;
        cfg.frame_user = &art;
    }
    /* ---- scene files (docs/scene-format.md): --scene FILE runs the file with
     * its own solver unless --solver names one ---- */
    if (cfg.scene_file) {
        int solver_given = 0;
        for (int k = 1; k < argc; ++k) {
            solver_given |= !strcmp(argv[k], "--solver");
        }
        cfg.solver = solver_given ? cfg.solver : NULL;
    }
    /* ---- end of scene files ---- */
    run_result r;
    int rc = run_scenario(&cfg, &r);
    if (csv) {
        fclose(csv);
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
    if (json) {
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
    return (strict && !pass) ? 3 : 0;
}
