/* Joints: creation with validation, dispatch to the joint types' row
 * fillers, and readback of gaps and reactions. */
#include <string.h>

#include "error.h"
#include "world.h"

heft_joint_def heft_default_joint_def(heft_joint_type type) {
    heft_joint_def d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.body_a = HEFT_WORLD_FRAME;
    d.body_b.index = -1;
    d.local_axis_a = heft_v3(0.0, 0.0, 1.0);
    d.local_axis_b = heft_v3(0.0, 0.0, 1.0);
    return d;
}

/* body index for a joint end: -1 for the world frame, -2 for an invalid id */
static int32_t joint_end(const heft_world *w, heft_body_id id, int allow_world) {
    if (allow_world && id.index == -1 && id.generation == 0) {
        return -1;
    }
    return world_body(w, id) ? id.index : -2;
}

static const body *end_body(const heft_world *w, int32_t index) {
    return index >= 0 ? &w->bodies[index] : NULL;
}

static heft_vec3 to_local_point(const body *b, heft_vec3 p) {
    return b ? heft_quat_rotate_inv(b->orientation, heft_v3_sub(p, b->position)) : p;
}

static heft_vec3 to_local_dir(const body *b, heft_vec3 d) {
    return b ? heft_quat_rotate_inv(b->orientation, d) : d;
}

