/* The viewer application: the window and OpenGL context, the scene and its
 * world, the clock that steps it, and the frame (input, physics, drawing,
 * capture). */
#include <glad/gl.h>

#include <GLFW/glfw3.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assets.h"
#include "capture.h"
#include "renderer.h"
#include "scene_attach.h"
#include "script.h"
#include "viewer.h"

#define MAX_STEPS_PER_FRAME 4

viewer_options viewer_default_options(void) {
    viewer_options o;
    memset(&o, 0, sizeof o);
    o.width = 1280;
    o.height = 720;
    o.samples = -1; /* auto: 4 on a GPU, 0 on a software renderer */
    o.geometric_stiffness = 1;
    o.fixed_step = -1; /* decided from frames */
    return o;
}

const scenario_desc *viewer_default_scene(void) {
    const scenario_desc *d = scenario_find("crane");
    if (!d) {
        d = scenario_find("hanging-chain");
    }
    return d ? d : scenario_at(0);
}

int viewer_renderer_is_software(const char *gl_renderer) {
    static const char *const software[] = {"llvmpipe", "softpipe", "swrast", "SwiftShader",
                                           "Software Rasterizer"};
    for (size_t i = 0; gl_renderer && i < sizeof software / sizeof software[0]; ++i) {
        if (strstr(gl_renderer, software[i])) {
            return 1;
        }
    }
    return 0;
}

const char *viewer_scene_key(const viewer *v, char *buf, size_t size) {
    const char *variant = v->opt.params.variant;
    if (variant && viewer_scene_has_variant(v->desc->name, variant)) {
        snprintf(buf, size, "%s/%s", v->desc->name, variant);
    } else {
        int i = viewer_scene_index(v->desc, NULL);
        const viewer_scene *e = viewer_scene_at(i);
        snprintf(buf, size, "%s", e ? e->key : v->desc->name); /* a default variant's key */
    }
    return buf;
}

void viewer_camera_preset(viewer *v) {
    heft_vec3 lo, hi;
    if (!renderer_scene_bounds(v->world, &lo, &hi)) {
        lo = heft_v3(-1, -1, 0);
        hi = heft_v3(1, 1, 1);
    }
    char key[96];
    camera_preset(&v->cam, viewer_scene_key(v, key, sizeof key), lo, hi);
    v->show.follow = 0;
}

void viewer_set_status(viewer *v, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    vsnprintf(v->status, sizeof v->status, fmt, args);
    va_end(args);
    v->status_until = glfwGetTime() + 4.0;
}

static void on_glfw_error(int code, const char *message) {
    (void)code;
    fprintf(stderr, "heft-viewer: GLFW: %s\n", message);
}

static void destroy_scene(viewer *v) {
    if (v->scene && v->desc && v->desc->destroy) {
        v->desc->destroy(v->scene);
    }
    v->scene = NULL;
    if (v->world) {
        heft_world_destroy(v->world);
    }
    v->world = NULL;
}

static void install_scene(viewer *v, const scenario_desc *desc, heft_world *world, scenario *scene,
                          double h);

int viewer_load_scene(viewer *v, const scenario_desc *desc) {
    if (!desc) {
        viewer_set_status(v, "no such scene");
        return -1;
    }
    heft_world_def wd = heft_default_world_def();
    const char *solver = v->solver;
    if (!v->solver_chosen) {
        /* the scene's own solver at start, else the viewer's default */
        const viewer_scene *e = viewer_scene_at(viewer_scene_index(desc, v->opt.params.variant));
        solver = e && e->solver && heft_solver_find(e->solver) ? e->solver : v->default_solver;
    }
    wd.solver = solver;
    heft_solver_options options = v->solver_options;
    options.keep_index_sets = heft_solver_default_options().keep_index_sets;
    wd.geometric_stiffness = v->geometric_stiffness;
    wd.enable_sleep = v->opt.sleeping;
    if (desc->configure) {
        desc->configure(
            &wd, &options); /* the scene's settings (heavy machines: geometric stiffness ...) */
    }
    heft_world *world = heft_world_create(&wd);
    if (!world) {
        viewer_set_status(v, "cannot create the world: %s", heft_last_error());
        return -1;
    }
    if (heft_world_set_solver_options(world, &options) != HEFT_OK) {
        viewer_set_status(v, "solver options refused: %s", heft_last_error());
        heft_world_destroy(world);
        return -1;
    }
    scenario *scene = desc->create(world, &v->opt.params);
    if (!scene) {
        viewer_set_status(v, "scene %s could not be built: %s", desc->name, heft_last_error());
        heft_world_destroy(world);
        return -1;
    }
    install_scene(v, desc, world, scene, desc->h > 0.0 ? desc->h : 1.0 / 60.0);
    v->scene_path[0] = '\0';
    v->geometric_stiffness = wd.geometric_stiffness;
    v->show.files = 0;
    char key[96];
    viewer_set_status(v, "scene %s", viewer_scene_key(v, key, sizeof key));
    return 0;
}

