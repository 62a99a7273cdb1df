/* Definitions read back from the world: what heft_create_body,
 * heft_create_joint and heft_world_create would be given to make the same
 * objects again (the scene files' saver is their first user). */
#include <string.h>

#include "error.h"
#include "world.h"

heft_result heft_body_get_def(const heft_world *w, heft_body_id id, heft_body_def *out) {
    const body *b = w ? world_body(w, id) : NULL;
    if (!b || !out) {
        heft_set_error(b ? "out must not be NULL" : "body id is not valid");
        return b ? HEFT_ERROR_INVALID_ARGUMENT : HEFT_ERROR_INVALID_ID;
    }
    heft_body_def d = heft_default_body_def();
    d.type = b->type;
    d.position = b->position;
    d.orientation = b->orientation;
    d.linear_velocity = b->linear_velocity;
    d.angular_velocity = b->angular_velocity;
    d.mass = b->mass;
    d.inertia = b->inertia;
    d.linear_damping = b->linear_damping;
    d.angular_damping = b->angular_damping;
    d.gravity_scale = b->gravity_scale;
    d.name = b->name;
    d.user_data = b->user_data;
    *out = d;
    return HEFT_OK;
}

static heft_body_id body_id_of(const heft_world *w, int32_t index) {
    if (index < 0) {
        return HEFT_WORLD_FRAME;
    }
    heft_body_id id = {index, w->bodies[index].slot.generation};
    return id;
}

heft_result heft_joint_get_def(const heft_world *w, heft_joint_id id, heft_joint_def *out) {
    const joint *j = w ? world_joint(w, id) : NULL;
    if (!j || !out) {
        heft_set_error(j ? "out must not be NULL" : "joint id is not valid");
        return j ? HEFT_ERROR_INVALID_ARGUMENT : HEFT_ERROR_INVALID_ID;
    }
    heft_joint_def d = heft_default_joint_def(j->type);
    int coupling = j->type == HEFT_JOINT_GEAR || j->type == HEFT_JOINT_RACK;
    if (coupling) {
        d.joint_a = j->coupled[0];
        d.joint_b = j->coupled[1];
        d.body_a = body_id_of(w, j->body_a);
        d.body_b = body_id_of(w, j->body_b);
    } else {
        d.body_a = body_id_of(w, j->body_a);
        d.body_b = body_id_of(w, j->body_b);
        d.local_anchor_a = j->local_anchor_a;
        d.local_anchor_b = j->local_anchor_b;
        d.local_axis_a = j->local_axis_a;
        d.local_axis_b = j->local_axis_b;
    }
    d.stiffness = j->stiffness;
    d.damping = j->damping;
    memcpy(d.dof_stiffness, j->dof_stiffness, sizeof d.dof_stiffness);
    memcpy(d.dof_damping, j->dof_damping, sizeof d.dof_damping);
    memcpy(d.limit, j->limit, sizeof d.limit);
    memcpy(d.motor, j->motor, sizeof d.motor);
    memcpy(d.dof_mode, j->dof_mode, sizeof d.dof_mode);
    d.length = j->length;
    d.ratio = j->ratio;
    d.collide_connected = j->collide_connected;
    d.break_force = j->break_force;
    d.break_torque = j->break_torque;
    d.name = j->name;
    d.user_data = j->user_data;
    *out = d;
    return HEFT_OK;
}

heft_world_def heft_world_get_def(const heft_world *w) {
    return w ? w->def : heft_default_world_def();
}
