/* Contacts: the collision step (broad phase, filters, narrowphase, warm
 * starts by feature id), the set kept across steps, the rows each contact
 * point writes (docs/architecture.md "The MLCP of an island": a normal row,
 * two friction rows coupled to it through the friction index and, with
 * rolling resistance, two rolling rows coupled the same way) and the
 * readback. */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "broad_phase.h"
#include "error.h"
#include "joint.h"
#include "shape_cast.h"
#include "sleep.h"
#include "slots.h"
#include "world.h"

int contact_set_reserve(contact_set *set, int points) {
    if (points <= set->capacity) {
        return 1;
    }
    int ci = set->capacity, cp = set->capacity;
    const int ok = array_grow((void **)&set->items, &ci, points, sizeof(contact)) &&
                   array_grow((void **)&set->previous, &cp, points, sizeof(contact));
    /* one may have grown before the other failed: the shared capacity is
     * what both hold */
    set->capacity = ci < cp ? ci : cp;
    return ok;
}

/* Warm starts of a pair's new points from its points of the last step:
 * the same feature id, or else the nearest unclaimed old point within 1 cm
 * (GJK-based pairs on curved shapes change ids as they roll). */
static void warm_start(contact *fresh, int n, const contact *old, int old_count) {
    unsigned claimed = 0, matched = 0;
    if (old_count > 32) {
        old_count = 32;
    }
    for (int i = 0; i < n; ++i) {
        memset(fresh[i].lambda, 0, sizeof fresh[i].lambda);
        for (int k = 0; k < old_count; ++k) {
            if (old[k].feature == fresh[i].feature && !(claimed & (1u << k))) {
                memcpy(fresh[i].lambda, old[k].lambda, sizeof fresh[i].lambda);
                claimed |= 1u << k;
                matched |= 1u << i;
                break;
            }
        }
    }
    for (int i = 0; i < n; ++i) {
        if (matched & (1u << i)) {
            continue;
        }
        int best = -1;
        double bd = 1e-4; /* (1 cm)^2 */
        for (int k = 0; k < old_count; ++k) {
            double d = v3_length2(heft_v3_sub(old[k].point, fresh[i].point));
            if (!(claimed & (1u << k)) && d < bd &&
                heft_v3_dot(old[k].normal, fresh[i].normal) > 0.99) {
                bd = d;
                best = k;
            }
        }
        if (best >= 0) {
            memcpy(fresh[i].lambda, old[best].lambda, sizeof fresh[i].lambda);
            claimed |= 1u << best;
        }
    }
}

/* CPU time of the process, ms (standard C's clock()): the phase timings
 * stay meaningful on a busy machine (the step's public timings are wall
 * clock) */
static double cpu_ms(void) {
    return 1e3 * (double)clock() / (double)CLOCKS_PER_SEC;
}

static int is_static_type(heft_shape_type t) {
    return t == HEFT_SHAPE_PLANE || t == HEFT_SHAPE_MESH || t == HEFT_SHAPE_HEIGHT_FIELD;
}

/* Do the margin-grown boxes meet (the moving one grown by its speculative
 * distance too when the other is static geometry)? */
static int boxes_touch(const shape *a, const shape *b) {
    if (is_static_type(b->type)) {
        const shape *t = a;
        a = b;
        b = t;
    }
    if (!is_static_type(a->type)) {
        return aabb_overlap(&a->box, &b->box);
    }
    aabb reach = aabb_grow(b->box, b->speculative);
    return a->type == HEFT_SHAPE_PLANE ? plane_overlaps_box(a, &reach)
                                       : aabb_overlap(&a->box, &reach);
}

static int record_events(heft_world *w, contact_set *set, int previous_count);
static int record_sensor_events(heft_world *w, contact_set *set);
static int sensor_overlap(heft_world *w, int32_t sensor, int32_t visitor);
static int pre_solve(heft_world *w, contact *points, int n);

static heft_shape_id shape_id_of(const heft_world *w, int32_t index) {
    heft_shape_id id = {index, w->shapes[index].slot.generation};
    return id;
}

static heft_body_id body_id_of(const heft_world *w, int32_t index) {
    heft_body_id id = {index, w->bodies[index].slot.generation};
    return id;
}

/* The application's pair filter on shapes ia, ib (1 without one). */
static int pair_filter_accepts(heft_world *w, int32_t ia, int32_t ib) {
    contact_set *set = &w->contacts;
    if (!set->pair_filter) {
        return 1;
    }
    const int32_t lo = ia < ib ? ia : ib, hi = ia < ib ? ib : ia;
    set->in_callback = 1;
    const int keep =
        set->pair_filter(set->pair_filter_context, shape_id_of(w, lo), shape_id_of(w, hi),
                         body_id_of(w, w->shapes[lo].body), body_id_of(w, w->shapes[hi].body));
    set->in_callback = 0;
    return keep != 0;
}

int contact_pair_allowed(heft_world *w, int32_t ia, int32_t ib) {
    const shape *sa = &w->shapes[ia], *sb = &w->shapes[ib];
    if (!(sa->category & sb->mask) || !(sb->category & sa->mask) || sa->sensor || sb->sensor) {
        return 0;
    }
    if (w->bodies[sa->body].joint_edges >= 0 && w->bodies[sb->body].joint_edges >= 0 &&
        joint_bodies_connected(w, sa->body, sb->body)) {
        return 0;
    }
    return pair_filter_accepts(w, ia, ib);
}

/* Adds key to the step's list of sensor overlaps. */
static int push_sensor_pair(contact_set *set, uint64_t key) {
    if (!array_grow((void **)&set->sensor_pairs, &set->sensor_capacity, set->sensor_count + 1,
                    sizeof *set->sensor_pairs)) {
        return 0;
    }
    set->sensor_pairs[set->sensor_count++] = key;
    return 1;
}

