/* Hit events, sensor shapes, the pair filter and the pre-solve callback:
 * each proved on a small scene with the numbers it must give. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heft.h"

static const double h = 1.0 / 60.0;

static heft_world *world_with_ground(heft_shape_id *ground_shape) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    heft_body_id ground = heft_create_body(w, &gd);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    heft_shape_id s = heft_create_shape(w, ground, &plane);
    if (ground_shape) {
        *ground_shape = s;
    }
    return w;
}

static heft_body_id ball(heft_world *w, heft_vec3 p, heft_vec3 v, double radius,
                         heft_shape_id *shape) {
    heft_body_def bd = heft_default_body_def();
    bd.position = p;
    bd.linear_velocity = v;
    bd.inertia = heft_inertia_sphere(1.0, radius);
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.radius = radius;
    heft_shape_id s = heft_create_shape(w, b, &sd);
    cr_assert(heft_shape_is_valid(w, s), "%s", heft_last_error());
    if (shape) {
        *shape = s;
    }
    return b;
}

static heft_body_id box(heft_world *w, heft_body_type type, heft_vec3 p, heft_vec3 half,
                        double mass, heft_shape_id *shape) {
    heft_body_def bd = heft_default_body_def();
    bd.type = type;
    bd.position = p;
    bd.mass = mass;
    bd.inertia = heft_inertia_box(mass, half);
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = half;
    heft_shape_id s = heft_create_shape(w, b, &sd);
    cr_assert(heft_shape_is_valid(w, s), "%s", heft_last_error());
    if (shape) {
        *shape = s;
    }
    return b;
}

static int same_shape(heft_shape_id a, heft_shape_id b) {
    return a.index == b.index && a.generation == b.generation;
}

/* ---- hit events -------------------------------------------------------------- */

/* A ball dropped from 1.25 m (bottom 1.25 m above the ground) strikes at
 * sqrt(2 g 1.25) = 4.95 m/s: one hit, in the step its speculative contact
 * first pushes, though the next step's solve still stops the rest of its
 * approach; then none while it rests. The speed is the one at the start of
 * that step: to within 2 g h = 0.33 m/s (up to a step's gravity before the
 * impact, and semi-implicit Euler's fall runs up to g h / 2 ahead). */
Test(hits, a_dropped_ball_strikes_once_at_its_impact_speed) {
    heft_shape_id ground, s;
    heft_world *w = world_with_ground(&ground);
    const double drop = 1.25, r = 0.1;
    ball(w, heft_v3(0, 0, r + drop), heft_v3(0, 0, 0), r, &s);
    cr_assert_eq(heft_world_hit_event_threshold(w), 1.0);
    int hits = 0, hit_step = -1, first_contact_step = -1;
    double speed = 0.0;
    for (int step = 0; step < 120; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK, "%s", heft_last_error());
        heft_contact_events ev = heft_world_contact_events(w);
        if (ev.begin_count > 0 && first_contact_step < 0) {
            first_contact_step = step;
        }
        for (int i = 0; i < ev.hit_count; ++i) {
            cr_assert(same_shape(ev.hit[i].shape_a, ground) && same_shape(ev.hit[i].shape_b, s));
            cr_assert_float_eq(ev.hit[i].normal.z, 1.0, 1e-12);
            speed = ev.hit[i].approach_speed;
            hit_step = step;
            hits++;
        }
    }
    const double expected = sqrt(2.0 * 9.81 * drop);
    cr_assert_eq(hits, 1, "hits %d", hits);
    cr_assert_geq(hit_step, first_contact_step);
    cr_assert(fabs(speed - expected) <= 2.0 * 9.81 * h, "approach %.4f m/s, expected %.4f", speed,
              expected);
    heft_world_destroy(w);
}

Test(hits, a_threshold_above_the_impact_speed_reports_none) {
    heft_world *w = world_with_ground(NULL);
    ball(w, heft_v3(0, 0, 1.35), heft_v3(0, 0, 0), 0.1, NULL);
    cr_assert_eq(heft_world_set_hit_event_threshold(w, 6.0), HEFT_OK);
    int hits = 0;
    for (int step = 0; step < 120; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
        hits += heft_world_contact_events(w).hit_count;
    }
    cr_assert_eq(hits, 0);
    heft_world_destroy(w);
}

