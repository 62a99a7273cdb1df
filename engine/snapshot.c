/* Snapshots of a world's changing state into a caller's buffer
 * (docs/snapshots.md): everything the next step reads that the steps before
 * it wrote, so that stepping on from a restored state is bit-identical to
 * stepping on from the original.
 *
 * The buffer is a header and a list of sections, each a tag, a version and
 * its length, so that a new part of the state is a new section. The header
 * carries the world's layout (slot counts and a hash of every live body,
 * joint and shape with its generation): a buffer of another layout is
 * refused. A restore reads the whole buffer twice, first only checking it
 * and making the memory it needs, then writing, so that a refused buffer
 * changes nothing. */
#include <string.h>

#include "error.h"
#include "world.h"

#define SNAPSHOT_MAGIC "HEFTSNAP"
#define SNAPSHOT_FORMAT 2
#define SNAPSHOT_HEADER 64

#define SECTION_TAG(a, b, c, d)                                                                    \
    ((uint32_t)(a) | ((uint32_t)(b) << 8) | ((uint32_t)(c) << 16) | ((uint32_t)(d) << 24))
#define SECTION_WORLD SECTION_TAG('W', 'R', 'L', 'D')
#define SECTION_BODIES SECTION_TAG('B', 'O', 'D', 'Y')
#define SECTION_JOINTS SECTION_TAG('J', 'O', 'N', 'T')
#define SECTION_CONTACTS SECTION_TAG('C', 'O', 'N', 'T')
#define SECTION_SOLVER SECTION_TAG('S', 'O', 'L', 'V')
#define SECTION_BROAD SECTION_TAG('B', 'R', 'P', 'H')
#define SECTION_SLEEP SECTION_TAG('S', 'L', 'E', 'P')
#define SECTION_SENSORS SECTION_TAG('S', 'E', 'N', 'S')
#define SECTION_HEADER 16 /* tag, version, length */

/* ---- bytes ------------------------------------------------------------------ */

typedef struct writer {
    unsigned char *buffer; /* NULL: count only */
    size_t capacity, size;
} writer;

static void put(writer *w, const void *data, size_t n) {
    if (w->buffer != NULL && n > 0 && w->size <= w->capacity && n <= w->capacity - w->size) {
        memcpy(w->buffer + w->size, data, n);
    }
    w->size += n;
}

static void put_i32(writer *w, int32_t v) {
    put(w, &v, sizeof v);
}

static void put_u32(writer *w, uint32_t v) {
    put(w, &v, sizeof v);
}

static void put_u64(writer *w, uint64_t v) {
    put(w, &v, sizeof v);
}

static void put_i64(writer *w, int64_t v) {
    put(w, &v, sizeof v);
}

static void put_f64(writer *w, double v) {
    put(w, &v, sizeof v);
}

static void put_vec3(writer *w, heft_vec3 v) {
    put_f64(w, v.x);
    put_f64(w, v.y);
    put_f64(w, v.z);
}

static void put_quat(writer *w, heft_quat q) {
    put_f64(w, q.w);
    put_f64(w, q.x);
    put_f64(w, q.y);
    put_f64(w, q.z);
}

/* Reads a buffer; any read past the end, non-finite number or index out of
 * range turns it bad, with the first reason kept for the error message. */
typedef struct reader {
    const unsigned char *buffer;
    size_t size, at;
    const char *bad; /* NULL while good */
} reader;

static void fail(reader *r, const char *why) {
    if (r->bad == NULL) {
        r->bad = why;
    }
}

static void get(reader *r, void *data, size_t n) {
    if (r->bad != NULL || n > r->size - r->at) {
        fail(r, "it ends inside a section");
        memset(data, 0, n);
        return;
    }
    memcpy(data, r->buffer + r->at, n);
    r->at += n;
}

static int32_t get_i32(reader *r) {
    int32_t v;
    get(r, &v, sizeof v);
    return v;
}

static uint32_t get_u32(reader *r) {
    uint32_t v;
    get(r, &v, sizeof v);
    return v;
}

static int64_t get_i64(reader *r) {
    int64_t v;
    get(r, &v, sizeof v);
    return v;
}

static uint64_t get_u64(reader *r) {
    uint64_t v;
    get(r, &v, sizeof v);
    return v;
}

static double get_f64(reader *r) {
    double v;
    get(r, &v, sizeof v);
    if (!isfinite(v)) {
        fail(r, "it holds a number that is NaN or infinite");
        v = 0.0;
    }
    return v;
}

static heft_vec3 get_vec3(reader *r) {
    heft_vec3 v;
    v.x = get_f64(r);
    v.y = get_f64(r);
    v.z = get_f64(r);
    return v;
}

static heft_quat get_quat(reader *r) {
    heft_quat q;
    q.w = get_f64(r);
    q.x = get_f64(r);
    q.y = get_f64(r);
    q.z = get_f64(r);
    return q;
}

/* an int in [lo, hi] */
static int32_t get_index(reader *r, int32_t lo, int32_t hi, const char *why) {
    int32_t v = get_i32(r);
    if (v < lo || v > hi) {
        fail(r, why);
        v = lo;
    }
    return v;
}

#define HASH_START 0xcbf29ce484222325ULL

/* FNV-1a, 64 bits */
static uint64_t hash_bytes(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

/* The buffer's checksum: FNV-1a's step over 8-byte words (native order),
 * then over the bytes left; a word at a time is 8 times fewer multiplies on
 * the 0.3 MB of a pyramid. */
static uint64_t checksum(const unsigned char *p, size_t n) {
    uint64_t h = HASH_START;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t word;
        memcpy(&word, p + i, sizeof word);
        h ^= word;
        h *= 0x100000001b3ULL;
    }
    return hash_bytes(h, p + i, n - i);
}

static uint64_t hash_i32(uint64_t h, int32_t v) {
    return hash_bytes(h, &v, sizeof v);
}

/* The world's layout: which slots are alive, their generations, the bodies
 * and types of joints and shapes. */
