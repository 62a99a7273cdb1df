/* Shapes and contacts as the engine stores them. Private to the library; the
 * collision issue replaces the ground-only narrowphase with the full one. */
#ifndef HEFT_SHAPE_H
#define HEFT_SHAPE_H

#include "body.h"

typedef struct shape {
    slot_header slot; /* first: generation, alive, free list */
    int32_t body;
    heft_shape_type type;
    double radius, half_length, offset;
    heft_vec3 half_extents;
    heft_vec3 normal;
    heft_vec3 local_position;
    heft_quat local_orientation;
    double friction, restitution;
} shape;

/* One contact point: the normal row and two friction rows share a block. */
typedef struct contact {
    uint64_t key;            /* shape pair and feature: matches the point across steps */
    int32_t shape_a, shape_b;
    int32_t body_a, body_b;  /* body_a is the plane's (static) body */
    heft_vec3 point;         /* on b's surface */
    heft_vec3 normal;        /* from a towards b */
    double separation;
    double friction, restitution;
    double lambda[3];        /* normal, tangent 1, tangent 2; warm start for the next step */
} contact;

int shape_check_def(const heft_shape_def *def, const body *owner);
void shape_init(shape *s, int32_t body, const heft_shape_def *def);

/* Contacts of every plane against every shape of the dynamic bodies,
 * ascending by key, at most max; returns the count (the number needed when it
 * exceeds max). Warm starts are taken from prev (ascending by key). */
int ground_contacts_find(const shape *shapes, int shape_count, const body *bodies, double margin,
                         const contact *prev, int prev_count, contact *out, int max);

#endif