/* The new scene in place of the old: the viewer's per-scene state back to
 * its start. */
static void install_scene(viewer *v, const scenario_desc *desc, heft_world *world, scenario *scene,
                          double h) {
    destroy_scene(v);
    v->desc = desc;
    v->world = world;
    v->scene = scene;
    v->h = h;
    v->step_index = 0;
    v->left_bounds = 0;
    v->accumulator = 0.0;
    v->selected = (heft_body_id){0, 0};
    v->drag.active = 0;
    v->show.follow = 0;
    v->error_max = 0.0;
    operator_reset(v);
    snprintf(v->solver, sizeof v->solver, "%s", heft_world_solver(world));
    v->solver_options = heft_world_solver_options(world);
    if (v->renderer) {
        renderer_reset(v->renderer);
    }
    solve_plot_clear(&v->plot);
    history_clear(v);
    viewer_camera_preset(v);
}

/* the last part of a path */
static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

int viewer_load_file(viewer *v, const char *path) {
    heft_scene_info info;
    heft_world *world = path ? heft_world_load(path, &info) : NULL;
    if (!world) {
        viewer_set_status(v, "%s", path ? heft_last_error() : "no file");
        return -1;
    }
    /* the C scene the file's name means, attached when its objects match */
    scenario_params params = v->opt.params;
    char variant[32] = "";
    params.variant = NULL;
    const scenario_desc *desc = scene_attach_find(info.name, &params, variant, sizeof variant);
    char key[96] = "";
    if (desc) {
        snprintf(key, sizeof key, "%s%s%s", desc->name, variant[0] ? "/" : "", variant);
    }
    const viewer_scene *e = desc ? viewer_scene_at(viewer_scene_index(desc, params.variant)) : NULL;
    const char *solver = v->solver_chosen ? v->solver : (e && e->solver ? e->solver : NULL);
    if (solver && heft_world_set_solver(world, solver) != HEFT_OK) {
        viewer_set_status(v, "solver %s refused: %s", solver, heft_last_error());
        heft_world_destroy(world);
        return -1;
    }
    heft_world_def wd = heft_world_get_def(world);
    heft_solver_options options = heft_world_solver_options(world);
    scenario *scene = desc ? scene_attach(desc, &params, &wd, &options, world) : NULL;
    if (!scene) {
        desc = &scenario_file;
        variant[0] = '\0';
    }
    install_scene(v, desc, world, scene, info.time_step);
    snprintf(v->scene_path, sizeof v->scene_path, "%s", path);
    v->show.files = 1;
    snprintf(v->file_variant, sizeof v->file_variant, "%s", variant);
    v->opt.params.variant = variant[0] ? v->file_variant : NULL;
    v->geometric_stiffness = wd.geometric_stiffness;
    viewer_camera_preset(v);
    viewer_set_status(v, "scene file %s%s%s", base_name(path),
                      scene ? " with the timeline of " : "", scene ? key : "");
    return 0;
}

int viewer_reset_scene(viewer *v) {
    if (v->scene_path[0]) {
        char path[sizeof v->scene_path];
        snprintf(path, sizeof path, "%s", v->scene_path);
        return viewer_load_file(v, path);
    }
    int r = viewer_load_scene(v, v->desc);
    if (r == 0) {
        viewer_set_status(v, "scene %s reset", v->desc->name);
    }
    return r;
}

