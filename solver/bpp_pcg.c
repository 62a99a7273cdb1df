/* Heft: the "bpp-pcg" solver, block principal pivoting with the linear solve
 * done by preconditioned conjugate gradient (docs/architecture.md "The solvers"; paper
 * [Ho 2022] §5.1, Alg. 10).
 *
 * The pivoting loop is bpp's (bpp.c: Alg. 10 lines 3-15 are [Lefebvre 2020] Alg. 2.1
 * with the cycle watch, the friction coupling and the kept index sets); this
 * file is the backend that solves A_FF lambda_F = b_F - A_FT lambda_T
 * (line 11):
 *
 *   - A is held once per solve as a symmetric sparse matrix (sparse_sym.h),
 *     from the structured form or the dense A;
 *   - when the tight set changes (or adaptive regularization shifted a
 *     diagonal), A_FF is cut out and its preconditioner (precond.h,
 *     options.preconditioner, IC(0) with imaginary columns by default) is
 *     recomputed; a plain IC(0) that breaks down falls back to Jacobi;
 *   - when the PCG iterations on one preconditioner pass the free rows'
 *     count, the rest of the solve uses a nearly complete ICT (below,
 *     "the strong preconditioner");
 *   - PCG (Alg. 8) starts from the current lambda_F: at the first step the
 *     previous answer kept with the index sets, later the previous step's
 *     ([Ho 2022] §5.3, warm starting), and stops at options.pcg_tolerance and
 *     the energy test (pcg.h), or at the tighter tolerance the pivoting loop
 *     asked for (heft_bpp_pcg_tighten: the sets held but the solve was too
 *     inexact for the friction rows on them; bpp.c, pivot_loop).
 *
 * Counted in the statistics: factorizations = preconditioners computed,
 * inner_iterations = PCG iterations, imaginary_columns of the last one. */
#include <math.h>
#include <string.h>

#include "bpp.h"
#include "pcg.h"
#include "precond.h"
#include "sparse_sym.h"
#include "workspace.h"

/* heft_bpp_pcg_tighten: each tightening multiplies the relative tolerance
 * by BPP_PCG_TIGHTEN, down to the floor (about 450 ulps of ||b_F||). Of
 * 1e-2, 1e-3 and 1e-4 per tightening, 1e-4 took the fewest PCG iterations
 * over three chain islands and the pyramids of base 12 and 16 (4,508
 * against 4,811 and 5,378): the chain needs 1e-12, the pyramids 1e-10, and
 * every tightening solves the friction coupling again. */
#define BPP_PCG_TIGHTEN HEFT_PCG_TIGHTEN
#define BPP_PCG_TOLERANCE_FLOOR HEFT_PCG_TOLERANCE_FLOOR

/* The strong preconditioner. A pivoting step with friction coupled to k
 * free normal rows solves A_FF k + 2 times (bpp.c couple_friction), about
 * 200 times a step on a pyramid of base 10, and the contact islands' A_FF
 * is nearly singular (more contact rows than degrees of freedom, held apart
 * by the contact compliance only): there IC(0) with imaginary columns took
 * 200 to 1,000 iterations a solve on 450 free rows, 333,505 in all in the
 * first step of that pyramid. So once the PCG iterations run on one
 * preconditioner pass BPP_PCG_STRONG_AFTER times its free rows, the rest
 * of the solve builds ICT with a fill of BPP_PCG_STRONG_FILL per column and
 * a drop tolerance of BPP_PCG_STRONG_DROP instead, nearly a complete factor
 * whose cost the many solves share: 3,242 iterations on that step, 1,246
 * instead of 20,285 on the tower island of tests/data. Tried on that step:
 * ICT of fill 10 and drop 1e-3 (the options' default) 288,440 iterations,
 * fill 40 and drop 1e-4 27,337, fill 100 and drop 1e-6 5,010, fill 200 and
 * drop 1e-8 2,248, a complete factor 1,817 (at twice the factor time). */
#define BPP_PCG_STRONG_AFTER 1
#define BPP_PCG_STRONG_FILL 200
#define BPP_PCG_STRONG_DROP 1e-8

