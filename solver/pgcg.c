/* Heft: the "pgcg" solver, preconditioned generalized conjugate gradient
 * (docs/architecture.md "The solvers"; [Ho 2022] §5.2, Alg. 11, after O'Leary).
 *
 * An outer iteration (Alg. 11 lines 3-34):
 *   - tight variables are put at their bounds, free ones out of their box
 *     join the tight set there (the inner loop needs a feasible start; one
 *     outside by less than the pivoting slack is only clamped);
 *   - A_FF is cut out of the sparse A and its preconditioner computed (line 5);
 *   - inner PCG iterations on A_FF lambda_F = b_F - A_FT lambda_T (lines 9-25),
 *     each step cut at the nearest bound by eq. 5.1 (lines 10-12); variables
 *     that reach a bound go to the tight sets (lines 14-15), and A_FF, the
 *     residual, the preconditioner and the search direction are recomputed
 *     (lines 16-19); a step that reaches no bound is an ordinary PCG step
 *     (lines 21-22). The inner loop ends when ||r_F|| <= pcg_tolerance ||b||
 *     (line 25 read as "while not converged") or after pcg_max_iterations;
 *   - w = A lambda - b and the tight variables with the wrong sign of w
 *     go back to the free set (lines 26-29, eq. 2.43-2.44 as bpp decides
 *     them: heft_bpp_check_sets);
 *   - adaptive regularization when asked (lines 30-32, Alg. 9);
 *   - after an inner loop stopped by its cap, Jacobi for the rest of the
 *     solve (see pgcg_solve).
 * It stops when no variable changes set and every tight friction row sits on
 * the bound its normal impulse gives, or after options.max_pivots outer
 * iterations (the best iterate seen is returned, as bpp does).
 *
 * A friction row's box moves with its normal impulse, which changes during
 * the inner loop: eq. 5.1 uses the boxes at the start of the step, and a
 * friction row pushed out of its box by its normal's step is clamped and made
 * tight (an inexactness the outer iteration corrects). A tight friction row
 * sits at the bound of its normal impulse at the start of the outer
 * iteration, which makes the outer loop a fixed point on the normal impulses;
 * when that stalls (PGCG_STALL outer iterations without progress) the tight
 * friction rows of free normals are coupled to them exactly, by the
 * Woodbury identity with PCG solves on A_FF (couple_friction), for the rest
 * of the outer loop. When the outer loop still ends unconverged, rounds on
 * frozen friction boxes follow (frozen_rounds; reported as a fallback),
 * then bpp's exact backstop (lemke.c, heft_bpp_backstop), the pivoting
 * solvers' Newton stage (newton.h) and the joints' rows eliminated
 * (heft_bpp_eliminated).
 *
 * Warm start ([Ho 2022] §5.3): lambda0 (or the kept answer) and the kept index
 * sets. */
#include <math.h>
#include <string.h>

#include "adaptive_regularization.h"
#include "bpp.h"
#include "newton.h"
#include "pcg.h"
#include "pgs.h"
#include "precond.h"
#include "sparse_sym.h"
#include "workspace.h"
#include "state_bytes.h"

#define PGCG_TOLERANCE_FLOOR 1e-20
/* frozen-box rounds in a row without a smaller coupled error before they stop */
#define PGCG_FROZEN_PATIENCE 4
/* under-relaxation of the normal impulses between frozen-box rounds
 * (docs/pcg.md: 0.6-0.7 best on the planted friction problems) */
#define PGCG_FROZEN_RELAXATION 0.7
/* relative residual of the solves for Z = A_FF^-1 U (couple_friction): an
 * error in Z is an error in the coupled normal impulses */
#define PGCG_COUPLING_TOLERANCE 1e-10
/* outer iterations without progress (the number of rows breaking eq. 2.1 or
 * stale falls, or the MLCP error halves) before the friction coupling is
 * switched on (outer_loop) */
#define PGCG_STALL 10
#define PGCG_PROGRESS 0.5

typedef struct pgcg_state {
    heft_solver_options options;
    void *pgs;          /* PGS's state for the restart from its answer (pgcg_solve) */
    double *pgs_lambda; /* its answer, n */
    uint8_t *first_set; /* the first outer loop's best sets, n */
    size_t pgs_lambda_cap, first_set_cap;
    heft_sparse_sym A, AFF;
    heft_precond P;
    heft_adaptive_reg reg;
    int kept_n;
    int force_jacobi;     /* this solve: Jacobi after an inner loop that hit its cap */
    int couple;           /* couple_friction on in this outer iteration */
    long long pcg_left;   /* this solve's PCG iterations left (pgcg_solve: the budget) */
    double newton_error;  /* the Newton stage's answer's error (newton_from_seen) */
    double pcg_tolerance; /* this solve's relative PCG tolerance: options.pcg_tolerance,
                             tightened when the sets held but friction rows went stale */
    uint8_t *set, *next_set, *best_set, *kept_set;
    unsigned char *keep;
    int *local, *free_rows;
    double *lambda, *best_lambda, *kept_lambda, *w, *diag, *measure_work;
    double *r, *z, *q, *Aq; /* free-set vectors */
    double *cut_at;         /* free-set: the step at which each reaches its box (eq. 5.1) */
    double *fz_lo, *fz_hi, *fz_best, *fz_at; /* the frozen friction boxes (frozen_rounds) */
    heft_lemke lemke;                        /* the exact backstop (bpp.h heft_bpp_backstop) */
    heft_newton newton;                      /* the Newton stage after Lemke's method */
    heft_bpp_elimination elim;               /* its last stage (heft_bpp_eliminated) */
    double *bs_answer, *start;               /* its answer; the restart's start point */
    size_t bs_answer_cap, start_cap;
    /* the friction coupling (couple_friction) */
    uint8_t *coupled;
    int *normal_slot, *normals, *coupling_pivot;
    double *coupling, *cx, *cu, *crhs, *cy;
    heft_pcg_work cwork;
    size_t cut_at_cap, coupled_cap, normal_slot_cap, normals_cap, coupling_pivot_cap, coupling_cap,
        cx_cap, cu_cap, crhs_cap, cy_cap;
    size_t set_cap, next_set_cap, best_set_cap, kept_set_cap, keep_cap, local_cap, free_rows_cap,
        lambda_cap, best_lambda_cap, kept_lambda_cap, w_cap, diag_cap, measure_cap, r_cap, z_cap,
        q_cap, Aq_cap, fz_lo_cap, fz_hi_cap, fz_best_cap, fz_at_cap;
} pgcg_state;

