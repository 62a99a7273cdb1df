/* The per-step row buffer: every joint, limit, motor and contact writes its
 * constraint rows here (design "The step", 3). Private to the library. */
#ifndef HEFT_ROW_H
#define HEFT_ROW_H

#include <stdint.h>

#include "heft_math.h"

typedef struct row {
    int32_t a, b;        /* world body indices; -1 for none (the world frame) */
    double ja[6], jb[6]; /* Jacobian blocks, linear then angular */
    double phi;          /* constraint error (m or rad); signed distance for contacts */
    double epsilon;      /* compliance */
    double gamma;        /* Baumgarte factor */
    double target;       /* desired constraint velocity (motors, restitution); 0 otherwise */
    double lo, hi;       /* bounds; for friction rows hi holds mu */
    int32_t findex;      /* friction rows: the buffer index of their normal row; else -1 */
    uint8_t kind;        /* heft_row_kind */
    int32_t block;       /* rows of one joint or contact point share a block */
    double lambda0;      /* warm start */
    double *lambda_out;  /* where the answer goes back (the joint's or contact's memory) */
} row;

/* What a joint needs to fill its rows. */
typedef struct row_context {
    double h;
    double rigid_compliance;
    double joint_baumgarte;
} row_context;

/* Compliance and Baumgarte factor from stiffness k and damping c
 * ([Ho 2022] eq. 2.23); both zero means rigid. */
void row_softness(const row_context *ctx, double stiffness, double damping, double *epsilon,
                  double *gamma);

/* Writes a linear and an angular 3-vector as one 6-vector (a Jacobian block
 * or a body's velocity). Inline, as row_set_linear and row_set_angular:
 * out of line, the contact fill spent a quarter of its time in their calls. */
static inline void row_put6(double *dst, heft_vec3 lin, heft_vec3 ang) {
    dst[0] = lin.x;
    dst[1] = lin.y;
    dst[2] = lin.z;
    dst[3] = ang.x;
    dst[4] = ang.y;
    dst[5] = ang.z;
}

/* A row keeping a world point of body a and one of body b together along the
 * unit direction e (the linear rows of ball, hinge and fixed joints, and
 * contacts): J v = e . (v_b + w_b x rb - v_a - w_a x ra), with ra, rb the
 * points relative to the centres of mass. */
static inline void row_set_linear(row *r, heft_vec3 e, heft_vec3 ra, heft_vec3 rb) {
    /* d/dt e.(xb - xa) = e.vb + (rb x e).wb - e.va - (ra x e).wa */
    row_put6(r->ja, heft_v3_neg(e), heft_v3_neg(heft_v3_cross(ra, e)));
    row_put6(r->jb, e, heft_v3_cross(rb, e));
}
/* A row on the relative angular velocity about the unit axis u: J v = u . (w_b - w_a). */
static inline void row_set_angular(row *r, heft_vec3 u) {
    const heft_vec3 zero = heft_v3(0.0, 0.0, 0.0);
    row_put6(r->ja, zero, heft_v3_neg(u));
    row_put6(r->jb, zero, u);
}

#endif