int viewer_set_solver(viewer *v, const char *name) {
    if (heft_world_set_solver(v->world, name) != HEFT_OK) {
        viewer_set_status(v, "solver %s refused: %s", name, heft_last_error());
        return -1;
    }
    snprintf(v->solver, sizeof v->solver, "%s", heft_world_solver(v->world));
    v->solver_chosen = 1; /* kept across scene changes from now on */
    viewer_set_status(v, "solver %s", v->solver);
    return 0;
}

void viewer_apply_options(viewer *v) {
    if (heft_world_set_solver_options(v->world, &v->solver_options) != HEFT_OK) {
        viewer_set_status(v, "options refused: %s", heft_last_error());
        v->solver_options = heft_world_solver_options(v->world);
    }
}

/* A scene that blows up (a dynamic body leaves the scene's bounds, or a
 * position is no longer finite) pauses once, with the body and the step on the
 * status line, so the moment is on screen; space runs on. */
static void check_bounds(viewer *v) {
    heft_vec3 lo = v->desc->bounds_lo, hi = v->desc->bounds_hi;
    int bounded = lo.x < hi.x && lo.y < hi.y && lo.z < hi.z;
    if (v->left_bounds) {
        return;
    }
    heft_body_id ids[512];
    int n = heft_world_bodies(v->world, ids, 512);
    for (int i = 0; i < n && i < 512; ++i) {
        heft_body_state st;
        if (heft_body_get_state(v->world, ids[i], &st) != HEFT_OK) {
            continue;
        }
        heft_vec3 p = st.position;
        int out =
            !heft_v3_isfinite(p) ||
            (bounded && st.type == HEFT_BODY_DYNAMIC && /* the scenes' contract */
             (p.x < lo.x || p.y < lo.y || p.z < lo.z || p.x > hi.x || p.y > hi.y || p.z > hi.z));
        if (out) {
            const char *name = heft_body_name(v->world, ids[i]);
            v->left_bounds = v->step_index;
            v->paused = 1;
            viewer_set_status(v,
                              "%s left the scene's bounds at step %d under %s (paused; space "
                              "runs on)",
                              name && name[0] ? name : "a body", v->step_index, v->solver);
            return;
        }
    }
}

void viewer_step(viewer *v) {
    operator_before_step(v);
    viewer_drag_apply(v);
    double t0 = glfwGetTime();
    if (heft_world_step(v->world, v->h) != HEFT_OK) {
        viewer_set_status(v, "step failed: %s", heft_last_error());
        v->paused = 1;
        return;
    }
    double ms = (glfwGetTime() - t0) * 1e3;
    const heft_step_stats *st = heft_world_stats(v->world);
    v->step_ms_sum += ms;
    v->step_ms_max = fmax(v->step_ms_max, ms);
    v->solve_ms_sum += st->time_solve_ms;
    v->error_max = fmax(v->error_max, st->error_max);
    v->steps_timed++;
    solve_plot_add(&v->plot, v->solver, v->step_index, st->time_solve_ms);
    if (v->desc->observe) {
        v->desc->observe(v->scene, v->world, v->step_index, v->h);
    }
    v->step_index++;
    history_record(v);
    check_bounds(v);
}

