/* Heft: the skyline backend of the block principal pivoting solvers,
 * "bpp-skyline" ([Lefebvre 2020] §2.2.3, Alg. 2.2 with Alg. 2.5 and 2.6).
 *
 * The rows are put in reverse Cuthill-McKee order (ordering.h), computed once
 * per island topology and kept in the solver state; A is assembled straight
 * into skyline storage in that order (from the structured form without ever
 * forming a dense A, or gathered from p->A), so every array is the size of
 * the envelope. Per solve, L0 = chol(A) in the same storage (Alg. 2.2 line
 * 2); per pivoting step, L = L0 and one skyline-bounded downdate per tight
 * variable in ascending (RCM) order (Alg. 2.5), then the skyline-bounded
 * solve skipping tight rows (Alg. 2.6).
 *
 * When downdating would cost more than factoring A_FF afresh, A_FF is
 * factored in the same storage instead, leaving the tight rows out (§2.3:
 * "one would only perform low-rank downdates if the number of tight
 * variables is sufficiently small"). Two tests decide, either one suffices:
 * - the tight fraction passes options.skyline_refactor_fraction (the
 *   thesis's 15%, Figure 2.4, measured on dense storage);
 * - the work the skyline predicts: removing row i updates every later column
 *   k of its diagonal block on rows k+1..s_k (the rank-1 update spreads down
 *   the whole band), about 4 (s_k - k) + 20 flops per column, while
 *   factoring costs about (s_k - k)^2 per kept column. On a band of half
 *   width b this puts the break-even near b / 4 tight variables whatever m
 *   is, so a fixed fraction cannot be right for long islands
 *   (heft_bench_downdate_vs_refactor measures both: at m = 1000, b = 10,
 *   downdating 1% of the rows already takes twice the refactoring).
 * A fraction of 1 or more turns both off: always downdate (for tests and
 * measurements).
 *
 * As in bpp_dense.c, a step with the tight set of the factor in hand only
 * solves, and L = L0 copies only the columns that can differ. */
#include <math.h>
#include <string.h>

#include "bpp.h"
#include "envelope.h"
#include "skyline.h"
#include "skyline_lu.h"
#include "workspace.h"

static heft_skyline skyline_of(const bpp_state *s, double *values) {
    heft_skyline k = {s->ordering.n, s->ordering.last, s->start, values};
    return k;
}

/* The cost model of the refactoring decision (see the top of the file):
 * downdate_cost[k] = sum over columns j < k of 4 (s_j - j) + 20, and
 * block_end[k] = the last column of the diagonal block of column k (the
 * first j >= k with s_j == j: a downdate stops there). */
static void cost_tables(bpp_state *s, int n) {
    const int *last = s->ordering.last;
    s->downdate_cost[0] = 0.0;
    for (int k = 0; k < n; ++k)
        s->downdate_cost[k + 1] = s->downdate_cost[k] + 4.0 * (last[k] - k) + 20.0;
    int end = n - 1;
    for (int k = n - 1; k >= 0; --k) {
        if (last[k] == k)
            end = k;
        s->block_end[k] = end;
    }
}

/* Estimated flops of the two ways to L_FF for the tight set tp (first: its
 * first tight row) into *down and *refactor. */
static void factor_costs(const bpp_state *s, int n, const unsigned char *tp, int first,
                         double *down, double *refactor) {
    const int *last = s->ordering.last;
    *down = (double)(s->start[n] - s->start[first + 1]); /* L = L0 */
    *refactor = (double)s->start[n];                     /* the copy of A */
    for (int r = 0; r < n; ++r) {
        const double w = (double)(last[r] - r);
        if (tp[r])
            *down += s->downdate_cost[s->block_end[r] + 1] - s->downdate_cost[r + 1];
        else
            *refactor += w * w + w + 10.0;
    }
}

static int downdating_costs_more(const bpp_state *s, int n, const unsigned char *tp, int first) {
    double down, refactor;
    factor_costs(s, n, tp, first, &down, &refactor);
    return down > refactor;
}

/* The arrays of n entries a solve in the rows needs (row_prepare). */
static int reserve_row_vectors(bpp_state *s, size_t un) {
    return HEFT_RESERVE(s->tight_perm, s->tight_perm_cap, un) &&
           HEFT_RESERVE(s->factored_tight, s->factored_tight_cap, un) &&
           HEFT_RESERVE(s->px, s->px_cap, un) && HEFT_RESERVE(s->py, s->py_cap, un) &&
           HEFT_RESERVE(s->sigma, s->sigma_cap, un) && HEFT_RESERVE(s->k_row, s->k_row_cap, un) &&
           HEFT_RESERVE(s->k_prev, s->k_prev_cap, un) &&
           HEFT_RESERVE(s->k_last, s->k_last_cap, un) &&
           HEFT_RESERVE(s->k_start, s->k_start_cap, un + 1);
}

