/* Convex shapes as the narrowphase sees them, in world frame: a core (a
 * point, a segment, a polytope or a cylinder) and a rounding radius (spheres
 * and capsules). Each pair family lives in its own collide_*.c file; this
 * header is their common interface. Private to the library. */
#ifndef HEFT_CONVEX_H
#define HEFT_CONVEX_H

#include "convex_hull.h"
#include "gjk.h"
#include "manifold.h"

typedef enum convex_kind {
    CONVEX_POINT = 0,    /* sphere: centre plus radius */
    CONVEX_SEGMENT = 1,  /* capsule: axis plus radius */
    CONVEX_POLYTOPE = 2, /* box, hull, mesh triangle */
    CONVEX_CYLINDER = 3
} convex_kind;

typedef struct convex_view {
    convex_kind kind;
    double radius;            /* rounding: sphere and capsule radius, else 0 */
    heft_vec3 p[2];           /* point: p[0]; segment: p[0], p[1] */
    const convex_hull *hull;  /* polytope topology */
    const heft_vec3 *v;       /* polytope: world vertices */
    const hull_plane *planes; /* polytope: world face planes */
    heft_vec3 centroid;       /* an interior point (the cylinder's centre) */
    heft_vec3 axis;           /* cylinder: unit axis (local z); x_axis, y_axis fix its rim points */
    heft_vec3 x_axis, y_axis;
    double cyl_radius, cyl_half;
    double size; /* a length scale for tolerances */
    convex_proxy proxy;
} convex_view;

/* World-frame copies of a polytope's vertices and planes. */
typedef struct convex_storage {
    heft_vec3 v[HULL_MAX_VERTICES];
    hull_plane planes[HULL_MAX_FACES];
} convex_storage;

/* Tolerances for choosing a face or an edge as a feature (cosine, sine). */
#define FEATURE_FACE_COS 0.9986 /* 3 degrees */
#define FEATURE_EDGE_SIN 0.0524
#define CYLINDER_CAP_POINTS 16

void convex_view_sphere(convex_view *cv, heft_vec3 center, double radius);
void convex_view_capsule(convex_view *cv, heft_vec3 a, heft_vec3 b, double radius);
void convex_view_polytope(convex_view *cv, const convex_hull *h, const transform *t,
                          convex_storage *st);
/* The same into caller's arrays of h's vertex and face counts. */
void convex_view_polytope_into(convex_view *cv, const convex_hull *h, const transform *t,
                               heft_vec3 *v, hull_plane *planes);
/* a polytope already in world frame (mesh triangles) */
void convex_view_world_polytope(convex_view *cv, const convex_hull *h);
void convex_view_cylinder(convex_view *cv, const transform *t, double radius, double half_length);

/* The feature supporting the shape's core in direction d (unit). */
void convex_feature(const convex_view *cv, heft_vec3 d, feature *f);
/* The face of a polytope as a feature. */
void polytope_face_feature(const convex_view *cv, int face, feature *f);

/* Contacts of convex a and b within margin (normal from a to b), at most 4.
 * Returns the count. Dispatches on the kinds; the order of the two shapes
 * only flips the normals. */
int collide_convex(const convex_view *a, const convex_view *b, double margin, manifold *m);

/* the pair families (a's kind <= b's kind) */
int collide_spheres(const convex_view *a, const convex_view *b, double margin, manifold *m);
int collide_sphere_capsule(const convex_view *a, const convex_view *b, double margin, manifold *m);
int collide_capsules(const convex_view *a, const convex_view *b, double margin, manifold *m);
int collide_polytopes(const convex_view *a, const convex_view *b, double margin, manifold *m);
/* everything else: GJK, then EPA or the separating axes when the cores
 * overlap, then feature clipping */
int collide_gjk(const convex_view *a, const convex_view *b, double margin, manifold *m);

/* Builds the manifold from the features of a and b along n (a to b), with
 * the closest points of the cores (pa, pb at signed core distance dist) as
 * the fallback single point. */
int manifold_from_features(const convex_view *a, const convex_view *b, heft_vec3 n, heft_vec3 pa,
                           heft_vec3 pb, double dist, double margin, manifold *m);

/* Two nearly parallel segments (radii ra, rb) overlapping along their
 * length: a point at each end of the overlap, normal oriented like n (a to
 * b). Returns 0 when they are not parallel or do not overlap. */
int segment_pair_points(heft_vec3 a0, heft_vec3 a1, double ra, heft_vec3 b0, heft_vec3 b1,
                        double rb, heft_vec3 n, double margin, contact_point *out);

/* Lexicographic order of points: the tie-break that keeps pair results
 * independent of the order of the two shapes. */
int centroid_before(heft_vec3 a, heft_vec3 b);

/* The plane n . x = d (solid below) against a convex shape. */
int collide_plane(heft_vec3 n, double d, const convex_view *b, double margin, manifold *m);

#endif