static void *pgcg_create(const heft_solver_options *options) {
    pgcg_state *s = heft_alloc(sizeof *s);
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof *s);
    s->options = options != NULL ? *options : heft_solver_default_options();
    int kind = s->options.preconditioner;
    if (kind < 0 || kind >= HEFT_PRECOND_COUNT)
        kind = HEFT_PRECOND_IC0_IMAGINARY;
    heft_precond_init(&s->P, kind);
    s->P.ict_drop = s->options.ict_drop_tolerance;
    s->P.ict_fill = s->options.ict_fill;
    s->kept_n = -1;
    s->pgs = heft_pgs_create_for_restart(&s->options);
    if (s->pgs == NULL) {
        heft_free(s);
        return NULL;
    }
    return s;
}

static void pgcg_reset(void *state) {
    pgcg_state *s = state;
    if (s != NULL)
        s->kept_n = -1;
}

static void pgcg_destroy(void *state) {
    pgcg_state *s = state;
    if (s == NULL)
        return;
    heft_sparse_sym_release(&s->A);
    heft_sparse_sym_release(&s->AFF);
    heft_precond_release(&s->P);
    heft_adaptive_reg_release(&s->reg);
    heft_pcg_release(&s->cwork);
    heft_pgs_solver.destroy(s->pgs);
    heft_lemke_release(&s->lemke);
    heft_newton_release(&s->newton);
    heft_bpp_elimination_release(&s->elim);
    heft_free(s->bs_answer);
    heft_free(s->start);
    void *arrays[] = {s->set,    s->next_set,   s->best_set,     s->kept_set,    s->keep,
                      s->local,  s->free_rows,  s->lambda,       s->best_lambda, s->kept_lambda,
                      s->w,      s->diag,       s->measure_work, s->r,           s->z,
                      s->q,      s->Aq,         s->fz_lo,        s->fz_hi,       s->fz_best,
                      s->fz_at,  s->coupled,    s->normal_slot,  s->normals,     s->coupling_pivot,
                      s->cut_at, s->coupling,   s->cx,           s->cu,          s->crhs,
                      s->cy,     s->pgs_lambda, s->first_set};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
    heft_free(s);
}

#define PGCG_MAX_COUPLED 256

static int reserve(pgcg_state *s, const heft_mlcp *p) {
    const size_t un = (size_t)p->n;
    /* the k x k coupling (couple_friction) for every normal row that bounds
     * a friction row, up to PGCG_MAX_COUPLED, so that no solve of this size
     * allocates */
    size_t coupled_max = 0;
    if (p->findex != NULL && HEFT_RESERVE(s->coupled, s->coupled_cap, un)) {
        memset(s->coupled, 0, un);
        for (int t = 0; t < p->n; ++t) {
            const int f = p->findex[t];
            if (f >= 0 && f < p->n && !s->coupled[f] && coupled_max < PGCG_MAX_COUPLED) {
                s->coupled[f] = 1;
                ++coupled_max;
            }
        }
    }
    const size_t nb = p->rows != NULL && p->nbodies > 0 ? (size_t)p->nbodies : 0;
    return HEFT_RESERVE(s->set, s->set_cap, un) && HEFT_RESERVE(s->next_set, s->next_set_cap, un) &&
           HEFT_RESERVE(s->best_set, s->best_set_cap, un) &&
           HEFT_RESERVE(s->kept_set, s->kept_set_cap, un) &&
           HEFT_RESERVE(s->keep, s->keep_cap, un) && HEFT_RESERVE(s->local, s->local_cap, un) &&
           HEFT_RESERVE(s->free_rows, s->free_rows_cap, un) &&
           HEFT_RESERVE(s->lambda, s->lambda_cap, un) &&
           HEFT_RESERVE(s->best_lambda, s->best_lambda_cap, un) &&
           HEFT_RESERVE(s->kept_lambda, s->kept_lambda_cap, un) &&
           HEFT_RESERVE(s->w, s->w_cap, un) && HEFT_RESERVE(s->diag, s->diag_cap, un) &&
           HEFT_RESERVE(s->r, s->r_cap, un) && HEFT_RESERVE(s->z, s->z_cap, un) &&
           HEFT_RESERVE(s->q, s->q_cap, un) && HEFT_RESERVE(s->Aq, s->Aq_cap, un) &&
           HEFT_RESERVE(s->fz_lo, s->fz_lo_cap, un) && HEFT_RESERVE(s->fz_hi, s->fz_hi_cap, un) &&
           HEFT_RESERVE(s->fz_best, s->fz_best_cap, un) &&
           HEFT_RESERVE(s->fz_at, s->fz_at_cap, un) && HEFT_RESERVE(s->cut_at, s->cut_at_cap, un) &&
           HEFT_RESERVE(s->pgs_lambda, s->pgs_lambda_cap, un) &&
           HEFT_RESERVE(s->bs_answer, s->bs_answer_cap, un) &&
           HEFT_RESERVE(s->start, s->start_cap, un) &&
           HEFT_RESERVE(s->first_set, s->first_set_cap, un) && heft_pgs_reserve(s->pgs, p) &&
           HEFT_RESERVE(s->coupled, s->coupled_cap, un) &&
           HEFT_RESERVE(s->normal_slot, s->normal_slot_cap, un) &&
           HEFT_RESERVE(s->normals, s->normals_cap, un) &&
           HEFT_RESERVE(s->coupling_pivot, s->coupling_pivot_cap, un) &&
           HEFT_RESERVE(s->cx, s->cx_cap, un) && HEFT_RESERVE(s->cu, s->cu_cap, un) &&
           HEFT_RESERVE(s->crhs, s->crhs_cap, un) && HEFT_RESERVE(s->cy, s->cy_cap, un) &&
           HEFT_RESERVE(s->coupling, s->coupling_cap, coupled_max * coupled_max + coupled_max) &&
           heft_pcg_reserve(&s->cwork, p->n) &&
           HEFT_RESERVE(s->measure_work, s->measure_cap, un + 6 * nb);
}

static double dot(const double *x, const double *y, int n) {
    double sum = 0.0;
    for (int i = 0; i < n; ++i)
        sum += x[i] * y[i];
    return sum;
}