struct bpp_pcg_backend {
    heft_sparse_sym A, AFF;
    heft_sparse_full A_full; /* A's columns for add_column */
    heft_precond P;
    heft_pcg_work work;
    int *local;
    double *bF, *xF, *column;
    size_t local_cap, bF_cap, xF_cap, column_cap;
    int P_usable;     /* 0 after a breakdown of plain IC(0): Jacobi was used */
    int P_ready;      /* P initialized for the options' preconditioner */
    int base_kind;    /* ... which is this one */
    int strong;       /* this solve's preconditioners are the strong ICT (below) */
    int P_strong;     /* P is one */
    long spent;       /* PCG iterations run on P */
    double tolerance; /* PCG's relative tolerance now: options.pcg_tolerance at the
                         start of a solve, then tightened (heft_bpp_pcg_tighten) */
};

int heft_bpp_pcg_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats) {
    const double start = heft_time_ms();
    const int n = p->n;
    const size_t un = (size_t)n;
    if (s->pcg == NULL) {
        s->pcg = heft_alloc(sizeof *s->pcg);
        if (s->pcg == NULL)
            return -1;
        memset(s->pcg, 0, sizeof *s->pcg);
    }
    struct bpp_pcg_backend *b = s->pcg;
    int kind = s->options.preconditioner;
    if (kind < 0 || kind >= HEFT_PRECOND_COUNT)
        kind = HEFT_PRECOND_IC0_IMAGINARY;
    if (!b->P_ready || b->base_kind != kind) {
        heft_precond_release(&b->P);
        heft_precond_init(&b->P, kind);
        b->base_kind = kind;
        b->P_ready = 1;
    }
    b->P.kind = kind; /* the strong ICT of the last solve is not kept */
    b->strong = 0;
    b->P_strong = 0;
    b->P.ict_drop = s->options.ict_drop_tolerance;
    b->P.ict_fill = s->options.ict_fill;
    if (heft_sparse_sym_from_mlcp(&b->A, p) != 0 ||
        heft_sparse_full_from_sym(&b->A_full, &b->A) != 0 ||
        !HEFT_RESERVE(b->local, b->local_cap, un) || !HEFT_RESERVE(b->bF, b->bF_cap, un) ||
        !HEFT_RESERVE(b->xF, b->xF_cap, un) || !HEFT_RESERVE(b->column, b->column_cap, un) ||
        !HEFT_RESERVE(s->factored_tight, s->factored_tight_cap, un) ||
        !heft_pcg_reserve(&b->work, n))
        return -1;
    for (int j = 0; j < n; ++j)
        s->diag[j] = b->A.val[b->A.col_start[j]];
    s->factored_valid = 0;
    b->tolerance = s->options.pcg_tolerance;
    stats->time_assembly_ms += heft_time_ms() - start;
    return 0;
}

void heft_bpp_pcg_multiply(bpp_state *s, int n, const double *x, double *y) {
    (void)n;
    heft_sparse_sym_multiply(&s->pcg->A, x, y);
}

/* A column of A from its entries alone: the friction coupling asks for two
 * per coupled normal row, about 2,000 a pivoting step on the pyramid of base
 * 20, where a product of A with a unit vector cost a pass over all of A's
 * entries each time. */
void heft_bpp_pcg_add_column(bpp_state *s, int n, int j, double c, double *out) {
    const heft_sparse_full *a = &s->pcg->A_full;
    (void)n;
    for (int q = a->col_start[j]; q < a->col_start[j + 1]; ++q)
        out[a->row[q]] += c * a->val[q];
}