/* A sensor's overlap with a sleeping body is kept as it was (both lists
 * ascend by key, *old walks the last update's). Returns 0 when out of
 * memory. */
static int keep_sensor_overlap(contact_set *set, uint64_t key, int *old) {
    while (*old < set->sensor_previous_count && set->sensor_previous[*old] < key) {
        ++*old;
    }
    if (*old < set->sensor_previous_count && set->sensor_previous[*old] == key) {
        return push_sensor_pair(set, key);
    }
    return 1;
}

/* pairs are cheap: a worker takes at least this many at a time */
#define NARROW_TASK_MIN_RANGE 32

/* Which worker gets a mesh or height-field pair changes from step to step:
 * every worker's narrowphase scratch is grown to the largest any of them
 * needed, so that once warm none allocates. Returns 0 when out of memory. */
static int workers_hold_the_largest_pair(heft_world *w) {
    int triangles = 0, points = 0;
    for (int i = 0; i < w->worker_count; ++i) {
        const narrow_scratch *s = &w->workers[i].narrow;
        triangles = s->triangle_capacity > triangles ? s->triangle_capacity : triangles;
        points = s->point_capacity > points ? s->point_capacity : points;
    }
    for (int i = 0; i < w->worker_count; ++i) {
        if (!narrow_scratch_reserve(&w->workers[i].narrow, triangles, points)) {
            return 0;
        }
    }
    return 1;
}

int contact_set_reserve_poses(contact_set *set, int shapes) {
    return array_grow((void **)&set->poses, &set->pose_capacity, shapes, sizeof *set->poses);
}

/* Lists shape index s for placing in this update unless it is already. */
static void list_pose(contact_set *set, int32_t s, int *count) {
    if (set->poses[s].stamp != set->pose_step) {
        set->poses[s].stamp = set->pose_step;
        set->poses[(*count)++].listed = s;
    }
}

static void pose_task(int begin, int end, int worker, void *context) {
    (void)worker;
    heft_world *w = context;
    pose_entry *poses = w->contacts.poses;
    for (int i = begin; i < end; ++i) {
        const int32_t k = poses[i].listed;
        const shape *s = &w->shapes[k];
        shape_pose_make(s, &w->bodies[s->body], &poses[k].pose);
    }
}

/* poses are a few hundred flops each */
#define POSE_TASK_MIN_RANGE 64

/* Each shape of the jobs placed once (a box's corners and planes in world
 * frame), rather than once for every pair it is in. Returns 0 when out of
 * memory. */
static int pose_job_shapes(heft_world *w, int job_count) {
    contact_set *set = &w->contacts;
    if (!contact_set_reserve_poses(set, w->shape_capacity)) {
        return 0;
    }
    if (++set->pose_step == 0) { /* the stamps wrapped: none may match by chance */
        for (int i = 0; i < set->pose_capacity; ++i) {
            set->poses[i].stamp = 0;
        }
        set->pose_step = 1;
    }
    int count = 0;
    for (int j = 0; j < job_count; ++j) {
        list_pose(set, set->jobs[j].ia, &count);
        list_pose(set, set->jobs[j].ib, &count);
    }
    world_tasks_run(w, pose_task, count, POSE_TASK_MIN_RANGE, w);
    return 1;
}

/* The narrowphase of jobs [begin, end) on worker's scratch. */
static void collide_task(int begin, int end, int worker, void *context) {
    heft_world *w = context;
    narrow_scratch *scratch = island_worker_narrow(w, worker);
    const pose_entry *poses = w->contacts.poses;
    for (int j = begin; j < end; ++j) {
        narrow_job *job = &w->contacts.jobs[j];
        job->status = narrowphase_collide_posed(&w->shapes[job->ia], &poses[job->ia].pose,
                                                &w->shapes[job->ib], &poses[job->ib].pose,
                                                job->margin, scratch, &job->m);
    }
}

/* A job's points into fresh, with the pair's materials (the same for
 * each of its points); the warm start comes after. */
static void fill_points(const heft_world *w, const narrow_job *job, contact *fresh) {
    const manifold *m = &job->m;
    const shape *sa = &w->shapes[job->ia], *sb = &w->shapes[job->ib];
    const double friction = material_friction(sa->friction, sb->friction);
    const double restitution = material_restitution(sa->restitution, sb->restitution);
    const double rolling =
        material_rolling_resistance(sa->rolling_resistance, sb->rolling_resistance);
    for (int i = 0; i < m->count; ++i) {
        contact *c = &fresh[i];
        c->key = job->key;
        c->feature = m->points[i].feature;
        c->shape_a = job->ia;
        c->shape_b = job->ib;
        c->body_a = sa->body;
        c->body_b = sb->body;
        c->point = m->points[i].point;
        c->normal = m->points[i].normal;
        c->separation = m->points[i].separation;
        c->friction = friction;
        c->restitution = restitution;
        c->tangent_velocity = heft_v3(0.0, 0.0, 0.0);
        c->rolling_resistance = rolling;
    }
}

/* The first of the last update's points whose key is not below key (they
 * ascend by key). */
