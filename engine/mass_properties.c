/* Mass properties from shapes: each solid's mass, centre and inertia at its
 * density, summed over a body's shapes with the parallel-axis theorem. */
#include <string.h>

#include "error.h"
#include "joint.h"
#include "sleep.h"
#include "world.h"

typedef struct mass_props {
    double mass;
    heft_vec3 center;  /* body frame */
    heft_mat3 inertia; /* about center, body axes */
} mass_props;

/* the solid in its own frame: mass, centre, inertia about the centre */
static int solid_mass(heft_shape_type type, double density, double radius, double half_length,
                      heft_vec3 he, const convex_hull *hull, mass_props *out) {
    double r = radius, m;
    out->center = heft_v3(0.0, 0.0, 0.0);
    switch (type) {
    case HEFT_SHAPE_SPHERE:
        m = density * 4.0 / 3.0 * HEFT_PI * r * r * r;
        out->inertia = heft_inertia_sphere(m, r);
        break;
    case HEFT_SHAPE_CAPSULE:
        m = density * HEFT_PI * r * r * (2.0 * half_length + 4.0 / 3.0 * r);
        out->inertia = heft_inertia_capsule(m, r, half_length);
        break;
    case HEFT_SHAPE_CYLINDER:
        m = density * HEFT_PI * r * r * 2.0 * half_length;
        out->inertia = heft_inertia_cylinder(m, r, half_length);
        break;
    case HEFT_SHAPE_BOX:
        m = density * 8.0 * he.x * he.y * he.z;
        out->inertia = heft_inertia_box(m, he);
        break;
    case HEFT_SHAPE_HULL:
        m = density * hull->volume;
        out->center = hull->center;
        out->inertia = heft_mat3_scale(hull->inertia, density);
        break;
    default:
        return 0;
    }
    out->mass = m;
    return 1;
}

/* moves a solid's properties into the body frame */
static void place(mass_props *p, heft_vec3 position, heft_quat orientation) {
    heft_mat3 R = heft_quat_to_mat3(heft_quat_normalize(orientation));
    p->inertia = heft_mat3_rotate_tensor(R, p->inertia);
    p->center = heft_v3_add(position, heft_mat3_mulv(R, p->center));
}

/* inertia of mass m at offset d from the reference point (parallel axis) */
static heft_mat3 shift_term(double m, heft_vec3 d) {
    double dd = heft_v3_dot(d, d);
    double v[3] = {d.x, d.y, d.z};
    heft_mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = m * ((i == j ? dd : 0.0) - v[i] * v[j]);
        }
    }
    return r;
}

