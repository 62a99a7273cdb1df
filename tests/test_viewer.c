/* The viewer under Xvfb (tests/CMakeLists.txt runs this with xvfb-run): the
 * default scene renders as a real picture, solvers switch through the keys a
 * user presses, and a click on a body selects it. The pictures are checked
 * for colours where the camera puts things, with tolerances, not against a
 * golden image. */
#include <criterion/criterion.h>
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <stb/stb_image.h>

#include "renderer.h"
#include "viewer.h"

static viewer *open_viewer(const char *scene, int frames, const char *keys, const char *shot) {
    viewer_options o = viewer_default_options();
    o.hidden = 1;
    o.frames = frames;
    o.scenario = scene;
    o.script = keys;
    o.screenshot = shot;
    o.samples = 0; /* llvmpipe is three times slower with MSAA; a CLI test covers it */
    char err[512] = "";
    viewer *v = viewer_create(&o, err, sizeof err);
    cr_assert_not_null(v, "viewer_create: %s", err);
    return v;
}

typedef struct image {
    unsigned char *rgb;
    int w, h;
} image;

static void pixel(const image *im, int x, int y, float c[3]) {
    const unsigned char *p = im->rgb + ((size_t)y * (size_t)im->w + (size_t)x) * 3;
    for (int k = 0; k < 3; ++k) {
        c[k] = p[k] / 255.0f;
    }
}

/* what the world shows along the camera ray through a window pixel */
static int ray_at(viewer *v, double x, double y, heft_ray_hit *hit) {
    return viewer_pick(v, x, y, hit);
}

static int ray_points_up(viewer *v, double x, double y) {
    vec3 o, d;
    camera_ray(&v->cam, (float)x, (float)y, (float)v->win_w, (float)v->win_h, o, d);
    return d[2] > 0.05f;
}

/* scenes without a ground plane get a reference grid at z = 0 */
static int ground_within(viewer *v, double x, double y, double range) {
    vec3 o, d;
    camera_ray(&v->cam, (float)x, (float)y, (float)v->win_w, (float)v->win_h, o, d);
    return d[2] < -1e-3f && -o[2] / d[2] < range;
}

static int is_static(viewer *v, heft_body_id b) {
    heft_body_state st;
    return heft_body_get_state(v->world, b, &st) == HEFT_OK && st.type == HEFT_BODY_STATIC;
}

/* chromaticity distance: colours compared independent of how lit they are */
static float chroma_distance(const float a[3], const float b[3]) {
    float sa = a[0] + a[1] + a[2] + 1e-6f, sb = b[0] + b[1] + b[2] + 1e-6f, d = 0.0f;
    for (int k = 0; k < 3; ++k) {
        float e = a[k] / sa - b[k] / sb;
        d += e * e;
    }
    return sqrtf(d);
}

static heft_body_id body_named(viewer *v, const char *name) {
    heft_body_id ids[256];
    int n = heft_world_bodies(v->world, ids, 256);
    for (int i = 0; i < n && i < 256; ++i) {
        const char *b = heft_body_name(v->world, ids[i]);
        if (b && strcmp(b, name) == 0) {
            return ids[i];
        }
    }
    return (heft_body_id){0, 0};
}

/* where a body's centre is drawn, in window coordinates; 0 if off screen */
static int body_on_screen(viewer *v, heft_body_id b, double *x, double *y) {
    heft_vec3 p = heft_body_position(v->world, b);
    float point[3] = {(float)p.x, (float)p.y, (float)p.z}, px, py;
    if (!camera_project(&v->cam, point, (float)v->win_w, (float)v->win_h, &px, &py) || px < 0.0f ||
        py < 0.0f || px >= (float)v->win_w || py >= (float)v->win_h) {
        return 0;
    }
    *x = px;
    *y = py;
    return 1;
}

