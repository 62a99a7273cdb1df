/* Scene files (docs/scene-format.md): save -> load -> save gives the same
 * bytes, a loaded world steps bit-identically to the one saved, the demo
 * scenes loaded from assets/scenes/ give the C scenes' checks with the same
 * numbers, and malformed files are refused with the file, line and field
 * named and the world left as it was. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runner.h"
#include "scene_attach.h"

#ifndef HEFT_SCENES_DIR
#error "HEFT_SCENES_DIR must name assets/scenes"
#endif

static char *read_all(const char *path, size_t *length) {
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)n + 1);
    cr_assert(data);
    cr_assert_eq(fread(data, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    data[n] = 0;
    *length = (size_t)n;
    return data;
}

/* ---- a world with every shape and joint type -------------------------------- */

static heft_body_id add_box(heft_world *w, const char *name, heft_vec3 at) {
    heft_body_def bd = heft_default_body_def();
    bd.name = name;
    bd.position = at;
    bd.orientation = heft_quat_axis_angle(heft_v3(0.3, 1.0, 0.2), 0.1);
    bd.linear_velocity = heft_v3(0.1, -0.2, 0.05);
    bd.angular_velocity = heft_v3(0.0, 0.3, -0.1);
    bd.mass = 2.5;
    bd.inertia = heft_inertia_box(2.5, heft_v3(0.2, 0.2, 0.2));
    bd.linear_damping = 0.01;
    bd.angular_damping = 0.02;
    bd.gravity_scale = 0.9;
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(0.2, 0.2, 0.2);
    sd.friction = 0.7;
    sd.restitution = 0.1;
    sd.category_bits = 2;
    sd.mask_bits = 0xfffffffdu;
    cr_assert(heft_create_shape(w, b, &sd).generation != 0, "%s", heft_last_error());
    return b;
}

static heft_joint_id add_joint(heft_world *w, heft_joint_def *jd, heft_body_id a, heft_body_id b,
                               const char *name) {
    jd->body_a = a;
    jd->body_b = b;
    jd->name = name;
    heft_vec3 pa = a.generation ? heft_body_position(w, a) : heft_v3(0, 0, 3);
    heft_vec3 pb = heft_body_position(w, b);
    heft_vec3 mid = heft_v3_scale(heft_v3_add(pa, pb), 0.5);
    if (jd->type != HEFT_JOINT_DISTANCE && jd->type != HEFT_JOINT_ROPE) {
        cr_assert_eq(heft_joint_def_set_world_frame(w, jd, mid, heft_v3(1.0, 0.0, 0.0)), HEFT_OK);
    }
    heft_joint_id j = heft_create_joint(w, jd);
    cr_assert(j.generation != 0, "%s: %s", name, heft_last_error());
    return j;
}

