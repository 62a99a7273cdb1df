/* A dynamic AABB tree: leaves hold enlarged boxes of shapes; inner nodes the
 * union of their children. Insertion picks the sibling by the surface-area
 * cost and the tree is kept balanced by AVL rotations, as in Box2D's dynamic
 * tree (Catto) after Bergen's and Presson's. Private to the library. */
#ifndef HEFT_AABB_TREE_H
#define HEFT_AABB_TREE_H

#include <stdint.h>

#include "geometry.h"

typedef struct tree_node {
    aabb box;
    int32_t parent;         /* next free node while free */
    int32_t child1, child2; /* -1 for leaves */
    int32_t height;         /* 0 for leaves, -1 while free */
    int32_t user;           /* leaves: the shape index */
} tree_node;

typedef struct aabb_tree {
    tree_node *nodes;
    int capacity;
    int32_t root;
    int32_t free_list;
    int leaf_count;
} aabb_tree;

void tree_init(aabb_tree *t);
void tree_release(aabb_tree *t);
/* Room for at least nodes nodes, the new ones at the end of the free list
 * (so later insertions take the same nodes as without it); 0 when out of
 * memory (nothing changed). */
int tree_reserve(aabb_tree *t, int nodes);
/* A new leaf; -1 when out of memory (nothing changed). */
int32_t tree_insert(aabb_tree *t, aabb box, int32_t user);
void tree_remove(aabb_tree *t, int32_t leaf);
/* Re-inserts the leaf with a new box (never allocates). */
void tree_move(aabb_tree *t, int32_t leaf, aabb box);
int tree_height(const aabb_tree *t);

/* Calls fn for each leaf whose box overlaps box, until fn returns 0. */
typedef int (*tree_query_fn)(void *context, int32_t leaf, int32_t user);
void tree_query(const aabb_tree *t, aabb box, tree_query_fn fn, void *context);

/* Calls fn for each leaf whose box the ray origin + s dir, 0 <= s <= max_s,
 * enters; fn returns the new max_s (to clip the ray at a hit). */
typedef double (*tree_ray_fn)(void *context, int32_t leaf, int32_t user, double max_s);
void tree_ray_cast(const aabb_tree *t, heft_vec3 origin, heft_vec3 dir, double max_s,
                   tree_ray_fn fn, void *context);

#endif
