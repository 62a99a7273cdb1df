/* Rolling resistance (heft_shape_def.rolling_resistance, docs/collision.md
 * "Rolling resistance"): a contact with it gets two angular rows boxed by
 * rolling_resistance * lambda_n. A uniform sphere of radius R rolling on
 * level ground then decelerates at
 *
 *     a = g (r / R) / (1 + I / (m R^2)) = g (r / R) / 1.4
 *
 * (friction F and the resisting torque r N: m a = -F, I a / R = F R - r N),
 * and one resting on a slope of angle theta stays while tan(theta) <= r / R
 * (the torque of friction about its centre, m g sin(theta) R, against at
 * most r m g cos(theta)). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "heft.h"
#include "mlcp.h"

#define G 9.81
#define H (1.0 / 60.0)

/* A world with a level ground plane (friction 1) and gravity tilted by
 * slope radians about y: the same as a slope of that angle. */
static heft_world *make_world(double slope, const char *solver) {
    heft_world_def wd = heft_default_world_def();
    wd.gravity = heft_v3(G * sin(slope), 0.0, -G * cos(slope));
    wd.solver = solver;
    heft_world *w = heft_world_create(&wd);
    cr_assert(w, "%s", heft_last_error());
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    heft_body_id ground = heft_create_body(w, &gd);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    cr_assert(heft_create_shape(w, ground, &plane).index >= 0, "%s", heft_last_error());
    return w;
}

/* A 10 kg uniform sphere of radius R resting on the ground at x, rolling
 * along +x at v (omega = v / R about +y). */
static heft_body_id add_sphere(heft_world *w, double x, double R, double rolling, double v) {
    heft_body_def bd = heft_default_body_def();
    bd.mass = 10.0;
    bd.inertia = heft_inertia_sphere(10.0, R);
    bd.position = heft_v3(x, 0.0, R);
    bd.linear_velocity = heft_v3(v, 0.0, 0.0);
    bd.angular_velocity = heft_v3(0.0, v / R, 0.0);
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.radius = R;
    sd.rolling_resistance = rolling;
    cr_assert(heft_create_shape(w, b, &sd).index >= 0, "%s", heft_last_error());
    return b;
}

/* Distance rolled until the sphere's speed falls below 1 mm/s (or after
 * max_steps), and the time it took. */
static double roll_out(heft_world *w, heft_body_id b, int max_steps, double *time) {
    const double x0 = heft_body_position(w, b).x;
    int step = 0;
    for (; step < max_steps; ++step) {
        cr_assert_eq(heft_world_step(w, H), HEFT_OK, "%s", heft_last_error());
        if (heft_v3_length(heft_body_linear_velocity(w, b)) < 1e-3) {
            break;
        }
    }
    *time = (step + 1) * H;
    return heft_body_position(w, b).x - x0;
}

/* R = 0.25 m, r = 2.5 cm: a = 0.1 g / 1.4 = 0.7007 m/s^2 and from 5 m/s a
 * stop after v^2 / (2 a) = 17.84 m and v / a = 7.14 s. The step's rows hold
 * the torque at its bound exactly; the tolerance (1%) covers the first
 * step's contact and the speed lost within the last step. */
Test(rolling_resistance, a_rolling_sphere_stops_where_its_rolling_resistance_says) {
    const double R = 0.25, r = 0.025, v = 5.0;
    const double a = G * (r / R) / 1.4;
    heft_world *w = make_world(0.0, "pgs");
    heft_body_id b = add_sphere(w, 0.0, R, r, v);
    double t = 0.0;
    const double d = roll_out(w, b, 1200, &t);
    cr_log_info("rolled %.4f m in %.3f s; predicted %.4f m in %.3f s", d, t, v * v / (2.0 * a),
                v / a);
    cr_assert_lt(fabs(d - v * v / (2.0 * a)), 0.01 * v * v / (2.0 * a), "rolled %.4f m", d);
    cr_assert_lt(fabs(t - v / a), 0.01 * v / a + 2.0 * H, "stopped after %.3f s", t);
    /* and stays stopped: 2 s later it has moved less than 1 mm */
    const double x = heft_body_position(w, b).x;
    for (int i = 0; i < 120; ++i) {
        cr_assert_eq(heft_world_step(w, H), HEFT_OK);
    }
    cr_assert_lt(fabs(heft_body_position(w, b).x - x), 1e-3);
    heft_world_destroy(w);
}