/* A ball rolling on the ground at 3 m/s touches all along, but never
 * approaches it: no hit, though the contact persists. */
Test(hits, a_rolling_ball_does_not_strike) {
    heft_world *w = world_with_ground(NULL);
    ball(w, heft_v3(0, 0, 0.1), heft_v3(3, 0, 0), 0.1, NULL);
    int hits = 0;
    for (int step = 0; step < 120; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
        hits += heft_world_contact_events(w).hit_count;
    }
    cr_assert_gt(heft_world_contact_count(w), 0);
    cr_assert_eq(hits, 0);
    heft_world_destroy(w);
}

/* ---- sensors ----------------------------------------------------------------- */

/* A ball thrown through a 1 m sensor box on a static body, with no gravity:
 * exactly one begin and one end, in the steps it enters and leaves (to a
 * step: it moves 0.1 m a step), and its velocity untouched to round-off. */
Test(sensors, a_ball_passing_through_is_reported_once_with_begin_and_end) {
    heft_world_def wd = heft_default_world_def();
    wd.gravity = heft_v3(0, 0, 0);
    heft_world *w = heft_world_create(&wd);
    heft_body_def sdb = heft_default_body_def();
    sdb.type = HEFT_BODY_STATIC;
    heft_body_id gate = heft_create_body(w, &sdb);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(0.5, 0.5, 0.5);
    sd.is_sensor = 1;
    heft_shape_id sensor = heft_create_shape(w, gate, &sd);
    cr_assert(heft_shape_is_valid(w, sensor), "%s", heft_last_error());
    cr_assert_eq(heft_shape_is_sensor(w, sensor), 1);
    heft_shape_def back;
    cr_assert_eq(heft_shape_get_def(w, sensor, &back), HEFT_OK);
    cr_assert_eq(back.is_sensor, 1);

    const double speed = 6.0, r = 0.1;
    heft_shape_id visitor;
    heft_body_id b = ball(w, heft_v3(-3.0, 0.0, 0.0), heft_v3(speed, 0, 0), r, &visitor);
    cr_assert_eq(heft_shape_is_sensor(w, visitor), 0);
    int begins = 0, ends = 0, begin_step = -1, end_step = -1;
    for (int step = 0; step < 120; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK, "%s", heft_last_error());
        cr_assert_eq(heft_world_contact_count(w), 0, "a sensor made contacts");
        heft_sensor_events ev = heft_world_sensor_events(w);
        for (int i = 0; i < ev.begin_count; ++i) {
            cr_assert(same_shape(ev.begin[i].sensor, sensor));
            cr_assert(same_shape(ev.begin[i].visitor, visitor));
            cr_assert_eq(ev.begin[i].sensor_body.index, gate.index);
            cr_assert_eq(ev.begin[i].visitor_body.index, b.index);
            begins++;
            begin_step = step;
        }
        for (int i = 0; i < ev.end_count; ++i) {
            cr_assert(same_shape(ev.end[i].sensor, sensor));
            cr_assert(same_shape(ev.end[i].visitor, visitor));
            ends++;
            end_step = step;
        }
    }
    cr_assert_eq(begins, 1);
    cr_assert_eq(ends, 1);
    /* the ball's surface reaches x = -0.5 at t = (3 - 0.5 - r) / speed and
     * leaves x = 0.5 at t = (3 + 0.5 + r) / speed; events come at the first
     * step whose collision sees the new state (positions of the step
     * before) */
    const int enter = (int)ceil((3.0 - 0.5 - r) / speed / h - 1e-9);
    const int leave = (int)floor((3.0 + 0.5 + r) / speed / h + 1e-9) + 1;
    cr_assert(abs(begin_step - enter) <= 1, "begin at step %d, expected %d", begin_step, enter);
    cr_assert(abs(end_step - leave) <= 1, "end at step %d, expected %d", end_step, leave);
    heft_vec3 v = heft_body_linear_velocity(w, b);
    cr_assert_float_eq(v.x, speed, 1e-12);
    cr_assert_float_eq(v.y, 0.0, 1e-12);
    cr_assert_float_eq(v.z, 0.0, 1e-12);
    heft_world_destroy(w);
}

