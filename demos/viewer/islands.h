/* Which island each body is in, as the viewer colours them: dynamic bodies
 * joined by joints or touching (last step's contacts), found by union-find
 * from the public readback. Static and kinematic bodies belong to none. */
#ifndef HEFT_VIEWER_ISLANDS_H
#define HEFT_VIEWER_ISLANDS_H

#include "heft.h"

typedef struct island_map {
    int *label; /* by body index: island number (0, 1, ...) or -1 */
    int capacity;
    int count; /* islands found */
} island_map;

int island_map_update(island_map *m, heft_world *world);
int island_map_label(const island_map *m, heft_body_id body);
void island_map_free(island_map *m);

#endif
