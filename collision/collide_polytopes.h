/* The edge-edge part of the polytope separating axis test, both ways: the
 * general walk over edge pairs and the closed form for two boxes; and two
 * boxes answered from bounds on their face separations against the whole
 * test. Shared with the tests that hold each pair of ways to the same
 * answer. Private to the library. */
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

/* collide_polytopes without the early answers for two boxes: the whole
 * separating axis test. collide_polytopes answers as it does, to the bit,
 * for every pair; the tests hold the two to that. */
int collide_polytopes_general(const convex_view *a, const convex_view *b, double margin,
                              manifold *m);

/* Two boxes (both hulls' box flag set) where bounds on the face separations
 * decide every choice of collide_polytopes_general: the same manifold, to
 * the bit, and its count. -1 where they do not (a near tie, a separation at
 * the margin, an edge contact, a non-finite number), m then holding no
 * points. collide_polytopes takes it first for two boxes. */
int collide_boxes_bounded(const convex_view *a, const convex_view *b, double margin, manifold *m);

#endif
