/* Bodies: creation with validation, mass properties, readback and setters. */
#include <string.h>

#include "error.h"
#include "body_links.h"
#include "input_check.h"
#include "island.h"
#include "sleep.h"
#include "world.h"

heft_body_def heft_default_body_def(void) {
    heft_body_def d;
    memset(&d, 0, sizeof d);
    d.type = HEFT_BODY_DYNAMIC;
    d.orientation = heft_quat_identity();
    d.mass = 1.0;
    d.gravity_scale = 1.0;
    d.enable_sleep = 1;
    return d;
}

heft_mat3 heft_inertia_box(double mass, heft_vec3 he) {
    double x = 4.0 * he.x * he.x, y = 4.0 * he.y * he.y, z = 4.0 * he.z * he.z;
    return heft_mat3_diag(mass * (y + z) / 12.0, mass * (x + z) / 12.0, mass * (x + y) / 12.0);
}

heft_mat3 heft_inertia_sphere(double mass, double radius) {
    double i = 0.4 * mass * radius * radius;
    return heft_mat3_diag(i, i, i);
}

heft_mat3 heft_inertia_cylinder(double mass, double radius, double half_length) {
    double l = 2.0 * half_length;
    double axial = 0.5 * mass * radius * radius;
    double transverse = mass * (3.0 * radius * radius + l * l) / 12.0;
    return heft_mat3_diag(transverse, transverse, axial);
}

heft_mat3 heft_inertia_capsule(double mass, double radius, double half_length) {
    /* a cylinder plus two hemispheres, the mass shared by volume */
    double r = radius, l = 2.0 * half_length;
    double vc = l * r * r, vs = 4.0 / 3.0 * r * r * r; /* volumes without the common pi */
    double mc = mass * vc / (vc + vs), ms = mass * vs / (vc + vs);
    double axial = 0.5 * mc * r * r + 0.4 * ms * r * r;
    /* hemisphere centroid at 3r/8 beyond the cylinder end */
    double d = half_length + 3.0 * r / 8.0;
    double hemi =
        83.0 / 320.0 * ms * r * r + ms * d * d; /* both halves about their centroids, shifted */
    double transverse = mc * (3.0 * r * r + l * l) / 12.0 + hemi;
    return heft_mat3_diag(transverse, transverse, axial);
}

int body_check_mass(double mass, heft_mat3 I) {
    return check_mass_properties(mass, I);
}

static int is_zero_mat(heft_mat3 a) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            if (a.m[i][j] != 0.0) {
                return 0;
            }
        }
    }
    return 1;
}

void body_set_mass_properties(body *b, double mass, heft_mat3 inertia) {
    if (b->type == HEFT_BODY_DYNAMIC) {
        b->mass = mass;
        b->inv_mass = 1.0 / mass;
        b->inertia = inertia;
        b->inv_inertia_body = heft_mat3_inverse(inertia);
    } else {
        b->mass = 0.0;
        b->inv_mass = 0.0;
        b->inertia = heft_mat3_zero();
        b->inv_inertia_body = heft_mat3_zero();
    }
    body_update_world_inertia(b);
}

void body_update_world_inertia(body *b) {
    b->inv_inertia_world =
        heft_mat3_rotate_tensor(heft_quat_to_mat3(b->orientation), b->inv_inertia_body);
}

void body_pack_inverse_mass(heft_mlcp_body *out, double inv_mass, const heft_mat3 *I) {
    out->inv_mass = inv_mass;
    out->inv_inertia[0] = I->m[0][0];
    out->inv_inertia[1] = I->m[0][1];
    out->inv_inertia[2] = I->m[0][2];
    out->inv_inertia[3] = I->m[1][1];
    out->inv_inertia[4] = I->m[1][2];
    out->inv_inertia[5] = I->m[2][2];
}

heft_vec3 body_point_velocity(const body *b, heft_vec3 p) {
    return heft_v3_add(b->linear_velocity,
                       heft_v3_cross(b->angular_velocity, heft_v3_sub(p, b->position)));
}

