/* Sleeping islands (docs/sleeping.md). An island whose bodies all stay
 * below the world's linear and angular speeds for time_to_sleep seconds
 * falls asleep: its velocities are set to zero and the step leaves its
 * bodies, pairs, rows and solve alone, keeping its contacts as they were.
 * It wakes when an awake or moving body touches it, when a joint to it is
 * made, destroyed or changed, and when the application changes one of its
 * bodies. */
#include "sleep.h"

#include <string.h>

#include "error.h"
#include "island.h"
#include "world.h"

static heft_body_id body_id_of(const heft_world *w, int32_t i) {
    heft_body_id id = {i, w->bodies[i].slot.generation};
    return id;
}

/* Out of memory, an event is lost; the state change itself never fails. */
static void push_event(heft_body_id **events, int *count, int *capacity, heft_body_id id) {
    if (array_grow((void **)events, capacity, *count + 1, sizeof(heft_body_id))) {
        (*events)[(*count)++] = id;
    }
}

void island_wake(heft_world *w, int32_t k) {
    world_island *is = &w->islands[k];
    if (!is->sleeping) {
        return;
    }
    is->sleeping = 0;
    for (int32_t b = is->body_first; b >= 0; b = w->bodies[b].island_next) {
        body *bd = &w->bodies[b];
        bd->sleeping = 0;
        bd->sleep_time = 0.0;
        push_event(&w->woke_events, &w->woke_count, &w->woke_capacity, body_id_of(w, b));
    }
}

static void island_fall_asleep(heft_world *w, int32_t k) {
    world_island *is = &w->islands[k];
    if (is->sleeping) {
        return;
    }
    is->sleeping = 1;
    for (int32_t b = is->body_first; b >= 0; b = w->bodies[b].island_next) {
        body *bd = &w->bodies[b];
        bd->sleeping = 1;
        bd->island = -1;
        bd->linear_velocity = bd->angular_velocity = heft_v3(0.0, 0.0, 0.0);
        bd->free_linear_velocity = bd->free_angular_velocity = heft_v3(0.0, 0.0, 0.0);
        bd->force = bd->torque = heft_v3(0.0, 0.0, 0.0);
        push_event(&w->slept_events, &w->slept_count, &w->slept_capacity, body_id_of(w, b));
    }
}

void sleep_wake_body(heft_world *w, int32_t i) {
    body *b = &w->bodies[i];
    if (body_is_dynamic(b)) {
        if (b->island_id >= 0) {
            island_wake(w, b->island_id);
        }
        b->sleep_time = 0.0;
    } else if (!b->wake_contacts) {
        b->wake_contacts = 1;
        w->wake_contacts_pending++;
    }
}

void sleep_wake_touching(heft_world *w, int32_t i) {
    const contact_set *cs = &w->contacts;
    if (i >= cs->linked_bodies) {
        return;
    }
    for (int32_t e = cs->first[i]; e >= 0; e = cs->next[e]) {
        const contact *c = &cs->items[e >> 1];
        int32_t other = c->body_a == i ? c->body_b : c->body_a;
        if (body_is_dynamic(&w->bodies[other])) {
            sleep_wake_body(w, other);
        }
    }
}

void sleep_wake_joint(heft_world *w, int32_t ji) {
    const joint *j = &w->joints[ji];
    if (j->body_a >= 0) {
        sleep_wake_body(w, j->body_a);
    }
    if (j->body_b >= 0) {
        sleep_wake_body(w, j->body_b);
    }
}

void sleep_wake_all(heft_world *w) {
    for (int32_t k = 0; k < w->island_high; ++k) {
        if (w->islands[k].id != 0) {
            island_wake(w, k);
        }
    }
}

void sleep_begin_step(heft_world *w) {
    w->woke_count = 0;
    w->slept_count = 0;
}

