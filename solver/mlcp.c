/* Heft: the boxed MLCP of an island (docs/architecture.md "The MLCP of an island").
 *
 * A problem carries a structured form (bodies, rows with Jacobian blocks,
 * compliance) and/or an assembled dense A = J M^-1 J^T + diag(epsilon). This
 * file makes and frees problems, turns the structured form into the dense one,
 * and evaluates the residual w = A lambda - b and the bounds of a row from
 * whichever form is present. */
#include "mlcp.h"
#include "row_math.h"

#include <math.h>
#include <stdalign.h>
#include <stddef.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ---- create / destroy -------------------------------------------------- */

/* Adds count elements of size elem to a running block size, keeping every
 * array aligned for doubles. Returns 0 on size_t overflow. */
static int block_add(size_t *total, size_t count, size_t elem, size_t *offset) {
    const size_t align = alignof(double);
    size_t at = (*total + align - 1) / align * align;
    if (at < *total)
        return 0;
    if (elem != 0 && count > (SIZE_MAX - at) / elem)
        return 0;
    *offset = at;
    *total = at + count * elem;
    return 1;
}

heft_mlcp *heft_mlcp_create(int n, int nbodies, unsigned parts) {
    const int dense = (parts & HEFT_MLCP_DENSE) != 0;
    const int structured = (parts & HEFT_MLCP_STRUCTURED) != 0;
    const int meta = (parts & HEFT_MLCP_META) != 0;
    if (n < 0 || nbodies < 0 || (!structured && nbodies > 0))
        return NULL;

    const size_t un = (size_t)n, ub = (size_t)nbodies;
    size_t total = 0, off_b, off_lo, off_hi, off_findex;
    size_t off_kind = 0, off_block = 0, off_lambda0 = 0;
    size_t off_bodies = 0, off_rows = 0, off_eps = 0, off_A = 0;
    int ok = block_add(&total, 1, sizeof(heft_mlcp), &(size_t){0});
    ok = ok && block_add(&total, un, sizeof(double), &off_b);
    ok = ok && block_add(&total, un, sizeof(double), &off_lo);
    ok = ok && block_add(&total, un, sizeof(double), &off_hi);
    ok = ok && block_add(&total, un, sizeof(int32_t), &off_findex);
    if (meta) {
        ok = ok && block_add(&total, un, sizeof(double), &off_lambda0);
        ok = ok && block_add(&total, un, sizeof(int32_t), &off_block);
        ok = ok && block_add(&total, un, sizeof(uint8_t), &off_kind);
    }
    if (structured) {
        ok = ok && block_add(&total, ub, sizeof(heft_mlcp_body), &off_bodies);
        ok = ok && block_add(&total, un, sizeof(heft_mlcp_row), &off_rows);
        ok = ok && block_add(&total, un, sizeof(double), &off_eps);
    }
    if (dense) {
        if (n > 0 && un > SIZE_MAX / un)
            return NULL;
        ok = ok && block_add(&total, un * un, sizeof(double), &off_A);
    }
    if (!ok)
        return NULL;

    unsigned char *mem = heft_alloc(total);
    if (mem == NULL)
        return NULL;
    memset(mem, 0, total);

    heft_mlcp *p = (heft_mlcp *)mem;
    p->n = n;
    p->b = (double *)(mem + off_b);
    p->lo = (double *)(mem + off_lo);
    p->hi = (double *)(mem + off_hi);
    p->findex = (int32_t *)(mem + off_findex);
    for (int i = 0; i < n; ++i) {
        p->lo[i] = -INFINITY;
        p->hi[i] = INFINITY;
        p->findex[i] = -1;
    }
    if (meta) {
        p->lambda0 = (double *)(mem + off_lambda0);
        p->block = (int32_t *)(mem + off_block);
        p->kind = mem + off_kind;
        /* Neutral: every row is its own block, bilateral (0), no warm start. */
        for (int i = 0; i < n; ++i)
            p->block[i] = i;
    }
    if (structured) {
        p->nbodies = nbodies;
        p->bodies = (heft_mlcp_body *)(mem + off_bodies);
        p->rows = (heft_mlcp_row *)(mem + off_rows);
        p->epsilon = (double *)(mem + off_eps);
        for (int i = 0; i < n; ++i) {
            p->rows[i].a = -1;
            p->rows[i].b = -1;
        }
    }
    if (dense)
        p->A = (double *)(mem + off_A);
    p->owned_ = mem;
    return p;
}

/* The struct lives at the start of its own block, so freeing the block frees
 * everything; a problem whose arrays belong to someone else (owned_ NULL) is
 * left alone. */
void heft_mlcp_destroy(heft_mlcp *p) {
    if (p != NULL && p->owned_ != NULL)
        heft_free(p->owned_);
}

/* ---- the structured form ----------------------------------------------- */

/* J_i M^-1 J_j^T: a sum over the pairs of sides of rows i and j that act on
 * the same dynamic body (a row may in principle name one body twice). */
void heft_mlcp_assemble_dense(const heft_mlcp *p, double *out) {
    const int n = p->n;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            double a = heft_rows_coupling(p, i, j);
            out[(size_t)i * n + j] = a;
            out[(size_t)j * n + i] = a;
        }
        out[(size_t)i * n + i] += heft_row_epsilon(p, i);
    }
}

double heft_mlcp_diagonal(const heft_mlcp *p, int i) {
    return heft_row_diagonal(p, i);
}

