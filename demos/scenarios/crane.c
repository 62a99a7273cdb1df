/* crane ([Lefebvre 2020] §2.3.1.2, 6,300:1): a 30,000 kg mobile crane (a 27,560 kg
 * chassis on four outrigger feet, a 1,500 kg turntable on a hinge about z
 * with the slew motor, a 940 kg boom 14 m long on a hinge about y with the
 * luff motor) hoists a 2,000 kg concrete pipe hanging from a 70 kg hook by a
 * two-leg sling. The 70 kg steel cable is 16 capsule links of 4.375 kg on
 * ball joints; the hoist is a rope joint from the boom tip to the cable whose
 * length the winch pays in or out (heft_joint_set_length), so the cable
 * goes slack instead of pushing when the hook rests on the pipe.
 *
 * Operator inputs (scenario_controls): slew (rad/s), luff (rad/s), hoist
 * (m/s, > 0 winds the cable in). Timeline: the hook is lowered onto the
 * pipe (contacts), hoisted until the sling is taut and then about 2 m more,
 * and the turntable slews 45 degrees with the pipe hanging.
 *
 * Works when the pipe ends at least 1.5 m above its start, the cable never
 * stretches by more than 1% of its length (the sum of its ball joints'
 * gaps), the hoist rope's excess over its set length (the winch lagging, as
 * a length set each step is reached through the Baumgarte term) stays under
 * 10 cm, and the hook touched the pipe. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scenario.h"

#define CRANE_LINKS 16
#define CRANE_LINK_LENGTH 0.4
#define CRANE_LINK_RADIUS 0.03
#define CRANE_CABLE_MASS 70.0
#define CRANE_HOOK_MASS 70.0
#define CRANE_PIPE_MASS 2000.0
#define CRANE_CHASSIS_MASS 27560.0
#define CRANE_TURNTABLE_MASS 1500.0
#define CRANE_BOOM_MASS 940.0
#define CRANE_BOOM_LENGTH 14.0
#define CRANE_BOOM_ANGLE (50.0 * HEFT_PI / 180.0)
#define CRANE_ROPE_START 5.0
#define CRANE_SLING_LENGTH 2.0

/* collision categories: crane parts do not touch each other or the cable */
#define CAT_GROUND 1u
#define CAT_CRANE 2u
#define CAT_CABLE 4u
#define CAT_LOAD 8u

struct scenario {
    scenario_controls controls;
    heft_body_id chassis, turntable, boom, hook, pipe;
    heft_body_id links[CRANE_LINKS];
    heft_joint_id slew, luff, rope;
    heft_joint_id cable_joints[CRANE_LINKS + 1]; /* links and the hook */
    heft_joint_id sling[2];
    double rope_length;
    double luff_angle; /* the luff servo's target, rad (> 0 lowers the boom) */
    double pipe_start_z;
    double max_stretch;
    double max_rope_lag;
    int hook_touched_pipe;
};

static heft_shape_def box_shape(heft_vec3 half, heft_vec3 at, uint32_t category, uint32_t mask) {
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = half;
    sd.local_position = at;
    sd.category_bits = category;
    sd.mask_bits = mask;
    return sd;
}

