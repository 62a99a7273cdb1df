/* World queries (docs/queries.md): ray casts with every hit and filters,
 * shape casts checked against brute-force sampling along the path, overlaps,
 * and the refusal of bad input. */
#include <criterion/criterion.h>
#include <string.h>

#include "collision_fixture.h"
#include "gjk.h"

static uint64_t rng_state;
static double urand(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}
static double srand1(double s) {
    return s * (2.0 * urand() - 1.0);
}
static heft_vec3 srand3(double s) {
    return heft_v3(srand1(s), srand1(s), srand1(s));
}
static heft_quat rand_quat(void) {
    heft_quat q = {srand1(1.0), srand1(1.0), srand1(1.0), srand1(1.0)};
    return heft_quat_normalize(q);
}

static const heft_quat I = {1.0, 0.0, 0.0, 0.0};

/* ---- shape casts against brute force ---------------------------------- */

/* The moving shape's core in world frame at one pose, as the brute force
 * sees it: its points (hull: the def's points), plus a rounding radius. */
typedef struct mover {
    heft_shape_def def;
    heft_vec3 local[24];
    int count;
    double radius;
} mover;

static void mover_make(mover *m, int kind) {
    memset(m, 0, sizeof *m);
    switch (kind) {
    case 0:
        m->def = sphere_def(0.1 + 0.4 * urand());
        m->local[0] = heft_v3(0, 0, 0);
        m->count = 1;
        m->radius = m->def.radius;
        break;
    case 1:
        m->def = capsule_def(0.05 + 0.3 * urand(), 0.1 + 0.5 * urand());
        m->local[0] = heft_v3(0, 0, -m->def.half_length);
        m->local[1] = heft_v3(0, 0, m->def.half_length);
        m->count = 2;
        m->radius = m->def.radius;
        break;
    case 2: {
        heft_vec3 e = heft_v3(0.1 + 0.5 * urand(), 0.1 + 0.5 * urand(), 0.1 + 0.5 * urand());
        m->def = box_def(e.x, e.y, e.z);
        for (int i = 0; i < 8; ++i) {
            m->local[i] = heft_v3(i & 1 ? e.x : -e.x, i & 2 ? e.y : -e.y, i & 4 ? e.z : -e.z);
        }
        m->count = 8;
        break;
    }
    default:
        m->count = 6 + (int)(urand() * 18);
        for (int i = 0; i < m->count; ++i) {
            m->local[i] = srand3(0.6);
        }
        m->def = hull_def(m->local, m->count);
        break;
    }
}

/* Surface distance between the mover at pose (p, q) and the hull points b. */
static double mover_distance(const mover *m, heft_vec3 p, heft_quat q, const heft_vec3 *b, int nb) {
    heft_vec3 world[24];
    for (int i = 0; i < m->count; ++i) {
        world[i] = heft_v3_add(p, heft_quat_rotate(q, m->local[i]));
    }
    convex_proxy pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    pa.points = world;
    pa.count = m->count;
    pb.points = b;
    pb.count = nb;
    gjk_output g;
    gjk_distance(&pa, &pb, INFINITY, &g);
    return (g.overlap ? 0.0 : g.distance) - m->radius;
}

