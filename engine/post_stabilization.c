/* Post-stabilization (Cline & Pai, "Post-Stabilization for Rigid Body
 * Simulation with Contact and Constraints", ICRA 2003; cited in [Lefebvre 2020] §1.2):
 * after the position update, project the positions back onto the joints'
 * constraints. One projection solves, per island,
 *   (J M^-1 J^T + C) mu = -phi,   dq = M^-1 J^T mu
 * with the island's own structure and the current solver (so a direct solver
 * makes the joints exact, an iterative one gets as far as its iterations), and
 * moves the bodies by dq without touching their velocities. Only rigid joint
 * rows are corrected (bilateral and limit rows); soft joints keep their sag and
 * contacts keep Baumgarte. With a direct solver, contacts take part as
 * one-sided rows all the same (the paper projects them too): the joints'
 * correction may close a contact's gap but not push it in, J_n dq >=
 * -max(0, separation + slop). Without them the projection pulled a chain
 * under 15 kN wrapped on a rod 2 cm into it (docs/scenarios.md, chain). */
#include <string.h>

#include "island.h"
#include "world.h"

static int takes_part(const row *r, double rigid_compliance) {
    return (r->kind == HEFT_ROW_BILATERAL || r->kind == HEFT_ROW_LIMIT) &&
           r->epsilon <= rigid_compliance * (1.0 + 1e-12);
}

