/* Heft: the block principal pivoting solvers, private header.
 *
 * bpp.c holds what the three solvers share: the pivoting loop of Júdice &
 * Pires ([Lefebvre 2020] Alg. 2.1 and 2.2, eq. 2.1; [Ho 2022] §2.5.2-2.5.3 for the
 * cycle detection), the frozen-box fall-back (projected Newton), the kept
 * index sets and the answer. What differs is how A_FF lambda_F = b_F - A_FT lambda_T is
 * solved at each pivoting step, the "backend":
 *
 *   bpp           dense A, A_FF gathered and factored at every step (Alg. 2.1 line 4)
 *   bpp-downdate  dense A, L0 = chol(A) once, then a copy downdated once per
 *                 tight variable (Alg. 2.2, 2.3, 2.4)            bpp_dense.c
 *   bpp-skyline   RCM order, A and L in skyline storage, downdates and
 *                 substitutions cut at the skyline (Alg. 2.5, 2.6), or a
 *                 refactoring of A_FF when many variables are tight  bpp_skyline.c
 *   bpp-pcg       sparse A, A_FF cut out when the tight set changes and
 *                 solved by PCG from the previous lambda_F ([Ho 2022] Alg. 10)
 *                                                                 bpp_pcg.c
 *
 * The pivoting loop works in the problem's row order; a backend that reorders
 * (bpp-skyline) permutes inside its own functions. */
#ifndef HEFT_BPP_H
#define HEFT_BPP_H

#include <stddef.h>
#include <stdint.h>

#include "adaptive_regularization.h"
#include "envelope.h"
#include "lemke.h"
#include "newton.h"
#include "mlcp.h"
#include "ordering.h"

typedef enum bpp_backend {
    BPP_REFACTOR,
    BPP_DOWNDATE,
    BPP_SKYLINE,
    BPP_PCG,
    BPP_SPARSE
} bpp_backend;

struct bpp_body_backend;   /* bpp_body.c */
struct bpp_pcg_backend;    /* bpp_pcg.c */
struct bpp_sparse_backend; /* bpp_sparse.c */

/* The index set of one variable (eq. 2.1). */
enum { BPP_FREE = 0, BPP_AT_LO = 1, BPP_AT_HI = 2 };

/* The last stage of the pivoting solvers (heft_bpp_eliminated): a baraff
 * solver, made for each use and released after it. */
typedef struct heft_bpp_elimination {
    const heft_solver_vtable *solver;
    void *state;
} heft_bpp_elimination;

/* Steps of the backstop's Newton stage (newton.c), at most twice
 * options.max_pivots, so that the pivot budget bounds the whole solve (bpp
 * and pgcg) */
#define BPP_NEWTON_STEPS 60

/* A start of the backstop's Newton stage run to its end in this solve
 * (bpp.c newton_stage): heft_newton_solve is a function of the problem, the
 * start, tau, its step budget and the last-stage flag, so a start that
 * stalled within its budget stalls again at the same point when a later
 * stage of the same solve meets it (the warm start, the best pivoting
 * iterate), and is not run again. */
#define BPP_NEWTON_RUNS 6
typedef struct bpp_newton_run {
    double *start, *answer; /* n each: the start as given, its answer */
    size_t start_cap, answer_cap;
    double tau, error; /* error: the answer's error measure */
    int steps, last_stage;
} bpp_newton_run;

