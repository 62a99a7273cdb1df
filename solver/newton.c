/* Heft: semismooth Newton on the box-friction MLCP (newton.h,
 * docs/friction-backstop.md "The Newton stage").
 *
 * The residual is the error measure's own (mlcp-format.md): for row i with
 * d_i = A_ii and w = A lambda - b,
 *
 *     r_i = lambda_i - clamp(lambda_i - w_i / d_i, lo_i(lambda), hi_i(lambda)),
 *
 * and the merit is the measure's sum, psi = sum 0.5 d_i r_i^2 (J). Each
 * step reads the sets off the point (free where the clamp is inactive,
 * else at the bound it hits) and solves the linearized r = 0:
 *
 *   - a tight row goes to its bound at the new point: Delta_t = bound_t -
 *     lambda_t, and a friction row's bound +-mu lambda_f moves with its
 *     normal row, so Delta_t = c_t + kappa_t Delta_f (kappa_t = +-mu while
 *     lambda_f > 0) when the normal row f is free;
 *   - a free row keeps w = 0: (A Delta)_i = -w_i, which with the tight rows
 *     substituted is M_FF Delta_F = -w_F - A_FT c_T, where M = A plus
 *     kappa_t times column t of A added to column f. Rows t and f belong to
 *     one contact and touch the same bodies, so M has A's pattern and fits
 *     A's envelope; M is not symmetric and is factored M = L U without
 *     pivoting in two envelopes (the lower one by columns, the upper one by
 *     rows).
 *
 * A pivot below NEWTON_DEPENDENT of its row's scale marks a row that
 * depends on the rows before it (a four-point face gives four normal rows
 * for three degrees of freedom): the row is dropped from the system and its
 * step is zero, which leaves a solution of the rest; when the system is
 * consistent (as at an answer of a problem with redundant contacts) that
 * is a solution of all of it.
 *
 * The step is kept when psi falls by Armijo's rule, halving it otherwise
 * (the min-map is not differentiable where a row changes set, so the full
 * step can overshoot); no decrease at all ends the stage ("stalled").
 *
 * A start has two phases. The first holds at their bound only the free
 * rows already on it (hold_leaving_rows); when it stalls (no decrease, a
 * run of short steps, or no progress over NEWTON_STAGNANT steps), the
 * second goes on from the best point seen and holds at its bound every
 * free row whose step leaves its box, as block pivoting would. Near an
 * answer the first phase's line search cuts step after step at the kink
 * of a friction row whose box shrinks with its normal row's step; the
 * second phase pivots such rows instead (on the winch's island of step
 * 1,441 the first phase found nothing better than its start, 2.1e-8 J off,
 * and the second ended at 6.5e-14 J in 4 steps). From far starts the wide
 * rule sends many rows to their bounds at once and diverges as block
 * pivoting does, so it is not the first phase. Near
 * an answer whose sets it has found, a step solves the linear system there
 * exactly and the next residual is round-off: it ends exactly. Fischer and
 * Burmeister's function with the same line search is the textbook choice
 * (Facchinei & Pang, 2003, §9.1); the min-map is used here because its
 * steps are block pivoting's own and its merit is the error measure. */
#include <math.h>
#include <string.h>

#include "newton.h"
#include "skyline.h"
#include "skyline_lu.h"
#include "workspace.h"

/* Armijo's fraction of the predicted decrease, and the halvings of a step */
#define NEWTON_ARMIJO 1e-4
#define NEWTON_HALVINGS 30
/* merits remembered by the nonmonotone line search */
#define NEWTON_MEMORY 5
/* re-solves of a step after rows leaving their boxes were held */
#define NEWTON_HOLD_ROUNDS 4
/* steps shorter than this fraction of the Newton step, NEWTON_CRAWL in a row
 * (NEWTON_CRAWL_WIDE in the second phase), end a phase of a start */
#define NEWTON_SHORT_STEP (1.0 / 64.0)
#define NEWTON_CRAWL 3
#define NEWTON_CRAWL_WIDE 6
/* a pivot below this fraction of its row's scale: a dependent row */
#define NEWTON_DEPENDENT 1e-10
/* the shift of the free rows' diagonal, relative to A_ii (direction()):
 * its floor and ceiling, and its factors up after a step the line search
 * cut and down after a full one (Levenberg-Marquardt's rule) */