static uint64_t layout_hash(const heft_world *w) {
    uint64_t h = HASH_START;
    for (int i = 0; i < w->body_high; ++i) {
        const body *b = &w->bodies[i];
        h = hash_i32(h, b->slot.alive ? (int32_t)b->slot.generation : 0);
    }
    for (int i = 0; i < w->joint_high; ++i) {
        const joint *j = &w->joints[i];
        h = hash_i32(h, j->slot.alive ? (int32_t)j->slot.generation : 0);
        if (j->slot.alive) {
            h = hash_i32(h, (int32_t)j->type);
            h = hash_i32(h, j->body_a);
            h = hash_i32(h, j->body_b);
        }
    }
    for (int i = 0; i < w->shape_high; ++i) {
        const shape *s = &w->shapes[i];
        h = hash_i32(h, s->slot.alive ? (int32_t)s->slot.generation : 0);
        if (s->slot.alive) {
            h = hash_i32(h, (int32_t)s->type);
            h = hash_i32(h, s->body);
        }
    }
    return h;
}

/* ---- sections --------------------------------------------------------------- */

/* A body's island fields as the buffer has them. */
typedef struct body_sleep {
    int32_t island_id, prev, next;
    double sleep_time;
    int sleeping, sleep_enabled, wake_contacts;
} body_sleep;

/* What a restore makes before it writes anything: the new solver states,
 * the island table and the bodies' island fields. */
typedef struct restore_plan {
    island_slot *slots[2];
    int counts[2];
    int solver_matches;     /* the buffer's solver is the world's: its states are restored */
    int64_t island_next_id; /* the buffer's: the solver states' keys are below it */
    world_island *islands;
    body_sleep *bodies;
} restore_plan;

/* Starts a section; returns where its length goes. */
static size_t section_begin(writer *w, uint32_t tag, uint32_t version) {
    put_u32(w, tag);
    put_u32(w, version);
    size_t at = w->size;
    put_u64(w, 0);
    return at;
}

static void section_end(writer *w, size_t length_at) {
    uint64_t length = (uint64_t)(w->size - length_at - sizeof(uint64_t));
    if (w->buffer != NULL && w->size <= w->capacity) {
        memcpy(w->buffer + length_at, &length, sizeof length);
    }
}

static void save_world(const heft_world *w, writer *out) {
    put_f64(out, w->time);
    put_u64(out, (uint64_t)w->steps);
    put_u32(out, (uint32_t)sizeof w->stats);
    put(out, &w->stats, sizeof w->stats);
    put_u32(out, (uint32_t)sizeof(heft_island_stats));
    put_i32(out, w->island_stats_count);
    put(out, w->island_stats, sizeof(heft_island_stats) * (size_t)w->island_stats_count);
}

static void save_bodies(const heft_world *w, writer *out) {
    for (int i = 0; i < w->body_high; ++i) {
        const body *b = &w->bodies[i];
        if (!b->slot.alive) {
            continue;
        }
        put_vec3(out, b->position);
        put_quat(out, b->orientation);
        put_vec3(out, b->linear_velocity);
        put_vec3(out, b->angular_velocity);
        put_vec3(out, b->force);
        put_vec3(out, b->torque);
        put_i32(out, b->island);
        put_i32(out, b->island_local);
    }
}

static void put_row(writer *out, const row *x) {
    put_i32(out, x->a);
    put_i32(out, x->b);
    put(out, x->ja, sizeof x->ja);
    put(out, x->jb, sizeof x->jb);
    put_f64(out, x->phi);
    put_f64(out, x->epsilon);
    put_f64(out, x->gamma);
    put_f64(out, x->target);
    put_f64(out, x->lo);
    put_f64(out, x->hi);
    put_i32(out, x->findex);
    put_i32(out, x->kind);
    put_i32(out, x->block);
    put_f64(out, x->lambda0);
}

static void save_joints(const heft_world *w, writer *out) {
    for (int i = 0; i < w->joint_high; ++i) {
        const joint *j = &w->joints[i];
        if (!j->slot.alive) {
            continue;
        }
        put_i32(out, j->broken);
        put_vec3(out, j->broken_force);
        put_vec3(out, j->broken_torque);
        put(out, j->coordinate_last, sizeof j->coordinate_last);
        put(out, j->coupled_last, sizeof j->coupled_last);
        put_f64(out, j->length);
        for (int d = 0; d < HEFT_JOINT_DOF_COUNT; ++d) {
            const heft_joint_limit *l = &j->limit[d];
            put_i32(out, l->enabled);
            put_f64(out, l->lower);
            put_f64(out, l->upper);
            put_f64(out, l->stiffness);
            put_f64(out, l->damping);
        }
        for (int d = 0; d < 6; ++d) {
            const heft_joint_motor *m = &j->motor[d];
            put_i32(out, (int32_t)m->mode);
            put_f64(out, m->target_velocity);
            put_f64(out, m->target_position);
            /* max_force may be INFINITY (no limit): kept as its bits */
            put(out, &m->max_force, sizeof m->max_force);
            put_f64(out, m->stiffness);
            put_f64(out, m->damping);
        }
        put(out, j->stiffness_impulses, sizeof j->stiffness_impulses);
        put_f64(out, j->h_last);
        put_i32(out, j->row_count);
        for (int k = 0; k < j->row_count; ++k) {
            put_f64(out, j->lambda[k]);
            put_row(out, &j->rows_last[k]);
            put(out, &j->tags_last[k], sizeof j->tags_last[k]);
        }
    }
}

static void save_contacts(const heft_world *w, writer *out) {
    put_i32(out, w->contacts.count);
    for (int i = 0; i < w->contacts.count; ++i) {
        const contact *c = &w->contacts.items[i];
        put_u64(out, c->key);
        put_u64(out, c->feature);
        put_i32(out, c->shape_a);
        put_i32(out, c->shape_b);
        put_i32(out, c->body_a);
        put_i32(out, c->body_b);
        put_vec3(out, c->point);
        put_vec3(out, c->normal);
        put_f64(out, c->separation);
        put_f64(out, c->friction);
        put_f64(out, c->restitution);
        put_vec3(out, c->tangent_velocity);
        put_f64(out, c->rolling_resistance);
        put(out, c->lambda, sizeof c->lambda);
    }
}

/* The broad phase's history: which pairs it holds depends on where each
 * leaf's enlarged box was put, and a pair with a static shape makes
 * speculative contacts beyond the shapes' boxes, so the pairs and boxes are
 * part of the state (the tree's shape is not: any tree of these boxes finds
 * the same pairs). */
static void put_aabb(writer *out, const aabb *b) {
    put_vec3(out, b->lo);
    put_vec3(out, b->hi);
}

