/* Couplings (gear, rack): one row tying a coordinate of one joint to a
 * coordinate of another, c_b - c_b0 = ratio (c_a - c_a0), the way the papers'
 * power trains are built from constraints.
 *
 * The coordinates' rates involve up to four bodies (each joint's two ends),
 * the row only two: the body b of each coupled joint (the gears). The other
 * ends (the carriers, usually the chassis or the world) enter the row through
 * its target with their unconstrained velocities of the step (v + h M^-1 f):
 * exact when the carriers are static or kinematic, and a one-step-explicit
 * coupling that gives the carriers no reaction torque when they are dynamic
 * (the row buffer holds two bodies per row).
 *
 * A rigid coupling is a velocity constraint (gamma = 0: [Baraff 1996] §2 on gears as
 * velocity-based constraints): the phase error the position integration makes
 * is not fed back into the speeds, so the ratio holds exactly in velocity.
 * With stiffness and damping the coupling is a torsional spring on the phase
 * (N m/rad for gears, N/m for racks). */
#include "joint.h"

static int is_angle(int dof) {
    return dof >= HEFT_DOF_RX;
}

int coupling_row_count(const joint *j) {
    (void)j;
    return 1;
}

void coupling_coordinates(const joint *j, const body *bodies, double value[2]) {
    for (int k = 0; k < 2; ++k) {
        joint_coordinate c;
        joint_coordinate_measure(bodies, &j->coupled_ends[k], j->coupled_dof[k], &c);
        value[k] =
            is_angle(j->coupled_dof[k]) ? joint_unwrap_angle(c.value, j->coupled_last[k]) : c.value;
    }
}

double coupling_error(const joint *j, const body *bodies) {
    double value[2];
    coupling_coordinates(j, bodies, value);
    return (value[1] - j->coupled_origin[1]) - j->ratio * (value[0] - j->coupled_origin[0]);
}

void coupling_fill_rows(const joint *j, const body *bodies, const row_context *ctx,
                        joint_rows *out) {
    const double coefficient[2] = {-j->ratio, 1.0};
    row *r = joint_rows_add(out, 0, HEFT_JOINT_ROW_CONSTRAINT, -1, 1);
    double value[2];
    for (int k = 0; k < 2; ++k) {
        const joint_ends *e = &j->coupled_ends[k];
        joint_coordinate c;
        joint_coordinate_measure(bodies, e, j->coupled_dof[k], &c);
        value[k] =
            is_angle(j->coupled_dof[k]) ? joint_unwrap_angle(c.value, j->coupled_last[k]) : c.value;
        const int32_t ends[2] = {e->body_a, e->body_b};
        const double *jac[2] = {c.ja, c.jb};
        for (int s = 0; s < 2; ++s) {
            double *dst = ends[s] == j->body_a ? r->ja : (ends[s] == j->body_b ? r->jb : NULL);
            if (dst) {
                for (int i = 0; i < 6; ++i) {
                    dst[i] += coefficient[k] * jac[s][i];
                }
            } else {
                double v[6];
                joint_end_velocity(bodies, ends[s], v);
                for (int i = 0; i < 6; ++i) {
                    r->target -= coefficient[k] * jac[s][i] * v[i];
                }
            }
        }
    }
    r->phi = (value[1] - j->coupled_origin[1]) - j->ratio * (value[0] - j->coupled_origin[0]);
    if (j->stiffness == 0.0 && j->damping == 0.0) {
        r->epsilon = ctx->rigid_compliance;
        r->gamma = 0.0;
    } else {
        row_softness(ctx, j->stiffness, j->damping, &r->epsilon, &r->gamma);
    }
    r->lo = -INFINITY;
    r->hi = INFINITY;
}
