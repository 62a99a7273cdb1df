/* Shapes and contacts as the engine stores them. Private to the library.
 * docs/collision.md describes the collision pipeline these feed. */
#ifndef HEFT_SHAPE_H
#define HEFT_SHAPE_H

#include "body.h"
#include "convex_hull.h"
#include "geometry.h"
#include "height_field.h"
#include "mesh.h"
#include "row.h"

typedef struct shape {
    slot_header slot; /* first: generation, alive, free list */
    int32_t body;
    int32_t body_next, body_prev; /* the body's shape list, -1 for none */
    heft_shape_type type;
    double radius, half_length, offset;
    heft_vec3 half_extents;
    heft_vec3 normal;
    heft_vec3 local_position;
    heft_quat local_orientation;
    double friction, restitution, density;
    double rolling_resistance; /* m, the lever arm of the normal force against rolling */
    uint32_t category, mask;
    convex_hull *hull;   /* boxes and hulls: owned */
    tri_mesh *mesh;      /* owned */
    height_field *field; /* owned */
    /* broad phase */
    int32_t proxy;      /* leaf of the tree; -1 for planes and before insertion */
    int moved;          /* on the broad phase's moved list */
    aabb fat;           /* the leaf's enlarged box */
    aabb box;           /* tight box grown by the contact margin, this step */
    double speculative; /* how far the shape may move in one step, m (h times its
                           fastest point's speed): the extra margin against
                           planes, meshes and height fields */
    heft_vec3 plane_n;  /* planes: the world plane n . x = plane_d the pairs were found for */
    double plane_d;
    void *user_data; /* the application's */
    int sensor;      /* heft_shape_def.is_sensor: overlaps only, no contacts */
} shape;

/* One contact point: the normal row, two friction rows and, with rolling
 * resistance, two rolling rows share a block. */
typedef struct contact {
    uint64_t key;     /* shape pair: (lower index << 32) | higher index */
    uint64_t feature; /* (sub-shape << 32) | features: matches the point across steps */
    int32_t shape_a, shape_b;
    int32_t body_a, body_b;
    heft_vec3 point;  /* on b's surface */
    heft_vec3 normal; /* from a towards b */
    double separation;
    double friction, restitution;
    heft_vec3 tangent_velocity; /* target of the friction rows (pre-solve), m/s */
    double rolling_resistance;  /* m: > 0 gives the point its two rolling rows */
    /* normal, tangent 1, tangent 2, then the rolling rows' turns about
     * tangents 1 and 2 (0 without rolling resistance); warm start for the
     * next step */
    double lambda[5];
} contact;

int shape_check_def(const heft_shape_def *def, const body *owner);
/* 1 when friction is finite and non-negative and restitution in [0, 1]; else
 * 0 with heft_last_error set. */
int shape_check_material(double friction, double restitution);
/* 1 when r is in [0, HEFT_ROLLING_RESISTANCE_MAX] m; else 0 with
 * heft_last_error set (what names the caller). */
int shape_check_rolling_resistance(double r, const char *what);
/* Fills s from a checked def, building the geometry it owns; 0 (nothing
 * allocated) on bad data. */
int shape_build(shape *s, int32_t body_index, const heft_shape_def *d);
/* World transform of the shape on its body. */
transform shape_transform(const shape *s, const body *b);
/* Tight world box of the shape (planes: everything). */
aabb shape_aabb(const shape *s, const transform *t);
/* Frees what the shape owns (hull, mesh, height field). */
void shape_release(shape *s);

/* Combination rules of materials (docs/collision.md). */
double material_friction(double a, double b);
double material_restitution(double a, double b);
double material_rolling_resistance(double a, double b);

#define HEFT_DEFAULT_RESTITUTION_THRESHOLD 1.0
#define HEFT_DEFAULT_HIT_THRESHOLD 1.0 /* m/s, hit events */

#endif
