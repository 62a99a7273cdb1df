/* Heft: an island's rows seen from its bodies (private header of the solver
 * library; docs/bpp.md "Solves in body space").
 *
 * With A = J W J^T + E (W = M^-1, E = diag(epsilon) the rows' compliance),
 * a linear system in the rows of a set F can be solved through a matrix of
 * six rows a body, K = M + sum over i in F of (1/e_i) l_i^T j_i, where j_i
 * is row i's Jacobian and l_i = j_i (bpp-skyline, symmetric K) or row i's
 * Jacobian with coupled friction rows folded in (the Newton stage,
 * unsymmetric K). This module holds what both need: the test of whether an
 * island can be taken, the bodies' order and K's skyline, the bodies'
 * mass matrices, the product A x and the columns of A from J, W and E, K's
 * assembly and its LU factorization without pivoting. */
#ifndef HEFT_SOLVER_BODY_SPACE_H
#define HEFT_SOLVER_BODY_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "mlcp.h"

/* The least epsilon_i / A_ii of an island taken: the refinement of a solve
 * contracts by about 1e-16 |J|^2 / epsilon an iteration; the engine's
 * contacts have about 1e-5 at h = 1/60 s, its rigid joint rows 1e-10. */
#define HEFT_BODY_SPACE_MIN_COMPLIANCE 1e-8
/* rows per body coordinate from which K costs less than the rows' matrix */
#define HEFT_BODY_SPACE_ROW_RATIO 1.5

typedef struct heft_body_space {
    const heft_mlcp *p; /* the problem taken */
    int n, nb, m;       /* rows, bodies, 6 nb */

    /* topology: each row's body pair, and what was computed from it */
    int32_t *pairs;
    int pairs_n, pairs_nb, ordered;
    int *place, *order;          /* place[body], order[place] = body */
    int *rows_start, *rows_of;   /* the rows of each body, compressed */
    int *xadj, *adj, *work, *lo; /* the body graph, RCM scratch */
    int *last;                   /* K's skyline, m */
    size_t *start;               /* m + 1 */

    double *mass; /* per body: m, then the inertia (xx xy xz yy yz zz) */
    double *vel;  /* 6 nb scratch */

    /* heft_body_space_solve's workspace: K's two envelopes, each row's left
     * vectors (12 a row) and 1/e', the refinement's vectors */
    double *K_lower, *K_upper, *left, *inv_e, *bg, *bz, *by, *r0, *res, *sol, *bd;
    /* ... and, with a symmetric factor given, the coupling's Woodbury
     * terms: the coupled normal rows, Z = K^-1 U (m each), I + V^T Z and
     * its LU, k entries of scratch */
    int *wood_rows, *wood_pivot;
    double *wood_z, *wood_s, *wood_t;
    int wood_k;
    /* flops of a solve with a symmetric factor of K, and of an unsymmetric
     * K's assembly and LU (for the choice between them) */
    double solve_flops, lu_flops;
    int used_lu; /* the last heft_body_space_solve factored an unsymmetric K */
    int folded;  /* ... and folded friction rows into its left vectors */

    size_t pairs_cap, place_cap, order_cap, rows_start_cap, rows_of_cap, xadj_cap, adj_cap,
        work_cap, lo_cap, last_cap, start_cap, mass_cap, vel_cap, K_lower_cap, K_upper_cap,
        left_cap, inv_e_cap, bg_cap, bz_cap, by_cap, r0_cap, res_cap, sol_cap, bd_cap,
        wood_rows_cap, wood_pivot_cap, wood_z_cap, wood_s_cap, wood_t_cap;
} heft_body_space;

/* Whether p can be solved in body space: the structured form (a dense A
 * beside it, as a file carries, equals it to round-off and is not read),
 * every body with a
 * positive mass and a positive definite inertia, every row's epsilon_i > 0
 * (1 / epsilon_i finite) and at least least times its A_ii, and at least
 * HEFT_BODY_SPACE_ROW_RATIO rows per body coordinate. O(n), no memory. */
int heft_body_space_fits(const heft_mlcp *p, double least);

/* Takes p when it fits: fills diag (n) with A_ii and orders the bodies
 * (kept while the rows' body pairs stay the same). known: the rows' A_ii of
 * the structured form when the caller has them (heft_mlcp_diagonal's of a
 * problem without a dense A), else NULL. Returns 1 when taken, 0 when not,
 * -1 when out of memory. */
