/* Heft: the "cr" solver, conjugate residual on the KKT system with
 * constraints switched during the iterations and friction on a cone
 * (docs/architecture.md "The solvers"; [Verschoor 2019] §3, Algorithms 1-3, preconditioner
 * §3.4).
 *
 * The unknowns are the velocity changes v (6 per body) and the impulses
 * lambda; with J and M from the structured form (A = J M^-1 J^T + E is never
 * formed) the active rows A obey
 *     M v - J_A^T lambda_A = J_I^T lambda_I        (v = M^-1 J^T lambda)
 *    -J_A v - E_A lambda_A = -b_A                  (w_A = J_A v + E_A lambda_A - b_A = 0)
 * a symmetric indefinite system B y = d ([Verschoor 2019] eq. 11). Inactive rows I hold a
 * fixed impulse: a bound (a separating contact, a limit at its stop) or the
 * kinetic friction estimate gamma' of their contact, and enter d only.
 *
 * Algorithm 1 (lines 7-32): preconditioned conjugate residual on B y = d.
 * After a step with alpha > 0 the constraints are evaluated (line 13) at the
 * interval of Algorithm 2 line 2, max(1, floor(log2(||r|| / eps1) / 3)),
 * every step once close; a change recomputes the residual and restarts the
 * search direction (lines 19-21). At convergence (line 22: ||r|| <= eps1 and
 * the largest active-row residual below eps2; or, when ||r|| <= 1e-5 ||b||
 * has not halved in 40 iterations, every active row within the MLCP's own
 * energy tolerance: energy_converged)
 * a last evaluation is forced (line 23); none changing, the solve ends.
 *
 * Algorithm 2, per row (rows without a friction coupling):
 *   active with lambda <= lo and w >= 0 (or at hi with w <= 0): inactive at
 *   that bound (line 6-7); inactive with w < 0 at lo (w > 0 at hi): active
 *   (line 8-9). "w >= 0" is read with the energy tolerance of bpp,
 *   |w| <= sqrt(2 tau A_ii).
 * Per contact (a normal row and the one or two friction rows with its
 * findex), friction gamma = (lambda_t1, lambda_t2) on the cone
 * ||gamma|| <= mu lambda_n, not the box:
 *   normal inactive: friction off (gamma = 0);
 *   static (friction rows active, w_t = 0): ||gamma|| > mu lambda_n with gamma
 *   pushing the sliding velocity its own way (w_t . gamma >= 0, eq. 16):
 *   kinetic with delta = gamma / ||gamma|| and lambda' = ||gamma|| / mu
 *   (lines 11-14);
 *   kinetic (friction rows inactive at gamma' = mu lambda' delta): sliding no
 *   longer against delta (w_t . delta >= 0, eq. 18): static from gamma'
 *   (lines 15-17); otherwise Algorithm 3: lambda' = the moving average of
 *   the last two lambda_n (n = 2, lines 3-5), and delta turned toward
 *   -w_t / ||w_t|| by alpha_theta when they differ by more than
 *   eps_theta = 1.2 degrees (lines 6-9). Changes of gamma' smaller than eps2
 *   are not reported (Alg. 2 lines 19-22).
 * A contact's rolling rows (kind HEFT_ROW_ROLLING, findex its normal row)
 * are not part of the cone: each is a box [-r lambda_n, r lambda_n], off
 * while its normal row is not active, switched as the rows with fixed bounds
 * are, and at a bound it follows lambda_n (switch_rolling).
 *   Algorithm 3 runs only in the evaluations at convergence (line 23), not
 *   in those between CR steps (line 13): every change of gamma' moves d and
 *   restarts the Krylov space, and on a box resting on four contact points
 *   (a singular J) updating it at every step kept cr restarting (3,000
 *   restarts in 5,000 iterations, then divergence).
 *
 * Deviations and additions, each for a measured reason (a box on
 * four contact points, J singular up to E = 1e-10; before them cr hit its
 * 5,000-iteration cap on every step of a box sliding on flat ground or down
 * a 40-degree slope, and the engine took PGS's answer instead):
 * - alpha_theta = 0.3, not 0.01: the direction taken at the static-kinetic
 *   switch (the static gamma's) is often 10-30 degrees off the sliding, and
 *   turning 1% a time cost one restart each (a box sliding on flat ground,
 *   100 steps: 62,000 CR iterations at 0.01, 6,000 at 0.3);
 * - a contact activated in an evaluation at convergence starts kinetic
 *   against its sliding with lambda' = 0 when it slides (line 9 as written;
 *   between CR steps it starts static: the iterate's sliding is not an
 *   answer yet). Started static, the corner of a sliding box took the static
 *   friction that stops it, pulled, was deactivated, penetrated, and so on;
 * - the cycle guard of evaluate_constraints (Murty's least-index rule for
 *   rows that keep switching);
 * - the energy test of energy_converged.
 *
 * Preconditioner (§3.4, "Diag"): C^-1 = diag(A_d^-1, S_d^-1) with A_d the
 * diagonal of M and S_d,i = Z_i (J_i A_d^-1 J_i^T + E_i), Z_i the number of
 * rows between the same two bodies (§3.4.1, the rigid-body scaling);
 * positive, so the preconditioned residual of a fixed active set falls
 * monotonically (§3.4).
 *
 * The answer is on the friction cone: measured against the box MLCP (whose
 * friction rows saturate one by one) a sliding contact shows an error; on
 * problems without friction it is the MLCP's answer. Needs the structured
 * form (bodies and rows); a problem with only the dense A is refused
 * (HEFT_SOLVE_FAILED). */
#include <math.h>
#include <string.h>

#include "row_math.h"
#include "workspace.h"
#include "solve_frame.h"
#include "state_bytes.h"

