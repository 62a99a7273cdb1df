/* Heft: the boxed mixed linear complementarity problem and the solver interface.
 *
 * This header is the whole public surface of the heft_solver library. It knows
 * nothing about bodies or shapes: an island of the engine, an .mlcp file and a
 * randomly generated test problem all become the same heft_mlcp.
 *
 * The problem (design.md "The MLCP of an island", mlcp-format.md): find lambda
 * with w = A lambda - b such that for every row i
 *   lo_i < lambda_i < hi_i  and  w_i = 0     (free)
 *   lambda_i = lo_i         and  w_i >= 0    (tight at the lower bound)
 *   lambda_i = hi_i         and  w_i <= 0    (tight at the upper bound)
 * A friction row (findex_i >= 0) has bounds [-mu_i lambda_f, +mu_i lambda_f]
 * with f = findex_i and mu_i stored in hi_i (ODE's findex convention).
 */
#ifndef HEFT_MLCP_H
#define HEFT_MLCP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- memory ------------------------------------------------------------ */

/* Every allocation of the engine and the solvers goes through these hooks, so
 * an application can supply its own allocator and a test can count calls.
 * Passing NULL functions restores malloc/realloc/free. */
typedef struct heft_allocator {
    void *(*alloc)(size_t size, void *user);
    void *(*realloc)(void *ptr, size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} heft_allocator;

void heft_set_allocator(const heft_allocator *allocator);
void *heft_alloc(size_t size);
void *heft_realloc(void *ptr, size_t size);
void heft_free(void *ptr);

/* ---- the problem ------------------------------------------------------- */

typedef enum heft_row_kind {
    HEFT_ROW_BILATERAL = 0,
    HEFT_ROW_NORMAL = 1,
    HEFT_ROW_FRICTION = 2,
    HEFT_ROW_LIMIT = 3,
    HEFT_ROW_MOTOR = 4
} heft_row_kind;

/* One dynamic body of the structured form: inverse mass and the world-frame
 * inverse inertia, symmetric, stored as xx xy xz yy yz zz. */
typedef struct heft_mlcp_body {
    double inv_mass;
    double inv_inertia[6];
} heft_mlcp_body;

/* One row of the structured form: bodies a and b (indices into the body list,
 * -1 for the static world) and their Jacobian blocks, linear part first. */
typedef struct heft_mlcp_row {
    int32_t a, b;
    double ja[6];
    double jb[6];
} heft_mlcp_row;

/* A problem of n rows. The arrays are not owned by the struct unless it was
 * made by heft_mlcp_create (or read from a file); the engine points them into
 * its per-step arena. Either the structured form (nbodies, bodies, rows,
 * epsilon) or the dense matrix A (row-major n x n) must be present; when both
 * are, they describe the same A = J M^-1 J^T + diag(epsilon). */
typedef struct heft_mlcp {
    int n;
    double *b;
    double *lo;
    double *hi;
    int32_t *findex; /* -1: not a friction row */
    uint8_t *kind;   /* heft_row_kind per row; may be NULL */
    int32_t *block;  /* rows of one joint or contact share a number; may be NULL */
    double *lambda0; /* warm start; may be NULL (zeros) */

    /* structured form (may be absent: nbodies == 0 and rows == NULL) */
    int nbodies;
    heft_mlcp_body *bodies;
    heft_mlcp_row *rows;
    double *epsilon; /* compliance per row, added to the diagonal of A */

    /* assembled form (may be NULL) */
    double *A;

    /* bookkeeping for heft_mlcp_create / heft_mlcp_destroy */
    void *owned_;
} heft_mlcp;

typedef enum heft_mlcp_parts {
    HEFT_MLCP_DENSE = 1,      /* allocate A */
    HEFT_MLCP_STRUCTURED = 2, /* allocate bodies, rows and epsilon */
    HEFT_MLCP_META = 4        /* allocate kind, block and lambda0 */
} heft_mlcp_parts;

/* Allocates a problem of n rows (and nbodies bodies when structured), filled
 * with a neutral problem: b = 0, lo = -inf, hi = +inf, findex = -1, A = 0.
 * Returns NULL on allocation failure or bad sizes. */
heft_mlcp *heft_mlcp_create(int n, int nbodies, unsigned parts);
void heft_mlcp_destroy(heft_mlcp *p);

/* Writes the dense A (row-major n x n) of a structured problem into out. */
void heft_mlcp_assemble_dense(const heft_mlcp *p, double *out);

/* The diagonal entry A_ii, from whichever form is present. */
double heft_mlcp_diagonal(const heft_mlcp *p, int i);

/* w = A lambda - b, from whichever form is present. work must hold
 * 6 * nbodies doubles when the structured form is used (it may be NULL
 * otherwise; with the structured form and work == NULL, the dense A is used
 * when present). */
void heft_mlcp_residual(const heft_mlcp *p, const double *lambda, double *w, double *work);

/* Lower and upper bound of row i at lambda (friction rows use lambda[findex]). */
void heft_mlcp_bounds(const heft_mlcp *p, const double *lambda, int i, double *lo, double *hi);

/* 1 when the structured form can be walked: nbodies >= 0, bodies present
 * when there are any, and every row's a and b in [-1, nbodies). */
int heft_mlcp_structure_valid(const heft_mlcp *p);

/* 0 when p is a well-formed box-friction MLCP, else -1 with a message
 * naming the first bad row in err (errlen bytes, may be 0): n < 1; no A and
 * no valid structured form; b not finite; a NaN bound, lo > hi, lo = +inf or
 * hi = -inf; a findex out of range, pointing at its own row or in a cycle;
 * a friction coefficient (hi of a friction row) negative or not finite.
 * O(n): A itself is not read. The pivoting solvers refuse (return
 * HEFT_SOLVE_FAILED, changing nothing) a problem it refuses. */
int heft_mlcp_check(const heft_mlcp *p, char *err, size_t errlen);

/* ---- the error measure (mlcp-format.md "The error measure") ------------- */

typedef struct heft_mlcp_error {
    double max;           /* J: largest row error 0.5 (lambda_i - p_i)^2 d_i */
    double sum;           /* J: sum of the row errors */
    int worst_row;        /* row of the largest error, -1 when n == 0 */
    int bound_violations; /* rows with lambda outside [lo, hi] beyond 1e-12 relative */
    int nonfinite;        /* rows whose lambda or w is NaN or Inf */
} heft_mlcp_error;

/* Measures lambda against the problem. work: n + 6 * nbodies doubles, or NULL
 * to allocate (tests and tools; the engine passes arena memory). */
heft_mlcp_error heft_mlcp_measure(const heft_mlcp *p, const double *lambda, double *work);

/* ---- solvers ------------------------------------------------------------ */

/* Options every solver reads what it needs from; heft_solver_default_options()
 * gives the documented defaults. */
typedef struct heft_solver_options {
    int max_iterations; /* PGS sweeps, CG iterations (default 50) */
    double tolerance;  /* stop when an iteration changes no row by more than this energy, J (default
                          1e-12) */
    double relaxation; /* PGS over-relaxation factor in (0, 2) (default 1.0) */
    int warm_start;    /* start from lambda0 when present (default 1) */
    int max_pivots;    /* pivoting steps for the BPP family (default 35) */
    int bpp_pgs_sweeps;  /* BPP family: a stalled pivoting restarts from the index sets of
                            a PGS answer of at most this many sweeps (default 1000; 0: no
                            restart, the papers' algorithm and the frozen boxes) */
    int keep_index_sets; /* BPP: start from the previous step's index sets when the size is
                            the same (default 1); otherwise the sets are read off the warm
                            start (variables at a bound tight), or all free without one */
    double skyline_refactor_fraction; /* bpp-skyline: refactor when tight fraction passes this
                                         (default 0.15) */
    /* the conjugate gradient family (docs/pcg.md) */
    int preconditioner;     /* heft_preconditioner of bpp-pcg and pgcg (default IC0_IMAGINARY) */
    double pcg_tolerance;   /* PCG stops at ||r_F|| <= this * ||b_F|| (default 1e-6; 004 §6) */
    int pcg_max_iterations; /* PCG iterations per linear solve, pgcg inner iterations (default 1000)
                             */
    double ict_drop_tolerance;   /* ICT's eps: tau_i = eps ||a_i|| (default 1e-3; 004 Alg. 5) */
    int ict_fill;                /* ICT: off-diagonals kept per column (default 10) */
    int adaptive_regularization; /* bpp, bpp-pcg, pgcg: 004 Alg. 9 on the friction rows (default 0)
                                  */
    double regularization_shift; /* Alg. 9's diagonal shift epsilon (default 1e-3) */
    int regularization_pivot_limit; /* Alg. 9's initial limit d_i, doubled at each shift (default
                                       10) */
    double cr_tolerance;            /* cr: relative residual of the KKT system (default 1e-10) */
    int cr_max_iterations;          /* cr: conjugate residual iterations (default 5000) */
    /* ldl-pgs's block LDL of the joints' rows (docs/ldl-pgs-baraff.md); its
     * iterations are max_iterations and tolerance above */
    int ldl_ordering;          /* heft_ldl_ordering of the elimination (default MIN_EDGE) */
    int ldl_shatter_degree;    /* shatter a body touched by more joints than this, >= 0;
                                  0: never (default 20) */
    int ldl_shard_constraints; /* joints per shard of a shattered body, >= 1 (default 2) */
    double ldl_regularization; /* eps of H~_ii = (1 + eps) H_ii, in [0, 1) (default 1e-12) */
} heft_solver_options;

/* The elimination orders of ldl-pgs (heft_solver_options.ldl_ordering; paper
 * 003, slide "MECA"). */
typedef enum heft_ldl_ordering {
    HEFT_LDL_ORDER_MIN_EDGE = 0,   /* minimum edge creation */
    HEFT_LDL_ORDER_MIN_DEGREE = 1, /* minimum degree */
    HEFT_LDL_ORDER_NATURAL = 2,    /* the problem's order of joints */
    HEFT_LDL_ORDER_COUNT = 3
} heft_ldl_ordering;

/* The preconditioners of bpp-pcg and pgcg (docs/pcg.md; paper 004 §4.1). */
typedef enum heft_preconditioner {
    HEFT_PRECOND_JACOBI = 0,    /* diag(A_FF) */
    HEFT_PRECOND_IC0 = 1,       /* Alg. 4; a breakdown falls back to jacobi */
    HEFT_PRECOND_IC0_SHIFT = 2, /* IC(0) of A_FF + gamma diag(A_FF), gamma grown until it works */
    HEFT_PRECOND_ICT = 3,       /* Alg. 5, drop tolerance and a cap per column */
    HEFT_PRECOND_IC0_IMAGINARY = 4, /* Alg. 6/7, imaginary columns where a pivot is negative */
    HEFT_PRECOND_COUNT = 5
} heft_preconditioner;

heft_solver_options heft_solver_default_options(void);

/* Checks every option against its documented range. Returns 0 when all are
 * valid, else -1 with a message naming the first bad field and its range in
 * err (errlen bytes, may be 0). heft_world_create and
 * heft_world_set_solver_options refuse options it refuses (and change
 * nothing); a solver's create() may return NULL for them. */
int heft_solver_options_check(const heft_solver_options *options, char *err, size_t errlen);

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
    int downdates;
    int tight_trace_count;                 /* entries used in tight_trace */
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
    int fallback; /* a fallback was used (frozen friction boxes, refactoring, PGS after NaN) */
    int imaginary_columns; /* bpp-pcg, pgcg: imaginary columns of the last IC(0) (Alg. 6) */
    int regularized_rows;  /* adaptive regularization: diagonal shifts applied (Alg. 9) */
    int restarts;          /* BPP family: restarts of a stalled pivoting from the index
                              sets of a PGS answer (bpp.c "restart from PGS") */
    int pgs_sweeps;        /* BPP family: the sweeps of that PGS solve */
    int frozen_rounds;     /* BPP family, pgcg: rounds of the frozen friction boxes */
    int backstops;         /* pivoting family: times the exact backstop ran */
    int backstop_pivots;   /* pivoting family: pivots (or Newton steps) of the backstop */
    int answer;            /* heft_answer_source: which answer the solver returned */
    int pcg_tightenings;   /* bpp-pcg, pgcg: times the index sets held but the solve was
                              too inexact, and PCG's relative tolerance was multiplied by
                              1e-4 for the rest of the solve (bpp-pcg: the step solved
                              again; bpp.c pivot_loop, pgcg.c outer_loop); 0 otherwise */
    /* bpp-pcg, pgcg: every preconditioner computed in the solve summed: its
     * imaginary columns (Alg. 6) and its size. Their ratio is the mean fraction
     * of columns that met a negative pivot, 004 Figure 6.4's abscissa. */
    long imaginary_columns_sum;
    long preconditioned_columns_sum;
} heft_solver_stats;

