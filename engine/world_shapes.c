/* The world's shapes: creation on a body, destruction, settings and
 * readback through ids; the geometry itself is collision/shape.c. */
#include <math.h>
#include <string.h>

#include "error.h"
#include "body_links.h"
#include "island.h"
#include "sleep.h"
#include "world.h"

void collision_release(heft_world *w) {
    for (int i = 0; i < w->shape_high; ++i) {
        if (w->shapes[i].slot.alive) {
            shape_release(&w->shapes[i]);
        }
    }
    broad_phase_release(&w->broad);
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
    body_link_shape(w, index);
    sleep_wake_body(w, body_id.index);
    w->shape_live++;
    /* the narrowphase's poses grow with the shapes, not in a step (out of
     * memory here, the step tries again) */
    (void)contact_set_reserve_poses(&w->contacts, w->shape_capacity);
    heft_shape_id id = {index, s->slot.generation};
    return id;
}

heft_result heft_destroy_shape(heft_world *w, heft_shape_id id) {
    shape *s = world_shape(w, id);
    if (!s) {
        heft_set_error("shape id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    /* what it held up wakes, and its island may come apart */
    sleep_wake_touching(w, s->body);
    sleep_wake_body(w, s->body);
    island_mark_link_removed(w, s->body);
    broad_phase_remove(w, id.index);
    contact_set_remove_shape(&w->contacts, id.index);
    shape_release(s);
    body_unlink_shape(w, id.index);
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
    d.rolling_resistance = s->rolling_resistance;
    d.density = s->density;
    d.category_bits = s->category;
    d.mask_bits = s->mask;
    d.user_data = s->user_data;
    d.is_sensor = s->sensor;
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
    for (int32_t i = w->bodies[body_id.index].shapes; i >= 0; i = w->shapes[i].body_next) {
        if (out && n < max) {
            out[n].index = i;
            out[n].generation = w->shapes[i].slot.generation;
        }
        n++;
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
    if (!shape_check_material(friction, restitution)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    s->friction = friction;
    s->restitution = restitution;
    sleep_wake_body(w, s->body);
    return HEFT_OK;
}

heft_result heft_shape_set_rolling_resistance(heft_world *w, heft_shape_id id,
                                              double rolling_resistance) {
    shape *s = world_shape(w, id);
    if (!s) {
        heft_set_error("heft_shape_set_rolling_resistance: shape id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    if (!shape_check_rolling_resistance(rolling_resistance, "heft_shape_set_rolling_resistance")) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    s->rolling_resistance = rolling_resistance;
    sleep_wake_body(w, s->body);
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
    sleep_wake_body(w, s->body);
    return HEFT_OK;
}

void *heft_shape_user_data(const heft_world *w, heft_shape_id id) {
    const shape *s = world_shape(w, id);
    return s ? s->user_data : NULL;
}

heft_result heft_shape_set_user_data(heft_world *w, heft_shape_id id, void *user_data) {
    shape *s = world_shape(w, id);
    if (!s) {
        heft_set_error("shape id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    s->user_data = user_data;
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
