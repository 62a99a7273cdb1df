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

static inline double heft_dot6(const double x[6], const double y[6]) {
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2] + x[3] * y[3] + x[4] * y[4] + x[5] * y[5];
}

/* heft_mlcp_bounds, inline: the solvers' loops over the rows ask every
 * row's bounds several times a solve, and the call was 3% of the 1,000
 * boxes' step. */
static inline void heft_row_bounds(const heft_mlcp *p, const double *lambda, int i, double *lo,
                                   double *hi) {
    const int32_t f = p->findex != NULL ? p->findex[i] : -1;
    if (f >= 0 && f < p->n) {
        const double lf = lambda[f] > 0.0 ? lambda[f] : 0.0;
        const double limit = lf > 0.0 ? fabs(p->hi[i]) * lf : 0.0;
        *lo = -limit;
        *hi = limit;
        return;
    }
    *lo = p->lo[i];
    *hi = p->hi[i];
}

/* J_i M^-1 J_i^T of the structured form (epsilon not added), summed over
 * the row's pairs of sides on one dynamic body in the order of
 * heft_mlcp_assemble_dense's coupling of a row with itself, so that it is
 * the same to the bit: side a with a, a with b, b with a, b with b. */
static inline double heft_row_self_coupling(const heft_mlcp *p, int i) {
    const heft_mlcp_row *r = &p->rows[i];
    const int a = r->a >= 0 && r->a < p->nbodies, b = r->b >= 0 && r->b < p->nbodies;
    double sum = 0.0, m[6];
#if defined(__SSE2__)
    if (a && b && r->a != r->b) {
        /* the two sides side by side, side a in the low lane: each lane
         * does heft_body_inverse_mass_times and heft_dot6 as they are
         * written, so the sum is the same to the bit */
        const heft_mlcp_body *ba = &p->bodies[r->a], *bb = &p->bodies[r->b];
        __m128d j[6];
        for (int k = 0; k < 6; ++k)
            j[k] = _mm_set_pd(r->jb[k], r->ja[k]);
        const __m128d im = _mm_set_pd(bb->inv_mass, ba->inv_mass);
        const double *Ia = ba->inv_inertia, *Ib = bb->inv_inertia;
        const __m128d i0 = _mm_set_pd(Ib[0], Ia[0]), i1 = _mm_set_pd(Ib[1], Ia[1]),
                      i2 = _mm_set_pd(Ib[2], Ia[2]), i3 = _mm_set_pd(Ib[3], Ia[3]),
                      i4 = _mm_set_pd(Ib[4], Ia[4]), i5 = _mm_set_pd(Ib[5], Ia[5]);
        const __m128d m0 = _mm_mul_pd(im, j[0]), m1 = _mm_mul_pd(im, j[1]),
                      m2 = _mm_mul_pd(im, j[2]);
        const __m128d m3 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(i0, j[3]), _mm_mul_pd(i1, j[4])),
                                      _mm_mul_pd(i2, j[5]));
        const __m128d m4 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(i1, j[3]), _mm_mul_pd(i3, j[4])),
                                      _mm_mul_pd(i4, j[5]));
        const __m128d m5 = _mm_add_pd(_mm_add_pd(_mm_mul_pd(i2, j[3]), _mm_mul_pd(i4, j[4])),
                                      _mm_mul_pd(i5, j[5]));
        __m128d d = _mm_mul_pd(j[0], m0);
        d = _mm_add_pd(d, _mm_mul_pd(j[1], m1));
        d = _mm_add_pd(d, _mm_mul_pd(j[2], m2));
        d = _mm_add_pd(d, _mm_mul_pd(j[3], m3));
        d = _mm_add_pd(d, _mm_mul_pd(j[4], m4));
        d = _mm_add_pd(d, _mm_mul_pd(j[5], m5));
        double two[2];
        _mm_storeu_pd(two, d);
        sum += two[0];
        sum += two[1];
        return sum;
    }
#endif
    if (a) {
        heft_body_inverse_mass_times(&p->bodies[r->a], r->ja, m);
        sum += heft_dot6(r->ja, m);
        if (r->b == r->a) {
            heft_body_inverse_mass_times(&p->bodies[r->a], r->jb, m);
            sum += heft_dot6(r->ja, m);
        }
    }
    if (b) {
        if (r->a == r->b) {
            heft_body_inverse_mass_times(&p->bodies[r->b], r->ja, m);
            sum += heft_dot6(r->jb, m);
        }
        heft_body_inverse_mass_times(&p->bodies[r->b], r->jb, m);
        sum += heft_dot6(r->jb, m);
    }
    return sum;
}

/* y += alpha x */
static inline void heft_axpy6(double alpha, const double x[6], double y[6]) {
    for (int k = 0; k < 6; ++k)
        y[k] += alpha * x[k];
}

#endif
