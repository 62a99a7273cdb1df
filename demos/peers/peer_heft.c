/* heft-peers: the scenes in Heft, through the public API (heft.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heft.h"
#include "mlcp.h"
#include "peers.h"
#include "task_pool.h"

typedef struct heft_peer {
    heft_world *world;
    task_pool *pool; /* the world's task system, NULL for the serial step */
    heft_body_id *bodies;
    int count;
    int replay;            /* pgs: time the sweeps by solving each island again */
    void *pgs, *pgs_setup; /* PGS states: the world's sweeps, and no sweep at all */
    double *lambda;
    int lambda_cap;
    double solve_ms;    /* the last step's sweeps, summed over islands, CPU time */
    double callback_ms; /* CPU time spent replaying, taken off the step's time */
    int sweeps;         /* the most any island of the last step ran */
    int rows;           /* rows of the last step's islands */
    double row_passes;  /* the replays' rows times their sweeps, velocity and position */
} heft_peer;

/* Island callback. With pgs, the island's problem is solved again by two PGS
 * states of the world's options, one with its sweeps and one with none, both
 * timed in CPU time: their difference is the time of the sweeps alone (the
 * setup of the rows and the error measure excluded, as Bullet's iterations
 * are timed without theirs) and preemption on a shared machine does not
 * count. The replay's own time is taken off the step's. */
static void on_island(void *user, int index, const heft_mlcp *p, const double *lambda,
                      const heft_solver_stats *stats) {
    heft_peer *s = user;
    (void)lambda;
    (void)index;
    s->sweeps = stats->iterations > s->sweeps ? stats->iterations : s->sweeps;
    s->rows += p->n;
    if (!s->replay || p->n <= 0) {
        return;
    }
    const double t0 = peer_cpu_ms();
    if (p->n > s->lambda_cap) {
        free(s->lambda);
        s->lambda = malloc(sizeof(double) * (size_t)p->n);
        s->lambda_cap = s->lambda ? p->n : 0;
    }
    if (s->lambda) {
        const heft_solver_vtable *pgs = heft_solver_find("pgs");
        heft_solver_stats st;
        const double t1 = peer_cpu_ms();
        pgs->solve(s->pgs, p, s->lambda, &st);
        const double t2 = peer_cpu_ms();
        /* the position pass's sweeps (inner_iterations) go over the rows
         * as the velocity's do, and are in the time */
        s->row_passes += (double)p->n * (double)(st.iterations + st.inner_iterations);
        pgs->solve(s->pgs_setup, p, s->lambda, &st);
        const double t3 = peer_cpu_ms();
        s->solve_ms += (t2 - t1) - (t3 - t2);
    }
    s->callback_ms += peer_cpu_ms() - t0;
}

static heft_body_id add_body(heft_world *w, const double at[3], double mass, heft_mat3 inertia,
                             const heft_shape_def *sd) {
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(at[0], at[1], at[2]);
    bd.mass = mass;
    bd.inertia = inertia;
    heft_body_id b = heft_create_body(w, &bd);
    heft_create_shape(w, b, sd);
    return b;
}

static void *heft_peer_chain(heft_peer *s, const peer_scene *scene);