heft_result heft_shape_def_mass(const heft_shape_def *def, double *mass, heft_vec3 *center,
                                heft_mat3 *inertia) {
    if (!def) {
        heft_set_error("shape def must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (def->type == HEFT_SHAPE_PLANE || def->type == HEFT_SHAPE_MESH ||
        def->type == HEFT_SHAPE_HEIGHT_FIELD) {
        heft_set_error("planes, meshes and height fields have no mass");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    body dynamic;
    memset(&dynamic, 0, sizeof dynamic);
    dynamic.type = HEFT_BODY_DYNAMIC;
    if (!shape_check_def(def, &dynamic)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    convex_hull *hull = NULL;
    if (def->type == HEFT_SHAPE_HULL &&
        !(hull = convex_hull_build(def->hull.points, def->hull.count))) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    mass_props p;
    solid_mass(def->type, def->density, def->radius, def->half_length, def->half_extents, hull, &p);
    convex_hull_free(hull);
    /* a finite density times a volume within the size limits can still
     * overflow, or pass the mass limit of a body */
    if (!isfinite(p.mass) || p.mass > HEFT_MASS_MAX || !heft_mat3_isfinite(p.inertia)) {
        heft_set_error("the shape's mass %g kg (density %g kg/m^3 times its volume) is not finite "
                       "or beyond HEFT_MASS_MAX (%g kg)",
                       p.mass, def->density, HEFT_MASS_MAX);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    place(&p, def->local_position, def->local_orientation);
    if (mass) {
        *mass = p.mass;
    }
    if (center) {
        *center = p.center;
    }
    if (inertia) {
        *inertia = p.inertia;
    }
    return HEFT_OK;
}

static void shift_anchor(heft_vec3 *anchor, int32_t owner, int32_t body_index, heft_vec3 c) {
    if (owner == body_index) {
        *anchor = heft_v3_sub(*anchor, c);
    }
}

heft_result heft_body_set_mass_from_shapes(heft_world *w, heft_body_id id) {
    body *b = world_body(w, id);
    if (!b) {
        heft_set_error(w ? "heft_body_set_mass_from_shapes: body id is not valid"
                         : "heft_body_set_mass_from_shapes: world is NULL");
        return HEFT_ERROR_INVALID_ID;
    }
    if (b->type != HEFT_BODY_DYNAMIC) {
        heft_set_error("only dynamic bodies have a mass");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    /* first pass: total mass and centre; second: inertia about the centre */
    double total = 0.0;
    heft_vec3 moment = heft_v3(0.0, 0.0, 0.0);
    for (int32_t i = b->shapes; i >= 0; i = w->shapes[i].body_next) {
        const shape *s = &w->shapes[i];
        mass_props p;
        if (!solid_mass(s->type, s->density, s->radius, s->half_length, s->half_extents, s->hull,
                        &p)) {
            continue;
        }
        place(&p, s->local_position, s->local_orientation);
        total += p.mass;
        moment = heft_v3_madd(moment, p.mass, p.center);
    }
    if (!isfinite(total)) {
        heft_set_error("the body's shapes have a mass that is not finite (%g kg: density times "
                       "volume overflows)",
                       total);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!(total > 0.0)) {
        heft_set_error("the body's shapes have no mass (no solid shape with a positive density)");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    heft_vec3 c = heft_v3_scale(moment, 1.0 / total);
    heft_mat3 inertia = heft_mat3_zero();
    for (int32_t i = b->shapes; i >= 0; i = w->shapes[i].body_next) {
        const shape *s = &w->shapes[i];
        mass_props p;
        if (!solid_mass(s->type, s->density, s->radius, s->half_length, s->half_extents, s->hull,
                        &p)) {
            continue;
        }
        place(&p, s->local_position, s->local_orientation);
        inertia = heft_mat3_add(
            inertia, heft_mat3_add(p.inertia, shift_term(p.mass, heft_v3_sub(p.center, c))));
    }
    /* symmetric to rounding */
    for (int i = 0; i < 3; ++i) {
        for (int j = i + 1; j < 3; ++j) {
            double m = 0.5 * (inertia.m[i][j] + inertia.m[j][i]);
            inertia.m[i][j] = inertia.m[j][i] = m;
        }
    }
    if (!body_check_mass(total, inertia)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    /* the body frame moves to the centre of mass; nothing moves in the world */
    b->position = heft_v3_add(b->position, heft_quat_rotate(b->orientation, c));
    for (int32_t i = b->shapes; i >= 0; i = w->shapes[i].body_next) {
        w->shapes[i].local_position = heft_v3_sub(w->shapes[i].local_position, c);
    }
    for (int i = 0; i < w->joint_high; ++i) {
        joint *j = &w->joints[i];
        if (!j->slot.alive) {
            continue;
        }
        shift_anchor(&j->local_anchor_a, j->body_a, id.index, c);
        shift_anchor(&j->local_anchor_b, j->body_b, id.index, c);
        for (int k = 0; k < 2; ++k) {
            shift_anchor(&j->coupled_ends[k].local_anchor_a, j->coupled_ends[k].body_a, id.index,
                         c);
            shift_anchor(&j->coupled_ends[k].local_anchor_b, j->coupled_ends[k].body_b, id.index,
                         c);
        }
    }
    body_set_mass_properties(b, total, inertia);
    sleep_wake_body(w, id.index);
    return HEFT_OK;
}
