/* A joint's rows: its frames from the bodies' poses, dispatch to the joint
 * types' row fillers, reactions from the rows' impulses, and the writing of
 * the rows into the step's buffer with warm starts kept by slot. Knows the
 * joint and its bodies, not the world. */
#include <string.h>

#include "joint.h"

void joint_remember_coordinates(joint *j, const body *bodies) {
    if (j->type == HEFT_JOINT_GEAR || j->type == HEFT_JOINT_RACK) {
        coupling_coordinates(j, bodies, j->coupled_last);
        return;
    }
    /* the angles that are free to turn (locked ones cannot wrap) */
    int last = j->type == HEFT_JOINT_SIX_DOF ? HEFT_DOF_RZ : HEFT_DOF_RX;
    if (j->type == HEFT_JOINT_HINGE || j->type == HEFT_JOINT_CYLINDRICAL ||
        j->type == HEFT_JOINT_BALL || j->type == HEFT_JOINT_SIX_DOF) {
        joint_ends e = joint_get_ends(j);
        for (int dof = HEFT_DOF_RX; dof <= last; ++dof) {
            joint_coordinate c;
            joint_coordinate_measure(bodies, &e, dof, &c);
            j->coordinate_last[dof] = joint_coordinate_value(j, &c, dof);
        }
    }
}

void joint_frame_compute(const joint *j, const body *bodies, joint_frame *f) {
    f->a = joint_end_body(bodies, j->body_a);
    f->b = &bodies[j->body_b];
    f->ra = heft_quat_rotate(f->a->orientation, j->local_anchor_a);
    f->rb = heft_quat_rotate(f->b->orientation, j->local_anchor_b);
    f->anchor_a = heft_v3_add(f->a->position, f->ra);
    f->anchor_b = heft_v3_add(f->b->position, f->rb);
    f->qa = heft_quat_mul(f->a->orientation, j->frame_a);
    f->qb = heft_quat_mul(f->b->orientation, j->frame_b);
}

int joint_row_count(const joint *j) {
    if (j->broken) {
        return 0;
    }
    switch (j->type) {
    case HEFT_JOINT_BALL:
        return ball_joint_row_count(j);
    case HEFT_JOINT_HINGE:
        return hinge_joint_row_count(j);
    case HEFT_JOINT_FIXED:
        return fixed_joint_row_count(j);
    case HEFT_JOINT_PRISMATIC:
        return prismatic_joint_row_count(j);
    case HEFT_JOINT_CYLINDRICAL:
        return cylindrical_joint_row_count(j);
    case HEFT_JOINT_UNIVERSAL:
        return universal_joint_row_count(j);
    case HEFT_JOINT_DISTANCE:
        return distance_joint_row_count(j);
    case HEFT_JOINT_ROPE:
        return rope_joint_row_count(j);
    case HEFT_JOINT_SIX_DOF:
        return six_dof_joint_row_count(j);
    case HEFT_JOINT_GEAR:
    case HEFT_JOINT_RACK:
        return coupling_row_count(j);
    }
    return 0;
}

int joint_fill_tagged_rows(const joint *j, const body *bodies, const row_context *ctx, row *out,
                           joint_row_tag *tags) {
    joint_rows rows = {out, tags, 0};
    if (j->broken) {
        return 0;
    }
    if (j->type == HEFT_JOINT_GEAR || j->type == HEFT_JOINT_RACK) {
        coupling_fill_rows(j, bodies, ctx, &rows);
        return rows.count;
    }
    joint_frame f;
    joint_frame_compute(j, bodies, &f);
    switch (j->type) {
    case HEFT_JOINT_BALL:
        ball_joint_fill_rows(j, &f, bodies, ctx, &rows);
        break;
    case HEFT_JOINT_HINGE:
        hinge_joint_fill_rows(j, &f, bodies, ctx, &rows);
        break;
    case HEFT_JOINT_FIXED:
        fixed_joint_fill_rows(j, &f, bodies, ctx, &rows);
        break;
    case HEFT_JOINT_PRISMATIC:
        prismatic_joint_fill_rows(j, &f, bodies, ctx, &rows);
        break;
    case HEFT_JOINT_CYLINDRICAL:
        cylindrical_joint_fill_rows(j, &f, bodies, ctx, &rows);
        break;
    case HEFT_JOINT_UNIVERSAL:
        universal_joint_fill_rows(j, &f, bodies, ctx, &rows);
        break;
    case HEFT_JOINT_DISTANCE:
        distance_joint_fill_rows(j, &f, bodies, ctx, &rows);
        break;
    case HEFT_JOINT_ROPE:
        rope_joint_fill_rows(j, &f, bodies, ctx, &rows);
        break;
    case HEFT_JOINT_SIX_DOF:
        six_dof_joint_fill_rows(j, &f, bodies, ctx, &rows);
        break;
    default:
        break;
    }
    return rows.count;
}