viewer *viewer_create(const viewer_options *options, char *err, size_t err_size) {
    assets_set_dir(options->assets); /* where the shaders are read from */
    viewer *v = calloc(1, sizeof *v);
    if (!v) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    v->opt = *options;
    if (v->opt.fixed_step < 0) {
        v->opt.fixed_step = v->opt.frames > 0;
    }
    v->time_scale = 1.0;
    v->show = (view_toggles){.shadows = 1, .overlay = 1, .plot = 1};
    v->geometric_stiffness = v->opt.geometric_stiffness;
    v->solver_options = heft_solver_default_options();
    if (v->opt.iterations > 0) {
        v->solver_options.max_iterations = v->opt.iterations;
    }
    if (v->opt.tolerance > 0.0) {
        v->solver_options.tolerance = v->opt.tolerance;
    }
    solve_plot_clear(&v->plot);
    const char *solver = v->opt.solver;
    if (!solver) {
        solver = heft_solver_find("bpp-skyline") ? "bpp-skyline" : "pgs";
    }
    if (!heft_solver_find(solver)) {
        snprintf(err, err_size, "unknown solver \"%s\" (heft-viewer --list shows them)", solver);
        free(v);
        return NULL;
    }
    snprintf(v->solver, sizeof v->solver, "%s", solver);
    snprintf(v->default_solver, sizeof v->default_solver, "%s", solver);
    v->solver_chosen = v->opt.solver != NULL;
    const scenario_desc *desc =
        v->opt.scenario ? scenario_find(v->opt.scenario) : viewer_default_scene();
    if (!desc) {
        snprintf(err, err_size, "unknown scenario \"%s\" (heft-viewer --list shows them)",
                 v->opt.scenario);
        free(v);
        return NULL;
    }
    if (v->opt.script) {
        v->script = script_parse(v->opt.script, err, err_size);
        if (!v->script) {
            free(v);
            return NULL;
        }
    }
    glfwSetErrorCallback(on_glfw_error);
    if (!glfwInit()) {
        snprintf(err, err_size, "%s: GLFW did not initialise", VIEWER_NO_DISPLAY);
        script_free(v->script);
        free(v);
        return NULL;
    }
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    v->samples = v->opt.samples;
    if (v->samples < 0) {
        /* MSAA costs a software renderer (Mesa's llvmpipe under Xvfb) more
         * than a third of its frame time, and a GPU nothing to speak of: ask
         * a hidden 1x1 window which one this is */
        glfwWindowHint(GLFW_SAMPLES, 0);
        glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
        GLFWwindow *probe = glfwCreateWindow(1, 1, "heft-viewer", NULL, NULL);
        v->samples = 4;
        if (probe) {
            glfwMakeContextCurrent(probe);
            if (gladLoadGL(glfwGetProcAddress)) {
                const char *name = (const char *)glGetString(GL_RENDERER);
                v->samples = viewer_renderer_is_software(name) ? 0 : 4;
            }
            glfwMakeContextCurrent(NULL);
            glfwDestroyWindow(probe);
        }
    }
    glfwWindowHint(GLFW_SAMPLES, v->samples);
    glfwWindowHint(GLFW_VISIBLE, v->opt.hidden ? GLFW_FALSE : GLFW_TRUE);
    char title[128];
    snprintf(title, sizeof title, "Heft viewer - %s", desc->name);
    v->window = glfwCreateWindow(v->opt.width, v->opt.height, title, NULL, NULL);
    if (!v->window) {
        snprintf(err, err_size, "%s: no OpenGL 3.3 core window", VIEWER_NO_DISPLAY);
        glfwTerminate();
        script_free(v->script);
        free(v);
        return NULL;
    }
    glfwMakeContextCurrent(v->window);
    if (!gladLoadGL(glfwGetProcAddress)) {
        snprintf(err, err_size, "cannot load OpenGL 3.3 functions");
        viewer_destroy(v);
        return NULL;
    }
    glfwSwapInterval(v->opt.hidden || v->opt.frames > 0 ? 0 : 1);
    const char *gl_renderer = (const char *)glGetString(GL_RENDERER);
    snprintf(v->gl_renderer, sizeof v->gl_renderer, "%s", gl_renderer ? gl_renderer : "unknown");
    if (v->samples > 0) {
        glEnable(GL_MULTISAMPLE);
    }
    v->renderer = renderer_create();
    if (!v->renderer || ui_init(&v->ui) != 0) {
        snprintf(err, err_size, "cannot build the renderer (shaders or framebuffers)");
        viewer_destroy(v);
        return NULL;
    }
    glfwGetWindowSize(v->window, &v->win_w, &v->win_h);
    glfwGetFramebufferSize(v->window, &v->fb_w, &v->fb_h);
    if ((v->opt.scene_file ? viewer_load_file(v, v->opt.scene_file) : viewer_load_scene(v, desc)) !=
        0) {
        snprintf(err, err_size, "%s", v->status);
        viewer_destroy(v);
        return NULL;
    }
    if (v->opt.record) {
        v->recorder = recorder_open(v->opt.record, v->fb_w, v->fb_h, 60, err, err_size);
        if (!v->recorder) {
            viewer_destroy(v);
            return NULL;
        }
    }
    viewer_install_callbacks(v);
    v->last_time = glfwGetTime();
    return v;
}