#define CR_ALPHA_THETA 0.3             /* Alg. 3 line 8: 0.01 in the paper; see the header */
#define CR_COS_EPS_THETA 0.99978068718 /* cos(1.2 degrees), Alg. 3 line 6 */
#define CR_TOLERANCE_FLOOR 1e-20
#define CR_ENERGY_TEST_BELOW 1e-5 /* relative ||r|| under which energy_converged is tried, */
#define CR_STALL_ITERATIONS 40    /* after so many iterations without halving ||r|| */
#define CR_FLIP_LIMIT 3           /* switches of one row before it is held (evaluate_constraints) */

enum { CR_ACTIVE = 0, CR_AT_LO = 1, CR_AT_HI = 2, CR_KINETIC = 3, CR_OFF = 4 };
enum { CR_STATIC = 0, CR_SLIDING = 1 };

typedef struct cr_state {
    heft_solver_options options;
    int kept_n;
    double *kept_lambda;
    /* per body */
    double *mass;         /* 6 per body: m, m, m and the inertia (xx xy xz yy yz zz) */
    unsigned char *fixed; /* 6 per body: a direction with infinite mass */
    /* per row */
    uint8_t *state;
    double *fixed_value, *adiag, *wtol, *w, *sdiag;
    int *friction1, *friction2;     /* per normal row: its friction rows, -1 */
    uint8_t *mode;                  /* per normal row: CR_STATIC, CR_SLIDING */
    int *flips;                     /* per row: switches between active and a bound this solve */
    double *delta;                  /* 2 per normal row */
    double *lambda_prime, *history; /* per normal row; 2 per normal row */
    /* the Krylov vectors, 6 nb + n */
    double *y, *r, *z, *pv, *Bp, *Bz, *d, *cinv, *tmp;
    double *vt; /* 6 nb: M^-1 J^T lambda (energy_converged) */
    size_t kept_lambda_cap, mass_cap, fixed_cap, state_cap, fixed_value_cap, adiag_cap, wtol_cap,
        w_cap, sdiag_cap, friction1_cap, friction2_cap, mode_cap, delta_cap, lambda_prime_cap,
        history_cap, flips_cap, y_cap, r_cap, z_cap, pv_cap, Bp_cap, Bz_cap, d_cap, cinv_cap,
        tmp_cap, vt_cap;
} cr_state;

static void *cr_create(const heft_solver_options *options) {
    cr_state *s = heft_alloc(sizeof *s);
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof *s);
    s->options = options != NULL ? *options : heft_solver_default_options();
    s->kept_n = -1;
    return s;
}

static void cr_reset(void *state) {
    cr_state *s = state;
    if (s != NULL)
        s->kept_n = -1;
}

static void cr_destroy(void *state) {
    cr_state *s = state;
    if (s == NULL)
        return;
    void *arrays[] = {s->kept_lambda, s->mass,
                      s->fixed,       s->state,
                      s->fixed_value, s->adiag,
                      s->wtol,        s->w,
                      s->sdiag,       s->friction1,
                      s->friction2,   s->mode,
                      s->delta,       s->lambda_prime,
                      s->history,     s->flips,
                      s->y,           s->r,
                      s->z,           s->pv,
                      s->Bp,          s->Bz,
                      s->d,           s->cinv,
                      s->tmp,         s->vt};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
    heft_free(s);
}

static int reserve(cr_state *s, int n, int nb) {
    const size_t un = (size_t)n, ub = (size_t)nb, N = 6 * ub + un;
    return HEFT_RESERVE(s->kept_lambda, s->kept_lambda_cap, un) &&
           HEFT_RESERVE(s->mass, s->mass_cap, 9 * ub) &&
           HEFT_RESERVE(s->fixed, s->fixed_cap, 6 * ub) &&
           HEFT_RESERVE(s->state, s->state_cap, un) &&
           HEFT_RESERVE(s->fixed_value, s->fixed_value_cap, un) &&
           HEFT_RESERVE(s->adiag, s->adiag_cap, un) && HEFT_RESERVE(s->wtol, s->wtol_cap, un) &&
           HEFT_RESERVE(s->w, s->w_cap, un) && HEFT_RESERVE(s->sdiag, s->sdiag_cap, un) &&
           HEFT_RESERVE(s->friction1, s->friction1_cap, un) &&
           HEFT_RESERVE(s->friction2, s->friction2_cap, un) &&
           HEFT_RESERVE(s->mode, s->mode_cap, un) && HEFT_RESERVE(s->delta, s->delta_cap, 2 * un) &&
           HEFT_RESERVE(s->lambda_prime, s->lambda_prime_cap, un) &&
           HEFT_RESERVE(s->history, s->history_cap, 2 * un) &&
           HEFT_RESERVE(s->flips, s->flips_cap, un) && HEFT_RESERVE(s->y, s->y_cap, N) &&
           HEFT_RESERVE(s->r, s->r_cap, N) && HEFT_RESERVE(s->z, s->z_cap, N) &&
           HEFT_RESERVE(s->pv, s->pv_cap, N) && HEFT_RESERVE(s->Bp, s->Bp_cap, N) &&
           HEFT_RESERVE(s->Bz, s->Bz_cap, N) && HEFT_RESERVE(s->d, s->d_cap, N) &&
           HEFT_RESERVE(s->cinv, s->cinv_cap, N) && HEFT_RESERVE(s->tmp, s->tmp_cap, N) &&
           HEFT_RESERVE(s->vt, s->vt_cap, 6 * ub);
}

/* ---- the structured form: M, J and their products ---------------------------------- */

static int body_ok(const heft_mlcp *p, int b) {
    return b >= 0 && b < p->nbodies;
}

/* M of each body: the mass and the inverse of the 3 x 3 inverse inertia; a
 * zero inverse mass (or a singular inverse inertia) fixes those directions. */
