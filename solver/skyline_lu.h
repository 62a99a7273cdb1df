/* Heft: the free rows' coupled system M_FF x = g, factored M_FF = L U
 * without pivoting in two envelopes (private header of the solver library).
 *
 * M is A (symmetric, in skyline storage, skyline.h) with the friction
 * coupling added: a friction row t held at its bound s_t mu_t lambda_f
 * moves with its free normal row f, so kappa_t = s_t mu_t times column t of
 * A joins column f. Rows t and f belong to one contact and touch the same
 * bodies, so M has A's pattern and fits A's envelope, but it is not
 * symmetric: L is kept by columns and U by rows, each reaching the skyline
 * of A's layout. The tight rows are left out by gathering the free rows
 * into their own envelope first (heft_skyline_kept), so the coupling, the
 * factorization and the substitutions spend nothing on them.
 *
 * Used by the Newton stage's steps (newton.c) and by block pivoting's
 * coupled steps (bpp_skyline.c). */
#ifndef HEFT_SKYLINE_LU_H
#define HEFT_SKYLINE_LU_H

#include <stddef.h>

/* An LU in two envelopes: lower holds L by columns (the pivots on the
 * diagonal), upper U's off-diagonal rows, each column and row k reaching
 * last[k] (never shrinking with k); rows with out[k] are left out. */
typedef struct heft_lu_env {
    int m;
    const int *last;
    const size_t *start;
    double *lower, *upper;
    unsigned char *out;
    const double *scale; /* the rows' scales, for the dependent-row test */
} heft_lu_env;

/* The source of M: A's envelope (m rows, its layout last and start, values
 * A), the rows of A left out (out_A, A's order) and the kept rows' layout
 * made from them by heft_skyline_kept (row, prev, kept_last, kept_start). */
typedef struct heft_lu_source {
    int m;
    const int *last;
    const size_t *start;
    const double *A;
    const unsigned char *out_A;
    int *row, *prev, *kept_last;
    size_t *kept_start;
} heft_lu_source;

/* M = A_FF: A's entries on the kept rows (kept of them, src's layout)
 * gathered into lower and upper (each as large as A's envelope), out (kept
 * entries) cleared. The envelope returned reads scale (heft_lu_scales
 * fills it, after the coupling, before the factorization). */
heft_lu_env heft_lu_gather(const heft_lu_source *src, int kept, double *lower, double *upper,
                           unsigned char *out, const double *scale);

/* The rows' scales for the dependent-row test into scale (the one e reads):
 * the larger of |M_kk| (the coupling included) and A's diagonal. */
void heft_lu_scales(const heft_lu_source *src, const heft_lu_env *e, double *scale);

/* Adds kappa times column t of A to column f of M, on the kept rows (t and f
 * in A's order, f kept). Returns the entries that fell outside the envelope
 * (a dense A whose entry (i, f) is an exact zero where (i, t) is not). */
int heft_lu_couple(const heft_lu_source *src, const heft_lu_env *e, int t, int f, double kappa);

/* M = L U in place. Rows with out[k] are left out; a row whose pivot falls
 * to dependent times its scale or below is marked out[k] = 2 and left out
 * from there (a four-point face gives four normal rows for three degrees of
 * freedom). Returns the rows dropped, or -1 on a non-finite pivot. */
int heft_lu_factor(const heft_lu_env *e, double dependent);

/* Solves L U x = x on the rows kept; the others get 0. */
void heft_lu_substitute(const heft_lu_env *e, double *x);

#endif