static void record_color(void *context, heft_shape_id shape, heft_shape_type type,
                         heft_vec3 position, heft_quat orientation, heft_color color) {
    (void)type;
    (void)position;
    (void)orientation;
    heft_color *colors = context;
    if (shape.index >= 0 && shape.index < 4) {
        colors[shape.index] = color;
    }
}

Test(sensors, debug_draw_shows_sensors_in_their_own_colour) {
    heft_shape_id ground, solid;
    heft_world *w = world_with_ground(&ground);
    heft_body_id b = ball(w, heft_v3(0, 0, 1.0), heft_v3(0, 0, 0), 0.1, &solid);
    heft_shape_def sd = heft_default_shape_def();
    sd.is_sensor = 1;
    heft_shape_id sensor = heft_create_shape(w, b, &sd);
    heft_color colors[4] = {0, 0, 0, 0};
    heft_debug_draw draw = heft_default_debug_draw();
    draw.shape = record_color;
    draw.context = colors;
    cr_assert_eq(heft_world_draw(w, &draw, HEFT_DRAW_SHAPES), HEFT_OK);
    cr_assert_eq(colors[ground.index], HEFT_COLOR_STATIC);
    cr_assert_eq(colors[solid.index], HEFT_COLOR_DYNAMIC);
    cr_assert_eq(colors[sensor.index], HEFT_COLOR_SENSOR);
    heft_world_destroy(w);
}

/* A sensor on a falling dynamic body sees the ground it falls through, and
 * the ground pushes only its solid shape. */
Test(sensors, a_sensor_on_a_dynamic_body_sees_the_ground_and_is_not_pushed) {
    heft_shape_id ground;
    heft_world *w = world_with_ground(&ground);
    heft_shape_id solid;
    heft_body_id b = ball(w, heft_v3(0, 0, 1.0), heft_v3(0, 0, 0), 0.1, &solid);
    heft_shape_def sd = heft_default_shape_def();
    sd.radius = 0.5; /* a proximity sensor around the ball */
    sd.is_sensor = 1;
    heft_shape_id sensor = heft_create_shape(w, b, &sd);
    cr_assert(heft_shape_is_valid(w, sensor));
    int begin_step = -1, begins = 0;
    for (int step = 0; step < 120; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
        heft_sensor_events ev = heft_world_sensor_events(w);
        if (ev.begin_count) {
            cr_assert(same_shape(ev.begin[0].visitor, ground));
            begin_step = step;
        }
        begins += ev.begin_count;
        cr_assert_eq(ev.end_count, 0);
    }
    cr_assert_eq(begins, 1);
    cr_assert_geq(begin_step, 0);
    /* the ball rests on its 0.1 m solid shape, not on the 0.5 m sensor */
    cr_assert_float_eq(heft_body_position(w, b).z, 0.1, 1e-3);
    heft_world_destroy(w);
}

/* ---- the pair filter --------------------------------------------------------- */

typedef struct refuse_pair {
    heft_shape_id a, b;
    int calls;
} refuse_pair;

static int refuse(void *context, heft_shape_id a, heft_shape_id b, heft_body_id ba,
                  heft_body_id bb) {
    (void)ba;
    (void)bb;
    refuse_pair *r = context;
    r->calls++;
    cr_assert_lt(a.index, b.index);
    return !((same_shape(a, r->a) && same_shape(b, r->b)) ||
             (same_shape(a, r->b) && same_shape(b, r->a)));
}

/* Two balls dropped side by side on a box; the filter refuses the pair of
 * the first ball and the box: it falls through the box onto the ground
 * while the second rests on the box. */
