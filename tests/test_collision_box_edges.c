/* The closed-form edge-edge query of two boxes against the general walk over
 * edge pairs: the same separation, normal and edges on random pairs of every
 * size, orientation and distance, on exactly and nearly parallel edges, and
 * the general path kept for polytopes that are not boxes. */
#include <criterion/criterion.h>
#include <math.h>

#include "collide_polytopes.h"

#define RANDOM_BOXES_SEED 20261126u
#include "random_boxes.h"

/* the deepest face axis of either box, in closed form */
static double face_best(const placed_box *a, const placed_box *b, heft_vec3 ha, heft_vec3 hb) {
    heft_vec3 d = heft_v3_sub(b->t.p, a->t.p);
    double best = -INFINITY;
    for (int side = 0; side < 2; ++side) {
        const transform *ts = side ? &b->t : &a->t, *to = side ? &a->t : &b->t;
        heft_vec3 hs = side ? hb : ha, ho = side ? ha : hb;
        for (int k = 0; k < 3; ++k) {
            heft_vec3 n = transform_vector(ts, heft_v3(k == 0, k == 1, k == 2));
            double r = v3_get(hs, k);
            for (int m = 0; m < 3; ++m) {
                heft_vec3 u = transform_vector(to, heft_v3(m == 0, m == 1, m == 2));
                r += v3_get(ho, m) * fabs(heft_v3_dot(n, u));
            }
            best = fmax(best, fabs(heft_v3_dot(n, d)) - r);
        }
    }
    return best;
}

typedef struct tally {
    int pairs, same_edges, near_ties, face_axis_only, none;
    double sep_error, normal_error;
} tally;

/* Separations agree to tol (a length, relative to the boxes' sizes); the
 * edges and normal agree unless two axes tie to tol; an axis one side
 * finds and the other skips is a face axis to tol. */
static void compare(heft_vec3 ha, heft_vec3 pa, heft_quat qa, heft_vec3 hb, heft_vec3 pb,
                    heft_quat qb, tally *t) {
    placed_box a, b;
    place(&a, ha, pa, qa);
    place(&b, hb, pb, qb);
    double tol = 1e-9 * (a.cv.size + b.cv.size);
    edge_query general = polytope_query_edges(&a.cv, &b.cv), fast;
    cr_assert(box_query_edges(&a.cv, &b.cv, &fast), "two boxes take the closed form");
    t->pairs++;
    double ds = fabs(fast.separation - general.separation);
    if (general.edge_a < 0 && fast.edge_a < 0) {
        t->none++;
    } else if (general.edge_a < 0 || fast.edge_a < 0 || ds > tol) {
        /* only where the arcs meet at a face normal to round-off, which
         * the two sign tests may read either way: the face axis then
         * decides, and the edge axis never gives the contact */
        double deeper = fmax(fast.separation, general.separation);
        cr_assert_leq(deeper, face_best(&a, &b, ha, hb) + tol,
                      "an axis found by one query only is a face axis: %.17g vs %.17g", deeper,
                      face_best(&a, &b, ha, hb));
        t->face_axis_only++;
    } else {
        t->sep_error = fmax(t->sep_error, ds / (a.cv.size + b.cv.size));
        if (fast.edge_a == general.edge_a && fast.edge_b == general.edge_b) {
            double dn = heft_v3_length(heft_v3_sub(fast.normal, general.normal));
            cr_assert_leq(dn, 1e-8, "normal differs by %g on the same edges", dn);
            t->normal_error = fmax(t->normal_error, dn);
            t->same_edges++;
        } else if (general.separation <= face_best(&a, &b, ha, hb) + tol) {
            t->face_axis_only++; /* several edge pairs on one face normal */
        } else {
            t->near_ties++;
        }
    }
    cr_assert(fabs(heft_v3_length(fast.normal) - 1.0) < 1e-12 || fast.edge_a < 0);
    convex_hull_free(a.hull);
    convex_hull_free(b.hull);
}

