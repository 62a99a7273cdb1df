#include "scene_attach.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const scenario_desc *scene_attach_find(const char *name, scenario_params *params, char *variant_buf,
                                       size_t size) {
    char base[64];
    if (!name || !name[0]) {
        return NULL;
    }
    snprintf(base, sizeof base, "%s", name);
    char *colon = strchr(base, ':');
    if (colon) {
        *colon = 0;
        snprintf(variant_buf, size, "%s", colon + 1);
        params->variant = variant_buf;
    }
    return scenario_find(base);
}

void scene_attach_name(const scenario_desc *desc, const scenario_params *params, char *out,
                       size_t size) {
    if (params && params->variant && params->variant[0]) {
        snprintf(out, size, "%s:%s", desc->name, params->variant);
    } else {
        snprintf(out, size, "%s", desc->name);
    }
}

static int same_objects(const heft_world *a, const heft_world *b) {
    int nb = heft_world_bodies(a, NULL, 0), nj = heft_world_joints(a, NULL, 0);
    if (nb != heft_world_bodies(b, NULL, 0) || nj != heft_world_joints(b, NULL, 0)) {
        return 0;
    }
    heft_body_id *ba = calloc((size_t)nb + 1, sizeof *ba), *bb = calloc((size_t)nb + 1, sizeof *bb);
    heft_joint_id *ja = calloc((size_t)nj + 1, sizeof *ja),
                  *jb = calloc((size_t)nj + 1, sizeof *jb);
    int same = ba && bb && ja && jb;
    if (same) {
        heft_world_bodies(a, ba, nb);
        heft_world_bodies(b, bb, nb);
        heft_world_joints(a, ja, nj);
        heft_world_joints(b, jb, nj);
    }
    for (int i = 0; same && i < nb; ++i) {
        same = ba[i].index == bb[i].index && ba[i].generation == bb[i].generation &&
               strcmp(heft_body_name(a, ba[i]), heft_body_name(b, bb[i])) == 0;
    }
    for (int i = 0; same && i < nj; ++i) {
        same = ja[i].index == jb[i].index && ja[i].generation == jb[i].generation &&
               strcmp(heft_joint_name(a, ja[i]), heft_joint_name(b, jb[i])) == 0;
    }
    free(ba);
    free(bb);
    free(ja);
    free(jb);
    return same;
}

scenario *scene_attach(const scenario_desc *desc, const scenario_params *params,
                       const heft_world_def *def, const heft_solver_options *options,
                       const heft_world *world) {
    heft_world *scratch = heft_world_create(def);
    if (!scratch) {
        return NULL;
    }
    heft_world_set_solver_options(scratch, options);
    scenario *s = desc->create(scratch, params);
    if (s && !same_objects(scratch, world)) {
        desc->destroy(s);
        s = NULL;
    }
    /* the scene keeps ids, which name the same objects in world */
    heft_world_destroy(scratch);
    return s;
}

static heft_joint_id joint_named(const heft_world *w, const char *name) {
    int n = heft_world_joints(w, NULL, 0);
    heft_joint_id *ids = calloc((size_t)n + 1, sizeof *ids);
    heft_joint_id found = {-1, 0};
    if (ids) {
        heft_world_joints(w, ids, n);
        for (int i = 0; i < n && found.generation == 0; ++i) {
            if (strcmp(heft_joint_name(w, ids[i]), name) == 0) {
                found = ids[i];
            }
        }
        free(ids);
    }
    return found;
}

/* the C scenes' axes that are one joint's motor target times a factor */
typedef struct axis_binding {
    const char *scene, *axis, *joint;
    heft_joint_dof dof;
    heft_operator_target target;
    double scale;
} axis_binding;

static const axis_binding bindings[] = {
    {"crane", "slew", "slew", HEFT_DOF_RX, HEFT_OPERATOR_MOTOR_VELOCITY, 1.0},
    {"crane", "luff", "luff", HEFT_DOF_RX, HEFT_OPERATOR_MOTOR_VELOCITY, -1.0},
    {"winch", "drum", "drum_hinge", HEFT_DOF_RX, HEFT_OPERATOR_MOTOR_VELOCITY, 1.0},
    {"forklift", "lift", "lift", HEFT_DOF_X, HEFT_OPERATOR_MOTOR_VELOCITY, 1.0},
    {"forklift", "tilt", "tilt", HEFT_DOF_RX, HEFT_OPERATOR_MOTOR_POSITION, -1.0},
};

void scene_attach_operators(const scenario_desc *desc, const heft_world *world,
                            heft_scene_info *info) {
    info->operator_count = 0;
    if (!desc->controls) {
        return;
    }
    /* the axes' names, units and ranges are the scene's; a throwaway scene
     * in a scratch world gives them */
    heft_world *scratch = heft_world_create(NULL);
    scenario_params params;
    memset(&params, 0, sizeof params);
    scenario *s = scratch ? desc->create(scratch, &params) : NULL;
    scenario_controls *c = s ? desc->controls(s) : NULL;
    for (int i = 0; c && i < c->count; ++i) {
        for (size_t k = 0; k < sizeof bindings / sizeof bindings[0]; ++k) {
            const axis_binding *b = &bindings[k];
            heft_joint_id j = joint_named(world, b->joint);
            if (strcmp(b->scene, desc->name) != 0 || strcmp(b->axis, c->axis[i].name) != 0 ||
                j.generation == 0 || info->operator_count >= HEFT_SCENE_MAX_OPERATORS) {
                continue;
            }
            heft_scene_operator *op = &info->operators[info->operator_count++];
            memset(op, 0, sizeof *op);
            snprintf(op->name, sizeof op->name, "%s", c->axis[i].name);
            snprintf(op->unit, sizeof op->unit, "%s", c->axis[i].unit);
            snprintf(op->help, sizeof op->help, "%s", c->axis[i].help);
            op->min = c->axis[i].min;
            op->max = c->axis[i].max;
            op->value = c->axis[i].value;
            op->joint = j;
            op->dof = b->dof;
            op->target = b->target;
            op->scale = b->scale;
        }
    }
    if (s) {
        desc->destroy(s);
    }
    heft_world_destroy(scratch);
}

static int file_checks(scenario *s, heft_world *w, scenario_check *out, int max) {
    (void)s;
    (void)w;
    (void)out;
    (void)max;
    return 0;
}

static void file_destroy(scenario *s) {
    (void)s;
}

const scenario_desc scenario_file = {
    .name = "file",
    .description = "a scene file with no C scene attached",
    .h = 1.0 / 60.0,
    .steps = 600,
    .checks = file_checks,
    .destroy = file_destroy,
};
