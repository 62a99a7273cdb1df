/* Seeded random boxes for the box-box tests (test_collision_box_*.c): a
 * linear congruential generator, so that every platform draws the same
 * pairs, and a box placed as a polytope view. The including test defines
 * RANDOM_BOXES_SEED first. */
#ifndef HEFT_TESTS_RANDOM_BOXES_H
#define HEFT_TESTS_RANDOM_BOXES_H

#include <criterion/criterion.h>

#include "collide_polytopes.h"

#ifndef RANDOM_BOXES_SEED
#error "define RANDOM_BOXES_SEED before including random_boxes.h"
#endif

static unsigned seed_state = RANDOM_BOXES_SEED;
static double urand(void) { /* [0, 1) */
    seed_state = seed_state * 1664525u + 1013904223u;
    return (seed_state >> 8) / 16777216.0;
}
static double srand1(void) {
    return 2.0 * urand() - 1.0;
}
static heft_vec3 srand3(double s) {
    double x = s * srand1();
    double y = s * srand1();
    double z = s * srand1();
    return heft_v3(x, y, z);
}
static heft_quat rand_rotation(void) {
    double w = srand1();
    double x = srand1();
    double y = srand1();
    double z = srand1();
    return heft_quat_normalize(heft_q(w, x, y, z));
}
static heft_vec3 rand_half_extents(double scale) {
    double x = scale * (0.02 + 2.0 * urand());
    double y = scale * (0.02 + 2.0 * urand());
    double z = scale * (0.02 + 2.0 * urand());
    return heft_v3(x, y, z);
}

typedef struct placed_box {
    convex_hull *hull;
    transform t;
    convex_storage st;
    convex_view cv;
} placed_box;

static void place(placed_box *b, heft_vec3 half, heft_vec3 p, heft_quat q) {
    b->hull = convex_hull_box(half);
    cr_assert_not_null(b->hull);
    cr_assert(b->hull->box);
    b->t = transform_make(p, q);
    convex_view_polytope(&b->cv, b->hull, &b->t, &b->st);
}

#endif