static void prepare_masses(const heft_mlcp *p, cr_state *s) {
    for (int b = 0; b < p->nbodies; ++b) {
        const heft_mlcp_body *body = &p->bodies[b];
        double *m = &s->mass[9 * (size_t)b];
        unsigned char *fx = &s->fixed[6 * (size_t)b];
        const int lin_fixed = !(body->inv_mass > 0.0);
        for (int k = 0; k < 3; ++k) {
            m[k] = lin_fixed ? 0.0 : 1.0 / body->inv_mass;
            fx[k] = (unsigned char)lin_fixed;
        }
        const double *I = body->inv_inertia; /* xx xy xz yy yz zz */
        const double a = I[0], bxy = I[1], c = I[2], dd = I[3], e = I[4], f = I[5];
        const double c00 = dd * f - e * e, c01 = c * e - bxy * f, c02 = bxy * e - c * dd;
        const double c11 = a * f - c * c, c12 = bxy * c - a * e, c22 = a * dd - bxy * bxy;
        const double det = a * c00 + bxy * c01 + c * c02;
        const double scale = fabs(a) + fabs(dd) + fabs(f);
        const int rot_fixed = !(det > 1e-12 * scale * scale * scale) || !(scale > 0.0);
        m[3] = rot_fixed ? 0.0 : c00 / det;
        m[4] = rot_fixed ? 0.0 : c01 / det;
        m[5] = rot_fixed ? 0.0 : c02 / det;
        m[6] = rot_fixed ? 0.0 : c11 / det;
        m[7] = rot_fixed ? 0.0 : c12 / det;
        m[8] = rot_fixed ? 0.0 : c22 / det;
        for (int k = 3; k < 6; ++k)
            fx[k] = (unsigned char)rot_fixed;
    }
}

/* out_v = M v for every body (fixed directions: 0) */
static void mass_multiply(const heft_mlcp *p, const cr_state *s, const double *v, double *out) {
    for (int b = 0; b < p->nbodies; ++b) {
        const double *m = &s->mass[9 * (size_t)b], *x = &v[6 * (size_t)b];
        double *o = &out[6 * (size_t)b];
        o[0] = m[0] * x[0];
        o[1] = m[1] * x[1];
        o[2] = m[2] * x[2];
        o[3] = m[3] * x[3] + m[4] * x[4] + m[5] * x[5];
        o[4] = m[4] * x[3] + m[6] * x[4] + m[7] * x[5];
        o[5] = m[5] * x[3] + m[7] * x[4] + m[8] * x[5];
        const unsigned char *fx = &s->fixed[6 * (size_t)b];
        for (int k = 0; k < 6; ++k)
            if (fx[k])
                o[k] = 0.0;
    }
}

static double row_dot_v(const heft_mlcp *p, const cr_state *s, int i, const double *v) {
    const heft_mlcp_row *r = &p->rows[i];
    double sum = 0.0;
    if (body_ok(p, r->a))
        for (int k = 0; k < 6; ++k)
            if (!s->fixed[6 * (size_t)r->a + k])
                sum += r->ja[k] * v[6 * (size_t)r->a + k];
    if (body_ok(p, r->b))
        for (int k = 0; k < 6; ++k)
            if (!s->fixed[6 * (size_t)r->b + k])
                sum += r->jb[k] * v[6 * (size_t)r->b + k];
    return sum;
}

static void row_add_transpose(const heft_mlcp *p, const cr_state *s, int i, double c, double *v) {
    const heft_mlcp_row *r = &p->rows[i];
    if (body_ok(p, r->a))
        for (int k = 0; k < 6; ++k)
            if (!s->fixed[6 * (size_t)r->a + k])
                v[6 * (size_t)r->a + k] += c * r->ja[k];
    if (body_ok(p, r->b))
        for (int k = 0; k < 6; ++k)
            if (!s->fixed[6 * (size_t)r->b + k])
                v[6 * (size_t)r->b + k] += c * r->jb[k];
}

static double eps_of(const heft_mlcp *p, int i) {
    return p->epsilon != NULL ? p->epsilon[i] : 0.0;
}

/* out = B x over the active rows ([Verschoor 2019] eq. 11); inactive rows give 0 */
static void kkt_multiply(const heft_mlcp *p, const cr_state *s, const double *x, double *out) {
    const int n = p->n;
    const size_t nv = 6 * (size_t)p->nbodies;
    mass_multiply(p, s, x, out);
    for (int i = 0; i < n; ++i) {
        if (s->state[i] != CR_ACTIVE) {
            out[nv + i] = 0.0;
            continue;
        }
        row_add_transpose(p, s, i, -x[nv + i], out);
        out[nv + i] = -row_dot_v(p, s, i, x) - eps_of(p, i) * x[nv + i];
    }
}

/* d = (J_I^T lambda_I, -b_A) and r = d - B y (Alg. 1 lines 7 and 19) */
static void residual(const heft_mlcp *p, cr_state *s) {
    const int n = p->n;
    const size_t nv = 6 * (size_t)p->nbodies, N = nv + (size_t)n;
    for (size_t k = 0; k < nv; ++k)
        s->d[k] = 0.0;
    for (int i = 0; i < n; ++i) {
        if (s->state[i] == CR_ACTIVE) {
            s->d[nv + i] = -p->b[i];
        } else {
            s->d[nv + i] = 0.0;
            s->y[nv + i] = s->fixed_value[i];
            if (s->fixed_value[i] != 0.0)
                row_add_transpose(p, s, i, s->fixed_value[i], s->d);
        }
    }
    kkt_multiply(p, s, s->y, s->tmp);
    for (size_t k = 0; k < N; ++k)
        s->r[k] = s->d[k] - s->tmp[k];
}

/* ---- Algorithm 2 and 3 -------------------------------------------------------------- */

static int friction_of(const heft_mlcp *p, int i) {
    return p->findex != NULL && p->findex[i] >= 0 && p->findex[i] < p->n;
}

/* A contact's rolling row: boxed by its normal through findex, but not part
 * of the friction cone; it switches between active and its box's bounds as
 * the rows with fixed bounds do (switch_rolling). */
static int rolling_of(const heft_mlcp *p, int i) {
    return friction_of(p, i) && p->kind != NULL && p->kind[i] == HEFT_ROW_ROLLING;
}

/* A friction row of the cone: every row with a findex but a rolling one. */
static int cone_of(const heft_mlcp *p, int i) {
    return friction_of(p, i) && !rolling_of(p, i);
}