typedef struct bpp_state {
    bpp_backend backend;
    heft_solver_options options;

    /* ---- kept between solves (reset() forgets them) ---- */
    int kept_n;          /* size of the kept sets, -1: none */
    uint8_t *kept_set;   /* the index sets of the last answer */
    double *kept_lambda; /* the last answer: friction bounds of kept tight rows */
    int ordering_valid;  /* bpp-skyline: ordering below matches ordering.key */
    heft_ordering ordering;

    /* ---- pivoting workspace, problem order, n entries each ---- */
    uint8_t *set, *next_set, *best_set;
    unsigned char *tight;
    double *lambda, *best_lambda, *w, *rhs, *x, *diag, *measure_work;
    /* the rows' A_ii as the error measure takes them (heft_mlcp_diagonal),
     * made at a solve's first measure and kept to its end (bpp_measure) */
    double *row_diag;
    int row_diag_ready;

    /* friction rows tight on the box of a free normal row (bpp.c "coupling") */
    uint8_t *coupled;    /* per row */
    int *normal_slot;    /* per row: its place among the coupled normals, -1 */
    int *normals;        /* the coupled normal rows, ascending */
    double *coupling;    /* k x k: I + E^T A_FF^-1 U, then its LU */
    int *coupling_pivot; /* k */
    double *u;           /* n */
    /* bpp-pcg: the last coupling's Woodbury solves, PCG's starting points
     * for the next (bpp.c "the friction coupling"); two buffers, the
     * current one wood[wood_cur]: y, then one column of Z per normal row
     * in wood_rows, n each; wood_n 0 when there are none */
    double *wood[2];
    int *wood_rows[2];
    int wood_k[2], wood_cur, wood_n;

    /* the restart from PGS's answer (bpp.c "restart from PGS"): PGS's
     * state, and its answer, n */
    void *pgs;
    double *pgs_lambda;
    size_t pgs_lambda_cap;

    /* the exact backstop (lemke.c) */
    heft_lemke lemke;
    /* the backstop's first stage (newton.c) */
    heft_newton newton;
    /* its starts that stalled in this solve, the oldest replaced first */
    bpp_newton_run newton_runs[BPP_NEWTON_RUNS];
    int newton_run_count, newton_run_next;

    /* the frozen-box fall-back (bpp.c "frozen friction boxes"), n each */
    double *fz_lo, *fz_hi, *fz_x, *fz_ax, *fz_d, *fz_t, *fz_best;

    /* ---- the problem's A, as the backend holds it ---- */
    const double *A; /* dense backends: p->A or A_own */
    double *A_own;   /* dense A assembled from the structured form */

    /* dense backends */
    double *factor;  /* bpp: L_FF (f x f); bpp-downdate: L, the downdated copy */
    double *factor0; /* bpp-downdate: L0 */
    int *free_rows;  /* bpp: the free rows, ascending */
    double *sigma;   /* downdate scratch, n */

    /* bpp-skyline, all in the RCM order */
    size_t *start;                  /* skyline layout, n + 1 */
    double *A_sky, *L0_sky, *L_sky; /* envelope-sized */
    unsigned char *tight_perm;
    double *px, *py;
    heft_envelope_work env; /* the assembly's scratch */
    double *downdate_cost;  /* prefix sums of the estimated cost of a downdate's column k */
    int *block_end;         /* last column of the diagonal block holding column k */
    /* the free rows' envelope of a refactoring (heft_skyline_kept) */
    int *k_row, *k_prev, *k_last;
    size_t *k_start;

    /* bpp-skyline's solves in body space (bpp_body.c), NULL until tried,
     * and the problem of the solve (for the row skyline taking over) */
    struct bpp_body_backend *body;
    const heft_mlcp *sky_problem;
    /* the least epsilon_i / A_ii body space takes: HEFT_BODY_SPACE_MIN_COMPLIANCE
     * (tests lower it) */
    double body_min_compliance;

    /* bpp-pcg */
    struct bpp_pcg_backend *pcg;
    /* bpp-sparse */
    struct bpp_sparse_backend *sparse;

    /* adaptive regularization ([Ho 2022] Alg. 9; bpp and bpp-pcg): the shift of
     * each row's diagonal in the solves of A_FF, NULL when off */
    heft_adaptive_reg reg;
    const double *reg_shift;

    /* factor reuse: the tight set the current factor was made for */
    unsigned char *factored_tight;
    int factored_valid; /* factor/L matches factored_tight */
    int factor_is_L0;   /* bpp-downdate/skyline: no tight variable, L0 solves */
    int L0_valid;       /* L0 factored for this solve */
    int dirty_from;     /* first column of L that may differ from L0 */

    /* the equality rows eliminated (heft_bpp_eliminated in bpp.c): a
     * baraff solver made for each use; nested: this state is baraff's own
     * inner solver, which never runs that stage */
    heft_bpp_elimination elim;
    int nested;

    size_t set_cap, next_set_cap, best_set_cap, tight_cap, kept_set_cap, kept_lambda_cap,
        lambda_cap, best_lambda_cap, w_cap, rhs_cap, x_cap, diag_cap, row_diag_cap, measure_cap,
        A_own_cap, factor_cap, factor0_cap, free_rows_cap, sigma_cap, start_cap, A_sky_cap,
        L0_sky_cap, L_sky_cap, tight_perm_cap, px_cap, py_cap, downdate_cost_cap, block_end_cap,
        k_row_cap, k_prev_cap, k_last_cap, k_start_cap, factored_tight_cap, coupled_cap,
        normal_slot_cap, normals_cap, coupling_cap, coupling_pivot_cap, u_cap, wood_cap[2],
        wood_rows_cap[2], fz_lo_cap, fz_hi_cap, fz_x_cap, fz_ax_cap, fz_d_cap, fz_t_cap,
        fz_best_cap;
} bpp_state;

