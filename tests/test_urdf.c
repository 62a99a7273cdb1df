/* URDF import (docs/urdf.md): the example arm's masses and inertias are the
 * file's, it hangs under gravity with its joints holding, joints map to
 * Heft's with their axes, limits and dynamics, meshes resolve relative to
 * the file, and malformed files are refused with the file, line and
 * element named and the world unchanged. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heft.h"
#include "world_snapshot.h"

#ifndef HEFT_URDF_DIR
#error "HEFT_URDF_DIR must name assets/urdf"
#endif

#define ARM HEFT_URDF_DIR "/arm6.urdf"

static char *read_text(const char *path, size_t *length) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    cr_assert_eq(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = 0;
    fclose(f);
    if (length) {
        *length = (size_t)n;
    }
    return text;
}

static heft_body_id body_named(const heft_world *w, const char *name) {
    heft_body_id ids[64];
    int n = heft_world_bodies(w, ids, 64);
    for (int k = 0; k < n && k < 64; ++k) {
        if (strcmp(heft_body_name(w, ids[k]), name) == 0) {
            return ids[k];
        }
    }
    heft_body_id none = {0, 0};
    return none;
}

static heft_joint_id joint_named(const heft_world *w, const char *name) {
    heft_joint_id ids[64];
    int n = heft_world_joints(w, ids, 64);
    for (int k = 0; k < n && k < 64; ++k) {
        if (strcmp(heft_joint_name(w, ids[k]), name) == 0) {
            return ids[k];
        }
    }
    heft_joint_id none = {0, 0};
    return none;
}

/* The numbers of attribute attr in the first element tag after from. */
static void attribute_numbers(const char *from, const char *tag, const char *attr, double *out,
                              int n) {
    const char *t = strstr(from, tag);
    cr_assert_not_null(t, "no %s", tag);
    char key[32];
    snprintf(key, sizeof key, " %s=\"", attr);
    const char *a = strstr(t, key);
    cr_assert_not_null(a, "no %s in %s", attr, tag);
    a += strlen(key);
    for (int k = 0; k < n; ++k) {
        char *end;
        out[k] = strtod(a, &end);
        a = end;
    }
}

static heft_mat3 rpy_matrix(double r, double p, double y) {
    heft_mat3 rx = heft_mat3_identity(), ry = heft_mat3_identity(), rz = heft_mat3_identity();
    rx.m[1][1] = cos(r), rx.m[1][2] = -sin(r), rx.m[2][1] = sin(r), rx.m[2][2] = cos(r);
    ry.m[0][0] = cos(p), ry.m[0][2] = sin(p), ry.m[2][0] = -sin(p), ry.m[2][2] = cos(p);
    rz.m[0][0] = cos(y), rz.m[0][1] = -sin(y), rz.m[1][0] = sin(y), rz.m[1][1] = cos(y);
    return heft_mat3_mul(rz, heft_mat3_mul(ry, rx));
}

static double mat3_max_diff(heft_mat3 a, heft_mat3 b) {
    double d = 0.0;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            d = fmax(d, fabs(a.m[i][j] - b.m[i][j]));
        }
    }
    return d;
}

Test(urdf, arm_imports_one_body_per_link_with_tool0_merged) {
    heft_world *w = heft_world_create(NULL);
    heft_urdf_result r;
    cr_assert_eq(heft_world_import_urdf(w, ARM, NULL, &r), HEFT_OK, "%s", heft_last_error());
    cr_expect_str_eq(r.robot, "arm6");
    cr_expect_eq(r.body_count, 7);
    cr_expect_eq(r.shape_count, 7);
    cr_expect_eq(r.joint_count, 6);
    cr_expect_eq(r.merged_links, 1);
    cr_expect_eq(r.ignored, 0, "%s", r.note);
    cr_expect_eq(heft_world_body_count(w), 7);
    cr_expect_eq(heft_world_joint_count(w), 6);
    heft_body_state s;
    cr_assert_eq(heft_body_get_state(w, r.root, &s), HEFT_OK);
    cr_expect_eq(s.type, HEFT_BODY_STATIC);
    cr_expect_str_eq(heft_body_name(w, r.root), "base_link");
    cr_expect(!heft_body_is_valid(w, body_named(w, "tool0")), "tool0 has a body of its own");
    heft_world_destroy(w);
}

/* Every moving link's mass is the file's, and its inertia turned back by
 * the inertial's rpy is the file's tensor, to 1e-12 (relative). */
