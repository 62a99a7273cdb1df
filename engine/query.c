/* World queries: ray casts (closest, all hits, through a callback) and the
 * shapes overlapping a box, all through the broad phase's tree (refreshed
 * first, since bodies have moved since the last step's collision pass) plus
 * the plane list. Shape casts and overlaps: shape_query.c. */
#include "query.h"

#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "broad_phase.h"
#include "error.h"
#include "ray_cast.h"

heft_query_filter heft_default_query_filter(void) {
    heft_query_filter f;
    f.category_bits = 0xFFFFFFFFu;
    f.mask_bits = 0xFFFFFFFFu;
    f.fn = NULL;
    f.context = NULL;
    return f;
}

int query_unit_direction(heft_vec3 d, heft_vec3 *unit) {
    if (!heft_v3_isfinite(d)) {
        return 0;
    }
    double big = fmax(fabs(d.x), fmax(fabs(d.y), fabs(d.z)));
    if (!(big > 0.0)) {
        return 0;
    }
    /* largest component +-1 first: no overflow or underflow in the length */
    heft_vec3 s = heft_v3(d.x / big, d.y / big, d.z / big);
    *unit = heft_v3_scale(s, 1.0 / heft_v3_length(s));
    return 1;
}

int query_accepts(const heft_world *w, const heft_query_filter *filter, int32_t index) {
    if (!filter) {
        return 1;
    }
    const shape *s = &w->shapes[index];
    if (!(s->category & filter->mask_bits) || !(s->mask & filter->category_bits)) {
        return 0;
    }
    if (filter->fn) {
        heft_shape_id sid = {index, s->slot.generation};
        heft_body_id bid = {s->body, w->bodies[s->body].slot.generation};
        return filter->fn(filter->context, sid, bid) != 0;
    }
    return 1;
}

heft_ray_hit query_hit(const heft_world *w, int32_t index, double t, heft_vec3 point,
                       heft_vec3 normal) {
    const shape *s = &w->shapes[index];
    heft_ray_hit hit;
    hit.shape.index = index;
    hit.shape.generation = s->slot.generation;
    hit.body.index = s->body;
    hit.body.generation = w->bodies[s->body].slot.generation;
    hit.distance = t;
    hit.point = point;
    hit.normal = normal;
    return hit;
}

int query_compare_hits(const void *a, const void *b) {
    const heft_ray_hit *x = a, *y = b;
    if (x->distance != y->distance) {
        return x->distance < y->distance ? -1 : 1;
    }
    return (x->shape.index > y->shape.index) - (x->shape.index < y->shape.index);
}

int query_push_hit(heft_ray_hit **hits, int *count, int *capacity, const heft_ray_hit *hit) {
    if (!array_grow((void **)hits, capacity, *count + 1, sizeof(heft_ray_hit))) {
        return 0;
    }
    (*hits)[(*count)++] = *hit;
    return 1;
}

typedef struct ray_context {
    heft_world *w;
    heft_vec3 origin, dir;
    uint32_t mask;
    const heft_query_filter *filter; /* NULL: mask alone (heft_world_ray_cast) */
    int32_t best_shape;
    double best_t;
    heft_vec3 best_n;
} ray_context;

static void ray_shape(ray_context *r, int32_t index, double max_t) {
    const shape *s = &r->w->shapes[index];
    if (r->filter ? !query_accepts(r->w, r->filter, index) : !(s->category & r->mask)) {
        return;
    }
    transform t = shape_transform(s, &r->w->bodies[s->body]);
    heft_vec3 n;
    double hit = shape_ray_cast(s, &t, r->origin, r->dir, max_t, &n);
    if (hit >= 0.0 &&
        (r->best_shape < 0 || hit < r->best_t || (hit == r->best_t && index < r->best_shape))) {
        r->best_shape = index;
        r->best_t = hit;
        r->best_n = n;
    }
}

static double on_ray_leaf(void *context, int32_t leaf, int32_t user, double max_s) {
    (void)leaf;
    ray_context *r = context;
    ray_shape(r, user, max_s);
    return r->best_shape >= 0 ? r->best_t : max_s;
}

static int check_ray(const heft_world *w, heft_vec3 origin, heft_vec3 direction,
                     double max_distance, const char *what) {
    heft_vec3 unit;
    if (!w || !heft_v3_isfinite(origin) || !query_unit_direction(direction, &unit) ||
        !(max_distance >= 0.0) || !isfinite(max_distance)) {
        heft_set_error("%s: world must not be NULL, origin and direction finite, the direction "
                       "non-zero and the distance finite and non-negative",
                       what);
        return 0;
    }
    return 1;
}

