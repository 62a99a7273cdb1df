/* A joint as the engine stores it. Each joint type's only job is to fill its
 * rows (style.md, ODE's pattern): one file per type. Private to the library.
 * docs/joints.md gives every type's rows, phi and Jacobian. */
#ifndef HEFT_JOINT_H
#define HEFT_JOINT_H

#include "body.h"
#include "row.h"

/* Most rows one joint writes in a step (a six-DOF joint with every
 * coordinate limited on both sides and motorised). */
#define HEFT_JOINT_MAX_ROWS 18

/* Every row a joint can write has a fixed slot, so that its impulse warm-starts
 * the same row next step even when limit rows come and go in between:
 * constraint rows 0..5, the limit rows of coordinate d at 6 + 2d (lower) and
 * 7 + 2d (upper), the motor of coordinate d at 20 + d. */
#define JOINT_SLOT_LIMIT_LOWER(d) (6 + 2 * (d))
#define JOINT_SLOT_LIMIT_UPPER(d) (7 + 2 * (d))
#define JOINT_SLOT_MOTOR(d) (20 + (d))
#define JOINT_SLOT_COUNT 26

/* Limit rows are added when the coordinate is within this of its bound (plus
 * twice the distance it would travel in a step at its current rate): near
 * enough that a row is rarely idle, far enough that a fast joint cannot jump
 * over the bound in one step. */
#define JOINT_LINEAR_MARGIN 0.01  /* m */
#define JOINT_ANGULAR_MARGIN 0.02 /* rad */

/* What a coordinate is measured on: two bodies (body_a -1: the world frame),
 * an anchor and a joint frame (x the joint axis) in each. Gears and racks keep
 * copies of the ends of the joints they couple. */
typedef struct joint_ends {
    int32_t body_a, body_b;
    heft_vec3 local_anchor_a, local_anchor_b;
    heft_quat frame_a, frame_b; /* joint frame in body frame */
} joint_ends;

/* The role of each row a joint wrote (public heft_joint_row_role, the
 * coordinate, and the sign of the row's Jacobian along the coordinate). */
typedef struct joint_row_tag {
    uint8_t slot;
    uint8_t role; /* heft_joint_row_role */
    int8_t dof;   /* heft_joint_dof, -1 when the row is not one coordinate */
    int8_t sign;  /* +1: J = d(coordinate)/dt; -1: J = -d(coordinate)/dt */
} joint_row_tag;

typedef struct joint {
    slot_header slot; /* first: generation, alive, free list */
    heft_joint_type type;
    int32_t body_a, body_b; /* world body indices; body_a -1 for the world frame.
                               gear, rack: the body b of each coupled joint */
    heft_vec3 local_anchor_a, local_anchor_b;
    heft_vec3 local_axis_a, local_axis_b; /* unit */
    heft_quat frame_a, frame_b;           /* joint frames in the body frames (x: the axis) */
    heft_quat relative_rotation;          /* fixed joint: q_a^-1 q_b at creation */
    double stiffness, damping;
    double dof_stiffness[6], dof_damping[6];
    heft_joint_limit limit[HEFT_JOINT_DOF_COUNT];
    heft_joint_motor motor[6];
    heft_dof_mode dof_mode[6];
    double length; /* distance, rope */
    /* gear and rack: the coupled joints, their ends and coordinates */
    heft_joint_id coupled[2];
    joint_ends coupled_ends[2];
    int coupled_dof[2];
    double coupled_origin[2]; /* their coordinates at creation */
    double coupled_last[2];   /* their coordinates at the last step (angles unwrapped) */
    double ratio;
    double coordinate_last[HEFT_JOINT_DOF_COUNT]; /* the joint's coordinates at the last step */
    int collide_connected;
    /* the bodies' joint lists (engine/body_links.c): the neighbouring edges
     * (2 * joint + end) at end a and end b, -1 for none */
    int32_t edge_next[2], edge_prev[2];
    double break_force, break_torque;
    int broken;
    heft_vec3 broken_force, broken_torque; /* the reaction it broke under */
    char name[HEFT_NAME_MAX];
    void *user_data;
    /* results of the last step, and warm starts for the next */
    int row_count;
    double lambda[HEFT_JOINT_MAX_ROWS]; /* impulses of the last step's rows, in row order */
    row rows_last[HEFT_JOINT_MAX_ROWS]; /* the rows themselves, for the reaction readback */
    joint_row_tag tags_last[HEFT_JOINT_MAX_ROWS];
    double h_last;
    int geometric_stiffness_off; /* 1: this joint adds no geometric stiffness */
    /* by slot: the impulses of the last step a direct solver converged on,
     * which the geometric stiffness is built from (engine/step.c) */
    double stiffness_impulses[JOINT_SLOT_COUNT];
} joint;