Test(viewer, crane_is_the_default_and_renders_ground_sky_and_bodies_where_its_preset_puts_them,
     .timeout = 600) {
    const char *path = "test_viewer_default.png";
    viewer *v = open_viewer(NULL, 60, NULL, path);
    if (scenario_find("crane")) {
        cr_assert_str_eq(v->desc->name, "crane", "the viewer opens on the crane");
    }
    cr_assert_eq(viewer_run(v), 0);
    cr_assert_eq(v->frame_index, 60);
    cr_assert_eq(v->step_index, 60, "one physics step per frame with --frames");
    image im;
    int channels = 0;
    im.rgb = stbi_load(path, &im.w, &im.h, &channels, 3);
    cr_assert_not_null(im.rgb, "the screenshot is a PNG");
    cr_assert_eq(im.w, v->fb_w);
    cr_assert_eq(im.h, v->fb_h);

    int sky = 0, sky_ok = 0, ground = 0, ground_ok = 0;
    for (int y = 4; y < im.h; y += 16) {
        for (int x = 4; x < im.w; x += 16) {
            if (ui_covers(&v->ui, (float)x, (float)y)) {
                continue;
            }
            float c[3];
            pixel(&im, x, y, c);
            heft_ray_hit hit;
            int hits = ray_at(v, x, y, &hit);
            if (!hits && ray_points_up(v, x, y)) {
                sky++; /* sky: blue above the horizon */
                sky_ok += c[2] > 0.5f && c[2] > c[0] + 0.08f && c[2] >= c[1];
            } else if (hits == 1 ? is_static(v, hit.body) && hit.distance < 100.0
                                 : ground_within(v, x, y, 100.0)) {
                ground++; /* ground: a neutral grey-green, lit or in shadow */
                float mean = (c[0] + c[1] + c[2]) / 3.0f;
                ground_ok += mean > 0.15f && mean < 0.9f && fabsf(c[0] - c[1]) < 0.12f &&
                             fabsf(c[1] - c[2]) < 0.12f;
            }
        }
    }
    cr_log_info("sky %d/%d, ground %d/%d", sky_ok, sky, ground_ok, ground);
    cr_expect_gt(sky, 50, "the preset shows sky");
    cr_expect_gt(ground, 50, "the preset shows ground");
    cr_expect_geq(sky_ok, (int)(0.95 * sky), "sky pixels are sky blue: %d of %d", sky_ok, sky);
    cr_expect_geq(ground_ok, (int)(0.95 * ground), "ground pixels are ground grey: %d of %d",
                  ground_ok, ground);

    /* every dynamic body whose centre is in view shows its own colour there */
    heft_body_id ids[256];
    int n = heft_world_bodies(v->world, ids, 256), seen = 0, right = 0;
    for (int i = 0; i < n && i < 256; ++i) {
        if (is_static(v, ids[i])) {
            continue;
        }
        heft_vec3 p = heft_body_position(v->world, ids[i]);
        float point[3] = {(float)p.x, (float)p.y, (float)p.z}, px, py;
        if (!camera_project(&v->cam, point, (float)v->win_w, (float)v->win_h, &px, &py)) {
            continue;
        }
        int x = (int)lroundf(px), y = (int)lroundf(py);
        heft_ray_hit hit;
        if (x < 0 || y < 0 || x >= im.w || y >= im.h || ui_covers(&v->ui, (float)x, (float)y) ||
            ray_at(v, x, y, &hit) != 1 || hit.body.index != ids[i].index) {
            continue; /* off screen, under a panel or behind another body */
        }
        float expected[3], c[3];
        viewer_body_colour(v, ids[i], expected);
        pixel(&im, x, y, c);
        seen++;
        float d = chroma_distance(c, expected);
        right += d < 0.08f && (c[0] + c[1] + c[2]) > 0.3f;
        if (d >= 0.08f) {
            cr_log_warn("body %s at (%d, %d): drawn (%.2f %.2f %.2f), colour (%.2f %.2f %.2f)",
                        heft_body_name(v->world, ids[i]), x, y, c[0], c[1], c[2], expected[0],
                        expected[1], expected[2]);
        }
    }
    cr_log_info("bodies: %d of %d in view show their colour", right, seen);
    cr_expect_geq(seen, 3, "the preset shows the bodies");
    cr_expect_geq(right, (int)ceil(0.8 * seen), "%d of %d bodies show their colour", right, seen);

    /* the crane's preset shows the machine and its load: each of these is
     * in view, not under a panel, in front, and drawn in its own colour */
    static const char *const parts[] = {"chassis", "turntable", "boom", "pipe"};
    for (size_t k = 0; scenario_find("crane") && k < sizeof parts / sizeof parts[0]; ++k) {
        heft_body_id b = body_named(v, parts[k]);
        double x, y;
        cr_assert(heft_body_is_valid(v->world, b), "the crane has a %s", parts[k]);
        cr_assert(body_on_screen(v, b, &x, &y), "the %s is on screen", parts[k]);
        int ix = (int)lround(x), iy = (int)lround(y);
        heft_ray_hit hit;
        cr_expect(!ui_covers(&v->ui, (float)ix, (float)iy), "the %s is not under a panel",
                  parts[k]);
        cr_expect(ray_at(v, ix, iy, &hit) == 1 && hit.body.index == b.index,
                  "the %s's centre is not hidden", parts[k]);
        float expected[3], c[3];
        viewer_body_colour(v, b, expected);
        pixel(&im, ix, iy, c);
        float d = chroma_distance(c, expected);
        cr_log_info("%s at (%d, %d): drawn (%.2f %.2f %.2f), colour (%.2f %.2f %.2f), chroma "
                    "distance %.3f",
                    parts[k], ix, iy, c[0], c[1], c[2], expected[0], expected[1], expected[2], d);
        cr_expect_lt(d, 0.08f, "the %s is drawn in its colour", parts[k]);
        cr_expect_gt(c[0] + c[1] + c[2], 0.3f, "the %s is lit", parts[k]);
    }
    stbi_image_free(im.rgb);
    viewer_destroy(v);
    if (!getenv("HEFT_VIEWER_TEST_KEEP")) { /* set it to look at the pictures */
        unlink(path);
    }
}

Test(viewer, number_keys_switch_the_solver_the_overlay_shows_and_the_engine_uses, .timeout = 600) {
    cr_assert_geq(heft_solver_count(), 2);
    const char *first = heft_solver_at(0)->name, *second = heft_solver_at(1)->name;
    /* the number keys reach the first nine solvers (the menu reaches all) */
    const int keyed = heft_solver_count() < 9 ? heft_solver_count() : 9;
    const char *last = heft_solver_at(keyed - 1)->name;
    char keys[64];
    snprintf(keys, sizeof keys, "1 wait:5 2 wait:5 %d wait:5", keyed);
    const char *scene = scenario_find("crane") ? "crane" : "hanging-chain";
    viewer *v = open_viewer(scene, 18, keys, NULL);
    cr_assert_eq(viewer_run(v), 0);
    cr_expect_str_eq(v->overlay_solver, last, "the overlay reports %s", last);
    cr_expect_str_eq(heft_world_solver(v->world), last, "the engine uses %s", last);
    /* every solver that ran left its own curve in the solve-time plot, in order */
    cr_assert_geq(v->plot.count, 3);
    cr_expect_str_eq(v->plot.series[v->plot.count - 3].solver, first);
    cr_expect_str_eq(v->plot.series[v->plot.count - 2].solver, second);
    cr_expect_str_eq(v->plot.series[v->plot.count - 1].solver, last);
    const plot_series *s = &v->plot.series[v->plot.count - 2];
    cr_expect_geq(s->last_step - s->first_step + 1, 4, "%s solved about 5 steps", second);
    viewer_destroy(v);
}