Test(urdf, arm_masses_and_inertias_are_the_files) {
    static const char *const links[] = {"shoulder",     "upper_arm",    "forearm",
                                        "wrist_1_link", "wrist_2_link", "flange"};
    char *text = read_text(ARM, NULL);
    heft_world *w = heft_world_create(NULL);
    cr_assert_eq(heft_world_import_urdf(w, ARM, NULL, NULL), HEFT_OK, "%s", heft_last_error());
    for (int k = 0; k < 6; ++k) {
        char tag[64];
        snprintf(tag, sizeof tag, "<link name=\"%s\">", links[k]);
        const char *at = strstr(text, tag);
        cr_assert_not_null(at);
        double mass, rpy[3], i[6];
        attribute_numbers(at, "<mass", "value", &mass, 1);
        attribute_numbers(at, "<origin", "rpy", rpy, 3);
        static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
        for (int c = 0; c < 6; ++c) {
            attribute_numbers(at, "<inertia", names[c], &i[c], 1);
        }
        heft_mat3 file = {{{i[0], i[1], i[2]}, {i[1], i[3], i[4]}, {i[2], i[4], i[5]}}};
        heft_body_state s;
        cr_assert_eq(heft_body_get_state(w, body_named(w, links[k]), &s), HEFT_OK, "%s", links[k]);
        cr_expect_eq(s.type, HEFT_BODY_DYNAMIC);
        cr_expect_leq(fabs(s.mass - mass), 1e-12 * mass, "%s: mass %.17g, file %.17g", links[k],
                      s.mass, mass);
        heft_mat3 r = rpy_matrix(rpy[0], rpy[1], rpy[2]);
        heft_mat3 back = heft_mat3_mul(heft_mat3_transpose(r), heft_mat3_mul(s.inertia, r));
        double scale = fmax(i[0], fmax(i[3], i[5]));
        cr_expect_leq(mat3_max_diff(back, file), 1e-12 * scale, "%s: inertia off by %g", links[k],
                      mat3_max_diff(back, file));
    }
    /* the flange carries tool0, which has no mass: its own numbers */
    heft_world_destroy(w);
    free(text);
}

/* The arm stretched out along +x falls from its fixed base, swings and
 * comes to rest hanging down, slowed by its joints' damping, in 10 s (600
 * steps of 1/60 s). At rest every joint's gap is below 1e-6 m; while it
 * swings (up to 5 rad/s) below 1 cm, the drift of velocity-level joints at
 * this step (docs/urdf.md has the numbers per solver). */
static void hang(const char *solver) {
    heft_world_def def = heft_default_world_def();
    def.solver = solver;
    heft_world *w = heft_world_create(&def);
    cr_assert_eq(heft_world_import_urdf(w, ARM, NULL, NULL), HEFT_OK, "%s", heft_last_error());
    heft_body_id flange = body_named(w, "flange");
    double z0 = heft_body_position(w, flange).z, swinging = 0.0, resting = 0.0, spin = 0.0;
    heft_joint_id joints[8];
    heft_body_id bodies[8];
    int n = heft_world_joints(w, joints, 8), nb = heft_world_bodies(w, bodies, 8);
    cr_assert_eq(n, 6);
    for (int step = 1; step <= 600; ++step) {
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
        for (int k = 0; k < n; ++k) {
            swinging = fmax(swinging, heft_joint_gap(w, joints[k]));
        }
    }
    for (int k = 0; k < n; ++k) {
        resting = fmax(resting, heft_joint_gap(w, joints[k]));
    }
    for (int k = 0; k < nb; ++k) {
        spin = fmax(spin, heft_v3_length(heft_body_angular_velocity(w, bodies[k])));
    }
    cr_expect_lt(resting, 1e-6, "%s: joint gap at rest %g m", solver, resting);
    cr_expect_lt(swinging, 1e-2, "%s: largest joint gap while swinging %g m", solver, swinging);
    cr_expect_lt(spin, 0.05, "%s: still turning at %g rad/s", solver, spin);
    cr_expect_gt(z0 - heft_body_position(w, flange).z, 1.0, "%s: the flange hangs only %g m lower",
                 solver, z0 - heft_body_position(w, flange).z);
    cr_expect_eq(heft_world_stats(w)->nonfinite_rejected, 0);
    heft_world_destroy(w);
}

Test(urdf, arm_hangs_under_gravity_with_its_joints_holding_pgs) {
    hang("pgs");
}

Test(urdf, arm_hangs_under_gravity_with_its_joints_holding_bpp_skyline) {
    hang("bpp-skyline");
}

/* With post-stabilization the joints hold to round-off, also after the
 * upper arm comes within the contact margin of the base (from step 25): the
 * contact closes a loop base - shoulder - upper arm - base whose internal
 * projection impulses are large and cancel. Applied row by row, their
 * rotations did not cancel and the gaps grew 100-fold a step to 104 m. */
static void post_stabilized(const char *solver) {
    heft_world_def def = heft_default_world_def();
    def.solver = solver;
    def.post_stabilization = 3;
    heft_world *w = heft_world_create(&def);
    cr_assert_eq(heft_world_import_urdf(w, ARM, NULL, NULL), HEFT_OK, "%s", heft_last_error());
    heft_joint_id joints[8];
    int n = heft_world_joints(w, joints, 8), contact_steps = 0;
    double gap = 0.0;
    for (int step = 1; step <= 120; ++step) {
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
        contact_steps += heft_world_contact_count(w) > 0;
        for (int k = 0; k < n; ++k) {
            gap = fmax(gap, heft_joint_gap(w, joints[k]));
        }
    }
    cr_expect_gt(contact_steps, 10, "%s: the arm touched the base on %d steps only", solver,
                 contact_steps);
    cr_expect_lt(gap, 1e-9, "%s: largest joint gap %g m", solver, gap);
    heft_world_destroy(w);
}

Test(urdf, post_stabilized_arm_keeps_its_joints_through_a_contact_bpp_skyline) {
    post_stabilized("bpp-skyline");
}

Test(urdf, post_stabilized_arm_keeps_its_joints_through_a_contact_baraff) {
    post_stabilized("baraff");
}

Test(urdf, post_stabilized_arm_keeps_its_joints_through_a_contact_ldl_pgs) {
    post_stabilized("ldl-pgs");
}

