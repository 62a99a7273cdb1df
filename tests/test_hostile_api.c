/* Every public function of heft.h fed invalid ids, NULL, NaN, Inf, zero,
 * negative and huge values: each call must return an error (a negative
 * heft_result, an invalid id, NULL, or the documented neutral value of a
 * getter), leave a message in heft_last_error that this call wrote, and leave
 * the world bit-identical (world_snapshot.h). */
#include <criterion/criterion.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heft.h"
#include "world_snapshot.h"

static heft_world *world;
static heft_body_id dyn, dyn2, fixed, kin, stale_body;
static heft_joint_id hinge, rod, stale_joint;
static heft_shape_id box, plane, stale_shape;
static world_snapshot before;
static int tried, refused;

/* A unique message written before each call, so that a call which returns
 * an error without writing its own message is caught. */
static void mark(void) {
    heft_world_set_solver(world, "\x01mark");
}

static int marked(void) {
    return strstr(heft_last_error(), "\x01mark") != NULL;
}

static void expect_refused(int is_error, const char *what, int line) {
    tried++;
    cr_assert(is_error, "line %d: %s was accepted", line, what);
    cr_assert_neq(heft_last_error()[0], '\0', "line %d: %s: no message", line, what);
    cr_assert(!marked(), "line %d: %s: the call wrote no message of its own", line, what);
    world_snapshot after;
    world_snapshot_take(world, &after);
    cr_assert(world_snapshot_equal(&before, &after), "line %d: %s changed the world", line, what);
    refused++;
}

