/* Keyboard and mouse: the GLFW callbacks land here, and so do scripted
 * events (script.c) and the tests, so all three take the same path. The key
 * map is the on-screen help (overlay.c) and docs/viewer.md. */
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>

#include "renderer.h"
#include "viewer.h"

/* The backstop caps the viewer steps through, smallest first: off, then LCP
 * variables, the build's cap (2,500 or 1,000) in its place between them. */
static const int backstop_caps[] = {
    HEFT_BACKSTOP_OFF, 250, 500, 1000, HEFT_BACKSTOP_BUILD_CAP, 5000, 10000, 20000, 40000};
#define BACKSTOP_CAP_COUNT ((int)(sizeof backstop_caps / sizeof backstop_caps[0]))

static int next_backstop_cap(int cap, int direction) {
    int at = -1, build = 0;
    for (int k = 0; k < BACKSTOP_CAP_COUNT; ++k) {
        at = backstop_caps[k] == cap ? k : at;
        build = backstop_caps[k] == HEFT_BACKSTOP_BUILD_CAP ? k : build;
    }
    if (at < 0) {
        at = build; /* a cap set elsewhere (a scene file) steps from the build's */
    }
    at += direction > 0 ? 1 : -1;
    at = at < 0 ? 0 : (at >= BACKSTOP_CAP_COUNT ? BACKSTOP_CAP_COUNT - 1 : at);
    return backstop_caps[at];
}

static void change_option(viewer *v, int direction) {
    heft_solver_options *o = &v->solver_options;
    switch ((option_kind)v->selected_option) {
    case OPTION_PGS_ITERATIONS:
        o->max_iterations = direction > 0 ? o->max_iterations * 2 : o->max_iterations / 2;
        o->max_iterations =
            o->max_iterations < 1 ? 1 : (o->max_iterations > 100000 ? 100000 : o->max_iterations);
        break;
    case OPTION_BPP_MAX_STEPS:
        o->max_pivots += direction > 0 ? 5 : -5;
        o->max_pivots = o->max_pivots < 1 ? 1 : (o->max_pivots > 1000 ? 1000 : o->max_pivots);
        break;
    case OPTION_BPP_PGS_RESTART: /* 0 (off), 125, 250, ..., doubling */
        if (direction > 0) {
            o->bpp_pgs_sweeps = o->bpp_pgs_sweeps < 125 ? 125 : o->bpp_pgs_sweeps * 2;
        } else {
            o->bpp_pgs_sweeps = o->bpp_pgs_sweeps <= 125 ? 0 : o->bpp_pgs_sweeps / 2;
        }
        o->bpp_pgs_sweeps = o->bpp_pgs_sweeps > 64000 ? 64000 : o->bpp_pgs_sweeps;
        break;
    case OPTION_DOWNDATE_THRESHOLD:
        o->skyline_refactor_fraction += direction > 0 ? 0.05 : -0.05;
        o->skyline_refactor_fraction =
            o->skyline_refactor_fraction < 0.0
                ? 0.0
                : (o->skyline_refactor_fraction > 1.0 ? 1.0 : o->skyline_refactor_fraction);
        o->skyline_refactor_fraction = round(o->skyline_refactor_fraction * 100.0) / 100.0;
        break;
    case OPTION_PCG_TOLERANCE:
        o->tolerance *= direction > 0 ? 10.0 : 0.1;
        o->tolerance = o->tolerance < 1e-20 ? 1e-20 : (o->tolerance > 1.0 ? 1.0 : o->tolerance);
        break;
    case OPTION_BACKSTOP_CAP:
        o->backstop_max_variables = next_backstop_cap(o->backstop_max_variables, direction);
        break;
    default:
        break;
    }
    viewer_apply_options(v);
}

void viewer_change_option(viewer *v, int option, int direction) {
    if (option >= 0 && option < OPTION_COUNT) {
        v->selected_option = option;
        change_option(v, direction);
    }
}

static void switch_scene(viewer *v, int direction) {
    int n = viewer_scene_count(), current = viewer_current_scene(v);
    if (current < 0) {
        current = direction > 0 ? -1 : 0; /* a scene outside the registry: start at either end */
    }
    viewer_load_entry(v, ((current + direction) % n + n) % n);
}

static void toggle(viewer *v, int *flag, const char *what) {
    *flag = !*flag;
    viewer_set_status(v, "%s %s", what, *flag ? "on" : "off");
}

