/* winch ([Lefebvre 2020] §2.3.1.6, 400:1): 50 links of 1 kg (capsules 0.3 m long) on
 * ball joints, lying on the ground, fixed to a 400 kg drum (a cylinder on a
 * hinge about y) that a velocity motor winds at a constant rate. The chain
 * is dragged along the ground (friction rows sliding) and winds onto the
 * drum. Operator input: "drum", the drum's angular velocity.
 *
 * The drum's lowest line is one link above the ground, link 0 hanging from
 * it. It used to be 2 mm above the chain, which was dragged under the drum
 * into that gap: a wedge between drum and ground that jams with mu = 1 once
 * the contacts are solved exactly (the BPP solvers' answers held the chain
 * there; only PGS's inexact friction let it slip through), which opened the
 * chain's joints by 5 cm under them.
 *
 * Works when at least 5 links are wound onto the drum or pulled past it
 * after the run, no link is below the ground or inside the drum by more
 * than 2 cm, and the joint gaps stay under 1 cm. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scenario.h"

#define WINCH_LINKS 50
#define WINCH_LINK_MASS 1.0
#define WINCH_LINK_LENGTH 0.3
#define WINCH_LINK_RADIUS 0.04
#define WINCH_DRUM_MASS 400.0
#define WINCH_DRUM_RADIUS 0.5
#define WINCH_DRUM_HALF_WIDTH 0.6
#define WINCH_DRUM_RATE 0.6 /* rad/s: 0.3 m/s of chain */

struct scenario {
    scenario_controls controls;
    heft_body_id drum;
    heft_joint_id drum_hinge;
    heft_body_id links[WINCH_LINKS];
    heft_joint_id joints[WINCH_LINKS];
    heft_vec3 axis_point; /* a point on the drum axis */
    double max_gap;
    double max_ground_penetration;
    double max_drum_penetration;
};

/* What the winch holds at its peak, reserved ahead so that its steps do not
 * allocate as the chain winds on: the drum, the links, their joints, a shape
 * each and the ground. Contact points: at most 202 (4 a link) when measured
 * under pgs once the chain is wound (127 in the first minute), reserved
 * twice over; pairs: every pair of links and each link with the drum and
 * the ground, all of which can come within a contact margin on the drum
 * (696 measured at the peak, 441 in the first minute). Rows: the island
 * reaches 762 under pgs and 516 under bpp-skyline in ten minutes; envelope:
 * bpp-skyline's arrays hold 77,400 numbers at the peak (516 rows times a
 * tallest column of 150, the chain wound in layers on the drum, whose
 * contact rows all meet through it), reserved with some headroom so that
 * they do not grow in the seventh minute. */
static heft_result winch_reserve(heft_world *w) {
    heft_world_capacity c = {0};
    c.bodies = WINCH_LINKS + 2;
    c.shapes = WINCH_LINKS + 2;
    c.joints = WINCH_LINKS + 1;
    c.contacts = 8 * WINCH_LINKS;
    c.pairs = WINCH_LINKS * (WINCH_LINKS - 1) / 2 + 2 * WINCH_LINKS;
    c.rows = 16 * WINCH_LINKS;
    c.envelope = 90000;
    return heft_world_reserve(w, &c);
}

