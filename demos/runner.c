#include "runner.h"

#include "json_out.h"
#include "scene_attach.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void csv_header(FILE *f) {
    fprintf(f, "step,time,islands,rows,contacts,iterations_max,mlcp_error_max,solve_ms,step_ms,"
               "fallbacks,joint_gap_max,solves,not_converged,pivot_steps,restarts,pgs_sweeps,"
               "rescue_sweeps,frozen_rounds,backstops,backstop_pivots,newton_steps,factorizations,"
               "downdates,updates,body_factorizations,answers_solver,answers_backstop,answers_pgs,"
               "answers_warm_start,answers_zero,inner_iterations\n");
}

/* The step's island solves, substeps included: every solve keeps one answer
 * (islands_solved is the largest substep's count). */
static int step_solves(const heft_step_stats *st) {
    return st->answers_solver + st->answers_backstop + st->answers_pgs + st->answers_warm_start +
           st->answers_zero;
}

/* Adds one step's solver counts to the run's. */
static void add_counts(run_result *r, const heft_step_stats *st) {
    r->solves += step_solves(st);
    r->pivot_steps += st->pivot_steps;
    r->restarts += st->restarts;
    r->pgs_sweeps += st->pgs_sweeps;
    r->rescue_sweeps += st->rescue_sweeps;
    r->frozen_rounds += st->frozen_rounds;
    r->backstops += st->backstops;
    r->backstop_pivots += st->backstop_pivots;
    r->newton_steps += st->newton_steps;
    r->factorizations += st->factorizations;
    r->downdates += st->downdates;
    r->updates += st->updates;
    r->body_factorizations += st->body_factorizations;
    r->inner_iterations += st->inner_iterations_sum;
    r->answers_solver += st->answers_solver;
    r->answers_backstop += st->answers_backstop;
    r->answers_pgs += st->answers_pgs;
    r->answers_warm_start += st->answers_warm_start;
    r->answers_zero += st->answers_zero;
}

/* Counts the last step's island solves by the solver "auto" gave them to. */
static void count_delegates(run_result *r, const heft_step_stats *st) {
    for (int i = 0; i < st->islands; ++i) {
        heft_island_stats ist;
        if (heft_world_island_stats(r->world, i, &ist) != HEFT_OK || ist.rows == 0 ||
            ist.solver.delegate == NULL)
            continue;
        int k = 0;
        while (k < r->delegate_count && strcmp(r->delegate_names[k], ist.solver.delegate) != 0)
            ++k;
        if (k == r->delegate_count) {
            if (k == RUN_DELEGATES)
                continue;
            r->delegate_names[r->delegate_count++] = ist.solver.delegate;
        }
        r->delegate_solves[k]++;
    }
}

/* Hands the engine's island callback on to the run's, with the step number. */
typedef struct island_forward {
    const run_config *cfg;
    int step;
} island_forward;

static void forward_island(void *user, int island, const heft_mlcp *problem, const double *lambda,
                           const heft_solver_stats *stats) {
    island_forward *fw = user;
    fw->cfg->island(fw->cfg->island_user, fw->step, island, problem, lambda, stats);
}

/* The world and the scene of a scene file (docs/scene-format.md): the C
 * scene its name means attached when its objects match, else no timeline
 * and no checks. The caller's solver and remedies override the file's. */
