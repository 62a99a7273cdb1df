/* Heft: the boxed mixed linear complementarity problem and the solver interface.
 *
 * This header is the whole public surface of the heft_solver library. It knows
 * nothing about bodies or shapes: an island of the engine, an .mlcp file and a
 * randomly generated test problem all become the same heft_mlcp.
 *
 * The problem (docs/architecture.md "The MLCP of an island", mlcp-format.md): find lambda
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

#include "base.h"
#include "solver_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the problem ------------------------------------------------------- */

typedef enum heft_row_kind {
    HEFT_ROW_BILATERAL = 0,
    HEFT_ROW_NORMAL = 1,
    HEFT_ROW_FRICTION = 2,
    HEFT_ROW_LIMIT = 3,
    HEFT_ROW_MOTOR = 4,
    /* a contact's rolling resistance: relative angular velocity about a
     * tangent, boxed by findex as friction is */
    HEFT_ROW_ROLLING = 5
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

    /* The part of b that only corrects positions (the engine's Baumgarte
     * term -gamma phi / h of its rigid joint rows and of its penetrating
     * contacts' normal rows, 0 elsewhere); may be NULL. It does not change
     * the problem: pgs solves it apart so that its warm start carries no
     * position correction (docs/pgs.md), the other solvers ignore it. */
    double *bias;

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
HEFT_API heft_mlcp *heft_mlcp_create(int n, int nbodies, unsigned parts);
HEFT_API void heft_mlcp_destroy(heft_mlcp *p);

/* Writes the dense A (row-major n x n) of a structured problem into out. */
HEFT_API void heft_mlcp_assemble_dense(const heft_mlcp *p, double *out);

/* The diagonal entry A_ii, from whichever form is present. */
HEFT_API double heft_mlcp_diagonal(const heft_mlcp *p, int i);

/* w = A lambda - b, from whichever form is present. work must hold
 * 6 * nbodies doubles when the structured form is used (it may be NULL
 * otherwise; with the structured form and work == NULL, the dense A is used
 * when present). */
HEFT_API void heft_mlcp_residual(const heft_mlcp *p, const double *lambda, double *w, double *work);

/* Lower and upper bound of row i at lambda (friction rows use lambda[findex]). */
HEFT_API void heft_mlcp_bounds(const heft_mlcp *p, const double *lambda, int i, double *lo,
                               double *hi);

/* 1 when the structured form can be walked: nbodies >= 0, bodies present
 * when there are any, and every row's a and b in [-1, nbodies). */
HEFT_API int heft_mlcp_structure_valid(const heft_mlcp *p);

/* 0 when p is a well-formed box-friction MLCP, else -1 with a message
 * naming the first bad row in err (errlen bytes, may be 0): n < 1; no A and
 * no valid structured form; b not finite; a NaN bound, lo > hi, lo = +inf or
 * hi = -inf; a findex out of range, pointing at its own row or in a cycle;
 * a friction coefficient (hi of a friction row) negative or not finite.
 * O(n): A itself is not read. The pivoting solvers refuse (return
 * HEFT_SOLVE_FAILED, changing nothing) a problem it refuses. */
HEFT_API int heft_mlcp_check(const heft_mlcp *p, char *err, size_t errlen);

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
HEFT_API heft_mlcp_error heft_mlcp_measure(const heft_mlcp *p, const double *lambda, double *work);

/* ---- solvers ------------------------------------------------------------ */

/* What a solver's reserve() sizes a state for: the largest problem it will
 * be given. */
typedef struct heft_solver_capacity {
    int rows;     /* rows of the largest problem */
    int bodies;   /* bodies of its structured form */
    int envelope; /* numbers in each envelope array of the largest problem: its rows
                     times the tallest column of their envelope in the solver's
                     ordering (heft_solver_stats.envelope); 0 sizes none */
} heft_solver_capacity;

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
    /* The part of a state that changes the next solve (kept index sets and
     * answers, the Woodbury solves bpp-pcg starts from), as bytes of this
     * build: save_state writes them into buffer when capacity allows and
     * returns how many it needs (buffer NULL: the size alone); restore_state
     * reads them into a state made by the same solver's create and returns
     * 0, or -1 (the state then reset) for bytes it cannot read. What a solve
     * rebuilds from the problem alone (orderings, symbolic factorizations) is
     * not saved: restored, it is rebuilt the same. Both NULL in a solver that
     * saves nothing: a restored state of it is a reset one
     * (docs/snapshots.md). */
    size_t (*save_state)(const void *state, void *buffer, size_t capacity);
    int (*restore_state)(void *state, const void *buffer, size_t size);
    /* 1: every solve that does not return HEFT_SOLVE_FAILED sets
     * stats->error_max, error_sum and bound_violations to heft_mlcp_measure
     * of the lambda it returns, so the engine does not measure that answer
     * a second time; 0 (or left out of an initializer): the engine measures
     * it. */
    int measures_answer;
    /* Sizes a state's workspaces for the problems capacity describes, so
     * that solving them allocates nothing (heft_world_reserve's rows and
     * envelope). It may be called on a state that has solved, between
     * solves: what the next solve starts from (kept index sets, warm
     * data) must survive it, so that the solves after are the same bits.
     * Returns 0 when memory runs out (the state stays usable). NULL (or
     * left out of an initializer) in a solver that sizes them at its first
     * solve of each size. */
    int (*reserve)(void *state, const heft_solver_capacity *capacity);
} heft_solver_vtable;