static void save_broad(const heft_world *w, writer *out) {
    const broad_phase *bp = &w->broad;
    put_i32(out, bp->pair_count);
    put(out, bp->pairs, sizeof(uint64_t) * (size_t)bp->pair_count);
    put_i32(out, bp->moved_count);
    put(out, bp->moved, sizeof(int32_t) * (size_t)bp->moved_count);
    put_i32(out, bp->planes_dirty);
    for (int i = 0; i < w->shape_high; ++i) {
        const shape *sh = &w->shapes[i];
        if (!sh->slot.alive) {
            continue;
        }
        put_aabb(out, &sh->fat);
        put_vec3(out, sh->plane_n);
        put_f64(out, sh->plane_d);
        put_i32(out, sh->moved);
    }
}

#define NO_SOLVER_STATE UINT64_MAX

static void save_slots(const heft_world *w, const island_slots *set, writer *out) {
    put_i32(out, set->count);
    for (int i = 0; i < set->count; ++i) {
        const island_slot *s = &set->items[i];
        put_i64(out, s->key);
        put_u64(out, s->signature);
        if (w->solver->save_state == NULL || w->solver->restore_state == NULL) {
            put_u64(out, NO_SOLVER_STATE);
            continue;
        }
        size_t n = w->solver->save_state(s->state, NULL, 0);
        put_u64(out, (uint64_t)n);
        if (out->buffer != NULL && out->size <= out->capacity && n <= out->capacity - out->size) {
            w->solver->save_state(s->state, out->buffer + out->size, n);
        }
        out->size += n;
    }
}

static void save_solver(const heft_world *w, writer *out) {
    char name[sizeof w->solver_name];
    memset(name, 0, sizeof name);
    for (size_t i = 0; i + 1 < sizeof name && w->solver_name[i]; ++i) {
        name[i] = w->solver_name[i];
    }
    put(out, name, sizeof name);
    save_slots(w, &w->velocity_slots, out);
    save_slots(w, &w->position_slots, out);
}

static void put_header(const heft_world *w, writer *out, uint64_t sum, uint32_t sections) {
    put(out, SNAPSHOT_MAGIC, 8);
    put_u32(out, SNAPSHOT_FORMAT);
    put_u32(out, sections);
    put_u64(out, (uint64_t)out->capacity);
    put_u64(out, layout_hash(w));
    put_u64(out, sum);
    put_i32(out, w->body_high);
    put_i32(out, w->body_live);
    put_i32(out, w->joint_high);
    put_i32(out, w->joint_live);
    put_i32(out, w->shape_high);
    put_i32(out, w->shape_live);
}

/* ---- restore -------------------------------------------------------------- */

static void plan_release(heft_world *w, restore_plan *plan) {
    heft_free(plan->islands);
    heft_free(plan->bodies);
    plan->islands = NULL;
    plan->bodies = NULL;
    for (int k = 0; k < 2; ++k) {
        for (int i = 0; plan->slots[k] && i < plan->counts[k]; ++i) {
            if (plan->slots[k][i].state) {
                w->solver->destroy(plan->slots[k][i].state);
            }
        }
        heft_free(plan->slots[k]);
        plan->slots[k] = NULL;
        plan->counts[k] = 0;
    }
}

/* Each section reads its bytes; with apply 0 it only checks them. */
static void load_world(heft_world *w, reader *r, restore_plan *plan, int apply) {
    (void)plan;
    double time = get_f64(r);
    int64_t steps = (int64_t)get_u64(r);
    if (get_u32(r) != sizeof w->stats) {
        fail(r, "its step statistics are of another build");
        return;
    }
    heft_step_stats stats;
    get(r, &stats, sizeof stats);
    if (get_u32(r) != sizeof(heft_island_stats)) {
        fail(r, "its island statistics are of another build");
        return;
    }
    int count = get_index(r, 0, INT32_MAX / 2, "its island count is negative");
    size_t bytes = sizeof(heft_island_stats) * (size_t)count;
    if (r->bad || bytes > r->size - r->at) {
        fail(r, "it ends inside a section");
        return;
    }
    if (steps < 0) {
        fail(r, "its step count is negative");
    }
    if (!apply) {
        if (!r->bad && !array_grow((void **)&w->island_stats, &w->island_stats_capacity, count + 1,
                                   sizeof(heft_island_stats))) {
            fail(r, "out of memory");
        }
        r->at += bytes;
        return;
    }
    memcpy(w->island_stats, r->buffer + r->at, bytes);
    r->at += bytes;
    w->island_stats_count = count;
    w->time = time;
    w->steps = steps;
    w->stats = stats;
}

static void load_bodies(heft_world *w, reader *r, restore_plan *plan, int apply) {
    (void)plan;
    for (int i = 0; i < w->body_high && !r->bad; ++i) {
        body *b = &w->bodies[i];
        if (!b->slot.alive) {
            continue;
        }
        heft_vec3 p = get_vec3(r);
        heft_quat q = get_quat(r);
        heft_vec3 v = get_vec3(r), omega = get_vec3(r);
        heft_vec3 force = get_vec3(r), torque = get_vec3(r);
        int island = get_index(r, -1, INT32_MAX, "a body's island is out of range");
        int island_local = get_index(r, -1, INT32_MAX, "a body's island is out of range");
        if (apply && !r->bad) {
            b->position = p;
            b->orientation = q;
            b->linear_velocity = v;
            b->angular_velocity = omega;
            b->force = force;
            b->torque = torque;
            b->island = island;
            b->island_local = island_local;
            body_update_world_inertia(b);
        }
    }
}

static int32_t get_body_end(const heft_world *w, reader *r) {
    int32_t index = get_index(r, -1, w->body_high - 1, "a row names a body out of range");
    if (index >= 0 && !w->bodies[index].slot.alive) {
        fail(r, "a row names a body that is gone");
        index = -1;
    }
    return index;
}

