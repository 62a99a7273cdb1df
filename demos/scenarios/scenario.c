#include "scenario.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const scenario_desc *const all[] = {
    &scenario_pendulum, &scenario_hanging_chain, &scenario_box_on_ground, &scenario_crane,
    &scenario_winch,    &scenario_forklift,      &scenario_chain,         &scenario_stacking,
};

int scenario_count(void) {
    return (int)(sizeof all / sizeof all[0]);
}

const scenario_desc *scenario_at(int index) {
    return (index >= 0 && index < scenario_count()) ? all[index] : NULL;
}

const scenario_desc *scenario_find(const char *name) {
    for (int i = 0; name && i < scenario_count(); ++i) {
        if (strcmp(all[i]->name, name) == 0) {
            return all[i];
        }
    }
    return NULL;
}

void scenario_check_set(scenario_check *c, const char *name, double value, double limit, int pass) {
    snprintf(c->name, sizeof c->name, "%s", name);
    c->value = value;
    c->limit = limit;
    c->pass = pass;
}

heft_body_id scenario_add_ground(heft_world *world) {
    heft_body_def bd = heft_default_body_def();
    bd.type = HEFT_BODY_STATIC;
    bd.name = "ground";
    heft_body_id ground = heft_create_body(world, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_PLANE;
    heft_create_shape(world, ground, &sd);
    return ground;
}

heft_body_id scenario_add_body(heft_world *world, const char *name, heft_vec3 position,
                               heft_quat orientation, double mass, heft_mat3 inertia,
                               const heft_shape_def *shape) {
    heft_body_def bd = heft_default_body_def();
    bd.name = name;
    bd.position = position;
    bd.orientation = orientation;
    bd.mass = mass;
    bd.inertia = inertia;
    heft_body_id b = heft_create_body(world, &bd);
    if (b.generation == 0 || !shape) {
        return b;
    }
    if (heft_create_shape(world, b, shape).generation == 0) {
        heft_destroy_body(world, b);
        return (heft_body_id){-1, 0};
    }
    return b;
}

void scenario_configure_contacts(heft_world_def *def, heft_solver_options *options) {
    (void)def;
    /* The BPP solvers' start from the previous step's index sets matches
     * rows by position; contact points come and go and reorder, and from
     * such a start the pivoting cycled on a stack of seven boxes (1e12 J
     * answers, the stack thrown apart). Without them the BPP solvers read
     * the sets off the warm start, which the engine matches by contact
     * feature (solver/bpp.c, warm_start_sets). */
    options->keep_index_sets = 0;
}

void scenario_configure_heavy(heft_world_def *def, heft_solver_options *options) {
    scenario_configure_contacts(def, options);
    def->geometric_stiffness = 1;
    if (def->post_stabilization < 1) {
        def->post_stabilization = 1;
    }
}

double scenario_ramp(double t, double t0, double t1) {
    if (t <= t0) {
        return 0.0;
    }
    if (t >= t1) {
        return 1.0;
    }
    double u = (t - t0) / (t1 - t0);
    return u * u * (3.0 - 2.0 * u);
}

double scenario_bump(double t, double t0, double t1) {
    if (t <= t0 || t >= t1) {
        return 0.0;
    }
    double sn = sin(HEFT_PI * (t - t0) / (t1 - t0));
    return sn * sn;
}

int scenario_set_axis(scenario_controls *c, const char *name, double value) {
    for (int i = 0; c && name && i < c->count; ++i) {
        if (strcmp(c->axis[i].name, name) == 0) {
            scenario_axis *a = &c->axis[i];
            a->value = value < a->min ? a->min : (value > a->max ? a->max : value);
            return 0;
        }
    }
    return -1;
}

double scenario_axis_value(const scenario_controls *c, const char *name) {
    for (int i = 0; c && name && i < c->count; ++i) {
        if (strcmp(c->axis[i].name, name) == 0) {
            return c->axis[i].value;
        }
    }
    return 0.0;
}