/* assets/scenes/arm6.json is what heft-scene urdf makes of the arm. */
Test(urdf, arm_scene_file_is_the_arms_conversion) {
    heft_world *w = heft_world_create(NULL);
    heft_urdf_result r;
    cr_assert_eq(heft_world_import_urdf(w, ARM, NULL, &r), HEFT_OK, "%s", heft_last_error());
    heft_scene_info info = heft_default_scene_info();
    snprintf(info.name, sizeof info.name, "%s", r.robot);
    size_t n = 0, m = 0;
    char *saved = heft_world_save_text(w, &info, &n);
    char *file = read_text(HEFT_SCENES_DIR "/arm6.json", &m);
    cr_expect(n == m && memcmp(saved, file, n) == 0,
              "assets/scenes/arm6.json differs from the import of arm6.urdf: run "
              "heft-scene urdf assets/urdf/arm6.urdf assets/scenes/arm6.json");
    heft_free(saved);
    free(file);
    heft_world_destroy(w);
}

static const char *two_links =
    "<robot name=\"two\">\n"                                                          /* 1 */
    "  <link name=\"a\"/>\n"                                                          /* 2 */
    "  <link name=\"b\">\n"                                                           /* 3 */
    "    <inertial>\n"                                                                /* 4 */
    "      <origin xyz=\"0.1 0.2 0.3\" rpy=\"0.3 -0.2 0.5\"/>\n"                      /* 5 */
    "      <mass value=\"3\"/>\n"                                                     /* 6 */
    "      <inertia ixx=\"0.4\" ixy=\"0.01\" ixz=\"-0.02\" iyy=\"0.5\" iyz=\"0.03\" " /* 7 */
    "izz=\"0.6\"/>\n"
    "    </inertial>\n"                                                         /* 8 */
    "  </link>\n"                                                               /* 9 */
    "  <joint name=\"j\" type=\"JOINT\">\n"                                     /* 10 */
    "    <parent link=\"a\"/>\n"                                                /* 11 */
    "    <child link=\"b\"/>\n"                                                 /* 12 */
    "    <origin xyz=\"1 0 2\" rpy=\"0 0 1.5707963267948966\"/>\n"              /* 13 */
    "    <axis xyz=\"0 0 2\"/>\n"                                               /* 14 */
    "    <limit lower=\"-0.5\" upper=\"0.75\" effort=\"10\" velocity=\"1\"/>\n" /* 15 */
    "    <dynamics damping=\"DAMP\" friction=\"FRIC\"/>\n"                      /* 16 */
    "  </joint>\n"                                                              /* 17 */
    "</robot>\n";

