/* Contact manifolds: up to 4 points per shape pair, each with the feature id
 * that finds it again in the next step (for warm starts). The points come
 * from clipping one shape's feature (face, edge, point) against the other's
 * reference face, and are reduced to 4: the nearest to contact, and among
 * points about as near, those that keep the largest area.
 * Private to the library. */
#ifndef HEFT_MANIFOLD_H
#define HEFT_MANIFOLD_H

#include <stdint.h>

#include "geometry.h"

#define MANIFOLD_MAX_POINTS 4
/* manifold_reduce seeks the largest area among the points within this
 * fraction of the points' extent of the nearest to contact (manifold.c,
 * order_by_nearness) */
#define MANIFOLD_NEAR_BAND 0.05
#define FEATURE_MAX 32

typedef struct contact_point {
    heft_vec3 point;   /* on b's surface, world frame */
    heft_vec3 normal;  /* from a towards b, unit */
    double separation; /* negative when penetrating */
    uint64_t feature;
} contact_point;

typedef struct manifold {
    int count;
    contact_point points[MANIFOLD_MAX_POINTS];
} manifold;

/* The part of a convex shape that supports it in a direction: a point, a
 * segment, or a polygon counter-clockwise about its outward normal. Vertex,
 * edge and face ids name the shape's features, so the same contact gets the
 * same id from step to step. */
typedef struct feature {
    int count;
    heft_vec3 v[FEATURE_MAX];
    uint16_t vid[FEATURE_MAX]; /* vertex ids */
    uint16_t eid[FEATURE_MAX]; /* id of the edge v[i] -> v[i + 1] */
    heft_vec3 normal;          /* polygons: outward unit normal */
    uint16_t fid;              /* polygons: face id */
} feature;

/* Kinds of feature ids */
enum {
    FEATURE_KIND_VERTEX = 0, /* an incident vertex inside the reference face */
    FEATURE_KIND_CLIP = 1,   /* an incident edge cut by a side of the reference face */
    FEATURE_KIND_EDGES = 2,  /* two edges (or segment ends) closest to each other */
    FEATURE_KIND_POINT = 3   /* the closest points of the two shapes */
};

#define FEATURE_KIND_OF(id) ((int)(((id) >> 29) & 3))

static inline uint64_t feature_id(int kind, int flip, unsigned x, unsigned y) {
    return ((uint64_t)(kind & 3) << 29) | ((uint64_t)(flip & 1) << 28) |
           ((uint64_t)(x & 0x3FFF) << 14) | (uint64_t)(y & 0x3FFF);
}

/* Clips the incident feature against the side planes of the polygon ref and
 * writes the points whose separation (less the radii) is at most margin.
 * ref belongs to shape a if ref_is_a, else to b; the contact points go on b's
 * surface, the normal from a to b. Returns the number written (at most max). */
int clip_features(const feature *ref, const feature *incident, int ref_is_a, double radius_a,
                  double radius_b, double margin, contact_point *out, int max);

/* Keeps at most 4 of n points: the 4 nearest to contact where fewer than 4
 * are within MANIFOLD_NEAR_BAND of their extent of the nearest; otherwise, of
 * those, the deepest, the farthest from it, then those adding the most area.
 * Returns the new count; the kept points come first. */
int manifold_reduce(contact_point *points, int n);

/* Drops points closer than distance to a deeper point of nearly the same
 * normal; returns the new count. */
int manifold_merge(contact_point *points, int n, double distance);

/* Orders the points by feature id (insertion sort; n is small). */
void manifold_sort(contact_point *points, int n);

/* The single contact from the closest points of the cores (before their
 * radii) at core distance dist along n. */
contact_point manifold_single(heft_vec3 pb, heft_vec3 n, double dist, double radius_a,
                              double radius_b, uint64_t id);

#endif