static int closest(heft_world *w, heft_vec3 origin, heft_vec3 direction, double max_distance,
                   uint32_t mask_bits, const heft_query_filter *filter, heft_ray_hit *hit) {
    broad_phase_refresh(w);
    ray_context r;
    r.w = w;
    r.origin = origin;
    query_unit_direction(direction, &r.dir);
    r.mask = mask_bits;
    r.filter = filter;
    r.best_shape = -1;
    r.best_t = max_distance;
    r.best_n = heft_v3(0.0, 0.0, 0.0);
    for (int p = 0; p < w->broad.plane_count; ++p) {
        ray_shape(&r, w->broad.planes[p], r.best_t);
    }
    tree_ray_cast(&w->broad.tree, r.origin, r.dir, r.best_t, on_ray_leaf, &r);
    if (r.best_shape < 0) {
        return 0;
    }
    *hit = query_hit(w, r.best_shape, r.best_t, heft_v3_madd(r.origin, r.best_t, r.dir), r.best_n);
    return 1;
}

int heft_world_ray_cast(heft_world *w, heft_vec3 origin, heft_vec3 direction, double max_distance,
                        uint32_t mask_bits, heft_ray_hit *hit) {
    if (!check_ray(w, origin, direction, max_distance, "ray cast") || !hit) {
        if (w && !hit) {
            heft_set_error("ray cast: hit must not be NULL");
        }
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    return closest(w, origin, direction, max_distance, mask_bits, NULL, hit);
}

int heft_world_ray_cast_closest(heft_world *w, heft_vec3 origin, heft_vec3 direction,
                                double max_distance, const heft_query_filter *filter,
                                heft_ray_hit *hit) {
    if (!check_ray(w, origin, direction, max_distance, "ray cast") || !hit) {
        if (w && !hit) {
            heft_set_error("ray cast: hit must not be NULL");
        }
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    heft_query_filter all = heft_default_query_filter();
    return closest(w, origin, direction, max_distance, 0, filter ? filter : &all, hit);
}

/* Every hit along the ray, handed to a visitor that returns the new
 * max_distance (negative: ignore, 0: stop). */
typedef struct ray_walk {
    heft_world *w;
    heft_vec3 origin, dir;
    const heft_query_filter *filter;
    double max_distance;
    int stopped;
    int reported;
    /* either a user callback, or collect into a growable array */
    heft_ray_result_fn fn;
    void *context;
    heft_ray_hit *hits;
    int count, capacity, ok;
} ray_walk;

static double walk_shape(ray_walk *r, int32_t index, double max_t) {
    if (r->stopped || !query_accepts(r->w, r->filter, index)) {
        return max_t;
    }
    const shape *s = &r->w->shapes[index];
    transform t = shape_transform(s, &r->w->bodies[s->body]);
    heft_vec3 n;
    double at = shape_ray_cast(s, &t, r->origin, r->dir, max_t, &n);
    if (at < 0.0) {
        return max_t;
    }
    heft_ray_hit hit = query_hit(r->w, index, at, heft_v3_madd(r->origin, at, r->dir), n);
    if (!r->fn) {
        if (!query_push_hit(&r->hits, &r->count, &r->capacity, &hit)) {
            r->ok = 0;
            r->stopped = 1;
            return -1.0;
        }
        return max_t;
    }
    double next = r->fn(r->context, &hit);
    if (next < 0.0 || isnan(next)) {
        return max_t;
    }
    r->reported++;
    if (next == 0.0) {
        r->stopped = 1;
        return -1.0;
    }
    return fmin(next, max_t);
}

static double on_walk_leaf(void *context, int32_t leaf, int32_t user, double max_s) {
    (void)leaf;
    return walk_shape(context, user, max_s);
}

static void walk(ray_walk *r) {
    broad_phase_refresh(r->w);
    double max_t = r->max_distance;
    for (int p = 0; p < r->w->broad.plane_count && !r->stopped; ++p) {
        max_t = walk_shape(r, r->w->broad.planes[p], max_t);
    }
    if (!r->stopped) {
        tree_ray_cast(&r->w->broad.tree, r->origin, r->dir, max_t, on_walk_leaf, r);
    }
}

static void walk_init(ray_walk *r, heft_world *w, heft_vec3 origin, heft_vec3 direction,
                      double max_distance, const heft_query_filter *filter) {
    memset(r, 0, sizeof *r);
    r->w = w;
    r->origin = origin;
    query_unit_direction(direction, &r->dir);
    r->filter = filter;
    r->max_distance = max_distance;
    r->ok = 1;
}

int heft_world_ray_cast_all(heft_world *w, heft_vec3 origin, heft_vec3 direction,
                            double max_distance, const heft_query_filter *filter, heft_ray_hit *out,
                            int max) {
    if (!check_ray(w, origin, direction, max_distance, "ray cast") || max < 0 ||
        (max > 0 && !out)) {
        if (w && (max < 0 || (max > 0 && !out))) {
            heft_set_error("ray cast: max must be >= 0 and out not NULL when max > 0");
        }
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    ray_walk r;
    walk_init(&r, w, origin, direction, max_distance, filter);
    walk(&r);
    if (!r.ok) {
        heft_free(r.hits);
        heft_set_error("out of memory");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    if (r.count > 1) {
        qsort(r.hits, (size_t)r.count, sizeof(heft_ray_hit), query_compare_hits);
    }
    for (int i = 0; i < r.count && i < max; ++i) {
        out[i] = r.hits[i];
    }
    heft_free(r.hits);
    return r.count;
}

int heft_world_ray_cast_callback(heft_world *w, heft_vec3 origin, heft_vec3 direction,
                                 double max_distance, const heft_query_filter *filter,
                                 heft_ray_result_fn fn, void *context) {
    if (!check_ray(w, origin, direction, max_distance, "ray cast") || !fn) {
        if (w && !fn) {
            heft_set_error("ray cast: the callback must not be NULL");
        }
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    ray_walk r;
    walk_init(&r, w, origin, direction, max_distance, filter);
    r.fn = fn;
    r.context = context;
    walk(&r);
    return r.reported;
}

typedef struct box_context {
    heft_world *w;
    aabb box;
    uint32_t mask;
    int32_t *found;
    int count, capacity;
    int ok;
} box_context;

static void box_add(box_context *b, int32_t index) {
    if (b->count == b->capacity) {
        int cap = b->capacity ? 2 * b->capacity : 64;
        int32_t *p = heft_realloc(b->found, sizeof(int32_t) * (size_t)cap);
        if (!p) {
            b->ok = 0;
            return;
        }
        b->found = p;
        b->capacity = cap;
    }
    b->found[b->count++] = index;
}

static int on_box_leaf(void *context, int32_t leaf, int32_t user) {
    (void)leaf;
    box_context *b = context;
    const shape *s = &b->w->shapes[user];
    if (!(s->category & b->mask)) {
        return 1;
    }
    transform t = shape_transform(s, &b->w->bodies[s->body]);
    aabb sb = shape_aabb(s, &t);
    if (aabb_overlap(&sb, &b->box)) {
        box_add(b, user);
    }
    return b->ok;
}

static int compare_int32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

int heft_world_query_aabb(heft_world *w, heft_vec3 lo, heft_vec3 hi, uint32_t mask_bits,
                          heft_shape_id *out, int max) {
    if (!w || !heft_v3_isfinite(lo) || !heft_v3_isfinite(hi) || lo.x > hi.x || lo.y > hi.y ||
        lo.z > hi.z || max < 0 || (max > 0 && !out)) {
        heft_set_error("box query: lo <= hi, both finite, max >= 0 and out not NULL when max > 0");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    broad_phase_refresh(w);
    box_context b = {w, aabb_make(lo, hi), mask_bits, NULL, 0, 0, 1};
    for (int p = 0; p < w->broad.plane_count && b.ok; ++p) {
        const shape *s = &w->shapes[w->broad.planes[p]];
        if ((s->category & mask_bits) && plane_overlaps_box(s, &b.box)) {
            box_add(&b, w->broad.planes[p]);
        }
    }
    if (b.ok) {
        tree_query(&w->broad.tree, b.box, on_box_leaf, &b);
    }
    if (!b.ok) {
        heft_free(b.found);
        heft_set_error("out of memory");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    if (b.count > 1) {
        qsort(b.found, (size_t)b.count, sizeof(int32_t), compare_int32);
    }
    for (int i = 0; i < b.count && i < max; ++i) {
        out[i].index = b.found[i];
        out[i].generation = w->shapes[b.found[i]].slot.generation;
    }
    heft_free(b.found);
    return b.count;
}