/* Without rolling resistance the sphere rolls on: after 5 s (25 m) its
 * speed is within 0.1% of 5 m/s (the contact's compliance and the
 * integrator are all that may take energy). */
Test(rolling_resistance, without_it_the_sphere_keeps_rolling) {
    heft_world *w = make_world(0.0, "pgs");
    heft_body_id b = add_sphere(w, 0.0, 0.25, 0.0, 5.0);
    for (int i = 0; i < 300; ++i) {
        cr_assert_eq(heft_world_step(w, H), HEFT_OK);
    }
    const double speed = heft_v3_length(heft_body_linear_velocity(w, b));
    cr_log_info("after 5 s: %.6f m/s, %.3f m", speed, heft_body_position(w, b).x);
    cr_assert_lt(fabs(speed - 5.0), 5e-3, "speed %.6f m/s", speed);
    heft_world_destroy(w);
}

/* r / R = 0.1: the slope that starts the sphere rolling is atan(0.1) =
 * 5.71 degrees. At 4 degrees it stays (moves less than 0.1 mm in 2 s); at
 * 8 degrees it rolls down at a = g (sin(theta) - (r / R) cos(theta)) / 1.4,
 * and its distance after 2 s is a t^2 / 2 within 2%. */
Test(rolling_resistance, a_sphere_on_a_slope_rolls_only_beyond_its_rolling_resistance) {
    const double R = 0.25, r = 0.025, t = 2.0;
    const double below = 4.0 * HEFT_PI / 180.0, above = 8.0 * HEFT_PI / 180.0;
    double moved[2];
    const double slopes[2] = {below, above};
    for (int k = 0; k < 2; ++k) {
        heft_world *w = make_world(slopes[k], "bpp-skyline");
        heft_body_id b = add_sphere(w, 0.0, R, r, 0.0);
        for (int i = 0; i < (int)(t / H + 0.5); ++i) {
            cr_assert_eq(heft_world_step(w, H), HEFT_OK);
        }
        moved[k] = heft_body_position(w, b).x;
        heft_world_destroy(w);
    }
    const double a = G * (sin(above) - (r / R) * cos(above)) / 1.4;
    cr_log_info("4 degrees: %.3g m; 8 degrees: %.4f m (predicted %.4f m)", moved[0], moved[1],
                0.5 * a * t * t);
    cr_assert_lt(fabs(moved[0]), 1e-4, "below the threshold it moved %.3g m", moved[0]);
    cr_assert_lt(fabs(moved[1] - 0.5 * a * t * t), 0.02 * 0.5 * a * t * t, "rolled %.4f m",
                 moved[1]);
    /* the same sphere without rolling resistance rolls at 4 degrees too */
    heft_world *w = make_world(below, "bpp-skyline");
    heft_body_id b = add_sphere(w, 0.0, R, 0.0, 0.0);
    for (int i = 0; i < 120; ++i) {
        cr_assert_eq(heft_world_step(w, H), HEFT_OK);
    }
    cr_assert_gt(heft_body_position(w, b).x, 0.1);
    heft_world_destroy(w);
}

/* The contacts take the larger of the two shapes' values, and the rows
 * follow: 3 a contact point without rolling resistance (every scene before
 * it wrote exactly these), 5 with it. */
