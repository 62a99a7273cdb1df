/* The viewer's parts that need no display: command line, scripts, the
 * solve-time plot and the island colouring. They run without Xvfb and with
 * the leak checker on (the GL tests cannot: Mesa unloads its driver at exit,
 * so LeakSanitizer cannot name what the driver keeps). */
#include <criterion/criterion.h>
#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "assets.h"
#include "islands.h"
#include "options.h"
#include "script.h"
#include "solve_plot.h"
#include "viewer.h"

static options_action parse(char *err, size_t size, viewer_options *o, int argc, ...) {
    char *argv[16] = {"heft-viewer"};
    va_list args;
    va_start(args, argc);
    for (int i = 1; i < argc && i < 16; ++i) {
        argv[i] = va_arg(args, char *);
    }
    va_end(args);
    return viewer_parse_options(argc, argv, o, err, size);
}

Test(viewer_parts, command_line_is_read_and_bad_values_are_refused_with_a_reason) {
    char err[256];
    viewer_options o;
    cr_assert_eq(parse(err, sizeof err, &o, 7, "--scenario", "pendulum", "--frames", "10", "--size",
                       "640x480"),
                 OPTIONS_RUN, "%s", err);
    cr_expect_str_eq(o.scenario, "pendulum");
    cr_expect_eq(o.frames, 10);
    cr_expect_eq(o.width, 640);
    cr_expect_eq(o.height, 480);
    cr_assert_eq(parse(err, sizeof err, &o, 5, "--links", "7", "--load-mass", "10"), OPTIONS_RUN);
    cr_expect_eq(o.params.links, 7);
    cr_expect_float_eq(o.params.load_mass, 10.0, 1e-12);
    struct {
        const char *arg, *value, *says;
    } bad[] = {
        {"--frames", "0", "--frames wants"},
        {"--frames", "1e3", "--frames wants"},
        {"--size", "640", "--size wants"},
        {"--solver", "gauss", "unknown solver"},
        {"--scenario", "moon", "unknown scenario"},
        {"--samples", "99", "--samples wants"},
        {"--iterations", "-1", "--iterations wants"},
        {"--tolerance", "nan", "--tolerance wants"},
        {"--bogus", NULL, "unknown option"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        err[0] = '\0';
        options_action a = bad[i].value ? parse(err, sizeof err, &o, 3, bad[i].arg, bad[i].value)
                                        : parse(err, sizeof err, &o, 2, bad[i].arg);
        cr_expect_eq(a, OPTIONS_ERROR, "%s %s accepted", bad[i].arg,
                     bad[i].value ? bad[i].value : "");
        cr_expect(strstr(err, bad[i].says) != NULL, "%s: \"%s\"", bad[i].arg, err);
    }
    cr_expect_eq(parse(err, sizeof err, &o, 2, "--frames"), OPTIONS_ERROR);
    cr_expect(strstr(err, "needs a value") != NULL, "%s", err);
    cr_expect_eq(parse(err, sizeof err, &o, 3, "--screenshot", "a.png"), OPTIONS_ERROR);
    /* a variant names its scene; a scene without it is refused */
    cr_assert_eq(parse(err, sizeof err, &o, 3, "--variant", "pyramid"), OPTIONS_RUN, "%s", err);
    cr_expect_str_eq(o.scenario, "stacking");
    cr_expect_str_eq(o.params.variant, "pyramid");
    cr_expect_eq(parse(err, sizeof err, &o, 5, "--scenario", "crane", "--variant", "wall"),
                 OPTIONS_ERROR);
    cr_expect(strstr(err, "unknown variant \"wall\" of crane") != NULL, "%s", err);
}

Test(viewer_parts, every_scene_and_variant_is_offered_with_a_camera_preset) {
    int stacking = 0;
    cr_assert_geq(viewer_scene_count(), scenario_count());
    int files = 0;
    for (int i = 0; i < viewer_scene_count(); ++i) {
        const viewer_scene *e = viewer_scene_at(i);
        if (e->file[0]) {
            /* a scene file: found by its path, its camera preset the C scene's it attaches */
            cr_expect_eq(access(e->file, R_OK), 0, "%s is readable", e->file);
            cr_expect_eq(viewer_file_index(e->file), i, "%s is found again", e->file);
            files++;
            continue;
        }
        cr_expect(camera_has_preset(e->key), "scene %s has a camera preset", e->key);
        cr_expect_eq(viewer_scene_index(e->desc, e->variant), i, "%s is found again", e->key);
        cr_expect(!e->solver || heft_solver_find(e->solver), "%s opens with a registered solver",
                  e->key);
        stacking += strcmp(e->desc->name, "stacking") == 0;
    }
    for (int i = 0; i < scenario_count(); ++i) {
        cr_expect_geq(viewer_scene_index(scenario_at(i), NULL), 0, "%s is offered",
                      scenario_at(i)->name);
    }
    if (scenario_find("stacking")) {
        cr_expect_eq(stacking, 4, "boxes, pyramid, tower and wall");
        cr_expect(viewer_scene_has_variant("stacking", "tower"));
        cr_expect(!viewer_scene_has_variant("stacking", "moon"));
    }
    cr_expect_null(viewer_scene_at(viewer_scene_count()));
    /* every file of assets/scenes/: the eleven demo scenes at least */
    cr_expect_geq(files, 11, "the scene files are offered (%d)", files);
}

Test(viewer_parts, scene_takes_a_file_and_the_script_drops_files_and_presses_f5_f6_f9) {
    viewer_options o;
    char err[256] = "";
    cr_assert_eq(parse(err, sizeof err, &o, 3, "--scene", "assets/scenes/crane.json"), OPTIONS_RUN,
                 "%s", err);
    cr_expect_str_eq(o.scene_file, "assets/scenes/crane.json");
    cr_expect_eq(script_key_code("f5"), GLFW_KEY_F5);
    cr_expect_eq(script_key_code("f6"), GLFW_KEY_F6);
    cr_expect_eq(script_key_code("f9"), GLFW_KEY_F9);
    input_script *sc = script_parse("drop:assets/scenes/pendulum.json wait:2 f5", err, sizeof err);
    cr_expect_not_null(sc, "%s", err);
    script_free(sc);
    cr_expect_null(script_parse("drop:", err, sizeof err));
    cr_expect(strstr(err, "drop:FILE needs a file name") != NULL, "%s", err);
}

/* The shaders are read from assets/ and built in from the same files: the
 * built-in copy is byte for byte the file, a directory given explicitly is
 * the only place looked at, and without one the source tree's file is read. */
Test(viewer_parts, assets_are_read_from_files_and_built_in_from_the_same_bytes) {
    unsetenv("HEFT_ASSETS");
    assets_set_dir(NULL);
    cr_assert_geq(embedded_asset_count, 10, "five programs of two shaders each");
    for (int i = 0; i < embedded_asset_count; ++i) {
        const embedded_asset *e = &embedded_assets[i];
        char file[1024], origin[4400], err[512] = "";
        snprintf(file, sizeof file, "%s/%s", HEFT_ASSETS_SOURCE_DIR, e->path);
        FILE *f = fopen(file, "rb");
        cr_assert_not_null(f, "%s", file);
        char *bytes = malloc(e->size + 2);
        size_t n = fread(bytes, 1, e->size + 1, f);
        fclose(f);
        cr_expect_eq(n, e->size, "%s: %zu bytes built in, %zu in the file", e->path, e->size, n);
        cr_expect(n == e->size && memcmp(bytes, e->data, n) == 0, "%s differs", e->path);
        cr_expect_eq(e->data[e->size], '\0');
        free(bytes);
        char *text = assets_read_text(e->path, origin, sizeof origin, err, sizeof err);
        cr_assert_not_null(text, "%s", err);
        cr_expect_str_eq(origin, file, "without --assets the source tree's file is read");
        free(text);
    }
    cr_expect_not_null(assets_embedded("shaders/mesh.frag.glsl"));
    cr_expect_null(assets_embedded("shaders/none.glsl"));

    /* an explicit directory: its file, or an error naming it (no fall-back) */
    char dir[] = "/tmp/heft-assets-XXXXXX", sub[64], file[128], origin[4400], err[512] = "";
    cr_assert_not_null(mkdtemp(dir));
    snprintf(sub, sizeof sub, "%s/shaders", dir);
    cr_assert_eq(mkdir(sub, 0700), 0);
    snprintf(file, sizeof file, "%s/ui.frag.glsl", sub);
    FILE *f = fopen(file, "w");
    cr_assert_not_null(f);
    fputs("#version 330 core\n// edited\n", f);
    fclose(f);
    assets_set_dir(dir);
    char *text = assets_read_text("shaders/ui.frag.glsl", origin, sizeof origin, err, sizeof err);
    cr_assert_not_null(text, "%s", err);
    cr_expect(strstr(text, "// edited") != NULL, "%s", text);
    cr_expect_str_eq(origin, file);
    free(text);
    cr_expect_null(
        assets_read_text("shaders/ui.vert.glsl", origin, sizeof origin, err, sizeof err));
    cr_expect(strstr(err, "ui.vert.glsl") && strstr(err, "--assets"), "%s", err);
    assets_set_dir(NULL);
    remove(file);
    rmdir(sub);
    rmdir(dir);
}

Test(viewer_parts, scripts_parse_and_malformed_ones_are_refused_with_a_reason) {
    char err[256] = "";
    input_script *s = script_parse(
        "1 2 shift+tab ctrl+q wait:3 click:10,20 drag:1,2,3,4,5 shot:x.png quit", err, sizeof err);
    cr_assert_not_null(s, "%s", err);
    cr_expect(!script_done(s));
    script_free(s);
    const char *bad[] = {"wait:", "wait:-1",    "click:1", "drag:1,2,3,4,0",
                         "shot:", "hyperspace", "shift+",  "@/nonexistent/script"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        err[0] = '\0';
        s = script_parse(bad[i], err, sizeof err);
        cr_expect_null(s, "\"%s\" accepted", bad[i]);
        script_free(s);
        cr_expect(strstr(err, "script") != NULL, "\"%s\": %s", bad[i], err);
    }
    cr_expect_eq(script_key_code("space"), GLFW_KEY_SPACE);
    cr_expect_eq(script_key_code("7"), GLFW_KEY_7);
    cr_expect_eq(script_key_code("nope"), -1);
}

Test(viewer_parts, the_plot_keeps_one_curve_per_solver_across_switches) {
    solve_plot p;
    solve_plot_clear(&p);
    for (int step = 0; step < 10; ++step) {
        solve_plot_add(&p, step < 5 ? "pgs" : "bpp", step, 0.1 * (step + 1));
    }
    for (int step = 10; step < 15; ++step) {
        solve_plot_add(&p, "pgs", step, 1.0);
    }
    cr_assert_eq(p.count, 2);
    cr_expect_str_eq(p.series[0].solver, "pgs");
    cr_expect_eq(p.series[0].first_step, 0);
    cr_expect_eq(p.series[0].last_step, 14);
    cr_expect(isnan(p.series[0].ms[7]), "pgs did not run at step 7");
    cr_expect_float_eq(p.series[1].ms[9], 1.0, 1e-12);
    cr_expect_eq(p.latest_step, 14);
    for (int step = 15; step < 15 + 3 * PLOT_HISTORY; ++step) {
        solve_plot_add(&p, "pgs", step, 1.0);
    }
    cr_expect_eq(p.series[0].first_step, 15 + 3 * PLOT_HISTORY - PLOT_HISTORY);
}

Test(viewer_parts, islands_are_bodies_joined_by_joints) {
    heft_world *w = heft_world_create(NULL);
    heft_body_id b[4];
    for (int i = 0; i < 4; ++i) {
        heft_body_def bd = heft_default_body_def();
        bd.position = heft_v3(3.0 * i, 0.0, 5.0);
        b[i] = heft_create_body(w, &bd);
    }
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_a = b[0];
    jd.body_b = b[1];
    heft_joint_def_set_world_frame(w, &jd, heft_v3(1.5, 0.0, 5.0), heft_v3(0, 0, 1));
    cr_assert(heft_joint_is_valid(w, heft_create_joint(w, &jd)));
    jd.body_a = HEFT_WORLD_FRAME; /* the world frame joins nothing */
    jd.body_b = b[2];
    heft_joint_def_set_world_frame(w, &jd, heft_v3(6.0, 0.0, 6.0), heft_v3(0, 0, 1));
    cr_assert(heft_joint_is_valid(w, heft_create_joint(w, &jd)));
    island_map m = {0};
    cr_assert_eq(island_map_update(&m, w), 0);
    cr_expect_eq(m.count, 3);
    cr_expect_eq(island_map_label(&m, b[0]), island_map_label(&m, b[1]));
    cr_expect_neq(island_map_label(&m, b[1]), island_map_label(&m, b[2]));
    cr_expect_neq(island_map_label(&m, b[2]), island_map_label(&m, b[3]));
    heft_joint_frames f;
    heft_joint_id ids[2];
    cr_assert_eq(heft_world_joints(w, ids, 2), 2);
    cr_assert_eq(heft_joint_get_frames(w, ids[0], &f), HEFT_OK);
    cr_expect_eq(f.body_a.index, b[0].index);
    cr_expect_eq(f.body_b.index, b[1].index);
    cr_expect_float_eq(f.anchor_a.x, 1.5, 1e-12);
    cr_expect_float_eq(f.anchor_b.x, 1.5, 1e-12);
    cr_assert_eq(heft_joint_get_frames(w, ids[1], &f), HEFT_OK);
    cr_expect_eq(f.body_a.index, HEFT_WORLD_FRAME.index);
    cr_expect_eq(heft_joint_get_frames(w, (heft_joint_id){0, 0}, &f), HEFT_ERROR_INVALID_ID);
    island_map_free(&m);
    heft_world_destroy(w);
}
