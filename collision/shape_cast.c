/* Conservative advancement (Mirtich 1996): at the moving shape's pose at t,
 * GJK gives the distance d to the target and the direction n between the
 * closest points; no point of the moving shape approaches the target faster
 * than v . n + |omega| reach, so t may advance by d over that speed without
 * passing the first contact. For a pure translation (the queries) the
 * distance is a convex function of t and n its derivative's direction, so
 * this is Newton's method from the left: it never overshoots and converges
 * quadratically except at grazing contact, and it stops as soon as the
 * closing speed turns non-positive (the distance can only grow from there). */
#include "shape_cast.h"

#include <string.h>

#include "array.h"

#define CAST_ITERATIONS 100
#define CAST_TOLERANCE 1e-10 /* m, times max(1, the shape's reach) */

int cast_shape_make(cast_shape *c, const shape *s, const transform *local) {
    memset(c, 0, sizeof *c);
    c->frame = *local;
    double far2 = 0.0;
    switch (s->type) {
    case HEFT_SHAPE_SPHERE:
        c->points[0] = local->p;
        c->count = 1;
        c->radius = s->radius;
        c->extent = s->radius;
        break;
    case HEFT_SHAPE_CAPSULE: {
        heft_vec3 a = transform_vector(local, heft_v3(0.0, 0.0, s->half_length));
        c->points[0] = heft_v3_sub(local->p, a);
        c->points[1] = heft_v3_add(local->p, a);
        c->count = 2;
        c->radius = s->radius;
        c->extent = s->radius;
        break;
    }
    case HEFT_SHAPE_BOX:
    case HEFT_SHAPE_HULL: {
        const convex_hull *h = s->hull;
        for (int i = 0; i < h->vertex_count; ++i) {
            c->points[i] = transform_point(local, h->vertices[i]);
        }
        c->count = h->vertex_count;
        double inner = INFINITY;
        for (int f = 0; f < h->face_count; ++f) {
            inner =
                fmin(inner, h->planes[f].offset - heft_v3_dot(h->planes[f].normal, h->centroid));
        }
        c->extent = fmax(inner, 0.0);
        break;
    }
    case HEFT_SHAPE_CYLINDER:
        c->cylinder = 1;
        c->cyl_radius = s->radius;
        c->cyl_half = s->half_length;
        c->extent = fmin(s->radius, s->half_length);
        far2 = s->radius * s->radius + s->half_length * s->half_length;
        c->reach = heft_v3_length(local->p) + sqrt(far2);
        return 1;
    default:
        return 0;
    }
    for (int i = 0; i < c->count; ++i) {
        far2 = fmax(far2, v3_length2(c->points[i]));
    }
    c->reach = sqrt(far2) + c->radius;
    return 1;
}

void cast_shape_core(const cast_shape *c, cast_shape *core) {
    heft_vec3 center = c->frame.p;
    if (!c->cylinder) {
        center = heft_v3(0.0, 0.0, 0.0);
        for (int i = 0; i < c->count; ++i) {
            center = heft_v3_add(center, c->points[i]);
        }
        center = heft_v3_scale(center, 1.0 / c->count);
    }
    memset(core, 0, sizeof *core);
    core->frame = c->frame;
    core->points[0] = center;
    core->count = 1;
    core->radius = 0.25 * c->extent;
    core->extent = core->radius;
    core->reach = heft_v3_length(center) + core->radius;
}

transform cast_motion_at(const cast_motion *m, double t) {
    heft_quat q = m->orientation;
    if (t != 0.0 && (m->angular.x != 0.0 || m->angular.y != 0.0 || m->angular.z != 0.0)) {
        q = heft_quat_integrate(q, m->angular, t);
    }
    return transform_make(heft_v3_madd(m->position, t, m->velocity), q);
}

/* The core of c at world pose t; buffer holds the points. */
static void place(const cast_shape *c, const transform *t, heft_vec3 *buffer, convex_proxy *p) {
    memset(p, 0, sizeof *p);
    if (c->cylinder) {
        transform f = transform_mul(t, &c->frame);
        p->cylinder = 1;
        p->center = f.p;
        p->axis = transform_vector(&f, heft_v3(0.0, 0.0, 1.0));
        p->radius = c->cyl_radius;
        p->half_length = c->cyl_half;
        return;
    }
    for (int i = 0; i < c->count; ++i) {
        buffer[i] = transform_point(t, c->points[i]);
    }
    p->points = buffer;
    p->count = c->count;
}

static aabb placed_box(const convex_proxy *p, double radius) {
    heft_vec3 lo, hi;
    int index;
    lo.x = proxy_support(p, heft_v3(-1.0, 0.0, 0.0), &index).x;
    lo.y = proxy_support(p, heft_v3(0.0, -1.0, 0.0), &index).y;
    lo.z = proxy_support(p, heft_v3(0.0, 0.0, -1.0), &index).z;
    hi.x = proxy_support(p, heft_v3(1.0, 0.0, 0.0), &index).x;
    hi.y = proxy_support(p, heft_v3(0.0, 1.0, 0.0), &index).y;
    hi.z = proxy_support(p, heft_v3(0.0, 0.0, 1.0), &index).z;
    return aabb_grow(aabb_make(lo, hi), radius);
}

