/* The overlay: statistics, the scene and solver menus, the solver options,
 * the view toggles, the selected body, the live solve-time plot, the key
 * help and the status line. Built every frame with the immediate-mode UI;
 * its buttons act through the same calls as the keys. */
#include <GLFW/glfw3.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "renderer.h"
#include "viewer.h"

static const unsigned char white[4] = {235, 238, 245, 255}, dim[4] = {160, 168, 182, 255},
                           title[4] = {255, 200, 90, 255}, bad[4] = {255, 110, 100, 255};

typedef struct cursor {
    ui_context *ui;
    float x, y, lh;
} cursor;

static void line(cursor *c, const unsigned char *rgba, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void line(cursor *c, const unsigned char *rgba, const char *fmt, ...) {
    char text[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    ui_text(c->ui, c->x, c->y, rgba, text);
    c->y += c->lh;
}

/* tight rows: the last pivoting step's tight-set size, summed over islands */
static int tight_rows(const viewer *v) {
    const heft_step_stats *st = heft_world_stats(v->world);
    int tight = 0;
    for (int i = 0; i < st->islands; ++i) {
        heft_island_stats is;
        if (heft_world_island_stats(v->world, i, &is) == HEFT_OK &&
            is.solver.tight_trace_count > 0) {
            tight += is.solver.tight_trace[is.solver.tight_trace_count - 1];
        }
    }
    return tight;
}

/* Lines of the statistics panel (the panels below it start after them). */
#define STATS_LINES 18

static void stats_panel(viewer *v, float x, float y, float w) {
    ui_context *ui = &v->ui;
    float lh = ui_line_height(ui);
    const heft_step_stats *st = heft_world_stats(v->world);
    int lines = STATS_LINES;
    ui_panel(ui, x, y, w, lh * (float)lines + 12.0f);
    cursor c = {ui, x + 8.0f, y + 6.0f, lh};
    line(&c, title, "%s", v->desc->name);
    snprintf(v->overlay_solver, sizeof v->overlay_solver, "%s", heft_world_solver(v->world));
    line(&c, white, "solver   %s%s", v->overlay_solver, v->paused ? "   [paused]" : "");
    line(&c, white, "step     %d   t = %.2f s   x%g", v->step_index, heft_world_time(v->world),
         v->time_scale);
    line(&c, white, "step     %.3f ms  (solve %.3f ms)", st->time_total_ms, st->time_solve_ms);
    line(&c, white, "iters    %d max, %d sum, inner %d", st->iterations_max, st->iterations_sum,
         st->inner_iterations_sum);
    line(&c, white, "tight    %d rows", tight_rows(v));
    line(&c, st->error_max > 1e-3 ? bad : white, "MLCP err %.2e J", st->error_max);
    line(&c, white, "bodies   %d   joints %d", heft_world_body_count(v->world),
         heft_world_joint_count(v->world));
    line(&c, white, "rows     %d (largest island %d)", st->rows, st->rows_max);
    line(&c, white, "islands  %d (%d solved)   contacts %d", st->islands, st->islands_solved,
         st->contacts);
    line(&c, (st->fallbacks || st->not_converged) ? bad : white, "fallback %d   not converged %d",
         st->fallbacks, st->not_converged);
    /* the pivoting family's own counts, and which answers were kept */
    line(&c, white, "pivots   %d   restarts %d (%d sweeps)", st->pivot_steps, st->restarts,
         st->pgs_sweeps);
    line(&c, white, "factor   %d (body %d)   downdates %d", st->factorizations,
         st->body_factorizations, st->downdates);
    line(&c, white, "frozen   %d   backstop %d (%d pivots, %d Newton)", st->frozen_rounds,
         st->backstops, st->backstop_pivots, st->newton_steps);
    const int other = st->answers_pgs || st->answers_warm_start || st->answers_zero;
    line(&c, other ? bad : white, "answers  own %d   backstop %d   pgs %d", st->answers_solver,
         st->answers_backstop, st->answers_pgs);
    line(&c, other ? bad : white, "         warm start %d   zero %d", st->answers_warm_start,
         st->answers_zero);
    line(&c, white, "geom. stiffness %s", v->geometric_stiffness ? "on" : "off");
    line(&c, dim, "%.0f fps   frame %.1f ms", v->fps, v->frame_ms);
}

static void selected_panel(viewer *v, float x, float y, float w) {
    if (!heft_body_is_valid(v->world, v->selected)) {
        return;
    }
    ui_context *ui = &v->ui;
    float lh = ui_line_height(ui);
    ui_panel(ui, x, y, w, lh * 4.0f + 12.0f);
    cursor c = {ui, x + 8.0f, y + 6.0f, lh};
    const char *name = heft_body_name(v->world, v->selected);
    heft_vec3 p = heft_body_position(v->world, v->selected);
    heft_vec3 vel = heft_body_linear_velocity(v->world, v->selected);
    line(&c, title, "selected: %s%s", name && name[0] ? name : "body",
         v->show.follow ? "  (following)" : "");
    line(&c, white, "mass %.4g kg", heft_body_mass(v->world, v->selected));
    line(&c, white, "at (%.3f, %.3f, %.3f) m", p.x, p.y, p.z);
    line(&c, white, "speed %.3f m/s", heft_v3_length(vel));
}

static float section(ui_context *ui, float x, float y, const char *name) {
    ui_text(ui, x, y, title, name);
    return y + ui_line_height(ui) + 2.0f;
}

static void controls_panel(viewer *v, float x, float y, float w) {
    ui_context *ui = &v->ui;
    float lh = ui_line_height(ui), bh = lh + 6.0f, pad = 8.0f, bw = w - 2.0f * pad;
    int scenes = viewer_scene_count(), solvers = heft_solver_count();
    /* the menu lists the C scenes or the files, with a row to choose */
    int files = 0;
    for (int i = 0; i < scenes; ++i) {
        files += viewer_scene_at(i)->file[0] != '\0';
    }
    int listed = files > scenes - files ? files : scenes - files;
    int scene_rows = (listed + 1) / 2 + (files > 0), solver_rows = (solvers + 1) / 2;
    float height = 4.0f * (lh + 2.0f) + (float)(scene_rows + solver_rows) * (bh + 2.0f) +
                   (float)OPTION_COUNT * (bh + 2.0f) + 5.0f * (bh + 2.0f) + 4.0f * pad;
    ui_panel(ui, x, y, w, height);
    float cy = section(ui, x + pad, y + pad, "scene  (tab, [ ])");
    int current = viewer_current_scene(v);
    float half_w = 0.5f * (bw - 2.0f);
    if (files > 0) {
        if (ui_button(ui, x + pad, cy, half_w, bh, "C scenes", !v->show.files)) {
            v->show.files = 0;
        }
        if (ui_button(ui, x + pad + half_w + 2.0f, cy, half_w, bh, "files", v->show.files)) {
            v->show.files = 1;
        }
        cy += bh + 2.0f;
    }
    int shown = 0;
    for (int i = 0; i < scenes; ++i) {
        const viewer_scene *e = viewer_scene_at(i);
        if ((e->file[0] != '\0') != (v->show.files != 0)) {
            continue;
        }
        float bx = x + pad + (float)(shown % 2) * (half_w + 2.0f);
        if (ui_button(ui, bx, cy, half_w, bh, e->label, i == current)) {
            viewer_load_entry(v, i);
        }
        if (shown++ % 2 == 1) {
            cy += bh + 2.0f;
        }
    }
    if (shown % 2 == 1) {
        cy += bh + 2.0f;
    }
    cy = section(ui, x + pad, cy + pad, "solver  (1-9)");
    for (int i = 0; i < solvers; ++i) { /* two a row, like the scenes */
        const heft_solver_vtable *s = heft_solver_at(i);
        char label[48];
        snprintf(label, sizeof label, "%d %s", i + 1, s->name);
        float bx = x + pad + (float)(i % 2) * (half_w + 2.0f);
        if (ui_button(ui, bx, cy, half_w, bh, label, strcmp(s->name, v->solver) == 0)) {
            viewer_set_solver(v, s->name);
        }
        if (i % 2 == 1 || i == solvers - 1) {
            cy += bh + 2.0f;
        }
    }
    cy = section(ui, x + pad, cy + pad, "options  (o , .)");
    const heft_solver_options *o = &v->solver_options;
    for (int k = 0; k < OPTION_COUNT; ++k) {
        char label[64];
        switch ((option_kind)k) {
        case OPTION_PGS_ITERATIONS:
            snprintf(label, sizeof label, "PGS iterations %d", o->max_iterations);
            break;
        case OPTION_BPP_MAX_STEPS:
            snprintf(label, sizeof label, "BPP max steps %d", o->max_pivots);
            break;
        case OPTION_BPP_PGS_RESTART:
            if (o->bpp_pgs_sweeps > 0) {
                snprintf(label, sizeof label, "BPP restart: PGS %d", o->bpp_pgs_sweeps);
            } else {
                snprintf(label, sizeof label, "BPP restart: off");
            }
            break;
        case OPTION_DOWNDATE_THRESHOLD:
            snprintf(label, sizeof label, "refactor above %.0f%% tight",
                     100.0 * o->skyline_refactor_fraction);
            break;
        case OPTION_PCG_TOLERANCE:
            snprintf(label, sizeof label, "tolerance %.0e", o->tolerance);
            break;
        case OPTION_BACKSTOP_CAP:
            if (o->backstop_max_variables == HEFT_BACKSTOP_OFF) {
                snprintf(label, sizeof label, "Lemke cap: off");
            } else if (o->backstop_max_variables == HEFT_BACKSTOP_BUILD_CAP) {
                snprintf(label, sizeof label, "Lemke cap: build's");
            } else {
                snprintf(label, sizeof label, "Lemke cap: %d", o->backstop_max_variables);
            }
            break;
        default:
            label[0] = '\0';
            break;
        }
        float small = bh + 4.0f;
        if (ui_button(ui, x + pad, cy, small, bh, "-", 0)) {
            viewer_change_option(v, k, -1);
        }
        if (ui_button(ui, x + pad + small + 2.0f, cy, small, bh, "+", 0)) {
            viewer_change_option(v, k, 1);
        }
        unsigned char const *colour = k == v->selected_option ? title : white;
        ui_text(ui, x + pad + 2.0f * small + 8.0f, cy + 0.5f * (bh - 7.0f * ui->text_scale), colour,
                label);
        cy += bh + 2.0f;
    }
    cy = section(ui, x + pad, cy + pad, "view");
    struct {
        const char *label;
        int *flag;
    } toggles[] = {
        {"wire (w)", &v->show.wireframe},  {"contacts (c)", &v->show.contacts},
        {"joints (j)", &v->show.joints},   {"boxes (b)", &v->show.aabbs},
        {"islands (i)", &v->show.islands}, {"rest grey (g)", &v->show.grey_resting},
        {"shadows (l)", &v->show.shadows}, {"plot (t)", &v->show.plot},
        {"help (h)", &v->show.help},       {"pause (spc)", &v->paused},
    };
    float half = 0.5f * (bw - 2.0f);
    for (size_t i = 0; i < sizeof toggles / sizeof toggles[0]; ++i) {
        float bx = x + pad + (float)(i % 2) * (half + 2.0f);
        if (ui_button(ui, bx, cy, half, bh, toggles[i].label, *toggles[i].flag)) {
            *toggles[i].flag = !*toggles[i].flag;
        }
        if (i % 2 == 1) {
            cy += bh + 2.0f;
        }
    }
}

static const char *const help_lines[] = {
    "mouse   left drag: orbit    shift+left / right / middle drag: pan    wheel: zoom",
    "        left on a body: select it and pull it with a spring (release to let go)",
    "1-9     solver (the menu on the right lists them)      k  geometric stiffness",
    "space   pause      n  single step      r / backspace  reset scene",
    "m       operator / timeline (an axis key also takes over; release: rates stop)",
    "        crane: left/right slew, up/down luff, a/z hoist;  winch: up/down drum",
    "        forklift: up/down drive, left/right steer, a/z lift, e/d tilt",
    "tab [ ] next / previous scene     - =  time scale      o , .  pick / change option",
    "w wire  c contacts  j joints  b boxes  i islands  g grey at rest  l shadows",
    "t plot  x clear plot  f follow selected  v camera preset  p / f12 screenshot",
    "u overlay on/off   h / f1 this help   esc deselect / close help / quit",
    "f5 keyframe   f9 back to the keyframe   f6 (hold) rewind the last 5 s, 0.1 s a repeat",
    "drop a scene file (.json) on the window to open it",
};

/* the current scene's axis keys, as one help line ("" without axes) */
static void scene_keys_line(viewer *v, char *out, size_t size) {
    int n = operator_axis_count(v);
    scenario_controls *c = n > 0 ? v->desc->controls(v->scene) : NULL;
    size_t used = 0;
    out[0] = '\0';
    for (int k = 0; c && k < n && used < size; ++k) {
        const char *keys = operator_axis_keys(v, k);
        int wrote = snprintf(out + used, size - used, "%s%s %s",
                             k ? ", " : "this scene: ", keys ? keys : "(panel)", c->axis[k].name);
        used += wrote > 0 ? (size_t)wrote : 0;
    }
}

static void help_panel(viewer *v) {
    ui_context *ui = &v->ui;
    float lh = ui_line_height(ui), w = 0.0f;
    int n = (int)(sizeof help_lines / sizeof help_lines[0]);
    char scene_keys[160];
    scene_keys_line(v, scene_keys, sizeof scene_keys);
    for (int i = 0; i < n; ++i) {
        float lw = ui_text_width(ui, help_lines[i]);
        w = lw > w ? lw : w;
    }
    w += 24.0f;
    float h = lh * (float)(n + 1 + (scene_keys[0] ? 1 : 0)) + 16.0f;
    float x = 0.5f * ((float)v->fb_w - w), y = 0.5f * ((float)v->fb_h - h);
    ui_panel(ui, x, y, w, h);
    cursor c = {ui, x + 12.0f, y + 8.0f, lh};
    line(&c, title, "keys and mouse");
    for (int i = 0; i < n; ++i) {
        line(&c, white, "%s", help_lines[i]);
    }
    if (scene_keys[0]) {
        line(&c, title, "%s", scene_keys);
    }
}

void overlay_build(viewer *v) {
    ui_context *ui = &v->ui;
    float lh = ui_line_height(ui);
    float fw = (float)v->fb_w, fh = (float)v->fb_h;
    float left_w = 22.0f * lh, right_w = 17.0f * lh;
    stats_panel(v, 8.0f, 8.0f, left_w);
    float below = 8.0f + lh * (float)STATS_LINES + 20.0f;
    below += operator_panel(v, 8.0f, below, left_w);
    selected_panel(v, 8.0f, below + (operator_axis_count(v) ? 8.0f : 0.0f), left_w);
    controls_panel(v, fw - right_w - 8.0f, 8.0f, right_w);
    if (v->show.plot) {
        float pw = fw * 0.36f, ph = fh * 0.24f;
        pw = pw < 260.0f ? 260.0f : pw;
        solve_plot_draw(&v->plot, ui, 8.0f, fh - ph - 8.0f, pw, ph, v->solver);
    }
    if (v->show.help) {
        help_panel(v);
    } else {
        ui_text(ui, fw * 0.5f - ui_text_width(ui, "h: help") * 0.5f, fh - lh - 4.0f, dim,
                "h: help");
    }
    if (v->status[0] && glfwGetTime() < v->status_until) {
        float tw = ui_text_width(ui, v->status);
        ui_fill(ui, 0.5f * (fw - tw) - 8.0f, fh - 3.0f * lh - 4.0f, tw + 16.0f, lh + 8.0f,
                (const unsigned char[4]){18, 22, 30, 200});
        ui_text(ui, 0.5f * (fw - tw), fh - 3.0f * lh, white, v->status);
    }
}
