/* Parallel islands (docs/tasks.md): a world stepped through a task system
 * of 1, 2 or 4 POSIX threads ends every step bit-identical to the serial
 * step: poses, velocities, hit events and the step's statistics (all but
 * the times), compared exactly (tolerance 0) after each of 300 steps. */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdint.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "task_pool.h"

#include <heft/mlcp.h>

/* FNV-1a over bytes, to compare whole states step by step */
static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 0x100000001b3ULL;
    }
    return h;
}

/* The bodies' poses and velocities and the step's hit events. */
static uint64_t state_hash(const heft_world *w, const heft_body_id *ids, int count) {
    uint64_t h = 0xcbf29ce484222325ULL;
    const heft_contact_events ev = heft_world_contact_events(w);
    for (int i = 0; i < ev.hit_count; ++i) {
        const heft_contact_hit_event *e = &ev.hit[i];
        const double x[7] = {e->point.x,  e->point.y,  e->point.z,       e->normal.x,
                             e->normal.y, e->normal.z, e->approach_speed};
        h = fnv(h, x, sizeof x);
    }
    for (int i = 0; i < count; ++i) {
        heft_vec3 p = heft_body_position(w, ids[i]);
        heft_quat q = heft_body_orientation(w, ids[i]);
        heft_vec3 v = heft_body_linear_velocity(w, ids[i]);
        heft_vec3 o = heft_body_angular_velocity(w, ids[i]);
        const double x[13] = {p.x, p.y, p.z, q.w, q.x, q.y, q.z, v.x, v.y, v.z, o.x, o.y, o.z};
        h = fnv(h, x, sizeof x);
    }
    return h;
}

/* every statistic but the wall-clock times */
static uint64_t stats_hash(const heft_step_stats *s) {
    const int n[] = {s->islands,
                     s->islands_solved,
                     s->bodies,
                     s->rows,
                     s->rows_max,
                     s->contacts,
                     s->iterations_max,
                     s->iterations_sum,
                     s->fallbacks,
                     s->not_converged,
                     s->nonfinite_rejected,
                     s->substeps,
                     s->pivot_steps,
                     s->restarts,
                     s->pgs_sweeps,
                     s->rescue_sweeps,
                     s->frozen_rounds,
                     s->backstops,
                     s->backstop_pivots,
                     s->factorizations,
                     s->downdates,
                     s->updates,
                     s->answers_solver,
                     s->answers_backstop,
                     s->answers_pgs,
                     s->answers_warm_start,
                     s->answers_zero,
                     s->geometric_stiffness_skipped,
                     s->post_stabilization_limited,
                     s->islands_sleeping,
                     s->bodies_sleeping};
    const double d[] = {s->error_max, s->error_sum, s->post_stabilization_gap,
                        s->post_stabilization_energy};
    return fnv(fnv(0xcbf29ce484222325ULL, n, sizeof n), d, sizeof d);
}

/* The island callback's view: island order and the answers it was shown. */
typedef struct callback_log {
    uint64_t hash;
    int calls;
} callback_log;

static void log_island(void *user, int island, const heft_mlcp *p, const double *lambda,
                       const heft_solver_stats *stats) {
    callback_log *log = user;
    log->hash = fnv(log->hash, &island, sizeof island);
    log->hash = fnv(log->hash, p->b, sizeof(double) * (size_t)p->n);
    log->hash = fnv(log->hash, lambda, sizeof(double) * (size_t)p->n);
    log->hash = fnv(log->hash, &stats->iterations, sizeof stats->iterations);
    log->calls++;
}

typedef struct trace {
    uint64_t state[300], stats[300];
    uint64_t callback;
    int callback_calls;
    int hits; /* hit events over the steps */
    int islands_solved_max;
    long helper_items; /* items the pool's threads other than the stepping one ran */
} trace;

enum { STEPS = 300 };

/* Hit events are recorded above this speed, m/s: low enough that the
 * dropped boxes and the machines' loads raise some. */
#define HIT_THRESHOLD 0.05

