/* Heft: the small products of the structured form that the solvers share
 * (private to solver/). A row's Jacobian block for one body is 6 numbers,
 * linear then angular; a body's inverse inertia is the symmetric 3x3 in
 * the order xx xy xz yy yz zz (heft_mlcp_body). */
#ifndef HEFT_ROW_MATH_H
#define HEFT_ROW_MATH_H

#include <math.h>

#include "mlcp.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* out = M^-1 j for one body */
static inline void heft_body_inverse_mass_times(const heft_mlcp_body *body, const double j[6],
                                                double out[6]) {
    const double *I = body->inv_inertia;
    out[0] = body->inv_mass * j[0];
    out[1] = body->inv_mass * j[1];
    out[2] = body->inv_mass * j[2];
    out[3] = I[0] * j[3] + I[1] * j[4] + I[2] * j[5];
    out[4] = I[1] * j[3] + I[3] * j[4] + I[4] * j[5];
    out[5] = I[2] * j[3] + I[4] * j[4] + I[5] * j[5];
}

/* 1 when every one of the count numbers of x is finite */
static inline int heft_all_finite(const double *x, size_t count) {
    for (size_t i = 0; i < count; ++i)
        if (!isfinite(x[i]))
            return 0;
    return 1;
}

static inline double heft_dot6(const double x[6], const double y[6]) {
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3] + x[4] * y[4] + x[5] * y[5];
}

/* *da = heft_dot6(ja, va) and *db = heft_dot6(jb, vb), the two in the
 * lanes of SSE2 where it is there: each lane forms heft_dot6's products and
 * sums in its order, so both are its bits */
static inline void heft_dot6_pair(const double ja[6], const double va[6], const double jb[6],
                                  const double vb[6], double *da, double *db) {
#if defined(__SSE2__)
    __m128d d = _mm_mul_pd(_mm_set_pd(jb[0], ja[0]), _mm_set_pd(vb[0], va[0]));
    d = _mm_add_pd(d, _mm_mul_pd(_mm_set_pd(jb[1], ja[1]), _mm_set_pd(vb[1], va[1])));
    d = _mm_add_pd(d, _mm_mul_pd(_mm_set_pd(jb[2], ja[2]), _mm_set_pd(vb[2], va[2])));
    d = _mm_add_pd(d, _mm_mul_pd(_mm_set_pd(jb[3], ja[3]), _mm_set_pd(vb[3], va[3])));
    d = _mm_add_pd(d, _mm_mul_pd(_mm_set_pd(jb[4], ja[4]), _mm_set_pd(vb[4], va[4])));
    d = _mm_add_pd(d, _mm_mul_pd(_mm_set_pd(jb[5], ja[5]), _mm_set_pd(vb[5], va[5])));
    *da = _mm_cvtsd_f64(d);
    *db = _mm_cvtsd_f64(_mm_unpackhi_pd(d, d));
#else
    *da = heft_dot6(ja, va);
    *db = heft_dot6(jb, vb);
#endif
}

/* heft_mlcp_bounds, inline: the solvers' loops over the rows ask every
 * row's bounds several times a solve, and the call was 3% of the 1,000
 * boxes' step. */
static inline void heft_row_bounds(const heft_mlcp *p, const double *lambda, int i, double *lo,
                                   double *hi) {
    const int32_t f = p->findex != NULL ? p->findex[i] : -1;
    if ((uint32_t)f < (uint32_t)p->n) { /* f in [0, n), n >= 0 */
        const double lf = lambda[f] > 0.0 ? lambda[f] : 0.0;
        const double limit = lf > 0.0 ? fabs(p->hi[i]) * lf : 0.0;
        *lo = -limit;
        *hi = limit;
        return;
    }
    *lo = p->lo[i];
    *hi = p->hi[i];
}

/* A row side's dynamic body: its index when it is in [0, nbodies), else -1
 * (-1, or any index outside the body list, is the static world). One
 * unsigned comparison, as it runs for both sides of every row in the
 * residual and the assembly. */
static inline int32_t heft_row_body(const heft_mlcp *p, int32_t index) {
    const uint32_t nb = p->nbodies > 0 ? (uint32_t)p->nbodies : 0u;
    return (uint32_t)index < nb ? index : -1;
}

/* J_i M^-1 J_j^T of the structured form: over the pairs of sides (i's a
 * and b, then j's a and b) on one dynamic body. */