/* Free variables outside their box (friction boxes at the current normal
 * impulses) go to the tight set at that bound; one outside by no more than
 * slack = sqrt(2 tau / A_ii), the distance the pivoting rules count as "at
 * the bound" (heft_bpp_check_sets), is only clamped and stays free. A
 * friction row freed by the pivoting rules sits on the bound of the normal
 * impulse it was coupled to, and the inexact inner solve leaves that normal
 * a little off (planted 300 rows, seed 1: 1e-10 outside), which made it
 * tight again at once, every outer iteration; without the slack 2 of the
 * 240 hard planted problems fail (docs/pcg.md) instead of 1 and the inner
 * iterations per solve are 3.5 times as many (tau = 0: any violation).
 * Returns how many moved. */
static int tighten_outside(const heft_mlcp *p, pgcg_state *s, double tau) {
    int moved = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < p->n; ++i) {
            const int friction = p->findex != NULL && p->findex[i] >= 0 && p->findex[i] < p->n;
            if (friction != pass || s->set[i] != BPP_FREE)
                continue;
            double lo, hi;
            heft_mlcp_bounds(p, s->lambda, i, &lo, &hi);
            const double slack = tau > 0.0 && s->diag[i] > 0.0 ? sqrt(2.0 * tau / s->diag[i]) : 0.0;
            if (s->lambda[i] < lo) {
                if (s->lambda[i] < lo - slack) {
                    s->set[i] = BPP_AT_LO;
                    ++moved;
                }
                s->lambda[i] = lo;
            } else if (s->lambda[i] > hi) {
                if (s->lambda[i] > hi + slack) {
                    s->set[i] = BPP_AT_HI;
                    ++moved;
                }
                s->lambda[i] = hi;
            }
        }
    return moved;
}

/* Lines 4-8 (and 16-19): A_FF, P, r_F = b_F - (A lambda)_F, z = P^-1 r, q = z.
 * Returns the free-set size, or -1 when out of memory. */
static int restart(const heft_mlcp *p, pgcg_state *s, heft_solver_stats *stats) {
    const int n = p->n;
    const double start = heft_time_ms();
    for (int i = 0; i < n; ++i)
        s->keep[i] = s->set[i] == BPP_FREE;
    const int f = heft_sparse_sym_principal(&s->A, s->keep, s->reg.n == n ? s->reg.shift : NULL,
                                            &s->AFF, s->local);
    if (f < 0)
        return -1;
    for (int i = 0; i < n; ++i)
        if (s->local[i] >= 0)
            s->free_rows[s->local[i]] = i;
    if (f > 0) {
        const int wanted = s->P.kind;
        if (s->force_jacobi)
            s->P.kind = HEFT_PRECOND_JACOBI;
        int rc = heft_precond_compute(&s->P, &s->AFF); /* line 5 / 17 */
        s->P.kind = wanted;
        if (rc == 0 && s->force_jacobi)
            s->P.attempts = -1; /* marks "apply as Jacobi" */
        if (rc == 1) {          /* plain IC(0) broke down: Jacobi for this free set */
            const int kind = s->P.kind;
            s->P.kind = HEFT_PRECOND_JACOBI;
            rc = heft_precond_compute(&s->P, &s->AFF);
            s->P.kind = kind;
            stats->fallback = 1;
            if (rc == 0)
                s->P.attempts = -1; /* marks "apply as Jacobi" */
        }
        if (rc != 0)
            return -1;
        stats->factorizations++;
        heft_precond_count(&s->P, stats);
    }
    stats->time_factor_ms += heft_time_ms() - start;
    heft_sparse_sym_multiply(&s->A, s->lambda, s->w); /* line 4 */
    for (int l = 0; l < f; ++l) {
        const int i = s->free_rows[l];
        s->r[l] = p->b[i] - s->w[i];
    }
    return f;
}

static void apply_precond(pgcg_state *s, const double *r, double *z) {
    const int kind = s->P.kind;
    if (s->P.attempts == -1)
        s->P.kind = HEFT_PRECOND_JACOBI;
    heft_precond_apply(&s->P, r, z);
    s->P.kind = kind;
}

/* r_F = b_F - (A lambda)_F for the free set restart() cut out (w = A lambda). */
static void free_residual(const heft_mlcp *p, pgcg_state *s, int f) {
    heft_sparse_sym_multiply(&s->A, s->lambda, s->w);
    for (int l = 0; l < f; ++l) {
        const int i = s->free_rows[l];
        s->r[l] = p->b[i] - s->w[i];
    }
}

/* PCG (Alg. 8) on A_FF x = rhs from the guess in x, with this outer
 * iteration's preconditioner, within the solve's budget. Returns its
 * iterations. */
static int solve_free(pgcg_state *s, const double *rhs, double *x, heft_pcg_stop stop) {
    if (stop.max_iterations > s->pcg_left)
        stop.max_iterations = (int)s->pcg_left;
    if (stop.max_iterations <= 0)
        return 0;
    const int kind = s->P.kind;
    if (s->P.attempts == -1)
        s->P.kind = HEFT_PRECOND_JACOBI;
    const heft_pcg_result res = heft_pcg_solve(&s->AFF, &s->P, rhs, x, stop, &s->cwork);
    s->P.kind = kind;
    const int done = res.iterations > 0 ? res.iterations : 0;
    s->pcg_left -= done;
    return done;
}

/* The friction coupling, as bpp.c's (see "the friction coupling" there for
 * why): a friction row t tight while its normal row f is free has the
 * impulse s_t mu_t lambda_f, and lambda_f is an unknown of this outer
 * iteration. Fixing it at the bound of the normal impulse the iteration
 * starts from makes the outer loop a fixed point on the normal impulses,
 * which crept or cycled (docs/pcg.md; planted 300 rows, seed 2: a cycle of
 * three outer iterations, 0.27 to 1.27 J, for all 200). The coupled system
 * is (A_FF + U E^T) lambda_F = b_F - A_FT lambda_T (T without the coupled
 * rows), U = [sum_t s_t mu_t A_{F,t}] one column per coupled normal, E
 * selecting the normals; A_FF + U E^T is not symmetric, so PCG does not
 * take it, but by the Sherman-Morrison-Woodbury identity it needs only
 * solves with A_FF, one per coupled normal and one more ([Ho 2022] §5.2 asks
 * A_FF to be SPD):
 *     y = A_FF^-1 r,  Z = A_FF^-1 U,  lambda_N = (I + E^T Z)^-1 E^T y.
 * The coupled friction rows are put at s_t mu_t lambda_N and the inner loop
 * (lines 9-25) then solves A_FF with every tight box at its coupled value.
 * Nothing is changed when there are more than PGCG_MAX_COUPLED coupled
 * normals (I + E^T Z is dense) or I + E^T Z is singular. Call after
 * restart(), which cut A_FF out; returns 1 when lambda changed. */