static heft_world *every_element_world(void) {
    heft_world_def wd = heft_default_world_def();
    wd.solver = "bpp-skyline";
    wd.gravity = heft_v3(0.1, 0.0, -9.7);
    wd.joint_baumgarte = 0.3;
    wd.geometric_stiffness = 1;
    wd.post_stabilization = 2;
    wd.substeps = 2;
    wd.contact_compliance = 2e-8;
    heft_world *w = heft_world_create(&wd);
    cr_assert(w);
    heft_solver_options o = heft_solver_default_options();
    o.max_iterations = 40;
    o.keep_index_sets = 0;
    cr_assert_eq(heft_world_set_solver_options(w, &o), HEFT_OK);
    heft_world_set_restitution_threshold(w, 0.5);
    /* static ground: a plane, a mesh, a height field */
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    gd.name = "ground";
    heft_body_id ground = heft_create_body(w, &gd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_PLANE;
    sd.offset = -0.5;
    cr_assert(heft_create_shape(w, ground, &sd).generation);
    heft_vec3 verts[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0.1}, {-1, 1, 0}};
    int32_t tris[6] = {0, 1, 2, 0, 2, 3};
    sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_MESH;
    sd.mesh = (heft_mesh_def){verts, 4, tris, 2};
    sd.local_position = heft_v3(4.0, 0.0, 0.0);
    cr_assert(heft_create_shape(w, ground, &sd).generation, "%s", heft_last_error());
    double heights[6] = {0.0, 0.1, 0.0, 0.05, 0.2, 0.0};
    sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_HEIGHT_FIELD;
    sd.height_field = (heft_height_field_def){heights, 3, 2, 0.5, 0.7};
    sd.local_position = heft_v3(-4.0, 0.0, 0.0);
    cr_assert(heft_create_shape(w, ground, &sd).generation, "%s", heft_last_error());
    /* dynamic bodies with the other shapes */
    heft_body_id b[12];
    char name[16];
    for (int i = 0; i < 12; ++i) {
        snprintf(name, sizeof name, "b%d", i);
        b[i] = add_box(w, name, heft_v3(0.6 * i - 3.0, 0.0, 1.0 + 0.1 * i));
    }
    const heft_shape_type extra[4] = {HEFT_SHAPE_SPHERE, HEFT_SHAPE_CAPSULE, HEFT_SHAPE_CYLINDER,
                                      HEFT_SHAPE_HULL};
    heft_vec3 hull[5] = {{0, 0, 0}, {0.2, 0, 0}, {0, 0.2, 0}, {0, 0, 0.2}, {0.1, 0.1, 0.1}};
    for (int k = 0; k < 4; ++k) {
        sd = heft_default_shape_def();
        sd.type = extra[k];
        sd.radius = 0.1;
        sd.half_length = 0.15;
        sd.hull = (heft_hull_def){hull, 5};
        sd.local_position = heft_v3(0.0, 0.3, 0.0);
        sd.local_orientation = heft_quat_axis_angle(heft_v3(1, 0, 0), 0.4);
        sd.density = 500.0;
        cr_assert(heft_create_shape(w, b[k], &sd).generation, "%s", heft_last_error());
    }
    /* every joint type */
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.limit[HEFT_DOF_SWING] = (heft_joint_limit){1, 0.0, 0.8, 0.0, 0.0};
    jd.limit[HEFT_DOF_RX] = (heft_joint_limit){1, -0.5, 0.5, 100.0, 1.0};
    add_joint(w, &jd, HEFT_WORLD_FRAME, b[0], "ball");
    jd = heft_default_joint_def(HEFT_JOINT_HINGE);
    jd.limit[HEFT_DOF_RX] = (heft_joint_limit){1, -1.0, 1.0, 0.0, 0.0};
    jd.motor[HEFT_DOF_RX] = (heft_joint_motor){HEFT_MOTOR_VELOCITY, 0.5, 0.0, 50.0, 0.0, 0.0};
    heft_joint_id hinge = add_joint(w, &jd, b[0], b[1], "hinge");
    jd = heft_default_joint_def(HEFT_JOINT_FIXED);
    jd.break_force = 1e5;
    jd.break_torque = 2e5;
    add_joint(w, &jd, b[1], b[2], "weld");
    jd = heft_default_joint_def(HEFT_JOINT_PRISMATIC);
    jd.limit[HEFT_DOF_X] = (heft_joint_limit){1, -0.2, 0.3, 0.0, 0.0};
    jd.motor[HEFT_DOF_X] = (heft_joint_motor){HEFT_MOTOR_POSITION, 0.0, 0.1, INFINITY, 500.0, 20.0};
    jd.dof_stiffness[HEFT_DOF_Y] = 1e5;
    jd.dof_damping[HEFT_DOF_Y] = 1e3;
    heft_joint_id slider = add_joint(w, &jd, b[2], b[3], "slider");
    jd = heft_default_joint_def(HEFT_JOINT_CYLINDRICAL);
    jd.stiffness = 1e6;
    jd.damping = 1e4;
    add_joint(w, &jd, b[3], b[4], "cylinder");
    jd = heft_default_joint_def(HEFT_JOINT_UNIVERSAL);
    add_joint(w, &jd, b[4], b[5], "cardan");
    jd = heft_default_joint_def(HEFT_JOINT_DISTANCE);
    jd.stiffness = 200.0;
    jd.damping = 2.0;
    add_joint(w, &jd, b[5], b[6], "spring");
    jd = heft_default_joint_def(HEFT_JOINT_ROPE);
    jd.length = 0.9;
    jd.collide_connected = 1;
    add_joint(w, &jd, b[6], b[7], "rope");
    jd = heft_default_joint_def(HEFT_JOINT_SIX_DOF);
    jd.dof_mode[HEFT_DOF_X] = HEFT_DOF_FREE;
    jd.dof_mode[HEFT_DOF_RZ] = HEFT_DOF_LIMITED;
    jd.limit[HEFT_DOF_RZ] = (heft_joint_limit){0, -0.3, 0.4, 0.0, 0.0};
    add_joint(w, &jd, b[7], b[8], "six");
    jd = heft_default_joint_def(HEFT_JOINT_HINGE);
    heft_joint_id hinge2 = add_joint(w, &jd, b[8], b[9], "hinge2");
    jd = heft_default_joint_def(HEFT_JOINT_GEAR);
    jd.joint_a = hinge;
    jd.joint_b = hinge2;
    jd.ratio = -2.0;
    jd.name = "gear";
    cr_assert(heft_create_joint(w, &jd).generation, "%s", heft_last_error());
    jd = heft_default_joint_def(HEFT_JOINT_RACK);
    jd.joint_a = hinge2;
    jd.joint_b = slider;
    jd.ratio = 0.05;
    jd.name = "rack";
    cr_assert(heft_create_joint(w, &jd).generation, "%s", heft_last_error());
    /* two bodies of one name and a nameless one: referred to by position */
    heft_body_id twin1 = add_box(w, "twin", heft_v3(3.0, 2.0, 1.0));
    heft_body_id twin2 = add_box(w, "twin", heft_v3(3.5, 2.0, 1.0));
    heft_body_id nameless = add_box(w, NULL, heft_v3(4.0, 2.0, 1.0));
    jd = heft_default_joint_def(HEFT_JOINT_BALL);
    add_joint(w, &jd, twin1, twin2, "twins");
    jd = heft_default_joint_def(HEFT_JOINT_BALL);
    heft_joint_id unnamed = add_joint(w, &jd, twin2, nameless, NULL);
    cr_assert_eq(heft_joint_set_geometric_stiffness(w, unnamed, 0), HEFT_OK);
    heft_body_def kd = heft_default_body_def();
    kd.type = HEFT_BODY_KINEMATIC;
    kd.name = "conveyor";
    kd.linear_velocity = heft_v3(0.2, 0.0, 0.0);
    kd.position = heft_v3(0.0, -3.0, 0.0);
    heft_body_id conveyor = heft_create_body(w, &kd);
    sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(2.0, 0.5, 0.1);
    cr_assert(heft_create_shape(w, conveyor, &sd).generation);
    return w;
}

static void assert_same_bodies(const heft_world *a, const heft_world *b, const char *what) {
    int n = heft_world_bodies(a, NULL, 0);
    cr_assert_eq(n, heft_world_bodies(b, NULL, 0), "%s", what);
    heft_body_id *ia = calloc((size_t)n, sizeof *ia), *ib = calloc((size_t)n, sizeof *ib);
    heft_world_bodies(a, ia, n);
    heft_world_bodies(b, ib, n);
    for (int i = 0; i < n; ++i) {
        heft_body_state sa, sb;
        heft_body_get_state(a, ia[i], &sa);
        heft_body_get_state(b, ib[i], &sb);
        cr_assert(
            memcmp(&sa.position, &sb.position, sizeof sa.position) == 0 &&
                memcmp(&sa.orientation, &sb.orientation, sizeof sa.orientation) == 0 &&
                memcmp(&sa.linear_velocity, &sb.linear_velocity, sizeof sa.linear_velocity) == 0 &&
                memcmp(&sa.angular_velocity, &sb.angular_velocity, sizeof sa.angular_velocity) == 0,
            "%s: body %s differs: z %.17g vs %.17g", what, heft_body_name(a, ia[i]), sa.position.z,
            sb.position.z);
    }
    free(ia);
    free(ib);
}