static inline double heft_rows_coupling(const heft_mlcp *p, int i, int j) {
    const heft_mlcp_row *ri = &p->rows[i], *rj = &p->rows[j];
    const int32_t bi[2] = {ri->a, ri->b}, bj[2] = {rj->a, rj->b};
    const double *ji[2] = {ri->ja, ri->jb}, *jj[2] = {rj->ja, rj->jb};
    double sum = 0.0;
    for (int s = 0; s < 2; ++s) {
        if (heft_row_body(p, bi[s]) < 0)
            continue;
        for (int t = 0; t < 2; ++t) {
            if (bj[t] != bi[s])
                continue;
            double mj[6];
            heft_body_inverse_mass_times(&p->bodies[bi[s]], jj[t], mj);
            sum += heft_dot6(ji[s], mj);
        }
    }
    return sum;
}

static inline double heft_row_epsilon(const heft_mlcp *p, int i) {
    return p->epsilon != NULL ? p->epsilon[i] : 0.0;
}

/* J_i M^-1 J_i^T of the structured form (epsilon not added), summed over
 * the row's pairs of sides on one dynamic body in the order of
 * heft_mlcp_assemble_dense's coupling of a row with itself, so that it is
 * the same to the bit: side a with a, a with b, b with a, b with b. */
static inline double heft_row_self_coupling(const heft_mlcp *p, int i) {
#if defined(__SSE2__)
    const heft_mlcp_row *r = &p->rows[i];
    const int a = heft_row_body(p, r->a) >= 0, b = heft_row_body(p, r->b) >= 0;
    double sum = 0.0;
    if (a && b && r->a != r->b) {
        /* the two sides side by side, side a in the low lane: each lane
         * does heft_body_inverse_mass_times and heft_dot6 as they are
         * written, so the sum is the same to the bit */
        const heft_mlcp_body *ba = &p->bodies[r->a], *bb = &p->bodies[r->b];
        /* six named registers, not an array: gcc kept an array of them on
         * the stack, written in a loop and read back */
        const double *ja = r->ja, *jb = r->jb;
        const __m128d j0 = _mm_set_pd(jb[0], ja[0]), j1 = _mm_set_pd(jb[1], ja[1]),
                      j2 = _mm_set_pd(jb[2], ja[2]), j3 = _mm_set_pd(jb[3], ja[3]),
                      j4 = _mm_set_pd(jb[4], ja[4]), j5 = _mm_set_pd(jb[5], ja[5]);
        const __m128d im = _mm_set_pd(bb->inv_mass, ba->inv_mass);
        const double *Ia = ba->inv_inertia, *Ib = bb->inv_inertia;
        const __m128d i0 = _mm_set_pd(Ib[0], Ia[0]), i1 = _mm_set_pd(Ib[1], Ia[1]),
                      i2 = _mm_set_pd(Ib[2], Ia[2]), i3 = _mm_set_pd(Ib[3], Ia[3]),
                      i4 = _mm_set_pd(Ib[4], Ia[4]), i5 = _mm_set_pd(Ib[5], Ia[5]);
        const __m128d m0 = _mm_mul_pd(im, j0), m1 = _mm_mul_pd(im, j1), m2 = _mm_mul_pd(im, j2);
        const __m128d m3 =
            _mm_add_pd(_mm_add_pd(_mm_mul_pd(i0, j3), _mm_mul_pd(i1, j4)), _mm_mul_pd(i2, j5));
        const __m128d m4 =
            _mm_add_pd(_mm_add_pd(_mm_mul_pd(i1, j3), _mm_mul_pd(i3, j4)), _mm_mul_pd(i4, j5));
        const __m128d m5 =
            _mm_add_pd(_mm_add_pd(_mm_mul_pd(i2, j3), _mm_mul_pd(i4, j4)), _mm_mul_pd(i5, j5));
        __m128d d = _mm_mul_pd(j0, m0);
        d = _mm_add_pd(d, _mm_mul_pd(j1, m1));
        d = _mm_add_pd(d, _mm_mul_pd(j2, m2));
        d = _mm_add_pd(d, _mm_mul_pd(j3, m3));
        d = _mm_add_pd(d, _mm_mul_pd(j4, m4));
        d = _mm_add_pd(d, _mm_mul_pd(j5, m5));
        double two[2];
        _mm_storeu_pd(two, d);
        sum += two[0];
        sum += two[1];
        return sum;
    }
#endif
    return heft_rows_coupling(p, i, i);
}

/* heft_mlcp_diagonal, inline (the error measure asks it of every row) */
static inline double heft_row_diagonal(const heft_mlcp *p, int i) {
    if (p->A != NULL)
        return p->A[(size_t)i * (size_t)p->n + (size_t)i];
    if (p->rows != NULL)
        return heft_row_self_coupling(p, i) + heft_row_epsilon(p, i);
    return 0.0;
}

/* y += alpha x */
static inline void heft_axpy6(double alpha, const double x[6], double y[6]) {
    for (int k = 0; k < 6; ++k)
        y[k] += alpha * x[k];
}

#endif