Test(queries, shape_casts_agree_with_brute_force_sampling_on_random_hulls) {
    rng_state = 20261125;
    int hits = 0, misses = 0, samples = 4000;
    double worst = 0.0;
    for (int trial = 0; trial < 400; ++trial) {
        heft_world *w = heft_world_create(NULL);
        heft_vec3 target_points[20];
        int nt = 5 + trial % 15;
        for (int i = 0; i < nt; ++i) {
            target_points[i] = srand3(0.8);
        }
        heft_vec3 c = srand3(5.0);
        heft_quat qb = rand_quat();
        heft_shape_id target = fix_put(w, hull_def(target_points, nt), c, qb);
        const shape *ts = &w->shapes[target.index];
        heft_vec3 tv[HULL_MAX_VERTICES];
        for (int i = 0; i < ts->hull->vertex_count; ++i) {
            tv[i] = heft_v3_add(c, heft_quat_rotate(qb, ts->hull->vertices[i]));
        }
        int ntv = ts->hull->vertex_count;

        mover m;
        mover_make(&m, trial % 4);
        heft_quat qa = rand_quat();
        heft_vec3 start = heft_v3_add(c, heft_v3_scale(heft_v3_normalize(srand3(1.0)), 4.0));
        /* aimed near the target's centre: most hit, some graze or miss */
        heft_vec3 aim = heft_v3_add(c, srand3(1.2));
        heft_vec3 dir = heft_v3_normalize(heft_v3_sub(aim, start));
        double max_d = 8.0;
        heft_ray_hit hit;
        int r = heft_world_cast_shape(w, &m.def, start, qa, dir, max_d, NULL, &hit);
        cr_assert_geq(r, 0, "%s", heft_last_error());

        /* brute force: the first sample in overlap, then bisection */
        double t_hit = -1.0, prev = 0.0;
        for (int k = 0; k <= samples; ++k) {
            double t = max_d * k / samples;
            if (mover_distance(&m, heft_v3_madd(start, t, dir), qa, tv, ntv) <= 0.0) {
                double lo = prev, hi = t;
                if (k == 0) {
                    lo = hi = 0.0;
                }
                for (int it = 0; it < 60 && hi - lo > 1e-13; ++it) {
                    double mid = 0.5 * (lo + hi);
                    if (mover_distance(&m, heft_v3_madd(start, mid, dir), qa, tv, ntv) <= 0.0) {
                        hi = mid;
                    } else {
                        lo = mid;
                    }
                }
                t_hit = hi;
                break;
            }
            prev = t;
        }
        if (t_hit >= 0.0) {
            cr_assert_eq(r, 1, "trial %d: brute force hits at %.9f, the cast misses", trial, t_hit);
            double err = fabs(hit.distance - t_hit);
            worst = fmax(worst, err);
            cr_assert_lt(err, 1e-6, "trial %d (kind %d): cast %.12f, brute force %.12f", trial,
                         trial % 4, hit.distance, t_hit);
            cr_assert_eq(hit.shape.index, target.index);
            hits++;
        } else {
            misses++;
            if (r == 1) { /* a graze between two samples: touching there */
                double d = mover_distance(&m, heft_v3_madd(start, hit.distance, dir), qa, tv, ntv);
                cr_assert_lt(fabs(d), 1e-6, "trial %d: the cast hits where the gap is %g", trial,
                             d);
            }
        }
        if (r == 1) {
            /* the point lies on the target's surface, the normal faces the cast */
            convex_proxy pp, pb;
            memset(&pp, 0, sizeof pp);
            memset(&pb, 0, sizeof pb);
            pp.points = &hit.point;
            pp.count = 1;
            pb.points = tv;
            pb.count = ntv;
            gjk_output g;
            gjk_distance(&pp, &pb, INFINITY, &g);
            cr_assert_lt(g.distance, 1e-6, "trial %d: point %g off the target", trial, g.distance);
            cr_assert_lt(heft_v3_dot(hit.normal, dir), 1e-9, "trial %d: normal along the cast",
                         trial);
            cr_assert_float_eq(heft_v3_length(hit.normal), 1.0, 1e-9);
        }
        heft_world_destroy(w);
    }
    cr_log_info("shape casts: %d hits, %d misses, largest difference %.3g m", hits, misses, worst);
    cr_assert_gt(hits, 200, "only %d of 400 casts hit", hits);
    cr_assert_gt(misses, 10, "only %d of 400 casts missed", misses);
}

/* ---- closed-form casts against every kind of target ----------------------- */

static heft_shape_def field_def(const double *heights, int n, double spacing) {
    heft_shape_def d = heft_default_shape_def();
    d.type = HEFT_SHAPE_HEIGHT_FIELD;
    d.height_field.heights = heights;
    d.height_field.count_x = d.height_field.count_y = n;
    d.height_field.spacing_x = d.height_field.spacing_y = spacing;
    return d;
}