#define NEWTON_PROXIMAL 1e-6
#define NEWTON_PROXIMAL_MAX 1e-2
#define NEWTON_SHIFT_UP 10.0
#define NEWTON_SHIFT_DOWN 3.0
/* a phase of a start ends when its best error has not fallen below
 * NEWTON_PROGRESS of its value NEWTON_STAGNANT steps before
 * (NEWTON_STAGNANT_WIDE in the second phase) */
#define NEWTON_STAGNANT 10
#define NEWTON_STAGNANT_WIDE 20
#define NEWTON_PROGRESS 0.8

enum { NEWTON_FREE = 0, NEWTON_AT_LO = 1, NEWTON_AT_HI = 2, NEWTON_HELD = 3 };

/* The arrays of n entries the rows' envelope needs beside reserve_vectors'
 * (prepare_rows, after prepare). */
static int reserve_row_vectors(heft_newton *ws, size_t un) {
    return HEFT_RESERVE(ws->py, ws->py_cap, un) && HEFT_RESERVE(ws->k_row, ws->k_row_cap, un) &&
           HEFT_RESERVE(ws->k_prev, ws->k_prev_cap, un) &&
           HEFT_RESERVE(ws->k_last, ws->k_last_cap, un) &&
           HEFT_RESERVE(ws->k_start, ws->k_start_cap, un + 1) &&
           HEFT_RESERVE(ws->k_scale, ws->k_scale_cap, un) &&
           HEFT_RESERVE(ws->k_out, ws->k_out_cap, un);
}

/* The arrays of n entries every start needs (prepare). */
static int reserve_vectors(heft_newton *ws, size_t un) {
    return HEFT_RESERVE(ws->lambda, ws->lambda_cap, un) &&
           HEFT_RESERVE(ws->trial, ws->trial_cap, un) && HEFT_RESERVE(ws->w, ws->w_cap, un) &&
           HEFT_RESERVE(ws->wt, ws->wt_cap, un) && HEFT_RESERVE(ws->dir, ws->dir_cap, un) &&
           HEFT_RESERVE(ws->g, ws->g_cap, un) && HEFT_RESERVE(ws->kappa, ws->kappa_cap, un) &&
           HEFT_RESERVE(ws->diag, ws->diag_cap, un) && HEFT_RESERVE(ws->best, ws->best_cap, un) &&
           HEFT_RESERVE(ws->set, ws->set_cap, un) &&
           HEFT_RESERVE(ws->trial_set, ws->trial_set_cap, un) &&
           HEFT_RESERVE(ws->px, ws->px_cap, un) && HEFT_RESERVE(ws->out, ws->out_cap, un);
}

/* The rows' envelope: the ordering (kept while the topology holds), A in
 * it, the LU's two envelopes and diag. */
static int prepare_rows(heft_newton *ws, const heft_mlcp *p) {
    const int n = p->n;
    const size_t un = (size_t)n;
    ws->body_active = 0;
    if (!ws->ordering_valid || !heft_ordering_holds(&ws->ordering, p)) {
        ws->ordering_valid = 0;
        const int rc = p->A != NULL ? heft_ordering_from_dense(&ws->ordering, n, p->A)
                                    : heft_ordering_from_structure(&ws->ordering, p);
        if (rc != 0 || !HEFT_RESERVE(ws->start, ws->start_cap, un + 1))
            return -1;
        if (heft_skyline_layout(n, ws->ordering.last, ws->start) == 0 && n > 0)
            return -1;
        ws->ordering_valid = 1;
    }
    const size_t stored = ws->start[n];
    const int *last = ws->ordering.last;
    if (!HEFT_RESERVE(ws->A_sky, ws->A_sky_cap,
                      heft_skyline_room(n, last, stored, ws->A_sky_cap)) ||
        !HEFT_RESERVE(ws->lower, ws->lower_cap,
                      heft_skyline_room(n, last, stored, ws->lower_cap)) ||
        !HEFT_RESERVE(ws->upper, ws->upper_cap,
                      heft_skyline_room(n, last, stored, ws->upper_cap)) ||
        !reserve_row_vectors(ws, un))
        return -1;
    if (heft_envelope_assemble(p, &ws->ordering, ws->start, ws->A_sky, &ws->env) != 0)
        return -1;
    for (int k = 0; k < n; ++k)
        ws->diag[ws->ordering.perm[k]] = ws->A_sky[ws->start[k]];
    return 0;
}