/* The two bodies of a joint as the row fillers see them; a missing body (the
 * world frame) is a static body at the origin. */
typedef struct joint_frame {
    const body *a, *b;
    heft_vec3 anchor_a, anchor_b; /* world frame */
    heft_vec3 ra, rb;             /* anchors relative to the centres of mass */
    heft_quat qa, qb;             /* joint frames in world frame */
} joint_frame;

/* The body at index i, or the static world frame for i < 0. */
const body *joint_end_body(const body *bodies, int32_t i);
void joint_frame_compute(const joint *j, const body *bodies, joint_frame *f);
joint_ends joint_get_ends(const joint *j);

/* Where a joint's row filler writes: rows (and tags) for at most
 * joint_row_count() rows. */
typedef struct joint_rows {
    row *rows;
    joint_row_tag *tags; /* may be NULL */
    int count;
} joint_rows;

/* Appends a zeroed row (kind bilateral, bounds to fill) and records its tag. */
row *joint_rows_add(joint_rows *out, int slot, heft_joint_row_role role, int dof, int sign);

/* At most this many rows the joint writes this step (limit rows are only
 * written near their bounds): the size of the buffer joint_fill_rows needs. */
/* Records the joint coordinates (whole turns included) at the bodies' poses. */
void joint_remember_coordinates(joint *j, const body *bodies);
int joint_row_count(const joint *j);
/* Fills the joint's rows for the bodies' current poses and returns how many
 * (<= joint_row_count(j)). The caller sets a, b, block, lambda0, lambda_out.
 * The rows come in a fixed order for a given set of active rows. */
int joint_fill_rows(const joint *j, const body *bodies, const row_context *ctx, row *out);
/* The same, with each row's tag. */
int joint_fill_tagged_rows(const joint *j, const body *bodies, const row_context *ctx, row *out,
                           joint_row_tag *tags);

/* Writes the joint's rows at out (buffer index first, block number block),
 * with their warm starts (by slot) and the places their answers go back to;
 * keeps the rows for the reaction readback and checks the break thresholds
 * against the last step's reaction. Returns the number of rows. */
int joint_write_rows(joint *j, const body *bodies, const row_context *ctx, int first, int block,
                     row *out);

/* The last step's impulses by slot (zero for slots that had no row): what
 * pairs a row filled now with its impulse of the last step. */
void joint_last_impulses_by_slot(const joint *j, double by_slot[JOINT_SLOT_COUNT]);

/* The force on body b and torque about its anchor (lambda / h, world frame)
 * of the last step's rows first .. first + count - 1. */
void joint_reaction_of_rows(const joint *j, const body *bodies, int first, int count,
                            heft_vec3 *force, heft_vec3 *torque);

/* 1 when a live, unbroken joint with collide_connected == 0 joins the two
 * bodies (world body indices; -1 is the world frame): the collision code
 * skips such pairs. Gears and racks join their two gear bodies. */
int joint_bodies_connected(const heft_world *w, int32_t body_a, int32_t body_b);

/* ---- coordinates (joint_coordinate.c) ---------------------------------- */

/* A coordinate of a joint and its exact time derivative:
 * d value/dt = ja . v_a + jb . v_b (v = linear then angular velocity). */
typedef struct joint_coordinate {
    double value; /* m, or rad in [-pi, pi] */
    double ja[6], jb[6];
    double rate; /* the derivative at the bodies' free velocities (this step's
                    prediction), for the limit margins */
} joint_coordinate;

/* Coordinate dof (HEFT_DOF_X .. HEFT_DOF_RZ) of the ends at the current poses. */
void joint_coordinate_measure(const body *bodies, const joint_ends *e, int dof,
                              joint_coordinate *c);
