/* The world's contacts: the contact points of the last step and the step
 * before, each body's list of them, and the rows they write. Private to the
 * library. */
#ifndef HEFT_CONTACT_H
#define HEFT_CONTACT_H

#include "narrowphase.h"
#include "shape.h"

/* The contacts of the last step and the step before (for warm starts), both
 * ascending by (key, feature); the two arrays share one capacity. */
typedef struct contact_set {
    contact *items;
    contact *previous;
    int count;
    int previous_count; /* of the last update's previous */
    int capacity;
    /* the last update: its two phases (thread CPU time, ms) and the broad
     * phase's pairs */
    double time_broad_ms, time_narrow_ms;
    int pairs;
    /* each body's contacts of the last step (engine/contact.c,
     * contact_set_link_bodies): first[body] is its first contact, -1 for
     * none; next[2 c + side] follows contact c from its body a (side 0) or
     * b (side 1); contacts in ascending order */
    int32_t *first, *next;
    int first_capacity, next_capacity;
    int linked_bodies; /* first[] covers bodies 0 .. linked_bodies - 1 */
    /* the contact events of the current step (every substep's), by shape
     * pair: begun and ended since the update before */
    heft_contact_begin_event *begin_events;
    heft_contact_end_event *end_events;
    int begin_count, end_count, begin_capacity, end_capacity;
    /* hits of the current step (every substep's): strikes faster than
     * hit_threshold, m/s */
    heft_contact_hit_event *hit_events;
    int hit_count, hit_capacity;
    double hit_threshold;
    /* sensors: the shape pairs (keys) of the last update whose sensor
     * overlaps its visitor and those of the update before, ascending; and
     * the sensor events of the current step */
    uint64_t *sensor_pairs, *sensor_previous;
    int sensor_count, sensor_previous_count, sensor_capacity, sensor_previous_capacity;
    heft_sensor_event *sensor_begin, *sensor_end;
    int sensor_begin_count, sensor_end_count, sensor_begin_capacity, sensor_end_capacity;
    /* the application's callbacks (heft_world_set_pair_filter, _pre_solve);
     * in_callback is set while one runs */
    heft_pair_filter_fn pair_filter;
    void *pair_filter_context;
    heft_pre_solve_fn pre_solve;
    void *pre_solve_context;
    int in_callback;
    /* the narrowphase's work of an update (grown, then kept): per broad
     * phase pair, what is done with it (pair_job: -1 nothing, -2 keep its
     * points, else the index of its job); per job, the shapes collided and
     * their manifold, computed on the task system's workers */
    int32_t *pair_job;
    int pair_job_capacity;
    struct narrow_job *jobs;
    int job_capacity;
    /* per job, the place of its first point in items */
    int *job_first;
    int job_first_capacity;
    /* the shapes of an update's jobs placed once each (shape_pose), by
     * shape index; one array sized by the world's shape capacity and grown
     * when a shape is made, so that the step allocates none of it */
    struct pose_entry *poses;
    int pose_capacity;
    uint32_t pose_step;
} contact_set;

/* A shape's pose of an update, valid when stamp is the update's pose_step;
 * listed: the listed-th shape to place (entry listed's own pose unrelated). */
typedef struct pose_entry {
    shape_pose pose;
    uint32_t stamp;
    int32_t listed;
} pose_entry;

/* One shape pair for the narrowphase: shapes a and b (a static one first),
 * the margin, and what it found (status < 0: out of memory). */
typedef struct narrow_job {
    uint64_t key; /* the broad phase's pair */
    int32_t ia, ib;
    double margin;
    int status;
    manifold m;
} narrow_job;

typedef struct heft_world heft_world;

/* Step 2 of the step (h the step's length): updates the broad phase, runs
 * the narrowphase on every pair and fills w->contacts, warm-started from the
 * last step's contacts. Returns 0 when out of memory (then no contacts). */
int contact_set_update(heft_world *w, double h);
void contact_set_release(contact_set *set);
/* Room for points contact points in both the set's arrays (items and
 * previous share one capacity; growing keeps their contents). 0: out of
 * memory. */
int contact_set_reserve(contact_set *set, int points);
/* Room for the poses of shapes 0 .. shapes - 1 (a shape made: the world's
 * shape capacity). 0: out of memory. */
int contact_set_reserve_poses(contact_set *set, int shapes);
/* Drops the contacts of one shape (it is being destroyed). */
void contact_set_remove_shape(contact_set *set, int32_t shape);
/* Forgets the contact events (at the start of a step). */
void contact_set_clear_events(contact_set *set);
/* Rebuilds each body's list of contacts (first, next) for bodies
 * 0 .. body_count - 1. Returns 0 when out of memory (the lists are then
 * empty). */
int contact_set_link_bodies(contact_set *set, int body_count);
/* A body's pose and velocities as a hit event measures them. */
typedef struct body_motion {
    heft_vec3 position, linear_velocity, angular_velocity;
} body_motion;
/* After the step's solve: records the hit events of the contacts (their
 * impulses are the solve's, the bodies' motion the one before it: the
 * bodies' own, or when before is not NULL, before[i] for each body i in
 * an island, whose update has already run). Returns 0 when out of memory. */
int contact_set_record_hits(heft_world *w, const body_motion *before);
/* Whether shapes ia and ib may touch: filter bits, the joint filter and the
 * pair filter (continuous collision asks it too). */
int contact_pair_allowed(heft_world *w, int32_t ia, int32_t ib);
/* Frees every shape's data and the broad phase (world destruction). */
void collision_release(heft_world *w);

typedef struct contact_params {
    double h;
    double compliance;            /* epsilon of the contact rows */
    double proximal;              /* the part of it applied as a proximal term (contact.c) */
    double slop;                  /* penetration left uncorrected, m */
    double baumgarte;             /* gamma of penetrating contacts */
    double restitution_threshold; /* m/s: slower approaches do not bounce */
} contact_params;

/* the most rows one contact point writes */
#define CONTACT_MAX_ROWS 5

/* The rows of contact point c: 3 (normal and two friction rows), 5 with
 * rolling resistance (and two rolling rows). */
static inline int contact_row_count(const contact *c) {
    return c->rolling_resistance > 0.0 ? 5 : 3;
}

/* Writes the contact's rows (normal, then two friction rows and, with
 * rolling resistance, two rolling rows, all with friction index first, the
 * normal row's buffer index); returns how many (contact_row_count). */
int contact_fill_rows(contact *c, const body *bodies, const shape *shapes, const contact_params *cp,
                      int block, int first, row *out);

#endif
