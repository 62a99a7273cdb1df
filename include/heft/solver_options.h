/* Heft: the options every solver reads and the statistics every solver
 * fills. The engine (heft.h) and the solver library (mlcp.h) share them; the
 * problem itself, the solver table and the .mlcp files are in mlcp.h. */
#ifndef HEFT_SOLVER_OPTIONS_H
#define HEFT_SOLVER_OPTIONS_H

#include <stddef.h>

#include "base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options every solver reads what it needs from; heft_solver_default_options()
 * gives the documented defaults. */
typedef struct heft_solver_options {
    int max_iterations;  /* PGS sweeps, CG iterations, >= 0 (default 50) */
    double tolerance;    /* stop when an iteration changes no row by more than this energy, J;
                            finite, >= 0 (default 1e-12) */
    double relaxation;   /* PGS over-relaxation factor in (0, 2) (default 1.0) */
    int warm_start;      /* start from lambda0 when present: 0 or 1 (default 1) */
    int max_pivots;      /* pivoting steps for the BPP family, >= 0 (default 35) */
    int bpp_pgs_sweeps;  /* BPP family: a stalled pivoting restarts from the index sets of
                            a PGS answer of at most this many sweeps (default 1000; 0: no
                            restart, the papers' algorithm and the frozen boxes); >= 0 */
    int keep_index_sets; /* BPP: start from the previous step's index sets when the size is
                            the same (default 1); otherwise the sets are read off the warm
                            start (variables at a bound tight), or all free without one;
                            0 or 1 */
    double skyline_refactor_fraction; /* bpp-skyline: refactor when tight fraction passes this,
                                         in [0, 1] (default 0.15) */
    /* the pivoting family's exact backstop, its Lemke stage (docs/friction-backstop.md
     * "Options"; the Newton stage before it is bounded by max_pivots) */
    int backstop_max_variables;   /* Lemke's method runs on islands whose LCP has at most this many
                                     variables: HEFT_BACKSTOP_BUILD_CAP (0, the default: 2,500
                                     with UMFPACK, 1,000 without), HEFT_BACKSTOP_OFF (-1: never),
                                     or 1 .. HEFT_BACKSTOP_MAX_VARIABLES_LIMIT */
    double backstop_pivot_budget; /* F: Lemke's pivots over a solve are at most ceil(F N), N the
                                     LCP's variables; a path from the all-slack basis at most
                                     F/2 N, one from a guess F/12 N (each at least 10 n + 100);
                                     the crash pivots that build a guess's basis are not counted;
                                     in (0, HEFT_BACKSTOP_PIVOT_BUDGET_LIMIT] (default 60) */
    double backstop_accept;       /* J: on an island above Lemke's cap, the last stages (the last
                                     Newton stage, the approach by PGS) stop once the answer is
                                     within this error, where they would go on to the tolerance;
                                     the answer is kept and counted converged only within the
                                     tolerance. 0 (the default) or anything below the tolerance:
                                     they aim at the tolerance. Finite and >= 0 */
    /* the conjugate gradient family (docs/pcg.md) */
    int preconditioner;     /* heft_preconditioner of bpp-pcg and pgcg, 0 .. HEFT_PRECOND_COUNT - 1
                               (default IC0_IMAGINARY) */
    double pcg_tolerance;   /* PCG stops at ||r_F|| <= this * ||b_F||, in [0, 1) (default 1e-6;
                               [Ho 2022] §6) */
    int pcg_max_iterations; /* PCG iterations per linear solve, pgcg inner iterations, >= 1
                               (default 1000) */
    double ict_drop_tolerance;   /* ICT's eps: tau_i = eps ||a_i||, finite, >= 0 (default 1e-3;
                                    [Ho 2022] Alg. 5) */
    int ict_fill;                /* ICT: off-diagonals kept per column, >= 0; more than a
                                    column has keeps them all (default 10) */
    int adaptive_regularization; /* bpp, bpp-pcg, pgcg: [Ho 2022] Alg. 9 on the friction rows, 0 or
                                    1 (default 0) */
    double regularization_shift; /* Alg. 9's diagonal shift epsilon, relative to A_ii, in [0, 1]
                                    (default 1e-3) */
    int regularization_pivot_limit; /* Alg. 9's initial limit d_i, doubled at each shift (up to
                                       INT_MAX), >= 1 (default 10) */
    double cr_tolerance;            /* cr: relative residual of the KKT system, in [0, 1)
                                       (default 1e-10) */
    int cr_max_iterations;          /* cr: conjugate residual iterations, >= 1 (default 5000) */
    /* ldl-pgs's block LDL of the joints' rows (docs/ldl-pgs-baraff.md); its
     * iterations are max_iterations and tolerance above */
    int ldl_ordering;          /* heft_ldl_ordering of the elimination (default MIN_EDGE) */
    int ldl_shatter_degree;    /* shatter a body touched by more joints than this, >= 0;
                                  0: never (default 20) */
    int ldl_shard_constraints; /* joints per shard of a shattered body, >= 1 (default 2) */
    double ldl_regularization; /* eps of H~_ii = (1 + eps) H_ii, in [0, 1) (default 1e-12) */
    /* pgs: the joint rows of a body whose mass is at most 1/this of a moving
       body it is jointed to are solved together, exactly, after each sweep
       (docs/pgs.md "Light bodies between heavy ones"); 0 (the papers' sweep)
       or finite and >= 1 (default 100) */
    double pgs_light_ratio;
} heft_solver_options;