/* A solver: one table of functions registered under a short name.
 * create() makes the persistent state of one island (warm starts, index sets,
 * symbolic factorizations); solve() answers one problem into lambda (length
 * p->n) and fills stats; reset() forgets what was learned from earlier steps
 * (called when the island's topology changes). */
typedef struct heft_solver_vtable {
    const char *name;
    const char *description;
    void *(*create)(const heft_solver_options *options);
    int (*solve)(void *state, const heft_mlcp *p, double *lambda, heft_solver_stats *stats);
    void (*reset)(void *state);
    void (*destroy)(void *state);
    int direct; /* 1: a converged answer is an exact MLCP solution, to the pivoting tolerance
                   (pivoting on factorizations, or on PCG solves tightened until no row is stale:
                   bpp-pcg, pgcg); 0: iterative, a sweep or iteration budget's approximation.
                   The engine picks its default joint Baumgarte factor from this, feeds geometric
                   stiffness only from direct answers and projects contacts with them. */
} heft_solver_vtable;

/* Return codes of solve(). */
#define HEFT_SOLVE_OK 0            /* converged */
#define HEFT_SOLVE_NOT_CONVERGED 1 /* best answer returned */
#define HEFT_SOLVE_FAILED 2        /* no usable answer (out of memory, NaN) */