static int couple_friction(const heft_mlcp *p, pgcg_state *s, int f, heft_pcg_stop stop,
                           heft_solver_stats *stats) {
    const int n = p->n;
    if (p->findex == NULL || f == 0 || !s->couple)
        return 0;
    int k = 0;
    for (int i = 0; i < n; ++i)
        s->normal_slot[i] = -1;
    for (int t = 0; t < n; ++t) {
        const int fr = p->findex[t];
        s->coupled[t] = fr >= 0 && fr < n && s->set[t] != BPP_FREE && s->set[fr] == BPP_FREE;
        if (s->coupled[t] && s->normal_slot[fr] < 0) {
            s->normal_slot[fr] = k;
            s->normals[k++] = fr;
        }
    }
    if (k == 0 || k > PGCG_MAX_COUPLED)
        return 0;
    const size_t uk = (size_t)k;
    if (!HEFT_RESERVE(s->coupling, s->coupling_cap, uk * uk + uk)) /* reserve() made room */
        return 0;
    double *S = s->coupling, *lambda_N = s->coupling + uk * uk;
    /* y = A_FF^-1 (b_F - A_FT lambda_T), the coupled rows left out of T,
     * from the current lambda_F */
    for (int i = 0; i < n; ++i)
        s->cx[i] = s->set[i] != BPP_FREE && !s->coupled[i] ? s->lambda[i] : 0.0;
    heft_sparse_sym_multiply(&s->A, s->cx, s->cu);
    for (int l = 0; l < f; ++l) {
        const int i = s->free_rows[l];
        s->crhs[l] = p->b[i] - s->cu[i];
        s->cy[l] = s->lambda[i];
    }
    stats->inner_iterations += solve_free(s, s->crhs, s->cy, stop);
    for (int q = 0; q < k; ++q)
        lambda_N[q] = s->cy[s->local[s->normals[q]]];
    /* S = I + E^T A_FF^-1 U, column by column (Z's column in cy) */
    const heft_pcg_stop column_stop = {PGCG_COUPLING_TOLERANCE, 0.0, stop.max_iterations};
    for (int q = 0; q < k; ++q) {
        if (s->pcg_left <= 0)
            return 0; /* the budget is spent: the boxes of the outer iteration's start */
        for (int i = 0; i < n; ++i)
            s->cx[i] = 0.0;
        for (int t = 0; t < n; ++t)
            if (s->coupled[t] && s->normal_slot[p->findex[t]] == q)
                s->cx[t] = (s->set[t] == BPP_AT_HI ? 1.0 : -1.0) * fabs(p->hi[t]);
        heft_sparse_sym_multiply(&s->A, s->cx, s->cu);
        for (int l = 0; l < f; ++l) {
            s->crhs[l] = s->cu[s->free_rows[l]];
            s->cy[l] = 0.0;
        }
        stats->inner_iterations += solve_free(s, s->crhs, s->cy, column_stop);
        for (int r = 0; r < k; ++r)
            S[(size_t)r * uk + q] = (r == q ? 1.0 : 0.0) + s->cy[s->local[s->normals[r]]];
    }
    if (!heft_bpp_lu_factor(S, k, s->coupling_pivot))
        return 0; /* singular coupling: the boxes of the outer iteration's start */
    heft_bpp_lu_solve(S, k, s->coupling_pivot, lambda_N);
    for (int t = 0; t < n; ++t)
        if (s->coupled[t]) {
            const double sign = s->set[t] == BPP_AT_HI ? 1.0 : -1.0;
            s->lambda[t] = sign * fabs(p->hi[t]) * lambda_N[s->normal_slot[p->findex[t]]];
        }
    return 1;
}

/* An inner loop's cap on its PCG steps (options.pcg_max_iterations). */
static int inner_cap(const pgcg_state *s) {
    return s->options.pcg_max_iterations > 0 ? s->options.pcg_max_iterations : 1000;
}

/* The inner loop of one outer iteration (lines 4-25). Returns -1 when out of
 * memory. */