/* Wakes body s's island if it sleeps and body t is active. */
static void wake_if_touched(heft_world *w, int32_t s, int32_t t) {
    if (s < 0 || t < 0) {
        return;
    }
    body *bs = &w->bodies[s];
    const body *bt = &w->bodies[t];
    if (!body_is_dynamic(bs) || !body_touch_active(bt)) {
        return;
    }
    if (bs->sleeping) {
        island_wake(w, bs->island_id);
    }
    if (bt->type == HEFT_BODY_KINEMATIC) {
        bs->sleep_time = 0.0; /* a moving kinematic body keeps what it touches awake */
    }
}

/* Whether a touch can change anything this step: only a sleeping body
 * wakes, and only a kinematic body's touch resets a sleep timer. One pass
 * over the bodies instead of two body lookups a contact and joint, which
 * in a pile where nothing sleeps find nothing. */
static int touch_can_matter(const heft_world *w) {
    for (int32_t i = 0; i < w->body_high; ++i) {
        const body *b = &w->bodies[i];
        if (b->slot.alive && (b->sleeping || b->type == HEFT_BODY_KINEMATIC)) {
            return 1;
        }
    }
    return 0;
}

int sleep_wake_touched(heft_world *w) {
    const int first = w->woke_count;
    const int matters = touch_can_matter(w);
    for (int i = 0; matters && i < w->contacts.count; ++i) {
        const contact *c = &w->contacts.items[i];
        const int active_a = body_touch_active(&w->bodies[c->body_a]);
        const int active_b = body_touch_active(&w->bodies[c->body_b]);
        if (active_b) {
            wake_if_touched(w, c->body_a, c->body_b);
        }
        if (active_a) {
            wake_if_touched(w, c->body_b, c->body_a);
        }
    }
    for (int32_t i = 0; matters && i < w->joint_high; ++i) {
        const joint *j = &w->joints[i];
        if (j->slot.alive && !j->broken) {
            wake_if_touched(w, j->body_a, j->body_b);
            wake_if_touched(w, j->body_b, j->body_a);
        }
    }
    if (w->wake_contacts_pending > 0) {
        for (int32_t i = 0; i < w->body_high; ++i) {
            w->bodies[i].wake_contacts = 0;
        }
        w->wake_contacts_pending = 0;
    }
    return first;
}

static int below_thresholds(const heft_world *w, const body *b) {
    return heft_v3_length(b->linear_velocity) <= w->def.sleep_linear_speed &&
           heft_v3_length(b->angular_velocity) <= w->def.sleep_angular_speed;
}

void sleep_update(heft_world *w, const island_set *is, double h) {
    for (int k = 0; k < is->count; ++k) {
        double slowest = INFINITY;
        for (int i = is->body_start[k]; i < is->body_start[k + 1]; ++i) {
            body *b = &w->bodies[is->bodies[i]];
            if (w->def.enable_sleep && b->sleep_enabled && below_thresholds(w, b)) {
                b->sleep_time += h;
            } else {
                b->sleep_time = 0.0;
            }
            slowest = fmin(slowest, b->sleep_time);
        }
        const int32_t index = is->index[k];
        /* an island whose links ended is split in the next step first, so
         * that a part still moving keeps the rest from sleeping no longer */
        if (w->def.enable_sleep && slowest >= w->def.time_to_sleep &&
            w->islands[index].links_removed == 0) {
            island_fall_asleep(w, index);
        }
    }
}

void sleep_count(const heft_world *w, int *islands, int *bodies) {
    *islands = *bodies = 0;
    for (int32_t k = 0; k < w->island_high; ++k) {
        if (w->islands[k].id != 0 && w->islands[k].sleeping) {
            ++*islands;
            *bodies += w->islands[k].body_count;
        }
    }
}

void sleep_release(heft_world *w) {
    heft_free(w->woke_events);
    heft_free(w->slept_events);
    w->woke_events = w->slept_events = NULL;
    w->woke_count = w->woke_capacity = w->slept_count = w->slept_capacity = 0;
}

/* ---- the API ------------------------------------------------------------ */

static int check_switch(int value, const char *function) {
    if (value != 0 && value != 1) {
        heft_set_error("%s: the switch is 0 or 1 (got %d)", function, value);
        return 0;
    }
    return 1;
}

