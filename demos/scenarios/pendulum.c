/* pendulum: a 1 kg sphere of radius 0.1 m on a rigid ball joint 1 m below a fixed
 * point, released 5 degrees from vertical. Works when its period is within 2%
 * of the small-angle period 2 pi sqrt(L / g). */
#include <stdlib.h>

#include "scenario.h"

struct scenario {
    heft_body_id bob;
    heft_joint_id joint;
    double length;
    double last_x, t;
    double first_crossing, last_crossing;
    int crossings;
    double max_gap;
};

static scenario *pendulum_create(heft_world *w, const scenario_params *p) {
    scenario *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->length = p->length > 0.0 ? p->length : 1.0;
    double angle = (p->angle_set || p->angle_deg != 0.0 ? p->angle_deg : 5.0) * HEFT_PI / 180.0;
    heft_vec3 pivot = heft_v3(0.0, 0.0, 2.0);
    heft_body_def bd = heft_default_body_def();
    bd.name = "bob";
    bd.mass = 1.0;
    bd.inertia = heft_inertia_sphere(1.0, 0.1);
    bd.position = heft_v3(s->length * sin(angle), 0.0, pivot.z - s->length * cos(angle));
    s->bob = heft_create_body(w, &bd);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_b = s->bob;
    jd.name = "pivot";
    heft_joint_def_set_world_frame(w, &jd, pivot, heft_v3(0.0, 0.0, 1.0));
    s->joint = heft_create_joint(w, &jd);
    if (!heft_joint_is_valid(w, s->joint)) {
        free(s);
        return NULL;
    }
    s->last_x = bd.position.x;
    s->first_crossing = -1.0;
    return s;
}

static void pendulum_observe(scenario *s, heft_world *w, int step, double h) {
    (void)step;
    double x = heft_body_position(w, s->bob).x;
    double t = s->t + h;
    if ((s->last_x > 0.0) != (x > 0.0)) {
        double tc = s->t + h * s->last_x / (s->last_x - x); /* linear interpolation */
        if (s->crossings == 0) {
            s->first_crossing = tc;
        }
        s->last_crossing = tc;
        s->crossings++;
    }
    double gap = heft_joint_gap(w, s->joint);
    s->max_gap = gap > s->max_gap ? gap : s->max_gap;
    s->last_x = x;
    s->t = t;
}

static int pendulum_checks(scenario *s, heft_world *w, scenario_check *out, int max) {
    double g = fabs(heft_world_gravity(w).z);
    double expected = 2.0 * HEFT_PI * sqrt(s->length / g);
    double period =
        s->crossings >= 3 ? 2.0 * (s->last_crossing - s->first_crossing) / (s->crossings - 1) : 0.0;
    double err = period > 0.0 ? fabs(period - expected) / expected : 1.0;
    int n = 0;
    if (n < max) {
        scenario_check_set(&out[n++], "period_relative_error", err, 0.02, err < 0.02);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "joint_gap_max_m", s->max_gap, 1e-3, s->max_gap < 1e-3);
    }
    return n;
}

double pendulum_period(const scenario *s);
double pendulum_period(const scenario *s) {
    return s->crossings >= 3 ? 2.0 * (s->last_crossing - s->first_crossing) / (s->crossings - 1)
                             : 0.0;
}

static void pendulum_destroy(scenario *s) {
    free(s);
}

const scenario_desc scenario_pendulum = {
    .name = "pendulum",
    .description = "a 1 kg bob on a 1 m rigid ball joint, released 5 degrees from vertical",
    .h = 1.0 / 60.0,
    .steps = 1200,
    .create = pendulum_create,
    .observe = pendulum_observe,
    .checks = pendulum_checks,
    .destroy = pendulum_destroy,
    .reads = SCENARIO_READS_ANGLE | SCENARIO_READS_LENGTH,
};