/* heft_solver_options.backstop_max_variables: the build's cap ... */
#define HEFT_BACKSTOP_BUILD_CAP 0
/* ... and Lemke's method off */
#define HEFT_BACKSTOP_OFF (-1)
/* The largest cap and pivot budget heft_solver_options_check accepts: an
 * LCP of a million variables is an island of some 330,000 rows, and paths
 * of 5 to 30 pivots a variable were measured, so 10,000 is no bound */
#define HEFT_BACKSTOP_MAX_VARIABLES_LIMIT 1000000
#define HEFT_BACKSTOP_PIVOT_BUDGET_LIMIT 10000.0

/* The elimination orders of ldl-pgs (heft_solver_options.ldl_ordering; paper
 * [Mizerski 2020], slide "MECA"). */
typedef enum heft_ldl_ordering {
    HEFT_LDL_ORDER_MIN_EDGE = 0,   /* minimum edge creation */
    HEFT_LDL_ORDER_MIN_DEGREE = 1, /* minimum degree */
    HEFT_LDL_ORDER_NATURAL = 2,    /* the problem's order of joints */
    HEFT_LDL_ORDER_COUNT = 3
} heft_ldl_ordering;

/* The preconditioners of bpp-pcg and pgcg (docs/pcg.md; [Ho 2022] §4.1). */
typedef enum heft_preconditioner {
    HEFT_PRECOND_JACOBI = 0,    /* diag(A_FF) */
    HEFT_PRECOND_IC0 = 1,       /* Alg. 4; a breakdown falls back to jacobi */
    HEFT_PRECOND_IC0_SHIFT = 2, /* IC(0) of A_FF + gamma diag(A_FF), gamma grown until it works */
    HEFT_PRECOND_ICT = 3,       /* Alg. 5, drop tolerance and a cap per column */
    HEFT_PRECOND_IC0_IMAGINARY = 4, /* Alg. 6/7, imaginary columns where a pivot is negative */
    HEFT_PRECOND_COUNT = 5
} heft_preconditioner;

HEFT_API heft_solver_options heft_solver_default_options(void);

/* Checks every option against its documented range. Returns 0 when all are
 * valid, else -1 with a message naming the first bad field and its range in
 * err (errlen bytes, may be 0). heft_world_create and
 * heft_world_set_solver_options refuse options it refuses (and change
 * nothing); a solver's create() may return NULL for them. */
HEFT_API int heft_solver_options_check(const heft_solver_options *options, char *err,
                                       size_t errlen);

#define HEFT_MAX_PIVOT_TRACE 64

