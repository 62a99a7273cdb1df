/* heft-viewer: the interactive viewer (docs/viewer.md). This header is the
 * viewer's state and the few calls main() and the tests make; each concept
 * lives in its own file (camera, renderer, picking, overlay, capture ...). */
#ifndef HEFT_VIEWER_H
#define HEFT_VIEWER_H

#include <stdio.h>

#include "camera.h"
#include "heft.h"
#include "mlcp.h"
#include "operator.h"
#include "scenario.h"
#include "solve_plot.h"
#include "ui.h"
#include "history.h"

typedef struct GLFWwindow GLFWwindow;
typedef struct renderer renderer;
typedef struct input_script input_script;
typedef struct recorder recorder;

typedef struct viewer_options {
    const char *scenario;    /* NULL: "crane" if registered, else "hanging-chain" */
    const char *scene_file;  /* --scene FILE: a scene file instead of scenario */
    const char *solver;      /* NULL: "bpp-skyline" if registered, else the world default */
    int width, height;       /* window size in screen coordinates (default 1280 x 720) */
    int frames;              /* stop after this many frames; 0: until the window closes */
    const char *screenshot;  /* PNG written after the last frame (needs frames) */
    const char *record;      /* MP4 through an ffmpeg pipe */
    const char *script;      /* scripted input (script.c), or @FILE */
    int hidden;              /* no visible window (screenshots, tests) */
    int print_stats;         /* print the run's statistics as JSON on exit */
    int samples;             /* MSAA samples; -1 (default): 4 on a GPU, 0 on a software renderer */
    int fixed_step;          /* one physics step per frame, whatever the clock (default with
                                frames, so runs are reproducible) */
    int geometric_stiffness; /* 1 (default) or 0 */
    int sleeping;            /* --sleep: the world's sleeping on (docs/sleeping.md) */
    scenario_params params;  /* the scene's parameters (as heft-run's --links ...) */
    const char *assets;      /* the data files' directory (--assets, assets.h); NULL: search */
    int iterations;          /* solver max_iterations; 0: the default */
    double tolerance;        /* solver tolerance; 0: the default */
} viewer_options;

typedef struct drag_spring {
    int active;
    heft_body_id body;
    heft_vec3 local_anchor; /* body frame */
    heft_vec3 target;       /* world frame, moves with the mouse in a camera-facing plane */
    double plane_distance;  /* along the camera's forward axis */
} drag_spring;

/* Toggles of what is drawn (keys in input.c, buttons in overlay.c). */
typedef struct view_toggles {
    int wireframe, contacts, joints, aabbs, islands, grey_resting, shadows;
    int overlay, help, plot, follow;
    int files; /* the scene menu lists the scene files, not the C scenes */
} view_toggles;

/* The solver option the overlay's - and + buttons (and the , . keys) change. */
typedef enum option_kind {
    OPTION_PGS_ITERATIONS = 0,
    OPTION_BPP_MAX_STEPS,
    OPTION_BPP_PGS_RESTART,
    OPTION_DOWNDATE_THRESHOLD,
    OPTION_PCG_TOLERANCE,
    OPTION_BACKSTOP_CAP,
    OPTION_COUNT
} option_kind;

typedef struct viewer {
    viewer_options opt;
    GLFWwindow *window;
    int samples;           /* MSAA samples of the window */
    char gl_renderer[128]; /* GL_RENDERER */
    int win_w, win_h;      /* screen coordinates (mouse) */
    int fb_w, fb_h;        /* pixels */

    /* the scene */
    const scenario_desc *desc;
    heft_world *world;
    scenario *scene;
    int step_index;  /* steps taken since the scene was (re)built */
    int left_bounds; /* the step a body left the scene's bounds (it paused); 0: none */
    double h;
    heft_solver_options solver_options;
    char solver[32];
    char default_solver[32]; /* the viewer's solver for scenes without their own */
    int solver_chosen;       /* the user chose one (--solver, keys, menu): every scene keeps it */
    int geometric_stiffness;
    char status[160];    /* last message shown in the overlay (errors included) */
    double status_until; /* wall time (s) */

    /* the clock */
    int paused, step_once;
    double time_scale;
    double accumulator; /* s of simulated time owed to the wall clock */
    double last_time;
    int frame_index;
    double frame_ms, frame_ms_sum, frame_ms_max;
    double fps;
    double fps_since; /* wall time the fps count started */
    int fps_frames;
    double step_ms_sum, step_ms_max; /* heft_world_step, wall clock */
    double solve_ms_sum, error_max;
    int steps_timed;

    camera cam;
    view_toggles show;
    int selected_option; /* option_kind */

    /* mouse */
    double mouse_x, mouse_y;
    int mouse_left, mouse_right, mouse_middle;
    int mouse_moved; /* since the left button went down */
    int shift, ctrl;
    heft_body_id selected;
    drag_spring drag;
    operator_state op; /* the scene's operator axes (operator.c) */

    renderer *renderer;
    ui_context ui;
    solve_plot plot;
    input_script *script;
    recorder *recorder;
    int quit;
    int screenshot_count;
    char overlay_solver[32]; /* the solver the overlay showed in the last frame */
    char shot_request[256];  /* a PNG to write after this frame is drawn (key P, scripts) */

    /* a scene from a file (--scene, a file dropped on the window, the
     * scene list's files): its path ("" for a C scene) and the variant of
     * the C scene attached to it */
    char scene_path[512];
    char file_variant[32];
    viewer_history history; /* keyframe and rewind (history.c) */
} viewer;