static scenario *winch_create(heft_world *w, const scenario_params *p) {
    if ((p == NULL || !p->no_reserve) && winch_reserve(w) != HEFT_OK) {
        return NULL;
    }
    scenario *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->controls.count = 1;
    s->controls.axis[0] =
        (scenario_axis){"drum", "rad/s", "drum angular velocity (winds in > 0)", -1.5, 1.5, 0.0};
    scenario_add_ground(w);
    const double R = WINCH_DRUM_RADIUS, r = WINCH_LINK_RADIUS, L = WINCH_LINK_LENGTH;
    /* the drum's axis along world y, its lowest line one link above the
     * chain, which leaves the ground there through one hanging link */
    const double zc = r + 0.002; /* the axis of a link lying on the ground */
    s->axis_point = heft_v3(0.0, 0.0, zc + L + 0.002 + r + R);
    heft_shape_def drum_shape = heft_default_shape_def();
    drum_shape.type = HEFT_SHAPE_CYLINDER;
    drum_shape.radius = R;
    drum_shape.half_length = WINCH_DRUM_HALF_WIDTH;
    heft_quat z_to_y = heft_quat_axis_angle(heft_v3(1.0, 0.0, 0.0), -0.5 * HEFT_PI);
    s->drum = scenario_add_body(w, "drum", s->axis_point, z_to_y, WINCH_DRUM_MASS,
                                heft_inertia_cylinder(WINCH_DRUM_MASS, R, WINCH_DRUM_HALF_WIDTH),
                                &drum_shape);
    heft_joint_def hd = heft_default_joint_def(HEFT_JOINT_HINGE);
    hd.body_a = HEFT_WORLD_FRAME;
    hd.body_b = s->drum;
    hd.name = "drum_hinge";
    heft_joint_def_set_world_frame(w, &hd, s->axis_point, heft_v3(0.0, 1.0, 0.0));
    hd.motor[HEFT_DOF_RX].mode = HEFT_MOTOR_VELOCITY;
    hd.motor[HEFT_DOF_RX].max_force = 2.0e4; /* N m */
    s->drum_hinge = heft_create_joint(w, &hd);
    if (!heft_joint_is_valid(w, s->drum_hinge)) {
        free(s);
        return NULL;
    }
    /* the chain lies along +x on the ground, link 0 pinned under the drum's
     * front; the drum turning about +y pulls its bottom towards -x, so the
     * chain is dragged under the drum and wound up its back */
    heft_shape_def link_shape = heft_default_shape_def();
    link_shape.type = HEFT_SHAPE_CAPSULE;
    link_shape.radius = r;
    link_shape.half_length = 0.5 * L - r;
    heft_quat z_to_x = heft_quat_axis_angle(heft_v3(0.0, 1.0, 0.0), 0.5 * HEFT_PI);
    /* link 0 hangs from the drum's lowest line (its top R + r + 2 mm from
     * the axis) down to the ground; the others lie along +x */
    heft_vec3 anchor0 = heft_v3(0.0, 0.0, zc + L);
    char name[48];
    heft_body_id prev = s->drum;
    for (int i = 0; i < WINCH_LINKS; ++i) {
        snprintf(name, sizeof name, "link%d", i);
        heft_vec3 c = i == 0 ? heft_v3(0.0, 0.0, zc + 0.5 * L) : heft_v3((i - 0.5) * L, 0.0, zc);
        s->links[i] =
            scenario_add_body(w, name, c, i == 0 ? heft_quat_identity() : z_to_x, WINCH_LINK_MASS,
                              heft_inertia_capsule(WINCH_LINK_MASS, r, 0.5 * L - r), &link_shape);
        heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
        jd.body_a = prev;
        jd.body_b = s->links[i];
        snprintf(name, sizeof name, "joint%d", i);
        jd.name = name;
        heft_joint_def_set_world_frame(w, &jd, i == 0 ? anchor0 : heft_v3((i - 1) * L, 0.0, zc),
                                       heft_v3(1.0, 0.0, 0.0));
        s->joints[i] = heft_create_joint(w, &jd);
        if (!heft_joint_is_valid(w, s->joints[i])) {
            free(s);
            return NULL;
        }
        prev = s->links[i];
    }
    return s;
}

static void winch_apply(scenario *s, heft_world *w, double h) {
    (void)h;
    heft_joint_set_motor_velocity(w, s->drum_hinge, HEFT_DOF_RX, s->controls.axis[0].value);
}

/* The timeline: 1 s at rest, then the drum speeds up over 1 s to its rate. */
static void winch_control(scenario *s, heft_world *w, int step, double h) {
    double t = step * h;
    scenario_set_axis(&s->controls, "drum", WINCH_DRUM_RATE * scenario_ramp(t, 1.0, 2.0));
    winch_apply(s, w, h);
}

/* the distance of a link's axis segment from the drum axis (in the xz plane) */
static double link_drum_distance(const scenario *s, heft_world *w, int i) {
    double best = INFINITY;
    const double half = 0.5 * WINCH_LINK_LENGTH - WINCH_LINK_RADIUS;
    for (int k = -2; k <= 2; ++k) {
        heft_vec3 pnt = heft_body_world_point(w, s->links[i], heft_v3(0.0, 0.0, half * k / 2.0));
        double dx = pnt.x - s->axis_point.x, dz = pnt.z - s->axis_point.z;
        double d = sqrt(dx * dx + dz * dz);
        best = d < best ? d : best;
    }
    return best;
}