static int crane_build(scenario *s, heft_world *w) {
    heft_quat id = heft_quat_identity();
    scenario_add_ground(w);
    /* chassis: a 10 x 3 x 1.5 m box standing on four pads at its corners */
    heft_vec3 chassis_half = heft_v3(5.0, 1.5, 0.75);
    heft_shape_def body = box_shape(chassis_half, heft_v3(0, 0, 0), CAT_CRANE, ~CAT_CRANE);
    s->chassis = scenario_add_body(w, "chassis", heft_v3(0.0, 0.0, 1.252), id, CRANE_CHASSIS_MASS,
                                   heft_inertia_box(CRANE_CHASSIS_MASS, chassis_half), &body);
    if (s->chassis.generation == 0) {
        return -1;
    }
    for (int k = 0; k < 4; ++k) {
        /* outrigger feet: balls, one contact point each (four flat pads made
         * sixteen coplanar points, and the BPP solvers cycled on them) */
        heft_vec3 at = heft_v3(k & 1 ? 4.5 : -4.5, k & 2 ? 2.5 : -2.5, -1.0);
        heft_shape_def pad = heft_default_shape_def();
        pad.radius = 0.25;
        pad.local_position = at;
        pad.category_bits = CAT_CRANE;
        pad.mask_bits = ~CAT_CRANE;
        if (heft_create_shape(w, s->chassis, &pad).generation == 0) {
            return -1;
        }
    }
    /* turntable on the slew hinge */
    heft_vec3 tt_half = heft_v3(1.5, 1.2, 0.4);
    heft_shape_def tt = box_shape(tt_half, heft_v3(0, 0, 0), CAT_CRANE, ~CAT_CRANE);
    s->turntable =
        scenario_add_body(w, "turntable", heft_v3(-2.0, 0.0, 2.402 + 0.4), id, CRANE_TURNTABLE_MASS,
                          heft_inertia_box(CRANE_TURNTABLE_MASS, tt_half), &tt);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_HINGE);
    jd.body_a = s->chassis;
    jd.body_b = s->turntable;
    jd.name = "slew";
    heft_joint_def_set_world_frame(w, &jd, heft_v3(-2.0, 0.0, 2.402), heft_v3(0.0, 0.0, 1.0));
    jd.motor[HEFT_DOF_RX].mode = HEFT_MOTOR_VELOCITY;
    jd.motor[HEFT_DOF_RX].max_force = 2.0e6;
    s->slew = heft_create_joint(w, &jd);
    /* boom on the luff hinge, 50 degrees up, pointing along +x */
    heft_vec3 pivot = heft_v3(-1.0, 0.0, 3.4);
    heft_vec3 dir = heft_v3(cos(CRANE_BOOM_ANGLE), 0.0, sin(CRANE_BOOM_ANGLE));
    heft_vec3 boom_half = heft_v3(0.5 * CRANE_BOOM_LENGTH, 0.3, 0.3);
    heft_shape_def boom = box_shape(boom_half, heft_v3(0, 0, 0), CAT_CRANE, ~CAT_CRANE);
    s->boom =
        scenario_add_body(w, "boom", heft_v3_madd(pivot, 0.5 * CRANE_BOOM_LENGTH, dir),
                          heft_quat_axis_angle(heft_v3(0.0, 1.0, 0.0), -CRANE_BOOM_ANGLE),
                          CRANE_BOOM_MASS, heft_inertia_box(CRANE_BOOM_MASS, boom_half), &boom);
    jd = heft_default_joint_def(HEFT_JOINT_HINGE);
    jd.body_a = s->turntable;
    jd.body_b = s->boom;
    jd.name = "luff";
    heft_joint_def_set_world_frame(w, &jd, pivot, heft_v3(0.0, 1.0, 0.0));
    jd.motor[HEFT_DOF_RX].mode = HEFT_MOTOR_VELOCITY; /* crane_apply makes it a servo */
    jd.motor[HEFT_DOF_RX].max_force = 2.0e6;
    s->luff = heft_create_joint(w, &jd);
    if (!heft_joint_is_valid(w, s->slew) || !heft_joint_is_valid(w, s->luff)) {
        return -1;
    }
    /* the cable hangs from the boom tip: the hoist rope, then the links */
    heft_vec3 tip = heft_v3_madd(pivot, CRANE_BOOM_LENGTH, dir);
    const double L = CRANE_LINK_LENGTH, r = CRANE_LINK_RADIUS;
    const double link_mass = CRANE_CABLE_MASS / CRANE_LINKS;
    heft_shape_def link = heft_default_shape_def();
    link.type = HEFT_SHAPE_CAPSULE;
    link.radius = r;
    link.half_length = 0.5 * L - r;
    link.category_bits = CAT_CABLE;
    link.mask_bits = CAT_GROUND; /* a slack cable falls through the hook, not onto it */
    double top = tip.z - CRANE_ROPE_START;
    char name[48];
    heft_body_id prev = s->boom;
    for (int i = 0; i <= CRANE_LINKS; ++i) {
        int is_hook = i == CRANE_LINKS;
        heft_vec3 anchor = heft_v3(tip.x, 0.0, top - i * L);
        if (is_hook) {
            heft_vec3 hook_half = heft_v3(0.2, 0.2, 0.2);
            heft_shape_def hs = box_shape(hook_half, heft_v3(0, 0, 0), CAT_LOAD, ~0u);
            s->hook = scenario_add_body(w, "hook", heft_v3(tip.x, 0.0, anchor.z - 0.2), id,
                                        CRANE_HOOK_MASS,
                                        heft_inertia_box(CRANE_HOOK_MASS, hook_half), &hs);
        } else {
            snprintf(name, sizeof name, "cable%d", i);
            s->links[i] =
                scenario_add_body(w, name, heft_v3(tip.x, 0.0, anchor.z - 0.5 * L), id, link_mass,
                                  heft_inertia_capsule(link_mass, r, 0.5 * L - r), &link);
        }
        heft_body_id b = is_hook ? s->hook : s->links[i];
        if (b.generation == 0) {
            return -1;
        }
        if (i == 0) {
            jd = heft_default_joint_def(HEFT_JOINT_ROPE);
            jd.body_a = s->boom;
            jd.body_b = b;
            jd.name = "hoist_rope";
            jd.local_anchor_a = heft_body_local_point(w, s->boom, tip);
            jd.local_anchor_b = heft_body_local_point(w, b, anchor);
            jd.length = CRANE_ROPE_START;
            s->rope = heft_create_joint(w, &jd);
        } else {
            jd = heft_default_joint_def(HEFT_JOINT_BALL);
            jd.body_a = prev;
            jd.body_b = b;
            snprintf(name, sizeof name, is_hook ? "hook_joint" : "cable_joint%d", i);
            jd.name = name;
            heft_joint_def_set_world_frame(w, &jd, anchor, heft_v3(0.0, 0.0, 1.0));
            s->cable_joints[i] = heft_create_joint(w, &jd);
        }
        prev = b;
    }
    s->cable_joints[0] = s->rope;
    s->rope_length = CRANE_ROPE_START;
    /* the pipe lies across under the hook, its axis along y */
    heft_shape_def ps = heft_default_shape_def();
    ps.type = HEFT_SHAPE_CYLINDER;
    ps.radius = 0.6;
    ps.half_length = 1.25;
    ps.category_bits = CAT_LOAD;
    s->pipe =
        scenario_add_body(w, "pipe", heft_v3(tip.x, 0.0, 0.601),
                          heft_quat_axis_angle(heft_v3(1.0, 0.0, 0.0), -0.5 * HEFT_PI),
                          CRANE_PIPE_MASS, heft_inertia_cylinder(CRANE_PIPE_MASS, 0.6, 1.25), &ps);
    if (s->pipe.generation == 0) {
        return -1;
    }
    s->pipe_start_z = 0.601;
    /* the sling: two legs from the hook's underside to lugs on the pipe's top */
    for (int k = 0; k < 2; ++k) {
        jd = heft_default_joint_def(HEFT_JOINT_ROPE);
        jd.body_a = s->hook;
        jd.body_b = s->pipe;
        jd.name = k ? "sling_right" : "sling_left";
        jd.local_anchor_a = heft_v3(0.0, 0.0, -0.2);
        jd.local_anchor_b = heft_body_local_point(w, s->pipe, heft_v3(tip.x, k ? 1.0 : -1.0, 1.2));
        jd.length = CRANE_SLING_LENGTH;
        jd.collide_connected = 1; /* the hook lands on the pipe */
        s->sling[k] = heft_create_joint(w, &jd);
    }
    for (int i = 0; i <= CRANE_LINKS; ++i) {
        if (!heft_joint_is_valid(w, s->cable_joints[i])) {
            return -1;
        }
    }
    return heft_joint_is_valid(w, s->sling[0]) && heft_joint_is_valid(w, s->sling[1]) ? 0 : -1;
}

