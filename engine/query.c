/* World queries: the closest ray hit and the shapes overlapping a box, both
 * through the broad phase's tree (refreshed first, since bodies have moved
 * since the last step's collision pass) plus the plane list. */
#include <stdlib.h>

#include "broad_phase.h"
#include "error.h"
#include "ray_cast.h"
#include "world.h"

typedef struct ray_context {
    heft_world *w;
    heft_vec3 origin, dir;
    uint32_t mask;
    int32_t best_shape;
    double best_t;
    heft_vec3 best_n;
} ray_context;

static void ray_shape(ray_context *r, int32_t index, double max_t) {
    const shape *s = &r->w->shapes[index];
    if (!(s->category & r->mask)) {
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

int heft_world_ray_cast(heft_world *w, heft_vec3 origin, heft_vec3 direction, double max_distance,
                        uint32_t mask_bits, heft_ray_hit *hit) {
    double len = heft_v3_length(direction);
    if (!w || !hit || !heft_v3_isfinite(origin) || !heft_v3_isfinite(direction) || !(len > 0.0) ||
        !isfinite(len) || !(max_distance >= 0.0) || !isfinite(max_distance)) {
        heft_set_error("ray cast: world and hit must not be NULL, origin and direction finite, the "
                       "direction non-zero and the distance finite and non-negative");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    broad_phase_refresh(w);
    ray_context r;
    r.w = w;
    r.origin = origin;
    r.dir = heft_v3_scale(direction, 1.0 / len);
    r.mask = mask_bits;
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
    const shape *s = &w->shapes[r.best_shape];
    hit->shape.index = r.best_shape;
    hit->shape.generation = s->slot.generation;
    hit->body.index = s->body;
    hit->body.generation = w->bodies[s->body].slot.generation;
    hit->distance = r.best_t;
    hit->point = heft_v3_madd(r.origin, r.best_t, r.dir);
    hit->normal = r.best_n;
    return 1;
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