Test(queries, shape_casts_stop_on_planes_meshes_fields_and_convex_shapes) {
    heft_world *w = heft_world_create(NULL);
    heft_shape_id ground = fix_put(w, plane_def(heft_v3(0, 0, 1), 0.0), heft_v3(0, 0, 0), I);
    heft_shape_id mesh = fix_put(w, square_mesh_def(), heft_v3(10, 0, 1), I);
    double flat[16] = {0};
    for (int i = 0; i < 16; ++i) {
        flat[i] = 2.0;
    }
    heft_shape_id field = fix_put(w, field_def(flat, 4, 1.0), heft_v3(20, 0, 0), I);
    heft_shape_id ball = fix_put(w, sphere_def(0.5), heft_v3(30, 0, 1), I);
    heft_shape_id cyl = fix_put(w, cylinder_def(0.5, 0.5), heft_v3(40, 0, 1), I);
    heft_vec3 down = heft_v3(0, 0, -3); /* not unit: normalised */
    struct {
        heft_shape_def def;
        heft_vec3 from;
        heft_quat q;
        heft_shape_id shape;
        double distance;
    } cases[] = {
        {sphere_def(0.5), {0, 0, 5}, I, ground, 4.5},
        {box_def(0.5, 0.5, 0.25), {10.2, 0.1, 5}, I, mesh, 3.75},
        {capsule_def(0.25, 0.5), {21.5, 1.5, 5}, I, field, 2.25},
        {sphere_def(0.25), {30, 0, 5}, I, ball, 3.25},
        {box_def(0.25, 0.25, 0.25),
         {40, 0, 5},
         qaxis(1, 0, 0, HEFT_PI / 4),
         cyl,
         3.5 - 0.25 * sqrt(2.0)},
    };
    for (int k = 0; k < (int)(sizeof cases / sizeof cases[0]); ++k) {
        heft_ray_hit hit;
        int r = heft_world_cast_shape(w, &cases[k].def, cases[k].from, cases[k].q, down, 100.0,
                                      NULL, &hit);
        cr_assert_eq(r, 1, "case %d missed", k);
        cr_assert_eq(hit.shape.index, cases[k].shape.index, "case %d hit shape %d", k,
                     hit.shape.index);
        cr_assert_float_eq(hit.distance, cases[k].distance, 1e-9, "case %d: %.12f", k,
                           hit.distance);
        cr_assert_lt(fix_dist(hit.normal, heft_v3(0, 0, 1)), 1e-6, "case %d normal", k);
    }
    /* cast upwards from below the mesh and the field: one-sided, not hit */
    heft_ray_hit hit;
    heft_shape_def small = sphere_def(0.1);
    heft_query_filter only_mesh = heft_default_query_filter();
    only_mesh.mask_bits = 2;
    heft_shape_set_filter(w, mesh, 2, 0xFFFFFFFFu);
    cr_assert_eq(heft_world_cast_shape(w, &small, heft_v3(10, 0, 0.5), I, heft_v3(0, 0, 1), 10.0,
                                       &only_mesh, &hit),
                 0);
    cr_assert_eq(heft_world_cast_shape(w, &small, heft_v3(10, 0, 3), I, heft_v3(0, 0, -1), 10.0,
                                       &only_mesh, &hit),
                 1);
    cr_assert_float_eq(hit.distance, 1.9, 1e-9);
    /* a cast starting in overlap hits at 0 */
    cr_assert_eq(heft_world_cast_shape(w, &small, heft_v3(30, 0, 1.2), I, heft_v3(1, 0, 0), 10.0,
                                       NULL, &hit),
                 1);
    cr_assert_eq(hit.shape.index, ball.index);
    cr_assert_eq(hit.distance, 0.0);
    /* all hits along a row, by distance */
    heft_ray_hit all[8];
    int n = heft_world_cast_shape_all(w, &small, heft_v3(25, 0, 1), I, heft_v3(1, 0, 0), 100.0,
                                      NULL, all, 8);
    cr_assert_eq(n, 2, "%d hits", n); /* the ball and the cylinder; the plane is below */
    cr_assert_eq(all[0].shape.index, ball.index);
    cr_assert_eq(all[1].shape.index, cyl.index);
    cr_assert_float_eq(all[0].distance, 4.4, 1e-9);
    cr_assert_float_eq(all[1].distance, 14.4, 1e-9);
    heft_world_destroy(w);
}

Test(queries, a_world_shape_is_cast_without_hitting_its_own_body) {
    heft_world *w = heft_world_create(NULL);
    fix_put(w, plane_def(heft_v3(0, 0, 1), 0.0), heft_v3(0, 0, 0), I);
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0, 0, 3);
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def low = box_def(0.5, 0.5, 0.5);
    low.local_position = heft_v3(0, 0, -1);
    heft_shape_id s = heft_create_shape(w, b, &low);
    heft_shape_def high = sphere_def(0.5);
    heft_create_shape(w, b, &high); /* right above s: skipped */
    heft_ray_hit hit;
    cr_assert_eq(heft_shape_cast(w, s, heft_v3(0, 0, -1), 10.0, NULL, &hit), 1);
    cr_assert_float_eq(hit.distance, 1.5, 1e-9);
    cr_assert_eq(heft_shape_cast(w, s, heft_v3(0, 0, 1), 10.0, NULL, &hit), 0);
    heft_world_destroy(w);
}