static char *edit(const char *text, const char *from, const char *to) {
    static char out[8][4096];
    static int slot;
    char *o = out[slot++ % 8];
    const char *at = strstr(text, from);
    cr_assert_not_null(at, "no \"%s\"", from);
    snprintf(o, 4096, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return o;
}

static char *two_links_with(const char *type, const char *damping, const char *friction) {
    return edit(edit(edit(two_links, "JOINT", type), "DAMP", damping), "FRIC", friction);
}

static heft_world *import_text(const char *text, const heft_urdf_options *o) {
    heft_world *w = heft_world_create(NULL);
    cr_assert_eq(heft_world_import_urdf_text(w, text, strlen(text), "t.urdf", o, NULL), HEFT_OK,
                 "%s", heft_last_error());
    return w;
}

/* The inertial's rpy turns its tensor into the link's axes (R I R^T) and
 * its xyz is the centre of mass, where the body is. */
Test(urdf, inertial_frame_is_turned_into_the_links_axes) {
    heft_world *w = import_text(two_links_with("continuous", "0", "0"), NULL);
    heft_body_state s;
    cr_assert_eq(heft_body_get_state(w, body_named(w, "b"), &s), HEFT_OK);
    heft_mat3 file = {{{0.4, 0.01, -0.02}, {0.01, 0.5, 0.03}, {-0.02, 0.03, 0.6}}};
    heft_mat3 r = rpy_matrix(0.3, -0.2, 0.5);
    heft_mat3 expected = heft_mat3_mul(r, heft_mat3_mul(file, heft_mat3_transpose(r)));
    cr_expect_leq(mat3_max_diff(s.inertia, expected), 1e-12, "off by %g",
                  mat3_max_diff(s.inertia, expected));
    cr_expect_eq(s.mass, 3.0);
    /* link b's frame: (1, 0, 2) turned a quarter about z; its centre of mass
     * (0.1, 0.2, 0.3) in it is (1 - 0.2, 0.1, 2.3) in the world */
    cr_expect_leq(fabs(s.position.x - 0.8) + fabs(s.position.y - 0.1) + fabs(s.position.z - 2.3),
                  1e-12);
    heft_world_destroy(w);
}

/* A revolute joint is a hinge whose angle is the URDF position: turning b
 * by +0.3 rad about the axis reads +0.3, and the limits are the file's. */
Test(urdf, revolute_joint_is_a_hinge_with_the_files_axis_and_limits) {
    heft_urdf_options o = heft_default_urdf_options();
    o.fixed_base = 1;
    heft_world *w = import_text(two_links_with("revolute", "0", "0"), &o);
    heft_joint_id j = joint_named(w, "j");
    cr_assert(heft_joint_is_valid(w, j));
    cr_expect_eq(heft_joint_get_type(w, j), HEFT_JOINT_HINGE);
    heft_joint_def d;
    cr_assert_eq(heft_joint_get_def(w, j, &d), HEFT_OK);
    cr_expect(d.limit[HEFT_DOF_RX].enabled);
    cr_expect_eq(d.limit[HEFT_DOF_RX].lower, -0.5);
    cr_expect_eq(d.limit[HEFT_DOF_RX].upper, 0.75);
    cr_expect_eq(d.motor[HEFT_DOF_RX].mode, HEFT_MOTOR_OFF);
    cr_expect_leq(heft_joint_gap(w, j), 1e-15);
    /* turn b about the joint axis (world z through (1, 0, 2)) by 0.3 rad */
    heft_body_id b = body_named(w, "b");
    heft_quat turn = heft_quat_axis_angle(heft_v3(0, 0, 1), 0.3);
    heft_vec3 anchor = heft_v3(1, 0, 2);
    heft_vec3 p =
        heft_v3_add(anchor, heft_quat_rotate(turn, heft_v3_sub(heft_body_position(w, b), anchor)));
    cr_assert_eq(heft_body_set_transform(w, b, p, heft_quat_mul(turn, heft_body_orientation(w, b))),
                 HEFT_OK);
    cr_expect_leq(fabs(heft_joint_coordinate(w, j, HEFT_DOF_RX) - 0.3), 1e-12, "angle %.17g",
                  heft_joint_coordinate(w, j, HEFT_DOF_RX));
    cr_expect_leq(heft_joint_gap(w, j), 1e-12);
    heft_world_destroy(w);
}

/* A prismatic joint's X is the URDF position along the axis. */
Test(urdf, prismatic_joint_slides_along_the_files_axis) {
    heft_world *w = import_text(two_links_with("prismatic", "0", "0"), NULL);
    heft_joint_id j = joint_named(w, "j");
    cr_expect_eq(heft_joint_get_type(w, j), HEFT_JOINT_PRISMATIC);
    heft_joint_def d;
    cr_assert_eq(heft_joint_get_def(w, j, &d), HEFT_OK);
    cr_expect(d.limit[HEFT_DOF_X].enabled);
    cr_expect_eq(d.limit[HEFT_DOF_X].upper, 0.75);
    heft_body_id b = body_named(w, "b");
    heft_vec3 p = heft_v3_add(heft_body_position(w, b), heft_v3(0, 0, 0.25));
    cr_assert_eq(heft_body_set_transform(w, b, p, heft_body_orientation(w, b)), HEFT_OK);
    cr_expect_leq(fabs(heft_joint_coordinate(w, j, HEFT_DOF_X) - 0.25), 1e-12);
    heft_world_destroy(w);
}

/* damping alone: a viscous velocity motor holding 0; friction: a stiff one
 * bounded by the friction (and the damping, beside it, noted as unmapped). */
Test(urdf, joint_dynamics_become_a_velocity_motor_holding_zero) {
    heft_world *w = import_text(two_links_with("continuous", "0.7", "0"), NULL);
    heft_joint_def d;
    cr_assert_eq(heft_joint_get_def(w, joint_named(w, "j"), &d), HEFT_OK);
    cr_expect_eq(d.limit[HEFT_DOF_RX].enabled, 0);
    cr_expect_eq(d.motor[HEFT_DOF_RX].mode, HEFT_MOTOR_VELOCITY);
    cr_expect_eq(d.motor[HEFT_DOF_RX].damping, 0.7);
    cr_expect(isinf(d.motor[HEFT_DOF_RX].max_force));
    heft_world_destroy(w);

    w = heft_world_create(NULL);
    heft_urdf_result r;
    const char *text = two_links_with("continuous", "0.7", "2.5");
    cr_assert_eq(heft_world_import_urdf_text(w, text, strlen(text), "t.urdf", NULL, &r), HEFT_OK);
    cr_assert_eq(heft_joint_get_def(w, joint_named(w, "j"), &d), HEFT_OK);
    cr_expect_eq(d.motor[HEFT_DOF_RX].mode, HEFT_MOTOR_VELOCITY);
    cr_expect_eq(d.motor[HEFT_DOF_RX].max_force, 2.5);
    cr_expect_eq(d.motor[HEFT_DOF_RX].damping, 0.0);
    cr_expect_eq(r.ignored, 1);
    cr_expect(strstr(r.note, "t.urdf:16: joint \"j\" <dynamics>") == r.note, "%s", r.note);
    heft_world_destroy(w);

    heft_urdf_options o = heft_default_urdf_options();
    o.joint_dynamics = 0;
    w = import_text(two_links_with("continuous", "0.7", "2.5"), &o);
    cr_assert_eq(heft_joint_get_def(w, joint_named(w, "j"), &d), HEFT_OK);
    cr_expect_eq(d.motor[HEFT_DOF_RX].mode, HEFT_MOTOR_OFF);
    heft_world_destroy(w);
}

/* planar: six-DOF free in the plane normal to the axis; floating: free. */
Test(urdf, planar_and_floating_joints_are_six_dof_joints) {
    heft_world *w = import_text(two_links_with("planar", "0", "0"), NULL);
    heft_joint_def d;
    cr_assert_eq(heft_joint_get_def(w, joint_named(w, "j"), &d), HEFT_OK);
    cr_expect_eq(d.type, HEFT_JOINT_SIX_DOF);
    static const heft_dof_mode planar[6] = {HEFT_DOF_LOCKED, HEFT_DOF_FREE,   HEFT_DOF_FREE,
                                            HEFT_DOF_FREE,   HEFT_DOF_LOCKED, HEFT_DOF_LOCKED};
    for (int k = 0; k < 6; ++k) {
        cr_expect_eq(d.dof_mode[k], planar[k], "dof %d", k);
    }
    heft_world_destroy(w);
    w = import_text(two_links_with("floating", "0", "0"), NULL);
    cr_assert_eq(heft_joint_get_def(w, joint_named(w, "j"), &d), HEFT_OK);
    for (int k = 0; k < 6; ++k) {
        cr_expect_eq(d.dof_mode[k], HEFT_DOF_FREE, "dof %d", k);
    }
    heft_world_destroy(w);
}

/* The root goes where the options say; free or static. */
Test(urdf, root_is_placed_at_the_given_pose_fixed_or_free) {
    heft_urdf_options o = heft_default_urdf_options();
    o.position = heft_v3(5, -1, 2);
    o.orientation = heft_quat_axis_angle(heft_v3(0, 0, 1), 1.5707963267948966);
    o.fixed_base = 0;
    const char *text = two_links_with("fixed", "0", "0");
    /* a fixed joint under a link without mass: b becomes part of a's body */
    heft_world *w = heft_world_create(NULL);
    heft_urdf_result r;
    cr_assert_eq(heft_world_import_urdf_text(w, text, strlen(text), "t.urdf", &o, &r), HEFT_OK,
                 "%s", heft_last_error());
    cr_expect_eq(r.body_count, 1);
    cr_expect_eq(r.merged_links, 1);
    cr_expect_eq(r.joint_count, 0);
    heft_body_state s;
    cr_assert_eq(heft_body_get_state(w, r.root, &s), HEFT_OK);
    cr_expect_eq(s.type, HEFT_BODY_DYNAMIC);
    cr_expect_eq(s.mass, 3.0);
    /* b's centre of mass: a's frame at (5, -1, 2) turned a quarter, b at
     * (1, 0, 2) in it and turned another quarter, the centre (0.1, 0.2, 0.3)
     * in b: (5, -1, 2) + Rz(pi/2) (1, 0, 2) + Rz(pi) (0.1, 0.2, 0.3) */
    heft_vec3 expected = heft_v3(4.9, -0.2, 4.3);
    cr_expect_leq(heft_v3_length(heft_v3_sub(s.position, expected)), 1e-12, "(%g %g %g)",
                  s.position.x, s.position.y, s.position.z);
    heft_world_destroy(w);
}

/* merge_fixed: links on fixed joints share a body whose mass is their sum,
 * whose centre is their mass-weighted centre and whose inertia adds their
 * own by parallel axes. */
Test(urdf, merged_links_add_masses_and_inertias_by_parallel_axes) {
    const char *text = "<robot name=\"m\">\n"
                       " <link name=\"a\"><inertial><mass value=\"2\"/>"
                       "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"1\" iyz=\"0\" izz=\"1\"/>"
                       "</inertial></link>\n"
                       " <link name=\"b\"><inertial><mass value=\"6\"/>"
                       "<inertia ixx=\"1\" ixy=\"0\" ixz=\"0\" iyy=\"2\" iyz=\"0\" izz=\"3\"/>"
                       "</inertial></link>\n"
                       " <joint name=\"weld\" type=\"fixed\"><parent link=\"a\"/>"
                       "<child link=\"b\"/><origin xyz=\"4 0 0\"/></joint>\n"
                       "</robot>\n";
    heft_urdf_options o = heft_default_urdf_options();
    o.fixed_base = 0;
    heft_world *w = import_text(text, &o);
    cr_expect_eq(heft_world_body_count(w), 2);
    cr_expect_eq(heft_world_joint_count(w), 1);
    heft_world_destroy(w);
    o.merge_fixed = 1;
    w = import_text(text, &o);
    cr_expect_eq(heft_world_body_count(w), 1);
    cr_expect_eq(heft_world_joint_count(w), 0);
    heft_body_state s;
    cr_assert_eq(heft_body_get_state(w, body_named(w, "a"), &s), HEFT_OK);
    cr_expect_eq(s.mass, 8.0);
    cr_expect_leq(fabs(s.position.x - 3.0), 1e-15); /* (2 * 0 + 6 * 4) / 8 */
    /* about x: 1 + 1; about y and z: own + 2 * 3^2 + 6 * 1^2 */
    heft_mat3 expected = heft_mat3_diag(2.0, 3.0 + 24.0, 4.0 + 24.0);
    cr_expect_leq(mat3_max_diff(s.inertia, expected), 1e-12);
    heft_world_destroy(w);
}

/* Mesh paths start from the URDF file's folder; a static link keeps the
 * triangles, a moving one gets their convex hull, scaled. */
Test(urdf, meshes_resolve_relative_to_the_file) {
    heft_world *w = heft_world_create(NULL);
    heft_urdf_result r;
    cr_assert_eq(heft_world_import_urdf(w, HEFT_TESTDATA_DIR "/urdf/mesh_links.urdf", NULL, &r),
                 HEFT_OK, "%s", heft_last_error());
    cr_expect_eq(r.shape_count, 2);
    heft_shape_id s;
    heft_shape_def d;
    cr_assert_eq(heft_body_shapes(w, body_named(w, "base"), &s, 1), 1);
    cr_assert_eq(heft_shape_get_def(w, s, &d), HEFT_OK);
    cr_expect_eq(d.type, HEFT_SHAPE_MESH);
    cr_expect_eq(d.mesh.triangle_count, 8);
    cr_assert_eq(heft_body_shapes(w, body_named(w, "arm"), &s, 1), 1);
    cr_assert_eq(heft_shape_get_def(w, s, &d), HEFT_OK);
    cr_expect_eq(d.type, HEFT_SHAPE_HULL);
    cr_expect_eq(d.hull.count, 6);
    double x_max = -1.0;
    for (int k = 0; k < d.hull.count; ++k) {
        x_max = fmax(x_max, d.hull.points[k].x);
    }
    cr_expect_leq(fabs(x_max - 0.4), 1e-15, "scaled length %g", x_max);
    heft_world_destroy(w);
}

/* Each malformed file is refused with FILE:LINE: element attribute: why,
 * and leaves a world holding a body exactly as it was. */
static void refused(const char *text, const char *message) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.name = "existing";
    heft_create_body(w, &bd);
    world_snapshot before, after;
    world_snapshot_take(w, &before);
    heft_result r = heft_world_import_urdf_text(w, text, strlen(text), "bad.urdf", NULL, NULL);
    cr_expect_neq(r, HEFT_OK, "accepted; expected \"%s\"", message);
    cr_expect(strstr(heft_last_error(), message) == heft_last_error(),
              "message \"%s\", expected it to start with \"%s\"", heft_last_error(), message);
    world_snapshot_take(w, &after);
    cr_expect(world_snapshot_equal(&before, &after), "the world changed (%s)", message);
    heft_world_destroy(w);
}