/* result is a heft_result or a negative int on refusal */
#define REFUSED(call)                                                                              \
    do {                                                                                           \
        mark();                                                                                    \
        int rc_ = (int)(call);                                                                     \
        expect_refused(rc_ < 0, #call, __LINE__);                                                  \
    } while (0)
/* the call returns an id: index < 0 on refusal */
#define REFUSED_ID(call)                                                                           \
    do {                                                                                           \
        mark();                                                                                    \
        int index_ = (call).index;                                                                 \
        expect_refused(index_ < 0, #call, __LINE__);                                               \
    } while (0)
/* a getter: the documented neutral value, and a message */
#define NEUTRAL(call, neutral)                                                                     \
    do {                                                                                           \
        mark();                                                                                    \
        int ok_ = (call) == (neutral);                                                             \
        expect_refused(ok_, #call, __LINE__);                                                      \
    } while (0)
#define NEUTRAL_VEC(call, v)                                                                       \
    do {                                                                                           \
        mark();                                                                                    \
        heft_vec3 got_ = (call);                                                                   \
        expect_refused(got_.x == (v).x && got_.y == (v).y && got_.z == (v).z, #call, __LINE__);    \
    } while (0)

static const double bad_scalars[] = {NAN, INFINITY, -INFINITY, 1e300, -1e300};
#define N_SCALARS (int)(sizeof bad_scalars / sizeof bad_scalars[0])

static heft_vec3 bad_vec(int k) {
    static const heft_vec3 v[] = {{NAN, 0, 0},   {0, INFINITY, 0}, {0, 0, -INFINITY},
                                  {1e300, 0, 0}, {0, -1e300, 0},   {1e28, 1e28, 1e28}};
    return v[k];
}
#define N_VECS 6

static heft_quat bad_quat(int k) {
    static const heft_quat q[] = {{0, 0, 0, 0},         {NAN, 0, 0, 0},   {1, INFINITY, 0, 0},
                                  {1e200, 1e200, 0, 0}, {1e300, 0, 0, 0}, {1e-300, 0, 0, 0},
                                  {4.9e-324, 0, 0, 0}};
    return q[k];
}
#define N_QUATS 7

static heft_body_id bad_body(int k) {
    heft_body_id ids[] = {
        {0, 0},         {-1, 0},        {-7, 3},    {1000, 1},
        {INT32_MAX, 1}, {INT32_MIN, 1}, stale_body, {dyn.index, dyn.generation + 1}};
    return ids[k];
}
#define N_BODY_IDS 8

static heft_joint_id bad_joint(int k) {
    heft_joint_id ids[] = {{0, 0},         {-1, 0},     {1000, 1},
                           {INT32_MAX, 1}, stale_joint, {hinge.index, hinge.generation + 7}};
    return ids[k];
}
#define N_JOINT_IDS 6

static heft_shape_id bad_shape(int k) {
    heft_shape_id ids[] = {{0, 0}, {-1, 0}, {1000, 1}, {INT32_MAX, 1}, stale_shape};
    return ids[k];
}
#define N_SHAPE_IDS 5

static void setup(void) {
    heft_world_def wd = heft_default_world_def();
    wd.enable_sleep = 1;
    world = heft_world_create(&wd);
    heft_body_def bd = heft_default_body_def();
    bd.type = HEFT_BODY_STATIC;
    fixed = heft_create_body(world, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_PLANE;
    plane = heft_create_shape(world, fixed, &sd);
    bd = heft_default_body_def();
    bd.position = heft_v3(0, 0, 0.45);
    dyn = heft_create_body(world, &bd);
    sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    box = heft_create_shape(world, dyn, &sd);
    bd.position = heft_v3(0, 0, 3);
    dyn2 = heft_create_body(world, &bd);
    bd.type = HEFT_BODY_KINEMATIC;
    bd.position = heft_v3(5, 0, 3);
    kin = heft_create_body(world, &bd);

    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_HINGE);
    jd.body_a = HEFT_WORLD_FRAME;
    jd.body_b = dyn2;
    heft_joint_def_set_world_frame(world, &jd, heft_v3(0, 0, 4), heft_v3(1, 0, 0));
    jd.motor[HEFT_DOF_RX].mode = HEFT_MOTOR_VELOCITY;
    jd.motor[HEFT_DOF_RX].max_force = 10.0;
    hinge = heft_create_joint(world, &jd);
    jd = heft_default_joint_def(HEFT_JOINT_DISTANCE);
    jd.body_a = kin;
    jd.body_b = dyn2;
    rod = heft_create_joint(world, &jd);

    /* stale ids: made and destroyed before the snapshot */
    bd = heft_default_body_def();
    bd.position = heft_v3(20, 0, 0);
    stale_body = heft_create_body(world, &bd);
    sd = heft_default_shape_def();
    stale_shape = heft_create_shape(world, stale_body, &sd);
    jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_b = stale_body;
    heft_joint_def_set_world_frame(world, &jd, heft_v3(20, 0, 1), heft_v3(0, 0, 1));
    stale_joint = heft_create_joint(world, &jd);
    heft_destroy_body(world, stale_body);

    for (int i = 0; i < 3; ++i) {
        heft_world_step(world, 1.0 / 60.0);
    }
    /* asleep, so that a refused call that wakes it shows */
    heft_body_set_awake(world, dyn, 0);
    cr_assert(!heft_body_is_awake(world, dyn));
    cr_assert(heft_body_is_valid(world, dyn) && heft_joint_is_valid(world, hinge) &&
              heft_joint_is_valid(world, rod) && heft_shape_is_valid(world, box) &&
              !heft_body_is_valid(world, stale_body) && !heft_joint_is_valid(world, stale_joint));
    world_snapshot_take(world, &before);
    tried = refused = 0;
}

static void teardown(void) {
    heft_world_destroy(world);
}

TestSuite(hostile_api, .init = setup, .fini = teardown);

Test(hostile_api, world_functions_refuse_hostile_values) {
    REFUSED(heft_world_step(NULL, 1.0 / 60.0));
    double steps[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, -1.0, 1e-300, 4.9e-324, 1e-7, 1e300};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; ++k) {
        REFUSED(heft_world_step(world, steps[k]));
    }
    REFUSED(heft_world_set_solver(NULL, "pgs"));
    REFUSED(heft_world_set_solver(world, NULL));
    REFUSED(heft_world_set_solver(world, ""));
    REFUSED(heft_world_set_solver(world, "PGS"));
    REFUSED(heft_world_set_solver_options(NULL, NULL));
    REFUSED(heft_world_set_solver_options(world, NULL));
    for (int k = 0; k < N_VECS; ++k) {
        REFUSED(heft_world_set_gravity(world, bad_vec(k)));
    }
    REFUSED(heft_world_set_gravity(NULL, heft_v3(0, 0, -9.81)));
    int flags[] = {-1, 2, INT_MAX, INT_MIN};
    for (int k = 0; k < 4; ++k) {
        REFUSED(heft_world_set_geometric_stiffness(world, flags[k]));
        REFUSED(heft_joint_set_geometric_stiffness(world, hinge, flags[k]));
    }
    REFUSED(heft_world_set_geometric_stiffness(NULL, 1));
    for (int k = 0; k < 4; ++k) {
        REFUSED(heft_world_set_sleeping(world, flags[k]));
    }
    REFUSED(heft_world_set_sleeping(NULL, 0));
    for (int k = 0; k < N_SCALARS; ++k) {
        const double bad = isfinite(bad_scalars[k]) ? -fabs(bad_scalars[k]) : bad_scalars[k];
        REFUSED(heft_world_set_sleep_thresholds(world, bad, 0.05, 0.5));
        REFUSED(heft_world_set_sleep_thresholds(world, 0.05, bad, 0.5));
        REFUSED(heft_world_set_sleep_thresholds(world, 0.05, 0.05, bad));
    }
    REFUSED(heft_world_set_sleep_thresholds(NULL, 0.05, 0.05, 0.5));
    int iterations[] = {-1, 101, INT_MAX, INT_MIN};
    for (int k = 0; k < 4; ++k) {
        REFUSED(heft_world_set_post_stabilization(world, iterations[k]));
    }
    REFUSED(heft_world_set_post_stabilization(NULL, 1));
    int substeps[] = {0, -1, 1001, INT_MAX, INT_MIN};
    for (int k = 0; k < 5; ++k) {
        REFUSED(heft_world_set_substeps(world, substeps[k]));
    }
    REFUSED(heft_world_set_substeps(NULL, 1));
    const heft_world_capacity none = {0};
    REFUSED(heft_world_reserve(NULL, &none));
    REFUSED(heft_world_reserve(world, NULL));
    const int counts[] = {-1, INT_MIN, HEFT_CAPACITY_MAX + 1, INT_MAX};
    for (int k = 0; k < 4; ++k) {
        for (int field = 0; field < 7; ++field) {
            heft_world_capacity c = {0};
            int *f[] = {&c.bodies, &c.shapes, &c.joints,  &c.contacts,
                        &c.pairs,  &c.rows,   &c.envelope};
            *f[field] = counts[k];
            REFUSED(heft_world_reserve(world, &c));
        }
    }
    for (int k = 0; k < N_JOINT_IDS; ++k) {
        REFUSED(heft_joint_set_geometric_stiffness(world, bad_joint(k), 1));
    }
    heft_island_stats is;
    int islands[] = {-1, 1000, INT_MAX, INT_MIN};
    for (int k = 0; k < 4; ++k) {
        REFUSED(heft_world_island_stats(world, islands[k], &is));
    }
    REFUSED(heft_world_island_stats(world, 0, NULL));
    REFUSED(heft_world_island_stats(NULL, 0, &is));
    heft_contact_info ci;
    REFUSED(heft_world_contact(world, -1, &ci));
    REFUSED(heft_world_contact(world, INT_MAX, &ci));
    REFUSED(heft_world_contact(world, 0, NULL));
    REFUSED(heft_world_contact(NULL, 0, &ci));
    for (int k = 0; k < 3; ++k) { /* NaN and the infinities; 1e300 m/s is a valid threshold */
        REFUSED(heft_world_set_restitution_threshold(world, bad_scalars[k]));
    }
    REFUSED(heft_world_set_restitution_threshold(world, -1.0));
    REFUSED(heft_world_set_restitution_threshold(NULL, 1.0));
    for (int k = 0; k < 3; ++k) { /* as the restitution threshold */
        REFUSED(heft_world_set_hit_event_threshold(world, bad_scalars[k]));
    }
    REFUSED(heft_world_set_hit_event_threshold(world, -1.0));
    REFUSED(heft_world_set_hit_event_threshold(world, -0.5e-300));
    REFUSED(heft_world_set_hit_event_threshold(NULL, 1.0));
    REFUSED(heft_world_set_pair_filter(NULL, NULL, NULL));
    REFUSED(heft_world_set_pre_solve(NULL, NULL, NULL));
    mark();
    heft_sensor_events se = heft_world_sensor_events(NULL);
    expect_refused(se.begin == NULL && se.begin_count == 0 && se.end == NULL && se.end_count == 0,
                   "heft_world_sensor_events(NULL)", __LINE__);
    mark();
    heft_contact_events ce = heft_world_contact_events(NULL);
    expect_refused(ce.begin_count == 0 && ce.end_count == 0 && ce.hit == NULL && ce.hit_count == 0,
                   "heft_world_contact_events(NULL)", __LINE__);

    /* queries change nothing even when they succeed, and refuse bad input */
    heft_ray_hit hit;
    for (int k = 0; k < 3; ++k) {
        REFUSED(heft_world_ray_cast(world, bad_vec(k), heft_v3(0, 0, -1), 10.0, ~0u, &hit));
        REFUSED(heft_world_ray_cast(world, heft_v3(0, 0, 5), bad_vec(k), 10.0, ~0u, &hit));
    }
    /* far but finite rays and boxes are valid queries: they answer without
     * crashing and change nothing */
    for (int k = 3; k < N_VECS; ++k) {
        heft_world_ray_cast(world, bad_vec(k), heft_v3(0, 0, -1), 1e300, ~0u, &hit);
        heft_world_ray_cast(world, heft_v3(0, 0, 5), bad_vec(k), 1e300, ~0u, &hit);
        heft_world_query_aabb(world, heft_v3(-1e300, -1e300, -1e300), bad_vec(k), ~0u, NULL, 0);
        world_snapshot after;
        world_snapshot_take(world, &after);
        cr_assert(world_snapshot_equal(&before, &after));
    }
    REFUSED(heft_world_ray_cast(world, heft_v3(0, 0, 5), heft_v3(0, 0, 0), 10.0, ~0u, &hit));
    for (int k = 0; k < N_SCALARS; ++k) {
        if (bad_scalars[k] > 0.0 && isfinite(bad_scalars[k])) {
            continue; /* a long ray is valid */
        }
        REFUSED(heft_world_ray_cast(world, heft_v3(0, 0, 5), heft_v3(0, 0, -1), bad_scalars[k], ~0u,
                                    &hit));
    }
    REFUSED(heft_world_ray_cast(world, heft_v3(0, 0, 5), heft_v3(0, 0, -1), 10.0, ~0u, NULL));
    REFUSED(heft_world_ray_cast(NULL, heft_v3(0, 0, 5), heft_v3(0, 0, -1), 10.0, ~0u, &hit));
    heft_shape_id found[4];
    for (int k = 0; k < 3; ++k) {
        REFUSED(heft_world_query_aabb(world, bad_vec(k), heft_v3(1, 1, 1), ~0u, found, 4));
    }
    REFUSED(heft_world_query_aabb(world, heft_v3(1, 1, 1), heft_v3(0, 0, 0), ~0u, found, 4));
    REFUSED(heft_world_query_aabb(world, heft_v3(0, 0, 0), heft_v3(1, 1, 1), ~0u, found, -1));
    REFUSED(heft_world_query_aabb(world, heft_v3(0, 0, 0), heft_v3(1, 1, 1), ~0u, NULL, 4));
    REFUSED(heft_world_query_aabb(NULL, heft_v3(0, 0, 0), heft_v3(1, 1, 1), ~0u, found, 4));
    cr_log_info("world functions: %d hostile calls, %d refused", tried, refused);
}

/* a task system that runs every task at once on the calling thread */
static void *enqueue_inline(heft_task_fn *task, int count, int min_range, void *context,
                            void *user) {
    (void)min_range;
    (void)user;
    task(0, count, 0, context);
    return NULL;
}

static void finish_nothing(void *handle, void *user) {
    (void)handle;
    (void)user;
}

/* A half-given task system, a worker count out of range or a NULL world is
 * refused, and a task system already set stays as it was. */
Test(hostile_api, task_system_refuses_hostile_values) {
    cr_assert_eq(heft_world_set_task_system(world, enqueue_inline, finish_nothing, NULL, 3),
                 HEFT_OK);
    const int counts[] = {0, -1, HEFT_MAX_WORKERS + 1, INT_MAX, INT_MIN};
    for (int k = 0; k < 5; ++k) {
        REFUSED(heft_world_set_task_system(world, enqueue_inline, finish_nothing, NULL, counts[k]));
    }
    REFUSED(heft_world_set_task_system(world, enqueue_inline, NULL, NULL, 2));
    REFUSED(heft_world_set_task_system(world, NULL, finish_nothing, NULL, 2));
    REFUSED(heft_world_set_task_system(NULL, enqueue_inline, finish_nothing, NULL, 2));
    REFUSED(heft_world_set_task_system(NULL, NULL, NULL, NULL, 0));
    cr_assert_eq(heft_world_worker_count(world), 3);
    NEUTRAL(heft_world_worker_count(NULL), 1);
    cr_assert_eq(heft_world_step(world, 1.0 / 60.0), HEFT_OK);
    cr_assert_eq(heft_world_set_task_system(world, NULL, NULL, NULL, 0), HEFT_OK);
    cr_assert_eq(heft_world_worker_count(world), 1);
}

static void expect_no_world(const heft_world_def *wd, const char *what, int line) {
    mark();
    heft_world *w = heft_world_create(wd);
    tried++;
    cr_assert_null(w, "line %d: %s: a world was made", line, what);
    heft_world_destroy(w);
    cr_assert(heft_last_error()[0] != '\0' && !marked(), "line %d: %s: no message", line, what);
    refused++;
}
#define NO_WORLD(field, value)                                                                     \
    do {                                                                                           \
        heft_world_def wd_ = heft_default_world_def();                                             \
        wd_.field = value;                                                                         \
        expect_no_world(&wd_, #field " = " #value, __LINE__);                                      \
    } while (0)

/* The checksum of the bytes after a snapshot's 64-byte header (FNV-1a's
 * step over 8-byte words, then the bytes left), stored at byte 32 of it
 * (engine/snapshot.c, docs/snapshots.md): a hostile buffer with a checksum
 * that matches must still be refused for what it holds. */
static void snapshot_reseal(unsigned char *bytes, size_t size) {
    uint64_t h = 0xcbf29ce484222325ULL;
    size_t i = 64;
    for (; i + 8 <= size; i += 8) {
        uint64_t word;
        memcpy(&word, bytes + i, sizeof word);
        h ^= word;
        h *= 0x100000001b3ULL;
    }
    for (; i < size; ++i) {
        h ^= bytes[i];
        h *= 0x100000001b3ULL;
    }
    memcpy(bytes + 32, &h, sizeof h);
}

Test(hostile_api, snapshot_functions_refuse_hostile_buffers) {
    size_t size = 0;
    REFUSED(heft_world_save_state(NULL, NULL, 0, &size));
    REFUSED(heft_world_save_state(world, NULL, 0, NULL));
    cr_assert_eq(heft_world_save_state(world, NULL, 0, &size), HEFT_OK);
    unsigned char *good = malloc(size), *bad = malloc(size);
    cr_assert(good && bad);
    REFUSED(heft_world_save_state(world, good, size - 1, &size));
    cr_assert_eq(heft_world_save_state(world, good, size, &size), HEFT_OK);
    REFUSED(heft_world_restore_state(NULL, good, size));
    REFUSED(heft_world_restore_state(world, NULL, size));
    REFUSED(heft_world_restore_state(world, good, 0));
    REFUSED(heft_world_restore_state(world, good, size - 1));
    REFUSED(heft_world_restore_state(world, good, size + 1));
    /* a NaN, an infinity and a huge index in place of the dynamic body's
     * position x, each with a checksum that matches */
    heft_body_state st;
    heft_body_get_state(world, dyn, &st);
    size_t at = 0;
    for (size_t i = 64; i + 8 <= size && at == 0; ++i) {
        if (memcmp(good + i, &st.position.x, 8) == 0) {
            at = i;
        }
    }
    cr_assert_gt(at, 0, "the body's position is in the snapshot");
    const double hostile[] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; ++k) {
        memcpy(bad, good, size);
        memcpy(bad + at, &hostile[k], 8);
        snapshot_reseal(bad, size);
        REFUSED(heft_world_restore_state(world, bad, size));
    }
    /* every byte of the header and the first sections flipped in turn */
    for (size_t i = 0; i < size && i < 256; ++i) {
        memcpy(bad, good, size);
        bad[i] ^= 0xA5;
        if (i < 32 || i >= 40) {
            snapshot_reseal(bad, size);
        }
        mark();
        int rc = heft_world_restore_state(world, bad, size);
        if (rc != HEFT_OK) {
            expect_refused(1, "a flipped byte", __LINE__);
        } else {
            /* a finite value changed for another: taken; put the world back */
            cr_assert_eq(heft_world_restore_state(world, good, size), HEFT_OK);
        }
    }
    free(good);
    free(bad);
}

Test(hostile_api, world_defs_and_solver_options_refuse_hostile_values) {
    for (int k = 0; k < N_VECS; ++k) {
        NO_WORLD(gravity, bad_vec(k));
    }
    NO_WORLD(solver, "no-such-solver");
    for (int k = 0; k < N_SCALARS; ++k) {
        NO_WORLD(rigid_compliance,
                 bad_scalars[k] < 0.0 || isnan(bad_scalars[k]) ? bad_scalars[k] : INFINITY);
        NO_WORLD(joint_baumgarte, bad_scalars[k]);
        NO_WORLD(contact_baumgarte, bad_scalars[k]);
        NO_WORLD(contact_slop, isfinite(bad_scalars[k]) ? -1.0 : bad_scalars[k]);
        NO_WORLD(contact_margin, isfinite(bad_scalars[k]) ? -1.0 : bad_scalars[k]);
        NO_WORLD(contact_compliance, isfinite(bad_scalars[k]) ? -1.0 : bad_scalars[k]);
    }
    NO_WORLD(gyroscopic, (heft_gyroscopic)7);
    NO_WORLD(geometric_stiffness, 2);
    NO_WORLD(post_stabilization, -1);
    NO_WORLD(substeps, 0);
    NO_WORLD(enable_sleep, 2);
    NO_WORLD(enable_sleep, -1);
    for (int k = 0; k < N_SCALARS; ++k) {
        const double bad = isfinite(bad_scalars[k]) ? -fabs(bad_scalars[k]) : bad_scalars[k];
        NO_WORLD(sleep_linear_speed, bad);
        NO_WORLD(sleep_angular_speed, bad);
        NO_WORLD(time_to_sleep, bad);
    }

    /* every option, each with NaN or a value beyond its range */
    struct {
        const char *field;
        size_t offset;
        int is_double;
        double bad[3];
    } cases[] = {
#define OPT(f, d, a, b, c)                                                                         \
    {                                                                                              \
#f, offsetof(heft_solver_options, f), d, {                                                 \
            a, b, c                                                                                \
        }                                                                                          \
    }
        OPT(max_iterations, 0, -1, INT_MIN, -1),
        OPT(tolerance, 1, NAN, INFINITY, -1),
        OPT(relaxation, 1, NAN, 0, 2),
        OPT(warm_start, 0, -1, 2, INT_MAX),
        OPT(max_pivots, 0, -1, INT_MIN, -1),
        OPT(bpp_pgs_sweeps, 0, -1, INT_MIN, -1),
        OPT(keep_index_sets, 0, -1, 2, INT_MAX),
        OPT(skyline_refactor_fraction, 1, NAN, -1e-9, 1.5),
        OPT(backstop_max_variables, 0, -2, INT_MIN, HEFT_BACKSTOP_MAX_VARIABLES_LIMIT + 1),
        OPT(backstop_pivot_budget, 1, NAN, 0, HEFT_BACKSTOP_PIVOT_BUDGET_LIMIT * 2),
        OPT(backstop_accept, 1, NAN, INFINITY, -1),
        OPT(preconditioner, 0, -1, HEFT_PRECOND_COUNT, INT_MAX),
        OPT(pcg_tolerance, 1, NAN, INFINITY, -1),
        OPT(pcg_max_iterations, 0, 0, -1, INT_MIN),
        OPT(ict_drop_tolerance, 1, NAN, INFINITY, -1),
        OPT(ict_fill, 0, -1, INT_MIN, -1),
        OPT(adaptive_regularization, 0, -1, 2, INT_MAX),
        OPT(regularization_shift, 1, NAN, INFINITY, -1),
        OPT(regularization_pivot_limit, 0, 0, -1, INT_MIN),
        OPT(cr_tolerance, 1, NAN, INFINITY, -1),
        OPT(cr_max_iterations, 0, 0, -1, INT_MIN),
        OPT(ldl_ordering, 0, -1, HEFT_LDL_ORDER_COUNT, INT_MAX),
        OPT(ldl_shatter_degree, 0, -1, INT_MIN, -1),
        OPT(ldl_shard_constraints, 0, 0, -1, INT_MIN),
        OPT(ldl_regularization, 1, NAN, 1.0, -1),
        OPT(pgs_light_ratio, 1, NAN, 0.5, INFINITY),
#undef OPT
    };
    size_t fields = sizeof cases / sizeof cases[0];
    /* the table must cover the struct: 26 fields, 15 ints and 11 doubles, 148
     * bytes and 20 of padding on an LP64 target (fields are not ordered by size) */
    cr_assert_eq(sizeof(heft_solver_options), 168,
                 "heft_solver_options changed: add the new field here and to the check");
    for (size_t k = 0; k < fields; ++k) {
        for (int v = 0; v < 3; ++v) {
            heft_solver_options o = heft_world_solver_options(world);
            char *at = (char *)&o + cases[k].offset;
            if (cases[k].is_double) {
                double x = cases[k].bad[v];
                memcpy(at, &x, sizeof x);
            } else {
                int x = (int)cases[k].bad[v];
                memcpy(at, &x, sizeof x);
            }
            REFUSED(heft_world_set_solver_options(world, &o));
            cr_assert_not_null(strstr(heft_last_error(), cases[k].field), "%s: %s", cases[k].field,
                               heft_last_error());
        }
    }
    cr_log_info("world defs and options: %d hostile calls, %d refused", tried, refused);
}

Test(hostile_api, body_functions_refuse_hostile_values) {
    REFUSED_ID(heft_create_body(NULL, NULL));
    REFUSED_ID(heft_create_body(world, NULL));
    heft_body_def base = heft_default_body_def();
    REFUSED_ID(heft_create_body(NULL, &base));
#define BAD_BODY(field, value)                                                                     \
    do {                                                                                           \
        heft_body_def bd_ = heft_default_body_def();                                               \
        bd_.field = value;                                                                         \
        REFUSED_ID(heft_create_body(world, &bd_));                                                 \
    } while (0)
    BAD_BODY(type, (heft_body_type)3);
    BAD_BODY(type, (heft_body_type)-1);
    for (int k = 0; k < N_VECS; ++k) {
        BAD_BODY(position, bad_vec(k));
        BAD_BODY(linear_velocity, bad_vec(k));
        BAD_BODY(angular_velocity, bad_vec(k));
    }
    for (int k = 0; k < N_QUATS; ++k) {
        BAD_BODY(orientation, bad_quat(k));
    }
    double masses[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, -1.0, 1e-310, 4.9e-324, 1e-12, 1e300};
    for (size_t k = 0; k < sizeof masses / sizeof masses[0]; ++k) {
        BAD_BODY(mass, masses[k]);
        REFUSED(heft_body_set_mass(world, dyn, masses[k], heft_mat3_identity()));
    }
    heft_mat3 inertias[] = {heft_mat3_diag(1e200, 1e200, 1e-100),
                            heft_mat3_diag(1, 1, -1),
                            heft_mat3_diag(1, 1, 0),
                            heft_mat3_diag(NAN, 1, 1),
                            heft_mat3_diag(INFINITY, 1, 1),
                            heft_mat3_diag(1, 1, 1e-13),
                            heft_mat3_diag(1e-30, 1e-30, 1e-30),
                            heft_mat3_diag(1e30, 1e30, 1e30)};
    inertias[1].m[0][1] = 0.5;
    for (size_t k = 0; k < sizeof inertias / sizeof inertias[0]; ++k) {
        BAD_BODY(inertia, inertias[k]);
        REFUSED(heft_body_set_mass(world, dyn, 1.0, inertias[k]));
    }
    for (int k = 0; k < N_SCALARS; ++k) {
        BAD_BODY(linear_damping,
                 bad_scalars[k] > 0 && isfinite(bad_scalars[k]) ? -1.0 : bad_scalars[k]);
        BAD_BODY(angular_damping,
                 bad_scalars[k] > 0 && isfinite(bad_scalars[k]) ? -1.0 : bad_scalars[k]);
        BAD_BODY(gravity_scale, bad_scalars[k]);
    }
    REFUSED(heft_body_set_mass(world, fixed, 1.0, heft_mat3_identity()));
    REFUSED(heft_body_set_mass(NULL, dyn, 1.0, heft_mat3_identity()));

    heft_body_state st;
    for (int k = 0; k < N_BODY_IDS; ++k) {
        heft_body_id id = bad_body(k);
        REFUSED(heft_destroy_body(world, id));
        REFUSED(heft_body_get_state(world, id, &st));
        REFUSED(heft_body_set_transform(world, id, heft_v3(0, 0, 0), heft_quat_identity()));
        REFUSED(heft_body_set_linear_velocity(world, id, heft_v3(1, 0, 0)));
        REFUSED(heft_body_set_angular_velocity(world, id, heft_v3(1, 0, 0)));
        REFUSED(heft_body_set_mass(world, id, 1.0, heft_mat3_identity()));
        REFUSED(heft_body_apply_force(world, id, heft_v3(1, 0, 0), heft_v3(0, 0, 0)));
        REFUSED(heft_body_apply_torque(world, id, heft_v3(1, 0, 0)));
        REFUSED(heft_body_set_mass_from_shapes(world, id));
        REFUSED(heft_body_wake(world, id));
        REFUSED(heft_body_set_awake(world, id, 1));
        REFUSED(heft_body_set_awake(world, id, 0));
        REFUSED(heft_body_set_sleep_enabled(world, id, 0));
        NEUTRAL(heft_body_is_awake(world, id), 0);
        NEUTRAL(heft_body_sleep_enabled(world, id), 0);
        NEUTRAL(heft_body_island_id(world, id), -1);
        cr_assert_eq(heft_body_is_valid(world, id), 0);
        NEUTRAL(heft_body_mass(world, id), 0.0);
        NEUTRAL(heft_body_user_data(world, id), NULL);
        NEUTRAL(heft_body_name(world, id)[0], '\0');
        NEUTRAL(heft_body_shapes(world, id, NULL, 0), 0);
        NEUTRAL_VEC(heft_body_position(world, id), heft_v3(0, 0, 0));
        NEUTRAL_VEC(heft_body_linear_velocity(world, id), heft_v3(0, 0, 0));
        NEUTRAL_VEC(heft_body_angular_velocity(world, id), heft_v3(0, 0, 0));
        NEUTRAL_VEC(heft_body_angular_momentum(world, id), heft_v3(0, 0, 0));
        NEUTRAL_VEC(heft_body_world_point(world, id, heft_v3(1, 2, 3)), heft_v3(1, 2, 3));
        NEUTRAL_VEC(heft_body_local_point(world, id, heft_v3(1, 2, 3)), heft_v3(1, 2, 3));
        mark();
        heft_quat q = heft_body_orientation(world, id);
        expect_refused(q.w == 1.0 && q.x == 0.0 && q.y == 0.0 && q.z == 0.0,
                       "heft_body_orientation", __LINE__);
    }
    int switches[] = {-1, 2, INT_MAX, INT_MIN};
    for (int k = 0; k < 4; ++k) {
        REFUSED(heft_body_set_awake(world, dyn, switches[k]));
        REFUSED(heft_body_set_sleep_enabled(world, dyn, switches[k]));
    }
    REFUSED(heft_body_wake(NULL, dyn));
    REFUSED(heft_body_set_awake(NULL, dyn, 1));
    REFUSED(heft_body_set_sleep_enabled(NULL, dyn, 1));
    NEUTRAL(heft_body_is_awake(NULL, dyn), 0);
    NEUTRAL(heft_body_island_id(NULL, dyn), -1);
    NEUTRAL(heft_world_body_events(NULL).woke_count, 0);
    REFUSED(heft_body_get_state(world, dyn, NULL));
    REFUSED(heft_body_get_state(NULL, dyn, &st));
    REFUSED(heft_destroy_body(NULL, dyn));
    for (int k = 0; k < N_VECS; ++k) {
        REFUSED(heft_body_set_transform(world, dyn, bad_vec(k), heft_quat_identity()));
        REFUSED(heft_body_set_linear_velocity(world, dyn, bad_vec(k)));
        REFUSED(heft_body_set_angular_velocity(world, dyn, bad_vec(k)));
        REFUSED(heft_body_apply_force(world, dyn, bad_vec(k), heft_v3(0, 0, 0)));
        REFUSED(heft_body_apply_force(world, dyn, heft_v3(1, 0, 0), bad_vec(k)));
        REFUSED(heft_body_apply_torque(world, dyn, bad_vec(k)));
    }
    for (int k = 0; k < N_QUATS; ++k) {
        REFUSED(heft_body_set_transform(world, dyn, heft_v3(0, 0, 0), bad_quat(k)));
    }
    REFUSED(heft_body_set_mass_from_shapes(world, fixed)); /* not dynamic */
    REFUSED(heft_body_set_mass_from_shapes(world, dyn2));  /* no shapes */
    cr_log_info("body functions: %d hostile calls, %d refused", tried, refused);
}

Test(hostile_api, shape_functions_refuse_hostile_values) {
    heft_shape_def base = heft_default_shape_def();
    for (int k = 0; k < N_SHAPE_IDS; ++k) {
        NEUTRAL(heft_shape_is_sensor(world, bad_shape(k)), 0);
    }
    NEUTRAL(heft_shape_is_sensor(NULL, box), 0);
    REFUSED_ID(heft_create_shape(NULL, dyn, &base));
    REFUSED_ID(heft_create_shape(world, dyn, NULL));
    for (int k = 0; k < N_BODY_IDS; ++k) {
        REFUSED_ID(heft_create_shape(world, bad_body(k), &base));
    }
#define BAD_SHAPE(type_, field, value)                                                             \
    do {                                                                                           \
        heft_shape_def sd_ = heft_default_shape_def();                                             \
        sd_.type = type_;                                                                          \
        sd_.field = value;                                                                         \
        REFUSED_ID(heft_create_shape(world, dyn, &sd_));                                           \
        if (type_ != HEFT_SHAPE_PLANE) {                                                           \
            double m_ = -1.0;                                                                      \
            REFUSED(heft_shape_def_mass(&sd_, &m_, NULL, NULL));                                   \
            cr_assert_eq(m_, -1.0);                                                                \
        }                                                                                          \
    } while (0)
    double sizes[] = {NAN, INFINITY, -INFINITY, 0.0, -1.0, 1e300, 1e7};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; ++k) {
        BAD_SHAPE(HEFT_SHAPE_SPHERE, radius, sizes[k]);
        BAD_SHAPE(HEFT_SHAPE_CAPSULE, radius, sizes[k]);
        BAD_SHAPE(HEFT_SHAPE_CYLINDER, radius, sizes[k]);
        BAD_SHAPE(HEFT_SHAPE_CYLINDER, half_length, sizes[k]);
        BAD_SHAPE(HEFT_SHAPE_BOX, half_extents.x, sizes[k]);
        BAD_SHAPE(HEFT_SHAPE_BOX, half_extents.z, sizes[k]);
        if (sizes[k] != 0.0) {
            BAD_SHAPE(HEFT_SHAPE_CAPSULE, half_length, sizes[k]);
        }
        BAD_SHAPE(HEFT_SHAPE_SPHERE, friction,
                  sizes[k] >= 0.0 && isfinite(sizes[k]) ? -1 : sizes[k]);
        BAD_SHAPE(HEFT_SHAPE_SPHERE, restitution, sizes[k] == 0.0 ? 1.5 : sizes[k]);
        BAD_SHAPE(HEFT_SHAPE_SPHERE, density, isfinite(sizes[k]) && sizes[k] >= 0 ? -1 : sizes[k]);
        /* 0 is off; 1e7 m is beyond HEFT_ROLLING_RESISTANCE_MAX */
        BAD_SHAPE(HEFT_SHAPE_CAPSULE, rolling_resistance, sizes[k] == 0.0 ? -1e-3 : sizes[k]);
    }
    {
        /* a density is checked where a mass is made of it */
        heft_shape_def sd = heft_default_shape_def();
        sd.type = HEFT_SHAPE_BOX;
        sd.density = 1e308;
        REFUSED(heft_shape_def_mass(&sd, NULL, NULL, NULL));
    }
    for (int k = 0; k < N_VECS; ++k) {
        BAD_SHAPE(HEFT_SHAPE_SPHERE, local_position, bad_vec(k));
    }
    for (int k = 0; k < N_QUATS; ++k) {
        BAD_SHAPE(HEFT_SHAPE_BOX, local_orientation, bad_quat(k));
    }
    BAD_SHAPE((heft_shape_type)99, radius, 1.0);
    BAD_SHAPE((heft_shape_type)-1, radius, 1.0);
    BAD_SHAPE(HEFT_SHAPE_HULL, hull.count, 4); /* NULL points */
    BAD_SHAPE(HEFT_SHAPE_HULL, hull.count, -1);
    BAD_SHAPE(HEFT_SHAPE_HULL, hull.count, INT_MAX);
    heft_vec3 huge_hull[4] = {{0, 0, 0}, {1e300, 0, 0}, {0, 1e300, 0}, {0, 0, 1e300}};
    {
        heft_shape_def sd = heft_default_shape_def();
        sd.type = HEFT_SHAPE_HULL;
        sd.hull.points = huge_hull;
        sd.hull.count = 4;
        REFUSED_ID(heft_create_shape(world, dyn, &sd));
        REFUSED(heft_shape_def_mass(&sd, NULL, NULL, NULL));
    }
    {
        heft_shape_def sd = heft_default_shape_def();
        sd.type = HEFT_SHAPE_PLANE; /* only on static bodies */
        REFUSED_ID(heft_create_shape(world, dyn, &sd));
        REFUSED(heft_shape_def_mass(&sd, NULL, NULL, NULL));
        sd.normal = heft_v3(0, 0, 0);
        REFUSED_ID(heft_create_shape(world, fixed, &sd));
        sd.normal = heft_v3(0, 0, 1);
        sd.offset = NAN;
        REFUSED_ID(heft_create_shape(world, fixed, &sd));
        sd.offset = 1e300;
        REFUSED_ID(heft_create_shape(world, fixed, &sd));
        sd = heft_default_shape_def();
        sd.type = HEFT_SHAPE_MESH; /* only on static or kinematic bodies, and no data */
        REFUSED_ID(heft_create_shape(world, dyn, &sd));
        REFUSED_ID(heft_create_shape(world, fixed, &sd));
        sd.type = HEFT_SHAPE_HEIGHT_FIELD;
        REFUSED_ID(heft_create_shape(world, fixed, &sd));
    }
    REFUSED(heft_shape_def_mass(NULL, NULL, NULL, NULL));

    heft_shape_def got;
    heft_vec3 lo, hi;
    for (int k = 0; k < N_SHAPE_IDS; ++k) {
        heft_shape_id id = bad_shape(k);
        REFUSED(heft_destroy_shape(world, id));
        REFUSED(heft_shape_get_def(world, id, &got));
        REFUSED(heft_shape_set_material(world, id, 0.5, 0.0));
        REFUSED(heft_shape_set_filter(world, id, 1u, 1u));
        REFUSED(heft_shape_set_rolling_resistance(world, id, 0.01));
        REFUSED(heft_shape_aabb(world, id, &lo, &hi));
        cr_assert_eq(heft_shape_is_valid(world, id), 0);
        NEUTRAL(heft_shape_triangles(world, id, NULL, 0), 0);
        NEUTRAL(heft_shape_body(world, id).index, -1);
    }
    REFUSED(heft_shape_get_def(world, box, NULL));
    REFUSED(heft_shape_aabb(world, box, NULL, &hi));
    REFUSED(heft_shape_aabb(world, box, &lo, NULL));
    for (int k = 0; k < N_SCALARS; ++k) {
        REFUSED(heft_shape_set_material(
            world, box, bad_scalars[k] > 0 && isfinite(bad_scalars[k]) ? -1.0 : bad_scalars[k],
            0.0));
        REFUSED(heft_shape_set_material(world, box, 0.5, bad_scalars[k]));
        REFUSED(heft_shape_set_rolling_resistance(world, box, bad_scalars[k]));
    }
    REFUSED(heft_shape_set_rolling_resistance(world, box, -1e-3));
    REFUSED(heft_shape_set_rolling_resistance(world, box, HEFT_ROLLING_RESISTANCE_MAX * 1.001));
    REFUSED(heft_shape_set_rolling_resistance(NULL, box, 0.01));
    REFUSED(heft_destroy_shape(NULL, box));
    cr_log_info("shape functions: %d hostile calls, %d refused", tried, refused);
}

Test(hostile_api, joint_functions_refuse_hostile_values) {
    heft_joint_def base = heft_default_joint_def(HEFT_JOINT_BALL);
    base.body_b = dyn;
    REFUSED_ID(heft_create_joint(NULL, &base));
    REFUSED_ID(heft_create_joint(world, NULL));
    for (int k = 0; k < N_BODY_IDS; ++k) {
        heft_joint_def jd = base;
        jd.body_b = bad_body(k);
        REFUSED_ID(heft_create_joint(world, &jd));
        if (bad_body(k).index != -1) {
            jd = base;
            jd.body_a = bad_body(k);
            REFUSED_ID(heft_create_joint(world, &jd));
        }
        jd = base;
        jd.body_b = bad_body(k);
        REFUSED(heft_joint_def_set_world_frame(world, &jd, heft_v3(0, 0, 1), heft_v3(0, 0, 1)));
    }
#define BAD_JOINT(type_, field, value)                                                             \
    do {                                                                                           \
        heft_joint_def jd_ = heft_default_joint_def(type_);                                        \
        jd_.body_b = dyn2;                                                                         \
        jd_.local_anchor_a = heft_v3(0, 0, 4);                                                     \
        jd_.field = value;                                                                         \
        REFUSED_ID(heft_create_joint(world, &jd_));                                                \
    } while (0)
    BAD_JOINT((heft_joint_type)11, stiffness, 0.0);
    BAD_JOINT((heft_joint_type)-1, stiffness, 0.0);
    {
        heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
        jd.body_a = dyn2;
        jd.body_b = dyn2;
        REFUSED_ID(heft_create_joint(world, &jd));
        jd.body_a = fixed;
        jd.body_b = kin;
        REFUSED_ID(heft_create_joint(world, &jd));
    }
    for (int k = 0; k < N_VECS; ++k) {
        BAD_JOINT(HEFT_JOINT_BALL, local_anchor_b, bad_vec(k));
        heft_joint_def jd = base;
        REFUSED(heft_joint_def_set_world_frame(world, &jd, bad_vec(k), heft_v3(0, 0, 1)));
        if (k < 3) { /* an axis is a direction: a long finite one is normalised */
            BAD_JOINT(HEFT_JOINT_HINGE, local_axis_a, bad_vec(k));
            REFUSED(heft_joint_def_set_world_frame(world, &jd, heft_v3(0, 0, 1), bad_vec(k)));
            REFUSED(heft_joint_def_set_world_axes(world, &jd, heft_v3(0, 0, 1), heft_v3(0, 0, 1),
                                                  bad_vec(k)));
        }
    }
    BAD_JOINT(HEFT_JOINT_HINGE, local_axis_b, heft_v3(0, 0, 0));
    REFUSED(heft_joint_def_set_world_frame(NULL, &base, heft_v3(0, 0, 1), heft_v3(0, 0, 1)));
    REFUSED(heft_joint_def_set_world_frame(world, NULL, heft_v3(0, 0, 1), heft_v3(0, 0, 1)));
    for (int k = 0; k < N_SCALARS; ++k) {
        double v = bad_scalars[k], negative = isfinite(v) && v > 0 ? -1.0 : v;
        BAD_JOINT(HEFT_JOINT_BALL, stiffness, negative);
        BAD_JOINT(HEFT_JOINT_BALL, damping, negative);
        BAD_JOINT(HEFT_JOINT_HINGE, dof_stiffness[4], negative);
        BAD_JOINT(HEFT_JOINT_DISTANCE, length, negative);
        BAD_JOINT(HEFT_JOINT_BALL, break_force, isnan(v) ? v : -1.0);
        heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_HINGE);
        jd.body_b = dyn2;
        jd.motor[HEFT_DOF_RX].mode = HEFT_MOTOR_VELOCITY;
        jd.motor[HEFT_DOF_RX].max_force = isnan(v) ? v : -1.0;
        REFUSED_ID(heft_create_joint(world, &jd));
        jd.motor[HEFT_DOF_RX].max_force = 1.0;
        jd.motor[HEFT_DOF_RX].target_velocity = v;
        REFUSED_ID(heft_create_joint(world, &jd));
    }
    BAD_JOINT(HEFT_JOINT_BALL, break_torque, 0.0);
    BAD_JOINT(HEFT_JOINT_HINGE, motor[HEFT_DOF_RX].mode, (heft_motor_mode)9);
    {
        heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_HINGE);
        jd.body_b = dyn2;
        jd.limit[HEFT_DOF_RX].enabled = 1;
        jd.limit[HEFT_DOF_RX].lower = 1.0;
        jd.limit[HEFT_DOF_RX].upper = -1.0;
        REFUSED_ID(heft_create_joint(world, &jd));
        jd.limit[HEFT_DOF_RX].lower = NAN;
        REFUSED_ID(heft_create_joint(world, &jd));
        jd = heft_default_joint_def(HEFT_JOINT_SIX_DOF);
        jd.body_b = dyn2;
        jd.dof_mode[2] = (heft_dof_mode)5;
        REFUSED_ID(heft_create_joint(world, &jd));
        jd = heft_default_joint_def(HEFT_JOINT_GEAR);
        jd.joint_a = hinge;
        jd.joint_b = rod; /* not a hinge */
        REFUSED_ID(heft_create_joint(world, &jd));
        jd.joint_b = stale_joint;
        REFUSED_ID(heft_create_joint(world, &jd));
        jd.joint_b = hinge;
        REFUSED_ID(heft_create_joint(world, &jd));
    }

    heft_joint_frames fr;
    heft_joint_row_info ri;
    heft_joint_motor motor = {HEFT_MOTOR_VELOCITY, 1.0, 0.0, 10.0, 0.0, 0.0};
    heft_joint_limit limit = {1, -1.0, 1.0, 0.0, 0.0};
    heft_vec3 f, t;
    for (int k = 0; k < N_JOINT_IDS; ++k) {
        heft_joint_id id = bad_joint(k);
        REFUSED(heft_destroy_joint(world, id));
        REFUSED(heft_joint_get_frames(world, id, &fr));
        REFUSED(heft_joint_set_motor(world, id, HEFT_DOF_RX, &motor));
        REFUSED(heft_joint_set_motor_velocity(world, id, HEFT_DOF_RX, 1.0));
        REFUSED(heft_joint_set_motor_position(world, id, HEFT_DOF_RX, 1.0));
        REFUSED(heft_joint_set_limit(world, id, HEFT_DOF_RX, &limit));
        REFUSED(heft_joint_set_length(world, id, 1.0));
        REFUSED(heft_joint_get_row_info(world, id, 0, &ri));
        REFUSED(heft_joint_reaction(world, id, &f, &t));
        cr_assert_eq(heft_joint_is_valid(world, id), 0);
        NEUTRAL(heft_joint_name(world, id)[0], '\0');
        NEUTRAL(heft_joint_user_data(world, id), NULL);
        NEUTRAL(heft_joint_get_type(world, id), HEFT_JOINT_BALL);
        NEUTRAL(heft_joint_is_broken(world, id), 0);
        NEUTRAL(heft_joint_coordinate(world, id, HEFT_DOF_RX), 0.0);
        NEUTRAL(heft_joint_coordinate_velocity(world, id, HEFT_DOF_RX), 0.0);
        NEUTRAL(heft_joint_gap(world, id), 0.0);
        NEUTRAL(heft_joint_row_count(world, id), 0);
        NEUTRAL(heft_joint_row_impulse(world, id, 0), 0.0);
        NEUTRAL(heft_joint_motor_force(world, id, HEFT_DOF_RX), 0.0);
        NEUTRAL(heft_joint_limit_force(world, id, HEFT_DOF_RX), 0.0);
    }
    int dofs[] = {-1, 7, 99, INT_MIN, INT_MAX};
    for (int k = 0; k < 5; ++k) {
        heft_joint_dof d = (heft_joint_dof)dofs[k];
        REFUSED(heft_joint_set_motor(world, hinge, d, &motor));
        REFUSED(heft_joint_set_motor_velocity(world, hinge, d, 1.0));
        REFUSED(heft_joint_set_motor_position(world, hinge, d, 1.0));
        REFUSED(heft_joint_set_limit(world, hinge, d, &limit));
    }
    REFUSED(heft_joint_set_motor(world, hinge, HEFT_DOF_RX, NULL));
    REFUSED(heft_joint_set_limit(world, hinge, HEFT_DOF_RX, NULL));
    for (int k = 0; k < N_SCALARS; ++k) {
        heft_joint_motor m = motor;
        m.target_velocity = bad_scalars[k];
        REFUSED(heft_joint_set_motor(world, hinge, HEFT_DOF_RX, &m));
        REFUSED(heft_joint_set_motor_velocity(world, hinge, HEFT_DOF_RX, bad_scalars[k]));
        REFUSED(heft_joint_set_motor_position(world, hinge, HEFT_DOF_RX, bad_scalars[k]));
        m = motor;
        m.max_force = isnan(bad_scalars[k]) || bad_scalars[k] < 0 ? bad_scalars[k] : -5.0;
        REFUSED(heft_joint_set_motor(world, hinge, HEFT_DOF_RX, &m));
        heft_joint_limit l = limit; /* lower above upper, or NaN */
        if (isnan(bad_scalars[k]) || bad_scalars[k] < 0.0) {
            l.lower = 1.0;
            l.upper = bad_scalars[k];
        } else {
            l.lower = bad_scalars[k];
            l.upper = 0.0;
        }
        REFUSED(heft_joint_set_limit(world, hinge, HEFT_DOF_RX, &l));
        REFUSED(heft_joint_set_length(
            world, rod, isfinite(bad_scalars[k]) && bad_scalars[k] > 0 ? -1.0 : bad_scalars[k]));
    }
    REFUSED(heft_joint_set_length(world, rod, 0.0));
    REFUSED(heft_joint_set_length(world, hinge, 1.0)); /* no length */
    REFUSED(heft_joint_get_row_info(world, hinge, -1, &ri));
    REFUSED(heft_joint_get_row_info(world, hinge, INT_MAX, &ri));
    REFUSED(heft_joint_get_row_info(world, hinge, 0, NULL));
    REFUSED(heft_joint_get_frames(world, hinge, NULL));
    REFUSED(heft_destroy_joint(NULL, hinge));
    cr_log_info("joint functions: %d hostile calls, %d refused", tried, refused);
}

