/* forklift ([Lefebvre 2020] §2.3.1.1, 2,700:1): a 3,000 kg forklift picks a 100 kg
 * crate off a pedestal, lifts it 1 m, backs away, accelerates and makes a
 * 360 degree turn around a traffic cone while friction alone keeps the crate
 * on the forks. Bodies: a 2,430 kg chassis; two 67.05 kg front wheels on
 * hinges with drive motors; two rear wheels on hinges to 0.9 kg steering
 * knuckles, each on a hinge about z with a steering servo (the lightest
 * bodies: 2,430 / 0.9 = 2,700); a 200 kg mast on a tilt hinge with a servo;
 * a 100 kg carriage with its two forks on a prismatic joint up the mast with
 * the lift motor and limits. The front wheels' motors run as an electronic
 * differential and the knuckles steer to Ackermann angles, so the truck turns
 * about one point; the lightly loaded inner front wheel still skids in the
 * turn (sliding friction rows).
 *
 * Operator inputs: drive (m/s at the front axle's middle), steer (rad, the
 * angle of a rear wheel midway between the two, > 0 turns left), lift (m/s),
 * tilt (rad, > 0 tilts the mast back).
 *
 * Works when the crate is still on the forks at the end: its underside
 * less than 5 cm above them and its centre over their footprint; the
 * chassis' heading must have turned at least 360 degrees, and its bearing
 * from the cone too (the turn goes around the cone). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scenario.h"

#define FORK_CHASSIS_MASS 2430.0
#define FORK_WHEEL_MASS 67.05
#define FORK_KNUCKLE_MASS 0.9
#define FORK_MAST_MASS 200.0
#define FORK_CARRIAGE_MASS 100.0
#define FORK_CRATE_MASS 100.0
#define FORK_WHEEL_RADIUS 0.3
#define FORK_WHEELBASE 1.5
#define FORK_TRACK 0.75 /* half the track */
/* the timeline's legs: forward under the crate, back off (clear of the
 * pedestal when the rear swings out in the turn), then the turn */
#define FORK_PICK_TRAVEL 1.1
#define FORK_BACK_OFF 3.0
#define FORK_TURN_SPEED 1.6
#define FORK_TURN_STEER 0.7

#define CAT_TRUCK 2u

struct scenario {
    scenario_controls controls;
    heft_body_id chassis, mast, carriage, crate;
    heft_body_id wheels[4], knuckles[2];
    heft_joint_id drive[2], steer[2], roll[2], tilt, lift;
    heft_vec3 cone_at;
    double yaw_prev, yaw_turned;
    double bearing_prev, bearing_turned;
    double turn_start_time;
};

static heft_shape_def box_shape(heft_vec3 half, heft_vec3 at) {
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = half;
    sd.local_position = at;
    sd.category_bits = CAT_TRUCK;
    sd.mask_bits = ~CAT_TRUCK;
    return sd;
}

static heft_joint_id hinge(heft_world *w, const char *name, heft_body_id a, heft_body_id b,
                           heft_vec3 at, heft_vec3 axis) {
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_HINGE);
    jd.body_a = a;
    jd.body_b = b;
    jd.name = name;
    heft_joint_def_set_world_frame(w, &jd, at, axis);
    return heft_create_joint(w, &jd);
}

