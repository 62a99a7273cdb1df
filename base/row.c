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