/* Return codes of solve(). */
#define HEFT_SOLVE_OK 0            /* converged */
#define HEFT_SOLVE_NOT_CONVERGED 1 /* best answer returned */
#define HEFT_SOLVE_FAILED 2        /* no usable answer (out of memory, NaN) */

/* The registry. Built-in solvers are registered on first use. Returns NULL
 * for an unknown name. */
HEFT_API const heft_solver_vtable *heft_solver_find(const char *name);
HEFT_API int heft_solver_count(void);
HEFT_API const heft_solver_vtable *heft_solver_at(int index);
/* Adds a solver (an application's own); fails (returns -1) on a duplicate name. */
HEFT_API int heft_solver_register(const heft_solver_vtable *vtable);

/* One-shot convenience: create, solve, destroy; stats may be NULL. Fills the
 * error fields of stats with heft_mlcp_measure. */
HEFT_API int heft_solve(const char *solver, const heft_solver_options *options, const heft_mlcp *p,
                        double *lambda, heft_solver_stats *stats);

/* ---- the rescue of a failed or unconverged solve (fallback.c) ------------ */

/* The policy a caller such as the engine applies around any solver, so that
 * it names none: a solve that fails or answers NaN or Inf is solved again by
 * projected Gauss-Seidel (zeros when that fails too); a solve that did not
 * converge is polished by PGS started from its answer and compared with PGS
 * from the warm start, and the answer with the smallest MLCP error
 * (heft_mlcp_measure) of the three is kept. The PGS solves use the options'
 * max_iterations, tolerance and relaxation. A solver that is PGS itself is
 * not polished by PGS again. */
typedef struct heft_fallback heft_fallback;

/* NULL when out of memory (heft_solve_with_fallback then answers zeros for
 * a failed solve and keeps an unconverged answer as it is). */
HEFT_API heft_fallback *heft_fallback_create(const heft_solver_options *options);
HEFT_API void heft_fallback_destroy(heft_fallback *fallback);
/* Grows the fallback's scratch memory, its rescue's PGS workspace
 * included, to what a problem of rows rows and bodies bodies needs, so that
 * heft_solve_with_fallback on it allocates nothing. Returns 1, or 0 when
 * fallback is NULL, a count is negative, or memory is short (what was
 * reserved before stays). */
HEFT_API int heft_fallback_reserve(heft_fallback *fallback, int rows, int bodies);

/* What the rescue did in one heft_solve_with_fallback. */
typedef struct heft_fallback_report {
    int rescued;       /* 1: the answer kept is the rescue's (PGS's, or zeros), not the solver's */
    int rescue_sweeps; /* PGS sweeps the rescue ran (also added to stats->iterations) */
} heft_fallback_report;

/* Solves p with solver (its state may be NULL: a failed solve) and applies
 * the policy above. lambda (p->n) gets an answer that is always finite.
 * stats: the solver's own statistics, with the rescue's PGS sweeps added to
 * iterations, n, converged (the solver's, or the rescue's after a failure),
 * error_max, error_sum and bound_violations of the answer kept, and answer
 * set to HEFT_ANSWER_PGS (HEFT_ANSWER_ZERO) when the rescue's answer (zeros)
 * was kept. report may be NULL. Returns the solver's return code, or the
 * rescue's after a failure. The scratch memory is the fallback's own and only grows, so a
 * solve of a size already seen allocates nothing. */
HEFT_API int heft_solve_with_fallback(heft_fallback *fallback, const heft_solver_vtable *solver,
                                      void *state, const heft_mlcp *p, double *lambda,
                                      heft_solver_stats *stats, heft_fallback_report *report);

/* ---- .mlcp files (mlcp-format.md) --------------------------------------- */

/* The reader holds A dense (n x n doubles), so it refuses files whose dim
 * passes this (2 GiB of A). */
#define HEFT_MLCP_FILE_MAX_DIM 16384

/* The reader refuses an A (dense or coo) whose entries A_ij and A_ji differ
 * by more than this, relative to max(|A_ij|, |A_ji|, sqrt|A_ii A_jj|): the
 * format promises a symmetric positive semidefinite A. The writer refuses
 * (EINVAL) what the reader would. */
#define HEFT_MLCP_SYMMETRY_TOLERANCE 1e-9

/* Reads one problem from the text of an .mlcp file, strictly: every section
 * in the documented order, counts that match, numbers by strtod (inf and -inf
 * allowed where a bound may be infinite, NaN never), a symmetric A (above),
 * no trailing tokens, and,
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
HEFT_API int heft_mlcp_read_string(const char *text, heft_mlcp **out, double **solution, char *err,
                                   size_t errlen);
/* The same for a file; the message is "PATH: line 12: ..." (or says why the
 * file could not be read). A NUL byte in the file is an error. */
HEFT_API int heft_mlcp_read_file(const char *path, heft_mlcp **out, double **solution, char *err,
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
HEFT_API int heft_mlcp_write(FILE *f, const heft_mlcp *p, const double *lambda0,
                             const double *solution);
/* The same into a new file at path; a file left half-written by a failure
 * is removed. */
HEFT_API int heft_mlcp_write_file(const char *path, const heft_mlcp *p, const double *lambda0,
                                  const double *solution);

#ifdef __cplusplus
}
#endif

#endif
