/* Persistent islands: each dynamic body belongs to one, kept in a list
 * through its body fields. Joints and contacts join islands when they first
 * join two of them (islands_link: the smaller list moves into the larger,
 * which keeps its id and so its solver state). A link that ends only marks
 * its island; the walk that splits it runs once, in the next step, before
 * the island is solved. Box2D v3 defers that walk to when an island would
 * sleep; here it runs in the step after, because a direct solver's cost
 * grows faster than linearly with the island's rows and two stacks that
 * once touched should not share one factorization. */
#include "island.h"

#include <string.h>

#include "body_links.h"
#include "contact.h"
#include "prefetch.h"
#include "sleep.h"
#include "world.h"

static int32_t island_new(heft_world *w) {
    int32_t k = w->island_free;
    if (k >= 0) {
        w->island_free = w->islands[k].free_next;
    } else {
        if (!array_grow((void **)&w->islands, &w->island_capacity, w->island_high + 1,
                        sizeof(world_island))) {
            return -1;
        }
        k = w->island_high++;
    }
    world_island *is = &w->islands[k];
    memset(is, 0, sizeof *is);
    is->id = ++w->island_next_id;
    is->body_first = -1;
    is->free_next = -1;
    is->step_index = -1;
    w->island_live++;
    return k;
}

static void island_free(heft_world *w, int32_t k) {
    world_island *is = &w->islands[k];
    is->id = 0;
    is->body_first = -1;
    is->body_count = 0;
    is->free_next = w->island_free;
    w->island_free = k;
    w->island_live--;
}

static void push_body(heft_world *w, int32_t k, int32_t b) {
    body *bd = &w->bodies[b];
    world_island *is = &w->islands[k];
    bd->island_id = k;
    bd->island_prev = -1;
    bd->island_next = is->body_first;
    if (is->body_first >= 0) {
        w->bodies[is->body_first].island_prev = b;
    }
    is->body_first = b;
    is->body_count++;
}

static void unlink_body(heft_world *w, int32_t b) {
    body *bd = &w->bodies[b];
    world_island *is = &w->islands[bd->island_id];
    if (bd->island_prev >= 0) {
        w->bodies[bd->island_prev].island_next = bd->island_next;
    } else {
        is->body_first = bd->island_next;
    }
    if (bd->island_next >= 0) {
        w->bodies[bd->island_next].island_prev = bd->island_prev;
    }
    is->body_count--;
    bd->island_id = bd->island_prev = bd->island_next = -1;
}

int islands_ensure(heft_world *w) {
    /* room for every body's event, taken when bodies are added, so that
     * falling asleep for the first time allocates nothing in the step */
    if (w->woke_capacity < w->body_high || w->slept_capacity < w->body_high) {
        if (!array_grow((void **)&w->woke_events, &w->woke_capacity, w->body_high,
                        sizeof(heft_body_id)) ||
            !array_grow((void **)&w->slept_events, &w->slept_capacity, w->body_high,
                        sizeof(heft_body_id))) {
            return 0;
        }
    }
    for (int32_t i = 0; i < w->body_high; ++i) {
        body *b = &w->bodies[i];
        if (b->slot.alive && body_is_dynamic(b) && b->island_id < 0) {
            int32_t k = island_new(w);
            if (k < 0) {
                return 0;
            }
            push_body(w, k, i);
        }
    }
    return 1;
}

/* Moves the smaller island's bodies into the larger one's. */
static void merge(heft_world *w, int32_t ka, int32_t kb) {
    if (w->islands[ka].body_count < w->islands[kb].body_count) {
        int32_t t = ka;
        ka = kb;
        kb = t;
    }
    while (w->islands[kb].body_first >= 0) {
        int32_t b = w->islands[kb].body_first;
        unlink_body(w, b);
        push_body(w, ka, b);
    }
    w->islands[ka].links_removed += w->islands[kb].links_removed;
    island_free(w, kb);
}

/* Joins the islands of two bodies when both are awake and dynamic. */
static void link_bodies(heft_world *w, int32_t a, int32_t b) {
    if (a < 0 || b < 0 || a == b) {
        return;
    }
    const body *ba = &w->bodies[a], *bb = &w->bodies[b];
    if (ba->sleeping || bb->sleeping || ba->island_id == bb->island_id || ba->island_id < 0 ||
        bb->island_id < 0 || !body_is_dynamic(ba) || !body_is_dynamic(bb)) {
        return;
    }
    merge(w, ba->island_id, bb->island_id);
}

void islands_link(heft_world *w) {
    for (int32_t i = 0; i < w->joint_high; ++i) {
        const joint *j = &w->joints[i];
        if (j->slot.alive && !j->broken) {
            link_bodies(w, j->body_a, j->body_b);
        }
    }
    for (int i = 0; i < w->contacts.count; ++i) {
        link_bodies(w, w->contacts.items[i].body_a, w->contacts.items[i].body_b);
    }
}

