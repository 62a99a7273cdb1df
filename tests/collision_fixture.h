/* Helpers of the collision tests: shapes placed on static bodies of a world
 * and collided directly through the narrowphase, and shape defs. */
#ifndef HEFT_COLLISION_FIXTURE_H
#define HEFT_COLLISION_FIXTURE_H

#include <criterion/criterion.h>
#include <string.h>

#include "narrowphase.h"
#include "world.h"

#define FIX_MARGIN 0.05

static inline heft_quat qaxis(double x, double y, double z, double angle) {
    return heft_quat_axis_angle(heft_v3(x, y, z), angle);
}

static inline heft_shape_def sphere_def(double r) {
    heft_shape_def d = heft_default_shape_def();
    d.radius = r;
    return d;
}
static inline heft_shape_def capsule_def(double r, double hl) {
    heft_shape_def d = heft_default_shape_def();
    d.type = HEFT_SHAPE_CAPSULE;
    d.radius = r;
    d.half_length = hl;
    return d;
}
static inline heft_shape_def box_def(double x, double y, double z) {
    heft_shape_def d = heft_default_shape_def();
    d.type = HEFT_SHAPE_BOX;
    d.half_extents = heft_v3(x, y, z);
    return d;
}
static inline heft_shape_def cylinder_def(double r, double hl) {
    heft_shape_def d = heft_default_shape_def();
    d.type = HEFT_SHAPE_CYLINDER;
    d.radius = r;
    d.half_length = hl;
    return d;
}
static inline heft_shape_def hull_def(const heft_vec3 *p, int n) {
    heft_shape_def d = heft_default_shape_def();
    d.type = HEFT_SHAPE_HULL;
    d.hull.points = p;
    d.hull.count = n;
    return d;
}
static inline heft_shape_def plane_def(heft_vec3 n, double offset) {
    heft_shape_def d = heft_default_shape_def();
    d.type = HEFT_SHAPE_PLANE;
    d.normal = n;
    d.offset = offset;
    return d;
}

/* cube corners of half size h, and the octahedron of radius r */
static const heft_vec3 unit_cube[8] = {{-.5, -.5, -.5}, {.5, -.5, -.5}, {-.5, .5, -.5},
                                       {.5, .5, -.5},   {-.5, -.5, .5}, {.5, -.5, .5},
                                       {-.5, .5, .5},   {.5, .5, .5}};
static const heft_vec3 unit_octahedron[6] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                             {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};

/* A 2 m square of two triangles at z = 0 around the origin, facing +z. */
static const heft_vec3 square_vertices[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
static const int32_t square_indices[6] = {0, 1, 2, 0, 2, 3};
static inline heft_shape_def square_mesh_def(void) {
    heft_shape_def d = heft_default_shape_def();
    d.type = HEFT_SHAPE_MESH;
    d.mesh.vertices = square_vertices;
    d.mesh.vertex_count = 4;
    d.mesh.indices = square_indices;
    d.mesh.triangle_count = 2;
    return d;
}

/* A shape on its own static body at pose (p, q). */
static inline heft_shape_id fix_put(heft_world *w, heft_shape_def d, heft_vec3 p, heft_quat q) {
    heft_body_def bd = heft_default_body_def();
    bd.type = HEFT_BODY_STATIC;
    bd.position = p;
    bd.orientation = q;
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_id s = heft_create_shape(w, b, &d);
    cr_assert(s.index >= 0, "shape refused: %s", heft_last_error());
    return s;
}

static inline int fix_collide(heft_world *w, heft_shape_id a, heft_shape_id b, manifold *m) {
    const shape *sa = &w->shapes[a.index], *sb = &w->shapes[b.index];
    transform ta = shape_transform(sa, &w->bodies[sa->body]);
    transform tb = shape_transform(sb, &w->bodies[sb->body]);
    narrow_scratch scratch;
    memset(&scratch, 0, sizeof scratch);
    int n = narrowphase_collide(sa, &ta, sb, &tb, FIX_MARGIN, &scratch, m);
    narrow_scratch_release(&scratch);
    return n;
}

static inline double fix_dist(heft_vec3 a, heft_vec3 b) {
    return heft_v3_length(heft_v3_sub(a, b));
}

/* The manifold has a point at p (within tol) with this normal and separation. */
static inline void fix_expect_point(const manifold *m, heft_vec3 p, heft_vec3 n, double sep,
                                    double tol) {
    int found = -1;
    for (int i = 0; i < m->count; ++i) {
        if (fix_dist(m->points[i].point, p) <= tol) {
            found = i;
        }
    }
    if (found < 0) {
        for (int i = 0; i < m->count; ++i) {
            cr_log_error("have (%.9f, %.9f, %.9f) n (%.6f, %.6f, %.6f) sep %.9f",
                         m->points[i].point.x, m->points[i].point.y, m->points[i].point.z,
                         m->points[i].normal.x, m->points[i].normal.y, m->points[i].normal.z,
                         m->points[i].separation);
        }
        cr_assert_fail("no contact point at (%.9f, %.9f, %.9f)", p.x, p.y, p.z);
    }
    const contact_point *c = &m->points[found];
    cr_assert_lt(fix_dist(c->normal, n), tol,
                 "normal (%.9f, %.9f, %.9f), expected (%.9f, %.9f, %.9f)", c->normal.x, c->normal.y,
                 c->normal.z, n.x, n.y, n.z);
    cr_assert_float_eq(c->separation, sep, tol, "separation %.12f, expected %.12f", c->separation,
                       sep);
}

/* Colliding b with a gives the same contacts seen from the other side: the
 * normal flips and each point moves to the other surface. */
static inline void fix_expect_symmetric(heft_world *w, heft_shape_id a, heft_shape_id b,
                                        const manifold *ab) {
    manifold ba;
    fix_collide(w, b, a, &ba);
    cr_assert_eq(ba.count, ab->count, "%d points one way, %d the other", ab->count, ba.count);
    for (int i = 0; i < ab->count; ++i) {
        const contact_point *c = &ab->points[i];
        heft_vec3 other = heft_v3_madd(c->point, -c->separation, c->normal);
        int found = 0;
        for (int k = 0; k < ba.count && !found; ++k) {
            const contact_point *d = &ba.points[k];
            found = fix_dist(d->point, other) < 1e-9 &&
                    fix_dist(d->normal, heft_v3_neg(c->normal)) < 1e-9 &&
                    fabs(d->separation - c->separation) < 1e-9;
        }
        cr_assert(found, "point %d has no mirror when the shapes are swapped", i);
    }
}

#endif