Test(scene_files, every_element_round_trips_byte_for_byte_and_steps_bit_identically) {
    heft_world *w = every_element_world();
    heft_scene_info info = heft_default_scene_info();
    snprintf(info.name, sizeof info.name, "every element");
    info.time_step = 1.0 / 120.0;
    info.steps = 77;
    size_t n1 = 0, n2 = 0;
    char *first = heft_world_save_text(w, &info, &n1);
    cr_assert(first, "%s", heft_last_error());
    heft_scene_info back;
    heft_world *loaded = heft_world_load_text(first, n1, "first", &back);
    cr_assert(loaded, "%s", heft_last_error());
    cr_assert_str_eq(back.name, "every element");
    cr_assert_eq(back.time_step, 1.0 / 120.0);
    cr_assert_eq(back.steps, 77);
    char *second = heft_world_save_text(loaded, &back, &n2);
    cr_assert(second);
    cr_assert_eq(n1, n2);
    cr_assert(memcmp(first, second, n1) == 0, "save -> load -> save changed the text");
    cr_assert_eq(heft_world_body_count(loaded), heft_world_body_count(w));
    cr_assert_eq(heft_world_joint_count(loaded), heft_world_joint_count(w));
    for (int s = 0; s < 600; ++s) {
        cr_assert_eq(heft_world_step(w, 1.0 / 120.0), HEFT_OK);
        cr_assert_eq(heft_world_step(loaded, 1.0 / 120.0), HEFT_OK);
    }
    assert_same_bodies(w, loaded, "every element after 600 steps");
    /* the run did something: the bodies moved */
    heft_body_id ids[40];
    heft_world_bodies(w, ids, 40);
    cr_assert_gt(fabs(heft_body_position(w, ids[5]).z - 1.0), 0.05);
    heft_free(first);
    heft_free(second);
    heft_world_destroy(w);
    heft_world_destroy(loaded);
}

/* A world saved in the middle of a run keeps its joints' frames, whole
 * turns and broken flags: saving it again gives the same text. */
Test(scene_files, a_world_saved_mid_run_keeps_its_joint_state) {
    heft_world *w = every_element_world();
    for (int s = 0; s < 200; ++s) {
        heft_world_step(w, 1.0 / 60.0);
    }
    size_t n1 = 0, n2 = 0;
    char *first = heft_world_save_text(w, NULL, &n1);
    heft_world *loaded = heft_world_load_text(first, n1, "mid-run", NULL);
    cr_assert(loaded, "%s", heft_last_error());
    char *second = heft_world_save_text(loaded, NULL, &n2);
    cr_assert(n1 == n2 && memcmp(first, second, n1) == 0);
    /* the joints' coordinates read the same as in the original */
    heft_joint_id ja[32], jb[32];
    int nj = heft_world_joints(w, ja, 32);
    heft_world_joints(loaded, jb, 32);
    for (int i = 0; i < nj; ++i) {
        for (int d = HEFT_DOF_X; d <= HEFT_DOF_RZ; ++d) {
            cr_assert_eq(heft_joint_coordinate(w, ja[i], d),
                         heft_joint_coordinate(loaded, jb[i], d), "joint %s coordinate %d",
                         heft_joint_name(w, ja[i]), d);
        }
        cr_assert_eq(heft_joint_is_broken(w, ja[i]), heft_joint_is_broken(loaded, jb[i]));
    }
    heft_free(first);
    heft_free(second);
    heft_world_destroy(w);
    heft_world_destroy(loaded);
}

/* ---- the demo scenes ---------------------------------------------------------------- */

typedef struct scene_file_case {
    const char *file; /* in assets/scenes */
    const char *scene;
    const char *variant;
    const char *solver;
    int steps; /* 0: the scene's own timeline */
} scene_file_case;

static const scene_file_case demo_scenes[] = {
    {"pendulum.json", "pendulum", NULL, "pgs", 0},
    {"hanging-chain.json", "hanging-chain", NULL, "bpp-skyline", 0},
    {"box-on-ground.json", "box-on-ground", NULL, "pgs", 0},
    {"crane.json", "crane", NULL, "bpp-skyline", 0},
    {"winch.json", "winch", NULL, "pgs", 0},
    {"forklift.json", "forklift", NULL, "bpp-skyline", 0},
    {"chain.json", "chain", NULL, "pgs", 300},
    {"stacking-boxes.json", "stacking", "boxes", "pgs", 300},
    {"stacking-pyramid.json", "stacking", "pyramid", "pgs", 120},
    {"stacking-tower.json", "stacking", "tower", "pgs", 200},
    {"stacking-wall.json", "stacking", "wall", "pgs", 200},
};
#define DEMO_COUNT ((int)(sizeof demo_scenes / sizeof demo_scenes[0]))

static void path_of(const char *file, char *out, size_t size) {
    snprintf(out, size, "%s/%s", HEFT_SCENES_DIR, file);
}

/* The files are the C scenes as built (heft-scene export-all writes them):
 * exporting again gives the same bytes, and loading and saving them too. */