static int inner_loop(const heft_mlcp *p, pgcg_state *s, double bnorm, heft_solver_stats *stats,
                      int *converged) {
    *converged = 0;
    double rz = 0.0;
    int f = restart(p, s, stats);
    if (f < 0)
        return -1;
    const int cap_option = inner_cap(s);
    const int cap = s->pcg_left < cap_option ? (int)s->pcg_left : cap_option;
    /* a hundredth of the pivoting tolerance: the pivoting rules compare
     * impulses to sqrt(2 tau / A_ii), which the solve must not blur */
    const heft_pcg_stop stop = {s->pcg_tolerance, 0.01 * s->options.tolerance, cap};
    if (couple_friction(p, s, f, stop, stats))
        free_residual(p, s, f);
    int fresh = 1;
    if (f == 0)
        *converged = 1;
    for (int j = 0; j < cap && f > 0 && s->pcg_left > 0; ++j) {
        if (fresh) { /* lines 6-8 / 18-19 */
            apply_precond(s, s->r, s->z);
            memcpy(s->q, s->z, sizeof(double) * (size_t)f);
            rz = dot(s->r, s->z, f);
            fresh = 0;
        }
        if (heft_pcg_done(&s->AFF, s->r, sqrt(dot(s->r, s->r, f)), bnorm, stop)) {
            *converged = 1;
            break; /* line 25 */
        }
        /* A free variable on its bound whose direction points out of its
         * box while its residual points in (one the pivoting rules just
         * freed, under a preconditioner that mixes the rows) would block a
         * step of length zero and go back to the tight set at once, and
         * the next outer iteration free it again. Its component of q is
         * dropped instead (a projected direction: r^T q only grows, so it
         * stays a descent direction), and the step after it starts a new
         * direction as after a restart. A variable whose residual points
         * out too still blocks (lines 14-15). */
        int projected = 0;
        for (int l = 0; l < f; ++l) {
            const int i = s->free_rows[l];
            const double ql = s->q[l];
            if (ql == 0.0)
                continue;
            double lo, hi;
            heft_mlcp_bounds(p, s->lambda, i, &lo, &hi);
            if ((ql < 0.0 && s->lambda[i] <= lo && s->r[l] > 0.0) ||
                (ql > 0.0 && s->lambda[i] >= hi && s->r[l] < 0.0)) {
                s->q[l] = 0.0;
                projected = 1;
            }
        }
        heft_sparse_sym_multiply(&s->AFF, s->q, s->Aq);
        const double qAq = dot(s->q, s->Aq, f);
        const double rq = projected ? dot(s->r, s->q, f) : rz;
        if (!(qAq > 0.0) || !isfinite(qAq) || !isfinite(rq))
            break;
        const double alpha_cg = rq / qAq; /* line 11, eq. 4.4 (r^T q = r^T z for a PCG q) */
        /* line 10, eq. 5.1: the largest step that keeps lambda_F in its boxes */
        double alpha_max = INFINITY;
        for (int l = 0; l < f; ++l) {
            const int i = s->free_rows[l];
            const double ql = s->q[l];
            s->cut_at[l] = INFINITY;
            if (ql == 0.0)
                continue;
            double lo, hi;
            heft_mlcp_bounds(p, s->lambda, i, &lo, &hi);
            const double a = ql < 0.0 ? (lo - s->lambda[i]) / ql : (hi - s->lambda[i]) / ql;
            s->cut_at[l] = a;
            if (a < alpha_max)
                alpha_max = a;
        }
        if (alpha_max < 0.0)
            alpha_max = 0.0;
        const int cut = alpha_max < alpha_cg;
        const double alpha = cut ? alpha_max : alpha_cg; /* line 12 */
        for (int l = 0; l < f; ++l)                      /* line 13 */
            s->lambda[s->free_rows[l]] += alpha * s->q[l];
        stats->inner_iterations++;
        s->pcg_left--;
        if (cut) { /* lines 14-19 */
            for (int l = 0; l < f; ++l) {
                const int i = s->free_rows[l];
                const double ql = s->q[l];
                /* the rows that set alpha_max, judged by the boxes eq. 5.1
                 * used: a friction row's box moves with its normal during
                 * the step, and judged by the moved box no row had blocked
                 * (tests/data/tower15-step30.mlcp: the same cut twenty times
                 * in a row, each step a tenth of the last, no row made
                 * tight); it goes to the bound of its moved box */
                if (!(s->cut_at[l] <= alpha * (1.0 + 1e-12)))
                    continue;
                double lo, hi;
                heft_mlcp_bounds(p, s->lambda, i, &lo, &hi);
                s->lambda[i] = ql < 0.0 ? lo : hi;
                s->set[i] = ql < 0.0 ? BPP_AT_LO : BPP_AT_HI;
            }
            tighten_outside(p, s, 0.0); /* friction rows whose normal moved */
            f = restart(p, s, stats);
            if (f < 0)
                return -1;
            fresh = 1;
        } else if (projected) { /* no conjugacy to keep: a new direction */
            for (int l = 0; l < f; ++l)
                s->r[l] -= alpha * s->Aq[l];
            fresh = 1;
        } else { /* lines 21-22: ordinary PCG */
            for (int l = 0; l < f; ++l)
                s->r[l] -= alpha * s->Aq[l];
            apply_precond(s, s->r, s->z);
            const double rz_new = dot(s->r, s->z, f);
            const double beta = rz_new / rz;
            rz = rz_new;
            for (int l = 0; l < f; ++l)
                s->q[l] = s->z[l] + beta * s->q[l];
        }
    }
    if (f == 0)
        *converged = 1; /* everything tight: nothing left to solve */
    return 0;
}

/* Alg. 11's outer loop from s->set and s->lambda on p, at most max_outer
 * outer iterations (added to *outer_total); the best iterate goes to
 * s->best_lambda and s->best_set (*have_best). Returns 1 when converged, 0
 * when not, -1 when out of memory. */
static int outer_loop(const heft_mlcp *p, pgcg_state *s, double tau, int max_outer, double bnorm,
                      int *outer_total, int *have_best, heft_solver_stats *stats) {
    const int n = p->n;
    const size_t vec = sizeof(double) * (size_t)n;
    int outer = 0, converged = 0;
    int best_infeasible = n + 1;
    double best_error = INFINITY;
    int ref_infeasible = n + 1, since_progress = 0;
    double ref_error = INFINITY;
    s->couple = 0;
    while (outer < max_outer && s->pcg_left > 0) {
        const int tight_count =
            heft_bpp_place_tight(p, s->set, s->lambda, (unsigned char *)s->keep);
        tighten_outside(p, s, tau);
        if (stats->tight_trace_count < HEFT_MAX_PIVOT_TRACE)
            stats->tight_trace[stats->tight_trace_count++] = tight_count;
        ++outer;
        int inner_converged = 0;
        if (inner_loop(p, s, bnorm, stats, &inner_converged) != 0)
            return -1;
        /* An inner loop that hit its cap: with IC(0) and imaginary columns P
         * is indefinite and PCG need not converge (planted problems of 60
         * rows, seeds 11 and 25, no added dominance: 1,000 inner iterations
         * in every one of 200 outer iterations, 0.47 and 0.57 J). The rest
         * of this solve uses Jacobi, which is positive definite; fallback is
         * reported. */
        if (!inner_converged && s->pcg_left > 0 && !s->force_jacobi &&
            s->P.kind != HEFT_PRECOND_JACOBI) {
            s->force_jacobi = 1;
            stats->fallback = 1;
        }
        /* line 26 */
        heft_sparse_sym_multiply(&s->A, s->lambda, s->w);
        for (int i = 0; i < n; ++i)
            s->w[i] -= p->b[i];
        /* lines 27-29 */
        const bpp_check c =
            heft_bpp_check_sets(p, s->set, s->lambda, s->w, s->diag, tau, s->next_set);
        if (c.nonfinite > 0)
            break;
        /* an inner loop stopped by its cap leaves free rows with w != 0 */
        const int infeasible = c.pivots + c.stale + !inner_converged;
        if (infeasible < best_infeasible ||
            (infeasible == best_infeasible && c.error_max < best_error)) {
            best_infeasible = infeasible;
            best_error = c.error_max;
            memcpy(s->best_lambda, s->lambda, vec);
            memcpy(s->best_set, s->set, (size_t)n);
            *have_best = 1;
        }
        if (infeasible == 0) {
            converged = 1;
            break;
        }
        /* nothing to pivot, only friction rows off the bounds their normal
         * impulses now give: the inner solves were too inexact for them (a
         * pyramid of base 12: 21-23 stale rows through all 35 outer
         * iterations at 1e-6, 9.4e-10 J). As bpp-pcg (bpp.c, pivot_loop):
         * a tighter PCG tolerance for the rest of the solve. */
        if (c.pivots == 0 && c.stale > 0 && inner_converged &&
            s->pcg_tolerance > HEFT_PCG_TOLERANCE_FLOOR) {
            s->pcg_tolerance = fmax(s->pcg_tolerance * HEFT_PCG_TIGHTEN, HEFT_PCG_TOLERANCE_FLOOR);
            stats->pcg_tightenings++;
        }
        if (infeasible < ref_infeasible || c.error_max < PGCG_PROGRESS * ref_error) {
            ref_infeasible = infeasible < ref_infeasible ? infeasible : ref_infeasible;
            ref_error = c.error_max;
            since_progress = 0;
        } else if (++since_progress >= PGCG_STALL && p->findex != NULL) {
            s->couple = 1;
        }
        if (s->reg.n == n) { /* lines 30-32 */
            const int shifted = heft_adaptive_reg_update(&s->reg, p, s->set, s->next_set,
                                                         s->options.regularization_shift);
            stats->regularized_rows += shifted;
        }
        memcpy(s->set, s->next_set, (size_t)n);
    }
    *outer_total += outer;
    return converged;
}

