/* Debug draw: the world handed to the application's drawing callbacks
 * (heft_world_draw), so that any renderer can show shapes, boxes, contacts
 * and their forces, joint frames and limits, and islands without rebuilding
 * them from read-back calls. */
#include <string.h>

#include "error.h"
#include "joint.h"
#include "world.h"

#define CIRCLE_SEGMENTS 16
#define PLANE_HALF_SIZE 10.0

heft_debug_draw heft_default_debug_draw(void) {
    heft_debug_draw d;
    memset(&d, 0, sizeof d);
    d.axis_length = 0.2;
    d.force_scale = 0.001;
    d.point_size = 5.0;
    return d;
}

static void segment(const heft_debug_draw *d, heft_vec3 a, heft_vec3 b, heft_color c) {
    if (d->segment) {
        d->segment(d->context, a, b, c);
    }
}

/* An arc of radius r about centre c from angle a0 to a1, angle 0 along u and
 * pi/2 along v. */
static void arc(const heft_debug_draw *d, heft_vec3 c, heft_vec3 u, heft_vec3 v, double r,
                double a0, double a1, heft_color color) {
    int n = (int)ceil(fabs(a1 - a0) / (2.0 * HEFT_PI / CIRCLE_SEGMENTS));
    n = n < 1 ? 1 : (n > 4 * CIRCLE_SEGMENTS ? 4 * CIRCLE_SEGMENTS : n);
    heft_vec3 prev = heft_v3_madd(heft_v3_madd(c, r * cos(a0), u), r * sin(a0), v);
    for (int i = 1; i <= n; ++i) {
        double a = a0 + (a1 - a0) * i / n;
        heft_vec3 p = heft_v3_madd(heft_v3_madd(c, r * cos(a), u), r * sin(a), v);
        segment(d, prev, p, color);
        prev = p;
    }
}

static void circle(const heft_debug_draw *d, heft_vec3 c, heft_vec3 u, heft_vec3 v, double r,
                   heft_color color) {
    arc(d, c, u, v, r, 0.0, 2.0 * HEFT_PI, color);
}

static void box_edges(const heft_debug_draw *d, aabb b, heft_color color) {
    heft_vec3 p[8];
    for (int i = 0; i < 8; ++i) {
        p[i] = heft_v3(i & 1 ? b.hi.x : b.lo.x, i & 2 ? b.hi.y : b.lo.y, i & 4 ? b.hi.z : b.lo.z);
    }
    for (int i = 0; i < 8; ++i) {
        for (int bit = 1; bit < 8; bit <<= 1) {
            if (!(i & bit)) {
                segment(d, p[i], p[i | bit], color);
            }
        }
    }
}

static heft_color body_color(const body *b) {
    return b->type == HEFT_BODY_STATIC
               ? HEFT_COLOR_STATIC
               : (b->type == HEFT_BODY_KINEMATIC ? HEFT_COLOR_KINEMATIC : HEFT_COLOR_DYNAMIC);
}

static void triangle_edges(const heft_debug_draw *d, const transform *t, const triangle *tri,
                           heft_color color) {
    heft_vec3 v[3];
    for (int k = 0; k < 3; ++k) {
        v[k] = transform_point(t, tri->v[k]);
    }
    for (int k = 0; k < 3; ++k) {
        segment(d, v[k], v[(k + 1) % 3], color);
    }
}

