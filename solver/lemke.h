/* Heft: Lemke's method on the LCP form of the box-friction MLCP, the
 * pivoting family's exact backstop (private header; lemke.c,
 * docs/friction-backstop.md).
 *
 * Block pivoting (bpp.c, pgcg.c) can stall: it cycles on the friction
 * coupling and stops at a singular A_FF (redundant contacts). Lemke's
 * complementary pivoting on an LCP equivalent to the MLCP is finite (a
 * pivot budget, lexicographic ties) and needs no factorization of A_FF, so
 * it answers where they stop, exactly to round-off, or says it did not. */
#ifndef HEFT_SOLVER_LEMKE_H
#define HEFT_SOLVER_LEMKE_H

#include <stddef.h>
#include <stdint.h>

#include "mlcp.h"
#include "suitesparse_region.h"

/* Why a backstop solve ended. */
typedef enum heft_lemke_status {
    HEFT_LEMKE_SOLVED = 0,  /* a complementary basis, its answer within the tolerance */
    HEFT_LEMKE_INEXACT = 1, /* a complementary basis whose answer misses the tolerance
                               (round-off on a badly conditioned basis) */
    HEFT_LEMKE_RAY = 2,     /* a secondary ray: no solution found along this path */
    HEFT_LEMKE_BUDGET = 3,  /* the pivot budget ran out */
    HEFT_LEMKE_INVALID = 4, /* bad input (heft_mlcp_check); nothing was changed */
    HEFT_LEMKE_NO_MEMORY = 5,
    HEFT_LEMKE_TOO_LARGE = 6 /* more LCP variables than options.max_variables */
} heft_lemke_status;

typedef struct heft_lemke_result {
    int status;         /* heft_lemke_status */
    int pivots;         /* complementary pivots, over every attempt (the budget's count) */
    int crash_pivots;   /* pivots that built the starting basis from the guess */
    int attempts;       /* 1: from the guess's basis; 2: then from the all-slack basis */
    int lcp_size;       /* variables of the LCP */
    int rounds;         /* proximal rounds */
    int factorizations; /* sparse LU factorizations of the basis (0 on the dense path) */
    int polished;       /* answers options.polish bettered */
    double error_max;   /* J, heft_mlcp_measure of the answer (INFINITY when none) */
} heft_lemke_result;

/* Grow-only workspace, kept by the solver that uses it. */
typedef struct heft_lemke {
    double *A;    /* the scaled dense A, n x n */
    double *Binv; /* the basis inverse, N x N */
    double *x, *col, *a, *q, *lambda, *work, *scale, *c, *mu, *answer, *bs, *center;
    double eps; /* the proximal shift of this solve */
    /* The sparse path (UMFPACK): B = B0 E_1 ... E_k, B0 factored, each E_j
     * one pivot's eta column (its entries off the pivot row, and the pivot) */
    int sparse;        /* 1: this solve keeps the LU and the eta file, not Binv */
    int identity;      /* B0 = I (the all-slack basis), not factored */
    void *numeric;     /* UMFPACK's factors of B0 */
    int *Bp, *Bi;      /* B0, compressed columns (column r: the basic variable of row r) */
    double *Bx;        /* its values */
    int etas, eta_nnz; /* eta columns and their entries since the factorization */
    int *eta_start, *eta_row, *eta_idx;
    double *eta_val, *eta_pivot;
    double *z0col;             /* z0's LCP column on this path (-d in the LCP's rows) */
    double *rhs, *row1, *row2; /* solve scratch; two rows of B^-1 for the tie rule */
    /* UMFPACK's solve workspace (umfpack_di_wsolve), so that a solve
     * allocates nothing: N ints and 5 N doubles */
    int *umf_wi;
    double *umf_w;
    size_t umf_wi_cap, umf_w_cap;
    int lex_row;        /* the row of B^-1 held in row1, -1: none */
    int broken;         /* an eta column could not be stored (no memory) */
    int factorizations; /* of this solve */
    size_t Bp_cap, Bi_cap, Bx_cap, eta_start_cap, eta_row_cap, eta_idx_cap, eta_val_cap,
        eta_pivot_cap, z0col_cap, rhs_cap, row1_cap, row2_cap;
    /* UMFPACK's memory: the live factors in region[live], the next
     * factorization built in the other (suitesparse_region.h); on the C
     * heap instead (numeric_on_heap) when the regions cannot be used */
    heft_ss_region region[2];
    int live, numeric_on_heap;
    int *pattern_start, *pattern_row; /* A's pattern by columns (and rows), for the LCP's columns */
    int *basic, *where, *idx, *var_row, *var_role, *row_var, *row_type, *child_start, *children;
    size_t pattern_start_cap, pattern_row_cap;
    size_t A_cap, Binv_cap, x_cap, col_cap, a_cap, q_cap, lambda_cap, work_cap, scale_cap, c_cap,
        mu_cap, basic_cap, where_cap, var_row_cap, var_role_cap, row_var_cap, row_type_cap,
        child_start_cap, children_cap, answer_cap, idx_cap, bs_cap, center_cap;
} heft_lemke;