static void set_friction(cr_state *s, int f, int state, double g1, double g2) {
    const int t1 = s->friction1[f], t2 = s->friction2[f];
    if (t1 >= 0) {
        s->state[t1] = (uint8_t)state;
        s->fixed_value[t1] = g1;
    }
    if (t2 >= 0) {
        s->state[t2] = (uint8_t)state;
        s->fixed_value[t2] = g2;
    }
}

/* w_i = J_i v + E_i lambda_i - b_i of every row */
static void row_velocities(const heft_mlcp *p, cr_state *s) {
    const size_t nv = 6 * (size_t)p->nbodies;
    for (int i = 0; i < p->n; ++i)
        s->w[i] = row_dot_v(p, s, i, s->y) + eps_of(p, i) * s->y[nv + i] - p->b[i];
}

/* Alg. 2 lines 4-9 for row i with fixed bounds (normals, limits, motors,
 * joints): switches it between active and a bound when its lambda and w say
 * so; returns 1 when it switched. A contact's friction follows its normal:
 * off when the normal leaves; when it comes back (line 9) kinetic against
 * its sliding with no friction yet (lambda' = 0, Alg. 3 raises it from
 * lambda_n) if it slides, static if not. The sliding is trusted only in the
 * evaluations at convergence (sliding): between CR steps the iterate's
 * tangential velocities are not yet an answer and the contact starts static. */
static int switch_row(const heft_mlcp *p, cr_state *s, int i, int sliding) {
    const double *lambda = s->y + 6 * (size_t)p->nbodies;
    const double lo = p->lo[i], hi = p->hi[i], wi = s->w[i], tol = s->wtol[i];
    const uint8_t before = s->state[i];
    if (before == CR_ACTIVE) {
        if (isfinite(lo) && lambda[i] <= lo && wi >= -tol)
            s->state[i] = CR_AT_LO, s->fixed_value[i] = lo;
        else if (isfinite(hi) && lambda[i] >= hi && wi <= tol)
            s->state[i] = CR_AT_HI, s->fixed_value[i] = hi;
    } else if ((before == CR_AT_LO && wi < -tol) || (before == CR_AT_HI && wi > tol)) {
        s->state[i] = CR_ACTIVE;
    }
    if (s->state[i] == before)
        return 0;
    ++s->flips[i];
    if (s->friction1[i] < 0)
        return 1;
    if (s->state[i] != CR_ACTIVE) {
        set_friction(s, i, CR_OFF, 0.0, 0.0);
        return 1;
    }
    const int t1 = s->friction1[i], t2 = s->friction2[i];
    const double w1 = s->w[t1], w2 = t2 >= 0 ? s->w[t2] : 0.0;
    const double speed = sqrt(w1 * w1 + w2 * w2);
    if (sliding && speed > s->wtol[t1]) {
        s->mode[i] = CR_SLIDING;
        s->delta[2 * i] = -w1 / speed;
        s->delta[2 * i + 1] = -w2 / speed;
        s->lambda_prime[i] = 0.0;
        s->history[2 * i] = s->history[2 * i + 1] = 0.0;
        set_friction(s, i, CR_KINETIC, 0.0, 0.0);
    } else {
        s->mode[i] = CR_STATIC;
        set_friction(s, i, CR_ACTIVE, 0.0, 0.0);
    }
    return 1;
}

/* A rolling row i: off (0) while its normal row is not active; else active
 * within its box [-r lambda_n, r lambda_n], or at a bound while w pushes
 * against it, its value following lambda_n by changes above eps2. Returns 1
 * when it changed. */
static int switch_rolling(const heft_mlcp *p, cr_state *s, int i, double eps2) {
    const double *lambda = s->y + 6 * (size_t)p->nbodies;
    const uint8_t before = s->state[i];
    if (s->state[p->findex[i]] != CR_ACTIVE) {
        if (before == CR_OFF)
            return 0;
        s->state[i] = CR_OFF, s->fixed_value[i] = 0.0;
        ++s->flips[i];
        return 1;
    }
    double lo, hi;
    heft_mlcp_bounds(p, lambda, i, &lo, &hi);
    const double wi = s->w[i], tol = s->wtol[i];
    if (before == CR_OFF || (before == CR_AT_LO && wi < -tol) || (before == CR_AT_HI && wi > tol)) {
        s->state[i] = CR_ACTIVE;
    } else if (before == CR_ACTIVE) {
        if (lambda[i] <= lo && wi >= -tol)
            s->state[i] = CR_AT_LO, s->fixed_value[i] = lo;
        else if (lambda[i] >= hi && wi <= tol)
            s->state[i] = CR_AT_HI, s->fixed_value[i] = hi;
    } else {
        /* at a bound that moved with lambda_n */
        const double bound = before == CR_AT_LO ? lo : hi;
        if (fabs(bound - s->fixed_value[i]) <= eps2)
            return 0;
        s->fixed_value[i] = bound;
        return 1;
    }
    if (s->state[i] == before)
        return 0;
    ++s->flips[i];
    return 1;
}

/* Alg. 2 (with Alg. 3 for sliding contacts); returns the number of changes
 * reported to the solver. eps2: the impulse change worth reporting;
 * at_convergence: the evaluation of line 23 (Alg. 3 runs only there).
 *
 * The cycle guard: a row with fixed bounds that has switched CR_FLIP_LIMIT
 * times in this solve is held. It may switch again only in an evaluation at
 * convergence in which nothing else changed, and alone, the first such row
 * in index order (Murty's least-index rule, which ends for a fixed friction:
 * the active set's Schur complement is positive definite with E > 0). On
 * redundant contacts (four corners of a box on three degrees of freedom)
 * the simultaneous switches of Alg. 2 cycle: two corners on a diagonal
 * deactivated together, both penetrating, activated together, both pulling
 * (the null space of J shared between them), forever. */
