/* box-on-ground: a 1 kg box (0.5 m cube) set down on the ground plane. Works
 * when it rests: penetration under 1 mm and horizontal drift under 1 mm. */
#include <stdlib.h>

#include "scenario.h"

struct scenario {
    heft_body_id box;
    heft_vec3 start;
    double max_penetration;
    double max_drift;
};

static scenario *box_create(heft_world *w, const scenario_params *p) {
    (void)p;
    scenario *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    scenario_add_ground(w);
    heft_vec3 he = heft_v3(0.25, 0.25, 0.25);
    heft_body_def bd = heft_default_body_def();
    bd.name = "box";
    bd.mass = 1.0;
    bd.inertia = heft_inertia_box(1.0, he);
    bd.position = heft_v3(0.0, 0.0, he.z);
    s->box = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = he;
    if (heft_create_shape(w, s->box, &sd).index < 0) {
        free(s);
        return NULL;
    }
    s->start = bd.position;
    return s;
}

static void box_observe(scenario *s, heft_world *w, int step, double h) {
    (void)step;
    (void)h;
    for (int i = 0; i < heft_world_contact_count(w); ++i) {
        heft_contact_info c;
        heft_world_contact(w, i, &c);
        s->max_penetration =
            -c.separation > s->max_penetration ? -c.separation : s->max_penetration;
    }
    heft_vec3 d = heft_v3_sub(heft_body_position(w, s->box), s->start);
    double drift = sqrt(d.x * d.x + d.y * d.y);
    s->max_drift = drift > s->max_drift ? drift : s->max_drift;
}

static int box_checks(scenario *s, heft_world *w, scenario_check *out, int max) {
    (void)w;
    int n = 0;
    if (n < max) {
        scenario_check_set(&out[n++], "penetration_max_m", s->max_penetration, 1e-3,
                           s->max_penetration < 1e-3);
    }
    if (n < max) {
        scenario_check_set(&out[n++], "drift_max_m", s->max_drift, 1e-3, s->max_drift < 1e-3);
    }
    return n;
}

static void box_destroy(scenario *s) {
    free(s);
}

const scenario_desc scenario_box_on_ground = {
    .name = "box-on-ground",
    .description = "a 1 kg box resting on the ground plane",
    .h = 1.0 / 60.0,
    .steps = 600,
    .create = box_create,
    .observe = box_observe,
    .checks = box_checks,
    .destroy = box_destroy,
};
