/* Rows on one joint coordinate: a lock (six-DOF), the two one-sided limit rows
 * and the boxed motor row (docs/architecture.md "The MLCP of an island": motors are boxed
 * rows J v = target, |lambda| <= h F_max; limits are one-sided rows). Every
 * joint type with limits or motors builds them here from its coordinate. */
#include <string.h>

#include "joint.h"

row *joint_rows_add(joint_rows *out, int slot, heft_joint_row_role role, int dof, int sign) {
    row *r = &out->rows[out->count];
    memset(r, 0, sizeof *r);
    r->kind = HEFT_ROW_BILATERAL;
    r->findex = -1;
    if (out->tags) {
        joint_row_tag *t = &out->tags[out->count];
        t->slot = (uint8_t)slot;
        t->role = (uint8_t)role;
        t->dof = (int8_t)dof;
        t->sign = (int8_t)sign;
    }
    out->count++;
    return r;
}

void joint_row_softness(const joint *j, int dof, const row_context *ctx, double *epsilon,
                        double *gamma) {
    if (dof >= 0 && dof < 6 && (j->dof_stiffness[dof] != 0.0 || j->dof_damping[dof] != 0.0)) {
        row_softness(ctx, j->dof_stiffness[dof], j->dof_damping[dof], epsilon, gamma);
    } else {
        row_softness(ctx, j->stiffness, j->damping, epsilon, gamma);
    }
}

static void set_jacobian(row *r, const joint_coordinate *c, double sign) {
    for (int k = 0; k < 6; ++k) {
        r->ja[k] = sign * c->ja[k];
        r->jb[k] = sign * c->jb[k];
    }
}

void coordinate_lock_row(joint_rows *out, int slot, int dof, const joint_coordinate *c, double phi,
                         double epsilon, double gamma) {
    row *r = joint_rows_add(out, slot, HEFT_JOINT_ROW_CONSTRAINT, dof, 1);
    set_jacobian(r, c, 1.0);
    r->phi = phi;
    r->epsilon = epsilon;
    r->gamma = gamma;
    r->lo = -INFINITY;
    r->hi = INFINITY;
}

static int is_angle(int dof) {
    return dof >= HEFT_DOF_RX;
}

static void limit_row(joint_rows *out, int slot, heft_joint_row_role role, int dof,
                      const joint_coordinate *c, double phi, double sign,
                      const heft_joint_limit *lim, const row_context *ctx) {
    int rigid = lim->stiffness == 0.0 && lim->damping == 0.0;
    /* approach speed toward the bound: the row must be there before the
     * coordinate could cross it within a step */
    double closing = -sign * c->rate;
    double margin = (is_angle(dof) ? JOINT_ANGULAR_MARGIN : JOINT_LINEAR_MARGIN) +
                    2.0 * ctx->h * (closing > 0.0 ? closing : 0.0);
    /* a soft limit is a spring from the bound on: no row before it */
    if (rigid ? phi > margin : phi > 0.0) {
        return;
    }
    row *r = joint_rows_add(out, slot, role, dof, (int)sign);
    set_jacobian(r, c, sign);
    r->phi = phi;
    r->kind = HEFT_ROW_LIMIT;
    r->lo = 0.0;
    r->hi = INFINITY;
    if (phi > 0.0) {
        /* speculative, as contacts still apart: may reach the bound within
         * this step, no further */
        r->epsilon = ctx->rigid_compliance;
        r->gamma = 1.0;
    } else {
        row_softness(ctx, lim->stiffness, lim->damping, &r->epsilon, &r->gamma);
    }
}

void coordinate_limit_rows(joint_rows *out, int dof, const joint_coordinate *c, double value,
                           const heft_joint_limit *lim, const row_context *ctx) {
    if (isfinite(lim->lower)) {
        limit_row(out, JOINT_SLOT_LIMIT_LOWER(dof), HEFT_JOINT_ROW_LIMIT_LOWER, dof, c,
                  value - lim->lower, 1.0, lim, ctx);
    }
    if (isfinite(lim->upper)) {
        limit_row(out, JOINT_SLOT_LIMIT_UPPER(dof), HEFT_JOINT_ROW_LIMIT_UPPER, dof, c,
                  lim->upper - value, -1.0, lim, ctx);
    }
}

void coordinate_motor_row(joint_rows *out, int dof, const joint_coordinate *c, double value,
                          const heft_joint_motor *m, const row_context *ctx) {
    if (m->mode == HEFT_MOTOR_OFF || m->max_force == 0.0) {
        return;
    }
    row *r = joint_rows_add(out, JOINT_SLOT_MOTOR(dof), HEFT_JOINT_ROW_MOTOR, dof, 1);
    set_jacobian(r, c, 1.0);
    r->kind = HEFT_ROW_MOTOR;
    r->target = m->target_velocity;
    if (m->mode == HEFT_MOTOR_VELOCITY) {
        /* phi is the coordinate, for reference only: gamma = 0 */
        r->phi = value;
        r->epsilon = m->damping > 0.0 ? 1.0 / (ctx->h * m->damping) : ctx->rigid_compliance;
        r->gamma = 0.0;
    } else {
        /* a servo: the implicit spring-damper of [Ho 2022] eq. 2.23 on the error */
        r->phi = value - m->target_position;
        row_softness(ctx, m->stiffness, m->damping, &r->epsilon, &r->gamma);
    }
    double bound = ctx->h * m->max_force; /* an impulse: h F_max */
    r->lo = -bound;
    r->hi = bound;
}