static void get_row(const heft_world *w, reader *r, row *x) {
    x->a = get_body_end(w, r);
    x->b = get_body_end(w, r);
    for (int k = 0; k < 6; ++k) {
        x->ja[k] = get_f64(r);
    }
    for (int k = 0; k < 6; ++k) {
        x->jb[k] = get_f64(r);
    }
    x->phi = get_f64(r);
    x->epsilon = get_f64(r);
    x->gamma = get_f64(r);
    x->target = get_f64(r);
    /* bounds may be infinite */
    get(r, &x->lo, sizeof x->lo);
    get(r, &x->hi, sizeof x->hi);
    if (isnan(x->lo) || isnan(x->hi)) {
        fail(r, "a row's bound is NaN");
    }
    x->findex = get_i32(r);
    x->kind = (uint8_t)get_index(r, 0, 255, "a row's kind is out of range");
    x->block = get_i32(r);
    x->lambda0 = get_f64(r);
}

static void load_joints(heft_world *w, reader *r, restore_plan *plan, int apply) {
    (void)plan;
    for (int i = 0; i < w->joint_high && !r->bad; ++i) {
        joint *j = &w->joints[i];
        if (!j->slot.alive) {
            continue;
        }
        joint t;
        t.broken = get_index(r, 0, 1, "a joint's broken flag is neither 0 nor 1");
        t.broken_force = get_vec3(r);
        t.broken_torque = get_vec3(r);
        for (int d = 0; d < HEFT_JOINT_DOF_COUNT; ++d) {
            t.coordinate_last[d] = get_f64(r);
        }
        t.coupled_last[0] = get_f64(r);
        t.coupled_last[1] = get_f64(r);
        t.length = get_f64(r);
        for (int d = 0; d < HEFT_JOINT_DOF_COUNT; ++d) {
            heft_joint_limit *l = &t.limit[d];
            l->enabled = get_index(r, 0, 1, "a joint limit's flag is neither 0 nor 1");
            l->lower = get_f64(r);
            l->upper = get_f64(r);
            l->stiffness = get_f64(r);
            l->damping = get_f64(r);
        }
        for (int d = 0; d < 6; ++d) {
            heft_joint_motor *m = &t.motor[d];
            m->mode = (heft_motor_mode)get_index(r, HEFT_MOTOR_OFF, HEFT_MOTOR_POSITION,
                                                 "a joint motor's mode is out of range");
            m->target_velocity = get_f64(r);
            m->target_position = get_f64(r);
            get(r, &m->max_force, sizeof m->max_force);
            if (!(m->max_force >= 0.0)) {
                fail(r, "a joint motor's force limit is negative or NaN");
            }
            m->stiffness = get_f64(r);
            m->damping = get_f64(r);
        }
        for (int k = 0; k < JOINT_SLOT_COUNT; ++k) {
            t.stiffness_impulses[k] = get_f64(r);
        }
        t.h_last = get_f64(r);
        t.row_count = get_index(r, 0, HEFT_JOINT_MAX_ROWS, "a joint's row count is out of range");
        for (int k = 0; k < t.row_count && !r->bad; ++k) {
            t.lambda[k] = get_f64(r);
            get_row(w, r, &t.rows_last[k]);
            get(r, &t.tags_last[k], sizeof t.tags_last[k]);
            if (t.tags_last[k].slot >= JOINT_SLOT_COUNT || t.tags_last[k].dof < -1 ||
                t.tags_last[k].dof >= HEFT_JOINT_DOF_COUNT) {
                fail(r, "a joint row's tag is out of range");
            }
        }
        if (!apply || r->bad) {
            continue;
        }
        j->broken = t.broken;
        j->broken_force = t.broken_force;
        j->broken_torque = t.broken_torque;
        memcpy(j->coordinate_last, t.coordinate_last, sizeof j->coordinate_last);
        memcpy(j->coupled_last, t.coupled_last, sizeof j->coupled_last);
        j->length = t.length;
        memcpy(j->limit, t.limit, sizeof j->limit);
        memcpy(j->motor, t.motor, sizeof j->motor);
        memcpy(j->stiffness_impulses, t.stiffness_impulses, sizeof j->stiffness_impulses);
        j->h_last = t.h_last;
        j->row_count = t.row_count;
        for (int k = 0; k < HEFT_JOINT_MAX_ROWS; ++k) {
            j->lambda[k] = k < t.row_count ? t.lambda[k] : 0.0;
        }
        for (int k = 0; k < t.row_count; ++k) {
            j->rows_last[k] = t.rows_last[k];
            j->rows_last[k].lambda_out = &j->lambda[k];
            j->tags_last[k] = t.tags_last[k];
        }
    }
}

static int shape_alive(const heft_world *w, int32_t index) {
    return index >= 0 && index < w->shape_high && w->shapes[index].slot.alive;
}

static void load_contacts(heft_world *w, reader *r, restore_plan *plan, int apply) {
    (void)plan;
    contact_set *set = &w->contacts;
    int count = get_index(r, 0, INT32_MAX / 4, "its contact count is negative");
    if (r->bad) {
        return;
    }
    if (!apply && count > set->capacity) {
        int cap = set->capacity, cap2 = set->capacity;
        if (!array_grow((void **)&set->items, &cap, count, sizeof(contact)) ||
            !array_grow((void **)&set->previous, &cap2, count, sizeof(contact))) {
            fail(r, "out of memory");
            return;
        }
        set->capacity = cap < cap2 ? cap : cap2;
    }
    for (int i = 0; i < count && !r->bad; ++i) {
        contact c;
        memset(&c, 0, sizeof c);
        c.key = get_u64(r);
        c.feature = get_u64(r);
        c.shape_a = get_i32(r);
        c.shape_b = get_i32(r);
        c.body_a = get_i32(r);
        c.body_b = get_i32(r);
        c.point = get_vec3(r);
        c.normal = get_vec3(r);
        c.separation = get_f64(r);
        c.friction = get_f64(r);
        c.restitution = get_f64(r);
        c.tangent_velocity = get_vec3(r);
        c.rolling_resistance = get_f64(r);
        if (!(c.rolling_resistance >= 0.0 && c.rolling_resistance <= HEFT_ROLLING_RESISTANCE_MAX)) {
            fail(r, "a contact's rolling resistance is out of its range");
        }
        for (int k = 0; k < 5; ++k) {
            c.lambda[k] = get_f64(r);
        }
        if (!shape_alive(w, c.shape_a) || !shape_alive(w, c.shape_b) ||
            c.body_a != w->shapes[c.shape_a].body || c.body_b != w->shapes[c.shape_b].body ||
            c.key != pair_key(c.shape_a, c.shape_b)) {
            fail(r, "a contact names shapes that are not the world's");
        }
        if (apply && !r->bad) {
            set->items[i] = c;
        }
    }
    if (apply && !r->bad) {
        set->count = count;
    }
}