/* The wireframe of a shape when the application draws no shapes itself. */
static void shape_wireframe(const heft_debug_draw *d, const shape *s, const transform *t,
                            heft_color color) {
    heft_vec3 ex = transform_vector(t, heft_v3(1.0, 0.0, 0.0));
    heft_vec3 ey = transform_vector(t, heft_v3(0.0, 1.0, 0.0));
    heft_vec3 ez = transform_vector(t, heft_v3(0.0, 0.0, 1.0));
    switch (s->type) {
    case HEFT_SHAPE_SPHERE:
        circle(d, t->p, ex, ey, s->radius, color);
        circle(d, t->p, ey, ez, s->radius, color);
        circle(d, t->p, ez, ex, s->radius, color);
        return;
    case HEFT_SHAPE_CAPSULE:
    case HEFT_SHAPE_CYLINDER: {
        double r = s->radius, hl = s->half_length;
        heft_vec3 top = heft_v3_madd(t->p, hl, ez), bottom = heft_v3_madd(t->p, -hl, ez);
        circle(d, top, ex, ey, r, color);
        circle(d, bottom, ex, ey, r, color);
        heft_vec3 side[4] = {ex, ey, heft_v3_neg(ex), heft_v3_neg(ey)};
        for (int k = 0; k < 4; ++k) {
            segment(d, heft_v3_madd(bottom, r, side[k]), heft_v3_madd(top, r, side[k]), color);
        }
        if (s->type == HEFT_SHAPE_CAPSULE) { /* the caps' half circles */
            arc(d, top, ex, ez, r, 0.0, HEFT_PI, color);
            arc(d, top, ey, ez, r, 0.0, HEFT_PI, color);
            arc(d, bottom, ex, ez, r, HEFT_PI, 2.0 * HEFT_PI, color);
            arc(d, bottom, ey, ez, r, HEFT_PI, 2.0 * HEFT_PI, color);
        }
        return;
    }
    case HEFT_SHAPE_BOX:
    case HEFT_SHAPE_HULL: {
        const convex_hull *h = s->hull;
        for (int e = 0; e < h->edge_count; ++e) {
            const hull_half_edge *he = &h->edges[e];
            if (e < he->twin) {
                segment(d, transform_point(t, h->vertices[he->origin]),
                        transform_point(t, h->vertices[h->edges[he->next].origin]), color);
            }
        }
        return;
    }
    case HEFT_SHAPE_PLANE: {
        heft_vec3 n = transform_vector(t, s->normal);
        heft_vec3 c = heft_v3_madd(t->p, s->offset, n);
        heft_vec3 u = v3_perpendicular(n), v = heft_v3_cross(n, u);
        heft_vec3 corner[4];
        for (int k = 0; k < 4; ++k) {
            double a = k == 0 || k == 3 ? -PLANE_HALF_SIZE : PLANE_HALF_SIZE;
            double b = k < 2 ? -PLANE_HALF_SIZE : PLANE_HALF_SIZE;
            corner[k] = heft_v3_madd(heft_v3_madd(c, a, u), b, v);
        }
        for (int k = 0; k < 4; ++k) {
            segment(d, corner[k], corner[(k + 1) % 4], color);
        }
        segment(d, corner[0], corner[2], color);
        segment(d, corner[1], corner[3], color);
        return;
    }
    case HEFT_SHAPE_MESH:
        for (int i = 0; i < s->mesh->triangle_count; ++i) {
            triangle tri;
            mesh_triangle(s->mesh, i, &tri);
            triangle_edges(d, t, &tri, color);
        }
        return;
    case HEFT_SHAPE_HEIGHT_FIELD: {
        int count = height_field_triangle_count(s->field);
        for (int i = 0; i < count; ++i) {
            triangle tri;
            height_field_triangle(s->field, i, &tri);
            triangle_edges(d, t, &tri, color);
        }
        return;
    }
    }
}

static void draw_shapes(const heft_world *w, const heft_debug_draw *d, uint32_t flags) {
    for (int i = 0; i < w->shape_high; ++i) {
        const shape *s = &w->shapes[i];
        if (!s->slot.alive) {
            continue;
        }
        const body *b = &w->bodies[s->body];
        transform t = shape_transform(s, b);
        if (flags & HEFT_DRAW_SHAPES) {
            const heft_color color = s->sensor ? HEFT_COLOR_SENSOR : body_color(b);
            if (d->shape) {
                heft_shape_id id = {i, s->slot.generation};
                d->shape(d->context, id, s->type, t.p,
                         heft_quat_mul(b->orientation, s->local_orientation), color);
            } else {
                shape_wireframe(d, s, &t, color);
            }
        }
        if ((flags & HEFT_DRAW_AABBS) && s->type != HEFT_SHAPE_PLANE) {
            box_edges(d, shape_aabb(s, &t), HEFT_COLOR_AABB);
        }
    }
}

