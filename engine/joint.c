/* The world's joints: definitions and their checks, creation and
 * destruction, the setters operators call between steps. The rows are
 * filled by joints/ (joint_rows.c and the joint types' files); readback is in
 * joint_readback.c. */
#include <string.h>

#include "error.h"
#include "body_links.h"
#include "input_check.h"
#include "island.h"
#include "sleep.h"
#include "world.h"

heft_joint_def heft_default_joint_def(heft_joint_type type) {
    heft_joint_def d;
    memset(&d, 0, sizeof d);
    d.type = type;
    d.body_a = HEFT_WORLD_FRAME;
    d.body_b.index = -1;
    d.local_axis_a = heft_v3(0.0, 0.0, 1.0);
    d.local_axis_b = heft_v3(0.0, 0.0, 1.0);
    for (int k = 0; k < 6; ++k) {
        d.motor[k].max_force = INFINITY;
        d.dof_mode[k] = HEFT_DOF_LOCKED;
    }
    d.ratio = 1.0;
    d.break_force = INFINITY;
    d.break_torque = INFINITY;
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

static int usable_axis(heft_vec3 axis) {
    /* a length that overflows would normalise the axis to zero */
    double length = heft_v3_length(axis);
    return heft_v3_isfinite(axis) && length > 1e-12 && isfinite(length);
}

heft_result heft_joint_def_set_world_axes(const heft_world *w, heft_joint_def *def,
                                          heft_vec3 anchor, heft_vec3 axis_a, heft_vec3 axis_b) {
    if (!w || !def) {
        heft_set_error("heft_joint_def_set_world_frame: world and def must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    int32_t a = joint_end(w, def->body_a, 1), b = joint_end(w, def->body_b, 0);
    if (a == -2 || b == -2) {
        heft_set_error("joint body id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    if (!check_vec_range(anchor, HEFT_POSITION_MAX, "joint anchor", "HEFT_POSITION_MAX")) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!usable_axis(axis_a) || !usable_axis(axis_b)) {
        heft_set_error("joint anchor and axes must be finite and the axes non-zero");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    def->local_anchor_a = to_local_point(end_body(w, a), anchor);
    def->local_anchor_b = to_local_point(end_body(w, b), anchor);
    def->local_axis_a = to_local_dir(end_body(w, a), heft_v3_normalize(axis_a));
    def->local_axis_b = to_local_dir(end_body(w, b), heft_v3_normalize(axis_b));
    return HEFT_OK;
}

heft_result heft_joint_def_set_world_frame(const heft_world *w, heft_joint_def *def,
                                           heft_vec3 anchor, heft_vec3 axis) {
    heft_vec3 axis_b = axis;
    if (def && def->type == HEFT_JOINT_UNIVERSAL && usable_axis(axis)) {
        heft_vec3 t2;
        heft_v3_basis(heft_v3_normalize(axis), &axis_b, &t2);
    }
    return heft_joint_def_set_world_axes(w, def, anchor, axis, axis_b);
}

/* ---- checks ----------------------------------------------------------------- */

#define DOF_BIT(d) (1u << (d))

/* the coordinates each type takes limits (motors) on */
static unsigned limit_dofs(const heft_joint_def *d) {
    switch (d->type) {
    case HEFT_JOINT_BALL:
        return DOF_BIT(HEFT_DOF_RX) | DOF_BIT(HEFT_DOF_SWING);
    case HEFT_JOINT_HINGE:
        return DOF_BIT(HEFT_DOF_RX);
    case HEFT_JOINT_PRISMATIC:
        return DOF_BIT(HEFT_DOF_X);
    case HEFT_JOINT_CYLINDRICAL:
        return DOF_BIT(HEFT_DOF_X) | DOF_BIT(HEFT_DOF_RX);
    case HEFT_JOINT_SIX_DOF: {
        unsigned m = 0;
        for (int k = 0; k < 6; ++k) {
            m |= d->dof_mode[k] != HEFT_DOF_LOCKED ? DOF_BIT(k) : 0u;
        }
        return m;
    }
    default:
        return 0;
    }
}

static unsigned motor_dofs(const heft_joint_def *d) {
    return limit_dofs(d) & ~DOF_BIT(HEFT_DOF_SWING) &
           ~(d->type == HEFT_JOINT_BALL ? DOF_BIT(HEFT_DOF_RX) : 0u);
}

static const char *dof_name(int dof) {
    static const char *names[HEFT_JOINT_DOF_COUNT] = {"X", "Y", "Z", "RX", "RY", "RZ", "SWING"};
    return dof >= 0 && dof < HEFT_JOINT_DOF_COUNT ? names[dof] : "?";
}

static int finite_nonnegative(double x) {
    return isfinite(x) && x >= 0.0;
}

static int check_limit(int dof, const heft_joint_limit *l, int used) {
    if (!used) {
        return 1;
    }
    if (isnan(l->lower) || isnan(l->upper) || !(l->lower <= l->upper)) {
        heft_set_error("limit on %s: lower (%g) must not exceed upper (%g), and neither be NaN",
                       dof_name(dof), l->lower, l->upper);
        return 0;
    }
    if (dof == HEFT_DOF_SWING && !(l->upper > 0.0 && l->upper <= HEFT_PI)) {
        heft_set_error("a cone limit's half-angle (upper) must lie in (0, pi], got %g", l->upper);
        return 0;
    }
    if (!finite_nonnegative(l->stiffness) || !finite_nonnegative(l->damping)) {
        heft_set_error("limit on %s: stiffness and damping must be finite and non-negative",
                       dof_name(dof));
        return 0;
    }
    return 1;
}

static int check_motor(int dof, const heft_joint_motor *m) {
    if (m->mode != HEFT_MOTOR_OFF && m->mode != HEFT_MOTOR_VELOCITY &&
        m->mode != HEFT_MOTOR_POSITION) {
        heft_set_error("motor on %s: unknown mode %d", dof_name(dof), (int)m->mode);
        return 0;
    }
    if (m->mode == HEFT_MOTOR_OFF) {
        return 1;
    }
    if (!isfinite(m->target_velocity) || !isfinite(m->target_position) || isnan(m->max_force) ||
        m->max_force < 0.0 || !finite_nonnegative(m->stiffness) ||
        !finite_nonnegative(m->damping)) {
        heft_set_error("motor on %s: targets and gains must be finite, gains and max_force "
                       "non-negative",
                       dof_name(dof));
        return 0;
    }
    /* an unbounded motor driving to a target beyond these overflows its body */
    if (fabs(m->target_velocity) > HEFT_SPEED_MAX || fabs(m->target_position) > HEFT_POSITION_MAX) {
        heft_set_error("motor on %s: target velocity %g beyond HEFT_SPEED_MAX (%g) or target "
                       "position %g beyond HEFT_POSITION_MAX (%g)",
                       dof_name(dof), m->target_velocity, HEFT_SPEED_MAX, m->target_position,
                       HEFT_POSITION_MAX);
        return 0;
    }
    return 1;
}

/* the limits and motors of def against its type */
static int check_limits_and_motors(const heft_joint_def *d) {
    unsigned lim = limit_dofs(d), mot = motor_dofs(d);
    for (int k = 0; k < HEFT_JOINT_DOF_COUNT; ++k) {
        int six_limited =
            d->type == HEFT_JOINT_SIX_DOF && k < 6 && d->dof_mode[k] == HEFT_DOF_LIMITED;
        int used = d->limit[k].enabled || six_limited;
        if (used && !(lim & DOF_BIT(k))) {
            heft_set_error("this joint type has no limit on coordinate %s", dof_name(k));
            return 0;
        }
        if (!check_limit(k, &d->limit[k], used)) {
            return 0;
        }
    }
    for (int k = 0; k < 6; ++k) {
        if (!check_motor(k, &d->motor[k])) {
            return 0;
        }
        if (d->motor[k].mode != HEFT_MOTOR_OFF && !(mot & DOF_BIT(k))) {
            heft_set_error("this joint type has no motor on coordinate %s", dof_name(k));
            return 0;
        }
    }
    return 1;
}

static int check_common(const heft_joint_def *d) {
    if (!finite_nonnegative(d->stiffness) || !finite_nonnegative(d->damping)) {
        heft_set_error("joint stiffness and damping must be finite and non-negative");
        return 0;
    }
    for (int k = 0; k < 6; ++k) {
        if (!finite_nonnegative(d->dof_stiffness[k]) || !finite_nonnegative(d->dof_damping[k])) {
            heft_set_error("joint dof_stiffness and dof_damping must be finite and non-negative");
            return 0;
        }
    }
    if (isnan(d->break_force) || !(d->break_force > 0.0) || isnan(d->break_torque) ||
        !(d->break_torque > 0.0)) {
        heft_set_error("break_force and break_torque must be positive (INFINITY: unbreakable)");
        return 0;
    }
    return 1;
}

static int uses_axes(heft_joint_type t) {
    return t != HEFT_JOINT_DISTANCE && t != HEFT_JOINT_ROPE && t != HEFT_JOINT_FIXED &&
           t != HEFT_JOINT_GEAR && t != HEFT_JOINT_RACK;
}

static int check_body_joint(const heft_world *w, const heft_joint_def *d, int32_t *a, int32_t *b) {
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
    if (!check_vec_range(d->local_anchor_a, HEFT_POSITION_MAX, "joint local_anchor_a",
                         "HEFT_POSITION_MAX") ||
        !check_vec_range(d->local_anchor_b, HEFT_POSITION_MAX, "joint local_anchor_b",
                         "HEFT_POSITION_MAX")) {
        return 0;
    }
    if (uses_axes(d->type) && (!usable_axis(d->local_axis_a) || !usable_axis(d->local_axis_b))) {
        heft_set_error("joint axes must be finite and non-zero");
        return 0;
    }
    if (d->type == HEFT_JOINT_SIX_DOF) {
        for (int k = 0; k < 6; ++k) {
            if (d->dof_mode[k] != HEFT_DOF_LOCKED && d->dof_mode[k] != HEFT_DOF_FREE &&
                d->dof_mode[k] != HEFT_DOF_LIMITED) {
                heft_set_error("six-DOF joint: unknown mode %d for coordinate %s",
                               (int)d->dof_mode[k], dof_name(k));
                return 0;
            }
        }
    }
    if (d->type == HEFT_JOINT_UNIVERSAL) {
        heft_vec3 ua = heft_v3_normalize(d->local_axis_a), ub = heft_v3_normalize(d->local_axis_b);
        heft_quat qa = ba ? ba->orientation : heft_quat_identity();
        double c = heft_v3_dot(heft_quat_rotate(qa, ua), heft_quat_rotate(bb->orientation, ub));
        if (fabs(c) > 0.1) {
            heft_set_error("universal joint: the two arms must be perpendicular at creation "
                           "(cos of their angle %g)",
                           c);
            return 0;
        }
    }
    if (d->type == HEFT_JOINT_DISTANCE || d->type == HEFT_JOINT_ROPE) {
        if (!finite_nonnegative(d->length)) {
            heft_set_error("joint length must be finite and non-negative (0: the distance now)");
            return 0;
        }
    }
    return 1;
}

static int check_coupling(const heft_world *w, const heft_joint_def *d, joint **ja, joint **jb,
                          int dof[2]) {
    *ja = world_joint(w, d->joint_a);
    *jb = world_joint(w, d->joint_b);
    if (!*ja || !*jb) {
        heft_set_error("gear or rack: joint_a and joint_b must be valid joints");
        return 0;
    }
    if (*ja == *jb) {
        heft_set_error("gear or rack: joint_a and joint_b must differ");
        return 0;
    }
    int ok = d->type == HEFT_JOINT_GEAR ? gear_joint_check(*ja, *jb, dof)
                                        : rack_joint_check(*ja, *jb, dof);
    if (!ok) {
        return 0;
    }
    if ((*ja)->body_b == (*jb)->body_b) {
        heft_set_error(
            "gear or rack: the coupled joints must move different bodies (their body b)");
        return 0;
    }
    if (!body_is_dynamic(&w->bodies[(*ja)->body_b]) &&
        !body_is_dynamic(&w->bodies[(*jb)->body_b])) {
        heft_set_error("gear or rack: one of the coupled joints' body b must be dynamic");
        return 0;
    }
    if (!isfinite(d->ratio)) {
        heft_set_error("gear or rack: ratio must be finite");
        return 0;
    }
    return 1;
}

/* ---- creation ------------------------------------------------------------- */

joint_ends joint_get_ends(const joint *j) {
    joint_ends e = {j->body_a,         j->body_b,  j->local_anchor_a,
                    j->local_anchor_b, j->frame_a, j->frame_b};
    return e;
}

/* Joint frames: a's from its axis and heft_v3_basis; b's x is its axis and
 * its y the nearest to a's y at creation, so that the angles start at 0. */
static void make_frames(joint *j, const body *ba, const body *bb) {
    heft_vec3 xa = j->local_axis_a, ya, za;
    heft_v3_basis(xa, &ya, &za);
    j->frame_a = joint_quat_from_axes(xa, ya, za);
    heft_quat qa = ba ? ba->orientation : heft_quat_identity();
    heft_vec3 y_world = heft_quat_rotate(qa, ya);
    heft_vec3 xb = j->local_axis_b, yb = heft_quat_rotate_inv(bb->orientation, y_world);
    yb = heft_v3_madd(yb, -heft_v3_dot(yb, xb), xb);
    if (heft_v3_length(yb) < 1e-6) {
        heft_vec3 unused;
        heft_v3_basis(xb, &yb, &unused);
    }
    yb = heft_v3_normalize(yb);
    j->frame_b = joint_quat_from_axes(xb, yb, heft_v3_cross(xb, yb));
}

heft_joint_id heft_create_joint(heft_world *w, const heft_joint_def *def) {
    heft_joint_id invalid = {-1, 0};
    if (!w || !def) {
        heft_set_error("heft_create_joint: world and def must not be NULL");
        return invalid;
    }
    if ((unsigned)def->type > (unsigned)HEFT_JOINT_RACK) {
        heft_set_error("unknown joint type %d", (int)def->type);
        return invalid;
    }
    int coupling = def->type == HEFT_JOINT_GEAR || def->type == HEFT_JOINT_RACK;
    int32_t a = -1, b = -1;
    joint *ja = NULL, *jb = NULL;
    int dof[2] = {0, 0};
    if (!check_common(def) || !check_limits_and_motors(def) ||
        (coupling ? !check_coupling(w, def, &ja, &jb, dof) : !check_body_joint(w, def, &a, &b))) {
        return invalid;
    }
    double length = def->length;
    if (def->type == HEFT_JOINT_DISTANCE || def->type == HEFT_JOINT_ROPE) {
        const body *ba = end_body(w, a), *bb = end_body(w, b);
        heft_vec3 xa =
            ba ? heft_v3_add(ba->position, heft_quat_rotate(ba->orientation, def->local_anchor_a))
               : def->local_anchor_a;
        heft_vec3 xb =
            heft_v3_add(bb->position, heft_quat_rotate(bb->orientation, def->local_anchor_b));
        if (length == 0.0) {
            length = heft_v3_length(heft_v3_sub(xb, xa));
        }
        if (!(length > 1e-9)) {
            heft_set_error(
                "distance and rope joints need a positive length (the anchors coincide)");
            return invalid;
        }
    }
    /* the coupled joints' ends, taken before the slot array may move */
    joint_ends coupled_ends[2];
    heft_joint_id coupled_ids[2] = {def->joint_a, def->joint_b};
    if (coupling) {
        coupled_ends[0] = joint_get_ends(ja);
        coupled_ends[1] = joint_get_ends(jb);
        a = ja->body_b;
        b = jb->body_b;
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
    j->stiffness = def->stiffness;
    j->damping = def->damping;
    memcpy(j->dof_stiffness, def->dof_stiffness, sizeof j->dof_stiffness);
    memcpy(j->dof_damping, def->dof_damping, sizeof j->dof_damping);
    memcpy(j->limit, def->limit, sizeof j->limit);
    memcpy(j->motor, def->motor, sizeof j->motor);
    memcpy(j->dof_mode, def->dof_mode, sizeof j->dof_mode);
    j->length = length;
    j->ratio = def->ratio;
    j->collide_connected = def->collide_connected;
    j->break_force = def->break_force;
    j->break_torque = def->break_torque;
    j->user_data = def->user_data;
    if (def->name) {
        strncpy(j->name, def->name, HEFT_NAME_MAX - 1);
    }
    if (coupling) {
        for (int k = 0; k < 2; ++k) {
            j->coupled[k] = coupled_ids[k];
            j->coupled_ends[k] = coupled_ends[k];
            j->coupled_dof[k] = dof[k];
            const joint *cj = &w->joints[coupled_ids[k].index];
            joint_coordinate c;
            joint_coordinate_measure(w->bodies, &coupled_ends[k], dof[k], &c);
            j->coupled_origin[k] = joint_coordinate_value(cj, &c, dof[k]);
            j->coupled_last[k] = j->coupled_origin[k];
        }
    } else {
        j->local_anchor_a = def->local_anchor_a;
        j->local_anchor_b = def->local_anchor_b;
        j->local_axis_a =
            uses_axes(def->type) ? heft_v3_normalize(def->local_axis_a) : heft_v3(0.0, 0.0, 1.0);
        j->local_axis_b =
            uses_axes(def->type) ? heft_v3_normalize(def->local_axis_b) : heft_v3(0.0, 0.0, 1.0);
        const body *ba = end_body(w, a), *bb = &w->bodies[b];
        heft_quat qa = ba ? ba->orientation : heft_quat_identity();
        j->relative_rotation = heft_quat_mul(heft_quat_conj(qa), bb->orientation);
        make_frames(j, ba, bb);
        /* the angles' turn counting starts from the raw angles now */
        joint_ends e = joint_get_ends(j);
        for (int k = HEFT_DOF_RX; k <= HEFT_DOF_RZ; ++k) {
            joint_coordinate c;
            joint_coordinate_measure(w->bodies, &e, k, &c);
            j->coordinate_last[k] = c.value;
        }
    }
    body_link_joint(w, index);
    sleep_wake_joint(w, index);
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
    sleep_wake_joint(w, id.index);
    if (!j->broken && j->body_a >= 0 && body_is_dynamic(&w->bodies[j->body_a]) && j->body_b >= 0 &&
        body_is_dynamic(&w->bodies[j->body_b])) {
        island_mark_link_removed(w, j->body_b);
    }
    body_unlink_joint(w, id.index);
    slots_release(w->joints, sizeof(joint), id.index, &w->joint_free);
    w->joint_live--;
    /* a gear or rack cannot outlive a joint it couples */
    for (int i = 0; i < w->joint_high; ++i) {
        joint *g = &w->joints[i];
        if (g->slot.alive && (g->type == HEFT_JOINT_GEAR || g->type == HEFT_JOINT_RACK)) {
            for (int k = 0; k < 2; ++k) {
                if (g->coupled[k].index == id.index && g->coupled[k].generation == id.generation) {
                    heft_joint_id gid = {i, g->slot.generation};
                    heft_destroy_joint(w, gid);
                    break;
                }
            }
        }
    }
    return HEFT_OK;
}

int heft_joint_is_valid(const heft_world *w, heft_joint_id id) {
    return world_joint(w, id) != NULL;
}

const char *heft_joint_name(const heft_world *w, heft_joint_id id) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_name");
    return j ? j->name : "";
}

void *heft_joint_user_data(const heft_world *w, heft_joint_id id) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_user_data");
    return j ? j->user_data : NULL;
}

heft_joint_type heft_joint_get_type(const heft_world *w, heft_joint_id id) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_get_type");
    return j ? j->type : HEFT_JOINT_BALL;
}

int heft_joint_is_broken(const heft_world *w, heft_joint_id id) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_is_broken");
    return j ? j->broken : 0;
}

/* ---- setters -------------------------------------------------------------- */

/* the def a joint was made from, as far as the checks need it */
static heft_joint_def def_of(const joint *j) {
    heft_joint_def d = heft_default_joint_def(j->type);
    memcpy(d.limit, j->limit, sizeof d.limit);
    memcpy(d.motor, j->motor, sizeof d.motor);
    memcpy(d.dof_mode, j->dof_mode, sizeof d.dof_mode);
    return d;
}

static joint *joint_for_dof(heft_world *w, heft_joint_id id, int dof, int count) {
    joint *j = world_joint(w, id);
    if (!j) {
        heft_set_error("joint id is not valid");
        return NULL;
    }
    if (dof < 0 || dof >= count) {
        heft_set_error("coordinate %d is not one of the joint's", dof);
        return NULL;
    }
    return j;
}

heft_result heft_joint_set_motor(heft_world *w, heft_joint_id id, heft_joint_dof dof,
                                 const heft_joint_motor *motor) {
    joint *j = joint_for_dof(w, id, (int)dof, 6);
    if (!j) {
        return world_joint(w, id) ? HEFT_ERROR_INVALID_ARGUMENT : HEFT_ERROR_INVALID_ID;
    }
    if (!motor) {
        heft_set_error("heft_joint_set_motor: motor must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    heft_joint_def d = def_of(j);
    d.motor[dof] = *motor;
    if (!check_limits_and_motors(&d)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    j->motor[dof] = *motor;
    sleep_wake_joint(w, id.index);
    return HEFT_OK;
}

static heft_result set_target(heft_world *w, heft_joint_id id, heft_joint_dof dof, double value,
                              int position) {
    joint *j = joint_for_dof(w, id, (int)dof, 6);
    if (!j) {
        return world_joint(w, id) ? HEFT_ERROR_INVALID_ARGUMENT : HEFT_ERROR_INVALID_ID;
    }
    heft_joint_motor m = j->motor[dof];
    if (position) {
        m.target_position = value;
    } else {
        m.target_velocity = value;
    }
    if (m.mode == HEFT_MOTOR_OFF) {
        heft_set_error("the joint has no motor on coordinate %s (heft_joint_set_motor)",
                       dof_name(dof));
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_motor((int)dof, &m)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    j->motor[dof] = m;
    sleep_wake_joint(w, id.index);
    return HEFT_OK;
}

heft_result heft_joint_set_motor_velocity(heft_world *w, heft_joint_id id, heft_joint_dof dof,
                                          double target_velocity) {
    return set_target(w, id, dof, target_velocity, 0);
}

heft_result heft_joint_set_motor_position(heft_world *w, heft_joint_id id, heft_joint_dof dof,
                                          double target_position) {
    return set_target(w, id, dof, target_position, 1);
}

heft_result heft_joint_set_limit(heft_world *w, heft_joint_id id, heft_joint_dof dof,
                                 const heft_joint_limit *limit) {
    joint *j = joint_for_dof(w, id, (int)dof, HEFT_JOINT_DOF_COUNT);
    if (!j) {
        return world_joint(w, id) ? HEFT_ERROR_INVALID_ARGUMENT : HEFT_ERROR_INVALID_ID;
    }
    if (!limit) {
        heft_set_error("heft_joint_set_limit: limit must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    heft_joint_def d = def_of(j);
    d.limit[dof] = *limit;
    if (!check_limits_and_motors(&d)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    j->limit[dof] = *limit;
    sleep_wake_joint(w, id.index);
    return HEFT_OK;
}

heft_result heft_joint_set_length(heft_world *w, heft_joint_id id, double length) {
    joint *j = world_joint(w, id);
    if (!j) {
        heft_set_error("joint id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    if (j->type != HEFT_JOINT_DISTANCE && j->type != HEFT_JOINT_ROPE) {
        heft_set_error("only distance and rope joints have a length");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!isfinite(length) || !(length > 1e-9)) {
        heft_set_error("joint length must be finite and positive, got %g", length);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    j->length = length;
    sleep_wake_joint(w, id.index);
    return HEFT_OK;
}

int joint_bodies_connected(const heft_world *w, int32_t body_a, int32_t body_b) {
    if (body_a < 0) {
        int32_t t = body_a;
        body_a = body_b;
        body_b = t;
    }
    if (body_a < 0) {
        return 0;
    }
    for (int32_t e = body_first_joint_edge(w, body_a); e >= 0; e = body_next_joint_edge(w, e)) {
        const joint *j = &w->joints[e >> 1];
        if (!j->collide_connected && !j->broken &&
            ((j->body_a == body_a && j->body_b == body_b) ||
             (j->body_a == body_b && j->body_b == body_a))) {
            return 1;
        }
    }
    return 0;
}
