/* Heft: projected Gauss-Seidel, the "pgs" solver.
 *
 * Gauss-Seidel on A lambda = b, one row at a time, each new value projected
 * onto the row's box [lo_i, hi_i] (Mizerski, GDC 2020, paper 003, slide
 * "Solving K Lambda = R: (Projected) Gauss-Seidel"; Lefebvre 2020, paper 000,
 * §1.3.1). For row i, with w = A lambda - b and d_i = A_ii:
 *
 *     lambda_i <- clamp(lambda_i - relaxation * w_i / d_i, lo_i, hi_i)
 *
 * On the structured form A is never formed. Paper 003, slide "Faster
 * Calculation of K_i Lambda": A_i lambda = J_i (M^-1 J^T lambda) = J_i dv,
 * where dv, 6 numbers per body, is the velocity change the current impulses
 * cause. A row touches two bodies, so w_i costs 12 multiplications, and a
 * change of lambda_i updates dv with the row's 12 precomputed numbers
 * M^-1 J_i^T. On a dense-only problem w_i is the dot of row i of A with lambda.
 *
 * Friction rows take their box from the current normal impulse (ODE's
 * findex), so the coupling is seen as soon as the normal row moves.
 * Iteration stops when no row changed by more than options.tolerance joules
 * (0.5 delta^2 d_i) over a whole sweep, or after options.max_iterations sweeps.
 *
 * The state of one island is the options and a workspace that only grows: once
 * the largest problem of an island has been seen, a solve allocates nothing. */
#include "pgs.h"
#include "row_math.h"

#include <math.h>
#include <string.h>

typedef struct pgs_state {
    heft_solver_options options;
    double *response;     /* 12 per row: M^-1 J_i^T, side a then side b */
    double *diagonal;     /* d_i per row; 0 marks a row PGS cannot move */
    double *dv;           /* 6 per body: M^-1 J^T lambda */
    double *measure_work; /* n + 6 nbodies for heft_mlcp_measure */
    size_t response_cap, diagonal_cap, dv_cap, measure_cap; /* in doubles */
} pgs_state;

/* Makes *array hold at least need doubles; the contents are not kept. */
static int workspace_reserve(double **array, size_t *cap, size_t need) {
    if (need <= *cap)
        return 1;
    heft_free(*array);
    *array = heft_alloc(sizeof(double) * need);
    *cap = *array != NULL ? need : 0;
    return *array != NULL;
}

int heft_pgs_reserve(void *state, const heft_mlcp *p) {
    pgs_state *s = state;
    const size_t n = p->n > 0 ? (size_t)p->n : 0;
    const int structured = p->rows != NULL;
    const size_t nb = structured && p->nbodies > 0 ? (size_t)p->nbodies : 0;
    return workspace_reserve(&s->diagonal, &s->diagonal_cap, n) &&
           workspace_reserve(&s->measure_work, &s->measure_cap, n + 6 * nb) &&
           (!structured || (workspace_reserve(&s->response, &s->response_cap, 12 * n) &&
                            workspace_reserve(&s->dv, &s->dv_cap, 6 * nb)));
}

static void *pgs_create(const heft_solver_options *options) {
    pgs_state *s = heft_alloc(sizeof *s);
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof *s);
    s->options = options != NULL ? *options : heft_solver_default_options();
    return s;
}

static void pgs_destroy(void *state) {
    pgs_state *s = state;
    if (s == NULL)
        return;
    heft_free(s->response);
    heft_free(s->diagonal);
    heft_free(s->dv);
    heft_free(s->measure_work);
    heft_free(s);
}

/* PGS learns nothing between steps (the warm start arrives in lambda0); the
 * workspace is kept. */
static void pgs_reset(void *state) {
    (void)state;
}

/* ---- the structured form: velocity deltas --------------------------------- */

static int dynamic_body(const heft_mlcp *p, int32_t index) {
    return index >= 0 && index < p->nbodies;
}

