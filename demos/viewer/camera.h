/* The orbit camera: yaw and pitch about a target point, z up. Orbit, pan and
 * zoom from the mouse; follows a body; presets per scene. Float matrices
 * (cglm) for the renderer; the engine stays double. */
#ifndef HEFT_VIEWER_CAMERA_H
#define HEFT_VIEWER_CAMERA_H

#include <cglm/cglm.h>

#include "heft.h"

typedef struct camera {
    vec3 target;
    float yaw;      /* rad, about z; 0 looks along +y */
    float pitch;    /* rad, above the horizon */
    float distance; /* m from the target */
    float fov_y;    /* rad */
    float aspect;
} camera;

/* The scene's preset (camera.c has the per-scene table; scene is NAME or
 * NAME/VARIANT): the box [lo, hi] framed from the scene's direction, or the
 * scene's fixed target and distance; other scenes get the default direction. */
void camera_preset(camera *c, const char *scene, heft_vec3 lo, heft_vec3 hi);
/* 1 if the table has an entry for scene */
int camera_has_preset(const char *scene);
void camera_orbit(camera *c, float dx_pixels, float dy_pixels);
void camera_pan(camera *c, float dx_pixels, float dy_pixels, float viewport_height);
void camera_zoom(camera *c, float wheel_steps);
void camera_eye(const camera *c, vec3 eye);
void camera_view(const camera *c, mat4 view);
void camera_projection(const camera *c, mat4 proj);
/* The world ray through a pixel (origin at the eye, unit direction); pixel
 * coordinates from the top-left corner of a viewport of width x height. */
void camera_ray(const camera *c, float px, float py, float width, float height, vec3 origin,
                vec3 direction);
/* Where a world point appears, in pixels from the top-left; 0 if behind. */
int camera_project(const camera *c, const float point[3], float width, float height, float *px,
                   float *py);

#endif
