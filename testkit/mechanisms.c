#include "mechanisms.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dense_cholesky.h"
#include "planted.h"

static void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The rows of a random rotation (from a random unit quaternion). */
static void random_frame(planted_rng *rng, double R[3][3]) {
    double q[4], norm = 0.0;
    for (int k = 0; k < 4; ++k) {
        q[k] = planted_uniform(rng, -1.0, 1.0);
        norm += q[k] * q[k];
    }
    norm = sqrt(norm);
    const double w = q[0] / norm, x = q[1] / norm, y = q[2] / norm, z = q[3] / norm;
    R[0][0] = 1 - 2 * (y * y + z * z);
    R[0][1] = 2 * (x * y - z * w);
    R[0][2] = 2 * (x * z + y * w);
    R[1][0] = 2 * (x * y + z * w);
    R[1][1] = 1 - 2 * (x * x + z * z);
    R[1][2] = 2 * (y * z - x * w);
    R[2][0] = 2 * (x * z - y * w);
    R[2][1] = 2 * (y * z + x * w);
    R[2][2] = 1 - 2 * (x * x + y * y);
}

heft_mlcp *mech_build(int nbodies, const mech_joint *joints, int njoints, int ncontacts, double eps,
                      uint64_t seed) {
    int n = 3 * ncontacts;
    for (int j = 0; j < njoints; ++j)
        n += joints[j].d;
    heft_mlcp *p = heft_mlcp_create(n, nbodies, HEFT_MLCP_STRUCTURED | HEFT_MLCP_META);
    planted_rng rng = {seed};
    for (int b = 0; b < nbodies; ++b) {
        heft_mlcp_body *body = &p->bodies[b];
        body->inv_mass = 1.0 / planted_uniform(&rng, 0.5, 2.0);
        body->inv_inertia[0] = planted_uniform(&rng, 1.0, 2.0);
        body->inv_inertia[3] = planted_uniform(&rng, 1.0, 2.0);
        body->inv_inertia[5] = planted_uniform(&rng, 1.0, 2.0);
        body->inv_inertia[1] = planted_uniform(&rng, -0.2, 0.2);
        body->inv_inertia[2] = planted_uniform(&rng, -0.2, 0.2);
        body->inv_inertia[4] = planted_uniform(&rng, -0.2, 0.2);
    }
    int i = 0;
    for (int j = 0; j < njoints; ++j) {
        /* a physical joint: rows 0..2 hold the anchors together along the
         * axes of a random frame R, rows 3..5 lock rotation about them */
        double R[3][3], ra[3], rb[3];
        random_frame(&rng, R);
        for (int k = 0; k < 3; ++k) {
            ra[k] = planted_uniform(&rng, -0.5, 0.5);
            rb[k] = planted_uniform(&rng, -0.5, 0.5);
        }
        for (int q = 0; q < joints[j].d; ++q, ++i) {
            heft_mlcp_row *r = &p->rows[i];
            r->a = joints[j].a;
            r->b = joints[j].b;
            const double *axis = R[q % 3];
            double ca[3], cb[3];
            cross(ra, axis, ca);
            cross(rb, axis, cb);
            for (int k = 0; k < 3; ++k) {
                const int lin = q < 3;
                r->ja[k] = r->a >= 0 && lin ? -axis[k] : 0.0;
                r->ja[3 + k] = r->a >= 0 ? (lin ? -ca[k] : -axis[k]) : 0.0;
                r->jb[k] = r->b >= 0 && lin ? axis[k] : 0.0;
                r->jb[3 + k] = r->b >= 0 ? (lin ? cb[k] : axis[k]) : 0.0;
            }
            p->b[i] = planted_uniform(&rng, -1.0, 1.0);
            p->kind[i] = HEFT_ROW_BILATERAL;
            p->block[i] = j;
            p->epsilon[i] = eps;
        }
    }
    for (int c = 0; c < ncontacts; ++c) {
        const int body = planted_int(&rng, 0, nbodies);
        double R[3][3], rc[3];
        random_frame(&rng, R);
        for (int k = 0; k < 3; ++k)
            rc[k] = planted_uniform(&rng, -0.5, 0.5);
        for (int q = 0; q < 3; ++q, ++i) {
            heft_mlcp_row *r = &p->rows[i];
            r->a = body;
            r->b = -1;
            double t[3];
            cross(rc, R[q], t);
            for (int k = 0; k < 3; ++k) {
                r->ja[k] = R[q][k];
                r->ja[3 + k] = t[k];
            }
            memset(r->jb, 0, sizeof r->jb);
            p->block[i] = njoints + c;
            p->epsilon[i] = eps > 0.0 ? eps : 1e-9;
            if (q == 0) {
                p->b[i] = planted_uniform(&rng, 0.5, 1.5);
                p->lo[i] = 0.0;
                p->kind[i] = HEFT_ROW_NORMAL;
            } else {
                p->b[i] = planted_uniform(&rng, -1.0, 1.0);
                p->findex[i] = i - q;
                p->hi[i] = 0.5;
                p->lo[i] = -0.5;
                p->kind[i] = HEFT_ROW_FRICTION;
            }
        }
    }
    return p;
}