Test(scene_files, every_demo_file_is_its_c_scene_and_round_trips) {
    for (int i = 0; i < DEMO_COUNT; ++i) {
        const scene_file_case *c = &demo_scenes[i];
        char path[512];
        path_of(c->file, path, sizeof path);
        size_t n = 0;
        char *text = read_all(path, &n);
        run_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.scenario = c->scene;
        cfg.params.variant = c->variant;
        run_result r;
        int steps;
        double h;
        cr_assert_eq(run_open(&cfg, &r, &steps, &h), 0, "%s", r.error);
        heft_scene_info info = heft_default_scene_info();
        scene_attach_name(r.desc, &cfg.params, info.name, sizeof info.name);
        info.time_step = h;
        info.steps = steps;
        scene_attach_operators(r.desc, r.world, &info);
        size_t m = 0;
        char *exported = heft_world_save_text(r.world, &info, &m);
        cr_assert(m == n && memcmp(exported, text, n) == 0,
                  "%s is not the C scene as built now: run heft-scene export-all", c->file);
        heft_scene_info back;
        heft_world *loaded = heft_world_load(path, &back);
        cr_assert(loaded, "%s", heft_last_error());
        char *again = heft_world_save_text(loaded, &back, &m);
        cr_assert(m == n && memcmp(again, text, n) == 0, "%s: load -> save changed it", c->file);
        heft_free(exported);
        heft_free(again);
        heft_world_destroy(loaded);
        run_result_free(&r);
        free(text);
    }
}

static void run_one(const scene_file_case *c, int from_file, run_result *r) {
    char path[512];
    path_of(c->file, path, sizeof path);
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = from_file ? NULL : c->scene;
    cfg.scene_file = from_file ? path : NULL;
    cfg.params.variant = from_file ? NULL : c->variant;
    cfg.solver = c->solver;
    cfg.steps = c->steps;
#ifdef HEFT_SANITIZED
    cfg.steps = 60;
#endif
    cr_assert_eq(run_scenario(&cfg, r), 0, "%s: %s", c->file, r->error);
}

/* Each file run through heft-run's runner with the C scene attached by its
 * name: the same checks, the same numbers, the same poses. */
static void same_run(int i) {
    const scene_file_case *c = &demo_scenes[i];
    run_result a, b;
    run_one(c, 0, &a);
    run_one(c, 1, &b);
    cr_assert_eq(b.desc, a.desc, "%s: the C scene was not attached", c->file);
    cr_assert_eq(a.steps, b.steps);
    cr_assert_gt(a.check_count, 0);
    cr_assert_eq(a.check_count, b.check_count);
    for (int k = 0; k < a.check_count; ++k) {
        cr_assert_str_eq(a.checks[k].name, b.checks[k].name);
        cr_assert_eq(a.checks[k].pass, b.checks[k].pass, "%s %s", c->file, a.checks[k].name);
        double d = fabs(a.checks[k].value - b.checks[k].value);
        cr_assert_leq(d, 1e-12 * fmax(1.0, fabs(a.checks[k].value)), "%s %s: %.17g vs %.17g",
                      c->file, a.checks[k].name, a.checks[k].value, b.checks[k].value);
    }
    assert_same_bodies(a.world, b.world, c->file);
    cr_log_info("%s under %s, %d steps: %d checks equal", c->file, c->solver, a.steps,
                a.check_count);
    run_result_free(&a);
    run_result_free(&b);
}

Test(scene_files, pendulum_file_runs_as_the_c_scene) {
    same_run(0);
}
Test(scene_files, hanging_chain_file_runs_as_the_c_scene) {
    same_run(1);
}
Test(scene_files, box_on_ground_file_runs_as_the_c_scene) {
    same_run(2);
}
Test(scene_files, crane_file_runs_as_the_c_scene, .timeout = 600) {
    same_run(3);
}
Test(scene_files, winch_file_runs_as_the_c_scene, .timeout = 600) {
    same_run(4);
}
Test(scene_files, forklift_file_runs_as_the_c_scene, .timeout = 600) {
    same_run(5);
}
Test(scene_files, chain_file_runs_as_the_c_scene, .timeout = 600) {
    same_run(6);
}
Test(scene_files, stacking_boxes_file_runs_as_the_c_scene, .timeout = 600) {
    same_run(7);
}
Test(scene_files, stacking_pyramid_file_runs_as_the_c_scene, .timeout = 600) {
    same_run(8);
}
Test(scene_files, stacking_tower_file_runs_as_the_c_scene, .timeout = 600) {
    same_run(9);
}
Test(scene_files, stacking_wall_file_runs_as_the_c_scene, .timeout = 600) {
    same_run(10);
}

/* A file whose objects differ from the C scene of its name runs without
 * the C code (no timeline, no checks) instead of with the wrong ids. */
Test(scene_files, an_edited_file_is_not_attached_to_the_c_scene) {
    char path[512];
    path_of("pendulum.json", path, sizeof path);
    heft_scene_info info;
    heft_world *w = heft_world_load(path, &info);
    cr_assert(w);
    heft_body_def bd = heft_default_body_def();
    bd.name = "extra";
    heft_create_body(w, &bd);
    char tmp[] = "/tmp/heft-scene-XXXXXX";
    int fd = mkstemp(tmp);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(heft_world_save(w, tmp, &info), HEFT_OK);
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scene_file = tmp;
    cfg.steps = 10;
    run_result r;
    cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
    cr_assert_eq(r.desc, &scenario_file);
    cr_assert_eq(r.check_count, 0);
    run_result_free(&r);
    remove(tmp);
    heft_world_destroy(w);
}

/* ---- operators ------------------------------------------------------------------------ */

