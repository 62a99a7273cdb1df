/* Heft: the well-formedness check of a box-friction MLCP (mlcp.h
 * heft_mlcp_check), the input the pivoting solvers and their backstop
 * accept. */
#include <math.h>
#include <stdio.h>

#include "mlcp.h"

static int friction(const heft_mlcp *p, int i) {
    return p->findex != NULL && p->findex[i] >= 0;
}

int heft_mlcp_check(const heft_mlcp *p, char *err, size_t errlen) {
    char local[8];
    if (err == NULL || errlen == 0) {
        err = local;
        errlen = sizeof local;
    }
    if (p == NULL || p->n < 1 || p->b == NULL || p->lo == NULL || p->hi == NULL) {
        snprintf(err, errlen, "the problem needs n >= 1 and its b, lo and hi");
        return -1;
    }
    if (p->A == NULL && (p->rows == NULL || !heft_mlcp_structure_valid(p))) {
        snprintf(err, errlen, "the problem has neither A nor a valid structured form");
        return -1;
    }
    const int n = p->n;
    for (int i = 0; i < n; ++i) {
        if (!isfinite(p->b[i])) {
            snprintf(err, errlen, "row %d: b is %g, not finite", i, p->b[i]);
            return -1;
        }
        if (p->findex != NULL && p->findex[i] < -1) {
            snprintf(err, errlen, "row %d: findex %d is out of range", i, (int)p->findex[i]);
            return -1;
        }
        if (!friction(p, i)) {
            const double lo = p->lo[i], hi = p->hi[i];
            if (isnan(lo) || isnan(hi) || lo > hi || lo == INFINITY || hi == -INFINITY) {
                snprintf(err, errlen, "row %d: bounds [%g, %g] are not an interval", i, lo, hi);
                return -1;
            }
            continue;
        }
        const int f = p->findex[i];
        if (f >= n || f == i) {
            snprintf(err, errlen, "row %d: findex %d is out of range or the row itself", i, f);
            return -1;
        }
        if (!(p->hi[i] >= 0.0) || !isfinite(p->hi[i])) {
            snprintf(err, errlen,
                     "row %d: friction coefficient mu = %g (hi) must be finite and >= 0", i,
                     p->hi[i]);
            return -1;
        }
        /* follow the chain of normal rows: a cycle never reaches a row
         * without a friction coupling */
        int at = f, steps = 0;
        while (friction(p, at) && steps <= n) {
            at = p->findex[at];
            if (at >= n) {
                snprintf(err, errlen, "row %d: findex chain leaves the rows at %d", i, at);
                return -1;
            }
            ++steps;
        }
        if (steps > n) {
            snprintf(err, errlen, "row %d: findex forms a cycle", i);
            return -1;
        }
    }
    return 0;
}
