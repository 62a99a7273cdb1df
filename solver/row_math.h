/* Heft: the small products of the structured form that the solvers share
 * (private to solver/). A row's Jacobian block for one body is 6 numbers,
 * linear then angular; a body's inverse inertia is the symmetric 3x3 in
 * the order xx xy xz yy yz zz (heft_mlcp_body). */
#ifndef HEFT_ROW_MATH_H
#define HEFT_ROW_MATH_H

#include "mlcp.h"

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

/* y += alpha x */
static inline void heft_axpy6(double alpha, const double x[6], double y[6]) {
    for (int k = 0; k < 6; ++k)
        y[k] += alpha * x[k];
}

#endif