int heft_newton_reserve(heft_newton *ws, int rows, int bodies, int envelope) {
    if (rows <= 0)
        return 1;
    const size_t un = (size_t)rows, room = envelope > 0 ? (size_t)envelope : 0;
    return reserve_vectors(ws, un) && reserve_row_vectors(ws, un) &&
           HEFT_RESERVE(ws->start, ws->start_cap, un + 1) &&
           heft_ordering_reserve(&ws->ordering, rows, bodies, envelope) &&
           heft_envelope_work_reserve(&ws->env, rows, bodies) &&
           (room == 0 || (HEFT_RESERVE(ws->A_sky, ws->A_sky_cap, room) &&
                          HEFT_RESERVE(ws->lower, ws->lower_cap, room) &&
                          HEFT_RESERVE(ws->upper, ws->upper_cap, room)));
}

/* Body space when the island allows it (body_space.h), else the rows. */
static int prepare(heft_newton *ws, const heft_mlcp *p) {
    const int n = p->n;
    const size_t un = (size_t)n;
    if (!reserve_vectors(ws, un))
        return -1;
    ws->body_active = 0;
    const int taken =
        ws->body_off
            ? 0
            : heft_body_space_take(&ws->body, p, HEFT_BODY_SPACE_MIN_COMPLIANCE, NULL, ws->diag);
    if (taken < 0)
        return -1;
    if (taken == 0)
        return prepare_rows(ws, p);
    ws->body_active = 1;
    return 0;
}

/* y = A x - b (b may be NULL: y = A x), in the caller's row order. */
static void residual(heft_newton *ws, const heft_mlcp *p, const double *x, const double *b,
                     double *y) {
    const int n = p->n;
    if (ws->body_active) {
        heft_body_space_multiply(&ws->body, x, y);
        if (b != NULL)
            for (int i = 0; i < n; ++i)
                y[i] -= b[i];
        return;
    }
    const int *perm = ws->ordering.perm;
    for (int r = 0; r < n; ++r)
        ws->px[r] = x[perm[r]];
    heft_skyline s = {n, ws->ordering.last, ws->start, ws->A_sky};
    heft_skyline_multiply(s, ws->px, ws->py);
    for (int r = 0; r < n; ++r)
        y[perm[r]] = ws->py[r] - (b != NULL ? b[perm[r]] : 0.0);
}

/* Reads the sets of lambda (w = A lambda - b) into set and returns the
 * merit psi; *emax gets the largest row error. The same arithmetic as the
 * error measure, so that emax is what heft_mlcp_measure says. */
static double classify(const heft_newton *ws, const heft_mlcp *p, const double *lambda,
                       const double *w, uint8_t *set, double *emax) {
    double sum = 0.0, worst = 0.0;
    for (int i = 0; i < p->n; ++i) {
        double lo, hi;
        heft_mlcp_bounds(p, lambda, i, &lo, &hi);
        const double d = ws->diag[i];
        if (!(d > 0.0) || !(lo < hi)) {
            /* a friction row whose normal impulse is zero has a closed box;
             * it is put at the side its slip pushes it to, so that the step
             * can open the box with the normal row (direction()) */
            set[i] = !(d > 0.0)
                         ? NEWTON_HELD
                         : (p->findex != NULL && p->findex[i] >= 0 && w[i] < 0.0 ? NEWTON_AT_HI
                                                                                 : NEWTON_AT_LO);
            const double off =
                lambda[i] < lo ? lo - lambda[i] : (lambda[i] > hi ? hi - lambda[i] : 0.0);
            const double e = d > 0.0 ? 0.5 * off * off * d : 0.0;
            sum += e;
            worst = fmax(worst, e);
            continue;
        }
        const double step = w[i] / d, target = lambda[i] - step;
        double change;
        if (target <= lo) {
            set[i] = NEWTON_AT_LO;
            change = lambda[i] - lo;
        } else if (target >= hi) {
            set[i] = NEWTON_AT_HI;
            change = lambda[i] - hi;
        } else {
            set[i] = NEWTON_FREE;
            change = step;
        }
        const double e = 0.5 * change * change * d;
        sum += e;
        worst = fmax(worst, e);
    }
    *emax = worst;
    return sum;
}

/* M = A_FF, gathered from A's envelope into the envelope of the free rows
 * alone (skyline_lu.h), so that the coupling, the factorization and the
 * substitutions spend nothing on the tight rows, which fill most of A's
 * envelope on a chain wound on a drum (its contact rows all meet through
 * the drum); the factor has the bits it has in A's layout. */