static island_slot *load_slots(heft_world *w, reader *r, int match, int64_t next_id,
                               int *count_out) {
    int count = get_index(r, 0, INT32_MAX / 2, "its island count is negative");
    *count_out = 0;
    if (r->bad) {
        return NULL;
    }
    island_slot *slots = NULL;
    if (match && count > 0) {
        slots = heft_alloc(sizeof(island_slot) * (size_t)count);
        if (slots == NULL) {
            fail(r, "out of memory");
            return NULL;
        }
        memset(slots, 0, sizeof(island_slot) * (size_t)count);
    }
    int64_t last_key = 0;
    for (int i = 0; i < count && !r->bad; ++i) {
        int64_t key = get_i64(r);
        if (key < 1 || key > next_id) {
            fail(r, "an island's key is out of range");
        }
        if (i > 0 && key <= last_key) {
            fail(r, "its islands are out of order");
        }
        last_key = key;
        uint64_t signature = get_u64(r);
        uint64_t n = get_u64(r);
        if (n != NO_SOLVER_STATE && n > r->size - r->at) {
            fail(r, "it ends inside a section");
        }
        if (r->bad) {
            break;
        }
        if (slots != NULL) {
            island_slot *s = &slots[i];
            s->key = key;
            s->signature = signature;
            s->state = w->solver->create(&w->solver_options);
            *count_out = i + 1;
            if (s->state == NULL) {
                fail(r, "out of memory");
            } else if (n != NO_SOLVER_STATE) {
                if (w->solver->restore_state == NULL ||
                    w->solver->restore_state(s->state, r->buffer + r->at, (size_t)n) != 0) {
                    fail(r, "the solver refused its island state");
                }
            }
        }
        if (n != NO_SOLVER_STATE) {
            r->at += (size_t)n;
        }
    }
    return slots;
}

static void load_solver(heft_world *w, reader *r, restore_plan *plan, int apply) {
    char name[sizeof w->solver_name];
    get(r, name, sizeof name);
    name[sizeof name - 1] = '\0';
    if (apply) {
        /* the states were made and checked in the first pass */
        r->at = r->size;
        return;
    }
    plan->solver_matches = strcmp(name, w->solver_name) == 0;
    for (int k = 0; k < 2 && !r->bad; ++k) {
        plan->slots[k] =
            load_slots(w, r, plan->solver_matches, plan->island_next_id, &plan->counts[k]);
    }
}

static aabb get_aabb(reader *r) {
    aabb b;
    b.lo = get_vec3(r);
    b.hi = get_vec3(r);
    return b;
}

static void load_broad(heft_world *w, reader *r, restore_plan *plan, int apply) {
    (void)plan;
    broad_phase *bp = &w->broad;
    int pairs = get_index(r, 0, INT32_MAX / 16, "its pair count is negative");
    size_t pair_bytes = sizeof(uint64_t) * (size_t)pairs;
    if (r->bad || pair_bytes > r->size - r->at) {
        fail(r, "it ends inside a section");
        return;
    }
    const unsigned char *pair_at = r->buffer + r->at;
    uint64_t last = 0;
    for (int k = 0; k < pairs && !r->bad; ++k) {
        uint64_t key = get_u64(r);
        int32_t a = (int32_t)(key >> 32), b = (int32_t)(key & 0xFFFFFFFFu);
        if (!shape_alive(w, a) || !shape_alive(w, b) || a >= b || (k > 0 && key <= last)) {
            fail(r, "a broad-phase pair names shapes that are not the world's");
        }
        last = key;
    }
    int moved = get_index(r, 0, w->shape_high, "its moved count is out of range");
    size_t moved_bytes = sizeof(int32_t) * (size_t)moved;
    if (r->bad || moved_bytes > r->size - r->at) {
        fail(r, "it ends inside a section");
        return;
    }
    const unsigned char *moved_at = r->buffer + r->at;
    for (int k = 0; k < moved && !r->bad; ++k) {
        if (!shape_alive(w, get_i32(r))) {
            fail(r, "a moved leaf names a shape that is not the world's");
        }
    }
    int dirty = get_index(r, 0, 1, "its plane flag is neither 0 nor 1");
    if (!apply && !r->bad &&
        (!array_grow((void **)&bp->pairs, &bp->pair_capacity, pairs + 1, sizeof(uint64_t)) ||
         !array_grow((void **)&bp->moved, &bp->moved_capacity, moved + 1, sizeof(int32_t)))) {
        fail(r, "out of memory");
    }
    for (int i = 0; i < w->shape_high && !r->bad; ++i) {
        shape *sh = &w->shapes[i];
        if (!sh->slot.alive) {
            continue;
        }
        aabb fat = get_aabb(r);
        heft_vec3 n = get_vec3(r);
        double d = get_f64(r);
        int was_moved = get_index(r, 0, 1, "a leaf's moved flag is neither 0 nor 1");
        if (apply && !r->bad) {
            if (sh->proxy >= 0 && memcmp(&fat, &sh->fat, sizeof fat) != 0) {
                tree_move(&bp->tree, sh->proxy, fat);
            }
            sh->fat = fat;
            sh->plane_n = n;
            sh->plane_d = d;
            sh->moved = was_moved;
        }
    }
    if (apply && !r->bad) {
        memcpy(bp->pairs, pair_at, pair_bytes);
        bp->pair_count = pairs;
        memcpy(bp->moved, moved_at, moved_bytes);
        bp->moved_count = moved;
        bp->planes_dirty = dirty;
    }
}

/* Sleeping (docs/sleeping.md). The islands persist from step to step: their
 * ids key the solver states, and the order of an island's body list and of
 * the table's free list decide how a split numbers its parts and which ids
 * they get, so the table is saved as it is. The settings go with it (a
 * sleeping island in a world whose sleeping is off would stay asleep until
 * touched). A sleeping body's shapes keep the boxes and speculative reach
 * they had when it fell asleep (the broad phase does not refresh them), and
 * the next step's pair tests read those. */
