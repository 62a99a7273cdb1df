/* The broad phase: leaves that follow their shapes, pairs found by the
 * leaves that moved, pairs dropped when the enlarged boxes part. */
#include "broad_phase.h"

#include <stdlib.h>
#include <string.h>

#include "world.h"

void broad_phase_init(broad_phase *bp) {
    memset(bp, 0, sizeof *bp);
    tree_init(&bp->tree);
    bp->h = 1.0 / 60.0;
}

void broad_phase_release(broad_phase *bp) {
    tree_release(&bp->tree);
    heft_free(bp->moved);
    heft_free(bp->pairs);
    heft_free(bp->found);
    heft_free(bp->planes);
    narrow_scratch_release(&bp->scratch);
    broad_phase_init(bp);
}

static int grow(void **array, int *capacity, int need, size_t size) {
    return array_grow(array, capacity, need, size);
}

/* How far a leaf's box reaches beyond its shape: moving less than this
 * needs no re-insertion. */
static double extension(const aabb *box) {
    heft_vec3 e = heft_v3_sub(box->hi, box->lo);
    double half = 0.5 * fmax(e.x, fmax(e.y, e.z));
    return fmin(0.05 + 0.1 * half, 0.25);
}

static void world_plane(const shape *s, const body *b, heft_vec3 *n, double *d) {
    transform t = shape_transform(s, b);
    *n = transform_vector(&t, s->normal);
    *d = s->offset + heft_v3_dot(*n, t.p);
}

int plane_overlaps_box(const shape *p, const aabb *box) {
    heft_vec3 n = p->plane_n;
    heft_vec3 low = heft_v3(n.x > 0.0 ? box->lo.x : box->hi.x, n.y > 0.0 ? box->lo.y : box->hi.y,
                            n.z > 0.0 ? box->lo.z : box->hi.z);
    return heft_v3_dot(n, low) <= p->plane_d;
}

int broad_phase_may_pair(const heft_world *w, int32_t a, int32_t b) {
    const shape *sa = &w->shapes[a], *sb = &w->shapes[b];
    if (sa->body == sb->body) {
        return 0;
    }
    return body_is_dynamic(&w->bodies[sa->body]) || body_is_dynamic(&w->bodies[sb->body]);
}

static int push_moved(broad_phase *bp, shape *s, int32_t index) {
    if (s->moved) {
        return 1;
    }
    if (!grow((void **)&bp->moved, &bp->moved_capacity, bp->moved_count + 1, sizeof(int32_t))) {
        return 0;
    }
    bp->moved[bp->moved_count++] = index;
    s->moved = 1;
    return 1;
}

/* The shape's box this step, grown by the contact margin, and how far its
 * fastest point may travel in a step: against static geometry (thin, one-sided
 * triangles) contacts are made that far ahead so that fast bodies cannot pass
 * through (speculative contacts). */
static void shape_box(const heft_world *w, shape *s) {
    const body *b = &w->bodies[s->body];
    transform t = shape_transform(s, b);
    aabb tight = shape_aabb(s, &t);
    s->speculative = 0.0;
    if (b->type != HEFT_BODY_STATIC && s->type != HEFT_SHAPE_PLANE) {
        heft_vec3 half = heft_v3_scale(heft_v3_sub(tight.hi, tight.lo), 0.5);
        double reach = heft_v3_length(half) + heft_v3_length(heft_v3_sub(t.p, b->position));
        heft_vec3 v = b->type == HEFT_BODY_DYNAMIC ? b->free_linear_velocity : b->linear_velocity;
        heft_vec3 wv =
            b->type == HEFT_BODY_DYNAMIC ? b->free_angular_velocity : b->angular_velocity;
        double speed = heft_v3_length(v) + heft_v3_length(wv) * reach;
        if (isfinite(speed)) {
            s->speculative = w->broad.h * speed;
        }
    }
    s->box = aabb_grow(tight, w->def.contact_margin);
}

int broad_phase_add(heft_world *w, int32_t index) {
    broad_phase *bp = &w->broad;
    shape *s = &w->shapes[index];
    s->proxy = -1;
    s->moved = 0;
    if (s->type == HEFT_SHAPE_PLANE) {
        if (!grow((void **)&bp->planes, &bp->plane_capacity, bp->plane_count + 1,
                  sizeof(int32_t))) {
            return 0;
        }
        int at = bp->plane_count;
        while (at > 0 && bp->planes[at - 1] > index) {
            bp->planes[at] = bp->planes[at - 1];
            at--;
        }
        bp->planes[at] = index;
        bp->plane_count++;
        world_plane(s, &w->bodies[s->body], &s->plane_n, &s->plane_d);
        bp->planes_dirty = 1;
        return 1;
    }
    /* reserve the moved slot first so that nothing fails after the insertion */
    if (!grow((void **)&bp->moved, &bp->moved_capacity, bp->moved_count + 1, sizeof(int32_t))) {
        return 0;
    }
    shape_box(w, s);
    s->fat = aabb_grow(s->box, extension(&s->box));
    int32_t leaf = tree_insert(&bp->tree, s->fat, index);
    if (leaf < 0) {
        return 0;
    }
    s->proxy = leaf;
    push_moved(bp, s, index);
    return 1;
}

