/* The world: creation, settings, solver switching, ids and readback. */
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "input_check.h"
#include "island.h"
#include "sleep.h"
#include "world.h"

heft_world_def heft_default_world_def(void) {
    heft_world_def d;
    memset(&d, 0, sizeof d);
    d.gravity = heft_v3(0.0, 0.0, -9.81);
    d.solver = "pgs";
    d.rigid_compliance = 1e-10;
    d.joint_baumgarte = HEFT_BAUMGARTE_AUTO;
    d.contact_baumgarte = 0.2;
    d.contact_slop = 1e-4;
    d.contact_margin = 0.05;
    d.gyroscopic = HEFT_GYROSCOPIC_IMPLICIT;
    d.geometric_stiffness = 0;
    d.post_stabilization = 0;
    d.substeps = 1;
    d.contact_compliance = 1e-8;
    d.enable_sleep = 0;
    d.sleep_linear_speed = 0.05;
    d.sleep_angular_speed = 0.05;
    d.time_to_sleep = 0.5;
    return d;
}

double world_joint_baumgarte(const heft_world *w) {
    if (w->def.joint_baumgarte != HEFT_BAUMGARTE_AUTO) {
        return w->def.joint_baumgarte;
    }
    /* measured on the hanging chains: an unconverged iterative answer turns a
     * large gamma into jitter; an exact one turns it into smaller gaps */
    return w->solver->direct ? 0.5 : 0.2;
}

static int check_options(const heft_solver_options *o) {
    char message[160];
    if (heft_solver_options_check(o, message, sizeof message) != 0) {
        heft_set_error("%s", message);
        return 0;
    }
    return 1;
}

static int check_world_def(const heft_world_def *d) {
    if (!check_vec_range(d->gravity, HEFT_GRAVITY_MAX, "gravity", "HEFT_GRAVITY_MAX")) {
        return 0;
    }
    if (!(d->rigid_compliance >= 0.0) || !isfinite(d->rigid_compliance)) {
        heft_set_error("rigid compliance must be finite and non-negative");
        return 0;
    }
    if (!((d->joint_baumgarte >= 0.0 && d->joint_baumgarte <= 1.0) ||
          d->joint_baumgarte == HEFT_BAUMGARTE_AUTO) ||
        !(d->contact_baumgarte >= 0.0 && d->contact_baumgarte <= 1.0)) {
        heft_set_error("Baumgarte factors must lie in [0, 1]");
        return 0;
    }
    if (!(d->contact_compliance >= 0.0) || !isfinite(d->contact_compliance)) {
        heft_set_error("contact compliance must be finite and non-negative");
        return 0;
    }
    if (!(d->contact_slop >= 0.0) || !isfinite(d->contact_slop) || !(d->contact_margin >= 0.0) ||
        !isfinite(d->contact_margin)) {
        heft_set_error("contact slop and margin must be finite and non-negative");
        return 0;
    }
    if (d->gyroscopic < HEFT_GYROSCOPIC_NONE || d->gyroscopic > HEFT_GYROSCOPIC_IMPLICIT) {
        heft_set_error("unknown gyroscopic mode %d", (int)d->gyroscopic);
        return 0;
    }
    if (d->geometric_stiffness != 0 && d->geometric_stiffness != 1) {
        heft_set_error("geometric_stiffness is 0 or 1");
        return 0;
    }
    if (d->post_stabilization < 0 || d->post_stabilization > 100) {
        heft_set_error("post_stabilization iterations must lie in [0, 100]");
        return 0;
    }
    if (d->substeps < 1 || d->substeps > 1000) {
        heft_set_error("substeps must lie in [1, 1000]");
        return 0;
    }
    if (d->enable_sleep != 0 && d->enable_sleep != 1) {
        heft_set_error("enable_sleep is 0 or 1");
        return 0;
    }
    if (!sleep_check_thresholds(d->sleep_linear_speed, d->sleep_angular_speed, d->time_to_sleep)) {
        return 0;
    }
    return 1;
}