static void save_sleep(const heft_world *w, writer *out) {
    put_i32(out, w->def.enable_sleep);
    put_f64(out, w->def.sleep_linear_speed);
    put_f64(out, w->def.sleep_angular_speed);
    put_f64(out, w->def.time_to_sleep);
    put_i64(out, w->island_next_id);
    put_i32(out, w->island_high);
    put_i32(out, w->island_free);
    put_i32(out, w->island_live);
    for (int k = 0; k < w->island_high; ++k) {
        const world_island *is = &w->islands[k];
        put_i64(out, is->id);
        put_i32(out, is->body_first);
        put_i32(out, is->body_count);
        put_i32(out, is->free_next);
        put_i32(out, is->links_removed);
        put_i32(out, is->sleeping);
    }
    for (int i = 0; i < w->body_high; ++i) {
        const body *b = &w->bodies[i];
        if (!b->slot.alive) {
            continue;
        }
        put_i32(out, b->island_id);
        put_i32(out, b->island_prev);
        put_i32(out, b->island_next);
        put_f64(out, b->sleep_time);
        put_i32(out, b->sleeping);
        put_i32(out, b->sleep_enabled);
        put_i32(out, b->wake_contacts);
    }
    for (int i = 0; i < w->shape_high; ++i) {
        const shape *sh = &w->shapes[i];
        if (!sh->slot.alive || sh->type == HEFT_SHAPE_PLANE) {
            continue;
        }
        put_aabb(out, &sh->box);
        put_f64(out, sh->speculative);
    }
}

/* The island table and the bodies' lists must be one consistent structure:
 * each live island's list runs from its first body through body_count
 * dynamic bodies of that island (back links matching, so no cycle), every
 * body in an island is in its list, a body sleeps with its island, and the
 * free list holds exactly the free slots. */
static const char *check_islands(const heft_world *w, const world_island *islands, int high,
                                 int free_head, int live, const body_sleep *bs) {
    long in_lists = 0, in_bodies = 0;
    int live_seen = 0;
    for (int k = 0; k < high; ++k) {
        const world_island *is = &islands[k];
        if (is->id == 0) {
            continue;
        }
        live_seen++;
        int32_t prev = -1, b = is->body_first;
        for (int n = 0; n < is->body_count; ++n) {
            if (b < 0 || !w->bodies[b].slot.alive || !body_is_dynamic(&w->bodies[b]) ||
                bs[b].island_id != k || bs[b].prev != prev || bs[b].sleeping != is->sleeping) {
                return "an island's body list does not match its bodies";
            }
            prev = b;
            b = bs[b].next;
        }
        if (b != -1) {
            return "an island's body list does not match its bodies";
        }
        in_lists += is->body_count;
    }
    for (int i = 0; i < w->body_high; ++i) {
        if (!w->bodies[i].slot.alive) {
            continue;
        }
        if (bs[i].island_id >= 0) {
            if (islands[bs[i].island_id].id == 0) {
                return "a body names a free island";
            }
            in_bodies++;
        } else if (bs[i].sleeping || bs[i].prev != -1 || bs[i].next != -1) {
            return "a body outside every island sleeps or is linked";
        }
    }
    if (in_lists != in_bodies || live_seen != live) {
        return "its island counts do not match its islands";
    }
    int free_seen = 0;
    for (int32_t k = free_head; k >= 0; k = islands[k].free_next) {
        if (islands[k].id != 0 || ++free_seen > high) {
            return "its free list of islands is broken";
        }
    }
    if (free_seen != high - live) {
        return "its free list of islands is broken";
    }
    return NULL;
}

static void load_sleep(heft_world *w, reader *r, restore_plan *plan, int apply) {
    int enable = get_index(r, 0, 1, "its sleeping switch is neither 0 nor 1");
    double linear = get_f64(r), angular = get_f64(r), time_to_sleep = get_f64(r);
    if (linear < 0.0 || angular < 0.0 || time_to_sleep < 0.0) {
        fail(r, "a sleep threshold is negative");
    }
    int64_t next_id = get_i64(r);
    int high = get_index(r, 0, INT32_MAX / 64, "its island count is negative");
    int free_head = get_index(r, -1, high - 1, "its free island is out of range");
    int live = get_index(r, 0, high, "its live island count is out of range");
    if (next_id < 0) {
        fail(r, "its next island id is negative");
    }
    if (r->bad) {
        return;
    }
    if (!apply) {
        /* the writing pass reads into the same memory */
        plan->island_next_id = next_id;
        plan->islands = heft_alloc(sizeof(world_island) * ((size_t)high + 1));
        plan->bodies = heft_alloc(sizeof(body_sleep) * ((size_t)w->body_high + 1));
        if (plan->islands == NULL || plan->bodies == NULL) {
            fail(r, "out of memory");
            return;
        }
    }
    world_island *islands = plan->islands;
    body_sleep *bs = plan->bodies;
    for (int k = 0; k < high && !r->bad; ++k) {
        world_island *is = &islands[k];
        memset(is, 0, sizeof *is);
        is->id = get_i64(r);
        is->body_first =
            get_index(r, -1, w->body_high - 1, "an island's first body is out of range");
        is->body_count = get_index(r, 0, w->body_live, "an island's body count is out of range");
        is->free_next = get_index(r, -1, high - 1, "an island's free link is out of range");
        is->links_removed = get_index(r, 0, INT32_MAX, "an island's ended links are negative");
        is->sleeping = get_index(r, 0, 1, "an island's sleeping flag is neither 0 nor 1");
        is->step_index = -1;
        if (is->id < 0 || is->id > next_id) {
            fail(r, "an island's id is out of range");
        }
    }
    for (int i = 0; i < w->body_high && !r->bad; ++i) {
        if (!w->bodies[i].slot.alive) {
            continue;
        }
        body_sleep *s = &bs[i];
        s->island_id = get_index(r, -1, high - 1, "a body's island is out of range");
        s->prev = get_index(r, -1, w->body_high - 1, "a body's island link is out of range");
        s->next = get_index(r, -1, w->body_high - 1, "a body's island link is out of range");
        s->sleep_time = get_f64(r);
        s->sleeping = get_index(r, 0, 1, "a body's sleeping flag is neither 0 nor 1");
        s->sleep_enabled = get_index(r, 0, 1, "a body's sleep switch is neither 0 nor 1");
        s->wake_contacts = get_index(r, 0, 1, "a body's wake flag is neither 0 nor 1");
        if (s->sleep_time < 0.0) {
            fail(r, "a body's sleep time is negative");
        }
    }
    if (!apply && !r->bad) {
        const char *why = check_islands(w, islands, high, free_head, live, bs);
        if (why != NULL) {
            fail(r, why);
        }
    }
    if (!apply && !r->bad &&
        !array_grow((void **)&w->islands, &w->island_capacity, high + 1, sizeof(world_island))) {
        fail(r, "out of memory");
    }
    for (int i = 0; i < w->shape_high && !r->bad; ++i) {
        shape *sh = &w->shapes[i];
        if (!sh->slot.alive || sh->type == HEFT_SHAPE_PLANE) {
            continue;
        }
        aabb box = get_aabb(r);
        double speculative = get_f64(r);
        if (apply && !r->bad) {
            sh->box = box;
            sh->speculative = speculative;
        }
    }
    if (apply && !r->bad) {
        w->def.enable_sleep = enable;
        w->def.sleep_linear_speed = linear;
        w->def.sleep_angular_speed = angular;
        w->def.time_to_sleep = time_to_sleep;
        w->island_next_id = next_id;
        w->island_high = high;
        w->island_free = free_head;
        w->island_live = live;
        if (high > 0) {
            memcpy(w->islands, islands, sizeof(world_island) * (size_t)high);
        }
        int pending = 0;
        for (int i = 0; i < w->body_high; ++i) {
            body *b = &w->bodies[i];
            if (!b->slot.alive) {
                continue;
            }
            b->island_id = bs[i].island_id;
            b->island_prev = bs[i].prev;
            b->island_next = bs[i].next;
            b->sleep_time = bs[i].sleep_time;
            b->sleeping = bs[i].sleeping;
            b->sleep_enabled = bs[i].sleep_enabled;
            b->wake_contacts = bs[i].wake_contacts;
            pending += b->wake_contacts;
        }
        w->wake_contacts_pending = pending;
    }
}