static int evaluate_constraints(const heft_mlcp *p, cr_state *s, double eps2, int at_convergence) {
    const int n = p->n;
    const size_t nv = 6 * (size_t)p->nbodies;
    double *lambda = s->y + nv;
    int changes = 0, held = 0;
    row_velocities(p, s);
    /* lines 4-9: rows with fixed bounds (and rolling rows, after their
     * normal rows) */
    for (int i = 0; i < n; ++i) {
        if (cone_of(p, i))
            continue;
        if (s->flips[i] >= CR_FLIP_LIMIT) {
            held = 1;
            continue;
        }
        changes +=
            rolling_of(p, i) ? switch_rolling(p, s, i, eps2) : switch_row(p, s, i, at_convergence);
    }
    /* lines 10-18: the friction of the active contacts */
    for (int f = 0; f < n; ++f) {
        const int t1 = s->friction1[f], t2 = s->friction2[f];
        if (t1 < 0 || s->state[f] != CR_ACTIVE)
            continue;
        const double mu = fabs(p->hi[t1]);
        const double lambda_n = lambda[f] > 0.0 ? lambda[f] : 0.0;
        const double w1 = s->w[t1], w2 = t2 >= 0 ? s->w[t2] : 0.0;
        const double tol = s->wtol[t1];
        if (s->mode[f] == CR_STATIC) {
            const double g1 = lambda[t1], g2 = t2 >= 0 ? lambda[t2] : 0.0;
            const double g = sqrt(g1 * g1 + g2 * g2);
            if (g > mu * lambda_n * (1.0 + 1e-12) + 1e-300 && w1 * g1 + w2 * g2 >= -tol * g) {
                /* lines 12-14 */
                s->mode[f] = CR_SLIDING;
                s->delta[2 * f] = g1 / g;
                s->delta[2 * f + 1] = g2 / g;
                s->lambda_prime[f] = mu > 0.0 ? g / mu : 0.0;
                s->history[2 * f] = s->history[2 * f + 1] = lambda_n;
                set_friction(s, f, CR_KINETIC, g1, g2);
                ++changes;
            }
            continue;
        }
        const double *dl = &s->delta[2 * f];
        const double along = w1 * dl[0] + w2 * dl[1];
        if (along > tol) { /* lines 15-17, eq. 18: static from gamma' (the sliding reversed;
                              just after the switch it is still ~0, not yet reversed) */
            s->mode[f] = CR_STATIC;
            set_friction(s, f, CR_ACTIVE, s->fixed_value[t1], t2 >= 0 ? s->fixed_value[t2] : 0.0);
            ++changes;
            continue;
        }
        if (!at_convergence)
            continue;
        /* Algorithm 3 */
        double lp = s->lambda_prime[f];
        if (fabs(mu * lp - mu * lambda_n) > 0.0) { /* lines 3-5: moving average of 2 */
            s->history[2 * f] = s->history[2 * f + 1];
            s->history[2 * f + 1] = lambda_n;
            lp = 0.5 * (s->history[2 * f] + s->history[2 * f + 1]);
        }
        double d0 = dl[0], d1 = dl[1];
        const double speed = sqrt(w1 * w1 + w2 * w2);
        if (speed > tol && t2 >= 0) {
            const double s0 = -w1 / speed, s1 = -w2 / speed; /* where friction should push */
            if (d0 * s0 + d1 * s1 < CR_COS_EPS_THETA) {      /* lines 6-8 */
                d0 += CR_ALPHA_THETA * (s0 - d0);
                d1 += CR_ALPHA_THETA * (s1 - d1);
                const double len = sqrt(d0 * d0 + d1 * d1);
                if (len > 0.0)
                    d0 /= len, d1 /= len;
            }
        }
        const double g1 = mu * lp * d0, g2 = mu * lp * d1; /* line 9 */
        const double change =
            fabs(g1 - s->fixed_value[t1]) + (t2 >= 0 ? fabs(g2 - s->fixed_value[t2]) : 0.0);
        if (change > eps2) { /* Alg. 2 lines 19-22 */
            s->lambda_prime[f] = lp;
            s->delta[2 * f] = d0;
            s->delta[2 * f + 1] = d1;
            set_friction(s, f, CR_KINETIC, g1, g2);
            ++changes;
        }
    }
    if (held && at_convergence && changes == 0)
        for (int i = 0; i < n && changes == 0; ++i)
            if (!cone_of(p, i) && s->flips[i] >= CR_FLIP_LIMIT)
                changes += rolling_of(p, i) ? switch_rolling(p, s, i, eps2)
                                            : switch_row(p, s, i, at_convergence);
    return changes;
}

/* ---- Algorithm 1 -------------------------------------------------------------------- */

static double dot(const double *x, const double *y, size_t n) {
    double sum = 0.0;
    for (size_t k = 0; k < n; ++k)
        sum += x[k] * y[k];
    return sum;
}

/* z = C^-1 x on the unknowns of the current active set (§3.4 "Diag") */
static void precondition(const heft_mlcp *p, const cr_state *s, const double *x, double *z) {
    const size_t nv = 6 * (size_t)p->nbodies;
    for (size_t k = 0; k < nv; ++k)
        z[k] = s->cinv[k] * x[k];
    for (int i = 0; i < p->n; ++i)
        z[nv + i] = s->state[i] == CR_ACTIVE ? s->cinv[nv + i] * x[nv + i] : 0.0;
}

/* C^-1 (§3.4): 1 / diag(M) on v; 1 / (Z_i (J_i diag(M)^-1 J_i^T + E_i)) on
 * lambda, Z_i the rows between the same two bodies (§3.4.1); also the exact
 * A_ii and the decision tolerance sqrt(2 tau A_ii) of every row. */