mech_joint *mech_random_tree(int nbodies, int dmin, int dmax, uint64_t seed, int *count) {
    planted_rng rng = {seed};
    mech_joint *j = malloc(sizeof *j * (size_t)nbodies);
    j[0] = (mech_joint){0, -1, planted_int(&rng, dmin, dmax + 1)};
    for (int b = 1; b < nbodies; ++b)
        j[b] = (mech_joint){planted_int(&rng, 0, b), b, planted_int(&rng, dmin, dmax + 1)};
    *count = nbodies;
    return j;
}

mech_joint *mech_clustered_tree(int nbodies, int dmin, int dmax, uint64_t seed, int *count) {
    planted_rng rng = {seed};
    mech_joint *j = malloc(sizeof *j * (size_t)nbodies);
    j[0] = (mech_joint){0, -1, planted_int(&rng, dmin, dmax + 1)};
    for (int b = 1; b < nbodies; ++b) {
        const double u = planted_uniform(&rng, 0.0, 1.0);
        int parent = (int)(b * u * u);
        j[b] = (mech_joint){parent < b ? parent : b - 1, b, planted_int(&rng, dmin, dmax + 1)};
    }
    *count = nbodies;
    return j;
}

mech_joint *mech_track(int links, int d, int *count) {
    mech_joint *j = malloc(sizeof *j * (size_t)links);
    for (int k = 0; k < links; ++k)
        j[k] = (mech_joint){k, (k + 1) % links, d};
    *count = links;
    return j;
}

mech_joint *mech_chain(int nbodies, int d, int loop_every, int *count) {
    mech_joint *j = malloc(sizeof *j * (size_t)(2 * nbodies + 1));
    int k = 0;
    j[k++] = (mech_joint){-1, 0, d};
    for (int b = 1; b < nbodies; ++b)
        j[k++] = (mech_joint){b - 1, b, d};
    if (loop_every > 0)
        for (int b = loop_every; b < nbodies; b += loop_every)
            j[k++] = (mech_joint){b - loop_every, b, d < 3 ? d : 3};
    *count = k;
    return j;
}

mech_joint *mech_hub(int spokes, int dmin, int dmax, uint64_t seed, int *count) {
    planted_rng rng = {seed};
    mech_joint *j = malloc(sizeof *j * (size_t)spokes);
    for (int s = 0; s < spokes; ++s)
        j[s] = (mech_joint){0, s + 1, planted_int(&rng, dmin, dmax + 1)};
    *count = spokes;
    return j;
}

void mech_dense_solve(const heft_mlcp *p, double *lambda) {
    const int n = p->n;
    double *A = malloc(sizeof(double) * (size_t)n * (size_t)n);
    heft_mlcp_assemble_dense(p, A);
    if (heft_dense_cholesky_factor(A, n) != 0)
        abort();
    memcpy(lambda, p->b, sizeof(double) * (size_t)n);
    heft_dense_cholesky_solve(A, n, lambda);
    free(A);
}

double mech_relative(const double *x, const double *y, int n) {
    double d = 0.0, s = 0.0;
    for (int i = 0; i < n; ++i) {
        d = fmax(d, fabs(x[i] - y[i]));
        s = fmax(s, fabs(y[i]));
        if (isnan(x[i]))
            return INFINITY;
    }
    return s > 0.0 ? d / s : d;
}