Test(rolling_resistance, rows_are_three_a_contact_without_it_and_five_with_it) {
    heft_world *w = make_world(0.0, "pgs");
    heft_body_id b = add_sphere(w, 0.0, 0.25, 0.0, 0.0);
    cr_assert_eq(heft_world_step(w, H), HEFT_OK);
    const heft_step_stats *st = heft_world_stats(w);
    cr_assert_eq(st->contacts, 1);
    cr_assert_eq(st->rows, 3, "rows %d", st->rows);
    heft_contact_info ci;
    cr_assert_eq(heft_world_contact(w, 0, &ci), HEFT_OK);
    cr_assert(ci.rolling_impulse.x == 0.0 && ci.rolling_impulse.y == 0.0 &&
              ci.rolling_impulse.z == 0.0);

    /* the ground's value alone switches it on (max, not a product) */
    heft_shape_id ground_shape;
    heft_body_id ids[2];
    cr_assert_eq(heft_world_bodies(w, ids, 2), 2);
    cr_assert_eq(heft_body_shapes(w, ids[0].index == b.index ? ids[1] : ids[0], &ground_shape, 1),
                 1);
    cr_assert_eq(heft_shape_set_rolling_resistance(w, ground_shape, 0.01), HEFT_OK);
    heft_shape_def d;
    cr_assert_eq(heft_shape_get_def(w, ground_shape, &d), HEFT_OK);
    cr_assert_eq(d.rolling_resistance, 0.01);
    cr_assert_eq(heft_world_step(w, H), HEFT_OK);
    cr_assert_eq(st->contacts, 1);
    cr_assert_eq(st->rows, 5, "rows %d", st->rows);
    heft_world_destroy(w);
}

/* The pre-solve callback sees the mixed value and may change it; a value
 * out of its range is not used. */
static int pre_solve_rolling(void *context, heft_pre_solve_contact *c) {
    const double *value = context;
    cr_assert_eq(c->rolling_resistance, 0.025, "the mixed value is %g", c->rolling_resistance);
    c->rolling_resistance = *value;
    return 1;
}

Test(rolling_resistance, the_pre_solve_callback_sets_it_within_its_range) {
    const double values[4] = {0.0, 0.05, NAN, -1.0};
    const int rows[4] = {3, 5, 5, 5};
    for (int k = 0; k < 4; ++k) {
        heft_world *w = make_world(0.0, "pgs");
        add_sphere(w, 0.0, 0.25, 0.025, 1.0);
        double value = values[k];
        cr_assert_eq(heft_world_set_pre_solve(w, pre_solve_rolling, &value), HEFT_OK);
        cr_assert_eq(heft_world_step(w, H), HEFT_OK);
        cr_assert_eq(heft_world_stats(w)->rows, rows[k], "value %g: %d rows", values[k],
                     heft_world_stats(w)->rows);
        heft_world_destroy(w);
    }
}

/* ---- every solver on an island with rolling rows ----------------------------- */

/* Three spheres in a pile (two on the ground, one on them) and a capsule
 * rolling into them, all with rolling resistance: one island whose rows
 * include rolling rows at their bounds and inside them. */
static heft_world *pile(const char *solver) {
    heft_world *w = make_world(0.0, solver);
    const double R = 0.25, r = 0.02;
    add_sphere(w, -0.26, R, r, 0.0);
    add_sphere(w, 0.26, R, r, 0.0);
    heft_body_id top = add_sphere(w, 0.0, R, r, 0.0);
    const double z = R + 2.0 * R * cos(asin(0.26 / (2.0 * R))) + 1e-3;
    cr_assert_eq(heft_body_set_transform(w, top, heft_v3(0.0, 0.0, z), heft_quat_identity()),
                 HEFT_OK);
    heft_body_def bd = heft_default_body_def();
    bd.mass = 20.0;
    bd.inertia = heft_inertia_capsule(20.0, 0.1, 0.4);
    bd.position = heft_v3(-1.5, 0.0, 0.1);
    bd.orientation = heft_quat_axis_angle(heft_v3(1.0, 0.0, 0.0), 0.5 * HEFT_PI);
    bd.linear_velocity = heft_v3(3.0, 0.0, 0.0);
    bd.angular_velocity = heft_v3(0.0, 30.0, 0.0);
    heft_body_id log = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_CAPSULE;
    sd.radius = 0.1;
    sd.half_length = 0.4;
    sd.rolling_resistance = r;
    cr_assert(heft_create_shape(w, log, &sd).index >= 0, "%s", heft_last_error());
    return w;
}

