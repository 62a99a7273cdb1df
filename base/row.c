#include "row.h"

void row_softness(const row_context *ctx, double k, double c, double *epsilon, double *gamma) {
    if (k == 0.0 && c == 0.0) {
        *epsilon = ctx->rigid_compliance;
        *gamma = ctx->joint_baumgarte;
        return;
    }
    double h = ctx->h;
    *epsilon = 1.0 / (h * c + h * h * k);
    *gamma = h * k / (c + h * k);
}

void row_put6(double *dst, heft_vec3 lin, heft_vec3 ang) {
    dst[0] = lin.x;
    dst[1] = lin.y;
    dst[2] = lin.z;
    dst[3] = ang.x;
    dst[4] = ang.y;
    dst[5] = ang.z;
}

void row_set_linear(row *r, heft_vec3 e, heft_vec3 ra, heft_vec3 rb) {
    /* d/dt e.(xb - xa) = e.vb + (rb x e).wb - e.va - (ra x e).wa */
    row_put6(r->ja, heft_v3_neg(e), heft_v3_neg(heft_v3_cross(ra, e)));
    row_put6(r->jb, e, heft_v3_cross(rb, e));
}

void row_set_angular(row *r, heft_vec3 u) {
    heft_vec3 zero = heft_v3(0.0, 0.0, 0.0);
    row_put6(r->ja, zero, heft_v3_neg(u));
    row_put6(r->jb, zero, u);
}
