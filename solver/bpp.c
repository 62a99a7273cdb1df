/* Heft: block principal pivoting, the "bpp", "bpp-downdate" and
 * "bpp-skyline" solvers (docs/architecture.md "The solvers"; [Lefebvre 2020] chapter 2,
 * [Ho 2022] §2.5).
 *
 * Júdice & Pires' block principal pivoting for the boxed MLCP. Every
 * variable is in one of three index sets: free (F), tight at its lower bound
 * (T_lo) or tight at its upper bound (T_hi). A pivoting step ([Lefebvre 2020] Alg. 2.1
 * lines 4-9, Alg. 2.2 lines 7-16):
 *
 *   1. tight variables are put at their bounds; the box of a friction row is
 *      [-mu lambda_f, mu lambda_f] with lambda_f the current normal impulse
 *      (when the normal row is free, lambda_f is an unknown of this step: see
 *      "the friction coupling" below);
 *   2. A_FF lambda_F = b_F - A_FT lambda_T is solved (eq. 2.3; the backend);
 *   3. w = A lambda - b;
 *   4. every variable that breaks eq. 2.1 changes set ([Ho 2022] eq. 2.41-2.44),
 *      with the boxes of the new lambda: a free variable below its lower
 *      (above its upper) bound becomes tight there; a variable tight at its
 *      lower bound with w < 0 (at its upper bound with w > 0) becomes free.
 *
 * It stops when no variable breaks eq. 2.1 and every tight friction row sits
 * on the bound its normal impulse gives (should one not, the next step
 * solves again with the same index sets: the factor is reused; bpp-pcg
 * first solves the same step again at a tighter PCG tolerance, see
 * pivot_loop), or after options.max_pivots steps.
 *
 * Block pivoting can cycle even with A positive definite ([Ho 2022] §2.5.3). As in
 * Júdice & Pires (1994), the number of variables that break eq. 2.1 is
 * watched: while it reaches new lows the step pivots them all; after
 * BPP_CYCLE_BUDGET steps without a new low the pivoting has stalled. It then
 * restarts once from the index sets of a PGS answer ("restart from PGS"
 * below; options.bpp_pgs_sweeps, 0 turns it off), with the steps it has
 * left; a second stall ends the pivoting. The papers switch to Murty's
 * least-index single pivoting there ([Ho 2022] §2.5.2), which is finite for fixed
 * boxes only: with the friction coupling it cycled too, and even on fixed
 * boxes it took over 500 steps on a winch island. Heft instead freezes the
 * friction boxes and solves the box-constrained QP by projected Newton,
 * which cannot cycle ("frozen friction boxes" below), with a budget of
 * options.max_pivots steps of its own; with the restart on, the frozen
 * boxes and the Newton stage run from the warm start first, before it.
 * What none of them ends within the tolerance goes to the backstop:
 * semismooth Newton on the error measure's residual (newton.c), then
 * Lemke's method on an LCP form of the problem (lemke.c), which needs no
 * factorization of A_FF and so also answers a singular one (redundant
 * contacts); docs/friction-backstop.md gives the order. With adaptive regularization on,
 * block pivoting goes on instead (the shifts end the cycle, [Ho 2022] §5.4). The
 * best pivoting iterate (fewest variables breaking eq. 2.1, then the
 * smallest error) is kept for when neither finishes ([Ho 2022] §2.5.2: "we simply
 * return the best solution we have seen so far"), and an unconverged answer
 * is never worse than the warm start or lambda = 0, nor than PGS's answer.
 *
 * Decisions use the energy tolerance tau = options.tolerance (J), the same
 * yardstick as the error measure: a free variable is out of its box when
 * putting it back would be worth more than tau (|excess| > sqrt(2 tau / A_ii)),
 * a tight one is non-complementary when freeing it would be
 * (|w_i| > sqrt(2 tau A_ii)). This hysteresis keeps round-off from flipping
 * degenerate variables back and forth. The answer is finally clamped into
 * its boxes, which moves it by less than that.
 *
 * Start: all free, or the index sets of this island's previous answer when
 * options.keep_index_sets is on and the size is the same ([Ho 2022] §2.5.2). */
#include <limits.h>
#include <math.h>
#include <string.h>

#include "baraff.h"
#include "body_space.h"
#include "bpp.h"
#include "pgs.h"
#include "row_math.h"
#include "workspace.h"
#include "solve_frame.h"

/* Block steps allowed without a new low of the infeasible count before the
 * pivoting counts as stalled (Júdice & Pires' p). */
#define BPP_CYCLE_BUDGET 3
/* An answer whose error is within this (J, the acceptance line of
 * mlcp-format.md) is not compared with the start points; a converged one
 * measured above BPP_CLAIM_LIMIT was converged on another A (heft_bpp_answer) */
#define BPP_ACCEPTED 1e-10
#define BPP_CLAIM_LIMIT 1e-8
/* Lemke's method with a dense B^-1 pays O(N^2) a pivot: from the all-slack
 * basis a 808-variable winch island took 13 s. With UMFPACK (a sparse LU
 * of the basis and eta updates) a pivot costs a sparse solve, 0.1 to 0.5 ms
 * at 600 to 1,600 variables. Larger problems end at the best answer of the
 * stages before. The cap when options.backstop_max_variables is
 * HEFT_BACKSTOP_BUILD_CAP: */
#ifdef HEFT_HAVE_UMFPACK
#define BPP_BACKSTOP_MAX_VARIABLES 2500
#else
#define BPP_BACKSTOP_MAX_VARIABLES 1000
#endif
/* The backstop's pivot budget, in LCP variables N: options.backstop_pivot_budget
 * (60) N over every path, half of it for a path from the all-slack basis and
 * a twelfth for one from a guess's basis. On the hard family's members of
 * 400 to 700 rows the first all-slack path needed 5 to 25 N pivots (10 n +
 * 100 was too short for all but one of them); a path from a near guess is
 * mostly its crash pivots (the 717-row tower island: 2,620 pivots for 1,673
 * variables from PGS's answer), and one that is not is as long as a cold
 * one, so the guesses' paths are cut short to leave the budget to the
 * all-slack ones. Crash pivots (at most N a guess) are not counted. */
#define BPP_BACKSTOP_PATH_SHARE 2.0
#define BPP_BACKSTOP_GUESS_SHARE 12.0
/* ... and at most this many from one start point: as many as the stage
 * has, since a start that stalls ends early (newton.c) and leaves the rest
 * to the next one; on the winch's 67 islands that went on to Lemke's method
 * (a 3,300-step run), a cap of 25 a start sent 61 of them there, 60 sent 28 */
#define BPP_NEWTON_START_STEPS 60
/* ... and before the restart from PGS (heft_bpp_solve), at most
 * options.max_pivots */
#define BPP_NEWTON_EARLY_STEPS 60
/* the Newton steps from Lemke's method's answer when round-off left it
 * short of the tolerance */
#define BPP_NEWTON_POLISH_STEPS 10
/* the Newton steps, all from one start while it makes progress, when the
 * problem is too large for Lemke's method and the Newton stage is the last
 * one: on the pyramid of base 10 (1,740 rows) the stage's best start came
 * from 1e-10 J to 4e-12 J in its 25 steps, at a linear rate, and went on to
 * 8.7e-13 J in 57 more (at most 5 options.max_pivots) */
#define BPP_NEWTON_LAST_STEPS 150
/* ... run only from a point within this many times the tolerance: the
 * shifted steps there gain about a factor of 2 in 20 steps, so a farther
 * point does not reach the tolerance within the budget (the wall's starts,
 * 1e-6 J off, came 2 to 10 times nearer at three times the cost) */
#define BPP_NEWTON_LAST_REACH 1e3
/* ... and, once it runs, from the solve's points within this many times
 * the tolerance, the best first. A farther start cannot come near the
 * tolerance in the stage's steps, and it takes them from the others: on the
 * pyramid of base 20's landing (7,080 rows) the starts 1e-2 J off took 71
 * Newton steps (3 s) and gained nothing, where the wall's cut island of
 * step 25 (tests/test_newton.c) needs the start 6e-8 J off: its answer is
 * where the approach by PGS below finds the point the stage ends from */
#define BPP_NEWTON_LAST_FAR 1e6
/* On an island too large for Lemke's method the earlier Newton stages
 * skip a start more than this many times farther off than the best answer
 * the stage has found: what follows them there (the last Newton stage, the
 * approach by PGS) goes on from the nearest point, so a far start's steps
 * are lost. On the pyramid of base 20's landing (7,080 rows) the starts
 * 3e-3 to 5e-3 J off, run after one that had come to 1e-10 J, took 37
 * Newton steps and 0.3 s of its two steps' 1.6 s and gained nothing. Under
 * the cap every start runs: on the winch's island of step 3,793 the far
 * start is the one that ends the solve, and without it Lemke's method took
 * 6,600 pivots (tests/test_newton.c) */
#define BPP_NEWTON_SKIP_FAR 1e6
/* When Lemke's method declines the island and no point of the solve is
 * near enough for the last Newton stage (BPP_NEWTON_LAST_REACH): PGS,
 * chained this many times
 * options.bpp_pgs_sweeps sweeps from the best answer so far, its best
 * iterate by the error measure kept, then the last Newton stage from there.
 * On the wall of 96 bricks while it falls (2,865 to 3,132 rows, LCPs of
 * some 7,000 variables) the Newton stage stalled 1e-6 J off from every
 * start the solve had; 30,000 sweeps (0.4 s) came to 1.5e-9 to 1e-7 J,
 * and the Newton stage from there to 1.4e-11 to 3e-8 J. The sweeps went
 * no nearer with more: 100,000 of them stayed at 1e-8 J on two of those
 * islands (docs/friction-backstop.md "Still weak"). */
#define BPP_APPROACH_ROUNDS 30
/* Lemke's paths whose answer misses the tolerance by at most this (J) get
 * the Newton polish at once, before the next path (lemke.h polish). On the
 * winch's islands that reach Lemke's method the paths end on bases from
 * 1e-10 J to hundreds of J off, and each path that follows (from the
 * all-slack basis, the proximal rounds) costs 1,000 to 3,000 pivots; 10
 * Newton steps ended answers up to 1.7e-3 J off, none from 1.4e-2 J or
 * farther (docs/friction-backstop.md "Still weak") */
#define BPP_POLISH_REACH 1e-2
/* Floor of the decision tolerance, J: below this, round-off decides. */
#define BPP_TOLERANCE_FLOOR 1e-20

void *heft_bpp_create(const heft_solver_options *options, bpp_backend backend) {
    bpp_state *s = heft_alloc(sizeof *s);
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof *s);
    s->backend = backend;
    s->options = options != NULL ? *options : heft_solver_default_options();
    s->kept_n = -1;
    s->body_min_compliance = HEFT_BODY_SPACE_MIN_COMPLIANCE;
    s->pgs = heft_pgs_create_for_restart(&s->options);
    if (s->pgs == NULL) {
        heft_free(s);
        return NULL;
    }
    return s;
}

static void *bpp_create(const heft_solver_options *options) {
    return heft_bpp_create(options, BPP_REFACTOR);
}

static void *bpp_downdate_create(const heft_solver_options *options) {
    return heft_bpp_create(options, BPP_DOWNDATE);
}

static void *bpp_skyline_create(const heft_solver_options *options) {
    return heft_bpp_create(options, BPP_SKYLINE);
}

/* Forgets the index sets and the ordering (the island's topology changed);
 * the workspaces are kept. */
void heft_bpp_reset(void *state) {
    bpp_state *s = state;
    if (s == NULL)
        return;
    s->kept_n = -1;
    s->ordering_valid = 0;
    s->wood_n = 0;
    heft_bpp_body_forget(s);
}

void heft_bpp_set_nested(void *state) {
    ((bpp_state *)state)->nested = 1;
}

void heft_bpp_destroy(void *state) {
    bpp_state *s = state;
    if (s == NULL)
        return;
    heft_bpp_elimination_release(&s->elim);
    heft_bpp_pcg_release(s);
    heft_bpp_body_release(s);
#ifdef HEFT_HAVE_CHOLMOD
    heft_bpp_sparse_release(s);
#endif
    heft_adaptive_reg_release(&s->reg);
    heft_pgs_solver.destroy(s->pgs);
    heft_lemke_release(&s->lemke);
    heft_newton_release(&s->newton);
    heft_envelope_work_release(&s->env);
    for (int k = 0; k < BPP_NEWTON_RUNS; ++k) {
        heft_free(s->newton_runs[k].start);
        heft_free(s->newton_runs[k].answer);
    }
    void *arrays[] = {s->kept_set,
                      s->kept_lambda,
                      s->set,
                      s->next_set,
                      s->best_set,
                      s->tight,
                      s->lambda,
                      s->best_lambda,
                      s->w,
                      s->rhs,
                      s->x,
                      s->diag,
                      s->row_diag,
                      s->measure_work,
                      s->A_own,
                      s->factor,
                      s->factor0,
                      s->free_rows,
                      s->sigma,
                      s->start,
                      s->A_sky,
                      s->L0_sky,
                      s->L_sky,
                      s->tight_perm,
                      s->px,
                      s->py,
                      s->downdate_cost,
                      s->block_end,
                      s->k_row,
                      s->k_prev,
                      s->k_last,
                      s->k_start,
                      s->factored_tight,
                      s->coupled,
                      s->normal_slot,
                      s->normals,
                      s->coupling,
                      s->coupling_pivot,
                      s->u,
                      s->wood[0],
                      s->wood[1],
                      s->wood_rows[0],
                      s->wood_rows[1],
                      s->fz_lo,
                      s->fz_hi,
                      s->fz_x,
                      s->fz_ax,
                      s->fz_d,
                      s->fz_t,
                      s->fz_best,
                      s->pgs_lambda};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
    heft_ordering_release(&s->ordering);
    heft_free(s);
}