static void prepare_preconditioner(const heft_mlcp *p, cr_state *s, double tau) {
    const int n = p->n;
    const size_t nv = 6 * (size_t)p->nbodies;
    for (int b = 0; b < p->nbodies; ++b) {
        const double *m = &s->mass[9 * (size_t)b];
        const double dm[6] = {m[0], m[1], m[2], m[3], m[6], m[8]};
        for (int k = 0; k < 6; ++k)
            s->cinv[6 * (size_t)b + k] = dm[k] > 0.0 ? 1.0 / dm[k] : 0.0;
    }
    for (int i = 0; i < n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        double sd = eps_of(p, i);
        for (int side = 0; side < 2; ++side) {
            const int b = side == 0 ? r->a : r->b;
            const double *j = side == 0 ? r->ja : r->jb;
            if (!body_ok(p, b))
                continue;
            for (int k = 0; k < 6; ++k)
                sd += j[k] * j[k] * s->cinv[6 * (size_t)b + k];
        }
        int z = 0; /* Z_i */
        for (int k = 0; k < n; ++k)
            z += (p->rows[k].a == r->a && p->rows[k].b == r->b) ||
                 (p->rows[k].a == r->b && p->rows[k].b == r->a);
        s->sdiag[i] = sd;
        s->cinv[nv + i] = sd > 0.0 ? 1.0 / (z * sd) : 0.0;
        s->adiag[i] = heft_mlcp_diagonal(p, i);
        s->wtol[i] = sqrt(2.0 * tau * (s->adiag[i] > 0.0 ? s->adiag[i] : 0.0));
    }
}

static void consistent_velocity(const heft_mlcp *p, cr_state *s, double *out);

/* The starting active set and impulses: lambda0 (or the kept answer),
 * v = M^-1 J^T lambda; rows at or past a finite bound inactive there;
 * contacts static when their normal is active. */
static void start(const heft_mlcp *p, cr_state *s, const double *lambda0) {
    const int n = p->n, nb = p->nbodies;
    const size_t nv = 6 * (size_t)nb;
    double *lambda = s->y + nv;
    for (int i = 0; i < n; ++i) {
        s->friction1[i] = s->friction2[i] = -1;
        s->mode[i] = CR_STATIC;
        s->state[i] = CR_ACTIVE;
        s->fixed_value[i] = 0.0;
        lambda[i] = lambda0 != NULL && isfinite(lambda0[i]) ? lambda0[i] : 0.0;
    }
    for (int t = 0; t < n; ++t) {
        if (!cone_of(p, t))
            continue;
        const int f = p->findex[t];
        if (s->friction1[f] < 0)
            s->friction1[f] = t;
        else if (s->friction2[f] < 0)
            s->friction2[f] = t;
        else /* a third friction row: its own box on the same normal */
            continue;
    }
    for (int i = 0; i < n; ++i) {
        if (friction_of(p, i))
            continue;
        if (isfinite(p->lo[i]) && lambda[i] <= p->lo[i]) {
            s->state[i] = CR_AT_LO;
            s->fixed_value[i] = p->lo[i];
        } else if (isfinite(p->hi[i]) && lambda[i] >= p->hi[i]) {
            s->state[i] = CR_AT_HI;
            s->fixed_value[i] = p->hi[i];
        }
        if (s->friction1[i] >= 0 && s->state[i] != CR_ACTIVE)
            set_friction(s, i, CR_OFF, 0.0, 0.0);
    }
    /* a friction row beyond the second of its contact: treated as a box */
    for (int t = 0; t < n; ++t)
        if (cone_of(p, t) && s->friction1[p->findex[t]] != t && s->friction2[p->findex[t]] != t &&
            s->state[p->findex[t]] != CR_ACTIVE)
            s->state[t] = CR_OFF, s->fixed_value[t] = 0.0;
    /* rolling rows: off without their normal, else at a bound of their box
     * when the start is at or past it */
    for (int t = 0; t < n; ++t) {
        if (!rolling_of(p, t))
            continue;
        double lo, hi;
        heft_mlcp_bounds(p, lambda, t, &lo, &hi);
        if (s->state[p->findex[t]] != CR_ACTIVE)
            s->state[t] = CR_OFF, s->fixed_value[t] = 0.0;
        else if (lambda[t] <= lo)
            s->state[t] = CR_AT_LO, s->fixed_value[t] = lo;
        else if (lambda[t] >= hi)
            s->state[t] = CR_AT_HI, s->fixed_value[t] = hi;
    }
    consistent_velocity(p, s, s->y);
}

/* v = M^-1 J^T lambda of the impulses in force (the active rows' lambda, the
 * others' fixed values), with the mass inverse from the problem itself. Uses
 * tmp. */
static void consistent_velocity(const heft_mlcp *p, cr_state *s, double *out) {
    const int n = p->n, nb = p->nbodies;
    const size_t nv = 6 * (size_t)nb;
    const double *lambda = s->y + nv;
    for (size_t k = 0; k < nv; ++k)
        s->tmp[k] = 0.0;
    for (int i = 0; i < n; ++i)
        row_add_transpose(p, s, i, s->state[i] == CR_ACTIVE ? lambda[i] : s->fixed_value[i],
                          s->tmp);
    for (int b = 0; b < nb; ++b) {
        const heft_mlcp_body *body = &p->bodies[b];
        const double *f = &s->tmp[6 * (size_t)b];
        double *v = &out[6 * (size_t)b];
        heft_body_inverse_mass_times(body, f, v);
        for (int k = 0; k < 6; ++k)
            if (s->fixed[6 * (size_t)b + k])
                v[k] = 0.0;
    }
}

/* Lines 19-21: r = d - B y, p = C^-1 r, Bp = B C^-1 r; returns rho = z . Bz */
static double restart_direction(const heft_mlcp *p, cr_state *s, size_t N) {
    residual(p, s);
    precondition(p, s, s->r, s->z);
    memcpy(s->pv, s->z, sizeof(double) * N);
    kkt_multiply(p, s, s->z, s->Bz);
    memcpy(s->Bp, s->Bz, sizeof(double) * N);
    return dot(s->z, s->Bz, N);
}

/* ||U r||_inf: the largest residual of an active row */
static double active_residual(const heft_mlcp *p, const cr_state *s) {
    const size_t nv = 6 * (size_t)p->nbodies;
    double m = 0.0;
    for (int i = 0; i < p->n; ++i)
        if (s->state[i] == CR_ACTIVE)
            m = fmax(m, fabs(s->r[nv + i]));
    return m;
}