/* The overlay's backstop option steps the world's backstop_max_variables
 * through off, 250 to 1,000, the build's cap and 5,000 to 40,000, and
 * stops at either end. */
Test(viewer, the_backstop_cap_option_reaches_the_world, .timeout = 600) {
    viewer *v = open_viewer("pendulum", 1, NULL, NULL);
    const int down[] = {1000, 500, 250, HEFT_BACKSTOP_OFF, HEFT_BACKSTOP_OFF};
    const int up[] = {250, 500, 1000, HEFT_BACKSTOP_BUILD_CAP, 5000, 10000, 20000, 40000, 40000};
    cr_assert_eq(heft_world_solver_options(v->world).backstop_max_variables,
                 HEFT_BACKSTOP_BUILD_CAP);
    for (int k = 0; k < 5; ++k) {
        viewer_change_option(v, OPTION_BACKSTOP_CAP, -1);
        cr_expect_eq(heft_world_solver_options(v->world).backstop_max_variables, down[k], "step %d",
                     k);
    }
    for (int k = 0; k < 9; ++k) {
        viewer_change_option(v, OPTION_BACKSTOP_CAP, 1);
        cr_expect_eq(heft_world_solver_options(v->world).backstop_max_variables, up[k], "step %d",
                     k);
    }
    viewer_destroy(v);
}

Test(viewer, an_unknown_solver_key_changes_nothing, .timeout = 600) {
    viewer *v = open_viewer("pendulum", 3, "9 wait:1", NULL);
    char before[32];
    snprintf(before, sizeof before, "%s", heft_world_solver(v->world));
    cr_assert_eq(viewer_run(v), 0);
    if (heft_solver_count() < 9) {
        cr_expect_str_eq(heft_world_solver(v->world), before);
        cr_expect(strstr(v->status, "no solver") != NULL, "status: %s", v->status);
    }
    viewer_destroy(v);
}

/* a dynamic body whose centre is visible (not under a panel, not hidden) */
static int visible_body(viewer *v, heft_body_id *out, double *x, double *y, int prefer_heaviest) {
    heft_body_id ids[256];
    int n = heft_world_bodies(v->world, ids, 256), found = 0;
    double best = -1.0;
    for (int i = 0; i < n && i < 256; ++i) {
        if (is_static(v, ids[i])) {
            continue;
        }
        heft_vec3 p = heft_body_position(v->world, ids[i]);
        float point[3] = {(float)p.x, (float)p.y, (float)p.z}, px, py;
        heft_ray_hit hit;
        if (!camera_project(&v->cam, point, (float)v->win_w, (float)v->win_h, &px, &py) ||
            ui_covers(&v->ui, px, py) || ray_at(v, px, py, &hit) != 1 ||
            hit.body.index != ids[i].index) {
            continue;
        }
        double m = prefer_heaviest ? heft_body_mass(v->world, ids[i]) : (double)(n - i);
        if (m > best) {
            best = m;
            *out = ids[i];
            *x = px;
            *y = py;
            found = 1;
        }
    }
    return found;
}

Test(viewer, clicking_a_body_selects_it, .timeout = 600) {
    viewer *v = open_viewer("hanging-chain", 10, NULL, NULL);
    cr_assert_eq(viewer_run(v), 0);
    heft_body_id body;
    double x, y;
    cr_assert(visible_body(v, &body, &x, &y, 1), "some body is in view");
    cr_assert(!heft_body_is_valid(v->world, v->selected), "nothing selected at start");
    /* the same calls the GLFW callbacks make */
    viewer_mouse_move(v, x, y);
    viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
    viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
    cr_expect_eq(v->selected.index, body.index, "selected body %d, clicked %s (%d)",
                 v->selected.index, heft_body_name(v->world, body), body.index);
    cr_expect_eq(v->selected.generation, body.generation);
    /* and a click on the sky deselects */
    viewer_mouse_move(v, 0.5 * v->win_w, 2.0);
    heft_ray_hit hit;
    if (!ui_covers(&v->ui, 0.5f * (float)v->fb_w, 2.0f) &&
        viewer_pick(v, 0.5 * v->win_w, 2.0, &hit) == 0) {
        viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
        viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
        cr_expect(!heft_body_is_valid(v->world, v->selected));
    }
    viewer_destroy(v);
}

