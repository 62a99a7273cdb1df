/* Contact begin and end events (heft_world_contact_events) against a
 * brute-force diff of the shape pairs in heft_world_contact, step by step,
 * on a scripted scene: boxes dropped on the ground and on each other, one
 * thrown sideways, one lifted away by setting its pose. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heft.h"

#define MAX_PAIRS 512

static uint64_t pair_key(heft_shape_id a, heft_shape_id b) {
    uint32_t lo = (uint32_t)(a.index < b.index ? a.index : b.index);
    uint32_t hi = (uint32_t)(a.index < b.index ? b.index : a.index);
    return ((uint64_t)lo << 32) | hi;
}

static int compare_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* the distinct shape pairs of the last step's contacts, sorted */
static int touching_pairs(const heft_world *w, uint64_t *out) {
    int n = 0;
    const int count = heft_world_contact_count(w);
    for (int i = 0; i < count; ++i) {
        heft_contact_info c;
        cr_assert_eq(heft_world_contact(w, i, &c), HEFT_OK);
        const uint64_t k = pair_key(c.shape_a, c.shape_b);
        int seen = 0;
        for (int j = 0; j < n && !seen; ++j)
            seen = out[j] == k;
        if (!seen) {
            cr_assert_lt(n, MAX_PAIRS);
            out[n++] = k;
        }
    }
    qsort(out, (size_t)n, sizeof *out, compare_u64);
    return n;
}

static int contains(const uint64_t *set, int n, uint64_t k) {
    return bsearch(&k, set, (size_t)n, sizeof *set, compare_u64) != NULL;
}

static heft_body_id box(heft_world *w, double x, double z, heft_vec3 v) {
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(x, 0.0, z);
    bd.linear_velocity = v;
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(0.5, 0.5, 0.5);
    cr_assert(heft_shape_is_valid(w, heft_create_shape(w, b, &sd)), "%s", heft_last_error());
    return b;
}

Test(contact_events, begin_and_end_match_a_diff_of_the_contact_pairs) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    heft_body_id ground = heft_create_body(w, &gd);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    heft_create_shape(w, ground, &plane);
    box(w, 0.0, 3.0, heft_v3(0, 0, 0));
    box(w, 0.2, 5.0, heft_v3(0, 0, 0));
    heft_body_id thrown = box(w, -6.0, 0.6, heft_v3(8.0, 0, 0));
    heft_body_id lifted = box(w, 4.0, 0.5, heft_v3(0, 0, 0));

    uint64_t before[MAX_PAIRS], now[MAX_PAIRS];
    int nb = 0, begins = 0, ends = 0, fast_begins = 0;
    for (int step = 0; step < 240; ++step) {
        if (step == 120) /* lifted off the ground: its pair ends */
            heft_body_set_transform(w, lifted, heft_v3(4.0, 0.0, 4.0), heft_quat_identity());
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
        const int nn = touching_pairs(w, now);
        const heft_contact_events ev = heft_world_contact_events(w);
        int expected_begin = 0, expected_end = 0;
        for (int i = 0; i < nn; ++i)
            expected_begin += !contains(before, nb, now[i]);
        for (int i = 0; i < nb; ++i)
            expected_end += !contains(now, nn, before[i]);
        cr_assert_eq(ev.begin_count, expected_begin, "step %d: %d begin events, diff %d", step,
                     ev.begin_count, expected_begin);
        cr_assert_eq(ev.end_count, expected_end, "step %d: %d end events, diff %d", step,
                     ev.end_count, expected_end);
        for (int i = 0; i < ev.begin_count; ++i) {
            const uint64_t k = pair_key(ev.begin[i].shape_a, ev.begin[i].shape_b);
            cr_assert(contains(now, nn, k) && !contains(before, nb, k), "step %d", step);
            cr_assert(isfinite(ev.begin[i].approach_speed));
            cr_assert(heft_body_is_valid(w, ev.begin[i].body_a));
            fast_begins += ev.begin[i].approach_speed > 1.0;
            if (i > 0)
                cr_assert_lt(pair_key(ev.begin[i - 1].shape_a, ev.begin[i - 1].shape_b), k);
        }
        for (int i = 0; i < ev.end_count; ++i) {
            const uint64_t k = pair_key(ev.end[i].shape_a, ev.end[i].shape_b);
            cr_assert(contains(before, nb, k) && !contains(now, nn, k), "step %d", step);
        }
        begins += ev.begin_count;
        ends += ev.end_count;
        memcpy(before, now, sizeof(uint64_t) * (size_t)nn);
        nb = nn;
    }
    cr_log_info("%d begin and %d end events over 240 steps, %d closing faster than 1 m/s", begins,
                ends, fast_begins);
    /* the scene must exercise both kinds: drops, the throw, the lift */
    cr_assert_geq(begins, 4);
    cr_assert_geq(ends, 1);
    /* the dropped boxes land at metres per second */
    cr_assert_geq(fast_begins, 1);
    (void)thrown;
    heft_world_destroy(w);
}

/* A joint broken by an overload is reported once, in the step it broke,
 * with the reaction that broke it; a joint strong enough never is. */
Test(joint_events, a_broken_joint_is_reported_once_in_the_step_it_broke) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.mass = 10.0;
    bd.position = heft_v3(0.0, 0.0, 1.0);
    heft_body_id weak_end = heft_create_body(w, &bd);
    bd.position = heft_v3(3.0, 0.0, 1.0);
    heft_body_id strong_end = heft_create_body(w, &bd);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_a = HEFT_WORLD_FRAME;
    jd.body_b = weak_end;
    heft_joint_def_set_world_frame(w, &jd, heft_v3(0.0, 0.0, 1.5), heft_v3(0, 0, 1));
    jd.break_force = 50.0; /* the body weighs 98 N */
    heft_joint_id weak = heft_create_joint(w, &jd);
    cr_assert(heft_joint_is_valid(w, weak), "%s", heft_last_error());
    jd.body_b = strong_end;
    heft_joint_def_set_world_frame(w, &jd, heft_v3(3.0, 0.0, 1.5), heft_v3(0, 0, 1));
    jd.break_force = 1e4;
    heft_joint_id strong = heft_create_joint(w, &jd);
    int reported = 0, broke_at = -1, reported_at = -1;
    for (int step = 0; step < 60; ++step) {
        const int was = heft_joint_is_broken(w, weak);
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
        if (!was && heft_joint_is_broken(w, weak))
            broke_at = step;
        const heft_joint_events ev = heft_world_joint_events(w);
        for (int i = 0; i < ev.broken_count; ++i) {
            cr_assert_eq(ev.broken[i].joint.index, weak.index, "the strong joint broke");
            cr_assert_eq(ev.broken[i].joint.generation, weak.generation);
            cr_assert_gt(heft_v3_length(ev.broken[i].force), 50.0,
                         "the reaction that broke it: %g N", heft_v3_length(ev.broken[i].force));
            reported++;
            reported_at = step;
        }
    }
    cr_assert_eq(reported, 1, "%d reports", reported);
    cr_assert_geq(broke_at, 0);
    cr_assert_eq(reported_at, broke_at);
    cr_assert(!heft_joint_is_broken(w, strong));
    heft_world_destroy(w);
}
