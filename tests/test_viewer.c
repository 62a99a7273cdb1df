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
static int ray_at(viewer *v, double x, double y, heft_ray_hit *hit) { return viewer_pick(v, x, y, hit); }

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

Test(viewer, default_scene_renders_ground_sky_and_bodies_where_the_camera_puts_them,
     .timeout = 600) {
    const char *path = "test_viewer_default.png";
    viewer *v = open_viewer(NULL, 60, NULL, path);
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
    stbi_image_free(im.rgb);
    viewer_destroy(v);
    if (!getenv("HEFT_VIEWER_TEST_KEEP")) { /* set it to look at the pictures */
        unlink(path);
    }
}

Test(viewer, number_keys_switch_the_solver_the_overlay_shows_and_the_engine_uses, .timeout = 600) {
    cr_assert_geq(heft_solver_count(), 2);
    const char *first = heft_solver_at(0)->name, *second = heft_solver_at(1)->name;
    const char *last = heft_solver_at(heft_solver_count() - 1)->name;
    char keys[64];
    snprintf(keys, sizeof keys, "1 wait:5 2 wait:5 %d wait:5", heft_solver_count());
    viewer *v = open_viewer("hanging-chain", 18, keys, NULL);
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
    cr_expect_eq(v->selected.index, body.index, "selected body %d, clicked %s (%d)", v->selected.index,
                 heft_body_name(v->world, body), body.index);
    cr_expect_eq(v->selected.generation, body.generation);
    /* and a click on the sky deselects */
    viewer_mouse_move(v, 0.5 * v->win_w, 2.0);
    heft_ray_hit hit;
    if (!ui_covers(&v->ui, 0.5f * (float)v->fb_w, 2.0f) && viewer_pick(v, 0.5 * v->win_w, 2.0, &hit) == 0) {
        viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
        viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
        cr_expect(!heft_body_is_valid(v->world, v->selected));
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
    for (int i = 0; i < scenario_count(); ++i) {
        strcat(keys, "tab wait:3 c j b i w ");
    }
    viewer *v = open_viewer(NULL, 4 * scenario_count() + 2, keys, NULL);
    cr_assert_eq(viewer_run(v), 0);
    cr_expect_eq(v->desc, viewer_default_scene(), "tabbing through every scene comes back");
    viewer_destroy(v);
}

#ifdef SCENARIO_MAX_AXES /* the registry has operator axes */
Test(viewer, holding_an_axis_key_takes_over_from_the_timeline_and_drives_the_machine,
     .timeout = 600) {
    if (!scenario_find("crane")) {
        cr_skip("no crane scene");
    }
    /* the crane's timeline does not slew before 12 s: any slew is the operator's */
    viewer *v = open_viewer("crane", 45, "wait:2 down:up wait:42", NULL);
    cr_assert_eq(viewer_run(v), 0);
    cr_expect(v->op.manual, "the key took over");
    scenario_controls *c = v->desc->controls(v->scene);
    cr_assert_geq(c->count, 1);
    cr_expect_float_eq(c->axis[0].value, c->axis[0].max, 1e-9, "%s at %g, max %g", c->axis[0].name,
                       c->axis[0].value, c->axis[0].max);
    heft_joint_id joints[64];
    int n = heft_world_joints(v->world, joints, 64);
    double turned = 0.0;
    for (int i = 0; i < n && i < 64; ++i) {
        if (strcmp(heft_joint_name(v->world, joints[i]), c->axis[0].name) == 0) {
            turned = heft_joint_coordinate(v->world, joints[i], HEFT_DOF_RX);
        }
    }
    cr_log_info("%s turned %.3f rad in %d steps", c->axis[0].name, turned, v->step_index);
    cr_expect_gt(fabs(turned), 0.02, "the %s joint turned %.4f rad", c->axis[0].name, turned);
    viewer_destroy(v);
}
#endif

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