Test(pair_filter, a_refused_pair_makes_no_contact) {
    heft_shape_id ground;
    heft_world *w = world_with_ground(&ground);
    heft_shape_id table, s1, s2;
    box(w, HEFT_BODY_STATIC, heft_v3(0, 0, 0.5), heft_v3(2, 2, 0.1), 1.0, &table);
    heft_body_id b1 = ball(w, heft_v3(-1, 0, 1.5), heft_v3(0, 0, 0), 0.1, &s1);
    heft_body_id b2 = ball(w, heft_v3(1, 0, 1.5), heft_v3(0, 0, 0), 0.1, &s2);
    refuse_pair r = {table, s1, 0};
    cr_assert_eq(heft_world_set_pair_filter(w, refuse, &r), HEFT_OK);
    for (int step = 0; step < 180; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
    }
    cr_assert_gt(r.calls, 0);
    /* the ball fell through the table's 0.2 m slab and rests on the ground */
    cr_assert_float_eq(heft_body_position(w, b1).z, 0.1, 1e-3);
    cr_assert_float_eq(heft_body_position(w, b2).z, 0.7, 1e-3);
    /* removing the filter: it is no longer called */
    cr_assert_eq(heft_world_set_pair_filter(w, NULL, NULL), HEFT_OK);
    int calls = r.calls;
    cr_assert_eq(heft_world_step(w, h), HEFT_OK);
    cr_assert_eq(r.calls, calls);
    heft_world_destroy(w);
}

/* A fast 1 cm ball fired at 300 m/s at a 1 cm plate, without gravity:
 * continuous collision stops it in front of the plate; with the pair filter
 * refusing the pair, or with the plate a sensor, it flies on at 300 m/s. */