static int imin(int a, int b) {
    return a < b ? a : b;
}

static int imax(int a, int b) {
    return a > b ? a : b;
}

/* ---- the backend -------------------------------------------------------------------- */

static int backend_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats) {
    if (s->backend == BPP_PCG)
        return heft_bpp_pcg_prepare(s, p, stats);
#ifdef HEFT_HAVE_CHOLMOD
    if (s->backend == BPP_SPARSE)
        return heft_bpp_sparse_prepare(s, p, stats);
#endif
    return s->backend == BPP_SKYLINE ? heft_bpp_skyline_prepare(s, p, stats)
                                     : heft_bpp_dense_prepare(s, p, stats);
}

static void backend_multiply(bpp_state *s, int n, const double *x, double *y) {
    if (s->backend == BPP_PCG)
        heft_bpp_pcg_multiply(s, n, x, y);
#ifdef HEFT_HAVE_CHOLMOD
    else if (s->backend == BPP_SPARSE)
        heft_bpp_sparse_multiply(s, n, x, y);
#endif
    else if (s->backend == BPP_SKYLINE)
        heft_bpp_skyline_multiply(s, n, x, y);
    else
        heft_bpp_dense_multiply(s, n, x, y);
}

/* guess: the iterative backend's starting point (the direct ones ignore it) */
static int backend_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                         const double *guess, heft_solver_stats *stats) {
    switch (s->backend) {
    case BPP_PCG:
        return heft_bpp_pcg_solve(s, n, tight, x, guess, stats);
    case BPP_REFACTOR:
        return heft_bpp_refactor_solve(s, n, tight, x, stats);
    case BPP_DOWNDATE:
        return heft_bpp_downdate_solve(s, n, tight, x, stats);
    case BPP_SKYLINE:
        return heft_bpp_skyline_solve(s, n, tight, x, stats);
    case BPP_SPARSE:
#ifdef HEFT_HAVE_CHOLMOD
        return heft_bpp_sparse_solve(s, n, tight, x, stats);
#else
        return -1;
#endif
    }
    return -1;
}

/* ---- the pivoting loop ------------------------------------------------------------- */

/* findex in [0, n): one unsigned comparison (the two passes over the rows
 * of the clamp and of the tight placement ask it of every row twice) */
static inline int friction_row(const heft_mlcp *p, int i) {
    return p->findex != NULL && (uint32_t)p->findex[i] < (uint32_t)p->n;
}

/* Step 1: tight variables at their bounds. Rows without a friction coupling
 * first, so a friction row reads its normal impulse as it is now. A variable
 * "tight" at an infinite bound (kept sets of a problem whose bounds changed)
 * is made free. Fills tight[] and returns the size of the tight set. */
int heft_bpp_place_tight(const heft_mlcp *p, uint8_t *set, double *lambda, unsigned char *tight) {
    int count = 0;
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < p->n; ++i) {
            if (friction_row(p, i) != pass)
                continue;
            double lo, hi;
            heft_row_bounds(p, lambda, i, &lo, &hi);
            if ((set[i] == BPP_AT_LO && !isfinite(lo)) || (set[i] == BPP_AT_HI && !isfinite(hi)))
                set[i] = BPP_FREE;
            tight[i] = set[i] != BPP_FREE;
            if (set[i] == BPP_AT_LO)
                lambda[i] = lo;
            else if (set[i] == BPP_AT_HI)
                lambda[i] = hi;
            count += tight[i];
        }
    return count;
}

/* 0.5 (lambda - p)^2 d with p = clamp(lambda - w / d, lo, hi), as heft_mlcp_measure. */
static double row_error(double lambda, double w, double d, double lo, double hi) {
    if (!(d > 0.0))
        return 0.0;
    const double step = w / d, target = lambda - step;
    const double proj = target < lo ? lo : (target > hi ? hi : target);
    const double change = proj == target ? step : lambda - proj;
    return 0.5 * change * change * d;
}

/* Step 4: eq. 2.1 with the bounds of the new lambda; next[] gets every
 * variable's set after a block pivot. */
bpp_check heft_bpp_check_sets(const heft_mlcp *p, const uint8_t *set, const double *lambda,
                              const double *w, const double *d, double tau, uint8_t *next) {
    bpp_check c = {0, 0, 0, 0.0, 0.0};
    for (int i = 0; i < p->n; ++i) {
        double lo, hi;
        heft_row_bounds(p, lambda, i, &lo, &hi);
        const double l = lambda[i], wi = w[i];
        next[i] = set[i];
        if (!isfinite(l) || !isfinite(wi)) {
            c.nonfinite++;
            continue;
        }
        const double di = d[i] > 0.0 ? d[i] : 0.0;
        const double slack = di > 0.0 ? sqrt(2.0 * tau / di) : 0.0; /* on lambda */
        const double wslack = sqrt(2.0 * tau * di);                 /* on w */
        const int closed = !(lo < hi);
        switch (set[i]) {
        case BPP_FREE: /* [Ho 2022] eq. 2.41, 2.42 */
            if (l < lo - slack)
                next[i] = BPP_AT_LO;
            else if (l > hi + slack)
                next[i] = BPP_AT_HI;
            break;
        case BPP_AT_LO: /* eq. 2.43; a closed box [x, x] has no wrong sign of w */
            if (!closed && wi < -wslack)
                next[i] = BPP_FREE;
            else if (fabs(l - lo) > slack)
                c.stale++;
            break;
        default: /* BPP_AT_HI, eq. 2.44 */
            if (!closed && wi > wslack)
                next[i] = BPP_FREE;
            else if (fabs(l - hi) > slack)
                c.stale++;
            break;
        }
        c.pivots += next[i] != set[i];
        const double e = row_error(l, wi, di, lo, hi);
        c.error_sum += e;
        if (e > c.error_max)
            c.error_max = e;
    }
    return c;
}

/* Clamps lambda into its boxes, normal rows before the friction rows whose
 * box they give. */
void heft_bpp_clamp_answer(const heft_mlcp *p, double *lambda) {
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < p->n; ++i) {
            if (friction_row(p, i) != pass)
                continue;
            double lo, hi;
            heft_row_bounds(p, lambda, i, &lo, &hi);
            if (lambda[i] < lo)
                lambda[i] = lo;
            else if (lambda[i] > hi)
                lambda[i] = hi;
        }
}

/* ---- the friction coupling ------------------------------------------------------------ */

/* A friction row t tight on its box while its normal row f is free has the
 * impulse s_t mu_t lambda_f (s_t = -1 at the lower bound, +1 at the upper),
 * and lambda_f is one of the unknowns of the step. Taking the box from the
 * previous iterate's lambda_f turns the last steps into a fixed-point
 * iteration on the normal impulses, which converges slowly, or diverges, when
 * friction and normal rows are strongly coupled (it did on planted problems
 * of 10 to 1000 rows: 35 steps without reaching 1e-10 J, and a divergence at
 * 200 rows). So each step first finds the normal impulses of the coupled
 * system exactly: with U = [sum_t s_t mu_t A_{F,t}] one column per coupled
 * normal f and E selecting the rows f,
 *     (A_FF + U E^T) lambda_F = r,    r = b_F - A_FT lambda_T (uncoupled T)
 * and by the Woodbury identity on the factor of A_FF the backend holds,
 *     y = A_FF^-1 r,  Z = A_FF^-1 U,  lambda_N = (I + E^T Z)^-1 E^T y,
 * one solve per coupled normal and a k x k LU. The coupled friction rows are
 * then put at s_t mu_t lambda_f and the step goes on with the ordinary solve
 * of eq. 2.3, so what is solved is still A_FF, with every box at its final
 * value. More than BPP_MAX_COUPLED coupled normals (the k x k matrix is
 * dense), or a singular I + E^T Z, and the step keeps the boxes of the
 * previous iterate instead.
 *
 * bpp-skyline in body space solves the coupled system itself instead, in
 * one unsymmetric solve through the bodies (body_space.h
 * heft_body_space_solve): the k + 1 refined solves of the Woodbury
 * identity cost more than the step's factorization there (a pyramid of
 * base 20 couples hundreds of normal rows while it settles). */
#define BPP_MAX_COUPLED 1024
/* bpp-pcg keeps the Woodbury solves (y and Z, (k + 1) n doubles) as the
 * starting points of the next coupling's when they fit in this many
 * doubles (8 MB a buffer) */
#define BPP_WOODBURY_KEPT (1u << 20)

int heft_bpp_lu_factor(double *a, int k, int *pivot) {
    double largest = 0.0;
    for (int e = 0; e < k * k; ++e)
        largest = fmax(largest, fabs(a[e]));
    for (int c = 0; c < k; ++c) {
        int best = c;
        for (int r = c + 1; r < k; ++r)
            if (fabs(a[r * k + c]) > fabs(a[best * k + c]))
                best = r;
        pivot[c] = best;
        if (!(fabs(a[best * k + c]) > 1e-13 * largest) || !isfinite(a[best * k + c]))
            return 0;
        if (best != c)
            for (int e = 0; e < k; ++e) {
                const double t = a[c * k + e];
                a[c * k + e] = a[best * k + e];
                a[best * k + e] = t;
            }
        for (int r = c + 1; r < k; ++r) {
            const double m = a[r * k + c] / a[c * k + c];
            a[r * k + c] = m;
            for (int e = c + 1; e < k; ++e)
                a[r * k + e] -= m * a[c * k + e];
        }
    }
    return 1;
}

void heft_bpp_lu_solve(const double *a, int k, const int *pivot, double *x) {
    for (int c = 0; c < k; ++c) {
        const double t = x[c];
        x[c] = x[pivot[c]];
        x[pivot[c]] = t;
    }
    for (int r = 0; r < k; ++r)
        for (int c = 0; c < r; ++c)
            x[r] -= a[r * k + c] * x[c];
    for (int r = k - 1; r >= 0; --r) {
        for (int c = r + 1; c < k; ++c)
            x[r] -= a[r * k + c] * x[c];
        x[r] /= a[r * k + r];
    }
}

static void backend_add_column(bpp_state *s, int n, int j, double c, double *out) {
    if (s->backend == BPP_PCG)
        heft_bpp_pcg_add_column(s, n, j, c, out);
#ifdef HEFT_HAVE_CHOLMOD
    else if (s->backend == BPP_SPARSE)
        heft_bpp_sparse_add_column(s, n, j, c, out);
#endif
    else if (s->backend == BPP_SKYLINE)
        heft_bpp_skyline_add_column(s, n, j, c, out);
    else
        heft_bpp_dense_add_column(s, n, j, c, out);
}

/* rhs = b - A_FT lambda_T over the tight rows, leaving out those with skip[i] */
static void free_rhs(const heft_mlcp *p, bpp_state *s, const uint8_t *skip) {
    const int n = p->n;
    int any = 0;
    for (int i = 0; i < n; ++i) {
        const int used = s->tight[i] && !(skip != NULL && skip[i]);
        s->x[i] = used ? s->lambda[i] : 0.0;
        any |= used;
    }
    if (!any) {
        memcpy(s->rhs, p->b, sizeof(double) * (size_t)n);
        return;
    }
    backend_multiply(s, n, s->x, s->rhs);
    for (int i = 0; i < n; ++i)
        s->rhs[i] = p->b[i] - s->rhs[i];
}

/* Puts the coupled friction rows at s_t mu_t lambda_f of the coupled system
 * (see above). Returns 0 when done or not needed, 1 when done and the free
 * rows' lambda_F is in s->rhs too, -1 when the factor failed. */