/* The MLCP's own test on the active rows: with v = M^-1 J^T lambda (w = A
 * lambda - b, the w the error measure sees), every active row's error
 * 0.5 w_i^2 / A_ii within tau. When it holds, v is replaced by that
 * velocity, so that the evaluation of line 23 sees the same w.
 *
 * Why: with redundant contacts (a box on four corners, the boxes
 * of a pyramid) J has a null space that only the compliance E (1e-10) closes;
 * the component of the KKT residual there, E lambda_null - b_null, falls at
 * the rate set by E and stalls CR far above eps1 = cr_tolerance ||b|| for
 * thousands of iterations (the 15-box pyramid: ||r|| stuck at 1.2e-8 against
 * eps1 = 3.9e-10), while the impulses already answer the MLCP to 1e-12 J
 * (PGS's answer of that problem: 1.4e-11 J with impulses below 0.5 N s).
 * Iterating on drives lambda along the null space to 1e4 N s and more.
 * Tried only when ||r|| stalls, so that a problem CR solves outright is
 * solved to eps1 as before (the planted problems of test_cr: 1e-6 relative
 * to bpp's answer). */
static int energy_converged(const heft_mlcp *p, cr_state *s, double tau) {
    const size_t nv = 6 * (size_t)p->nbodies;
    consistent_velocity(p, s, s->vt);
    for (int i = 0; i < p->n; ++i) {
        if (s->state[i] != CR_ACTIVE)
            continue;
        const double wi = row_dot_v(p, s, i, s->vt) + eps_of(p, i) * s->y[nv + i] - p->b[i];
        if (0.5 * wi * wi > tau * s->adiag[i])
            return 0;
    }
    memcpy(s->y, s->vt, sizeof(double) * nv);
    return 1;
}

/* Clamps lambda into its boxes, normal rows before the friction rows whose
 * box they give. */
static void clamp_into_boxes(const heft_mlcp *p, double *lambda) {
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < p->n; ++i) {
            if (friction_of(p, i) != pass)
                continue;
            double lo, hi;
            heft_mlcp_bounds(p, lambda, i, &lo, &hi);
            lambda[i] = lambda[i] < lo ? lo : (lambda[i] > hi ? hi : lambda[i]);
        }
}