static void draw_contacts(const heft_world *w, const heft_debug_draw *d, uint32_t flags) {
    double h = w->broad.h;
    for (int i = 0; i < w->contacts.count; ++i) {
        const contact *c = &w->contacts.items[i];
        if (flags & HEFT_DRAW_CONTACTS) {
            if (d->point) {
                d->point(d->context, c->point, d->point_size, HEFT_COLOR_CONTACT);
            }
            segment(d, c->point, heft_v3_madd(c->point, d->axis_length, c->normal),
                    HEFT_COLOR_CONTACT_NORMAL);
        }
        if ((flags & HEFT_DRAW_CONTACT_FORCES) && h > 0.0) {
            double k = d->force_scale / h;
            heft_vec3 t1, t2;
            heft_v3_basis(c->normal, &t1, &t2);
            heft_vec3 friction =
                heft_v3_add(heft_v3_scale(t1, c->lambda[1]), heft_v3_scale(t2, c->lambda[2]));
            segment(d, c->point, heft_v3_madd(c->point, k * c->lambda[0], c->normal),
                    HEFT_COLOR_CONTACT_NORMAL);
            segment(d, c->point, heft_v3_madd(c->point, k, friction), HEFT_COLOR_CONTACT_FRICTION);
        }
    }
}

static heft_vec3 frame_axis(heft_quat q, int k) {
    return heft_quat_rotate(q, heft_v3(k == 0, k == 1, k == 2));
}

static void draw_limits(const joint *j, const joint_frame *f, const heft_debug_draw *d) {
    double len = d->axis_length;
    heft_color color = HEFT_COLOR_JOINT_LIMIT;
    for (int dof = 0; dof < HEFT_JOINT_DOF_COUNT; ++dof) {
        const heft_joint_limit *l = &j->limit[dof];
        if (!l->enabled) {
            continue;
        }
        heft_vec3 o = f->anchor_a;
        if (dof <= HEFT_DOF_Z) {
            heft_vec3 e = frame_axis(f->qa, dof);
            segment(d, heft_v3_madd(o, l->lower, e), heft_v3_madd(o, l->upper, e), color);
        } else if (dof <= HEFT_DOF_RZ) {
            /* about axis k, angle 0 along the next axis */
            int k = dof - HEFT_DOF_RX;
            heft_vec3 u = frame_axis(f->qa, (k + 1) % 3), v = frame_axis(f->qa, (k + 2) % 3);
            arc(d, o, u, v, len, l->lower, l->upper, color);
            segment(d, o,
                    heft_v3_madd(heft_v3_madd(o, len * cos(l->lower), u), len * sin(l->lower), v),
                    color);
            segment(d, o,
                    heft_v3_madd(heft_v3_madd(o, len * cos(l->upper), u), len * sin(l->upper), v),
                    color);
        } else {
            /* the ball joint's cone about a's axis, half-angle upper */
            heft_vec3 x = frame_axis(f->qa, 0), y = frame_axis(f->qa, 1), z = frame_axis(f->qa, 2);
            heft_vec3 c = heft_v3_madd(o, len * cos(l->upper), x);
            double r = len * sin(l->upper);
            circle(d, c, y, z, r, color);
            heft_vec3 side[4] = {y, z, heft_v3_neg(y), heft_v3_neg(z)};
            for (int s = 0; s < 4; ++s) {
                segment(d, o, heft_v3_madd(c, r, side[s]), color);
            }
        }
    }
}

static void draw_joints(const heft_world *w, const heft_debug_draw *d, uint32_t flags) {
    for (int i = 0; i < w->joint_high; ++i) {
        const joint *j = &w->joints[i];
        if (!j->slot.alive || j->type == HEFT_JOINT_GEAR || j->type == HEFT_JOINT_RACK) {
            continue;
        }
        joint_frame f;
        joint_frame_compute(j, w->bodies, &f);
        if (flags & HEFT_DRAW_JOINTS) {
            if (d->transform) {
                d->transform(d->context, f.anchor_a, f.qa);
                d->transform(d->context, f.anchor_b, f.qb);
            }
            if (j->body_a >= 0) {
                segment(d, w->bodies[j->body_a].position, f.anchor_a, HEFT_COLOR_JOINT);
            }
            segment(d, w->bodies[j->body_b].position, f.anchor_b, HEFT_COLOR_JOINT);
            segment(d, f.anchor_a, f.anchor_b, HEFT_COLOR_JOINT);
        }
        if (flags & HEFT_DRAW_JOINT_LIMITS) {
            draw_limits(j, &f, d);
        }
    }
}

/* A colour per island, cycling through eight. */
static heft_color island_color(int k) {
    static const heft_color palette[8] = {0xE6194Bu, 0x3CB44Bu, 0x4363D8u, 0xF58231u,
                                          0x911EB4u, 0x46F0F0u, 0xF032E6u, 0xBCF60Cu};
    return palette[k % 8];
}

