/* The directional light's shadow map: a depth texture rendered from the
 * light with an orthographic box fitted around the scene's bodies. */
#ifndef HEFT_VIEWER_SHADOW_MAP_H
#define HEFT_VIEWER_SHADOW_MAP_H

#include <cglm/cglm.h>

typedef struct shadow_map {
    unsigned fbo, texture;
    int size;
    vec3 light_dir; /* unit, towards the light */
    mat4 light_view_proj;
} shadow_map;

int shadow_map_init(shadow_map *s, int size);
void shadow_map_free(shadow_map *s);
/* Fits the light's box around the sphere (centre, radius) and binds the
 * depth target for drawing. */
void shadow_map_begin(shadow_map *s, const vec3 centre, float radius);
void shadow_map_end(shadow_map *s);

#endif
