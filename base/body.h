/* A rigid body as the engine stores it. Private to the library. */
#ifndef HEFT_BODY_H
#define HEFT_BODY_H

#include "heft.h"
#include "mlcp.h"
#include "slots.h"

#define HEFT_NAME_MAX 48

typedef struct body {
    slot_header slot; /* first: generation, alive, free list */
    heft_body_type type;
    /* The step's per-body flags and indices next to slot and type, in the
     * first cache line: the islands' passes over every body read these
     * alone, and spread over the record they cost three lines a body. */
    int island;       /* index of its island in the step's island set, -1 for static,
                         kinematic and sleeping bodies */
    int island_local; /* index in its island's body list */
    /* Persistent island and sleeping (engine/island.c, engine/sleep.c): the
     * state a snapshot of the world carries besides the pose. */
    int32_t island_id;                /* w->islands index, -1 for static and kinematic bodies
                                         and for a dynamic body before its first step */
    int32_t island_prev, island_next; /* the island's body list, -1 at its ends */
    int32_t island_flood;             /* scratch of the island split */
    int sleeping;                     /* its island sleeps: the step does not touch it */
    int sleep_enabled;                /* 0: neither it nor its island falls asleep */
    int wake_contacts;                /* a static or kinematic body moved or given a shape by the
                                         application: its pairs are tested in the next step and wake the
                                         sleeping bodies they touch */
    double sleep_time;                /* s spent below the world's sleep thresholds */
    /* per step, in the second and third lines: what an island's MLCP reads
     * of each body and of each row's bodies */
    heft_vec3 free_linear_velocity; /* v + h M^-1 f: the velocity without constraints */
    heft_vec3 free_angular_velocity;
    double step_inv_mass;       /* inverse mass this step: 1/(m + h^2 k) with geometric stiffness */
    heft_mat3 step_inv_inertia; /* (I_world + h^2 K~)^-1 with geometric stiffness */
    heft_vec3 position;
    heft_quat orientation;
    heft_vec3 linear_velocity;
    heft_vec3 angular_velocity;
    double mass, inv_mass;
    heft_mat3 inertia; /* body frame */
    heft_mat3 inv_inertia_body;
    heft_mat3 inv_inertia_world; /* refreshed from the orientation */
    heft_vec3 force, torque;     /* accumulated for the next step */
    double linear_damping, angular_damping, gravity_scale;
    int fast; /* continuous collision against static and slow shapes (engine/continuous.c) */
    char name[HEFT_NAME_MAX];
    void *user_data;
    /* what is attached (engine/body_links.c): the first joint edge
     * (2 * joint + end) and the first shape, -1 for none */
    int32_t joint_edges;
    int32_t shapes;
} body;

/* Checks a mass and body-frame inertia: finite, mass > 0, the tensor
 * symmetric positive definite. Sets the last error and returns 0 if not. */
int body_check_mass(double mass, heft_mat3 inertia);
void body_set_mass_properties(body *b, double mass, heft_mat3 inertia);
void body_update_world_inertia(body *b);
/* inline: the step asks it of every row's ends and every body, several
 * times a step (1% of the 1,000 boxes' step as a call) */
static inline int body_is_dynamic(const body *b) {
    return b->type == HEFT_BODY_DYNAMIC;
}
/* The structured-form body of an MLCP: inverse mass and the symmetric
 * inverse inertia as xx xy xz yy yz zz. */
void body_pack_inverse_mass(heft_mlcp_body *out, double inv_mass, const heft_mat3 *inv_inertia);
/* velocity of a world point attached to the body */
heft_vec3 body_point_velocity(const body *b, heft_vec3 world_point);

#endif