/* The registry. Built-in solvers are registered on first use. Returns NULL
 * for an unknown name. */
const heft_solver_vtable *heft_solver_find(const char *name);
int heft_solver_count(void);
const heft_solver_vtable *heft_solver_at(int index);
/* Adds a solver (an application's own); fails (returns -1) on a duplicate name. */
int heft_solver_register(const heft_solver_vtable *vtable);

/* One-shot convenience: create, solve, destroy; stats may be NULL. Fills the
 * error fields of stats with heft_mlcp_measure. */
int heft_solve(const char *solver, const heft_solver_options *options, const heft_mlcp *p,
               double *lambda, heft_solver_stats *stats);

/* Monotonic clock in milliseconds, for the statistics. */
double heft_time_ms(void);

/* ---- .mlcp files (mlcp-format.md) --------------------------------------- */

/* The reader holds A dense (n x n doubles), so it refuses files whose dim
 * passes this (2 GiB of A). */
#define HEFT_MLCP_FILE_MAX_DIM 16384

/* Reads one problem from the text of an .mlcp file, strictly: every section
 * in the documented order, counts that match, numbers by strtod (inf and -inf
 * allowed where a bound may be infinite, NaN never), no trailing tokens, and,
 * when the structured form (bodies, rows) is present, A equal to
 * J M^-1 J^T + diag(epsilon) to 1e-9 relative and a block section.
 *
 * On success returns 0 and sets *out to a problem made by heft_mlcp_create
 * (free it with heft_mlcp_destroy). It always has the dense A, whatever the
 * file's storage (dense, coo or coo-lower); it has the structured form,
 * lambda0, kind and block exactly when the file has those sections (the
 * pointers are NULL otherwise). When solution is not NULL, *solution is set
 * to the file's `solution` section (n doubles from heft_alloc, to be freed
 * with heft_free) or to NULL when the file has none.
 *
 * On failure returns -1, sets *out (and *solution) to NULL and writes a
 * message naming the line ("line 12: ...") into err (errlen bytes, may be 0).
 * No input makes the reader crash, read out of bounds or allocate more than
 * a small multiple of the file's size plus the dense A. */