static int forklift_build(scenario *s, heft_world *w) {
    heft_quat id = heft_quat_identity();
    heft_vec3 y = heft_v3(0.0, 1.0, 0.0), z = heft_v3(0.0, 0.0, 1.0);
    scenario_add_ground(w);
    const double R = FORK_WHEEL_RADIUS;
    heft_vec3 chassis_half = heft_v3(1.2, 0.55, 0.35);
    heft_shape_def cs = box_shape(chassis_half, heft_v3(0, 0, 0));
    s->chassis = scenario_add_body(w, "chassis", heft_v3(0.0, 0.0, 0.75), id, FORK_CHASSIS_MASS,
                                   heft_inertia_box(FORK_CHASSIS_MASS, chassis_half), &cs);
    /* wheels: cylinders along y; front ones driven, rear ones on knuckles */
    heft_shape_def ws = heft_default_shape_def();
    ws.type = HEFT_SHAPE_CYLINDER;
    ws.radius = R;
    ws.half_length = 0.1;
    ws.category_bits = CAT_TRUCK;
    ws.mask_bits = ~CAT_TRUCK;
    heft_quat z_to_y = heft_quat_axis_angle(heft_v3(1.0, 0.0, 0.0), -0.5 * HEFT_PI);
    static const char *const wheel_names[4] = {"wheel_front_left", "wheel_front_right",
                                               "wheel_rear_left", "wheel_rear_right"};
    static const char *const joint_names[4] = {"drive_left", "drive_right", "roll_left",
                                               "roll_right"};
    static const char *const knuckle_names[2] = {"knuckle_left", "knuckle_right"};
    static const char *const steer_names[2] = {"steer_left", "steer_right"};
    for (int k = 0; k < 4; ++k) {
        int rear = k >= 2;
        double side = (k & 1) ? -FORK_TRACK : FORK_TRACK;
        heft_vec3 at =
            heft_v3(rear ? -0.5 * FORK_WHEELBASE : 0.5 * FORK_WHEELBASE, side, R + 0.001);
        s->wheels[k] = scenario_add_body(w, wheel_names[k], at, z_to_y, FORK_WHEEL_MASS,
                                         heft_inertia_cylinder(FORK_WHEEL_MASS, R, 0.1), &ws);
        if (s->wheels[k].generation == 0) {
            return -1;
        }
        if (!rear) {
            s->drive[k] = hinge(w, joint_names[k], s->chassis, s->wheels[k], at, y);
            heft_joint_motor m = {HEFT_MOTOR_VELOCITY, 0.0, 0.0, 4000.0, 0.0, 0.0};
            heft_joint_set_motor(w, s->drive[k], HEFT_DOF_RX, &m);
        } else {
            int j = k - 2;
            s->knuckles[j] = scenario_add_body(w, knuckle_names[j], at, id, FORK_KNUCKLE_MASS,
                                               heft_inertia_sphere(FORK_KNUCKLE_MASS, 0.1), NULL);
            s->steer[j] = hinge(w, steer_names[j], s->chassis, s->knuckles[j], at, z);
            heft_joint_motor m = {HEFT_MOTOR_POSITION, 0.0, 0.0, 5000.0, 0.0, 0.0};
            heft_joint_set_motor(w, s->steer[j], HEFT_DOF_RX, &m);
            s->roll[j] = hinge(w, joint_names[k], s->knuckles[j], s->wheels[k], at, y);
        }
    }
    /* mast on the tilt hinge at the chassis' front, carriage with forks on it */
    heft_vec3 mast_half = heft_v3(0.06, 0.45, 1.1);
    heft_shape_def ms = box_shape(mast_half, heft_v3(0, 0, 0));
    s->mast = scenario_add_body(w, "mast", heft_v3(1.3, 0.0, 1.55), id, FORK_MAST_MASS,
                                heft_inertia_box(FORK_MAST_MASS, mast_half), &ms);
    s->tilt = hinge(w, "tilt", s->chassis, s->mast, heft_v3(1.3, 0.0, 0.5), y);
    heft_joint_motor tm = {HEFT_MOTOR_POSITION, 0.0, 0.0, 2.0e5, 0.0, 0.0};
    heft_joint_set_motor(w, s->tilt, HEFT_DOF_RX, &tm);
    heft_vec3 carriage_half = heft_v3(0.05, 0.45, 0.2);
    heft_shape_def cps = box_shape(carriage_half, heft_v3(0, 0, 0));
    heft_vec3 carriage_at = heft_v3(1.42, 0.0, 0.25);
    s->carriage = scenario_add_body(w, "carriage", carriage_at, id, FORK_CARRIAGE_MASS,
                                    heft_inertia_box(FORK_CARRIAGE_MASS, carriage_half), &cps);
    if (s->mast.generation == 0 || s->carriage.generation == 0) {
        return -1;
    }
    for (int k = 0; k < 2; ++k) {
        /* the forks: 1 m long, their tops 15 cm under the carriage's centre */
        heft_shape_def fs = heft_default_shape_def();
        fs.type = HEFT_SHAPE_CAPSULE;
        fs.radius = 0.025;
        fs.half_length = 0.475;
        fs.local_position = heft_v3(0.55, k ? -0.3 : 0.3, -0.175);
        fs.local_orientation = heft_quat_axis_angle(y, 0.5 * HEFT_PI);
        fs.category_bits = CAT_TRUCK;
        fs.mask_bits = ~CAT_TRUCK;
        if (heft_create_shape(w, s->carriage, &fs).generation == 0) {
            return -1;
        }
    }
    heft_joint_def pd = heft_default_joint_def(HEFT_JOINT_PRISMATIC);
    pd.body_a = s->mast;
    pd.body_b = s->carriage;
    pd.name = "lift";
    heft_joint_def_set_world_frame(w, &pd, carriage_at, z);
    pd.limit[HEFT_DOF_X] = (heft_joint_limit){1, -0.02, 1.6, 0.0, 0.0};
    pd.motor[HEFT_DOF_X] = (heft_joint_motor){HEFT_MOTOR_VELOCITY, 0.0, 0.0, 3.0e4, 0.0, 0.0};
    s->lift = heft_create_joint(w, &pd);
    for (int k = 0; k < 2; ++k) {
        if (!heft_joint_is_valid(w, s->drive[k]) || !heft_joint_is_valid(w, s->steer[k]) ||
            !heft_joint_is_valid(w, s->roll[k])) {
            return -1;
        }
    }
    if (!heft_joint_is_valid(w, s->tilt) || !heft_joint_is_valid(w, s->lift)) {
        return -1;
    }
    /* the crate on a pedestal narrower than the gap between the forks */
    heft_body_def bd = heft_default_body_def();
    bd.type = HEFT_BODY_STATIC;
    bd.name = "pedestal";
    bd.position = heft_v3(3.2, 0.0, 0.075);
    heft_body_id pedestal = heft_create_body(w, &bd);
    heft_shape_def pds = heft_default_shape_def();
    pds.type = HEFT_SHAPE_BOX;
    pds.half_extents = heft_v3(0.3, 0.18, 0.075);
    heft_create_shape(w, pedestal, &pds);
    heft_vec3 crate_half = heft_v3(0.4, 0.5, 0.3);
    heft_shape_def crs = heft_default_shape_def();
    crs.type = HEFT_SHAPE_BOX;
    crs.half_extents = crate_half;
    s->crate = scenario_add_body(w, "crate", heft_v3(3.2, 0.0, 0.451), id, FORK_CRATE_MASS,
                                 heft_inertia_box(FORK_CRATE_MASS, crate_half), &crs);
    /* the traffic cone at the centre of the turn the timeline drives: on the
     * front axle's line, L / tan(steer) to the left, where the axle is when
     * the steering bites (0.25 m after the truck starts forward) */
    bd.name = "cone";
    s->cone_at = heft_v3(FORK_PICK_TRAVEL - FORK_BACK_OFF + 0.5 * FORK_WHEELBASE + 0.25,
                         FORK_WHEELBASE / tan(FORK_TURN_STEER), 0.35);
    bd.position = s->cone_at;
    heft_body_id cone = heft_create_body(w, &bd);
    heft_shape_def cns = heft_default_shape_def();
    cns.type = HEFT_SHAPE_CYLINDER;
    cns.radius = 0.15;
    cns.half_length = 0.35;
    heft_create_shape(w, cone, &cns);
    return s->crate.generation ? 0 : -1;
}

