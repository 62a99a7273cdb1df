/* What the world queries share: filters, hits, the input checks. Private to
 * the library. */
#ifndef HEFT_QUERY_H
#define HEFT_QUERY_H

#include "world.h"

/* The unit vector along d, robust to tiny and huge components; 0 when d is
 * zero or not finite. */
int query_unit_direction(heft_vec3 d, heft_vec3 *unit);
/* Does the filter (NULL: every shape) pass the shape? */
int query_accepts(const heft_world *w, const heft_query_filter *filter, int32_t shape);
/* A hit on shape index at distance t along the unit ray. */
heft_ray_hit query_hit(const heft_world *w, int32_t shape, double t, heft_vec3 point,
                       heft_vec3 normal);
/* Orders hits by distance, then shape index (for qsort). */
int query_compare_hits(const void *a, const void *b);
/* Appends to a growable array of hits; 0 when out of memory. */
int query_push_hit(heft_ray_hit **hits, int *count, int *capacity, const heft_ray_hit *hit);

#endif