Test(scene_files, crane_operators_drive_the_slew_and_luff_motors) {
    char path[512];
    path_of("crane.json", path, sizeof path);
    heft_scene_info info;
    heft_world *w = heft_world_load(path, &info);
    cr_assert(w, "%s", heft_last_error());
    cr_assert_eq(info.operator_count, 2);
    cr_assert_str_eq(info.operators[0].name, "slew");
    cr_assert_str_eq(info.operators[1].name, "luff");
    cr_assert_eq(heft_scene_operator_apply(w, &info.operators[1], 0.05), HEFT_OK);
    cr_assert_eq(heft_scene_operator_apply(w, &info.operators[0], 9.0), HEFT_OK); /* clamped */
    heft_joint_def jd;
    cr_assert_eq(heft_joint_get_def(w, info.operators[1].joint, &jd), HEFT_OK);
    cr_assert_str_eq(jd.name, "luff");
    cr_assert_eq(jd.motor[HEFT_DOF_RX].target_velocity, -0.05);
    cr_assert_eq(heft_joint_get_def(w, info.operators[0].joint, &jd), HEFT_OK);
    cr_assert_eq(jd.motor[HEFT_DOF_RX].target_velocity, 0.3);
    cr_assert_eq(info.operators[0].value, 0.3);
    heft_world_destroy(w);
}

/* ---- loading into a world ------------------------------------------------------------ */

Test(scene_files, load_into_adds_the_file_to_a_world) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.name = "mine";
    heft_create_body(w, &bd);
    char path[512];
    path_of("pendulum.json", path, sizeof path);
    heft_scene_info info;
    cr_assert_eq(heft_world_load_into(w, path, &info), HEFT_OK, "%s", heft_last_error());
    cr_assert_eq(heft_world_body_count(w), 2);
    cr_assert_eq(heft_world_joint_count(w), 1);
    heft_joint_id j;
    heft_world_joints(w, &j, 1);
    heft_joint_def jd;
    heft_joint_get_def(w, j, &jd);
    cr_assert_str_eq(heft_body_name(w, jd.body_b), "bob");
    heft_world_destroy(w);
}

/* ---- malformed files ------------------------------------------------------------------ */

static const char *good_scene =
    "{\n"
    "  \"format\": \"heft-scene\",\n"
    "  \"version\": 1,\n"
    "  \"bodies\": [\n"
    "    {\"name\": \"a\", \"position\": [0, 0, 1], \"mass\": 2,\n"
    "     \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}]},\n"
    "    {\"name\": \"b\", \"position\": [0, 0, 2]}\n"
    "  ],\n"
    "  \"joints\": [\n"
    "    {\"name\": \"j\", \"type\": \"hinge\", \"body_a\": \"a\", \"body_b\": \"b\",\n"
    "     \"world_anchor\": [0, 0, 1.5], \"world_axis\": [0, 1, 0]}\n"
    "  ]\n"
    "}\n";

/* good_scene with `from` replaced by `to` */
static char *edited(const char *from, const char *to) {
    const char *at = strstr(good_scene, from);
    cr_assert(at, "no %s in the scene", from);
    size_t n = strlen(good_scene) - strlen(from) + strlen(to);
    char *out = malloc(n + 1);
    size_t head = (size_t)(at - good_scene);
    memcpy(out, good_scene, head);
    strcpy(out + head, to);
    strcat(out, at + strlen(from));
    return out;
}

/* The refusal names the file, the line and the field (substring expect),
 * and the world it was loaded into is unchanged, byte for byte, including
 * the ids the next body gets. */
static void refused(const char *text, const char *expect) {
    heft_world *w = heft_world_create(NULL), *twin = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.name = "existing";
    heft_create_body(w, &bd);
    heft_create_body(twin, &bd);
    size_t n0 = 0, n1 = 0;
    char *before = heft_world_save_text(w, NULL, &n0);
    cr_assert_null(heft_world_load_text(text, strlen(text), "bad.json", NULL));
    cr_assert(strstr(heft_last_error(), expect), "expected \"%s\" in \"%s\"", expect,
              heft_last_error());
    cr_assert_neq(heft_world_load_text_into(w, text, strlen(text), "bad.json", NULL), HEFT_OK);
    cr_assert(strstr(heft_last_error(), expect), "expected \"%s\" in \"%s\"", expect,
              heft_last_error());
    char *after = heft_world_save_text(w, NULL, &n1);
    cr_assert(n0 == n1 && memcmp(before, after, n0) == 0, "the world changed");
    heft_body_id next = heft_create_body(w, &bd), next_twin = heft_create_body(twin, &bd);
    cr_assert(next.index == next_twin.index && next.generation == next_twin.generation);
    cr_assert_eq(heft_world_joint_count(w), 0);
    heft_free(before);
    heft_free(after);
    heft_world_destroy(w);
    heft_world_destroy(twin);
}

static void refused_edit(const char *from, const char *to, const char *expect) {
    char *text = edited(from, to);
    refused(text, expect);
    free(text);
}

Test(scene_files, the_good_scene_loads) {
    heft_world *w = heft_world_load_text(good_scene, strlen(good_scene), "good.json", NULL);
    cr_assert(w, "%s", heft_last_error());
    cr_assert_eq(heft_world_joint_count(w), 1);
    heft_world_destroy(w);
}

