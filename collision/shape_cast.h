/* Convex shapes moving against single shapes: the time of impact by
 * conservative advancement on GJK distances, and overlap tests. The world's
 * casts, overlaps and continuous collision (engine/) walk the broad phase and
 * call these per shape. Private to the library. */
#ifndef HEFT_SHAPE_CAST_H
#define HEFT_SHAPE_CAST_H

#include "narrowphase.h"

/* A convex shape (sphere, capsule, box, hull, cylinder) in the frame that
 * moves (a body's frame, or the shape's own for queries). */
typedef struct cast_shape {
    heft_vec3 points[HULL_MAX_VERTICES]; /* core points: sphere 1, capsule 2, polytope vertices */
    int count;
    int cylinder;    /* 1: the cylinder below is the core instead of points */
    transform frame; /* cylinder: its frame (axis local z) */
    double cyl_radius, cyl_half;
    double radius; /* rounding: sphere and capsule radius */
    double reach;  /* the farthest surface point's distance from the frame's origin */
    double extent; /* a lower bound of the shape's half thickness */
} cast_shape;

/* The shape s placed at `local` in the moving frame. 0 for shapes that are
 * not convex (planes, meshes, height fields). */
int cast_shape_make(cast_shape *c, const shape *s, const transform *local);

/* A sphere a quarter of c's extent around c's centre: what continuous
 * collision sweeps once the shape itself is already in touch. */
void cast_shape_core(const cast_shape *c, cast_shape *core);

/* Rigid motion of the moving frame over t in [0, t_max]: the origin moves by
 * velocity t, the orientation turns by heft_quat_integrate(q, angular, t) (the
 * step's own integration, so t = h lands on the integrated pose). */
typedef struct cast_motion {
    heft_vec3 position;
    heft_quat orientation;
    heft_vec3 velocity; /* per unit of t */
    heft_vec3 angular;  /* rad per unit of t, world frame */
} cast_motion;

transform cast_motion_at(const cast_motion *m, double t);
/* World box of the shape swept over [0, t_max]. */
aabb cast_swept_box(const cast_shape *c, const cast_motion *m, double t_max);

typedef struct cast_hit {
    double t;         /* time of impact */
    heft_vec3 point;  /* on the target's surface, world frame */
    heft_vec3 normal; /* the target's surface normal there, towards the moving shape */
    int initial;      /* 1: within target_gap at t = 0 already (t = 0) */
    int32_t triangle; /* meshes and height fields: the triangle hit; else -1 */
} cast_hit;

/* Time of impact of c moving by m against shape b (world transform tb): the
 * first t in [0, t_max] at which their surfaces are target_gap apart (0:
 * touching), to 1e-9 m. With near >= 0, a target (a triangle of a mesh or
 * height field) whose surface is within near at t = 0, or overlapping, is no
 * hit (continuous collision leaves those to the contacts); with near < 0 (the
 * queries) a target within target_gap at t = 0 is hit at t = 0 (initial).
 * Meshes and height fields are hit from their colliding side only (the
 * shape's centre at t = 0 in front of the triangle). Returns 1 on a hit
 * (filled), 0 on none, -1 out of memory (scratch: triangles of meshes and
 * height fields). */
int cast_against(const cast_shape *c, const cast_motion *m, double t_max, double target_gap,
                 double near, const shape *b, const transform *tb, narrow_scratch *scratch,
                 cast_hit *hit);

/* 1 when c at pose tc touches or overlaps shape b (cores within the radii);
 * for a mesh or a height field, when it touches one of its triangles. -1 out
 * of memory. */
int overlap_against(const cast_shape *c, const transform *tc, const shape *b, const transform *tb,
                    narrow_scratch *scratch);

#endif
