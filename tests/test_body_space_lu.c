/* The unsymmetric LU of K in body space (solver/body_space.c, docs/bpp.md
 * "Solves in body space") against a plain rank-1 loop written here: on
 * random skyline layouts the factors and the solves must have the same
 * bits, and a bad pivot must be rejected where the plain loop rejects it,
 * K left as the plain loop leaves it. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "avx_state.h"
#include "body_space.h"
#include "planted.h"
#include "skyline.h"

/* A layout and its two envelopes (lower by columns, upper by rows). */
typedef struct lu_case {
    int m;
    int *last;
    size_t *start;
    double *lower, *upper;
} lu_case;

/* A random profile: runs of columns reaching as far as the one before,
 * steps at places that are not multiples of a body's six coordinates, and
 * columns reaching no row below their diagonal (a block's end). */
static void random_profile(planted_rng *rng, int m, int *last) {
    int reach = 0;
    for (int k = 0; k < m; ++k) {
        int to = reach > k ? reach : k;
        const double u = planted_uniform(rng, 0.0, 1.0);
        if (to == k && u < 0.25)
            ; /* nothing below the diagonal */
        else if (u < 0.6)
            to += planted_int(rng, 0, 3);
        else if (u < 0.9)
            to += planted_int(rng, 0, 40);
        else
            to += planted_int(rng, 0, 90);
        if (to > m - 1)
            to = m - 1;
        last[k] = to;
        reach = to;
    }
}

/* Random unsymmetric entries, some of them zero (a zero multiplier is no
 * update), the diagonal dominant over its row and column. */
static void random_values(planted_rng *rng, lu_case *c) {
    const int m = c->m;
    double *row = calloc((size_t)m, sizeof(double)), *col = calloc((size_t)m, sizeof(double));
    for (int k = 0; k < m; ++k)
        for (int t = 1; t <= c->last[k] - k; ++t) {
            const double z = planted_uniform(rng, 0.0, 1.0);
            const double l = z < 0.15 ? 0.0 : z < 0.2 ? -0.0 : planted_uniform(rng, -1.0, 1.0);
            const double w = planted_uniform(rng, 0.0, 1.0);
            const double u = w < 0.15 ? 0.0 : planted_uniform(rng, -1.0, 1.0);
            c->lower[c->start[k] + (size_t)t] = l; /* K(k + t, k) */
            c->upper[c->start[k] + (size_t)t] = u; /* K(k, k + t) */
            row[k + t] += fabs(l);
            col[k] += fabs(l);
            row[k] += fabs(u);
            col[k + t] += fabs(u);
        }
    for (int k = 0; k < m; ++k) {
        const double d =
            (row[k] > col[k] ? row[k] : col[k]) * planted_uniform(rng, 1.05, 1.5) + 0.1;
        c->lower[c->start[k]] = planted_uniform(rng, 0.0, 1.0) < 0.5 ? d : -d;
        c->upper[c->start[k]] = 0.0; /* not read */
    }
    free(row);
    free(col);
}

/* A random case; with free >= 0, no column before free reaches it (the
 * columns before it cut short), so its pivot is as given. */
static lu_case random_case(uint64_t seed, int m, int free) {
    planted_rng rng = {seed};
    lu_case c = {m, malloc(sizeof(int) * (size_t)m), malloc(sizeof(size_t) * ((size_t)m + 1)), NULL,
                 NULL};
    random_profile(&rng, m, c.last);
    for (int k = 0; k < free; ++k)
        c.last[k] = c.last[k] < free ? c.last[k] : free - 1;
    const size_t stored = heft_skyline_layout(m, c.last, c.start);
    cr_assert_gt(stored, 0);
    c.lower = malloc(sizeof(double) * stored);
    c.upper = malloc(sizeof(double) * stored);
    random_values(&rng, &c);
    return c;
}

static lu_case copy_case(const lu_case *c) {
    const size_t stored = c->start[c->m];
    lu_case d = *c;
    d.lower = malloc(sizeof(double) * stored);
    d.upper = malloc(sizeof(double) * stored);
    memcpy(d.lower, c->lower, sizeof(double) * stored);
    memcpy(d.upper, c->upper, sizeof(double) * stored);
    return d;
}

static void free_values(lu_case *c) {
    free(c->lower);
    free(c->upper);
}

static void free_case(lu_case *c) {
    free_values(c);
    free(c->last);
    free(c->start);
}

/* The plain loop: pivot k's test on its column and row as they are, its
 * column divided by it, then y -= L(r, k) U(k, c) on every later entry it
 * reaches, skipped when the multiplier is zero. Returns m, or the pivot
 * rejected. */
