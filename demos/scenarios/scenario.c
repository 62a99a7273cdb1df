#include "scenario.h"

#include <stdio.h>
#include <string.h>

static const scenario_desc *const all[] = {
    &scenario_pendulum,
    &scenario_hanging_chain,
    &scenario_box_on_ground,
};

int scenario_count(void) { return (int)(sizeof all / sizeof all[0]); }

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