void island_mark_link_removed(heft_world *w, int32_t b) {
    if (b >= 0 && w->bodies[b].island_id >= 0) {
        w->islands[w->bodies[b].island_id].links_removed++;
    }
}

void island_remove_body(heft_world *w, int32_t b) {
    body *bd = &w->bodies[b];
    if (bd->island_id < 0) {
        return;
    }
    int32_t k = bd->island_id;
    unlink_body(w, b);
    bd->sleeping = 0;
    bd->sleep_time = 0.0;
    if (w->islands[k].body_count == 0) {
        island_free(w, k);
    } else {
        /* what rested on the body must fall: the rest of its island wakes */
        island_wake(w, k);
        w->islands[k].links_removed++;
    }
}

void islands_release(heft_world *w) {
    heft_free(w->islands);
    heft_free(w->island_scratch);
    w->islands = NULL;
    w->island_scratch = NULL;
    w->island_capacity = w->island_high = w->island_live = w->island_scratch_capacity = 0;
    w->island_free = -1;
}

/* The dynamic body at the other end of body b's joint edge e, -1 if none. */
static int32_t joint_neighbour(const heft_world *w, int32_t e) {
    const joint *j = &w->joints[e >> 1];
    if (j->broken) {
        return -1;
    }
    int32_t other = (e & 1) ? j->body_a : j->body_b;
    return other >= 0 && body_is_dynamic(&w->bodies[other]) ? other : -1;
}

static int32_t contact_neighbour(const heft_world *w, int32_t e, int32_t self) {
    const contact *c = &w->contacts.items[e >> 1];
    int32_t other = c->body_a == self ? c->body_b : c->body_a;
    return body_is_dynamic(&w->bodies[other]) ? other : -1;
}

int island_split(heft_world *w, int32_t k) {
    const int n = w->islands[k].body_count;
    if (!array_grow((void **)&w->island_scratch, &w->island_scratch_capacity, 4 * n + 4,
                    sizeof(int32_t))) {
        return 0;
    }
    int32_t *members = w->island_scratch, *stack = members + n, *size = stack + n,
            *target = size + n;
    int m = 0;
    for (int32_t b = w->islands[k].body_first; b >= 0; b = w->bodies[b].island_next) {
        members[m++] = b;
        w->bodies[b].island_flood = -1;
    }
    /* connected parts by a depth-first walk over joints and contacts */
    int parts = 0;
    const contact_set *cs = &w->contacts;
    for (int s = 0; s < n; ++s) {
        if (w->bodies[members[s]].island_flood >= 0) {
            continue;
        }
        int top = 0;
        stack[top++] = members[s];
        w->bodies[members[s]].island_flood = parts;
        size[parts] = 0;
        while (top > 0) {
            int32_t b = stack[--top];
            size[parts]++;
            for (int32_t e = body_first_joint_edge(w, b); e >= 0; e = body_next_joint_edge(w, e)) {
                int32_t o = joint_neighbour(w, e);
                if (o >= 0 && w->bodies[o].island_id == k && w->bodies[o].island_flood < 0) {
                    w->bodies[o].island_flood = parts;
                    stack[top++] = o;
                }
            }
            if (b < cs->linked_bodies) {
                for (int32_t e = cs->first[b]; e >= 0; e = cs->next[e]) {
                    int32_t o = contact_neighbour(w, e, b);
                    if (o >= 0 && w->bodies[o].island_id == k && w->bodies[o].island_flood < 0) {
                        w->bodies[o].island_flood = parts;
                        stack[top++] = o;
                    }
                }
            }
        }
        parts++;
    }
    w->islands[k].links_removed = 0;
    if (parts <= 1) {
        return 1;
    }
    /* the largest part keeps the island (its id, its solver state) */
    int largest = 0;
    for (int p = 1; p < parts; ++p) {
        largest = size[p] > size[largest] ? p : largest;
    }
    for (int p = 0; p < parts; ++p) {
        target[p] = -1;
    }
    target[largest] = k;
    for (int p = 0; p < parts; ++p) {
        if (target[p] < 0) {
            target[p] = island_new(w);
            if (target[p] < 0) {
                /* out of memory: the island stays whole, which is only slower */
                for (int q = 0; q < p; ++q) {
                    if (target[q] != k) {
                        island_free(w, target[q]);
                    }
                }
                w->islands[k].links_removed = 1;
                return 0;
            }
            w->islands[target[p]].sleeping = w->islands[k].sleeping;
        }
    }
    for (int i = 0; i < m; ++i) {
        int32_t b = members[i];
        int32_t t = target[w->bodies[b].island_flood];
        if (t != k) {
            unlink_body(w, b);
            push_body(w, t, b);
        }
    }
    return 1;
}