static heft_lu_source lu_source(heft_newton *ws, int n) {
    const heft_lu_source src = {n,         ws->ordering.last, ws->start,  ws->A_sky,  ws->out,
                                ws->k_row, ws->k_prev,        ws->k_last, ws->k_start};
    return src;
}

/* ---- In body space ------------------------------------------------------------------
 *
 * On an island body_space.h takes (more compliant contact rows than body
 * coordinates), the free rows' system M_FF x = g is solved through the
 * bodies, as bpp-skyline's solves are (docs/bpp.md "Solves in body
 * space"). A coupled friction row t moves with its free normal row f by
 * kappa_t, so the impulse of f acts through l_f = j_f + sum kappa_t j_t
 * (t and f are one contact's rows, on the same two bodies), and with
 * E' = E_F + shift diag(A_FF):
 *
 *     M_FF x = J_F W L_F^T x + E' x = g   <=>   K v = L_F^T E'^-1 g,
 *     K = M + L_F^T E'^-1 J_F,   x = E'^-1 (g - J_F v),
 *
 * K unsymmetric, six rows a body (heft_body_space_solve, which refines x
 * against the exact M_FF until its residual is round-off); with the compliance every
 * free row is independent, so none is dropped. A direction that cannot
 * be refined, a pivot that fails, or a coupled row on other bodies than
 * its normal's hands the start to the rows' envelope; the next start
 * tries body space again (a pause would make a workspace's answers depend
 * on its history). */
/* The free rows' step into dir (g in ws->g). Returns 0, 1 when body space
 * gives up (see above), -1 when out of memory. */
static int body_direction(heft_newton *ws, const heft_mlcp *p, double shift) {
    for (int i = 0; i < p->n; ++i)
        ws->out[i] = ws->set[i] != NEWTON_FREE;
    const int rc =
        heft_body_space_solve(&ws->body, ws->out, ws->kappa, shift, ws->diag, NULL, ws->g, ws->px);
    if (rc != 0)
        return rc;
    for (int i = 0; i < p->n; ++i)
        if (!ws->out[i])
            ws->dir[i] = ws->px[i];
    return 0;
}

/* The coupled friction rows follow their normal rows' steps; 0, or -1 on a
 * non-finite step. */
static int finish_direction(heft_newton *ws, const heft_mlcp *p) {
    for (int t = 0; t < p->n; ++t)
        if (ws->kappa[t] != 0.0)
            ws->dir[t] += ws->kappa[t] * ws->dir[p->findex[t]];
    for (int i = 0; i < p->n; ++i)
        if (!isfinite(ws->dir[i]))
            return -1;
    return 0;
}

/* The Newton direction at ws->lambda (sets in ws->set, w in ws->w) into
 * ws->dir. Returns the rows dropped as dependent, or -1. */
