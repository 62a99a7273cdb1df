/* Shape casts and overlaps against the world: the candidates come from the
 * broad phase's tree (the swept box of the cast) and the plane list; each is
 * tested by collision/shape_cast.c. */
#include <stdlib.h>
#include <string.h>

#include "broad_phase.h"
#include "error.h"
#include "query.h"
#include "shape_cast.h"

/* The cast shape of a def at a pose; 0 with the error set when refused. */
static int cast_shape_from_def(const heft_shape_def *def, heft_vec3 position, heft_quat orientation,
                               cast_shape *c, transform *pose, const char *what) {
    if (!def) {
        heft_set_error("%s: the shape def must not be NULL", what);
        return 0;
    }
    if (def->type != HEFT_SHAPE_SPHERE && def->type != HEFT_SHAPE_CAPSULE &&
        def->type != HEFT_SHAPE_BOX && def->type != HEFT_SHAPE_HULL &&
        def->type != HEFT_SHAPE_CYLINDER) {
        heft_set_error("%s: only spheres, capsules, boxes, hulls and cylinders can be cast "
                       "(type %d)",
                       what, (int)def->type);
        return 0;
    }
    if (!heft_v3_isfinite(position) || !heft_quat_isfinite(orientation) ||
        !(heft_quat_norm(orientation) > 1e-9)) {
        heft_set_error("%s: the position must be finite and the orientation a finite non-zero "
                       "quaternion",
                       what);
        return 0;
    }
    body owner;
    memset(&owner, 0, sizeof owner);
    owner.type = HEFT_BODY_DYNAMIC;
    if (!shape_check_def(def, &owner)) {
        return 0;
    }
    shape s;
    memset(&s, 0, sizeof s);
    if (!shape_build(&s, -1, def)) {
        return 0;
    }
    transform local = transform_make(s.local_position, s.local_orientation);
    cast_shape_make(c, &s, &local);
    shape_release(&s);
    *pose = transform_make(position, heft_quat_normalize(orientation));
    return 1;
}

static int check_direction(heft_vec3 direction, double max_distance, const char *what) {
    heft_vec3 unit;
    if (!query_unit_direction(direction, &unit) || !(max_distance >= 0.0) ||
        !isfinite(max_distance)) {
        heft_set_error("%s: the direction must be finite and non-zero, the distance finite and "
                       "non-negative",
                       what);
        return 0;
    }
    return 1;
}

typedef struct cast_walk {
    heft_world *w;
    const cast_shape *c;
    cast_motion motion;
    double max_distance;
    const heft_query_filter *filter;
    int32_t skip_body; /* -1: none */
    int all;           /* collect every hit, else keep the closest */
    heft_ray_hit best;
    int found;
    heft_ray_hit *hits;
    int count, capacity;
    int ok;
} cast_walk;

static void cast_one(cast_walk *k, int32_t index) {
    const shape *s = &k->w->shapes[index];
    if (s->body == k->skip_body || !query_accepts(k->w, k->filter, index)) {
        return;
    }
    transform t = shape_transform(s, &k->w->bodies[s->body]);
    double t_max = (!k->all && k->found) ? k->best.distance : k->max_distance;
    cast_hit h;
    int rc = cast_against(k->c, &k->motion, t_max, 0.0, -1.0, s, &t, &k->w->broad.scratch, &h);
    if (rc < 0) {
        k->ok = 0;
        return;
    }
    if (rc == 0) {
        return;
    }
    heft_ray_hit hit = query_hit(k->w, index, h.t, h.point, h.normal);
    if (k->all) {
        k->ok = query_push_hit(&k->hits, &k->count, &k->capacity, &hit);
    } else if (!k->found || query_compare_hits(&hit, &k->best) < 0) {
        k->best = hit;
        k->found = 1;
    }
}

static int on_cast_leaf(void *context, int32_t leaf, int32_t user) {
    (void)leaf;
    cast_walk *k = context;
    cast_one(k, user);
    return k->ok;
}

/* Runs the cast; returns the number of hits (closest: 0 or 1), or
 * HEFT_ERROR_OUT_OF_MEMORY. */
