/* bpp-sparse (solver/bpp_sparse.c): the sparse factor that follows the
 * pivoting by row additions and deletions solves A_FF x_F = b_F as a fresh
 * dense factorization of A_FF does, to 1e-10 relative, along random
 * sequences of tight sets; and the solver answers the scenes' exported
 * islands exactly. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bpp.h"
#include "dense_cholesky.h"
#include "mlcp.h"
#include "planted.h"
#include "testdata.h"

#ifdef HEFT_HAVE_CHOLMOD

/* x_F = A_FF^-1 b_F by a fresh dense Cholesky of A_FF, x_T = 0 */
static void dense_reference(const double *A, int n, const unsigned char *tight, const double *b,
                            double *x) {
    int *rows = malloc(sizeof(int) * (size_t)n);
    int f = 0;
    for (int i = 0; i < n; ++i)
        if (!tight[i])
            rows[f++] = i;
    double *L = malloc(sizeof(double) * (size_t)f * (size_t)f);
    double *y = malloc(sizeof(double) * (size_t)f);
    for (int r = 0; r < f; ++r) {
        for (int c = 0; c < f; ++c)
            L[(size_t)r * (size_t)f + (size_t)c] = A[(size_t)rows[r] * (size_t)n + (size_t)rows[c]];
        y[r] = b[rows[r]];
    }
    cr_assert_eq(heft_dense_cholesky_factor(L, f), 0);
    heft_dense_cholesky_solve(L, f, y);
    for (int i = 0; i < n; ++i)
        x[i] = 0.0;
    for (int r = 0; r < f; ++r)
        x[rows[r]] = y[r];
    free(rows);
    free(L);
    free(y);
}

static double next_uniform(uint64_t *state) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

Test(bpp_sparse, row_updates_match_a_fresh_factorization_on_random_sequences) {
    int updates = 0, downdates = 0, factorizations = 0, solves = 0;
    double worst = 0.0;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
        const int n = 60 + 40 * (int)seed;
        heft_mlcp *p = planted_random_structured(n, n / 3, 0.05, 1, seed);
        cr_assert_not_null(p);
        heft_solver_options o = heft_solver_default_options();
        bpp_state *s = heft_bpp_create(&o, BPP_SPARSE);
        cr_assert_not_null(s);
        s->diag = heft_alloc(sizeof(double) * (size_t)n);
        s->diag_cap = (size_t)n;
        heft_solver_stats st;
        memset(&st, 0, sizeof st);
        cr_assert_eq(heft_bpp_sparse_prepare(s, p, &st), 0);
        unsigned char *tight = calloc((size_t)n, 1);
        double *b = malloc(sizeof(double) * (size_t)n), *x = malloc(sizeof(double) * (size_t)n);
        double *ref = malloc(sizeof(double) * (size_t)n);
        uint64_t rng = seed * 7919;
        for (int step = 0; step < 40; ++step) {
            /* a few variables change set per step: the updates' path */
            const int flips = 1 + (int)(next_uniform(&rng) * 6);
            for (int k = 0; k < flips; ++k) {
                const int i = (int)(next_uniform(&rng) * n);
                tight[i] = !tight[i];
            }
            for (int i = 0; i < n; ++i)
                b[i] = x[i] = next_uniform(&rng) - 0.5;
            cr_assert_eq(heft_bpp_sparse_solve(s, n, tight, x, &st), 0, "seed %d step %d",
                         (int)seed, step);
            dense_reference(p->A, n, tight, b, ref);
            double scale = 0.0, diff = 0.0;
            for (int i = 0; i < n; ++i) {
                scale = fmax(scale, fabs(ref[i]));
                diff = fmax(diff, fabs(x[i] - ref[i]));
            }
            worst = fmax(worst, diff / scale);
            solves++;
        }
        updates += st.updates;
        downdates += st.downdates;
        factorizations += st.factorizations;
        free(tight);
        free(b);
        free(x);
        free(ref);
        heft_bpp_destroy(s);
        heft_mlcp_destroy(p);
    }
    cr_log_info("%d solves: %d factorizations, %d row deletions, %d row additions, worst %.2e",
                solves, factorizations, downdates, updates, worst);
    cr_assert_lt(worst, 1e-10, "row-updated factor off a fresh one by %.3e relative", worst);
    /* the sequences must have gone through the updates, not refactoring */
    cr_assert_gt(downdates + updates, 5 * factorizations, "%d updates, %d factorizations",
                 downdates + updates, factorizations);
}

Test(bpp_sparse, solves_the_exported_scene_islands_exactly) {
    const char *files[] = {"chain-step120.mlcp",  "chain-step600.mlcp", "chain-step1027.mlcp",
                           "tower15-step30.mlcp", "winch-step70.mlcp",  "boxes-pgs-step149.mlcp"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k) {
        heft_mlcp *p = read_testdata(files[k]);
        double *lambda = malloc(sizeof(double) * (size_t)p->n);
        heft_solver_stats st;
        int rc = heft_solve("bpp-sparse", NULL, p, lambda, &st);
        cr_assert_eq(rc, HEFT_SOLVE_OK, "%s: rc %d", files[k], rc);
        cr_assert_lt(st.error_max, 1e-12, "%s: error %.3e J", files[k], st.error_max);
        free(lambda);
        heft_mlcp_destroy(p);
    }
}

#else

Test(bpp_sparse, is_left_out_without_cholmod) {
    cr_assert_null(heft_solver_find("bpp-sparse"));
}

#endif