static double fire_through_plate(int refuse_it, int sensor) {
    heft_world_def wd = heft_default_world_def();
    wd.gravity = heft_v3(0, 0, 0);
    heft_world *w = heft_world_create(&wd);
    heft_body_def pd = heft_default_body_def();
    pd.type = HEFT_BODY_STATIC;
    pd.position = heft_v3(1.0, 0, 0);
    heft_body_id plate_body = heft_create_body(w, &pd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(0.005, 1.0, 1.0);
    sd.is_sensor = sensor;
    heft_shape_id plate = heft_create_shape(w, plate_body, &sd);
    heft_body_def bd = heft_default_body_def();
    bd.linear_velocity = heft_v3(300.0, 0, 0);
    bd.fast = 1;
    bd.mass = 0.004;
    bd.inertia = heft_inertia_sphere(0.004, 0.005);
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def bs = heft_default_shape_def();
    bs.radius = 0.005;
    heft_shape_id shot = heft_create_shape(w, b, &bs);
    refuse_pair r = {plate, shot, 0};
    if (refuse_it) {
        heft_world_set_pair_filter(w, refuse, &r);
    }
    for (int step = 0; step < 6; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
    }
    const double x = heft_body_position(w, b).x;
    heft_world_destroy(w);
    return x;
}

Test(pair_filter, a_refused_pair_or_a_sensor_does_not_stop_a_fast_body) {
    const double stopped = fire_through_plate(0, 0);
    cr_assert_lt(stopped, 1.0, "stopped at x = %.4f m", stopped);
    /* 6 steps at 300 m/s from x = 0: 30 m */
    cr_assert_float_eq(fire_through_plate(1, 0), 30.0, 1e-9);
    cr_assert_float_eq(fire_through_plate(0, 1), 30.0, 1e-9);
}

/* ---- the pre-solve callback ------------------------------------------------ */

typedef struct conveyor {
    heft_shape_id belt;
    heft_vec3 speed;
    int calls;
} conveyor;

static int run_belt(void *context, heft_pre_solve_contact *c) {
    conveyor *k = context;
    k->calls++;
    cr_assert(c->point_count >= 1 && c->point_count <= HEFT_PRE_SOLVE_MAX_POINTS);
    if (same_shape(c->shape_a, k->belt)) {
        c->tangent_velocity = k->speed;
    } else if (same_shape(c->shape_b, k->belt)) {
        c->tangent_velocity = heft_v3_scale(k->speed, -1.0);
    }
    return 1;
}

/* A static 10 m box made a conveyor belt at 0.5 m/s along x (and then
 * 0.3 m/s along y) by the pre-solve callback: a 20 kg crate dropped on it
 * is carried at the belt's speed to 1e-6 m/s. Under bpp the friction rows
 * are solved to round-off, so the crate's velocity is the target minus
 * epsilon times the change of the friction impulse, which is 0 once the
 * crate rides the belt. */
static void conveyor_carries_crate(const char *solver) {
    heft_world *w = world_with_ground(NULL);
    cr_assert_eq(heft_world_set_solver(w, solver), HEFT_OK);
    conveyor k;
    memset(&k, 0, sizeof k);
    box(w, HEFT_BODY_STATIC, heft_v3(0, 0, 0.5), heft_v3(5, 1, 0.5), 1.0, &k.belt);
    heft_body_id crate =
        box(w, HEFT_BODY_DYNAMIC, heft_v3(-3, 0, 1.3), heft_v3(0.3, 0.3, 0.3), 20.0, NULL);
    k.speed = heft_v3(0.5, 0.0, 0.0);
    cr_assert_eq(heft_world_set_pre_solve(w, run_belt, &k), HEFT_OK);
    double worst = 0.0;
    for (int step = 0; step < 240; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK, "%s", heft_last_error());
        if (step >= 120) {
            heft_vec3 v = heft_body_linear_velocity(w, crate);
            worst = fmax(worst, heft_v3_length(heft_v3_sub(v, k.speed)));
        }
    }
    cr_assert_gt(k.calls, 0);
    cr_log_info("%s: crate off the belt speed (x) by at most %.3g m/s", solver, worst);
    cr_assert_lt(worst, 1e-6, "%s: crate off the belt speed by %.3g m/s", solver, worst);
    /* it rode 1 s at 0.5 m/s after settling: still on the belt, moved along x */
    heft_vec3 p = heft_body_position(w, crate);
    cr_assert_gt(p.x, -2.0);
    cr_assert_float_eq(p.z, 1.3, 1e-3);
    /* turned to y */
    k.speed = heft_v3(0.0, 0.3, 0.0);
    worst = 0.0;
    for (int step = 0; step < 120; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
        if (step >= 60) {
            worst = fmax(worst,
                         heft_v3_length(heft_v3_sub(heft_body_linear_velocity(w, crate), k.speed)));
        }
    }
    cr_log_info("%s: crate off the belt speed (y) by at most %.3g m/s", solver, worst);
    cr_assert_lt(worst, 1e-6, "%s: crate off the belt speed by %.3g m/s", solver, worst);
    heft_world_destroy(w);
}

Test(pre_solve, a_static_box_made_a_conveyor_carries_a_crate_at_its_speed_bpp) {
    conveyor_carries_crate("bpp");
}

Test(pre_solve, a_static_box_made_a_conveyor_carries_a_crate_at_its_speed_pgs) {
    conveyor_carries_crate("pgs");
}

typedef struct material_change {
    double friction, restitution;
    int disable;
} material_change;

static int change_material(void *context, heft_pre_solve_contact *c) {
    const material_change *m = context;
    c->friction = m->friction;
    c->restitution = m->restitution;
    return !m->disable;
}

/* A box sliding at 2 m/s on the ground: mu = 1 stops it within 0.25 s; the
 * callback's mu = 0 leaves it sliding at 2 m/s. */
Test(pre_solve, friction_set_by_the_callback_is_used) {
    heft_world *w = world_with_ground(NULL);
    heft_body_id b =
        box(w, HEFT_BODY_DYNAMIC, heft_v3(0, 0, 0.5), heft_v3(0.5, 0.5, 0.5), 1.0, NULL);
    heft_body_set_linear_velocity(w, b, heft_v3(2, 0, 0));
    material_change m = {0.0, 0.0, 0};
    heft_world_set_pre_solve(w, change_material, &m);
    for (int step = 0; step < 60; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
    }
    cr_assert_float_eq(heft_body_linear_velocity(w, b).x, 2.0, 1e-6);
    heft_world_destroy(w);
}