static int reference_lu(const lu_case *c) {
    for (int k = 0; k < c->m; ++k) {
        double *lk = c->lower + c->start[k];
        const double *uk = c->upper + c->start[k];
        const int len = c->last[k] - k;
        /* the largest |entry| of column and row; a NaN entry makes it NaN
         * until an entry after it replaces it (NaN compares false) */
        double size = fabs(lk[0]);
        for (int t = 1; t <= len; ++t) {
            const double a = fabs(uk[t]) <= fabs(lk[t]) ? fabs(lk[t]) : fabs(uk[t]);
            size = a <= size ? size : a;
        }
        if (!isfinite(lk[0]) || !isfinite(size) || !(fabs(lk[0]) > 1e-13 * size))
            return k;
        const double inv = 1.0 / lk[0];
        for (int t = 1; t <= len; ++t)
            lk[t] *= inv;
        for (int t = 1; t <= len; ++t) {
            double *col = c->lower + c->start[k + t], *row = c->upper + c->start[k + t];
            if (uk[t] != 0.0)
                for (int s = 0; s <= len - t; ++s)
                    col[s] -= lk[t + s] * uk[t];
            if (lk[t] != 0.0)
                for (int s = 1; s <= len - t; ++s)
                    row[s] -= uk[t + s] * lk[t];
        }
    }
    return c->m;
}

static void reference_solve(const lu_case *c, double *x) {
    for (int k = 0; k < c->m; ++k) {
        if (x[k] == 0.0)
            continue;
        for (int t = 1; t <= c->last[k] - k; ++t)
            x[k + t] -= c->lower[c->start[k] + (size_t)t] * x[k];
    }
    for (int k = c->m - 1; k >= 0; --k) {
        double sum = x[k];
        for (int t = 1; t <= c->last[k] - k; ++t)
            sum -= c->upper[c->start[k] + (size_t)t] * x[k + t];
        x[k] = sum / c->lower[c->start[k]];
    }
}

static heft_body_space layout_of(const lu_case *c) {
    heft_body_space b;
    memset(&b, 0, sizeof b);
    b.m = c->m;
    b.last = c->last;
    b.start = c->start;
    return b;
}

/* Factors c by the plain loop and by the LU, with its AVX passes where the
 * processor has them and with its SSE2 ones, and asserts the same outcome
 * and the same bits; returns the plain loop's result (m, or the rejected
 * pivot). */
static int assert_same_factors(const lu_case *c, const char *what) {
    lu_case ref = copy_case(c);
    const heft_body_space b = layout_of(c);
    const int k = reference_lu(&ref);
    const size_t bytes = sizeof(double) * c->start[c->m];
    for (int wide = 0; wide < 2; ++wide) {
        lu_case got = copy_case(c);
        const int rc = heft_body_space_lu_wide(&b, got.lower, got.upper, wide);
        cr_assert_eq(rc, k < c->m ? -1 : 0,
                     "%s: m %d, the plain loop stops at %d, the LU (wide %d) returns %d", what,
                     c->m, k, wide, rc);
        cr_assert(memcmp(ref.lower, got.lower, bytes) == 0, "%s: L differs (m %d, wide %d)", what,
                  c->m, wide);
        cr_assert(memcmp(ref.upper, got.upper, bytes) == 0, "%s: U differs (m %d, wide %d)", what,
                  c->m, wide);
        free_values(&got);
    }
    free_values(&ref);
    return k;
}

Test(body_space_lu, random_layouts_give_the_plain_loops_bits) {
    for (int trial = 0; trial < 60; ++trial) {
        planted_rng rng = {1000u + (uint64_t)trial};
        const int m = trial < 10 ? 1 + trial : planted_int(&rng, 11, 420);
        lu_case c = random_case(7919u * (uint64_t)trial + 3u, m, -1);
        cr_assert_eq(assert_same_factors(&c, "random"), m, "the matrix is diagonally dominant");
        /* the solve on the factors, right sides with zeros (no update) */
        lu_case f = copy_case(&c);
        const heft_body_space b = layout_of(&c);
        cr_assert_eq(heft_body_space_lu(&b, f.lower, f.upper), 0);
        double *x = malloc(sizeof(double) * (size_t)m), *y = malloc(sizeof(double) * (size_t)m);
        for (int r = 0; r < m; ++r)
            x[r] = planted_uniform(&rng, 0.0, 1.0) < 0.3 ? 0.0 : planted_uniform(&rng, -2.0, 2.0);
        memcpy(y, x, sizeof(double) * (size_t)m);
        reference_solve(&f, x);
        heft_body_space_lu_solve(&b, f.lower, f.upper, y);
        cr_assert(memcmp(x, y, sizeof(double) * (size_t)m) == 0, "solve differs (m %d)", m);
        free(x);
        free(y);
        free_values(&f);
        free_case(&c);
    }
}

/* The body-space layout itself: six coordinates a body, K's skyline
 * stepping at bodies, as order_bodies builds it. */
