/* hanging-chain: links of 1 kg (capsules 0.5 m long) joined by rigid ball
 * joints, hanging from a fixed point and carrying a load (default 2,000 kg),
 * released 30 degrees from vertical. The scene of the heavy-load issue: at
 * h = 1/60 s the tension in the light links defeats every engine measured. */
#include <stdio.h>
#include <stdlib.h>

#include "scenario.h"

struct scenario {
    int links;
    double link_length;
    heft_vec3 pivot;
    heft_body_id load;
    heft_joint_id *joints;
    int joint_count;
    double max_gap;
    double max_stretch;
};

/* What the chain holds at its peak, reserved ahead so that its steps do not
 * allocate when links first strike each other (at 333 s of a ten-minute run
 * under pgs the island first reached 69 rows, two contact points, and the
 * contact arrays, the rescue's scratch and pgs's workspace grew then). A
 * contact point a body is reserved (two measured on 21 bodies), and a pair
 * for each shape with eight others (the links near it along the chain and
 * those it swings into); the island's rows are three a ball joint and three
 * a contact point. A chain of more than CHAIN_RESERVED_LINKS links is left
 * to grow instead: its reservation would run to hundreds of megabytes. */
#define CHAIN_RESERVED_LINKS 1000

static heft_result chain_reserve(heft_world *w, int links) {
    heft_world_capacity c = {0};
    const int bodies = links + 1;
    c.bodies = bodies;
    c.shapes = bodies;
    c.joints = bodies;
    c.contacts = bodies;
    c.pairs = bodies < 17 ? bodies * (bodies - 1) / 2 : 8 * bodies;
    c.rows = 3 * c.joints + 3 * c.contacts;
    return heft_world_reserve(w, &c);
}

static scenario *chain_create(heft_world *w, const scenario_params *p) {
    int links = p->links > 0 ? p->links : 20;
    double link_mass = p->link_mass > 0.0 ? p->link_mass : 1.0;
    double load_mass = p->load_mass > 0.0 ? p->load_mass : 2000.0;
    double angle = (p->angle_set || p->angle_deg != 0.0 ? p->angle_deg : 30.0) * HEFT_PI / 180.0;
    double L = p->length > 0.0 ? p->length : 0.5;
    double radius = 0.05, load_radius = 0.25;
    if (links > SCENARIO_MAX_BODIES - 1) {
        return NULL; /* scenario_check_params says why */
    }
    if (!p->no_reserve && links <= CHAIN_RESERVED_LINKS && chain_reserve(w, links) != HEFT_OK) {
        return NULL;
    }
    scenario *s = calloc(1, sizeof *s);
    if (!s || !(s->joints = calloc((size_t)links + 1, sizeof *s->joints))) {
        free(s);
        return NULL;
    }
    s->links = links;
    s->link_length = L;
    s->pivot = heft_v3(0.0, 0.0, links * L + 2.0 * load_radius + 1.0);
    heft_vec3 d = heft_v3(sin(angle), 0.0, -cos(angle)); /* down the chain */
    /* rotation taking the body z axis to -d, so capsules lie along the chain */
    heft_quat q = heft_quat_axis_angle(heft_v3(0.0, 1.0, 0.0), -angle);

    heft_body_id prev = HEFT_WORLD_FRAME;
    char name[48];
    for (int i = 0; i <= links; ++i) {
        int is_load = (i == links);
        heft_body_def bd = heft_default_body_def();
        snprintf(name, sizeof name, is_load ? "load" : "link%d", i);
        bd.name = name;
        bd.orientation = q;
        if (is_load) {
            bd.mass = load_mass;
            bd.inertia = heft_inertia_sphere(load_mass, load_radius);
            bd.position = heft_v3_madd(s->pivot, links * L + load_radius, d);
        } else {
            bd.mass = link_mass;
            bd.inertia = heft_inertia_capsule(link_mass, radius, 0.5 * L - radius);
            bd.position = heft_v3_madd(s->pivot, (i + 0.5) * L, d);
        }
        heft_body_id b = heft_create_body(w, &bd);
        heft_shape_def sd = heft_default_shape_def();
        if (is_load) {
            sd.radius = load_radius;
        } else {
            sd.type = HEFT_SHAPE_CAPSULE;
            sd.radius = radius;
            sd.half_length = 0.5 * L - radius;
        }
        heft_create_shape(w, b, &sd);
        heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
        jd.body_a = prev;
        jd.body_b = b;
        snprintf(name, sizeof name, "joint%d", i);
        jd.name = name;
        heft_joint_def_set_world_frame(w, &jd, heft_v3_madd(s->pivot, i * L, d), heft_v3(0, 0, 1));
        s->joints[i] = heft_create_joint(w, &jd);
        if (!heft_joint_is_valid(w, s->joints[i])) {
            free(s->joints);
            free(s);
            return NULL;
        }
        prev = b;
        if (is_load) {
            s->load = b;
        }
    }
    s->joint_count = links + 1;
    return s;
}

static void chain_observe(scenario *s, heft_world *w, int step, double h) {
    (void)step;
    (void)h;
    for (int i = 0; i < s->joint_count; ++i) {
        double gap = heft_joint_gap(w, s->joints[i]);
        s->max_gap = gap > s->max_gap ? gap : s->max_gap;
    }
    /* stretch: how far the load's attachment is from the pivot beyond the chain length */
    heft_vec3 attach = heft_v3_sub(heft_body_position(w, s->load), s->pivot);
    double along = heft_v3_length(attach) - 0.25 - s->links * s->link_length;
    s->max_stretch = along > s->max_stretch ? along : s->max_stretch;
}

static int chain_checks(scenario *s, heft_world *w, scenario_check *out, int max) {
    (void)w;
    int n = 0;
    if (n < max) {
        scenario_check_set(&out[n++], "joint_gap_max_m", s->max_gap, 5e-3, s->max_gap < 5e-3);
    }
    if (n < max) {
        double limit = 0.01 * s->links * s->link_length;
        scenario_check_set(&out[n++], "chain_stretch_max_m", s->max_stretch, limit,
                           s->max_stretch < limit);
    }
    return n;
}

static void chain_destroy(scenario *s) {
    if (s) {
        free(s->joints);
        free(s);
    }
}

const scenario_desc scenario_hanging_chain = {
    .name = "hanging-chain",
    .description = "20 links of 1 kg on ball joints carrying a 2,000 kg load, released 30 degrees "
                   "from vertical",
    .h = 1.0 / 60.0,
    .steps = 600,
    .create = chain_create,
    .observe = chain_observe,
    .checks = chain_checks,
    .destroy = chain_destroy,
    .reads = SCENARIO_READS_LINKS | SCENARIO_READS_LINK_MASS | SCENARIO_READS_LOAD_MASS |
             SCENARIO_READS_ANGLE | SCENARIO_READS_LENGTH,
};