void viewer_key(viewer *v, int key, int action, int mods) {
    v->shift = (mods & GLFW_MOD_SHIFT) != 0;
    v->ctrl = (mods & GLFW_MOD_CONTROL) != 0;
    if (operator_key(v, key, action)) {
        return; /* the scene's axis keys (operator.c) come first */
    }
    if (action != GLFW_PRESS && action != GLFW_REPEAT) {
        return;
    }
    if (key >= GLFW_KEY_1 && key <= GLFW_KEY_9) {
        const heft_solver_vtable *s = heft_solver_at(key - GLFW_KEY_1);
        if (s) {
            viewer_set_solver(v, s->name);
        } else {
            viewer_set_status(v, "no solver on key %d (%d registered)", key - GLFW_KEY_0,
                              heft_solver_count());
        }
        return;
    }
    switch (key) {
    case GLFW_KEY_SPACE:
        v->paused = !v->paused;
        viewer_set_status(v, v->paused ? "paused" : "running");
        break;
    case GLFW_KEY_N: /* the arrows are the machines' (operator.c) */
        v->paused = 1;
        v->step_once = 1;
        break;
    case GLFW_KEY_R:
    case GLFW_KEY_BACKSPACE:
        viewer_reset_scene(v);
        break;
    case GLFW_KEY_TAB:
        switch_scene(v, (mods & GLFW_MOD_SHIFT) ? -1 : 1);
        break;
    case GLFW_KEY_PAGE_DOWN:
    case GLFW_KEY_RIGHT_BRACKET:
        switch_scene(v, 1);
        break;
    case GLFW_KEY_PAGE_UP:
    case GLFW_KEY_LEFT_BRACKET:
        switch_scene(v, -1);
        break;
    case GLFW_KEY_EQUAL:
    case GLFW_KEY_KP_ADD:
        v->time_scale = fmin(v->time_scale * 2.0, 8.0);
        viewer_set_status(v, "time scale %g", v->time_scale);
        break;
    case GLFW_KEY_MINUS:
    case GLFW_KEY_KP_SUBTRACT:
        v->time_scale = fmax(v->time_scale * 0.5, 1.0 / 64.0);
        viewer_set_status(v, "time scale %g", v->time_scale);
        break;
    case GLFW_KEY_O:
        v->selected_option =
            (v->selected_option + ((mods & GLFW_MOD_SHIFT) ? OPTION_COUNT - 1 : 1)) % OPTION_COUNT;
        break;
    case GLFW_KEY_COMMA:
        change_option(v, -1);
        break;
    case GLFW_KEY_PERIOD:
        change_option(v, 1);
        break;
    case GLFW_KEY_M:
        operator_toggle(v);
        break;
    case GLFW_KEY_K:
        v->geometric_stiffness = !v->geometric_stiffness;
        heft_world_set_geometric_stiffness(v->world, v->geometric_stiffness);
        viewer_set_status(v, "geometric stiffness %s", v->geometric_stiffness ? "on" : "off");
        break;
    case GLFW_KEY_W:
        toggle(v, &v->show.wireframe, "wireframe");
        break;
    case GLFW_KEY_C:
        toggle(v, &v->show.contacts, "contacts");
        break;
    case GLFW_KEY_J:
        toggle(v, &v->show.joints, "joint frames");
        break;
    case GLFW_KEY_B:
        toggle(v, &v->show.aabbs, "bounding boxes");
        break;
    case GLFW_KEY_I:
        toggle(v, &v->show.islands, "island colours");
        break;
    case GLFW_KEY_G:
        toggle(v, &v->show.grey_resting, "grey bodies at rest");
        break;
    case GLFW_KEY_L:
        toggle(v, &v->show.shadows, "shadows");
        break;
    case GLFW_KEY_T:
        toggle(v, &v->show.plot, "solve-time plot");
        break;
    case GLFW_KEY_F1:
    case GLFW_KEY_H:
        toggle(v, &v->show.help, "help");
        break;
    case GLFW_KEY_U:
        toggle(v, &v->show.overlay, "overlay");
        break;
    case GLFW_KEY_X:
        solve_plot_clear(&v->plot);
        viewer_set_status(v, "plot cleared");
        break;
    case GLFW_KEY_F:
        if (heft_body_is_valid(v->world, v->selected)) {
            toggle(v, &v->show.follow, "follow");
        } else {
            v->show.follow = 0;
            viewer_set_status(v, "follow: select a body first (click it)");
        }
        break;
    case GLFW_KEY_V:
        viewer_camera_preset(v);
        viewer_set_status(v, "camera reset");
        break;
    case GLFW_KEY_P:
    case GLFW_KEY_F12:
        snprintf(v->shot_request, sizeof v->shot_request, "heft-%s-%03d.png", v->desc->name,
                 v->screenshot_count++);
        break;
    case GLFW_KEY_ESCAPE:
        if (heft_body_is_valid(v->world, v->selected)) {
            v->selected = (heft_body_id){0, 0};
            v->show.follow = 0;
        } else if (v->show.help) {
            v->show.help = 0;
        } else {
            v->quit = 1;
        }
        break;
    case GLFW_KEY_F5:
        viewer_keyframe_save(v);
        break;
    case GLFW_KEY_F9:
        viewer_keyframe_restore(v);
        break;
    case GLFW_KEY_F6: /* held: on and on, 0.1 s a repeat */
        viewer_rewind(v);
        break;
    case GLFW_KEY_Q:
        if (mods & GLFW_MOD_CONTROL) {
            v->quit = 1;
        }
        break;
    default:
        break;
    }
}

