/* The step (docs/architecture.md "The step"): forces, collision, rows, islands, one
 * MLCP per island solved by the current solver, velocities, positions. */
#include <string.h>

#include "continuous.h"
#include "error.h"
#include "geometric_stiffness.h"
#include "island.h"
#include "prefetch.h"
#include "sleep.h"
#include "world.h"

/* ---- 1. forces: the unconstrained velocities v + h M^-1 f ---------------- */

static heft_mat3 skew(heft_vec3 a) {
    heft_mat3 r = {{{0.0, -a.z, a.y}, {a.z, 0.0, -a.x}, {-a.y, a.x, 0.0}}};
    return r;
}

/* Gyroscopic term omega x I omega over one step. The implicit form solves
 * Euler's equations by the implicit midpoint rule in body frame,
 *   I (w2 - w1) + h wm x I wm = 0,  wm = (w1 + w2) / 2,
 * with Newton's method: dotting with I wm and with wm shows that it keeps
 * both |I w| (so |L|) and the kinetic energy exactly, for any h. */
static heft_vec3 gyroscopic_update(const body *b, heft_vec3 omega, double h, heft_gyroscopic mode) {
    if (mode == HEFT_GYROSCOPIC_NONE) {
        return omega;
    }
    heft_mat3 R = heft_quat_to_mat3(b->orientation);
    if (mode == HEFT_GYROSCOPIC_EXPLICIT) {
        heft_mat3 Iw = heft_mat3_rotate_tensor(R, b->inertia);
        heft_vec3 tau = heft_v3_neg(heft_v3_cross(omega, heft_mat3_mulv(Iw, omega)));
        return heft_v3_madd(omega, h, heft_mat3_mulv(b->inv_inertia_world, tau));
    }
    const heft_mat3 I = b->inertia;
    heft_vec3 w1 = heft_mat3_mulv(heft_mat3_transpose(R), omega);
    heft_vec3 Iw1 = heft_mat3_mulv(I, w1);
    heft_vec3 w2 = w1;
    double scale = heft_v3_length(w1);
    double last = HUGE_VAL;
    for (int it = 0; it < 16 && scale > 0.0; ++it) {
        heft_vec3 wm = heft_v3_scale(heft_v3_add(w1, w2), 0.5);
        heft_vec3 Iwm = heft_mat3_mulv(I, wm);
        heft_vec3 g =
            heft_v3_madd(heft_v3_sub(heft_mat3_mulv(I, w2), Iw1), h, heft_v3_cross(wm, Iwm));
        /* dg/dw2 = I + h/2 (skew(wm) I - skew(I wm)) */
        heft_mat3 dg =
            heft_mat3_add(I, heft_mat3_scale(heft_mat3_add(heft_mat3_mul(skew(wm), I),
                                                           heft_mat3_scale(skew(Iwm), -1.0)),
                                             0.5 * h));
        heft_vec3 step = heft_mat3_mulv(heft_mat3_inverse(dg), g);
        w2 = heft_v3_sub(w2, step);
        /* Newton's steps shrink quadratically until round-off; for a body
         * turning tens of radians a step off its principal axes round-off
         * stops them at 1e-13 to 1e-11 of |w|, where they repeat: a step no
         * smaller than the last (once small) ends the iteration there
         * instead of at the cap, every step the body spins */
        const double length = heft_v3_length(step);
        if (length <= 1e-15 * scale || (length <= 1e-8 * scale && length >= last)) {
            break;
        }
        last = length;
    }
    return heft_v3_isfinite(w2) ? heft_mat3_mulv(R, w2) : omega;
}

/* Whether the joint's impulses of the last step come from a direct solver's
 * converged answer. Bodies still carry last step's island here. */
static int joint_impulses_solved(const heft_world *w, const joint *j) {
    const body *b = &w->bodies[j->body_b];
    if (!body_is_dynamic(b) && j->body_a >= 0) {
        b = &w->bodies[j->body_a];
    }
    int k = b->island;
    return k >= 0 && k < w->island_stats_count && w->island_stats[k].solver.converged;
}

/* The impulses the geometric stiffness is built from. The derivative of the
 * forces of an approximate answer is noise, and feeding it back into the
 * masses amplifies it: on the 2,000 kg chain PGS with geometric stiffness
 * blew up at 20 to 500 sweeps and still gained 8% energy at 5,000
 * (docs/heavy-loads.md), so only a direct solver's converged impulses count,
 * and an iterative solver gets none. After a step a direct solver did not
 * converge on, the joint keeps the impulses of its last converged step: the
 * tension changes little in a step, while dropping it leaves the light links
 * under a heavy load integrated explicitly for that step (the chain on the rod
 * opened its joints by 0.4 m in two such steps, docs/scenarios.md). */
static void hold_stiffness_impulses(const heft_world *w, joint *j) {
    if (!w->solver->direct) {
        memset(j->stiffness_impulses, 0, sizeof j->stiffness_impulses);
    } else if (joint_impulses_solved(w, j)) {
        joint_last_impulses_by_slot(j, j->stiffness_impulses);
    }
}

/* The masses of this step: each dynamic body's own, or with geometric
 * stiffness M + h^2 K~ (geometric_stiffness.c). The linear part stays a
 * scalar mass (the structured form has one inverse mass a body): it takes the
 * largest of the three translational stiffnesses, which damps a little more
 * than the diagonal would. */
/* Joints a task of the geometric stiffness takes at least (each differences
 * its rows five to eight times an end). */
#define STIFFNESS_TASK_MIN_RANGE 4

typedef struct stiffness_pass {
    heft_world *w;
    int on; /* geometric stiffness asked for: difference the rows too */
    const row_context *ctx;
    double *per_joint; /* 12 a joint */
    signed char *rc;   /* geometric_stiffness_of_joint's answer, 1 for a joint without */
} stiffness_pass;

static void stiffness_task(int begin, int end, int worker, void *context) {
    (void)worker;
    const stiffness_pass *sp = context;
    for (int i = begin; i < end; ++i) {
        joint *j = &sp->w->joints[i];
        if (j->slot.alive) {
            hold_stiffness_impulses(sp->w, j);
        }
        if (!sp->on) {
            continue;
        }
        sp->rc[i] = j->slot.alive ? (signed char)geometric_stiffness_of_joint(
                                        j, sp->w->bodies, sp->ctx, &sp->per_joint[12 * i])
                                  : 1;
    }
}

/* Each joint's held impulses (hold_stiffness_impulses), and the joints'
 * geometric stiffness summed per body (6 a body), or NULL when the option is
 * off or out of memory. The joints hold their impulses and difference their
 * rows as tasks; their sums are added in joint order, as one pass would. */
