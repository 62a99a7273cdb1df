/* heft-peers: the same scenes built in Heft and in the peer engines through
 * their public APIs (docs/benchmarks.md "Against the peers"). One adapter
 * per engine fills this table; an engine that was not found at configure
 * time is not compiled and the program says it skipped it. */
#ifndef HEFT_PEERS_H
#define HEFT_PEERS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The scenes. Every one at h = 1/60 s, gravity (0, 0, -9.81), mu = 1, 1 m
 * cubes of 1 kg; no sleeping in any engine. */
typedef enum peer_scene_kind {
    PEER_PYRAMID, /* a 2D pyramid of `size` cubes at its base, resting on the ground */
    PEER_BOXES,   /* `size` cubes in a grid 1.5 m apart, dropped from 0.5 m onto the ground */
    PEER_CHAIN    /* `size` links (capsules 0.5 m, radius 0.05 m, 1 kg) on ball joints,
                     hanging at rest from a fixed point, carrying a 100 kg ball (radius 0.25) */
} peer_scene_kind;

typedef struct peer_scene {
    peer_scene_kind kind;
    int size;
    double load_mass; /* chain: the load, kg */
} peer_scene;

#define PEER_LINK_LENGTH 0.5
#define PEER_LINK_RADIUS 0.05
#define PEER_LOAD_RADIUS 0.25
#define PEER_BOX_HALF 0.5
#define PEER_BOX_MASS 1.0
#define PEER_LINK_MASS 1.0

/* Pose of body i (the scene's bodies in build order), world frame. */
typedef struct peer_pose {
    double p[3];
    double q[4]; /* w, x, y, z */
} peer_pose;

typedef struct peer_engine {
    const char *name;    /* "bullet", "ode-step", ... as the table prints it */
    const char *variant; /* handed to create: Heft's solver, ODE's stepper */
    /* Builds the scene; returns an opaque world or NULL. */
    void *(*create)(const peer_scene *scene, const char *variant);
    void (*step)(void *world, double h);
    int (*body_count)(void *world);
    void (*pose)(void *world, int i, peer_pose *out);
    /* the deepest penetration of the last step's contacts, m (>= 0) */
    double (*penetration)(void *world);
    /* The last step's constraint solver: the time of its iterations only
     * (no setup), ms, and the iterations (sweeps) it ran; NULL when the
     * engine does not expose them. */
    double (*solver_ms)(void *world);
    int (*solver_iterations)(void *world);
    /* the rows of the last step's constraint solve (all islands), or NULL */
    int (*solver_rows)(void *world);
    /* CPU time the adapter spent measuring inside the last step, ms, taken
     * off the step's time; NULL when none */
    double (*overhead_ms)(void *world);
    void (*destroy)(void *world);
    /* the step runs on this many threads (0 or 1: the calling thread only);
     * such an engine is timed by the wall clock, its CPU time being spread
     * over the threads */
    int threads;
    /* The last step's largest MLCP error over its islands, J (the error
     * measure of docs/mlcp-format.md), and the islands its solver left
     * unconverged; NULL when the engine does not expose them. */
    double (*mlcp_error)(void *world);
    int (*unconverged)(void *world);
    /* the rows the timed iterations swept in the last step, summed over
     * every pass over an island's rows (Heft's position sweeps are passes
     * too) and every island; NULL: the iterations times the rows */
    double (*solver_row_passes)(void *world);
} peer_engine;

/* The adapters; heft_peers.c lists those compiled in. */
extern const peer_engine peer_heft_pgs;
extern const peer_engine peer_heft_skyline;
extern const peer_engine peer_heft_skyline_2;
extern const peer_engine peer_bullet;
extern const peer_engine peer_ode_step;
extern const peer_engine peer_ode_quickstep;
extern const peer_engine peer_mujoco;

/* Heft's solver tolerance, J (--tolerance; 0: the engine's default) */
extern double peer_heft_tolerance;
/* Heft's backstop_accept (J), 0: the engine's default */
extern double peer_heft_accept;

/* CPU time of the calling thread, ms: what the step costs, without the time
 * the thread waited for a core on a shared machine. */
double peer_cpu_ms(void);

/* Where the scene puts its bodies: shared by the adapters so that they build
 * the same scene. Body i's start position and, for the chain, the pivot. */
void peer_scene_start(const peer_scene *scene, int i, double out[3]);
int peer_scene_body_count(const peer_scene *scene);
/* chain: the fixed point the first link hangs from */
void peer_chain_pivot(const peer_scene *scene, double out[3]);

#ifdef __cplusplus
}
#endif

#endif