static scenario *crane_create(heft_world *w, const scenario_params *p) {
    (void)p;
    scenario *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->controls.count = 3;
    s->controls.axis[0] =
        (scenario_axis){"slew", "rad/s", "turntable rate (counter-clockwise > 0)", -0.3, 0.3, 0.0};
    s->controls.axis[1] = (scenario_axis){"luff", "rad/s", "boom rate (up > 0)", -0.1, 0.1, 0.0};
    s->controls.axis[2] =
        (scenario_axis){"hoist", "m/s", "cable rate (winds in, lifts > 0)", -1.5, 1.5, 0.0};
    if (crane_build(s, w) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

static void crane_apply(scenario *s, heft_world *w, double h) {
    heft_joint_set_motor_velocity(w, s->slew, HEFT_DOF_RX, s->controls.axis[0].value);
    /* the luff hinge's axis is +y: a positive angle lowers the boom. The
     * motor is a servo on the angle the operator's rate has reached, like a
     * luffing ram: as a velocity motor at rate 0 it had no memory of the
     * angle, so every correction that moved the boom stayed (the 2,000 kg
     * pipe's weight on the cable's projections), and the boom held aloft sank
     * 0.56 m in the first minute and laid the pipe on the ground after 8
     * (heft-soak). A scene file's luff axis stays a velocity motor. */
    const double luff_rate = -s->controls.axis[1].value;
    s->luff_angle += h * luff_rate;
    heft_joint_motor luff = {HEFT_MOTOR_POSITION, luff_rate, s->luff_angle, 2.0e6, 0.0, 0.0};
    heft_joint_set_motor(w, s->luff, HEFT_DOF_RX, &luff);
    double len = s->rope_length - h * s->controls.axis[2].value;
    len = len < 0.5 ? 0.5 : (len > 12.0 ? 12.0 : len);
    if (len != s->rope_length) {
        s->rope_length = len;
        heft_joint_set_length(w, s->rope, len);
    }
}

/* The timeline (s): 0-1 rest; 1-3.5 lower the hook 1.13 m, onto the pipe
 * (it lands after 1.12 m, at the end of the bump, slowly: landing at 0.2 m/s
 * opened a cable joint by 10 cm for a step); 3.5-7.5 take in 1.73 m (the slack and the
 * sling's); 7.5-12 hoist 2.6 m; 12-20 slew 45 degrees (at most 0.2 rad/s).
 * Every rate is a smooth bump, so the load is not jerked. */
static void crane_control(scenario *s, heft_world *w, int step, double h) {
    double t = step * h;
    double hoist = -1.13 / 1.25 * scenario_bump(t, 1.0, 3.5) +
                   1.73 / 2.0 * scenario_bump(t, 3.5, 7.5) +
                   2.6 / 2.25 * scenario_bump(t, 7.5, 12.0);
    scenario_set_axis(&s->controls, "hoist", hoist);
    scenario_set_axis(&s->controls, "slew", 0.25 * HEFT_PI / 4.0 * scenario_bump(t, 12.0, 20.0));
    scenario_set_axis(&s->controls, "luff", 0.0);
    crane_apply(s, w, h);
}

static void crane_observe(scenario *s, heft_world *w, int step, double h) {
    (void)step;
    (void)h;
    /* the cable's stretch: the gaps of its ball joints (links and hook); the
     * hoist rope's excess over its set length is the winch lagging behind
     * its length, reported apart */
    double stretch = 0.0;
    for (int i = 1; i <= CRANE_LINKS; ++i) {
        stretch += heft_joint_gap(w, s->cable_joints[i]);
    }
    s->max_stretch = stretch > s->max_stretch ? stretch : s->max_stretch;
    double lag = heft_joint_gap(w, s->rope);
    s->max_rope_lag = lag > s->max_rope_lag ? lag : s->max_rope_lag;
    for (int i = 0; i < heft_world_contact_count(w) && !s->hook_touched_pipe; ++i) {
        heft_contact_info c;
        heft_world_contact(w, i, &c);
        int ab = c.body_a.index == s->hook.index && c.body_b.index == s->pipe.index;
        int ba = c.body_b.index == s->hook.index && c.body_a.index == s->pipe.index;
        s->hook_touched_pipe = (ab || ba) && c.separation < 0.01;
    }
}

static int crane_checks(scenario *s, heft_world *w, scenario_check *out, int max) {
    int n = 0;
    double rise = heft_body_position(w, s->pipe).z - s->pipe_start_z;
    double limit = 0.01 * CRANE_LINKS * CRANE_LINK_LENGTH;
    if (n < max) {
        scenario_check_set(&out[n++], "pipe_rise_m", rise, 1.5, rise >= 1.5);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "cable_stretch_max_m", s->max_stretch, limit,
                           s->max_stretch <= limit);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "hoist_lag_max_m", s->max_rope_lag, 0.1,
                           s->max_rope_lag <= 0.1);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "hook_touched_pipe", s->hook_touched_pipe, 1,
                           s->hook_touched_pipe);
    }
    return n;
}

static scenario_controls *crane_controls(scenario *s) {
    return &s->controls;
}

static void crane_destroy(scenario *s) {
    free(s);
}

const scenario_desc scenario_crane = {
    .name = "crane",
    .description = "a 30,000 kg crane hoists a 2,000 kg pipe on a 70 kg cable of 16 links and "
                   "slews 45 degrees",
    .h = 1.0 / 60.0,
    .steps = 1200,
    .create = crane_create,
    .control = crane_control,
    .observe = crane_observe,
    .checks = crane_checks,
    .destroy = crane_destroy,
    .configure = scenario_configure_heavy,
    .controls = crane_controls,
    .apply = crane_apply,
    .bounds_lo = {-20.0, -20.0, -0.5},
    .bounds_hi = {20.0, 20.0, 25.0},
};