/* Sensors (docs/collision.md): the pairs whose sensor overlapped its
 * visitor in the last update. The next update reports a begin for every
 * overlap not among them, so without them a restore would report every
 * overlap again; and a sleeping visitor's overlap is kept from them. */
static void save_sensors(const heft_world *w, writer *out) {
    const contact_set *set = &w->contacts;
    put_i32(out, set->sensor_count);
    put(out, set->sensor_pairs, sizeof(uint64_t) * (size_t)set->sensor_count);
}

static void load_sensors(heft_world *w, reader *r, restore_plan *plan, int apply) {
    (void)plan;
    contact_set *set = &w->contacts;
    int count = get_index(r, 0, INT32_MAX / 16, "its sensor pair count is negative");
    size_t bytes = sizeof(uint64_t) * (size_t)count;
    if (r->bad || bytes > r->size - r->at) {
        fail(r, "it ends inside a section");
        return;
    }
    const unsigned char *at = r->buffer + r->at;
    uint64_t last = 0;
    for (int k = 0; k < count && !r->bad; ++k) {
        uint64_t key = get_u64(r);
        int32_t a = (int32_t)(key >> 32), b = (int32_t)(key & 0xFFFFFFFFu);
        if (!shape_alive(w, a) || !shape_alive(w, b) || a >= b || (k > 0 && key <= last) ||
            w->shapes[a].sensor == w->shapes[b].sensor) {
            fail(r, "a sensor pair names shapes that are not a sensor and a visitor of the world");
        }
        last = key;
    }
    if (!apply && !r->bad &&
        !array_grow((void **)&set->sensor_pairs, &set->sensor_capacity, count + 1,
                    sizeof(uint64_t))) {
        fail(r, "out of memory");
    }
    if (apply && !r->bad) {
        if (count > 0) {
            memcpy(set->sensor_pairs, at, bytes);
        }
        set->sensor_count = count;
    }
}

/* Installs the new solver states (or none, for another solver's buffer). */
static void apply_solver(heft_world *w, restore_plan *plan) {
    island_slots *sets[2] = {&w->velocity_slots, &w->position_slots};
    for (int k = 0; k < 2; ++k) {
        island_slots_clear(w, sets[k]);
        if (!plan->solver_matches || plan->counts[k] == 0) {
            continue;
        }
        /* the new slots replace the array when it is too small */
        if (plan->counts[k] > sets[k]->capacity) {
            heft_free(sets[k]->items);
            sets[k]->items = plan->slots[k];
            sets[k]->capacity = plan->counts[k];
        } else {
            memcpy(sets[k]->items, plan->slots[k], sizeof(island_slot) * (size_t)plan->counts[k]);
            heft_free(plan->slots[k]);
        }
        sets[k]->count = plan->counts[k];
        plan->slots[k] = NULL;
        plan->counts[k] = 0;
    }
}

/* The sections, in the order they are written. A part of the state that
 * a later build adds is a new entry here with its
 * own tag: an older build skips the tag, and a buffer without it is refused
 * by a build that needs it. A section's version changes when its bytes do. */
typedef struct section_kind {
    uint32_t tag, version;
    void (*save)(const heft_world *w, writer *out);
    /* apply 0: only check the bytes and make the memory a restore needs */
    void (*load)(heft_world *w, reader *r, restore_plan *plan, int apply);
} section_kind;

static const section_kind sections[] = {
    {SECTION_WORLD, 1, save_world, load_world},
    {SECTION_BODIES, 1, save_bodies, load_bodies},
    {SECTION_JOINTS, 1, save_joints, load_joints},
    /* 3: each contact's rolling resistance and its two rolling impulses */
    {SECTION_CONTACTS, 3, save_contacts, load_contacts},
    /* before the solver states: their keys are checked against its next id */
    {SECTION_SLEEP, 1, save_sleep, load_sleep},
    {SECTION_SOLVER, 2, save_solver, load_solver},
    {SECTION_BROAD, 1, save_broad, load_broad},
    {SECTION_SENSORS, 1, save_sensors, load_sensors},
};
#define SECTION_COUNT (sizeof sections / sizeof sections[0])

typedef struct section_view {
    uint32_t tag, version;
    size_t start, length;
} section_view;