static int check_position(heft_vec3 v, const char *what) {
    return check_vec_range(v, HEFT_POSITION_MAX, what, "HEFT_POSITION_MAX");
}

static int check_speed(heft_vec3 v, const char *what) {
    return check_vec_range(v, HEFT_SPEED_MAX, what, "HEFT_SPEED_MAX");
}

static int check_quat(heft_quat q) {
    return check_orientation(q, "orientation quaternion");
}

body *live_body(const heft_world *w, heft_body_id id, const char *function) {
    if (!w) {
        heft_set_error("%s: world is NULL", function);
        return NULL;
    }
    body *b = world_body(w, id);
    if (!b) {
        heft_set_error("%s: body id (index %d, generation %u) is not valid: never created or "
                       "destroyed",
                       function, (int)id.index, (unsigned)id.generation);
    }
    return b;
}

static void copy_name(char *dst, const char *src) {
    dst[0] = '\0';
    if (src) {
        strncpy(dst, src, HEFT_NAME_MAX - 1);
        dst[HEFT_NAME_MAX - 1] = '\0';
    }
}

heft_body_id heft_create_body(heft_world *w, const heft_body_def *def) {
    heft_body_id invalid = {-1, 0};
    if (!w || !def) {
        heft_set_error("heft_create_body: world and def must not be NULL");
        return invalid;
    }
    if (def->type != HEFT_BODY_STATIC && def->type != HEFT_BODY_KINEMATIC &&
        def->type != HEFT_BODY_DYNAMIC) {
        heft_set_error("unknown body type %d", (int)def->type);
        return invalid;
    }
    if (!check_position(def->position, "position") || !check_quat(def->orientation) ||
        !check_speed(def->linear_velocity, "linear velocity") ||
        !check_speed(def->angular_velocity, "angular velocity")) {
        return invalid;
    }
    heft_mat3 inertia = def->inertia;
    if (def->type == HEFT_BODY_DYNAMIC) {
        if (isfinite(def->mass) && def->mass >= HEFT_MASS_MIN && def->mass <= HEFT_MASS_MAX &&
            is_zero_mat(inertia)) {
            double i = def->mass / 6.0;
            inertia = heft_mat3_diag(i, i, i);
        }
        if (!body_check_mass(def->mass, inertia)) {
            return invalid;
        }
    }
    if (!isfinite(def->linear_damping) || def->linear_damping < 0.0 ||
        !isfinite(def->angular_damping) || def->angular_damping < 0.0) {
        heft_set_error("damping must be finite and non-negative");
        return invalid;
    }
    if (!isfinite(def->gravity_scale) || fabs(def->gravity_scale) > HEFT_GRAVITY_MAX) {
        heft_set_error("gravity scale %g is not finite or beyond %g", def->gravity_scale,
                       HEFT_GRAVITY_MAX);
        return invalid;
    }

    int index = slots_acquire((void **)&w->bodies, &w->body_capacity, &w->body_high, &w->body_free,
                              sizeof(body));
    if (index < 0) {
        heft_set_error("out of memory");
        return invalid;
    }
    body *b = &w->bodies[index];
    body_links_init(b);
    b->type = def->type;
    b->position = def->position;
    b->orientation = heft_quat_normalize(def->orientation);
    if (def->type != HEFT_BODY_STATIC) {
        b->linear_velocity = def->linear_velocity;
        b->angular_velocity = def->angular_velocity;
    }
    b->linear_damping = def->linear_damping;
    b->angular_damping = def->angular_damping;
    b->gravity_scale = def->gravity_scale;
    b->user_data = def->user_data;
    b->fast = def->fast != 0;
    b->island = -1;
    b->island_id = b->island_prev = b->island_next = -1;
    b->sleep_enabled = def->enable_sleep != 0;
    copy_name(b->name, def->name);
    body_set_mass_properties(b, def->mass, inertia);
    w->body_live++;
    heft_body_id id = {index, b->slot.generation};
    return id;
}

