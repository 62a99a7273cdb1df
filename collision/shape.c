/* Shapes: validation, creation with their own copies of hull, mesh and
 * height-field data, bounding boxes, readback and destruction. */
#include <string.h>

#include "broad_phase.h"
#include "error.h"
#include "input_check.h"
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

static int positive(double x) {
    return isfinite(x) && x > 0.0;
}

static int check_material(double friction, double restitution) {
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
    if (!check_material(d->friction, d->restitution)) {
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
static int shape_build(shape *s, int32_t body_index, const heft_shape_def *d) {
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
    s->density = d->density;
    s->category = d->category_bits;
    s->mask = d->mask_bits;
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

void collision_release(heft_world *w) {
    for (int i = 0; i < w->shape_high; ++i) {
        if (w->shapes[i].slot.alive) {
            shape_release(&w->shapes[i]);
        }
    }
    broad_phase_release(&w->broad);
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

static shape *world_shape(const heft_world *w, heft_shape_id id) {
    return w ? slots_get(w->shapes, sizeof(shape), w->shape_high, id.index, id.generation) : NULL;
}

heft_shape_id heft_create_shape(heft_world *w, heft_body_id body_id, const heft_shape_def *def) {
    heft_shape_id invalid = {-1, 0};
    body *b = world_body(w, body_id);
    if (!b || !def) {
        heft_set_error(!w  ? "heft_create_shape: world is NULL"
                       : b ? "heft_create_shape: def must not be NULL"
                           : "heft_create_shape: the shape's body id is not valid");
        return invalid;
    }
    if (!shape_check_def(def, b)) {
        return invalid;
    }
    shape built;
    memset(&built, 0, sizeof built);
    if (!shape_build(&built, body_id.index, def)) {
        return invalid;
    }
    int index = slots_acquire((void **)&w->shapes, &w->shape_capacity, &w->shape_high,
                              &w->shape_free, sizeof(shape));
    if (index < 0) {
        shape_release(&built);
        heft_set_error("out of memory");
        return invalid;
    }
    shape *s = &w->shapes[index];
    built.slot = s->slot;
    *s = built;
    if (!broad_phase_add(w, index)) {
        shape_release(s);
        slots_release(w->shapes, sizeof(shape), index, &w->shape_free);
        heft_set_error("out of memory");
        return invalid;
    }
    w->shape_live++;
    heft_shape_id id = {index, s->slot.generation};
    return id;
}

heft_result heft_destroy_shape(heft_world *w, heft_shape_id id) {
    shape *s = world_shape(w, id);
    if (!s) {
        heft_set_error("shape id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    broad_phase_remove(w, id.index);
    contact_set_remove_shape(&w->contacts, id.index);
    shape_release(s);
    slots_release(w->shapes, sizeof(shape), id.index, &w->shape_free);
    w->shape_live--;
    return HEFT_OK;
}

int heft_shape_is_valid(const heft_world *w, heft_shape_id id) {
    return world_shape(w, id) != NULL;
}

heft_body_id heft_shape_body(const heft_world *w, heft_shape_id id) {
    heft_body_id none = {-1, 0};
    const shape *s = world_shape(w, id);
    if (!s) {
        heft_set_error("heft_shape_body: shape id is not valid");
        return none;
    }
    heft_body_id b = {s->body, w->bodies[s->body].slot.generation};
    return b;
}

heft_result heft_shape_get_def(const heft_world *w, heft_shape_id id, heft_shape_def *out) {
    const shape *s = world_shape(w, id);
    if (!s || !out) {
        heft_set_error(s ? "out must not be NULL" : "shape id is not valid");
        return s ? HEFT_ERROR_INVALID_ARGUMENT : HEFT_ERROR_INVALID_ID;
    }
    heft_shape_def d = heft_default_shape_def();
    d.type = s->type;
    d.radius = s->radius;
    d.half_length = s->half_length;
    d.half_extents = s->half_extents;
    d.normal = s->normal;
    d.offset = s->offset;
    d.local_position = s->local_position;
    d.local_orientation = s->local_orientation;
    d.friction = s->friction;
    d.restitution = s->restitution;
    d.density = s->density;
    d.category_bits = s->category;
    d.mask_bits = s->mask;
    if (s->type == HEFT_SHAPE_HULL) {
        d.hull.points = s->hull->vertices;
        d.hull.count = s->hull->vertex_count;
    }
    if (s->mesh) {
        d.mesh.vertices = s->mesh->vertices;
        d.mesh.vertex_count = s->mesh->vertex_count;
        d.mesh.indices = s->mesh->indices;
        d.mesh.triangle_count = s->mesh->triangle_count;
    }
    if (s->field) {
        d.height_field.heights = s->field->heights;
        d.height_field.count_x = s->field->count_x;
        d.height_field.count_y = s->field->count_y;
        d.height_field.spacing_x = s->field->spacing_x;
        d.height_field.spacing_y = s->field->spacing_y;
    }
    *out = d;
    return HEFT_OK;
}

int heft_body_shapes(const heft_world *w, heft_body_id body_id, heft_shape_id *out, int max) {
    if (!world_body(w, body_id)) {
        heft_set_error("heft_body_shapes: body id is not valid");
        return 0;
    }
    int n = 0;
    for (int i = 0; i < w->shape_high; ++i) {
        const shape *s = &w->shapes[i];
        if (s->slot.alive && s->body == body_id.index) {
            if (out && n < max) {
                out[n].index = i;
                out[n].generation = s->slot.generation;
            }
            n++;
        }
    }
    return n;
}

heft_result heft_shape_set_material(heft_world *w, heft_shape_id id, double friction,
                                    double restitution) {
    shape *s = world_shape(w, id);
    if (!s) {
        heft_set_error("shape id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    if (!check_material(friction, restitution)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    s->friction = friction;
    s->restitution = restitution;
    return HEFT_OK;
}

heft_result heft_shape_set_filter(heft_world *w, heft_shape_id id, uint32_t category,
                                  uint32_t mask) {
    shape *s = world_shape(w, id);
    if (!s) {
        heft_set_error("shape id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    s->category = category;
    s->mask = mask;
    return HEFT_OK;
}

heft_result heft_shape_aabb(const heft_world *w, heft_shape_id id, heft_vec3 *lo, heft_vec3 *hi) {
    const shape *s = world_shape(w, id);
    if (!s || !lo || !hi) {
        heft_set_error(s ? "lo and hi must not be NULL" : "shape id is not valid");
        return s ? HEFT_ERROR_INVALID_ARGUMENT : HEFT_ERROR_INVALID_ID;
    }
    transform t = shape_transform(s, &w->bodies[s->body]);
    aabb b = shape_aabb(s, &t);
    *lo = b.lo;
    *hi = b.hi;
    return HEFT_OK;
}

static void put_triangle(heft_vec3 *out, int max, int n, heft_vec3 a, heft_vec3 b, heft_vec3 c) {
    if (out && n < max) {
        out[3 * n] = a;
        out[3 * n + 1] = b;
        out[3 * n + 2] = c;
    }
}

int heft_shape_triangles(const heft_world *w, heft_shape_id id, heft_vec3 *out, int max) {
    const shape *s = world_shape(w, id);
    if (!s) {
        heft_set_error("shape id is not valid");
        return 0;
    }
    int n = 0;
    if (s->hull) {
        const convex_hull *h = s->hull;
        for (int f = 0; f < h->face_count; ++f) {
            int e0 = h->face_edge[f];
            heft_vec3 a = h->vertices[h->edges[e0].origin];
            for (int e = h->edges[e0].next; h->edges[e].next != e0; e = h->edges[e].next) {
                put_triangle(out, max, n++, a, h->vertices[h->edges[e].origin],
                             h->vertices[h->edges[h->edges[e].next].origin]);
            }
        }
    } else if (s->mesh) {
        for (int t = 0; t < s->mesh->triangle_count; ++t) {
            triangle tri;
            mesh_triangle(s->mesh, t, &tri);
            put_triangle(out, max, n++, tri.v[0], tri.v[1], tri.v[2]);
        }
    } else if (s->field) {
        int count = height_field_triangle_count(s->field);
        for (int t = 0; t < count; ++t) {
            triangle tri;
            height_field_triangle(s->field, t, &tri);
            put_triangle(out, max, n++, tri.v[0], tri.v[1], tri.v[2]);
        }
    }
    return n;
}