/* Getters and the neutral NULL-world calls: documented results, no crash. */
Test(hostile_api, null_world_getters_return_neutral_values) {
    cr_assert_eq(heft_world_time(NULL), 0.0);
    cr_assert_eq(heft_world_step_count(NULL), 0);
    cr_assert_eq(heft_world_body_count(NULL), 0);
    cr_assert_eq(heft_world_joint_count(NULL), 0);
    cr_assert_eq(heft_world_bodies(NULL, NULL, 0), 0);
    cr_assert_eq(heft_world_joints(NULL, NULL, 0), 0);
    cr_assert_null(heft_world_stats(NULL));
    cr_assert_str_eq(heft_world_solver(NULL), "");
    cr_assert_eq(heft_world_contact_count(NULL), 0);
    cr_assert_eq(heft_world_contact_pairs(NULL), 0);
    cr_assert_eq(heft_world_hit_event_threshold(NULL), 1.0);
    heft_world_set_island_callback(NULL, NULL, NULL);
    heft_world_destroy(NULL);
    /* a negative max writes nothing and still counts */
    cr_assert_eq(heft_world_bodies(world, NULL, -1), 4);
    cr_assert_eq(heft_world_joints(world, NULL, -5), 2);
    world_snapshot after;
    world_snapshot_take(world, &after);
    cr_assert(world_snapshot_equal(&before, &after));
}

