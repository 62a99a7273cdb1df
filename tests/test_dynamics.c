/* Free motion and the simplest constrained motion against closed forms. */
#include <criterion/criterion.h>

#include "heft.h"
#include "runner.h"

Test(dynamics, free_fall_matches_semi_implicit_euler_closed_form) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(1.0, -2.0, 100.0);
    bd.linear_velocity = heft_v3(0.5, 0.25, 3.0);
    heft_body_id b = heft_create_body(w, &bd);
    const double h = 1.0 / 60.0, g = -9.81;
    const int n = 240;
    for (int i = 0; i < n; ++i) {
        cr_assert_eq(heft_world_step(w, h), HEFT_OK);
    }
    /* v_n = v0 + n h g;  x_n = x0 + n h v0 + h^2 g n (n + 1) / 2 */
    heft_vec3 p = heft_body_position(w, b), v = heft_body_linear_velocity(w, b);
    double z = 100.0 + n * h * 3.0 + h * h * g * n * (n + 1) / 2.0;
    cr_assert_float_eq(v.z, 3.0 + n * h * g, 1e-12);
    cr_assert_float_eq(p.z, z, 1e-12, "z %.17g expected %.17g", p.z, z);
    cr_assert_float_eq(p.x, 1.0 + n * h * 0.5, 1e-12);
    cr_assert_float_eq(p.y, -2.0 + n * h * 0.25, 1e-12);
    heft_world_destroy(w);
}

Test(dynamics, pendulum_small_angle_period_within_two_percent) {
    run_config cfg = {0};
    cfg.scenario = "pendulum";
    cfg.steps = 1200; /* 20 s, about ten periods */
    run_result r;
    cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
    double err = -1.0;
    for (int i = 0; i < r.check_count; ++i) {
        if (!strcmp(r.checks[i].name, "period_relative_error")) {
            err = r.checks[i].value;
        }
    }
    cr_assert(err >= 0.0 && err < 0.02, "period error %g", err);
    run_result_free(&r);
}

typedef struct torque_free_run {
    double momentum_drift; /* max | |L| - |L0| | / |L0| */
    double energy_drift;   /* max |E - E0| / E0 */
    int flipped;           /* the spin about the intermediate axis reversed (Dzhanibekov) */
} torque_free_run;

static torque_free_run torque_free(heft_gyroscopic mode) {
    heft_world_def wd = heft_default_world_def();
    wd.gravity = heft_v3(0.0, 0.0, 0.0);
    wd.gyroscopic = mode;
    heft_world *w = heft_world_create(&wd);
    heft_body_def bd = heft_default_body_def();
    bd.mass = 2.0;
    /* asymmetric, and not diagonal in the body frame */
    bd.inertia = heft_mat3_diag(1.0, 2.0, 3.0);
    bd.inertia.m[0][1] = bd.inertia.m[1][0] = 0.2;
    bd.angular_velocity = heft_v3(0.3, 4.0, 0.2); /* near the unstable intermediate axis */
    heft_body_id b = heft_create_body(w, &bd);
    torque_free_run r = {0.0, 0.0, 0};
    double L0 = heft_v3_length(heft_body_angular_momentum(w, b));
    double E0 = 0.5 * heft_v3_dot(heft_body_angular_momentum(w, b), bd.angular_velocity);
    for (int i = 0; i < 600; ++i) {
        heft_world_step(w, 1.0 / 60.0);
        heft_vec3 L = heft_body_angular_momentum(w, b), omega = heft_body_angular_velocity(w, b);
        r.momentum_drift = fmax(r.momentum_drift, fabs(heft_v3_length(L) - L0) / L0);
        r.energy_drift = fmax(r.energy_drift, fabs(0.5 * heft_v3_dot(L, omega) - E0) / E0);
        heft_vec3 body_omega = heft_quat_rotate_inv(heft_body_orientation(w, b), omega);
        r.flipped |= body_omega.y < 0.0;
    }
    heft_world_destroy(w);
    return r;
}

Test(dynamics, torque_free_asymmetric_body_keeps_angular_momentum_within_one_percent) {
    torque_free_run implicit = torque_free(HEFT_GYROSCOPIC_IMPLICIT);
    cr_log_info("implicit midpoint: |L| drift %.3e, energy drift %.3e", implicit.momentum_drift,
                implicit.energy_drift);
    cr_assert_lt(implicit.momentum_drift, 0.01, "|L| drifted by %g", implicit.momentum_drift);
    cr_assert_lt(implicit.energy_drift, 1e-9, "energy drifted by %g", implicit.energy_drift);
    /* and it tumbles as a free asymmetric body must (no gyroscopic term: it would not) */
    cr_assert(implicit.flipped, "the spin about the intermediate axis never reversed");
    cr_assert(!torque_free(HEFT_GYROSCOPIC_NONE).flipped);
    /* the explicit gyroscopic step does drift: the test can tell the difference */
    cr_assert_gt(torque_free(HEFT_GYROSCOPIC_EXPLICIT).momentum_drift, 0.05);
}
