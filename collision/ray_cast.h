/* Rays against single shapes. Private to the library. */
#ifndef HEFT_RAY_CAST_H
#define HEFT_RAY_CAST_H

#include "shape.h"

/* Distance along the unit direction dir at which the ray from origin first
 * enters shape s (world transform t), within max_t; -1 for a miss or a ray
 * starting inside. normal gets the world surface normal there. */
double shape_ray_cast(const shape *s, const transform *t, heft_vec3 origin, heft_vec3 dir,
                      double max_t, heft_vec3 *normal);

#endif