Test(scene_files, malformed_files_name_file_line_and_field) {
    /* truncated */
    char truncated[120];
    snprintf(truncated, sizeof truncated, "%.*s", 100, good_scene);
    refused(truncated, "bad.json:");
    refused(truncated, "not valid JSON");
    /* wrong types */
    refused_edit("\"mass\": 2", "\"mass\": \"heavy\"",
                 "bad.json:5: bodies[0] \"a\".mass: must be a number");
    refused_edit("\"position\": [0, 0, 2]", "\"position\": [0, 0]",
                 "bad.json:7: bodies[1] \"b\".position: must be an array of 3 numbers");
    refused_edit("\"version\": 1", "\"version\": true", "bad.json:3: version: must be an integer");
    refused_edit("\"shapes\": [{", "\"shapes\": {\"x\": [{", "bad.json:");
    /* unknown fields, given twice */
    refused_edit("\"mass\": 2", "\"mass\": 2, \"colour\": 3",
                 "bad.json:5: bodies[0] \"a\".colour: unknown field");
    refused_edit("\"mass\": 2", "\"mass\": 2, \"mass\": 3", "bodies[0] \"a\".mass: given twice");
    refused_edit("\"half_extents\"", "\"half_extent\"",
                 "bad.json:6: bodies[0] \"a\".shapes[0].half_extent: unknown field");
    /* NaN and infinity: not JSON, and too large to be finite */
    refused_edit("\"mass\": 2", "\"mass\": NaN", "bad.json:5: not valid JSON");
    refused_edit("\"mass\": 2", "\"mass\": 1e999",
                 "bad.json:5: bodies[0] \"a\".mass: must be finite");
    refused_edit("[0, 0, 1.5]", "[0, \"inf\", 1.5]", "bad.json:11: joints[0] \"j\".world_anchor");
    /* negative masses and other bad values */
    refused_edit("\"mass\": 2", "\"mass\": -2",
                 "bad.json:5: bodies[0] \"a\".mass: must be positive");
    refused_edit("[0.1, 0.1, 0.1]", "[0.1, -0.1, 0.1]", "bad.json:6: bodies[0] \"a\".shapes[0]");
    refused_edit("\"type\": \"hinge\"", "\"type\": \"hing\"",
                 "bad.json:10: joints[0] \"j\".type: must be one of");
    /* references */
    refused_edit("\"body_b\": \"b\"", "\"body_b\": \"c\"",
                 "bad.json:10: joints[0] \"j\".body_b: no body is named \"c\"");
    refused_edit("\"body_b\": \"b\"", "\"body_b\": 7", "joints[0] \"j\".body_b: body 7 is not");
    refused_edit("\"body_a\": \"a\"", "\"body_a\": \"b\"",
                 "joints[0] \"j\": a joint cannot join a body to itself");
    /* a missing mesh file */
    refused_edit("{\"type\": \"box\", \"half_extents\": [0.1, 0.1, 0.1]}",
                 "{\"type\": \"mesh\", \"file\": \"/nonexistent/ramp.obj\"}",
                 "bad.json:6: bodies[0] \"a\".shapes[0].file: cannot open mesh file");
    /* the header */
    refused_edit("\"heft-scene\"", "\"heft-scenery\"", "bad.json:2: format: must be");
    refused_edit("\"version\": 1", "\"version\": 2", "bad.json:3: version: must be 1");
    refused("[1, 2]", "bad.json:1: (top level): must be an object");
    refused("{\"format\": \"heft-scene\", \"version\": 1} x", "bad.json:1: text after");
    refused("", "bad.json:1: not valid JSON");
}

Test(scene_files, a_cycle_of_welded_bodies_is_refused) {
    refused_edit("  ]\n}\n",
                 "  ,\n"
                 "    {\"type\": \"fixed\", \"body_a\": \"a\", \"body_b\": \"b\"},\n"
                 "    {\"type\": \"fixed\", \"body_a\": null, \"body_b\": \"a\"},\n"
                 "    {\"type\": \"fixed\", \"body_a\": null, \"body_b\": \"b\"}\n"
                 "  ]\n}\n",
                 "bad.json:15: joints[3].body_b: welds bodies already welded together");
}

Test(scene_files, meshes_load_from_wavefront_obj_files) {
    char dir[] = "/tmp/heft-obj-XXXXXX";
    cr_assert(mkdtemp(dir));
    char obj[600], scene[600];
    snprintf(obj, sizeof obj, "%s/ramp.obj", dir);
    snprintf(scene, sizeof scene, "%s/ramp.json", dir);
    FILE *f = fopen(obj, "w");
    fputs("# a ramp\nv 0 0 0\nv 1 0 0\nv 1 1 0.5\nv 0 1 0.5\nvn 0 0 1\nf 1//1 2//1 3//1 4//1\n", f);
    fclose(f);
    f = fopen(scene, "w");
    fputs("{\"format\": \"heft-scene\", \"version\": 1, \"bodies\": [{\"type\": \"static\",\n"
          " \"shapes\": [{\"type\": \"mesh\", \"file\": \"ramp.obj\"}]}]}\n",
          f);
    fclose(f);
    heft_world *w = heft_world_load(scene, NULL);
    cr_assert(w, "%s", heft_last_error());
    heft_body_id b;
    heft_world_bodies(w, &b, 1);
    heft_shape_id s;
    cr_assert_eq(heft_body_shapes(w, b, &s, 1), 1);
    heft_shape_def sd;
    heft_shape_get_def(w, s, &sd);
    cr_assert_eq(sd.type, HEFT_SHAPE_MESH);
    cr_assert_eq(sd.mesh.vertex_count, 4);
    cr_assert_eq(sd.mesh.triangle_count, 2); /* the quad as a fan */
    cr_assert_eq(sd.mesh.vertices[2].z, 0.5);
    heft_world_destroy(w);
    f = fopen(obj, "w");
    fputs("v 0 0 0\nv 1 0 0\nf 1 2 7\n", f);
    fclose(f);
    cr_assert_null(heft_world_load(scene, NULL));
    cr_assert(strstr(heft_last_error(), "ramp.obj:3: face index 7 out of range"), "%s",
              heft_last_error());
    cr_assert(strstr(heft_last_error(), "ramp.json:2: bodies[0].shapes[0].file"), "%s",
              heft_last_error());
    remove(obj);
    remove(scene);
    rmdir(dir);
}

/* Every prefix of a file with every element, and every byte of it replaced
 * by characters that break JSON or numbers: each load either succeeds or
 * names the source and a line, and never crashes (the sanitizer build runs
 * this too; tests/fuzz_scene_loader.c is the coverage-guided version). */