/* The variant is the solver's name, "NAME/W" to step on a pool of W threads. */
static void *heft_peer_create(const peer_scene *scene, const char *variant) {
    char solver[64];
    int workers = 1;
    const char *slash = strchr(variant, '/');
    const size_t len = slash ? (size_t)(slash - variant) : strlen(variant);
    if (len >= sizeof solver) {
        return NULL;
    }
    memcpy(solver, variant, len);
    solver[len] = '\0';
    if (slash) {
        workers = atoi(slash + 1);
    }
    heft_peer *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    heft_world_def wd = heft_default_world_def();
    wd.solver = solver;
    s->world = heft_world_create(&wd);
    s->count = peer_scene_body_count(scene);
    s->bodies = calloc((size_t)s->count + 1, sizeof *s->bodies);
    if (!s->world || !s->bodies) {
        free(s->bodies);
        free(s);
        return NULL;
    }
    heft_world *w = s->world;
    if (peer_heft_tolerance > 0.0 || peer_heft_accept > 0.0) {
        heft_solver_options o = heft_world_solver_options(w);
        if (peer_heft_tolerance > 0.0)
            o.tolerance = peer_heft_tolerance;
        o.backstop_accept = peer_heft_accept;
        if (heft_world_set_solver_options(w, &o) != HEFT_OK) {
            heft_world_destroy(w);
            free(s->bodies);
            free(s);
            return NULL;
        }
    }
    if (workers > 1) {
        s->pool = task_pool_create(workers);
        if (!s->pool || task_pool_attach(s->pool, w) != HEFT_OK) {
            task_pool_destroy(s->pool);
            heft_world_destroy(w);
            free(s->bodies);
            free(s);
            return NULL;
        }
    }
    s->replay = strcmp(solver, "pgs") == 0;
    if (s->replay) {
        /* only the replay needs each island's problem: an island callback
         * makes the step build, solve and update the islands as three tasks
         * with the callbacks between them on the stepping thread, where an
         * application without one gets one task an island (tasks.md) */
        heft_world_set_island_callback(w, on_island, s);
        const heft_solver_vtable *pgs = heft_solver_find("pgs");
        heft_solver_options o = heft_world_solver_options(w);
        s->pgs = pgs->create(&o);
        o.max_iterations = 0;
        s->pgs_setup = pgs->create(&o);
    }
    if (scene->kind == PEER_CHAIN) {
        return heft_peer_chain(s, scene);
    }
    heft_body_def ground = heft_default_body_def();
    ground.type = HEFT_BODY_STATIC;
    heft_body_id g = heft_create_body(w, &ground);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    heft_create_shape(w, g, &plane);

    double at[3];
    heft_shape_def box = heft_default_shape_def();
    box.type = HEFT_SHAPE_BOX;
    box.half_extents = heft_v3(PEER_BOX_HALF, PEER_BOX_HALF, PEER_BOX_HALF);
    heft_mat3 inertia = heft_inertia_box(PEER_BOX_MASS, box.half_extents);
    for (int i = 0; i < s->count; ++i) {
        peer_scene_start(scene, i, at);
        s->bodies[i] = add_body(w, at, PEER_BOX_MASS, inertia, &box);
    }
    return s;
}

/* The chain hangs free: no ground. */
static void *heft_peer_chain(heft_peer *s, const peer_scene *scene) {
    heft_world *w = s->world;
    double at[3], pivot[3];
    peer_chain_pivot(scene, pivot);
    heft_shape_def link = heft_default_shape_def();
    link.type = HEFT_SHAPE_CAPSULE;
    link.radius = PEER_LINK_RADIUS;
    link.half_length = 0.5 * PEER_LINK_LENGTH - PEER_LINK_RADIUS;
    heft_shape_def load = heft_default_shape_def();
    load.radius = PEER_LOAD_RADIUS;
    heft_body_id prev = HEFT_WORLD_FRAME;
    for (int i = 0; i < s->count; ++i) {
        const int is_load = i == scene->size;
        peer_scene_start(scene, i, at);
        s->bodies[i] =
            is_load ? add_body(w, at, scene->load_mass,
                               heft_inertia_sphere(scene->load_mass, PEER_LOAD_RADIUS), &load)
                    : add_body(w, at, PEER_LINK_MASS,
                               heft_inertia_capsule(PEER_LINK_MASS, link.radius, link.half_length),
                               &link);
        heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
        jd.body_a = prev;
        jd.body_b = s->bodies[i];
        heft_joint_def_set_world_frame(w, &jd,
                                       heft_v3(pivot[0], pivot[1], pivot[2] - i * PEER_LINK_LENGTH),
                                       heft_v3(0.0, 0.0, 1.0));
        heft_create_joint(w, &jd);
        prev = s->bodies[i];
    }
    return s;
}

