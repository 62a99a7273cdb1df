/* Shapes and contacts as the engine stores them. Private to the library; the
 * collision issue replaces the ground-only narrowphase with the full one. */
#ifndef HEFT_SHAPE_H
#define HEFT_SHAPE_H

#include "body.h"
#include "row.h"

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

/* The contacts of the last step and the step before (for warm starts), both
 * ascending by key; the two arrays share one capacity. */
typedef struct contact_set {
    contact *items;
    contact *previous;
    int count;
    int capacity;
} contact_set;

/* Finds this step's contacts, warm-started from the last step's. Returns 0
 * when out of memory (then no contacts). */
int contact_set_update(contact_set *set, const shape *shapes, int shape_count, const body *bodies,
                       double margin);
void contact_set_release(contact_set *set);

typedef struct contact_params {
    double h;
    double compliance;  /* epsilon of the contact rows */
    double slop;        /* penetration left uncorrected, m */
    double baumgarte;   /* gamma of penetrating contacts */
} contact_params;

/* Writes the contact's three rows (normal, then two friction rows whose
 * friction index is first, the normal row's buffer index). */
void contact_fill_rows(contact *c, const body *bodies, const contact_params *cp, int block,
                       int first, row *out);

int shape_check_def(const heft_shape_def *def, const body *owner);
void shape_init(shape *s, int32_t body, const heft_shape_def *def);

/* Contacts of every plane against every shape of the dynamic bodies,
 * ascending by key, at most max; returns the count (the number needed when it
 * exceeds max). Warm starts are taken from prev (ascending by key). */
int ground_contacts_find(const shape *shapes, int shape_count, const body *bodies, double margin,
                         const contact *prev, int prev_count, contact *out, int max);

#endif