void viewer_destroy(viewer *v) {
    if (!v) {
        return;
    }
    if (v->recorder && recorder_close(v->recorder) != 0) {
        fprintf(stderr, "heft-viewer: ffmpeg did not finish %s\n", v->opt.record);
    }
    destroy_scene(v);
    history_free(v);
    if (v->window) {
        renderer_destroy(v->renderer);
        ui_free(&v->ui);
        glfwDestroyWindow(v->window);
        glfwTerminate();
    }
    script_free(v->script);
    free(v);
}

unsigned char *viewer_read_pixels(viewer *v, int *width, int *height) {
    *width = v->fb_w;
    *height = v->fb_h;
    return capture_pixels(v->fb_w, v->fb_h);
}

int viewer_save_screenshot(viewer *v, const char *path) {
    int w, h;
    unsigned char *rgb = viewer_read_pixels(v, &w, &h);
    int r = rgb ? capture_write_png(path, rgb, w, h) : -1;
    int why = rgb ? errno : ENOMEM;
    free(rgb);
    errno = why; /* the caller names the reason */
    return r;
}

static void advance_physics(viewer *v, double wall_dt) {
    if (v->step_once) {
        viewer_step(v);
        v->step_once = 0;
        return;
    }
    if (v->paused) {
        v->accumulator = 0.0;
        return;
    }
    if (v->opt.fixed_step) {
        viewer_step(v);
        return;
    }
    v->accumulator += fmin(wall_dt, 0.25) * v->time_scale;
    int steps = 0;
    while (v->accumulator >= v->h && steps < MAX_STEPS_PER_FRAME) {
        viewer_step(v);
        v->accumulator -= v->h;
        steps++;
    }
    if (steps == MAX_STEPS_PER_FRAME) {
        v->accumulator = 0.0; /* slower than real time: drop the debt rather than spiral */
    }
}

int viewer_frame(viewer *v) {
    double now = glfwGetTime();
    double wall_dt = now - v->last_time;
    v->last_time = now;
    glfwPollEvents();
    glfwGetWindowSize(v->window, &v->win_w, &v->win_h);
    glfwGetFramebufferSize(v->window, &v->fb_w, &v->fb_h);
    script_run(v->script, v);
    if (v->quit || glfwWindowShouldClose(v->window)) {
        return 0;
    }
    advance_physics(v, wall_dt);
    if (v->show.follow && heft_body_is_valid(v->world, v->selected)) {
        heft_vec3 p = heft_body_position(v->world, v->selected);
        vec3 target = {(float)p.x, (float)p.y, (float)p.z};
        glm_vec3_lerp(v->cam.target, target, 0.2f, v->cam.target);
    }
    if (v->fb_w > 0 && v->fb_h > 0) {
        renderer_draw(v->renderer, v);
        float sx = v->win_w > 0 ? (float)v->fb_w / (float)v->win_w : 1.0f;
        float sy = v->win_h > 0 ? (float)v->fb_h / (float)v->win_h : 1.0f;
        ui_begin(&v->ui, (float)v->fb_w, (float)v->fb_h, (float)v->mouse_x * sx,
                 (float)v->mouse_y * sy);
        if (v->show.overlay) {
            overlay_build(v);
        }
        ui_end(&v->ui);
        if (v->shot_request[0]) {
            if (viewer_save_screenshot(v, v->shot_request) == 0) {
                viewer_set_status(v, "wrote %s", v->shot_request);
            } else {
                viewer_set_status(v, "could not write %s: %s", v->shot_request, strerror(errno));
            }
            v->shot_request[0] = '\0';
        }
        if (v->recorder) {
            int w, h;
            unsigned char *rgb = viewer_read_pixels(v, &w, &h);
            if (rgb) {
                recorder_frame(v->recorder, rgb, w, h);
            }
            free(rgb);
        }
    }
    v->frame_index++;
    int last = v->opt.frames > 0 && v->frame_index >= v->opt.frames;
    if (last && v->opt.screenshot) {
        if (viewer_save_screenshot(v, v->opt.screenshot) != 0) {
            fprintf(stderr, "heft-viewer: could not write %s: %s\n", v->opt.screenshot,
                    strerror(errno));
            v->quit = 2;
        }
    }
    glfwSwapBuffers(v->window);
    double frame_ms = (glfwGetTime() - now) * 1e3;
    v->frame_ms = frame_ms;
    v->frame_ms_sum += frame_ms;
    v->frame_ms_max = fmax(v->frame_ms_max, frame_ms);
    v->fps_frames++;
    if (now - v->fps_since >= 0.5) {
        v->fps = v->fps_since > 0.0 ? v->fps_frames / (now - v->fps_since) : 0.0;
        v->fps_since = now;
        v->fps_frames = 0;
    }
    return !last && !v->quit;
}