static uint64_t mix(uint64_t h, uint64_t x) {
    return h ^ (x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

static double dot6(const double *j, heft_vec3 v, heft_vec3 omega) {
    return j[0] * v.x + j[1] * v.y + j[2] * v.z + j[3] * omega.x + j[4] * omega.y + j[5] * omega.z;
}

/* Joints and contacts a task of the gathering takes at least. */
#define JOINT_TASK_MIN_RANGE 4

/* The gathering of one projection's rows: each joint and each contact
 * writes its own rows and counts; their places, grouped by island in
 * joint order then contact order, are counted on the stepping thread. */
typedef struct gather_pass {
    heft_world *w;
    row_context ctx;
    contact_params cp;
    int first; /* the projection's first iteration (gaps known) */
    row *all;  /* joint i's rows from slot[i], contact c's at contact_base + c */
    int contact_base;
    row *sorted;     /* the rows grouped by island */
    const int *slot; /* per joint: room for its most rows, -1 for a dead joint */
    int *kept;       /* per joint and then per contact: the rows that take part */
    int *island;     /* per joint and then per contact: the island, -1 for none */
    int *start;      /* per island: its first row in sorted, is->count + 1 */
    /* per island its joints and contacts, in joint then contact order:
     * items[item_start[k] .. item_start[k+1]) */
    int *item_start, *items;
} gather_pass;

/* The island a joint's rows go to (its dynamic body's), -1 for none. */
static int joint_island(const heft_world *w, int i) {
    const joint *j = &w->joints[i];
    if (!j->slot.alive) {
        return -1;
    }
    const body *b = &w->bodies[j->body_b];
    const body *a = j->body_a >= 0 ? &w->bodies[j->body_a] : NULL;
    return body_is_dynamic(b) ? b->island : (a && body_is_dynamic(a) ? a->island : -1);
}

/* A joint's rows at the current poses, those that take part (rigid
 * bilateral and limit rows of a joint on an island) moved to the front of
 * its room. */
static void gather_joint(const gather_pass *g, int i) {
    const heft_world *w = g->w;
    g->kept[i] = 0;
    g->island[i] = -1;
    if (g->slot[i] < 0) {
        return;
    }
    const joint *j = &w->joints[i];
    row *room = &g->all[g->slot[i]];
    memset(room, 0, sizeof(row) * (size_t)joint_row_count(j));
    const int count = joint_fill_rows(j, w->bodies, &g->ctx, room); /* limits come and go */
    const int k = joint_island(w, i);
    g->island[i] = k;
    int kept = 0;
    for (int r = 0; r < count && k >= 0; ++r) {
        row x = room[r];
        if (takes_part(&x, w->def.rigid_compliance)) {
            x.a = j->body_a;
            x.b = j->body_b;
            room[kept++] = x;
        }
    }
    g->kept[i] = kept;
}

/* A contact's normal row. On the first iteration phi is the separation the
 * contact has after the position update (the step's separation plus h J_n
 * v+), so that the row J_n dq >= -phi lets the projection close a gap but
 * not push a contact in; later iterations (their gaps unknown) may not close
 * it further. */
static row contact_normal_row(heft_world *w, const contact_params *cp, int first, int c) {
    contact *ct = &w->contacts.items[c];
    const body *a = &w->bodies[ct->body_a], *b = &w->bodies[ct->body_b];
    row rows[CONTACT_MAX_ROWS];
    contact_fill_rows(ct, w->bodies, w->shapes, cp, 0, 0, rows);
    row x = rows[0];
    const double closing = dot6(x.ja, a->linear_velocity, a->angular_velocity) +
                           dot6(x.jb, b->linear_velocity, b->angular_velocity);
    x.phi = first ? fmax(0.0, ct->separation + cp->h * closing + cp->slop) : 0.0;
    x.lambda_out = NULL;
    return x;
}

static void gather_contact(const gather_pass *g, int c) {
    heft_world *w = g->w;
    const int nj = w->joint_high;
    const contact *ct = &w->contacts.items[c];
    const body *a = &w->bodies[ct->body_a], *b = &w->bodies[ct->body_b];
    const int k = body_is_dynamic(b) ? b->island : (body_is_dynamic(a) ? a->island : -1);
    g->island[nj + c] = k;
    g->kept[nj + c] = k >= 0;
    if (k < 0) {
        return;
    }
    g->all[g->contact_base + c] = contact_normal_row(w, &g->cp, g->first, c);
}

/* Items: the joints, then the contacts. */
static void gather_task(int begin, int end, int worker, void *context) {
    (void)worker;
    const gather_pass *g = context;
    const int nj = g->w->joint_high;
    for (int i = begin; i < end; ++i) {
        if (i < nj) {
            gather_joint(g, i);
        } else {
            gather_contact(g, i - nj);
        }
    }
}

/* Island k's kept rows to their place, sorted[start[k] .. start[k+1]): its
 * joints' rows in joint order, then its contacts' in contact order. */
static void scatter_island(const gather_pass *g, int k) {
    const int nj = g->w->joint_high;
    int at = g->start[k];
    for (int x = g->item_start[k]; x < g->item_start[k + 1]; ++x) {
        const int i = g->items[x];
        if (g->kept[i] > 0) {
            const row *from = i < nj ? &g->all[g->slot[i]] : &g->all[g->contact_base + (i - nj)];
            memcpy(&g->sorted[at], from, sizeof(row) * (size_t)g->kept[i]);
            at += g->kept[i];
        }
    }
}

/* The joint rows of every island at the current poses, and the normal rows
 * of its contacts, each written by its own joint or contact, and the places
 * of each island's: scatter_island groups them in the island's projection
 * task. Returns 0 when out of memory. */
static int gather_rows(heft_world *w, const island_set *is, double h, int first, gather_pass *out) {
    const int nj = w->joint_high;
    /* an iterative solver's projection is approximate, and the contacts'
     * rows take its sweeps from the joints: the winch's gaps under PGS went
     * from 5.4 mm to 1.7 cm with them */
    const int nc = w->solver->direct ? w->contacts.count : 0;
    int *slot = arena_alloc(&w->scratch, sizeof(int) * (size_t)(nj + 1));
    if (!slot) {
        return 0;
    }
    int n = 0;
    for (int i = 0; i < nj; ++i) {
        slot[i] = w->joints[i].slot.alive ? n : -1;
        n += w->joints[i].slot.alive ? joint_row_count(&w->joints[i]) : 0;
    }
    const row_context ctx = {1.0, w->def.rigid_compliance, 1.0};
    const contact_params cp = {h,   w->def.rigid_compliance + w->def.contact_compliance / (h * h),
                               0.0, w->def.contact_slop,
                               0.0, INFINITY};
    gather_pass g;
    memset(&g, 0, sizeof g);
    g.w = w;
    g.ctx = ctx;
    g.cp = cp;
    g.first = first;
    g.contact_base = n;
    g.slot = slot;
    g.all = arena_alloc(&w->scratch, sizeof(row) * (size_t)(n + nc + 1));
    g.sorted = arena_alloc(&w->scratch, sizeof(row) * (size_t)(n + nc + 1));
    g.kept = arena_alloc(&w->scratch, sizeof(int) * (size_t)(nj + nc + 1));
    g.island = arena_alloc(&w->scratch, sizeof(int) * (size_t)(nj + nc + 1));
    g.items = arena_alloc(&w->scratch, sizeof(int) * (size_t)(nj + nc + 1));
    g.start = arena_calloc(&w->scratch, (size_t)is->count + 2, sizeof(int));
    g.item_start = arena_calloc(&w->scratch, (size_t)is->count + 2, sizeof(int));
    int *fill = arena_calloc(&w->scratch, (size_t)is->count + 1, sizeof(int));
    if (!g.all || !g.sorted || !g.kept || !g.island || !g.items || !g.start || !g.item_start ||
        !fill) {
        return 0;
    }
    world_tasks_run(w, gather_task, nj + nc, JOINT_TASK_MIN_RANGE, &g);
    for (int i = 0; i < nj + nc; ++i) {
        if (g.island[i] >= 0) {
            g.start[g.island[i] + 1] += g.kept[i];
            g.item_start[g.island[i] + 1]++;
        }
    }
    for (int k = 0; k < is->count; ++k) {
        g.start[k + 1] += g.start[k];
        g.item_start[k + 1] += g.item_start[k];
    }
    for (int i = 0; i < nj + nc; ++i) {
        if (g.island[i] >= 0) {
            const int k = g.island[i];
            g.items[g.item_start[k] + fill[k]++] = i;
        }
    }
    *out = g;
    return 1;
}

/* Moves island k's bodies by M^-1 J^T mu, summed per body first: applied row
 * by row, the rotations of rows whose impulses cancel (the internal forces of
 * a closed loop of joints and contacts) did not cancel, and a loop's large
 * internal impulses turned its links. Returns 0 when out of scratch memory. */
static int apply_correction(heft_world *w, arena *a, const island_set *is, int k, const row *rows,
                            int n, const double *mu) {
    const int first = is->body_start[k], nb = is->body_start[k + 1] - first;
    heft_vec3 *dx = arena_calloc(a, (size_t)nb + 1, sizeof(heft_vec3));
    heft_vec3 *dtheta = arena_calloc(a, (size_t)nb + 1, sizeof(heft_vec3));
    if (!dx || !dtheta) {
        return 0;
    }
    for (int i = 0; i < n; ++i) {
        int32_t ends[2] = {rows[i].a, rows[i].b};
        const double *jac[2] = {rows[i].ja, rows[i].jb};
        for (int e = 0; e < 2; ++e) {
            if (ends[e] < 0 || !body_is_dynamic(&w->bodies[ends[e]])) {
                continue;
            }
            const int local = w->bodies[ends[e]].island_local;
            const double *j = jac[e];
            dx[local] = heft_v3_add(dx[local], heft_v3_scale(heft_v3(j[0], j[1], j[2]), mu[i]));
            dtheta[local] =
                heft_v3_add(dtheta[local], heft_v3_scale(heft_v3(j[3], j[4], j[5]), mu[i]));
        }
    }
    for (int x = 0; x < nb; ++x) {
        body *b = &w->bodies[is->bodies[first + x]];
        if (!body_is_dynamic(b)) {
            continue;
        }
        b->position = heft_v3_add(b->position, heft_v3_scale(dx[x], b->step_inv_mass));
        b->orientation = heft_quat_integrate(b->orientation,
                                             heft_mat3_mulv(b->step_inv_inertia, dtheta[x]), 1.0);
        body_update_world_inertia(b);
    }
    return 1;
}

/* The signature of an island's projection problem (its rows' ends), which
 * keys its solver state. */
static uint64_t projection_signature(const heft_world *w, const row *rows, int n) {
    uint64_t sig = mix(0x5eed, (uint64_t)n);
    for (int i = 0; i < n; ++i) {
        const row *r = &rows[i];
        const body *ba = r->a >= 0 ? &w->bodies[r->a] : NULL, *bb = &w->bodies[r->b];
        const int32_t a = (ba && body_is_dynamic(ba)) ? ba->island_local : -1;
        const int32_t b = body_is_dynamic(bb) ? bb->island_local : -1;
        sig = mix(sig, ((uint64_t)(uint32_t)a << 32) | (uint32_t)b);
    }
    return sig;
}

/* One projection of island k with its solver state, in arena a; touches
 * only the island's bodies. Returns 0 when out of scratch memory. */
static int project_island(heft_world *w, arena *a, const island_set *is, int k, const row *rows,
                          int n, void *state) {
    int nb = is->body_start[k + 1] - is->body_start[k];
    heft_mlcp p;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.nbodies = nb;
    p.b = arena_alloc(a, sizeof(double) * (size_t)n);
    p.lo = arena_alloc(a, sizeof(double) * (size_t)n);
    p.hi = arena_alloc(a, sizeof(double) * (size_t)n);
    p.findex = arena_alloc(a, sizeof(int32_t) * (size_t)n);
    p.kind = arena_alloc(a, (size_t)n);
    p.block = arena_alloc(a, sizeof(int32_t) * (size_t)n);
    p.epsilon = arena_alloc(a, sizeof(double) * (size_t)n);
    p.rows = arena_alloc(a, sizeof(heft_mlcp_row) * (size_t)n);
    p.bodies = arena_alloc(a, sizeof(heft_mlcp_body) * (size_t)nb);
    double *mu = arena_calloc(a, (size_t)n, sizeof(double));
    if (!p.b || !p.lo || !p.hi || !p.findex || !p.kind || !p.block || !p.epsilon || !p.rows ||
        !p.bodies || !mu) {
        return 0;
    }
    for (int i = 0; i < nb; ++i) {
        const body *b = &w->bodies[is->bodies[is->body_start[k] + i]];
        body_pack_inverse_mass(&p.bodies[i], b->step_inv_mass, &b->step_inv_inertia);
    }
    for (int i = 0; i < n; ++i) {
        const row *r = &rows[i];
        const body *ba = r->a >= 0 ? &w->bodies[r->a] : NULL, *bb = &w->bodies[r->b];
        p.rows[i].a = (ba && body_is_dynamic(ba)) ? ba->island_local : -1;
        p.rows[i].b = body_is_dynamic(bb) ? bb->island_local : -1;
        memcpy(p.rows[i].ja, r->ja, sizeof r->ja);
        memcpy(p.rows[i].jb, r->jb, sizeof r->jb);
        p.b[i] = -r->phi; /* J dq = -phi */
        p.lo[i] = r->lo;
        p.hi[i] = r->hi;
        p.findex[i] = -1;
        p.kind[i] = r->kind;
        p.block[i] = i / 3;
        p.epsilon[i] = r->kind == HEFT_ROW_NORMAL ? r->epsilon : w->def.rigid_compliance;
    }
    heft_solver_stats st;
    memset(&st, 0, sizeof st);
    int rc = state ? w->solver->solve(state, &p, mu, &st) : HEFT_SOLVE_FAILED;
    if (rc == HEFT_SOLVE_NOT_CONVERGED && w->solver->direct) {
        /* a pivoting solver out of pivots on the contacts' rows hands back
         * its best index sets, which can move a link by a metre (seen on
         * the chain at 5 pivots): no projection is better than that one */
        return 1;
    }
    for (int i = 0; i < n; ++i) {
        if (rc == HEFT_SOLVE_FAILED || !isfinite(mu[i])) {
            return 1; /* no usable projection: leave the poses as they are */
        }
    }
    return apply_correction(w, a, is, k, rows, n, mu);
}

/* the lift of an island's weight a projection may add without paying, m */
#define POST_STABILIZATION_FREE_LIFT 1e-9

/* the weight of island k's bodies, N */
static double island_weight(const heft_world *w, const island_set *is, int k) {
    double m = 0.0;
    for (int x = is->body_start[k]; x < is->body_start[k + 1]; ++x) {
        const body *b = &w->bodies[is->bodies[x]];
        m += b->mass * fabs(b->gravity_scale);
    }
    return m * heft_v3_length(w->def.gravity);
}

/* Kinetic and gravitational potential energy of island k's bodies, J (the
 * potential from the world's origin: only differences are used). */
static void island_energy(const heft_world *w, const island_set *is, int k, double *kinetic,
                          double *potential) {
    double t = 0.0, u = 0.0;
    for (int x = is->body_start[k]; x < is->body_start[k + 1]; ++x) {
        const body *b = &w->bodies[is->bodies[x]];
        heft_mat3 Iw = heft_mat3_rotate_tensor(heft_quat_to_mat3(b->orientation), b->inertia);
        t += 0.5 * b->mass * heft_v3_dot(b->linear_velocity, b->linear_velocity) +
             0.5 * heft_v3_dot(b->angular_velocity, heft_mat3_mulv(Iw, b->angular_velocity));
        u -= b->mass * b->gravity_scale * heft_v3_dot(w->def.gravity, b->position);
    }
    *kinetic = t;
    *potential = u;
}

/* Island k's bodies back to the poses saved before the projections
 * (positions and orientations hold the island's bodies in island order). */
static void put_back(heft_world *w, const island_set *is, int k, const heft_vec3 *positions,
                     const heft_quat *orientations) {
    const int first = is->body_start[k], count = is->body_start[k + 1] - first;
    for (int x = 0; x < count; ++x) {
        body *b = &w->bodies[is->bodies[first + x]];
        b->position = positions[x];
        b->orientation = orientations[x];
        body_update_world_inertia(b);
    }
}

/* Post-stabilization moves positions without touching velocities, so it may
 * lift a body against gravity. Where the joints stretch (no geometric
 * stiffness, or an iterative solver, through which it cannot act) it does so
 * by as much as they stretched: +13x to +138x the swing energy of the 2,000:1
 * chain under the direct solvers, up to 1.3 MJ in a step on the forklift
 * under pgs. There an island whose projection raised its energy gives the
 * gain back from its kinetic energy, all velocities scaled by one factor
 * (which keeps J v = 0 for the joints); when its kinetic energy cannot pay,
 * the projection is undone. Allowed without payment: rounding of the sums and
 * a lift of the island's weight by 1 nm (the gaps a direct solve leaves;
 * undoing those would make the motion depend on round-off). With geometric
 * stiffness acting the joints hold to 1e-5 m and the projection is not
 * limited: what it lifts is the rise of a swinging load along its arc,
 * R (omega h)^2 / 2 a step, which the velocity solve linearised away and
 * gravity takes back in the next steps (docs/heavy-loads.md); paying for it
 * here as well would damp the swing. Returns 1 when the island was limited. */
static int keep_energy(heft_world *w, const island_set *is, int k, double kinetic_before,
                       double potential_before, const heft_vec3 *positions,
                       const heft_quat *orientations) {
    double kinetic, potential;
    island_energy(w, is, k, &kinetic, &potential);
    const double before = kinetic_before + potential_before;
    const double slack =
        1e-12 * (fabs(kinetic_before) + fabs(potential_before) + fabs(kinetic) + fabs(potential)) +
        island_weight(w, is, k) * POST_STABILIZATION_FREE_LIFT;
    if (kinetic + potential <= before + slack) {
        return 0;
    }
    const double scale2 = kinetic > 0.0 ? (before - potential) / kinetic : -1.0;
    const int first = is->body_start[k], count = is->body_start[k + 1] - first;
    if (scale2 >= 0.0 && isfinite(scale2)) {
        const double scale = sqrt(scale2);
        for (int x = 0; x < count; ++x) {
            body *b = &w->bodies[is->bodies[first + x]];
            b->linear_velocity = heft_v3_scale(b->linear_velocity, scale);
            b->angular_velocity = heft_v3_scale(b->angular_velocity, scale);
        }
        return 1;
    }
    put_back(w, is, k, positions, orientations);
    return 1;
}

/* Islands a task of the energy passes takes at least. */
#define ISLAND_TASK_MIN_RANGE 8

struct post_pass {
    heft_world *w;
    const island_set *is;
    double *energies; /* 2 an island: kinetic, potential before the projections */
    heft_vec3 *positions;
    heft_quat *orientations;
    gather_pass g;       /* the current projection's rows */
    island_slot **slots; /* per island: its projection's solver state, NULL for none */
    double *gaps;        /* per joint slot: its gap after the energy guard, or NULL */
    int guard;
    int last;                /* the last projection also runs the energy guard and the gaps */
    unsigned char *limited;  /* per island: keep_energy's answer */
    double *gain;            /* per island: energy after less before, J */
    const int *joint_island; /* per joint slot: its island, -1 for none (dead, asleep) */
    /* a direct solver's projections within each island's item of the step
     * (post_stabilize_plan): per island its joints and contacts, in order,
     * its rows' most, and the projection its item stopped at for want of a
     * solver state (-1 for none) */
    int fused;
    int *joint_start, *joints, *contact_start, *contacts, *room, *stopped;
};

post_pass *post_stabilize_begin(heft_world *w, const island_set *is) {
    const int nbodies = is->count > 0 ? is->body_start[is->count] : 0;
    post_pass *pp = arena_alloc(&w->scratch, sizeof *pp);
    if (!pp) {
        return NULL;
    }
    memset(pp, 0, sizeof *pp);
    pp->w = w;
    pp->is = is;
    pp->positions = arena_alloc(&w->scratch, sizeof(heft_vec3) * (size_t)(nbodies + 1));
    pp->orientations = arena_alloc(&w->scratch, sizeof(heft_quat) * (size_t)(nbodies + 1));
    pp->energies = arena_alloc(&w->scratch, sizeof(double) * 2 * (size_t)(is->count + 1));
    pp->slots = arena_alloc(&w->scratch, sizeof(island_slot *) * (size_t)(is->count + 1));
    pp->limited = arena_alloc(&w->scratch, (size_t)(is->count + 1));
    pp->gain = arena_alloc(&w->scratch, sizeof(double) * (size_t)(is->count + 1));
    if (!pp->positions || !pp->orientations || !pp->energies || !pp->slots || !pp->limited ||
        !pp->gain) {
        return NULL; /* out of scratch memory: no projection, nothing gained */
    }
    return pp;
}

void post_stabilize_save_island(post_pass *pp, int k) {
    for (int x = pp->is->body_start[k]; x < pp->is->body_start[k + 1]; ++x) {
        const body *b = &pp->w->bodies[pp->is->bodies[x]];
        pp->positions[x] = b->position;
        pp->orientations[x] = b->orientation;
    }
    island_energy(pp->w, pp->is, k, &pp->energies[2 * k], &pp->energies[2 * k + 1]);
}

static void energy_before_task(int begin, int end, int worker, void *context) {
    (void)worker;
    for (int k = begin; k < end; ++k) {
        post_stabilize_save_island(context, k);
    }
}

/* The energy guard of island k, and its energy's change. */
static void energy_after(post_pass *pp, int k) {
    const int first = pp->is->body_start[k];
    const double *e = &pp->energies[2 * k];
    pp->limited[k] =
        (unsigned char)(pp->guard && keep_energy(pp->w, pp->is, k, e[0], e[1],
                                                 &pp->positions[first], &pp->orientations[first]));
    double kinetic, potential;
    island_energy(pp->w, pp->is, k, &kinetic, &potential);
    pp->gain[k] = kinetic + potential - e[0] - e[1];
}

/* Island k's gap of each of its joints (the last projection's items), once
 * its bodies have their final poses. */
static void island_joint_gaps(post_pass *pp, int k) {
    const heft_world *w = pp->w;
    if (pp->fused) {
        for (int x = pp->joint_start[k]; x < pp->joint_start[k + 1]; ++x) {
            const int i = pp->joints[x];
            const heft_joint_id id = {i, w->joints[i].slot.generation};
            pp->gaps[i] = heft_joint_gap(w, id);
        }
        return;
    }
    const gather_pass *g = &pp->g;
    const int nj = w->joint_high;
    for (int x = g->item_start[k]; x < g->item_start[k + 1]; ++x) {
        const int i = g->items[x];
        if (i < nj) {
            const heft_joint_id id = {i, w->joints[i].slot.generation};
            pp->gaps[i] = heft_joint_gap(w, id);
        }
    }
}

/* One projection of each island: its rows grouped, its solver state matched
 * to them, the projection; on the last one with a direct solver also the
 * energy guard and the island's joint gaps, so an island runs its passes on
 * one worker with one hand-out. */
static void project_task(int begin, int end, int worker, void *context) {
    post_pass *pp = context;
    arena *a = island_worker_arena(pp->w, worker);
    const gather_pass *g = &pp->g;
    for (int k = begin; k < end; ++k) {
        if (pp->slots[k]) {
            const int n = g->start[k + 1] - g->start[k];
            const row *rows = &g->sorted[g->start[k]];
            scatter_island(g, k);
            island_slot_match(pp->w, pp->slots[k], projection_signature(pp->w, rows, n));
            (void)project_island(pp->w, a, pp->is, k, rows, n, pp->slots[k]->state);
        }
        if (pp->last) {
            energy_after(pp, k);
            if (pp->gaps) {
                island_joint_gaps(pp, k);
            }
        }
    }
}

static void energy_after_task(int begin, int end, int worker, void *context) {
    (void)worker;
    for (int k = begin; k < end; ++k) {
        energy_after(context, k);
    }
}

typedef struct joint_gaps {
    heft_world *w;
    double *gap;     /* per joint slot, 0 for a dead one */
    const int *only; /* the items' joints, or NULL for every joint slot */
} joint_gaps;

static void joint_gaps_task(int begin, int end, int worker, void *context) {
    (void)worker;
    const joint_gaps *jg = context;
    for (int x = begin; x < end; ++x) {
        const int i = jg->only ? jg->only[x] : x;
        const joint *j = &jg->w->joints[i];
        const heft_joint_id id = {i, j->slot.generation};
        jg->gap[i] = j->slot.alive ? heft_joint_gap(jg->w, id) : 0.0;
    }
}

/* Each island's largest joint gap (m) into widest[0 .. is->count), from the
 * joints' gaps measured as tasks into gaps. */
static void island_widest_gaps(heft_world *w, const island_set *is, double *gaps, double *widest) {
    joint_gaps jg = {w, gaps, NULL};
    world_tasks_run(w, joint_gaps_task, w->joint_high, JOINT_TASK_MIN_RANGE, &jg);
    for (int k = 0; k < is->count; ++k) {
        widest[k] = 0.0;
    }
    for (int i = 0; i < w->joint_high; ++i) {
        const int k = joint_island(w, i);
        if (k >= 0 && k < is->count) {
            widest[k] = fmax(widest[k], gaps[i]);
        }
    }
}

/* An iterative solver's projection is as far as its sweeps got, and on a
 * chain of light links under a heavy load, with gaps already of metres, an
 * answer far from converged moved one link by 9 m (a joint gap of 1.5 m
 * became 14 m, and the link went through the ground, whose contacts take
 * no part under an iterative solver). An island whose largest joint gap the
 * projections widened is put back where it was: they did not do what they
 * are for. Returns the islands put back. A direct solver's converged
 * projection is kept as it is. */
static int undo_widening(heft_world *w, const island_set *is, const post_pass *pp,
                         const double *before, double *gaps, double *after) {
    island_widest_gaps(w, is, gaps, after);
    int undone = 0;
    for (int k = 0; k < is->count; ++k) {
        if (!(after[k] > before[k])) {
            continue;
        }
        put_back(w, is, k, &pp->positions[is->body_start[k]], &pp->orientations[is->body_start[k]]);
        ++undone;
    }
    return undone;
}

/* The widest joint gap, m (0 without pp->gaps): with measured, the joints
 * on an island were measured in their island's item, and only the others
 * (asleep, or between bodies that do not move) are measured here; else
 * every joint is. */
static double widest_gap(heft_world *w, post_pass *pp, int measured) {
    double *gaps = pp->gaps;
    if (!gaps) {
        return 0.0;
    }
    joint_gaps jg = {w, gaps, NULL};
    if (measured) {
        int *rest = arena_alloc(&w->scratch, sizeof(int) * (size_t)(w->joint_high + 1));
        int nrest = 0;
        for (int i = 0; i < w->joint_high; ++i) {
            if (!w->joints[i].slot.alive) {
                gaps[i] = 0.0;
            } else if (pp->joint_island[i] < 0) {
                if (rest) {
                    rest[nrest++] = i;
                } else {
                    const heft_joint_id id = {i, w->joints[i].slot.generation};
                    gaps[i] = heft_joint_gap(w, id);
                }
            }
        }
        jg.only = rest;
        world_tasks_run(w, joint_gaps_task, nrest, JOINT_TASK_MIN_RANGE, &jg);
    } else {
        world_tasks_run(w, joint_gaps_task, w->joint_high, JOINT_TASK_MIN_RANGE, &jg);
    }
    double gap = 0.0;
    for (int i = 0; i < w->joint_high; ++i) {
        gap = fmax(gap, gaps[i]);
    }
    return gap;
}

/* ---- a direct solver's projections in the islands' own items ------------ */

/* Island k's rows at the current poses into out (room for pp->room[k]), as
 * the gathering and grouping above would place them: its joints' rows that
 * take part in joint order, then its contacts' normal rows in contact
 * order. Returns their count. */
static int gather_island(const post_pass *pp, int k, int first, row *out) {
    const gather_pass *g = &pp->g;
    int at = 0;
    for (int x = pp->joint_start[k]; x < pp->joint_start[k + 1]; ++x) {
        const int i = pp->joints[x];
        const joint *j = &g->w->joints[i];
        row *room = &out[at];
        memset(room, 0, sizeof(row) * (size_t)joint_row_count(j));
        const int count = joint_fill_rows(j, g->w->bodies, &g->ctx, room);
        int kept = 0;
        for (int r = 0; r < count; ++r) {
            row y = room[r];
            if (takes_part(&y, g->w->def.rigid_compliance)) {
                y.a = j->body_a;
                y.b = j->body_b;
                room[kept++] = y;
            }
        }
        at += kept;
    }
    for (int x = pp->contact_start[k]; x < pp->contact_start[k + 1]; ++x) {
        out[at++] = contact_normal_row(g->w, &g->cp, first, pp->contacts[x]);
    }
    return at;
}

/* Island k's projections from projection `from` on, then its energy guard
 * and its joints' gaps. Returns the projection at which it stopped because
 * its solver state is still to be made (on the stepping thread), or -1. */
static int project_from(post_pass *pp, arena *a, int k, int from) {
    heft_world *w = pp->w;
    for (int it = from; it < w->def.post_stabilization && pp->room[k] > 0; ++it) {
        row *rows = arena_alloc(a, sizeof(row) * (size_t)pp->room[k]);
        if (!rows) {
            break; /* out of scratch memory: no more projections */
        }
        const int n = gather_island(pp, k, it == 0, rows);
        if (n == 0) {
            continue;
        }
        island_slot *slot = island_slots_find(&w->position_slots, pp->is->key[k]);
        if (!slot) {
            return it;
        }
        slot->used = 1;
        island_slot_match(w, slot, projection_signature(w, rows, n));
        (void)project_island(w, a, pp->is, k, rows, n, slot->state);
    }
    energy_after(pp, k);
    if (pp->gaps) {
        island_joint_gaps(pp, k);
    }
    return -1;
}

int post_stabilize_plan(heft_world *w, const island_set *is, double h, post_pass *pp) {
    if (!w->solver->direct) {
        return 0; /* an island's projection may be undone by the widest gaps of all */
    }
    const int nj = w->joint_high, nc = w->contacts.count, ni = is->count;
    int *island = arena_alloc(&w->scratch, sizeof(int) * (size_t)(nj + nc + 1));
    pp->joint_start = arena_calloc(&w->scratch, (size_t)ni + 2, sizeof(int));
    pp->contact_start = arena_calloc(&w->scratch, (size_t)ni + 2, sizeof(int));
    pp->room = arena_calloc(&w->scratch, (size_t)ni + 1, sizeof(int));
    pp->stopped = arena_alloc(&w->scratch, sizeof(int) * (size_t)(ni + 1));
    pp->joints = arena_alloc(&w->scratch, sizeof(int) * (size_t)(nj + 1));
    pp->contacts = arena_alloc(&w->scratch, sizeof(int) * (size_t)(nc + 1));
    pp->gaps = arena_alloc(&w->scratch, sizeof(double) * (size_t)(nj + 1));
    int *fill = arena_calloc(&w->scratch, (size_t)ni + 1, sizeof(int));
    if (!island || !pp->joint_start || !pp->contact_start || !pp->room || !pp->stopped ||
        !pp->joints || !pp->contacts || !pp->gaps || !fill) {
        return 0;
    }
    for (int i = 0; i < nj; ++i) {
        island[i] = joint_island(w, i);
        if (island[i] >= 0) {
            pp->joint_start[island[i] + 1]++;
            pp->room[island[i]] += joint_row_count(&w->joints[i]);
        }
    }
    for (int c = 0; c < nc; ++c) {
        const contact *ct = &w->contacts.items[c];
        const body *a = &w->bodies[ct->body_a], *b = &w->bodies[ct->body_b];
        const int k = body_is_dynamic(b) ? b->island : (body_is_dynamic(a) ? a->island : -1);
        island[nj + c] = k;
        if (k >= 0) {
            pp->contact_start[k + 1]++;
            pp->room[k]++;
        }
    }
    for (int k = 0; k < ni; ++k) {
        pp->joint_start[k + 1] += pp->joint_start[k];
        pp->contact_start[k + 1] += pp->contact_start[k];
        pp->stopped[k] = -1;
    }
    for (int i = 0; i < nj; ++i) {
        if (island[i] >= 0) {
            pp->joints[pp->joint_start[island[i]] + fill[island[i]]++] = i;
        }
    }
    memset(fill, 0, sizeof(int) * (size_t)(ni + 1));
    for (int c = 0; c < nc; ++c) {
        const int k = island[nj + c];
        if (k >= 0) {
            pp->contacts[pp->contact_start[k] + fill[k]++] = c;
        }
    }
    memset(&pp->g, 0, sizeof pp->g);
    pp->g.w = w;
    pp->g.ctx = (row_context){1.0, w->def.rigid_compliance, 1.0};
    pp->g.cp = (contact_params){h,   w->def.rigid_compliance + w->def.contact_compliance / (h * h),
                                0.0, w->def.contact_slop,
                                0.0, INFINITY};
    /* geometric stiffness acts only through a direct solver's impulses
     * (geometric_stiffness_skipped) */
    pp->guard = !w->def.geometric_stiffness;
    pp->joint_island = island;
    pp->fused = 1;
    return 1;
}

void post_stabilize_island(post_pass *pp, arena *a, int k) {
    pp->stopped[k] = project_from(pp, a, k, 0);
}

typedef struct resume_pass {
    post_pass *pp;
    const int *islands;
} resume_pass;

static void resume_task(int begin, int end, int worker, void *context) {
    const resume_pass *rp = context;
    arena *a = island_worker_arena(rp->pp->w, worker);
    for (int x = begin; x < end; ++x) {
        const int k = rp->islands[x];
        rp->pp->stopped[k] = project_from(rp->pp, a, k, rp->pp->stopped[k]);
    }
}

/* After the islands' items: the solver states they lacked made, and those
 * islands' projections finished as a task. */
static void finish_stopped(heft_world *w, const island_set *is, post_pass *pp) {
    int *islands = arena_alloc(&w->scratch, sizeof(int) * (size_t)(is->count + 1));
    int count = 0;
    for (int k = 0; k < is->count; ++k) {
        if (pp->stopped[k] < 0) {
            continue;
        }
        if (!islands || !island_slots_claim(w, &w->position_slots, is->key[k])) {
            /* out of memory: the island keeps the poses it had, unguarded */
            energy_after(pp, k);
            if (pp->gaps) {
                island_joint_gaps(pp, k);
            }
            continue;
        }
        islands[count++] = k;
    }
    resume_pass rp = {pp, islands};
    island_tasks_run(w, resume_task, count, &rp);
}

/* Each island's passes (its poses and energies, its projections, the
 * energy's guard, its joints' gaps) touch only its own bodies and run as
 * tasks; the solver states are made and the sums taken on this thread, in
 * island order. */
void post_stabilize(heft_world *w, const island_set *is, double h, heft_step_stats *st,
                    post_pass *pp, int saved) {
    if (!pp) {
        return; /* out of scratch memory: no projection, nothing gained */
    }
    if (pp->fused) {
        finish_stopped(w, is, pp);
        island_slots_keep_sleeping(w, &w->position_slots);
        island_slots_sweep(w, &w->position_slots);
        for (int k = 0; k < is->count; ++k) {
            st->post_stabilization_limited += pp->limited[k];
            st->post_stabilization_energy += pp->gain[k];
        }
        st->post_stabilization_gap = widest_gap(w, pp, 1);
        return;
    }
    if (!saved) {
        world_tasks_run(w, energy_before_task, is->count, ISLAND_TASK_MIN_RANGE, pp);
    }
    /* an iterative solver's projections must not widen an island's gaps */
    double *gaps = arena_alloc(&w->scratch, sizeof(double) * (size_t)(w->joint_high + 1));
    double *widest_before = NULL, *widest_after = NULL;
    if (!w->solver->direct && gaps) {
        widest_before = arena_alloc(&w->scratch, sizeof(double) * (size_t)(is->count + 1));
        widest_after = arena_alloc(&w->scratch, sizeof(double) * (size_t)(is->count + 1));
        if (widest_before && widest_after) {
            island_widest_gaps(w, is, gaps, widest_before);
        } else {
            widest_before = NULL;
        }
    }
    /* geometric stiffness acts only through a direct solver's impulses
     * (geometric_stiffness_skipped) */
    pp->guard = !w->def.geometric_stiffness || !w->solver->direct;
    pp->gaps = gaps;
    int guarded = 0; /* the energy guard and the gaps ran in the last projection */
    for (int it = 0; it < w->def.post_stabilization; ++it) {
        if (!gather_rows(w, is, h, it == 0, &pp->g)) {
            break;
        }
        /* making a state allocates and reorders the slots: all of them
         * made here first, then each island's slot looked up */
        int claimed = 1;
        for (int k = 0; k < is->count && claimed; ++k) {
            if (pp->g.start[k + 1] > pp->g.start[k]) {
                claimed = island_slots_claim(w, &w->position_slots, is->key[k]) != NULL;
            }
        }
        for (int k = 0; k < is->count; ++k) {
            pp->slots[k] = claimed && pp->g.start[k + 1] > pp->g.start[k]
                               ? island_slots_find(&w->position_slots, is->key[k])
                               : NULL;
        }
        /* an iterative solver's islands are put back, when their gaps
         * widened, before the guard */
        pp->last = it + 1 == w->def.post_stabilization && !widest_before;
        island_tasks_run(w, project_task, is->count, pp);
        guarded = pp->last;
    }
    island_slots_keep_sleeping(w, &w->position_slots);
    island_slots_sweep(w, &w->position_slots);
    if (widest_before) {
        st->post_stabilization_limited +=
            undo_widening(w, is, pp, widest_before, gaps, widest_after);
    }
    if (!guarded) {
        world_tasks_run(w, energy_after_task, is->count, ISLAND_TASK_MIN_RANGE, pp);
    }
    for (int k = 0; k < is->count; ++k) {
        st->post_stabilization_limited += pp->limited[k];
        st->post_stabilization_energy += pp->gain[k];
    }
    pp->joint_island = pp->g.island; /* the joints' first */
    const double gap = widest_gap(w, pp, guarded);
    st->post_stabilization_gap = gap;
}