aabb cast_swept_box(const cast_shape *c, const cast_motion *m, double t_max) {
    heft_vec3 buffer[HULL_MAX_VERTICES];
    convex_proxy p;
    transform t0 = cast_motion_at(m, 0.0), t1 = cast_motion_at(m, t_max);
    place(c, &t0, buffer, &p);
    aabb box = placed_box(&p, c->radius);
    place(c, &t1, buffer, &p);
    box = aabb_union(box, placed_box(&p, c->radius));
    if (m->angular.x != 0.0 || m->angular.y != 0.0 || m->angular.z != 0.0) {
        /* turning: every point stays within reach of the origin's path */
        aabb path = aabb_make(v3_min(t0.p, t1.p), v3_max(t0.p, t1.p));
        box = aabb_union(box, aabb_grow(path, c->reach));
    }
    return box;
}

/* What the moving shape is cast against: a convex core with its rounding, or
 * a plane (solid below n . x = d). */
typedef struct cast_target {
    int plane;
    convex_proxy proxy;
    double radius;
    heft_vec3 plane_n;
    double plane_d;
} cast_target;

typedef struct separation {
    double d;        /* surface distance */
    heft_vec3 n;     /* unit, from the moving shape towards the target */
    heft_vec3 point; /* on the target's surface */
    int overlap;     /* the cores overlap: d and n are not known */
    gjk_simplex simplex;
} separation;

static void separate(const convex_proxy *pa, double ra, const cast_target *tg, separation *s) {
    memset(s, 0, sizeof *s);
    if (tg->plane) {
        int index;
        heft_vec3 sp = proxy_support(pa, heft_v3_neg(tg->plane_n), &index);
        double above = heft_v3_dot(tg->plane_n, sp) - tg->plane_d;
        s->d = above - ra;
        s->n = heft_v3_neg(tg->plane_n);
        s->point = heft_v3_madd(sp, -above, tg->plane_n);
        return;
    }
    gjk_output g;
    gjk_distance(pa, &tg->proxy, INFINITY, &g);
    if (g.overlap || !(g.distance > 0.0)) {
        s->overlap = 1;
        s->d = -(ra + tg->radius);
        s->simplex = g.simplex;
        s->point = g.pb;
        return;
    }
    s->n = heft_v3_scale(heft_v3_sub(g.pb, g.pa), 1.0 / g.distance);
    s->d = g.distance - ra - tg->radius;
    s->point = heft_v3_madd(g.pb, -tg->radius, s->n);
}

static int cast_loop(const cast_shape *c, const cast_motion *m, double t_max, double gap,
                     double near, const cast_target *tg, cast_hit *hit) {
    heft_vec3 buffer[HULL_MAX_VERTICES];
    double turn = heft_v3_length(m->angular);
    double tol = CAST_TOLERANCE * fmax(1.0, c->reach);
    double t = 0.0;
    for (int it = 0; it < CAST_ITERATIONS; ++it) {
        transform pose = cast_motion_at(m, t);
        convex_proxy pa;
        place(c, &pose, buffer, &pa);
        separation s;
        separate(&pa, c->radius, tg, &s);
        /* out of iterations (a fast turn makes small steps): t is still
         * before the contact, the safe answer */
        int last = it == CAST_ITERATIONS - 1;
        if (t == 0.0 && near >= 0.0 && (s.overlap || s.d <= near)) {
            return 0; /* near already: left to the contacts */
        }
        if (s.overlap || s.d <= gap + tol || last) {
            hit->t = t;
            hit->initial = t == 0.0;
            hit->triangle = -1;
            hit->point = s.point;
            hit->normal = heft_v3_neg(s.n);
            if (s.overlap) {
                /* cores overlap (only at the start of a pure translation):
                 * the penetration's normal, or against the motion */
                heft_vec3 n, qa, qb;
                double depth;
                if (!tg->plane &&
                    epa_penetration(&pa, &tg->proxy, &s.simplex, &n, &depth, &qa, &qb)) {
                    hit->normal = heft_v3_neg(n);
                    hit->point = qb;
                } else {
                    double v = heft_v3_length(m->velocity);
                    hit->normal =
                        v > 0.0 ? heft_v3_scale(m->velocity, -1.0 / v) : heft_v3(0.0, 0.0, 1.0);
                }
            }
            return 1;
        }
        double closing = heft_v3_dot(m->velocity, s.n) + turn * c->reach;
        if (!(closing > 0.0)) {
            return 0; /* moving apart: the distance only grows */
        }
        double next = t + (s.d - gap) / closing;
        if (!(next <= t_max)) {
            return 0;
        }
        if (next == t) {
            /* no progress left in double precision: the next pass reports t */
            it = CAST_ITERATIONS - 2;
            continue;
        }
        t = next;
    }
    return 0;
}

