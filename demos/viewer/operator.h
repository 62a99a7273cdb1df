/* The scene's operator controls: a scene with named axes (crane: slew, luff,
 * hoist; forklift: drive, steer, lift, tilt; winch: drum) plays its own
 * timeline until the operator takes over, either by holding an axis key or
 * with the panel's buttons; `m` switches between timeline and operator.
 * Axis keys by the axis' name (operator.c): crane left/right slew, up/down
 * luff, a/z hoist; forklift up/down drive, left/right steer, a/z lift, e/d
 * tilt; winch up/down drum. Other axes take up/down, right/left, a/z, e/d
 * in order. Rate axes (unit "/s") run at full rate while a key is held and
 * stop when it is released; position axes move while held and stay. The
 * panel's buttons reach every axis. Scenes without axes keep their control
 * callback. */
#ifndef HEFT_VIEWER_OPERATOR_H
#define HEFT_VIEWER_OPERATOR_H

#define OPERATOR_MAX_AXES 6

typedef struct viewer viewer;

typedef struct operator_state {
    int manual;                        /* 1: the operator drives the axes */
    int held[OPERATOR_MAX_AXES][2];    /* axis key held: [k][0] towards min, [k][1] towards max */
    double latched[OPERATOR_MAX_AXES]; /* the value the panel's buttons set */
} operator_state;

/* the keys of one operator axis: towards its minimum, towards its maximum */
typedef struct axis_binding {
    const char *axis;        /* the axis' name (NULL in the fallback list) */
    int minus_key, plus_key; /* GLFW key codes */
    const char *label;       /* as the help and the panel show it, plus key first */
} axis_binding;

/* the keys of each of `count` axes named names[k]; out[k] NULL when none is
 * left (GL-free, for the tests) */
void operator_bindings(const char *const *names, int count, const axis_binding **out);
/* the keys of the current scene's axis k, as the panel shows them (NULL: none) */
const char *operator_axis_keys(viewer *v, int k);
/* 1 for a rate axis (its unit has "/s"), 0 for a position axis */
int operator_axis_is_rate(const char *unit);

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
