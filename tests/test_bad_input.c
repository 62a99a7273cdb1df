/* Bad input is refused with an error and leaves the world exactly as it was. */
#include <criterion/criterion.h>
#include <limits.h>
#include <stddef.h>
#include <string.h>

#include "heft.h"
#include "world_snapshot.h"

static heft_world *world;
static heft_body_id a, b;
static world_snapshot before;

static void setup(void) {
    world = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0.0, 0.0, 1.0);
    a = heft_create_body(world, &bd);
    bd.position = heft_v3(0.0, 0.0, 2.0);
    b = heft_create_body(world, &bd);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_a = a;
    jd.body_b = b;
    heft_joint_def_set_world_frame(world, &jd, heft_v3(0.0, 0.0, 1.5), heft_v3(0, 0, 1));
    heft_create_joint(world, &jd);
    heft_world_step(world, 1.0 / 60.0);
    world_snapshot_take(world, &before);
}

static void teardown(void) {
    heft_world_destroy(world);
}

static void assert_unchanged(void) {
    world_snapshot after;
    world_snapshot_take(world, &after);
    cr_assert(world_snapshot_equal(&before, &after), "the world changed");
    cr_assert_neq(heft_last_error()[0], '\0', "no error message");
}

TestSuite(bad_input, .init = setup, .fini = teardown);

Test(bad_input, negative_mass_is_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.mass = -1.0;
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    assert_unchanged();
    cr_assert_neq(heft_body_set_mass(world, a, -2.0, heft_mat3_identity()), HEFT_OK);
    assert_unchanged();
}

Test(bad_input, nan_mass_is_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.mass = NAN;
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    assert_unchanged();
}

Test(bad_input, inertia_not_positive_definite_is_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.inertia = heft_mat3_diag(1.0, -1.0, 1.0);
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    bd.inertia = heft_mat3_diag(1.0, 1.0, 1.0);
    bd.inertia.m[0][1] = 0.5; /* not symmetric */
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    assert_unchanged();
}

Test(bad_input, nan_pose_is_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0.0, NAN, 0.0);
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    cr_assert_neq(heft_body_set_transform(world, a, heft_v3(INFINITY, 0, 0), heft_quat_identity()),
                  HEFT_OK);
    cr_assert_neq(heft_body_set_linear_velocity(world, a, heft_v3(NAN, 0, 0)), HEFT_OK);
    cr_assert_neq(heft_body_apply_force(world, a, heft_v3(NAN, 0, 0), heft_v3(0, 0, 0)), HEFT_OK);
    assert_unchanged();
}

Test(bad_input, zero_quaternion_is_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.orientation = heft_q(0.0, 0.0, 0.0, 0.0);
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    cr_assert_neq(heft_body_set_transform(world, a, heft_v3(0, 0, 0), heft_q(0, 0, 0, 0)), HEFT_OK);
    assert_unchanged();
}

Test(bad_input, joint_between_a_body_and_itself_is_refused) {
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_HINGE);
    jd.body_a = a;
    jd.body_b = a;
    cr_assert_lt(heft_create_joint(world, &jd).index, 0);
    assert_unchanged();
}

Test(bad_input, joint_with_stale_or_missing_body_is_refused) {
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
    jd.body_a = a;
    jd.body_b.index = 17;
    jd.body_b.generation = 1;
    cr_assert_lt(heft_create_joint(world, &jd).index, 0);
    jd.body_b = b;
    jd.body_b.generation += 1; /* stale */
    cr_assert_lt(heft_create_joint(world, &jd).index, 0);
    jd.body_b = b;
    jd.stiffness = NAN;
    cr_assert_lt(heft_create_joint(world, &jd).index, 0);
    assert_unchanged();
}

Test(bad_input, unknown_solver_name_is_refused) {
    cr_assert_eq(heft_world_set_solver(world, "no-such-solver"), HEFT_ERROR_UNKNOWN_SOLVER);
    cr_assert_str_eq(heft_world_solver(world), "pgs");
    assert_unchanged();
}

Test(bad_input, bad_time_step_is_refused) {
    cr_assert_neq(heft_world_step(world, 0.0), HEFT_OK);
    cr_assert_neq(heft_world_step(world, -1.0 / 60.0), HEFT_OK);
    cr_assert_neq(heft_world_step(world, NAN), HEFT_OK);
    cr_assert_neq(heft_world_step(world, INFINITY), HEFT_OK);
    assert_unchanged();
}

Test(bad_input, degenerate_shapes_are_refused) {
    heft_shape_def sd = heft_default_shape_def();
    sd.radius = 0.0;
    cr_assert_lt(heft_create_shape(world, a, &sd).index, 0);
    sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(1.0, -1.0, 1.0);
    cr_assert_lt(heft_create_shape(world, a, &sd).index, 0);
    sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_PLANE; /* planes belong to static bodies */
    cr_assert_lt(heft_create_shape(world, a, &sd).index, 0);
    assert_unchanged();
}