int heft_body_space_take(heft_body_space *b, const heft_mlcp *p, double least, const double *known,
                         double *diag);

/* y = A x (n each) */
void heft_body_space_multiply(heft_body_space *b, const double *x, double *y);

/* out += c * (column j of A) */
void heft_body_space_add_column(const heft_body_space *b, int j, double c, double *out);

/* Entry (r, c) of K (r, c < m: place 6 q + coordinate): lower holds r >= c
 * by columns in the skyline (start, last), upper r < c by rows in the same
 * layout (NULL for a symmetric K). */
static inline double *heft_body_space_at(const heft_body_space *b, double *lower, double *upper,
                                         int r, int c) {
    return r >= c ? &lower[b->start[c] + (size_t)(r - c)] : &upper[b->start[r] + (size_t)(c - r)];
}

/* K = M, then K += w l^T j for one row (its Jacobian blocks j on bodies a
 * and b, l its left vectors: l == j for a symmetric K, upper NULL). */
void heft_body_space_mass(const heft_body_space *b, double *lower, double *upper);
void heft_body_space_add_row(const heft_body_space *b, const heft_mlcp_row *row, const double la[6],
                             const double lb[6], double w, double *lower, double *upper);

/* The rows from first on that share row first's two bodies (consecutive,
 * as a contact manifold's are), those not tight, added to K's lower
 * envelope (symmetric K, weight 1 / epsilon_i) with the same sums as
 * heft_body_space_add_row row by row; returns the first row after them. */
int heft_body_space_add_pair_rows(const heft_body_space *b, const heft_mlcp *p, int first,
                                  const unsigned char *tight, double *lower);

/* g (m, place order) += t * (l_a on body a, l_b on body b) */
void heft_body_space_spread(const heft_body_space *b, const heft_mlcp_row *row, const double la[6],
                            const double lb[6], double t, double *g);
/* j_i . v over row i's bodies (v: m, place order) */
double heft_body_space_gather(const heft_body_space *b, const heft_mlcp_row *row, const double *v);

/* LU of an unsymmetric K in place without pivoting (lower: L with the pivots
 * on its diagonal, upper: U's rows off the diagonal); 0, or -1 at a pivot
 * that is not finite or below 1e-13 of its column's size. Then x = K^-1 x. */
int heft_body_space_lu(const heft_body_space *b, double *lower, double *upper);
/* The same with its AVX passes (wide 1, where the processor has AVX) or
 * its SSE2 ones (0): the same bits either way, each path testable. */
int heft_body_space_lu_wide(const heft_body_space *b, double *lower, double *upper, int wide);
void heft_body_space_lu_solve(const heft_body_space *b, const double *lower, const double *upper,
                              double *x);

/* Solves (A_FF + C + shift diag(A_FF)) x_F = g_F through the bodies, F the
 * rows with out[i] == 0: a coupled row t (kappa[t] != 0, its normal row
 * f = findex[t] in F) carries the impulse kappa_t x_f, so C adds kappa_t
 * times column t of A to column f (the friction rows of a free normal row
 * at a bound of their box; bpp.c "the friction coupling", the Newton
 * stage). With l_f = j_f + sum kappa_t j_t and E' = E_F + shift diag:
 *
 *     K v = L_F^T E'^-1 g,  K = M + L_F^T E'^-1 J_F,  x = E'^-1 (g - J_F v),
 *
 * K unsymmetric, factored by heft_body_space_lu, and x refined against the
 * exact product until the residual is round-off (1e-15 of |g| + max
 * (1 + shift) A_ii |x|, at most six rounds). diag: A_ii (n). chol: NULL,
 * or the Cholesky factor (heft_skyline_factor in b's layout) of the
 * symmetric K = M + J_F^T E'^-1 J_F of the same F and shift: K + U V^T is
 * then solved by the Woodbury identity on it (one solve per coupled normal
 * row, U's column w_f sum kappa_t j_t, V's j_f) when that costs fewer
 * flops than assembling and factoring the unsymmetric K. Returns 0 with
 * x (n, zero off F), 1 when it cannot: a coupled row on other bodies than
 * its normal's, a failed pivot, or a residual above 1e-13 of that scale;
 * -1 when out of memory. */
int heft_body_space_solve(heft_body_space *b, const unsigned char *out, const double *kappa,
                          double shift, const double *diag, const double *chol, const double *g,
                          double *x);

void heft_body_space_forget(heft_body_space *b);
void heft_body_space_release(heft_body_space *b);

#endif
