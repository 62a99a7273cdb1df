/* Heft: bpp-skyline's solves in body space, for islands with more contact
 * rows than degrees of freedom (bpp.h, docs/bpp.md "Solves in body space").
 *
 * A = J W J^T + E, W = M^-1 block diagonal, E = diag(epsilon) the rows'
 * compliance. For a free set F with every epsilon_i > 0 (Woodbury, or the
 * elimination of the velocity change v = W J_F^T x of the saddle-point
 * system [M, -J_F^T; J_F, E_F]):
 *
 *     A_FF x = r   <=>   K v = J_F^T E_F^-1 r,  K = M + J_F^T E_F^-1 J_F,
 *                        x = E_F^-1 (r - J_F v).
 *
 * K has six rows per body, not one per row: a pyramid of 55 boxes has 330
 * against 1,740 contact rows, and its skyline (bodies in reverse
 * Cuthill-McKee order, each body's six rows together) is about twenty times
 * cheaper to factor than A_FF's. A pivoting step that changes F assembles
 * and factors K afresh (no downdates: a row of F is a rank-1 term of K).
 *
 * The price is round-off: x is E^-1 times a difference, so an error of v is
 * multiplied by about |J|^2 / epsilon. Each solve is therefore refined
 * against the exact product A x (computed from J, W and E) until its
 * residual reaches round-off of A_FF's own scale; a solve that cannot get
 * there (a compliance too small beside A_ii) hands the island back to the
 * row skyline (bpp_skyline.c), which then answers the rest of the solve;
 * the next solve tries body space again (no pause: a state's answers must
 * not depend on its history, bpp_state.c). Islands are
 * taken as body_space.h says (heft_body_space_take), with the state's
 * floor of epsilon_i / A_ii. */
#include <math.h>
#include <string.h>

#include "body_space.h"
#include "bpp.h"
#include "skyline.h"
#include "workspace.h"

struct bpp_body_backend {
    heft_body_space space;
    int active; /* this solve's A_FF solves go through K */
    double *K;  /* envelope of K, then its Cholesky factor */
    unsigned char *factored_tight;
    int factored_valid;
    size_t K_cap, factored_tight_cap;
};

int heft_bpp_body_prepare(bpp_state *s, const heft_mlcp *p, heft_solver_stats *stats) {
    struct bpp_body_backend *b = s->body;
    if (b != NULL)
        b->active = 0;
    if (p->rows == NULL || p->nbodies < 1 ||
        (double)p->n < HEFT_BODY_SPACE_ROW_RATIO * 6.0 * (double)p->nbodies)
        return 0;
    if (b == NULL) {
        b = heft_alloc(sizeof *b);
        if (b == NULL)
            return -1;
        memset(b, 0, sizeof *b);
        s->body = b;
    }
    const double start = heft_time_ms();
    /* the error measure's A_ii, when this solve has measured already, are
     * the structured form's where there is no dense A */
    const double *known = s->row_diag_ready && p->A == NULL ? s->row_diag : NULL;
    const int taken = heft_body_space_take(&b->space, p, s->body_min_compliance, known, s->diag);
    stats->time_assembly_ms += heft_time_ms() - start;
    if (taken <= 0)
        return taken;
    const int n = p->n, m = b->space.m;
    if (!HEFT_RESERVE(b->K, b->K_cap, b->space.start[m]) ||
        !HEFT_RESERVE(b->factored_tight, b->factored_tight_cap, n))
        return -1;
    b->factored_valid = 0;
    b->active = 1;
    return 1;
}

int heft_bpp_body_active(const bpp_state *s) {
    return s->body != NULL && s->body->active;
}

void heft_bpp_body_multiply(bpp_state *s, int n, const double *x, double *y) {
    heft_body_space_multiply(&s->body->space, x, y);
    (void)n;
}

void heft_bpp_body_add_column(const bpp_state *s, int n, int j, double c, double *out) {
    heft_body_space_add_column(&s->body->space, j, c, out);
    (void)n;
}

/* K = M + J_F^T E_F^-1 J_F in skyline storage (lower envelope). */
static void assemble_k(struct bpp_body_backend *b, const unsigned char *tight) {
    const heft_mlcp *p = b->space.p;
    heft_body_space_mass(&b->space, b->K, NULL);
    for (int i = 0; i < b->space.n;)
        i = heft_body_space_add_pair_rows(&b->space, p, i, tight, b->K);
}

/* K's Cholesky factor for the tight set in hand, or made; 0, or -1 when a
 * pivot failed. */
static int ensure_factor(struct bpp_body_backend *b, int n, const unsigned char *tight,
                         heft_solver_stats *stats) {
    if (b->factored_valid && memcmp(b->factored_tight, tight, (size_t)n) == 0)
        return 0;
    const double start = heft_time_ms();
    b->factored_valid = 0;
    assemble_k(b, tight);
    stats->factorizations++;
    stats->body_factorizations++;
    heft_skyline k = {b->space.m, b->space.last, b->space.start, b->K};
    const int rc = heft_skyline_factor(k, NULL);
    stats->time_factor_ms += heft_time_ms() - start;
    if (rc != 0)
        return -1;
    memcpy(b->factored_tight, tight, (size_t)n);
    b->factored_valid = 1;
    return 0;
}

int heft_bpp_body_solve(bpp_state *s, int n, const unsigned char *tight, double *x,
                        heft_solver_stats *stats) {
    struct bpp_body_backend *b = s->body;
    /* the refined solve of body_space.h, no row coupled: K's Cholesky
     * factor is the whole of its K */
    if (ensure_factor(b, n, tight, stats) == 0 &&
        heft_body_space_solve(&b->space, tight, NULL, 0.0, s->diag, b->K, x, x) == 0)
        return 0;
    b->active = 0;
    b->factored_valid = 0;
    return 1;
}

int heft_bpp_body_coupled_solve(bpp_state *s, const unsigned char *tight, const double *kappa,
                                double *x, heft_solver_stats *stats) {
    struct bpp_body_backend *b = s->body;
    const int factored = ensure_factor(b, b->space.n, tight, stats) == 0;
    const double start = heft_time_ms();
    const int rc =
        heft_body_space_solve(&b->space, tight, kappa, 0.0, s->diag, factored ? b->K : NULL, x, x);
    if (b->space.used_lu) {
        stats->factorizations++;
        stats->body_factorizations++;
    }
    stats->time_factor_ms += heft_time_ms() - start;
    return rc;
}

int heft_bpp_body_used_lu(const bpp_state *s) {
    return s->body != NULL && s->body->space.used_lu;
}

void heft_bpp_body_release(bpp_state *s) {
    struct bpp_body_backend *b = s->body;
    if (b == NULL)
        return;
    heft_body_space_release(&b->space);
    void *arrays[] = {b->K, b->factored_tight};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
    heft_free(b);
    s->body = NULL;
}

void heft_bpp_body_forget(bpp_state *s) {
    if (s->body != NULL) {
        heft_body_space_forget(&s->body->space);
        s->body->active = 0;
    }
}