Test(urdf, malformed_files_are_refused_naming_file_line_and_element) {
    char good[4096];
    snprintf(good, sizeof good, "%s", two_links_with("revolute", "0", "0"));
    refused("<robot><link name=\"a\"></robot>", "bad.urdf:1: not well-formed XML");
    refused("", "bad.urdf:1: not well-formed XML");
    refused("<model name=\"x\"/>", "bad.urdf:1: <model>: the document's element must be <robot>");
    refused("<robot name=\"x\"/>", "bad.urdf:1: <robot>: a robot needs at least one <link>");
    refused(edit(good, "<link name=\"a\"/>", "<link/>"), "bad.urdf:2: <link> name: a link needs");
    refused(edit(good, "<link name=\"a\"/>", "<link name=\"b\"/>"),
            "bad.urdf:3: link \"b\" name: link \"b\" is already defined on line 2");
    refused(edit(good, "value=\"3\"", "value=\"nan\""),
            "bad.urdf:6: link \"b\" <inertial><mass> value: must be a finite number");
    refused(edit(good, "value=\"3\"", "value=\"-3\""),
            "bad.urdf:6: link \"b\" <inertial><mass> value: must not be negative");
    refused(edit(good, "value=\"3\"", "value=\"3 kg\""),
            "bad.urdf:6: link \"b\" <inertial><mass> value: must be a finite number");
    refused(edit(good, "iyy=\"0.5\"", "iyy=\"-0.5\""),
            "bad.urdf:7: link \"b\" <inertial><inertia>: the inertia tensor is not positive");
    refused(edit(good, "rpy=\"0.3 -0.2 0.5\"", "rpy=\"0.3 -0.2\""),
            "bad.urdf:5: link \"b\" <inertial><origin> rpy: must be 3 finite numbers");
    refused(two_links_with("ball", "0", "0"),
            "bad.urdf:10: joint \"j\" type: unknown joint type \"ball\"");
    refused(edit(good, "<child link=\"b\"/>", "<child link=\"c\"/>"),
            "bad.urdf:12: joint \"j\" <child> link: no link is named \"c\"");
    refused(edit(good, "<parent link=\"a\"/>", ""), "bad.urdf:10: joint \"j\": <parent link=...>");
    refused(edit(good, "<parent link=\"a\"/>", "<parent link=\"b\"/>"),
            "bad.urdf:12: joint \"j\" <child> link: the joint joins link \"b\" to itself");
    refused(edit(good, "<limit lower=\"-0.5\" upper=\"0.75\" effort=\"10\" velocity=\"1\"/>", ""),
            "bad.urdf:10: joint \"j\": a revolute joint needs <limit");
    refused(edit(good, "lower=\"-0.5\"", "lower=\"1.5\""),
            "bad.urdf:15: joint \"j\" <limit> lower: 1.5 is above upper (0.75)");
    refused(edit(good, "effort=\"10\"", ""), "bad.urdf:15: joint \"j\" <limit> effort: is missing");
    refused(edit(good, "<axis xyz=\"0 0 2\"/>", "<axis xyz=\"0 0 0\"/>"),
            "bad.urdf:14: joint \"j\" <axis> xyz: the axis must not be zero");
    refused(edit(good, "damping=\"0\"", "damping=\"-1\""),
            "bad.urdf:16: joint \"j\" <dynamics> damping: must not be negative");
    /* two parents, a cycle, two roots */
    const char *second = "  <joint name=\"k\" type=\"fixed\">"
                         "<parent link=\"a\"/><child link=\"b\"/></joint>\n</robot>";
    refused(edit(good, "</robot>", second),
            "bad.urdf:18: joint \"k\" <child> link: link \"b\" already has a parent (joint \"j\", "
            "line 10)");
    const char *back = "  <joint name=\"k\" type=\"fixed\">"
                       "<parent link=\"b\"/><child link=\"a\"/></joint>\n</robot>";
    refused(edit(good, "</robot>", back), "bad.urdf:1: <robot>: every link has a parent");
    const char *loop = "  <link name=\"c\"/><link name=\"d\"/>\n"
                       "  <joint name=\"k\" type=\"fixed\"><parent link=\"c\"/>"
                       "<child link=\"d\"/></joint>\n"
                       "  <joint name=\"l\" type=\"fixed\"><parent link=\"d\"/>"
                       "<child link=\"c\"/></joint>\n</robot>";
    refused(edit(good, "</robot>", loop),
            "bad.urdf:20: joint \"l\": the joints form a cycle through link \"c\"");
    refused(edit(good, "</robot>", "<link name=\"c\"/></robot>"),
            "bad.urdf:18: link \"c\": a second root");
    refused(edit(good, "name=\"j\"", "name=\"\""), "bad.urdf:10: <joint> name: a joint needs");
    /* mass where a link moves, and on a free root */
    refused(edit(good, "<mass value=\"3\"/>", "<mass value=\"0\"/>"),
            "bad.urdf:4: link \"b\" <inertial>: link \"b\" has no mass, and joint \"j\"");
    heft_urdf_options o = heft_default_urdf_options();
    o.fixed_base = 0;
    heft_world *w = heft_world_create(NULL);
    cr_expect_neq(heft_world_import_urdf_text(w, good, strlen(good), "bad.urdf", &o, NULL),
                  HEFT_OK);
    cr_expect(strstr(heft_last_error(), "bad.urdf:2: link \"a\": the root link has no mass"), "%s",
              heft_last_error());
    heft_world_destroy(w);
}