static int couple_friction(const heft_mlcp *p, bpp_state *s, heft_solver_stats *stats) {
    const int n = p->n;
    int k = 0;
    for (int i = 0; i < n; ++i)
        s->normal_slot[i] = -1;
    for (int t = 0; t < n; ++t) {
        s->coupled[t] = s->tight[t] && friction_row(p, t) && s->set[p->findex[t]] == BPP_FREE;
        if (!s->coupled[t])
            continue;
        const int f = p->findex[t];
        if (s->normal_slot[f] < 0) {
            s->normal_slot[f] = k;
            s->normals[k++] = f;
        }
    }
    const int body = s->backend == BPP_SKYLINE && heft_bpp_body_active(s);
    if (k > 0 && s->backend == BPP_SKYLINE &&
        (body || s->options.skyline_refactor_fraction < 1.0)) {
        /* bpp-skyline solves the coupled system itself, in one
         * unsymmetric factorization: K's LU in body space, else an LU in
         * the free rows' envelope (skyline_lu.h), instead of k + 1 solves
         * with the symmetric factor (the winch's chain dragged over the
         * ground couples some 90 normals a step, and those solves were
         * half of its time); not when the options ask for downdates alone
         * (the thesis' Alg. 2.5, for comparisons). kappa_t = s_t mu_t in
         * u; the coupled system's lambda_F into rhs. */
        for (int t = 0; t < n; ++t)
            s->u[t] = s->coupled[t] ? (s->set[t] == BPP_AT_HI ? 1.0 : -1.0) * fabs(p->hi[t]) : 0.0;
        free_rhs(p, s, s->coupled);
        const int rc =
            body ? heft_bpp_body_coupled_solve(s, s->tight, s->u, s->rhs, stats)
                 : heft_bpp_skyline_coupled_solve(s, s->tight, s->u, p->findex, k, s->rhs, stats);
        if (rc < 0)
            return -1;
        if (rc == 0) {
            stats->inner_iterations++;
            for (int t = 0; t < n; ++t)
                if (s->coupled[t])
                    s->lambda[t] = s->u[t] * s->rhs[p->findex[t]];
            return body ? 0 : 1; /* 1: lambda_F in rhs, the step needs no other solve */
        }
        /* it could not: the Woodbury solves below, on the symmetric factor */
    }
    if (k == 0 || k > BPP_MAX_COUPLED)
        return 0;
    const size_t uk = (size_t)k;
    if (!HEFT_RESERVE(s->coupling, s->coupling_cap, uk * uk + uk) ||
        !HEFT_RESERVE(s->coupling_pivot, s->coupling_pivot_cap, uk))
        return 0; /* out of memory: the boxes of the previous iterate */
    double *S = s->coupling, *lambda_N = s->coupling + uk * uk;

    /* bpp-pcg solves by PCG from a starting point: the last coupling's y and
     * its column of Z for the same normal row ([Ho 2022] §5.3's warm start applied
     * to these solves). A step solved again at a tighter tolerance (see
     * pivot_loop) has the same A_FF and U, and the next pivoting step nearly
     * so; from zero these solves were 90% of the PCG iterations on a
     * pyramid of base 12. Any start gives the same stopping test. */
    const size_t kept = (uk + 1) * (size_t)n;
    const int old = s->wood_cur, cur = 1 - old;
    int keep = s->backend == BPP_PCG && kept <= BPP_WOODBURY_KEPT;
    const int have_old = keep && s->wood_n == n;
    if (keep) {
        s->wood_n = 0; /* until this coupling is complete (a failed solve below) */
        keep = HEFT_RESERVE(s->wood[cur], s->wood_cap[cur], kept) &&
               HEFT_RESERVE(s->wood_rows[cur], s->wood_rows_cap[cur], uk);
    }
    double *const kept_y = keep ? s->wood[cur] : NULL;

    /* y = A_FF^-1 r with the coupled rows left out of r */
    free_rhs(p, s, s->coupled);
    if (backend_solve(s, n, s->tight, s->rhs, have_old && keep ? s->wood[old] : NULL, stats) != 0)
        return -1;
    if (keep)
        memcpy(kept_y, s->rhs, sizeof(double) * (size_t)n);
    for (int q = 0; q < k; ++q)
        lambda_N[q] = s->rhs[s->normals[q]];
        /* S = I + E^T A_FF^-1 U: bpp-sparse solves for every column of U at
         * once (one pass over the factor for all k right-hand sides) */
#ifdef HEFT_HAVE_CHOLMOD
    if (s->backend == BPP_SPARSE) {
        double *U = heft_bpp_sparse_columns(s, n, k);
        if (U == NULL)
            return -1;
        for (int t = 0; t < n; ++t)
            if (s->coupled[t]) {
                const double sign = s->set[t] == BPP_AT_HI ? 1.0 : -1.0;
                backend_add_column(s, n, t, sign * fabs(p->hi[t]),
                                   U + (size_t)s->normal_slot[p->findex[t]] * (size_t)n);
            }
        if (heft_bpp_sparse_solve_columns(s, n, s->tight, k, stats) != 0)
            return -1;
        for (int q = 0; q < k; ++q)
            for (int r = 0; r < k; ++r)
                S[(size_t)r * uk + q] =
                    (r == q ? 1.0 : 0.0) + U[(size_t)q * (size_t)n + (size_t)s->normals[r]];
    }
#endif
    for (int q = 0; q < k && s->backend != BPP_SPARSE; ++q) {
        for (int i = 0; i < n; ++i)
            s->u[i] = 0.0;
        for (int t = 0; t < n; ++t)
            if (s->coupled[t] && s->normal_slot[p->findex[t]] == q) {
                const double sign = s->set[t] == BPP_AT_HI ? 1.0 : -1.0;
                backend_add_column(s, n, t, sign * fabs(p->hi[t]), s->u);
            }
        const double *guess = NULL;
        for (int c = 0; have_old && keep && c < s->wood_k[old] && guess == NULL; ++c)
            if (s->wood_rows[old][c] == s->normals[q])
                guess = s->wood[old] + (size_t)(c + 1) * (size_t)n;
        if (backend_solve(s, n, s->tight, s->u, guess, stats) != 0)
            return -1;
        if (keep) {
            memcpy(kept_y + (size_t)(q + 1) * (size_t)n, s->u, sizeof(double) * (size_t)n);
            s->wood_rows[cur][q] = s->normals[q];
        }
        for (int r = 0; r < k; ++r)
            S[(size_t)r * uk + q] = (r == q ? 1.0 : 0.0) + s->u[s->normals[r]];
    }
    /* the other buffer at this size too (its contents are used up), so that
     * a repeated solve allocates nothing */
    if (keep && HEFT_RESERVE(s->wood[old], s->wood_cap[old], kept) &&
        HEFT_RESERVE(s->wood_rows[old], s->wood_rows_cap[old], uk)) {
        s->wood_cur = cur;
        s->wood_k[cur] = k;
        s->wood_n = n;
    }
    stats->inner_iterations += k + 1;
    if (!heft_bpp_lu_factor(S, k, s->coupling_pivot))
        return 0; /* singular coupling: the boxes of the previous iterate */
    heft_bpp_lu_solve(S, k, s->coupling_pivot, lambda_N);
    for (int t = 0; t < n; ++t)
        if (s->coupled[t]) {
            const double sign = s->set[t] == BPP_AT_HI ? 1.0 : -1.0;
            s->lambda[t] = sign * fabs(p->hi[t]) * lambda_N[s->normal_slot[p->findex[t]]];
        }
    return 0;
}

/* ---- frozen friction boxes: the fall-back when pivoting fails ------------------------ */

/* Block pivoting with the friction coupling has no convergence guarantee:
 * the coupled system (A_FF + U E^T above) is not symmetric, and on links
 * dragged over the ground (two contact points and four friction rows per
 * 1 kg capsule, with the ball joints, more rows than degrees of freedom) it
 * is nearly singular. An exported winch island cycled from every start,
 * even from index sets within 6e-6 J of the answer, and least-index single
 * pivoting cycled with it. Single pivoting is
 * finite only for fixed boxes, and even then it took more than 500 steps
 * there, one variable at a time.
 *
 * So when the pivoting stalls, the boxes are frozen: each friction row gets
 * [-mu lambda_f, mu lambda_f] with the normal impulse lambda_f of the warm
 * start (of the best pivoting iterate without one), which makes the
 * problem a box-constrained convex quadratic
 * program, min f(x) = 1/2 x^T A x - b^T x (A positive definite). That is
 * solved by projected Newton (Bertsekas 1982): the variables at a bound whose
 * gradient pushes outwards are held, the others take the step of
 * A_FF x_F = b_F - A_FT x_T (the backend's solve, as a pivoting step), and a
 * projected line search with Armijo's rule keeps f decreasing, so it cannot
 * cycle; with the right active set the full step is taken and it ends
 * exactly. Then the boxes are refrozen from the new normal impulses and the
 * solve repeated (a fixed point on the normal impulses; it converged at a
 * rate of about 0.6 per round on that island) while the budget lasts.
 *
 * The answer is the frozen solution with the smallest MLCP error (or, when
 * the budget ends inside the first round, that round's iterate): in the
 * frozen problem its joints and contact normals are exact and only its
 * friction boxes lag the normal impulses by a round; clamped into the boxes
 * of its own normal impulses, as every answer is, it moves a little
 * (tests/data/winch-stall-step300.mlcp: joint rows' |w| 7.9e-4 m/s, against
 * 0.11 at the warm start). It counts as converged only when its error is
 * within the tolerance, and the solver still answers the warm start when
 * that is better. */

/* Armijo's sufficient decrease, and the halvings of the line search */
#define BPP_ARMIJO 1e-4
#define BPP_LINE_SEARCH_STEPS 40
/* cap of the epsilon-active set, relative to the largest impulse */
#define BPP_ACTIVE_EPS 1e-3

/* The error measure of x on the solve's problem, the rows' A_ii computed at
 * its first measure and kept: a settled step measures twice (the warm start,
 * the answer), and the diagonal was a third of each. */
static heft_mlcp_error bpp_measure(bpp_state *s, const heft_mlcp *p, const double *x) {
    if (!s->row_diag_ready) {
        for (int i = 0; i < p->n; ++i)
            s->row_diag[i] = heft_mlcp_diagonal(p, i);
        s->row_diag_ready = 1;
    }
    return heft_mlcp_measure_diagonal(p, x, s->row_diag, s->measure_work);
}

/* f(x) = 1/2 x^T A x - b^T x; ax gets A x */
static double frozen_objective(bpp_state *s, const heft_mlcp *p, const double *x, double *ax) {
    backend_multiply(s, p->n, x, ax);
    double f = 0.0;
    for (int i = 0; i < p->n; ++i)
        f += x[i] * (0.5 * ax[i] - p->b[i]);
    return f;
}

/* The frozen boxes from the normal impulses of x; x is clamped into them. */
static void freeze_boxes(const heft_mlcp *p, bpp_state *s, double *x) {
    for (int i = 0; i < p->n; ++i)
        heft_mlcp_bounds(p, x, i, &s->fz_lo[i], &s->fz_hi[i]);
    for (int i = 0; i < p->n; ++i)
        x[i] = x[i] < s->fz_lo[i] ? s->fz_lo[i] : (x[i] > s->fz_hi[i] ? s->fz_hi[i] : x[i]);
}

/* Largest row error of x against the frozen boxes; w = A x - b. */
static double frozen_error(const heft_mlcp *p, const bpp_state *s, const double *x,
                           const double *w) {
    double e = 0.0;
    for (int i = 0; i < p->n; ++i)
        e = fmax(e, row_error(x[i], w[i], s->diag[i], s->fz_lo[i], s->fz_hi[i]));
    return e;
}

/* Projected Newton on the frozen boxes from s->fz_x (inside them). Uses at
 * most *budget backend solves (counted down). Returns 1 when the frozen
 * error reached tau, 0 when the budget ran out, -1 when a solve failed. */