Test(viewer, clicking_the_crane_pipe_or_chassis_selects_that_body, .timeout = 600) {
    if (!scenario_find("crane")) {
        cr_skip("no crane scene");
    }
    viewer *v = open_viewer("crane", 5, NULL, NULL);
    cr_assert_eq(viewer_run(v), 0);
    static const char *const parts[] = {"pipe", "chassis", "boom"};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; ++k) {
        heft_body_id b = body_named(v, parts[k]);
        double x, y;
        cr_assert(heft_body_is_valid(v->world, b));
        cr_assert(body_on_screen(v, b, &x, &y), "the %s is on screen", parts[k]);
        /* deselect, then click where the camera draws the body's centre */
        viewer_key(v, GLFW_KEY_ESCAPE, GLFW_PRESS, 0);
        cr_assert(!heft_body_is_valid(v->world, v->selected));
        viewer_mouse_move(v, x, y);
        viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
        viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
        const char *got = heft_body_is_valid(v->world, v->selected)
                              ? heft_body_name(v->world, v->selected)
                              : "nothing";
        cr_log_info("click at (%.1f, %.1f) on the %s selected %s", x, y, parts[k], got);
        cr_expect_eq(v->selected.index, b.index, "the click on the %s selected %s", parts[k], got);
        cr_expect_eq(v->selected.generation, b.generation);
        /* and the overlay names it in the next frame */
        v->opt.frames = v->frame_index + 1;
        cr_assert_eq(viewer_run(v), 0);
    }
    viewer_destroy(v);
}

Test(viewer, a_scripted_drag_selects_the_body_and_pulls_it, .timeout = 600) {
    /* the free run: where the bob is drawn early on, and where it is 26 frames later */
    viewer *free_run = open_viewer("pendulum", 2, NULL, NULL);
    cr_assert_eq(viewer_run(free_run), 0);
    heft_body_id body;
    double x, y;
    cr_assert(visible_body(free_run, &body, &x, &y, 1));
    free_run->opt.frames = 26;
    cr_assert_eq(viewer_run(free_run), 0);
    heft_vec3 free_end = heft_body_position(free_run->world, body);
    viewer_destroy(free_run);
    /* the same run with a user dragging the bob 150 pixels to the right */
    char keys[128];
    snprintf(keys, sizeof keys, "wait:2 drag:%.1f,%.1f,%.1f,%.1f,20", x, y, x + 150.0, y);
    viewer *v = open_viewer("pendulum", 26, keys, NULL);
    cr_assert_eq(viewer_run(v), 0);
    cr_expect_eq(v->selected.index, body.index, "the press at (%.1f, %.1f) selected body %d", x, y,
                 v->selected.index);
    heft_vec3 end = heft_body_position(v->world, body);
    double moved = heft_v3_length(heft_v3_sub(end, free_end));
    cr_log_info("the drag moved the bob %.3f m from its free swing", moved);
    cr_expect_gt(moved, 0.1, "the spring pulled the bob %.3f m away from its free swing", moved);
    viewer_destroy(v);
}

Test(viewer, every_scene_renders_and_switches_without_a_crash, .timeout = 600) {
    char keys[512] = "";
    for (int i = 0; i < viewer_scene_count(); ++i) { /* the stacking variants included */
        strcat(keys, "tab wait:3 c j b i w ");
    }
    viewer *v = open_viewer(NULL, 4 * viewer_scene_count() + 2, keys, NULL);
    cr_assert_eq(viewer_run(v), 0);
    cr_expect_eq(v->desc, viewer_default_scene(), "tabbing through every scene comes back");
    cr_expect_str_eq(heft_world_solver(v->world), v->default_solver,
                     "back on the crane with the viewer's solver (the stacks ran pgs)");
    viewer_destroy(v);
}

static void count_segment(void *context, heft_vec3 a, heft_vec3 b, heft_color c) {
    (void)a;
    (void)b;
    (void)c;
    ++*(int *)context;
}

/* The debug layers (c, j, b, i) are the engine's debug draw: the viewer's
 * lines are exactly the segments heft_world_draw gives for the same flags. */
Test(viewer, the_debug_layers_are_drawn_by_heft_world_draw, .timeout = 600) {
    viewer *v = open_viewer(NULL, 20, "c j b i", NULL);
    cr_assert_eq(viewer_run(v), 0);
    cr_assert(v->show.contacts && v->show.joints && v->show.aabbs && v->show.islands);
    const uint32_t flags = renderer_debug_flags(v);
    const uint32_t expected = HEFT_DRAW_CONTACTS | HEFT_DRAW_CONTACT_FORCES | HEFT_DRAW_JOINTS |
                              HEFT_DRAW_JOINT_LIMITS | HEFT_DRAW_AABBS | HEFT_DRAW_ISLANDS;
    cr_assert_eq(flags, expected);
    renderer_draw(v->renderer, v); /* the world as it is now */
    int segments = 0;
    heft_debug_draw draw = heft_default_debug_draw();
    draw.segment = count_segment;
    draw.context = &segments;
    cr_assert_eq(heft_world_draw(v->world, &draw, flags), HEFT_OK);
    cr_log_info("debug layers: %d segments, %d contacts, %d joints", segments,
                heft_world_contact_count(v->world), heft_world_joint_count(v->world));
    cr_assert_gt(segments, 0);
    cr_assert_eq(renderer_debug_segments(v->renderer), segments);
    /* every layer off: nothing */
    v->show.contacts = v->show.joints = v->show.aabbs = v->show.islands = 0;
    cr_assert_eq(renderer_debug_flags(v), 0u);
    renderer_draw(v->renderer, v);
    cr_assert_eq(renderer_debug_segments(v->renderer), 0);
    viewer_destroy(v);
}

