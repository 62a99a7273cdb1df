/* Why: a light link under a heavy load has transverse modes of frequency about
 * sqrt(T / (m L)), far above 1/h at 60 Hz, because the direction of the
 * tension turns with the link within a step while the MLCP freezes it. The
 * derivative K = d(J^T f)/dq of the constraint forces with respect to the
 * pose carries that turning. Treating it implicitly, (M - h^2 K) v+ = M v +
 * h f + J^T lambda, stabilises the modes; Andrews et al. replace -K by the
 * positive diagonal K~ of K's column norms, so that M + h^2 K~ stays block
 * diagonal and every solver works unchanged. With impulses lambda = h f this
 * is M + h K_lambda, K_lambda the derivative of J^T lambda.
 *
 * K is taken by forward differences of the joint's own row filler, so every
 * joint type (and every future one) gets it without a hand-derived Hessian:
 * five row fills per dynamic end when the rows do not depend on positions
 * (ball, hinge, fixed), eight when they do (distance, rope). */
#include "geometric_stiffness.h"

#include "world.h"

#include <string.h>

/* the 6-vector J_e^T lambda: impulse and angular impulse on end e (0 = a, 1 = b) */
static void end_impulse(const joint *j, const body *bodies, const row_context *ctx, int end,
                        double out[6]) {
    row rows[HEFT_JOINT_MAX_ROWS];
    joint_row_tag tags[HEFT_JOINT_MAX_ROWS];
    int n = joint_fill_tagged_rows(j, bodies, ctx, rows, tags);
    /* rows pair with the held impulses by slot: limit rows come and go */
    const double *lambda = j->stiffness_impulses;
    memset(out, 0, sizeof(double) * 6);
    for (int i = 0; i < n; ++i) {
        const double *J = end ? rows[i].jb : rows[i].ja;
        for (int k = 0; k < 6; ++k) {
            out[k] += J[k] * lambda[tags[i].slot];
        }
    }
}

static void perturb(body *b, int dof, double delta) {
    if (dof < 3) {
        double *p = &b->position.x;
        p[dof] += delta;
    } else {
        heft_vec3 axis = heft_v3(dof == 3, dof == 4, dof == 5);
        b->orientation = heft_quat_mul(heft_quat_axis_angle(axis, delta), b->orientation);
    }
}

static int same6(const double a[6], const double b[6]) {
    for (int c = 0; c < 6; ++c) {
        if (a[c] != b[c]) {
            return 0;
        }
    }
    return 1;
}

/* A slack (or new) joint has no tension and adds no stiffness. */
static int tense(const joint *j) {
    int any = 0;
    for (int i = 0; i < JOINT_SLOT_COUNT; ++i) {
        any |= j->stiffness_impulses[i] != 0.0;
    }
    return any && !j->geometric_stiffness_off;
}

void geometric_stiffness_accumulate(const joint *j, body *bodies, const row_context *ctx,
                                    double *k) {
    if (!tense(j)) {
        return;
    }
    /* forward differences: the stiffness only has to be right to a few
     * digits, and one base evaluation serves the six directions */
    const double delta = 1e-6;
    int32_t ends[2] = {j->body_a, j->body_b};
    for (int e = 0; e < 2; ++e) {
        if (ends[e] < 0 || !body_is_dynamic(&bodies[ends[e]])) {
            continue;
        }
        body *b = &bodies[ends[e]];
        const body saved = *b;
        double base[6], moved[6];
        end_impulse(j, bodies, ctx, e, base);
        /* rows of most joints depend on orientations only (anchors relative to
         * the bodies): one probe along all three axes tells */
        b->position = heft_v3_add(b->position, heft_v3(delta, delta, delta));
        end_impulse(j, bodies, ctx, e, moved);
        *b = saved;
        int first = same6(base, moved) ? 3 : 0;
        for (int dof = first; dof < 6; ++dof) {
            perturb(b, dof, delta);
            end_impulse(j, bodies, ctx, e, moved);
            *b = saved;
            double norm2 = 0.0;
            for (int c = 0; c < 6; ++c) {
                double d = (moved[c] - base[c]) / delta;
                norm2 += d * d;
            }
            k[6 * ends[e] + dof] += sqrt(norm2);
        }
    }
}

int geometric_stiffness_of_joint(joint *j, const body *bodies, const row_context *ctx,
                                 double out[12]) {
    memset(out, 0, sizeof(double) * 12);
    if (j->type == HEFT_JOINT_GEAR || j->type == HEFT_JOINT_RACK) {
        return -1; /* their rows read the coupled joints' bodies too */
    }
    if (!tense(j)) {
        return 0;
    }
    /* the two bodies copied, the joint's ends renumbered 0 and 1 for the
     * while: the perturbations touch nothing another task reads, and no
     * other task reads this joint (a 5 kB copy of it cost more than its
     * differencing) */
    body local[2];
    memset(local, 0, sizeof local);
    const int32_t a = j->body_a, b = j->body_b;
    if (a >= 0) {
        local[0] = bodies[a];
        j->body_a = 0;
    }
    local[1] = bodies[b];
    j->body_b = 1;
    geometric_stiffness_accumulate(j, local, ctx, out);
    j->body_a = a;
    j->body_b = b;
    return 0;
}

int geometric_stiffness_skipped(const heft_world *w) {
    /* an iterative solver's impulses feed no stiffness (step.c,
     * hold_stiffness_impulses): its derivative is noise that the masses
     * amplify, so the option cannot act and is reported instead */
    if (!w->def.geometric_stiffness || w->solver->direct) {
        return 0;
    }
    int n = 0;
    for (int i = 0; i < w->joint_high; ++i) {
        const joint *j = &w->joints[i];
        n += j->slot.alive && !j->broken && !j->geometric_stiffness_off;
    }
    return n;
}
