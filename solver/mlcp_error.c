/* Heft: the error of an answer to an MLCP (mlcp-format.md "The error measure").
 *
 * For row i with d_i = A_ii:
 *   p_i = clamp(lambda_i - w_i / d_i, lo_i, hi_i)   where one PGS step would put the row
 *   e_i = 0.5 (lambda_i - p_i)^2 d_i                the energy of the correction still needed
 * The problem's error is the maximum and the sum of e_i, in joules. */
#include "mlcp.h"
#include "row_math.h"
#include "solve_frame.h"

#include <math.h>

/* max(1, |x|) for a finite x, without the library call of fmax */
static double at_least_one(double x) {
    const double a = fabs(x);
    return a > 1.0 ? a : 1.0;
}

/* 1e-12 relative to max(1, |bound|); an infinite bound is never violated. */
static int outside_bounds(double lambda, double lo, double hi) {
    const double rel = 1e-12;
    if (lambda < lo && isfinite(lo) && lo - lambda > rel * at_least_one(lo))
        return 1;
    if (lambda > hi && isfinite(hi) && lambda - hi > rel * at_least_one(hi))
        return 1;
    return 0;
}

/* 1 when x, y and z are all finite: x - x is 0 for a finite x and NaN for
 * an infinite or NaN one, so one comparison tests the three where isfinite
 * takes one each. */
static int finite3(double x, double y, double z) {
    return (x - x) + (y - y) + (z - z) == 0.0;
}

/* e_i of one row. A free row (no clamp) uses the closed form 0.5 w^2 / d
 * directly: lambda - (lambda - w/d) would lose the digits of a small w.
 * The clamp is written with comparisons rather than fmin and fmax (library
 * calls): the same p for every bound, a NaN bound leaving target as they
 * do; where they could differ, in the sign of a zero p equal to target,
 * p == target holds either way. */
static double row_error(double lambda, double w, double d, double lo, double hi) {
    if (!finite3(lambda, w, d))
        return INFINITY;
    if (d <= 0.0)
        return 0.0; /* a row that moves nothing carries no energy; bounds are counted apart */
    const double step = w / d;
    const double target = lambda - step;
    const double above = target < lo ? lo : target;
    const double p = above > hi ? hi : above;
    const double change = (p == target) ? step : lambda - p;
    return 0.5 * change * change * d;
}

/* d_i is the caller's (diag) or heft_mlcp_diagonal's, computed inline: a
 * call a row cost as much as the residual. */
heft_mlcp_error heft_mlcp_measure_diagonal(const heft_mlcp *p, const double *lambda,
                                           const double *diag, double *work) {
    heft_mlcp_error err = {0.0, 0.0, -1, 0, 0};
    const int n = p->n;
    if (n <= 0)
        return err;

    double *owned = NULL;
    if (work == NULL) {
        const size_t nb = p->rows != NULL ? (size_t)p->nbodies : 0;
        owned = heft_alloc(sizeof(double) * ((size_t)n + 6 * nb));
        if (owned == NULL) {
            err.max = err.sum = INFINITY;
            return err;
        }
        work = owned;
    }
    double *w = work;
    heft_mlcp_residual(p, lambda, w, work + n);

    for (int i = 0; i < n; ++i) {
        double lo, hi;
        heft_row_bounds(p, lambda, i, &lo, &hi);
        if (!finite3(lambda[i], w[i], 0.0))
            err.nonfinite++;
        else if (outside_bounds(lambda[i], lo, hi))
            err.bound_violations++;
        const double d = diag != NULL ? diag[i] : heft_row_diagonal(p, i);
        const double e = row_error(lambda[i], w[i], d, lo, hi);
        err.sum += e;
        if (err.worst_row < 0 || e > err.max) {
            err.max = e;
            err.worst_row = i;
        }
    }
    heft_free(owned);
    return err;
}

heft_mlcp_error heft_mlcp_measure(const heft_mlcp *p, const double *lambda, double *work) {
    return heft_mlcp_measure_diagonal(p, lambda, NULL, work);
}