/* Per row: response = M^-1 J_i^T (12 numbers) and d_i = J_i M^-1 J_i^T + eps_i. */
static void precompute_rows(const heft_mlcp *p, double *response, double *diagonal) {
    for (int i = 0; i < p->n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        double *ra = &response[12 * (size_t)i], *rb = ra + 6;
        memset(ra, 0, 12 * sizeof(double));
        double d = p->epsilon != NULL ? p->epsilon[i] : 0.0;
        if (dynamic_body(p, r->a)) {
            heft_body_inverse_mass_times(&p->bodies[r->a], r->ja, ra);
            d += heft_dot6(r->ja, ra);
        }
        if (dynamic_body(p, r->b)) {
            heft_body_inverse_mass_times(&p->bodies[r->b], r->jb, rb);
            d += heft_dot6(r->jb, rb);
            if (r->b == r->a) /* both sides on one body: the cross terms */
                d += 2.0 * heft_dot6(r->ja, rb);
        }
        if (!isfinite(d)) {
            /* A broken row must not spread Inf/NaN through dv to its neighbours. */
            memset(ra, 0, 12 * sizeof(double));
            d = 0.0;
        }
        diagonal[i] = d > 0.0 ? d : 0.0;
    }
}

/* dv = M^-1 J^T lambda, summed row by row from the precomputed responses. */
static void velocity_delta(const heft_mlcp *p, const double *response, const double *lambda,
                           double *dv) {
    for (size_t k = 0; k < 6 * (size_t)p->nbodies; ++k)
        dv[k] = 0.0;
    for (int i = 0; i < p->n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        const double *ra = &response[12 * (size_t)i], *rb = ra + 6;
        if (lambda[i] == 0.0)
            continue;
        if (dynamic_body(p, r->a))
            heft_axpy6(lambda[i], ra, &dv[6 * r->a]);
        if (dynamic_body(p, r->b))
            heft_axpy6(lambda[i], rb, &dv[6 * r->b]);
    }
}

/* ---- one sweep ------------------------------------------------------------- */

/* The projected Gauss-Seidel update of row i given its residual w_i. A row
 * with d_i = 0 cannot be moved by its own impulse: it stays at 0 clamped into
 * its box, with no division. */
static double project_row(const heft_mlcp *p, const double *lambda, int i, double w, double d,
                          double relaxation) {
    double lo, hi;
    heft_mlcp_bounds(p, lambda, i, &lo, &hi);
    const double target = d > 0.0 ? lambda[i] - relaxation * w / d : 0.0;
    /* comparisons, not fmin/fmax: a NaN must come out as NaN, not as a bound */
    return target < lo ? lo : (target > hi ? hi : target);
}

/* max() that keeps a NaN, so a sweep that produced one cannot look converged. */
static double larger_energy(double largest, double e) {
    return (e > largest || isnan(e)) ? e : largest;
}

/* One sweep on the structured form; returns the largest 0.5 delta^2 d_i. */
static double sweep_structured(const heft_mlcp *p, const pgs_state *s, double *lambda) {
    const double relaxation = s->options.relaxation;
    double *dv = s->dv;
    double largest = 0.0;
    for (int i = 0; i < p->n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        const double *ra = &s->response[12 * (size_t)i], *rb = ra + 6;
        const double d = s->diagonal[i];
        const int has_a = dynamic_body(p, r->a), has_b = dynamic_body(p, r->b);

        /* w_i = J_i dv + eps_i lambda_i - b_i: 12 terms, not a row of A */
        double w = (p->epsilon != NULL ? p->epsilon[i] * lambda[i] : 0.0) - p->b[i];
        if (has_a)
            w += heft_dot6(r->ja, &dv[6 * r->a]);
        if (has_b)
            w += heft_dot6(r->jb, &dv[6 * r->b]);

        const double delta = project_row(p, lambda, i, w, d, relaxation) - lambda[i];
        if (delta == 0.0)
            continue;
        lambda[i] += delta;
        if (has_a)
            heft_axpy6(delta, ra, &dv[6 * r->a]);
        if (has_b)
            heft_axpy6(delta, rb, &dv[6 * r->b]);
        largest = larger_energy(largest, 0.5 * delta * delta * d);
    }
    return largest;
}

