/* The headless runner behind heft-run, the scenario tests and the benchmarks:
 * builds a scene, steps it, aggregates the statistics and joint gaps, and
 * writes the documented JSON (docs/heft-run.md). */
#ifndef HEFT_RUNNER_H
#define HEFT_RUNNER_H

#include <stdio.h>

#include "scenario.h"

/* solvers "auto" may hand islands to, counted by name in run_result */
#define RUN_DELEGATES 8

typedef struct run_config {
    const char *scenario;
    const char *scene_file; /* a scene file to run instead (docs/scene-format.md) */
    const char *solver;     /* NULL: "pgs" */
    int steps;              /* 0: the scene's default */
    double h;               /* 0: the scene's default */
    scenario_params params;
    heft_solver_options options;
    int has_options;         /* options above are set; else solver defaults */
    int geometric_stiffness; /* the heavy-load remedies (heft_world_def) */
    int post_stabilization;
    int substeps;              /* 0: 1 */
    double contact_compliance; /* m/N (heft_world_def), when has_contact_compliance */
    int has_contact_compliance;
    int sleeping; /* 1: the world's sleeping on (docs/sleeping.md) */
    FILE *csv;    /* per-step statistics, may be NULL */
    /* called after every step, e.g. to draw; may be NULL */
    void (*frame)(void *user, heft_world *world, int step);
    void *frame_user;
    /* called for every island solved, after its solver answered, with the
     * step number (0-based, as in the CSV): the island's MLCP (structured
     * form, warm start in lambda0) and the answer taken; the data lives until
     * the call returns (heft_world_set_island_callback). May be NULL. */
    void (*island)(void *user, int step, int island, const heft_mlcp *problem, const double *lambda,
                   const heft_solver_stats *stats);
    void *island_user;
} run_config;

typedef struct run_joint {
    char name[48];
    double max_gap;
} run_joint;

typedef struct run_result {
    const scenario_desc *desc;
    heft_world *world; /* the world after the run, freed by run_result_free */
    scenario *scene;
    char solver[32];
    int steps;
    double h;
    double solve_ms_mean, solve_ms_max;
    double step_ms_mean;
    double geometric_stiffness_ms_mean, post_stabilization_ms_mean;
    int geometric_stiffness, post_stabilization, substeps; /* as run */
    double iterations_mean;
    double mlcp_error_max;
    int islands_max, rows_max;
    int envelope_max;   /* heft_step_stats.envelope_max, largest over the steps */
    int rows_total_max; /* rows over all islands, largest over the steps */
    int bodies;         /* dynamic bodies */
    double mass_ratio;  /* heaviest over lightest dynamic body */
    /* bounds and finiteness of every dynamic body after every step */
    int out_of_bounds_steps;  /* steps with a body outside the scene's bounds */
    int nonfinite_steps;      /* steps with a body whose pose is not finite */
    char first_violation[96]; /* the first body out of bounds or not finite, and when */
    int fallbacks, not_converged, nonfinite_rejected;
    int sleeping;            /* the world's sleeping switch as run */
    int sleeping_bodies_max; /* most bodies asleep after any step */
    int sleeping_steps;      /* steps after which some body slept */
    /* the solvers' counts of heft_step_stats, summed over the steps */
    long solves; /* island solves, substeps included */
    long pivot_steps, restarts, pgs_sweeps, rescue_sweeps, frozen_rounds, backstops,
        backstop_pivots, newton_steps, factorizations, downdates, updates, body_factorizations,
        inner_iterations;
    long answers_solver, answers_backstop, answers_pgs, answers_warm_start, answers_zero;
    /* the solver "auto" handed each island solve to (heft_solver_stats.delegate),
     * counted over the last substep of every step; none under another solver */
    const char *delegate_names[RUN_DELEGATES];
    long delegate_solves[RUN_DELEGATES];
    int delegate_count;
    run_joint *joints;
    int joint_count;
    scenario_check checks[SCENARIO_MAX_CHECKS];
    int check_count;
    char error[256]; /* set when run_scenario fails */
} run_result;

/* Builds the scene (or loads the scene file) of config into result->world
 * and result->scene without stepping it; steps and h receive the scene's
 * defaults. Returns 0, or -1 with result->error set. */
int run_open(const run_config *config, run_result *result, int *steps, double *h);
/* Returns 0 on success, -1 with result->error set. */
int run_scenario(const run_config *config, run_result *result);
void run_result_free(run_result *result);
int run_all_checks_pass(const run_result *result);
void run_write_json(FILE *out, const run_result *result);

#endif