static int cast_run(cast_walk *k) {
    broad_phase_refresh(k->w);
    for (int p = 0; p < k->w->broad.plane_count && k->ok; ++p) {
        cast_one(k, k->w->broad.planes[p]);
    }
    if (k->ok) {
        aabb swept = cast_swept_box(k->c, &k->motion, k->max_distance);
        tree_query(&k->w->broad.tree, swept, on_cast_leaf, k);
    }
    if (!k->ok) {
        heft_free(k->hits);
        k->hits = NULL;
        heft_set_error("out of memory");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    return k->all ? k->count : k->found;
}

static void walk_init(cast_walk *k, heft_world *w, const cast_shape *c, const transform *pose,
                      heft_quat orientation, heft_vec3 direction, double max_distance,
                      const heft_query_filter *filter) {
    memset(k, 0, sizeof *k);
    k->w = w;
    k->c = c;
    k->motion.position = pose->p;
    k->motion.orientation = orientation;
    query_unit_direction(direction, &k->motion.velocity);
    k->max_distance = max_distance;
    k->filter = filter;
    k->skip_body = -1;
    k->ok = 1;
}

int heft_world_cast_shape(heft_world *w, const heft_shape_def *def, heft_vec3 position,
                          heft_quat orientation, heft_vec3 direction, double max_distance,
                          const heft_query_filter *filter, heft_ray_hit *hit) {
    static const char *what = "shape cast";
    cast_shape c;
    transform pose;
    if (!w || !hit) {
        heft_set_error("%s: world and hit must not be NULL", what);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_direction(direction, max_distance, what) ||
        !cast_shape_from_def(def, position, orientation, &c, &pose, what)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    cast_walk k;
    walk_init(&k, w, &c, &pose, heft_quat_normalize(orientation), direction, max_distance, filter);
    int n = cast_run(&k);
    if (n > 0) {
        *hit = k.best;
    }
    return n;
}

int heft_world_cast_shape_all(heft_world *w, const heft_shape_def *def, heft_vec3 position,
                              heft_quat orientation, heft_vec3 direction, double max_distance,
                              const heft_query_filter *filter, heft_ray_hit *out, int max) {
    static const char *what = "shape cast";
    cast_shape c;
    transform pose;
    if (!w || max < 0 || (max > 0 && !out)) {
        heft_set_error("%s: world must not be NULL, max >= 0 and out not NULL when max > 0", what);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_direction(direction, max_distance, what) ||
        !cast_shape_from_def(def, position, orientation, &c, &pose, what)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    cast_walk k;
    walk_init(&k, w, &c, &pose, heft_quat_normalize(orientation), direction, max_distance, filter);
    k.all = 1;
    int n = cast_run(&k);
    if (n > 1) {
        qsort(k.hits, (size_t)n, sizeof(heft_ray_hit), query_compare_hits);
    }
    for (int i = 0; i < n && i < max; ++i) {
        out[i] = k.hits[i];
    }
    heft_free(k.hits);
    return n;
}

int heft_shape_cast(heft_world *w, heft_shape_id id, heft_vec3 direction, double max_distance,
                    const heft_query_filter *filter, heft_ray_hit *hit) {
    static const char *what = "shape cast";
    const shape *s =
        w ? slots_get(w->shapes, sizeof(shape), w->shape_high, id.index, id.generation) : NULL;
    if (!w || !hit) {
        heft_set_error("%s: world and hit must not be NULL", what);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!s) {
        heft_set_error("%s: shape id is not valid", what);
        return HEFT_ERROR_INVALID_ID;
    }
    if (!check_direction(direction, max_distance, what)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    cast_shape c;
    transform identity = transform_make(heft_v3(0.0, 0.0, 0.0), heft_quat_identity());
    if (!cast_shape_make(&c, s, &identity)) {
        heft_set_error("%s: only spheres, capsules, boxes, hulls and cylinders can be cast", what);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    const body *b = &w->bodies[s->body];
    heft_vec3 p = heft_v3_add(b->position, heft_quat_rotate(b->orientation, s->local_position));
    heft_quat q = heft_quat_mul(b->orientation, s->local_orientation);
    transform pose = transform_make(p, q);
    cast_walk k;
    walk_init(&k, w, &c, &pose, q, direction, max_distance, filter);
    k.skip_body = s->body;
    int n = cast_run(&k);
    if (n > 0) {
        *hit = k.best;
    }
    return n;
}

typedef struct overlap_walk {
    heft_world *w;
    const cast_shape *c;
    transform pose;
    const heft_query_filter *filter;
    int32_t *found;
    int count, capacity;
    int ok;
} overlap_walk;

static void overlap_one(overlap_walk *o, int32_t index) {
    const shape *s = &o->w->shapes[index];
    if (!query_accepts(o->w, o->filter, index)) {
        return;
    }
    transform t = shape_transform(s, &o->w->bodies[s->body]);
    int rc = overlap_against(o->c, &o->pose, s, &t, &o->w->broad.scratch);
    if (rc < 0 ||
        (rc > 0 && !array_grow((void **)&o->found, &o->capacity, o->count + 1, sizeof(int32_t)))) {
        o->ok = 0;
        return;
    }
    if (rc > 0) {
        o->found[o->count++] = index;
    }
}

static int on_overlap_leaf(void *context, int32_t leaf, int32_t user) {
    (void)leaf;
    overlap_walk *o = context;
    overlap_one(o, user);
    return o->ok;
}

static int compare_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int heft_world_overlap_shape(heft_world *w, const heft_shape_def *def, heft_vec3 position,
                             heft_quat orientation, const heft_query_filter *filter,
                             heft_shape_id *out, int max) {
    static const char *what = "shape overlap";
    cast_shape c;
    overlap_walk o;
    memset(&o, 0, sizeof o);
    if (!w || max < 0 || (max > 0 && !out)) {
        heft_set_error("%s: world must not be NULL, max >= 0 and out not NULL when max > 0", what);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!cast_shape_from_def(def, position, orientation, &c, &o.pose, what)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    o.w = w;
    o.c = &c;
    o.filter = filter;
    o.ok = 1;
    broad_phase_refresh(w);
    for (int p = 0; p < w->broad.plane_count && o.ok; ++p) {
        overlap_one(&o, w->broad.planes[p]);
    }
    if (o.ok) {
        cast_motion still = {o.pose.p, heft_quat_normalize(orientation), heft_v3(0.0, 0.0, 0.0),
                             heft_v3(0.0, 0.0, 0.0)};
        tree_query(&w->broad.tree, cast_swept_box(&c, &still, 0.0), on_overlap_leaf, &o);
    }
    if (!o.ok) {
        heft_free(o.found);
        heft_set_error("out of memory");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    if (o.count > 1) {
        qsort(o.found, (size_t)o.count, sizeof(int32_t), compare_int32);
    }
    for (int i = 0; i < o.count && i < max; ++i) {
        out[i].index = o.found[i];
        out[i].generation = w->shapes[o.found[i]].slot.generation;
    }
    heft_free(o.found);
    return o.count;
}
