/* Draws the world: sky, shadow map, every shape as instanced meshes with a
 * directional light, the ground grid, and the debug views (contacts, joints,
 * bounding boxes, islands: the engine's heft_world_draw; the drag spring).
 * Reads the world only through heft.h. */
#ifndef HEFT_VIEWER_RENDERER_H
#define HEFT_VIEWER_RENDERER_H

#include "heft.h"

typedef struct viewer viewer;
typedef struct renderer renderer;

renderer *renderer_create(void);
void renderer_destroy(renderer *r);
/* Forgets the meshes made for the shapes of the last world (scene change). */
void renderer_reset(renderer *r);
void renderer_draw(renderer *r, viewer *v);
/* The bounding box of every shape but planes; 0 if there is none. */
int renderer_scene_bounds(heft_world *world, heft_vec3 *lo, heft_vec3 *hi);
int renderer_island_count(const renderer *r);
/* The heft_world_draw flags of the debug layers the viewer shows now. */
uint32_t renderer_debug_flags(const viewer *v);
/* The segments heft_world_draw gave the last frame's debug layers. */
int renderer_debug_segments(const renderer *r);
/* Bodies without shapes are drawn (and picked) as a sphere of this radius:
 * their mass at the density of water, between 3 cm and 1 m. */
double renderer_proxy_radius(const heft_world *world, heft_body_id body);

#endif
