/* Each body's lists of joints and shapes (engine/body_links.c): destroying a
 * body takes exactly its own joints and shapes, a body's shapes come back in
 * index order whatever the order of creation and destruction, and jointed
 * bodies stop colliding only with the body they are jointed to. */
#include <criterion/criterion.h>
#include <string.h>

#include "heft.h"

static heft_body_id add_box(heft_world *w, double x, double z) {
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(x, 0.0, z);
    heft_body_id b = heft_create_body(w, &bd);
    cr_assert(heft_body_is_valid(w, b), "%s", heft_last_error());
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(0.5, 0.5, 0.5);
    cr_assert(heft_shape_is_valid(w, heft_create_shape(w, b, &sd)), "%s", heft_last_error());
    return b;
}

static heft_joint_id ball(heft_world *w, heft_body_id a, heft_body_id b) {
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_a = a;
    jd.body_b = b;
    heft_joint_id j = heft_create_joint(w, &jd);
    cr_assert(heft_joint_is_valid(w, j), "%s", heft_last_error());
    return j;
}

Test(body_links, destroying_a_body_takes_its_joints_and_shapes_only) {
    heft_world *w = heft_world_create(NULL);
    enum { N = 12 };
    heft_body_id b[N];
    for (int i = 0; i < N; ++i) {
        b[i] = add_box(w, 2.0 * i, 5.0);
    }
    heft_joint_id chain[N - 1];
    for (int i = 0; i + 1 < N; ++i) {
        chain[i] = ball(w, b[i], b[i + 1]);
    }
    heft_joint_id hub = ball(w, b[3], b[9]);
    cr_assert_eq(heft_world_joint_count(w), N);
    cr_assert_eq(heft_destroy_body(w, b[3]), HEFT_OK);
    /* b[3] had three joints: to b[2], to b[4] and to b[9] */
    cr_assert_eq(heft_world_joint_count(w), N - 3);
    cr_assert(!heft_joint_is_valid(w, chain[2]));
    cr_assert(!heft_joint_is_valid(w, chain[3]));
    cr_assert(!heft_joint_is_valid(w, hub));
    for (int i = 0; i + 1 < N; ++i) {
        if (i != 2 && i != 3) {
            cr_assert(heft_joint_is_valid(w, chain[i]), "joint %d went with body 3", i);
        }
    }
    /* the freed joint slots are reused and the lists stay consistent */
    heft_joint_id again = ball(w, b[4], b[9]);
    cr_assert_eq(heft_destroy_body(w, b[9]), HEFT_OK);
    cr_assert(!heft_joint_is_valid(w, again));
    cr_assert(!heft_joint_is_valid(w, chain[8]));
    cr_assert(!heft_joint_is_valid(w, chain[9]));
    cr_assert_eq(heft_world_joint_count(w), N - 5);
    cr_assert_eq(heft_world_body_count(w), N - 2);
    heft_world_destroy(w);
}

Test(body_links, a_bodys_shapes_come_back_in_index_order) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    heft_body_id a = heft_create_body(w, &bd);
    heft_body_id other = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.radius = 0.1;
    heft_shape_id s[6];
    for (int i = 0; i < 6; ++i) {
        /* interleaved with another body's shapes */
        s[i] = heft_create_shape(w, i % 2 ? other : a, &sd);
    }
    cr_assert_eq(heft_destroy_shape(w, s[0]), HEFT_OK);
    cr_assert_eq(heft_destroy_shape(w, s[2]), HEFT_OK);
    heft_shape_id reused = heft_create_shape(w, a, &sd); /* takes a freed slot */
    heft_shape_id out[8];
    int n = heft_body_shapes(w, a, out, 8);
    cr_assert_eq(n, 2);
    cr_assert_lt(out[0].index, out[1].index);
    int found_reused = 0, found_s4 = 0;
    for (int i = 0; i < n; ++i) {
        found_reused += out[i].index == reused.index && out[i].generation == reused.generation;
        found_s4 += out[i].index == s[4].index && out[i].generation == s[4].generation;
    }
    cr_assert(found_reused && found_s4);
    cr_assert_eq(heft_body_shapes(w, other, NULL, 0), 3);
    heft_world_destroy(w);
}