Test(bad_input, bad_solver_options_are_refused) {
    heft_solver_options o = heft_solver_default_options();
    o.relaxation = 2.5;
    cr_assert_neq(heft_world_set_solver_options(world, &o), HEFT_OK);
    o = heft_solver_default_options();
    o.tolerance = NAN;
    cr_assert_neq(heft_world_set_solver_options(world, &o), HEFT_OK);
    o = heft_solver_default_options();
    o.bpp_pgs_sweeps = -1;
    cr_assert_neq(heft_world_set_solver_options(world, &o), HEFT_OK);
    cr_assert(strstr(heft_last_error(), "bpp_pgs_sweeps") != NULL, "%s", heft_last_error());
    assert_unchanged();
}

Test(bad_input, stale_ids_are_refused_after_destroy) {
    heft_body_def bd = heft_default_body_def();
    heft_body_id c = heft_create_body(world, &bd);
    cr_assert_eq(heft_destroy_body(world, c), HEFT_OK);
    cr_assert_eq(heft_destroy_body(world, c), HEFT_ERROR_INVALID_ID);
    cr_assert(!heft_body_is_valid(world, c));
    /* the slot is reused under a new generation: the old id stays invalid */
    heft_body_id d = heft_create_body(world, &bd);
    cr_assert_eq(d.index, c.index);
    cr_assert(!heft_body_is_valid(world, c));
    cr_assert(heft_body_is_valid(world, d));
}

Test(bad_input, world_def_with_unknown_solver_makes_no_world) {
    heft_world_def wd = heft_default_world_def();
    wd.solver = "nope";
    cr_assert_null(heft_world_create(&wd));
    wd = heft_default_world_def();
    wd.gravity.z = NAN;
    cr_assert_null(heft_world_create(&wd));
}

/* Each field of heft_solver_options with a value outside its range (NaN for
 * the doubles) is refused by name; before, 12 of them stored NaN. */
Test(bad_input, every_solver_option_is_checked_by_name) {
    struct {
        const char *field;
        size_t offset;
        int is_double;
        double bad;
    } cases[] = {
#define OPT(f, d, v) {#f, offsetof(heft_solver_options, f), d, v}
        OPT(max_iterations, 0, -1),
        OPT(tolerance, 1, NAN),
        OPT(relaxation, 1, NAN),
        OPT(warm_start, 0, 2),
        OPT(max_pivots, 0, -1),
        OPT(bpp_pgs_sweeps, 0, -1),
        OPT(keep_index_sets, 0, -1),
        OPT(skyline_refactor_fraction, 1, NAN),
        OPT(backstop_max_variables, 0, -2),
        OPT(backstop_pivot_budget, 1, NAN),
        OPT(backstop_pivot_budget, 1, -INFINITY),
        OPT(backstop_accept, 1, NAN),
        OPT(backstop_accept, 1, -1e-12),
        OPT(preconditioner, 0, HEFT_PRECOND_COUNT),
        OPT(pcg_tolerance, 1, NAN),
        OPT(pcg_tolerance, 1, INFINITY),
        OPT(pcg_max_iterations, 0, 0),
        OPT(ict_drop_tolerance, 1, NAN),
        OPT(ict_drop_tolerance, 1, -1.0),
        OPT(ict_fill, 0, -1),
        OPT(adaptive_regularization, 0, 7),
        OPT(regularization_shift, 1, NAN),
        OPT(regularization_shift, 1, 2.0),
        OPT(regularization_pivot_limit, 0, 0),
        OPT(cr_tolerance, 1, NAN),
        OPT(cr_tolerance, 1, -1e-3),
        OPT(cr_max_iterations, 0, -5),
        OPT(ldl_ordering, 0, 9),
        OPT(ldl_shatter_degree, 0, -1),
        OPT(ldl_shard_constraints, 0, 0),
        OPT(ldl_regularization, 1, NAN),
        OPT(pgs_light_ratio, 1, NAN),
        OPT(pgs_light_ratio, 1, -1.0),
        OPT(pgs_light_ratio, 1, 0.5),
#undef OPT
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        heft_solver_options o = heft_solver_default_options();
        char *at = (char *)&o + cases[k].offset;
        if (cases[k].is_double) {
            double v = cases[k].bad;
            memcpy(at, &v, sizeof v);
        } else {
            int v = (int)cases[k].bad;
            memcpy(at, &v, sizeof v);
        }
        char err[200] = "";
        cr_assert_eq(heft_solver_options_check(&o, err, sizeof err), -1, "%s", cases[k].field);
        cr_assert_not_null(strstr(err, cases[k].field), "%s: \"%s\"", cases[k].field, err);
        cr_assert_eq(heft_world_set_solver_options(world, &o), HEFT_ERROR_INVALID_ARGUMENT);
        cr_assert_not_null(strstr(heft_last_error(), cases[k].field), "%s", heft_last_error());
        assert_unchanged();
    }
    /* ict_fill = INT_MAX is valid (it keeps every off-diagonal) and solves */
    heft_solver_options o = heft_solver_default_options();
    o.ict_fill = INT_MAX;
    o.preconditioner = HEFT_PRECOND_ICT;
    o.regularization_pivot_limit = INT_MAX;
    o.adaptive_regularization = 1;
    cr_assert_eq(heft_solver_options_check(&o, NULL, 0), 0);
    cr_assert_eq(heft_world_set_solver_options(world, &o), HEFT_OK);
    cr_assert_eq(heft_world_set_solver(world, "bpp-pcg"), HEFT_OK);
    for (int i = 0; i < 5; ++i) {
        cr_assert_eq(heft_world_step(world, 1.0 / 60.0), HEFT_OK);
    }
    cr_assert(heft_v3_isfinite(heft_body_position(world, b)));
}

