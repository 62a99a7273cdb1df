/* Two boxes answered from bounds on their face separations
 * (collide_boxes_bounded) against the whole separating axis test
 * (collide_polytopes_general): wherever the bounds answer, the manifold is
 * the general one to the bit; collide_polytopes gives the general answer on
 * every pair; and the bounds answer for boxes resting on each other, turned
 * alike to the bit or not, near the origin or far from it. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "collide_polytopes.h"

#define RANDOM_BOXES_SEED 20261127u
#include "random_boxes.h"

static int same_manifold(const manifold *x, const manifold *y) {
    return x->count == y->count &&
           memcmp(x->points, y->points, (size_t)x->count * sizeof x->points[0]) == 0;
}

typedef struct tally {
    int pairs, answered, touching, answered_touching;
} tally;

/* Both orders of the pair: the bounded answer, where there is one, and
 * collide_polytopes' are the general manifold's bits. */
static void compare(const placed_box *a, const placed_box *b, double margin, tally *t) {
    for (int order = 0; order < 2; ++order) {
        const convex_view *x = order ? &b->cv : &a->cv, *y = order ? &a->cv : &b->cv;
        manifold general, bounded, dispatched;
        memset(&general, 0x5a, sizeof general);
        memset(&bounded, 0xa5, sizeof bounded);
        memset(&dispatched, 0x3c, sizeof dispatched);
        const int ng = collide_polytopes_general(x, y, margin, &general);
        const int nb = collide_boxes_bounded(x, y, margin, &bounded);
        const int nd = collide_polytopes(x, y, margin, &dispatched);
        cr_assert_eq(ng, general.count);
        cr_assert_eq(nd, ng, "collide_polytopes: %d points, the general test %d", nd, ng);
        cr_assert(same_manifold(&dispatched, &general), "collide_polytopes differs in its bits");
        t->pairs++;
        t->touching += ng > 0;
        if (nb >= 0) {
            cr_assert_eq(nb, ng, "bounded: %d points, the general test %d", nb, ng);
            cr_assert(same_manifold(&bounded, &general), "the bounded answer differs in its bits");
            t->answered++;
            t->answered_touching += ng > 0;
        } else {
            cr_assert_eq(bounded.count, 0, "no answer leaves no points");
        }
    }
}

static void free_pair(placed_box *a, placed_box *b) {
    convex_hull_free(a->hull);
    convex_hull_free(b->hull);
}

Test(box_bounds, random_pairs_keep_the_general_bits) {
    static const double margins[3] = {0.0, 0.02, 0.1};
    tally t = {0};
    for (int n = 0; n < 20000; ++n) {
        heft_vec3 ha = rand_half_extents(1.0), hb = rand_half_extents(1.0);
        heft_vec3 pa = srand3(5.0);
        double reach = heft_v3_length(ha) + heft_v3_length(hb);
        heft_vec3 dir = heft_v3_normalize(srand3(1.0));
        heft_vec3 pb = heft_v3_add(pa, heft_v3_scale(dir, 1.2 * urand() * reach));
        placed_box a, b;
        place(&a, ha, pa, rand_rotation());
        place(&b, hb, pb, rand_rotation());
        compare(&a, &b, margins[n % 3], &t);
        free_pair(&a, &b);
    }
    cr_log_info("random: %d ordered pairs, %d answered from the bounds; %d touching, %d of "
                "them answered",
                t.pairs, t.answered, t.touching, t.answered_touching);
    cr_assert_gt(t.touching, 5000);
    /* the rest: edge contacts and separations within the bounds */
    cr_assert_gt(t.answered, t.pairs * 6 / 10, "%d of %d", t.answered, t.pairs);
}

/* b resting on a's +z face, sunk in by depth, shifted sideways by up to
 * shift, turned from a by up to tilt radians about a random axis (0: the
 * same quaternion, the rotations equal to the bit) */
static void stack_pair_sized(placed_box *a, placed_box *b, heft_vec3 half, heft_vec3 half_b,
                             heft_vec3 p, heft_quat q, double depth, double shift, double tilt) {
    place(a, half, p, q);
    heft_vec3 up = transform_vector(&a->t, heft_v3(0.0, 0.0, 1.0));
    heft_vec3 ex = transform_vector(&a->t, heft_v3(1.0, 0.0, 0.0));
    heft_vec3 ey = transform_vector(&a->t, heft_v3(0.0, 1.0, 0.0));
    heft_vec3 pb = heft_v3_madd(p, half.z + half_b.z - depth, up);
    pb = heft_v3_madd(pb, shift * srand1(), ex);
    pb = heft_v3_madd(pb, shift * srand1(), ey);
    heft_quat qb = q;
    if (tilt > 0.0) {
        heft_vec3 axis = heft_v3_normalize(srand3(1.0));
        double angle = tilt * srand1();
        heft_quat turn = heft_q(cos(0.5 * angle), sin(0.5 * angle) * axis.x,
                                sin(0.5 * angle) * axis.y, sin(0.5 * angle) * axis.z);
        qb = heft_quat_normalize(heft_quat_mul(turn, q));
    }
    place(b, half_b, pb, qb);
}

static void stack_pair(placed_box *a, placed_box *b, heft_vec3 half, heft_vec3 p, heft_quat q,
                       double depth, double shift, double tilt) {
    stack_pair_sized(a, b, half, half, p, q, depth, shift, tilt);
}