Test(scene_files, damaged_files_are_refused_cleanly, .timeout = 600) {
    size_t n = 0;
    char *text = read_all(HEFT_TESTDATA_DIR "/scenes/every-type.json", &n);
    heft_world *w = heft_world_load_text(text, n, "every-type.json", NULL);
    cr_assert(w, "%s", heft_last_error());
    heft_world_destroy(w);
    int refused_count = 0, loaded = 0;
    for (size_t cut = 0; cut < n; ++cut) {
        w = heft_world_load_text(text, cut, "cut.json", NULL);
        cr_assert(w || strncmp(heft_last_error(), "cut.json:", 9) == 0, "%s", heft_last_error());
        refused_count += !w;
        heft_world_destroy(w);
    }
    cr_assert_eq(refused_count, (int)n - 1,
                 "a prefix loaded"); /* all but the one without the final newline */
    const char swaps[] = {'"', '}', '-', '9', 'e'};
    char *copy = malloc(n + 1);
    for (size_t i = 0; i < n; i += 3) {
        for (size_t k = 0; k < sizeof swaps; ++k) {
            memcpy(copy, text, n + 1);
            copy[i] = swaps[k];
            w = heft_world_load_text(copy, n, "swap.json", NULL);
            cr_assert(w || strncmp(heft_last_error(), "swap.json:", 10) == 0, "%s",
                      heft_last_error());
            loaded += w != NULL;
            heft_world_destroy(w);
        }
    }
    cr_log_info("%d of %d damaged files still loaded", loaded, (int)(5 * ((n + 2) / 3)));
    free(copy);
    free(text);
}

/* Creation normalises quaternions and plane normals: a hand-written file
 * may give them at any length, and a saved one holds them normalised, which
 * the loader keeps bit for bit (found by the fuzzer: a plane's normal
 * normalised twice changed its last digit). */
Test(scene_files, normals_and_orientations_are_normalised_once) {
    const char *text =
        "{\"format\": \"heft-scene\", \"version\": 1, \"bodies\": [\n"
        " {\"type\": \"static\", \"shapes\": [{\"type\": \"plane\", \"normal\": [3, 0, 1],"
        " \"offset\": 2}]},\n"
        " {\"orientation\": [2, 0, 0, 0], \"shapes\": [{\"type\": \"sphere\","
        " \"local_orientation\": [0, 0, 0, 3]}]}]}\n";
    heft_world *w = heft_world_load_text(text, strlen(text), "hand.json", NULL);
    cr_assert(w, "%s", heft_last_error());
    heft_body_id b[2];
    heft_world_bodies(w, b, 2);
    cr_assert_eq(heft_body_orientation(w, b[1]).w, 1.0);
    heft_shape_id s;
    heft_shape_def sd;
    heft_body_shapes(w, b[0], &s, 1);
    heft_shape_get_def(w, s, &sd);
    cr_assert_float_eq(heft_v3_length(sd.normal), 1.0, 1e-15);
    cr_assert_float_eq(sd.offset, 2.0 / sqrt(10.0), 1e-15);
    heft_body_shapes(w, b[1], &s, 1);
    heft_shape_get_def(w, s, &sd);
    cr_assert_eq(sd.local_orientation.z, 1.0);
    size_t n1 = 0, n2 = 0;
    char *first = heft_world_save_text(w, NULL, &n1);
    heft_world *again = heft_world_load_text(first, n1, "saved.json", NULL);
    char *second = heft_world_save_text(again, NULL, &n2);
    cr_assert(n1 == n2 && memcmp(first, second, n1) == 0, "%s\n---\n%s", first, second);
    heft_free(first);
    heft_free(second);
    heft_world_destroy(w);
    heft_world_destroy(again);
}

/* ---- what the saver leaves out, classes, and the short forms of inertia --------------- */

/* A field at its default is not written, the comparison is of bits (a
 * velocity of -0 is written and comes back as -0), and bodies that share
 * mass, inertia and shapes share a class; the text loads back to the same
 * world and saves to the same bytes. */
Test(scene_files, the_saver_leaves_out_defaults_and_shares_classes) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(0.2, 0.3, 0.4);
    for (int i = 0; i < 3; ++i) {
        bd.position = heft_v3(i, 0.0, 1.0);
        bd.mass = 2.5;
        bd.inertia = heft_inertia_box(2.5, sd.half_extents);
        bd.linear_velocity = heft_v3(i == 2 ? -0.0 : 0.0, 0.0, 0.0);
        heft_body_id b = heft_create_body(w, &bd);
        cr_assert_neq(heft_create_shape(w, b, &sd).generation, 0u);
    }
    bd.mass = 3.0; /* one of a kind: no class */
    heft_body_id odd = heft_create_body(w, &bd);
    heft_create_shape(w, odd, &sd);
    size_t n1 = 0, n2 = 0;
    char *first = heft_world_save_text(w, NULL, &n1);
    cr_assert(first);
    cr_assert(strstr(first, "\"classes\": {\n    \"box\": {"), "%s", first);
    cr_assert(strstr(first, "\"mass\": 2.5,\n      \"inertia\": [0."), "%s", first);
    cr_assert(strstr(first, "\"class\": \"box\""), "%s", first);
    cr_assert(strstr(first, "\"linear_velocity\": [-0, 0, 0]"), "%s", first);
    cr_assert_null(strstr(first, "\"friction\""), "%s", first);
    cr_assert_null(strstr(first, "\"orientation\""), "%s", first);
    heft_world *back = heft_world_load_text(first, n1, "saved.json", NULL);
    cr_assert(back, "%s", heft_last_error());
    assert_same_bodies(w, back, "classes");
    heft_body_id ids[4];
    heft_world_bodies(back, ids, 4);
    cr_assert(signbit(heft_body_linear_velocity(back, ids[2]).x));
    cr_assert_eq(heft_body_mass(back, ids[3]), 3.0);
    heft_shape_id s;
    heft_shape_def got;
    cr_assert_eq(heft_body_shapes(back, ids[1], &s, 1), 1);
    heft_shape_get_def(back, s, &got);
    cr_assert(got.type == HEFT_SHAPE_BOX && got.half_extents.z == 0.4);
    char *second = heft_world_save_text(back, NULL, &n2);
    cr_assert(n1 == n2 && memcmp(first, second, n1) == 0, "%s\n---\n%s", first, second);
    heft_free(first);
    heft_free(second);
    heft_world_destroy(w);
    heft_world_destroy(back);
}