static void assert_refused_for(const char *words) {
    cr_assert_not_null(strstr(heft_last_error(), words), "\"%s\" lacks \"%s\"", heft_last_error(),
                       words);
    assert_unchanged();
}

Test(bad_input, masses_and_inertias_that_would_freeze_a_body_are_refused) {
    heft_body_def bd = heft_default_body_def();
    bd.mass = 1e-310;
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    assert_refused_for("HEFT_MASS_MIN");
    bd.mass = 1e300;
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    assert_refused_for("HEFT_MASS_MAX");
    cr_assert_eq(heft_body_set_mass(world, a, 1e-310, heft_mat3_identity()),
                 HEFT_ERROR_INVALID_ARGUMENT);
    assert_refused_for("HEFT_MASS_MIN");
    cr_assert_eq(heft_body_set_mass(world, a, 1.0, heft_mat3_diag(1e200, 1e200, 1e-100)),
                 HEFT_ERROR_INVALID_ARGUMENT);
    assert_refused_for("HEFT_INERTIA");
    cr_assert_eq(heft_body_set_mass(world, a, 1.0, heft_mat3_diag(1.0, 1.0, 1e-14)),
                 HEFT_ERROR_INVALID_ARGUMENT);
    assert_refused_for("HEFT_INERTIA_CONDITION_MAX");
    /* a thin rod (radius 1 mm, 10 m long) is well inside the condition limit */
    bd = heft_default_body_def();
    bd.inertia = heft_inertia_cylinder(1.0, 1e-3, 5.0);
    heft_body_id rod = heft_create_body(world, &bd);
    cr_assert_geq(rod.index, 0, "%s", heft_last_error());
}

Test(bad_input, forces_that_would_overflow_are_refused) {
    /* 1e300 N at a 1e300 m lever: the point is refused as out of range */
    cr_assert_eq(heft_body_apply_force(world, a, heft_v3(1e300, 0, 0), heft_v3(0, 1e300, 0)),
                 HEFT_ERROR_INVALID_ARGUMENT);
    assert_refused_for("HEFT_FORCE_MAX");
    cr_assert_eq(heft_body_apply_force(world, a, heft_v3(1, 0, 0), heft_v3(0, 1e300, 0)),
                 HEFT_ERROR_INVALID_ARGUMENT);
    assert_refused_for("HEFT_POSITION_MAX");
    cr_assert_eq(heft_body_apply_torque(world, a, heft_v3(0, 0, 1e300)),
                 HEFT_ERROR_INVALID_ARGUMENT);
    assert_refused_for("HEFT_TORQUE_MAX");
    /* each force in range, their sum not: the second is refused, the first kept */
    cr_assert_eq(heft_body_apply_force(world, a, heft_v3(9e17, 0, 0), heft_v3(0, 0, 1)), HEFT_OK);
    world_snapshot_take(world, &before);
    cr_assert_eq(heft_body_apply_force(world, a, heft_v3(9e17, 0, 0), heft_v3(0, 0, 1)),
                 HEFT_ERROR_INVALID_ARGUMENT);
    assert_refused_for("accumulated force");
    heft_body_state s;
    cr_assert_eq(heft_body_get_state(world, a, &s), HEFT_OK);
    cr_assert_eq(s.force.x, 9e17);
}