static double *accumulate_stiffness(heft_world *w, double h) {
    const int nj = w->joint_high;
    row_context ctx = {h, w->def.rigid_compliance, world_joint_baumgarte(w)};
    stiffness_pass sp = {w, 0, &ctx, NULL, NULL};
    double *k = NULL;
    if (w->def.geometric_stiffness) {
        k = arena_calloc(&w->scratch, (size_t)w->body_high * 6 + 1, sizeof(double));
        sp.per_joint = arena_alloc(&w->scratch, sizeof(double) * 12 * (size_t)(nj + 1));
        sp.rc = arena_alloc(&w->scratch, (size_t)(nj + 1));
        sp.on = k && sp.per_joint && sp.rc;
    }
    world_tasks_run(w, stiffness_task, nj, STIFFNESS_TASK_MIN_RANGE, &sp);
    if (!sp.on) {
        return NULL; /* off, or out of memory: the bodies' own masses */
    }
    for (int i = 0; i < nj; ++i) {
        const joint *j = &w->joints[i];
        if (sp.rc[i] < 0) {
            geometric_stiffness_accumulate(j, w->bodies, &ctx, k);
        } else if (sp.rc[i] == 0) {
            const int32_t ends[2] = {j->body_a, j->body_b};
            for (int e = 0; e < 2; ++e) {
                if (ends[e] < 0 || !body_is_dynamic(&w->bodies[ends[e]])) {
                    continue;
                }
                for (int dof = 0; dof < 6; ++dof) {
                    k[6 * ends[e] + dof] += sp.per_joint[12 * i + 6 * e + dof];
                }
            }
        }
    }
    return k;
}

/* A dynamic body's step masses: its own, plus h times its joints'
 * geometric stiffness kb (6 numbers) when there is any. */
static void step_masses(body *b, const double *kb, double h) {
    /* inv_inertia_world is already the orientation's: every write of a
     * body's orientation or mass (the step's integration, continuous
     * collision, post-stabilization, the setters, loads and restores)
     * refreshes it */
    b->step_inv_mass = b->inv_mass;
    b->step_inv_inertia = b->inv_inertia_world;
    if (!kb || (kb[0] == 0.0 && kb[1] == 0.0 && kb[2] == 0.0 && kb[3] == 0.0 && kb[4] == 0.0 &&
                kb[5] == 0.0)) {
        return; /* no tension: the body is stepped exactly as without the option */
    }
    /* with impulses lambda = h f, h^2 K_f = h K_lambda */
    double kl = fmax(kb[0], fmax(kb[1], kb[2]));
    b->step_inv_mass = 1.0 / (b->mass + h * kl);
    heft_mat3 Iw = heft_mat3_rotate_tensor(heft_quat_to_mat3(b->orientation), b->inertia);
    for (int c = 0; c < 3; ++c) {
        Iw.m[c][c] += h * kb[3 + c];
    }
    b->step_inv_inertia = heft_mat3_inverse(Iw);
}

/* v_free = M~^-1 (M v + h f): with M~ = M this is v + h M^-1 f. */
static void free_velocity(heft_world *w, body *b, double h) {
    if (!body_is_dynamic(b)) {
        b->free_linear_velocity = b->linear_velocity;
        b->free_angular_velocity = b->angular_velocity;
        return;
    }
    heft_vec3 g = heft_v3_scale(w->def.gravity, b->gravity_scale);
    heft_vec3 omega = gyroscopic_update(b, b->angular_velocity, h, w->def.gyroscopic);
    heft_vec3 v;
    if (b->step_inv_mass == b->inv_mass) {
        v = heft_v3_add(b->linear_velocity,
                        heft_v3_scale(heft_v3_madd(g, b->inv_mass, b->force), h));
        omega = heft_v3_madd(omega, h, heft_mat3_mulv(b->inv_inertia_world, b->torque));
    } else {
        /* geometric stiffness: the added mass resists every velocity change */
        heft_vec3 momentum = heft_v3_add(heft_v3_scale(b->linear_velocity, b->mass),
                                         heft_v3_scale(heft_v3_madd(b->force, b->mass, g), h));
        v = heft_v3_scale(momentum, b->step_inv_mass);
        heft_mat3 Iw = heft_mat3_rotate_tensor(heft_quat_to_mat3(b->orientation), b->inertia);
        heft_vec3 L = heft_v3_madd(heft_mat3_mulv(Iw, omega), h, b->torque);
        omega = heft_mat3_mulv(b->step_inv_inertia, L);
    }
    /* damping as the implicit solution of dv/dt = -c v */
    b->free_linear_velocity = heft_v3_scale(v, 1.0 / (1.0 + h * b->linear_damping));
    b->free_angular_velocity = heft_v3_scale(omega, 1.0 / (1.0 + h * b->angular_damping));
}

/* Bodies a task of the per-body passes takes at least: the work per body is
 * a few hundred flops, so smaller ranges cost more in handing out than they
 * save. */
#define BODY_TASK_MIN_RANGE 64

typedef struct body_pass {
    heft_world *w;
    double h;
    const double *stiffness; /* accumulate_stiffness's sums, or NULL */
} body_pass;

/* Each body's step masses and free velocity: a body's own memory only. */
static void free_velocities_task(int begin, int end, int worker, void *context) {
    (void)worker;
    const body_pass *bp = context;
    for (int i = begin; i < end; ++i) {
        body *b = &bp->w->bodies[i];
        if (!b->slot.alive || b->sleeping) {
            continue;
        }
        if (body_is_dynamic(b)) {
            step_masses(b, bp->stiffness ? &bp->stiffness[6 * i] : NULL, bp->h);
        }
        free_velocity(bp->w, b, bp->h);
    }
}

/* A body woken in this step after its masses and free velocity were due:
 * its own masses (its joints' geometric stiffness waits for the next step). */
static void prepare_woken_body(heft_world *w, body *b, double h) {
    if (!b->slot.alive || !body_is_dynamic(b) || b->sleeping) {
        return;
    }
    step_masses(b, NULL, h);
    free_velocity(w, b, h);
}

/* ---- sleeping islands: wake what is touched, then join and split ------- */

/* Returns 0 when out of memory. */
static int update_islands(heft_world *w, double h, int ends_before) {
    const int woke_from = sleep_wake_touched(w);
    for (int i = woke_from; i < w->woke_count; ++i) {
        prepare_woken_body(w, &w->bodies[w->woke_events[i].index], h);
    }
    /* a contact between two dynamic bodies that ended may split their island */
    const contact_set *cs = &w->contacts;
    for (int i = ends_before; i < cs->end_count; ++i) {
        const int32_t a = cs->end_events[i].body_a.index, b = cs->end_events[i].body_b.index;
        if (body_is_dynamic(&w->bodies[a]) && body_is_dynamic(&w->bodies[b])) {
            island_mark_link_removed(w, a);
        }
    }
    if (!islands_ensure(w)) {
        return 0;
    }
    islands_link(w);
    (void)islands_split_marked(w); /* out of memory, an island stays whole: only slower */
    return 1;
}

/* Does a row between bodies a and b belong to a sleeping island? */
static int row_asleep(const heft_world *w, int32_t a, int32_t b) {
    return (a >= 0 && w->bodies[a].sleeping) || (b >= 0 && w->bodies[b].sleeping);
}

/* ---- 2, 3. collision and rows ------------------------------------------- */

/* Joints and contacts a task of the rows' placing takes at least (a copy
 * of a joint's rows, or a contact's three or five rows). */