static heft_joint_id joint_named(viewer *v, const char *name) {
    heft_joint_id joints[128];
    int n = heft_world_joints(v->world, joints, 128);
    for (int i = 0; i < n && i < 128; ++i) {
        const char *j = heft_joint_name(v->world, joints[i]);
        if (j && strcmp(j, name) == 0) {
            return joints[i];
        }
    }
    return (heft_joint_id){0, 0};
}

/* Runs a scene for `frames` with a script; returns the joint's coordinate. */
static double run_and_read_joint(const char *scene, int frames, const char *keys, const char *joint,
                                 heft_joint_dof dof, viewer **out) {
    viewer *v = open_viewer(scene, frames, keys, NULL);
    cr_assert_eq(viewer_run(v), 0);
    heft_joint_id j = joint_named(v, joint);
    cr_assert(heft_joint_is_valid(v->world, j), "%s has a joint %s", scene, joint);
    double q = heft_joint_coordinate(v->world, j, dof);
    *out = v;
    return q;
}

Test(viewer, holding_the_crane_slew_key_takes_over_and_turns_the_turntable, .timeout = 600) {
    if (!scenario_find("crane")) {
        cr_skip("no crane scene");
    }
    /* the crane's timeline does not slew before 12 s: the same 45 frames
     * without a key leave the turntable where it was */
    viewer *free_run;
    double still = run_and_read_joint("crane", 45, NULL, "slew", HEFT_DOF_RX, &free_run);
    cr_expect(!free_run->op.manual);
    viewer_destroy(free_run);
    /* left held from frame 2: slew counter-clockwise at full rate */
    viewer *v;
    double turned =
        run_and_read_joint("crane", 45, "wait:2 down:left wait:42", "slew", HEFT_DOF_RX, &v);
    cr_expect(v->op.manual, "the key took over");
    cr_expect(!v->paused, "the arrow did not single-step (that pauses)");
    scenario_controls *c = v->desc->controls(v->scene);
    cr_assert_str_eq(c->axis[0].name, "slew");
    cr_expect_float_eq(c->axis[0].value, c->axis[0].max, 1e-9, "slew at %g, max %g",
                       c->axis[0].value, c->axis[0].max);
    cr_log_info("slew: %.4f rad without the key, %.4f rad with left held (%d steps)", still, turned,
                v->step_index);
    cr_expect_lt(fabs(still), 1e-3, "without the key the turntable stays (%.5f rad)", still);
    cr_expect_gt(turned, 0.05, "left turned the turntable %.4f rad counter-clockwise", turned);
    viewer_destroy(v);
    /* and right turns it the other way */
    double back =
        run_and_read_joint("crane", 45, "wait:2 down:right wait:42", "slew", HEFT_DOF_RX, &v);
    cr_log_info("slew with right held: %.4f rad", back);
    cr_expect_lt(back, -0.05, "right turned the turntable %.4f rad clockwise", back);
    viewer_destroy(v);
}

Test(viewer, holding_the_forklift_lift_key_raises_the_forks, .timeout = 600) {
    if (!scenario_find("forklift")) {
        cr_skip("no forklift scene");
    }
    /* the forklift's timeline lifts from 4.5 s on: before that the carriage
     * only moves if the operator lifts it */
    viewer *free_run;
    double rest = run_and_read_joint("forklift", 40, NULL, "lift", HEFT_DOF_X, &free_run);
    viewer_destroy(free_run);
    viewer *v;
    double lifted =
        run_and_read_joint("forklift", 40, "wait:2 down:a wait:37", "lift", HEFT_DOF_X, &v);
    cr_log_info("lift: %.4f m without the key, %.4f m with a held", rest, lifted);
    cr_expect(v->op.manual);
    cr_expect_gt(lifted - rest, 0.1, "a raised the carriage %.4f m", lifted - rest);
    viewer_destroy(v);
}

Test(viewer, the_machines_axis_keys_mean_nothing_else_to_the_viewer, .timeout = 600) {
    /* every key of every scene's axes, pressed in a scene without axes,
     * changes nothing: no toggle, solver, scene, clock or camera binding
     * hides behind an operator key */
    viewer *v = open_viewer("pendulum", 1, NULL, NULL);
    cr_assert_eq(viewer_run(v), 0);
    cr_assert_eq(operator_axis_count(v), 0);
    int checked = 0;
    for (int i = 0; i < scenario_count(); ++i) {
        const scenario_desc *d = scenario_at(i);
        if (!d->controls) {
            continue;
        }
        heft_world_def wd = heft_default_world_def();
        heft_world *w = heft_world_create(&wd);
        cr_assert_not_null(w);
        scenario *sc = d->create(w, &v->opt.params);
        cr_assert_not_null(sc, "%s: %s", d->name, heft_last_error());
        scenario_controls *c = d->controls(sc);
        const char *names[OPERATOR_MAX_AXES];
        const axis_binding *b[OPERATOR_MAX_AXES];
        int n = c->count < OPERATOR_MAX_AXES ? c->count : OPERATOR_MAX_AXES;
        for (int k = 0; k < n; ++k) {
            names[k] = c->axis[k].name;
        }
        operator_bindings(names, n, b);
        for (int k = 0; k < n; ++k) {
            cr_assert_not_null(b[k], "%s: axis %s has keys", d->name, names[k]);
            for (int side = 0; side < 2; ++side) {
                int key = side ? b[k]->plus_key : b[k]->minus_key;
                for (int j = 0; j < n; ++j) {
                    cr_expect(j == k || (b[j]->minus_key != key && b[j]->plus_key != key),
                              "%s: %s and %s share a key", d->name, names[k], names[j]);
                }
                viewer before = *v;
                camera cam = v->cam;
                viewer_key(v, key, GLFW_PRESS, 0);
                viewer_key(v, key, GLFW_RELEASE, 0);
                cr_expect(memcmp(&before.show, &v->show, sizeof v->show) == 0 &&
                              before.paused == v->paused && before.step_once == v->step_once &&
                              before.time_scale == v->time_scale && before.desc == v->desc &&
                              before.world == v->world && before.quit == v->quit &&
                              before.selected_option == v->selected_option &&
                              before.geometric_stiffness == v->geometric_stiffness &&
                              strcmp(before.solver, v->solver) == 0 && !v->shot_request[0] &&
                              memcmp(&cam, &v->cam, sizeof cam) == 0,
                          "%s's key for %s (%s) does something else in the viewer", d->name,
                          names[k], b[k]->label);
                checked++;
            }
        }
        d->destroy(sc);
        heft_world_destroy(w);
    }
    cr_log_info("%d operator keys checked", checked);
    cr_expect_geq(checked, 2 * 8, "crane 3, forklift 4, winch 1 axes");
    viewer_destroy(v);
}

