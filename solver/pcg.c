/* Heft: preconditioned conjugate gradient (pcg.h; [Ho 2022] Alg. 8, and
 * Alg. 3 when no preconditioner is given). */
#include "pcg.h"

#include <math.h>
#include <string.h>

#include "workspace.h"

int heft_pcg_reserve(heft_pcg_work *w, int n) {
    const size_t un = (size_t)(n > 0 ? n : 1);
    return HEFT_RESERVE(w->r, w->r_cap, un) && HEFT_RESERVE(w->z, w->z_cap, un) &&
           HEFT_RESERVE(w->q, w->q_cap, un) && HEFT_RESERVE(w->Aq, w->Aq_cap, un);
}

void heft_pcg_release(heft_pcg_work *w) {
    heft_free(w->r);
    heft_free(w->z);
    heft_free(w->q);
    heft_free(w->Aq);
    memset(w, 0, sizeof *w);
}

static double dot(const double *x, const double *y, int n) {
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += x[i] * y[i];
    return s;
}

int heft_pcg_done(const heft_sparse_sym *A, const double *r, double rnorm, double bnorm,
                  heft_pcg_stop stop) {
    if (rnorm > stop.relative * bnorm)
        return 0;
    if (stop.energy > 0.0)
        for (int i = 0; i < A->n; ++i) {
            const double d = A->val[A->col_start[i]];
            if (d > 0.0 && r[i] * r[i] > 2.0 * stop.energy * d)
                return 0;
        }
    return 1;
}

heft_pcg_result heft_pcg_solve(const heft_sparse_sym *A, const heft_precond *P, const double *b,
                               double *x, heft_pcg_stop stop, heft_pcg_work *w) {
    heft_pcg_result res = {0, 0.0, 0};
    const int n = A->n;
    if (!heft_pcg_reserve(w, n)) {
        res.iterations = -1;
        return res;
    }
    double *r = w->r, *z = w->z, *q = w->q, *Aq = w->Aq;
    const double bnorm = sqrt(dot(b, b, n));
    if (bnorm == 0.0) {
        for (int i = 0; i < n; ++i)
            x[i] = 0.0;
        res.converged = 1;
        return res;
    }
    /* line 4: r = b - A x */
    heft_sparse_sym_multiply(A, x, r);
    for (int i = 0; i < n; ++i)
        r[i] = b[i] - r[i];
    double rnorm = sqrt(dot(r, r, n)), rz_old = 0.0;
    int done = heft_pcg_done(A, r, rnorm, bnorm, stop);
    for (int k = 0; k < stop.max_iterations && !done; ++k) {
        /* line 7 */
        if (P != NULL)
            heft_precond_apply(P, r, z);
        else
            memcpy(z, r, sizeof(double) * (size_t)n);
        const double rz = dot(r, z, n);
        if (k == 0) { /* lines 8-9 */
            memcpy(q, z, sizeof(double) * (size_t)n);
        } else { /* lines 11-12, eq. 4.5 */
            const double beta = rz / rz_old;
            for (int i = 0; i < n; ++i)
                q[i] = z[i] + beta * q[i];
        }
        rz_old = rz;
        heft_sparse_sym_multiply(A, q, Aq);
        const double qAq = dot(q, Aq, n);
        if (!(qAq != 0.0) || !isfinite(qAq) || !isfinite(rz))
            break;                     /* a breakdown: keep the iterate */
        const double alpha = rz / qAq; /* line 14, eq. 4.4 */
        for (int i = 0; i < n; ++i) {  /* lines 15-16 */
            x[i] += alpha * q[i];
            r[i] -= alpha * Aq[i];
        }
        rnorm = sqrt(dot(r, r, n));
        res.iterations = k + 1;
        done = heft_pcg_done(A, r, rnorm, bnorm, stop);
    }
    res.residual = rnorm;
    res.converged = done;
    return res;
}