static int direction(heft_newton *ws, const heft_mlcp *p, double shift, int *outside) {
    const int n = p->n;
    const double *lambda = ws->lambda;
    double *dir = ws->dir, *kappa = ws->kappa;

    /* the tight rows: non-friction rows first, so that a friction row whose
     * normal row is tight takes the bound of the normal's new value */
    for (int i = 0; i < n; ++i) {
        dir[i] = 0.0;
        kappa[i] = 0.0;
        const int friction = p->findex != NULL && p->findex[i] >= 0;
        if (ws->set[i] == NEWTON_FREE || friction)
            continue;
        double lo, hi;
        heft_mlcp_bounds(p, lambda, i, &lo, &hi);
        const double v = lambda[i];
        dir[i] = ws->set[i] == NEWTON_AT_HI
                     ? hi - v
                     : (ws->set[i] == NEWTON_AT_LO ? lo - v
                                                   : (v < lo ? lo - v : (v > hi ? hi - v : 0.0)));
    }
    for (int t = 0; t < n; ++t) {
        const int f = p->findex != NULL ? p->findex[t] : -1;
        if (f < 0 || ws->set[t] == NEWTON_FREE)
            continue;
        const double mu = fabs(p->hi[t]);
        const double sign = ws->set[t] == NEWTON_AT_HI ? 1.0 : -1.0;
        if (ws->set[t] == NEWTON_HELD) {
            double lo, hi;
            heft_mlcp_bounds(p, lambda, t, &lo, &hi);
            const double v = lambda[t];
            dir[t] = v < lo ? lo - v : (v > hi ? hi - v : 0.0);
        } else if (ws->set[f] != NEWTON_FREE) {
            const double normal = lambda[f] + dir[f];
            dir[t] = sign * mu * (normal > 0.0 ? normal : 0.0) - lambda[t];
        } else {
            const double normal = lambda[f] > 0.0 ? lambda[f] : 0.0;
            dir[t] = sign * mu * normal - lambda[t];
            kappa[t] = sign * mu; /* the free normal row's step is taken as the
                                   * side where its box is open */
        }
    }

    /* g_F = -w_F - (A c_T)_F, c_T = dir on the tight rows */
    residual(ws, p, dir, NULL, ws->g);
    for (int i = 0; i < n; ++i)
        ws->g[i] = -ws->w[i] - ws->g[i];
    if (ws->body_active) {
        const int rc = body_direction(ws, p, shift);
        if (rc == 0)
            return finish_direction(ws, p);
        if (rc < 0)
            return -1;
        /* the rows from here, for the rest of this start (g is the same in
         * either); their ordering is built now, so it is read below */
        if (prepare_rows(ws, p) != 0)
            return -1;
    }
    const int *perm = ws->ordering.perm, *inverse = ws->ordering.inverse;

    /* M = A_FF, then the coupling, in RCM order */
    for (int r = 0; r < n; ++r)
        ws->out[r] = ws->set[perm[r]] != NEWTON_FREE;
    const heft_lu_source src = lu_source(ws, n);
    const int kept =
        heft_skyline_kept(n, src.last, src.out_A, ws->k_row, ws->k_prev, ws->k_last, ws->k_start);
    const heft_lu_env e = heft_lu_gather(&src, kept, ws->lower, ws->upper, ws->k_out, ws->k_scale);
    for (int t = 0; t < n; ++t)
        if (kappa[t] != 0.0)
            *outside += heft_lu_couple(&src, &e, inverse[t], inverse[p->findex[t]], kappa[t]);
    heft_lu_scales(&src, &e, ws->k_scale);
    /* Levenberg-Marquardt's shift of the free rows' diagonal: along the
     * near-null directions of a singular or ill-conditioned A_FF (redundant
     * contacts, made regular only by their compliance) the unshifted step
     * was long and refused by the line search; the shift bounds it and
     * leaves the answer alone (the residual is exact, and at an answer the
     * step is zero whatever the matrix) */
    for (int k = 0; k < e.m; ++k)
        ws->lower[ws->k_start[k]] += shift * ws->A_sky[ws->start[ws->k_row[k]]];

    const int dropped = heft_lu_factor(&e, NEWTON_DEPENDENT);
    if (dropped < 0)
        return -1;
    for (int k = 0; k < e.m; ++k)
        ws->px[k] = ws->g[perm[ws->k_row[k]]];
    heft_lu_substitute(&e, ws->px);
    for (int k = 0; k < e.m; ++k) {
        const int r = ws->k_row[k];
        ws->out[r] = e.out[k];
        dir[perm[r]] = e.out[k] ? 0.0 : ws->px[k];
    }
    return finish_direction(ws, p) != 0 ? -1 : dropped;
}

/* Free rows that sit on a bound of their box (within their own step
 * |w_i| / d_i) and whose step leaves the box there are put at that bound
 * (Bertsekas' epsilon-active set, as in projected Newton): a degenerate row,
 * at its bound with w_i near zero, reads as free, and its free step left
 * the box and dragged every coupled row with it, so that no fraction of
 * the step lowered the merit. With wide (a start's second phase), so is
 * every free row whose step ends outside the box it will have there (a
 * friction row's box follows its normal row's step): block pivoting's own
 * rule, which near an answer replaces the line search's cut at a row's
 * kink by a pivot of that row. Returns the rows moved. */
