/* Triangle meshes for every shape type and their GPU buffers. Sphere, box
 * and cylinder are unit meshes scaled per instance; a capsule's caps do not
 * scale, so each (radius, half length) gets its own mesh; hulls, meshes and
 * height fields come from heft_shape_triangles; planes are a large quad. */
#ifndef HEFT_VIEWER_SHAPE_MESH_H
#define HEFT_VIEWER_SHAPE_MESH_H

#include <stdint.h>

#include "heft.h"

typedef struct mesh_data {
    float *vertices; /* position xyz, normal xyz */
    uint32_t *indices;
    int vertex_count, index_count;
} mesh_data;

/* per instance: model matrix (column-major) and colour */
typedef struct mesh_instance {
    float model[16];
    float colour[4];
} mesh_instance;

typedef struct gpu_mesh {
    unsigned vao, vbo, ebo, instance_vbo;
    int index_count;
    mesh_instance *instances;
    int instance_count, instance_capacity;
} gpu_mesh;

int mesh_sphere(mesh_data *m, int slices, int stacks); /* radius 1 */
int mesh_box(mesh_data *m);                            /* half extents 1 */
int mesh_cylinder(mesh_data *m, int slices);           /* radius 1, z in [-1, 1] */
int mesh_capsule(mesh_data *m, double radius, double half_length, int slices, int stacks);
int mesh_triangles(mesh_data *m, const heft_vec3 *corners, int triangle_count); /* flat normals */
int mesh_quad(mesh_data *m, float half_size); /* z = 0, normal +z */
void shape_mesh_free(mesh_data *m);

int gpu_mesh_create(gpu_mesh *g, const mesh_data *m);
void gpu_mesh_free(gpu_mesh *g);
/* Queues one instance for the next gpu_mesh_draw. */
void gpu_mesh_add_instance(gpu_mesh *g, const float model[16], const float colour[4]);
/* Draws the queued instances (the program is bound by the caller); keeps them
 * queued so the shadow and colour passes draw the same set. */
void gpu_mesh_draw(gpu_mesh *g);
void gpu_mesh_clear(gpu_mesh *g);

#endif