static int frozen_newton(const heft_mlcp *p, bpp_state *s, double tau, int *budget,
                         heft_solver_stats *stats) {
    const int n = p->n;
    double *x = s->fz_x, *ax = s->fz_ax, *d = s->fz_d, *xt = s->fz_t;
    double f = frozen_objective(s, p, x, ax);
    for (;;) {
        for (int i = 0; i < n; ++i)
            s->w[i] = ax[i] - p->b[i]; /* the gradient */
        if (frozen_error(p, s, x, s->w) <= tau)
            return 1;
        if (*budget <= 0)
            return 0;
        /* the held set (Bertsekas' epsilon-active set): within eps of a
         * bound with the gradient pushing outwards, or a closed box; eps is
         * the size of the projected scaled-gradient step, capped. Holding
         * only variables exactly at a bound stalled on an exported winch
         * island (300 iterations, against 15). */
        double eps = 0.0, scale = 1.0;
        for (int i = 0; i < n; ++i) {
            const double di = s->diag[i] > 0.0 ? s->diag[i] : 1.0;
            const double t = x[i] - s->w[i] / di;
            const double proj = t < s->fz_lo[i] ? s->fz_lo[i] : (t > s->fz_hi[i] ? s->fz_hi[i] : t);
            eps = fmax(eps, fabs(x[i] - proj));
            scale = fmax(scale, fabs(x[i]));
        }
        eps = fmin(eps, BPP_ACTIVE_EPS * scale);
        int any_held = 0;
        for (int i = 0; i < n; ++i) {
            const double lo = s->fz_lo[i], hi = s->fz_hi[i];
            s->tight[i] = !(lo < hi) || (x[i] <= lo + eps && s->w[i] > 0.0) ||
                          (x[i] >= hi - eps && s->w[i] < 0.0);
            s->u[i] = s->tight[i] ? x[i] : 0.0;
            any_held |= s->tight[i];
        }
        /* the subspace minimizer: A_FF y_F = b_F - A_FT x_T */
        if (any_held) {
            backend_multiply(s, n, s->u, s->rhs);
            for (int i = 0; i < n; ++i)
                s->rhs[i] = p->b[i] - s->rhs[i];
        } else {
            memcpy(s->rhs, p->b, sizeof(double) * (size_t)n);
        }
        --*budget;
        stats->iterations++;
        if (stats->tight_trace_count < HEFT_MAX_PIVOT_TRACE) {
            int held = 0;
            for (int i = 0; i < n; ++i)
                held += s->tight[i];
            stats->tight_trace[stats->tight_trace_count++] = held;
        }
        if (backend_solve(s, n, s->tight, s->rhs, x, stats) != 0)
            return -1;
        for (int i = 0; i < n; ++i) /* held ones: the scaled gradient, towards their bound */
            d[i] =
                !s->tight[i] ? s->rhs[i] - x[i] : (s->diag[i] > 0.0 ? -s->w[i] / s->diag[i] : 0.0);
        /* projected search along the Newton step, then the Newton step cut
         * at the first bound it meets, then the projected search along the
         * scaled gradient (always a descent direction) */
        int moved = 0;
        for (int direction = 0; direction < 3 && !moved; ++direction) {
            if (direction == 1) {
                /* the free variables' Newton step, held ones kept: f falls
                 * along it up to t = 1 (y_F minimizes f on that face), so
                 * its feasible part is a descent step and the variable that
                 * blocks it is held next time. Where the projected search
                 * failed and only the gradient was left, a resting stack of
                 * five boxes (tests/data ... ) took 77 gradient steps */
                double t = 1.0;
                int block = -1;
                for (int i = 0; i < n; ++i) {
                    if (s->tight[i])
                        continue;
                    const double di = s->rhs[i] - x[i];
                    const double room = di > 0.0 ? s->fz_hi[i] - x[i] : s->fz_lo[i] - x[i];
                    if (di != 0.0 && room / di < t) {
                        t = room / di > 0.0 ? room / di : 0.0;
                        block = i;
                    }
                }
                if (!(t > 0.0))
                    continue;
                for (int i = 0; i < n; ++i)
                    xt[i] = s->tight[i] ? x[i] : x[i] + t * (s->rhs[i] - x[i]);
                if (block >= 0) {
                    const double di = s->rhs[block] - x[block];
                    xt[block] = di > 0.0 ? s->fz_hi[block] : s->fz_lo[block];
                }
                for (int i = 0; i < n; ++i)
                    xt[i] = xt[i] < s->fz_lo[i] ? s->fz_lo[i]
                                                : (xt[i] > s->fz_hi[i] ? s->fz_hi[i] : xt[i]);
                double *axt = s->u;
                const double ft = frozen_objective(s, p, xt, axt);
                if (isfinite(ft) && ft < f) {
                    memcpy(x, xt, sizeof(double) * (size_t)n);
                    memcpy(ax, axt, sizeof(double) * (size_t)n);
                    f = ft;
                    moved = 1;
                }
                continue;
            }
            if (direction == 2)
                for (int i = 0; i < n; ++i)
                    d[i] = s->diag[i] > 0.0 ? -s->w[i] / s->diag[i] : 0.0;
            double t = 1.0;
            for (int k = 0; k < BPP_LINE_SEARCH_STEPS; ++k, t *= 0.5) {
                double decrease = 0.0;
                for (int i = 0; i < n; ++i) {
                    const double v = x[i] + t * d[i];
                    xt[i] = v < s->fz_lo[i] ? s->fz_lo[i] : (v > s->fz_hi[i] ? s->fz_hi[i] : v);
                    decrease += s->w[i] * (x[i] - xt[i]);
                }
                if (!(decrease > 0.0))
                    break;          /* no descent along this direction */
                double *axt = s->u; /* A xt */
                const double ft = frozen_objective(s, p, xt, axt);
                if (isfinite(ft) && ft <= f - BPP_ARMIJO * decrease) {
                    memcpy(x, xt, sizeof(double) * (size_t)n);
                    memcpy(ax, axt, sizeof(double) * (size_t)n);
                    f = ft;
                    moved = 1;
                    break;
                }
            }
        }
        if (!moved)
            return 0; /* no decrease left at this precision */
    }
}

/* The fall-back above. start: the point whose normal impulses freeze the
 * first boxes; each round is projected Newton on the boxes frozen at the
 * last round's answer. Returns 1 when the answer (in s->lambda) is within
 * tau of the coupled problem, 0 when it is not, -1 when there is none
 * (s->lambda unchanged). Uses at most budget backend solves. */
static int frozen_boxes(const heft_mlcp *p, bpp_state *s, const double *start, double tau,
                        int budget, heft_solver_stats *stats) {
    const int n = p->n;
    const size_t vec = sizeof(double) * (size_t)n;
    double best_error = INFINITY;
    memcpy(s->fz_x, start, vec);
    for (int i = 0; i < n; ++i)
        if (!isfinite(s->fz_x[i]))
            s->fz_x[i] = 0.0;
    int found = 0;
    while (budget > 0) {
        /* every round spends budget: a round whose projected Newton returns
         * at once (the frozen error already within tau while the coupled one
         * is not, as on a non-symmetric A) would otherwise repeat forever */
        const int before = budget;
        stats->frozen_rounds++;
        freeze_boxes(p, s, s->fz_x);
        const int solved = frozen_newton(p, s, tau, &budget, stats);
        if (budget == before)
            --budget;
        if (solved < 0)
            break;
        if (solved == 0) {
            /* out of budget inside the first round: its iterate is inside
             * the frozen boxes with a smaller f than the point it started
             * from, far better than the best pivoting iterate (which was off
             * by 1e5 J on the winch) */
            if (!found)
                memcpy(s->fz_best, s->fz_x, vec);
            found = 1;
            break;
        }
        const double e = bpp_measure(s, p, s->fz_x).max;
        if (!(e >= best_error)) {
            best_error = e;
            memcpy(s->fz_best, s->fz_x, vec);
            found = 1;
        }
        if (e <= tau)
            break;
    }
    if (!found)
        return -1;
    memcpy(s->lambda, s->fz_best, vec);
    return best_error <= tau;
}

/* The pivoting's workspaces for n rows on nbodies bodies (structured: the
 * rows given as Jacobians, which PGS's restart reads through). */
static int reserve_workspace_size(bpp_state *s, int n, int nbodies, int structured) {
    const size_t un = (size_t)n;
    const size_t nb = structured && nbodies > 0 ? (size_t)nbodies : 0;
    return HEFT_RESERVE(s->set, s->set_cap, un) && HEFT_RESERVE(s->next_set, s->next_set_cap, un) &&
           HEFT_RESERVE(s->best_set, s->best_set_cap, un) &&
           HEFT_RESERVE(s->tight, s->tight_cap, un) &&
           HEFT_RESERVE(s->kept_set, s->kept_set_cap, un) &&
           HEFT_RESERVE(s->kept_lambda, s->kept_lambda_cap, un) &&
           HEFT_RESERVE(s->lambda, s->lambda_cap, un) &&
           HEFT_RESERVE(s->best_lambda, s->best_lambda_cap, un) &&
           HEFT_RESERVE(s->w, s->w_cap, un) && HEFT_RESERVE(s->rhs, s->rhs_cap, un) &&
           HEFT_RESERVE(s->x, s->x_cap, un) && HEFT_RESERVE(s->diag, s->diag_cap, un) &&
           HEFT_RESERVE(s->row_diag, s->row_diag_cap, un) &&
           HEFT_RESERVE(s->coupled, s->coupled_cap, un) &&
           HEFT_RESERVE(s->normal_slot, s->normal_slot_cap, un) &&
           HEFT_RESERVE(s->normals, s->normals_cap, un) && HEFT_RESERVE(s->u, s->u_cap, un) &&
           HEFT_RESERVE(s->fz_lo, s->fz_lo_cap, un) && HEFT_RESERVE(s->fz_hi, s->fz_hi_cap, un) &&
           HEFT_RESERVE(s->fz_x, s->fz_x_cap, un) && HEFT_RESERVE(s->fz_ax, s->fz_ax_cap, un) &&
           HEFT_RESERVE(s->fz_d, s->fz_d_cap, un) && HEFT_RESERVE(s->fz_t, s->fz_t_cap, un) &&
           HEFT_RESERVE(s->fz_best, s->fz_best_cap, un) &&
           HEFT_RESERVE(s->pgs_lambda, s->pgs_lambda_cap, un) &&
           heft_pgs_reserve_size(s->pgs, n, nbodies, structured) &&
           HEFT_RESERVE(s->measure_work, s->measure_cap, un + 6 * nb);
}

static int reserve_workspace(bpp_state *s, const heft_mlcp *p) {
    return reserve_workspace_size(s, p->n, p->nbodies, p->rows != NULL);
}

/* heft_solver_vtable.reserve of bpp-skyline: the pivoting's workspaces (its
 * restart's PGS included), the skyline's and the Newton stage's, for the
 * engine's structured islands. Lemke's method (n^2 numbers), the last
 * stage, the friction coupling's dense system and the solves in body space
 * are left to their first use: islands reach them rarely, and held ahead
 * they would cost more memory than every other workspace together. A state
 * that has solved keeps what its next solve starts from: the last answer's
 * sets and impulses are kept through the growth, and the orderings, whose
 * arrays may move, are computed again (the same, from the same rows). */
static int bpp_skyline_reserve(void *state, const heft_solver_capacity *c) {
    bpp_state *s = state;
    if (s == NULL || c == NULL || c->rows < 0 || c->bodies < 0 || c->envelope < 0)
        return 0;
    s->ordering_valid = 0;
    s->newton.ordering_valid = 0;
    const size_t un = (size_t)c->rows, kept = s->kept_n > 0 ? (size_t)s->kept_n : 0;
    const heft_solver_capacity restart = {c->rows, c->bodies, 0};
    int ok = HEFT_RESERVE_KEEPING(s->kept_set, s->kept_set_cap, un, kept) &&
             HEFT_RESERVE_KEEPING(s->kept_lambda, s->kept_lambda_cap, un, kept) &&
             reserve_workspace_size(s, c->rows, c->bodies, 1) &&
             heft_pgs_solver.reserve(s->pgs, &restart) &&
             heft_bpp_skyline_reserve(s, c->rows, c->bodies, c->envelope) &&
             heft_newton_reserve(&s->newton, c->rows, c->bodies, c->envelope);
    for (int k = 0; ok && k < BPP_NEWTON_RUNS; ++k) {
        bpp_newton_run *run = &s->newton_runs[k];
        ok = HEFT_RESERVE(run->start, run->start_cap, un) &&
             HEFT_RESERVE(run->answer, run->answer_cap, un);
    }
    return ok;
}

/* Index sets read off the warm start: a variable at one of its bounds (the
 * friction box taken from the warm normal impulse) starts tight there, the
 * others free. The warm start of the engine's rows is the last step's answer
 * matched by contact feature, so these are the kept sets of a problem whose
 * size changed (contacts came or went) or that are off (the scenes turn
 * them off: they match rows by position, the warm start by contact feature),
 * whenever the warm start is on and not all zeros. Measured on a
 * pyramid of 15 boxes under bpp-skyline: from all-free, every step ran out
 * of pivots (66 ms a step); from the warm sets, 4 steps of 300 did (2.6 ms).
 * The thesis ([Lefebvre 2020] §2.3) starts all-free; [Ho 2022] §5.3 starts from the last step's
 * sets. */
void heft_bpp_read_sets(const heft_mlcp *p, const double *lambda, uint8_t *set) {
    for (int i = 0; i < p->n; ++i) {
        double lo, hi;
        heft_row_bounds(p, lambda, i, &lo, &hi);
        const double l = lambda[i], scale = 1e-12 * (fabs(lo) + fabs(hi) + 1.0);
        if (!(lo < hi))
            set[i] = isfinite(lo) ? BPP_AT_LO : BPP_FREE;
        else if (isfinite(lo) && l <= lo + (isfinite(hi) ? scale : 1e-12 * (fabs(lo) + 1.0)))
            set[i] = BPP_AT_LO;
        else if (isfinite(hi) && l >= hi - scale)
            set[i] = BPP_AT_HI;
        else
            set[i] = BPP_FREE;
    }
}

static int any_nonzero(const double *x, int n) {
    for (int i = 0; i < n; ++i)
        if (x[i] != 0.0)
            return 1;
    return 0;
}

int heft_bpp_start(const heft_mlcp *p, const heft_solver_options *o, const uint8_t *kept_set,
                   const double *kept_lambda, double *lambda, uint8_t *set) {
    const int n = p->n;
    const int warm = o->warm_start && p->lambda0 != NULL;
    int earlier = 0;
    for (int i = 0; i < n; ++i) {
        double l0 = 0.0;
        if (warm)
            l0 = p->lambda0[i];
        else if (kept_set != NULL)
            l0 = kept_lambda[i];
        lambda[i] = isfinite(l0) ? l0 : 0.0;
        set[i] = kept_set != NULL && kept_set[i] <= BPP_AT_HI ? kept_set[i] : BPP_FREE;
    }
    if (kept_set == NULL && warm && any_nonzero(p->lambda0, n))
        heft_bpp_read_sets(p, lambda, set);
    for (int i = 0; i < n && !earlier; ++i)
        earlier = set[i] != BPP_FREE;
    return earlier;
}

