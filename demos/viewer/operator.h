/* The scene's operator controls: a scene with named axes (crane: slew, luff,
 * hoist; forklift: drive, steer, lift, tilt; winch: drum) plays its own
 * timeline until the operator takes over, either by holding an axis key or
 * with the panel's buttons; `m` switches between timeline and operator.
 * Axis keys: up/down (axis 1), left/right (2), a/z (3), e/d (4); the panel's
 * buttons reach every axis. Scenes without axes keep their control callback. */
#ifndef HEFT_VIEWER_OPERATOR_H
#define HEFT_VIEWER_OPERATOR_H

#define OPERATOR_MAX_AXES 6

typedef struct viewer viewer;

typedef struct operator_state {
    int manual;                          /* 1: the operator drives the axes */
    int held[OPERATOR_MAX_AXES][2];      /* axis key held: [k][0] towards min, [k][1] towards max */
    double latched[OPERATOR_MAX_AXES];   /* the value the panel's buttons set */
} operator_state;

/* how many axes the current scene has (0 without the interface) */
int operator_axis_count(viewer *v);
/* 1 if the key was an axis key of this scene (and was used) */
int operator_key(viewer *v, int key, int action);
void operator_toggle(viewer *v);
/* before each step: the timeline (control) or the operator's axes (apply) */
void operator_before_step(viewer *v);
/* the panel; returns its height */
float operator_panel(viewer *v, float x, float y, float w);
void operator_reset(viewer *v);

#endif