/* viewer_create's message when no window can be opened; heft-viewer then
 * exits with VIEWER_EXIT_NO_DISPLAY so run.sh can fall back to Xvfb. */
#define VIEWER_NO_DISPLAY "cannot open a window (no display?)"
#define VIEWER_EXIT_NO_DISPLAY 3

viewer_options viewer_default_options(void);
/* Opens the window, loads OpenGL and the scene. Returns NULL with a message
 * in err on failure (no display, unknown scene or solver ...). */
viewer *viewer_create(const viewer_options *options, char *err, size_t err_size);
void viewer_destroy(viewer *v);
/* One frame: input, script, physics steps owed, drawing, capture. Returns 0
 * when the viewer should close. */
int viewer_frame(viewer *v);
/* Runs frames until closed or opt.frames are done; writes the screenshot. */
int viewer_run(viewer *v);
void viewer_print_stats(const viewer *v, FILE *out);

/* scene and solver (app.c) */
int viewer_load_scene(viewer *v, const scenario_desc *desc);
int viewer_reset_scene(viewer *v);
int viewer_set_solver(viewer *v, const char *name);
void viewer_apply_options(viewer *v);
void viewer_step(viewer *v);
void viewer_set_status(viewer *v, const char *fmt, ...);
/* 1 for Mesa's llvmpipe, softpipe and other software renderers */
int viewer_renderer_is_software(const char *gl_renderer);
/* what the default scene is: "crane" when it exists, else "hanging-chain" */
const scenario_desc *viewer_default_scene(void);
/* the camera preset's key of the current scene: its name, or NAME/VARIANT */
const char *viewer_scene_key(const viewer *v, char *buf, size_t size);
/* the camera back to the current scene's preset */
void viewer_camera_preset(viewer *v);

/* The scenes the viewer offers (scenes.c): the registry's, a scene with
 * variants once per variant (stacking boxes, pyramid, tower, wall). */
typedef struct viewer_scene {
    const scenario_desc *desc;
    const char *variant; /* NULL for a scene without variants */
    char label[40];      /* the menu's */
    char key[64];        /* the camera preset's: NAME or NAME/VARIANT */
    const char *solver;  /* the solver it opens with unless the user chose one; NULL: the
                            viewer's default (bpp-skyline) */
    char file[512];      /* a scene file of assets/scenes/ ("" for a C scene); desc is then
                            scenario_file until it is loaded */
} viewer_scene;

int viewer_scene_count(void);
const viewer_scene *viewer_scene_at(int index);
/* the entry of a scene and variant (NULL: the scene's first); -1 if none */
int viewer_scene_index(const scenario_desc *desc, const char *variant);
int viewer_scene_has_variant(const char *scene, const char *variant);
/* the entry the viewer shows now (-1 for a scene outside the registry) */
int viewer_current_scene(const viewer *v);
/* loads entry index: its scene with its variant, or its file */
int viewer_load_entry(viewer *v, int index);
/* Loads a scene file (docs/scene-format.md) in place of the scene: the C
 * scene its name means attached when it matches (timeline, operators,
 * checks), the scene's solver unless the user chose one. On failure the
 * scene stays and the status line says why. */
int viewer_load_file(viewer *v, const char *path);
/* the entry of the file at path, -1 if none */
int viewer_file_index(const char *path);

/* input (input.c): the GLFW callbacks call these, and so do scripts and tests */
void viewer_key(viewer *v, int key, int action, int mods);
void viewer_mouse_button(viewer *v, int button, int action, int mods);
void viewer_mouse_move(viewer *v, double x, double y);
void viewer_scroll(viewer *v, double dy);
void viewer_install_callbacks(viewer *v);
/* selects option (option_kind) and steps it down (-1) or up (+1) */
void viewer_change_option(viewer *v, int option, int direction);

/* picking (picking.c): the body under a window position, and the drag spring */
int viewer_pick(viewer *v, double x, double y, heft_ray_hit *hit);
void viewer_drag_begin(viewer *v, const heft_ray_hit *hit);
void viewer_drag_move(viewer *v, double x, double y);
void viewer_drag_end(viewer *v);
void viewer_drag_apply(viewer *v);

/* the overlay (overlay.c) */
void overlay_build(viewer *v);

/* A frame's pixels, RGB, top row first; caller frees. */
unsigned char *viewer_read_pixels(viewer *v, int *width, int *height);
int viewer_save_screenshot(viewer *v, const char *path);

/* the colour a body is drawn in (renderer.c), linear RGB in [0, 1] */
void viewer_body_colour(const viewer *v, heft_body_id body, float rgb[3]);

#endif