/* A ball dropped 1 m: with the callback's restitution 1 it comes back up
 * to within 5% of its drop; values out of range (NaN friction, restitution
 * 2) are not used, so it stays down and rests. */
Test(pre_solve, restitution_set_by_the_callback_is_used_and_bad_values_are_not) {
    heft_world *w = world_with_ground(NULL);
    heft_body_id b = ball(w, heft_v3(0, 0, 1.1), heft_v3(0, 0, 0), 0.1, NULL);
    material_change m = {0.5, 1.0, 0};
    heft_world_set_pre_solve(w, change_material, &m);
    double top = 0.0;
    for (int step = 0; step < 90; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
        if (step > 30) {
            top = fmax(top, heft_body_position(w, b).z);
        }
    }
    cr_assert_gt(top, 0.1 + 0.95, "bounced to %.3f m", top);
    heft_world_destroy(w);

    w = world_with_ground(NULL);
    b = ball(w, heft_v3(0, 0, 1.1), heft_v3(0, 0, 0), 0.1, NULL);
    material_change bad = {NAN, 2.0, 0};
    heft_world_set_pre_solve(w, change_material, &bad);
    top = 0.0;
    for (int step = 0; step < 90; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
        cr_assert(heft_v3_isfinite(heft_body_position(w, b)));
        if (step > 30) {
            top = fmax(top, heft_body_position(w, b).z);
        }
    }
    cr_assert_lt(top, 0.11, "bounced to %.3f m with restitution 0", top);
    heft_world_destroy(w);
}

/* Disabled by the callback, a ball falls through the ground (its pair makes
 * no contact points), and the step's contact list stays empty. */
Test(pre_solve, a_disabled_contact_makes_no_rows) {
    heft_world *w = world_with_ground(NULL);
    heft_body_id b = ball(w, heft_v3(0, 0, 0.5), heft_v3(0, 0, 0), 0.1, NULL);
    material_change m = {1.0, 0.0, 1};
    heft_world_set_pre_solve(w, change_material, &m);
    for (int step = 0; step < 60; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
        cr_assert_eq(heft_world_contact_count(w), 0);
    }
    /* free fall for 1 s: z = 0.5 - g t^2 / 2 to the semi-implicit Euler's
     * g h t / 2 */
    cr_assert_float_eq(heft_body_position(w, b).z, 0.5 - 0.5 * 9.81 - 0.5 * 9.81 * h, 1e-9);
    heft_world_destroy(w);
}

static heft_world *stepping;
static int nested_result[3];

static int step_inside(void *context, heft_pre_solve_contact *c) {
    (void)context;
    (void)c;
    nested_result[0] = heft_world_step(stepping, h);
    nested_result[1] = heft_world_set_pre_solve(stepping, NULL, NULL);
    nested_result[2] = heft_world_set_pair_filter(stepping, NULL, NULL);
    return 1;
}

/* The callbacks must not change the world: a step, or setting a callback,
 * from inside one is refused. */
Test(pre_solve, a_step_from_inside_the_callback_is_refused) {
    stepping = world_with_ground(NULL);
    ball(stepping, heft_v3(0, 0, 0.1), heft_v3(0, 0, 0), 0.1, NULL);
    heft_world_set_pre_solve(stepping, step_inside, NULL);
    cr_assert_eq(heft_world_step(stepping, h), HEFT_OK);
    for (int k = 0; k < 3; ++k) {
        cr_assert_eq(nested_result[k], HEFT_ERROR_INVALID_ARGUMENT, "call %d", k);
    }
    cr_assert_eq(heft_world_step_count(stepping), 1);
    /* the callback is still set: it runs again in the next step */
    nested_result[0] = HEFT_OK;
    cr_assert_eq(heft_world_step(stepping, h), HEFT_OK);
    cr_assert_eq(nested_result[0], HEFT_ERROR_INVALID_ARGUMENT);
    heft_world_destroy(stepping);
}

/* ---- scene files --------------------------------------------------------------- */

