/* Shapes: validation, their own copies of hull, mesh and height-field data,
 * transforms and bounding boxes. The world's shapes (creation on a body,
 * readback) are engine/world_shapes.c. */
#include <math.h>
#include <string.h>

#include "error.h"
#include "input_check.h"
#include "shape.h"

heft_shape_def heft_default_shape_def(void) {
    heft_shape_def d;
    memset(&d, 0, sizeof d);
    d.type = HEFT_SHAPE_SPHERE;
    d.radius = 0.5;
    d.half_extents = heft_v3(0.5, 0.5, 0.5);
    d.normal = heft_v3(0.0, 0.0, 1.0);
    d.local_orientation = heft_quat_identity();
    d.friction = 1.0;
    d.density = 1000.0;
    d.category_bits = 1u;
    d.mask_bits = 0xFFFFFFFFu;
    return d;
}

double material_friction(double a, double b) {
    return sqrt(a * b);
}
double material_restitution(double a, double b) {
    return a > b ? a : b;
}
/* the larger, as Box2D v3 mixes it: the softer body's hysteresis resists
 * the rolling, and a ground left at 0 does not switch off a log's */
double material_rolling_resistance(double a, double b) {
    return a > b ? a : b;
}

static int positive(double x) {
    return isfinite(x) && x > 0.0;
}

int shape_check_material(double friction, double restitution) {
    if (!isfinite(friction) || friction < 0.0) {
        heft_set_error("friction must be finite and non-negative");
        return 0;
    }
    if (!(restitution >= 0.0 && restitution <= 1.0)) {
        heft_set_error("restitution must lie in [0, 1]");
        return 0;
    }
    return 1;
}

int shape_check_rolling_resistance(double r, const char *what) {
    if (!(r >= 0.0 && r <= HEFT_ROLLING_RESISTANCE_MAX)) {
        heft_set_error("%s: rolling resistance %g m is not in [0, HEFT_ROLLING_RESISTANCE_MAX "
                       "= %g m]",
                       what, r, HEFT_ROLLING_RESISTANCE_MAX);
        return 0;
    }
    return 1;
}

/* a size: finite, positive, at most HEFT_SHAPE_SIZE_MAX */
static int check_size(double x, const char *what) {
    if (!positive(x)) {
        heft_set_error("%s must be finite and positive (got %g m)", what, x);
        return 0;
    }
    if (x > HEFT_SHAPE_SIZE_MAX) {
        heft_set_error("%s %g m is beyond HEFT_SHAPE_SIZE_MAX (%g m)", what, x,
                       HEFT_SHAPE_SIZE_MAX);
        return 0;
    }
    return 1;
}

int shape_check_def(const heft_shape_def *d, const body *owner) {
    if (!check_vec_range(d->local_position, HEFT_POSITION_MAX, "shape local position",
                         "HEFT_POSITION_MAX") ||
        !check_orientation(d->local_orientation, "shape local orientation")) {
        return 0;
    }
    if (!shape_check_material(d->friction, d->restitution) ||
        !shape_check_rolling_resistance(d->rolling_resistance, "heft_shape_def")) {
        return 0;
    }
    if (!isfinite(d->density) || d->density < 0.0) {
        heft_set_error("density must be finite and non-negative (got %g kg/m^3)", d->density);
        return 0;
    }
    switch (d->type) {
    case HEFT_SHAPE_SPHERE:
        return check_size(d->radius, "sphere radius");
    case HEFT_SHAPE_CAPSULE:
        if (!check_size(d->radius, "capsule radius")) {
            return 0;
        }
        if (d->half_length != 0.0 && !check_size(d->half_length, "capsule half length")) {
            return 0;
        }
        return 1;
    case HEFT_SHAPE_CYLINDER:
        return check_size(d->radius, "cylinder radius") &&
               check_size(d->half_length, "cylinder half length");
    case HEFT_SHAPE_BOX:
        return check_size(d->half_extents.x, "box half extents (x)") &&
               check_size(d->half_extents.y, "box half extents (y)") &&
               check_size(d->half_extents.z, "box half extents (z)");
    case HEFT_SHAPE_HULL:
        /* the hull builder checks the count and the geometry; sizes here, so
         * that a huge hull is refused as huge, not as degenerate */
        if (d->hull.points && d->hull.count > 0 && d->hull.count <= 4096) {
            for (int i = 0; i < d->hull.count; ++i) {
                if (!check_vec_range(d->hull.points[i], HEFT_SHAPE_SIZE_MAX, "hull point",
                                     "HEFT_SHAPE_SIZE_MAX")) {
                    return 0;
                }
            }
        }
        return 1;
    case HEFT_SHAPE_PLANE:
        if (owner->type != HEFT_BODY_STATIC) {
            heft_set_error("planes can only belong to static bodies");
            return 0;
        }
        if (!heft_v3_isfinite(d->normal) || !(heft_v3_length(d->normal) > 1e-12) ||
            !(heft_v3_length(d->normal) <= HEFT_QUAT_NORM_MAX)) {
            heft_set_error("plane normal must be finite, non-zero and of length at most %g",
                           HEFT_QUAT_NORM_MAX);
            return 0;
        }
        return check_scalar_range(d->offset / heft_v3_length(d->normal), HEFT_POSITION_MAX,
                                  "plane offset", "HEFT_POSITION_MAX");
    case HEFT_SHAPE_MESH:
    case HEFT_SHAPE_HEIGHT_FIELD:
        if (owner->type == HEFT_BODY_DYNAMIC) {
            heft_set_error(
                "meshes and height fields can only belong to static or kinematic bodies");
            return 0;
        }
        return 1;
    }
    heft_set_error("unknown shape type %d", (int)d->type);
    return 0;
}