typedef struct captured {
    char path[256];
    int rows, rolling;
} captured;

/* Keeps the largest island that has rolling rows as an .mlcp file (which
 * also proves the format carries the kind). */
static void capture(void *user, int island, const heft_mlcp *p, const double *lambda,
                    const heft_solver_stats *stats) {
    (void)island;
    (void)lambda;
    (void)stats;
    captured *c = user;
    int rolling = 0;
    for (int i = 0; i < p->n; ++i) {
        rolling += p->kind[i] == HEFT_ROW_ROLLING;
    }
    if (rolling > 0 && p->n >= c->rows) {
        cr_assert_eq(heft_mlcp_write_file(c->path, p, p->lambda0, NULL), 0);
        c->rows = p->n;
        c->rolling = rolling;
    }
}

/* Each registered solver answers the island from its warm start: the
 * direct ones to 1e-9 J (their pivoting tolerance is far below), the
 * iterative ones (given 10,000 sweeps or iterations) to 1e-6 J; the
 * island's own energy scale is its weight over a step, about 10 J. */
Test(rolling_resistance, every_solver_converges_on_rolling_rows, .timeout = 300) {
    captured c;
    memset(&c, 0, sizeof c);
    snprintf(c.path, sizeof c.path, "rolling-pile-%ld.mlcp", (long)getpid());
    heft_world *w = pile("bpp-skyline");
    heft_world_set_island_callback(w, capture, &c);
    for (int i = 0; i < 40; ++i) {
        cr_assert_eq(heft_world_step(w, H), HEFT_OK);
        cr_assert_eq(heft_world_stats(w)->not_converged, 0, "step %d", i);
    }
    heft_world_destroy(w);
    cr_assert_gt(c.rolling, 0, "no island with rolling rows");
    heft_mlcp *p = NULL;
    char err[256];
    cr_assert_eq(heft_mlcp_read_file(c.path, &p, NULL, err, sizeof err), 0, "%s", err);
    remove(c.path);
    cr_log_info("island of %d rows, %d rolling", p->n, c.rolling);
    double *lambda = malloc(sizeof(double) * (size_t)p->n);
    /* the island holds rolling rows at a bound of their box and inside it */
    memcpy(lambda, p->lambda0, sizeof(double) * (size_t)p->n);
    heft_solver_options exact = heft_solver_default_options();
    cr_assert_eq(heft_solve("bpp-skyline", &exact, p, lambda, NULL), HEFT_SOLVE_OK);
    int at_bound = 0, inside = 0;
    for (int i = 0; i < p->n; ++i) {
        double lo, hi;
        heft_mlcp_bounds(p, lambda, i, &lo, &hi);
        if (p->kind[i] == HEFT_ROW_ROLLING && hi > 0.0) {
            const int bound =
                fabs(lambda[i] - lo) < 1e-12 * hi || fabs(lambda[i] - hi) < 1e-12 * hi;
            at_bound += bound;
            inside += !bound;
        }
    }
    cr_log_info("rolling rows of pushing contacts: %d at a bound, %d inside", at_bound, inside);
    cr_assert(at_bound > 0 && inside > 0);
    for (int k = 0; k < heft_solver_count(); ++k) {
        const heft_solver_vtable *s = heft_solver_at(k);
        heft_solver_options o = heft_solver_default_options();
        o.max_iterations = 10000;
        o.tolerance = 1e-14;
        o.cr_max_iterations = 20000;
        heft_solver_stats st;
        memcpy(lambda, p->lambda0, sizeof(double) * (size_t)p->n);
        const int rc = heft_solve(s->name, &o, p, lambda, &st);
        const heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
        cr_log_info("%s: rc %d, %d iterations, error %.3g J", s->name, rc, st.iterations, e.max);
        cr_assert_neq(rc, HEFT_SOLVE_FAILED, "%s failed", s->name);
        cr_assert_lt(e.max, s->direct ? 1e-9 : 1e-6, "%s: error %.3g J", s->name, e.max);
    }
    free(lambda);
    heft_mlcp_destroy(p);
}

