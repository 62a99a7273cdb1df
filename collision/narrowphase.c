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

/* The pair with the views of a and b when already made (NULL: made here). */
static int collide_views(const shape *a, const transform *ta, const convex_view *va, const shape *b,
                         const transform *tb, const convex_view *vb, double margin,
                         narrow_scratch *scratch, manifold *m) {
    m->count = 0;
    if (is_static_type(a->type) && is_static_type(b->type)) {
        return 0;
    }
    if (is_static_type(b->type)) {
        int n = collide_views(b, tb, vb, a, ta, va, margin, scratch, m);
        flip(m);
        return n;
    }
    convex_storage sb;
    convex_view own_b;
    if (!vb) {
        shape_convex_view(b, tb, &own_b, &sb);
        vb = &own_b;
    }
    if (a->type == HEFT_SHAPE_PLANE) {
        heft_vec3 n = transform_vector(ta, a->normal);
        return collide_plane(n, a->offset + heft_v3_dot(n, ta->p), vb, margin, m);
    }
    if (a->type == HEFT_SHAPE_MESH || a->type == HEFT_SHAPE_HEIGHT_FIELD) {
        aabb box = aabb_grow(shape_aabb(b, tb), margin);
        return collide_triangles(a, ta, vb, box, margin, scratch, m);
    }
    convex_storage sa;
    convex_view own_a;
    if (!va) {
        shape_convex_view(a, ta, &own_a, &sa);
        va = &own_a;
    }
    return collide_convex(va, vb, margin, m);
}

int narrowphase_collide(const shape *a, const transform *ta, const shape *b, const transform *tb,
                        double margin, narrow_scratch *scratch, manifold *m) {
    return collide_views(a, ta, NULL, b, tb, NULL, margin, scratch, m);
}

void shape_pose_make(const shape *s, const body *b, shape_pose *out) {
    out->t = shape_transform(s, b);
    const convex_hull *h = s->hull;
    out->has_view = s->type == HEFT_SHAPE_BOX && h && h->vertex_count <= SHAPE_POSE_BOX_VERTICES &&
                    h->face_count <= SHAPE_POSE_BOX_FACES;
    if (out->has_view) {
        convex_view_polytope_into(&out->view, h, &out->t, out->v, out->planes);
    }
}

int narrowphase_collide_posed(const shape *a, const shape_pose *pa, const shape *b,
                              const shape_pose *pb, double margin, narrow_scratch *scratch,
                              manifold *m) {
    if (pa->has_view && pb->has_view) {
        /* two boxes placed once for the step: what collide_views and
         * collide_convex come to for two polytopes */
        m->count = 0;
        return collide_polytopes(&pa->view, &pb->view, margin, m);
    }
    return collide_views(a, &pa->t, pa->has_view ? &pa->view : NULL, b, &pb->t,
                         pb->has_view ? &pb->view : NULL, margin, scratch, m);
}