/* ---- rays ----------------------------------------------------------------- */

static double clip_closest(void *context, const heft_ray_hit *hit) {
    (*(int *)context)++;
    return hit->distance;
}
static double stop_at_first(void *context, const heft_ray_hit *hit) {
    (void)hit;
    (*(int *)context)++;
    return 0.0;
}
static double ignore_all(void *context, const heft_ray_hit *hit) {
    (void)hit;
    (*(int *)context)++;
    return -1.0;
}
static int not_body(void *context, heft_shape_id sid, heft_body_id bid) {
    (void)sid;
    return bid.index != *(const int *)context;
}

Test(queries, ray_casts_report_every_hit_in_order_and_obey_filters) {
    heft_world *w = heft_world_create(NULL);
    heft_shape_id boxes[5];
    for (int i = 0; i < 5; ++i) {
        /* placed in an order that is not the ray's */
        int x = (i * 3) % 5;
        boxes[i] = fix_put(w, box_def(0.25, 0.25, 0.25), heft_v3(2.0 * x + 1.0, 0, 0), I);
        heft_shape_set_filter(w, boxes[i], 1u << x, 0xFFFFFFFFu);
    }
    heft_ray_hit hits[8];
    int n = heft_world_ray_cast_all(w, heft_v3(0, 0, 0), heft_v3(1, 0, 0), 100.0, NULL, hits, 8);
    cr_assert_eq(n, 5);
    for (int k = 0; k < 5; ++k) {
        cr_assert_float_eq(hits[k].distance, 2.0 * k + 0.75, 1e-12);
        cr_assert_lt(fix_dist(hits[k].normal, heft_v3(-1, 0, 0)), 1e-12);
    }
    /* at most max written, the count is still every hit */
    cr_assert_eq(
        heft_world_ray_cast_all(w, heft_v3(0, 0, 0), heft_v3(1, 0, 0), 100.0, NULL, hits, 2), 5);
    cr_assert_eq(heft_world_ray_cast_all(w, heft_v3(0, 0, 0), heft_v3(1, 0, 0), 4.0, NULL, NULL, 0),
                 2);
    /* category filter: boxes at x = 1 and 5 (bits 0, 2) */
    heft_query_filter f = heft_default_query_filter();
    f.mask_bits = 1u | 4u;
    n = heft_world_ray_cast_all(w, heft_v3(0, 0, 0), heft_v3(1, 0, 0), 100.0, &f, hits, 8);
    cr_assert_eq(n, 2);
    cr_assert_float_eq(hits[1].distance, 4.75, 1e-12);
    heft_ray_hit one;
    cr_assert_eq(
        heft_world_ray_cast_closest(w, heft_v3(0, 0, 0), heft_v3(1, 0, 0), 100.0, &f, &one), 1);
    cr_assert_float_eq(one.distance, 0.75, 1e-12);
    /* the shape's mask must accept the query's category too */
    heft_shape_set_filter(w, boxes[0], 1u, 2u);
    f = heft_default_query_filter();
    f.category_bits = 1u;
    cr_assert_eq(
        heft_world_ray_cast_closest(w, heft_v3(0, 0, 0), heft_v3(1, 0, 0), 100.0, &f, &one), 1);
    cr_assert_float_eq(one.distance, 2.75, 1e-12);
    /* a filter callback: skip the body of the nearest box */
    heft_shape_set_filter(w, boxes[0], 1u, 0xFFFFFFFFu);
    int skip = heft_shape_body(w, boxes[0]).index;
    f = heft_default_query_filter();
    f.fn = not_body;
    f.context = &skip;
    cr_assert_eq(
        heft_world_ray_cast_closest(w, heft_v3(0, 0, 0), heft_v3(1, 0, 0), 100.0, &f, &one), 1);
    cr_assert_float_eq(one.distance, 2.75, 1e-12);
    /* callbacks: clipping ends on the closest, 0 stops, negative ignores */
    int calls = 0;
    cr_assert_geq(heft_world_ray_cast_callback(w, heft_v3(0, 0, 0), heft_v3(1, 0, 0), 100.0, NULL,
                                               clip_closest, &calls),
                  1);
    cr_assert_leq(calls, 5);
    calls = 0;
    cr_assert_eq(heft_world_ray_cast_callback(w, heft_v3(0, 0, 0), heft_v3(1, 0, 0), 100.0, NULL,
                                              stop_at_first, &calls),
                 1);
    cr_assert_eq(calls, 1);
    calls = 0;
    cr_assert_eq(heft_world_ray_cast_callback(w, heft_v3(0, 0, 0), heft_v3(1, 0, 0), 100.0, NULL,
                                              ignore_all, &calls),
                 0);
    cr_assert_eq(calls, 5);
    heft_world_destroy(w);
}