/* A hand-written class: a body takes its fields and may set its own; an
 * inertia is three rows, a diagonal's three numbers or one number. */
Test(scene_files, classes_and_short_inertias_read_as_written) {
    const char *text =
        "{\"format\": \"heft-scene\", \"version\": 1,\n"
        " \"classes\": {\"crate\": {\"mass\": 4, \"inertia\": [1, 2, 3], \"linear_damping\": 0.5,\n"
        "   \"shapes\": [{\"type\": \"box\", \"half_extents\": [0.5, 0.5, 0.5]}]}},\n"
        " \"bodies\": [\n"
        "  {\"name\": \"a\", \"class\": \"crate\"},\n"
        "  {\"name\": \"b\", \"class\": \"crate\", \"mass\": 8, \"inertia\": 0.25,\n"
        "   \"shapes\": [{\"type\": \"sphere\", \"radius\": 0.1}, {\"type\": \"sphere\"}]},\n"
        "  {\"name\": \"c\", \"inertia\": [[1, 0, 0], [0, 1, 0.5], [0, 0.5, 2]]}]}\n";
    heft_world *w = heft_world_load_text(text, strlen(text), "hand.json", NULL);
    cr_assert(w, "%s", heft_last_error());
    heft_body_id b[3];
    cr_assert_eq(heft_world_bodies(w, b, 3), 3);
    heft_body_def da, db, dc;
    heft_body_get_def(w, b[0], &da);
    heft_body_get_def(w, b[1], &db);
    heft_body_get_def(w, b[2], &dc);
    cr_assert(da.mass == 4.0 && da.inertia.m[1][1] == 2.0 && da.inertia.m[0][1] == 0.0 &&
              da.linear_damping == 0.5);
    cr_assert(db.mass == 8.0 && db.inertia.m[0][0] == 0.25 && db.inertia.m[2][2] == 0.25 &&
              db.linear_damping == 0.5);
    cr_assert(dc.inertia.m[1][2] == 0.5 && dc.inertia.m[2][1] == 0.5);
    heft_shape_id s[3];
    heft_shape_def sd;
    cr_assert_eq(heft_body_shapes(w, b[0], s, 3), 1);
    heft_shape_get_def(w, s[0], &sd);
    cr_assert_eq(sd.type, HEFT_SHAPE_BOX);
    cr_assert_eq(heft_body_shapes(w, b[1], s, 3), 2); /* its own, not the class's */
    heft_world_destroy(w);
}

Test(scene_files, bad_classes_are_refused_with_file_line_and_field) {
    refused_edit("{\"name\": \"b\", \"position\": [0, 0, 2]}",
                 "{\"name\": \"b\", \"class\": \"crate\", \"position\": [0, 0, 2]}",
                 "bad.json:7: bodies[1] \"b\".class: no class is named \"crate\"");
    refused_edit("  \"version\": 1,\n",
                 "  \"version\": 1,\n  \"classes\": {\"crate\": {\"mass\": -1}},\n",
                 "bad.json:4: classes \"crate\".mass: must be positive");
    refused_edit("  \"version\": 1,\n",
                 "  \"version\": 1,\n  \"classes\": {\"crate\": {\"position\": [0, 0, 1]}},\n",
                 "bad.json:4: classes \"crate\".position: unknown field");
    refused_edit(
        "  \"version\": 1,\n",
        "  \"version\": 1,\n  \"classes\": {\"crate\": {\"shapes\": [{\"type\": \"cone\"}]}},\n",
        "bad.json:4: classes \"crate\".shapes[0].type: must be one of");
    refused_edit("  \"version\": 1,\n",
                 "  \"version\": 1,\n  \"classes\": {\"c\": {}, \"c\": {\"mass\": 2}},\n",
                 "bad.json:4: classes \"c\": given twice");
    refused_edit("  \"version\": 1,\n", "  \"version\": 1,\n  \"classes\": [],\n",
                 "bad.json:4: classes: must be an object");
    /* the engine's refusal of a class's shape (a plane on a dynamic body)
     * names the body that took it, at the shape's line */
    char *one =
        edited("  \"version\": 1,\n", "  \"version\": 1,\n  \"classes\": {\"p\": {\"shapes\": [\n"
                                      "    {\"type\": \"plane\"}]}},\n");
    const char *at = strstr(one, "{\"name\": \"b\"");
    cr_assert(at);
    size_t head = (size_t)(at - one);
    char two[1024];
    snprintf(two, sizeof two, "%.*s{\"name\": \"b\", \"class\": \"p\"%s", (int)head, one,
             at + strlen("{\"name\": \"b\""));
    refused(two, "bad.json:5: bodies[1] \"b\".shapes[0]: ");
    free(one);
    refused_edit("\"mass\": 2", "\"mass\": 2, \"inertia\": -1", "bad.json:5: bodies[0] \"a\"");
    refused_edit("\"mass\": 2", "\"mass\": 2, \"inertia\": [1, 2]",
                 "bodies[0] \"a\".inertia: must be three rows");
}