static scenario *forklift_create(heft_world *w, const scenario_params *p) {
    (void)p;
    scenario *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->controls.count = 4;
    s->controls.axis[0] = (scenario_axis){"drive", "m/s", "speed (forward > 0)", -3.0, 3.0, 0.0};
    s->controls.axis[1] =
        (scenario_axis){"steer", "rad", "rear wheels' angle (left turn > 0)", -0.8, 0.8, 0.0};
    s->controls.axis[2] = (scenario_axis){"lift", "m/s", "carriage rate (up > 0)", -0.8, 0.8, 0.0};
    s->controls.axis[3] = (scenario_axis){"tilt", "rad", "mast angle (back > 0)", -0.1, 0.15, 0.0};
    s->turn_start_time = -1.0;
    if (forklift_build(s, w) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Steering by delta turns the truck about a point on the front axle's line,
 * L / tan(delta) to the side. Each rear knuckle turns so its wheel's axis
 * points there (Ackermann: the inner wheel more), and each front wheel's
 * motor runs at that wheel's speed about it (an electronic differential).
 * With both front wheels at one rate and both knuckles at one angle the
 * axle was locked: at mu = 1 its yaw couple beat the rear wheels' side
 * friction and the truck drove straight with the rear wheels sliding
 * sideways at 40 degrees (32 of 360 degrees turned). */
static void forklift_apply(scenario *s, heft_world *w, double h) {
    (void)h;
    double wheel_rate = s->controls.axis[0].value / FORK_WHEEL_RADIUS;
    double steer = s->controls.axis[1].value;
    double spread = FORK_TRACK * tan(steer) / FORK_WHEELBASE; /* T / radius */
    for (int k = 0; k < 2; ++k) {
        double side = k ? -1.0 : 1.0; /* +1: the left wheels, inner in a left turn */
        heft_joint_set_motor_velocity(w, s->drive[k], HEFT_DOF_RX,
                                      wheel_rate * (1.0 - side * spread));
        /* tan(angle) = L / (radius - side T); the wheels point right to turn left */
        double angle = atan(tan(steer) / (1.0 - side * spread));
        heft_joint_set_motor_position(w, s->steer[k], HEFT_DOF_RX, -angle);
    }
    heft_joint_set_motor_velocity(w, s->lift, HEFT_DOF_X, s->controls.axis[2].value);
    /* the tilt hinge's axis is +y: a negative angle tips the mast's top back */
    heft_joint_set_motor_position(w, s->tilt, HEFT_DOF_RX, -s->controls.axis[3].value);
}

/* The timeline (s): 0-1 rest; 1-4 drive 1.1 m forward, forks under the
 * crate; 4.5-7.5 lift 1.05 m; 7.5-8.5 tilt back 4 degrees; 7.5-10.5 back off
 * 3 m (after 1.5 m the rear wheel swinging out in the turn hit the pedestal);
 * from 10.5 speed up to 1.6 m/s and, once rolling (10.6-11.4), steer 0.7 rad
 * left around the cone (steering a standing truck scrubs the tyres, and the
 * pivoting solvers cycled on that). A bump over [t0, t1] travels
 * (t1 - t0) / 2 times its peak. */
static void forklift_control(scenario *s, heft_world *w, int step, double h) {
    double t = step * h;
    double drive = FORK_PICK_TRAVEL / 1.5 * scenario_bump(t, 1.0, 4.0) -
                   FORK_BACK_OFF / 1.5 * scenario_bump(t, 7.5, 10.5) +
                   FORK_TURN_SPEED * scenario_ramp(t, 10.5, 11.5);
    scenario_set_axis(&s->controls, "drive", drive);
    scenario_set_axis(&s->controls, "lift", 1.05 / 1.5 * scenario_bump(t, 4.5, 7.5));
    scenario_set_axis(&s->controls, "tilt", 0.07 * scenario_ramp(t, 7.5, 8.5));
    scenario_set_axis(&s->controls, "steer", FORK_TURN_STEER * scenario_ramp(t, 10.6, 11.4));
    if (t >= 10.5 && s->turn_start_time < 0.0) {
        s->turn_start_time = t;
    }
    forklift_apply(s, w, h);
}

static double heading(heft_world *w, heft_body_id b) {
    heft_quat q = heft_body_orientation(w, b);
    heft_vec3 fwd = heft_quat_rotate(q, heft_v3(1.0, 0.0, 0.0));
    return atan2(fwd.y, fwd.x);
}

/* an angle's change since the last step, in (-pi, pi] */
static double angle_step(double now, double before) {
    double d = now - before;
    return d - 2.0 * HEFT_PI * floor((d + HEFT_PI) / (2.0 * HEFT_PI));
}

static void forklift_observe(scenario *s, heft_world *w, int step, double h) {
    (void)step;
    (void)h;
    double yaw = heading(w, s->chassis);
    heft_vec3 p = heft_body_position(w, s->chassis);
    double bearing = atan2(p.y - s->cone_at.y, p.x - s->cone_at.x);
    if (s->turn_start_time >= 0.0) {
        s->yaw_turned += angle_step(yaw, s->yaw_prev);
        s->bearing_turned += angle_step(bearing, s->bearing_prev);
    }
    s->yaw_prev = yaw;
    s->bearing_prev = bearing;
}

static int forklift_checks(scenario *s, heft_world *w, scenario_check *out, int max) {
    int n = 0;
    heft_vec3 local = heft_body_local_point(w, s->carriage, heft_body_position(w, s->crate));
    /* fork tops at z = -0.15 in the carriage frame; the crate is 0.6 m tall */
    double height = local.z + 0.15 - 0.3;
    double off_x = local.x < 0.05 ? 0.05 - local.x : (local.x > 1.05 ? local.x - 1.05 : 0.0);
    double off_y = fabs(local.y) > 0.36 ? fabs(local.y) - 0.36 : 0.0;
    double off = sqrt(off_x * off_x + off_y * off_y);
    double turned = fabs(s->yaw_turned) * 180.0 / HEFT_PI;
    double orbit = fabs(s->bearing_turned) * 180.0 / HEFT_PI;
    if (n < max) {
        scenario_check_set(&out[n++], "crate_above_forks_m", height, 0.05, fabs(height) < 0.05);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "crate_outside_forks_m", off, 0.0, off <= 0.0);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "turn_deg", turned, 360.0, turned >= 360.0);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "cone_orbit_deg", orbit, 360.0, orbit >= 360.0);
    }
    return n;
}

static scenario_controls *forklift_controls(scenario *s) {
    return &s->controls;
}

static void forklift_destroy(scenario *s) {
    free(s);
}

const scenario_desc scenario_forklift = {
    .name = "forklift",
    .description =
        "a 3,000 kg forklift lifts a 100 kg crate 1 m and turns 360 degrees around a cone",
    .h = 1.0 / 60.0,
    .steps = 1200,
    .create = forklift_create,
    .control = forklift_control,
    .observe = forklift_observe,
    .checks = forklift_checks,
    .destroy = forklift_destroy,
    .configure = scenario_configure_heavy,
    .controls = forklift_controls,
    .apply = forklift_apply,
    .bounds_lo = {-15.0, -15.0, -0.5},
    .bounds_hi = {15.0, 15.0, 6.0},
};