static void heft_peer_step(void *world, double h) {
    heft_peer *s = world;
    s->solve_ms = 0.0;
    s->callback_ms = 0.0;
    s->sweeps = 0;
    s->rows = 0;
    s->row_passes = 0.0;
    heft_world_step(s->world, h);
    if (!s->replay) {
        const heft_step_stats *st = heft_world_stats(s->world);
        s->sweeps = st->iterations_max;
        s->rows = st->rows;
    }
}

static double heft_peer_mlcp_error(void *world) {
    return heft_world_stats(((heft_peer *)world)->world)->error_max;
}

static int heft_peer_unconverged(void *world) {
    return heft_world_stats(((heft_peer *)world)->world)->not_converged;
}

static int heft_peer_count(void *world) {
    return ((heft_peer *)world)->count;
}

static void heft_peer_pose(void *world, int i, peer_pose *out) {
    heft_peer *s = world;
    heft_vec3 p = heft_body_position(s->world, s->bodies[i]);
    heft_quat q = heft_body_orientation(s->world, s->bodies[i]);
    out->p[0] = p.x;
    out->p[1] = p.y;
    out->p[2] = p.z;
    out->q[0] = q.w;
    out->q[1] = q.x;
    out->q[2] = q.y;
    out->q[3] = q.z;
}

static double heft_peer_penetration(void *world) {
    heft_peer *s = world;
    double deepest = 0.0;
    const int n = heft_world_contact_count(s->world);
    for (int i = 0; i < n; ++i) {
        heft_contact_info c;
        if (heft_world_contact(s->world, i, &c) == HEFT_OK && -c.separation > deepest) {
            deepest = -c.separation;
        }
    }
    return deepest;
}

static double heft_peer_solver_ms(void *world) {
    heft_peer *s = world;
    return s->replay ? s->solve_ms : -1.0;
}

static double heft_peer_overhead_ms(void *world) {
    return ((heft_peer *)world)->callback_ms;
}

static int heft_peer_solver_iterations(void *world) {
    return ((heft_peer *)world)->sweeps;
}

static int heft_peer_solver_rows(void *world) {
    return ((heft_peer *)world)->rows;
}

static double heft_peer_solver_row_passes(void *world) {
    return ((heft_peer *)world)->row_passes;
}

static void heft_peer_destroy(void *world) {
    heft_peer *s = world;
    if (s) {
        const heft_solver_vtable *pgs = heft_solver_find("pgs");
        if (s->pgs) {
            pgs->destroy(s->pgs);
        }
        if (s->pgs_setup) {
            pgs->destroy(s->pgs_setup);
        }
        free(s->lambda);
        heft_world_destroy(s->world);
        task_pool_destroy(s->pool);
        free(s->bodies);
        free(s);
    }
}

#define HEFT_PEER(id, label, solver, workers)                                                      \
    const peer_engine id = {.name = label,                                                         \
                            .variant = solver,                                                     \
                            .create = heft_peer_create,                                            \
                            .step = heft_peer_step,                                                \
                            .body_count = heft_peer_count,                                         \
                            .pose = heft_peer_pose,                                                \
                            .penetration = heft_peer_penetration,                                  \
                            .solver_ms = heft_peer_solver_ms,                                      \
                            .solver_iterations = heft_peer_solver_iterations,                      \
                            .solver_rows = heft_peer_solver_rows,                                  \
                            .solver_row_passes = heft_peer_solver_row_passes,                      \
                            .overhead_ms = heft_peer_overhead_ms,                                  \
                            .mlcp_error = heft_peer_mlcp_error,                                    \
                            .unconverged = heft_peer_unconverged,                                  \
                            .destroy = heft_peer_destroy,                                          \
                            .threads = workers}

HEFT_PEER(peer_heft_pgs, "heft pgs", "pgs", 1);
HEFT_PEER(peer_heft_skyline, "heft bpp-skyline", "bpp-skyline", 1);
HEFT_PEER(peer_heft_skyline_2, "heft bpp-skyline 2 threads", "bpp-skyline/2", 2);