/* Frozen friction boxes (as bpp.c's fall-back). pgcg fixes a tight
 * friction row at the bound of the normal impulse it had when the outer
 * iteration began, so its outer loop is a fixed point on the normal
 * impulses that creeps or cycles (docs/pcg.md: 17 of 240 planted friction
 * problems before couple_friction, none since with 200 outer iterations; it
 * still runs out with few, e.g. 20). When the outer loop ends unconverged
 * on a problem with friction, the boxes are frozen at the best iterate's
 * normal impulses, which makes every row a fixed box, pgcg solves that
 * problem (a box-constrained QP, on which it converges), the boxes are
 * refrozen at the new normal impulses, and so on for at most max_outer rounds (each
 * with at most max_outer outer iterations), while the coupled error falls.
 * The best answer by the coupled error stays in s->best_lambda/best_set.
 * Returns 1 when it is within tau. */
static int frozen_rounds(const heft_mlcp *p, pgcg_state *s, double tau, int max_outer, double bnorm,
                         int *outer_total, heft_solver_stats *stats) {
    const int n = p->n;
    const size_t vec = sizeof(double) * (size_t)n;
    heft_bpp_clamp_answer(p, s->best_lambda);
    double best = heft_mlcp_measure(p, s->best_lambda, s->measure_work).max;
    memcpy(s->fz_best, s->best_lambda, vec);
    heft_mlcp q = *p;
    q.findex = NULL;
    q.lo = s->fz_lo;
    q.hi = s->fz_hi;
    q.lambda0 = NULL;
    stats->fallback = 1;
    memcpy(s->fz_at, s->fz_best, vec); /* the point the next boxes are frozen at */
    int worse = 0;
    for (int round = 0;
         round < max_outer && best > tau && worse < PGCG_FROZEN_PATIENCE && s->pcg_left > 0;
         ++round) {
        stats->frozen_rounds++;
        memcpy(s->lambda, s->fz_at, vec);
        for (int i = 0; i < n; ++i)
            heft_mlcp_bounds(p, s->lambda, i, &s->fz_lo[i], &s->fz_hi[i]);
        heft_bpp_clamp_answer(&q, s->lambda);
        heft_bpp_read_sets(&q, s->lambda, s->set);
        int have = 0;
        const int r = outer_loop(&q, s, tau, max_outer, bnorm, outer_total, &have, stats);
        if (r < 0)
            return -1;
        if (!have)
            break;
        if (!r)
            memcpy(s->lambda, s->best_lambda, vec);
        heft_bpp_clamp_answer(p, s->lambda);
        const double e = heft_mlcp_measure(p, s->lambda, s->measure_work).max;
        if (e < best) {
            best = e;
            memcpy(s->fz_best, s->lambda, vec);
            worse = 0;
        } else {
            ++worse; /* the fixed point is not monotone: a few more rounds */
        }
        /* the next boxes from an under-relaxed point: the map from the
         * frozen normal impulses to the round's answer overshoots and
         * oscillates (30 rows seed 21: 0.23, 0.024, 0.086, 0.030 J) */
        for (int i = 0; i < n; ++i)
            s->fz_at[i] += PGCG_FROZEN_RELAXATION * (s->lambda[i] - s->fz_at[i]);
    }
    memcpy(s->best_lambda, s->fz_best, vec);
    heft_bpp_read_sets(p, s->best_lambda, s->best_set);
    memcpy(s->lambda, s->best_lambda, vec);
    memcpy(s->set, s->best_set, (size_t)n);
    return best <= tau;
}

/* The backstop's answer (s->bs_answer) becomes the best one and the
 * current one, with the sets read off it. */
static void take_backstop_answer(const heft_mlcp *p, pgcg_state *s) {
    const size_t vec = sizeof(double) * (size_t)p->n;
    memcpy(s->best_lambda, s->bs_answer, vec);
    heft_bpp_read_sets(p, s->best_lambda, s->best_set);
    memcpy(s->lambda, s->best_lambda, vec);
    memcpy(s->set, s->best_set, (size_t)p->n);
}

/* The points the solve has seen, in this order, those it has: its best
 * iterate, PGS's answer, the warm start. Returns their count. */
static int seen_points(const heft_mlcp *p, const pgcg_state *s, int have_best, int warm,
                       const heft_solver_stats *stats, const double *points[3]) {
    int count = 0;
    if (have_best)
        points[count++] = s->best_lambda;
    if (s->options.bpp_pgs_sweeps > 0 && stats->restarts > 0)
        points[count++] = s->pgs_lambda;
    if (warm)
        points[count++] = p->lambda0;
    return count;
}

/* The nearest, by the error measure, of the points seen, its error into
 * *error; NULL when there is none. Uses s->start. */
static const double *nearest_seen(const heft_mlcp *p, pgcg_state *s, int have_best, int warm,
                                  const heft_solver_stats *stats, double *error) {
    const double *points[3];
    const int count = seen_points(p, s, have_best, warm, stats, points);
    return heft_bpp_nearest(p, points, count, s->start, s->measure_work, error);
}