typedef struct heft_lemke_options {
    int max_pivots;           /* of one path (from one start, with one covering vector) */
    int max_total_pivots;     /* over every path and round; 0: only max_pivots a path */
    int max_guess_pivots;     /* of a path from a guess's basis; 0: max_pivots */
    double tau;               /* acceptance: heft_mlcp_measure's max, J */
    double proximal;          /* shift of the scaled A's unit diagonal from the start, 0: none */
    double fallback_proximal; /* the shift when every unshifted path failed, 0: none */
    int max_rounds;           /* proximal rounds */
    int max_variables; /* an LCP with more variables is not tried (HEFT_LEMKE_TOO_LARGE); 0: any */
    int dense;         /* 1: the explicit dense B^-1 even when built with UMFPACK */
    /* Called on a path's answer (n values, clamped) whose error lies above
     * tau and at most polish_reach (J; below 0: never called), before
     * another path is tried: it may replace the answer in place by a
     * better one, and returns 1 when it did. A path costs thousands of
     * pivots where a few Newton steps from a complementary basis's answer
     * end most of those that miss (docs/friction-backstop.md). NULL: none. */
    int (*polish)(void *user, const heft_mlcp *p, double *answer, double tau);
    void *polish_user;
    double polish_reach;
} heft_lemke_options;

/* Defaults: a path's budget 10 n + 100 pivots, no total, no cap on size. */
heft_lemke_options heft_lemke_default_options(int n, double tau);

/* The number of LCP variables of p (0 to 3 a row; lemke.c's table), which
 * p must pass heft_mlcp_check for. */
int heft_lemke_size(const heft_mlcp *p);

/* Solves p by Lemke's method, first from the basis of each guess (points
 * near the answer, e.g. block pivoting's best iterate; NULL entries are
 * skipped) and, when those paths end on a ray or out of pivots, from the
 * all-slack basis with the covering vector of ones, then two others. With o->proximal > 0 each
 * round solves the LCP of A + proximal D about a centre (the guess, then the last round's answer),
 * whose answer is the MLCP's when the centre is (see lemke.c). A: p's dense
 * A (row-major), or NULL to use p->A or assemble it from the structured
 * form. On HEFT_LEMKE_SOLVED and HEFT_LEMKE_INEXACT, lambda holds the answer
 * (clamped into its boxes); otherwise lambda is unchanged. measure_work:
 * n + 6 nbodies doubles. */
int heft_lemke_solve(heft_lemke *ws, const heft_mlcp *p, const double *A,
                     const double *const *guesses, int nguesses, const heft_lemke_options *o,
                     double *lambda, double *measure_work, heft_lemke_result *result);

void heft_lemke_release(heft_lemke *ws);

#endif