/* The kept sets are used when asked for and of this problem's size (their
 * arrays then did not grow, so they still hold them). */
static int kept_sets_usable(const bpp_state *s, int n) {
    return s->options.keep_index_sets && s->kept_n == n && s->kept_set != NULL;
}

/* The best pivoting iterate of a solve, over all its pivoting loops: the
 * fewest variables breaking eq. 2.1, then the smallest error. */
typedef struct pivot_best {
    int found;
    int infeasible;
    double error;
} pivot_best;

/* The pivoting loop (Alg. 2.1 lines 3-11) from s->set and s->lambda, until
 * *steps (the solve's count) reaches max_steps or the pivoting stalls. A
 * better iterate than *best goes to s->best_lambda and s->best_set. Returns
 * 1 when converged. */
static int pivot_loop(const heft_mlcp *p, bpp_state *s, double tau, int max_steps, int *steps,
                      pivot_best *best, heft_solver_stats *stats) {
    const int n = p->n;
    const size_t vec = sizeof(double) * (size_t)n;
    int converged = 0;
    int fewest_pivots = n + 1, budget = BPP_CYCLE_BUDGET;
    int resolve = 0; /* bpp-pcg: this step's sets again, with a tighter PCG (below) */
    while (resolve || *steps < max_steps) {
        /* Alg. 2.1 lines 5-6 */
        const int tight_count = heft_bpp_place_tight(p, s->set, s->lambda, s->tight);
        if (!resolve) {
            if (stats->tight_trace_count < HEFT_MAX_PIVOT_TRACE)
                stats->tight_trace[stats->tight_trace_count++] = tight_count;
            ++*steps;
        }
        resolve = 0;

        /* line 7: right-hand side b_F - A_FT lambda_T, then the backend;
         * friction rows coupled to a free normal row first get the value of
         * the coupled system */
        const int coupled = tight_count > 0 ? couple_friction(p, s, stats) : 0;
        if (coupled < 0)
            break; /* a non-positive pivot: the best answer so far, if any */
        if (coupled == 0) {
            free_rhs(p, s, NULL);
            if (backend_solve(s, n, s->tight, s->rhs, s->lambda, stats) != 0)
                break;
        }
        for (int i = 0; i < n; ++i)
            if (!s->tight[i])
                s->lambda[i] = s->rhs[i];

        /* line 8: w = A lambda - b */
        backend_multiply(s, n, s->lambda, s->w);
        for (int i = 0; i < n; ++i)
            s->w[i] -= p->b[i];

        /* line 9: eq. 2.1 */
        const bpp_check c =
            heft_bpp_check_sets(p, s->set, s->lambda, s->w, s->diag, tau, s->next_set);
        if (c.nonfinite > 0)
            break;
        const int infeasible = c.pivots + c.stale;
        if (!best->found || infeasible < best->infeasible ||
            (infeasible == best->infeasible && c.error_max < best->error)) {
            best->infeasible = infeasible;
            best->error = c.error_max;
            memcpy(s->best_lambda, s->lambda, vec);
            memcpy(s->best_set, s->set, (size_t)n);
            best->found = 1;
        }
        if (infeasible == 0) {
            converged = 1;
            break;
        }
        /* bpp-pcg ([Ho 2022] Alg. 10, line 11 by PCG): no variable to pivot, only
         * tight friction rows off the bound of the new normal impulse, is
         * what an inexact solve of the coupled system looks like. The
         * Woodbury solves (couple_friction) at PCG's 1e-6 missed lambda_N
         * by more than sqrt(2 tau / A_ii), and the next step repeated them
         * to the same tolerance and missed by as much, every step: 35 steps with 21
         * stale rows at 2.7e-7 J on a pyramid of base 12, 70 steps and the
         * frozen boxes on the chain's islands. The sets are right, so the
         * same step is solved again with a tighter PCG tolerance (the main
         * solve warm-started from lambda_F, [Ho 2022] §5.3), which does not count
         * as a pivoting step; the cheap case, converged at the first check,
         * never gets here. */
        if (c.pivots == 0 && s->backend == BPP_PCG && heft_bpp_pcg_tighten(s)) {
            stats->pcg_tightenings++;
            resolve = 1;
            continue;
        }
        if (c.pivots == 0)
            continue; /* same sets, the friction boxes moved: solve again */

        /* Cycle watch (Júdice & Pires; [Ho 2022] §2.5.3): block pivots while the
         * count of infeasible variables reaches new lows; stalled once it
         * has not for a while. */
        int stalled = 0;
        if (c.pivots < fewest_pivots) {
            fewest_pivots = c.pivots;
            budget = BPP_CYCLE_BUDGET;
        } else if (budget > 0) {
            --budget;
        } else {
            stalled = 1;
        }
        if (stalled && s->reg_shift == NULL)
            break; /* the restart from PGS, then the frozen boxes (heft_bpp_solve);
                    * with adaptive regularization on, its shifts are what ends
                    * the cycle ([Ho 2022] §5.4), so block pivoting goes on */
        /* [Ho 2022] Alg. 10 lines 16-18: adaptive regularization after the pivots */
        if (s->reg_shift != NULL) {
            const int shifted = heft_adaptive_reg_update(&s->reg, p, s->set, s->next_set,
                                                         s->options.regularization_shift);
            if (shifted > 0) {
                stats->regularized_rows += shifted;
                s->factored_valid = 0; /* A_FF changed */
            }
        }
        memcpy(s->set, s->next_set, (size_t)n);
    }
    return converged;
}

int heft_bpp_begin(const heft_mlcp *p, heft_solver_stats *stats) {
    heft_solve_frame frame;
    return heft_solve_begin(p, stats, &frame);
}

/* ---- restart from PGS: when the pivoting stalls ---------------------------------------- */

/* Block pivoting converges from index sets near the answer's and can wander
 * off from sets far from it: on a log tower of 15 layers hit by a 2,500 kg
 * ball (tests/data/tower15-step30.mlcp, 717 rows), the sets read off the
 * last step's impulses (82 J off) grew from 246 to 536 tight variables in
 * four block pivots and the pivoting never came back (35 steps, the best
 * iterate 3.9e3 J), nor did a restart from all free. PGS, which cannot
 * diverge, gets within 1.5e-5 J of the answer in 1,000 sweeps (21 ms), and
 * block pivoting from the sets read off that answer converges in 4 steps.
 * So a stalled pivoting restarts once from the index sets of PGS's answer,
 * PGS started from the warm start (the best pivoting iterate without one),
 * at most options.bpp_pgs_sweeps sweeps (default 1,000: on that island the
 * pivoting converged from PGS's answer after 700 and 1,000 sweeps and
 * cycled after 50, 300 and 500), with the steps the solve has left; only
 * then come the frozen boxes. PGS's answer is kept: it is the solve's answer
 * when nothing after it is better.
 *
 * This replaced a restart from all free sets (which had converged in 7
 * steps where the warm-start sets stalled on a winch island,
 * tests/data/winch-step70.mlcp; from PGS's sets it takes 6). On islands
 * exported from the knocked-down tower of 10 layers (285 problems of 30
 * rows or more, every third step of 400, under ldl-pgs), bpp-skyline
 * converged on 226 with that and on 277 with this, in 0.96 times the time,
 * and the worst unconverged answer went from 61 J to 4.2e-6 J. In the
 * engine (bpp-skyline, whole step): the tower of 10 layers 177 of 1,200
 * steps unconverged -> 3, 2.9 -> 1.2 ms; a pyramid of base 10 28 of 600
 * -> 1, 50 -> 9.4 ms; the winch 315 of 1,200 -> 129, 6.0 -> 7.2 ms.
 * Tried and not kept: up to three more restarts, each from 1,000 more
 * sweeps on the last PGS answer, took the winch to 72 unconverged steps at
 * 9.9 against 7.7 ms a step, and its longest step from 28 to 65 ms. */

int heft_bpp_pgs_answer(const heft_mlcp *p, void *pgs, double *start, double *answer, uint8_t *set,
                        double *measure_work, double *error, heft_solver_stats *stats) {
    heft_mlcp from = *p;
    from.lambda0 = start;
    heft_solver_stats ps;
    memset(&ps, 0, sizeof ps);
    if (heft_pgs_solver.solve(pgs, &from, answer, &ps) == HEFT_SOLVE_FAILED)
        return 0;
    for (int i = 0; i < p->n; ++i)
        if (!isfinite(answer[i]))
            return 0;
    stats->restarts++;
    stats->pgs_sweeps += ps.iterations;
    heft_bpp_clamp_answer(p, answer); /* as every answer is */
    *error = heft_mlcp_measure(p, answer, measure_work).max;
    heft_bpp_read_sets(p, answer, set);
    return 1;
}

/* The start of the restart's PGS (bpp.h): the best of the warm start,
 * lambda = 0 and the best pivoting iterate, all clamped into their boxes. */
double *heft_bpp_restart_start(const heft_mlcp *p, int warm, const double *iterate, double *out,
                               double *scratch, double *measure_work) {
    const size_t vec = sizeof(double) * (size_t)p->n;
    memset(out, 0, vec);
    heft_bpp_clamp_answer(p, out);
    double best = heft_mlcp_measure(p, out, measure_work).max;
    for (int k = 0; k < 2; ++k) {
        const double *from = k == 0 ? (warm ? p->lambda0 : NULL) : iterate;
        if (from == NULL)
            continue;
        for (int i = 0; i < p->n; ++i)
            scratch[i] = isfinite(from[i]) ? from[i] : 0.0;
        heft_bpp_clamp_answer(p, scratch);
        const double e = heft_mlcp_measure(p, scratch, measure_work).max;
        if (e < best) {
            best = e;
            memcpy(out, scratch, vec);
        }
    }
    return out;
}

/* budget pivots per variable times N, at least 1, at most INT_MAX */
static int backstop_pivots(double budget, int N) {
    const double v = ceil(budget * (double)N);
    if (!(v >= 1.0)) /* NaN too: the options were not checked */
        return 1;
    return v >= (double)INT_MAX ? INT_MAX : (int)v;
}

/* The backstop's variable cap of options (the build's when 0, -1 when
 * Lemke's method is off) */
static int backstop_cap(const heft_solver_options *options) {
    return options->backstop_max_variables == HEFT_BACKSTOP_BUILD_CAP
               ? BPP_BACKSTOP_MAX_VARIABLES
               : options->backstop_max_variables;
}

/* The far factor of the Newton stages before Lemke's method: the starts
 * more than BPP_NEWTON_SKIP_FAR times the best answer's error off are left
 * out where Lemke's method will not take p (off, or p's LCP above the
 * cap), none elsewhere. */
static double newton_far(const heft_mlcp *p, const heft_solver_options *options) {
    const int cap = backstop_cap(options);
    return cap < 0 || heft_lemke_size(p) > cap ? BPP_NEWTON_SKIP_FAR : INFINITY;
}

int heft_bpp_backstop(const heft_mlcp *p, const heft_solver_options *options, heft_lemke *ws,
                      const double *A, const double *const *guesses, int nguesses, double tau,
                      double *answer, double *measure_work, heft_solver_stats *stats) {
    return heft_bpp_backstop_polished(p, options, ws, A, guesses, nguesses, tau, NULL, NULL, -1.0,
                                      answer, measure_work, stats);
}

int heft_bpp_backstop_polished(const heft_mlcp *p, const heft_solver_options *options,
                               heft_lemke *ws, const double *A, const double *const *guesses,
                               int nguesses, double tau,
                               int (*polish)(void *, const heft_mlcp *, double *, double),
                               void *polish_user, double reach, double *answer,
                               double *measure_work, heft_solver_stats *stats) {
    const int cap = backstop_cap(options);
    if (cap < 0) /* HEFT_BACKSTOP_OFF, or below it when the options were not checked */
        return -1;
    heft_lemke_options o = heft_lemke_default_options(p->n, tau);
    o.max_variables = cap;
    o.polish = polish;
    o.polish_user = polish_user;
    o.polish_reach = reach;
    const int N = heft_lemke_size(p);
    if (N <= cap) {
        const double budget = options->backstop_pivot_budget;
        const int path = backstop_pivots(budget / BPP_BACKSTOP_PATH_SHARE, N);
        const int guess = backstop_pivots(budget / BPP_BACKSTOP_GUESS_SHARE, N);
        if (path > o.max_pivots)
            o.max_pivots = path;
        o.max_total_pivots = backstop_pivots(budget, N);
        o.max_guess_pivots = guess > 10 * p->n + 100 ? guess : 10 * p->n + 100;
    }
    heft_lemke_result r;
    heft_lemke_solve(ws, p, A, guesses, nguesses, &o, answer, measure_work, &r);
    if (r.status != HEFT_LEMKE_TOO_LARGE && r.status != HEFT_LEMKE_INVALID) {
        stats->backstops++;
        stats->backstop_pivots += r.pivots + r.crash_pivots;
    }
    return r.status == HEFT_LEMKE_SOLVED ? 1 : (r.status == HEFT_LEMKE_INEXACT ? 0 : -1);
}