/* ---- overlaps -------------------------------------------------------------------- */

Test(queries, overlap_finds_the_shapes_a_shape_touches) {
    heft_world *w = heft_world_create(NULL);
    heft_shape_id ground = fix_put(w, plane_def(heft_v3(0, 0, 1), 0.0), heft_v3(0, 0, 0), I);
    heft_shape_id s[9];
    for (int i = 0; i < 9; ++i) {
        s[i] = fix_put(w, sphere_def(0.4), heft_v3(i % 3, i / 3, 1.0), I);
    }
    heft_shape_id mesh = fix_put(w, square_mesh_def(), heft_v3(10, 0, 1), I);
    heft_shape_id out[16];
    /* a box 1.2 m wide over the middle sphere reaches the middle row's... */
    heft_shape_def box = box_def(0.7, 0.1, 0.1);
    int n = heft_world_overlap_shape(w, &box, heft_v3(1, 1, 1), I, NULL, out, 16);
    cr_assert_eq(n, 3, "%d", n); /* spheres 3, 4, 5: 0.7 + 0.4 > 1, the row only */
    cr_assert_eq(out[0].index, s[3].index);
    cr_assert_eq(out[1].index, s[4].index);
    cr_assert_eq(out[2].index, s[5].index);
    /* just apart: 0.3 + 0.4 < 1 - 1e-6 */
    box = box_def(0.3, 0.3, 0.3);
    cr_assert_eq(heft_world_overlap_shape(w, &box, heft_v3(0.5, 0.5, 2.7 + 1e-6), I, NULL, out, 16),
                 0);
    /* touching the ground and a sphere */
    heft_shape_def ball = sphere_def(0.6);
    n = heft_world_overlap_shape(w, &ball, heft_v3(0, 0, 0.5), I, NULL, out, 16);
    cr_assert_eq(n, 2);
    cr_assert_eq(out[0].index, ground.index);
    cr_assert_eq(out[1].index, s[0].index);
    /* a mesh: only when touching a triangle */
    cr_assert_eq(heft_world_overlap_shape(w, &ball, heft_v3(10, 0, 1.59), I, NULL, out, 16), 1);
    cr_assert_eq(out[0].index, mesh.index);
    cr_assert_eq(heft_world_overlap_shape(w, &ball, heft_v3(10, 0, 1.61), I, NULL, out, 16), 0);
    heft_world_destroy(w);
}

/* ---- bad input ------------------------------------------------------------------- */

static void expect_refused(int r, const char *call) {
    cr_assert_lt(r, 0, "%s accepted bad input", call);
    cr_assert_neq(heft_last_error()[0], '\0', "%s set no error", call);
}

