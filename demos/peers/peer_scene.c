/* heft-peers: where each scene puts its bodies, shared by every adapter. */
#include <math.h>
#include <time.h>

#include "peers.h"

int peer_scene_body_count(const peer_scene *scene) {
    switch (scene->kind) {
    case PEER_PYRAMID:
        return scene->size * (scene->size + 1) / 2;
    case PEER_BOXES:
        return scene->size;
    case PEER_CHAIN:
        return scene->size + 1;
    }
    return 0;
}

void peer_chain_pivot(const peer_scene *scene, double out[3]) {
    out[0] = 0.0;
    out[1] = 0.0;
    out[2] = scene->size * PEER_LINK_LENGTH + 2.0 * PEER_LOAD_RADIUS + 1.0;
}

void peer_scene_start(const peer_scene *scene, int i, double out[3]) {
    out[0] = out[1] = out[2] = 0.0;
    if (scene->kind == PEER_PYRAMID) {
        /* level by level from the ground: 1 cm apart side by side, 1 mm above
         * each other, as Heft's stacking scene */
        int level = 0, first = 0, count = scene->size;
        while (i >= first + count) {
            first += count;
            count--;
            level++;
        }
        const int k = i - first;
        out[0] = (k - 0.5 * (count - 1)) * (2.0 * PEER_BOX_HALF + 0.01);
        out[2] = PEER_BOX_HALF + level * (2.0 * PEER_BOX_HALF + 0.001);
    } else if (scene->kind == PEER_BOXES) {
        const int side = (int)ceil(cbrt((double)scene->size));
        const int x = i % side, y = (i / side) % side, z = i / (side * side);
        out[0] = (x - 0.5 * (side - 1)) * 1.5;
        out[1] = (y - 0.5 * (side - 1)) * 1.5;
        out[2] = PEER_BOX_HALF + 0.5 + z * 1.5;
    } else {
        double pivot[3];
        peer_chain_pivot(scene, pivot);
        out[2] = i < scene->size ? pivot[2] - (i + 0.5) * PEER_LINK_LENGTH
                                 : pivot[2] - scene->size * PEER_LINK_LENGTH - PEER_LOAD_RADIUS;
    }
}

double peer_cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}