static int first_previous(const contact_set *set, uint64_t key) {
    int lo = 0, hi = set->previous_count;
    while (lo < hi) {
        const int mid = lo + (hi - lo) / 2;
        if (set->previous[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Warm-starts a pair's n fresh points from the last update's points of the
 * same key (none: no warm start). */
static void warm_start_pair(const contact_set *set, contact *fresh, int n) {
    const uint64_t key = fresh[0].key;
    const int old = first_previous(set, key);
    int old_end = old;
    while (old_end < set->previous_count && set->previous[old_end].key == key) {
        old_end++;
    }
    warm_start(fresh, n, &set->previous[old], old_end - old);
}

/* Copies the pair's points of the last step to items[count ..]; returns how
 * many (a pair between sleeping and resting bodies is kept as it was). */
static int keep_points(contact_set *set, uint64_t key, int count) {
    int n = 0;
    for (int old = first_previous(set, key);
         old < set->previous_count && set->previous[old].key == key; ++old) {
        set->items[count + n++] = set->previous[old];
    }
    return n;
}

/* The points of jobs [begin, end) at their places (job_first), warm-started:
 * each writes only its own contacts, so any split gives the same ones. */
static void fill_task(int begin, int end, int worker, void *context) {
    heft_world *w = context;
    contact_set *set = &w->contacts;
    (void)worker;
    for (int j = begin; j < end; ++j) {
        const narrow_job *job = &set->jobs[j];
        if (job->m.count == 0) {
            continue;
        }
        contact *fresh = &set->items[set->job_first[j]];
        fill_points(w, job, fresh);
        warm_start_pair(set, fresh, job->m.count);
    }
}

int contact_set_update(heft_world *w, double h) {
    contact_set *set = &w->contacts;
    broad_phase *bp = &w->broad;
    bp->h = h;
    double t0 = cpu_ms();
    if (!broad_phase_update(w)) {
        set->count = 0;
        return 0;
    }
    double t1 = cpu_ms();
    set->time_broad_ms = t1 - t0;
    set->pairs = bp->pair_count;
    contact *swap = set->previous;
    set->previous = set->items;
    set->items = swap;
    int previous_count = set->count;
    set->previous_count = previous_count;
    /* the sensors' overlaps of the last update become the previous ones */
    uint64_t *sensor_swap = set->sensor_previous;
    int sensor_swap_capacity = set->sensor_previous_capacity;
    set->sensor_previous = set->sensor_pairs;
    set->sensor_previous_capacity = set->sensor_capacity;
    set->sensor_previous_count = set->sensor_count;
    set->sensor_pairs = sensor_swap;
    set->sensor_capacity = sensor_swap_capacity;
    set->sensor_count = 0;
    if (!array_grow((void **)&set->pair_job, &set->pair_job_capacity, bp->pair_count + 1,
                    sizeof *set->pair_job)) {
        set->count = 0;
        return 0;
    }
    /* what each pair needs, in pair order on this thread (the filters and
     * the sensors may call the application) */
    int old_sensor = 0, job_count = 0;
    for (int p = 0; p < bp->pair_count; ++p) {
        uint64_t key = bp->pairs[p];
        int32_t ia = (int32_t)(key >> 32), ib = (int32_t)(key & 0xFFFFFFFFu);
        const shape *sa = &w->shapes[ia], *sb = &w->shapes[ib];
        set->pair_job[p] = -1;
        if (!body_touch_active(&w->bodies[sa->body]) && !body_touch_active(&w->bodies[sb->body])) {
            /* sleeping (engine/sleep.c): kept as it was, callbacks not called */
            if ((sa->sensor || sb->sensor) && !keep_sensor_overlap(set, key, &old_sensor)) {
                set->count = 0;
                return 0;
            }
            set->pair_job[p] = -2;
            continue;
        }
        if (!(sa->category & sb->mask) || !(sb->category & sa->mask) || !boxes_touch(sa, sb)) {
            continue;
        }
        if (sa->sensor || sb->sensor) {
            /* a sensor sees the bodies joined to its own too; two sensors
             * do not see each other */
            if (sa->sensor && sb->sensor) {
                continue;
            }
            const int overlap = pair_filter_accepts(w, ia, ib)
                                    ? sensor_overlap(w, sa->sensor ? ia : ib, sa->sensor ? ib : ia)
                                    : 0;
            if (overlap < 0 || (overlap > 0 && !push_sensor_pair(set, key))) {
                set->count = 0;
                return 0;
            }
            continue;
        }
        /* only bodies that have a joint need the joint filter */
        if (w->bodies[sa->body].joint_edges >= 0 && w->bodies[sb->body].joint_edges >= 0 &&
            joint_bodies_connected(w, sa->body, sb->body)) {
            continue;
        }
        if (!pair_filter_accepts(w, ia, ib)) {
            continue;
        }
        /* static shapes are a, as the ground was in the foundation */
        if (is_static_type(sb->type) && !is_static_type(sa->type)) {
            const shape *t = sa;
            sa = sb;
            sb = t;
            int32_t ti = ia;
            ia = ib;
            ib = ti;
        }
        /* sized by the pairs that reach the narrowphase, far fewer than the
         * broad phase's */
        if (!array_grow((void **)&set->jobs, &set->job_capacity, job_count + 1,
                        sizeof *set->jobs)) {
            set->count = 0;
            return 0;
        }
        narrow_job *job = &set->jobs[job_count];
        job->key = key;
        job->ia = ia;
        job->ib = ib;
        job->margin = w->def.contact_margin + (is_static_type(sa->type) ? sb->speculative : 0.0);
        set->pair_job[p] = job_count++;
    }
    /* the manifolds, on the workers: each job reads the shapes and bodies
     * and writes only its own manifold, so any split gives the same ones */
    if (!workers_hold_the_largest_pair(w) || !pose_job_shapes(w, job_count)) {
        set->count = 0;
        return 0;
    }
    world_tasks_run(w, collide_task, job_count, NARROW_TASK_MIN_RANGE, w);
    /* room for the points found and those kept from sleeping pairs (at most
     * the last update's); both arrays share one capacity, and growing keeps
     * the last update's points */
    int need = previous_count;
    for (int j = 0; j < job_count; ++j) {
        need += set->jobs[j].status > 0 ? set->jobs[j].m.count : 0;
    }
    if (!contact_set_reserve(set, need)) {
        set->count = 0;
        return 0;
    }
    /* the contacts, in pair order: each pair's place is counted here, and
     * without a pre-solve callback (which must see them on this thread)
     * the points are written on the workers, each job's by the worker that
     * found them, into the memory its islands will read */
    const int on_workers = set->pre_solve == NULL;
    if (on_workers && !array_grow((void **)&set->job_first, &set->job_first_capacity, job_count + 1,
                                  sizeof *set->job_first)) {
        set->count = 0;
        return 0;
    }
    int count = 0;
    for (int p = 0; p < bp->pair_count; ++p) {
        const uint64_t key = bp->pairs[p];
        if (set->pair_job[p] == -2) {
            count += keep_points(set, key, count);
            continue;
        }
        if (set->pair_job[p] < 0) {
            continue;
        }
        const narrow_job *job = &set->jobs[set->pair_job[p]];
        if (job->status < 0) {
            set->count = 0;
            return 0;
        }
        const manifold *m = &job->m;
        if (m->count == 0) {
            continue;
        }
        if (on_workers) {
            set->job_first[set->pair_job[p]] = count;
            count += m->count;
            continue;
        }
        contact *fresh = &set->items[count];
        fill_points(w, job, fresh);
        if (!pre_solve(w, fresh, m->count)) {
            continue; /* disabled for this step */
        }
        warm_start_pair(set, fresh, m->count);
        count += m->count;
    }
    if (on_workers) {
        world_tasks_run(w, fill_task, job_count, NARROW_TASK_MIN_RANGE, w);
    }
    set->count = count;
    set->time_narrow_ms = cpu_ms() - t1;
    return record_events(w, set, previous_count) && record_sensor_events(w, set) &&
           contact_set_link_bodies(set, w->body_high);
}

void contact_set_clear_events(contact_set *set) {
    set->begin_count = set->end_count = 0;
    set->hit_count = 0;
    set->sensor_begin_count = set->sensor_end_count = 0;
}

/* ---- pre-solve ------------------------------------------------------------- */

/* Hands a pair's n fresh points to the application's pre-solve callback;
 * returns 0 when it disabled the pair. What it changed is taken only within
 * range, so no NaN reaches the rows. */
static int pre_solve(heft_world *w, contact *points, int n) {
    contact_set *set = &w->contacts;
    heft_pre_solve_contact pc;
    memset(&pc, 0, sizeof pc);
    pc.shape_a = shape_id_of(w, points[0].shape_a);
    pc.shape_b = shape_id_of(w, points[0].shape_b);
    pc.body_a = body_id_of(w, points[0].body_a);
    pc.body_b = body_id_of(w, points[0].body_b);
    pc.point_count = n < HEFT_PRE_SOLVE_MAX_POINTS ? n : HEFT_PRE_SOLVE_MAX_POINTS;
    for (int i = 0; i < pc.point_count; ++i) {
        pc.points[i] = points[i].point;
        pc.normals[i] = points[i].normal;
        pc.separations[i] = points[i].separation;
    }
    pc.friction = points[0].friction;
    pc.restitution = points[0].restitution;
    pc.rolling_resistance = points[0].rolling_resistance;
    set->in_callback = 1;
    const int keep = set->pre_solve(set->pre_solve_context, &pc);
    set->in_callback = 0;
    if (!keep) {
        return 0;
    }
    const int friction_ok = isfinite(pc.friction) && pc.friction >= 0.0;
    const int restitution_ok = pc.restitution >= 0.0 && pc.restitution <= 1.0;
    const int tangent_ok = heft_v3_isfinite(pc.tangent_velocity) &&
                           fabs(pc.tangent_velocity.x) <= HEFT_SPEED_MAX &&
                           fabs(pc.tangent_velocity.y) <= HEFT_SPEED_MAX &&
                           fabs(pc.tangent_velocity.z) <= HEFT_SPEED_MAX;
    const int rolling_ok =
        pc.rolling_resistance >= 0.0 && pc.rolling_resistance <= HEFT_ROLLING_RESISTANCE_MAX;
    for (int i = 0; i < n; ++i) {
        if (friction_ok) {
            points[i].friction = pc.friction;
        }
        if (restitution_ok) {
            points[i].restitution = pc.restitution;
        }
        if (tangent_ok) {
            points[i].tangent_velocity = pc.tangent_velocity;
        }
        if (rolling_ok) {
            points[i].rolling_resistance = pc.rolling_resistance;
        }
    }
    return 1;
}

/* ---- sensors --------------------------------------------------------------- */

/* 1 when the volumes of shapes sensor and visitor touch or intersect, 0 when
 * not (or when neither is convex), -1 out of memory. */
static int sensor_overlap(heft_world *w, int32_t sensor, int32_t visitor) {
    const shape *s = &w->shapes[sensor], *v = &w->shapes[visitor];
    const transform identity = transform_make(heft_v3(0.0, 0.0, 0.0), heft_quat_identity());
    cast_shape c;
    if (cast_shape_make(&c, s, &identity)) {
        const transform ts = shape_transform(s, &w->bodies[s->body]);
        const transform tv = shape_transform(v, &w->bodies[v->body]);
        return overlap_against(&c, &ts, v, &tv, &w->broad.scratch);
    }
    if (cast_shape_make(&c, v, &identity)) {
        const transform ts = shape_transform(s, &w->bodies[s->body]);
        const transform tv = shape_transform(v, &w->bodies[v->body]);
        return overlap_against(&c, &tv, s, &ts, &w->broad.scratch);
    }
    return 0;
}

static int push_sensor_event(heft_world *w, heft_sensor_event **events, int *count, int *capacity,
                             uint64_t key) {
    if (!array_grow((void **)events, capacity, *count + 1, sizeof **events)) {
        return 0;
    }
    int32_t ia = (int32_t)(key >> 32), ib = (int32_t)(key & 0xFFFFFFFFu);
    if (!w->shapes[ia].sensor) {
        const int32_t t = ia;
        ia = ib;
        ib = t;
    }
    heft_sensor_event *e = &(*events)[(*count)++];
    e->sensor = shape_id_of(w, ia);
    e->visitor = shape_id_of(w, ib);
    e->sensor_body = body_id_of(w, w->shapes[ia].body);
    e->visitor_body = body_id_of(w, w->shapes[ib].body);
    return 1;
}

/* The sensor overlaps that began and ended since the update before: one
 * merge of the two ascending lists of keys. */
static int record_sensor_events(heft_world *w, contact_set *set) {
    int i = 0, j = 0;
    while (i < set->sensor_count || j < set->sensor_previous_count) {
        const uint64_t now = i < set->sensor_count ? set->sensor_pairs[i] : UINT64_MAX;
        const uint64_t before =
            j < set->sensor_previous_count ? set->sensor_previous[j] : UINT64_MAX;
        if (now == before) {
            ++i;
            ++j;
        } else if (now < before) {
            if (!push_sensor_event(w, &set->sensor_begin, &set->sensor_begin_count,
                                   &set->sensor_begin_capacity, now)) {
                return 0;
            }
            ++i;
        } else {
            if (!push_sensor_event(w, &set->sensor_end, &set->sensor_end_count,
                                   &set->sensor_end_capacity, before)) {
                return 0;
            }
            ++j;
        }
    }
    return 1;
}

heft_sensor_events heft_world_sensor_events(const heft_world *w) {
    heft_sensor_events ev;
    memset(&ev, 0, sizeof ev);
    if (w == NULL) {
        heft_set_error("heft_world_sensor_events: world is NULL");
        return ev;
    }
    ev.begin = w->contacts.sensor_begin;
    ev.begin_count = w->contacts.sensor_begin_count;
    ev.end = w->contacts.sensor_end;
    ev.end_count = w->contacts.sensor_end_count;
    return ev;
}

int heft_shape_is_sensor(const heft_world *w, heft_shape_id id) {
    const shape *s =
        w ? slots_get(w->shapes, sizeof(shape), w->shape_high, id.index, id.generation) : NULL;
    if (!s) {
        heft_set_error("heft_shape_is_sensor: shape id is not valid");
        return 0;
    }
    return s->sensor;
}

/* ---- hits ------------------------------------------------------------------ */

/* A strike is the first step of a push: a speculative point stops a body
 * on the surface with the rest of its approach, which the next step's
 * solve removes, and that is the same strike. */
/* The velocity of world point p on body i before the step's update. */
static heft_vec3 point_velocity_before(const heft_world *w, const body_motion *before, int32_t i,
                                       heft_vec3 p) {
    const body *b = &w->bodies[i];
    if (!before || b->island < 0) {
        return body_point_velocity(b, p);
    }
    const body_motion *m = &before[i];
    return heft_v3_add(m->linear_velocity,
                       heft_v3_cross(m->angular_velocity, heft_v3_sub(p, m->position)));
}

int contact_set_record_hits(heft_world *w, const body_motion *before) {
    contact_set *set = &w->contacts;
    int old = 0;
    for (int i = 0; i < set->count;) {
        const uint64_t key = set->items[i].key;
        int pushed_before = 0;
        while (old < set->previous_count && set->previous[old].key < key) {
            old++;
        }
        for (; old < set->previous_count && set->previous[old].key == key; ++old) {
            pushed_before |= set->previous[old].lambda[0] > 0.0;
        }
        int best = -1;
        double best_speed = set->hit_threshold;
        for (; i < set->count && set->items[i].key == key; ++i) {
            if (pushed_before) {
                continue;
            }
            const contact *c = &set->items[i];
            if (!(c->lambda[0] > 0.0)) {
                continue; /* not pushed: a speculative point that did not close */
            }
            const heft_vec3 relative =
                heft_v3_sub(point_velocity_before(w, before, c->body_b, c->point),
                            point_velocity_before(w, before, c->body_a, c->point));
            const double speed = -heft_v3_dot(relative, c->normal);
            if (speed > best_speed) {
                best_speed = speed;
                best = i;
            }
        }
        if (best < 0) {
            continue;
        }
        if (!array_grow((void **)&set->hit_events, &set->hit_capacity, set->hit_count + 1,
                        sizeof *set->hit_events)) {
            return 0;
        }
        const contact *c = &set->items[best];
        heft_contact_hit_event *e = &set->hit_events[set->hit_count++];
        e->shape_a = shape_id_of(w, c->shape_a);
        e->shape_b = shape_id_of(w, c->shape_b);
        e->body_a = body_id_of(w, c->body_a);
        e->body_b = body_id_of(w, c->body_b);
        e->point = c->point;
        e->normal = c->normal;
        e->approach_speed = best_speed;
    }
    return 1;
}

heft_result heft_world_set_hit_event_threshold(heft_world *w, double speed) {
    if (!w) {
        heft_set_error("heft_world_set_hit_event_threshold: world is NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!isfinite(speed) || speed < 0.0) {
        heft_set_error("the hit event threshold must be a finite speed >= 0 m/s (got %g)", speed);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->contacts.hit_threshold = speed;
    return HEFT_OK;
}

double heft_world_hit_event_threshold(const heft_world *w) {
    return w ? w->contacts.hit_threshold : HEFT_DEFAULT_HIT_THRESHOLD;
}

/* ---- callbacks --------------------------------------------------------------- */

heft_result heft_world_set_pair_filter(heft_world *w, heft_pair_filter_fn fn, void *context) {
    if (!w) {
        heft_set_error("heft_world_set_pair_filter: world is NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (w->contacts.in_callback) {
        heft_set_error("heft_world_set_pair_filter: called from a callback during the step");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->contacts.pair_filter = fn;
    w->contacts.pair_filter_context = fn ? context : NULL;
    sleep_wake_all(w); /* every pair is judged anew */
    return HEFT_OK;
}

heft_result heft_world_set_pre_solve(heft_world *w, heft_pre_solve_fn fn, void *context) {
    if (!w) {
        heft_set_error("heft_world_set_pre_solve: world is NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (w->contacts.in_callback) {
        heft_set_error("heft_world_set_pre_solve: called from a callback during the step");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->contacts.pre_solve = fn;
    w->contacts.pre_solve_context = fn ? context : NULL;
    sleep_wake_all(w); /* every pair is judged anew */
    return HEFT_OK;
}

/* The pairs that began and ended since the update before: both lists are
 * sorted by key (shape pair), so one merge finds them. */
static int record_events(heft_world *w, contact_set *set, int previous_count) {
    int i = 0, j = 0;
    while (i < set->count || j < previous_count) {
        const uint64_t now = i < set->count ? set->items[i].key : UINT64_MAX;
        const uint64_t before = j < previous_count ? set->previous[j].key : UINT64_MAX;
        if (now == before) {
            while (i < set->count && set->items[i].key == now)
                ++i;
            while (j < previous_count && set->previous[j].key == before)
                ++j;
            continue;
        }
        if (now < before) {
            if (!array_grow((void **)&set->begin_events, &set->begin_capacity, set->begin_count + 1,
                            sizeof *set->begin_events)) {
                return 0;
            }
            const contact *c = &set->items[i];
            const body *ba = &w->bodies[c->body_a], *bb = &w->bodies[c->body_b];
            heft_contact_begin_event *e = &set->begin_events[set->begin_count++];
            e->shape_a = shape_id_of(w, c->shape_a);
            e->shape_b = shape_id_of(w, c->shape_b);
            e->body_a = body_id_of(w, c->body_a);
            e->body_b = body_id_of(w, c->body_b);
            e->point = c->point;
            e->normal = c->normal;
            const heft_vec3 relative =
                heft_v3_sub(body_point_velocity(bb, c->point), body_point_velocity(ba, c->point));
            e->approach_speed = -heft_v3_dot(relative, c->normal);
            while (i < set->count && set->items[i].key == now)
                ++i;
        } else {
            if (!array_grow((void **)&set->end_events, &set->end_capacity, set->end_count + 1,
                            sizeof *set->end_events)) {
                return 0;
            }
            const contact *c = &set->previous[j];
            heft_contact_end_event *e = &set->end_events[set->end_count++];
            e->shape_a = shape_id_of(w, c->shape_a);
            e->shape_b = shape_id_of(w, c->shape_b);
            e->body_a = body_id_of(w, c->body_a);
            e->body_b = body_id_of(w, c->body_b);
            while (j < previous_count && set->previous[j].key == before)
                ++j;
        }
    }
    return 1;
}

heft_contact_events heft_world_contact_events(const heft_world *w) {
    heft_contact_events ev;
    memset(&ev, 0, sizeof ev);
    if (w == NULL) {
        heft_set_error("heft_world_contact_events: world is NULL");
        return ev;
    }
    ev.begin = w->contacts.begin_events;
    ev.begin_count = w->contacts.begin_count;
    ev.end = w->contacts.end_events;
    ev.end_count = w->contacts.end_count;
    ev.hit = w->contacts.hit_events;
    ev.hit_count = w->contacts.hit_count;
    return ev;
}

int contact_set_link_bodies(contact_set *set, int body_count) {
    set->linked_bodies = 0;
    if (!array_grow((void **)&set->first, &set->first_capacity, body_count, sizeof(int32_t)) ||
        !array_grow((void **)&set->next, &set->next_capacity, 2 * set->count, sizeof(int32_t))) {
        return 0;
    }
    for (int b = 0; b < body_count; ++b) {
        set->first[b] = -1;
    }
    /* backwards, each pushed in front: every list ends ascending */
    for (int c = set->count - 1; c >= 0; --c) {
        const int32_t ends[2] = {set->items[c].body_a, set->items[c].body_b};
        for (int side = 0; side < 2; ++side) {
            if (side == 1 && ends[1] == ends[0]) {
                set->next[2 * c + 1] = -1;
                continue;
            }
            set->next[2 * c + side] = set->first[ends[side]];
            set->first[ends[side]] = 2 * c + side;
        }
    }
    set->linked_bodies = body_count;
    return 1;
}

void contact_set_release(contact_set *set) {
    heft_free(set->items);
    heft_free(set->previous);
    heft_free(set->first);
    heft_free(set->next);
    heft_free(set->begin_events);
    heft_free(set->end_events);
    heft_free(set->hit_events);
    heft_free(set->sensor_pairs);
    heft_free(set->sensor_previous);
    heft_free(set->sensor_begin);
    heft_free(set->sensor_end);
    heft_free(set->pair_job);
    heft_free(set->jobs);
    heft_free(set->job_first);
    heft_free(set->poses);
    memset(set, 0, sizeof *set);
}

void contact_set_remove_shape(contact_set *set, int32_t shape_index) {
    int kept = 0;
    for (int i = 0; i < set->count; ++i) {
        if (set->items[i].shape_a != shape_index && set->items[i].shape_b != shape_index) {
            set->items[kept++] = set->items[i];
        }
    }
    set->count = kept;
    kept = 0;
    for (int i = 0; i < set->sensor_count; ++i) {
        const uint64_t key = set->sensor_pairs[i];
        if ((int32_t)(key >> 32) != shape_index && (int32_t)(key & 0xFFFFFFFFu) != shape_index) {
            set->sensor_pairs[kept++] = key;
        }
    }
    set->sensor_count = kept;
    if (!contact_set_link_bodies(set, set->linked_bodies)) {
        set->linked_bodies = 0; /* out of memory: no lists until the next step */
    }
}

/* The radius of a rounded shape: its surface is this far out from its core
 * (a sphere's centre, a capsule's segment), which turning about the core
 * does not move. */
static double core_radius(const shape *s) {
    return s->type == HEFT_SHAPE_SPHERE || s->type == HEFT_SHAPE_CAPSULE ? s->radius : 0.0;
}

/* How far along n the point q of body b moves over the step beyond the
 * linear prediction h (omega x r) the row's J v makes, under the rotation
 * the step applies for the body's free angular velocity
 * (heft_quat_integrate: the rotation of the normalized (1, h omega / 2)). */
static double turn_beyond_linear(const body *b, heft_vec3 q, heft_vec3 n, double h) {
    const heft_vec3 w = b->free_angular_velocity;
    const heft_vec3 r = heft_v3_sub(q, b->position);
    const heft_quat dq =
        heft_quat_normalize(heft_q(1.0, 0.5 * h * w.x, 0.5 * h * w.y, 0.5 * h * w.z));
    const heft_vec3 moved = heft_v3_sub(heft_quat_rotate(dq, r), r);
    const double d = heft_v3_dot(n, heft_v3_sub(moved, heft_v3_scale(heft_v3_cross(w, r), h)));
    return isfinite(d) ? d : 0.0;
}

/* Whether turn_beyond_linear at the arm r is below half a micrometre: the
 * step turns r by phi = 2 atan(theta / 2) <= theta = h |w|, and what the
 * linear J v misses is (sin phi - theta) u x r + (1 - cos phi) u x (u x r),
 * at most |r| (theta^3 / 4 + theta^2 / 2) <= |r| theta^2 for theta <= 2. */
static int turn_below_half_micrometre(const body *b, heft_vec3 q, double h) {
    const double theta2 = h * h * heft_v3_dot(b->free_angular_velocity, b->free_angular_velocity);
    const heft_vec3 r = heft_v3_sub(q, b->position);
    return theta2 <= 4.0 && heft_v3_dot(r, r) * theta2 * theta2 < 0.25e-12;
}

/* The part of the contact's closing over the step that the rows' linear
 * J v does not see, m, at most 0: the cores of its two shapes (a vertex, a
 * sphere's centre, a point of a capsule's segment) turned as the step turns
 * them. A log spinning at 131 rad/s about an axis 1.4 degrees off its own
 * swept its end round a cone and went 2.6 cm into the ground within a step
 * whose solve was exact; the linear rows saw none of it. Only a closing
 * counts: a point of a wheel's rim rises as it rolls while the rim's
 * lowest point stays, and crediting that rise would let the wheel sink.
 * The step's turn is that of the free angular velocity; the solve changes
 * it little where the turn matters (a fast spin). */
static double turn_closing(const contact *c, const body *bodies, const shape *shapes, double h) {
    const body *a = &bodies[c->body_a], *b = &bodies[c->body_b];
    const heft_vec3 core_b = heft_v3_madd(c->point, core_radius(&shapes[c->shape_b]), c->normal);
    const heft_vec3 core_a =
        heft_v3_madd(c->point, -(c->separation + core_radius(&shapes[c->shape_a])), c->normal);
    /* resting and slow bodies (most contacts) cannot reach the micrometre
     * below: the answer is 0 without the two rotations */
    if (turn_below_half_micrometre(b, core_b, h) && turn_below_half_micrometre(a, core_a, h))
        return 0.0;
    const double d =
        turn_beyond_linear(b, core_b, c->normal, h) - turn_beyond_linear(a, core_a, c->normal, h);
    /* under a micrometre (slow turns: a box sliding or resting) the rows
     * stay as the linear prediction makes them */
    return d < -1e-6 ? d : 0.0;
}

int contact_fill_rows(contact *c, const body *bodies, const shape *shapes, const contact_params *cp,
                      int block, int first, row *out) {
    const body *ba = &bodies[c->body_a], *bb = &bodies[c->body_b];
    heft_vec3 ra = heft_v3_sub(c->point, ba->position), rb = heft_v3_sub(c->point, bb->position);
    heft_vec3 t1, t2;
    heft_v3_basis(c->normal, &t1, &t2);
    heft_vec3 dirs[5] = {c->normal, t1, t2, t1, t2};
    const int count = contact_row_count(c);
    if (count < CONTACT_MAX_ROWS) {
        /* a pre-solve callback may have switched it off: no stale turn is
         * read back or carried over */
        c->lambda[3] = c->lambda[4] = 0.0;
    }
    for (int k = 0; k < count; ++k) {
        row *r = &out[k];
        /* every field is written below; these three only on some rows */
        r->phi = 0.0;
        r->gamma = 0.0;
        r->target = 0.0;
        r->a = c->body_a;
        r->b = c->body_b;
        if (k < 3) {
            row_set_linear(r, dirs[k], ra, rb);
        } else {
            row_set_angular(r, dirs[k]);
        }
        r->epsilon = cp->compliance;
        r->block = block;
        r->lambda0 = c->lambda[k];
        r->lambda_out = &c->lambda[k];
        if (k == 0) {
            r->kind = HEFT_ROW_NORMAL;
            r->lo = 0.0;
            r->hi = INFINITY;
            r->findex = -1;
            /* J v' >= -(closing the rotation adds) / h on top of the gap's
             * own term: the cores end the step where the step puts them */
            r->target = -turn_closing(c, bodies, shapes, cp->h) / cp->h;
            if (c->separation > 0.0) {
                /* speculative: may close the gap within this step, no further */
                r->phi = c->separation;
                r->gamma = 1.0;
            } else {
                double phi = c->separation + cp->slop;
                r->phi = phi < 0.0 ? phi : 0.0;
                r->gamma = cp->baumgarte;
            }
            if (c->restitution > 0.0) {
                double vn = heft_v3_dot(c->normal, heft_v3_sub(body_point_velocity(bb, c->point),
                                                               body_point_velocity(ba, c->point)));
                double bounce = -c->restitution * vn;
                /* bounce only on impacts faster than the threshold that close
                 * the gap within this step */
                if (vn < -cp->restitution_threshold && c->separation <= -vn * cp->h &&
                    bounce > -r->gamma * r->phi / cp->h) {
                    r->target = bounce;
                    r->gamma = 0.0;
                }
            }
        } else if (k < 3) {
            r->kind = HEFT_ROW_FRICTION;
            r->lo = -c->friction;
            r->hi = c->friction;
            r->findex = first;
            /* J v of a friction row is the tangential speed of b relative
             * to a: a conveyor's belt speed is its target */
            r->target = heft_v3_dot(c->tangent_velocity, dirs[k]);
        } else {
            /* J v of a rolling row is b's turn relative to a's about the
             * tangent; its torque is at most rolling_resistance * lambda_n,
             * the normal force's moment at that lever arm (as [Box2D]'s
             * rolling resistance and MuJoCo's condim 6 bound it) */
            r->kind = HEFT_ROW_ROLLING;
            r->lo = -c->rolling_resistance;
            r->hi = c->rolling_resistance;
            r->findex = first;
        }
        /* The contact compliance regularizes, it does not soften: with
         * w = J v + epsilon lambda, a resting contact would creep at
         * epsilon lambda m/s (5.9e-6 m/s for a 1 kg sphere at 1e-8 m/N, and
         * a box on a slope would slide as slowly), so the row's target gets
         * epsilon lambda0 and what is solved is the proximal step
         * (A + E) lambda = b + E lambda0: its answer tends to the rigid one as
         * the impulses settle, and A + E stays well conditioned when a face
         * rests on four points (docs/collision.md). */
        r->target += cp->proximal * r->lambda0;
    }
    return count;
}

/* ---- readback and settings ------------------------------------------------ */

int heft_world_contact_count(const heft_world *w) {
    return w ? w->contacts.count : 0;
}

heft_result heft_world_contact(const heft_world *w, int i, heft_contact_info *out) {
    if (!w || !out || i < 0 || i >= w->contacts.count) {
        heft_set_error("contact %d does not exist in the last step", i);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    const contact *c = &w->contacts.items[i];
    out->body_a.index = c->body_a;
    out->body_a.generation = w->bodies[c->body_a].slot.generation;
    out->body_b.index = c->body_b;
    out->body_b.generation = w->bodies[c->body_b].slot.generation;
    out->shape_a.index = c->shape_a;
    out->shape_a.generation = w->shapes[c->shape_a].slot.generation;
    out->shape_b.index = c->shape_b;
    out->shape_b.generation = w->shapes[c->shape_b].slot.generation;
    out->point = c->point;
    out->normal = c->normal;
    out->separation = c->separation;
    out->feature = c->feature;
    out->normal_impulse = c->lambda[0];
    heft_vec3 t1, t2;
    heft_v3_basis(c->normal, &t1, &t2);
    out->friction_impulse =
        heft_v3_add(heft_v3_scale(t1, c->lambda[1]), heft_v3_scale(t2, c->lambda[2]));
    out->rolling_impulse =
        heft_v3_add(heft_v3_scale(t1, c->lambda[3]), heft_v3_scale(t2, c->lambda[4]));
    return HEFT_OK;
}

int heft_body_contacts(const heft_world *w, heft_body_id id, int *out, int max) {
    if (!world_body(w, id)) {
        heft_set_error("heft_body_contacts: body id is not valid");
        return 0;
    }
    if (max < 0 || (max > 0 && out == NULL)) {
        heft_set_error("heft_body_contacts: out must hold max >= 0 entries");
        return 0;
    }
    const contact_set *set = &w->contacts;
    if (id.index >= set->linked_bodies) {
        return 0; /* made after the last step */
    }
    int n = 0;
    for (int32_t e = set->first[id.index]; e >= 0; e = set->next[e]) {
        if (n < max) {
            out[n] = e >> 1;
        }
        n++;
    }
    return n;
}

heft_result heft_world_set_restitution_threshold(heft_world *w, double speed) {
    if (!w || !isfinite(speed) || speed < 0.0) {
        heft_set_error("the restitution threshold must be a finite speed >= 0");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->restitution_threshold = speed;
    return HEFT_OK;
}

double heft_world_restitution_threshold(const heft_world *w) {
    return w ? w->restitution_threshold : HEFT_DEFAULT_RESTITUTION_THRESHOLD;
}