/* Lemke's polish in a bpp solve (BPP_POLISH_REACH): at most steps Newton
 * steps an answer, left in all (the solve's bound on Newton steps,
 * docs/friction-backstop.md "Order of a pivoting solve") */
typedef struct bpp_polish {
    bpp_state *s;
    heft_solver_stats *stats;
    int steps, left;
} bpp_polish;

/* Newton steps from one of Lemke's answers (lemke.h polish), each run
 * counted as a backstop stage; s->fz_x is free while Lemke's method runs. */
static int polish_near_miss(void *user, const heft_mlcp *p, double *answer, double tau) {
    bpp_polish *c = user;
    bpp_state *s = c->s;
    if (c->left <= 0)
        return 0;
    const double before = bpp_measure(s, p, answer).max;
    heft_newton_result r;
    heft_newton_solve(&s->newton, p, answer, tau, imin(c->steps, c->left), s->fz_x, s->measure_work,
                      &r);
    c->left -= r.steps > 0 ? r.steps : 1;
    c->stats->backstops++;
    c->stats->backstop_pivots += r.steps;
    c->stats->newton_steps += r.steps;
    c->stats->envelope = imax(c->stats->envelope, r.envelope);
    if (r.status == HEFT_NEWTON_FAILED || !(r.error_max < before))
        return 0;
    memcpy(answer, s->fz_x, sizeof(double) * (size_t)p->n);
    return 1;
}

/* A start of the Newton stage already run in this solve with the same tau
 * and last-stage flag, that stalled within share steps, or NULL. */
static const bpp_newton_run *newton_run_find(const bpp_state *s, int n, const double *start,
                                             double tau, int share) {
    for (int k = 0; k < s->newton_run_count; ++k) {
        const bpp_newton_run *run = &s->newton_runs[k];
        if (run->tau == tau && run->last_stage == s->newton.last_stage && run->steps <= share &&
            memcmp(run->start, start, sizeof(double) * (size_t)n) == 0)
            return run;
    }
    return NULL;
}

/* Remembers a start that stalled and its answer (nothing when memory is
 * short: the start is then run again if met again). */
static void newton_run_keep(bpp_state *s, int n, const double *start, const double *answer,
                            double tau, const heft_newton_result *r) {
    bpp_newton_run *run = &s->newton_runs[s->newton_run_next];
    if (!HEFT_RESERVE(run->start, run->start_cap, (size_t)n) ||
        !HEFT_RESERVE(run->answer, run->answer_cap, (size_t)n)) {
        run->steps = INT_MAX; /* a slot already counted is never matched again */
        return;
    }
    memcpy(run->start, start, sizeof(double) * (size_t)n);
    memcpy(run->answer, answer, sizeof(double) * (size_t)n);
    run->tau = tau;
    run->error = r->error_max;
    run->steps = r->steps;
    run->last_stage = s->newton.last_stage;
    s->newton_run_next = (s->newton_run_next + 1) % BPP_NEWTON_RUNS;
    if (s->newton_run_count < BPP_NEWTON_RUNS)
        s->newton_run_count++;
}

/* The backstop's Newton stage from the given points (NULL ones, and those
 * more than reach J off, skipped; from lambda = 0 when none is given and
 * reach is infinite), the one with the smallest error first, then the
 * others while the step budget lasts: a start from which the min-map's
 * kinks stalled the line search was, on the winch, an answer from
 * another. Once a start has run, those more than far times the best
 * answer's error off are left out (BPP_NEWTON_SKIP_FAR). Returns 1 when
 * s->fz_best holds an answer within tau, 0 when it holds the best answer
 * found, better than every start (clamped), -1 when there is none (and
 * when no start is within reach: no stage is run). */
static int newton_stage(const heft_mlcp *p, bpp_state *s, const double *const *points, int count,
                        double tau, double reach, double far, int steps, int per_start,
                        heft_solver_stats *stats) {
    const int n = p->n;
    const size_t vec = sizeof(double) * (size_t)n;
    double error[4];
    int order[4], used = 0;
    double start_best = INFINITY;
    for (int k = 0; k < count && k < 4; ++k) {
        if (points[k] == NULL)
            continue;
        memcpy(s->fz_t, points[k], vec);
        heft_bpp_clamp_answer(p, s->fz_t);
        error[k] = bpp_measure(s, p, s->fz_t).max;
        if (!(error[k] < INFINITY) || !(error[k] <= reach))
            continue;
        start_best = fmin(start_best, error[k]);
        int at = used++;
        while (at > 0 && error[order[at - 1]] > error[k]) {
            order[at] = order[at - 1];
            --at;
        }
        order[at] = k;
    }
    if (used == 0 && reach < INFINITY)
        return -1; /* no start near enough */
    if (used == 0) {
        memset(s->fz_t, 0, vec);
        start_best = bpp_measure(s, p, s->fz_t).max;
        points = NULL;
        used = 1;
    }
    double found = INFINITY;
    int budget = steps;
    stats->backstops++;
    for (int k = 0; k < used && budget > 0; ++k) {
        if (points != NULL && found < INFINITY && error[order[k]] > far * found)
            break; /* this start and the ones after it (sorted) are too far */
        if (points != NULL)
            memcpy(s->fz_t, points[order[k]], vec);
        heft_newton_result r;
        const int share = budget < per_start ? budget : per_start;
        const bpp_newton_run *seen = newton_run_find(s, n, s->fz_t, tau, share);
        const double *answer = s->fz_d;
        if (seen != NULL) {
            /* it costs nothing now: the steps it took before are left to
             * the next starts */
            answer = seen->answer;
            r.status = HEFT_NEWTON_STALLED;
            r.error_max = seen->error;
        } else {
            heft_newton_solve(&s->newton, p, s->fz_t, tau, share, s->fz_d, s->measure_work, &r);
            budget -= r.steps > 0 ? r.steps : 1;
            stats->backstop_pivots += r.steps;
            stats->newton_steps += r.steps;
            stats->envelope = imax(stats->envelope, r.envelope);
            if (r.status == HEFT_NEWTON_STALLED)
                newton_run_keep(s, n, s->fz_t, s->fz_d, tau, &r);
        }
        if (r.status != HEFT_NEWTON_FAILED && r.error_max < found) {
            found = r.error_max;
            memcpy(s->fz_best, answer, vec);
        }
        if (found <= tau)
            return 1;
    }
    return found < start_best ? 0 : -1;
}

/* Whether x (clamped) is within tau by the error measure. */
static int within(const heft_mlcp *p, bpp_state *s, const double *x, double tau) {
    double error;
    heft_bpp_nearest(p, &x, 1, s->fz_t, s->measure_work, &error);
    return error <= tau;
}

/* The approach by PGS (BPP_APPROACH_ROUNDS) from the best of the given
 * points (NULL ones skipped), then the last Newton stage from PGS's best
 * iterate. Returns 1 when s->fz_best holds an answer within tau, 0 when it
 * holds one better than every given point (*from_pgs says whether it is
 * PGS's iterate, which the Newton stage did not better), -1 when there is
 * none. Uses s->fz_d, s->fz_t and s->fz_x. */
static int approach_by_pgs(const heft_mlcp *p, bpp_state *s, const double *const *points, int count,
                           double tau, int newton_steps, int *from_pgs, heft_solver_stats *stats) {
    const int n = p->n;
    const size_t vec = sizeof(double) * (size_t)n;
    double start = INFINITY;
    for (int k = 0; k < count; ++k) {
        if (points[k] == NULL)
            continue;
        for (int i = 0; i < n; ++i)
            s->fz_t[i] = isfinite(points[k][i]) ? points[k][i] : 0.0;
        heft_bpp_clamp_answer(p, s->fz_t);
        const double e = bpp_measure(s, p, s->fz_t).max;
        if (e < start) {
            start = e;
            memcpy(s->fz_d, s->fz_t, vec);
        }
    }
    if (!(start < INFINITY))
        return -1;
    double best = start;
    for (int round = 0; round < BPP_APPROACH_ROUNDS; ++round) {
        heft_mlcp from = *p;
        from.lambda0 = s->fz_d;
        heft_solver_stats ps;
        memset(&ps, 0, sizeof ps);
        if (heft_pgs_solver.solve(s->pgs, &from, s->fz_t, &ps) == HEFT_SOLVE_FAILED)
            break;
        stats->pgs_sweeps += ps.iterations;
        int finite = 1;
        for (int i = 0; i < n; ++i)
            finite &= isfinite(s->fz_t[i]);
        if (!finite)
            break;
        heft_bpp_clamp_answer(p, s->fz_t);
        const double e = bpp_measure(s, p, s->fz_t).max;
        if (e < best) {
            best = e;
            memcpy(s->fz_x, s->fz_t, vec);
        }
        if (e <= tau)
            break;
        memcpy(s->fz_d, s->fz_t, vec); /* the next round goes on from here */
    }
    if (!(best < start))
        return -1;
    *from_pgs = 1;
    memcpy(s->fz_best, s->fz_x, vec);
    if (best <= tau)
        return 0; /* PGS's own answer: never called converged */
    const double *near[1] = {s->fz_x};
    s->newton.last_stage = 1;
    const int found =
        newton_stage(p, s, near, 1, tau, INFINITY, INFINITY, newton_steps, newton_steps, stats);
    s->newton.last_stage = 0;
    if (found >= 0) {
        *from_pgs = 0;
        return found;
    }
    memcpy(s->fz_best, s->fz_x, vec); /* newton_stage found nothing better */
    return 0;
}

/* Whether index sets a and b are the same at lambda: a row on a closed box
 * (lo = hi, as a friction row's whose normal impulse is zero) is at both of
 * its bounds, so AT_LO and AT_HI are the same there. */
static int same_sets(const heft_mlcp *p, const double *lambda, const uint8_t *a, const uint8_t *b) {
    for (int i = 0; i < p->n; ++i) {
        if (a[i] == b[i])
            continue;
        if (a[i] == BPP_FREE || b[i] == BPP_FREE)
            return 0;
        double lo, hi;
        heft_row_bounds(p, lambda, i, &lo, &hi);
        if (!(lo == hi))
            return 0;
    }
    return 1;
}

/* A warm start within this fraction of the acceptance line (the tolerance,
 * at most BPP_ACCEPTED) answers whatever sets it reads as: it is exact to
 * round-off, and another exact answer on other sets is no better. A
 * contact that pushes nothing and closes at exactly zero speed reads as
 * tight where the pivoting held it free; on the settled pyramid of base 20,
 * warm starts 1e-22 J off were refused on such sets and each step factored
 * again for an answer no nearer (docs/bpp.md). */
#define BPP_WARM_EXACT 1e-6

/* A warm start that already answers the problem within tau is the answer:
 * nothing is assembled or factored (0 pivoting steps). On the 1,000 boxes
 * settling, about 58% of the warm-started island solves end here (their
 * contacts' impulses are the last step's to 1e-10 J). Only when the sets
 * read off it are those the last solve of the same size ended with (kept
 * whether or not keep_index_sets starts from them): on the settled pyramid
 * of base 10 (one island of 1,740 rows) answers within the tolerance but on
 * other sets left the pyramid a little off its exact rest, and the next
 * solve then took 2 to 5 pivoting steps where it takes one after an exact
 * answer (428 factorizations in 300 steps against 391). Unless it is exact
 * to round-off (BPP_WARM_EXACT). Returns 1 when it answered (lambda_out,
 * stats and the kept sets filled). */
static int warm_start_answers(const heft_mlcp *p, bpp_state *s, double tau, double start,
                              double *lambda_out, heft_solver_stats *stats) {
    const int n = p->n;
    int nonzero = 0;
    for (int i = 0; i < n; ++i) {
        const double v = p->lambda0[i];
        if (!isfinite(v))
            return 0;
        s->lambda[i] = v;
        nonzero |= v != 0.0;
    }
    if (!nonzero)
        return 0;
    heft_bpp_clamp_answer(p, s->lambda);
    const heft_mlcp_error err = bpp_measure(s, p, s->lambda);
    /* within the acceptance line too, so that heft_bpp_answer keeps it as
     * it is (a looser tolerance would have it compared with zero and the
     * warm start again, and perhaps not converged) */
    if (!(err.max <= tau && err.max <= BPP_ACCEPTED) || err.nonfinite > 0)
        return 0;
    heft_bpp_read_sets(p, s->lambda, s->set);
    if (s->kept_n == n && s->kept_set != NULL &&
        !(err.max <= fmin(tau, BPP_ACCEPTED) * BPP_WARM_EXACT) &&
        !same_sets(p, s->lambda, s->set, s->kept_set))
        return 0;
    stats->answer = HEFT_ANSWER_SOLVER;
    bpp_answer a = {s->lambda,       s->set, s->kept_lambda, s->kept_set, &s->kept_n,
                    s->measure_work, 1,      s->x,           &err,        s->row_diag};
    return heft_bpp_answer(p, &a, 1, start, lambda_out, stats) == HEFT_SOLVE_OK;
}