int islands_split_marked(heft_world *w) {
    const int high = w->island_high; /* islands made by the splits need none */
    int ok = 1;
    for (int32_t k = 0; k < high && ok; ++k) {
        const world_island *is = &w->islands[k];
        if (is->id != 0 && !is->sleeping && is->links_removed > 0) {
            ok = island_split(w, k);
        }
    }
    return ok;
}

static int row_body(const body *bodies, int32_t index) {
    return (index >= 0 && body_is_dynamic(&bodies[index])) ? index : -1;
}

/* rows ahead of the one read whose bodies are fetched (islands_gather) */
#define GATHER_AHEAD 16

int islands_gather(heft_world *w, arena *a, const row *rows, int nrows, island_set *out) {
    body *bodies = w->bodies;
    const int n = w->body_high;
    int count = 0;
    for (int32_t k = 0; k < w->island_high; ++k) {
        w->islands[k].step_index = -1;
    }
    /* islands numbered in the order of their lowest body */
    int alone = 0;
    for (int i = 0; i < n; ++i) {
        body *b = &bodies[i];
        b->island = -1;
        if (b->slot.alive && body_is_dynamic(b) && !b->sleeping && b->island_id >= 0) {
            world_island *is = &w->islands[b->island_id];
            if (is->step_index < 0) {
                is->step_index = count++;
            }
            b->island = is->step_index;
        } else if (b->slot.alive && b->type != HEFT_BODY_STATIC && !b->sleeping) {
            alone++;
        }
    }
    out->count = count;
    out->moving_alone = alone;
    out->body_start = arena_calloc(a, (size_t)count + 1, sizeof(int));
    out->row_start = arena_calloc(a, (size_t)count + 1, sizeof(int));
    out->bodies = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
    out->rows = arena_alloc(a, sizeof(int) * (size_t)(nrows + 1));
    out->key = arena_alloc(a, sizeof(int64_t) * (size_t)(count + 1));
    out->index = arena_alloc(a, sizeof(int32_t) * (size_t)(count + 1));
    int *fill = arena_calloc(a, (size_t)count + 1, sizeof(int));
    int *row_island = arena_alloc(a, sizeof(int) * (size_t)(nrows + 1));
    if (!out->body_start || !out->row_start || !out->bodies || !out->rows || !out->key ||
        !out->index || !fill || !row_island) {
        return 0;
    }
    for (int32_t k = 0; k < w->island_high; ++k) {
        if (w->islands[k].step_index >= 0) {
            out->key[w->islands[k].step_index] = w->islands[k].id;
            out->index[w->islands[k].step_index] = k;
        }
    }
    /* counting sort of bodies and rows by island keeps each list ascending */
    for (int i = 0; i < n; ++i) {
        if (bodies[i].island >= 0) {
            out->body_start[bodies[i].island + 1]++;
        }
    }
    /* each row's island looked up once (two body records a row), for the
     * count and the placement both; a row on the bodies of the row before
     * (a contact point's or a joint's rows come together) is in its island */
    int32_t last_a = -2, last_b = -2, last_k = -1;
    for (int r = 0; r < nrows; ++r) {
        /* the rows were written a moment ago, past the cache's reach on
         * large worlds: their first lines fetched ahead (64% of this
         * function's time was the read of a row's bodies on 1,000 boxes) */
        if (r + GATHER_AHEAD < nrows)
            prefetch_lines(&rows[r + GATHER_AHEAD], 1); /* a and b */
        if (rows[r].a != last_a || rows[r].b != last_b) {
            int ba = row_body(bodies, rows[r].a), bb = row_body(bodies, rows[r].b);
            last_a = rows[r].a;
            last_b = rows[r].b;
            last_k = bodies[ba >= 0 ? ba : bb].island;
        }
        row_island[r] = last_k;
        out->row_start[last_k + 1]++;
    }
    for (int k = 0; k < count; ++k) {
        out->body_start[k + 1] += out->body_start[k];
        out->row_start[k + 1] += out->row_start[k];
    }
    for (int i = 0; i < n; ++i) {
        if (bodies[i].island >= 0) {
            int k = bodies[i].island;
            bodies[i].island_local = fill[k];
            out->bodies[out->body_start[k] + fill[k]++] = i;
        }
    }
    for (int k = 0; k < count; ++k) {
        fill[k] = 0;
    }
    for (int r = 0; r < nrows; ++r) {
        const int k = row_island[r];
        out->rows[out->row_start[k] + fill[k]++] = r;
    }
    return 1;
}