/* workers 0: no task system (the serial step) */
static void run(const char *scene, const char *solver, int size, int workers, int callback,
                trace *t) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = scene;
    cfg.solver = solver;
    cfg.params.size = size;
    run_result r;
    int steps = 0;
    double h = 0.0;
    cr_assert_eq(run_open(&cfg, &r, &steps, &h), 0, "%s: %s", scene, r.error);
    task_pool *pool = NULL;
    if (workers > 0) {
        pool = task_pool_create(workers);
        cr_assert_not_null(pool);
        cr_assert_eq(task_pool_attach(pool, r.world), HEFT_OK, "%s", heft_last_error());
        cr_assert_eq(heft_world_worker_count(r.world), workers);
    }
    cr_assert_eq(heft_world_set_hit_event_threshold(r.world, HIT_THRESHOLD), HEFT_OK);
    callback_log log = {0xcbf29ce484222325ULL, 0};
    if (callback) {
        heft_world_set_island_callback(r.world, log_island, &log);
    }
    int count = heft_world_body_count(r.world);
    heft_body_id *ids = malloc(sizeof *ids * (size_t)(count + 1));
    cr_assert_not_null(ids);
    heft_world_bodies(r.world, ids, count);
    memset(t, 0, sizeof *t);
    for (int step = 0; step < STEPS; ++step) {
        if (r.desc->control) {
            r.desc->control(r.scene, r.world, step, h);
        }
        cr_assert_eq(heft_world_step(r.world, h), HEFT_OK, "%s step %d: %s", scene, step,
                     heft_last_error());
        t->state[step] = state_hash(r.world, ids, count);
        const heft_step_stats *s = heft_world_stats(r.world);
        t->stats[step] = stats_hash(s);
        t->hits += heft_world_contact_events(r.world).hit_count;
        if (s->islands_solved > t->islands_solved_max) {
            t->islands_solved_max = s->islands_solved;
        }
    }
    for (int i = 1; pool && i < workers; ++i) {
        t->helper_items += task_pool_items_run(pool, i);
    }
    t->callback = log.hash;
    t->callback_calls = log.calls;
    heft_world_set_island_callback(r.world, NULL, NULL);
    free(ids);
    run_result_free(&r);
    task_pool_destroy(pool);
}

static void expect_identical(const char *scene, const char *solver, int size, int min_islands) {
    static trace serial, parallel;
    run(scene, solver, size, 0, 0, &serial);
    cr_assert_geq(serial.islands_solved_max, min_islands, "%s: %d islands solved at most", scene,
                  serial.islands_solved_max);
    const int workers[] = {1, 2, 8};
    for (int i = 0; i < 3; ++i) {
        run(scene, solver, size, workers[i], 0, &parallel);
        if (workers[i] > 1 && min_islands > 1) {
            cr_assert_gt(parallel.helper_items, 0, "%s: the pool's threads ran no island", scene);
        }
        for (int step = 0; step < STEPS; ++step) {
            cr_assert_eq(parallel.state[step], serial.state[step],
                         "%s under %s, %d workers: poses or velocities differ from the serial "
                         "step's after step %d",
                         scene, solver, workers[i], step);
            cr_assert_eq(parallel.stats[step], serial.stats[step],
                         "%s under %s, %d workers: statistics differ after step %d", scene, solver,
                         workers[i], step);
        }
    }
}

/* 200 stacks of 5 boxes: 1,000 boxes in 200 islands */
Test(parallel_islands, thousand_boxes_bit_identical_with_1_2_8_workers, .timeout = 600) {
    expect_identical("stacking", "bpp-skyline", 200, 200);
}

/* the iterative solver and the engine's rescue (per-worker PGS states) */
Test(parallel_islands, boxes_under_pgs_bit_identical, .timeout = 600) {
    expect_identical("stacking", "pgs", 40, 40);
}

/* the machines of the README, with their geometric stiffness and motors */
Test(parallel_islands, winch_bit_identical_with_1_2_8_workers, .timeout = 600) {
    expect_identical("winch", "bpp-skyline", 0, 1);
}

Test(parallel_islands, crane_bit_identical_with_1_2_8_workers, .timeout = 600) {
    expect_identical("crane", "bpp-skyline", 0, 1);
}

/* The island callback runs on the stepping thread in island order, after
 * the islands are solved: it sees the same islands, problems and answers in
 * the same order as in the serial step. */
