/* A byte-exact snapshot of everything a user can read from a world, to prove
 * that a refused call changed nothing. */
#ifndef HEFT_TEST_WORLD_SNAPSHOT_H
#define HEFT_TEST_WORLD_SNAPSHOT_H

#include <stdlib.h>
#include <string.h>

#include "heft.h"

#define WORLD_SNAPSHOT_SHAPES 32
#define WORLD_SNAPSHOT_JOINTS 32

typedef struct world_snapshot {
    int bodies, joints;
    heft_body_state states[64];
    heft_vec3 gravity;
    char solver[32];
    heft_solver_options options;
    double time;
    /* shapes and joints, field by field (a struct copy may leave padding
     * bytes unspecified, which would make memcmp flaky) */
    int64_t steps;
    double restitution_threshold;
    double hit_event_threshold;
    int shapes;
    double shape_fields[WORLD_SNAPSHOT_SHAPES][18];
    double joint_fields[WORLD_SNAPSHOT_JOINTS][8];
    /* sleeping: each body's state and switch, the world's settings */
    int awake[64], sleep_enabled[64];
    int sleeping;
    double sleep_settings[3];
} world_snapshot;

static inline void world_snapshot_shapes(const heft_world *w, world_snapshot *s,
                                         const heft_body_id *ids, int n) {
    for (int i = 0; i < n && i < 64; ++i) {
        heft_shape_id shapes[8];
        int count = heft_body_shapes(w, ids[i], shapes, 8);
        for (int k = 0; k < count && k < 8 && s->shapes < WORLD_SNAPSHOT_SHAPES; ++k) {
            heft_shape_def d;
            if (heft_shape_get_def(w, shapes[k], &d) != HEFT_OK) {
                continue;
            }
            double *f = s->shape_fields[s->shapes++];
            f[0] = i;
            f[1] = d.type;
            f[2] = d.radius;
            f[3] = d.half_length;
            f[4] = d.half_extents.x + 2.0 * d.half_extents.y + 3.0 * d.half_extents.z;
            f[5] = d.local_position.x;
            f[6] = d.local_position.y;
            f[7] = d.local_position.z;
            f[8] = d.local_orientation.w;
            f[9] = d.local_orientation.x;
            f[10] = d.friction;
            f[11] = d.restitution;
            f[12] = d.density;
            f[13] = d.category_bits;
            f[14] = d.mask_bits;
            f[15] = d.offset;
            f[16] = d.is_sensor;
            f[17] = d.rolling_resistance;
        }
    }
}

static inline void world_snapshot_take(const heft_world *w, world_snapshot *s) {
    memset(s, 0, sizeof *s);
    s->bodies = heft_world_body_count(w);
    s->joints = heft_world_joint_count(w);
    heft_body_id ids[64];
    int n = heft_world_bodies(w, ids, 64);
    for (int i = 0; i < n && i < 64; ++i) {
        heft_body_get_state(w, ids[i], &s->states[i]);
    }
    s->gravity = heft_world_gravity(w);
    strncpy(s->solver, heft_world_solver(w), sizeof s->solver - 1);
    s->options = heft_world_solver_options(w);
    s->time = heft_world_time(w);
    s->steps = heft_world_step_count(w);
    s->restitution_threshold = heft_world_restitution_threshold(w);
    s->hit_event_threshold = heft_world_hit_event_threshold(w);
    world_snapshot_shapes(w, s, ids, n);
    for (int i = 0; i < n && i < 64; ++i) {
        s->awake[i] = heft_body_is_awake(w, ids[i]);
        s->sleep_enabled[i] = heft_body_sleep_enabled(w, ids[i]);
    }
    s->sleeping = heft_world_sleeping(w);
    heft_world_def def = heft_world_get_def(w);
    s->sleep_settings[0] = def.sleep_linear_speed;
    s->sleep_settings[1] = def.sleep_angular_speed;
    s->sleep_settings[2] = def.time_to_sleep;
    heft_joint_id joints[WORLD_SNAPSHOT_JOINTS];
    int nj = heft_world_joints(w, joints, WORLD_SNAPSHOT_JOINTS);
    for (int i = 0; i < nj && i < WORLD_SNAPSHOT_JOINTS; ++i) {
        double *f = s->joint_fields[i];
        f[0] = heft_joint_get_type(w, joints[i]);
        f[1] = heft_joint_is_broken(w, joints[i]);
        f[2] = heft_joint_row_count(w, joints[i]);
        f[3] = heft_joint_coordinate(w, joints[i], HEFT_DOF_X);
        f[4] = heft_joint_coordinate(w, joints[i], HEFT_DOF_RX);
        f[5] = heft_joint_gap(w, joints[i]);
        f[6] =
            heft_joint_row_count(w, joints[i]) > 0 ? heft_joint_row_impulse(w, joints[i], 0) : 0.0;
        f[7] = (double)joints[i].generation;
    }
}

static inline int world_snapshot_equal(const world_snapshot *a, const world_snapshot *b) {
    return memcmp(a, b, sizeof *a) == 0;
}

#endif