/* ---- the solver functions (bpp.c), shared by the vtables of every backend ----------- */

void *heft_bpp_create(const heft_solver_options *options, bpp_backend backend);
int heft_bpp_solve(void *state, const heft_mlcp *p, double *lambda, heft_solver_stats *stats);
void heft_bpp_reset(void *state);
void heft_bpp_destroy(void *state);
/* Marks a bpp state as another solver's inner one (baraff's): its solves
 * never hand the problem to baraff in turn. */
void heft_bpp_set_nested(void *state);

/* The equality rows eliminated: baraff (Baraff's auxiliary problem) on p
 * from the point from (NULL: zero), after every other stage of a pivoting
 * solve left p open. Only for a structured p with equality rows (free on
 * both sides, no friction index). start (n) holds the start, answer (n)
 * gets baraff's answer clamped into its boxes; measure_work: n + 6 nbodies.
 * Returns 1 when the answer is within tau, 0 when it is short of it, -1
 * when the stage did not run or failed. Counts go to stats (backstops,
 * backstop_pivots, newton_steps and the rest). */
int heft_bpp_eliminated(const heft_mlcp *p, const heft_solver_options *options,
                        heft_bpp_elimination *e, const double *from, double tau, double *start,
                        double *answer, double *measure_work, heft_solver_stats *stats);
void heft_bpp_elimination_release(heft_bpp_elimination *e);

/* The point of points (count entries, NULL ones skipped) nearest an answer
 * by the error measure once clamped into its boxes, and that error in
 * *error (INFINITY and NULL when there is none). scratch: n. */
const double *heft_bpp_nearest(const heft_mlcp *p, const double *const *points, int count,
                               double *scratch, double *measure_work, double *error);
/* The kept sets and answer, and bpp-pcg's last Woodbury solves, as bytes
 * (heft_solver_vtable save_state and restore_state; bpp_state.c). */
size_t heft_bpp_save_state(const void *state, void *buffer, size_t capacity);
int heft_bpp_restore_state(void *state, const void *buffer, size_t size);

/* ---- the pivoting rules, shared with pgcg (pgcg.c) --------------------------------- */

/* What step 4 finds in one iterate. */
typedef struct bpp_check {
    int pivots; /* variables breaking eq. 2.1: they change set */
    int stale;  /* tight friction rows off the bound of the new normal impulse */
    int nonfinite;
    double error_max, error_sum; /* the MLCP error of the iterate (mlcp-format.md) */
} bpp_check;

/* Step 1: tight variables at their bounds (normal rows before the friction
 * rows they bound); a variable tight at an infinite bound is made free.
 * Fills tight[] and returns the size of the tight set. */
int heft_bpp_place_tight(const heft_mlcp *p, uint8_t *set, double *lambda, unsigned char *tight);

/* Step 4: eq. 2.1 ([Ho 2022] eq. 2.41-2.44) at lambda, w = A lambda - b, with the
 * energy tolerance tau (J) and diag = A_ii; next[] gets every variable's set
 * after a block pivot. */
bpp_check heft_bpp_check_sets(const heft_mlcp *p, const uint8_t *set, const double *lambda,
                              const double *w, const double *diag, double tau, uint8_t *next);

/* Alg. 2.1 line 1 / [Ho 2022] §5.3, the start of a pivoting solve: lambda from
 * the warm start (or the kept answer), the index sets from kept_set (NULL
 * when there are none of this size or they are off), else read off a
 * warm start that is not all zeros (a variable at a bound starts tight),
 * else all free. Returns 1 when some variable starts tight. */