Test(parallel_islands, island_callback_sees_the_serial_order, .timeout = 600) {
    static trace serial, parallel;
    run("stacking", "bpp-skyline", 20, 0, 1, &serial);
    run("stacking", "bpp-skyline", 20, 2, 1, &parallel);
    cr_assert_gt(serial.callback_calls, 20 * 100);
    cr_assert_eq(parallel.callback_calls, serial.callback_calls);
    cr_assert_eq(parallel.callback, serial.callback);
    cr_assert_eq(parallel.state[STEPS - 1], serial.state[STEPS - 1]);
}

/* Without an island callback an island's build, solve, impulses, update and
 * post-stabilization's saved energy run as one item, and its projection's
 * item also groups its rows, guards its energy and measures its joints'
 * gaps; with one, they are separate tasks around the callback. Both give
 * the serial step's bits, hit events included (measured with the motion the
 * bodies had before their island's update). */
static void expect_one_task_as_three(const char *scene, int size) {
    static trace serial, whole, split;
    run(scene, "bpp-skyline", size, 0, 0, &serial);
    run(scene, "bpp-skyline", size, 2, 0, &whole);
    run(scene, "bpp-skyline", size, 2, 1, &split);
    cr_assert_gt(serial.hits, 0, "%s: no hit events to compare", scene);
    cr_assert_gt(split.callback_calls, 0);
    for (int step = 0; step < STEPS; ++step) {
        cr_assert_eq(whole.state[step], serial.state[step],
                     "%s, one task an island: poses, velocities or hits differ after step %d",
                     scene, step);
        cr_assert_eq(split.state[step], serial.state[step],
                     "%s, separate tasks: poses, velocities or hits differ after step %d", scene,
                     step);
        cr_assert_eq(whole.stats[step], serial.stats[step], "%s: statistics after step %d", scene,
                     step);
        cr_assert_eq(split.stats[step], serial.stats[step], "%s: statistics after step %d", scene,
                     step);
    }
}

/* geometric stiffness and post-stabilization on */
Test(parallel_islands, crane_one_task_an_island_as_separate_tasks, .timeout = 600) {
    expect_one_task_as_three("crane", 0);
}

Test(parallel_islands, boxes_one_task_an_island_as_separate_tasks, .timeout = 600) {
    expect_one_task_as_three("stacking", 40);
}

/* The largest joint gap after post-stabilization counts the joints on no
 * island too (here a sleeping body's, put to sleep 0.5 m from its anchor),
 * which under a direct solver the islands' projection items do not
 * measure. */
Test(parallel_islands, post_stabilization_gap_counts_joints_on_no_island) {
    for (int run_index = 0; run_index < 4; ++run_index) {
        const int workers = run_index % 2 * 2;
        const char *solver = run_index < 2 ? "bpp-skyline" : "pgs";
        heft_world_def wd = heft_default_world_def();
        wd.post_stabilization = 1;
        wd.enable_sleep = 1;
        heft_world *w = heft_world_create(&wd);
        cr_assert_not_null(w);
        cr_assert_eq(heft_world_set_solver(w, solver), HEFT_OK);
        task_pool *pool = workers > 0 ? task_pool_create(workers) : NULL;
        if (pool) {
            cr_assert_eq(task_pool_attach(pool, w), HEFT_OK);
        }
        heft_body_def bd = heft_default_body_def();
        heft_joint_id joints[2];
        heft_body_id bodies[2];
        for (int i = 0; i < 2; ++i) {
            bd.position = heft_v3(3.0 * i, 0, 1);
            bd.enable_sleep = i == 0;
            bodies[i] = heft_create_body(w, &bd);
            heft_joint_def d = heft_default_joint_def(HEFT_JOINT_BALL);
            d.body_a = HEFT_WORLD_FRAME;
            d.body_b = bodies[i];
            cr_assert_eq(
                heft_joint_def_set_world_frame(w, &d, heft_v3(3.0 * i, 0, 2), heft_v3(0, 0, 1)),
                HEFT_OK, "%s", heft_last_error());
            joints[i] = heft_create_joint(w, &d);
            cr_assert(heft_joint_is_valid(w, joints[i]), "%s", heft_last_error());
        }
        cr_assert_eq(
            heft_body_set_transform(w, bodies[0], heft_v3(0.5, 0, 1), heft_quat_identity()),
            HEFT_OK);
        cr_assert_eq(heft_body_set_awake(w, bodies[0], 0), HEFT_OK);
        for (int step = 0; step < 30; ++step) {
            cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
            cr_assert_eq(heft_body_is_awake(w, bodies[0]), 0);
            cr_assert_eq(heft_world_stats(w)->islands_solved, 1);
            const double expected =
                fmax(fmax(0.0, heft_joint_gap(w, joints[0])), heft_joint_gap(w, joints[1]));
            cr_assert_eq(heft_world_stats(w)->post_stabilization_gap, expected,
                         "%s, %d workers, step %d: gap %.17g, the joints' widest %.17g", solver,
                         workers, step, heft_world_stats(w)->post_stabilization_gap, expected);
        }
        cr_assert_gt(heft_joint_gap(w, joints[0]), 0.4); /* 0.5 m */
        if (pool) {
            heft_world_set_task_system(w, NULL, NULL, NULL, 0);
            task_pool_destroy(pool);
        }
        heft_world_destroy(w);
    }
}