/* Which answer a solve returned (heft_solver_stats.answer). */
typedef enum heft_answer_source {
    HEFT_ANSWER_SOLVER = 0,     /* the method's own iterate: pivoting, sweeps, CG iterations */
    HEFT_ANSWER_BACKSTOP = 1,   /* the pivoting family's exact backstop */
    HEFT_ANSWER_PGS = 2,        /* the PGS answer of a restart */
    HEFT_ANSWER_WARM_START = 3, /* the warm start, better than anything computed */
    HEFT_ANSWER_ZERO = 4        /* lambda = 0, better than anything computed */
} heft_answer_source;

typedef struct heft_solver_stats {
    int n;                /* rows */
    int iterations;       /* PGS sweeps, pivoting steps, CG iterations */
    int inner_iterations; /* e.g. CG iterations inside pivoting steps */
    int factorizations;
    int downdates;         /* rank-1 downdates (bpp-downdate, bpp-skyline); row deletions from the
                              factor (bpp-sparse) */
    int updates;           /* bpp-sparse: row additions to the factor */
    const char *delegate;  /* auto: the registry name of the solver that answered; NULL else */
    int tight_trace_count; /* entries used in tight_trace */
    int tight_trace[HEFT_MAX_PIVOT_TRACE]; /* size of the tight set at each pivoting step */
    double time_assembly_ms;
    double time_ordering_ms;
    double time_factor_ms;
    double time_solve_ms;
    double time_total_ms;
    double error_max; /* J, the MLCP error of the answer */
    double error_sum; /* J */
    int bound_violations;
    int converged;
    int fallback;          /* the solver fell back on another method inside its solve (the frozen
                              friction boxes, Jacobi after a breakdown of IC(0), bpp on the whole
                              problem); refactorings and restarts are counted in factorizations
                              and restarts, not flagged */
    int imaginary_columns; /* bpp-pcg, pgcg: imaginary columns of the last IC(0) (Alg. 6) */
    int regularized_rows;  /* adaptive regularization: diagonal shifts applied (Alg. 9) */
    int restarts;          /* BPP family: restarts of a stalled pivoting from the index
                              sets of a PGS answer (bpp.c "restart from PGS") */
    int pgs_sweeps;        /* BPP family: the sweeps of that PGS solve, and of the approach
                              by PGS on islands above Lemke's cap (friction-backstop.md) */
    int frozen_rounds;     /* BPP family, pgcg: rounds of the frozen friction boxes */
    int backstops;         /* pivoting family: runs of the backstop's stages (its Newton stage
                              and Lemke's method count one each) */
    int backstop_pivots;   /* pivoting family: pivots (or Newton steps) of the backstop */
    int newton_steps;      /* pivoting family: steps of the backstop's Newton stage (counted in
                              backstop_pivots too) */
    int answer;            /* heft_answer_source: which answer the solver returned */
    int pcg_tightenings;   /* bpp-pcg, pgcg: times the index sets held but the solve was
                              too inexact, and PCG's relative tolerance was multiplied by
                              1e-4 for the rest of the solve (bpp-pcg: the step solved
                              again; bpp.c pivot_loop, pgcg.c outer_loop); 0 otherwise */
    /* bpp-pcg, pgcg: every preconditioner computed in the solve summed: its
     * imaginary columns (Alg. 6) and its size. Their ratio is the mean fraction
     * of columns that met a negative pivot, [Ho 2022] Figure 6.4's abscissa. */
    long imaginary_columns_sum;
    long preconditioned_columns_sum;
    int body_factorizations; /* bpp-skyline: of the factorizations, those of the body-space
                                matrix M + J_F^T E_F^-1 J_F (bpp.md "Solves in body space") */
    int envelope;            /* bpp-skyline and the pivoting family's Newton stage: the
                                numbers each of its envelope arrays held, the rows times
                                the tallest column of their envelope in its ordering (at
                                most INT_MAX), 0 when it held none (body space, a dense
                                A): what heft_solver_capacity.envelope sizes ahead */
} heft_solver_stats;

#ifdef __cplusplus
}
#endif

#endif
