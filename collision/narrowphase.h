/* The narrowphase of one shape pair: a manifold of up to 4 points. Private
 * to the library. */
#ifndef HEFT_NARROWPHASE_H
#define HEFT_NARROWPHASE_H

#include "convex.h"
#include "shape.h"

/* Persistent scratch for mesh and height-field pairs (grows to the largest
 * need, then stays: no allocation once a scene has warmed up). */
typedef struct narrow_scratch {
    int32_t *triangles;
    int triangle_capacity;
    contact_point *points;
    int point_capacity;
} narrow_scratch;

void narrow_scratch_release(narrow_scratch *s);
/* Grows s to hold at least that many triangles and points; 0 when out of
 * memory. */
int narrow_scratch_reserve(narrow_scratch *s, int triangles, int points);

/* Contacts of shapes a and b at world transforms ta, tb within margin,
 * normal from a to b. Returns the point count, or -1 when out of memory.
 * Swapping a and b flips the normals and moves the points to the other
 * surface (point - separation normal). */
int narrowphase_collide(const shape *a, const transform *ta, const shape *b, const transform *tb,
                        double margin, narrow_scratch *scratch, manifold *m);

/* A shape placed in the world for one step: its transform and, for a box,
 * its convex view with the world corners and face planes it points into.
 * Made once a step for every pair the shape is in (a box in a pile has
 * half a dozen); pairs collided from poses give the same manifolds, bit
 * for bit, as narrowphase_collide. Holds pointers into itself: not copied
 * once made. */
#define SHAPE_POSE_BOX_VERTICES 8
#define SHAPE_POSE_BOX_FACES 6
typedef struct shape_pose {
    transform t;
    int has_view;
    convex_view view;
    heft_vec3 v[SHAPE_POSE_BOX_VERTICES];
    hull_plane planes[SHAPE_POSE_BOX_FACES];
} shape_pose;

void shape_pose_make(const shape *s, const body *b, shape_pose *out);
/* narrowphase_collide of two posed shapes. */
int narrowphase_collide_posed(const shape *a, const shape_pose *pa, const shape *b,
                              const shape_pose *pb, double margin, narrow_scratch *scratch,
                              manifold *m);

/* The convex view of a sphere, capsule, box, hull or cylinder. */
void shape_convex_view(const shape *s, const transform *t, convex_view *cv, convex_storage *st);

/* A mesh or height field (a) against convex b; b_box is b's world box grown
 * by margin. */
int collide_triangles(const shape *a, const transform *ta, const convex_view *b, aabb b_box,
                      double margin, narrow_scratch *scratch, manifold *m);

#endif