Test(queries, queries_refuse_bad_input_and_change_nothing) {
    heft_world *w = heft_world_create(NULL);
    fix_put(w, plane_def(heft_v3(0, 0, 1), 0.0), heft_v3(0, 0, 0), I);
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0, 0, 2);
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def sd = sphere_def(0.5);
    heft_shape_id s = heft_create_shape(w, b, &sd);
    heft_body_state before, after;
    heft_body_get_state(w, b, &before);
    heft_ray_hit hit, hits[4];
    heft_shape_id ids[4];
    memset(&hit, 0x5a, sizeof hit);
    heft_ray_hit untouched = hit;
    heft_vec3 o = heft_v3(0, 0, 5), d = heft_v3(0, 0, -1), zero = heft_v3(0, 0, 0);
    heft_vec3 nan3 = heft_v3(NAN, 0, 0), inf3 = heft_v3(INFINITY, 0, 0);
    heft_shape_def ball = sphere_def(0.1), bad_ball = sphere_def(NAN), plane = plane_def(d, 0);
    heft_shape_def flat_hull = hull_def(square_vertices, 4);
    heft_quat zq = {0, 0, 0, 0};
    expect_refused(heft_world_ray_cast_closest(NULL, o, d, 10, NULL, &hit), "ray NULL world");
    expect_refused(heft_world_ray_cast_closest(w, nan3, d, 10, NULL, &hit), "ray NaN origin");
    expect_refused(heft_world_ray_cast_closest(w, o, zero, 10, NULL, &hit), "ray zero direction");
    expect_refused(heft_world_ray_cast_closest(w, o, inf3, 10, NULL, &hit), "ray inf direction");
    expect_refused(heft_world_ray_cast_closest(w, o, d, NAN, NULL, &hit), "ray NaN distance");
    expect_refused(heft_world_ray_cast_closest(w, o, d, -1, NULL, &hit), "ray negative distance");
    expect_refused(heft_world_ray_cast_closest(w, o, d, 10, NULL, NULL), "ray NULL hit");
    expect_refused(heft_world_ray_cast_all(w, o, d, 10, NULL, NULL, 3), "ray all NULL out");
    expect_refused(heft_world_ray_cast_all(w, o, d, 10, NULL, hits, -1), "ray all negative max");
    expect_refused(heft_world_ray_cast_callback(w, o, d, 10, NULL, NULL, NULL), "ray NULL fn");
    expect_refused(heft_world_cast_shape(w, NULL, o, I, d, 10, NULL, &hit), "cast NULL def");
    expect_refused(heft_world_cast_shape(w, &ball, o, I, zero, 10, NULL, &hit), "cast zero dir");
    expect_refused(heft_world_cast_shape(w, &ball, o, I, nan3, 10, NULL, &hit), "cast NaN dir");
    expect_refused(heft_world_cast_shape(w, &ball, o, I, inf3, 10, NULL, &hit), "cast inf dir");
    expect_refused(heft_world_cast_shape(w, &ball, nan3, I, d, 10, NULL, &hit), "cast NaN pos");
    expect_refused(heft_world_cast_shape(w, &ball, o, zq, d, 10, NULL, &hit), "cast zero quat");
    expect_refused(heft_world_cast_shape(w, &ball, o, I, d, INFINITY, NULL, &hit), "cast inf max");
    expect_refused(heft_world_cast_shape(w, &bad_ball, o, I, d, 10, NULL, &hit), "cast NaN radius");
    expect_refused(heft_world_cast_shape(w, &plane, o, I, d, 10, NULL, &hit), "cast a plane");
    expect_refused(heft_world_cast_shape(w, &flat_hull, o, I, d, 10, NULL, &hit), "flat hull");
    expect_refused(heft_world_cast_shape(w, &ball, o, I, d, 10, NULL, NULL), "cast NULL hit");
    expect_refused(heft_world_cast_shape_all(w, &ball, o, I, d, 10, NULL, NULL, 2), "all NULL");
    heft_shape_id stale = s;
    stale.generation += 7;
    cr_assert_eq(heft_shape_cast(w, stale, d, 10, NULL, &hit), HEFT_ERROR_INVALID_ID);
    expect_refused(heft_shape_cast(w, s, zero, 10, NULL, &hit), "shape cast zero dir");
    expect_refused(heft_world_overlap_shape(w, &ball, nan3, I, NULL, ids, 4), "overlap NaN");
    expect_refused(heft_world_overlap_shape(w, NULL, o, I, NULL, ids, 4), "overlap NULL def");
    expect_refused(heft_world_overlap_shape(w, &ball, o, I, NULL, NULL, 4), "overlap NULL out");
    cr_assert(!memcmp(&hit, &untouched, sizeof hit), "a refused call wrote its hit");
    /* huge and subnormal directions are directions still */
    heft_vec3 dirs[2] = {heft_v3(0, 0, -1e300), heft_v3(0, 0, -4e-320)};
    for (int k = 0; k < 2; ++k) {
        cr_assert_eq(heft_world_ray_cast_closest(w, o, dirs[k], 10, NULL, &hit), 1);
        cr_assert_float_eq(hit.distance, 2.5, 1e-12);
        cr_assert_eq(heft_world_cast_shape(w, &ball, o, I, dirs[k], 10, NULL, &hit), 1);
        cr_assert_float_eq(hit.distance, 2.4, 1e-9);
    }
    heft_body_get_state(w, b, &after);
    cr_assert(!memcmp(&before.position, &after.position, sizeof before.position));
    cr_assert(!memcmp(&before.orientation, &after.orientation, sizeof before.orientation));
    cr_assert(!memcmp(&before.linear_velocity, &after.linear_velocity, sizeof(heft_vec3)));
    cr_assert_eq(heft_world_step_count(w), 0);
    heft_world_destroy(w);
}