void broad_phase_remove(heft_world *w, int32_t index) {
    broad_phase *bp = &w->broad;
    shape *s = &w->shapes[index];
    if (s->proxy >= 0) {
        tree_remove(&bp->tree, s->proxy);
        s->proxy = -1;
    }
    if (s->moved) {
        int k = 0;
        for (int i = 0; i < bp->moved_count; ++i) {
            if (bp->moved[i] != index) {
                bp->moved[k++] = bp->moved[i];
            }
        }
        bp->moved_count = k;
        s->moved = 0;
    }
    int k = 0;
    for (int i = 0; i < bp->plane_count; ++i) {
        if (bp->planes[i] != index) {
            bp->planes[k++] = bp->planes[i];
        }
    }
    bp->plane_count = k;
    k = 0;
    for (int i = 0; i < bp->pair_count; ++i) {
        uint64_t p = bp->pairs[i];
        if ((int32_t)(p >> 32) != index && (int32_t)(p & 0xFFFFFFFFu) != index) {
            bp->pairs[k++] = p;
        }
    }
    bp->pair_count = k;
}

/* Follows the shapes: the planes' equations, and each other shape's box
 * (computed here unless boxes_ready), its enlarged box moved in the tree
 * when the box left it. */
static void refresh(heft_world *w, int boxes_ready) {
    broad_phase *bp = &w->broad;
    for (int i = 0; i < w->shape_high; ++i) {
        shape *s = &w->shapes[i];
        if (!s->slot.alive) {
            continue;
        }
        if (s->type == HEFT_SHAPE_PLANE) {
            heft_vec3 n;
            double d;
            world_plane(s, &w->bodies[s->body], &n, &d);
            if (n.x != s->plane_n.x || n.y != s->plane_n.y || n.z != s->plane_n.z ||
                d != s->plane_d) {
                s->plane_n = n;
                s->plane_d = d;
                bp->planes_dirty = 1;
            }
            continue;
        }
        if (w->bodies[s->body].sleeping) {
            continue; /* it has not moved since it fell asleep */
        }
        if (!boxes_ready) {
            shape_box(w, s);
        }
        if (!aabb_contains(&s->fat, &s->box)) {
            s->fat = aabb_grow(s->box, extension(&s->box));
            tree_move(&bp->tree, s->proxy, s->fat);
            /* out of memory, its new pairs wait for its next move */
            (void)push_moved(bp, s, i);
        }
    }
}

void broad_phase_refresh(heft_world *w) {
    refresh(w, 0);
}

/* Shapes a task of the boxes takes at least (a transform and a box each;
 * a hull's box runs over its vertices). */
#define BOX_TASK_MIN_RANGE 32

/* The boxes of the awake shapes other than planes: each shape's own
 * memory, so the step computes them on the task system. */
static void shape_boxes_task(int begin, int end, int worker, void *context) {
    (void)worker;
    heft_world *w = context;
    for (int i = begin; i < end; ++i) {
        shape *s = &w->shapes[i];
        if (s->slot.alive && s->type != HEFT_SHAPE_PLANE && !w->bodies[s->body].sleeping) {
            shape_box(w, s);
        }
    }
}

typedef struct query_context {
    heft_world *w;
    int32_t self;
    int ok;
} query_context;

static int add_found(broad_phase *bp, uint64_t key) {
    if (!grow((void **)&bp->found, &bp->found_capacity, bp->found_count + 1, sizeof(uint64_t))) {
        return 0;
    }
    bp->found[bp->found_count++] = key;
    return 1;
}

static int on_overlap(void *context, int32_t leaf, int32_t user) {
    (void)leaf;
    query_context *q = context;
    if (user == q->self || !broad_phase_may_pair(q->w, q->self, user)) {
        return 1;
    }
    /* pairs of two moved leaves are found from the lower one only */
    if (q->w->shapes[user].moved && user < q->self) {
        return 1;
    }
    if (!add_found(&q->w->broad, pair_key(q->self, user))) {
        q->ok = 0;
        return 0;
    }
    return 1;
}

static int compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Does the plane meet the reach of the shape's speculative contacts (its
 * box grown by how far it may travel in the step; contacts with static
 * geometry are made that far ahead, engine/contact.c)? */
static int plane_within_reach(const shape *plane, const shape *s) {
    const aabb reach = aabb_grow(s->box, s->speculative);
    return s->speculative > 0.0 && plane_overlaps_box(plane, &reach);
}