static int row_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats) {
    const int n = p->n;
    const size_t un = (size_t)n;
    /* The ordering is kept while the topology stays the same (reset() drops
     * it); the comparison counts as assembly time, so time_ordering_ms is zero
     * for a solve that reused the ordering. */
    double start = heft_time_ms();
    const int dense = p->A != NULL;
    const int holds = s->ordering_valid && heft_ordering_holds(&s->ordering, p);
    stats->time_assembly_ms += heft_time_ms() - start;
    if (!holds) {
        start = heft_time_ms();
        s->ordering_valid = 0;
        const int rc = dense ? heft_ordering_from_dense(&s->ordering, n, p->A)
                             : heft_ordering_from_structure(&s->ordering, p);
        if (rc != 0 || !HEFT_RESERVE(s->start, s->start_cap, un + 1))
            return -1;
        if (heft_skyline_layout(n, s->ordering.last, s->start) == 0 && n > 0)
            return -1;
        if (!HEFT_RESERVE(s->downdate_cost, s->downdate_cost_cap, un + 1) ||
            !HEFT_RESERVE(s->block_end, s->block_end_cap, un))
            return -1;
        cost_tables(s, n);
        s->ordering_valid = 1;
        stats->time_ordering_ms += heft_time_ms() - start;
    }

    start = heft_time_ms();
    const size_t stored = s->start[n];
    const int *last = s->ordering.last;
    if (!HEFT_RESERVE(s->A_sky, s->A_sky_cap, heft_skyline_room(n, last, stored, s->A_sky_cap)) ||
        !HEFT_RESERVE(s->L0_sky, s->L0_sky_cap,
                      heft_skyline_room(n, last, stored, s->L0_sky_cap)) ||
        !HEFT_RESERVE(s->L_sky, s->L_sky_cap, heft_skyline_room(n, last, stored, s->L_sky_cap)) ||
        !reserve_row_vectors(s, un))
        return -1;
    if (heft_envelope_assemble(p, &s->ordering, s->start, s->A_sky, &s->env) != 0)
        return -1;
    for (int k = 0; k < n; ++k)
        s->diag[s->ordering.perm[k]] = s->A_sky[s->start[k]];
    const int room = heft_ordering_room(&s->ordering);
    stats->envelope = room > stats->envelope ? room : stats->envelope;
    s->factored_valid = 0;
    s->L0_valid = 0;
    s->dirty_from = 0;
    stats->time_assembly_ms += heft_time_ms() - start;
    return 0;
}

int heft_bpp_skyline_reserve(bpp_state *s, int rows, int bodies, int envelope) {
    if (rows <= 0)
        return 1;
    const size_t un = (size_t)rows, room = envelope > 0 ? (size_t)envelope : 0;
    return heft_ordering_reserve(&s->ordering, rows, bodies, envelope) &&
           heft_envelope_work_reserve(&s->env, rows, bodies) &&
           HEFT_RESERVE(s->start, s->start_cap, un + 1) &&
           HEFT_RESERVE(s->downdate_cost, s->downdate_cost_cap, un + 1) &&
           HEFT_RESERVE(s->block_end, s->block_end_cap, un) && reserve_row_vectors(s, un) &&
           (room == 0 || (HEFT_RESERVE(s->A_sky, s->A_sky_cap, room) &&
                          HEFT_RESERVE(s->L0_sky, s->L0_sky_cap, room) &&
                          HEFT_RESERVE(s->L_sky, s->L_sky_cap, room)));
}

/* Body space first (bpp_body.c), where the island has more rows than body
 * coordinates and the compliance to allow it; else the row skyline. */
int heft_bpp_skyline_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats) {
    s->sky_problem = p;
    const int body = heft_bpp_body_prepare(s, p, stats);
    if (body != 0)
        return body > 0 ? 0 : -1;
    return row_prepare(s, p, stats);
}

void heft_bpp_skyline_multiply(bpp_state *s, int n, const double *x, double *y) {
    if (heft_bpp_body_active(s)) {
        heft_bpp_body_multiply(s, n, x, y);
        return;
    }
    const int *perm = s->ordering.perm;
    for (int r = 0; r < n; ++r)
        s->px[r] = x[perm[r]];
    heft_skyline_multiply(skyline_of(s, s->A_sky), s->px, s->py);
    for (int r = 0; r < n; ++r)
        y[perm[r]] = s->py[r];
}

/* Column j of A from the envelope: rows from the first column whose skyline
 * reaches j (s is nondecreasing: a binary search) up to j are read along row
 * j, the rest down column j. */