/* A scene with one body of every shape type in a row, for the renderer. */
struct scenario {
    int unused;
};

static scenario every_shape_state;

static heft_body_id add_shape_body(heft_world *w, double x, heft_body_type type,
                                   const heft_shape_def *sd) {
    heft_body_def bd = heft_default_body_def();
    bd.type = type;
    bd.position = heft_v3(x, 0.0, 0.6);
    bd.gravity_scale = 0.0; /* they float where they are put */
    heft_body_id b = heft_create_body(w, &bd);
    cr_assert(heft_shape_is_valid(w, heft_create_shape(w, b, sd)), "%s", heft_last_error());
    return b;
}

static scenario *every_shape_create(heft_world *w, const scenario_params *p) {
    (void)p;
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    heft_body_id ground = heft_create_body(w, &gd);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    heft_create_shape(w, ground, &plane);
    heft_shape_def sd = heft_default_shape_def();
    sd.radius = 0.4;
    add_shape_body(w, -6.0, HEFT_BODY_DYNAMIC, &sd);
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(0.4, 0.3, 0.4);
    add_shape_body(w, -4.5, HEFT_BODY_DYNAMIC, &sd);
    sd.type = HEFT_SHAPE_CAPSULE;
    sd.radius = 0.25;
    sd.half_length = 0.3;
    add_shape_body(w, -3.0, HEFT_BODY_DYNAMIC, &sd);
    sd.type = HEFT_SHAPE_CYLINDER;
    sd.radius = 0.35;
    sd.half_length = 0.35;
    add_shape_body(w, -1.5, HEFT_BODY_DYNAMIC, &sd);
    const heft_vec3 points[] = {heft_v3(-0.4, -0.4, -0.4), heft_v3(0.4, -0.4, -0.4),
                                heft_v3(0.0, 0.45, -0.4), heft_v3(0.0, 0.0, 0.45),
                                heft_v3(0.3, 0.3, 0.2)};
    sd.type = HEFT_SHAPE_HULL;
    sd.hull.points = points;
    sd.hull.count = 5;
    add_shape_body(w, 0.0, HEFT_BODY_DYNAMIC, &sd);
    /* a static mesh: a square pyramid's four faces */
    const heft_vec3 verts[] = {heft_v3(-0.5, -0.5, -0.4), heft_v3(0.5, -0.5, -0.4),
                               heft_v3(0.5, 0.5, -0.4), heft_v3(-0.5, 0.5, -0.4),
                               heft_v3(0.0, 0.0, 0.4)};
    const int32_t tris[] = {0, 1, 4, 1, 2, 4, 2, 3, 4, 3, 0, 4};
    sd.type = HEFT_SHAPE_MESH;
    sd.mesh.vertices = verts;
    sd.mesh.vertex_count = 5;
    sd.mesh.indices = tris;
    sd.mesh.triangle_count = 4;
    add_shape_body(w, 1.5, HEFT_BODY_KINEMATIC, &sd);
    /* a height field: a 1 m bump */
    double heights[25];
    for (int j = 0; j < 5; ++j) {
        for (int i = 0; i < 5; ++i) {
            heights[j * 5 + i] = 0.3 * exp(-((i - 2) * (i - 2) + (j - 2) * (j - 2)) / 2.0);
        }
    }
    sd.type = HEFT_SHAPE_HEIGHT_FIELD;
    sd.height_field = (heft_height_field_def){heights, 5, 5, 0.25, 0.25};
    sd.local_position = heft_v3(-0.5, -0.5, -0.2);
    add_shape_body(w, 3.2, HEFT_BODY_KINEMATIC, &sd);
    return &every_shape_state;
}

static const scenario_desc every_shape = {
    .name = "every-shape",
    .description = "one body of each shape type",
    .h = 1.0 / 60.0,
    .steps = 10,
    .create = every_shape_create,
};