heft_world *heft_world_create(const heft_world_def *def) {
    heft_world_def d = def ? *def : heft_default_world_def();
    if (!check_world_def(&d)) {
        return NULL;
    }
    const char *name = d.solver ? d.solver : "pgs";
    const heft_solver_vtable *solver = heft_solver_find(name);
    if (!solver) {
        heft_set_error("unknown solver \"%s\"", name);
        return NULL;
    }
    heft_world *w = heft_alloc(sizeof *w);
    if (!w) {
        heft_set_error("out of memory");
        return NULL;
    }
    memset(w, 0, sizeof *w);
    w->def = d;
    w->solver_options = heft_solver_default_options();
    w->solver = solver;
    snprintf(w->solver_name, sizeof w->solver_name, "%s", solver->name);
    w->def.solver = w->solver_name;
    w->fallback = heft_fallback_create(&w->solver_options);
    w->body_free = w->joint_free = w->shape_free = w->island_free = -1;
    arena_init(&w->scratch);
    broad_phase_init(&w->broad);
    w->restitution_threshold = HEFT_DEFAULT_RESTITUTION_THRESHOLD;
    w->contacts.hit_threshold = HEFT_DEFAULT_HIT_THRESHOLD;
    return w;
}

static void drop_island_states(heft_world *w) {
    island_slots_clear(w, &w->velocity_slots);
    island_slots_clear(w, &w->position_slots);
}

void heft_world_destroy(heft_world *w) {
    if (!w) {
        return;
    }
    drop_island_states(w);
    heft_fallback_destroy(w->fallback);
    heft_free(w->velocity_slots.items);
    heft_free(w->position_slots.items);
    heft_free(w->bodies);
    heft_free(w->joints);
    collision_release(w);
    heft_free(w->shapes);
    contact_set_release(&w->contacts);
    heft_free(w->broken_events);
    heft_free(w->island_stats);
    islands_release(w);
    sleep_release(w);
    island_workers_release(w);
    arena_release(&w->scratch);
    heft_free(w);
}