Test(urdf, collision_geometry_is_checked_and_meshes_must_be_obj_files) {
    const char *base = "<robot name=\"g\">\n"
                       "  <link name=\"a\">\n"
                       "    <collision>\n"
                       "      <geometry>SHAPE</geometry>\n"
                       "    </collision>\n"
                       "  </link>\n"
                       "</robot>\n";
    heft_world *w = import_text(edit(base, "SHAPE", "<box size=\"1 2 3\"/>"), NULL);
    heft_shape_id s;
    heft_shape_def d;
    cr_assert_eq(heft_body_shapes(w, body_named(w, "a"), &s, 1), 1);
    cr_assert_eq(heft_shape_get_def(w, s, &d), HEFT_OK);
    cr_expect_eq(d.type, HEFT_SHAPE_BOX);
    cr_expect_eq(d.half_extents.z, 1.5);
    heft_world_destroy(w);
    w = import_text(edit(base, "SHAPE", "<cylinder radius=\"0.5\" length=\"3\"/>"), NULL);
    cr_assert_eq(heft_body_shapes(w, body_named(w, "a"), &s, 1), 1);
    cr_assert_eq(heft_shape_get_def(w, s, &d), HEFT_OK);
    cr_expect_eq(d.type, HEFT_SHAPE_CYLINDER);
    cr_expect_eq(d.half_length, 1.5);
    heft_world_destroy(w);
    refused(edit(base, "SHAPE", "<box size=\"1 0 3\"/>"),
            "bad.urdf:4: link \"a\" <collision><geometry><box> size: the sides must be positive");
    refused(edit(base, "SHAPE", "<sphere/>"),
            "bad.urdf:4: link \"a\" <collision><geometry><sphere> radius: is missing");
    refused(edit(base, "SHAPE", "<cone radius=\"1\"/>"),
            "bad.urdf:4: link \"a\" <collision><geometry><cone>: unknown geometry");
    refused(edit(base, "SHAPE", ""), "bad.urdf:4: link \"a\" <collision><geometry>: needs one of");
    refused(edit(base, "SHAPE", "<mesh filename=\"arm.stl\"/>"),
            "bad.urdf:4: link \"a\" <collision><geometry><mesh> filename: \"arm.stl\": only "
            "Wavefront OBJ");
    refused(edit(base, "SHAPE", "<mesh filename=\"missing.obj\"/>"),
            "bad.urdf:4: link \"a\" <collision><geometry><mesh> filename: cannot open mesh file");
    refused(edit(base, "SHAPE", "<mesh filename=\"package://arm/missing.obj\"/>"),
            "bad.urdf:4: link \"a\" <collision><geometry><mesh> filename: "
            "\"package://arm/missing.obj\": package:// paths need");
}