/* ---- the residual ------------------------------------------------------ */

/* y += s x over six components, two at a time where SSE2 is there (each
 * component's product and sum are the scalar loop's); written out, as the
 * compiler left the loop of three a loop */
static inline void add_scaled6(double *y, const double *x, double s) {
#if defined(__SSE2__)
    const __m128d v = _mm_set1_pd(s);
    _mm_storeu_pd(&y[0], _mm_add_pd(_mm_loadu_pd(&y[0]), _mm_mul_pd(_mm_loadu_pd(&x[0]), v)));
    _mm_storeu_pd(&y[2], _mm_add_pd(_mm_loadu_pd(&y[2]), _mm_mul_pd(_mm_loadu_pd(&x[2]), v)));
    _mm_storeu_pd(&y[4], _mm_add_pd(_mm_loadu_pd(&y[4]), _mm_mul_pd(_mm_loadu_pd(&x[4]), v)));
#else
    for (int k = 0; k < 6; ++k)
        y[k] += x[k] * s;
#endif
}

/* w = J dv + epsilon lambda - b with dv = M^-1 J^T lambda (6 per body): the
 * velocity change the impulses cause, so no entry of A is ever formed. */
static void residual_structured(const heft_mlcp *problem, const double *lambda, double *w,
                                double *dv) {
    /* the header read through a copy, whose fields stay in registers: the
     * stores into dv and w are doubles, as the rows' Jacobians are, and gcc
     * read the problem's arrays and body count again after each of them */
    const heft_mlcp copy = *problem;
    const heft_mlcp *p = &copy;
    const int n = p->n, nb = p->nbodies;
    const unsigned bodies = nb > 0 ? (unsigned)nb : 0u;
    /* First the generalized impulse J^T lambda per body, then M^-1 once per body. */
    for (size_t k = 0; k < 6 * (size_t)bodies; ++k)
        dv[k] = 0.0;
    for (int i = 0; i < n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        const double l = lambda[i];
        if (heft_row_body(p, r->a) >= 0)
            add_scaled6(&dv[6 * (size_t)r->a], r->ja, l);
        if (heft_row_body(p, r->b) >= 0)
            add_scaled6(&dv[6 * (size_t)r->b], r->jb, l);
    }
    for (unsigned k = 0; k < bodies; ++k) {
        double impulse[6];
        memcpy(impulse, &dv[6 * (size_t)k], sizeof impulse);
        heft_body_inverse_mass_times(&p->bodies[k], impulse, &dv[6 * (size_t)k]);
    }
    for (int i = 0; i < n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        double wi = heft_row_epsilon(p, i) * lambda[i] - p->b[i];
        const int a = heft_row_body(p, r->a) >= 0, b = heft_row_body(p, r->b) >= 0;
        if (a && b) {
            double da, db;
            heft_dot6_pair(r->ja, &dv[6 * (size_t)r->a], r->jb, &dv[6 * (size_t)r->b], &da, &db);
            wi += da;
            wi += db;
            w[i] = wi;
            continue;
        }
        if (a)
            wi += heft_dot6(r->ja, &dv[6 * (size_t)r->a]);
        if (b)
            wi += heft_dot6(r->jb, &dv[6 * (size_t)r->b]);
        w[i] = wi;
    }
}

static void residual_dense(const heft_mlcp *p, const double *lambda, double *w) {
    const int n = p->n;
    for (int i = 0; i < n; ++i) {
        const double *Ai = &p->A[(size_t)i * n];
        double wi = -p->b[i];
        for (int j = 0; j < n; ++j)
            wi += Ai[j] * lambda[j];
        w[i] = wi;
    }
}

void heft_mlcp_residual(const heft_mlcp *p, const double *lambda, double *w, double *work) {
    if (p->rows != NULL && (work != NULL || p->nbodies == 0)) {
        residual_structured(p, lambda, w, work);
        return;
    }
    if (p->A != NULL) {
        residual_dense(p, lambda, w);
        return;
    }
    if (p->rows != NULL) {
        /* The caller gave no workspace and there is no A to fall back on:
         * borrow one (tools and tests only; the engine passes its arena). */
        double *dv = heft_alloc(sizeof(double) * 6 * (size_t)p->nbodies);
        if (dv != NULL) {
            residual_structured(p, lambda, w, dv);
            heft_free(dv);
            return;
        }
    }
    for (int i = 0; i < p->n; ++i)
        w[i] = NAN; /* no form to evaluate, or out of memory: say so loudly */
}

/* ---- bounds ------------------------------------------------------------ */

/* A friction row's box is [-mu lambda_f, +mu lambda_f] with mu in hi_i
 * (ODE's findex convention). A normal impulse that is negative (an iterate
 * on its way, or NaN) gives a closed box rather than an inverted one. */
void heft_mlcp_bounds(const heft_mlcp *p, const double *lambda, int i, double *lo, double *hi) {
    heft_row_bounds(p, lambda, i, lo, hi);
}

int heft_mlcp_structure_valid(const heft_mlcp *p) {
    if (p->rows == NULL || p->nbodies < 0 || (p->nbodies > 0 && p->bodies == NULL))
        return 0;
    for (int i = 0; i < p->n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        if (r->a < -1 || r->a >= p->nbodies || r->b < -1 || r->b >= p->nbodies)
            return 0;
    }
    return 1;
}