heft_result heft_destroy_body(heft_world *w, heft_body_id id) {
    body *b = live_body(w, id, "heft_destroy_body");
    if (!b) {
        return HEFT_ERROR_INVALID_ID;
    }
    /* each destruction unlinks what it destroys (and a gear coupling a
     * destroyed joint goes with it), so the lists' heads advance */
    while (b->joint_edges >= 0) {
        int32_t ji = b->joint_edges >> 1;
        heft_joint_id jid = {ji, w->joints[ji].slot.generation};
        heft_destroy_joint(w, jid);
    }
    while (b->shapes >= 0) {
        heft_shape_id sid = {b->shapes, w->shapes[b->shapes].slot.generation};
        heft_destroy_shape(w, sid);
    }
    island_remove_body(w, id.index);
    if (b->wake_contacts) {
        w->wake_contacts_pending--;
    }
    slots_release(w->bodies, sizeof(body), id.index, &w->body_free);
    w->body_live--;
    return HEFT_OK;
}

int heft_body_is_valid(const heft_world *w, heft_body_id id) {
    return world_body(w, id) != NULL;
}

heft_result heft_body_get_state(const heft_world *w, heft_body_id id, heft_body_state *out) {
    const body *b = live_body(w, id, "heft_body_get_state");
    if (!b) {
        return w ? HEFT_ERROR_INVALID_ID : HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!out) {
        heft_set_error("heft_body_get_state: out must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    out->type = b->type;
    out->position = b->position;
    out->orientation = b->orientation;
    out->linear_velocity = b->linear_velocity;
    out->angular_velocity = b->angular_velocity;
    out->mass = b->mass;
    out->inertia = b->inertia;
    out->force = b->force;
    out->torque = b->torque;
    return HEFT_OK;
}

heft_vec3 heft_body_position(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_position");
    return b ? b->position : heft_v3(0.0, 0.0, 0.0);
}
heft_quat heft_body_orientation(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_orientation");
    return b ? b->orientation : heft_quat_identity();
}
heft_vec3 heft_body_linear_velocity(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_linear_velocity");
    return b ? b->linear_velocity : heft_v3(0.0, 0.0, 0.0);
}
heft_vec3 heft_body_angular_velocity(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_angular_velocity");
    return b ? b->angular_velocity : heft_v3(0.0, 0.0, 0.0);
}
double heft_body_mass(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_mass");
    return b ? b->mass : 0.0;
}
const char *heft_body_name(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_name");
    return b ? b->name : "";
}
void *heft_body_user_data(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_user_data");
    return b ? b->user_data : NULL;
}
heft_vec3 heft_body_world_point(const heft_world *w, heft_body_id id, heft_vec3 local) {
    const body *b = live_body(w, id, "heft_body_world_point");
    return b ? heft_v3_add(b->position, heft_quat_rotate(b->orientation, local)) : local;
}
heft_vec3 heft_body_local_point(const heft_world *w, heft_body_id id, heft_vec3 p) {
    const body *b = live_body(w, id, "heft_body_local_point");
    return b ? heft_quat_rotate_inv(b->orientation, heft_v3_sub(p, b->position)) : p;
}
heft_vec3 heft_body_angular_momentum(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_angular_momentum");
    if (!b) {
        return heft_v3(0.0, 0.0, 0.0);
    }
    heft_mat3 R = heft_quat_to_mat3(b->orientation);
    return heft_mat3_mulv(heft_mat3_rotate_tensor(R, b->inertia), b->angular_velocity);
}

heft_result heft_body_set_transform(heft_world *w, heft_body_id id, heft_vec3 p, heft_quat q) {
    body *b = live_body(w, id, "heft_body_set_transform");
    if (!b) {
        return w ? HEFT_ERROR_INVALID_ID : HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_position(p, "position") || !check_quat(q)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    /* what rested on it at the old pose, and what it meets at the new one */
    sleep_wake_touching(w, id.index);
    sleep_wake_body(w, id.index);
    b->position = p;
    b->orientation = heft_quat_normalize(q);
    body_update_world_inertia(b);
    return HEFT_OK;
}

heft_result heft_body_set_linear_velocity(heft_world *w, heft_body_id id, heft_vec3 v) {
    body *b = live_body(w, id, "heft_body_set_linear_velocity");
    if (!b) {
        return w ? HEFT_ERROR_INVALID_ID : HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_speed(v, "linear velocity")) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (b->type != HEFT_BODY_STATIC) {
        b->linear_velocity = v;
        sleep_wake_body(w, id.index);
    }
    return HEFT_OK;
}

heft_result heft_body_set_angular_velocity(heft_world *w, heft_body_id id, heft_vec3 v) {
    body *b = live_body(w, id, "heft_body_set_angular_velocity");
    if (!b) {
        return w ? HEFT_ERROR_INVALID_ID : HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_speed(v, "angular velocity")) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (b->type != HEFT_BODY_STATIC) {
        b->angular_velocity = v;
        sleep_wake_body(w, id.index);
    }
    return HEFT_OK;
}

heft_result heft_body_set_mass(heft_world *w, heft_body_id id, double mass, heft_mat3 inertia) {
    body *b = live_body(w, id, "heft_body_set_mass");
    if (!b) {
        return w ? HEFT_ERROR_INVALID_ID : HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (b->type != HEFT_BODY_DYNAMIC) {
        heft_set_error("only dynamic bodies have a mass");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!body_check_mass(mass, inertia)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    body_set_mass_properties(b, mass, inertia);
    sleep_wake_body(w, id.index);
    return HEFT_OK;
}

heft_result heft_body_apply_force(heft_world *w, heft_body_id id, heft_vec3 f, heft_vec3 p) {
    body *b = live_body(w, id, "heft_body_apply_force");
    if (!b) {
        return w ? HEFT_ERROR_INVALID_ID : HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_vec_range(f, HEFT_FORCE_MAX, "force", "HEFT_FORCE_MAX") ||
        !check_position(p, "point of application")) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (b->type == HEFT_BODY_DYNAMIC) {
        /* the sums are checked before they are kept: an overflowing force
         * would otherwise reach the step as Inf and zero the body */
        heft_vec3 force = heft_v3_add(b->force, f);
        heft_vec3 torque = heft_v3_add(b->torque, heft_v3_cross(heft_v3_sub(p, b->position), f));
        if (!check_vec_range(force, HEFT_FORCE_MAX, "the body's accumulated force",
                             "HEFT_FORCE_MAX") ||
            !check_vec_range(torque, HEFT_TORQUE_MAX, "the body's accumulated torque",
                             "HEFT_TORQUE_MAX")) {
            return HEFT_ERROR_INVALID_ARGUMENT;
        }
        b->force = force;
        b->torque = torque;
        sleep_wake_body(w, id.index);
    }
    return HEFT_OK;
}

heft_result heft_body_apply_torque(heft_world *w, heft_body_id id, heft_vec3 t) {
    body *b = live_body(w, id, "heft_body_apply_torque");
    if (!b) {
        return w ? HEFT_ERROR_INVALID_ID : HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_vec_range(t, HEFT_TORQUE_MAX, "torque", "HEFT_TORQUE_MAX")) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (b->type == HEFT_BODY_DYNAMIC) {
        heft_vec3 torque = heft_v3_add(b->torque, t);
        if (!check_vec_range(torque, HEFT_TORQUE_MAX, "the body's accumulated torque",
                             "HEFT_TORQUE_MAX")) {
            return HEFT_ERROR_INVALID_ARGUMENT;
        }
        b->torque = torque;
        sleep_wake_body(w, id.index);
    }
    return HEFT_OK;
}