/* URDF import: bad options, NULL arguments, missing files and text that is
 * not a robot are refused with the world unchanged. Without URDF support
 * (HEFT_URDF off) every call is refused alike. */
Test(hostile_api, urdf_import_refuses_hostile_values) {
    static const char robot[] = "<robot name=\"r\"><link name=\"a\"><inertial><mass value=\"1\"/>"
                                "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" "
                                "izz=\"1\"/></inertial></link></robot>";
    size_t n = sizeof robot - 1;
    heft_urdf_options o = heft_default_urdf_options();
    heft_urdf_result r;
    REFUSED(heft_world_import_urdf_text(NULL, robot, n, "r.urdf", &o, &r));
    REFUSED(heft_world_import_urdf_text(world, NULL, n, "r.urdf", &o, &r));
    REFUSED(heft_world_import_urdf(NULL, "r.urdf", &o, &r));
    REFUSED(heft_world_import_urdf(world, NULL, &o, &r));
    REFUSED(heft_world_import_urdf(world, "/nonexistent/robot.urdf", &o, &r));
    REFUSED(heft_world_import_urdf_text(world, robot, n - 1, "r.urdf", &o, &r));
    REFUSED(heft_world_import_urdf_text(world, "<robot/>", 8, "r.urdf", &o, &r));
    REFUSED(heft_world_import_urdf_text(world, "\0\0\0", 3, NULL, &o, &r));
    for (int k = 0; k < N_VECS; ++k) {
        o = heft_default_urdf_options();
        o.position = bad_vec(k);
        REFUSED(heft_world_import_urdf_text(world, robot, n, "r.urdf", &o, &r));
    }
    for (int k = 0; k < N_QUATS; ++k) {
        o = heft_default_urdf_options();
        o.orientation = bad_quat(k);
        REFUSED(heft_world_import_urdf_text(world, robot, n, "r.urdf", &o, &r));
    }
    for (int k = 0; k < N_SCALARS; ++k) {
        o = heft_default_urdf_options();
        o.friction = bad_scalars[k];
        if (!(bad_scalars[k] >= 0.0 && isfinite(bad_scalars[k]))) {
            REFUSED(heft_world_import_urdf_text(world, robot, n, "r.urdf", &o, &r));
        }
    }
    o = heft_default_urdf_options();
    o.friction = -1.0;
    REFUSED(heft_world_import_urdf_text(world, robot, n, "r.urdf", &o, &r));
    int flags[] = {-1, 2, INT_MAX, INT_MIN};
    for (int k = 0; k < 4; ++k) {
        o = heft_default_urdf_options();
        o.fixed_base = flags[k];
        REFUSED(heft_world_import_urdf_text(world, robot, n, "r.urdf", &o, &r));
        o = heft_default_urdf_options();
        o.merge_fixed = flags[k];
        REFUSED(heft_world_import_urdf_text(world, robot, n, "r.urdf", &o, &r));
        o = heft_default_urdf_options();
        o.joint_dynamics = flags[k];
        REFUSED(heft_world_import_urdf_text(world, robot, n, "r.urdf", &o, &r));
    }
    cr_log_info("URDF import: %d hostile calls, %d refused", tried, refused);
}