static int open_scene_file(const run_config *cfg, run_result *r, int *steps, double *h) {
    heft_scene_info info;
    r->world = heft_world_load(cfg->scene_file, &info);
    if (!r->world) {
        snprintf(r->error, sizeof r->error, "%s", heft_last_error());
        return -1;
    }
    heft_world_def wd = heft_world_get_def(r->world);
    if ((cfg->solver && heft_world_set_solver(r->world, cfg->solver) != HEFT_OK) ||
        (cfg->has_options && heft_world_set_solver_options(r->world, &cfg->options) != HEFT_OK) ||
        (cfg->geometric_stiffness && heft_world_set_geometric_stiffness(r->world, 1) != HEFT_OK) ||
        (cfg->post_stabilization > wd.post_stabilization &&
         heft_world_set_post_stabilization(r->world, cfg->post_stabilization) != HEFT_OK) ||
        (cfg->substeps > 0 && heft_world_set_substeps(r->world, cfg->substeps) != HEFT_OK) ||
        (cfg->sleeping && heft_world_set_sleeping(r->world, 1) != HEFT_OK)) {
        snprintf(r->error, sizeof r->error, "%s", heft_last_error());
        return -1;
    }
    scenario_params params = cfg->params;
    char variant[32];
    const scenario_desc *desc = scene_attach_find(info.name, &params, variant, sizeof variant);
    heft_solver_options options = heft_world_solver_options(r->world);
    wd = heft_world_get_def(r->world);
    r->scene = desc ? scene_attach(desc, &params, &wd, &options, r->world) : NULL;
    r->desc = r->scene ? desc : &scenario_file;
    *steps = r->scene ? desc->steps : (info.steps > 0 ? info.steps : scenario_file.steps);
    *h = info.time_step;
    snprintf(r->solver, sizeof r->solver, "%s", heft_world_solver(r->world));
    return 0;
}

/* The C scene cfg->scenario built into a new world. */
static int run_build_scenario(const run_config *cfg, run_result *r, int *steps, double *h) {
    r->desc = scenario_find(cfg->scenario);
    if (!r->desc) {
        snprintf(r->error, sizeof r->error, "unknown scenario \"%s\"",
                 cfg->scenario ? cfg->scenario : "(null)");
        return -1;
    }
    if (scenario_check_params(r->desc, &cfg->params, r->error, sizeof r->error) != 0) {
        return -1;
    }
    heft_world_def wd = heft_default_world_def();
    wd.solver = cfg->solver ? cfg->solver : "pgs";
    heft_solver_options options = cfg->has_options ? cfg->options : heft_solver_default_options();
    wd.geometric_stiffness = 0;
    wd.post_stabilization = 0;
    wd.substeps = 1;
    if (r->desc->configure) {
        r->desc->configure(&wd,
                           &options); /* the scene's settings; the caller's flags add to them */
    }
    wd.geometric_stiffness = wd.geometric_stiffness || cfg->geometric_stiffness;
    if (cfg->post_stabilization > wd.post_stabilization) {
        wd.post_stabilization = cfg->post_stabilization;
    }
    if (cfg->substeps > 0) {
        wd.substeps = cfg->substeps;
    }
    if (cfg->contact_compliance >= 0.0 && cfg->has_contact_compliance) {
        wd.contact_compliance = cfg->contact_compliance;
    }
    if (cfg->sleeping) {
        wd.enable_sleep = 1;
    }
    r->world = heft_world_create(&wd);
    if (!r->world) {
        snprintf(r->error, sizeof r->error, "%s", heft_last_error());
        return -1;
    }
    if (heft_world_set_solver_options(r->world, &options) != HEFT_OK) {
        snprintf(r->error, sizeof r->error, "%s", heft_last_error());
        heft_world_destroy(r->world);
        r->world = NULL;
        return -1;
    }
    snprintf(r->solver, sizeof r->solver, "%s", heft_world_solver(r->world));
    r->scene = r->desc->create(r->world, &cfg->params);
    if (!r->scene) {
        snprintf(r->error, sizeof r->error, "scenario %s could not be built: %s", r->desc->name,
                 heft_last_error());
        run_result_free(r);
        return -1;
    }
    *steps = r->desc->steps;
    *h = r->desc->h;
    return 0;
}

int run_open(const run_config *cfg, run_result *r, int *steps, double *h) {
    memset(r, 0, sizeof *r);
    if (cfg->scene_file) {
        if (open_scene_file(cfg, r, steps, h) != 0) {
            run_result_free(r);
            return -1;
        }
        return 0;
    }
    return run_build_scenario(cfg, r, steps, h);
}

