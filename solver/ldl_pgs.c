/* Heft: LDL-PGS, the "ldl-pgs" solver (Mizerski, GDC 2020, [Mizerski 2020], slides
 * "Roblox Physics: LDL-PGS Solver" to "Body Shattering").
 *
 * The rows are partitioned (slide "Block Structure"): pi_0 holds every
 * equality row (unbounded, no friction index, touching a dynamic body), each
 * other row is a partition of its own. Block Impulse Solver (slide of that
 * name) with velocity deltas dv = W J^T lambda:
 *
 *     lambda_pi <- lambda_pi + N_pi^-1 (R_pi - J_pi dv),   dv += W J_pi^T dlambda_pi
 *
 * For pi_0, N_0 = H~ = J_0 W J_0^T + diag(epsilon) + eps diag(H) (slide
 * "Compliance and Regularization") is applied through its sparse block LDL^T
 * (block_ldl.c); for the single rows it is the projected Gauss-Seidel update
 * of pgs.c. An iteration is one block solve followed by one PGS sweep over the
 * other rows; after the last iteration one more block solve, so the joint rows
 * hold exactly against the final contact impulses (slide "Roblox Physics":
 * N-1 iterations of PGS, then the LDL solve).
 *
 * The symbolic phase runs once per mechanism: the state keeps it with the
 * key it was made for (per row: equality or not, bodies, block) and redoes it
 * only when that key changes. Numeric phase every solve. Once an island has
 * been seen, a solve of the same topology allocates nothing.
 *
 * direct = 0: the equality block is exact, but contacts, limits and motors
 * are PGS rows and their answer is as converged as the sweeps made it. */
#include "ldl_pgs.h"

#include <math.h>
#include <string.h>

#include "workspace.h"
#include "row_math.h"
#include "solve_frame.h"

extern const heft_solver_vtable heft_pgs_solver;

typedef struct ldl_pgs_state {
    heft_solver_options options;
    heft_block_ldl_config config;
    heft_block_ldl f;
    int symbolic_count;
    int key_n, key_nbodies, key_valid;
    int32_t *key; /* 4 per row: equality, a, b, block */
    int *eq_rows, *other_rows;
    int neq, nother;
    unsigned char *is_eq;
    double *response, *diagonal, *dv, *r, *x, *measure_work;
    size_t key_cap, eq_cap, other_cap, is_eq_cap, response_cap, diagonal_cap, dv_cap, r_cap, x_cap,
        measure_cap;
    void *pgs; /* fallback for problems without the structured form */
} ldl_pgs_state;

_Static_assert((int)HEFT_LDL_ORDER_MIN_EDGE == (int)HEFT_ORDER_MIN_EDGE &&
                   (int)HEFT_LDL_ORDER_MIN_DEGREE == (int)HEFT_ORDER_MIN_DEGREE &&
                   (int)HEFT_LDL_ORDER_NATURAL == (int)HEFT_ORDER_NATURAL,
               "the public ordering names are block_ldl's");

static void *ldl_pgs_create(const heft_solver_options *options) {
    ldl_pgs_state *s = heft_alloc(sizeof *s);
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof *s);
    s->options = options != NULL ? *options : heft_solver_default_options();
    if (heft_solver_options_check(&s->options, NULL, 0) != 0) { /* bad options: no state */
        heft_free(s);
        return NULL;
    }
    s->config = heft_block_ldl_default_config();
    s->config.ordering = s->options.ldl_ordering; /* HEFT_LDL_ORDER_* == HEFT_ORDER_* */
    s->config.shatter_degree = s->options.ldl_shatter_degree;
    s->config.shard_constraints = s->options.ldl_shard_constraints;
    s->config.regularization = s->options.ldl_regularization;
    s->f.config = s->config;
    return s;
}

static void ldl_pgs_destroy(void *state) {
    ldl_pgs_state *s = state;
    if (s == NULL)
        return;
    heft_block_ldl_release(&s->f);
    heft_free(s->key);
    heft_free(s->eq_rows);
    heft_free(s->other_rows);
    heft_free(s->is_eq);
    heft_free(s->response);
    heft_free(s->diagonal);
    heft_free(s->dv);
    heft_free(s->r);
    heft_free(s->x);
    heft_free(s->measure_work);
    if (s->pgs != NULL)
        heft_pgs_solver.destroy(s->pgs);
    heft_free(s);
}