#define PLACE_TASK_MIN_RANGE 32

/* The rows' placing: each joint's rows copied from its room to their place,
 * each contact's rows filled at theirs. */
typedef struct place_rows {
    heft_world *w;
    const contact_params *cp;
    row *rows;
    const row *room;  /* the joints' rows, joint i's from slot[i] */
    const int *slot;  /* per joint: its room, -1 when asleep */
    const int *place; /* per joint: its first row */
    const int *count; /* per joint: its rows */
    int *first;       /* per contact: its first row, -1 when asleep */
    int *block;       /* per contact: its block */
} place_rows;

/* contacts ahead of the one filled whose bodies and shapes are fetched */
#define CONTACT_AHEAD 4

/* The records a contact's rows read, fetched ahead: its bodies' first four
 * lines (flags, free velocities, pose) and its shapes' first line
 * (type, radius). They lie where the bodies and shapes were made, in no
 * order the processor can guess; on 1,000 boxes a quarter of the rows'
 * fill waited on them. */
static void prefetch_contact_records(const heft_world *w, const contact *c) {
    prefetch_lines(&w->bodies[c->body_a], 4);
    prefetch_lines(&w->bodies[c->body_b], 4);
    prefetch_lines(&w->shapes[c->shape_a], 1);
    prefetch_lines(&w->shapes[c->shape_b], 1);
}

/* Items: the joints, then the contacts. */
static void place_rows_task(int begin, int end, int worker, void *context) {
    (void)worker;
    const place_rows *pr = context;
    const int nj = pr->w->joint_high;
    for (int x = begin; x < end; ++x) {
        if (x < nj) {
            if (pr->slot[x] < 0) {
                continue;
            }
            joint *j = &pr->w->joints[x];
            const int m = pr->count[x], r = pr->place[x], shift = r - pr->slot[x];
            memcpy(&pr->rows[r], &pr->room[pr->slot[x]], sizeof(row) * (size_t)m);
            for (int k = 0; k < m && shift != 0; ++k) { /* a friction row names its normal row */
                if (pr->rows[r + k].findex >= 0) {
                    pr->rows[r + k].findex += shift;
                    j->rows_last[k].findex += shift;
                }
            }
            continue;
        }
        const int i = x - nj, r = pr->first[i];
        if (x + CONTACT_AHEAD < end)
            prefetch_contact_records(pr->w, &pr->w->contacts.items[i + CONTACT_AHEAD]);
        if (r >= 0) {
            contact_fill_rows(&pr->w->contacts.items[i], pr->w->bodies, pr->w->shapes, pr->cp,
                              pr->block[i], r, &pr->rows[r]);
        }
    }
}

/* Joints a task of the row fill takes at least (up to a dozen rows each). */
#define JOINT_TASK_MIN_RANGE 16

typedef struct joint_rows_fill {
    heft_world *w;
    const row_context *ctx;
    row *rows;
    int *slot;  /* per joint: where its rows are written (room for joint_row_count), -1 asleep */
    int *block; /* per joint: its block */
    int *count; /* per joint: the rows it wrote */
    unsigned char *was_broken;
} joint_rows_fill;

/* A joint's rows touch its own memory only (impulses, kept rows, breaking);
 * the breaking's events and island links are the serial pass's. */
static void joint_rows_task(int begin, int end, int worker, void *context) {
    (void)worker;
    const joint_rows_fill *f = context;
    for (int i = begin; i < end; ++i) {
        if (f->slot[i] < 0) {
            continue;
        }
        joint *j = &f->w->joints[i];
        f->was_broken[i] = (unsigned char)j->broken;
        f->count[i] = joint_write_rows(j, f->w->bodies, f->ctx, f->slot[i], f->block[i],
                                       &f->rows[f->slot[i]]);
    }
}

/* A broken joint's event, and the split of its island it may cause. */
static void joint_broke(heft_world *w, int i) {
    joint *j = &w->joints[i];
    if (array_grow((void **)&w->broken_events, &w->broken_capacity, w->broken_count + 1,
                   sizeof *w->broken_events)) {
        heft_joint_broken_event *e = &w->broken_events[w->broken_count++];
        e->joint.index = i;
        e->joint.generation = j->slot.generation;
        e->force = j->broken_force;
        e->torque = j->broken_torque;
    }
    if (j->body_a >= 0 && body_is_dynamic(&w->bodies[j->body_a]) &&
        body_is_dynamic(&w->bodies[j->body_b])) {
        island_mark_link_removed(w, j->body_b);
    }
}

/* Counts and fills the row buffer; returns the row count, -1 when out of memory.
 * The joints write their rows as tasks, each into room for its most rows
 * (limits come and go); their places, closed up in joint order, are counted
 * on this thread, and a second task copies each joint's rows there and fills
 * the contacts' after them: the same rows, at the same places, as one pass
 * writing them in turn. */
static int build_rows(heft_world *w, double h, row **rows_out) {
    const int nj = w->joint_high;
    joint_rows_fill jf = {w,
                          NULL,
                          NULL,
                          arena_alloc(&w->scratch, sizeof(int) * (size_t)(nj + 1)),
                          arena_alloc(&w->scratch, sizeof(int) * (size_t)(nj + 1)),
                          arena_alloc(&w->scratch, sizeof(int) * (size_t)(nj + 1)),
                          arena_alloc(&w->scratch, (size_t)(nj + 1))};
    int *place = arena_alloc(&w->scratch, sizeof(int) * (size_t)(nj + 1));
    if (!jf.slot || !jf.block || !jf.count || !jf.was_broken || !place) {
        return -1;
    }
    int n = 0, block = 0;
    for (int i = 0; i < nj; ++i) {
        const joint *j = &w->joints[i];
        jf.slot[i] = -1;
        if (j->slot.alive && !row_asleep(w, j->body_a, j->body_b)) {
            jf.slot[i] = n;
            jf.block[i] = block++;
            n += joint_row_count(j);
        }
    }
    row *room = arena_alloc(&w->scratch, sizeof(row) * (size_t)(n + 1));
    for (int i = 0; i < w->contacts.count; ++i) {
        n += contact_row_count(&w->contacts.items[i]);
    }
    row *rows = arena_alloc(&w->scratch, sizeof(row) * (size_t)(n + 1));
    if (!rows || !room) {
        return -1;
    }
    row_context ctx = {h, w->def.rigid_compliance, world_joint_baumgarte(w)};
    jf.ctx = &ctx;
    jf.rows = room;
    world_tasks_run(w, joint_rows_task, nj, JOINT_TASK_MIN_RANGE, &jf);
    int r = 0;
    for (int i = 0; i < nj; ++i) {
        if (jf.slot[i] < 0) {
            continue;
        }
        place[i] = r;
        r += jf.count[i];
        if (!jf.was_broken[i] && w->joints[i].broken) {
            joint_broke(w, i);
        }
    }
    /* contacts: a physical compliance (m/N) as epsilon = c / h^2 (docs/architecture.md,
     * epsilon = 1 / (h c + h^2 k) without damping), on top of the rigid one */
    double contact_epsilon = w->def.rigid_compliance + w->def.contact_compliance / (h * h);
    contact_params cp = {h,
                         contact_epsilon,
                         w->def.contact_compliance / (h * h),
                         w->def.contact_slop,
                         w->def.contact_baumgarte,
                         w->restitution_threshold};
    /* each awake contact's first row, then the rows placed and filled as
     * tasks (a joint's rows and a contact's rows and its own impulses only) */
    place_rows pr = {w,
                     &cp,
                     rows,
                     room,
                     jf.slot,
                     place,
                     jf.count,
                     arena_alloc(&w->scratch, sizeof(int) * (size_t)(w->contacts.count + 1)),
                     arena_alloc(&w->scratch, sizeof(int) * (size_t)(w->contacts.count + 1))};
    if (!pr.first || !pr.block) {
        return -1;
    }
    /* blocks number the awake contacts in order, after the joints' */
    for (int i = 0; i < w->contacts.count; ++i) {
        const contact *c = &w->contacts.items[i];
        const int awake = !row_asleep(w, c->body_a, c->body_b);
        pr.first[i] = awake ? r : -1;
        pr.block[i] = awake ? block++ : -1;
        r += awake ? contact_row_count(c) : 0;
    }
    world_tasks_run(w, place_rows_task, nj + w->contacts.count, PLACE_TASK_MIN_RANGE, &pr);
    *rows_out = rows;
    return r;
}