int joint_fill_rows(const joint *j, const body *bodies, const row_context *ctx, row *out) {
    return joint_fill_tagged_rows(j, bodies, ctx, out, NULL);
}

/* J_b^T lambda / h over the last step's rows: the force on body b and the
 * torque about its anchor */
void joint_reaction_of_rows(const joint *j, const body *bodies, int first, int count,
                            heft_vec3 *force, heft_vec3 *torque) {
    heft_vec3 f = heft_v3(0.0, 0.0, 0.0), t = heft_v3(0.0, 0.0, 0.0);
    for (int i = first; i < first + count && i < j->row_count; ++i) {
        const double *jb = j->rows_last[i].jb;
        f = heft_v3_madd(f, j->lambda[i], heft_v3(jb[0], jb[1], jb[2]));
        t = heft_v3_madd(t, j->lambda[i], heft_v3(jb[3], jb[4], jb[5]));
    }
    double inv_h = j->h_last > 0.0 ? 1.0 / j->h_last : 0.0;
    f = heft_v3_scale(f, inv_h);
    t = heft_v3_scale(t, inv_h);
    const body *b = &bodies[j->body_b];
    heft_vec3 rb = heft_quat_rotate(b->orientation, j->local_anchor_b);
    *force = f;
    *torque = heft_v3_sub(t, heft_v3_cross(rb, f)); /* about the anchor, not the centre of mass */
}

void joint_last_impulses_by_slot(const joint *j, double by_slot[JOINT_SLOT_COUNT]) {
    memset(by_slot, 0, sizeof(double) * JOINT_SLOT_COUNT);
    for (int k = 0; k < j->row_count; ++k) {
        by_slot[j->tags_last[k].slot] = j->lambda[k];
    }
}

int joint_write_rows(joint *j, const body *bodies, const row_context *ctx, int first, int block,
                     row *out) {
    if (!j->broken && j->row_count > 0 && (isfinite(j->break_force) || isfinite(j->break_torque))) {
        heft_vec3 f, t;
        joint_reaction_of_rows(j, bodies, 0, j->row_count, &f, &t);
        if (heft_v3_length(f) > j->break_force || heft_v3_length(t) > j->break_torque) {
            j->broken = 1;
            j->broken_force = f;
            j->broken_torque = t;
        }
    }
    /* warm starts by slot: a row that was there last step starts from its impulse */
    double by_slot[JOINT_SLOT_COUNT];
    joint_last_impulses_by_slot(j, by_slot);
    joint_row_tag tags[HEFT_JOINT_MAX_ROWS];
    int m = joint_fill_tagged_rows(j, bodies, ctx, out, tags);
    for (int k = 0; k < m; ++k) {
        row *x = &out[k];
        x->a = j->body_a;
        x->b = j->body_b;
        x->block = block;
        x->findex = x->kind == HEFT_ROW_FRICTION ? x->findex + first : -1;
        x->lambda0 = by_slot[tags[k].slot];
        j->lambda[k] = x->lambda0;
        x->lambda_out = &j->lambda[k];
    }
    for (int k = m; k < HEFT_JOINT_MAX_ROWS; ++k) {
        j->lambda[k] = 0.0;
    }
    j->row_count = m;
    memcpy(j->rows_last, out, sizeof(row) * (size_t)m);
    memcpy(j->tags_last, tags, sizeof(joint_row_tag) * (size_t)m);
    j->h_last = ctx->h;
    joint_remember_coordinates(j, bodies);
    return m;
}
