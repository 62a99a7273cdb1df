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

/* The convex view of a sphere, capsule, box, hull or cylinder. */
void shape_convex_view(const shape *s, const transform *t, convex_view *cv, convex_storage *st);

/* A mesh or height field (a) against convex b; b_box is b's world box grown
 * by margin. */
int collide_triangles(const shape *a, const transform *ta, const convex_view *b, aabb b_box,
                      double margin, narrow_scratch *scratch, manifold *m);

#endif