static int cr_solve(void *state, const heft_mlcp *p, double *lambda_out, heft_solver_stats *stats) {
    cr_state *s = state;
    heft_solve_frame frame;
    const int begun = heft_solve_begin(p, stats, &frame);
    if (begun >= 0)
        return begun;
    const int n = p->n;
    if (p->rows == NULL || p->bodies == NULL || p->nbodies <= 0)
        return HEFT_SOLVE_FAILED; /* the KKT system needs J and M */
    const int nb = p->nbodies;
    const size_t nv = 6 * (size_t)nb, N = nv + (size_t)n;
    if (s->kept_n != n)
        s->kept_n = -1;
    if (!reserve(s, n, nb)) {
        s->kept_n = -1;
        return HEFT_SOLVE_FAILED;
    }
    const double tau =
        s->options.tolerance > CR_TOLERANCE_FLOOR ? s->options.tolerance : CR_TOLERANCE_FLOOR;
    const double assembly_start = heft_time_ms();
    prepare_masses(p, s);
    prepare_preconditioner(p, s, tau);
    stats->time_assembly_ms = heft_time_ms() - assembly_start;
    const double *lambda0 = s->options.warm_start && p->lambda0 != NULL ? p->lambda0
                            : s->kept_n == n                            ? s->kept_lambda
                                                                        : NULL;
    start(p, s, lambda0);
    for (int i = 0; i < n; ++i)
        s->flips[i] = 0;

    const double loop_start = heft_time_ms();
    double bnorm = sqrt(dot(p->b, p->b, (size_t)n));
    if (!(bnorm > 0.0))
        bnorm = 1.0;
    const double rel = s->options.cr_tolerance > 0.0 ? s->options.cr_tolerance : 1e-10;
    const double eps1 = rel * bnorm; /* ||r|| */
    double eps2 = 0.0;               /* ||U r||_inf and the impulse changes worth reporting */
    for (int i = 0; i < n; ++i)
        eps2 = fmax(eps2, s->wtol[i]);
    const int cap = s->options.cr_max_iterations > 0 ? s->options.cr_max_iterations : 5000;

    double rho = restart_direction(p, s, N);
    int j = 0, converged = 0, restarts = 0;
    int counted_restarts = 0, stalled = 0; /* iterations without halving ||r|| */
    double best = HUGE_VAL;                /* smallest ||r|| since the last restart */
    for (; j < cap; ++j) {
        const double rnorm = sqrt(dot(s->r, s->r, N));
        if (restarts != counted_restarts) {
            counted_restarts = restarts;
            best = HUGE_VAL;
            stalled = 0;
        }
        if (rnorm < 0.5 * best)
            best = rnorm, stalled = 0;
        else
            ++stalled;
        /* line 22, or the MLCP's own test when ||r|| is small but stalls (energy_converged) */
        if ((rnorm <= eps1 && active_residual(p, s) <= eps2) ||
            (stalled >= CR_STALL_ITERATIONS && rnorm <= CR_ENERGY_TEST_BELOW * bnorm &&
             energy_converged(p, s, tau))) {
            if (evaluate_constraints(p, s, eps2, 1) == 0) { /* lines 23-30 */
                converged = 1;
                break;
            }
            rho = restart_direction(p, s, N); /* line 31 */
            ++restarts;
            continue;
        }
        /* line 9: alpha = (z . B z) / (Bp . C^-1 Bp) */
        precondition(p, s, s->Bp, s->tmp);
        const double denom = dot(s->Bp, s->tmp, N);
        if (!(denom > 0.0) || !isfinite(rho)) {
            rho = restart_direction(p, s, N);
            ++restarts;
            if (!(rho != 0.0))
                break;
            continue;
        }
        const double alpha = rho / denom;
        for (size_t k = 0; k < N; ++k) { /* lines 10-11 */
            s->y[k] += alpha * s->pv[k];
            s->r[k] -= alpha * s->Bp[k];
        }
        int changed = 0;
        if (alpha > 0.0) { /* lines 12-13, Alg. 2 line 2-3 */
            /* in double until clamped: a residual of Inf made the cast
             * undefined (found by fuzzing) */
            const double ratio = rnorm / eps1;
            const double levels = ratio > 1.0 ? floor(log2(ratio) / 3.0) : 1.0;
            const int interval = levels >= 1.0 ? (levels < 1e6 ? (int)levels : 1000000) : 1;
            if (j % interval == 0)
                changed = evaluate_constraints(p, s, eps2, 0);
        }
        if (!changed) { /* lines 14-17 */
            precondition(p, s, s->r, s->z);
            kkt_multiply(p, s, s->z, s->Bz);
            const double rho_new = dot(s->z, s->Bz, N);
            const double beta = rho_new / rho;
            rho = rho_new;
            for (size_t k = 0; k < N; ++k) {
                s->pv[k] = s->z[k] + beta * s->pv[k];
                s->Bp[k] = s->Bz[k] + beta * s->Bp[k];
            }
        } else { /* lines 18-21 */
            rho = restart_direction(p, s, N);
            ++restarts;
        }
    }
    stats->iterations = j;
    stats->inner_iterations = restarts;
    stats->time_solve_ms = heft_time_ms() - loop_start;

    /* the answer: active impulses, fixed ones where inactive, in the boxes */
    for (int i = 0; i < n; ++i) {
        const double l = s->state[i] == CR_ACTIVE ? s->y[nv + i] : s->fixed_value[i];
        lambda_out[i] = isfinite(l) ? l : 0.0;
    }
    /* friction on the cone: (gamma_1, gamma_2) scaled into mu lambda_n */
    for (int f = 0; f < n; ++f) {
        const int t1 = s->friction1[f], t2 = s->friction2[f];
        if (t1 < 0)
            continue;
        const double limit = fabs(p->hi[t1]) * (lambda_out[f] > 0.0 ? lambda_out[f] : 0.0);
        const double g1 = lambda_out[t1], g2 = t2 >= 0 ? lambda_out[t2] : 0.0;
        const double g = sqrt(g1 * g1 + g2 * g2);
        if (g > limit && g > 0.0) {
            lambda_out[t1] = g1 * limit / g;
            if (t2 >= 0)
                lambda_out[t2] = g2 * limit / g;
        }
    }
    clamp_into_boxes(p, lambda_out);
    heft_mlcp_error err = heft_mlcp_measure(p, lambda_out, s->tmp);
    /* Never answer worse than zero, nor, unconverged, than where the solve
     * started: on friction problems whose A is singular up to the
     * compliance CR can drift far along the null space (planted problems of
     * 60 to 240 rows: 1e4 J where lambda = 0 gives 10 J), and that iterate
     * is not kept for the next solve either. A converged answer is not held
     * to the warm start: it solves the cone, whose sliding contacts the box
     * measure counts as errors, and the last step's impulses measure better
     * there (a box sliding down a slope: 21 of 120 solves). Both candidates
     * are clamped into their boxes, as the answer is; s->w is free scratch
     * once the iterations are over. */
    stats->answer = HEFT_ANSWER_SOLVER;
    for (int candidate = 0; candidate < 2; ++candidate) {
        if (candidate == 0 && (lambda0 == NULL || converged))
            continue;
        for (int i = 0; i < n; ++i)
            s->w[i] = candidate == 0 && isfinite(lambda0[i]) ? lambda0[i] : 0.0;
        clamp_into_boxes(p, s->w);
        const heft_mlcp_error e = heft_mlcp_measure(p, s->w, s->tmp);
        if (e.nonfinite == 0 && (err.nonfinite > 0 || e.max < err.max)) {
            memcpy(lambda_out, s->w, sizeof(double) * (size_t)n);
            err = e;
            converged = 0;
            stats->answer = candidate == 0 ? HEFT_ANSWER_WARM_START : HEFT_ANSWER_ZERO;
        }
    }
    memcpy(s->kept_lambda, lambda_out, sizeof(double) * (size_t)n);
    s->kept_n = n;
    stats->error_max = err.max;
    stats->error_sum = err.sum;
    stats->bound_violations = err.bound_violations;
    stats->converged = converged;
    stats->time_total_ms = heft_time_ms() - frame.start;
    if (err.nonfinite > 0) {
        s->kept_n = -1;
        return HEFT_SOLVE_FAILED;
    }
    return converged ? HEFT_SOLVE_OK : HEFT_SOLVE_NOT_CONVERGED;
}

static size_t cr_save_state(const void *state, void *buffer, size_t capacity);
static int cr_restore_state(void *state, const void *buffer, size_t size);

extern const heft_solver_vtable heft_cr_solver;

const heft_solver_vtable heft_cr_solver = {
    "cr",
    "conjugate residual on the KKT system of the structured form, constraints switched during "
    "the iterations, friction on a cone (Verschoor & Jalba 2019, Alg. 1-3)",
    cr_create,
    cr_solve,
    cr_reset,
    cr_destroy,
    0,
    cr_save_state,
    cr_restore_state,
    0,
    NULL, /* reserve: workspaces sized at the first solve of each size */
};

/* The kept answer starts the next solve; everything else cr rebuilds. */
static size_t cr_save_state(const void *state, void *buffer, size_t capacity) {
    const cr_state *s = state;
    state_writer w = {buffer, capacity, 0};
    if (s != NULL)
        state_put_kept(&w, s->kept_n, NULL, s->kept_lambda);
    return w.size;
}

static int cr_restore_state(void *state, const void *buffer, size_t size) {
    cr_state *s = state;
    if (s == NULL || (buffer == NULL && size > 0))
        return -1;
    cr_reset(s);
    state_reader r = {buffer, size, 0, 0};
    const int kept = state_get_kept(&r, NULL, NULL, &s->kept_lambda, &s->kept_lambda_cap);
    if (kept < -1 || r.at != size)
        return -1;
    s->kept_n = kept;
    return 0;
}