/* The angle raw + 2 pi n closest to last: angles count whole turns. */
double joint_unwrap_angle(double raw, double last);
/* The coordinate, unwrapped against the joint's last one when it is an angle. */
double joint_coordinate_value(const joint *j, const joint_coordinate *c, int dof);
/* The rotation taking the unit x, y, z axes to the given orthonormal ones. */
heft_quat joint_quat_from_axes(heft_vec3 x, heft_vec3 y, heft_vec3 z);
/* The velocity of an end (six numbers, free velocity for bodies, zero for the world). */
void joint_end_velocity(const body *bodies, int32_t i, double v[6]);

/* ---- rows on one coordinate (coordinate_rows.c) ------------------------- */

/* A bilateral row on the coordinate with error phi (its value minus where it
 * is held). */
void coordinate_lock_row(joint_rows *out, int slot, int dof, const joint_coordinate *c, double phi,
                         double epsilon, double gamma);
/* The one-sided rows of limit lim, each only when value is near its bound:
 * lower: phi = value - lower, upper: phi = upper - value, lambda >= 0. */
void coordinate_limit_rows(joint_rows *out, int dof, const joint_coordinate *c, double value,
                           const heft_joint_limit *lim, const row_context *ctx);
/* The boxed motor row, |lambda| <= h max_force. */
void coordinate_motor_row(joint_rows *out, int dof, const joint_coordinate *c, double value,
                          const heft_joint_motor *m, const row_context *ctx);
/* A row's compliance and Baumgarte factor from its own softness, falling back
 * to the joint's when both are zero. */
void joint_row_softness(const joint *j, int dof, const row_context *ctx, double *epsilon,
                        double *gamma);

/* ---- one per joint type ------------------------------------------------- */

int ball_joint_row_count(const joint *j);
void ball_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                          const row_context *ctx, joint_rows *out);
/* The three point-coincidence rows along the world axes, shared by the ball,
 * hinge, universal and fixed joints (slots 0..2). */
void ball_joint_fill_point_rows(const joint *j, const joint_frame *f, const row_context *ctx,
                                joint_rows *out);
/* The swing angle between the two axes and its Jacobian (ball cone limit). */
void ball_joint_swing(const joint_frame *f, const joint *j, joint_coordinate *c);

int hinge_joint_row_count(const joint *j);
void hinge_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                           const row_context *ctx, joint_rows *out);
/* The two rows keeping b's axis parallel to a's (phi_k = t_k . u_b), shared
 * with the cylindrical joint; slots first, first + 1, coordinates RY, RZ. */
void hinge_joint_fill_axis_rows(const joint *j, const joint_frame *f, const row_context *ctx,
                                int first, joint_rows *out);

int fixed_joint_row_count(const joint *j);
void fixed_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                           const row_context *ctx, joint_rows *out);

int prismatic_joint_row_count(const joint *j);
void prismatic_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                               const row_context *ctx, joint_rows *out);

int cylindrical_joint_row_count(const joint *j);
void cylindrical_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                                 const row_context *ctx, joint_rows *out);

int universal_joint_row_count(const joint *j);
void universal_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                               const row_context *ctx, joint_rows *out);

int distance_joint_row_count(const joint *j);
void distance_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                              const row_context *ctx, joint_rows *out);
/* The anchors' distance and its Jacobian (distance and rope joints). */
void distance_joint_measure(const joint_frame *f, joint_coordinate *c);

int rope_joint_row_count(const joint *j);
void rope_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                          const row_context *ctx, joint_rows *out);

int six_dof_joint_row_count(const joint *j);
void six_dof_joint_fill_rows(const joint *j, const joint_frame *f, const body *bodies,
                             const row_context *ctx, joint_rows *out);

/* Gear and rack: one coupling row (coupling.c) between the body b of each
 * coupled joint; the two types differ only in which joints they accept. */
int coupling_row_count(const joint *j);
void coupling_fill_rows(const joint *j, const body *bodies, const row_context *ctx,
                        joint_rows *out);
/* phi of the coupling now: (c_b - c_b0) - ratio (c_a - c_a0). */
double coupling_error(const joint *j, const body *bodies);
/* The coupled coordinates now (angles unwrapped against the last ones). */
void coupling_coordinates(const joint *j, const body *bodies, double value[2]);
/* Checks the coupled joints' types and says which coordinate of each is
 * coupled (gear_joint.c, rack_joint.c); sets the error and returns 0 when
 * they do not fit. */
int gear_joint_check(const joint *ja, const joint *jb, int dof[2]);
int rack_joint_check(const joint *ja, const joint *jb, int dof[2]);

#endif