/* Does the plane meet the shape's fat box or its reach? A fast shape's
 * reach goes beyond its fat box: a log of the 40-layer tower falling at 4.7
 * m/s, 7.6 cm above the ground, had its fat box end 2 cm above it while its
 * reach went 21 cm below; unpaired, it went 7.5 cm into the ground within
 * the step. */
static int plane_meets(const shape *plane, const shape *s) {
    return plane_overlaps_box(plane, &s->fat) || plane_within_reach(plane, s);
}

static int pair_alive(const heft_world *w, uint64_t key) {
    const shape *a = &w->shapes[key >> 32], *b = &w->shapes[key & 0xFFFFFFFFu];
    if (a->type == HEFT_SHAPE_PLANE) {
        return plane_meets(a, b);
    }
    if (b->type == HEFT_SHAPE_PLANE) {
        return plane_meets(b, a);
    }
    return aabb_overlap(&a->fat, &b->fat);
}

int broad_phase_update(heft_world *w) {
    broad_phase *bp = &w->broad;
    world_tasks_run(w, shape_boxes_task, w->shape_high, BOX_TASK_MIN_RANGE, w);
    refresh(w, 1);
    bp->found_count = 0;
    query_context q = {w, -1, 1};
    for (int k = 0; k < bp->moved_count && q.ok; ++k) {
        int32_t i = bp->moved[k];
        shape *s = &w->shapes[i];
        q.self = i;
        tree_query(&bp->tree, s->fat, on_overlap, &q);
        for (int p = 0; p < bp->plane_count && q.ok && !bp->planes_dirty; ++p) {
            int32_t j = bp->planes[p];
            if (broad_phase_may_pair(w, i, j) && plane_meets(&w->shapes[j], s)) {
                q.ok = add_found(bp, pair_key(i, j));
            }
        }
    }
    /* shapes that did not leave their fat box but whose reach meets a plane
     * the fat box does not (plane_meets) */
    for (int p = 0; p < bp->plane_count && q.ok && !bp->planes_dirty; ++p) {
        const int32_t j = bp->planes[p];
        for (int i = 0; i < w->shape_high && q.ok; ++i) {
            const shape *s = &w->shapes[i];
            if (s->slot.alive && s->proxy >= 0 && !s->moved && s->speculative > 0.0 &&
                !w->bodies[s->body].sleeping && !plane_overlaps_box(&w->shapes[j], &s->fat) &&
                plane_within_reach(&w->shapes[j], s) && broad_phase_may_pair(w, i, j)) {
                q.ok = add_found(bp, pair_key(i, j));
            }
        }
    }
    if (bp->planes_dirty) {
        for (int p = 0; p < bp->plane_count && q.ok; ++p) {
            int32_t j = bp->planes[p];
            for (int i = 0; i < w->shape_high && q.ok; ++i) {
                shape *s = &w->shapes[i];
                if (s->slot.alive && s->proxy >= 0 && broad_phase_may_pair(w, i, j) &&
                    plane_meets(&w->shapes[j], s)) {
                    q.ok = add_found(bp, pair_key(i, j));
                }
            }
        }
    }
    if (!q.ok) {
        return 0;
    }
    /* new pairs: sorted, unique, not yet known */
    if (bp->found_count > 1) {
        qsort(bp->found, (size_t)bp->found_count, sizeof(uint64_t), compare_u64);
    }
    int n = 0;
    for (int k = 0; k < bp->found_count; ++k) {
        uint64_t key = bp->found[k];
        if ((n > 0 && bp->found[n - 1] == key) ||
            (bp->pair_count > 0 &&
             bsearch(&key, bp->pairs, (size_t)bp->pair_count, sizeof(uint64_t), compare_u64))) {
            continue;
        }
        bp->found[n++] = key;
    }
    if (!grow((void **)&bp->pairs, &bp->pair_capacity, bp->pair_count + n, sizeof(uint64_t))) {
        return 0;
    }
    /* merge from the back */
    int i = bp->pair_count - 1, j = n - 1, out = bp->pair_count + n - 1;
    while (j >= 0) {
        if (i >= 0 && bp->pairs[i] > bp->found[j]) {
            bp->pairs[out--] = bp->pairs[i--];
        } else {
            bp->pairs[out--] = bp->found[j--];
        }
    }
    bp->pair_count += n;
    /* drop the pairs whose boxes parted */
    int kept = 0;
    for (int k = 0; k < bp->pair_count; ++k) {
        if (pair_alive(w, bp->pairs[k])) {
            bp->pairs[kept++] = bp->pairs[k];
        }
    }
    bp->pair_count = kept;
    for (int k = 0; k < bp->moved_count; ++k) {
        w->shapes[bp->moved[k]].moved = 0;
    }
    bp->moved_count = 0;
    bp->planes_dirty = 0;
    return 1;
}