void heft_bpp_skyline_add_column(const bpp_state *s, int n, int j, double c, double *out) {
    if (heft_bpp_body_active(s)) {
        heft_bpp_body_add_column(s, n, j, c, out);
        return;
    }
    const int *perm = s->ordering.perm, *last = s->ordering.last;
    const int k = s->ordering.inverse[j];
    for (int r = heft_skyline_first_reaching(last, k); r < k; ++r)
        out[perm[r]] += c * s->A_sky[s->start[r] + (size_t)(k - r)];
    const double *col = &s->A_sky[s->start[k]];
    for (int r = k; r <= last[k]; ++r)
        out[perm[r]] += c * col[r - k];
    (void)n;
}

/* Alg. 2.2 line 2, when first needed (a solve whose every step is past the
 * refactoring threshold never factors A whole). */
static int ensure_L0(bpp_state *s, heft_solver_stats *stats) {
    if (s->L0_valid)
        return 0;
    memcpy(s->L0_sky, s->A_sky, sizeof(double) * s->start[s->ordering.n]);
    stats->factorizations++;
    if (heft_skyline_factor(skyline_of(s, s->L0_sky), NULL) != 0)
        return -1;
    s->L0_valid = 1;
    s->dirty_from = 0;
    return 0;
}

/* Builds the factor of A_FF for the tight set tp (RCM order). */
static int factor_free_block(bpp_state *s, int n, const unsigned char *tp,
                             heft_solver_stats *stats) {
    int count = 0, first = n;
    for (int r = 0; r < n; ++r)
        if (tp[r]) {
            ++count;
            if (first == n)
                first = r;
        }
    if (count == 0) {
        s->factor_is_L0 = 1;
        return ensure_L0(s, stats);
    }
    s->factor_is_L0 = 0;
    const double fraction = s->options.skyline_refactor_fraction;
    if (fraction < 1.0 &&
        ((double)count > fraction * (double)n || downdating_costs_more(s, n, tp, first))) {
        /* past the break-even: factor A_FF in skyline form, tight rows left out
         * (counted as a factorization: it is the method's own choice, not a
         * fall-back), in the envelope of the free rows alone, then put back
         * in L's layout for the solves: the same bits as in A's envelope,
         * without the work on the tight rows (on the winch's wound chain
         * most of the envelope: its contact rows all meet through the drum) */
        s->dirty_from = 0;
        stats->factorizations++;
        const int kept =
            heft_skyline_kept(n, s->ordering.last, tp, s->k_row, s->k_prev, s->k_last, s->k_start);
        heft_skyline_gather_kept(s->start, s->A_sky, kept, s->k_row, s->k_last, s->k_start,
                                 s->L_sky);
        const heft_skyline free_rows = {kept, s->k_last, s->k_start, s->L_sky};
        if (heft_skyline_factor(free_rows, NULL) != 0)
            return -1;
        heft_skyline_scatter_kept(s->ordering.last, s->start, kept, s->k_row, s->k_prev, s->k_start,
                                  s->L_sky);
        return 0;
    }
    if (ensure_L0(s, stats) != 0)
        return -1;
    const int from = s->dirty_from < first + 1 ? s->dirty_from : first + 1;
    heft_skyline_copy_columns(skyline_of(s, s->L_sky), skyline_of(s, s->L0_sky), from);
    s->dirty_from = first + 1;
    for (int r = first; r < n; ++r) { /* Alg. 2.2 lines 8-11 with Alg. 2.5 */
        if (!tp[r])
            continue;
        stats->downdates++;
        if (heft_skyline_remove(skyline_of(s, s->L_sky), r, s->sigma) != 0) {
            s->dirty_from = 0;
            return -1;
        }
    }
    return 0;
}

int heft_bpp_skyline_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                           heft_solver_stats *stats) {
    if (heft_bpp_body_active(s)) {
        if (heft_bpp_body_solve(s, n, tight, x, stats) == 0)
            return 0;
        /* round-off beat the body-space solve: the row skyline takes the
         * rest of this solve (x still holds the right-hand side) */
        if (row_prepare(s, s->sky_problem, stats) != 0)
            return -1;
    }
    const int *perm = s->ordering.perm;
    unsigned char *tp = s->tight_perm;
    for (int r = 0; r < n; ++r)
        tp[r] = tight[perm[r]];
    if (!(s->factored_valid && memcmp(s->factored_tight, tp, (size_t)n) == 0)) {
        const double start = heft_time_ms();
        s->factored_valid = 0;
        const int rc = factor_free_block(s, n, tp, stats);
        stats->time_factor_ms += heft_time_ms() - start;
        if (rc != 0)
            return -1;
        memcpy(s->factored_tight, tp, (size_t)n);
        s->factored_valid = 1;
    }
    for (int r = 0; r < n; ++r)
        s->px[r] = x[perm[r]];
    heft_skyline_solve(skyline_of(s, s->factor_is_L0 ? s->L0_sky : s->L_sky), tp, s->px);
    for (int r = 0; r < n; ++r)
        x[perm[r]] = s->px[r];
    return 0;
}

