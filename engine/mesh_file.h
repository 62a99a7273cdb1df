/* Growable vertex and index lists, meshes read from Wavefront OBJ files and
 * whole files read into memory:
 * what the scene loader and the URDF importer share. Private to the
 * library. */
#ifndef HEFT_MESH_FILE_H
#define HEFT_MESH_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "heft.h"

typedef struct mesh_data {
    heft_vec3 *vertices;
    int vertex_count, vertex_capacity;
    int32_t *indices;
    int index_count, index_capacity;
} mesh_data;

void mesh_data_free(mesh_data *m);
/* 0 when out of memory */
int mesh_data_push_vertex(mesh_data *m, heft_vec3 v);
int mesh_data_push_index(mesh_data *m, int32_t i);
/* Appends the vertices and triangles of an OBJ file: v x y z and f a b c ...
 * (polygons as fans; a/b/c forms and negative indices); everything else is
 * ignored. Returns 0 with message set ("PATH:LINE: what"). */
int mesh_data_read_obj(const char *path, mesh_data *m, char *message, size_t size);

/* The whole of a file, NUL-terminated, in heft_alloc'd memory (*length
 * without the NUL); NULL with the error set ("PATH: what") when it cannot be
 * opened or read or is larger than max_bytes. */
char *file_read_all(const char *path, unsigned max_bytes, size_t *length);

#endif