/* Fills s from d, building the geometry it owns; 0 (nothing allocated) on
 * bad data. */
int shape_build(shape *s, int32_t body_index, const heft_shape_def *d) {
    s->body = body_index;
    s->type = d->type;
    s->radius = d->radius;
    s->half_length = d->half_length;
    s->half_extents = d->half_extents;
    s->normal = heft_v3_normalize(d->normal);
    s->offset = d->offset / (heft_v3_length(d->normal) > 0.0 ? heft_v3_length(d->normal) : 1.0);
    s->local_position = d->local_position;
    s->local_orientation = heft_quat_normalize(d->local_orientation);
    s->friction = d->friction;
    s->restitution = d->restitution;
    s->rolling_resistance = d->rolling_resistance;
    s->density = d->density;
    s->category = d->category_bits;
    s->mask = d->mask_bits;
    s->user_data = d->user_data;
    s->sensor = d->is_sensor != 0;
    s->hull = NULL;
    s->mesh = NULL;
    s->field = NULL;
    s->proxy = -1;
    switch (d->type) {
    case HEFT_SHAPE_BOX:
        s->hull = convex_hull_box(d->half_extents);
        return s->hull != NULL;
    case HEFT_SHAPE_HULL:
        s->hull = convex_hull_build(d->hull.points, d->hull.count);
        return s->hull != NULL;
    case HEFT_SHAPE_MESH:
        s->mesh = mesh_create(&d->mesh);
        return s->mesh != NULL;
    case HEFT_SHAPE_HEIGHT_FIELD:
        s->field = height_field_create(&d->height_field);
        return s->field != NULL;
    default:
        return 1;
    }
}

void shape_release(shape *s) {
    convex_hull_free(s->hull);
    mesh_free(s->mesh);
    height_field_free(s->field);
    s->hull = NULL;
    s->mesh = NULL;
    s->field = NULL;
}

transform shape_transform(const shape *s, const body *b) {
    heft_vec3 p = heft_v3_add(b->position, heft_quat_rotate(b->orientation, s->local_position));
    return transform_make(p, heft_quat_mul(b->orientation, s->local_orientation));
}

aabb shape_aabb(const shape *s, const transform *t) {
    switch (s->type) {
    case HEFT_SHAPE_SPHERE:
        return aabb_grow(aabb_make(t->p, t->p), s->radius);
    case HEFT_SHAPE_CAPSULE: {
        heft_vec3 a = transform_vector(t, heft_v3(0.0, 0.0, s->half_length));
        heft_vec3 p0 = heft_v3_sub(t->p, a), p1 = heft_v3_add(t->p, a);
        return aabb_grow(aabb_make(v3_min(p0, p1), v3_max(p0, p1)), s->radius);
    }
    case HEFT_SHAPE_BOX:
        return aabb_transform(t, aabb_make(heft_v3_neg(s->half_extents), s->half_extents));
    case HEFT_SHAPE_CYLINDER: {
        heft_vec3 u = transform_vector(t, heft_v3(0.0, 0.0, 1.0));
        double h = s->half_length, r = s->radius;
        heft_vec3 e = heft_v3(fabs(u.x) * h + r * sqrt(fmax(0.0, 1.0 - u.x * u.x)),
                              fabs(u.y) * h + r * sqrt(fmax(0.0, 1.0 - u.y * u.y)),
                              fabs(u.z) * h + r * sqrt(fmax(0.0, 1.0 - u.z * u.z)));
        return aabb_make(heft_v3_sub(t->p, e), heft_v3_add(t->p, e));
    }
    case HEFT_SHAPE_HULL: {
        heft_vec3 p = transform_point(t, s->hull->vertices[0]);
        aabb b = aabb_make(p, p);
        for (int i = 1; i < s->hull->vertex_count; ++i) {
            p = transform_point(t, s->hull->vertices[i]);
            b.lo = v3_min(b.lo, p);
            b.hi = v3_max(b.hi, p);
        }
        return b;
    }
    case HEFT_SHAPE_MESH:
        return aabb_transform(t, mesh_bounds(s->mesh));
    case HEFT_SHAPE_HEIGHT_FIELD:
        return aabb_transform(t, height_field_bounds(s->field));
    case HEFT_SHAPE_PLANE:
        break;
    }
    return aabb_make(heft_v3(-INFINITY, -INFINITY, -INFINITY),
                     heft_v3(INFINITY, INFINITY, INFINITY));
}