/* The equality rows eliminated: Baraff's auxiliary problem (baraff.c,
 * [Baraff 1996] §8) from the best point a solve has seen, when every stage
 * before left a problem with joints open. Lemke's method splits a free row
 * into two nonnegative variables (docs/friction-backstop.md "The LCP");
 * baraff solves the joints' rows by its sparse factorization and gives the
 * pivoting and Lemke's method only the contacts, limits and motors, a
 * smaller LCP without the split pairs. On the hard family (no warm start,
 * restart off) it ends members of 257 to 985 rows whose paths on the whole
 * problem ended on rays or spent their budget. Its state is made for each
 * use and released after it, so that a solve depends on its problem alone
 * (a restored world solves the same) and the island's state does not hold
 * the stage's dense workspaces between its rare uses. */
int heft_bpp_eliminated(const heft_mlcp *p, const heft_solver_options *options,
                        heft_bpp_elimination *e, const double *from, double tau, double *start,
                        double *answer, double *measure_work, heft_solver_stats *stats) {
    const int n = p->n;
    if (p->rows == NULL || p->nbodies <= 0)
        return -1;
    int equalities = 0;
    for (int i = 0; i < n; ++i)
        equalities += (p->findex == NULL || p->findex[i] < 0) && isinf(p->lo[i]) &&
                      p->lo[i] < 0.0 && isinf(p->hi[i]) && p->hi[i] > 0.0;
    if (equalities == 0)
        return -1;
    if (e->state == NULL) {
        e->solver = heft_solver_find("baraff");
        if (e->solver == NULL || (e->state = e->solver->create(options)) == NULL)
            return -1;
        heft_baraff_set_nested(e->state);
    }
    if (e->solver->reset != NULL)
        e->solver->reset(e->state);
    for (int i = 0; i < n; ++i)
        start[i] = from != NULL && isfinite(from[i]) ? from[i] : 0.0;
    heft_mlcp q = *p;
    q.lambda0 = start;
    heft_solver_stats es;
    memset(&es, 0, sizeof es);
    const int rc = e->solver->solve(e->state, &q, answer, &es);
    heft_stats_add_stage(stats, &es);
    /* rare and dense in the rows left (4.9 MB on the winch): returned at
     * once (the function's comment) */
    heft_bpp_elimination_release(e);
    if (rc == HEFT_SOLVE_FAILED)
        return -1;
    heft_bpp_clamp_answer(p, answer);
    const heft_mlcp_error err = heft_mlcp_measure(p, answer, measure_work);
    if (err.nonfinite > 0 || !isfinite(err.max))
        return -1;
    return err.max <= tau ? 1 : 0;
}

const double *heft_bpp_nearest(const heft_mlcp *p, const double *const *points, int count,
                               double *scratch, double *measure_work, double *error) {
    const double *nearest = NULL;
    *error = INFINITY;
    for (int k = 0; k < count; ++k) {
        if (points[k] == NULL)
            continue;
        memcpy(scratch, points[k], sizeof(double) * (size_t)p->n);
        heft_bpp_clamp_answer(p, scratch);
        const double e = heft_mlcp_measure(p, scratch, measure_work).max;
        if (e < *error) {
            *error = e;
            nearest = points[k];
        }
    }
    return nearest;
}

void heft_bpp_elimination_release(heft_bpp_elimination *e) {
    if (e->state != NULL)
        e->solver->destroy(e->state);
    e->state = NULL;
}

int heft_bpp_solve(void *state, const heft_mlcp *p, double *lambda_out, heft_solver_stats *stats) {
    bpp_state *s = state;
    const double start = heft_time_ms();
    const int n = p->n;
    const int begun = heft_bpp_begin(p, stats);
    if (begun >= 0)
        return begun;
    if (heft_mlcp_check(p, NULL, 0) != 0)
        return HEFT_SOLVE_FAILED; /* bad input: nothing is changed */

    /* The kept sets live in arrays that only grow with n: a same-size solve
     * keeps them; a different size cannot use them anyway. */
    if (s->kept_n != n)
        s->kept_n = -1;
    if (!reserve_workspace(s, p)) {
        s->kept_n = -1;
        return HEFT_SOLVE_FAILED;
    }
    s->row_diag_ready = 0; /* this problem's, at its first measure */
    const double tau =
        s->options.tolerance > BPP_TOLERANCE_FLOOR ? s->options.tolerance : BPP_TOLERANCE_FLOOR;
    const int max_steps = s->options.max_pivots > 0 ? s->options.max_pivots : 1;
    const size_t vec = sizeof(double) * (size_t)n;
    const int warm = s->options.warm_start && p->lambda0 != NULL;
    if (warm && warm_start_answers(p, s, tau, start, lambda_out, stats))
        return HEFT_SOLVE_OK;
    s->newton_run_count = s->newton_run_next = 0; /* starts of this solve only */

    if (backend_prepare(s, p, stats) != 0) {
        s->ordering_valid = 0;
        return HEFT_SOLVE_FAILED;
    }

    const double loop_start = heft_time_ms();
    const double factor_before = stats->time_factor_ms;

    /* Alg. 2.1 line 1 / Alg. 2.2 line 4: initialize F and T. lambda starts
     * from the warm start (it gives the friction boxes of kept tight rows). */
    heft_bpp_start(p, &s->options, kept_sets_usable(s, n) ? s->kept_set : NULL, s->kept_lambda,
                   s->lambda, s->set);

    /* adaptive regularization ([Ho 2022] Alg. 9): the backends that solve A_FF
     * afresh (bpp, bpp-pcg) add the shifts; the downdating ones cannot */
    s->reg_shift = NULL;
    if (s->options.adaptive_regularization &&
        (s->backend == BPP_REFACTOR || s->backend == BPP_PCG)) {
        if (heft_adaptive_reg_begin(&s->reg, n, s->options.regularization_pivot_limit) != 0)
            return HEFT_SOLVE_FAILED;
        s->reg_shift = s->reg.shift;
    }

    int steps = 0;
    pivot_best best = {0, 0, INFINITY};
    int converged = pivot_loop(p, s, tau, max_steps, &steps, &best, stats);
    int source = HEFT_ANSWER_SOLVER;
    if (!converged && steps < max_steps && (warm || best.found) && s->options.bpp_pgs_sweeps > 0) {
        /* stalled: the frozen boxes and the Newton stage from the warm start
         * (else the best iterate) first, before the restart from PGS. On
         * the winch they ended most stalled solves exactly from there, in a
         * tenth of the restart's time, where from PGS's answer the Newton
         * stage stalled more often and left Lemke's method 30 solves of
         * seconds each; on the towers the restart's point is the better one
         * and is tried next. (Without the restart the stages below do the
         * same from the same point.) */
        stats->fallback = 1;
        for (int i = 0; i < n; ++i) {
            const double v = warm ? p->lambda0[i] : s->best_lambda[i];
            s->fz_d[i] = isfinite(v) ? v : 0.0;
        }
        heft_bpp_clamp_answer(p, s->fz_d);
        const int fr = frozen_boxes(p, s, s->fz_d, tau, max_steps, stats);
        if (fr > 0) {
            converged = 1;
        } else {
            const double *points[3] = {fr == 0 ? s->lambda : NULL,
                                       best.found ? s->best_lambda : NULL,
                                       warm ? p->lambda0 : NULL};
            if (newton_stage(p, s, points, 3, tau, INFINITY, newton_far(p, &s->options),
                             imin(BPP_NEWTON_EARLY_STEPS, max_steps), BPP_NEWTON_START_STEPS,
                             stats) > 0) {
                memcpy(s->lambda, s->fz_best, vec);
                converged = 1;
                source = HEFT_ANSWER_BACKSTOP;
            }
        }
        if (converged)
            heft_bpp_read_sets(p, s->lambda, s->set);
    }
    int pgs_answered = 0;
    double pgs_error = INFINITY;
    if (!converged && steps < max_steps && s->options.bpp_pgs_sweeps > 0) {
        /* stalled (or a solve failed): restart from PGS's answer */
        double *from = heft_bpp_restart_start(p, warm, best.found ? s->best_lambda : NULL, s->fz_t,
                                              s->x, s->measure_work);
        pgs_answered = heft_bpp_pgs_answer(p, s->pgs, from, s->pgs_lambda, s->set, s->measure_work,
                                           &pgs_error, stats);
        if (pgs_answered) {
            memcpy(s->lambda, s->pgs_lambda, vec);
            converged = pivot_loop(p, s, tau, max_steps, &steps, &best, stats);
        }
    }
    const int have_best = best.found;
    stats->iterations = steps;

    int frozen = -1;
    if (!converged && steps > 0) {
        /* the boxes are frozen at the normal impulses of PGS's answer when
         * the restart ran, else of the warm start (the last step's, matched
         * by contact feature), else of the best iterate: on the winch the
         * best iterate of a stalled solve was off by up to 1e9 J where the
         * warm start was within 0.2 J, and PGS's answer, 1,000 sweeps on
         * from the warm start, is nearer still (on the winch's 1,200 steps
         * the worst answer 7.2e-4 J from the warm start's boxes, 2.4e-5 J
         * from PGS's; on the 285 tower islands 4.2e-6 and 2.8e-7 J) */
        if (pgs_answered) {
            memcpy(s->fz_d, s->pgs_lambda, vec);
        } else if (warm) {
            for (int i = 0; i < n; ++i)
                s->fz_d[i] = isfinite(p->lambda0[i]) ? p->lambda0[i] : 0.0;
        } else if (have_best) {
            memcpy(s->fz_d, s->best_lambda, vec);
        }
        if (warm || have_best || pgs_answered) {
            stats->fallback = 1;
            heft_bpp_clamp_answer(p, s->fz_d);
            frozen = frozen_boxes(p, s, s->fz_d, tau, max_steps, stats);
        }
        if (frozen >= 0) {
            converged = frozen;
            heft_bpp_read_sets(p, s->lambda, s->set);
        }
    }

    if (!converged) {
        /* the backstop's first stage (newton.c): semismooth Newton from the
         * points seen, the best (by the error measure) first */
        const double *points[4] = {frozen >= 0 ? s->lambda : NULL,
                                   pgs_answered ? s->pgs_lambda : NULL,
                                   have_best ? s->best_lambda : NULL, warm ? p->lambda0 : NULL};
        const int solved =
            newton_stage(p, s, points, 4, tau, INFINITY, newton_far(p, &s->options),
                         imin(BPP_NEWTON_STEPS, 2 * max_steps), BPP_NEWTON_START_STEPS, stats);
        if (solved >= 0) {
            memcpy(s->lambda, s->fz_best, vec);
            heft_bpp_read_sets(p, s->lambda, s->set);
            frozen = 1; /* an answer in s->lambda */
            converged = solved;
            source = HEFT_ANSWER_BACKSTOP;
        }
    }

    if (!converged) {
        /* the backstop (lemke.c), from the points seen: the frozen-box
         * answer, the best pivoting iterate, PGS's answer, the warm start
         * (each path from one of them ends where it ends: on the hard
         * family a ray from one was an answer from another) */
        const double *guesses[4];
        int ng = 0;
        if (frozen >= 0)
            guesses[ng++] = s->lambda;
        if (pgs_answered)
            guesses[ng++] = s->pgs_lambda;
        if (have_best)
            guesses[ng++] = s->best_lambda;
        if (warm)
            guesses[ng++] = p->lambda0;
        const double *A = s->backend == BPP_REFACTOR || s->backend == BPP_DOWNDATE ? s->A : NULL;
        const int backstops_before = stats->backstops;
        bpp_polish polish = {s, stats, imin(BPP_NEWTON_POLISH_STEPS, max_steps),
                             imin(BPP_NEWTON_STEPS, 2 * max_steps)};
        int solved = heft_bpp_backstop_polished(p, &s->options, &s->lemke, A, guesses, ng, tau,
                                                polish_near_miss, &polish, BPP_POLISH_REACH,
                                                s->fz_best, s->measure_work, stats);
        double nearest = INFINITY;
        for (int k = 0; k < ng && solved < 0 && stats->backstops == backstops_before; ++k) {
            memcpy(s->fz_t, guesses[k], vec);
            heft_bpp_clamp_answer(p, s->fz_t);
            nearest = fmin(nearest, bpp_measure(s, p, s->fz_t).max);
        }
        /* Lemke's method declined the problem (too large) */
        const int declined = solved < 0 && stats->backstops == backstops_before;
        /* where the last stages stop (options.backstop_accept): an answer
         * within it but not within tau is kept, not converged, and no
         * later stage runs. On the pyramid of base 20's landing (7,080
         * rows) the stages from 1e-10 J to their best, 1.3e-11 J, cost 10
         * of its 18 s */
        const double accept = fmax(tau, s->options.backstop_accept);
        int accepted = 0;
        if (declined && nearest <= BPP_NEWTON_LAST_REACH * tau) {
            /* too large for Lemke's method: the Newton stage is the last
             * one, and goes on from the best point seen while it makes
             * progress (the first guess is the earlier stage's answer) */
            s->newton.last_stage = 1;
            int found = newton_stage(p, s, guesses, ng, accept, BPP_NEWTON_LAST_FAR * tau, INFINITY,
                                     imin(BPP_NEWTON_LAST_STEPS, 5 * max_steps),
                                     BPP_NEWTON_LAST_STEPS, stats);
            s->newton.last_stage = 0;
            if (found > 0 && accept > tau && !within(p, s, s->fz_best, tau)) {
                found = 0;
                accepted = 1;
            }
            if (found > 0) {
                solved = 1;
            } else if (found == 0) {
                memcpy(s->lambda, s->fz_best, vec);
                heft_bpp_read_sets(p, s->lambda, s->set);
                frozen = 1; /* an answer in s->lambda, better than every guess */
                source = HEFT_ANSWER_BACKSTOP;
            }
        }
        if (solved < 0 && !accepted && s->options.bpp_pgs_sweeps > 0) {
            /* too large for Lemke's method, and no point near enough for
             * the last Newton stage or that stage did not end it; or
             * Lemke's paths ended without an answer (their budget spent, or
             * rays): PGS from the best answer so far, then the last Newton
             * stage from PGS's best iterate (BPP_APPROACH_ROUNDS). On the
             * wall's island of step 25 cut to its bottom 24 bricks the
             * early Newton stages came within 1e-9 J, the last stage
             * stalled at 2.9e-10 J from there, and PGS's approach ends it
             * at 3e-15 J; on the hard family's members 4, 7 and 11 with
             * Lemke's budget cut to 0.05 N pivots, it ends the three
             * exactly where they stopped 2.4e-7 to 9.2e-7 J off */
            const double *points[4] = {frozen >= 0 ? s->lambda : NULL,
                                       pgs_answered ? s->pgs_lambda : NULL,
                                       have_best ? s->best_lambda : NULL, warm ? p->lambda0 : NULL};
            int from_pgs = 0;
            int found =
                approach_by_pgs(p, s, points, 4, accept, imin(BPP_NEWTON_LAST_STEPS, 5 * max_steps),
                                &from_pgs, stats);
            if (found > 0 && accept > tau && !within(p, s, s->fz_best, tau))
                found = 0;
            if (found > 0) {
                solved = 1;
            } else if (found == 0) {
                memcpy(s->lambda, s->fz_best, vec);
                heft_bpp_read_sets(p, s->lambda, s->set);
                frozen = 1;
                source = from_pgs ? HEFT_ANSWER_PGS : HEFT_ANSWER_BACKSTOP;
            }
        }
        if (solved > 0) {
            memcpy(s->lambda, s->fz_best, vec);
            heft_bpp_read_sets(p, s->lambda, s->set);
            converged = 1;
            source = HEFT_ANSWER_BACKSTOP;
        } else if (solved == 0) {
            /* a complementary basis short of the tolerance (round-off along
             * a long path): the Newton stage from it, whose index sets are
             * near that basis's, then kept below when it is the best answer
             * there is */
            memcpy(s->fz_x, s->fz_best, vec);
            const double *from[1] = {s->fz_x};
            /* an answer within BPP_POLISH_REACH had its polish already */
            if (!(bpp_measure(s, p, s->fz_best).max <= BPP_POLISH_REACH) &&
                newton_stage(p, s, from, 1, tau, INFINITY, INFINITY,
                             imin(BPP_NEWTON_POLISH_STEPS, max_steps), BPP_NEWTON_POLISH_STEPS,
                             stats) < 0)
                memcpy(s->fz_best, s->fz_x, vec);
            const double e = bpp_measure(s, p, s->fz_best).max;
            double kept = INFINITY;
            if (frozen >= 0) {
                heft_bpp_clamp_answer(p, s->lambda);
                kept = bpp_measure(s, p, s->lambda).max;
            }
            if (e < kept) {
                memcpy(s->lambda, s->fz_best, vec);
                heft_bpp_read_sets(p, s->lambda, s->set);
                frozen = 1; /* an answer in s->lambda */
                converged = e <= tau;
                source = HEFT_ANSWER_BACKSTOP;
            }
        }
    }
    if (!converged) {
        /* the joints' rows eliminated, from the best point seen */
        const double *points[4] = {frozen >= 0 ? s->lambda : NULL,
                                   pgs_answered ? s->pgs_lambda : NULL,
                                   have_best ? s->best_lambda : NULL, warm ? p->lambda0 : NULL};
        double nearest;
        const double *from = heft_bpp_nearest(p, points, 4, s->fz_t, s->measure_work, &nearest);
        const int found = s->nested ? -1
                                    : heft_bpp_eliminated(p, &s->options, &s->elim, from, tau,
                                                          s->fz_t, s->fz_x, s->measure_work, stats);
        if (found >= 0) {
            const double e = bpp_measure(s, p, s->fz_x).max;
            if (found > 0 || e < nearest) {
                memcpy(s->lambda, s->fz_x, vec);
                heft_bpp_read_sets(p, s->lambda, s->set);
                frozen = 1; /* an answer in s->lambda */
                converged = found > 0;
                source = HEFT_ANSWER_BACKSTOP;
            }
        }
    }
    stats->time_solve_ms = heft_time_ms() - loop_start - (stats->time_factor_ms - factor_before);

    if (!converged && frozen < 0) {
        /* no frozen-box answer: the best pivoting iterate, else PGS's */
        if (have_best) {
            memcpy(s->lambda, s->best_lambda, vec);
            memcpy(s->set, s->best_set, (size_t)n);
        } else if (!pgs_answered) {
            memset(s->lambda, 0, vec); /* compared with the warm start below */
            heft_bpp_read_sets(p, s->lambda, s->set);
            source = HEFT_ANSWER_ZERO;
        }
    }
    if (!converged && pgs_answered) {
        /* PGS's answer, when no pivoting or frozen-box answer beat it */
        double kept = INFINITY;
        if (have_best || frozen >= 0) {
            heft_bpp_clamp_answer(p, s->lambda);
            kept = bpp_measure(s, p, s->lambda).max;
        }
        if (!(kept <= pgs_error)) {
            memcpy(s->lambda, s->pgs_lambda, vec);
            heft_bpp_read_sets(p, s->lambda, s->set);
            source = HEFT_ANSWER_PGS;
        }
    }
    if (!converged) {
        const int kept =
            heft_bpp_prefer_start_points(p, warm, s->lambda, s->set, s->x, s->measure_work);
        if (kept != HEFT_ANSWER_SOLVER)
            source = kept;
    }
    stats->answer = source;
    /* the sets are kept even when not converged: the best sets of a failed
     * solve started the next step of a pyramid of 15 boxes better than the
     * sets read off the answer PGS polished from them (4 steps of 300
     * failed against all) */
    bpp_answer a = {s->lambda,      s->set,
                    s->kept_lambda, s->kept_set,
                    &s->kept_n,     s->measure_work,
                    warm,           s->x,
                    NULL,           s->row_diag_ready ? s->row_diag : NULL};
    return heft_bpp_answer(p, &a, converged, start, lambda_out, stats);
}