Test(body_links, jointed_bodies_skip_contacts_with_each_other_only) {
    heft_world_def wd = heft_default_world_def();
    heft_world *w = heft_world_create(&wd);
    /* three overlapping boxes in a row, a and b jointed, c free */
    heft_body_id a = add_box(w, 0.0, 3.0);
    heft_body_id b = add_box(w, 0.8, 3.0);
    heft_body_id c = add_box(w, 1.6, 3.0);
    ball(w, a, b);
    heft_world_set_gravity(w, heft_v3(0.0, 0.0, 0.0));
    cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
    int ab = 0, bc = 0;
    heft_contact_info info;
    for (int i = 0; heft_world_contact(w, i, &info) == HEFT_OK; ++i) {
        int pab = (info.body_a.index == a.index && info.body_b.index == b.index) ||
                  (info.body_a.index == b.index && info.body_b.index == a.index);
        int pbc = (info.body_a.index == b.index && info.body_b.index == c.index) ||
                  (info.body_a.index == c.index && info.body_b.index == b.index);
        ab += pab;
        bc += pbc;
    }
    cr_assert_eq(ab, 0, "jointed bodies a and b made %d contacts", ab);
    cr_assert_gt(bc, 0, "b and c overlap and must touch");
    heft_world_destroy(w);
}

/* every body's contact list against a scan of heft_world_contact */
static void expect_contact_lists_match_a_scan(heft_world *w, const heft_body_id *bodies, int n) {
    const int total = heft_world_contact_count(w);
    for (int k = 0; k < n; ++k) {
        int listed[256];
        const int count = heft_body_contacts(w, bodies[k], listed, 256);
        cr_assert_leq(count, 256);
        int expected = 0;
        for (int i = 0; i < total; ++i) {
            heft_contact_info c;
            cr_assert_eq(heft_world_contact(w, i, &c), HEFT_OK);
            if (c.body_a.index == bodies[k].index || c.body_b.index == bodies[k].index) {
                cr_assert_lt(expected, count, "body %d: contact %d not listed", k, i);
                cr_assert_eq(listed[expected], i, "body %d: listed %d, scan %d", k,
                             listed[expected], i);
                expected++;
            }
        }
        cr_assert_eq(count, expected, "body %d: %d listed, %d by the scan", k, count, expected);
    }
}

Test(body_links, each_bodys_contacts_are_those_a_scan_finds) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    heft_body_id ground = heft_create_body(w, &gd);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    heft_create_shape(w, ground, &plane);
    enum { N = 6 };
    heft_body_id b[N + 1];
    b[0] = ground;
    for (int i = 0; i < N; ++i) {
        /* two stacks of three touching boxes */
        b[i + 1] = add_box(w, 3.0 * (i % 2), 0.5 + 0.99 * (i / 2));
    }
    for (int s = 0; s < 5; ++s) {
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
    }
    cr_assert_gt(heft_world_contact_count(w), 8);
    expect_contact_lists_match_a_scan(w, b, N + 1);
    /* a middle box of each stack touches the box below and the box above */
    cr_assert_geq(heft_body_contacts(w, b[3], NULL, 0), 8);
    /* destroying a shape drops its contacts from the lists at once */
    heft_shape_id shapes[4];
    cr_assert_eq(heft_body_shapes(w, b[3], shapes, 4), 1);
    cr_assert_eq(heft_destroy_shape(w, shapes[0]), HEFT_OK);
    cr_assert_eq(heft_body_contacts(w, b[3], NULL, 0), 0);
    expect_contact_lists_match_a_scan(w, b, N + 1);
    /* a body made since the last step has none yet; bad input is refused */
    heft_body_id late = add_box(w, 10.0, 0.5);
    cr_assert_eq(heft_body_contacts(w, late, NULL, 0), 0);
    heft_body_id stale = {late.index, late.generation + 1};
    cr_assert_eq(heft_body_contacts(w, stale, NULL, 0), 0);
    cr_assert_str_neq(heft_last_error(), "");
    cr_assert_eq(heft_body_contacts(w, b[1], NULL, 3), 0);
    cr_assert_not_null(strstr(heft_last_error(), "heft_body_contacts"));
    heft_world_destroy(w);
}