static heft_result draw_islands(const heft_world *w, const heft_debug_draw *d) {
    int n = w->island_stats_count;
    if (n <= 0) {
        return HEFT_OK;
    }
    aabb *boxes = heft_alloc(sizeof(aabb) * (size_t)n);
    int *seen = heft_alloc(sizeof(int) * (size_t)n);
    if (!boxes || !seen) {
        heft_free(boxes);
        heft_free(seen);
        heft_set_error("out of memory");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    memset(seen, 0, sizeof(int) * (size_t)n);
    for (int i = 0; i < w->body_high; ++i) {
        const body *b = &w->bodies[i];
        if (!b->slot.alive || !body_is_dynamic(b) || b->island < 0 || b->island >= n) {
            continue;
        }
        for (int32_t k = b->shapes; k >= 0; k = w->shapes[k].body_next) {
            const shape *s = &w->shapes[k];
            transform t = shape_transform(s, b);
            aabb box = shape_aabb(s, &t);
            boxes[b->island] = seen[b->island] ? aabb_union(boxes[b->island], box) : box;
            seen[b->island] = 1;
        }
    }
    for (int k = 0; k < n; ++k) {
        if (seen[k]) {
            box_edges(d, boxes[k], island_color(k));
        }
    }
    heft_free(boxes);
    heft_free(seen);
    return HEFT_OK;
}

/* Each sleeping island as a box around its bodies' shapes. */
static void draw_sleeping(const heft_world *w, const heft_debug_draw *d) {
    for (int32_t k = 0; k < w->island_high; ++k) {
        const world_island *is = &w->islands[k];
        if (is->id == 0 || !is->sleeping) {
            continue;
        }
        aabb box;
        int seen = 0;
        for (int32_t i = is->body_first; i >= 0; i = w->bodies[i].island_next) {
            const body *b = &w->bodies[i];
            for (int32_t s = b->shapes; s >= 0; s = w->shapes[s].body_next) {
                transform t = shape_transform(&w->shapes[s], b);
                aabb sb = shape_aabb(&w->shapes[s], &t);
                box = seen ? aabb_union(box, sb) : sb;
                seen = 1;
            }
        }
        if (seen) {
            box_edges(d, box, HEFT_COLOR_SLEEP);
        }
    }
}

static void draw_bodies(const heft_world *w, const heft_debug_draw *d, uint32_t flags) {
    for (int i = 0; i < w->body_high; ++i) {
        const body *b = &w->bodies[i];
        if (!b->slot.alive) {
            continue;
        }
        if ((flags & HEFT_DRAW_MASS) && body_is_dynamic(b) && d->transform) {
            d->transform(d->context, b->position, b->orientation);
        }
        if ((flags & HEFT_DRAW_NAMES) && b->name[0] && d->text) {
            d->text(d->context, b->position, b->name, HEFT_COLOR_TEXT);
        }
    }
}

static int size_ok(double x) {
    return isfinite(x) && x >= 0.0;
}

heft_result heft_world_draw(const heft_world *w, const heft_debug_draw *d, uint32_t flags) {
    if (!w || !d) {
        heft_set_error("heft_world_draw: world and draw must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!size_ok(d->axis_length) || !size_ok(d->force_scale) || !size_ok(d->point_size)) {
        heft_set_error("heft_world_draw: axis_length, force_scale and point_size must be finite "
                       "and non-negative");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (flags & (HEFT_DRAW_SHAPES | HEFT_DRAW_AABBS)) {
        draw_shapes(w, d, flags);
    }
    if (flags & (HEFT_DRAW_CONTACTS | HEFT_DRAW_CONTACT_FORCES)) {
        draw_contacts(w, d, flags);
    }
    if (flags & (HEFT_DRAW_JOINTS | HEFT_DRAW_JOINT_LIMITS)) {
        draw_joints(w, d, flags);
    }
    if (flags & (HEFT_DRAW_MASS | HEFT_DRAW_NAMES)) {
        draw_bodies(w, d, flags);
    }
    if (flags & HEFT_DRAW_SLEEP) {
        draw_sleeping(w, d);
    }
    if (flags & HEFT_DRAW_ISLANDS) {
        return draw_islands(w, d);
    }
    return HEFT_OK;
}