heft_result heft_joint_def_set_world_frame(const heft_world *w, heft_joint_def *def,
                                           heft_vec3 anchor, heft_vec3 axis) {
    if (!w || !def) {
        heft_set_error("heft_joint_def_set_world_frame: world and def must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    int32_t a = joint_end(w, def->body_a, 1), b = joint_end(w, def->body_b, 0);
    if (a == -2 || b == -2) {
        heft_set_error("joint body id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    if (!heft_v3_isfinite(anchor) || !heft_v3_isfinite(axis) || !(heft_v3_length(axis) > 0.0)) {
        heft_set_error("joint anchor and axis must be finite and the axis non-zero");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    heft_vec3 u = heft_v3_normalize(axis);
    def->local_anchor_a = to_local_point(end_body(w, a), anchor);
    def->local_anchor_b = to_local_point(end_body(w, b), anchor);
    def->local_axis_a = to_local_dir(end_body(w, a), u);
    def->local_axis_b = to_local_dir(end_body(w, b), u);
    return HEFT_OK;
}

static int check_joint_def(const heft_world *w, const heft_joint_def *d, int32_t *a, int32_t *b) {
    if (d->type != HEFT_JOINT_BALL && d->type != HEFT_JOINT_HINGE && d->type != HEFT_JOINT_FIXED) {
        heft_set_error("unknown joint type %d", (int)d->type);
        return 0;
    }
    *a = joint_end(w, d->body_a, 1);
    *b = joint_end(w, d->body_b, 0);
    if (*a == -2 || *b == -2) {
        heft_set_error("joint body id is not valid");
        return 0;
    }
    if (*a == *b) {
        heft_set_error("a joint cannot join a body to itself");
        return 0;
    }
    const body *ba = end_body(w, *a), *bb = end_body(w, *b);
    if (!(ba && body_is_dynamic(ba)) && !body_is_dynamic(bb)) {
        heft_set_error("a joint needs at least one dynamic body");
        return 0;
    }
    if (!heft_v3_isfinite(d->local_anchor_a) || !heft_v3_isfinite(d->local_anchor_b)) {
        heft_set_error("joint anchors must be finite");
        return 0;
    }
    if (d->type == HEFT_JOINT_HINGE &&
        (!heft_v3_isfinite(d->local_axis_a) || !heft_v3_isfinite(d->local_axis_b) ||
         !(heft_v3_length(d->local_axis_a) > 1e-12) || !(heft_v3_length(d->local_axis_b) > 1e-12))) {
        heft_set_error("hinge axes must be finite and non-zero");
        return 0;
    }
    if (!isfinite(d->stiffness) || d->stiffness < 0.0 || !isfinite(d->damping) ||
        d->damping < 0.0) {
        heft_set_error("joint stiffness and damping must be finite and non-negative");
        return 0;
    }
    return 1;
}

heft_joint_id heft_create_joint(heft_world *w, const heft_joint_def *def) {
    heft_joint_id invalid = {-1, 0};
    int32_t a, b;
    if (!w || !def) {
        heft_set_error("heft_create_joint: world and def must not be NULL");
        return invalid;
    }
    if (!check_joint_def(w, def, &a, &b)) {
        return invalid;
    }
    int index = slots_acquire((void **)&w->joints, &w->joint_capacity, &w->joint_high,
                              &w->joint_free, sizeof(joint));
    if (index < 0) {
        heft_set_error("out of memory");
        return invalid;
    }
    joint *j = &w->joints[index];
    j->type = def->type;
    j->body_a = a;
    j->body_b = b;
    j->local_anchor_a = def->local_anchor_a;
    j->local_anchor_b = def->local_anchor_b;
    j->local_axis_a = heft_v3_normalize(def->local_axis_a);
    j->local_axis_b = heft_v3_normalize(def->local_axis_b);
    const body *ba = end_body(w, a), *bb = end_body(w, b);
    heft_quat qa = ba ? ba->orientation : heft_quat_identity();
    j->relative_rotation = heft_quat_mul(heft_quat_conj(qa), bb->orientation);
    j->stiffness = def->stiffness;
    j->damping = def->damping;
    j->user_data = def->user_data;
    if (def->name) {
        strncpy(j->name, def->name, HEFT_NAME_MAX - 1);
    }
    w->joint_live++;
    heft_joint_id id = {index, j->slot.generation};
    return id;
}

heft_result heft_destroy_joint(heft_world *w, heft_joint_id id) {
    joint *j = world_joint(w, id);
    if (!j) {
        heft_set_error("joint id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    slots_release(w->joints, sizeof(joint), id.index, &w->joint_free);
    w->joint_live--;
    return HEFT_OK;
}

int heft_joint_is_valid(const heft_world *w, heft_joint_id id) { return world_joint(w, id) != NULL; }

const char *heft_joint_name(const heft_world *w, heft_joint_id id) {
    const joint *j = world_joint(w, id);
    return j ? j->name : "";
}

heft_joint_type heft_joint_get_type(const heft_world *w, heft_joint_id id) {
    const joint *j = world_joint(w, id);
    return j ? j->type : HEFT_JOINT_BALL;
}

void joint_frame_compute(const joint *j, const body *bodies, joint_frame *f) {
    static const body world_frame = {.orientation = {1.0, 0.0, 0.0, 0.0}, .type = HEFT_BODY_STATIC};
    f->a = j->body_a >= 0 ? &bodies[j->body_a] : &world_frame;
    f->b = &bodies[j->body_b];
    f->ra = heft_quat_rotate(f->a->orientation, j->local_anchor_a);
    f->rb = heft_quat_rotate(f->b->orientation, j->local_anchor_b);
    f->anchor_a = heft_v3_add(f->a->position, f->ra);
    f->anchor_b = heft_v3_add(f->b->position, f->rb);
}

int joint_row_count(const joint *j) {
    switch (j->type) {
    case HEFT_JOINT_BALL:
        return ball_joint_row_count(j);
    case HEFT_JOINT_HINGE:
        return hinge_joint_row_count(j);
    case HEFT_JOINT_FIXED:
        return fixed_joint_row_count(j);
    }
    return 0;
}

void joint_fill_rows(const joint *j, const body *bodies, const row_context *ctx, row *out) {
    joint_frame f;
    joint_frame_compute(j, bodies, &f);
    switch (j->type) {
    case HEFT_JOINT_BALL:
        ball_joint_fill_rows(j, &f, ctx, out);
        break;
    case HEFT_JOINT_HINGE:
        hinge_joint_fill_rows(j, &f, ctx, out);
        break;
    case HEFT_JOINT_FIXED:
        fixed_joint_fill_rows(j, &f, ctx, out);
        break;
    }
}

int joint_write_rows(joint *j, const body *bodies, const row_context *ctx, int first, int block,
                     row *out) {
    int m = joint_row_count(j);
    memset(out, 0, sizeof(row) * (size_t)m);
    joint_fill_rows(j, bodies, ctx, out);
    int warm = (j->row_count == m);
    for (int k = 0; k < m; ++k) {
        row *x = &out[k];
        x->a = j->body_a;
        x->b = j->body_b;
        x->block = block;
        x->findex = x->kind == HEFT_ROW_FRICTION ? x->findex + first : -1;
        x->lambda0 = warm ? j->lambda[k] : 0.0;
        x->lambda_out = &j->lambda[k];
    }
    if (!warm) {
        memset(j->lambda, 0, sizeof j->lambda);
    }
    j->row_count = m;
    memcpy(j->rows_last, out, sizeof(row) * (size_t)m);
    j->h_last = ctx->h;
    return m;
}

double heft_joint_gap(const heft_world *w, heft_joint_id id) {
    const joint *j = world_joint(w, id);
    if (!j) {
        return 0.0;
    }
    joint_frame f;
    joint_frame_compute(j, w->bodies, &f);
    return heft_v3_length(heft_v3_sub(f.anchor_b, f.anchor_a));
}

int heft_joint_row_count(const heft_world *w, heft_joint_id id) {
    const joint *j = world_joint(w, id);
    return j ? j->row_count : 0;
}

double heft_joint_row_impulse(const heft_world *w, heft_joint_id id, int i) {
    const joint *j = world_joint(w, id);
    return (j && i >= 0 && i < j->row_count) ? j->lambda[i] : 0.0;
}

heft_result heft_joint_reaction(const heft_world *w, heft_joint_id id, heft_vec3 *force,
                                heft_vec3 *torque) {
    const joint *j = world_joint(w, id);
    if (!j) {
        heft_set_error("joint id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    /* J_b^T lambda is the impulse on body b: linear part the force, angular
     * part the torque about b's centre of mass; moved to the anchor. */
    heft_vec3 f = heft_v3(0.0, 0.0, 0.0), t = heft_v3(0.0, 0.0, 0.0);
    for (int i = 0; i < j->row_count; ++i) {
        const double *jb = j->rows_last[i].jb;
        f = heft_v3_madd(f, j->lambda[i], heft_v3(jb[0], jb[1], jb[2]));
        t = heft_v3_madd(t, j->lambda[i], heft_v3(jb[3], jb[4], jb[5]));
    }
    double inv_h = j->h_last > 0.0 ? 1.0 / j->h_last : 0.0;
    f = heft_v3_scale(f, inv_h);
    t = heft_v3_scale(t, inv_h);
    const body *b = &w->bodies[j->body_b];
    heft_vec3 rb = heft_quat_rotate(b->orientation, j->local_anchor_b);
    t = heft_v3_sub(t, heft_v3_cross(rb, f)); /* about the anchor instead of the centre of mass */
    if (force) {
        *force = f;
    }
    if (torque) {
        *torque = t;
    }
    return HEFT_OK;
}