/* ---- scene files and snapshots ----------------------------------------------- */

Test(rolling_resistance, scene_files_keep_it) {
    heft_world *w = make_world(0.0, "pgs");
    heft_body_id b = add_sphere(w, 0.0, 0.25, 0.0125, 1.0);
    (void)b;
    size_t n = 0;
    char *text = heft_world_save_text(w, NULL, &n);
    cr_assert(text, "%s", heft_last_error());
    cr_assert(strstr(text, "\"rolling_resistance\": 0.0125"), "%s", text);
    heft_world *back = heft_world_load_text(text, n, "rolling.json", NULL);
    cr_assert(back, "%s", heft_last_error());
    heft_body_id ids[2];
    cr_assert_eq(heft_world_bodies(back, ids, 2), 2);
    double found = -1.0;
    for (int i = 0; i < 2; ++i) {
        heft_shape_id s;
        heft_shape_def d;
        if (heft_body_shapes(back, ids[i], &s, 1) == 1 && heft_shape_get_def(back, s, &d) == 0 &&
            d.type == HEFT_SHAPE_SPHERE) {
            found = d.rolling_resistance;
        }
    }
    cr_assert_eq(found, 0.0125);
    heft_free(text);
    /* out of range in a file: refused */
    const char *bad = "{\"format\": \"heft-scene\", \"version\": 1, \"bodies\": [{\"name\": \"b\", "
                      "\"mass\": 1, \"inertia\": 0.1, \"shapes\": [{\"type\": \"sphere\", "
                      "\"radius\": 0.5, \"rolling_resistance\": 11}]}]}";
    cr_assert_null(heft_world_load_text(bad, strlen(bad), "bad.json", NULL));
    cr_log_info("refused: %s", heft_last_error());
    cr_assert(strstr(heft_last_error(), "rolling"), "%s", heft_last_error());
    heft_world_destroy(back);
    heft_world_destroy(w);
}

/* A restored state steps on bit for bit, rolling impulses and all. */
Test(rolling_resistance, a_restored_snapshot_steps_on_bit_identically) {
    heft_world *w = pile("pgs");
    for (int i = 0; i < 20; ++i) {
        cr_assert_eq(heft_world_step(w, H), HEFT_OK);
    }
    size_t size = 0;
    cr_assert_eq(heft_world_save_state(w, NULL, 0, &size), HEFT_OK);
    void *state = malloc(size);
    cr_assert_eq(heft_world_save_state(w, state, size, &size), HEFT_OK);
    heft_body_state first[4], again[4];
    heft_body_id ids[5];
    const int n = heft_world_bodies(w, ids, 5);
    cr_assert_eq(n, 5);
    for (int i = 0; i < 30; ++i) {
        cr_assert_eq(heft_world_step(w, H), HEFT_OK);
    }
    for (int k = 0; k < 4; ++k) {
        heft_body_get_state(w, ids[k + 1], &first[k]);
    }
    cr_assert_eq(heft_world_restore_state(w, state, size), HEFT_OK, "%s", heft_last_error());
    for (int i = 0; i < 30; ++i) {
        cr_assert_eq(heft_world_step(w, H), HEFT_OK);
    }
    for (int k = 0; k < 4; ++k) {
        heft_body_get_state(w, ids[k + 1], &again[k]);
        cr_assert(memcmp(&first[k].position, &again[k].position, sizeof(heft_vec3)) == 0 &&
                      memcmp(&first[k].angular_velocity, &again[k].angular_velocity,
                             sizeof(heft_vec3)) == 0,
                  "body %d differs after the restore", k);
    }
    free(state);
    heft_world_destroy(w);
}