static int hold_leaving_rows(heft_newton *ws, const heft_mlcp *p, int wide) {
    int moved = 0;
    for (int i = 0; i < p->n; ++i) {
        if (ws->set[i] != NEWTON_FREE)
            continue;
        double lo, hi;
        heft_mlcp_bounds(p, ws->lambda, i, &lo, &hi);
        const double v = ws->lambda[i];
        const double eps = fabs(ws->w[i]) / ws->diag[i] + 1e-12 * (1.0 + fabs(v));
        const int f = p->findex != NULL ? p->findex[i] : -1;
        /* the bound moves with a friction row's normal row */
        const double grow = f >= 0 ? fabs(p->hi[i]) * ws->dir[f] : 0.0;
        const double step = ws->dir[i];
        /* the box at the step's end (a friction row's follows its normal) */
        double end_lo = lo, end_hi = hi;
        if (wide && f >= 0) {
            const double normal = ws->lambda[f] + ws->dir[f];
            end_hi = normal > 0.0 ? fabs(p->hi[i]) * normal : 0.0;
            end_lo = -end_hi;
        }
        if ((v - lo <= eps && step < -grow) || (wide && v + step < end_lo - eps)) {
            ws->set[i] = NEWTON_AT_LO;
            ++moved;
        } else if ((hi - v <= eps && step > grow) || (wide && v + step > end_hi + eps)) {
            ws->set[i] = NEWTON_AT_HI;
            ++moved;
        }
    }
    return moved;
}

static void clamp_into_boxes(const heft_mlcp *p, double *lambda) {
    /* normal rows first: a friction box follows its clamped normal */
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < p->n; ++i) {
            const int friction = p->findex != NULL && p->findex[i] >= 0;
            if (friction != pass)
                continue;
            double lo, hi;
            heft_mlcp_bounds(p, lambda, i, &lo, &hi);
            lambda[i] = lambda[i] < lo ? lo : (lambda[i] > hi ? hi : lambda[i]);
        }
}

/* The second phase of a start: from the best point seen, with a fresh
 * memory of merits. Returns its merit (*emax its largest row error). */
static double restart_from_best(heft_newton *ws, const heft_mlcp *p, double *recent, double *emax) {
    memcpy(ws->lambda, ws->best, sizeof(double) * (size_t)p->n);
    residual(ws, p, ws->lambda, p->b, ws->w);
    const double psi = classify(ws, p, ws->lambda, ws->w, ws->set, emax);
    for (int k = 0; k < NEWTON_MEMORY; ++k)
        recent[k] = psi;
    return psi;
}