/* One sweep on the dense A; returns the largest 0.5 delta^2 d_i. */
static double sweep_dense(const heft_mlcp *p, const pgs_state *s, double *lambda) {
    const double relaxation = s->options.relaxation;
    const int n = p->n;
    double largest = 0.0;
    for (int i = 0; i < n; ++i) {
        const double *Ai = &p->A[(size_t)i * n];
        const double d = s->diagonal[i];
        double w = -p->b[i];
        for (int j = 0; j < n; ++j)
            w += Ai[j] * lambda[j];
        const double delta = project_row(p, lambda, i, w, d, relaxation) - lambda[i];
        if (delta == 0.0)
            continue;
        lambda[i] += delta;
        largest = larger_energy(largest, 0.5 * delta * delta * d);
    }
    return largest;
}

/* ---- solve ------------------------------------------------------------------ */

static int pgs_solve(void *state, const heft_mlcp *p, double *lambda, heft_solver_stats *stats) {
    pgs_state *s = state;
    const double start = heft_time_ms();
    const int n = p->n;
    const int structured = p->rows != NULL;
    memset(stats, 0, sizeof *stats);
    stats->n = n;
    if (n < 0 || (!structured && p->A == NULL && n > 0))
        return HEFT_SOLVE_FAILED;

    if (!heft_pgs_reserve(s, p))
        return HEFT_SOLVE_FAILED;

    /* Setup: the row responses and diagonal (structured) or the diagonal of A. */
    if (structured) {
        precompute_rows(p, s->response, s->diagonal);
    } else {
        for (int i = 0; i < n; ++i) {
            const double d = p->A[(size_t)i * n + i];
            s->diagonal[i] = (isfinite(d) && d > 0.0) ? d : 0.0;
        }
    }
    stats->time_assembly_ms = heft_time_ms() - start;

    /* Warm start from the previous step's impulses when asked; a non-finite
     * entry starts from zero rather than poisoning the sweep. */
    const double solve_start = heft_time_ms();
    const int warm = s->options.warm_start && p->lambda0 != NULL;
    for (int i = 0; i < n; ++i)
        lambda[i] = (warm && isfinite(p->lambda0[i])) ? p->lambda0[i] : 0.0;
    if (structured)
        velocity_delta(p, s->response, lambda, s->dv);

    int sweeps = 0, converged = n == 0;
    while (!converged && sweeps < s->options.max_iterations) {
        const double largest =
            structured ? sweep_structured(p, s, lambda) : sweep_dense(p, s, lambda);
        ++sweeps;
        if (isnan(largest))
            break; /* no later sweep can recover from a NaN */
        converged = largest < s->options.tolerance;
    }
    stats->time_solve_ms = heft_time_ms() - solve_start;
    stats->iterations = sweeps;
    stats->converged = converged;

    const heft_mlcp_error err = heft_mlcp_measure(p, lambda, s->measure_work);
    stats->error_max = err.max;
    stats->error_sum = err.sum;
    stats->bound_violations = err.bound_violations;
    stats->time_total_ms = heft_time_ms() - start;

    /* An answer with NaN or Inf in lambda (or in w: a broken row that PGS
     * could not move) is no answer. */
    int finite = err.nonfinite == 0;
    for (int i = 0; i < n; ++i)
        finite = finite && isfinite(lambda[i]);
    if (!finite)
        return HEFT_SOLVE_FAILED;
    return converged ? HEFT_SOLVE_OK : HEFT_SOLVE_NOT_CONVERGED;
}

void *heft_pgs_create_for_restart(const heft_solver_options *options) {
    heft_solver_options o = *options;
    o.warm_start = 1;
    o.max_iterations = options->bpp_pgs_sweeps;
    o.relaxation = 1.0;
    return pgs_create(&o);
}

/* Found by registry.c, which declares it the same way, and by bpp.c and
 * pgcg.c (pgs.h). */
const heft_solver_vtable heft_pgs_solver = {
    "pgs",      "projected Gauss-Seidel with velocity deltas (Mizerski 2020)",
    pgs_create, pgs_solve,
    pgs_reset,  pgs_destroy,
    0,
};