Test(viewer, every_shape_type_is_drawn_in_its_body_colour, .timeout = 600) {
    const char *path = "test_viewer_shapes.png";
    viewer *v = open_viewer("pendulum", 1, "u", NULL); /* u: no overlay over the row */
    cr_assert_eq(viewer_run(v), 0);
    cr_assert_eq(viewer_load_scene(v, &every_shape), 0, "%s", v->status);
    v->opt.frames = 4;
    v->opt.screenshot = path;
    cr_assert_eq(viewer_run(v), 0);
    image im;
    int channels;
    im.rgb = stbi_load(path, &im.w, &im.h, &channels, 3);
    cr_assert_not_null(im.rgb);
    heft_body_id ids[16];
    int n = heft_world_bodies(v->world, ids, 16), right = 0, shapes = 0;
    for (int i = 0; i < n; ++i) {
        heft_shape_id sid;
        heft_shape_def def;
        if (is_static(v, ids[i]) || heft_body_shapes(v->world, ids[i], &sid, 1) != 1 ||
            heft_shape_get_def(v->world, sid, &def) != HEFT_OK) {
            continue;
        }
        shapes++;
        heft_vec3 p = heft_body_position(v->world, ids[i]);
        float point[3] = {(float)p.x, (float)p.y, (float)p.z}, px, py;
        cr_assert(camera_project(&v->cam, point, (float)v->win_w, (float)v->win_h, &px, &py));
        int x = (int)lroundf(px), y = (int)lroundf(py);
        heft_ray_hit hit;
        int hits = ray_at(v, x, y, &hit);
        float expected[3], c[3];
        viewer_body_colour(v, ids[i], expected);
        pixel(&im, x, y, c);
        float d = chroma_distance(c, expected);
        int ok = hits == 1 && hit.body.index == ids[i].index && d < 0.08f;
        right += ok;
        cr_log_info("shape type %d at (%d, %d): hit %d, drawn (%.2f %.2f %.2f), colour (%.2f %.2f "
                    "%.2f): %s",
                    (int)def.type, x, y, hits == 1 ? hit.body.index : -1, c[0], c[1], c[2],
                    expected[0], expected[1], expected[2], ok ? "ok" : "WRONG");
    }
    cr_expect_eq(shapes, 7, "sphere, box, capsule, cylinder, hull, mesh, height field");
    cr_expect_eq(right, shapes, "%d of %d shape types drawn where they are", right, shapes);
    stbi_image_free(im.rgb);
    viewer_destroy(v);
    if (!getenv("HEFT_VIEWER_TEST_KEEP")) { /* set it to look at the pictures */
        unlink(path);
    }
}

/* A scene whose one body flies out of its bounds in its fourth step. */
static scenario *runaway_create(heft_world *w, const scenario_params *p) {
    (void)p;
    heft_body_def bd = heft_default_body_def();
    bd.name = "runaway";
    bd.position = heft_v3(0.0, 0.0, 1.0);
    bd.linear_velocity = heft_v3(0.0, 0.0, 30.0); /* 0.5 m a step at 1/60 s */
    bd.gravity_scale = 0.0;
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.radius = 0.2;
    cr_assert(heft_shape_is_valid(w, heft_create_shape(w, b, &sd)), "%s", heft_last_error());
    return &every_shape_state;
}

static const scenario_desc runaway = {
    .name = "runaway",
    .description = "a ball that leaves its bounds",
    .h = 1.0 / 60.0,
    .steps = 10,
    .create = runaway_create,
    .bounds_lo = {-5.0, -5.0, -1.0},
    .bounds_hi = {5.0, 5.0, 2.6},
};

Test(viewer, a_body_leaving_the_scene_bounds_pauses_the_viewer_and_says_which, .timeout = 600) {
    viewer *v = open_viewer("pendulum", 1, NULL, NULL);
    cr_assert_eq(viewer_run(v), 0);
    cr_assert_eq(viewer_load_scene(v, &runaway), 0, "%s", v->status);
    v->opt.frames = v->frame_index + 10;
    cr_assert_eq(viewer_run(v), 0);
    /* 1.0 m + 0.5 m a step passes 2.6 m in the fourth step, and nothing
     * runs after it */
    cr_expect(v->paused, "the viewer paused");
    cr_expect_eq(v->left_bounds, 4, "it stopped at step %d", v->left_bounds);
    cr_expect_eq(v->step_index, 4, "no step after the pause (%d)", v->step_index);
    cr_expect(strstr(v->status, "runaway left the scene's bounds at step 4") != NULL, "status: %s",
              v->status);
    /* space runs on, and it does not pause again */
    viewer_key(v, GLFW_KEY_SPACE, GLFW_PRESS, 0);
    v->opt.frames = v->frame_index + 3;
    cr_assert_eq(viewer_run(v), 0);
    cr_expect(!v->paused);
    cr_expect_eq(v->step_index, 7);
    viewer_destroy(v);
}

/* ---- scene files, keyframes and rewind ------------------------------------------- */

#define SCENES_DIR HEFT_ASSETS_SOURCE_DIR "/scenes"

static viewer *open_viewer_file(const char *path, int frames) {
    viewer_options o = viewer_default_options();
    o.hidden = 1;
    o.frames = frames;
    o.scene_file = path;
    o.samples = 0;
    char err[512] = "";
    viewer *v = viewer_create(&o, err, sizeof err);
    cr_assert_not_null(v, "viewer_create: %s", err);
    return v;
}

static void run_frames(viewer *v, int frames) {
    v->opt.frames = v->frame_index + frames;
    cr_assert_eq(viewer_run(v), 0);
}