void heft_newton_solve(heft_newton *ws, const heft_mlcp *p, const double *start, double tau,
                       int max_steps, double *answer, double *measure_work,
                       heft_newton_result *result) {
    const int n = p->n;
    const size_t vec = sizeof(double) * (size_t)n;
    memset(result, 0, sizeof *result);
    result->status = HEFT_NEWTON_FAILED;
    result->error_max = INFINITY;
    if (n <= 0 || prepare(ws, p) != 0)
        return;
    result->envelope = ws->body_active ? 0 : heft_ordering_room(&ws->ordering);
    for (int i = 0; i < n; ++i)
        ws->lambda[i] = isfinite(start[i]) ? start[i] : 0.0;
    clamp_into_boxes(p, ws->lambda);
    residual(ws, p, ws->lambda, p->b, ws->w);
    double emax;
    double psi = classify(ws, p, ws->lambda, ws->w, ws->set, &emax);
    double best = INFINITY;
    double recent[NEWTON_MEMORY] = {0};
    int crawl = 0;
    int status = HEFT_NEWTON_BUDGET;
    double shift = NEWTON_PROXIMAL;
    /* the error a start must lower by NEWTON_PROGRESS within NEWTON_STAGNANT steps */
    double mark = INFINITY;
    int mark_step = 0;
    int wide = 0;       /* the second phase: rows held wherever their step leaves the box */
    int phase_over = 0; /* the phase stalled: on to the second, or the start ends */
    for (;;) {
        if (phase_over) {
            if (wide) {
                status = HEFT_NEWTON_STALLED;
                break;
            }
            wide = 1;
            phase_over = 0;
            psi = restart_from_best(ws, p, recent, &emax);
            shift = NEWTON_PROXIMAL;
            mark_step = result->steps;
            crawl = 0;
        }
        if (isfinite(psi) && emax < best) {
            /* measured as answered: clamped, by the error measure itself */
            memcpy(ws->best, ws->lambda, vec);
            clamp_into_boxes(p, ws->best);
            const double e = heft_mlcp_measure(p, ws->best, measure_work).max;
            if (e < result->error_max) {
                result->error_max = e;
                memcpy(answer, ws->best, vec);
            }
            best = emax;
            if (e <= tau) {
                status = HEFT_NEWTON_SOLVED;
                break;
            }
        }
        if (result->steps >= max_steps)
            break;
        if (result->error_max <= NEWTON_PROGRESS * mark) {
            mark = result->error_max;
            mark_step = result->steps;
        } else if (result->steps - mark_step >=
                   (wide || ws->last_stage ? NEWTON_STAGNANT_WIDE : NEWTON_STAGNANT)) {
            phase_over = 1;
            continue;
        }
        ++result->steps;
        int dropped = direction(ws, p, shift, &result->outside);
        for (int round = 0; round < NEWTON_HOLD_ROUNDS && dropped >= 0; ++round) {
            if (hold_leaving_rows(ws, p, wide) == 0)
                break;
            result->held_rounds++;
            dropped = direction(ws, p, shift, &result->outside);
        }
        if (dropped < 0) {
            status = HEFT_NEWTON_STALLED;
            break;
        }
        result->dropped += dropped;
        /* nonmonotone rule (Grippo, Lampariello & Lucidi, 1986): a step is
         * measured against the largest merit of the last NEWTON_MEMORY
         * points, so that a full step may raise the merit for a while on
         * its way through the kinks of the min-map */
        double reference = psi;
        for (int k = 0; k < NEWTON_MEMORY && k < result->steps - 1; ++k)
            reference = fmax(reference, recent[k]);
        recent[(result->steps - 1) % NEWTON_MEMORY] = psi;
        int accepted = 0;
        double t = 1.0;
        for (int k = 0; k <= NEWTON_HALVINGS; ++k, t *= 0.5) {
            for (int i = 0; i < n; ++i)
                ws->trial[i] = ws->lambda[i] + t * ws->dir[i];
            clamp_into_boxes(p, ws->trial);
            residual(ws, p, ws->trial, p->b, ws->wt);
            double et;
            const double pt = classify(ws, p, ws->trial, ws->wt, ws->trial_set, &et);
            if (k > 0)
                result->line_searches++;
            if (isfinite(pt) && pt <= (1.0 - 2.0 * NEWTON_ARMIJO * t) * reference) {
                memcpy(ws->lambda, ws->trial, vec);
                memcpy(ws->w, ws->wt, vec);
                psi = classify(ws, p, ws->lambda, ws->w, ws->set, &emax);
                accepted = 1;
                break;
            }
        }
        /* Levenberg-Marquardt's rule for the shift: a step the line search
         * cut was too long along the near-null directions of the system,
         * so the next one is damped more; a refused step is solved again
         * from the same point with the larger shift. A full step lets the
         * shift fall back towards its floor, where the convergence is fast.
         * On the pyramid of base 10 (1,740 rows, compliant redundant
         * contacts, near-null pivots 1e-4 of the diagonal) the fixed floor
         * gave steps 0.18 long from a point 1e-10 J off, of which the line
         * search kept an eighth or less, and the stage stalled there */
        if (accepted && t == 1.0) {
            shift = fmax(shift / NEWTON_SHIFT_DOWN, NEWTON_PROXIMAL);
        } else if (shift < NEWTON_PROXIMAL_MAX) {
            shift = fmin(shift * NEWTON_SHIFT_UP, NEWTON_PROXIMAL_MAX);
            if (!accepted)
                continue;
        }
        /* a run of short steps is a crawl along a kink: the start is given
         * up, for the caller's next one (or Lemke's method) */
        crawl = accepted && t < NEWTON_SHORT_STEP ? crawl + 1 : 0;
        if (!accepted || (crawl >= (wide ? NEWTON_CRAWL_WIDE : NEWTON_CRAWL) && !ws->last_stage))
            phase_over = 1;
    }
    result->status = isfinite(result->error_max) ? status : HEFT_NEWTON_FAILED;
}

void heft_newton_release(heft_newton *ws) {
    heft_ordering_release(&ws->ordering);
    heft_body_space_release(&ws->body);
    heft_envelope_work_release(&ws->env);
    void *arrays[] = {ws->start, ws->A_sky,  ws->lower,  ws->upper,   ws->lambda,    ws->trial,
                      ws->w,     ws->wt,     ws->dir,    ws->g,       ws->kappa,     ws->diag,
                      ws->px,    ws->py,     ws->best,   ws->set,     ws->trial_set, ws->out,
                      ws->k_row, ws->k_prev, ws->k_last, ws->k_start, ws->k_scale,   ws->k_out};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
    memset(ws, 0, sizeof *ws);
}