heft_result heft_world_set_solver(heft_world *w, const char *name) {
    if (!w || !name) {
        heft_set_error("heft_world_set_solver: world and name must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    const heft_solver_vtable *s = heft_solver_find(name);
    if (!s) {
        heft_set_error("unknown solver \"%s\"", name);
        return HEFT_ERROR_UNKNOWN_SOLVER;
    }
    if (s == w->solver) {
        return HEFT_OK;
    }
    drop_island_states(w);
    w->solver = s;
    snprintf(w->solver_name, sizeof w->solver_name, "%s", s->name);
    return HEFT_OK;
}

const char *heft_world_solver(const heft_world *w) {
    return w ? w->solver_name : "";
}

heft_result heft_world_set_solver_options(heft_world *w, const heft_solver_options *o) {
    if (!w || !o) {
        heft_set_error("heft_world_set_solver_options: world and options must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_options(o)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    /* solver states hold the options they were created with */
    drop_island_states(w);
    w->solver_options = *o;
    heft_fallback_destroy(w->fallback);
    w->fallback = heft_fallback_create(&w->solver_options);
    return HEFT_OK;
}

heft_solver_options heft_world_solver_options(const heft_world *w) {
    return w ? w->solver_options : heft_solver_default_options();
}

heft_result heft_world_set_gravity(heft_world *w, heft_vec3 g) {
    if (!w) {
        heft_set_error("heft_world_set_gravity: world is NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!check_vec_range(g, HEFT_GRAVITY_MAX, "gravity", "HEFT_GRAVITY_MAX")) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->def.gravity = g;
    sleep_wake_all(w);
    return HEFT_OK;
}

heft_result heft_world_set_geometric_stiffness(heft_world *w, int enabled) {
    if (!w || (enabled != 0 && enabled != 1)) {
        heft_set_error(w ? "geometric stiffness is enabled with 1 and disabled with 0 (got %d)"
                         : "heft_world_set_geometric_stiffness: world is NULL (%d)",
                       enabled);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->def.geometric_stiffness = enabled;
    return HEFT_OK;
}

heft_result heft_world_set_post_stabilization(heft_world *w, int iterations) {
    if (!w || iterations < 0 || iterations > 100) {
        heft_set_error(w ? "post-stabilization iterations must lie in [0, 100] (got %d)"
                         : "heft_world_set_post_stabilization: world is NULL (%d)",
                       iterations);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->def.post_stabilization = iterations;
    return HEFT_OK;
}

heft_result heft_world_set_substeps(heft_world *w, int substeps) {
    if (!w || substeps < 1 || substeps > 1000) {
        heft_set_error(w ? "substeps must lie in [1, 1000] (got %d)"
                         : "heft_world_set_substeps: world is NULL (%d)",
                       substeps);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->def.substeps = substeps;
    return HEFT_OK;
}

heft_result heft_joint_set_geometric_stiffness(heft_world *w, heft_joint_id id, int enabled) {
    joint *j = world_joint(w, id);
    if (!j || (enabled != 0 && enabled != 1)) {
        heft_set_error(j ? "geometric stiffness is enabled with 1 and disabled with 0"
                         : "joint id is not valid");
        return j ? HEFT_ERROR_INVALID_ARGUMENT : HEFT_ERROR_INVALID_ID;
    }
    j->geometric_stiffness_off = !enabled;
    sleep_wake_joint(w, id.index);
    return HEFT_OK;
}

heft_vec3 heft_world_gravity(const heft_world *w) {
    return w ? w->def.gravity : heft_v3(0, 0, 0);
}
heft_result heft_world_set_user_data(heft_world *w, void *user_data) {
    if (!w) {
        heft_set_error("heft_world_set_user_data: world is NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    w->def.user_data = user_data;
    return HEFT_OK;
}
void *heft_world_user_data(const heft_world *w) {
    return w ? w->def.user_data : NULL;
}
double heft_world_time(const heft_world *w) {
    return w ? w->time : 0.0;
}
int64_t heft_world_step_count(const heft_world *w) {
    return w ? w->steps : 0;
}
int heft_world_body_count(const heft_world *w) {
    return w ? w->body_live : 0;
}
int heft_world_joint_count(const heft_world *w) {
    return w ? w->joint_live : 0;
}

int heft_world_bodies(const heft_world *w, heft_body_id *out, int max) {
    int n = 0;
    for (int i = 0; w && i < w->body_high; ++i) {
        if (w->bodies[i].slot.alive) {
            if (out && n < max) {
                out[n].index = i;
                out[n].generation = w->bodies[i].slot.generation;
            }
            n++;
        }
    }
    return n;
}

int heft_world_joints(const heft_world *w, heft_joint_id *out, int max) {
    int n = 0;
    for (int i = 0; w && i < w->joint_high; ++i) {
        if (w->joints[i].slot.alive) {
            if (out && n < max) {
                out[n].index = i;
                out[n].generation = w->joints[i].slot.generation;
            }
            n++;
        }
    }
    return n;
}

void heft_world_set_island_callback(heft_world *w, heft_island_callback callback, void *user) {
    if (w) {
        w->island_callback = callback;
        w->island_callback_user = user;
    }
}

const heft_step_stats *heft_world_stats(const heft_world *w) {
    return w ? &w->stats : NULL;
}

heft_result heft_world_island_stats(const heft_world *w, int i, heft_island_stats *out) {
    if (!w || !out || i < 0 || i >= w->stats.islands) {
        heft_set_error(!w     ? "heft_world_island_stats: world is NULL"
                       : !out ? "heft_world_island_stats: out must not be NULL"
                              : "island %d does not exist in the last step",
                       i);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    *out = w->island_stats[i];
    return HEFT_OK;
}

body *world_body(const heft_world *w, heft_body_id id) {
    return w ? slots_get(w->bodies, sizeof(body), w->body_high, id.index, id.generation) : NULL;
}

joint *world_joint(const heft_world *w, heft_joint_id id) {
    return w ? slots_get(w->joints, sizeof(joint), w->joint_high, id.index, id.generation) : NULL;
}

joint *world_joint_or_error(const heft_world *w, heft_joint_id id, const char *function) {
    if (!w) {
        heft_set_error("%s: world is NULL", function);
        return NULL;
    }
    joint *j = world_joint(w, id);
    if (!j) {
        heft_set_error("%s: joint id (index %d, generation %u) is not valid: never created or "
                       "destroyed",
                       function, (int)id.index, (unsigned)id.generation);
    }
    return j;
}
