/* A joint as the engine stores it. Each joint type's only job is to fill its
 * rows (style.md, ODE's pattern): one file per type. Private to the library. */
#ifndef HEFT_JOINT_H
#define HEFT_JOINT_H

#include "body.h"
#include "row.h"

#define HEFT_JOINT_MAX_ROWS 12

typedef struct joint {
    slot_header slot; /* first: generation, alive, free list */
    heft_joint_type type;
    int32_t body_a, body_b;      /* world body indices; body_a -1 for the world frame */
    heft_vec3 local_anchor_a, local_anchor_b;
    heft_vec3 local_axis_a, local_axis_b;
    heft_quat relative_rotation; /* fixed joint: q_a^-1 q_b at creation */
    double stiffness, damping;
    char name[HEFT_NAME_MAX];
    void *user_data;
    /* results of the last step, and warm starts for the next */
    int row_count;
    double lambda[HEFT_JOINT_MAX_ROWS];
    row rows_last[HEFT_JOINT_MAX_ROWS]; /* Jacobians of the last step, for the reaction readback */
    double h_last;
    int geometric_stiffness_off; /* 1: this joint adds no geometric stiffness */
} joint;

/* The two bodies of a joint as the row fillers see them; a missing body (the
 * world frame) is a static body at the origin. */
typedef struct joint_frame {
    const body *a, *b;
    heft_vec3 anchor_a, anchor_b; /* world frame */
    heft_vec3 ra, rb;             /* anchors relative to the centres of mass */
} joint_frame;

void joint_frame_compute(const joint *j, const body *bodies, joint_frame *f);

/* Number of rows the joint writes this step. */
int joint_row_count(const joint *j);
/* Writes joint_row_count(j) rows into out; the caller sets a, b, block,
 * lambda0 and lambda_out. */
void joint_fill_rows(const joint *j, const body *bodies, const row_context *ctx, row *out);

/* Writes the joint's rows at out (buffer index first, block number block),
 * with their warm starts and the places their answers go back to; keeps the
 * rows for the reaction readback. Returns the number of rows. */
int joint_write_rows(joint *j, const body *bodies, const row_context *ctx, int first, int block,
                     row *out);

/* one per joint type */
int ball_joint_row_count(const joint *j);
void ball_joint_fill_rows(const joint *j, const joint_frame *f, const row_context *ctx, row *out);
/* The three point-coincidence rows, shared by the ball, hinge and fixed joints. */
void ball_joint_fill_point_rows(const joint *j, const joint_frame *f, const row_context *ctx,
                                row *out);
int hinge_joint_row_count(const joint *j);
void hinge_joint_fill_rows(const joint *j, const joint_frame *f, const row_context *ctx, row *out);
int fixed_joint_row_count(const joint *j);
void fixed_joint_fill_rows(const joint *j, const joint_frame *f, const row_context *ctx, row *out);

#endif