int run_scenario(const run_config *cfg, run_result *r) {
    int default_steps = 0;
    double default_h = 0.0;
    if (run_open(cfg, r, &default_steps, &default_h) != 0) {
        return -1;
    }
    r->steps = cfg->steps > 0 ? cfg->steps : default_steps;
    r->h = cfg->h > 0.0 ? cfg->h : default_h;
    r->joint_count = heft_world_joints(r->world, NULL, 0);
    heft_joint_id *ids = calloc((size_t)r->joint_count + 1, sizeof *ids);
    r->joints = calloc((size_t)r->joint_count + 1, sizeof *r->joints);
    if (!ids || !r->joints) {
        free(ids);
        snprintf(r->error, sizeof r->error, "out of memory");
        run_result_free(r);
        return -1;
    }
    heft_world_joints(r->world, ids, r->joint_count);
    int nbodies = heft_world_bodies(r->world, NULL, 0);
    heft_body_id *bodies = calloc((size_t)nbodies + 1, sizeof *bodies);
    if (!bodies) {
        free(ids);
        snprintf(r->error, sizeof r->error, "out of memory");
        run_result_free(r);
        return -1;
    }
    heft_world_bodies(r->world, bodies, nbodies);
    double mass_min = INFINITY, mass_max = 0.0;
    for (int i = 0; i < nbodies; ++i) {
        heft_body_state bs;
        heft_body_get_state(r->world, bodies[i], &bs);
        if (bs.type == HEFT_BODY_DYNAMIC) {
            r->bodies++;
            mass_min = bs.mass < mass_min ? bs.mass : mass_min;
            mass_max = bs.mass > mass_max ? bs.mass : mass_max;
        }
    }
    r->mass_ratio = r->bodies > 0 ? mass_max / mass_min : 0.0;
    heft_vec3 lo = r->desc->bounds_lo, hi = r->desc->bounds_hi;
    int bounded = lo.x < hi.x && lo.y < hi.y && lo.z < hi.z;
    for (int i = 0; i < r->joint_count; ++i) {
        snprintf(r->joints[i].name, sizeof r->joints[i].name, "%s",
                 heft_joint_name(r->world, ids[i]));
    }
    if (cfg->csv) {
        csv_header(cfg->csv);
    }
    island_forward forward = {cfg, 0};
    if (cfg->island) {
        heft_world_set_island_callback(r->world, forward_island, &forward);
    }
    double solve_sum = 0.0, step_sum = 0.0, iter_sum = 0.0, gs_sum = 0.0, post_sum = 0.0;
    heft_world_def wd = heft_world_get_def(r->world);
    r->geometric_stiffness = wd.geometric_stiffness;
    r->post_stabilization = wd.post_stabilization;
    r->substeps = wd.substeps;
    r->sleeping = heft_world_sleeping(r->world);
    for (int step = 0; step < r->steps; ++step) {
        if (r->desc->control) {
            r->desc->control(r->scene, r->world, step, r->h);
        }
        forward.step = step;
        if (heft_world_step(r->world, r->h) != HEFT_OK) {
            snprintf(r->error, sizeof r->error, "step %d failed: %s", step, heft_last_error());
            heft_world_set_island_callback(r->world, NULL, NULL);
            free(ids);
            free(bodies);
            run_result_free(r);
            return -1;
        }
        if (r->desc->observe) {
            r->desc->observe(r->scene, r->world, step, r->h);
        }
        int out = 0, nonfinite = 0;
        for (int i = 0; i < nbodies; ++i) {
            heft_vec3 p = heft_body_position(r->world, bodies[i]);
            heft_quat q = heft_body_orientation(r->world, bodies[i]);
            int bad = !(isfinite(p.x) && isfinite(p.y) && isfinite(p.z) && isfinite(q.w) &&
                        isfinite(q.x) && isfinite(q.y) && isfinite(q.z));
            int outside =
                bounded && !bad &&
                (p.x < lo.x || p.y < lo.y || p.z < lo.z || p.x > hi.x || p.y > hi.y || p.z > hi.z);
            if ((bad || outside) && !r->first_violation[0]) {
                snprintf(r->first_violation, sizeof r->first_violation, "%s %s at step %d",
                         heft_body_name(r->world, bodies[i]), bad ? "not finite" : "out of bounds",
                         step);
            }
            nonfinite |= bad;
            out |= outside;
        }
        r->out_of_bounds_steps += out;
        r->nonfinite_steps += nonfinite;
        const heft_step_stats *st = heft_world_stats(r->world);
        r->rows_total_max = st->rows > r->rows_total_max ? st->rows : r->rows_total_max;
        double gap_max = 0.0;
        for (int i = 0; i < r->joint_count; ++i) {
            double gap = heft_joint_gap(r->world, ids[i]);
            r->joints[i].max_gap = gap > r->joints[i].max_gap ? gap : r->joints[i].max_gap;
            gap_max = gap > gap_max ? gap : gap_max;
        }
        solve_sum += st->time_solve_ms;
        step_sum += st->time_total_ms;
        gs_sum += st->time_geometric_stiffness_ms;
        post_sum += st->time_post_stabilization_ms;
        iter_sum += st->iterations_max;
        r->solve_ms_max = st->time_solve_ms > r->solve_ms_max ? st->time_solve_ms : r->solve_ms_max;
        r->mlcp_error_max = st->error_max > r->mlcp_error_max ? st->error_max : r->mlcp_error_max;
        r->islands_max = st->islands > r->islands_max ? st->islands : r->islands_max;
        r->rows_max = st->rows_max > r->rows_max ? st->rows_max : r->rows_max;
        r->envelope_max = st->envelope_max > r->envelope_max ? st->envelope_max : r->envelope_max;
        r->fallbacks += st->fallbacks;
        r->not_converged += st->not_converged;
        r->nonfinite_rejected += st->nonfinite_rejected;
        r->sleeping_bodies_max = st->bodies_sleeping > r->sleeping_bodies_max
                                     ? st->bodies_sleeping
                                     : r->sleeping_bodies_max;
        r->sleeping_steps += st->bodies_sleeping > 0;
        add_counts(r, st);
        count_delegates(r, st);
        if (cfg->csv) {
            fprintf(
                cfg->csv,
                "%d,%.6f,%d,%d,%d,%d,%.6e,%.6f,%.6f,%d,%.6e,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,"
                "%d,%d,%d,%d,%d,%d,%d\n",
                step, heft_world_time(r->world), st->islands, st->rows, st->contacts,
                st->iterations_max, st->error_max, st->time_solve_ms, st->time_total_ms,
                st->fallbacks, gap_max, step_solves(st), st->not_converged, st->pivot_steps,
                st->restarts, st->pgs_sweeps, st->rescue_sweeps, st->frozen_rounds, st->backstops,
                st->backstop_pivots, st->newton_steps, st->factorizations, st->downdates,
                st->updates, st->body_factorizations, st->answers_solver, st->answers_backstop,
                st->answers_pgs, st->answers_warm_start, st->answers_zero,
                st->inner_iterations_sum);
        }
        if (cfg->csv && ferror(cfg->csv)) {
            /* a full disk or a closed pipe: stop now, not after a long run */
            snprintf(r->error, sizeof r->error, "the CSV could not be written at step %d: %s", step,
                     strerror(errno));
            heft_world_set_island_callback(r->world, NULL, NULL);
            free(ids);
            free(bodies);
            run_result_free(r);
            return -1;
        }
        if (cfg->frame) {
            cfg->frame(cfg->frame_user, r->world, step);
        }
    }
    /* forward lives on this stack frame: the world outlives it */
    heft_world_set_island_callback(r->world, NULL, NULL);
    free(ids);
    free(bodies);
    if (r->steps > 0) {
        r->solve_ms_mean = solve_sum / r->steps;
        r->step_ms_mean = step_sum / r->steps;
        r->geometric_stiffness_ms_mean = gs_sum / r->steps;
        r->post_stabilization_ms_mean = post_sum / r->steps;
        r->iterations_mean = iter_sum / r->steps;
    }
    r->check_count = r->desc->checks(r->scene, r->world, r->checks, SCENARIO_MAX_CHECKS);
    return 0;
}