Test(body_space_lu, body_blocks_give_the_plain_loops_bits) {
    for (int trial = 0; trial < 10; ++trial) {
        planted_rng rng = {77u + (uint64_t)trial};
        const int nb = planted_int(&rng, 2, 60), m = 6 * nb;
        lu_case c = {m, malloc(sizeof(int) * (size_t)m), malloc(sizeof(size_t) * ((size_t)m + 1)),
                     NULL, NULL};
        for (int q = 0, far = 0; q < nb; ++q) {
            const int to = q + planted_int(&rng, 0, 6);
            far = to > far ? to : far;
            far = far < nb - 1 ? far : nb - 1;
            for (int t = 0; t < 6; ++t)
                c.last[6 * q + t] = 6 * far + 5;
        }
        const size_t stored = heft_skyline_layout(m, c.last, c.start);
        c.lower = malloc(sizeof(double) * stored);
        c.upper = malloc(sizeof(double) * stored);
        random_values(&rng, &c);
        cr_assert_eq(assert_same_factors(&c, "bodies"), m);
        free_case(&c);
    }
}

/* A column no earlier column reaches keeps its pivot as given: there a
 * zero, a tiny, an infinite or a NaN pivot, or a NaN at the end of its row,
 * is rejected, at places inside a panel and at its first column. */
Test(body_space_lu, bad_pivots_are_rejected_where_the_plain_loop_rejects_them) {
    for (int trial = 0; trial < 48; ++trial) {
        planted_rng rng = {500u + (uint64_t)trial};
        const int m = planted_int(&rng, 20, 400), k = planted_int(&rng, 1, m - 1);
        lu_case c = random_case(31u * (uint64_t)trial + 5u, m, k);
        const int len = c.last[k] - k;
        double *lk = c.lower + c.start[k], *uk = c.upper + c.start[k];
        switch (trial % 6) {
        case 0:
            lk[0] = 0.0;
            break;
        case 1: /* below 1e-13 of the column's size */
            lk[0] = len > 0 ? 1e-14 : 0.0;
            if (len > 0)
                lk[1] = 1.0;
            break;
        case 2:
            lk[0] = INFINITY;
            break;
        case 3:
            lk[0] = NAN;
            break;
        case 4: /* right of it, the last entry: the size stays NaN */
            if (len > 0)
                uk[len] = NAN;
            else
                lk[0] = NAN;
            break;
        default:
            lk[0] = -0.0;
            break;
        }
        const int at = assert_same_factors(&c, "bad pivot");
        cr_assert_eq(at, k, "rejected at the bad pivot %d, not %d (trial %d)", k, at, trial);
        free_case(&c);
    }
}

/* A NaN or an infinity inside K: whatever the plain loop makes of it (the
 * size of a pivot's column and row forgets a NaN that an entry after it
 * replaces, and a NaN in L beside a number in U: the NaN then spreads to
 * later pivots), the LU makes the same, bit for bit. */
Test(body_space_lu, non_finite_entries_spread_as_in_the_plain_loop) {
    for (int trial = 0; trial < 30; ++trial) {
        lu_case c = random_case(12345u + (uint64_t)trial, 60 + 9 * trial, -1);
        planted_rng rng = {900u + (uint64_t)trial};
        const size_t stored = c.start[c.m];
        for (int n = 0; n < 1 + trial % 3; ++n) {
            const size_t at = (size_t)planted_int(&rng, 0, (int)stored);
            double *v = planted_uniform(&rng, 0.0, 1.0) < 0.5 ? c.lower : c.upper;
            v[at] = trial % 2 ? NAN : -INFINITY;
        }
        assert_same_factors(&c, "non-finite");
        free_case(&c);
    }
}

/* The AVX passes give the registers' upper halves back unused: left in
 * use, every later SSE2 instruction of the thread pays for them (on the AMD
 * EPYC of docs/benchmarks.md a settled step of the base-10 pyramid, after a
 * landing whose Newton stage ran these passes, took 2.7 times as long).
 * Skipped where the processor has no AVX or cannot tell. */
Test(body_space_lu, the_avx_passes_leave_the_upper_halves_unused) {
    if (!avx_state_readable())
        cr_skip_test("no AVX, or XGETBV cannot read which states are in use");
    lu_case c = random_case(4242u, 240, -1);
    const heft_body_space b = layout_of(&c);
    avx_zero_upper_halves();
    cr_assert_eq(avx_upper_halves_in_use(), 0, "clean before the factorization");
    cr_assert_eq(heft_body_space_lu_wide(&b, c.lower, c.upper, 1), 0);
    const int dirty = avx_upper_halves_in_use();
    cr_assert_eq(dirty, 0, "the upper halves of ymm0-15 are left in use");
    free_case(&c);
}