/* ---- 4, 5. islands and their MLCPs ---------------------------------------- */

static double dot6(const double *j, const double *v) {
    return j[0] * v[0] + j[1] * v[1] + j[2] * v[2] + j[3] * v[3] + j[4] * v[4] + j[5] * v[5];
}

/* J v of a row end with the velocity the constraint sees: free velocity of
 * dynamic bodies, actual velocity of kinematic ones, zero for static ones
 * and the world; read in place and summed in dot6's order */
static inline double end_dot(const body *b, const double *j) {
    if (b == NULL) {
        static const double zero[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
        return dot6(j, zero);
    }
    const heft_vec3 l = b->free_linear_velocity;
    const heft_vec3 a = b->free_angular_velocity;
    return j[0] * l.x + j[1] * l.y + j[2] * l.z + j[3] * a.x + j[4] * a.y + j[5] * a.z;
}

/* The Baumgarte term of a rigid joint row that holds two bodies together (a
 * limit's, one-sided and met at speed, stays in b). */
static double bias_of_row(const row *r, double rigid_compliance, double h) {
    if (r->kind == HEFT_ROW_BILATERAL && r->epsilon <= rigid_compliance * (1.0 + 1e-12))
        return -r->gamma * r->phi / h;
    /* a contact's push out of penetration; a speculative contact's phi > 0
     * bounds the closing speed, which is no position correction */
    if (r->kind == HEFT_ROW_NORMAL && r->phi < 0.0)
        return -r->gamma * r->phi / h;
    return 0.0;
}

static uint64_t hash_mix(uint64_t h, uint64_t x) {
    h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
    return h;
}

/* rows fetched ahead while an island's MLCP is built: the island's rows lie
 * scattered in the world's buffer (in the order the contacts were found) */
#define ISLAND_ROW_AHEAD 6

/* Builds island k's MLCP (structured form) in arena a. It writes only the
 * island's own rows' entries of row_local, so islands build at the same time. */
static int island_mlcp(const heft_world *w, arena *a, const island_set *is, int k, const row *rows,
                       double h, int *row_local, heft_mlcp *p, uint64_t *signature) {
    int nb = is->body_start[k + 1] - is->body_start[k];
    int n = is->row_start[k + 1] - is->row_start[k];
    memset(p, 0, sizeof *p);
    p->n = n;
    p->nbodies = nb;
    p->b = arena_alloc(a, sizeof(double) * (size_t)n);
    p->lo = arena_alloc(a, sizeof(double) * (size_t)n);
    p->hi = arena_alloc(a, sizeof(double) * (size_t)n);
    p->findex = arena_alloc(a, sizeof(int32_t) * (size_t)n);
    p->kind = arena_alloc(a, (size_t)n);
    p->block = arena_alloc(a, sizeof(int32_t) * (size_t)n);
    p->lambda0 = arena_alloc(a, sizeof(double) * (size_t)n);
    p->epsilon = arena_alloc(a, sizeof(double) * (size_t)n);
    p->rows = arena_alloc(a, sizeof(heft_mlcp_row) * (size_t)n);
    p->bodies = arena_alloc(a, sizeof(heft_mlcp_body) * (size_t)nb);
    p->bias = arena_alloc(a, sizeof(double) * (size_t)n);
    if (!p->b || !p->lo || !p->hi || !p->findex || !p->kind || !p->block || !p->lambda0 ||
        !p->epsilon || !p->rows || !p->bodies || !p->bias) {
        return 0;
    }
    for (int i = 0; i < nb; ++i) {
        const body *b = &w->bodies[is->bodies[is->body_start[k] + i]];
        heft_mlcp_body *mb = &p->bodies[i];
        body_pack_inverse_mass(mb, b->step_inv_mass, &b->step_inv_inertia);
    }
    uint64_t sig = hash_mix(0, (uint64_t)n);
    sig = hash_mix(sig, (uint64_t)nb);
    /* the arrays in locals: a store through one of them might otherwise be
     * a store into the problem's own fields, and every pointer would be
     * read again each row */
    const int *island_rows = &is->rows[is->row_start[k]];
    const body *bodies = w->bodies;
    const double rigid_compliance = w->def.rigid_compliance;
    heft_mlcp_row *mrows = p->rows;
    double *pb = p->b, *pbias = p->bias, *plo = p->lo, *phi = p->hi, *plambda0 = p->lambda0,
           *pepsilon = p->epsilon;
    int32_t *pfindex = p->findex, *pblock = p->block;
    uint8_t *pkind = p->kind;
    for (int i = 0; i < n; ++i) {
        row_local[island_rows[i]] = i;
    }
    int first_block = -1;
    for (int i = 0; i < n; ++i) {
        if (i + ISLAND_ROW_AHEAD < n)
            prefetch_lines(&rows[island_rows[i + ISLAND_ROW_AHEAD]], 3); /* 184 bytes */
        const row *r = &rows[island_rows[i]];
        heft_mlcp_row *mr = &mrows[i];
        const body *ba = r->a >= 0 ? &bodies[r->a] : NULL;
        const body *bb = r->b >= 0 ? &bodies[r->b] : NULL;
        const int32_t la = (ba && body_is_dynamic(ba)) ? ba->island_local : -1;
        const int32_t lb = (bb && body_is_dynamic(bb)) ? bb->island_local : -1;
        mr->a = la;
        mr->b = lb;
        memcpy(mr->ja, r->ja, sizeof mr->ja);
        memcpy(mr->jb, r->jb, sizeof mr->jb);
        /* b = target - J (v + h M^-1 f) - gamma phi / h  (docs/architecture.md "The MLCP of an
         * island") */
        pb[i] = r->target - end_dot(ba, r->ja) - end_dot(bb, r->jb) - r->gamma * r->phi / h;
        /* which pgs keeps out of its warm start (docs/pgs.md "A light chain
         * under a heavy load"); a soft row's gamma is its spring */
        pbias[i] = bias_of_row(r, rigid_compliance, h);
        plo[i] = r->lo;
        phi[i] = r->hi;
        const int32_t findex = r->findex >= 0 ? row_local[r->findex] : -1;
        pfindex[i] = findex;
        pkind[i] = r->kind;
        if (first_block < 0) {
            first_block = r->block;
        }
        pblock[i] = r->block - first_block;
        plambda0[i] = r->lambda0;
        pepsilon[i] = r->epsilon;
        sig = hash_mix(sig, ((uint64_t)(uint32_t)la << 32) | (uint32_t)lb);
        sig = hash_mix(sig, ((uint64_t)r->kind << 32) | (uint32_t)findex);
    }
    *signature = sig;
    return 1;
}

/* Solves island k; lambda gets the answer (never NaN or Inf). The rescue of
 * a failed or unconverged solve is the solver library's policy
 * (heft_solve_with_fallback), so the step names no solver. */
static int solve_island(const heft_world *w, heft_fallback *fallback, const heft_mlcp *p,
                        void *state, double *lambda, heft_island_stats *st) {
    heft_solver_stats *s = &st->solver;
    double t0 = heft_time_ms();
    heft_fallback_report report;
    heft_solve_with_fallback(fallback, w->solver, state, p, lambda, s, &report);
    s->time_total_ms = heft_time_ms() - t0;
    st->pgs_fallback = report.rescued;
    st->rescue_sweeps = report.rescue_sweeps;
    return 1;
}

/* The islands' builds and solves as tasks over the islands with rows
 * (island_tasks.c): each item writes only its own island's entries below. */
typedef struct island_jobs {
    heft_world *w;
    const island_set *is;
    const row *rows;
    double h;
    int *row_local;
    const int *solved; /* the islands with rows, in island order */
    heft_mlcp *problems;
    uint64_t *signatures;
    void **states;
    double **lambdas;
    unsigned char *failed; /* out of memory building the island's MLCP */
    /* the task of a whole island (island_step_task) */
    island_slot **slots;                    /* per island with rows: its solver state's slot */
    body_motion *before;                    /* per body slot: its motion before the update */
    int *rejected;                          /* per island: its refused non-finite states */
    post_pass *post;                        /* post-stabilization's, or NULL */
    int post_planned;                       /* the islands' projections run in their items too */
    double *build_ms, *update_ms, *post_ms; /* per island */
} island_jobs;

/* Island k's lambda and MLCP in arena a. */
static void build_island(island_jobs *j, arena *a, int k) {
    const int n = j->is->row_start[k + 1] - j->is->row_start[k];
    j->lambdas[k] = arena_alloc(a, sizeof(double) * (size_t)n);
    j->failed[k] = !j->lambdas[k] || !island_mlcp(j->w, a, j->is, k, j->rows, j->h, j->row_local,
                                                  &j->problems[k], &j->signatures[k]);
}

static void build_islands_task(int begin, int end, int worker, void *context) {
    island_jobs *j = context;
    arena *a = island_worker_arena(j->w, worker);
    for (int i = begin; i < end; ++i) {
        build_island(j, a, j->solved[i]);
    }
}

static void solve_islands_task(int begin, int end, int worker, void *context) {
    island_jobs *j = context;
    heft_fallback *fallback = island_worker_fallback(j->w, worker);
    for (int i = begin; i < end; ++i) {
        const int k = j->solved[i];
        solve_island(j->w, fallback, &j->problems[k], j->states[k], j->lambdas[k],
                     &j->w->island_stats[k]);
    }
}

/* ---- 6. velocities and positions ----------------------------------------- */

/* v += M~^-1 j lambda for one dynamic end of a row. */
static inline void apply_end(body *b, const double *j, double lambda) {
    b->linear_velocity =
        heft_v3_madd(b->linear_velocity, b->step_inv_mass * lambda, heft_v3(j[0], j[1], j[2]));
    b->angular_velocity =
        heft_v3_madd(b->angular_velocity, lambda,
                     heft_mat3_mulv(b->step_inv_inertia, heft_v3(j[3], j[4], j[5])));
}

/* v+ = v_free + M~^-1 J^T lambda for one row's dynamic ends. */
static void apply_row(heft_world *w, const row *x) {
    const double lambda = *x->lambda_out;
    const int32_t ends[2] = {x->a, x->b};
    const double *jac[2] = {x->ja, x->jb};
    for (int e = 0; e < 2; ++e) {
        if (ends[e] < 0 || !body_is_dynamic(&w->bodies[ends[e]])) {
            continue;
        }
        apply_end(&w->bodies[ends[e]], jac[e], lambda);
    }
}

/* Semi-implicit Euler ([Ho 2022] eq. 2.7) of one awake, non-static body;
 * returns 1 when its new state was not finite and was refused. */
static int integrate_body(body *b, double h) {
    int rejected = 0;
    heft_vec3 p = heft_v3_madd(b->position, h, b->linear_velocity);
    heft_quat q = heft_quat_integrate(b->orientation, b->angular_velocity, h);
    if (!heft_v3_isfinite(p) || !heft_quat_isfinite(q) || !heft_v3_isfinite(b->linear_velocity) ||
        !heft_v3_isfinite(b->angular_velocity)) {
        /* no NaN or Inf ever enters the world state */
        b->linear_velocity = heft_v3(0.0, 0.0, 0.0);
        b->angular_velocity = heft_v3(0.0, 0.0, 0.0);
        rejected = 1;
    } else {
        b->position = p;
        b->orientation = q;
    }
    body_update_world_inertia(b);
    b->force = heft_v3(0.0, 0.0, 0.0);
    b->torque = heft_v3(0.0, 0.0, 0.0);
    return rejected;
}

/* Islands a task of the velocity update takes at least. */
#define ISLAND_UPDATE_MIN_RANGE 8

typedef struct island_update {
    heft_world *w;
    const island_set *is;
    const row *rows;
    double h;
    int *rejected; /* per island */
} island_update;

/* Island k's velocities and positions: its bodies, and its rows, whose
 * dynamic ends are its bodies, in ascending order as the serial pass took
 * them, so each body sums its impulses in the same order whoever runs it.
 * With p (the island's problem, still in its worker's memory) and lambda
 * (its answer) the impulses are taken from there: the same rows in the same
 * order, their ends already the island's dynamic bodies, the same numbers,
 * but read from the few kilobytes the solve has just used instead of from
 * the step's row records and the contacts' impulses all over memory.
 * Returns the island's refused non-finite states. */
static int update_island(heft_world *w, const island_set *is, const row *rows, double h, int k,
                         const heft_mlcp *p, const double *lambda) {
    const int b0 = is->body_start[k], b1 = is->body_start[k + 1];
    for (int i = b0; i < b1; ++i) {
        body *b = &w->bodies[is->bodies[i]];
        b->linear_velocity = b->free_linear_velocity;
        b->angular_velocity = b->free_angular_velocity;
    }
    if (p != NULL) {
        const int *local = &is->bodies[b0];
        for (int i = 0; i < p->n; ++i) {
            const heft_mlcp_row *r = &p->rows[i];
            if (r->a >= 0) {
                apply_end(&w->bodies[local[r->a]], r->ja, lambda[i]);
            }
            if (r->b >= 0) {
                apply_end(&w->bodies[local[r->b]], r->jb, lambda[i]);
            }
        }
    } else {
        for (int r = is->row_start[k]; r < is->row_start[k + 1]; ++r) {
            apply_row(w, &rows[is->rows[r]]);
        }
    }
    int rejected = 0;
    for (int i = b0; i < b1; ++i) {
        rejected += integrate_body(&w->bodies[is->bodies[i]], h);
    }
    return rejected;
}

static void island_update_task(int begin, int end, int worker, void *context) {
    (void)worker;
    const island_update *u = context;
    for (int k = begin; k < end; ++k) {
        u->rejected[k] = update_island(u->w, u->is, u->rows, u->h, k, NULL, NULL);
    }
}

/* The awake bodies in no island (kinematic ones) move on this thread, after
 * the islands' updates; returns their refused non-finite states plus those
 * of the islands (per_island, is->count ints). */
static int update_other_bodies(heft_world *w, const island_set *is, double h,
                               const int *per_island) {
    int rejected = 0;
    for (int k = 0; k < is->count; ++k) {
        rejected += per_island[k];
    }
    for (int i = 0; i < w->body_high; ++i) {
        body *b = &w->bodies[i];
        if (b->slot.alive && b->type != HEFT_BODY_STATIC && !b->sleeping && b->island < 0) {
            if (body_is_dynamic(b)) {
                b->linear_velocity = b->free_linear_velocity;
                b->angular_velocity = b->free_angular_velocity;
            }
            rejected += integrate_body(b, h);
        }
    }
    return rejected;
}

/* Velocities from the impulses, then positions, island by island on the
 * task system, then the bodies in no island. Returns the count of refused
 * non-finite states; per_island holds is->count ints. */
static int update_bodies(heft_world *w, const island_set *is, const row *rows, double h,
                         int *per_island) {
    island_update u = {w, is, rows, h, per_island};
    world_tasks_run(w, island_update_task, is->count, ISLAND_UPDATE_MIN_RANGE, &u);
    return update_other_bodies(w, is, h, per_island);
}

/* ---- 4 to 6 in one task: each island start to finish on one worker ------- */

/* Where an arena stood before an island's MLCP was built in it. Once the
 * island is solved and its impulses are copied out, nothing reads its
 * problem or its lambda again, and the next island builds in the same
 * memory, which is still in the core's cache, instead of in fresh memory
 * (100 islands of 120 rows wrote 2 MB a step). Only when nothing
 * overflowed the block meanwhile. */
typedef struct arena_mark {
    size_t used, peak;
    const arena_chunk *overflow;
} arena_mark;

static arena_mark arena_mark_of(const arena *a) {
    arena_mark m = {a->used, a->peak, a->overflow};
    return m;
}

static void arena_rewind(arena *a, arena_mark m) {
    if (a->overflow == m.overflow && a->used >= m.used) {
        a->used = m.used;
        a->peak = m.peak;
    }
}

/* Without an island callback, which must see each island's answer on the
 * stepping thread before its bodies move, an island's build, solve, impulses
 * and update run as one item: one hand-out and one wait a step instead of
 * three, and an island's data stays in one core's cache. The items are the
 * islands in island order, those without rows too (their bodies move). */
static void island_step_task(int begin, int end, int worker, void *context) {
    island_jobs *j = context;
    heft_world *w = j->w;
    const island_set *is = j->is;
    arena *a = island_worker_arena(w, worker);
    heft_fallback *fallback = island_worker_fallback(w, worker);
    for (int k = begin; k < end; ++k) {
        const int n = is->row_start[k + 1] - is->row_start[k];
        arena_mark mark = arena_mark_of(a);
        if (n > 0) {
            const double t0 = heft_time_ms();
            build_island(j, a, k);
            j->build_ms[k] = heft_time_ms() - t0;
            if (j->failed[k]) {
                continue; /* the step reports out of memory */
            }
            island_slot_match(w, j->slots[k], j->signatures[k]);
            j->states[k] = j->slots[k]->state;
            solve_island(w, fallback, &j->problems[k], j->states[k], j->lambdas[k],
                         &w->island_stats[k]);
            for (int r = 0; r < n; ++r) {
                *j->rows[is->rows[is->row_start[k] + r]].lambda_out = j->lambdas[k][r];
            }
        }
        const double t1 = heft_time_ms();
        /* the hit events measure the bodies as they were before the solve */
        for (int i = is->body_start[k]; i < is->body_start[k + 1]; ++i) {
            const body *b = &w->bodies[is->bodies[i]];
            body_motion *m = &j->before[is->bodies[i]];
            m->position = b->position;
            m->linear_velocity = b->linear_velocity;
            m->angular_velocity = b->angular_velocity;
        }
        j->rejected[k] = update_island(w, is, j->rows, j->h, k, n > 0 ? &j->problems[k] : NULL,
                                       n > 0 ? j->lambdas[k] : NULL);
        if (n > 0) {
            arena_rewind(a, mark);
            j->lambdas[k] = NULL;
            memset(&j->problems[k], 0, sizeof j->problems[k]);
        }
        if (j->post) {
            post_stabilize_save_island(j->post, k);
        }
        const double t2 = heft_time_ms();
        j->update_ms[k] = t2 - t1;
        if (j->post_planned) {
            post_stabilize_island(j->post, a, k);
            j->post_ms[k] = heft_time_ms() - t2;
        }
    }
}

/* ---- the step -------------------------------------------------------------- */

/* The step's count of island solves whose kept answer came from source. */
static int *answer_count(heft_step_stats *st, int source) {
    switch (source) {
    case HEFT_ANSWER_BACKSTOP:
        return &st->answers_backstop;
    case HEFT_ANSWER_PGS:
        return &st->answers_pgs;
    case HEFT_ANSWER_WARM_START:
        return &st->answers_warm_start;
    case HEFT_ANSWER_ZERO:
        return &st->answers_zero;
    default:
        return &st->answers_solver;
    }
}

static heft_result step_once(heft_world *w, double h, heft_step_stats *st) {
    double t_start = heft_time_ms();
    memset(st, 0, sizeof *st);
    arena_reset(&w->scratch);

    double tg = heft_time_ms();
    body_pass bp = {w, h, accumulate_stiffness(w, h)};
    st->time_geometric_stiffness_ms = heft_time_ms() - tg;
    st->geometric_stiffness_skipped = geometric_stiffness_skipped(w);
    world_tasks_run(w, free_velocities_task, w->body_high, BODY_TASK_MIN_RANGE, &bp);

    double t0 = heft_time_ms();
    const int ends_before = w->contacts.end_count;
    if (!contact_set_update(w, h)) {
        heft_set_error("out of memory finding contacts");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    if (!update_islands(w, h, ends_before)) {
        heft_set_error("out of memory building islands");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    st->contacts = w->contacts.count;
    double t1 = heft_time_ms();
    st->time_collision_ms = t1 - t0;

    row *rows = NULL;
    int nrows = build_rows(w, h, &rows);
    island_set is;
    int *row_local =
        nrows >= 0 ? arena_alloc(&w->scratch, sizeof(int) * (size_t)(nrows + 1)) : NULL;
    if (nrows < 0 || !row_local || !islands_gather(w, &w->scratch, rows, nrows, &is)) {
        heft_set_error("out of memory building rows");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    if (!array_grow((void **)&w->island_stats, &w->island_stats_capacity, is.count + 1,
                    sizeof(heft_island_stats))) {
        heft_set_error("out of memory");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    st->islands = is.count;
    w->island_stats_count = is.count;
    st->time_rows_ms = heft_time_ms() - t1;

    /* the islands' MLCPs, built and solved on the task system when there is
     * one; the counts are summed in island order afterwards */
    double ta = heft_time_ms();
    island_jobs jobs;
    memset(&jobs, 0, sizeof jobs);
    jobs.w = w;
    jobs.is = &is;
    jobs.rows = rows;
    jobs.h = h;
    jobs.row_local = row_local;
    int max_rows = 0, max_bodies = 0;
    for (int k = 0; k < is.count; ++k) {
        const int nr = is.row_start[k + 1] - is.row_start[k];
        const int nb = is.body_start[k + 1] - is.body_start[k];
        max_rows = nr > max_rows ? nr : max_rows;
        max_bodies = nb > max_bodies ? nb : max_bodies;
    }
    int *solved = arena_alloc(&w->scratch, sizeof(int) * (size_t)(is.count + 1));
    jobs.problems = arena_alloc(&w->scratch, sizeof(heft_mlcp) * (size_t)(is.count + 1));
    jobs.signatures = arena_alloc(&w->scratch, sizeof(uint64_t) * (size_t)(is.count + 1));
    jobs.states = arena_alloc(&w->scratch, sizeof(void *) * (size_t)(is.count + 1));
    jobs.lambdas = arena_alloc(&w->scratch, sizeof(double *) * (size_t)(is.count + 1));
    jobs.failed = arena_calloc(&w->scratch, (size_t)(is.count + 1), 1);
    int *rejected = arena_alloc(&w->scratch, sizeof(int) * (size_t)(is.count + 1));
    if (!solved || !jobs.problems || !jobs.signatures || !jobs.states || !jobs.lambdas ||
        !jobs.failed || !rejected || !island_workers_prepare(w, max_rows, max_bodies)) {
        heft_set_error("out of memory building an island");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }
    jobs.solved = solved;
    int nsolved = 0;
    for (int k = 0; k < is.count; ++k) {
        heft_island_stats *ist = &w->island_stats[k];
        memset(ist, 0, sizeof *ist);
        ist->bodies = is.body_start[k + 1] - is.body_start[k];
        ist->rows = is.row_start[k + 1] - is.row_start[k];
        ist->first_body = is.bodies[is.body_start[k]];
        ist->island_id = is.key[k];
        st->bodies += ist->bodies;
        if (ist->rows == 0) {
            /* an island without rows for a while keeps its solver state
             * rather than rebuild it later */
            island_slots_keep(&w->velocity_slots, is.key[k]);
            continue;
        }
        solved[nsolved++] = k;
    }
    /* an island callback sees each island's answer on this thread before
     * the bodies move: then the builds, the solves and the updates are three
     * tasks, else one (island_step_task) */
    const int whole = w->island_callback == NULL;
    post_pass *post = w->def.post_stabilization > 0 ? post_stabilize_begin(w, &is) : NULL;
    if (whole) {
        jobs.slots = arena_alloc(&w->scratch, sizeof(island_slot *) * (size_t)(is.count + 1));
        jobs.before = arena_alloc(&w->scratch, sizeof(body_motion) * (size_t)(w->body_high + 1));
        jobs.build_ms = arena_calloc(&w->scratch, (size_t)(is.count + 1), sizeof(double));
        jobs.update_ms = arena_calloc(&w->scratch, (size_t)(is.count + 1), sizeof(double));
        jobs.post_ms = arena_calloc(&w->scratch, (size_t)(is.count + 1), sizeof(double));
        jobs.rejected = rejected;
        jobs.post = post;
        /* the projections read the kinematic bodies where the step moves
         * them, after the islands' task */
        jobs.post_planned = post && is.moving_alone == 0 && post_stabilize_plan(w, &is, h, post);
        int claimed = jobs.slots && jobs.before && jobs.build_ms && jobs.update_ms && jobs.post_ms;
        /* making a state allocates and reorders the slots: all of them made
         * here first, then each island's slot looked up */
        for (int i = 0; i < nsolved && claimed; ++i) {
            claimed = island_slots_claim(w, &w->velocity_slots, is.key[solved[i]]) != NULL;
        }
        if (!claimed) {
            heft_set_error("out of memory building an island");
            return HEFT_ERROR_OUT_OF_MEMORY;
        }
        for (int i = 0; i < nsolved; ++i) {
            jobs.slots[solved[i]] = island_slots_find(&w->velocity_slots, is.key[solved[i]]);
        }
        st->time_rows_ms += heft_time_ms() - ta;
        world_tasks_run(w, island_step_task, is.count, 1, &jobs);
        for (int k = 0; k < is.count; ++k) {
            st->time_rows_ms += jobs.build_ms[k];
            st->time_integrate_ms += jobs.update_ms[k];
            st->time_post_stabilization_ms += jobs.post_ms[k];
        }
    } else {
        island_tasks_run(w, build_islands_task, nsolved, &jobs);
    }
    for (int i = 0; i < nsolved; ++i) {
        const int k = solved[i];
        if (jobs.failed[k]) {
            heft_set_error("out of memory building an island");
            return HEFT_ERROR_OUT_OF_MEMORY;
        }
        if (!whole) {
            /* creating a state allocates and reorders the slots: on this thread */
            jobs.states[k] =
                island_slots_state(w, &w->velocity_slots, is.key[k], jobs.signatures[k]);
        }
    }
    if (!whole) {
        st->time_rows_ms += heft_time_ms() - ta;
        island_tasks_run(w, solve_islands_task, nsolved, &jobs);
    }
    for (int i = 0; i < nsolved; ++i) {
        const int k = solved[i];
        heft_island_stats *ist = &w->island_stats[k];
        if (!whole) {
            const double *lambda = jobs.lambdas[k];
            w->island_callback(w->island_callback_user, k, &jobs.problems[k], lambda, &ist->solver);
            for (int r = 0; r < ist->rows; ++r) {
                *rows[is.rows[is.row_start[k] + r]].lambda_out = lambda[r];
            }
        }
        const heft_solver_stats *s = &ist->solver;
        st->islands_solved++;
        st->rows += ist->rows;
        st->rows_max = ist->rows > st->rows_max ? ist->rows : st->rows_max;
        st->iterations_sum += s->iterations;
        st->inner_iterations_sum += s->inner_iterations;
        st->iterations_max =
            s->iterations > st->iterations_max ? s->iterations : st->iterations_max;
        st->fallbacks += ist->pgs_fallback;
        st->pivot_steps += w->solver->direct ? s->iterations - ist->rescue_sweeps : 0;
        st->restarts += s->restarts;
        st->pgs_sweeps += s->pgs_sweeps;
        st->rescue_sweeps += ist->rescue_sweeps;
        st->frozen_rounds += s->frozen_rounds;
        st->backstops += s->backstops;
        st->backstop_pivots += s->backstop_pivots;
        st->newton_steps += s->newton_steps;
        st->factorizations += s->factorizations;
        st->downdates += s->downdates;
        st->updates += s->updates;
        st->body_factorizations += s->body_factorizations;
        st->envelope_max = s->envelope > st->envelope_max ? s->envelope : st->envelope_max;
        ++*answer_count(st, s->answer);
        st->not_converged += !s->converged;
        st->error_max = s->error_max > st->error_max ? s->error_max : st->error_max;
        st->error_sum += s->error_sum;
        st->time_solve_ms += s->time_total_ms;
    }
    island_slots_keep_sleeping(w, &w->velocity_slots);
    island_slots_sweep(w, &w->velocity_slots);
    /* hit events: the contacts' impulses are the solve's, the velocities
     * still those the contacts were found with */
    if (!contact_set_record_hits(w, whole ? jobs.before : NULL)) {
        heft_set_error("out of memory recording hit events");
        return HEFT_ERROR_OUT_OF_MEMORY;
    }

    double t2 = heft_time_ms();
    st->nonfinite_rejected =
        whole ? update_other_bodies(w, &is, h, rejected) : update_bodies(w, &is, rows, h, rejected);
    double t3 = heft_time_ms();
    st->time_integrate_ms += t3 - t2;
    if (w->def.post_stabilization > 0) {
        post_stabilize(w, &is, h, st, post, whole);
        st->time_post_stabilization_ms += heft_time_ms() - t3;
    }
    continuous_collision(w, h); /* fast bodies: back to their time of impact */
    sleep_update(w, &is, h);
    sleep_count(w, &st->islands_sleeping, &st->bodies_sleeping);
    w->time += h;
    st->time_total_ms = heft_time_ms() - t_start;
    return HEFT_OK;
}

static int imax(int a, int b) {
    return a > b ? a : b;
}

/* Adds one substep's statistics to the step's: times and counts add up,
 * sizes and errors take the largest. */
static void stats_merge(heft_step_stats *t, const heft_step_stats *s) {
    t->islands = imax(t->islands, s->islands);
    t->islands_solved = imax(t->islands_solved, s->islands_solved);
    t->bodies = imax(t->bodies, s->bodies);
    t->rows = imax(t->rows, s->rows);
    t->rows_max = imax(t->rows_max, s->rows_max);
    t->contacts = imax(t->contacts, s->contacts);
    t->iterations_max = imax(t->iterations_max, s->iterations_max);
    t->iterations_sum += s->iterations_sum;
    t->inner_iterations_sum += s->inner_iterations_sum;
    t->fallbacks += s->fallbacks;
    t->not_converged += s->not_converged;
    t->nonfinite_rejected += s->nonfinite_rejected;
    t->error_max = fmax(t->error_max, s->error_max);
    t->error_sum += s->error_sum;
    t->time_total_ms += s->time_total_ms;
    t->time_collision_ms += s->time_collision_ms;
    t->time_rows_ms += s->time_rows_ms;
    t->time_solve_ms += s->time_solve_ms;
    t->time_integrate_ms += s->time_integrate_ms;
    t->time_geometric_stiffness_ms += s->time_geometric_stiffness_ms;
    t->time_post_stabilization_ms += s->time_post_stabilization_ms;
    t->post_stabilization_gap = s->post_stabilization_gap;
    t->geometric_stiffness_skipped =
        imax(t->geometric_stiffness_skipped, s->geometric_stiffness_skipped);
    t->post_stabilization_limited += s->post_stabilization_limited;
    t->post_stabilization_energy += s->post_stabilization_energy;
    t->substeps++;
    t->pivot_steps += s->pivot_steps;
    t->restarts += s->restarts;
    t->pgs_sweeps += s->pgs_sweeps;
    t->rescue_sweeps += s->rescue_sweeps;
    t->frozen_rounds += s->frozen_rounds;
    t->backstops += s->backstops;
    t->backstop_pivots += s->backstop_pivots;
    t->newton_steps += s->newton_steps;
    t->factorizations += s->factorizations;
    t->downdates += s->downdates;
    t->updates += s->updates;
    t->body_factorizations += s->body_factorizations;
    t->envelope_max = s->envelope_max > t->envelope_max ? s->envelope_max : t->envelope_max;
    t->answers_solver += s->answers_solver;
    t->answers_backstop += s->answers_backstop;
    t->answers_pgs += s->answers_pgs;
    t->answers_warm_start += s->answers_warm_start;
    t->answers_zero += s->answers_zero;
    t->islands_sleeping = s->islands_sleeping;
    t->bodies_sleeping = s->bodies_sleeping;
}

heft_joint_events heft_world_joint_events(const heft_world *w) {
    heft_joint_events ev = {NULL, 0};
    if (w == NULL) {
        heft_set_error("heft_world_joint_events: world is NULL");
        return ev;
    }
    ev.broken = w->broken_events;
    ev.broken_count = w->broken_count;
    return ev;
}

heft_result heft_world_step(heft_world *w, double h) {
    if (!w) {
        heft_set_error("heft_world_step: world is NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (w->contacts.in_callback) {
        heft_set_error("heft_world_step: called from a pair filter or pre-solve callback");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    if (!isfinite(h) || !(h > 0.0)) {
        heft_set_error("time step must be finite and positive (got %g)", h);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    int n = w->def.substeps > 0 ? w->def.substeps : 1;
    /* below the minimum, phi / h in the Baumgarte term overflows a body's
     * velocity (h = 1e-300 gave a pendulum bob 2.7e296 m/s) */
    if (!(h / n >= HEFT_STEP_MIN) || h / n > HEFT_STEP_MAX) {
        heft_set_error("time step %g s in %d substep(s) gives %g s a substep, outside "
                       "[HEFT_STEP_MIN, HEFT_STEP_MAX] = [%g, %g] s",
                       h, n, h / n, HEFT_STEP_MIN, HEFT_STEP_MAX);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    heft_step_stats total, one;
    memset(&total, 0, sizeof total);
    contact_set_clear_events(&w->contacts);
    sleep_begin_step(w);
    w->broken_count = 0;
    heft_result rc = HEFT_OK;
    for (int i = 0; i < n && rc == HEFT_OK; ++i) {
        rc = step_once(w, h / n, &one);
        stats_merge(&total, &one);
    }
    w->stats = total;
    if (rc == HEFT_OK) {
        w->steps++;
    }
    return rc;
}