static void ldl_pgs_reset(void *state) {
    ldl_pgs_state *s = state;
    s->key_valid = 0;
}

void heft_ldl_pgs_configure(void *state, const heft_block_ldl_config *config) {
    ldl_pgs_state *s = state;
    s->config = *config;
    s->key_valid = 0;
}

const heft_block_ldl *heft_ldl_pgs_factorization(const void *state) {
    return &((const ldl_pgs_state *)state)->f;
}

int heft_ldl_pgs_symbolic_count(const void *state) {
    return ((const ldl_pgs_state *)state)->symbolic_count;
}

/* ---- rows ----------------------------------------------------------------------------- */

/* W J_i^T (12 per row) and d_i = A_ii, as pgs.c. */
static void precompute_rows(const heft_mlcp *p, double *response, double *diagonal) {
    for (int i = 0; i < p->n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        double *ra = &response[12 * (size_t)i], *rb = ra + 6;
        memset(ra, 0, 12 * sizeof(double));
        double d = p->epsilon != NULL ? p->epsilon[i] : 0.0;
        if (r->a >= 0) {
            heft_body_inverse_mass_times(&p->bodies[r->a], r->ja, ra);
            d += heft_dot6(r->ja, ra);
        }
        if (r->b >= 0) {
            heft_body_inverse_mass_times(&p->bodies[r->b], r->jb, rb);
            d += heft_dot6(r->jb, rb);
            if (r->b == r->a)
                d += 2.0 * heft_dot6(r->ja, rb);
        }
        if (!isfinite(d)) {
            memset(ra, 0, 12 * sizeof(double));
            d = 0.0;
        }
        diagonal[i] = d > 0.0 ? d : 0.0;
    }
}

/* J_i dv + eps_i lambda_i - b_i */
static double row_residual(const heft_mlcp *p, const double *dv, const double *lambda, int i) {
    const heft_mlcp_row *r = &p->rows[i];
    double w = (p->epsilon != NULL ? p->epsilon[i] * lambda[i] : 0.0) - p->b[i];
    if (r->a >= 0)
        w += heft_dot6(r->ja, &dv[6 * r->a]);
    if (r->b >= 0)
        w += heft_dot6(r->jb, &dv[6 * r->b]);
    return w;
}

static void apply_delta(const heft_mlcp *p, const double *response, double *dv, int i,
                        double delta) {
    const heft_mlcp_row *r = &p->rows[i];
    if (r->a >= 0)
        heft_axpy6(delta, &response[12 * (size_t)i], &dv[6 * r->a]);
    if (r->b >= 0)
        heft_axpy6(delta, &response[12 * (size_t)i + 6], &dv[6 * r->b]);
}

/* The equality partition pi_0 and the topology key; returns 1 when the key
 * differs from the one the symbolic phase was made for. */
static int classify(ldl_pgs_state *s, const heft_mlcp *p) {
    const int n = p->n;
    memset(s->is_eq, 0, (size_t)n);
    for (int i = 0; i < n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        s->is_eq[i] = p->findex[i] < 0 && isinf(p->lo[i]) && p->lo[i] < 0.0 && isinf(p->hi[i]) &&
                      p->hi[i] > 0.0 && (r->a >= 0 || r->b >= 0);
    }
    for (int i = 0; i < n; ++i) /* a normal row that friction rows read is not an equality */
        if (p->findex[i] >= 0 && p->findex[i] < n)
            s->is_eq[p->findex[i]] = 0;
    s->neq = s->nother = 0;
    int changed = !s->key_valid || s->key_n != n || s->key_nbodies != p->nbodies;
    for (int i = 0; i < n; ++i) {
        if (s->is_eq[i])
            s->eq_rows[s->neq++] = i;
        else
            s->other_rows[s->nother++] = i;
        const int32_t k[4] = {s->is_eq[i], p->rows[i].a, p->rows[i].b,
                              p->block != NULL ? p->block[i] : -1};
        if (!changed)
            changed = memcmp(&s->key[4 * (size_t)i], k, sizeof k) != 0;
        memcpy(&s->key[4 * (size_t)i], k, sizeof k);
    }
    s->key_n = n;
    s->key_nbodies = p->nbodies;
    return changed;
}