/* The Newton stage from the points seen (nearest_seen's), the nearest
 * first, at most max_steps steps over all of them; the best answer goes to
 * s->bs_answer, its error to s->newton_error, the nearest start's to
 * *nearest. Returns 1 when the answer is within tau, 0 when not, -1 when
 * no start gave an answer. Uses s->start and s->cx. */
static int newton_from_seen(const heft_mlcp *p, pgcg_state *s, int have_best, int warm, double tau,
                            int max_steps, double *nearest, heft_solver_stats *stats) {
    const double *points[3];
    const int count = seen_points(p, s, have_best, warm, stats, points);
    double errors[3];
    *nearest = INFINITY;
    for (int k = 0; k < count; ++k) {
        heft_bpp_nearest(p, &points[k], 1, s->start, s->measure_work, &errors[k]);
        *nearest = fmin(*nearest, errors[k]);
    }
    s->newton_error = INFINITY;
    int left = max_steps, found = -1;
    unsigned tried = 0;
    while (left > 0 && found != 1) {
        int k = -1;
        for (int j = 0; j < count; ++j)
            if (!(tried & (1u << j)) && (k < 0 || errors[j] < errors[k]))
                k = j;
        if (k < 0)
            break;
        tried |= 1u << k;
        heft_newton_result r;
        heft_newton_solve(&s->newton, p, points[k], tau, left, s->cx, s->measure_work, &r);
        stats->backstops++;
        stats->backstop_pivots += r.steps;
        stats->newton_steps += r.steps;
        if (r.envelope > stats->envelope)
            stats->envelope = r.envelope;
        left -= r.steps > 0 ? r.steps : 1;
        if (r.status != HEFT_NEWTON_FAILED && r.error_max < s->newton_error) {
            s->newton_error = r.error_max;
            memcpy(s->bs_answer, s->cx, sizeof(double) * (size_t)p->n);
            found = r.error_max <= tau;
        }
    }
    return found;
}