/* A body jointed to a kinematic one that moves: the projections must see
 * the kinematic body where the step moved it, as with separate tasks
 * (which move it before post-stabilization). Returns the state's hash after
 * 60 steps, with or without an island callback. */
static uint64_t kinematic_pull(int workers, int callback) {
    heft_world_def wd = heft_default_world_def();
    wd.post_stabilization = 1;
    heft_world *w = heft_world_create(&wd);
    cr_assert_not_null(w);
    cr_assert_eq(heft_world_set_solver(w, "bpp-skyline"), HEFT_OK);
    task_pool *pool = workers > 0 ? task_pool_create(workers) : NULL;
    if (pool) {
        cr_assert_eq(task_pool_attach(pool, w), HEFT_OK);
    }
    callback_log log = {0xcbf29ce484222325ULL, 0};
    if (callback) {
        heft_world_set_island_callback(w, log_island, &log);
    }
    heft_body_def bd = heft_default_body_def();
    bd.type = HEFT_BODY_KINEMATIC;
    bd.position = heft_v3(0, 0, 2);
    heft_body_id ids[2];
    ids[0] = heft_create_body(w, &bd);
    cr_assert_eq(heft_body_set_linear_velocity(w, ids[0], heft_v3(2, 0, 0)), HEFT_OK);
    bd.type = HEFT_BODY_DYNAMIC;
    bd.position = heft_v3(0, 0, 1);
    ids[1] = heft_create_body(w, &bd);
    heft_joint_def d = heft_default_joint_def(HEFT_JOINT_BALL);
    d.body_a = ids[0];
    d.body_b = ids[1];
    cr_assert_eq(heft_joint_def_set_world_frame(w, &d, heft_v3(0, 0, 2), heft_v3(0, 0, 1)), HEFT_OK,
                 "%s", heft_last_error());
    cr_assert(heft_joint_is_valid(w, heft_create_joint(w, &d)), "%s", heft_last_error());
    for (int step = 0; step < 60; ++step) {
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
    }
    cr_assert_eq(log.calls, callback ? 60 : 0);
    const uint64_t hash = state_hash(w, ids, 2);
    if (pool) {
        heft_world_set_task_system(w, NULL, NULL, NULL, 0);
        task_pool_destroy(pool);
    }
    heft_world_destroy(w);
    return hash;
}

Test(parallel_islands, projections_see_the_kinematic_bodies_moved) {
    const uint64_t split = kinematic_pull(0, 1);
    cr_assert_eq(kinematic_pull(0, 0), split, "serial: one task an island differs");
    cr_assert_eq(kinematic_pull(2, 0), split, "2 workers: one task an island differs");
    cr_assert_eq(kinematic_pull(2, 1), split, "2 workers, separate tasks differ");
}

/* A task system set and removed between steps: the serial step again. */
Test(parallel_islands, task_system_removed_gives_serial_step) {
    heft_world *w = heft_world_create(NULL);
    cr_assert_not_null(w);
    task_pool *pool = task_pool_create(2);
    cr_assert_not_null(pool);
    cr_assert_eq(task_pool_attach(pool, w), HEFT_OK);
    cr_assert_eq(heft_world_worker_count(w), 2);
    cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
    cr_assert_eq(heft_world_set_task_system(w, NULL, NULL, NULL, 0), HEFT_OK);
    cr_assert_eq(heft_world_worker_count(w), 1);
    cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
    heft_world_destroy(w);
    task_pool_destroy(pool);
}