void run_result_free(run_result *r) {
    if (r->scene) {
        r->desc->destroy(r->scene);
    }
    heft_world_destroy(r->world);
    free(r->joints);
    r->scene = NULL;
    r->world = NULL;
    r->joints = NULL;
}

int run_all_checks_pass(const run_result *r) {
    for (int i = 0; i < r->check_count; ++i) {
        if (!r->checks[i].pass) {
            return 0;
        }
    }
    return 1;
}

static void vec(FILE *f, const double *v, int n) {
    fputc('[', f);
    for (int i = 0; i < n; ++i) {
        if (i) {
            fputs(", ", f);
        }
        json_number(f, v[i]);
    }
    fputc(']', f);
}

void run_write_json(FILE *f, const run_result *r) {
    fputs("{\n  \"scenario\": ", f);
    json_string(f, r->desc->name);
    fputs(",\n  \"solver\": ", f);
    json_string(f, r->solver);
    fprintf(f,
            ",\n  \"geometric_stiffness\": %s,\n  \"post_stabilization\": %d,\n  \"substeps\": %d",
            r->geometric_stiffness ? "true" : "false", r->post_stabilization, r->substeps);
    fprintf(f, ",\n  \"sleeping\": %s", r->sleeping ? "true" : "false");
    fprintf(f, ",\n  \"steps\": %d,\n  \"h\": ", r->steps);
    json_number(f, r->h);
    fputs(",\n  \"time\": ", f);
    json_number(f, heft_world_time(r->world));
    fputs(",\n  \"bodies\": [", f);
    int nb = heft_world_bodies(r->world, NULL, 0);
    heft_body_id *ids = calloc((size_t)nb + 1, sizeof *ids);
    int written = 0;
    if (ids) {
        heft_world_bodies(r->world, ids, nb);
        for (int i = 0; i < nb; ++i) {
            heft_body_state s;
            heft_body_get_state(r->world, ids[i], &s);
            if (s.type == HEFT_BODY_STATIC) {
                continue;
            }
            fputs(written++ ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
            json_string(f, heft_body_name(r->world, ids[i]));
            double p[3] = {s.position.x, s.position.y, s.position.z};
            double q[4] = {s.orientation.w, s.orientation.x, s.orientation.y, s.orientation.z};
            double v[3] = {s.linear_velocity.x, s.linear_velocity.y, s.linear_velocity.z};
            double w[3] = {s.angular_velocity.x, s.angular_velocity.y, s.angular_velocity.z};
            fputs(", \"position\": ", f);
            vec(f, p, 3);
            fputs(", \"quaternion\": ", f);
            vec(f, q, 4);
            fputs(", \"velocity\": ", f);
            vec(f, v, 3);
            fputs(", \"angular_velocity\": ", f);
            vec(f, w, 3);
            fputc('}', f);
        }
        free(ids);
    }
    fputs(written ? "\n  ],\n  \"joints\": [" : "],\n  \"joints\": [", f);
    for (int i = 0; i < r->joint_count; ++i) {
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        json_string(f, r->joints[i].name);
        fputs(", \"max_gap\": ", f);
        json_number(f, r->joints[i].max_gap);
        fputc('}', f);
    }
    fputs(r->joint_count ? "\n  ],\n  \"stats\": {" : "],\n  \"stats\": {", f);
    fputs("\"solve_ms_mean\": ", f);
    json_number(f, r->solve_ms_mean);
    fputs(", \"solve_ms_max\": ", f);
    json_number(f, r->solve_ms_max);
    fputs(", \"step_ms_mean\": ", f);
    json_number(f, r->step_ms_mean);
    fputs(", \"geometric_stiffness_ms_mean\": ", f);
    json_number(f, r->geometric_stiffness_ms_mean);
    fputs(", \"post_stabilization_ms_mean\": ", f);
    json_number(f, r->post_stabilization_ms_mean);
    fputs(", \"iterations_mean\": ", f);
    json_number(f, r->iterations_mean);
    fputs(", \"mlcp_error_max\": ", f);
    json_number(f, r->mlcp_error_max);
    fprintf(f,
            ", \"islands_max\": %d, \"rows_max\": %d, \"fallbacks\": %d, \"not_converged\": %d, "
            "\"nonfinite_rejected\": %d",
            r->islands_max, r->rows_max, r->fallbacks, r->not_converged, r->nonfinite_rejected);
    fprintf(f, ", \"sleeping_bodies_max\": %d, \"sleeping_steps\": %d", r->sleeping_bodies_max,
            r->sleeping_steps);
    fprintf(f,
            ", \"solves\": %ld, \"pivot_steps\": %ld, \"restarts\": %ld, \"pgs_sweeps\": %ld, "
            "\"rescue_sweeps\": %ld, \"frozen_rounds\": %ld, \"backstops\": %ld, "
            "\"backstop_pivots\": %ld, \"newton_steps\": %ld, \"factorizations\": %ld, "
            "\"downdates\": %ld, \"updates\": %ld, \"body_factorizations\": %ld, "
            "\"answers_solver\": %ld, \"answers_backstop\": %ld, \"answers_pgs\": %ld, "
            "\"answers_warm_start\": %ld, \"answers_zero\": %ld, \"inner_iterations\": %ld",
            r->solves, r->pivot_steps, r->restarts, r->pgs_sweeps, r->rescue_sweeps,
            r->frozen_rounds, r->backstops, r->backstop_pivots, r->newton_steps, r->factorizations,
            r->downdates, r->updates, r->body_factorizations, r->answers_solver,
            r->answers_backstop, r->answers_pgs, r->answers_warm_start, r->answers_zero,
            r->inner_iterations);
    if (r->delegate_count > 0) {
        fputs(", \"delegates\": {", f);
        for (int k = 0; k < r->delegate_count; ++k) {
            fputs(k ? ", " : "", f);
            json_string(f, r->delegate_names[k]);
            fprintf(f, ": %ld", r->delegate_solves[k]);
        }
        fputc('}', f);
    }
    fputs("},\n  \"checks\": [", f);
    for (int i = 0; i < r->check_count; ++i) {
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        json_string(f, r->checks[i].name);
        fprintf(f, ", \"pass\": %s, \"value\": ", r->checks[i].pass ? "true" : "false");
        json_number(f, r->checks[i].value);
        fputs(", \"limit\": ", f);
        json_number(f, r->checks[i].limit);
        fputc('}', f);
    }
    fputs(r->check_count ? "\n  ],\n" : "],\n", f);
    fprintf(f,
            "  \"scene\": {\"bodies\": %d, \"rows_max\": %d, \"largest_island_rows\": %d, "
            "\"envelope_max\": %d, \"islands_max\": %d, \"mass_ratio\": ",
            r->bodies, r->rows_total_max, r->rows_max, r->envelope_max, r->islands_max);
    json_number(f, r->mass_ratio);
    fprintf(f, ", \"out_of_bounds_steps\": %d, \"nonfinite_steps\": %d, \"first_violation\": ",
            r->out_of_bounds_steps, r->nonfinite_steps);
    json_string(f, r->first_violation);
    fputs("},\n", f);
    fprintf(f, "  \"pass\": %s\n}\n", run_all_checks_pass(r) ? "true" : "false");
}
