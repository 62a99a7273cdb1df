/* The edge-edge part of the polytope separating axis test, both ways: the
 * general walk over edge pairs and the closed form for two boxes. Shared
 * with the tests that hold the two to the same answer. Private to the
 * library. */
#ifndef HEFT_COLLIDE_POLYTOPES_H
#define HEFT_COLLIDE_POLYTOPES_H

#include "convex.h"

/* The deepest edge-edge axis: the two edges (half-edge indices, the lower of
 * each twin pair; -1 when no pair qualifies), the separation of b from a
 * along it and its unit normal, pointing away from a. */
typedef struct edge_query {
    int edge_a, edge_b;
    double separation;
    heft_vec3 normal;
} edge_query;

/* Every edge pair whose arcs cross on the Gauss map of the Minkowski
 * difference (Gregorius, GDC 2013). */
edge_query polytope_query_edges(const convex_view *a, const convex_view *b);

/* The same query when a and b are both boxes: the nine cross products of
 * their face axes, each side's extent in closed form. Returns 0, leaving q
 * alone, when either polytope is not a box. */
int box_query_edges(const convex_view *a, const convex_view *b, edge_query *q);

#endif
