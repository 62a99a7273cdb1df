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

/* The parameters as heft-run's options name them, in SCENARIO_READS_ order. */
static const char *const param_options[] = {"--links",  "--link-mass", "--load-mass", "--angle",
                                            "--length", "--variant",   "--size"};
#define PARAM_COUNT ((int)(sizeof param_options / sizeof param_options[0]))

static unsigned params_given(const scenario_params *p) {
    return (p->links != 0 ? SCENARIO_READS_LINKS : 0u) |
           (p->link_mass != 0.0 ? SCENARIO_READS_LINK_MASS : 0u) |
           (p->load_mass != 0.0 ? SCENARIO_READS_LOAD_MASS : 0u) |
           (p->angle_set || p->angle_deg != 0.0 ? SCENARIO_READS_ANGLE : 0u) |
           (p->length != 0.0 ? SCENARIO_READS_LENGTH : 0u) |
           (p->variant != NULL ? SCENARIO_READS_VARIANT : 0u) |
           (p->size != 0 ? SCENARIO_READS_SIZE : 0u);
}

/* "a, b, c" of the names, or "none" */
static void list_names(char *out, size_t size, const char *const *names, int count) {
    int used = snprintf(out, size, "%s", count > 0 ? "" : "none");
    for (int k = 0; k < count && used >= 0 && (size_t)used < size; ++k) {
        used += snprintf(out + used, size - (size_t)used, "%s%s", k ? ", " : "", names[k]);
    }
}

const char *scenario_variant(const scenario_desc *d, const scenario_params *p) {
    if (!d || !d->variants) {
        return NULL;
    }
    if (!p || !p->variant) {
        return d->variants[0];
    }
    for (int k = 0; d->variants[k]; ++k) {
        if (strcmp(d->variants[k], p->variant) == 0) {
            return d->variants[k];
        }
    }
    return NULL;
}

int scenario_check_params(const scenario_desc *d, const scenario_params *p, char *err,
                          size_t err_size) {
    unsigned extra = params_given(p) & ~d->reads;
    char names[256];
    if (extra) {
        const char *taken[PARAM_COUNT];
        int count = 0, first = -1;
        for (int k = 0; k < PARAM_COUNT; ++k) {
            if (d->reads & (1u << k)) {
                taken[count++] = param_options[k];
            }
            if (first < 0 && (extra & (1u << k))) {
                first = k;
            }
        }
        list_names(names, sizeof names, taken, count);
        snprintf(
            err, err_size, "%s: the scene %s has %s (it takes %s)", param_options[first], d->name,
            (1u << first) == SCENARIO_READS_VARIANT ? "no variants" : "no such parameter", names);
        return -1;
    }
    if (p->variant && !scenario_variant(d, p)) {
        int count = 0;
        while (d->variants && d->variants[count]) {
            ++count;
        }
        list_names(names, sizeof names, d->variants, count);
        snprintf(err, err_size, "--variant: unknown variant \"%s\" of %s (one of %s)", p->variant,
                 d->name, names);
        return -1;
    }
    if (p->links < 0 || p->links > SCENARIO_MAX_BODIES - 1) {
        snprintf(err, err_size,
                 "--links: %d links, a scene takes 1 to %d (at most %d bodies with the load)",
                 p->links, SCENARIO_MAX_BODIES - 1, SCENARIO_MAX_BODIES);
        return -1;
    }
    const double given[] = {p->link_mass, p->load_mass, p->length};
    static const char *const given_options[] = {"--link-mass", "--load-mass", "--length"};
    for (int k = 0; k < 3; ++k) {
        if (!(given[k] == 0.0 || (given[k] > 0.0 && isfinite(given[k])))) {
            snprintf(err, err_size, "%s: %g, it must be a positive number", given_options[k],
                     given[k]);
            return -1;
        }
    }
    if (!isfinite(p->angle_deg)) {
        snprintf(err, err_size, "--angle: %g, it must be a finite number", p->angle_deg);
        return -1;
    }
    if (p->size < 0) {
        snprintf(err, err_size, "--size: %d, a size is at least 1", p->size);
        return -1;
    }
    return d->check_params ? d->check_params(p, err, err_size) : 0;
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