void viewer_mouse_button(viewer *v, int button, int action, int mods) {
    v->shift = (mods & GLFW_MOD_SHIFT) != 0;
    v->ctrl = (mods & GLFW_MOD_CONTROL) != 0;
    float sx = v->win_w > 0 ? (float)v->fb_w / (float)v->win_w : 1.0f;
    float sy = v->win_h > 0 ? (float)v->fb_h / (float)v->win_h : 1.0f;
    float fx = (float)v->mouse_x * sx, fy = (float)v->mouse_y * sy;
    int down = action == GLFW_PRESS;
    if (button == GLFW_MOUSE_BUTTON_LEFT) {
        if (down && v->show.overlay && ui_covers(&v->ui, fx, fy)) {
            ui_click(&v->ui, fx, fy); /* a button gets it in the next overlay_build */
            return;
        }
        v->mouse_left = down;
        if (down) {
            v->mouse_moved = 0;
            heft_ray_hit hit;
            if (!v->shift && viewer_pick(v, v->mouse_x, v->mouse_y, &hit) == 1) {
                heft_body_state st;
                if (heft_body_get_state(v->world, hit.body, &st) == HEFT_OK &&
                    st.type == HEFT_BODY_DYNAMIC) {
                    v->selected = hit.body;
                    viewer_drag_begin(v, &hit);
                    const char *name = heft_body_name(v->world, hit.body);
                    viewer_set_status(v, "selected %s (%.4g kg)", name && name[0] ? name : "body",
                                      st.mass);
                }
            }
        } else {
            if (!v->mouse_moved && !v->drag.active) {
                heft_ray_hit hit;
                if (viewer_pick(v, v->mouse_x, v->mouse_y, &hit) != 1) {
                    v->selected = (heft_body_id){0, 0}; /* a click on the sky deselects */
                    v->show.follow = 0;
                }
            }
            viewer_drag_end(v);
        }
    } else if (button == GLFW_MOUSE_BUTTON_RIGHT) {
        v->mouse_right = down;
    } else if (button == GLFW_MOUSE_BUTTON_MIDDLE) {
        v->mouse_middle = down;
    }
}

void viewer_mouse_move(viewer *v, double x, double y) {
    double dx = x - v->mouse_x, dy = y - v->mouse_y;
    v->mouse_x = x;
    v->mouse_y = y;
    if (fabs(dx) + fabs(dy) > 0.0 && v->mouse_left) {
        v->mouse_moved = 1;
    }
    if (v->drag.active) {
        viewer_drag_move(v, x, y);
    } else if ((v->mouse_left && v->shift) || v->mouse_middle || v->mouse_right) {
        camera_pan(&v->cam, (float)dx, (float)dy, (float)(v->win_h > 0 ? v->win_h : 1));
        v->show.follow = 0;
    } else if (v->mouse_left) {
        camera_orbit(&v->cam, (float)dx, (float)dy);
    }
}

void viewer_scroll(viewer *v, double dy) {
    camera_zoom(&v->cam, (float)dy);
}

static viewer *from_window(GLFWwindow *w) {
    return glfwGetWindowUserPointer(w);
}

static void on_key(GLFWwindow *w, int key, int scancode, int action, int mods) {
    (void)scancode;
    viewer_key(from_window(w), key, action, mods);
}
static void on_button(GLFWwindow *w, int button, int action, int mods) {
    viewer_mouse_button(from_window(w), button, action, mods);
}
static void on_move(GLFWwindow *w, double x, double y) {
    viewer_mouse_move(from_window(w), x, y);
}
static void on_scroll(GLFWwindow *w, double dx, double dy) {
    (void)dx;
    viewer_scroll(from_window(w), dy);
}

/* A file dropped on the window: the first of them opened as a scene file. */
static void on_drop(GLFWwindow *w, int count, const char **paths) {
    if (count > 0) {
        viewer_load_file(from_window(w), paths[0]);
    }
}

void viewer_install_callbacks(viewer *v) {
    glfwSetDropCallback(v->window, on_drop);
    glfwSetWindowUserPointer(v->window, v);
    glfwSetKeyCallback(v->window, on_key);
    glfwSetMouseButtonCallback(v->window, on_button);
    glfwSetCursorPosCallback(v->window, on_move);
    glfwSetScrollCallback(v->window, on_scroll);
}
