/* A byte-exact snapshot of everything a user can read from a world, to prove
 * that a refused call changed nothing. */
#ifndef HEFT_TEST_WORLD_SNAPSHOT_H
#define HEFT_TEST_WORLD_SNAPSHOT_H

#include <stdlib.h>
#include <string.h>

#include "heft.h"

typedef struct world_snapshot {
    int bodies, joints;
    heft_body_state states[64];
    heft_vec3 gravity;
    char solver[32];
    heft_solver_options options;
    double time;
} world_snapshot;

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
}

static inline int world_snapshot_equal(const world_snapshot *a, const world_snapshot *b) {
    return memcmp(a, b, sizeof *a) == 0;
}

#endif