/* B's centre placed so the pair is apart, touching or sunk in by up to
 * its size */
static heft_vec3 rand_offset(heft_vec3 ha, heft_vec3 hb) {
    double reach = heft_v3_length(ha) + heft_v3_length(hb);
    heft_vec3 dir = heft_v3_normalize(srand3(1.0));
    double k = 1.4 * urand();
    return heft_v3_scale(dir, k * reach);
}

Test(box_edges, random_pairs_match_the_general_query) {
    tally t = {0};
    for (int n = 0; n < 20000; ++n) {
        heft_vec3 ha = rand_half_extents(1.0), hb = rand_half_extents(1.0);
        heft_vec3 pa = srand3(5.0);
        heft_quat qa = rand_rotation(), qb = rand_rotation();
        compare(ha, pa, qa, hb, heft_v3_add(pa, rand_offset(ha, hb)), qb, &t);
    }
    cr_log_info("random: %d pairs, %d same edges, %d near ties, %d face-axis only, %d none; "
                "separation error %.3g of the size, normal %.3g",
                t.pairs, t.same_edges, t.near_ties, t.face_axis_only, t.none, t.sep_error,
                t.normal_error);
    cr_assert_eq(t.near_ties, 0, "%d pairs chose other edges off a face axis", t.near_ties);
    cr_assert_geq(t.same_edges, t.pairs * 9 / 10, "%d of %d pairs on the same edges", t.same_edges,
                  t.pairs);
}

Test(box_edges, touching_pairs_match_the_general_query) {
    /* moved along the general query's normal until its deepest edge axis
     * reads zero: the contact the query decides between edge and face on */
    tally t = {0};
    for (int n = 0; n < 5000; ++n) {
        heft_vec3 ha = rand_half_extents(1.0), hb = rand_half_extents(1.0);
        heft_quat qa = rand_rotation(), qb = rand_rotation();
        heft_vec3 pa = srand3(3.0), pb = heft_v3_add(pa, rand_offset(ha, hb));
        placed_box a, b;
        place(&a, ha, pa, qa);
        place(&b, hb, pb, qb);
        edge_query g = polytope_query_edges(&a.cv, &b.cv);
        convex_hull_free(a.hull);
        convex_hull_free(b.hull);
        if (g.edge_a >= 0) {
            pb = heft_v3_madd(pb, -g.separation, g.normal);
        }
        compare(ha, pa, qa, hb, pb, qb, &t);
    }
    cr_assert_eq(t.near_ties, 0);
    cr_assert_geq(t.same_edges, t.pairs * 9 / 10);
}

Test(box_edges, parallel_and_shared_axes_match_the_general_query) {
    /* the degenerate families of stacks and piles: one orientation for
     * both, a turn about one shared axis, quarter turns that swap axes
     * exactly, and turns just either side of the parallel cut (1e-6) */
    tally t = {0};
    const double turns[] = {0.0,
                            1e-9,
                            1e-7,
                            1e-5,
                            1e-3,
                            0.3,
                            1.5707963267948966,
                            0.7853981633974483,
                            3.141592653589793};
    const int nturns = (int)(sizeof turns / sizeof turns[0]);
    for (int n = 0; n < 4000; ++n) {
        heft_vec3 ha = rand_half_extents(1.0), hb = rand_half_extents(1.0);
        heft_quat base = (n % 4 == 0) ? heft_quat_identity() : rand_rotation();
        double angle = turns[n % nturns] * ((n / nturns) % 2 ? -1.0 : 1.0);
        int k = (n / 3) % 3;
        heft_quat turn = heft_quat_axis_angle(heft_v3(k == 0, k == 1, k == 2), angle);
        heft_quat qb = heft_quat_mul(base, turn);
        heft_vec3 pa = srand3(2.0);
        heft_vec3 off = rand_offset(ha, hb);
        if (n % 5 == 0) {
            transform tbase = transform_make(heft_v3(0, 0, 0), base);
            off =
                transform_vector(&tbase, heft_v3(0.0, 0.0, ha.z + hb.z)); /* stacked face to face */
        }
        compare(ha, pa, base, hb, heft_v3_add(pa, off), qb, &t);
    }
    cr_log_info("degenerate: %d pairs, %d same edges, %d near ties, %d face-axis only, %d none",
                t.pairs, t.same_edges, t.near_ties, t.face_axis_only, t.none);
    cr_assert_eq(t.near_ties, 0, "%d pairs chose other edges off a face axis", t.near_ties);
    cr_assert_geq(t.same_edges, t.pairs / 5, "the turned pairs keep edge axes of their own");
}

