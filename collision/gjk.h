/* GJK distance between convex sets given by support functions (Gilbert,
 * Johnson & Keerthi 1988; the simplex solved by Voronoi regions as in
 * Ericson, Real-Time Collision Detection 9.5), and EPA penetration (van den
 * Bergen 2001) when they overlap. Private to the library. */
#ifndef HEFT_GJK_H
#define HEFT_GJK_H

#include "geometry.h"

/* A convex set without its rounding radius, in world frame: the hull of
 * points (a point, a segment, a polytope), or a cylinder. */
typedef struct convex_proxy {
    const heft_vec3 *points;
    int count;
    int cylinder; /* 1: the cylinder below instead of points */
    heft_vec3 center, axis;
    double radius, half_length;
} convex_proxy;

heft_vec3 proxy_support(const convex_proxy *p, heft_vec3 d, int *index);

typedef struct gjk_vertex {
    heft_vec3 w;    /* a - b */
    heft_vec3 a, b; /* support points of the two sets */
    int ia, ib;     /* their indices (-1 for a cylinder) */
} gjk_vertex;

typedef struct gjk_simplex {
    gjk_vertex v[4];
    double bary[4];
    int count;
} gjk_simplex;

typedef struct gjk_output {
    double distance;  /* between the two sets; 0 when they overlap */
    heft_vec3 pa, pb; /* closest points (witnesses) on a and b */
    int overlap;      /* the sets intersect (or touch to rounding) */
    int iterations;
    gjk_simplex simplex;
} gjk_output;

/* Stops early, with out->distance a lower bound above max_distance, once the
 * sets are known to be farther apart than that (INFINITY: the exact distance). */
void gjk_distance(const convex_proxy *a, const convex_proxy *b, double max_distance,
                  gjk_output *out);

/* Penetration of overlapping sets, starting from GJK's last simplex: the
 * normal from a towards b (moving b by depth along it separates them), the
 * depth and the deepest points of a and b. Returns 0 if the sets have no
 * volume to expand into. */
int epa_penetration(const convex_proxy *a, const convex_proxy *b, const gjk_simplex *start,
                    heft_vec3 *normal, double *depth, heft_vec3 *pa, heft_vec3 *pb);

#endif