/* The block step of pi_0; returns the largest 0.5 delta^2 d_i. */
static double block_step(ldl_pgs_state *s, const heft_mlcp *p, double *lambda) {
    for (int q = 0; q < s->neq; ++q)
        s->r[q] = -row_residual(p, s->dv, lambda, s->eq_rows[q]);
    heft_block_ldl_solve(&s->f, s->r, s->x);
    double largest = 0.0;
    for (int q = 0; q < s->neq; ++q) {
        const int i = s->eq_rows[q];
        const double delta = s->x[q];
        if (delta == 0.0)
            continue;
        lambda[i] += delta;
        apply_delta(p, s->response, s->dv, i, delta);
        const double e = 0.5 * delta * delta * s->diagonal[i];
        largest = (e > largest || isnan(e)) ? e : largest;
    }
    return largest;
}

/* One projected Gauss-Seidel sweep over rows[0..count) (pgs.c). */
static double sweep(ldl_pgs_state *s, const heft_mlcp *p, double *lambda, const int *rows,
                    int count) {
    double largest = 0.0;
    for (int q = 0; q < count; ++q) {
        const int i = rows[q];
        const double d = s->diagonal[i];
        const double w = row_residual(p, s->dv, lambda, i);
        double lo, hi;
        heft_mlcp_bounds(p, lambda, i, &lo, &hi);
        const double target = d > 0.0 ? lambda[i] - s->options.relaxation * w / d : 0.0;
        const double next = target < lo ? lo : (target > hi ? hi : target);
        const double delta = next - lambda[i];
        if (delta == 0.0)
            continue;
        lambda[i] = next;
        apply_delta(p, s->response, s->dv, i, delta);
        const double e = 0.5 * delta * delta * d;
        largest = (e > largest || isnan(e)) ? e : largest;
    }
    return largest;
}

static int finish(ldl_pgs_state *s, const heft_mlcp *p, double *lambda, heft_solver_stats *stats,
                  double start, int converged) {
    const heft_solve_frame frame = {start};
    const heft_mlcp_error err =
        heft_solve_finish(p, lambda, converged, &frame, s->measure_work, stats);
    int finite = err.nonfinite == 0;
    for (int i = 0; i < p->n; ++i)
        finite = finite && isfinite(lambda[i]);
    if (!finite) {
        for (int i = 0; i < p->n; ++i)
            lambda[i] = 0.0; /* no NaN leaves the solver */
        stats->converged = 0;
        return HEFT_SOLVE_FAILED;
    }
    return converged ? HEFT_SOLVE_OK : HEFT_SOLVE_NOT_CONVERGED;
}