/* How deep a link's axis lies inside the drum (0 when outside): of the
 * axis points beside the drum (within its width), the largest distance to
 * the drum's nearest surface, its round side or a flat end. A link that
 * slips off the drum's end (the chain wound in layers spreads along it)
 * lies inside the radius beyond the end, where it is outside the drum. */
static double link_drum_depth(const scenario *s, heft_world *w, int i) {
    double deepest = 0.0;
    const double half = 0.5 * WINCH_LINK_LENGTH - WINCH_LINK_RADIUS;
    for (int k = -2; k <= 2; ++k) {
        heft_vec3 pnt = heft_body_world_point(w, s->links[i], heft_v3(0.0, 0.0, half * k / 2.0));
        double dx = pnt.x - s->axis_point.x, dz = pnt.z - s->axis_point.z;
        double side = WINCH_DRUM_RADIUS - sqrt(dx * dx + dz * dz);
        double end = WINCH_DRUM_HALF_WIDTH - fabs(pnt.y - s->axis_point.y);
        double depth = side < end ? side : end;
        deepest = depth > deepest ? depth : deepest;
    }
    return deepest;
}

static void winch_observe(scenario *s, heft_world *w, int step, double h) {
    (void)step;
    (void)h;
    const double half = 0.5 * WINCH_LINK_LENGTH - WINCH_LINK_RADIUS;
    for (int i = 0; i < WINCH_LINKS; ++i) {
        double gap = heft_joint_gap(w, s->joints[i]);
        s->max_gap = gap > s->max_gap ? gap : s->max_gap;
        for (int k = -1; k <= 1; k += 2) {
            heft_vec3 end = heft_body_world_point(w, s->links[i], heft_v3(0.0, 0.0, k * half));
            double pen = -end.z; /* the link's axis below the ground */
            s->max_ground_penetration =
                pen > s->max_ground_penetration ? pen : s->max_ground_penetration;
        }
        /* link 0 is pinned to the drum and does not collide with it */
        if (i > 0) {
            double pen = link_drum_depth(s, w, i);
            s->max_drum_penetration = pen > s->max_drum_penetration ? pen : s->max_drum_penetration;
        }
    }
}

/* links on the drum: touching it (within 2 cm of its surface) or pulled past
 * its axis (x < 0) */
static int winch_links_wound(scenario *s, heft_world *w) {
    int n = 0;
    for (int i = 0; i < WINCH_LINKS; ++i) {
        heft_vec3 c = heft_body_position(w, s->links[i]);
        double d = link_drum_distance(s, w, i);
        if (c.x < s->axis_point.x || d < WINCH_DRUM_RADIUS + WINCH_LINK_RADIUS + 0.02) {
            ++n;
        }
    }
    return n;
}

static int winch_checks(scenario *s, heft_world *w, scenario_check *out, int max) {
    int n = 0;
    int wound = winch_links_wound(s, w);
    if (n < max) {
        scenario_check_set(&out[n++], "links_wound", wound, 5, wound >= 5);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "ground_penetration_max_m", s->max_ground_penetration, 0.02,
                           s->max_ground_penetration < 0.02);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "drum_penetration_max_m", s->max_drum_penetration, 0.02,
                           s->max_drum_penetration < 0.02);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "joint_gap_max_m", s->max_gap, 0.01, s->max_gap < 0.01);
    }
    return n;
}

static scenario_controls *winch_controls(scenario *s) {
    return &s->controls;
}

static void winch_destroy(scenario *s) {
    free(s);
}

static void winch_configure(heft_world_def *def, heft_solver_options *options) {
    scenario_configure_heavy(def, options);
}

const scenario_desc scenario_winch = {
    .name = "winch",
    .description = "50 links of 1 kg dragged along the ground and wound onto a 400 kg drum",
    .h = 1.0 / 60.0,
    .steps = 1200,
    .create = winch_create,
    .control = winch_control,
    .observe = winch_observe,
    .checks = winch_checks,
    .destroy = winch_destroy,
    .configure = winch_configure,
    .controls = winch_controls,
    .apply = winch_apply,
    .bounds_lo = {-10.0, -10.0, -1.0},
    .bounds_hi = {20.0, 10.0, 10.0},
};