int heft_bpp_start(const heft_mlcp *p, const heft_solver_options *o, const uint8_t *kept_set,
                   const double *kept_lambda, double *lambda, uint8_t *set);

/* Index sets read off lambda: a variable at one of its bounds (a friction
 * box taken from lambda's normal impulse) tight there, the others free. */
void heft_bpp_read_sets(const heft_mlcp *p, const double *lambda, uint8_t *set);

/* The start every pivoting solve shares (bpp, pgcg): stats zeroed with its
 * n. Returns HEFT_SOLVE_FAILED for a problem with neither A nor rows (or a
 * negative n), HEFT_SOLVE_OK when there is nothing to solve (n == 0), and
 * -1 when the solve goes on. */
int heft_bpp_begin(const heft_mlcp *p, heft_solver_stats *stats);

/* The k x k system of the friction coupling (bpp.c "the friction coupling",
 * pgcg.c couple_friction): LU with partial pivoting of the row-major a in
 * place, 0 when singular or not finite; then x = a^-1 x in place. */
int heft_bpp_lu_factor(double *a, int k, int *pivot);
void heft_bpp_lu_solve(const double *a, int k, const int *pivot, double *x);

/* Clamps lambda into its boxes, normal rows first. */
void heft_bpp_clamp_answer(const heft_mlcp *p, double *lambda);

/* The restart from PGS (bpp.c "restart from PGS", used by pgcg too): PGS
 * (a state from heft_pgs_create_for_restart) from start (NULL: zero) into
 * answer, clamped into its boxes, its MLCP error into *error and the index
 * sets read off it into set; counts stats->restarts and pgs_sweeps. Returns
 * 1, or 0 when PGS gave no finite answer. measure_work: n + 6 nbodies. */
int heft_bpp_pgs_answer(const heft_mlcp *p, void *pgs, double *start, double *answer, uint8_t *set,
                        double *measure_work, double *error, heft_solver_stats *stats);

/* The start of the restart's PGS (bpp and pgcg): the best, by the error
 * measure, of the warm start (when warm), lambda = 0 and iterate (the best
 * pivoting iterate; may be NULL), clamped, into out (n); returns out. An
 * iterate is taken only when it beats both: it can be far off (1e3-5e4 J
 * where zero gave 1 J on planted problems), or the one point near the
 * answer (a chain island whose warm start and zero both leave PGS's 1,000
 * sweeps 1.5e-5 J off). scratch: n; measure_work: n + 6 nbodies. */
double *heft_bpp_restart_start(const heft_mlcp *p, int warm, const double *iterate, double *out,
                               double *scratch, double *measure_work);

/* The exact backstop (lemke.c) from the guesses (points the solve has seen,
 * best first; may be none) into answer, counted in stats (backstops,
 * backstop_pivots), within options' backstop_max_variables and
 * backstop_pivot_budget. A: the dense A or NULL. Returns 1 when answer is
 * within tau, 0 when it is an answer short of it, -1 when there is none (a
 * ray, the budget, bad input, an LCP above the cap or the backstop off). */
int heft_bpp_backstop(const heft_mlcp *p, const heft_solver_options *options, heft_lemke *ws,
                      const double *A, const double *const *guesses, int nguesses, double tau,
                      double *answer, double *measure_work, heft_solver_stats *stats);

/* heft_bpp_backstop with a polish of Lemke's answers (heft_lemke_options
 * polish, polish_user; NULL: none), tried on every path's answer whose
 * error is at most reach J, before the next path. */
int heft_bpp_backstop_polished(const heft_mlcp *p, const heft_solver_options *options,
                               heft_lemke *ws, const double *A, const double *const *guesses,
                               int nguesses, double tau,
                               int (*polish)(void *, const heft_mlcp *, double *, double),
                               void *polish_user, double reach, double *answer,
                               double *measure_work, heft_solver_stats *stats);

/* The end of an unconverged solve (bpp and pgcg): lambda (clamped) is
 * replaced by lambda = 0 or the warm start (when warm), clamped, when one
 * of them has a smaller MLCP error, and set read off it. Returns the
 * heft_answer_source of what is kept (HEFT_ANSWER_SOLVER: lambda itself).
 * scratch: n; measure_work: n + 6 nbodies. */