/* An unconverged answer is never worse, by the error measure, than the
 * start points every solver has: lambda = 0 and the warm start (both
 * clamped). Returns HEFT_ANSWER_ZERO or HEFT_ANSWER_WARM_START when one of
 * them replaced lambda (and set), else HEFT_ANSWER_SOLVER. */
int heft_bpp_prefer_start_points(const heft_mlcp *p, int warm, double *lambda, uint8_t *set,
                                 double *scratch, double *measure_work) {
    const int n = p->n;
    int source = HEFT_ANSWER_SOLVER;
    heft_bpp_clamp_answer(p, lambda);
    double kept = heft_mlcp_measure(p, lambda, measure_work).max;
    if (!isfinite(kept))
        kept = INFINITY;
    if (warm) {
        heft_bpp_prefer_warm_start(p, lambda, set, scratch, measure_work);
        const double e = heft_mlcp_measure(p, lambda, measure_work).max;
        if (e < kept) {
            kept = e;
            source = HEFT_ANSWER_WARM_START;
        }
    }
    memset(scratch, 0, sizeof(double) * (size_t)n);
    heft_bpp_clamp_answer(p, scratch);
    if (heft_mlcp_measure(p, scratch, measure_work).max < kept) {
        memcpy(lambda, scratch, sizeof(double) * (size_t)n);
        heft_bpp_read_sets(p, lambda, set);
        source = HEFT_ANSWER_ZERO;
    }
    return source;
}

/* An answer that did not converge can still be worse than the warm start:
 * the best pivoting iterate on towers of 15 or more logs (3.9e3 J against 60
 * J), a frozen-box answer whose normal impulses moved far from the warm
 * start's (285 J against 82 J on the same tower): answer with the warm
 * start then. */
void heft_bpp_prefer_warm_start(const heft_mlcp *p, double *lambda, uint8_t *set, double *scratch,
                                double *measure_work) {
    const int n = p->n;
    heft_bpp_clamp_answer(p, lambda);
    const double kept_error = heft_mlcp_measure(p, lambda, measure_work).max;
    for (int i = 0; i < n; ++i)
        scratch[i] = isfinite(p->lambda0[i]) ? p->lambda0[i] : 0.0;
    heft_bpp_clamp_answer(p, scratch);
    if (heft_mlcp_measure(p, scratch, measure_work).max < kept_error) {
        memcpy(lambda, scratch, sizeof(double) * (size_t)n);
        heft_bpp_read_sets(p, lambda, set);
    }
}

int heft_bpp_answer(const heft_mlcp *p, const bpp_answer *a, int converged, double start,
                    double *lambda_out, heft_solver_stats *stats) {
    const int n = p->n;
    const size_t vec = sizeof(double) * (size_t)n;
    /* an answer measured already was clamped before it was measured */
    if (a->measured == NULL)
        heft_bpp_clamp_answer(p, a->lambda);
    heft_mlcp_error err = a->measured != NULL
                              ? *a->measured
                              : heft_mlcp_measure_diagonal(p, a->lambda, a->diag, a->measure_work);
    if (!(err.max <= BPP_ACCEPTED)) {
        /* The pivoting's own test passed on an answer the error measure
         * refuses only when the backend's A is not the problem's (a
         * non-symmetric A, of which the skyline and sparse backends read
         * one triangle): not converged. Whatever the answer, lambda = 0 or
         * the warm start replaces it when better. */
        if (err.max > BPP_CLAIM_LIMIT)
            converged = 0;
        const int kept = heft_bpp_prefer_start_points(p, a->warm, a->lambda, (uint8_t *)a->set,
                                                      a->scratch, a->measure_work);
        if (kept != HEFT_ANSWER_SOLVER) {
            stats->answer = kept;
            converged = 0;
            err = heft_mlcp_measure_diagonal(p, a->lambda, a->diag, a->measure_work);
        }
    }
    memcpy(lambda_out, a->lambda, vec);
    memcpy(a->kept_set, a->set, (size_t)n);
    memcpy(a->kept_lambda, a->lambda, vec);
    *a->kept_n = n;

    stats->error_max = err.max;
    stats->error_sum = err.sum;
    stats->bound_violations = err.bound_violations;
    stats->converged = converged;
    stats->time_total_ms = heft_time_ms() - start;
    if (err.nonfinite > 0) {
        *a->kept_n = -1;
        return HEFT_SOLVE_FAILED;
    }
    return converged ? HEFT_SOLVE_OK : HEFT_SOLVE_NOT_CONVERGED;
}

/* Found by registry.c, which declares them the same way. */
extern const heft_solver_vtable heft_bpp_solver;
extern const heft_solver_vtable heft_bpp_downdate_solver;
extern const heft_solver_vtable heft_bpp_skyline_solver;

const heft_solver_vtable heft_bpp_solver = {
    "bpp",
    "block principal pivoting (Judice & Pires), dense Cholesky of A_FF at every step",
    bpp_create,
    heft_bpp_solve,
    heft_bpp_reset,
    heft_bpp_destroy,
    1,
    heft_bpp_save_state,
    heft_bpp_restore_state,
    1,    /* heft_bpp_answer measures the answer */
    NULL, /* reserve: workspaces sized at the first solve of each size */
};

const heft_solver_vtable heft_bpp_downdate_solver = {
    "bpp-downdate",
    "block principal pivoting, chol(A) once per solve and rank-1 downdates per tight variable "
    "(Lefebvre 2020, Alg. 2.2-2.4)",
    bpp_downdate_create,
    heft_bpp_solve,
    heft_bpp_reset,
    heft_bpp_destroy,
    1,
    heft_bpp_save_state,
    heft_bpp_restore_state,
    1,    /* heft_bpp_answer measures the answer */
    NULL, /* reserve: workspaces sized at the first solve of each size */
};

const heft_solver_vtable heft_bpp_skyline_solver = {
    "bpp-skyline",
    "block principal pivoting with downdates on a reverse Cuthill-McKee skyline "
    "(Lefebvre 2020, Alg. 2.5-2.6)",
    bpp_skyline_create,
    heft_bpp_solve,
    heft_bpp_reset,
    heft_bpp_destroy,
    1,
    heft_bpp_save_state,
    heft_bpp_restore_state,
    1, /* heft_bpp_answer measures the answer */
    bpp_skyline_reserve,
};