int heft_mlcp_read_string(const char *text, heft_mlcp **out, double **solution, char *err,
                          size_t errlen);
/* The same for a file; the message is "PATH: line 12: ..." (or says why the
 * file could not be read). A NUL byte in the file is an error. */
int heft_mlcp_read_file(const char *path, heft_mlcp **out, double **solution, char *err,
                        size_t errlen);

/* Writes p in the .mlcp format; numbers with 17 significant digits, so a
 * read gives back every double bit for bit. A is written from p->A, or
 * assembled from the structured form when p->A is NULL; a symmetric A with
 * few nonzeros is written as `A coo-lower`, any other A dense. A friction
 * row's lo is written as -hi. The lambda0 section comes from lambda0 when it
 * is not NULL, else from p->lambda0 when that is not NULL; the solution
 * section from solution (NULL: none); kind and block when p has them; the
 * structured form (bodies, rows) when p has it, with a block section of one
 * row per block when p->block is NULL (the format requires one). Comments may
 * be written to f before the call.
 *
 * Returns 0, or -1 with errno set: EINVAL for a problem the reader would
 * refuse (n outside 1..HEFT_MLCP_FILE_MAX_DIM, no A and no structured form,
 * a NaN, an infinite entry where the format wants a finite one, a body index
 * or kind out of range), ENOMEM, or the error of the failed write. */
int heft_mlcp_write(FILE *f, const heft_mlcp *p, const double *lambda0, const double *solution);
/* The same into a new file at path; a file left half-written by a failure
 * is removed. */
int heft_mlcp_write_file(const char *path, const heft_mlcp *p, const double *lambda0,
                         const double *solution);

#ifdef __cplusplus
}
#endif

#endif
