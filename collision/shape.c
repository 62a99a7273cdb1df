/* Shapes: creation with validation. */
#include <string.h>

#include "error.h"
#include "world.h"

heft_shape_def heft_default_shape_def(void) {
    heft_shape_def d;
    memset(&d, 0, sizeof d);
    d.type = HEFT_SHAPE_SPHERE;
    d.radius = 0.5;
    d.half_extents = heft_v3(0.5, 0.5, 0.5);
    d.normal = heft_v3(0.0, 0.0, 1.0);
    d.local_orientation = heft_quat_identity();
    d.friction = 1.0;
    return d;
}

static int positive(double x) { return isfinite(x) && x > 0.0; }

int shape_check_def(const heft_shape_def *d, const body *owner) {
    if (!heft_v3_isfinite(d->local_position) || !heft_quat_isfinite(d->local_orientation) ||
        !(heft_quat_norm(d->local_orientation) > 1e-9)) {
        heft_set_error("shape pose must be finite with a non-zero quaternion");
        return 0;
    }
    if (!isfinite(d->friction) || d->friction < 0.0) {
        heft_set_error("friction must be finite and non-negative");
        return 0;
    }
    if (!(d->restitution >= 0.0 && d->restitution <= 1.0)) {
        heft_set_error("restitution must lie in [0, 1]");
        return 0;
    }
    switch (d->type) {
    case HEFT_SHAPE_SPHERE:
        if (!positive(d->radius)) {
            heft_set_error("sphere radius must be finite and positive");
            return 0;
        }
        return 1;
    case HEFT_SHAPE_CAPSULE:
        if (!positive(d->radius) || !isfinite(d->half_length) || d->half_length < 0.0) {
            heft_set_error("capsule radius must be positive and half length non-negative");
            return 0;
        }
        return 1;
    case HEFT_SHAPE_BOX:
        if (!positive(d->half_extents.x) || !positive(d->half_extents.y) ||
            !positive(d->half_extents.z)) {
            heft_set_error("box half extents must be finite and positive");
            return 0;
        }
        return 1;
    case HEFT_SHAPE_PLANE:
        if (owner->type != HEFT_BODY_STATIC) {
            heft_set_error("planes can only belong to static bodies");
            return 0;
        }
        if (!heft_v3_isfinite(d->normal) || !(heft_v3_length(d->normal) > 1e-12) ||
            !isfinite(d->offset)) {
            heft_set_error("plane normal must be finite and non-zero, offset finite");
            return 0;
        }
        return 1;
    }
    heft_set_error("unknown shape type %d", (int)d->type);
    return 0;
}

void shape_init(shape *s, int32_t body_index, const heft_shape_def *d) {
    s->body = body_index;
    s->type = d->type;
    s->radius = d->radius;
    s->half_length = d->half_length;
    s->half_extents = d->half_extents;
    s->normal = heft_v3_normalize(d->normal);
    s->offset = d->offset;
    s->local_position = d->local_position;
    s->local_orientation = heft_quat_normalize(d->local_orientation);
    s->friction = d->friction;
    s->restitution = d->restitution;
}

heft_shape_id heft_create_shape(heft_world *w, heft_body_id body_id, const heft_shape_def *def) {
    heft_shape_id invalid = {-1, 0};
    body *b = world_body(w, body_id);
    if (!b || !def) {
        heft_set_error(b ? "shape def must not be NULL" : "shape's body id is not valid");
        return invalid;
    }
    if (!shape_check_def(def, b)) {
        return invalid;
    }
    int index = slots_acquire((void **)&w->shapes, &w->shape_capacity, &w->shape_high,
                              &w->shape_free, sizeof(shape));
    if (index < 0) {
        heft_set_error("out of memory");
        return invalid;
    }
    shape *s = &w->shapes[index];
    shape_init(s, body_id.index, def);
    w->shape_live++;
    heft_shape_id id = {index, s->slot.generation};
    return id;
}

heft_result heft_destroy_shape(heft_world *w, heft_shape_id id) {
    if (!w || !slots_get(w->shapes, sizeof(shape), w->shape_high, id.index, id.generation)) {
        heft_set_error("shape id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    slots_release(w->shapes, sizeof(shape), id.index, &w->shape_free);
    w->shape_live--;
    w->contacts.count = 0; /* the last step's contacts may name it */
    return HEFT_OK;
}
