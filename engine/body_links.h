/* The joints and shapes attached to each body, as intrusive doubly-linked
 * lists kept in ascending index order: destroying a body, the contact filter
 * between jointed bodies and a body's shape queries cost that body's own
 * attachments instead of a scan of the world, and visit them in the order a
 * scan did (so sums over them round the same way). */
#ifndef HEFT_BODY_LINKS_H
#define HEFT_BODY_LINKS_H

#include "world.h"

/* A joint edge is 2 * joint index + end (0: body_a, 1: body_b). */
#define BODY_LINK_NONE (-1)

void body_links_init(body *b);
/* After joint ji's ends are set / before its slot is released. */
void body_link_joint(heft_world *w, int32_t ji);
void body_unlink_joint(heft_world *w, int32_t ji);
/* After shape si's body is set / before its slot is released. */
void body_link_shape(heft_world *w, int32_t si);
void body_unlink_shape(heft_world *w, int32_t si);

/* Walks body b's joint edges: for (e = first; e >= 0; e = next(e)). */
static inline int32_t body_first_joint_edge(const heft_world *w, int32_t b) {
    return w->bodies[b].joint_edges;
}
static inline int32_t body_next_joint_edge(const heft_world *w, int32_t e) {
    return w->joints[e >> 1].edge_next[e & 1];
}

#endif