Test(box_bounds, resting_stacks_are_answered_from_the_bounds) {
    static const double far[3] = {0.0, 40.0, 1e4};
    static const double tilts[3] = {0.0, 1e-9, 1e-4};
    tally t = {0};
    for (int n = 0; n < 3000; ++n) {
        heft_vec3 half = n % 2 ? heft_v3(0.5, 0.5, 0.5) : rand_half_extents(1.0);
        heft_vec3 p = heft_v3_add(heft_v3(far[n % 3], 0.0, 0.0), srand3(3.0));
        heft_quat q = n % 5 == 0 ? heft_q(1.0, 0.0, 0.0, 0.0) : rand_rotation();
        placed_box a, b;
        stack_pair(&a, &b, half, p, q, 1e-2 * urand(), 1e-2 * half.x, tilts[(n / 3) % 3]);
        compare(&a, &b, 0.02, &t);
        free_pair(&a, &b);
    }
    cr_log_info("stacks: %d ordered pairs, %d answered from the bounds", t.pairs, t.answered);
    cr_assert_eq(t.touching, t.pairs, "every stacked pair touches");
    cr_assert_eq(t.answered, t.pairs, "%d of %d stacked pairs answered", t.answered, t.pairs);
}

/* the tie between the two faces goes to the larger face: b's footprint
 * equal to a's, equal but for its height, larger or smaller by 1e-9 of the
 * two areas to within rounding (where the corners' areas decide) and by a
 * few per cent */
Test(box_bounds, tied_faces_of_other_sizes_keep_the_general_bits) {
    static const double grow[6] = {1.0, 1.0, 1.0 + 2e-9, 1.0 - 2e-9, 1.03, 0.97};
    tally t = {0};
    for (int n = 0; n < 3000; ++n) {
        heft_vec3 half = heft_v3(0.5, 0.4, 0.3);
        const double g = grow[n % 6];
        heft_vec3 half_b = heft_v3(half.x * g, half.y, n % 6 == 1 ? 0.7 : half.z);
        placed_box a, b;
        stack_pair_sized(&a, &b, half, half_b, srand3(3.0), rand_rotation(), 1e-3 * urand(), 1e-3,
                         n % 2 ? 0.0 : 1e-9);
        compare(&a, &b, 0.02, &t);
        free_pair(&a, &b);
    }
    cr_log_info("tied faces: %d ordered pairs, %d answered from the bounds", t.pairs, t.answered);
    cr_assert_eq(t.touching, t.pairs);
    cr_assert_eq(t.answered, t.pairs);
}

Test(box_bounds, separations_at_the_margin_and_tiny_boxes_keep_the_general_bits) {
    tally t = {0};
    /* b above a's top face by the margin to a few units of the last place */
    for (int n = 0; n < 2000; ++n) {
        heft_vec3 half = heft_v3(0.5, 0.5, 0.5);
        placed_box a, b;
        const double margin = 0.02;
        const double gap = margin * (1.0 + (n % 21 - 10) * 1e-16);
        stack_pair(&a, &b, half, srand3(3.0), rand_rotation(), -gap, 0.1, n % 2 ? 0.0 : 1e-9);
        compare(&a, &b, margin, &t);
        free_pair(&a, &b);
    }
    /* boxes of a millimetre, a micrometre and a hundred kilometres */
    static const double scales[3] = {1e-3, 1e-6, 1e5};
    for (int n = 0; n < 3000; ++n) {
        const double s = scales[n % 3];
        heft_vec3 ha = rand_half_extents(s), hb = rand_half_extents(s);
        heft_vec3 pa = srand3(5.0 * s);
        double reach = heft_v3_length(ha) + heft_v3_length(hb);
        heft_vec3 pb =
            heft_v3_add(pa, heft_v3_scale(heft_v3_normalize(srand3(1.0)), 1.2 * urand() * reach));
        placed_box a, b;
        place(&a, ha, pa, rand_rotation());
        place(&b, hb, pb, rand_rotation());
        compare(&a, &b, 0.02 * s, &t);
        free_pair(&a, &b);
    }
    cr_log_info("margins and scales: %d ordered pairs, %d answered from the bounds", t.pairs,
                t.answered);
    cr_assert_gt(t.answered, 0);
    cr_assert_lt(t.answered, t.pairs, "the pairs at the margin are left to the general test");
}

/* A box with a non-finite corner (a NaN position) compares with nothing:
 * no face is deepest, and both tests answer no contact rather than read a
 * face that is not there. */
Test(box_bounds, a_non_finite_box_gives_no_contact) {
    placed_box a, b;
    place(&a, heft_v3(0.5, 0.5, 0.5), heft_v3(0.0, 0.0, 0.0), heft_q(1.0, 0.0, 0.0, 0.0));
    place(&b, heft_v3(0.5, 0.5, 0.5), heft_v3(0.0, 0.0, NAN), heft_q(1.0, 0.0, 0.0, 0.0));
    for (int order = 0; order < 2; ++order) {
        const convex_view *x = order ? &b.cv : &a.cv, *y = order ? &a.cv : &b.cv;
        manifold m;
        cr_assert_eq(collide_polytopes_general(x, y, 0.01, &m), 0);
        cr_assert_eq(m.count, 0);
        cr_assert_eq(collide_polytopes(x, y, 0.01, &m), 0);
        cr_assert_eq(m.count, 0);
    }
    free_pair(&a, &b);
}