/* An allocator that refuses every block above 1 MB, so that a reservation
 * runs out of memory part way. */
static void *small_alloc(size_t n, void *user) {
    (void)user;
    return n > (1u << 20) ? NULL : malloc(n);
}
static void *small_realloc(void *p, size_t n, void *user) {
    (void)user;
    return n > (1u << 20) ? NULL : realloc(p, n);
}
static void small_free(void *p, void *user) {
    (void)user;
    free(p);
}

/* A reservation changes no state the world holds, whether it succeeds or
 * runs out of memory (its message says so, with the counts asked for). */
Test(hostile_api, a_reservation_leaves_the_world_state_as_it_was) {
    heft_world_capacity c = {0};
    c.bodies = 100;
    c.shapes = 120;
    c.joints = 50;
    c.contacts = 400;
    c.pairs = 1000;
    c.rows = 1500;
    cr_assert_eq(heft_world_reserve(world, &c), HEFT_OK, "%s", heft_last_error());
    world_snapshot after;
    world_snapshot_take(world, &after);
    cr_assert(world_snapshot_equal(&before, &after), "a reservation changed the world");
    static const heft_allocator small = {small_alloc, small_realloc, small_free, NULL};
    heft_set_allocator(&small);
    c.contacts = 1 << 20; /* 2^21 points of the set: far above 1 MB */
    const heft_result rc = heft_world_reserve(world, &c);
    heft_set_allocator(NULL);
    cr_assert_eq(rc, HEFT_ERROR_OUT_OF_MEMORY);
    cr_assert(strstr(heft_last_error(), "out of memory") != NULL, "%s", heft_last_error());
    world_snapshot_take(world, &after);
    cr_assert(world_snapshot_equal(&before, &after),
              "a reservation out of memory changed the world");
}