Test(bad_input, huge_quaternions_are_refused_as_huge_not_as_zero) {
    heft_quat huge[2] = {heft_q(1e200, 1e200, 0, 0), heft_q(1e300, 0, 0, 0)};
    for (int k = 0; k < 2; ++k) {
        heft_body_def bd = heft_default_body_def();
        bd.orientation = huge[k];
        cr_assert_lt(heft_create_body(world, &bd).index, 0);
        assert_refused_for("HEFT_QUAT_NORM_MAX");
        cr_assert_null(strstr(heft_last_error(), "zero length"));
        cr_assert_eq(heft_body_set_transform(world, a, heft_v3(0, 0, 0), huge[k]),
                     HEFT_ERROR_INVALID_ARGUMENT);
        assert_refused_for("HEFT_QUAT_NORM_MAX");
        heft_shape_def sd = heft_default_shape_def();
        sd.local_orientation = huge[k];
        cr_assert_lt(heft_create_shape(world, a, &sd).index, 0);
        assert_refused_for("HEFT_QUAT_NORM_MAX");
    }
    heft_body_def bd = heft_default_body_def();
    bd.orientation = heft_q(1e-12, 0, 0, 0);
    cr_assert_lt(heft_create_body(world, &bd).index, 0);
    assert_refused_for("zero length");
}

Test(bad_input, huge_shapes_are_refused_as_huge) {
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(1e300, 1e300, 1e300);
    cr_assert_lt(heft_create_shape(world, a, &sd).index, 0);
    assert_refused_for("HEFT_SHAPE_SIZE_MAX");
    cr_assert_null(strstr(heft_last_error(), "collinear"));
    sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_CYLINDER;
    sd.radius = 1e300;
    sd.half_length = 1.0;
    cr_assert_lt(heft_create_shape(world, a, &sd).index, 0);
    assert_refused_for("HEFT_SHAPE_SIZE_MAX");
    heft_vec3 points[4] = {{0, 0, 0}, {1e300, 0, 0}, {0, 1e300, 0}, {0, 0, 1e300}};
    sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_HULL;
    sd.hull.points = points;
    sd.hull.count = 4;
    cr_assert_lt(heft_create_shape(world, a, &sd).index, 0);
    assert_refused_for("HEFT_SHAPE_SIZE_MAX");
}

Test(bad_input, shape_mass_that_overflows_is_refused) {
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.density = 1e308;
    double m = -1.0;
    cr_assert_eq(heft_shape_def_mass(&sd, &m, NULL, NULL), HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(m, -1.0, "nothing written on a refusal");
    cr_assert_not_null(strstr(heft_last_error(), "HEFT_MASS_MAX"), "%s", heft_last_error());
    sd.density = 1000.0;
    cr_assert_eq(heft_shape_def_mass(&sd, &m, NULL, NULL), HEFT_OK);
    cr_assert_float_eq(m, 1000.0, 1e-9);
}

Test(bad_input, time_steps_below_the_minimum_are_refused) {
    double tiny[] = {1e-300, 4.9e-324, 1e-7, 2.0};
    for (size_t k = 0; k < sizeof tiny / sizeof tiny[0]; ++k) {
        cr_assert_eq(heft_world_step(world, tiny[k]), HEFT_ERROR_INVALID_ARGUMENT);
        assert_refused_for("HEFT_STEP_MIN");
    }
    /* the limit holds per substep */
    cr_assert_eq(heft_world_set_substeps(world, 1000), HEFT_OK);
    world_snapshot_take(world, &before);
    cr_assert_eq(heft_world_step(world, 1e-4), HEFT_ERROR_INVALID_ARGUMENT);
    assert_refused_for("substep");
    cr_assert_eq(heft_world_step(world, 1.0 / 60.0), HEFT_OK);
}

Test(bad_input, invalid_ids_and_null_outs_have_messages) {
    heft_body_def bd = heft_default_body_def();
    heft_body_id c = heft_create_body(world, &bd);
    cr_assert_eq(heft_destroy_body(world, c), HEFT_OK);
    world_snapshot_take(world, &before);
    cr_assert_eq(heft_destroy_body(world, c), HEFT_ERROR_INVALID_ID);
    assert_refused_for("not valid");
    cr_assert_eq(heft_body_set_linear_velocity(world, c, heft_v3(1, 0, 0)), HEFT_ERROR_INVALID_ID);
    assert_refused_for("heft_body_set_linear_velocity");
    cr_assert_eq(heft_body_get_state(world, a, NULL), HEFT_ERROR_INVALID_ARGUMENT);
    assert_refused_for("NULL");
    cr_assert_eq(heft_body_apply_force(NULL, a, heft_v3(0, 0, 0), heft_v3(0, 0, 0)),
                 HEFT_ERROR_INVALID_ARGUMENT);
    assert_refused_for("world is NULL");
}
