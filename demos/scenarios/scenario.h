/* Scenarios: each scene is one function that builds it through the public
 * API (design "Scenarios"), plus its operator inputs and its "it works"
 * checks. The headless runner, the tests, the benchmarks and the viewer all
 * run the same functions. */
#ifndef HEFT_SCENARIO_H
#define HEFT_SCENARIO_H

#include <stddef.h>

#include "heft.h"

/* Parameters a scene may read; zero means the scene's default. */
typedef struct scenario_params {
    int links;           /* hanging-chain: number of links (default 20) */
    double link_mass;    /* hanging-chain: kg per link (default 1) */
    double load_mass;    /* hanging-chain: kg (default 2000) */
    double angle_deg;    /* hanging-chain, pendulum: start angle from vertical, used when it is
                            not zero or angle_set is (so 0 degrees can be asked for) */
    int angle_set;       /* angle_deg holds the caller's angle, even 0 */
    double length;       /* pendulum: m (default 1); hanging-chain: link length (default 0.5) */
    const char *variant; /* stacking: "boxes" (default), "pyramid", "tower", "wall" */
    int size;            /* stacking: boxes: stacks; pyramid: boxes at the base; tower: layers;
                            wall: bricks per course (0: the variant's default) */
    int no_reserve;      /* winch, hanging-chain: 1 leaves the world's arrays and workspaces to
                            grow instead of reserving them ahead (heft_world_reserve), to
                            compare */
} scenario_params;

/* The most bodies a scene builds from its parameters (--links, --size): a
 * bound on memory and on the int arithmetic of sizes, far above what any
 * solver steps at an interactive rate. */
#define SCENARIO_MAX_BODIES 100000

/* Which parameters a scene reads (scenario_desc.reads). */
enum {
    SCENARIO_READS_LINKS = 1 << 0,
    SCENARIO_READS_LINK_MASS = 1 << 1,
    SCENARIO_READS_LOAD_MASS = 1 << 2,
    SCENARIO_READS_ANGLE = 1 << 3,
    SCENARIO_READS_LENGTH = 1 << 4,
    SCENARIO_READS_VARIANT = 1 << 5,
    SCENARIO_READS_SIZE = 1 << 6
};

typedef struct scenario_check {
    char name[64];
    int pass;
    double value;
    double limit;
} scenario_check;

#define SCENARIO_MAX_CHECKS 8

/* Operator inputs: a scene's named axes (crane: slew, luff, hoist; forklift:
 * drive, steer, lift, tilt; winch: drum). An axis holds the value the
 * operator asks for (a rate or a position, in its unit), clamped to
 * [min, max]; the scene's apply callback turns the values into motor targets
 * before each step. Headless, the scene's scripted timeline sets them; a
 * viewer sets them from keys with scenario_set_axis. */
typedef struct scenario_axis {
    const char *name;
    const char *unit;
    const char *help;
    double min, max;
    double value;
} scenario_axis;

#define SCENARIO_MAX_AXES 6

typedef struct scenario_controls {
    int count;
    scenario_axis axis[SCENARIO_MAX_AXES];
} scenario_controls;

/* Sets the named axis (clamped); returns 0, or -1 for an unknown name. */
int scenario_set_axis(scenario_controls *c, const char *name, double value);
double scenario_axis_value(const scenario_controls *c, const char *name);

/* A running scene: what the scene function built, and what its observer
 * keeps between steps. */
typedef struct scenario scenario;

typedef struct scenario_desc {
    const char *name;
    const char *description;
    double h;  /* default step */
    int steps; /* default length of a headless run */
    /* builds the scene into world; NULL with heft_last_error() set on failure */
    scenario *(*create)(heft_world *world, const scenario_params *params);
    /* operator inputs before step number `step` (0-based); may be NULL */
    void (*control)(scenario *s, heft_world *world, int step, double h);
    /* measurements after each step; may be NULL */
    void (*observe)(scenario *s, heft_world *world, int step, double h);
    /* the checks of the run so far; returns how many were written */
    int (*checks)(scenario *s, heft_world *world, scenario_check *out, int max);
    void (*destroy)(scenario *s);
    /* world settings the scene needs, applied to the runner's heft_world_def
     * before the world is made (the machines turn on geometric stiffness and
     * choose bpp-skyline's Baumgarte there); may be NULL */
    void (*configure)(heft_world_def *def, heft_solver_options *options);
    /* the operator's axes, NULL for scenes without operator inputs; a viewer
     * sets them and calls apply before each step instead of control */
    scenario_controls *(*controls)(scenario *s);
    void (*apply)(scenario *s, heft_world *world, double h);
    /* every dynamic body must stay inside this box (world frame, m); a zero
     * box means no bounds */
    heft_vec3 bounds_lo, bounds_hi;
    /* the parameters the scene reads (SCENARIO_READS_*); a program refuses
     * the others instead of ignoring them */
    unsigned reads;
    /* the variants, NULL-terminated, the first the default; NULL for a
     * scene without variants */
    const char *const *variants;
    /* the scene's own limits on its parameters (sizes, with the variant);
     * 0, or -1 with a message in err; may be NULL */
    int (*check_params)(const scenario_params *params, char *err, size_t err_size);
} scenario_desc;

const scenario_desc *scenario_find(const char *name);
/* Checks params against what scene d reads and allows: a parameter it does
 * not read, an unknown variant (the message lists the known ones), a size
 * or link count beyond its limits. 0, or -1 with a message in err naming
 * the parameter as heft-run's option (--variant, --size, ...). */
int scenario_check_params(const scenario_desc *d, const scenario_params *params, char *err,
                          size_t err_size);
/* The variant params choose (its default when params->variant is NULL);
 * NULL for a scene without variants or an unknown name. */
const char *scenario_variant(const scenario_desc *d, const scenario_params *params);
int scenario_count(void);
const scenario_desc *scenario_at(int index);

void scenario_check_set(scenario_check *c, const char *name, double value, double limit, int pass);

/* the scenes */
extern const scenario_desc scenario_pendulum;
extern const scenario_desc scenario_hanging_chain;
extern const scenario_desc scenario_box_on_ground;
extern const scenario_desc scenario_crane;
extern const scenario_desc scenario_winch;
extern const scenario_desc scenario_forklift;
extern const scenario_desc scenario_chain;
extern const scenario_desc scenario_stacking;

/* shared building blocks */
heft_body_id scenario_add_ground(heft_world *world);
/* a dynamic body with one shape; mass and inertia given (inertia all zeros:
 * the shape's own at that mass); invalid id on failure */
heft_body_id scenario_add_body(heft_world *world, const char *name, heft_vec3 position,
                               heft_quat orientation, double mass, heft_mat3 inertia,
                               const heft_shape_def *shape);
/* the settings of scenes with many contacts: the BPP solvers start every
 * step from all-free index sets (docs/scenarios.md says why) */
void scenario_configure_contacts(heft_world_def *def, heft_solver_options *options);
/* the settings of the heavy-load machines: the above, geometric stiffness
 * and one post-stabilization pass (docs/heavy-loads.md) */
void scenario_configure_heavy(heft_world_def *def, heft_solver_options *options);
/* smooth ramp 0 -> 1 over [t0, t1] (zero slope at both ends) */
double scenario_ramp(double t, double t0, double t1);
/* a bump 0 -> 1 -> 0 over [t0, t1] whose integral over it is (t1 - t0) / 2 */
double scenario_bump(double t, double t0, double t1);

#endif