/* ---- small tasks on the stepping thread ---------------------------------------------- */

/* Tasks handed to the inline task system (task_pool.h), which runs each at
 * once on the calling thread: the round trip is the call itself, so no task
 * is quicker handed out than run by the step (island_tasks.c,
 * world_tasks_run). */
static int tasks_handed_out;

/* Falling spheres, no ground: one body carrying `shapes` spheres (one
 * island, so the only task above one range is the shapes' boxes), or
 * `bodies` bodies of one sphere each far apart (the bodies' free
 * velocities, the shapes' boxes and the islands, one item each). With a
 * task system (the inline one, counting) *first gets the tasks handed out at the
 * first step and the return the tasks handed out after it; *hash the state
 * at the end. */
static int handed_out_after_first(int shapes, int bodies, int steps, int tasks, int *first,
                                  uint64_t *hash) {
    heft_world *w = heft_world_create(NULL);
    cr_assert_not_null(w);
    if (tasks) {
        cr_assert_eq(heft_world_set_task_system(w, task_inline_enqueue, task_inline_finish,
                                                &tasks_handed_out, 2),
                     HEFT_OK);
    }
    const int count = bodies > 0 ? bodies : 1;
    heft_body_id *ids = malloc(sizeof *ids * (size_t)count);
    cr_assert_not_null(ids);
    for (int i = 0; i < count; ++i) {
        heft_body_def bd = heft_default_body_def();
        bd.position = heft_v3(3.0 * (i % 64), 3.0 * (i / 64), 0.0);
        bd.linear_velocity = heft_v3(0.0, 0.0, 0.01 * i);
        bd.angular_velocity = heft_v3(0.0, 0.3, 0.0);
        ids[i] = heft_create_body(w, &bd);
        const int own = bodies > 0 ? 1 : shapes;
        for (int k = 0; k < own; ++k) {
            heft_shape_def sd = heft_default_shape_def();
            sd.radius = 0.1;
            sd.local_position = heft_v3(0.25 * k, 0.0, 0.0);
            cr_assert(heft_shape_is_valid(w, heft_create_shape(w, ids[i], &sd)), "%s",
                      heft_last_error());
        }
    }
    int handed = 0;
    for (int step = 0; step < steps; ++step) {
        const int before = tasks_handed_out;
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
        if (step == 0) {
            *first = tasks_handed_out - before;
        } else {
            handed += tasks_handed_out - before;
        }
    }
    *hash = state_hash(w, ids, count);
    free(ids);
    heft_world_destroy(w);
    return handed;
}

/* A task that the step ran quicker than the round trip took runs on the
 * stepping thread from then on (but for one call in 64, handed out again
 * to measure): 40 spheres' boxes, a few microseconds. Tasks of hundreds
 * of microseconds (10,000 bodies; 10 ns an item would still be 100 us) are
 * handed out every step. The motion is the serial step's either way, to
 * the bit. */
Test(parallel_islands, tasks_too_small_to_share_run_on_the_stepping_thread) {
    int first;
    uint64_t hash, serial;
    const int small = handed_out_after_first(40, 0, 60, 1, &first, &hash);
    cr_assert_eq(first, 1, "%d tasks at the first step of one body of 40 spheres", first);
    /* Which thread runs it is decided by the time it took: a step
     * preempted inside the task hands it out again, and under the
     * sanitizers on a busy machine its 40 items now and then take longer
     * than the 50 us a task may take on the stepping thread (10 of the 59
     * steps in one such run). Without the rule it is handed out at every
     * step (59). */
    cr_log_info("one body of 40 spheres: %d tasks handed out over 59 steps after the first", small);
    cr_assert_lt(small, 30, "%d tasks handed out over 59 steps after the first", small);
    handed_out_after_first(40, 0, 60, 0, &first, &serial);
    cr_assert_eq(hash, serial, "40 spheres: the motion differs from the serial step's");

    const int large = handed_out_after_first(0, 10000, 12, 1, &first, &hash);
    cr_assert_eq(first, 3, "%d tasks at the first step of 10,000 bodies", first);
    cr_assert_eq(large, 3 * 11, "%d tasks handed out over 11 steps of 10,000 bodies", large);
    handed_out_after_first(0, 10000, 12, 0, &first, &serial);
    cr_assert_eq(hash, serial, "10,000 bodies: the motion differs from the serial step's");
}