int viewer_run(viewer *v) {
    while (viewer_frame(v)) {
    }
    return v->quit == 2 ? 1 : 0;
}

void viewer_print_stats(const viewer *v, FILE *out) {
    const heft_step_stats *st = heft_world_stats(v->world);
    int frames = v->frame_index > 0 ? v->frame_index : 1;
    int steps = v->steps_timed > 0 ? v->steps_timed : 1;
    fprintf(out, "{\n  \"scenario\": \"%s\",\n  \"solver\": \"%s\",\n", v->desc->name, v->solver);
    fprintf(out, "  \"frames\": %d,\n  \"steps\": %d,\n  \"simulated_s\": %.4f,\n", v->frame_index,
            v->step_index, heft_world_time(v->world));
    /* the checks below are taken at the step reached; a scene's own
     * timeline (heft-run's default run) may be longer */
    fprintf(out, "  \"timeline_steps\": %d,\n", v->desc->steps);
    fprintf(out, "  \"frame_ms_mean\": %.3f,\n  \"frame_ms_max\": %.3f,\n",
            v->frame_ms_sum / frames, v->frame_ms_max);
    fprintf(out,
            "  \"step_ms_mean\": %.4f,\n  \"step_ms_max\": %.4f,\n  \"solve_ms_mean\": %.4f,\n",
            v->step_ms_sum / steps, v->step_ms_max, v->solve_ms_sum / steps);
    fprintf(out, "  \"mlcp_error_max\": %.3e,\n", v->error_max);
    fprintf(out, "  \"gl_renderer\": \"");
    for (const char *c = v->gl_renderer; *c; ++c) {
        fputc(*c == '"' || *c == '\\' ? '\'' : *c, out); /* a name, not JSON escapes */
    }
    fprintf(out, "\",\n  \"samples\": %d,\n", v->samples);
    fprintf(out, "  \"bodies\": %d,\n  \"joints\": %d,\n  \"rows\": %d,\n  \"islands\": %d,\n",
            heft_world_body_count(v->world), heft_world_joint_count(v->world), st->rows,
            st->islands);
    fprintf(out, "  \"contacts\": %d,\n  \"geometric_stiffness\": %s,\n", st->contacts,
            v->geometric_stiffness ? "true" : "false");
    const char *sel =
        heft_body_is_valid(v->world, v->selected) ? heft_body_name(v->world, v->selected) : NULL;
    fprintf(out, "  \"selected\": %s%s%s,\n", sel ? "\"" : "", sel ? sel : "null", sel ? "\"" : "");
    fprintf(out, "  \"checks\": [");
    scenario_check checks[SCENARIO_MAX_CHECKS];
    int n = v->desc->checks ? v->desc->checks(v->scene, v->world, checks, SCENARIO_MAX_CHECKS) : 0;
    for (int i = 0; i < n; ++i) {
        fprintf(out, "%s\n    {\"name\": \"%s\", \"value\": %.6g, \"limit\": %.6g, \"pass\": %s}",
                i ? "," : "", checks[i].name, checks[i].value, checks[i].limit,
                checks[i].pass ? "true" : "false");
    }
    fprintf(out, "%s]\n}\n", n ? "\n  " : "");
}