int heft_bpp_prefer_start_points(const heft_mlcp *p, int warm, double *lambda, uint8_t *set,
                                 double *scratch, double *measure_work);

/* After a solve that did not converge (bpp and pgcg), with p->lambda0 set:
 * lambda (clamped) is replaced by the warm start (clamped) when that has the
 * smaller MLCP error, and set read off it. scratch: n entries; measure_work:
 * n + 6 nbodies. */
void heft_bpp_prefer_warm_start(const heft_mlcp *p, double *lambda, uint8_t *set, double *scratch,
                                double *measure_work);

/* The end of a pivoting solve (bpp and pgcg): the answer is clamped, handed
 * out, kept with its sets for the next solve and measured into stats. */
typedef struct bpp_answer {
    double *lambda;      /* the answer (clamped in place) */
    const uint8_t *set;  /* its index sets */
    double *kept_lambda; /* where the solver keeps them, n each */
    uint8_t *kept_set;
    int *kept_n;          /* set to n, or -1 when the answer is not finite */
    double *measure_work; /* n + 6 nbodies */
    int warm;             /* the problem's warm start is on */
    double *scratch;      /* n */
    /* the measure of the answer as it is, clamped, when the caller has it
     * (the answer is then not clamped again), else NULL */
    const heft_mlcp_error *measured;
    /* the rows' A_ii when the caller has them (heft_mlcp_diagonal's, to
     * the bit), else NULL */
    const double *diag;
} bpp_answer;

/* An answer above the acceptance line (1e-10 J) is replaced by lambda = 0
 * or the warm start when one is better (stats->answer says so), and a
 * converged one measured far above it (another A than the backend's) is
 * not converged. Returns HEFT_SOLVE_OK, HEFT_SOLVE_NOT_CONVERGED or, for a
 * non-finite answer, HEFT_SOLVE_FAILED; start is the solve's heft_time_ms(). */
int heft_bpp_answer(const heft_mlcp *p, const bpp_answer *a, int converged, double start,
                    double *lambda_out, heft_solver_stats *stats);

/* ---- the backends (bpp_dense.c, bpp_skyline.c, bpp_pcg.c) -------------------------- */

/* Takes the problem in: A (assembled, copied or pointed to), the ordering,
 * diag[i] = A_ii. Adds to stats' assembly and ordering times. Returns 0, or
 * -1 when out of memory. */
int heft_bpp_dense_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats);
int heft_bpp_skyline_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats);
/* Sizes the skyline's arrays for islands of up to rows rows on bodies
 * bodies whose envelope arrays hold at most envelope numbers
 * (heft_ordering_room; 0: those are sized at their first use). Returns 0
 * when memory runs out. */
int heft_bpp_skyline_reserve(bpp_state *s, int rows, int bodies, int envelope);

/* y = A x */
void heft_bpp_dense_multiply(const bpp_state *s, int n, const double *x, double *y);
void heft_bpp_skyline_multiply(bpp_state *s, int n, const double *x, double *y);

/* out += c * (column j of A), in the problem's row order */
void heft_bpp_dense_add_column(const bpp_state *s, int n, int j, double c, double *out);
void heft_bpp_skyline_add_column(const bpp_state *s, int n, int j, double c, double *out);

/* Solves A_FF x_F = x_F for the free rows (tight[i] == 0) in place; the tight
 * entries of x are set to 0. Factors, copies and downdates as the backend
 * does, reusing the factor when the tight set is the one it was made for.
 * Counts factorizations and downdates and adds the time to time_factor_ms.
 * Returns 0, or -1 when a factorization met a non-positive pivot. */
int heft_bpp_refactor_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                            heft_solver_stats *stats);
int heft_bpp_downdate_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                            heft_solver_stats *stats);
int heft_bpp_skyline_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                           heft_solver_stats *stats);

/* bpp-skyline in body space (bpp_body.c; body_space.h says which islands
 * it takes, with the state's body_min_compliance as the floor of
 * epsilon_i / A_ii). prepare returns 1 when p's A_FF solves go through
 * K = M + J_F^T E_F^-1 J_F for this solve (it fills diag), 0 when the row
 * skyline takes p, -1 when out of memory. The solve returns 0, or 1 when it
 * cannot reach round-off: body space is then off (heft_bpp_body_active)
 * and the row skyline must take over the solve. forget() drops the kept
 * body ordering (reset()). */