Test(sensors, the_sensor_flag_and_the_hit_threshold_survive_save_and_load) {
    heft_world *w = world_with_ground(NULL);
    heft_shape_def sd = heft_default_shape_def();
    sd.is_sensor = 1;
    heft_body_def bd = heft_default_body_def();
    bd.type = HEFT_BODY_STATIC;
    heft_body_id gate = heft_create_body(w, &bd);
    cr_assert(heft_shape_is_valid(w, heft_create_shape(w, gate, &sd)));
    size_t length = 0;
    char *text = heft_world_save_text(w, NULL, &length);
    cr_assert_not_null(text, "%s", heft_last_error());
    cr_assert_not_null(strstr(text, "\"is_sensor\": true"));
    heft_world *back = heft_world_load_text(text, length, "saved", NULL);
    cr_assert_not_null(back, "%s", heft_last_error());
    heft_body_id bodies[2];
    cr_assert_eq(heft_world_bodies(back, bodies, 2), 2);
    heft_shape_id shapes[2];
    cr_assert_eq(heft_body_shapes(back, bodies[0], shapes, 2), 1);
    cr_assert_eq(heft_shape_is_sensor(back, shapes[0]), 0);
    cr_assert_eq(heft_body_shapes(back, bodies[1], shapes, 2), 1);
    cr_assert_eq(heft_shape_is_sensor(back, shapes[0]), 1);
    size_t length2 = 0;
    char *text2 = heft_world_save_text(back, NULL, &length2);
    cr_assert_eq(length2, length);
    cr_assert_eq(memcmp(text, text2, length), 0);
    /* the default hit threshold is not written; another one is, and read */
    cr_assert_null(strstr(text, "hit_event_threshold"));
    cr_assert_eq(heft_world_set_hit_event_threshold(w, 2.5), HEFT_OK);
    heft_free(text);
    text = heft_world_save_text(w, NULL, &length);
    cr_assert_not_null(strstr(text, "\"hit_event_threshold\": 2.5"));
    heft_world *again = heft_world_load_text(text, length, "saved", NULL);
    cr_assert_not_null(again, "%s", heft_last_error());
    cr_assert_eq(heft_world_hit_event_threshold(again), 2.5);
    heft_world_destroy(again);
    heft_free(text);
    heft_free(text2);
    heft_world_destroy(back);
    heft_world_destroy(w);
}

/* ---- reserving from a callback ---------------------------------------------- */

typedef struct reserve_try {
    heft_world *w;
    int calls, refused;
    char message[160];
} reserve_try;

static int reserve_in_pre_solve(void *context, heft_pre_solve_contact *contact) {
    (void)contact;
    reserve_try *t = context;
    heft_world_capacity c = {0};
    c.contacts = 1000;
    c.pairs = 1000;
    t->calls++;
    if (heft_world_reserve(t->w, &c) == HEFT_ERROR_INVALID_ARGUMENT) {
        t->refused++;
        snprintf(t->message, sizeof t->message, "%s", heft_last_error());
    }
    return 1;
}

/* The contact arrays are being filled while a pre-solve callback runs: a
 * reservation from there, which could move them, is refused with a message,
 * and the ball still lands as without it. */
Test(callbacks, a_reservation_from_a_pre_solve_callback_is_refused) {
    heft_shape_id ground, s;
    heft_world *w = world_with_ground(&ground);
    heft_body_id b = ball(w, heft_v3(0, 0, 0.2), heft_v3(0, 0, 0), 0.1, &s);
    reserve_try t = {w, 0, 0, ""};
    cr_assert_eq(heft_world_set_pre_solve(w, reserve_in_pre_solve, &t), HEFT_OK);
    for (int step = 0; step < 60; ++step) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK, "%s", heft_last_error());
    }
    cr_assert_gt(t.calls, 0);
    cr_assert_eq(t.refused, t.calls);
    cr_assert(strstr(t.message, "callback") != NULL, "%s", t.message);
    cr_assert_float_eq(heft_body_position(w, b).z, 0.1, 2e-3);
    heft_world_destroy(w);
}
