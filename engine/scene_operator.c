/* The operator axes of a scene file: a value in a range, bound to a joint's
 * motor target or length. */
#include "error.h"
#include "world.h"

heft_result heft_scene_operator_apply(heft_world *w, heft_scene_operator *op, double value) {
    if (!w || !op || !isfinite(value)) {
        heft_set_error("heft_scene_operator_apply: world, operator and a finite value needed");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    double v = value < op->min ? op->min : (value > op->max ? op->max : value);
    heft_result r;
    switch (op->target) {
    case HEFT_OPERATOR_MOTOR_VELOCITY:
        r = heft_joint_set_motor_velocity(w, op->joint, op->dof, op->scale * v);
        break;
    case HEFT_OPERATOR_MOTOR_POSITION:
        r = heft_joint_set_motor_position(w, op->joint, op->dof, op->scale * v);
        break;
    case HEFT_OPERATOR_LENGTH:
        r = heft_joint_set_length(w, op->joint, op->scale * v);
        break;
    default:
        heft_set_error("unknown operator target %d", (int)op->target);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (r == HEFT_OK) {
        op->value = v;
    }
    return r;
}