int heft_bpp_body_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats);
int heft_bpp_body_active(const bpp_state *s);
void heft_bpp_body_multiply(bpp_state *s, int n, const double *x, double *y);
void heft_bpp_body_add_column(const bpp_state *s, int n, int j, double c, double *out);
int heft_bpp_body_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                        heft_solver_stats *stats);
/* The friction coupling's system (bpp.c) in one unsymmetric solve: the
 * free rows' (A_FF + C) x_F = x_F in place, C from kappa (n: s_t mu_t of
 * each coupled row, else 0). 0, 1 when it cannot (x unchanged), -1 when
 * out of memory. */
int heft_bpp_body_coupled_solve(bpp_state *s, const unsigned char *tight, const double *kappa,
                                double *x, heft_solver_stats *stats);
/* The same system in the rows' envelope (bpp_skyline.c): (A_FF + C) x_F =
 * x_F factored L U in the free rows' envelope (skyline_lu.h), findex giving
 * each coupled row's normal row, coupled the number of coupled normal
 * rows. 0, 1 when it cannot or would cost more than the Woodbury solves (a
 * dependent row, a coupling entry outside the envelope, the estimate; x
 * unchanged), -1 when out of memory. */
int heft_bpp_skyline_coupled_solve(bpp_state *s, const unsigned char *tight, const double *kappa,
                                   const int *findex, int coupled, double *x,
                                   heft_solver_stats *stats);
void heft_bpp_body_forget(bpp_state *s);
/* Whether the last coupled solve factored the unsymmetric K (else the
 * Woodbury identity on K's Cholesky factor); for tests. */
int heft_bpp_body_used_lu(const bpp_state *s);
void heft_bpp_body_release(bpp_state *s);

/* bpp-pcg (bpp_pcg.c): the sparse A, y = A x, a column of A, and the solve of
 * A_FF x_F = x_F by PCG from guess (NULL: from 0); the preconditioner is
 * recomputed when the tight set (or the regularization) changed. */
int heft_bpp_pcg_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats);
void heft_bpp_pcg_multiply(bpp_state *s, int n, const double *x, double *y);
void heft_bpp_pcg_add_column(bpp_state *s, int n, int j, double c, double *out);
int heft_bpp_pcg_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                       const double *guess, heft_solver_stats *stats);
void heft_bpp_pcg_release(bpp_state *s);

/* bpp-sparse (bpp_sparse.c; built with CHOLMOD only): the sparse A, y = A x,
 * a column of A, and the solve of A_FF x_F = x_F on a sparse factor that
 * follows the tight set by row additions and deletions. */
int heft_bpp_sparse_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats);
void heft_bpp_sparse_multiply(bpp_state *s, int n, const double *x, double *y);
void heft_bpp_sparse_add_column(bpp_state *s, int n, int j, double c, double *out);
int heft_bpp_sparse_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                          heft_solver_stats *stats);
void heft_bpp_sparse_release(bpp_state *s);
/* k right-hand sides of n zeros, column after column, for
 * heft_bpp_sparse_solve_columns, which solves them in place with the factor
 * of the tight set (one pass over the factor for all). NULL / -1 on
 * failure. */
double *heft_bpp_sparse_columns(bpp_state *s, int n, int k);
int heft_bpp_sparse_solve_columns(bpp_state *s, int n, const unsigned char *tight, int k,
                                  heft_solver_stats *stats);

/* bpp-pcg: 1 when every free row (set[i] == BPP_FREE) of w = A lambda - b
 * is solved within the energy tolerance tau (0.5 w_i^2 / A_ii <= tau), the
 * test the index sets do not make; 0 otherwise. */
int heft_bpp_pcg_free_rows_solved(const bpp_state *s, const heft_mlcp *p, const uint8_t *set,
                                  const double *w, double tau);

/* Tightens bpp-pcg's relative PCG tolerance for the rest of this solve
 * (times 1e-4, down to a floor of 1e-13; bpp_pcg.c). Returns 0 when it is
 * at the floor already. */
int heft_bpp_pcg_tighten(bpp_state *s);

#endif