/* ---- the narrowphase on the workers ------------------------------------------------ */

enum { FIELD_N = 41, DROPPED = 240, FIELD_STEPS = 240 };

/* Boxes, spheres and capsules dropped in a grid onto a wavy height field
 * (41 x 41 heights, 0.5 m apart) and a ramp of triangles: hundreds of pairs
 * a step, most of them against the field's or the mesh's triangles, which
 * use the worker's own scratch. Returns the world; *ids gets its bodies. */
static heft_world *terrain_world(heft_body_id **ids, int *count) {
    static double heights[FIELD_N * FIELD_N];
    for (int j = 0; j < FIELD_N; ++j) {
        for (int i = 0; i < FIELD_N; ++i) {
            heights[j * FIELD_N + i] = 0.3 * sin(0.7 * i) * cos(0.5 * j);
        }
    }
    heft_world *w = heft_world_create(NULL);
    cr_assert_not_null(w);
    heft_body_def bd = heft_default_body_def();
    bd.type = HEFT_BODY_STATIC;
    heft_body_id field = heft_create_body(w, &bd);
    heft_shape_def hd = heft_default_shape_def();
    hd.type = HEFT_SHAPE_HEIGHT_FIELD;
    hd.height_field.heights = heights;
    hd.height_field.count_x = hd.height_field.count_y = FIELD_N;
    hd.height_field.spacing_x = hd.height_field.spacing_y = 0.5;
    cr_assert(heft_create_shape(w, field, &hd).index >= 0, "%s", heft_last_error());
    static const heft_vec3 ramp_vertices[4] = {{0, 0, 0}, {6, 0, 1.5}, {6, 6, 1.5}, {0, 6, 0}};
    static const int32_t ramp_indices[6] = {0, 1, 2, 0, 2, 3};
    bd.position = heft_v3(7, 7, 1.0);
    heft_body_id ramp = heft_create_body(w, &bd);
    heft_shape_def md = heft_default_shape_def();
    md.type = HEFT_SHAPE_MESH;
    md.mesh.vertices = ramp_vertices;
    md.mesh.vertex_count = 4;
    md.mesh.indices = ramp_indices;
    md.mesh.triangle_count = 2;
    cr_assert(heft_create_shape(w, ramp, &md).index >= 0, "%s", heft_last_error());
    *ids = malloc(sizeof **ids * DROPPED);
    cr_assert_not_null(*ids);
    for (int k = 0; k < DROPPED; ++k) {
        heft_body_def db = heft_default_body_def();
        db.position = heft_v3(1.0 + 1.2 * (k % 15), 1.0 + 1.2 * ((k / 15) % 15), 1.5 + k / 225);
        db.orientation = heft_quat_normalize(heft_q(1.0, 0.1 * (k % 7), 0.05 * (k % 5), 0.0));
        heft_body_id b = heft_create_body(w, &db);
        heft_shape_def sd = heft_default_shape_def();
        switch (k % 3) {
        case 0:
            sd.type = HEFT_SHAPE_BOX;
            sd.half_extents = heft_v3(0.25, 0.2, 0.15);
            break;
        case 1:
            sd.type = HEFT_SHAPE_SPHERE;
            sd.radius = 0.2;
            break;
        default:
            sd.type = HEFT_SHAPE_CAPSULE;
            sd.radius = 0.12;
            sd.half_length = 0.2;
            break;
        }
        cr_assert(heft_create_shape(w, b, &sd).index >= 0, "%s", heft_last_error());
        cr_assert_eq(heft_body_set_mass_from_shapes(w, b), HEFT_OK, "%s", heft_last_error());
        (*ids)[k] = b;
    }
    *count = DROPPED;
    return w;
}

