/* Convex hulls: built from points (quickhull, coplanar triangles merged into
 * polygon faces) and stored as a half-edge structure, the form the separating
 * axis test and face clipping walk (Gregorius, "The Separating Axis Test
 * between Convex Polyhedra", GDC 2013). Boxes and mesh triangles use the same
 * structure. Private to the library. */
#ifndef HEFT_CONVEX_HULL_H
#define HEFT_CONVEX_HULL_H

#include <stdint.h>

#include "geometry.h"

#define HULL_MAX_POINTS 4096  /* input points */
#define HULL_MAX_VERTICES 256 /* vertices of the built hull */
#define HULL_MAX_FACES (2 * HULL_MAX_VERTICES - 4)
#define HULL_MAX_EDGES (6 * HULL_MAX_VERTICES - 12) /* half-edges */
#define HULL_MAX_FACE_VERTICES 32                   /* larger coplanar groups stay triangles */

typedef struct hull_half_edge {
    uint16_t next;   /* next half-edge of the same face, counter-clockwise seen from outside */
    uint16_t twin;   /* the same edge in the neighbouring face, reversed */
    uint16_t origin; /* vertex the half-edge starts at */
    uint16_t face;
} hull_half_edge;

typedef struct hull_plane {
    heft_vec3 normal; /* outward, unit */
    double offset;    /* normal . x = offset on the face */
} hull_plane;

typedef struct convex_hull {
    int vertex_count, edge_count, face_count; /* edge_count counts half-edges */
    heft_vec3 *vertices;
    hull_half_edge *edges;
    uint16_t *face_edge; /* one half-edge of each face */
    hull_plane *planes;
    heft_vec3 centroid; /* mean of the vertices: an interior point */
    /* mass properties at unit density */
    double volume;
    heft_vec3 center;  /* centre of mass */
    heft_mat3 inertia; /* about the centre of mass */
    /* a box: its 8 corners at exactly +-box_half on each local axis (what
     * convex_hull_box builds), box_face[c] and box_face_neg[c] the faces
     * whose normals are +axis c and -axis c; found once when the hull is
     * built, for the box-box edge query and the face query's pairs */
    int box;
    int box_face[3];
    int box_face_neg[3];
    double box_half[3];
} convex_hull;

/* Builds the hull of count points (one heft_alloc block; free with
 * convex_hull_free). Refuses, with heft_last_error set and NULL returned,
 * fewer than 4 points, non-finite ones, coincident, collinear or coplanar
 * sets, and hulls of more than HULL_MAX_VERTICES vertices. */
convex_hull *convex_hull_build(const heft_vec3 *points, int count);
convex_hull *convex_hull_box(heft_vec3 half_extents);
/* A copy of h in a block of its own (free with convex_hull_free). */
convex_hull *convex_hull_copy(const convex_hull *h);
void convex_hull_free(convex_hull *h);

/* The vertex of the hull farthest along d. */
int convex_hull_support(const heft_vec3 *vertices, int count, heft_vec3 d);

/* A triangle as a flat hull with two faces (front 0, back 1) and three
 * edges: the form mesh and height-field triangles take in the narrowphase. */
typedef struct triangle_hull {
    convex_hull hull;
    heft_vec3 vertices[3];
    hull_plane planes[2];
} triangle_hull;

void triangle_hull_make(triangle_hull *t, heft_vec3 a, heft_vec3 b, heft_vec3 c);

#endif