static int pgcg_solve(void *state, const heft_mlcp *p, double *lambda_out,
                      heft_solver_stats *stats) {
    pgcg_state *s = state;
    const double start = heft_time_ms();
    const int n = p->n;
    const int begun = heft_bpp_begin(p, stats);
    if (begun >= 0)
        return begun;
    if (heft_mlcp_check(p, NULL, 0) != 0)
        return HEFT_SOLVE_FAILED; /* bad input: nothing is changed */
    if (s->kept_n != n)
        s->kept_n = -1;
    if (!reserve(s, p)) {
        s->kept_n = -1;
        return HEFT_SOLVE_FAILED;
    }
    const double assembly_start = heft_time_ms();
    if (heft_sparse_sym_from_mlcp(&s->A, p) != 0)
        return HEFT_SOLVE_FAILED;
    for (int i = 0; i < n; ++i)
        s->diag[i] = s->A.val[s->A.col_start[i]];
    stats->time_assembly_ms = heft_time_ms() - assembly_start;
    s->reg.n = 0;
    if (s->options.adaptive_regularization &&
        heft_adaptive_reg_begin(&s->reg, n, s->options.regularization_pivot_limit) != 0)
        return HEFT_SOLVE_FAILED;

    const double loop_start = heft_time_ms();
    const double tau =
        s->options.tolerance > PGCG_TOLERANCE_FLOOR ? s->options.tolerance : PGCG_TOLERANCE_FLOOR;
    const int max_outer = s->options.max_pivots > 0 ? s->options.max_pivots : 1;
    const size_t vec = sizeof(double) * (size_t)n;
    const int keep = s->options.keep_index_sets && s->kept_n == n;
    heft_bpp_start(p, &s->options, keep ? s->kept_set : NULL, s->kept_lambda, s->lambda, s->set);
    const double bnorm = sqrt(dot(p->b, p->b, n)) > 0.0 ? sqrt(dot(p->b, p->b, n)) : 1.0;

    int outer = 0, have_best = 0;
    s->force_jacobi = 0;
    s->pcg_tolerance = s->options.pcg_tolerance;
    /* Budgets of PCG iterations (the inner loops' steps and the coupling's
     * solves), each as much as one outer loop of max_pivots full inner loops
     * may take: one for the outer loops (the first and the restart's), one
     * for the frozen-box rounds. Each stage alone is bounded, but the bounds
     * multiply (rounds x outer iterations x inner iterations x coupled
     * normals): where the ball hits the tower of 40 layers (its step 26, one
     * island of 1,918 rows) the restart's outer loop alone took 365,000 PCG
     * iterations, most of them the coupling's solves, 28 s. The frozen rounds
     * keep their own budget because their answer is the start from which the
     * Newton stage ends such islands (step 27: 7e-4 J off from every point
     * seen before them). */
    const long long budget = (long long)max_outer * inner_cap(s);
    s->pcg_left = budget;
    int converged = outer_loop(p, s, tau, max_outer, bnorm, &outer, &have_best, stats);
    if (converged < 0) {
        s->kept_n = -1;
        return HEFT_SOLVE_FAILED;
    }
    if (!converged && have_best && s->options.bpp_pgs_sweeps > 0) {
        /* As bpp.c's restart from PGS (options.bpp_pgs_sweeps): the outer
         * loop once more, from the index sets of a PGS answer started at the
         * warm start, before the frozen-box rounds; the better of the two
         * loops' best iterates goes on to them (from PGS's answer instead,
         * the rounds missed an island of the chain, chain-step600: 1.4e-6
         * J). On the 240 hard planted
         * friction problems (test_pcg) the failures at the default 35 outer iterations fell from 10
         * to 0 (0.58 against 0.62 s for all); on 285 islands of the knocked-down tower of 10 layers
         * the converged ones rose from 255 to 267 (1.17 times the time). */
        heft_bpp_clamp_answer(p, s->best_lambda);
        const double first = heft_mlcp_measure(p, s->best_lambda, s->measure_work).max;
        memcpy(s->fz_best, s->best_lambda, vec);
        memcpy(s->first_set, s->best_set, (size_t)n);
        double *from = heft_bpp_restart_start(p, s->options.warm_start && p->lambda0 != NULL,
                                              s->fz_best, s->start, s->cx, s->measure_work);
        double pgs_error; /* not used: see the end */
        if (heft_bpp_pgs_answer(p, s->pgs, from, s->pgs_lambda, s->set, s->measure_work, &pgs_error,
                                stats)) {
            memcpy(s->lambda, s->pgs_lambda, vec);
            int have = 0;
            converged = outer_loop(p, s, tau, max_outer, bnorm, &outer, &have, stats);
            if (converged < 0) {
                s->kept_n = -1;
                return HEFT_SOLVE_FAILED;
            }
            if (!converged) {
                double second = INFINITY;
                if (have) {
                    heft_bpp_clamp_answer(p, s->best_lambda);
                    second = heft_mlcp_measure(p, s->best_lambda, s->measure_work).max;
                }
                if (!(second < first)) {
                    memcpy(s->best_lambda, s->fz_best, vec);
                    memcpy(s->best_set, s->first_set, (size_t)n);
                }
            }
        }
    }
    if (!converged && have_best && p->findex != NULL) {
        s->pcg_left = budget;
        converged = frozen_rounds(p, s, tau, max_outer, bnorm, &outer, stats);
    }
    stats->iterations = outer;
    const int warm = s->options.warm_start && p->lambda0 != NULL;
    int source = HEFT_ANSWER_SOLVER;
    if (!converged) {
        /* the exact backstop (as bpp's), from the points seen */
        const double *guesses[3];
        const int ng = seen_points(p, s, have_best, warm, stats, guesses);
        const int solved = heft_bpp_backstop(p, &s->options, &s->lemke, NULL, guesses, ng, tau,
                                             s->bs_answer, s->measure_work, stats);
        double kept = INFINITY;
        if (have_best) {
            heft_bpp_clamp_answer(p, s->best_lambda);
            kept = heft_mlcp_measure(p, s->best_lambda, s->measure_work).max;
        }
        if (solved > 0 ||
            (solved == 0 && heft_mlcp_measure(p, s->bs_answer, s->measure_work).max < kept)) {
            take_backstop_answer(p, s);
            have_best = 1;
            converged = solved > 0;
            source = HEFT_ANSWER_BACKSTOP;
        }
    }
    if (!converged) {
        /* the pivoting solvers' Newton stage (newton.h): above Lemke's cap
         * the one exact stage an island without joints has. From each point
         * seen, the nearest first, one budget of steps for all, as bpp's
         * first stage: a start that stalls ends early and leaves the rest
         * to the next (where the ball hits the tower of 40 layers, step 27,
         * the nearest point stalls 7e-4 J off in 14 steps) */
        const int steps = 2 * max_outer < BPP_NEWTON_STEPS ? 2 * max_outer : BPP_NEWTON_STEPS;
        double nearest;
        const int found = newton_from_seen(p, s, have_best, warm, tau, steps, &nearest, stats);
        if (found >= 0 && s->newton_error < nearest) {
            take_backstop_answer(p, s);
            have_best = 1;
            converged = found;
            source = HEFT_ANSWER_BACKSTOP;
        }
    }
    if (!converged) {
        /* the joints' rows eliminated, from the best point seen (as bpp) */
        double nearest;
        const double *from = nearest_seen(p, s, have_best, warm, stats, &nearest);
        const int found = heft_bpp_eliminated(p, &s->options, &s->elim, from, tau, s->start,
                                              s->bs_answer, s->measure_work, stats);
        if (found > 0 ||
            (found == 0 && heft_mlcp_measure(p, s->bs_answer, s->measure_work).max < nearest)) {
            take_backstop_answer(p, s);
            have_best = 1;
            converged = found > 0;
            source = HEFT_ANSWER_BACKSTOP;
        }
    }
    stats->time_solve_ms = heft_time_ms() - loop_start - stats->time_factor_ms;

    if (!converged) {
        if (have_best) {
            memcpy(s->lambda, s->best_lambda, vec);
            memcpy(s->set, s->best_set, (size_t)n);
        } else {
            memset(s->lambda, 0, vec); /* compared with the warm start below */
            heft_bpp_read_sets(p, s->lambda, s->set);
            source = HEFT_ANSWER_ZERO;
        }
        /* never worse than lambda = 0 or the warm start (as bpp). Unlike
         * bpp, pgcg does not answer PGS's answer when that is better: on
         * the tower of 10 layers that made 604 of 1,200 steps end
         * unconverged (97 without) at 449 ms a step (61), the next steps
         * starting from its sets */
        const int kept =
            heft_bpp_prefer_start_points(p, warm, s->lambda, s->set, s->cx, s->measure_work);
        if (kept != HEFT_ANSWER_SOLVER)
            source = kept;
    }
    stats->answer = source;
    bpp_answer a = {s->lambda,       s->set, s->kept_lambda, s->kept_set, &s->kept_n,
                    s->measure_work, warm,   s->cx,          NULL,        NULL};
    return heft_bpp_answer(p, &a, converged, start, lambda_out, stats);
}

static size_t pgcg_save_state(const void *state, void *buffer, size_t capacity);
static int pgcg_restore_state(void *state, const void *buffer, size_t size);

extern const heft_solver_vtable heft_pgcg_solver;

const heft_solver_vtable heft_pgcg_solver = {
    "pgcg",
    "preconditioned generalized conjugate gradient: PCG steps cut at the nearest bound, "
    "IC(0) with imaginary columns by default (Ho 2022, Alg. 11)",
    pgcg_create,
    pgcg_solve,
    pgcg_reset,
    pgcg_destroy,
    1,
    pgcg_save_state,
    pgcg_restore_state,
    0,
    NULL, /* reserve: workspaces sized at the first solve of each size */
};

/* The kept index sets and answer start the next solve; the sparse A and
 * its preconditioner are rebuilt from the next problem. */
static size_t pgcg_save_state(const void *state, void *buffer, size_t capacity) {
    const pgcg_state *s = state;
    state_writer w = {buffer, capacity, 0};
    if (s != NULL)
        state_put_kept(&w, s->kept_n, s->kept_set, s->kept_lambda);
    return w.size;
}

static int pgcg_restore_state(void *state, const void *buffer, size_t size) {
    pgcg_state *s = state;
    if (s == NULL || (buffer == NULL && size > 0))
        return -1;
    pgcg_reset(s);
    state_reader r = {buffer, size, 0, 0};
    const int kept =
        state_get_kept(&r, &s->kept_set, &s->kept_set_cap, &s->kept_lambda, &s->kept_lambda_cap);
    if (kept < -1 || r.at != size)
        return -1;
    s->kept_n = kept;
    return 0;
}