/* position, orientation and velocities of every body, as bytes */
static unsigned char *body_bytes(const heft_world *w, size_t *size) {
    heft_body_id ids[512];
    int n = heft_world_bodies(w, ids, 512);
    unsigned char *out = malloc((size_t)n * 13 * sizeof(double) + 1);
    cr_assert(out);
    *size = 0;
    for (int i = 0; i < n; ++i) {
        heft_body_state s;
        heft_body_get_state(w, ids[i], &s);
        memcpy(out + *size, &s.position, sizeof s.position);
        *size += sizeof s.position;
        memcpy(out + *size, &s.orientation, sizeof s.orientation);
        *size += sizeof s.orientation;
        memcpy(out + *size, &s.linear_velocity, sizeof s.linear_velocity);
        *size += sizeof s.linear_velocity;
        memcpy(out + *size, &s.angular_velocity, sizeof s.angular_velocity);
        *size += sizeof s.angular_velocity;
    }
    return out;
}

/* --scene opens the crane's file with the crane's timeline attached; F5
 * keeps a keyframe, F9 goes back to it, and the timeline replayed from it
 * gives the same bits; F6 rewinds 6 steps a press and pauses. */
Test(viewer, a_scene_file_keyframe_and_rewind_replay_the_same_bits, .timeout = 600) {
    viewer *v = open_viewer_file(SCENES_DIR "/crane.json", 20);
    cr_assert_eq(viewer_run(v), 0);
    cr_expect_str_eq(v->desc->name, "crane", "the crane's timeline is attached to its file");
    cr_expect(strstr(v->scene_path, "crane.json") != NULL);
    cr_assert_eq(v->step_index, 20);
    viewer_key(v, GLFW_KEY_F5, GLFW_PRESS, 0);
    cr_expect(strstr(v->status, "keyframe at step 20") != NULL, "status: %s", v->status);
    size_t key_size = 0;
    cr_assert_eq(heft_world_save_state(v->world, NULL, 0, &key_size), HEFT_OK);
    unsigned char *at20 = malloc(key_size), *again = malloc(key_size);
    cr_assert_eq(heft_world_save_state(v->world, at20, key_size, &key_size), HEFT_OK);

    run_frames(v, 20);
    cr_assert_eq(v->step_index, 40);
    size_t n40 = 0;
    unsigned char *poses40 = body_bytes(v->world, &n40);

    viewer_key(v, GLFW_KEY_F9, GLFW_PRESS, 0);
    cr_expect_eq(v->step_index, 20, "the timeline is back at the keyframe's step");
    size_t size = 0;
    cr_assert_eq(heft_world_save_state(v->world, again, key_size, &size), HEFT_OK);
    cr_expect(size == key_size && memcmp(at20, again, size) == 0,
              "the state after F9 is the keyframe's, byte for byte");
    run_frames(v, 20);
    size_t n = 0;
    unsigned char *replay = body_bytes(v->world, &n);
    cr_expect(n == n40 && memcmp(poses40, replay, n) == 0,
              "steps 20-40 replayed from the keyframe give the same bits");
    free(replay);

    /* the ring: 40 steps in, frames at 36, 30, 24 ... */
    viewer_key(v, GLFW_KEY_F6, GLFW_PRESS, 0);
    cr_expect_eq(v->step_index, 36, "one rewind: step %d", v->step_index);
    cr_expect(v->paused, "a rewind pauses");
    viewer_key(v, GLFW_KEY_F6, GLFW_REPEAT, 0);
    cr_expect_eq(v->step_index, 30, "held: step %d", v->step_index);
    cr_expect_eq(heft_world_step_count(v->world), 30);
    viewer_key(v, GLFW_KEY_SPACE, GLFW_PRESS, 0);
    run_frames(v, 10);
    cr_assert_eq(v->step_index, 40);
    replay = body_bytes(v->world, &n);
    cr_expect(n == n40 && memcmp(poses40, replay, n) == 0,
              "steps 30-40 replayed after the rewind give the same bits");
    free(replay);
    free(poses40);
    free(at20);
    free(again);
    viewer_destroy(v);
}

/* A file dropped on the window opens (the script's drop: goes through the
 * drop callback's path); a file that cannot be read leaves the scene and
 * says why; F9 without a keyframe says so. */
Test(viewer, a_dropped_scene_file_opens_and_a_bad_one_changes_nothing, .timeout = 600) {
    viewer *v = open_viewer(NULL, 3, "drop:" SCENES_DIR "/pendulum.json wait:1 f9", NULL);
    cr_assert_eq(viewer_run(v), 0);
    cr_expect_str_eq(v->desc->name, "pendulum");
    cr_expect(strstr(v->scene_path, "pendulum.json") != NULL, "%s", v->scene_path);
    cr_expect(strstr(v->status, "no keyframe") != NULL, "status: %s", v->status);
    heft_world *before = v->world;
    cr_expect_eq(viewer_load_file(v, SCENES_DIR "/no-such-scene.json"), -1);
    cr_expect(strstr(v->status, "no-such-scene.json") != NULL, "status: %s", v->status);
    cr_expect_eq(v->world, before, "the scene stays");
    /* tab goes on from the file's entry, r reloads the file */
    int at = viewer_current_scene(v);
    cr_expect_eq(at, viewer_file_index(v->scene_path));
    viewer_key(v, GLFW_KEY_R, GLFW_PRESS, 0);
    cr_expect(strstr(v->scene_path, "pendulum.json") != NULL);
    cr_expect_eq(v->step_index, 0);
    viewer_destroy(v);
}