int heft_bpp_pcg_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                       const double *guess, heft_solver_stats *stats) {
    struct bpp_pcg_backend *b = s->pcg;
    if (!s->factored_valid || memcmp(s->factored_tight, tight, (size_t)n) != 0 ||
        b->strong != b->P_strong) {
        const double start = heft_time_ms();
        s->factored_valid = 0;
        if (b->strong) {
            b->P.kind = HEFT_PRECOND_ICT;
            b->P.ict_fill = BPP_PCG_STRONG_FILL;
            b->P.ict_drop = BPP_PCG_STRONG_DROP;
        }
        b->P_strong = b->strong;
        b->spent = 0;
        /* the free rows: keep = !tight, reusing column as a byte mask */
        unsigned char *keep = (unsigned char *)b->column;
        for (int i = 0; i < n; ++i)
            keep[i] = !tight[i];
        const int f = heft_sparse_sym_principal(&b->A, keep, s->reg_shift, &b->AFF, b->local);
        if (f < 0)
            return -1;
        int rc = heft_precond_compute(&b->P, &b->AFF);
        b->P_usable = 1;
        if (rc == 1) { /* plain IC(0) broke down: Jacobi for this free set */
            const int kind = b->P.kind;
            b->P.kind = HEFT_PRECOND_JACOBI;
            rc = heft_precond_compute(&b->P, &b->AFF);
            b->P.kind = kind;
            b->P_usable = 0;
            stats->fallback = 1;
        }
        stats->factorizations++;
        heft_precond_count(&b->P, stats);
        stats->time_factor_ms += heft_time_ms() - start;
        if (rc != 0)
            return -1;
        memcpy(s->factored_tight, tight, (size_t)n);
        s->factored_valid = 1;
    }
    const int f = b->AFF.n;
    for (int i = 0; i < n; ++i) {
        const int l = b->local[i];
        if (l < 0)
            continue;
        b->bF[l] = x[i];
        b->xF[l] = guess != NULL && isfinite(guess[i]) ? guess[i] : 0.0;
    }
    /* the factor of a breakdown was replaced by Jacobi's; apply() reads kind */
    const int kind = b->P.kind;
    if (!b->P_usable)
        b->P.kind = HEFT_PRECOND_JACOBI;
    const int cap = s->options.pcg_max_iterations > 0 ? s->options.pcg_max_iterations : 1000;
    /* a hundredth of the pivoting tolerance: the pivoting rules compare
     * impulses to sqrt(2 tau / A_ii), which the solve must not blur */
    const heft_pcg_stop stop = {b->tolerance, 0.01 * s->options.tolerance, cap};
    const heft_pcg_result r = heft_pcg_solve(&b->AFF, &b->P, b->bF, b->xF, stop, &b->work);
    b->P.kind = kind;
    if (r.iterations < 0)
        return -1;
    stats->inner_iterations += r.iterations;
    b->spent += r.iterations;
    if (!b->strong && b->spent > BPP_PCG_STRONG_AFTER * (long)f)
        b->strong = 1;
    for (int i = 0; i < n; ++i) {
        const int l = b->local[i];
        x[i] = l < 0 ? 0.0 : b->xF[l];
    }
    return 0;
}

int heft_bpp_pcg_tighten(bpp_state *s) {
    struct bpp_pcg_backend *b = s->pcg;
    if (!(b->tolerance > BPP_PCG_TOLERANCE_FLOOR))
        return 0;
    b->tolerance = fmax(b->tolerance * BPP_PCG_TIGHTEN, BPP_PCG_TOLERANCE_FLOOR);
    return 1;
}

void heft_bpp_pcg_release(bpp_state *s) {
    struct bpp_pcg_backend *b = s->pcg;
    if (b == NULL)
        return;
    heft_sparse_sym_release(&b->A);
    heft_sparse_sym_release(&b->AFF);
    heft_sparse_full_release(&b->A_full);
    heft_precond_release(&b->P);
    heft_pcg_release(&b->work);
    heft_free(b->local);
    heft_free(b->bF);
    heft_free(b->xF);
    heft_free(b->column);
    heft_free(b);
    s->pcg = NULL;
}

static void *bpp_pcg_create(const heft_solver_options *options) {
    return heft_bpp_create(options, BPP_PCG);
}

int heft_bpp_pcg_free_rows_solved(const bpp_state *s, const heft_mlcp *p, const uint8_t *set,
                                  const double *w, double tau) {
    for (int i = 0; i < p->n; ++i) {
        if (set[i] != BPP_FREE)
            continue;
        const double d = s->diag[i];
        if (!isfinite(w[i]) || (d > 0.0 && 0.5 * w[i] * w[i] > tau * d))
            return 0;
    }
    return 1;
}

