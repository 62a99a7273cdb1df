/* Triangle meshes: the shape's own copy of the vertices and indices, face
 * normals, which edges are real (convex or border) and a bounding volume
 * hierarchy over the triangles, built once. Private to the library. */
#ifndef HEFT_MESH_H
#define HEFT_MESH_H

#include "geometry.h"
#include "heft.h"

typedef struct mesh_node {
    aabb box;
    int32_t child; /* inner node: children child and child + 1; leaf: -1 */
    int32_t first; /* leaf: triangles order[first .. first + count) */
    int32_t count;
} mesh_node;

typedef struct tri_mesh {
    int vertex_count, triangle_count, node_count;
    heft_vec3 *vertices;
    int32_t *indices;
    heft_vec3 *normals;
    uint8_t *real_edges;
    int32_t *order;
    mesh_node *nodes;
} tri_mesh;

/* Validates and copies (one heft_alloc block); NULL with heft_last_error set
 * on bad input. */
tri_mesh *mesh_create(const heft_mesh_def *def);
void mesh_free(tri_mesh *m);
aabb mesh_bounds(const tri_mesh *m);
/* Triangles whose boxes overlap box (shape frame): writes at most max
 * indices, returns how many there are. */
int mesh_query(const tri_mesh *m, aabb box, int32_t *out, int max);
void mesh_triangle(const tri_mesh *m, int index, triangle *out);
/* First front-side hit of origin + t dir, t in [0, max_t] (shape frame): the
 * triangle index, or -1; *t_hit gets t. */
int mesh_ray_cast(const tri_mesh *m, heft_vec3 origin, heft_vec3 dir, double max_t, double *t_hit);

/* Ray against a box (slabs): entry parameter in [0, max_t], or -1. */
double aabb_ray(const aabb *b, heft_vec3 origin, heft_vec3 inv_dir, double max_t);

#endif
