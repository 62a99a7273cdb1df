/* Continuous collision. A fast body's motion over the step just taken is
 * rebuilt from its end pose and velocities (the step integrated p + h v and
 * heft_quat_integrate(q, omega, h)); each of its convex shapes is swept along
 * it, by collision/shape_cast.c's conservative advancement, against the
 * static, kinematic and slow dynamic shapes it may collide with (filters and
 * joints as for contacts), at their poses at the end of the step. The body
 * is put back at the earliest time of impact, stopped a gap short of the
 * surface (a quarter of the contact margin) and with its velocity kept: the
 * next step finds the speculative contact within the margin and the solver
 * stops the body on the surface. As Box2D's bullets do, the body gives up the
 * rest of the step's motion. Shapes already within the contact margin at the
 * start of the step are left to the contacts, so a fast body resting or
 * sliding on a surface is not held back by it; against them only the shape's
 * core (a sphere a quarter of its thickness around its centre) is swept, as
 * Box2D does, so the body's centre cannot pass through them either. */
#include "continuous.h"

#include "broad_phase.h"
#include "error.h"
#include "joint.h"
#include "shape_cast.h"
#include "world.h"

typedef struct sweep {
    heft_world *w;
    int32_t body;
    int32_t shape;
    const cast_shape *c, *core;
    cast_motion motion;
    double gap, near;
    double t_best; /* the earliest time of impact so far (h: none) */
    int ok;
} sweep;

static int may_hit(heft_world *w, int32_t fast_shape, int32_t other) {
    const shape *a = &w->shapes[fast_shape], *b = &w->shapes[other];
    if (a->body == b->body) {
        return 0;
    }
    const body *ob = &w->bodies[b->body];
    if (ob->type == HEFT_BODY_DYNAMIC && ob->fast) {
        return 0; /* fast against fast: the contacts only */
    }
    /* filter bits, joints, sensors and the application's pair filter */
    return contact_pair_allowed(w, fast_shape, other);
}

static void sweep_one(sweep *s, int32_t other) {
    if (!may_hit(s->w, s->shape, other)) {
        return;
    }
    const shape *b = &s->w->shapes[other];
    transform tb = shape_transform(b, &s->w->bodies[b->body]);
    cast_hit hit;
    narrow_scratch *scratch = &s->w->broad.scratch;
    /* the shape, stopped a gap short, against what it is not yet near */
    int rc = cast_against(s->c, &s->motion, s->t_best, s->gap, s->near, b, &tb, scratch, &hit);
    if (rc > 0 && hit.t < s->t_best) {
        s->t_best = hit.t;
    }
    /* and its core, so that a shape in touch (left to the contacts, which
     * may drop points: four a pair) still cannot pass through (Box2D's
     * fall-back): it stops a core radius short, and a core that starts
     * within that holds the body where it is until the contacts have pushed
     * it out */
    int rc_core = rc < 0 ? rc
                         : cast_against(s->core, &s->motion, s->t_best, s->core->radius, 0.0, b,
                                        &tb, scratch, &hit);
    if (rc_core > 0 && hit.t < s->t_best) {
        s->t_best = hit.t;
    }
    if (rc < 0 || rc_core < 0) {
        s->ok = 0; /* out of memory: this body keeps its pose */
    }
}

static int on_leaf(void *context, int32_t leaf, int32_t user) {
    (void)leaf;
    sweep *s = context;
    sweep_one(s, user);
    return s->ok;
}

/* The earliest time of impact of body i's shapes in [0, h], or h. */
static double body_time_of_impact(heft_world *w, int32_t i, const cast_motion *m, double h) {
    const body *b = &w->bodies[i];
    sweep s;
    s.w = w;
    s.body = i;
    s.motion = *m;
    s.gap = 0.25 * w->def.contact_margin;
    s.near = w->def.contact_margin;
    s.t_best = h;
    s.ok = 1;
    for (int32_t k = b->shapes; k >= 0 && s.ok; k = w->shapes[k].body_next) {
        const shape *sh = &w->shapes[k];
        cast_shape c, core;
        transform local = transform_make(sh->local_position, sh->local_orientation);
        if (!cast_shape_make(&c, sh, &local)) {
            continue;
        }
        /* a shape moving less than the contact margin is held by the
         * speculative contacts already */
        double travel = heft_v3_length(m->velocity) * h + heft_v3_length(m->angular) * h * c.reach;
        if (!(travel > w->def.contact_margin)) {
            continue;
        }
        cast_shape_core(&c, &core);
        s.shape = k;
        s.c = &c;
        s.core = &core;
        for (int p = 0; p < w->broad.plane_count && s.ok; ++p) {
            sweep_one(&s, w->broad.planes[p]);
        }
        if (s.ok) {
            tree_query(&w->broad.tree, aabb_grow(cast_swept_box(&c, m, s.t_best), s.gap), on_leaf,
                       &s);
        }
    }
    return s.ok ? s.t_best : h;
}

void continuous_collision(heft_world *w, double h) {
    for (int32_t i = 0; i < w->body_high; ++i) {
        body *b = &w->bodies[i];
        if (!b->slot.alive || b->type != HEFT_BODY_DYNAMIC || !b->fast || b->shapes < 0 ||
            b->sleeping) {
            continue;
        }
        cast_motion m;
        m.velocity = b->linear_velocity;
        m.angular = b->angular_velocity;
        m.position = heft_v3_madd(b->position, -h, b->linear_velocity);
        m.orientation = heft_quat_integrate(b->orientation, b->angular_velocity, -h);
        double t = body_time_of_impact(w, i, &m, h);
        if (t < h) {
            transform at = cast_motion_at(&m, t);
            b->position = at.p;
            b->orientation = m.orientation;
            if (t > 0.0) {
                b->orientation = heft_quat_integrate(m.orientation, m.angular, t);
            }
            body_update_world_inertia(b);
        }
    }
}

heft_result heft_body_set_fast(heft_world *w, heft_body_id id, int fast) {
    body *b = world_body(w, id);
    if (!b) {
        heft_set_error("heft_body_set_fast: body id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    b->fast = fast != 0;
    return HEFT_OK;
}

int heft_body_is_fast(const heft_world *w, heft_body_id id) {
    const body *b = world_body(w, id);
    return b ? b->fast : 0;
}