static int grow_triangles(narrow_scratch *s, int need) {
    return array_grow((void **)&s->triangles, &s->triangle_capacity, need, sizeof(int32_t));
}

/* The triangles of mesh or height field b under the world box, into the
 * scratch; their count, or -1 out of memory. */
static int query_triangles(const shape *b, const transform *tb, aabb world, narrow_scratch *s) {
    aabb local = aabb_inv_transform(tb, world);
    for (;;) {
        int n = b->type == HEFT_SHAPE_MESH
                    ? mesh_query(b->mesh, local, s->triangles, s->triangle_capacity)
                    : height_field_query(b->field, local, s->triangles, s->triangle_capacity);
        if (n <= s->triangle_capacity) {
            return n;
        }
        if (!grow_triangles(s, n)) {
            return -1;
        }
    }
}

static void world_triangle(const shape *b, const transform *tb, int32_t index, triangle *w) {
    triangle tri;
    if (b->type == HEFT_SHAPE_MESH) {
        mesh_triangle(b->mesh, index, &tri);
    } else {
        height_field_triangle(b->field, index, &tri);
    }
    for (int k = 0; k < 3; ++k) {
        w->v[k] = transform_point(tb, tri.v[k]);
    }
    w->n = transform_vector(tb, tri.n);
    w->index = tri.index;
    w->real_edges = tri.real_edges;
}

static heft_vec3 shape_center(const cast_shape *c, const transform *t) {
    if (c->cylinder) {
        return transform_point(t, c->frame.p);
    }
    heft_vec3 sum = heft_v3(0.0, 0.0, 0.0);
    for (int i = 0; i < c->count; ++i) {
        sum = heft_v3_add(sum, c->points[i]);
    }
    return transform_point(t, heft_v3_scale(sum, 1.0 / c->count));
}

static void target_convex(cast_target *tg, const shape *b, const transform *tb, convex_view *cv,
                          convex_storage *st) {
    memset(tg, 0, sizeof *tg);
    if (b->type == HEFT_SHAPE_PLANE) {
        tg->plane = 1;
        tg->plane_n = transform_vector(tb, b->normal);
        tg->plane_d = b->offset + heft_v3_dot(tg->plane_n, tb->p);
        return;
    }
    shape_convex_view(b, tb, cv, st);
    tg->proxy = cv->proxy;
    tg->radius = cv->radius;
}

int cast_against(const cast_shape *c, const cast_motion *m, double t_max, double gap, double near,
                 const shape *b, const transform *tb, narrow_scratch *scratch, cast_hit *hit) {
    cast_target tg;
    if (b->type != HEFT_SHAPE_MESH && b->type != HEFT_SHAPE_HEIGHT_FIELD) {
        convex_view cv;
        convex_storage st;
        target_convex(&tg, b, tb, &cv, &st);
        return cast_loop(c, m, t_max, gap, near, &tg, hit);
    }
    int n = query_triangles(b, tb, aabb_grow(cast_swept_box(c, m, t_max), gap), scratch);
    if (n < 0) {
        return -1;
    }
    transform t0 = cast_motion_at(m, 0.0);
    heft_vec3 center = shape_center(c, &t0);
    int found = 0;
    for (int i = 0; i < n; ++i) {
        triangle tri;
        world_triangle(b, tb, scratch->triangles[i], &tri);
        if (heft_v3_dot(tri.n, heft_v3_sub(center, tri.v[0])) < 0.0) {
            continue; /* one-sided: the shape starts behind it */
        }
        memset(&tg, 0, sizeof tg);
        tg.proxy.points = tri.v;
        tg.proxy.count = 3;
        cast_hit h;
        if (cast_loop(c, m, found ? hit->t : t_max, gap, near, &tg, &h) &&
            (!found || h.t < hit->t || (h.t == hit->t && tri.index < hit->triangle))) {
            h.triangle = tri.index;
            *hit = h;
            found = 1;
        }
    }
    return found;
}

int overlap_against(const cast_shape *c, const transform *tc, const shape *b, const transform *tb,
                    narrow_scratch *scratch) {
    heft_vec3 buffer[HULL_MAX_VERTICES];
    convex_proxy pa;
    place(c, tc, buffer, &pa);
    cast_target tg;
    separation s;
    if (b->type != HEFT_SHAPE_MESH && b->type != HEFT_SHAPE_HEIGHT_FIELD) {
        convex_view cv;
        convex_storage st;
        target_convex(&tg, b, tb, &cv, &st);
        separate(&pa, c->radius, &tg, &s);
        return s.overlap || s.d <= 0.0;
    }
    int n = query_triangles(b, tb, placed_box(&pa, c->radius), scratch);
    if (n < 0) {
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        triangle tri;
        world_triangle(b, tb, scratch->triangles[i], &tri);
        memset(&tg, 0, sizeof tg);
        tg.proxy.points = tri.v;
        tg.proxy.count = 3;
        separate(&pa, c->radius, &tg, &s);
        if (s.overlap || s.d <= 0.0) {
            return 1;
        }
    }
    return 0;
}