/* A pivot of the coupled LU below this fraction of its row's scale: a
 * dependent row, which the Woodbury solves then take (as the Newton
 * stage's test, newton.c) */
#define BPP_LU_DEPENDENT 1e-10

/* Whether the LU of the coupled system (two triangles in the free rows'
 * envelope) is estimated cheaper than the Woodbury solves it replaces:
 * L_FF by the cheaper of downdating and refactoring (factor_costs), k + 2
 * solves in L's layout (one per coupled normal, one for y and the step's
 * own) and the k x k LU. On the winch the LU is half the work while the
 * chain is dragged over the ground (90 coupled normals a step); once it
 * lies on the drum in layers, with tens of coupled normals and a wider
 * envelope, the Woodbury solves were up to a third cheaper on some
 * islands. kept: the free rows, whose layout heft_skyline_kept made. */
static int lu_costs_less(const bpp_state *s, int n, const unsigned char *tp, int first, int kept,
                         int coupled) {
    const int *last = s->ordering.last;
    double lu = 0.0, solve = 0.0;
    for (int c = 0; c < kept; ++c) {
        const double w = (double)(s->k_last[c] - c);
        lu += 2.0 * (w * w + w + 10.0);
    }
    for (int r = 0; r < n; ++r)
        if (!tp[r])
            solve += 4.0 * (double)(last[r] - r + 1);
    double down, refactor;
    factor_costs(s, n, tp, first, &down, &refactor);
    const double k = (double)coupled;
    return lu < fmin(down, refactor) + (k + 2.0) * solve + k * k * k / 3.0;
}

int heft_bpp_skyline_coupled_solve(bpp_state *s, const unsigned char *tight, const double *kappa,
                                   const int *findex, int coupled, double *x,
                                   heft_solver_stats *stats) {
    const int n = s->ordering.n;
    const size_t un = (size_t)n, stored = s->start[n];
    const int *perm = s->ordering.perm, *inverse = s->ordering.inverse, *last = s->ordering.last;
    const double start = heft_time_ms();
    unsigned char *tp = s->tight_perm;
    int first = n;
    for (int r = 0; r < n; ++r) {
        tp[r] = tight[perm[r]];
        if (tp[r] && first == n)
            first = r;
    }
    if (first == n)
        return 1;
    const int kept = heft_skyline_kept(n, last, tp, s->k_row, s->k_prev, s->k_last, s->k_start);
    if (!lu_costs_less(s, n, tp, first, kept, coupled))
        return 1;
    /* the Newton stage's envelopes and scales, scratch between its steps:
     * the LU's arrays as large again would grow the island's memory by two
     * bands (3.7 MB on the winch's wound chain) */
    heft_newton *ws = &s->newton;
    if (!HEFT_RESERVE(ws->lower, ws->lower_cap,
                      heft_skyline_room(n, last, stored, ws->lower_cap)) ||
        !HEFT_RESERVE(ws->upper, ws->upper_cap,
                      heft_skyline_room(n, last, stored, ws->upper_cap)) ||
        !HEFT_RESERVE(ws->k_scale, ws->k_scale_cap, un) ||
        !HEFT_RESERVE(ws->k_out, ws->k_out_cap, un))
        return -1;
    const heft_lu_source src = {n,        last,      s->start,  s->A_sky,  tp,
                                s->k_row, s->k_prev, s->k_last, s->k_start};
    const heft_lu_env e = heft_lu_gather(&src, kept, ws->lower, ws->upper, ws->k_out, ws->k_scale);
    int outside = 0;
    for (int t = 0; t < n; ++t)
        if (kappa[t] != 0.0)
            outside += heft_lu_couple(&src, &e, inverse[t], inverse[findex[t]], kappa[t]);
    int rc = 1;
    if (outside == 0) {
        heft_lu_scales(&src, &e, ws->k_scale);
        stats->factorizations++;
        if (heft_lu_factor(&e, BPP_LU_DEPENDENT) == 0) {
            for (int k = 0; k < e.m; ++k)
                s->px[k] = x[perm[s->k_row[k]]];
            heft_lu_substitute(&e, s->px);
            for (int k = 0; k < e.m; ++k)
                x[perm[s->k_row[k]]] = s->px[k];
            rc = 0;
        }
    }
    stats->time_factor_ms += heft_time_ms() - start;
    return rc;
}
