/* Heft: a real-time rigid-body physics engine for stiff machines with large
 * mass ratios. This is the whole public API of the engine (plus mlcp.h for
 * solver users and heft_math.h for the math types).
 *
 * Conventions (design.md): SI units, z up, right-handed, double precision.
 * Objects are referred to by ids (index + generation) made from definition
 * structs that start from heft_default_*_def(). A call with bad input returns
 * an error (a negative heft_result, or an invalid id) and leaves the world
 * exactly as it was; heft_last_error() says why in words. */
#ifndef HEFT_H
#define HEFT_H

#include <stdint.h>

#include "heft_math.h"
#include "mlcp.h"

#ifdef __cplusplus
extern "C" {
#endif

#define HEFT_VERSION_MAJOR 0
#define HEFT_VERSION_MINOR 1
#define HEFT_VERSION_PATCH 0

typedef struct heft_world heft_world;

/* Ids: index plus generation. A zero-initialised id is invalid (generations
 * start at 1), so is an id whose object was destroyed. */
typedef struct heft_body_id {
    int32_t index;
    uint32_t generation;
} heft_body_id;

typedef struct heft_joint_id {
    int32_t index;
    uint32_t generation;
} heft_joint_id;

typedef struct heft_shape_id {
    int32_t index;
    uint32_t generation;
} heft_shape_id;

/* The null body: as body_a of a joint it means the fixed world frame. */
static const heft_body_id HEFT_WORLD_FRAME = {-1, 0};

typedef enum heft_result {
    HEFT_OK = 0,
    HEFT_ERROR_INVALID_ARGUMENT = -1,
    HEFT_ERROR_INVALID_ID = -2,
    HEFT_ERROR_OUT_OF_MEMORY = -3,
    HEFT_ERROR_UNKNOWN_SOLVER = -4
} heft_result;

/* Why the last failing call of this thread failed ("" if none has). */
const char *heft_last_error(void);

/* ---- world -------------------------------------------------------------- */

typedef enum heft_gyroscopic {
    HEFT_GYROSCOPIC_NONE = 0,     /* omega x I omega ignored */
    HEFT_GYROSCOPIC_EXPLICIT = 1, /* explicit Euler step of the gyroscopic torque */
    HEFT_GYROSCOPIC_IMPLICIT = 2  /* implicit midpoint rule in body frame: keeps |L| and the
                                     kinetic energy of a free body exactly (default) */
} heft_gyroscopic;

#define HEFT_BAUMGARTE_AUTO (-1.0)

typedef struct heft_world_def {
    heft_vec3 gravity;              /* m/s^2, default (0, 0, -9.81) */
    const char *solver;             /* registry name, default "pgs" */
    heft_solver_options solver_options;
    double rigid_compliance;        /* epsilon of "rigid" rows, 1/kg; default 1e-10 */
    double joint_baumgarte;         /* gamma of rigid joint rows in [0, 1], or HEFT_BAUMGARTE_AUTO
                                       (default): 0.2 with iterative solvers, 0.5 with direct
                                       ones (docs/foundation.md has the measurements) */
    double contact_baumgarte;       /* gamma of penetrating contact rows, default 0.2 */
    double contact_slop;            /* penetration left uncorrected, m; default 1e-4 */
    double contact_margin;          /* contacts are made this far before touching, m; default 0.05 */
    heft_gyroscopic gyroscopic;     /* default HEFT_GYROSCOPIC_IMPLICIT */
    /* Heavy loads on light links (docs/heavy-loads.md): */
    int geometric_stiffness;        /* 1: each body's mass gets h^2 K~, the positive diagonal
                                       approximation of the derivative of the last step's joint
                                       forces (Andrews, Teichmann & Kry 2017); default 0 */
    int post_stabilization;         /* iterations projecting the joints' positions back onto
                                       their constraints after each step (Cline & Pai 2003);
                                       default 0 (off) */
    int substeps;                   /* heft_world_step(h) runs this many steps of h / substeps;
                                       default 1 */
} heft_world_def;

heft_world_def heft_default_world_def(void);

/* def may be NULL for the defaults. Returns NULL on bad input or no memory. */
heft_world *heft_world_create(const heft_world_def *def);
void heft_world_destroy(heft_world *world);

/* Advances the world by h seconds (default in every paper: 1/60). */
heft_result heft_world_step(heft_world *world, double h);

/* Switches the solver between two steps. An unknown name is an error that
 * changes nothing. Per-island solver state is dropped on a switch. */
heft_result heft_world_set_solver(heft_world *world, const char *name);
const char *heft_world_solver(const heft_world *world);
heft_result heft_world_set_solver_options(heft_world *world, const heft_solver_options *options);
heft_solver_options heft_world_solver_options(const heft_world *world);
heft_result heft_world_set_gravity(heft_world *world, heft_vec3 gravity);
/* The heavy-load remedies, switchable between steps (see heft_world_def). */
heft_result heft_world_set_geometric_stiffness(heft_world *world, int enabled);
heft_result heft_world_set_post_stabilization(heft_world *world, int iterations);
heft_result heft_world_set_substeps(heft_world *world, int substeps);
/* Per joint: 0 leaves this joint out of the geometric stiffness (default 1). */
heft_result heft_joint_set_geometric_stiffness(heft_world *world, heft_joint_id id, int enabled);
heft_vec3 heft_world_gravity(const heft_world *world);

double heft_world_time(const heft_world *world);     /* s simulated */
int64_t heft_world_step_count(const heft_world *world);
int heft_world_body_count(const heft_world *world);  /* live bodies */
int heft_world_joint_count(const heft_world *world); /* live joints */
/* The ids of the live bodies (joints), ascending by index, at most max of
 * them; returns how many there are. */
int heft_world_bodies(const heft_world *world, heft_body_id *out, int max);
int heft_world_joints(const heft_world *world, heft_joint_id *out, int max);

/* ---- statistics of the last step ---------------------------------------- */

typedef struct heft_island_stats {
    int bodies;                /* dynamic bodies */
    int rows;                  /* constraint rows (the MLCP's n) */
    int first_body;            /* index of the island's lowest body */
    int pgs_fallback;          /* the solver's answer held NaN or Inf (or it failed): the
                                  island was solved again by PGS */
    heft_solver_stats solver;  /* zeros for an island without rows; solver.fallback is the
                                  solver's own (single pivoting, refactoring) */
} heft_island_stats;

typedef struct heft_step_stats {
    int islands;               /* islands of dynamic bodies (a lone body is one) */
    int islands_solved;        /* islands with at least one row */
    int bodies;                /* dynamic bodies stepped */
    int rows;                  /* rows over all islands */
    int rows_max;              /* rows of the largest island */
    int contacts;              /* contact points */
    int iterations_max;        /* over islands */
    int iterations_sum;
    int fallbacks;             /* islands solved again by PGS because the solver failed */
    int not_converged;         /* islands whose solver did not converge */
    int nonfinite_rejected;    /* bodies whose new state was not finite and was kept at the old one */
    double error_max;          /* J, largest MLCP error over islands */
    double error_sum;          /* J */
    double time_total_ms;      /* the whole step */
    double time_collision_ms;
    double time_rows_ms;       /* joints and contacts filling rows, islands, MLCP assembly */
    double time_solve_ms;      /* inside the solvers */
    double time_integrate_ms;
    double time_geometric_stiffness_ms;
    double time_post_stabilization_ms;
    double post_stabilization_gap;  /* m: largest joint gap left after post-stabilization */
    int substeps;                   /* substeps taken (the other fields sum or take the
                                       largest over them) */
} heft_step_stats;

const heft_step_stats *heft_world_stats(const heft_world *world);

/* Called for every island solved in a step, after its solver answered: the
 * island's MLCP (structured form, warm start in lambda0) and the impulses
 * taken. The data lives until the callback returns. This is how heft-run
 * exports MLCPs and how tools compare solvers on the engine's problems.
 * NULL removes it. */
typedef void (*heft_island_callback)(void *user, int island, const heft_mlcp *problem,
                                     const double *lambda, const heft_solver_stats *stats);
void heft_world_set_island_callback(heft_world *world, heft_island_callback callback, void *user);
/* Island i of the last step, 0 <= i < stats->islands; HEFT_ERROR_INVALID_ARGUMENT otherwise. */
heft_result heft_world_island_stats(const heft_world *world, int i, heft_island_stats *out);

/* ---- bodies ------------------------------------------------------------- */

typedef enum heft_body_type {
    HEFT_BODY_STATIC = 0,    /* never moves, infinite mass */
    HEFT_BODY_KINEMATIC = 1, /* moved by its velocity, infinite mass */
    HEFT_BODY_DYNAMIC = 2
} heft_body_type;

typedef struct heft_body_def {
    heft_body_type type;           /* default dynamic */
    heft_vec3 position;            /* of the centre of mass, world frame */
    heft_quat orientation;         /* any non-zero quaternion; normalised */
    heft_vec3 linear_velocity;     /* m/s, world frame */
    heft_vec3 angular_velocity;    /* rad/s, world frame */
    double mass;                   /* kg, > 0 for dynamic bodies; default 1 */
    heft_mat3 inertia;             /* kg m^2 about the centre of mass, body frame, symmetric
                                      positive definite; all zeros (default) means that of a
                                      cube of side 1 m with this mass, mass/6 */
    double linear_damping;         /* 1/s, default 0 */
    double angular_damping;        /* 1/s, default 0 */
    double gravity_scale;          /* default 1 */
    const char *name;              /* copied (up to 47 bytes); may be NULL */
    void *user_data;
} heft_body_def;

heft_body_def heft_default_body_def(void);

/* Inertia tensors of common solids (body frame, centre of mass). Capsules
 * and cylinders lie along the body's z axis. */
heft_mat3 heft_inertia_box(double mass, heft_vec3 half_extents);
heft_mat3 heft_inertia_sphere(double mass, double radius);
heft_mat3 heft_inertia_capsule(double mass, double radius, double half_length);
heft_mat3 heft_inertia_cylinder(double mass, double radius, double half_length);

heft_body_id heft_create_body(heft_world *world, const heft_body_def *def);
/* Destroys the body with its shapes and every joint attached to it. */
heft_result heft_destroy_body(heft_world *world, heft_body_id id);
int heft_body_is_valid(const heft_world *world, heft_body_id id);

/* The whole state of a body, for readback and snapshots. */
typedef struct heft_body_state {
    heft_body_type type;
    heft_vec3 position;
    heft_quat orientation;
    heft_vec3 linear_velocity;
    heft_vec3 angular_velocity;
    double mass;
    heft_mat3 inertia;             /* body frame */
    heft_vec3 force, torque;       /* accumulated for the next step */
} heft_body_state;

heft_result heft_body_get_state(const heft_world *world, heft_body_id id, heft_body_state *out);
/* Getters return zeros (identity for the orientation) for an invalid id. */
heft_vec3 heft_body_position(const heft_world *world, heft_body_id id);
heft_quat heft_body_orientation(const heft_world *world, heft_body_id id);
heft_vec3 heft_body_linear_velocity(const heft_world *world, heft_body_id id);
heft_vec3 heft_body_angular_velocity(const heft_world *world, heft_body_id id);
double heft_body_mass(const heft_world *world, heft_body_id id);
const char *heft_body_name(const heft_world *world, heft_body_id id);
void *heft_body_user_data(const heft_world *world, heft_body_id id);
/* A point given in body frame, in world frame, and back. */
heft_vec3 heft_body_world_point(const heft_world *world, heft_body_id id, heft_vec3 local);
heft_vec3 heft_body_local_point(const heft_world *world, heft_body_id id, heft_vec3 world_point);
/* Angular momentum about the centre of mass, world frame. */
heft_vec3 heft_body_angular_momentum(const heft_world *world, heft_body_id id);

heft_result heft_body_set_transform(heft_world *world, heft_body_id id, heft_vec3 position,
                                    heft_quat orientation);
heft_result heft_body_set_linear_velocity(heft_world *world, heft_body_id id, heft_vec3 v);
heft_result heft_body_set_angular_velocity(heft_world *world, heft_body_id id, heft_vec3 w);
heft_result heft_body_set_mass(heft_world *world, heft_body_id id, double mass, heft_mat3 inertia);
/* Forces for the next step only (cleared after it), world frame. */
heft_result heft_body_apply_force(heft_world *world, heft_body_id id, heft_vec3 force,
                                  heft_vec3 world_point);
heft_result heft_body_apply_torque(heft_world *world, heft_body_id id, heft_vec3 torque);

/* ---- shapes (minimal until the collision issue) ------------------------- */

typedef enum heft_shape_type {
    HEFT_SHAPE_SPHERE = 0,
    HEFT_SHAPE_BOX = 1,
    HEFT_SHAPE_CAPSULE = 2, /* along the shape's local z axis */
    HEFT_SHAPE_PLANE = 3    /* static bodies only: the half-space below the plane is solid */
} heft_shape_type;

typedef struct heft_shape_def {
    heft_shape_type type;       /* default sphere */
    double radius;              /* sphere, capsule; default 0.5 */
    double half_length;         /* capsule: half the distance between the cap centres */
    heft_vec3 half_extents;     /* box; default (0.5, 0.5, 0.5) */
    heft_vec3 normal;           /* plane, shape frame; default (0, 0, 1) */
    double offset;              /* plane: points x with normal . x = offset are on it */
    heft_vec3 local_position;   /* shape frame in body frame */
    heft_quat local_orientation;
    double friction;            /* Coulomb mu, default 1.0 (the papers' scenes) */
    double restitution;         /* default 0 */
} heft_shape_def;

heft_shape_def heft_default_shape_def(void);
heft_shape_id heft_create_shape(heft_world *world, heft_body_id body, const heft_shape_def *def);
heft_result heft_destroy_shape(heft_world *world, heft_shape_id id);

/* Contact points of the last step. */
typedef struct heft_contact_info {
    heft_body_id body_a, body_b;
    heft_vec3 point;            /* on body b's surface, world frame */
    heft_vec3 normal;           /* from a towards b */
    double separation;          /* m, negative when penetrating */
    double normal_impulse;      /* N s */
    heft_vec3 friction_impulse; /* N s, world frame, on body b */
} heft_contact_info;

int heft_world_contact_count(const heft_world *world);
heft_result heft_world_contact(const heft_world *world, int i, heft_contact_info *out);

/* ---- joints ------------------------------------------------------------- */

typedef enum heft_joint_type {
    HEFT_JOINT_BALL = 0,  /* ball-in-socket: the anchors coincide (3 rows) */
    HEFT_JOINT_HINGE = 1, /* the anchors coincide and the axes stay parallel (5 rows) */
    HEFT_JOINT_FIXED = 2  /* weld: the relative pose at creation is kept (6 rows) */
} heft_joint_type;

typedef struct heft_joint_def {
    heft_joint_type type;
    heft_body_id body_a;        /* HEFT_WORLD_FRAME: the fixed world frame */
    heft_body_id body_b;
    heft_vec3 local_anchor_a;   /* body a's frame (world frame when body_a is the world) */
    heft_vec3 local_anchor_b;
    heft_vec3 local_axis_a;     /* hinge axis in each body's frame; default (0, 0, 1) */
    heft_vec3 local_axis_b;
    /* Softness in physical units (design "The MLCP of an island", 004 eq. 2.23):
     * both zero means rigid (the world's rigid compliance and joint Baumgarte
     * factor); otherwise epsilon = 1/(h c + h^2 k), gamma = h k / (c + h k). */
    double stiffness;           /* k: N/m for linear rows, N m/rad for angular rows */
    double damping;             /* c: N s/m, N m s/rad */
    const char *name;           /* copied (up to 47 bytes); may be NULL */
    void *user_data;
} heft_joint_def;

heft_joint_def heft_default_joint_def(heft_joint_type type);
/* Fills the local anchors (and hinge axes) of def from a world-frame anchor
 * point and axis at the bodies' current poses. */
heft_result heft_joint_def_set_world_frame(const heft_world *world, heft_joint_def *def,
                                           heft_vec3 anchor, heft_vec3 axis);

heft_joint_id heft_create_joint(heft_world *world, const heft_joint_def *def);
heft_result heft_destroy_joint(heft_world *world, heft_joint_id id);
int heft_joint_is_valid(const heft_world *world, heft_joint_id id);
const char *heft_joint_name(const heft_world *world, heft_joint_id id);
heft_joint_type heft_joint_get_type(const heft_world *world, heft_joint_id id);

/* The joint's positional error now: distance between its two anchors, m. */
double heft_joint_gap(const heft_world *world, heft_joint_id id);
/* Rows of the joint in the last step, and the impulse of row i (N s). */
int heft_joint_row_count(const heft_world *world, heft_joint_id id);
double heft_joint_row_impulse(const heft_world *world, heft_joint_id id, int row);
/* Reaction of the last step: the constraint force and torque (lambda / h) the
 * joint applied to body b, world frame, torque about body b's anchor. Body a
 * received the opposite force. */
heft_result heft_joint_reaction(const heft_world *world, heft_joint_id id, heft_vec3 *force,
                                heft_vec3 *torque);

#ifdef __cplusplus
}
#endif

#endif