Test(box_edges, hulls_that_are_not_boxes_keep_the_general_query) {
    /* a sheared box and a box with one corner pulled: 8 corners, 6 faces */
    heft_vec3 sheared[8], pulled[8];
    for (int k = 0; k < 8; ++k) {
        heft_vec3 c = heft_v3((k & 1) ? 0.5 : -0.5, (k & 2) ? 0.4 : -0.4, (k & 4) ? 0.3 : -0.3);
        sheared[k] = heft_v3(c.x + 0.5 * c.z, c.y, c.z);
        pulled[k] = c;
    }
    pulled[7] = heft_v3(0.5, 0.4, 0.31);
    convex_hull *box = convex_hull_box(heft_v3(0.5, 0.4, 0.3));
    const heft_vec3 *sets[2] = {sheared, pulled};
    for (int s = 0; s < 2; ++s) {
        convex_hull *h = convex_hull_build(sets[s], 8);
        cr_assert_not_null(h);
        transform ta = transform_make(heft_v3(0, 0, 0), heft_quat_identity());
        transform tb = transform_make(heft_v3(0.3, 0.2, 0.5), rand_rotation());
        convex_storage sa, sb;
        convex_view a, b;
        convex_view_polytope(&a, h, &ta, &sa);
        convex_view_polytope(&b, box, &tb, &sb);
        edge_query q = {-7, -7, 0.0, {0.0, 0.0, 0.0}};
        cr_assert_eq(box_query_edges(&a, &b, &q), 0, "hull %d is not a box", s);
        cr_assert_eq(box_query_edges(&b, &a, &q), 0);
        cr_assert_eq(q.edge_a, -7, "q is left alone");
        convex_hull_free(h);
    }
    /* the same box corners given in another order still make a box */
    heft_vec3 corners[8];
    for (int k = 0; k < 8; ++k) {
        int m = 7 - k;
        corners[k] = heft_v3((m & 4) ? 0.5 : -0.5, (m & 1) ? 0.4 : -0.4, (m & 2) ? 0.3 : -0.3);
    }
    convex_hull *h = convex_hull_build(corners, 8);
    tally t = {0};
    for (int n = 0; n < 500; ++n) {
        placed_box a, b;
        a.hull = h;
        a.t = transform_make(srand3(1.0), rand_rotation());
        convex_view_polytope(&a.cv, h, &a.t, &a.st);
        place(&b, rand_half_extents(1.0), heft_v3_add(a.t.p, srand3(1.5)), rand_rotation());
        edge_query g = polytope_query_edges(&a.cv, &b.cv), f;
        cr_assert(box_query_edges(&a.cv, &b.cv, &f));
        cr_assert_eq(f.edge_a < 0, g.edge_a < 0);
        if (g.edge_a >= 0) {
            cr_assert_leq(fabs(f.separation - g.separation), 1e-9 * (a.cv.size + b.cv.size));
            t.same_edges += f.edge_a == g.edge_a && f.edge_b == g.edge_b;
            t.pairs++;
        }
        convex_hull_free(b.hull);
    }
    cr_assert_geq(t.same_edges, t.pairs - 2, "%d of %d", t.same_edges, t.pairs);
    convex_hull_free(h);
    convex_hull_free(box);
}