static const char *check_header(const heft_world *w, const unsigned char *bytes, size_t size,
                                uint32_t *section_count) {
    reader r = {bytes, size, 0, NULL};
    char magic[8];
    get(&r, magic, 8);
    if (memcmp(magic, SNAPSHOT_MAGIC, 8) != 0) {
        return "it is not a Heft snapshot (no HEFTSNAP at its start)";
    }
    uint32_t format = get_u32(&r);
    if (format != SNAPSHOT_FORMAT) {
        heft_set_error("heft_world_restore_state: the snapshot has format %u, this build reads %d",
                       format, SNAPSHOT_FORMAT);
        return "";
    }
    *section_count = get_u32(&r);
    uint64_t total = get_u64(&r);
    uint64_t layout = get_u64(&r);
    uint64_t sum = get_u64(&r);
    int32_t counts[6];
    for (int i = 0; i < 6; ++i) {
        counts[i] = get_i32(&r);
    }
    if (total != size) {
        heft_set_error("heft_world_restore_state: the snapshot is %llu bytes, the buffer given %zu",
                       (unsigned long long)total, size);
        return "";
    }
    if (checksum(bytes + SNAPSHOT_HEADER, size - SNAPSHOT_HEADER) != sum) {
        return "its checksum does not match its bytes (a damaged or truncated copy)";
    }
    const int32_t mine[6] = {w->body_high,  w->body_live,  w->joint_high,
                             w->joint_live, w->shape_high, w->shape_live};
    if (memcmp(counts, mine, sizeof mine) != 0) {
        heft_set_error("heft_world_restore_state: the snapshot is of another world layout "
                       "(%d bodies, %d joints, %d shapes; this world has %d, %d, %d): bodies, "
                       "joints or shapes were created or destroyed since it was taken",
                       counts[1], counts[3], counts[5], mine[1], mine[3], mine[5]);
        return "";
    }
    if (layout != layout_hash(w)) {
        return "it is of another world layout (the same counts, other bodies, joints or "
               "shapes: some were destroyed and created since it was taken)";
    }
    return NULL;
}

heft_result heft_world_save_state(const heft_world *w, void *buffer, size_t capacity,
                                  size_t *size) {
    if (w == NULL || size == NULL) {
        heft_set_error("heft_world_save_state: %s is NULL", w == NULL ? "world" : "size");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    writer out = {buffer, buffer != NULL ? capacity : 0, SNAPSHOT_HEADER};
    for (size_t k = 0; k < SECTION_COUNT; ++k) {
        size_t at = section_begin(&out, sections[k].tag, sections[k].version);
        sections[k].save(w, &out);
        section_end(&out, at);
    }
    *size = out.size;
    if (buffer == NULL) {
        return HEFT_OK;
    }
    if (out.size > capacity) {
        heft_set_error("heft_world_save_state: the buffer holds %zu bytes, the state needs %zu "
                       "(ask with a NULL buffer)",
                       capacity, out.size);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    unsigned char *bytes = buffer;
    uint64_t sum = checksum(bytes + SNAPSHOT_HEADER, out.size - SNAPSHOT_HEADER);
    writer head = {buffer, out.size, 0};
    put_header(w, &head, sum, (uint32_t)SECTION_COUNT);
    return HEFT_OK;
}

heft_result heft_world_restore_state(heft_world *w, const void *buffer, size_t size) {
    if (w == NULL || buffer == NULL) {
        heft_set_error("heft_world_restore_state: %s is NULL", w == NULL ? "world" : "buffer");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (size < SNAPSHOT_HEADER) {
        heft_set_error("heft_world_restore_state: %zu bytes are fewer than a snapshot's header "
                       "(%d)",
                       size, SNAPSHOT_HEADER);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    const unsigned char *bytes = buffer;
    uint32_t section_count = 0;
    const char *why = check_header(w, bytes, size, &section_count);
    if (why != NULL) {
        if (*why) {
            heft_set_error("heft_world_restore_state: refused: %s", why);
        }
        return HEFT_ERROR_INVALID_ARGUMENT;
    }

    /* the sections this build knows; others (of a newer build's extensions)
     * are skipped */
    section_view views[SECTION_COUNT];
    memset(views, 0, sizeof views);
    reader top = {bytes, size, SNAPSHOT_HEADER, NULL};
    for (uint32_t s = 0; s < section_count && top.bad == NULL; ++s) {
        uint32_t tag = get_u32(&top), version = get_u32(&top);
        uint64_t length = get_u64(&top);
        if (top.bad != NULL || length > size - top.at) {
            fail(&top, "a section runs past its end");
            break;
        }
        for (size_t k = 0; k < SECTION_COUNT; ++k) {
            if (sections[k].tag == tag) {
                views[k].tag = tag;
                views[k].version = version;
                views[k].start = top.at;
                views[k].length = (size_t)length;
            }
        }
        top.at += (size_t)length;
    }
    for (size_t k = 0; k < SECTION_COUNT && top.bad == NULL; ++k) {
        if (views[k].tag == 0) {
            fail(&top, "a section it needs is missing");
        } else if (views[k].version != sections[k].version) {
            fail(&top, "a section is of a version this build does not read");
        }
    }
    if (top.bad != NULL) {
        heft_set_error("heft_world_restore_state: refused: %s", top.bad);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }

    restore_plan plan;
    memset(&plan, 0, sizeof plan);
    for (int apply = 0; apply < 2; ++apply) {
        for (size_t k = 0; k < SECTION_COUNT; ++k) {
            reader r = {bytes + views[k].start, views[k].length, 0, NULL};
            sections[k].load(w, &r, &plan, apply);
            if (r.bad == NULL && r.at != r.size) {
                fail(&r, "a section is longer than what it holds");
            }
            if (r.bad != NULL) {
                /* only the checking pass can fail: the writing pass reads
                 * what it checked */
                plan_release(w, &plan);
                heft_set_error("heft_world_restore_state: refused: %s", r.bad);
                return strcmp(r.bad, "out of memory") == 0 ? HEFT_ERROR_OUT_OF_MEMORY
                                                           : HEFT_ERROR_INVALID_ARGUMENT;
            }
        }
    }
    apply_solver(w, &plan);
    plan_release(w, &plan);
    /* the events of the step that made this state are not part of it */
    contact_set_clear_events(&w->contacts);
    w->broken_count = 0;
    w->woke_count = w->slept_count = 0;
    contact_set_link_bodies(&w->contacts, w->body_high);
    return HEFT_OK;
}
