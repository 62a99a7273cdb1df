/* Height fields: a grid of heights along the shape's z axis, each cell two
 * triangles. The shape owns a copy of the heights. Private to the library. */
#ifndef HEFT_HEIGHT_FIELD_H
#define HEFT_HEIGHT_FIELD_H

#include "geometry.h"
#include "heft.h"

typedef struct height_field {
    int count_x, count_y;
    double spacing_x, spacing_y;
    double min_height, max_height;
    double *heights; /* heights[j * count_x + i] */
} height_field;

/* Validates and copies; NULL with heft_last_error set on bad input. */
height_field *height_field_create(const heft_height_field_def *def);
void height_field_free(height_field *f);
aabb height_field_bounds(const height_field *f);
int height_field_triangle_count(const height_field *f);
/* Triangles of the cells under box (shape frame) whose boxes overlap it:
 * writes at most max indices, returns how many there are. */
int height_field_query(const height_field *f, aabb box, int32_t *out, int max);
/* Triangle index = 2 (j (count_x - 1) + i) + k for cell (i, j), k = 0, 1. */
void height_field_triangle(const height_field *f, int index, triangle *out);
/* First hit from above of origin + t dir, t in [0, max_t] (shape frame): the
 * triangle index or -1; *t_hit gets t. */
int height_field_ray_cast(const height_field *f, heft_vec3 origin, heft_vec3 dir, double max_t,
                          double *t_hit);

#endif