Test(urdf, package_paths_resolve_under_the_package_root) {
    const char *text = "<robot name=\"p\"><link name=\"a\"><collision><geometry>"
                       "<mesh filename=\"package://urdf/meshes/wedge.obj\"/>"
                       "</geometry></collision></link></robot>";
    heft_urdf_options o = heft_default_urdf_options();
    o.package_root = HEFT_TESTDATA_DIR;
    heft_world *w = import_text(text, &o);
    cr_expect_eq(heft_world_body_count(w), 1);
    heft_world_destroy(w);
}

/* <mimic>: a hinge following a hinge is a gear of the multiplier, a
 * prismatic joint following a hinge a rack; turning the first hinge turns
 * the second by the multiplier (to 1e-3 rad after 1 s of a torque). */
Test(urdf, mimic_joints_become_gears_and_racks) {
    const char *text =
        "<robot name=\"g\">\n"
        " <link name=\"base\"/>\n"
        " <link name=\"a\"><inertial><mass value=\"1\"/>"
        "<inertia ixx=\"0.1\" ixy=\"0\" ixz=\"0\" iyy=\"0.1\" iyz=\"0\" izz=\"0.1\"/></inertial>"
        "</link>\n"
        " <link name=\"b\"><inertial><mass value=\"1\"/>"
        "<inertia ixx=\"0.2\" ixy=\"0\" ixz=\"0\" iyy=\"0.2\" iyz=\"0\" izz=\"0.2\"/></inertial>"
        "</link>\n"
        " <link name=\"c\"><inertial><mass value=\"1\"/>"
        "<inertia ixx=\"0.2\" ixy=\"0\" ixz=\"0\" iyy=\"0.2\" iyz=\"0\" izz=\"0.2\"/></inertial>"
        "</link>\n"
        " <joint name=\"ja\" type=\"continuous\"><parent link=\"base\"/><child link=\"a\"/>"
        "<axis xyz=\"0 0 1\"/></joint>\n"
        " <joint name=\"jb\" type=\"continuous\"><parent link=\"base\"/><child link=\"b\"/>"
        "<origin xyz=\"1 0 0\"/><axis xyz=\"0 0 1\"/><mimic joint=\"ja\" multiplier=\"-2\"/>"
        "</joint>\n"
        " <joint name=\"jc\" type=\"prismatic\"><parent link=\"base\"/><child link=\"c\"/>"
        "<origin xyz=\"0 2 0\"/><axis xyz=\"1 0 0\"/>"
        "<limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>"
        "<mimic joint=\"ja\" multiplier=\"0.05\" offset=\"0.1\"/></joint>\n"
        "</robot>\n";
    heft_world_def def = heft_default_world_def();
    def.gravity = heft_v3(0, 0, 0);
    def.solver = "bpp-skyline";
    heft_world *w = heft_world_create(&def);
    heft_urdf_result r;
    cr_assert_eq(heft_world_import_urdf_text(w, text, strlen(text), "g.urdf", NULL, &r), HEFT_OK,
                 "%s", heft_last_error());
    cr_expect_eq(r.joint_count, 5);
    cr_expect_eq(r.ignored, 1, "the offset is noted");
    cr_expect(strstr(r.note, "g.urdf:8: joint \"jc\" <mimic>: offset not mapped") == r.note, "%s",
              r.note);
    heft_joint_def d;
    cr_assert_eq(heft_joint_get_def(w, joint_named(w, "jb.mimic"), &d), HEFT_OK);
    cr_expect_eq(d.type, HEFT_JOINT_GEAR);
    cr_expect_eq(d.ratio, -2.0);
    cr_assert_eq(heft_joint_get_def(w, joint_named(w, "jc.mimic"), &d), HEFT_OK);
    cr_expect_eq(d.type, HEFT_JOINT_RACK);
    cr_expect_eq(d.ratio, 0.05);
    heft_joint_id ja = joint_named(w, "ja"), jb = joint_named(w, "jb"), jc = joint_named(w, "jc");
    for (int step = 0; step < 60; ++step) {
        cr_assert_eq(heft_body_apply_torque(w, body_named(w, "a"), heft_v3(0, 0, 0.2)), HEFT_OK);
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
    }
    double qa = heft_joint_coordinate(w, ja, HEFT_DOF_RX);
    cr_expect_gt(qa, 0.05, "the first hinge turned %g rad", qa);
    cr_expect_leq(fabs(heft_joint_coordinate(w, jb, HEFT_DOF_RX) + 2.0 * qa), 1e-3, "gear: %g, %g",
                  qa, heft_joint_coordinate(w, jb, HEFT_DOF_RX));
    cr_expect_leq(fabs(heft_joint_coordinate(w, jc, HEFT_DOF_X) - 0.05 * qa), 1e-4, "rack: %g, %g",
                  qa, heft_joint_coordinate(w, jc, HEFT_DOF_X));
    heft_world_destroy(w);
    refused(edit(text, "joint=\"ja\" multiplier=\"-2\"", "joint=\"jz\""),
            "bad.urdf:7: joint \"jb\" <mimic> joint: no joint is named \"jz\"");
}