heft_result heft_world_set_sleeping(heft_world *w, int enabled) {
    if (!w) {
        heft_set_error("heft_world_set_sleeping: world is NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_switch(enabled, "heft_world_set_sleeping")) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->def.enable_sleep = enabled;
    if (!enabled) {
        sleep_wake_all(w);
    }
    return HEFT_OK;
}

int heft_world_sleeping(const heft_world *w) {
    return w ? w->def.enable_sleep : 0;
}

int sleep_check_thresholds(double linear, double angular, double time) {
    if (!isfinite(linear) || linear < 0.0 || !isfinite(angular) || angular < 0.0 ||
        !isfinite(time) || time < 0.0) {
        heft_set_error("sleep thresholds must be finite and >= 0 (got linear %g m/s, angular %g "
                       "rad/s, time %g s)",
                       linear, angular, time);
        return 0;
    }
    return 1;
}

heft_result heft_world_set_sleep_thresholds(heft_world *w, double linear, double angular,
                                            double time) {
    if (!w) {
        heft_set_error("heft_world_set_sleep_thresholds: world is NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!sleep_check_thresholds(linear, angular, time)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->def.sleep_linear_speed = linear;
    w->def.sleep_angular_speed = angular;
    w->def.time_to_sleep = time;
    return HEFT_OK;
}

int heft_body_is_awake(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_is_awake");
    if (!b) {
        return 0;
    }
    if (b->type == HEFT_BODY_STATIC) {
        return 0;
    }
    return !b->sleeping;
}

heft_result heft_body_set_awake(heft_world *w, heft_body_id id, int awake) {
    body *b = live_body(w, id, "heft_body_set_awake");
    if (!b) {
        return w ? HEFT_ERROR_INVALID_ID : HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_switch(awake, "heft_body_set_awake")) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!body_is_dynamic(b)) {
        return HEFT_OK;
    }
    if (awake) {
        sleep_wake_body(w, id.index);
        return HEFT_OK;
    }
    if (b->island_id < 0 && !islands_ensure(w)) {
        heft_set_error("heft_body_set_awake: out of memory");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    int32_t k = w->bodies[id.index].island_id;
    if (w->islands[k].links_removed > 0 && !island_split(w, k)) {
        heft_set_error("heft_body_set_awake: out of memory");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    island_fall_asleep(w, w->bodies[id.index].island_id);
    return HEFT_OK;
}

heft_result heft_body_wake(heft_world *w, heft_body_id id) {
    if (!live_body(w, id, "heft_body_wake")) {
        return w ? HEFT_ERROR_INVALID_ID : HEFT_ERROR_INVALID_ARGUMENT;
    }
    sleep_wake_body(w, id.index);
    return HEFT_OK;
}

heft_result heft_body_set_sleep_enabled(heft_world *w, heft_body_id id, int enabled) {
    body *b = live_body(w, id, "heft_body_set_sleep_enabled");
    if (!b) {
        return w ? HEFT_ERROR_INVALID_ID : HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_switch(enabled, "heft_body_set_sleep_enabled")) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    b->sleep_enabled = enabled;
    if (!enabled) {
        sleep_wake_body(w, id.index);
    }
    return HEFT_OK;
}

int heft_body_sleep_enabled(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_sleep_enabled");
    return b ? b->sleep_enabled : 0;
}

int64_t heft_body_island_id(const heft_world *w, heft_body_id id) {
    const body *b = live_body(w, id, "heft_body_island_id");
    if (!b || b->island_id < 0) {
        return -1;
    }
    return w->islands[b->island_id].id;
}

heft_body_events heft_world_body_events(const heft_world *w) {
    heft_body_events ev;
    memset(&ev, 0, sizeof ev);
    if (!w) {
        heft_set_error("heft_world_body_events: world is NULL");
        return ev;
    }
    ev.woke = w->woke_events;
    ev.woke_count = w->woke_count;
    ev.fell_asleep = w->slept_events;
    ev.fell_asleep_count = w->slept_count;
    return ev;
}