static int ldl_pgs_solve(void *state, const heft_mlcp *p, double *lambda,
                         heft_solver_stats *stats) {
    ldl_pgs_state *s = state;
    heft_solve_frame frame;
    const int begun = heft_solve_begin(p, stats, &frame);
    if (begun >= 0)
        return begun;
    const double start = frame.start;
    const int n = p->n;
    if (p->b == NULL || p->lo == NULL || p->hi == NULL || p->findex == NULL)
        return HEFT_SOLVE_FAILED;
    if (p->rows == NULL) { /* dense only: nothing to factor by structure; plain PGS */
        if (s->pgs == NULL && (s->pgs = heft_pgs_solver.create(&s->options)) == NULL)
            return HEFT_SOLVE_FAILED;
        const int rc = heft_pgs_solver.solve(s->pgs, p, lambda, stats);
        stats->fallback = 1;
        return rc;
    }
    if (!heft_mlcp_structure_valid(p))
        return HEFT_SOLVE_FAILED;
    const size_t un = (size_t)n, nb = (size_t)p->nbodies;
    if (!HEFT_RESERVE(s->key, s->key_cap, 4 * un) || !HEFT_RESERVE(s->eq_rows, s->eq_cap, un) ||
        !HEFT_RESERVE(s->other_rows, s->other_cap, un) ||
        !HEFT_RESERVE(s->is_eq, s->is_eq_cap, un) ||
        !HEFT_RESERVE(s->response, s->response_cap, 12 * un) ||
        !HEFT_RESERVE(s->diagonal, s->diagonal_cap, un) ||
        !HEFT_RESERVE(s->dv, s->dv_cap, 6 * nb) || !HEFT_RESERVE(s->r, s->r_cap, un) ||
        !HEFT_RESERVE(s->x, s->x_cap, un) ||
        !HEFT_RESERVE(s->measure_work, s->measure_cap, un + 6 * nb)) {
        s->key_valid = 0;
        return HEFT_SOLVE_FAILED;
    }
    /* symbolic phase, once per equality topology */
    if (classify(s, p)) {
        const double t0 = heft_time_ms();
        s->key_valid = 0;
        if (heft_block_ldl_analyze(&s->f, p, s->eq_rows, s->neq, &s->config) != 0)
            return HEFT_SOLVE_FAILED;
        s->key_valid = 1;
        s->symbolic_count++;
        stats->time_ordering_ms = heft_time_ms() - t0;
    }
    precompute_rows(p, s->response, s->diagonal);
    /* numeric phase */
    const double t1 = heft_time_ms();
    int use_block = s->neq > 0;
    if (use_block && heft_block_ldl_factor(&s->f, p, -1) != 0) {
        use_block = 0; /* H~ not positive definite: every row by PGS */
        stats->fallback = 1;
    }
    stats->factorizations = use_block;
    stats->time_factor_ms = heft_time_ms() - t1;

    const double t2 = heft_time_ms();
    const int warm = s->options.warm_start && p->lambda0 != NULL;
    for (int i = 0; i < n; ++i)
        lambda[i] = (warm && isfinite(p->lambda0[i])) ? p->lambda0[i] : 0.0;
    memset(s->dv, 0, sizeof(double) * 6 * nb);
    for (int i = 0; i < n; ++i)
        if (lambda[i] != 0.0)
            apply_delta(p, s->response, s->dv, i, lambda[i]);
    int iterations = 0, converged = n == 0;
    while (!converged && iterations < s->options.max_iterations) {
        double largest = 0.0;
        if (use_block)
            largest = block_step(s, p, lambda);
        const double e = use_block ? sweep(s, p, lambda, s->other_rows, s->nother)
                                   : sweep(s, p, lambda, s->eq_rows, s->neq);
        largest = (e > largest || isnan(e)) ? e : largest;
        if (!use_block) {
            const double e2 = sweep(s, p, lambda, s->other_rows, s->nother);
            largest = (e2 > largest || isnan(e2)) ? e2 : largest;
        }
        ++iterations;
        if (isnan(largest))
            break;
        converged = largest < s->options.tolerance;
    }
    if (use_block && n > 0)
        (void)block_step(s, p, lambda); /* joints exact against the final contact impulses */
    stats->iterations = iterations;
    stats->time_solve_ms = heft_time_ms() - t2;
    return finish(s, p, lambda, stats, start, converged);
}

static size_t ldl_pgs_save_state(const void *state, void *buffer, size_t capacity);
static int ldl_pgs_restore_state(void *state, const void *buffer, size_t size);

extern const heft_solver_vtable heft_ldl_pgs_solver;
const heft_solver_vtable heft_ldl_pgs_solver = {
    "ldl-pgs",
    "equality rows by sparse block LDL^T, the rest by PGS (Mizerski 2020)",
    ldl_pgs_create,
    ldl_pgs_solve,
    ldl_pgs_reset,
    ldl_pgs_destroy,
    0,
    ldl_pgs_save_state,
    ldl_pgs_restore_state,
    0,
    NULL, /* reserve: workspaces sized at the first solve of each size */
};

/* ldl-pgs keeps only its symbolic factorization, rebuilt the same from the
 * next problem: its saved state is empty and a restore drops the key. */
static size_t ldl_pgs_save_state(const void *state, void *buffer, size_t capacity) {
    (void)state;
    (void)buffer;
    (void)capacity;
    return 0;
}

static int ldl_pgs_restore_state(void *state, const void *buffer, size_t size) {
    (void)buffer;
    if (state == NULL)
        return -1;
    ldl_pgs_reset(state);
    return size == 0 ? 0 : -1;
}
