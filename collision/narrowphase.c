/* The narrowphase of a shape pair: planes, meshes and height fields come
 * first (they are static), convex pairs go to collide_convex. */
#include "narrowphase.h"

void narrow_scratch_release(narrow_scratch *s) {
    heft_free(s->triangles);
    heft_free(s->points);
    s->triangles = NULL;
    s->points = NULL;
    s->triangle_capacity = s->point_capacity = 0;
}

void shape_convex_view(const shape *s, const transform *t, convex_view *cv, convex_storage *st) {
    switch (s->type) {
    case HEFT_SHAPE_SPHERE:
        convex_view_sphere(cv, t->p, s->radius);
        return;
    case HEFT_SHAPE_CAPSULE: {
        heft_vec3 axis = transform_vector(t, heft_v3(0.0, 0.0, s->half_length));
        convex_view_capsule(cv, heft_v3_sub(t->p, axis), heft_v3_add(t->p, axis), s->radius);
        return;
    }
    case HEFT_SHAPE_BOX:
    case HEFT_SHAPE_HULL:
        convex_view_polytope(cv, s->hull, t, st);
        return;
    case HEFT_SHAPE_CYLINDER:
        convex_view_cylinder(cv, t, s->radius, s->half_length);
        return;
    default:
        convex_view_sphere(cv, t->p, 0.0); /* not convex: never called */
        return;
    }
}

static int is_static_type(heft_shape_type t) {
    return t == HEFT_SHAPE_PLANE || t == HEFT_SHAPE_MESH || t == HEFT_SHAPE_HEIGHT_FIELD;
}

static void flip(manifold *m) {
    for (int i = 0; i < m->count; ++i) {
        contact_point *c = &m->points[i];
        c->point = heft_v3_madd(c->point, -c->separation, c->normal);
        c->normal = heft_v3_neg(c->normal);
    }
}

int narrowphase_collide(const shape *a, const transform *ta, const shape *b, const transform *tb,
                        double margin, narrow_scratch *scratch, manifold *m) {
    m->count = 0;
    if (is_static_type(a->type) && is_static_type(b->type)) {
        return 0;
    }
    if (is_static_type(b->type)) {
        int n = narrowphase_collide(b, tb, a, ta, margin, scratch, m);
        flip(m);
        return n;
    }
    convex_storage sb;
    convex_view vb;
    shape_convex_view(b, tb, &vb, &sb);
    if (a->type == HEFT_SHAPE_PLANE) {
        heft_vec3 n = transform_vector(ta, a->normal);
        return collide_plane(n, a->offset + heft_v3_dot(n, ta->p), &vb, margin, m);
    }
    if (a->type == HEFT_SHAPE_MESH || a->type == HEFT_SHAPE_HEIGHT_FIELD) {
        aabb box = aabb_grow(shape_aabb(b, tb), margin);
        return collide_triangles(a, ta, &vb, box, margin, scratch, m);
    }
    convex_storage sa;
    convex_view va;
    shape_convex_view(a, ta, &va, &sa);
    return collide_convex(&va, &vb, margin, m);
}