/* The MLCP error of x clamped into its boxes (into scratch, n doubles). */
static double clamped_error(bpp_state *s, const heft_mlcp *p, const double *x, double *scratch) {
    for (int i = 0; i < p->n; ++i)
        scratch[i] = x != NULL && isfinite(x[i]) ? x[i] : 0.0;
    heft_bpp_clamp_answer(p, scratch);
    const heft_mlcp_error e = heft_mlcp_measure(p, scratch, s->measure_work);
    return e.nonfinite > 0 ? INFINITY : e.max;
}

/* bpp's solve, then two checks PCG makes necessary. The pivoting loop
 * tests the index sets (eq. 2.1) and not the free rows' equations: an
 * inexact PCG solve that leaves them off (its iteration cap, a poor
 * preconditioner) is taken for an answer when the sets hold, and was
 * reported converged 0.05 to 0.55 J off (120 rows, PCG capped at 2
 * iterations; 1e29 J on a 1,710-row contact problem). So a converged
 * answer whose free rows are not within the tolerance counts as not
 * converged; and an answer that did not converge is never worse than
 * lambda = 0, nor than the warm start (bpp's solve compares it with the
 * warm start already). An answer replaced is also what the next solve's
 * kept sets are read from. */
static int bpp_pcg_solve(void *state, const heft_mlcp *p, double *lambda_out,
                         heft_solver_stats *stats) {
    bpp_state *s = state;
    int rc = heft_bpp_solve(state, p, lambda_out, stats);
    const int n = p->n;
    if (rc == HEFT_SOLVE_FAILED || n <= 0 || s->kept_n != n)
        return rc;
    const double start = heft_time_ms();
    const double tau = s->options.tolerance > 1e-20 ? s->options.tolerance : 1e-20;
    /* an answer the error measure (the problem's own A) puts within the
     * tolerance is converged whatever the sets read off it: a frozen-box or
     * Newton answer has rows a hair inside a bound with a w the free-row
     * test below would count whole */
    if (rc == HEFT_SOLVE_OK && stats->error_max > tau) {
        heft_bpp_pcg_multiply(s, n, lambda_out, s->w);
        for (int i = 0; i < n; ++i)
            s->w[i] -= p->b[i];
        if (!heft_bpp_pcg_free_rows_solved(s, p, s->kept_set, s->w, tau)) {
            rc = HEFT_SOLVE_NOT_CONVERGED;
            stats->converged = 0;
        }
    }
    if (rc == HEFT_SOLVE_NOT_CONVERGED) {
        double best = stats->error_max;
        const int warm = s->options.warm_start && p->lambda0 != NULL;
        for (int candidate = 0; candidate < 2; ++candidate) {
            if (candidate == 0 && !warm)
                continue;
            const double e = clamped_error(s, p, candidate == 0 ? p->lambda0 : NULL, s->x);
            if (e < best) {
                best = e;
                memcpy(lambda_out, s->x, sizeof(double) * (size_t)n);
                stats->answer = candidate == 0 ? HEFT_ANSWER_WARM_START : HEFT_ANSWER_ZERO;
            }
        }
        if (best < stats->error_max) {
            const heft_mlcp_error e = heft_mlcp_measure(p, lambda_out, s->measure_work);
            stats->error_max = e.max;
            stats->error_sum = e.sum;
            stats->bound_violations = e.bound_violations;
            memcpy(s->kept_lambda, lambda_out, sizeof(double) * (size_t)n);
            heft_bpp_read_sets(p, lambda_out, s->kept_set);
        }
    }
    stats->time_total_ms += heft_time_ms() - start;
    return rc;
}

extern const heft_solver_vtable heft_bpp_pcg_solver;

const heft_solver_vtable heft_bpp_pcg_solver = {
    "bpp-pcg",
    "block principal pivoting with A_FF solved by PCG, IC(0) with imaginary columns by default "
    "(Ho 2022, Alg. 10)",
    bpp_pcg_create,
    bpp_pcg_solve,
    heft_bpp_reset,
    heft_bpp_destroy,
    1,
    heft_bpp_save_state,
    heft_bpp_restore_state,
    0,
    NULL, /* reserve: workspaces sized at the first solve of each size */
};