/* the state after each step, and the contacts of the last */
static void run_terrain(int workers, uint64_t *hashes, int *contacts) {
    heft_body_id *ids;
    int count;
    heft_world *w = terrain_world(&ids, &count);
    task_pool *pool = NULL;
    if (workers > 0) {
        pool = task_pool_create(workers);
        cr_assert_not_null(pool);
        cr_assert_eq(task_pool_attach(pool, w), HEFT_OK, "%s", heft_last_error());
    }
    for (int step = 0; step < FIELD_STEPS; ++step) {
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
        hashes[step] =
            fnv(state_hash(w, ids, count), &(int){heft_world_contact_count(w)}, sizeof(int));
    }
    *contacts = heft_world_contact_count(w);
    heft_world_set_task_system(w, NULL, NULL, NULL, 0);
    task_pool_destroy(pool);
    heft_world_destroy(w);
    free(ids);
}

Test(parallel_islands, narrowphase_on_height_field_and_mesh_bit_identical, .timeout = 600) {
    static uint64_t serial[FIELD_STEPS], parallel[FIELD_STEPS];
    int contacts = 0, parallel_contacts = 0;
    run_terrain(0, serial, &contacts);
    cr_assert_gt(contacts, DROPPED, "only %d contacts on the terrain", contacts);
    const int workers[] = {1, 2, 4};
    for (int i = 0; i < 3; ++i) {
        run_terrain(workers[i], parallel, &parallel_contacts);
        cr_assert_eq(parallel_contacts, contacts);
        for (int step = 0; step < FIELD_STEPS; ++step) {
            cr_assert_eq(parallel[step], serial[step],
                         "terrain, %d workers: the state differs from the serial step's after "
                         "step %d",
                         workers[i], step);
        }
    }
}

/* An allocator that counts from any thread. */
static atomic_long allocations;

static void *count_alloc(size_t n, void *user) {
    (void)user;
    atomic_fetch_add(&allocations, 1);
    return malloc(n);
}

static void *count_realloc(void *p, size_t n, void *user) {
    (void)user;
    atomic_fetch_add(&allocations, 1);
    return realloc(p, n);
}

static void count_free(void *p, void *user) {
    (void)user;
    atomic_fetch_add(&allocations, 1);
    free(p);
}

/* Allocations (and frees) in 200 steps of 40 settled stacks after 120 steps
 * of warm-up: whichever worker gets which island, no worker's arena
 * overflows once warm. With post_stabilization the contacts' projections
 * run in the islands' items too (bpp-skyline is a direct solver). */
static long steps_allocations(int workers, int post_stabilization) {
    static const heft_allocator counting = {count_alloc, count_realloc, count_free, NULL};
    heft_set_allocator(&counting);
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = "stacking";
    cfg.solver = "bpp-skyline";
    cfg.params.size = 40;
    run_result r;
    int steps = 0;
    double h = 0.0;
    cr_assert_eq(run_open(&cfg, &r, &steps, &h), 0, "%s", r.error);
    task_pool *pool = workers > 0 ? task_pool_create(workers) : NULL;
    if (workers > 0) {
        cr_assert_not_null(pool);
        cr_assert_eq(task_pool_attach(pool, r.world), HEFT_OK);
    }
    cr_assert_eq(heft_world_set_post_stabilization(r.world, post_stabilization), HEFT_OK);
    for (int i = 0; i < 120; ++i) {
        cr_assert_eq(heft_world_step(r.world, h), HEFT_OK);
    }
    atomic_store(&allocations, 0);
    for (int i = 0; i < 200; ++i) {
        cr_assert_eq(heft_world_step(r.world, h), HEFT_OK);
    }
    long during = atomic_load(&allocations);
    run_result_free(&r);
    task_pool_destroy(pool);
    heft_set_allocator(NULL);
    return during;
}

Test(parallel_islands, steps_allocate_nothing_after_warmup_with_workers, .timeout = 600) {
    cr_assert_eq(steps_allocations(0, 0), 0, "the serial step allocated after warm-up");
    cr_assert_eq(steps_allocations(2, 0), 0, "2 workers: the step allocated after warm-up");
    cr_assert_eq(steps_allocations(4, 0), 0, "4 workers: the step allocated after warm-up");
}

Test(parallel_islands, post_stabilized_steps_allocate_nothing_after_warmup_with_workers,
     .timeout = 600) {
    cr_assert_eq(steps_allocations(0, 2), 0, "the serial step allocated after warm-up");
    cr_assert_eq(steps_allocations(2, 2), 0, "2 workers: the step allocated after warm-up");
    cr_assert_eq(steps_allocations(4, 2), 0, "4 workers: the step allocated after warm-up");
}
