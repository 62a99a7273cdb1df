/* Heft: a real-time rigid-body physics engine for stiff machines with large
 * mass ratios. This is the whole public API of the engine; it includes
 * heft_math.h (the math types), solver_options.h (the solvers' options and
 * statistics) and base.h (version, allocator). mlcp.h is the solver library
 * on its own: the problem type, the solver table and the .mlcp files.
 *
 * Conventions (docs/architecture.md): SI units, z up, right-handed, double precision.
 * Objects are referred to by ids (index + generation) made from definition
 * structs that start from heft_default_*_def(). A call with bad input returns
 * an error (a negative heft_result, or an invalid id) and leaves the world
 * exactly as it was; heft_last_error() says why in words. */
#ifndef HEFT_H
#define HEFT_H

#include <stdint.h>

#include "base.h"
#include "heft_math.h"
#include "solver_options.h"

#ifdef __cplusplus
extern "C" {
#endif

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
HEFT_API const char *heft_last_error(void);

/* ---- documented ranges (docs/limits.md) ----------------------------------
 * Values outside these ranges are refused where they enter (an error, a
 * message naming the value and the limit, the world unchanged): beyond them a
 * double-precision step freezes a body, zeroes its velocity or overflows it. */
#define HEFT_MASS_MIN 1e-9              /* kg, a dynamic body's mass */
#define HEFT_MASS_MAX 1e15              /* kg */
#define HEFT_INERTIA_MIN 1e-21          /* kg m^2, smallest principal moment */
#define HEFT_INERTIA_MAX 1e27           /* kg m^2, largest principal moment */
#define HEFT_INERTIA_CONDITION_MAX 1e12 /* largest over smallest principal moment */
#define HEFT_POSITION_MAX 1e9           /* m, |coordinate| of positions and points given */
#define HEFT_SPEED_MAX 1e8              /* m/s and rad/s, |component| of velocities given */
#define HEFT_FORCE_MAX 1e18             /* N, |component| of a body's accumulated force */
#define HEFT_TORQUE_MAX 1e27            /* N m, |component| of its accumulated torque */
#define HEFT_GRAVITY_MAX 1e6            /* m/s^2, |component| of gravity */
#define HEFT_SHAPE_SIZE_MAX 1e6         /* m: radii, half lengths, half extents, hull points */
#define HEFT_QUAT_NORM_MIN 1e-9         /* length of a quaternion before it is normalised */
#define HEFT_QUAT_NORM_MAX 1e9
#define HEFT_STEP_MIN 1e-6 /* s, smallest (sub)step h / substeps */
#define HEFT_STEP_MAX 1.0  /* s, largest (sub)step */
/* m, a shape's rolling resistance (a lever arm): beyond any contact patch */
#define HEFT_ROLLING_RESISTANCE_MAX 10.0

/* ---- world -------------------------------------------------------------- */

typedef enum heft_gyroscopic {
    HEFT_GYROSCOPIC_NONE = 0,     /* omega x I omega ignored */
    HEFT_GYROSCOPIC_EXPLICIT = 1, /* explicit Euler step of the gyroscopic torque */
    HEFT_GYROSCOPIC_IMPLICIT = 2  /* implicit midpoint rule in body frame: keeps |L| and the
                                     kinetic energy of a free body exactly (default) */
} heft_gyroscopic;

#define HEFT_BAUMGARTE_AUTO (-1.0)

typedef struct heft_world_def {
    heft_vec3 gravity;          /* m/s^2, |component| <= HEFT_GRAVITY_MAX; default (0, 0, -9.81) */
    const char *solver;         /* registry name, default "pgs"; its options start at
                                   heft_solver_default_options() and are set with
                                   heft_world_set_solver_options */
    double rigid_compliance;    /* epsilon of "rigid" rows, 1/kg; default 1e-10 */
    double joint_baumgarte;     /* gamma of rigid joint rows in [0, 1], or HEFT_BAUMGARTE_AUTO
                                   (default): 0.2 with iterative solvers, 0.5 with direct
                                   ones (docs/results.md has the measurements) */
    double contact_baumgarte;   /* gamma of penetrating contact rows, default 0.2 */
    double contact_slop;        /* penetration left uncorrected, m; default 1e-4 */
    double contact_margin;      /* contacts are made this far before touching, m; default 0.05 */
    heft_gyroscopic gyroscopic; /* default HEFT_GYROSCOPIC_IMPLICIT */
    /* Heavy loads on light links (docs/heavy-loads.md): */
    int geometric_stiffness;   /* 1: each body's mass gets h^2 K~, the positive diagonal
                                  approximation of the derivative of the last step's joint
                                  forces (Andrews, Teichmann & Kry 2017); default 0 */
    int post_stabilization;    /* iterations projecting the joints' positions back onto
                                  their constraints after each step (Cline & Pai 2003);
                                  default 0 (off) */
    int substeps;              /* heft_world_step(h) runs this many steps of h / substeps;
                                  default 1 */
    double contact_compliance; /* compliance of contact rows, m/N: their epsilon is
                                  rigid_compliance + contact_compliance / h^2, so a resting
                                  contact carrying F newtons sinks about
                                  contact_compliance F / contact_baumgarte; default 1e-8.
                                  It keeps A well conditioned when a face rests on four
                                  points (redundant rows), which the pivoting solvers need
                                  (docs/collision.md) */
    void *user_data;           /* the application's, never read by the engine; default NULL */
    /* Sleeping (docs/sleeping.md): an island whose bodies all stay below both
     * speeds for time_to_sleep seconds falls asleep and the step skips it
     * until something wakes it. */
    int enable_sleep;           /* 1 or 0; default 0: every body is stepped every step */
    double sleep_linear_speed;  /* m/s, finite, >= 0; default 0.05 */
    double sleep_angular_speed; /* rad/s, finite, >= 0; default 0.05 */
    double time_to_sleep;       /* s, finite, >= 0; default 0.5 */
} heft_world_def;

HEFT_API heft_world_def heft_default_world_def(void);

/* def may be NULL for the defaults. Returns NULL on bad input or no memory. */
HEFT_API heft_world *heft_world_create(const heft_world_def *def);
HEFT_API void heft_world_destroy(heft_world *world);

/* Advances the world by h seconds (default in every paper: 1/60). Each
 * substep h / substeps must lie in [HEFT_STEP_MIN, HEFT_STEP_MAX]: below it
 * the Baumgarte term phi / h overflows a body's velocity. */
HEFT_API heft_result heft_world_step(heft_world *world, double h);

/* Switches the solver between two steps. An unknown name is an error that
 * changes nothing. Per-island solver state is dropped on a switch. */
HEFT_API heft_result heft_world_set_solver(heft_world *world, const char *name);
HEFT_API const char *heft_world_solver(const heft_world *world);
/* Options outside their documented ranges (heft_solver_options_check) are
 * refused with HEFT_ERROR_INVALID_ARGUMENT, the message in heft_last_error(),
 * and change nothing. */
HEFT_API heft_result heft_world_set_solver_options(heft_world *world,
                                                   const heft_solver_options *options);
HEFT_API heft_solver_options heft_world_solver_options(const heft_world *world);
HEFT_API heft_result heft_world_set_gravity(heft_world *world, heft_vec3 gravity);
/* The heavy-load remedies, switchable between steps (see heft_world_def). */
HEFT_API heft_result heft_world_set_geometric_stiffness(heft_world *world, int enabled);
HEFT_API heft_result heft_world_set_post_stabilization(heft_world *world, int iterations);
HEFT_API heft_result heft_world_set_substeps(heft_world *world, int substeps);
/* Per joint: 0 leaves this joint out of the geometric stiffness (default 1). */
HEFT_API heft_result heft_joint_set_geometric_stiffness(heft_world *world, heft_joint_id id,
                                                        int enabled);
HEFT_API heft_vec3 heft_world_gravity(const heft_world *world);
/* The application's pointer (heft_world_def.user_data); the engine never reads
 * it. Setting it on a NULL world is HEFT_ERROR_INVALID_ARGUMENT; reading it
 * gives NULL. */
HEFT_API heft_result heft_world_set_user_data(heft_world *world, void *user_data);
HEFT_API void *heft_world_user_data(const heft_world *world);

/* ---- capacity reserved ahead (docs/memory.md) ---------------------------- */

/* The most a world will hold at once. The step's arrays that grow with these
 * counts are sized for them ahead, so a world reserved for its peak makes
 * no allocation in its steps when its contacts or pairs reach it (a chain
 * winding onto a drum gains contacts for minutes). A field of 0 reserves
 * nothing for that count. Each count lies in [0, HEFT_CAPACITY_MAX]. */
#define HEFT_CAPACITY_MAX (1 << 24)
typedef struct heft_world_capacity {
    int bodies;   /* bodies, with their islands, contact lists and events */
    int shapes;   /* shapes, with their leaves in the broad phase */
    int joints;   /* joints, with their break events */
    int contacts; /* contact points at once (heft_step_stats.contacts) */
    int pairs;    /* shape pairs the broad phase holds at once: those whose enlarged boxes
                     overlap, touching or not (heft_world_contact_pairs) */
    int rows;     /* constraint rows of the largest island (heft_step_stats.rows_max: its
                     joints' rows and three a contact point): the step's scratch, the
                     rescue's and, for a solver that can size ahead (pgs, bpp-skyline),
                     each island's workspaces; a count of 0 beside it is taken as the
                     world's present one */
    int envelope; /* with rows: numbers in an envelope array of the largest island, its
                     rows times its envelope's tallest column (heft_step_stats.
                     envelope_max): each island state of bpp-skyline sizes its envelope
                     arrays (and its Newton stage's) and its ordering's graph for it */
} heft_world_capacity;

/* Grows the world's arrays to hold capacity; never shrinks them, and the
 * capacity lasts until the world is destroyed. Refuses a NULL world or
 * capacity, a count outside [0, HEFT_CAPACITY_MAX] and a call from a pair
 * filter or pre-solve callback (HEFT_ERROR_INVALID_ARGUMENT); HEFT_ERROR_OUT_OF_MEMORY
 * when memory runs out (the arrays grown until then stay grown). None of
 * these changes the world's state. */
HEFT_API heft_result heft_world_reserve(heft_world *world, const heft_world_capacity *capacity);
/* The shape pairs the broad phase holds after the last step (what
 * heft_world_capacity.pairs counts); 0 for a NULL world. */
HEFT_API int heft_world_contact_pairs(const heft_world *world);

HEFT_API double heft_world_time(const heft_world *world); /* s simulated */
HEFT_API int64_t heft_world_step_count(const heft_world *world);
HEFT_API int heft_world_body_count(const heft_world *world);  /* live bodies */
HEFT_API int heft_world_joint_count(const heft_world *world); /* live joints */
/* The ids of the live bodies (joints), ascending by index, at most max of
 * them; returns how many there are. */
HEFT_API int heft_world_bodies(const heft_world *world, heft_body_id *out, int max);
HEFT_API int heft_world_joints(const heft_world *world, heft_joint_id *out, int max);

/* ---- statistics of the last step ---------------------------------------- */

typedef struct heft_island_stats {
    int bodies;               /* dynamic bodies */
    int rows;                 /* constraint rows (the MLCP's n) */
    int first_body;           /* index of the island's lowest body */
    int pgs_fallback;         /* the engine kept another solver's answer: the solver's answer
                                 held NaN or Inf (or it failed), or it did not converge and
                                 PGS, solving the island too, gave the smaller MLCP error
                                 (heft_solve_with_fallback) */
    heft_solver_stats solver; /* zeros for an island without rows; solver.answer says which
                                 answer was kept (HEFT_ANSWER_PGS when the engine's rescue's);
                                 solver.fallback is the solver's own flag */
    int rescue_sweeps;        /* PGS sweeps of the engine's rescue (also in solver.iterations) */
    int64_t island_id;        /* the island's stable id (heft_body_island_id), which keys its
                                 solver state from step to step */
} heft_island_stats;

typedef struct heft_step_stats {
    int islands;        /* awake islands of dynamic bodies (a lone body is one) */
    int islands_solved; /* islands with at least one row */
    int bodies;         /* dynamic bodies stepped */
    int rows;           /* rows over all islands */
    int rows_max;       /* rows of the largest island */
    int contacts;       /* contact points */
    int iterations_max; /* over islands */
    int iterations_sum;
    int fallbacks;          /* islands whose kept answer is not the solver's: the engine's
                               rescue (PGS, or zeros) answered instead (pgs_fallback) */
    int not_converged;      /* islands whose solver did not converge */
    int nonfinite_rejected; /* bodies whose new state was not finite and was kept at the old one */
    double error_max;       /* J, largest MLCP error over islands */
    double error_sum;       /* J */
    double time_total_ms;   /* the whole step */
    double time_collision_ms;
    double time_rows_ms;  /* joints and contacts filling rows, islands, MLCP assembly */
    double time_solve_ms; /* inside the solvers */
    double time_integrate_ms;
    double time_geometric_stiffness_ms;
    double time_post_stabilization_ms;
    double post_stabilization_gap; /* m: largest joint gap left after post-stabilization */
    int substeps;                  /* substeps taken (the other fields sum or take the
                                      largest over them) */
    /* The solvers' own counts (heft_solver_stats) summed over the islands. */
    int pivot_steps;     /* iterations of a direct solver (block-pivoting and frozen-box steps,
                            pgcg's outer iterations), without the rescue's sweeps; 0 under an
                            iterative solver */
    int restarts;        /* restarts of a stalled pivoting from a PGS answer */
    int pgs_sweeps;      /* PGS sweeps of those restarts */
    int rescue_sweeps;   /* PGS sweeps of the engine's rescue (heft_solve_with_fallback) */
    int frozen_rounds;   /* rounds of the frozen friction boxes */
    int backstops;       /* runs of the backstop's stages (Newton, Lemke: one each) */
    int backstop_pivots; /* pivots (or Newton steps) of the backstop */
    int newton_steps;    /* steps of the backstop's Newton stage (in backstop_pivots too) */
    int factorizations;  /* factorizations (bpp-skyline's refactorings, bpp-pcg's
                            preconditioners included) */
    int downdates;
    int updates;             /* row additions to a sparse factor (bpp-sparse) */
    int body_factorizations; /* of the factorizations, bpp-skyline's in body space */
    int envelope_max;        /* the numbers in the envelope arrays the islands' velocity
                                solves held (heft_solver_stats.envelope), the largest over
                                islands and substeps: heft_world_capacity.envelope */
    /* Island solves by the answer kept (heft_answer_source), summed over the
     * substeps: with one substep they add up to islands_solved. answers_pgs counts a pivoting
     * solver's own restart answer and the engine's rescue alike (fallbacks tells them apart). */
    int answers_solver;
    int answers_backstop;
    int answers_pgs;
    int answers_warm_start;
    int answers_zero;
    int geometric_stiffness_skipped;  /* joints whose geometric stiffness was asked for and did
                                         not act: the solver is iterative (pgs, ldl-pgs, cr),
                                         whose approximate impulses feed no stiffness
                                         (docs/heavy-loads.md) */
    int post_stabilization_limited;   /* where geometric stiffness does not act (off, or an
                                         iterative solver): islands whose post-stabilization
                                         would have added energy (lifting a load against
                                         gravity): their velocities were scaled down to pay
                                         for it, or the projection undone; and under an
                                         iterative solver the islands whose projection
                                         widened their widest joint gap, put back */
    double post_stabilization_energy; /* J: the change post-stabilization made to the islands'
                                         kinetic plus gravitational energy; at most the
                                         islands' weight times 1 nm where geometric stiffness
                                         does not act, reported as it is where it does */
    int islands_sleeping;             /* sleeping islands after the step (docs/sleeping.md) */
    int bodies_sleeping;              /* dynamic bodies in them */
    int inner_iterations_sum;         /* the solvers' inner iterations (heft_solver_stats.
                                         inner_iterations) over islands and substeps: pgs's
                                         position sweeps, the PCG iterations of bpp-pcg and
                                         pgcg, the pivoting family's coupled-friction solves,
                                         cr's restarts */
} heft_step_stats;

HEFT_API const heft_step_stats *heft_world_stats(const heft_world *world);

/* Called for every island solved in a step, after its solver answered: the
 * island's MLCP (structured form, warm start in lambda0) and the impulses
 * taken. The data lives until the callback returns. This is how heft-run
 * exports MLCPs and how tools compare solvers on the engine's problems.
 * NULL removes it. */
/* The problem type of the solver library (mlcp.h); include that header to
 * read it. */
typedef struct heft_mlcp heft_mlcp;
typedef void (*heft_island_callback)(void *user, int island, const heft_mlcp *problem,
                                     const double *lambda, const heft_solver_stats *stats);
HEFT_API void heft_world_set_island_callback(heft_world *world, heft_island_callback callback,
                                             void *user);
/* ---- parallel islands (docs/tasks.md) ------------------------------------ */

/* The most workers a task system may name. */
#define HEFT_MAX_WORKERS 64

/* A range of work items [begin, end) the engine hands out; worker is the
 * index, in [0, worker_count), of the thread running it: two calls running
 * at the same time must never get the same worker index. */
typedef void heft_task_fn(int begin, int end, int worker, void *task_context);
/* Starts task over items [0, item_count), in ranges of at least min_range
 * items, on any threads. Returns a handle the engine passes to finish, or
 * NULL when the task has already run to the end (as a serial fallback). */
typedef void *heft_enqueue_task_fn(heft_task_fn *task, int item_count, int min_range,
                                   void *task_context, void *user);
/* Returns when every item of the task of that handle has run. */
typedef void heft_finish_task_fn(void *handle, void *user);
/* Solves the islands' MLCPs through the application's task system; the
 * results are bit-identical to the serial step for any worker_count and any
 * scheduling. Both callbacks NULL (worker_count ignored) restores the serial
 * step. worker_count in [1, HEFT_MAX_WORKERS]. Refused between a pair
 * filter's or pre-solve callback's call and its return. The memory hooks of
 * heft_set_allocator are called from the workers too. */
HEFT_API heft_result heft_world_set_task_system(heft_world *world, heft_enqueue_task_fn *enqueue,
                                                heft_finish_task_fn *finish, void *user,
                                                int worker_count);
/* The workers of the task system, 1 without one (a NULL world: 1 and an error). */
HEFT_API int heft_world_worker_count(const heft_world *world);

/* Island i of the last step, 0 <= i < stats->islands; HEFT_ERROR_INVALID_ARGUMENT otherwise. */
HEFT_API heft_result heft_world_island_stats(const heft_world *world, int i,
                                             heft_island_stats *out);

/* ---- bodies ------------------------------------------------------------- */

typedef enum heft_body_type {
    HEFT_BODY_STATIC = 0,    /* never moves, infinite mass */
    HEFT_BODY_KINEMATIC = 1, /* moved by its velocity, infinite mass */
    HEFT_BODY_DYNAMIC = 2
} heft_body_type;

typedef struct heft_body_def {
    heft_body_type type;        /* default dynamic */
    heft_vec3 position;         /* of the centre of mass, world frame; |component| <=
                                   HEFT_POSITION_MAX */
    heft_quat orientation;      /* a quaternion of length in [HEFT_QUAT_NORM_MIN,
                                   HEFT_QUAT_NORM_MAX]; normalised */
    heft_vec3 linear_velocity;  /* m/s, world frame; |component| <= HEFT_SPEED_MAX */
    heft_vec3 angular_velocity; /* rad/s, world frame; |component| <= HEFT_SPEED_MAX */
    double mass;                /* kg, in [HEFT_MASS_MIN, HEFT_MASS_MAX] for dynamic bodies;
                                   default 1 */
    heft_mat3 inertia;          /* kg m^2 about the centre of mass, body frame, symmetric
                                   positive definite, principal moments in
                                   [HEFT_INERTIA_MIN, HEFT_INERTIA_MAX] and their ratio at
                                   most HEFT_INERTIA_CONDITION_MAX; all zeros (default)
                                   means that of a cube of side 1 m with this mass, mass/6 */
    double linear_damping;      /* 1/s, default 0 */
    double angular_damping;     /* 1/s, default 0 */
    double gravity_scale;       /* default 1 */
    const char *name;           /* copied (up to 47 bytes); may be NULL */
    void *user_data;
    int fast; /* 1: continuous collision (docs/queries.md): each step, the
                 body's sweep is stopped at its first contact with static,
                 kinematic and non-fast dynamic shapes, so that it cannot
                 pass through them; default 0 */
    /* 1 (default): the body may fall asleep with its island; 0: it never
     * does, and keeps its island awake (docs/sleeping.md) */
    int enable_sleep;
} heft_body_def;

HEFT_API heft_body_def heft_default_body_def(void);

/* Inertia tensors of common solids (body frame, centre of mass). Capsules
 * and cylinders lie along the body's z axis. */
HEFT_API heft_mat3 heft_inertia_box(double mass, heft_vec3 half_extents);
HEFT_API heft_mat3 heft_inertia_sphere(double mass, double radius);
HEFT_API heft_mat3 heft_inertia_capsule(double mass, double radius, double half_length);
HEFT_API heft_mat3 heft_inertia_cylinder(double mass, double radius, double half_length);

HEFT_API heft_body_id heft_create_body(heft_world *world, const heft_body_def *def);
/* Destroys the body with its shapes and every joint attached to it. */
HEFT_API heft_result heft_destroy_body(heft_world *world, heft_body_id id);
HEFT_API int heft_body_is_valid(const heft_world *world, heft_body_id id);

/* The whole state of a body, for readback and snapshots. */
typedef struct heft_body_state {
    heft_body_type type;
    heft_vec3 position;
    heft_quat orientation;
    heft_vec3 linear_velocity;
    heft_vec3 angular_velocity;
    double mass;
    heft_mat3 inertia;       /* body frame */
    heft_vec3 force, torque; /* accumulated for the next step */
} heft_body_state;

HEFT_API heft_result heft_body_get_state(const heft_world *world, heft_body_id id,
                                         heft_body_state *out);
/* Getters return zeros (identity for the orientation) for an invalid id. */
HEFT_API heft_vec3 heft_body_position(const heft_world *world, heft_body_id id);
HEFT_API heft_quat heft_body_orientation(const heft_world *world, heft_body_id id);
HEFT_API heft_vec3 heft_body_linear_velocity(const heft_world *world, heft_body_id id);
HEFT_API heft_vec3 heft_body_angular_velocity(const heft_world *world, heft_body_id id);
HEFT_API double heft_body_mass(const heft_world *world, heft_body_id id);
HEFT_API const char *heft_body_name(const heft_world *world, heft_body_id id);
HEFT_API void *heft_body_user_data(const heft_world *world, heft_body_id id);
/* A point given in body frame, in world frame, and back. */
HEFT_API heft_vec3 heft_body_world_point(const heft_world *world, heft_body_id id, heft_vec3 local);
HEFT_API heft_vec3 heft_body_local_point(const heft_world *world, heft_body_id id,
                                         heft_vec3 world_point);
/* Angular momentum about the centre of mass, world frame. */
HEFT_API heft_vec3 heft_body_angular_momentum(const heft_world *world, heft_body_id id);

HEFT_API heft_result heft_body_set_transform(heft_world *world, heft_body_id id, heft_vec3 position,
                                             heft_quat orientation);
HEFT_API heft_result heft_body_set_linear_velocity(heft_world *world, heft_body_id id, heft_vec3 v);
HEFT_API heft_result heft_body_set_angular_velocity(heft_world *world, heft_body_id id,
                                                    heft_vec3 w);
HEFT_API heft_result heft_body_set_mass(heft_world *world, heft_body_id id, double mass,
                                        heft_mat3 inertia);
/* Forces for the next step only (cleared after it), world frame. A force
 * whose sum with what the body already holds would pass HEFT_FORCE_MAX (its
 * torque HEFT_TORQUE_MAX) is refused, as is a point beyond HEFT_POSITION_MAX. */
HEFT_API heft_result heft_body_apply_force(heft_world *world, heft_body_id id, heft_vec3 force,
                                           heft_vec3 world_point);
HEFT_API heft_result heft_body_apply_torque(heft_world *world, heft_body_id id, heft_vec3 torque);
/* Continuous collision on (1) or off (0) for a dynamic body (see
 * heft_body_def.fast); static and kinematic bodies keep the flag without
 * effect. */
HEFT_API heft_result heft_body_set_fast(heft_world *world, heft_body_id id, int fast);
HEFT_API int heft_body_is_fast(const heft_world *world, heft_body_id id);

/* ---- sleeping (docs/sleeping.md) ----------------------------------------- */

/* The world's switch: 0 wakes every sleeping island and keeps them awake. */
HEFT_API heft_result heft_world_set_sleeping(heft_world *world, int enabled);
HEFT_API int heft_world_sleeping(const heft_world *world);
/* m/s, rad/s and s, each finite and >= 0 (heft_world_def). */
HEFT_API heft_result heft_world_set_sleep_thresholds(heft_world *world, double linear_speed,
                                                     double angular_speed, double time_to_sleep);
/* 1 for a dynamic body whose island is awake and for a kinematic body; 0
 * for a sleeping or static body, and for an invalid id (with an error). */
HEFT_API int heft_body_is_awake(const heft_world *world, heft_body_id id);
/* 1 wakes the body's island; 0 puts it to sleep now, whatever its speeds
 * (velocities set to zero). No effect on static and kinematic bodies. */
HEFT_API heft_result heft_body_set_awake(heft_world *world, heft_body_id id, int awake);
HEFT_API heft_result heft_body_wake(heft_world *world, heft_body_id id);
/* Per body (heft_body_def.enable_sleep): 0 wakes its island and keeps it awake. */
HEFT_API heft_result heft_body_set_sleep_enabled(heft_world *world, heft_body_id id, int enabled);
HEFT_API int heft_body_sleep_enabled(const heft_world *world, heft_body_id id);
/* The stable id of the body's island (> 0), kept while the island's bodies
 * stay joined; -1 for static and kinematic bodies, for a body created since
 * the last step and for an invalid id. */
HEFT_API int64_t heft_body_island_id(const heft_world *world, heft_body_id id);

/* Bodies that woke and fell asleep in the last step, in order, and those
 * woken by calls made since it (heft_body_wake, a force, a new joint ...).
 * Every body of an island is reported when the island changes state; an id
 * may name a body destroyed since. The arrays live until the next step or
 * world destruction. */
typedef struct heft_body_events {
    const heft_body_id *woke;
    int woke_count;
    const heft_body_id *fell_asleep;
    int fell_asleep_count;
} heft_body_events;
HEFT_API heft_body_events heft_world_body_events(const heft_world *world);

/* ---- shapes, contacts and queries (docs/collision.md) -------------------- */

typedef enum heft_shape_type {
    HEFT_SHAPE_SPHERE = 0,
    HEFT_SHAPE_BOX = 1,
    HEFT_SHAPE_CAPSULE = 2,     /* along the shape's local z axis */
    HEFT_SHAPE_PLANE = 3,       /* static bodies only: the half-space below the plane is solid */
    HEFT_SHAPE_CYLINDER = 4,    /* along the shape's local z axis */
    HEFT_SHAPE_HULL = 5,        /* the convex hull of points */
    HEFT_SHAPE_MESH = 6,        /* static or kinematic bodies only: triangles, one-sided */
    HEFT_SHAPE_HEIGHT_FIELD = 7 /* static or kinematic bodies only: a grid of heights along z */
} heft_shape_type;

/* Convex hull: the hull of these points is built at creation (at most 4096
 * points, at most 256 hull vertices). Fewer than 4 points, non-finite points
 * and coincident, collinear or coplanar sets are refused. */
typedef struct heft_hull_def {
    const heft_vec3 *points; /* shape frame; copied */
    int count;
} heft_hull_def;

/* Triangle mesh. A triangle (a, b, c) is solid behind and collides on the
 * side its normal (b - a) x (c - a) points to: wind it counter-clockwise seen
 * from where bodies are. Out-of-range indices, non-finite vertices and
 * zero-area triangles are refused. */
typedef struct heft_mesh_def {
    const heft_vec3 *vertices; /* shape frame; copied */
    int vertex_count;
    const int32_t *indices; /* 3 per triangle; copied */
    int triangle_count;
} heft_mesh_def;

/* Height field: heights[j * count_x + i] is the height (shape frame z) of the
 * grid point (i spacing_x, j spacing_y); the shape origin is the grid's
 * corner i = j = 0. Each cell is two triangles split along the diagonal from
 * (i, j) to (i + 1, j + 1). Solid below, collides from above (+z). */
typedef struct heft_height_field_def {
    const double *heights;       /* count_x * count_y, copied; all finite */
    int count_x, count_y;        /* grid points along x and y, each >= 2 */
    double spacing_x, spacing_y; /* m, > 0 */
} heft_height_field_def;

typedef struct heft_shape_def {
    heft_shape_type type; /* default sphere */
    /* sizes in m, each at most HEFT_SHAPE_SIZE_MAX (hull points: |coordinate|) */
    double radius;               /* sphere, capsule, cylinder; default 0.5 */
    double half_length;          /* capsule: half the distance between the cap centres;
                                    cylinder: half its height */
    heft_vec3 half_extents;      /* box; default (0.5, 0.5, 0.5) */
    heft_vec3 normal;            /* plane, shape frame; default (0, 0, 1) */
    double offset;               /* plane: points x with normal . x = offset are on it */
    heft_vec3 local_position;    /* shape frame in body frame; |component| <= HEFT_POSITION_MAX */
    heft_quat local_orientation; /* length in [HEFT_QUAT_NORM_MIN, HEFT_QUAT_NORM_MAX] */
    /* Material. A contact uses mu = sqrt(mu_a mu_b), e = max(e_a, e_b) and
     * rolling resistance max(r_a, r_b); restitution acts only when the bodies
     * approach faster than the world's restitution threshold
     * (heft_world_set_restitution_threshold). */
    double friction;    /* Coulomb mu, default 1.0 (the papers' scenes) */
    double restitution; /* in [0, 1], default 0 */
    /* m: the lever arm of the normal force that resists rolling, a torque of
     * at most rolling_resistance * normal force against the relative turn
     * about the contact's tangents (docs/collision.md "Rolling resistance");
     * in [0, HEFT_ROLLING_RESISTANCE_MAX], default 0 (off) */
    double rolling_resistance;
    double density; /* kg/m^3 for heft_body_set_mass_from_shapes; default 1000 */
    /* Filtering: shapes a and b collide only if (a.category_bits & b.mask_bits)
     * and (b.category_bits & a.mask_bits) are both non-zero. */
    uint32_t category_bits; /* default 1 */
    uint32_t mask_bits;     /* default all ones */
    heft_hull_def hull;
    heft_mesh_def mesh;
    heft_height_field_def height_field;
    void *user_data; /* the application's, never read by the engine; default NULL */
    int is_sensor;   /* non-zero: a sensor, which makes no contacts and no forces but reports
                        the shapes it overlaps (heft_world_sensor_events); its density
                        still counts in heft_body_set_mass_from_shapes; default 0 */
} heft_shape_def;

HEFT_API heft_shape_def heft_default_shape_def(void);
/* Creates a shape on a body. Hull, mesh and height-field data are copied, so
 * the arrays in def may be freed when the call returns. */
HEFT_API heft_shape_id heft_create_shape(heft_world *world, heft_body_id body,
                                         const heft_shape_def *def);
HEFT_API heft_result heft_destroy_shape(heft_world *world, heft_shape_id id);
HEFT_API int heft_shape_is_valid(const heft_world *world, heft_shape_id id);
HEFT_API heft_body_id heft_shape_body(const heft_world *world, heft_shape_id id);
/* The shape's definition. Its hull points are the built hull's vertices,
 * and its hull, mesh and height-field pointers point into the shape's own
 * copies: valid until the shape is destroyed. */
HEFT_API heft_result heft_shape_get_def(const heft_world *world, heft_shape_id id,
                                        heft_shape_def *out);
/* The shapes of a body, by ascending index, at most max; returns how many. */
HEFT_API int heft_body_shapes(const heft_world *world, heft_body_id body, heft_shape_id *out,
                              int max);
/* Material and filter changes take effect at the next step. */
HEFT_API heft_result heft_shape_set_material(heft_world *world, heft_shape_id id, double friction,
                                             double restitution);
/* rolling_resistance in [0, HEFT_ROLLING_RESISTANCE_MAX] m (heft_shape_def) */
HEFT_API heft_result heft_shape_set_rolling_resistance(heft_world *world, heft_shape_id id,
                                                       double rolling_resistance);
HEFT_API heft_result heft_shape_set_filter(heft_world *world, heft_shape_id id,
                                           uint32_t category_bits, uint32_t mask_bits);
/* The application's pointer of a shape (heft_shape_def.user_data): NULL for an
 * invalid id; setting it on an invalid id is HEFT_ERROR_INVALID_ID. */
HEFT_API void *heft_shape_user_data(const heft_world *world, heft_shape_id id);
HEFT_API heft_result heft_shape_set_user_data(heft_world *world, heft_shape_id id, void *user_data);
/* World-frame bounding box of the shape now (planes: infinite extents). */
HEFT_API heft_result heft_shape_aabb(const heft_world *world, heft_shape_id id, heft_vec3 *lo,
                                     heft_vec3 *hi);
/* The surface as triangles in the shape frame, for drawing: box, hull, mesh
 * and height field (spheres, capsules, cylinders and planes have none).
 * Writes at most max triangles (3 points each) and returns how many there
 * are. */
HEFT_API int heft_shape_triangles(const heft_world *world, heft_shape_id id, heft_vec3 *out,
                                  int max);

/* ---- mass properties ------------------------------------------------------ */

/* Mass, centre of mass (body frame) and inertia about that centre (body
 * axes) of the solid a def describes at its density, with its local pose.
 * Planes, meshes and height fields have none (HEFT_ERROR_INVALID_ARGUMENT),
 * nor has a solid whose mass would pass HEFT_MASS_MAX or not be finite. */
HEFT_API heft_result heft_shape_def_mass(const heft_shape_def *def, double *mass, heft_vec3 *center,
                                         heft_mat3 *inertia);
/* Sets a dynamic body's mass and inertia from its shapes and their densities
 * (parallel-axis theorem for compound bodies). The body's position is its
 * centre of mass, so the body frame moves to the new centre: the shapes' local
 * positions and the anchors of the joints on the body shift with it and
 * nothing moves in the world. Shapes of density 0 add nothing; a body whose
 * shapes add no mass is refused. */
HEFT_API heft_result heft_body_set_mass_from_shapes(heft_world *world, heft_body_id body);

/* ---- contacts ------------------------------------------------------------- */

/* Contact points of the last step, ordered by shape pair then feature. */
typedef struct heft_contact_info {
    heft_body_id body_a, body_b;
    heft_vec3 point;            /* on body b's surface, world frame */
    heft_vec3 normal;           /* from a towards b */
    double separation;          /* m, negative when penetrating */
    double normal_impulse;      /* N s */
    heft_vec3 friction_impulse; /* N s, world frame, on body b */
    heft_shape_id shape_a, shape_b;
    uint64_t feature; /* the features of a and b that made the point; the same
                         feature in the next step warm-starts its impulses */
    /* N m s, world frame: the angular impulse of the rolling resistance on
     * body b (0 without it) */
    heft_vec3 rolling_impulse;
} heft_contact_info;

HEFT_API int heft_world_contact_count(const heft_world *world);
HEFT_API heft_result heft_world_contact(const heft_world *world, int i, heft_contact_info *out);
/* Contact events of the last heft_world_step, read after it (nothing is
 * called during the step). A shape pair begins touching when it has contact
 * points and had none at the step before; it ends when it had and has none.
 * Contact points are made within the contact margin (heft_world_def), so a
 * pair "touches" from that distance. With substeps, the events of every
 * substep are reported. A pair whose shape is destroyed between steps ends
 * without an event. The arrays are the world's and stay valid until the next
 * step or the world's destruction. */
typedef struct heft_contact_begin_event {
    heft_shape_id shape_a, shape_b;
    heft_body_id body_a, body_b;
    heft_vec3 point;       /* the pair's first contact point, on b's surface */
    heft_vec3 normal;      /* from a towards b */
    double approach_speed; /* m/s: -(v_b - v_a) . normal at the point before the step's
                              solve; positive when the shapes close in */
} heft_contact_begin_event;

typedef struct heft_contact_end_event {
    heft_shape_id shape_a, shape_b;
    heft_body_id body_a, body_b;
} heft_contact_end_event;

/* A shape pair that struck: of its contact points that the step's solve
 * pushed apart (normal impulse > 0), the one with the largest approach speed,
 * when that speed is above the world's hit event threshold. */
typedef struct heft_contact_hit_event {
    heft_shape_id shape_a, shape_b;
    heft_body_id body_a, body_b;
    heft_vec3 point;       /* on b's surface */
    heft_vec3 normal;      /* from a towards b */
    double approach_speed; /* m/s, as in heft_contact_begin_event; > the threshold */
} heft_contact_hit_event;

typedef struct heft_contact_events {
    const heft_contact_begin_event *begin; /* in ascending order of shape pair */
    int begin_count;
    const heft_contact_end_event *end;
    int end_count;
    const heft_contact_hit_event *hit; /* in ascending order of shape pair (each substep's) */
    int hit_count;
} heft_contact_events;

/* The last step's contact events; empty for a NULL world. */
HEFT_API heft_contact_events heft_world_contact_events(const heft_world *world);

/* The last step's contacts of one body, as indices for heft_world_contact,
 * ascending: up to max of them into out (may be NULL when max is 0).
 * Returns how many the body has (0 for a body made since the last step,
 * and 0 with heft_last_error set for an invalid id or a NULL out). */
HEFT_API int heft_body_contacts(const heft_world *world, heft_body_id body, int *out, int max);

/* Restitution acts only on contacts approaching faster than this, m/s
 * (default 1): slow contacts come to rest instead of jittering. */
HEFT_API heft_result heft_world_set_restitution_threshold(heft_world *world, double speed);
HEFT_API double heft_world_restitution_threshold(const heft_world *world);

/* ---- hits, sensors and contact callbacks (docs/collision.md) ------------- */

/* Hit events (heft_contact_events.hit) report strikes faster than this, m/s,
 * finite and >= 0 (default 1). */
HEFT_API heft_result heft_world_set_hit_event_threshold(heft_world *world, double speed);
HEFT_API double heft_world_hit_event_threshold(const heft_world *world);

/* Sensor events of the last heft_world_step, read after it. A sensor shape
 * (heft_shape_def.is_sensor) overlaps a visitor when their volumes touch or
 * intersect (no margin; meshes and height fields: one of their triangles);
 * the visitor is any shape that is not a sensor and passes the filters of
 * contacts (category and mask bits, the pair filter; joints do not filter
 * sensors), with at least one of the two bodies dynamic. A begin is reported
 * in the step the overlap starts, an end in the step it stops; with
 * substeps, every substep's. A pair whose shape is destroyed ends without an
 * event. The arrays are the world's and stay valid until the next step. */
typedef struct heft_sensor_event {
    heft_shape_id sensor, visitor;
    heft_body_id sensor_body, visitor_body;
} heft_sensor_event;

typedef struct heft_sensor_events {
    const heft_sensor_event *begin; /* ascending by shape pair */
    int begin_count;
    const heft_sensor_event *end;
    int end_count;
} heft_sensor_events;

/* Empty (and heft_last_error set) for a NULL world. */
HEFT_API heft_sensor_events heft_world_sensor_events(const heft_world *world);
/* 1 for a sensor shape, 0 for another shape, and 0 with heft_last_error set
 * for an invalid id. */
HEFT_API int heft_shape_is_sensor(const heft_world *world, heft_shape_id id);

/* The two callbacks below are called during heft_world_step, from the thread
 * that called it, in ascending order of shape pair. They may read the world
 * (every const call: poses, velocities, shapes, user data) but must not
 * change it: no step, no creation or destruction, no setter. Neither is
 * called for a pair whose bodies sleep or rest (docs/sleeping.md): setting
 * either wakes every island, and a callback that starts to answer otherwise
 * wakes the bodies it concerns with heft_body_wake. */

/* Custom pair filter: called for each candidate shape pair of the step (its
 * boxes grown by the contact margin overlap) that passed the category and
 * mask bits and the joint filter, every step while the pair is candidate;
 * returning 0 refuses the pair for this step (no contact, no sensor
 * overlap, no continuous collision between the two). */
typedef int (*heft_pair_filter_fn)(void *context, heft_shape_id shape_a, heft_shape_id shape_b,
                                   heft_body_id body_a, heft_body_id body_b);
/* fn NULL removes the filter. Refuses a NULL world. */
HEFT_API heft_result heft_world_set_pair_filter(heft_world *world, heft_pair_filter_fn fn,
                                                void *context);

#define HEFT_PRE_SOLVE_MAX_POINTS 4

/* One touching shape pair before its rows are written: the fields above
 * the line are read only; those below may be changed. */
typedef struct heft_pre_solve_contact {
    heft_shape_id shape_a, shape_b;
    heft_body_id body_a, body_b;
    int point_count;                              /* 1 .. HEFT_PRE_SOLVE_MAX_POINTS */
    heft_vec3 points[HEFT_PRE_SOLVE_MAX_POINTS];  /* on b's surface, world frame */
    heft_vec3 normals[HEFT_PRE_SOLVE_MAX_POINTS]; /* from a towards b */
    double separations[HEFT_PRE_SOLVE_MAX_POINTS];
    /* ---- may be changed (starting from the shapes' mixed material) ---- */
    double friction;            /* mu, finite and >= 0 */
    double restitution;         /* in [0, 1] */
    heft_vec3 tangent_velocity; /* m/s, world frame: the velocity the friction rows drive b's
                                   surface to relative to a's (its component along each
                                   normal is dropped); default 0. A conveyor belt that is
                                   shape a moving at u: u; when it is shape b: -u */
    double rolling_resistance;  /* m, in [0, HEFT_ROLLING_RESISTANCE_MAX] */
} heft_pre_solve_contact;

/* Called once per touching shape pair (sensors excluded) each step, after
 * the narrowphase and before the rows are written. Returning 0 disables the
 * pair for this step: its points are dropped (no rows, not in
 * heft_world_contact; it ends and begins again in the contact events as if
 * it had stopped touching). A changed value outside its range is not used
 * (the pair keeps the mixed material, or a zero tangent velocity). */
typedef int (*heft_pre_solve_fn)(void *context, heft_pre_solve_contact *contact);
/* fn NULL removes the callback. Refuses a NULL world. */
HEFT_API heft_result heft_world_set_pre_solve(heft_world *world, heft_pre_solve_fn fn,
                                              void *context);

/* ---- queries -------------------------------------------------------------- */

typedef struct heft_ray_hit {
    heft_body_id body;
    heft_shape_id shape;
    heft_vec3 point;  /* world frame */
    heft_vec3 normal; /* surface normal at the point, against the ray */
    double distance;  /* m from the origin along the unit direction */
} heft_ray_hit;

/* Closest hit of the ray origin + t direction, 0 <= t <= max_distance, with
 * the shapes whose category_bits share a bit with mask_bits. direction need
 * not be unit (it is normalised). Returns 1 on a hit (filling hit), 0 on none,
 * a negative heft_result on bad input. A ray that starts inside a solid shape
 * does not hit that shape; meshes and height fields are hit from their
 * colliding side only. */
HEFT_API int heft_world_ray_cast(heft_world *world, heft_vec3 origin, heft_vec3 direction,
                                 double max_distance, uint32_t mask_bits, heft_ray_hit *hit);
/* The shapes whose world bounding boxes overlap the box [lo, hi] and whose
 * category_bits share a bit with mask_bits, ascending by index; writes at most
 * max ids and returns how many there are (negative on bad input). */
HEFT_API int heft_world_query_aabb(heft_world *world, heft_vec3 lo, heft_vec3 hi,
                                   uint32_t mask_bits, heft_shape_id *out, int max);

/* Filters of the queries below (docs/queries.md). A shape is seen when its
 * category_bits share a bit with the filter's mask_bits and its mask_bits
 * share a bit with the filter's category_bits (the rule of shape pairs), and
 * then when fn, if set, returns non-zero for it. fn is called during the
 * query: it may read the world but not change it. A NULL filter is
 * heft_default_query_filter(): every shape. */
typedef int (*heft_query_filter_fn)(void *context, heft_shape_id shape, heft_body_id body);
typedef struct heft_query_filter {
    uint32_t category_bits;  /* default all ones */
    uint32_t mask_bits;      /* default all ones */
    heft_query_filter_fn fn; /* default NULL */
    void *context;
} heft_query_filter;

HEFT_API heft_query_filter heft_default_query_filter(void);

/* Every query below refuses (a negative heft_result, heft_last_error set,
 * nothing written) a NULL world or output, non-finite positions, a zero or
 * non-finite direction, a negative or non-finite max_distance, a negative max,
 * and cast shapes heft_create_shape would refuse or that are not convex. */

/* The closest ray hit among the shapes the filter passes; as
 * heft_world_ray_cast otherwise. */
HEFT_API int heft_world_ray_cast_closest(heft_world *world, heft_vec3 origin, heft_vec3 direction,
                                         double max_distance, const heft_query_filter *filter,
                                         heft_ray_hit *hit);
/* Every shape the ray hits (its first entry point), by ascending distance
 * (equal distances by shape index). Writes at most max hits and returns how
 * many there are. */
HEFT_API int heft_world_ray_cast_all(heft_world *world, heft_vec3 origin, heft_vec3 direction,
                                     double max_distance, const heft_query_filter *filter,
                                     heft_ray_hit *out, int max);
/* Called for each hit of heft_world_ray_cast_callback, in no particular order.
 * Returns what the ray does next: a negative value ignores this hit and goes
 * on, 0 stops the cast, hit->distance clips the ray there (only closer hits
 * follow: the closest hit is the last one reported), max_distance or more goes
 * on unclipped. */
typedef double (*heft_ray_result_fn)(void *context, const heft_ray_hit *hit);
/* Returns the number of hits fn did not ignore (negative on bad input). */
HEFT_API int heft_world_ray_cast_callback(heft_world *world, heft_vec3 origin, heft_vec3 direction,
                                          double max_distance, const heft_query_filter *filter,
                                          heft_ray_result_fn fn, void *context);

/* Shape casts: a sphere, capsule, box, hull or cylinder (shape->type), whose
 * frame is at position and orientation (shape->local_position and
 * local_orientation placed within it, the rest of the def as for
 * heft_create_shape; material and filter fields are ignored), swept without
 * turning along direction (normalised) up to max_distance. A hit is the first
 * touch: hit->distance the time of impact in m along the unit direction, the
 * point on the surface of the shape hit, its normal there (towards the cast
 * shape), the shape and its body. A cast starting in touch or overlap with a
 * shape hits it at distance 0 (normal: the penetration's, or against the
 * direction). Meshes and height fields are hit from their colliding side. The
 * time of impact is exact to 1e-9 m (conservative advancement on GJK
 * distances, docs/queries.md). Returns 1 on a hit, 0 on none. */
HEFT_API int heft_world_cast_shape(heft_world *world, const heft_shape_def *shape,
                                   heft_vec3 position, heft_quat orientation, heft_vec3 direction,
                                   double max_distance, const heft_query_filter *filter,
                                   heft_ray_hit *hit);
/* Every shape the cast shape would hit (its first touch of each), by
 * ascending distance; writes at most max and returns how many there are. */
HEFT_API int heft_world_cast_shape_all(heft_world *world, const heft_shape_def *shape,
                                       heft_vec3 position, heft_quat orientation,
                                       heft_vec3 direction, double max_distance,
                                       const heft_query_filter *filter, heft_ray_hit *out, int max);
/* The same sweep for a shape of the world from its current pose (its own body
 * is never hit): what a character controller asks before moving. */
HEFT_API int heft_shape_cast(heft_world *world, heft_shape_id shape, heft_vec3 direction,
                             double max_distance, const heft_query_filter *filter,
                             heft_ray_hit *hit);
/* The shapes the given shape, at rest at that pose, touches or overlaps
 * (surfaces within 0 m; meshes and height fields: touching one of their
 * triangles, either side), ascending by index; writes at most max ids and
 * returns how many there are. */
HEFT_API int heft_world_overlap_shape(heft_world *world, const heft_shape_def *shape,
                                      heft_vec3 position, heft_quat orientation,
                                      const heft_query_filter *filter, heft_shape_id *out, int max);

/* ---- joints ------------------------------------------------------------- */

/* Every joint has two frames, one fixed in each body, that coincide when the
 * joint is assembled: origin at the anchor, x along the joint axis, y and z
 * the heft_v3_basis of the axis (body a; body b's y is matched to a's at
 * creation). The joint's coordinates are measured between them: X, Y, Z the
 * position of b's anchor in a's frame (m), RX, RY, RZ the angles of b's frame
 * about a's axes (rad, 2 atan2(q_k, q_w) of the relative rotation: the exact
 * angle of a rotation about that axis alone, and the twist of a swing-twist
 * split for RX). Angles are zero at creation and count whole turns. Rows, phi
 * and Jacobians of each type: docs/joints.md. */
typedef enum heft_joint_type {
    HEFT_JOINT_BALL = 0,        /* ball-in-socket: the anchors coincide (3 rows); optional twist
                                   limit on RX and cone limit on HEFT_DOF_SWING */
    HEFT_JOINT_HINGE = 1,       /* the anchors coincide and the axes stay parallel (5 rows);
                                   limit and motor on RX */
    HEFT_JOINT_FIXED = 2,       /* weld: the relative pose at creation is kept (6 rows) */
    HEFT_JOINT_PRISMATIC = 3,   /* slider: b keeps its orientation relative to a and its anchor on
                                   a's axis line (5 rows); limit and motor on X */
    HEFT_JOINT_CYLINDRICAL = 4, /* b's anchor on a's axis line, axes parallel (4 rows): slides and
                                   turns; limits and motors on X and RX */
    HEFT_JOINT_UNIVERSAL = 5,   /* Cardan: the anchors coincide and axis a stays perpendicular
                                   to axis b (4 rows) */
    HEFT_JOINT_DISTANCE = 6,    /* rod: the anchors stay `length` apart (1 row); soft = a spring */
    HEFT_JOINT_ROPE = 7,        /* the anchors at most `length` apart (1 one-sided row, present
                                   only near taut) */
    HEFT_JOINT_SIX_DOF = 8,     /* each of X, Y, Z, RX, RY, RZ locked, free or limited (dof_mode),
                                   and optionally motorised */
    HEFT_JOINT_GEAR = 9,        /* couples two hinges: from creation on, RX(joint_b) turns ratio
                                   times RX(joint_a) (1 row). Rigid, it holds the ratio in
                                   velocity (the phase is not corrected); with stiffness and
                                   damping it is a torsional spring on the phase */
    HEFT_JOINT_RACK = 10        /* couples a hinge (joint_a) and a prismatic or cylindrical joint
                                   (joint_b): X(joint_b) moves ratio times RX(joint_a), ratio in
                                   m/rad (1 row); as the gear otherwise */
} heft_joint_type;

/* The joint coordinates, in the joint frame of body a (see above). */
typedef enum heft_joint_dof {
    HEFT_DOF_X = 0, /* along the joint axis, m */
    HEFT_DOF_Y = 1,
    HEFT_DOF_Z = 2,
    HEFT_DOF_RX = 3, /* about the joint axis (hinge angle, twist), rad */
    HEFT_DOF_RY = 4,
    HEFT_DOF_RZ = 5,
    HEFT_DOF_SWING = 6 /* ball joint: the angle between the two axes, rad (limits only) */
} heft_joint_dof;
#define HEFT_JOINT_DOF_COUNT 7

/* A limit keeps a coordinate in [lower, upper] with one-sided rows, each one
 * added only while the coordinate is near its bound. Stiffness and damping
 * (N/m and N s/m, or N m/rad and N m s/rad) make it a spring once passed; both
 * zero is rigid. The ball joint's cone (HEFT_DOF_SWING) reads only upper, its
 * half-angle, 0 < upper <= pi. */
typedef struct heft_joint_limit {
    int enabled;               /* default 0 */
    double lower, upper;       /* m or rad, lower <= upper */
    double stiffness, damping; /* default 0: rigid */
} heft_joint_limit;

typedef enum heft_motor_mode {
    HEFT_MOTOR_OFF = 0,
    HEFT_MOTOR_VELOCITY = 1, /* drives the coordinate's rate to target_velocity */
    HEFT_MOTOR_POSITION = 2  /* drives the coordinate to target_position like a spring-damper
                                servo (stiffness, damping), with target_velocity fed forward */
} heft_motor_mode;

/* A motor is one boxed row on a coordinate: |lambda| <= h max_force. In
 * velocity mode damping > 0 makes it viscous (force = damping (target - rate)),
 * zero makes it stiff; in position mode stiffness and damping are the servo's
 * gains (both zero: rigid, the joint Baumgarte factor pulls it in). A
 * velocity motor with target 0 and a small max_force is joint friction. */
typedef struct heft_joint_motor {
    heft_motor_mode mode;      /* default off */
    double target_velocity;    /* m/s or rad/s, |v| <= HEFT_SPEED_MAX */
    double target_position;    /* m or rad (whole turns count), |x| <= HEFT_POSITION_MAX */
    double max_force;          /* N or N m, >= 0; default INFINITY (no limit) */
    double stiffness, damping; /* N/m, N s/m (N m/rad, N m s/rad) */
} heft_joint_motor;

/* How the six-DOF joint treats each coordinate. */
typedef enum heft_dof_mode {
    HEFT_DOF_LOCKED = 0, /* a bilateral row holds the coordinate at 0 (the default) */
    HEFT_DOF_FREE = 1,   /* no row (unless limit[dof].enabled or a motor) */
    HEFT_DOF_LIMITED = 2 /* free within limit[dof].lower .. upper */
} heft_dof_mode;

typedef struct heft_joint_def {
    heft_joint_type type;
    heft_body_id body_a; /* HEFT_WORLD_FRAME: the fixed world frame */
    heft_body_id body_b;
    heft_vec3 local_anchor_a; /* body a's frame (world frame when body_a is the world) */
    heft_vec3 local_anchor_b;
    heft_vec3 local_axis_a; /* joint axis in each body's frame, non-zero; default (0, 0, 1);
                               universal: the cross's arm in a, and the one in b (which
                               must be within 6 degrees of perpendicular at creation) */
    heft_vec3 local_axis_b;
    /* Softness in physical units (docs/architecture.md "The MLCP of an island", [Ho 2022]
     * eq. 2.23): both zero means rigid (the world's rigid compliance and joint Baumgarte factor);
     * otherwise epsilon = 1/(h c + h^2 k), gamma = h k / (c + h k). */
    double stiffness; /* k: N/m for linear rows, N m/rad for angular rows */
    double damping;   /* c: N s/m, N m s/rad */
    /* per coordinate: the softness of the row holding that coordinate (hinge
     * RY, RZ; prismatic Y, Z, RX, RY, RZ; cylindrical Y, Z, RY, RZ; six-DOF
     * locked coordinates); both zero: the joint's stiffness and damping */
    double dof_stiffness[6], dof_damping[6];
    heft_joint_limit limit[HEFT_JOINT_DOF_COUNT]; /* by heft_joint_dof; see each type */
    heft_joint_motor motor[6];                    /* by heft_joint_dof; see each type */
    heft_dof_mode dof_mode[6];                    /* six-DOF joint only; default all locked */
    double length;         /* distance, rope: m, >= 0; 0 (default) takes the anchors'
                              distance at creation, which must then be > 0 */
    heft_joint_id joint_a; /* gear, rack: the coupled joints (body_a, body_b are ignored) */
    heft_joint_id joint_b;
    double ratio;          /* gear, rack: finite; default 1 */
    int collide_connected; /* 1: the two bodies may still collide; default 0 */
    double break_force;    /* N: the joint breaks (writes no more rows) after a step whose
                              reaction force exceeds this; default INFINITY */
    double break_torque;   /* N m, the same for the reaction torque; default INFINITY */
    const char *name;      /* copied (up to 47 bytes); may be NULL */
    void *user_data;
} heft_joint_def;

HEFT_API heft_joint_def heft_default_joint_def(heft_joint_type type);
/* Fills the local anchors and axes of def from a world-frame anchor point and
 * axis at the bodies' current poses. For a universal joint the axis is arm a
 * and arm b gets heft_v3_basis's first perpendicular of it. */
HEFT_API heft_result heft_joint_def_set_world_frame(const heft_world *world, heft_joint_def *def,
                                                    heft_vec3 anchor, heft_vec3 axis);
/* The same with a different world axis for each body (universal joints). */
HEFT_API heft_result heft_joint_def_set_world_axes(const heft_world *world, heft_joint_def *def,
                                                   heft_vec3 anchor, heft_vec3 axis_a,
                                                   heft_vec3 axis_b);

/* Refuses (error, nothing changed) unknown types, missing or stale bodies, a
 * body joined to itself, two non-dynamic bodies, non-finite anchors, zero or
 * non-finite axes, negative or non-finite softness, limits with lower > upper
 * or on coordinates the type does not have, bad motors, a gear that does not
 * couple two hinges of different bodies, a rack that does not couple a hinge
 * with a prismatic or cylindrical joint. */
HEFT_API heft_joint_id heft_create_joint(heft_world *world, const heft_joint_def *def);
/* Also destroys the gears and racks coupling this joint. */
HEFT_API heft_result heft_destroy_joint(heft_world *world, heft_joint_id id);
HEFT_API int heft_joint_is_valid(const heft_world *world, heft_joint_id id);
HEFT_API const char *heft_joint_name(const heft_world *world, heft_joint_id id);
HEFT_API void *heft_joint_user_data(const heft_world *world, heft_joint_id id);
HEFT_API heft_joint_type heft_joint_get_type(const heft_world *world, heft_joint_id id);
/* 1 once the joint broke (break_force, break_torque): it writes no rows. */
HEFT_API int heft_joint_is_broken(const heft_world *world, heft_joint_id id);

/* The joints that broke in the last heft_world_step, each reported once, in
 * the step it broke, with the reaction that broke it (the last step's force
 * on body b at the anchor, N, and torque about the anchor, N m). Read after
 * the step; the array is the world's and stays valid until the next step. */
typedef struct heft_joint_broken_event {
    heft_joint_id joint;
    heft_vec3 force, torque;
} heft_joint_broken_event;

typedef struct heft_joint_events {
    const heft_joint_broken_event *broken;
    int broken_count;
} heft_joint_events;

/* Empty for a NULL world. */
HEFT_API heft_joint_events heft_world_joint_events(const heft_world *world);

/* Where a joint is now, for drawing and inspection: its two bodies (body_a
 * HEFT_WORLD_FRAME for the world frame), its anchor on each (world frame) and
 * each body's joint frame (x along the joint axis, see above). Gear and rack:
 * the bodies and frames of their coupled joints' body b. */
typedef struct heft_joint_frames {
    heft_body_id body_a, body_b;
    heft_vec3 anchor_a, anchor_b;
    heft_quat frame_a, frame_b;
} heft_joint_frames;

HEFT_API heft_result heft_joint_get_frames(const heft_world *world, heft_joint_id id,
                                           heft_joint_frames *out);

/* Operators drive machines: these may be called before every step. The dof
 * must be one the type has a motor (limit) on; the same checks as creation. */
HEFT_API heft_result heft_joint_set_motor(heft_world *world, heft_joint_id id, heft_joint_dof dof,
                                          const heft_joint_motor *motor);
HEFT_API heft_result heft_joint_set_motor_velocity(heft_world *world, heft_joint_id id,
                                                   heft_joint_dof dof, double target_velocity);
HEFT_API heft_result heft_joint_set_motor_position(heft_world *world, heft_joint_id id,
                                                   heft_joint_dof dof, double target_position);
HEFT_API heft_result heft_joint_set_limit(heft_world *world, heft_joint_id id, heft_joint_dof dof,
                                          const heft_joint_limit *limit);
/* Distance and rope joints: the new length (m, > 0), e.g. a winch paying out. */
HEFT_API heft_result heft_joint_set_length(heft_world *world, heft_joint_id id, double length);

/* The coordinate now (m or rad, angles counting whole turns) and its rate
 * (m/s, rad/s) from the bodies' velocities; distance and rope joints: X is
 * the anchors' distance. 0 for an invalid id or a coordinate the joint has
 * not got (gear, rack, fixed). */
HEFT_API double heft_joint_coordinate(const heft_world *world, heft_joint_id id,
                                      heft_joint_dof dof);
HEFT_API double heft_joint_coordinate_velocity(const heft_world *world, heft_joint_id id,
                                               heft_joint_dof dof);

/* The joint's positional error now, m: the distance between its anchors
 * (ball, hinge, fixed, universal), of b's anchor from a's axis line
 * (prismatic, cylindrical), of the locked linear coordinates (six-DOF), the
 * length error (distance; rope when longer); rack: the rack's error in m;
 * gear: 0 (its error is an angle). */
HEFT_API double heft_joint_gap(const heft_world *world, heft_joint_id id);

/* Readback of the last step. Rows are the ones written in that step (limits
 * come and go); row_impulse is lambda (N s or N m s). */
HEFT_API int heft_joint_row_count(const heft_world *world, heft_joint_id id);
HEFT_API double heft_joint_row_impulse(const heft_world *world, heft_joint_id id, int row);

typedef enum heft_joint_row_role {
    HEFT_JOINT_ROW_CONSTRAINT = 0, /* holds the joint together (or a locked coordinate) */
    HEFT_JOINT_ROW_LIMIT_LOWER = 1,
    HEFT_JOINT_ROW_LIMIT_UPPER = 2,
    HEFT_JOINT_ROW_MOTOR = 3
} heft_joint_row_role;

typedef struct heft_joint_row_info {
    heft_joint_row_role role;
    int dof;            /* heft_joint_dof the row acts on; -1 for rows that are not one
                           coordinate (anchor rows along world axes, hinge alignment) */
    double impulse;     /* lambda, N s or N m s */
    double force;       /* lambda / h: N or N m; for a coordinate row signed along the
                           coordinate (a lower limit pushes up: > 0; an upper one < 0) */
    heft_vec3 force_b;  /* this row's force on body b, world frame, N */
    heft_vec3 torque_b; /* and its torque on b about b's anchor, N m */
} heft_joint_row_info;

HEFT_API heft_result heft_joint_get_row_info(const heft_world *world, heft_joint_id id, int row,
                                             heft_joint_row_info *out);
/* Sums over the last step's rows of a role on a coordinate, signed along it
 * (N or N m): what the motor applied, what the limits applied. */
HEFT_API double heft_joint_motor_force(const heft_world *world, heft_joint_id id,
                                       heft_joint_dof dof);
HEFT_API double heft_joint_limit_force(const heft_world *world, heft_joint_id id,
                                       heft_joint_dof dof);
/* Reaction of the last step: the constraint force and torque (lambda / h) the
 * joint applied to body b, world frame, torque about body b's anchor. Body a
 * received the opposite force (gear and rack: body a is the first joint's
 * body b, and the carriers take the difference). */
HEFT_API heft_result heft_joint_reaction(const heft_world *world, heft_joint_id id,
                                         heft_vec3 *force, heft_vec3 *torque);

/* ---- debug draw (docs/queries.md) ---------------------------------------- */

/* A colour as 0xRRGGBB. */
typedef uint32_t heft_color;

#define HEFT_COLOR_STATIC 0x8C8C8Cu    /* shapes of static bodies */
#define HEFT_COLOR_KINEMATIC 0x6495EDu /* of kinematic bodies */
#define HEFT_COLOR_DYNAMIC 0xE6C27Au   /* of dynamic bodies */
#define HEFT_COLOR_SENSOR 0x40E0A0u    /* sensor shapes, whatever their body */
#define HEFT_COLOR_AABB 0xFF00FFu
#define HEFT_COLOR_CONTACT 0xFF4040u          /* contact points */
#define HEFT_COLOR_CONTACT_NORMAL 0x40E040u   /* normals, and the normal forces */
#define HEFT_COLOR_CONTACT_FRICTION 0xFFE040u /* friction forces */
#define HEFT_COLOR_JOINT 0x40C0FFu
#define HEFT_COLOR_JOINT_LIMIT 0xFF8C00u
#define HEFT_COLOR_TEXT 0xFFFFFFu
#define HEFT_COLOR_SLEEP 0x7878A0u /* boxes of sleeping islands */

/* What heft_world_draw draws (or-ed together). */
typedef enum heft_draw_flags {
    HEFT_DRAW_SHAPES = 1 << 0,         /* every shape, coloured by its body's type */
    HEFT_DRAW_AABBS = 1 << 1,          /* every bounded shape's world box (12 segments) */
    HEFT_DRAW_CONTACTS = 1 << 2,       /* the last step's contact points and normals */
    HEFT_DRAW_CONTACT_FORCES = 1 << 3, /* their normal and friction forces, force_scale m/N */
    HEFT_DRAW_JOINTS = 1 << 4,         /* anchors, both joint frames, the body-anchor links */
    HEFT_DRAW_JOINT_LIMITS = 1 << 5,   /* enabled limits: segments (linear), arcs (angular),
                                          the ball joint's cone */
    HEFT_DRAW_ISLANDS = 1 << 6,        /* the last step's islands as boxes around their shapes */
    HEFT_DRAW_SLEEP = 1 << 7,          /* each sleeping island as a box around its shapes
                                          (docs/sleeping.md) */
    HEFT_DRAW_MASS = 1 << 8,           /* each dynamic body's centre of mass and axes */
    HEFT_DRAW_NAMES = 1 << 9           /* the names of named bodies, at their centres */
} heft_draw_flags;

/* Drawing callbacks the application supplies; any may be NULL (not drawn).
 * Everything is in world frame, in metres. */
typedef struct heft_debug_draw {
    void (*segment)(void *context, heft_vec3 a, heft_vec3 b, heft_color color);
    /* size: draw.point_size, in the application's units (pixels, say) */
    void (*point)(void *context, heft_vec3 p, double size, heft_color color);
    /* a frame: x, y, z axes of length draw.axis_length from origin */
    void (*transform)(void *context, heft_vec3 origin, heft_quat orientation);
    /* A shape at its world pose (shape frame), to draw in the application's
     * own way (heft_shape_get_def gives its geometry). NULL: shapes are drawn
     * as wireframes of segments (polytope edges; three great circles of a
     * sphere; rings and lines of capsules and cylinders; a 20 m square of a
     * plane; the triangles of meshes and height fields). */
    void (*shape)(void *context, heft_shape_id shape, heft_shape_type type, heft_vec3 position,
                  heft_quat orientation, heft_color color);
    void (*text)(void *context, heft_vec3 p, const char *text, heft_color color);
    void *context;
    double axis_length; /* m: frames, contact normals, angular limit arcs; default 0.2 */
    double force_scale; /* m per N of contact force; default 0.001 */
    double point_size;  /* default 5 */
} heft_debug_draw;

HEFT_API heft_debug_draw heft_default_debug_draw(void);

/* Calls draw's callbacks for what flags asks, from the world's current poses
 * and the last step's contacts, joints' rows and islands. The callbacks may
 * read the world but not change it. Refuses a NULL world or draw, and a
 * non-finite or negative axis_length, force_scale or point_size. */
HEFT_API heft_result heft_world_draw(const heft_world *world, const heft_debug_draw *draw,
                                     uint32_t flags);

/* ---- definitions read back ----------------------------------------------- */

/* The definition a body (joint) would be made again from: its current pose
 * and velocities, mass, damping, name and user data. A joint's anchors and
 * axes are in its bodies' frames now (heft_body_set_mass_from_shapes moves
 * them), its length the current one; gears and racks name their coupled
 * joints. The name points into the object: valid until it is destroyed. */
HEFT_API heft_result heft_body_get_def(const heft_world *world, heft_body_id id,
                                       heft_body_def *out);
HEFT_API heft_result heft_joint_get_def(const heft_world *world, heft_joint_id id,
                                        heft_joint_def *out);
/* The world's settings (solver: its registry name). */
HEFT_API heft_world_def heft_world_get_def(const heft_world *world);

/* ---- scene files (docs/scene-format.md) ----------------------------------- */

/* What a scene file says beside the world: its name (which a program may use
 * to attach code to it), the time step and the number of steps it is meant to
 * run, and its operator axes, each bound to a joint's motor or length. */
#define HEFT_SCENE_MAX_OPERATORS 16

typedef enum heft_operator_target {
    HEFT_OPERATOR_MOTOR_VELOCITY = 0, /* the motor's target_velocity on dof */
    HEFT_OPERATOR_MOTOR_POSITION = 1, /* the motor's target_position on dof */
    HEFT_OPERATOR_LENGTH = 2          /* a distance or rope joint's length */
} heft_operator_target;

typedef struct heft_scene_operator {
    char name[48];
    char unit[16];
    char help[96];
    double min, max; /* the axis's range, min <= max */
    double value;    /* the axis's value at load */
    heft_joint_id joint;
    heft_joint_dof dof; /* motor targets only */
    heft_operator_target target;
    double scale; /* the target is scale * value (default 1) */
} heft_scene_operator;

typedef struct heft_scene_info {
    char name[64];    /* "" when the file names none */
    double time_step; /* s, > 0; 1/60 when the file says none */
    int steps;        /* a run's length, >= 0 (0: unspecified) */
    int operator_count;
    heft_scene_operator operators[HEFT_SCENE_MAX_OPERATORS];
} heft_scene_info;

HEFT_API heft_scene_info heft_default_scene_info(void);

/* Reads a scene file and makes a world of it; info (may be NULL) receives
 * what the file says beside the world. NULL on any error, with
 * heft_last_error() naming the file, the line and the field: the whole file
 * is checked before anything is made. */
HEFT_API heft_world *heft_world_load(const char *path, heft_scene_info *info);
/* Adds the bodies, shapes and joints of a scene file to an existing world
 * (its world and solver settings are checked but not applied). On any error
 * the world is left exactly as it was. */
HEFT_API heft_result heft_world_load_into(heft_world *world, const char *path,
                                          heft_scene_info *info);
/* The same from text in memory; source names it in error messages. */
HEFT_API heft_world *heft_world_load_text(const char *text, size_t length, const char *source,
                                          heft_scene_info *info);
HEFT_API heft_result heft_world_load_text_into(heft_world *world, const char *text, size_t length,
                                               const char *source, heft_scene_info *info);
/* Writes the world as a scene file (info may be NULL: no name, 1/60, no
 * operators). Numbers have 17 significant digits, so loading the file gives
 * the same doubles and saving that world the same bytes. */
HEFT_API heft_result heft_world_save(const heft_world *world, const char *path,
                                     const heft_scene_info *info);
/* The same into a buffer of heft_alloc'ed memory the caller frees with
 * heft_free; *length (may be NULL) receives its length without the final 0. */
HEFT_API char *heft_world_save_text(const heft_world *world, const heft_scene_info *info,
                                    size_t *length);
/* Sets an operator's value (clamped to its range) and its joint's target. */
HEFT_API heft_result heft_scene_operator_apply(heft_world *world, heft_scene_operator *op,
                                               double value);

/* ---- snapshots (docs/snapshots.md) ----------------------------------------- */

/* Writes the world's changing state (poses, velocities, pending forces, the
 * joints' states and drives, the contacts with their warm starts, the
 * islands and who sleeps with the sleep settings, the sensors' overlaps,
 * each island's solver state, the time and step count) into buffer, and its
 * size into *size. A NULL buffer asks for the size alone. A buffer smaller
 * than the state is HEFT_ERROR_INVALID_ARGUMENT (with *size the bytes
 * needed). Stepping on from a state restored from the buffer is
 * bit-identical to stepping on from the original. */
HEFT_API heft_result heft_world_save_state(const heft_world *world, void *buffer, size_t capacity,
                                           size_t *size);
/* Puts the state saved in buffer back. A buffer of another world layout
 * (bodies, joints or shapes created or destroyed since), of another format
 * or build, damaged or truncated is refused with HEFT_ERROR_INVALID_ARGUMENT
 * and the world is left exactly as it was. A buffer saved under another
 * solver restores everything but the solver states, which start afresh. */
HEFT_API heft_result heft_world_restore_state(heft_world *world, const void *buffer, size_t size);

/* ---- URDF import (docs/urdf.md) ------------------------------------------ */

/* How a URDF robot is placed and mapped. */
typedef struct heft_urdf_options {
    heft_vec3 position;       /* the root link's frame in the world; default the origin */
    heft_quat orientation;    /* default identity */
    int fixed_base;           /* 1 (default): the root link is a static body, fixed to the world;
                                 0: it is free (it needs a mass) */
    int merge_fixed;          /* 1: every link on a fixed joint becomes part of its parent's body;
                                 0 (default): only links without mass (or under one) do, the
                                 others are welded with a fixed joint */
    int joint_dynamics;       /* 1 (default): a joint's <dynamics> friction and damping become a
                                 velocity motor holding 0 (docs/urdf.md); 0: ignored */
    double friction;          /* Coulomb mu of every shape, >= 0; default 1 */
    uint32_t category_bits;   /* filter of every shape; default 1 */
    uint32_t mask_bits;       /* default all ones */
    const char *package_root; /* folder holding the packages of package://NAME/... mesh paths;
                                 NULL (default): such paths are refused */
} heft_urdf_options;

/* What an import made. */
typedef struct heft_urdf_result {
    char robot[64];    /* the <robot> name */
    heft_body_id root; /* the root link's body */
    int body_count;    /* bodies made, one per link less the merged ones */
    int shape_count;
    int joint_count;
    int merged_links; /* links made part of their parent's body */
    int ignored;      /* things read and not mapped (mimic, joint friction with damping ...) */
    char note[192];   /* the first of them, naming its line; "" when none */
} heft_urdf_result;

HEFT_API heft_urdf_options heft_default_urdf_options(void);

/* Adds the links of a URDF file to world as bodies (named after their
 * links, each body's frame at its centre of mass with its link's axes),
 * their collision geometry as shapes and their joints as joints, in the
 * joints' zero position. options and result may be NULL. Malformed or
 * unmappable files are refused (an error naming the file, the line, the
 * element and attribute), leaving the world exactly as it was. Refused
 * too when the library was built without URDF support (HEFT_URDF). */
HEFT_API heft_result heft_world_import_urdf(heft_world *world, const char *path,
                                            const heft_urdf_options *options,
                                            heft_urdf_result *result);
/* The same from text in memory; source names it in messages, and relative
 * mesh paths start from its folder. */
HEFT_API heft_result heft_world_import_urdf_text(heft_world *world, const char *text, size_t length,
                                                 const char *source,
                                                 const heft_urdf_options *options,
                                                 heft_urdf_result *result);

#ifdef __cplusplus
}
#endif

#endif