/* The imported arm saved as a scene and loaded again steps bit for bit as
 * the imported world does (600 steps). */
Test(urdf, arm_through_a_scene_file_steps_bit_identically) {
    heft_world *w = heft_world_create(NULL);
    cr_assert_eq(heft_world_import_urdf(w, ARM, NULL, NULL), HEFT_OK, "%s", heft_last_error());
    size_t n = 0;
    char *saved = heft_world_save_text(w, NULL, &n);
    heft_world *loaded = heft_world_load_text(saved, n, "arm6.json", NULL);
    cr_assert_not_null(loaded, "%s", heft_last_error());
    for (int step = 0; step < 600; ++step) {
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
        cr_assert_eq(heft_world_step(loaded, 1.0 / 60.0), HEFT_OK);
    }
    heft_body_id a[8], b[8];
    int na = heft_world_bodies(w, a, 8), nb = heft_world_bodies(loaded, b, 8);
    cr_assert_eq(na, nb);
    for (int k = 0; k < na; ++k) {
        heft_body_state sa, sb;
        heft_body_get_state(w, a[k], &sa);
        heft_body_get_state(loaded, b[k], &sb);
        cr_expect(memcmp(&sa.position, &sb.position, sizeof sa.position) == 0 &&
                      memcmp(&sa.orientation, &sb.orientation, sizeof sa.orientation) == 0,
                  "%s differs", heft_body_name(w, a[k]));
    }
    heft_free(saved);
    heft_world_destroy(loaded);
    heft_world_destroy(w);
}
