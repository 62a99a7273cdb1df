/* Limits: one-sided rows written only near their bounds (design "The MLCP of
 * an island"), with warm starts carried by slot when rows come and go; ropes. */
#include <stdlib.h>

#include "counting_allocator.h"
#include "joint_scene.h"

/* a 2 kg, 1 m arm hinged at the origin about world y, lying along +x: gravity
 * turns it toward positive angles */
static heft_joint_id arm(heft_world *w, heft_body_id *body, double lower, double upper,
                         double spin) {
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0.5, 0.0, 0.0);
    bd.mass = 2.0;
    bd.inertia = heft_inertia_box(2.0, heft_v3(0.5, 0.05, 0.05));
    bd.angular_velocity = heft_v3(0.0, spin, 0.0);
    bd.linear_velocity = heft_v3(0.0, 0.0, -0.5 * spin);
    *body = heft_create_body(w, &bd);
    heft_joint_def d = scene_joint_def(w, HEFT_JOINT_HINGE, HEFT_WORLD_FRAME, *body,
                                       heft_v3(0, 0, 0), heft_v3(0, 1, 0));
    heft_joint_limit l = {1, lower, upper, 0.0, 0.0};
    d.limit[HEFT_DOF_RX] = l;
    return scene_create(w, &d);
}

Test(joint_limits, a_limited_hinge_stops_at_its_upper_limit_pushed_back) {
    heft_world *w = scene_world(NULL);
    heft_body_id b;
    heft_joint_id j = arm(w, &b, -0.5, 0.5, 4.0); /* thrown at 4 rad/s toward the limit */
    double worst = -1.0;
    for (int i = 0; i < 180; ++i) {
        heft_world_step(w, STEP);
        worst = fmax(worst, heft_joint_coordinate(w, j, HEFT_DOF_RX) - 0.5);
    }
    double angle = heft_joint_coordinate(w, j, HEFT_DOF_RX);
    double push = heft_joint_limit_force(w, j, HEFT_DOF_RX);
    cr_log_info("hinge limit: final angle - limit %.3e rad, largest overshoot %.3e rad (%.4f deg), "
                "limit torque %.6f N m",
                angle - 0.5, worst, worst * 180.0 / HEFT_PI, push);
    cr_assert_lt(fabs(angle - 0.5), HEFT_PI / 180.0, "rests at %g rad, limit 0.5", angle);
    cr_assert_lt(worst, HEFT_PI / 180.0, "overshot the limit by %g rad", worst);
    /* the limit pushes the angle down, and holds the weight's moment 2 g 0.5 cos 0.5 */
    cr_assert_lt(push, 0.0);
    cr_assert_float_eq(push, -2.0 * 9.81 * 0.5 * cos(0.5), 1e-3, "limit torque %g", push);
    /* the same as a world vector: the limit row's torque on the arm is about -y */
    int found = 0;
    for (int i = 0; i < heft_joint_row_count(w, j); ++i) {
        heft_joint_row_info info;
        cr_assert_eq(heft_joint_get_row_info(w, j, i, &info), HEFT_OK);
        if (info.role == HEFT_JOINT_ROW_LIMIT_UPPER) {
            found = 1;
            cr_assert_gt(info.impulse, 0.0, "a limit row only pushes");
            cr_assert_float_eq(info.torque_b.y, push, 1e-9);
            cr_assert_eq(info.dof, HEFT_DOF_RX);
        }
        cr_assert_neq(info.role, HEFT_JOINT_ROW_LIMIT_LOWER, "the lower limit is far: no row");
    }
    cr_assert(found, "no upper limit row while resting on the limit");
    heft_world_destroy(w);
}

Test(joint_limits, a_limited_hinge_stops_at_its_lower_limit_pushed_up) {
    heft_world *w = scene_world(NULL);
    heft_body_id b;
    heft_joint_id j = arm(w, &b, -0.3, 1.0, -6.0); /* thrown up, against gravity, past -0.3 */
    double worst = -1.0;
    for (int i = 0; i < 10; ++i) {
        heft_world_step(w, STEP);
        worst = fmax(worst, -0.3 - heft_joint_coordinate(w, j, HEFT_DOF_RX));
        if (heft_joint_coordinate(w, j, HEFT_DOF_RX) < -0.25) {
            cr_assert_geq(heft_joint_limit_force(w, j, HEFT_DOF_RX), 0.0);
        }
    }
    cr_assert_lt(worst, HEFT_PI / 180.0, "overshot the lower limit by %g rad", worst);
    heft_world_destroy(w);
}

Test(joint_limits, a_soft_limit_is_a_spring_past_its_bound) {
    heft_world *w = scene_world(NULL);
    heft_body_id b;
    heft_joint_id j = arm(w, &b, -0.5, 0.0, 0.0); /* gravity pushes it past 0 */
    heft_joint_limit soft = {1, -0.5, 0.0, 200.0, 40.0};
    cr_assert_eq(heft_joint_set_limit(w, j, HEFT_DOF_RX, &soft), HEFT_OK);
    for (int i = 0; i < 600; ++i) {
        heft_world_step(w, STEP);
    }
    /* 200 N m/rad against the weight's moment 2 g 0.5 cos(theta) */
    double angle = heft_joint_coordinate(w, j, HEFT_DOF_RX);
    cr_assert_float_eq(200.0 * angle, 9.81 * cos(angle), 1e-3, "angle %g", angle);
    heft_world_destroy(w);
}

/* warm starts: capture each island's MLCP */
typedef struct capture {
    int n;
    uint8_t kind[32];
    double lambda0[32], lambda[32];
} capture;

static void on_island(void *user, int island, const heft_mlcp *p, const double *lambda,
                      const heft_solver_stats *stats) {
    (void)island;
    (void)stats;
    capture *c = user;
    c->n = p->n;
    for (int i = 0; i < p->n && i < 32; ++i) {
        c->kind[i] = p->kind[i];
        c->lambda0[i] = p->lambda0[i];
        c->lambda[i] = lambda[i];
    }
}

static int find_kind(const capture *c, int kind) {
    for (int i = 0; i < c->n; ++i) {
        if (c->kind[i] == kind) {
            return i;
        }
    }
    return -1;
}

Test(joint_limits, warm_starts_follow_their_rows_when_limit_rows_come_and_go) {
    heft_world *w = scene_world(NULL);
    heft_body_id b;
    heft_joint_id j = arm(w, &b, -0.5, 0.3, 0.0);
    heft_joint_motor m = {
        HEFT_MOTOR_VELOCITY, 0.5, 0.0, 5.0, 0.0, 0.0}; /* 5 N m: too weak to lift */
    cr_assert_eq(heft_joint_set_motor(w, j, HEFT_DOF_RX, &m), HEFT_OK);
    capture now = {0}, before = {0};
    heft_world_set_island_callback(w, on_island, &now);
    int appeared = 0, kept = 0;
    for (int i = 0; i < 120; ++i) {
        before = now;
        heft_world_step(w, STEP);
        if (i == 0) {
            continue;
        }
        int lim = find_kind(&now, HEFT_ROW_LIMIT), mot = find_kind(&now, HEFT_ROW_MOTOR);
        int lim0 = find_kind(&before, HEFT_ROW_LIMIT), mot0 = find_kind(&before, HEFT_ROW_MOTOR);
        cr_assert(mot >= 0 && mot0 >= 0);
        /* the motor's warm start is its own last impulse, wherever its row moved */
        cr_assert_eq(now.lambda0[mot], before.lambda[mot0], "step %d: motor warm start %g, last %g",
                     i, now.lambda0[mot], before.lambda[mot0]);
        if (lim >= 0 && lim0 < 0) {
            appeared++;
            cr_assert_eq(now.lambda0[lim], 0.0, "a new limit row starts cold");
            cr_assert_neq(mot, mot0, "the motor row moved when the limit row came");
        }
        if (lim >= 0 && lim0 >= 0) {
            kept++;
            cr_assert_eq(now.lambda0[lim], before.lambda[lim0]);
        }
        for (int k = 0; k < 5; ++k) {
            cr_assert_eq(now.lambda0[k], before.lambda[k],
                         "anchor and axis rows keep their warm starts");
        }
    }
    cr_assert_eq(appeared, 1);
    cr_assert_gt(kept, 60);
    heft_world_destroy(w);
}

Test(joint_limits, a_prismatic_limit_holds_a_load_on_its_lower_bound) {
    heft_world *w = scene_world(NULL);
    heft_body_id load = scene_body(w, heft_v3(0, 0, 2.0), 500.0, heft_mat3_zero());
    heft_joint_def d = scene_joint_def(w, HEFT_JOINT_PRISMATIC, HEFT_WORLD_FRAME, load,
                                       heft_v3(0, 0, 2.0), heft_v3(0, 0, 1));
    heft_joint_limit l = {1, -0.3, 0.5, 0.0, 0.0};
    d.limit[HEFT_DOF_X] = l;
    heft_joint_id j = scene_create(w, &d);
    for (int i = 0; i < 120; ++i) {
        heft_world_step(w, STEP);
    }
    cr_assert_float_eq(heft_joint_coordinate(w, j, HEFT_DOF_X), -0.3, 1e-4);
    cr_assert_float_eq(heft_joint_limit_force(w, j, HEFT_DOF_X), 500.0 * 9.81, 1e-3);
    heft_world_destroy(w);
}

Test(joint_limits, a_ball_joint_keeps_its_swing_in_the_cone_and_its_twist_in_range) {
    heft_world *w = scene_world(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0.0, 0.0, -1.0);
    bd.linear_velocity = heft_v3(3.0, 1.0, 0.0);  /* swings hard sideways */
    bd.angular_velocity = heft_v3(0.0, 0.0, 4.0); /* and twists about its hanging axis */
    bd.inertia = heft_inertia_box(1.0, heft_v3(0.1, 0.1, 0.1));
    heft_body_id bob = heft_create_body(w, &bd);
    heft_joint_def d = scene_joint_def(w, HEFT_JOINT_BALL, HEFT_WORLD_FRAME, bob, heft_v3(0, 0, 0),
                                       heft_v3(0, 0, -1));
    heft_joint_limit cone = {1, 0.0, 0.4, 0.0, 0.0}, twist = {1, -0.2, 0.2, 0.0, 0.0};
    d.limit[HEFT_DOF_SWING] = cone;
    d.limit[HEFT_DOF_RX] = twist;
    heft_joint_id j = scene_create(w, &d);
    double swing = 0.0, twist_worst = 0.0;
    for (int i = 0; i < 300; ++i) {
        heft_world_step(w, STEP);
        swing = fmax(swing, heft_joint_coordinate(w, j, HEFT_DOF_SWING));
        twist_worst = fmax(twist_worst, fabs(heft_joint_coordinate(w, j, HEFT_DOF_RX)));
    }
    cr_log_info("ball limits: largest swing %.5f (cone 0.4), largest |twist| %.5f (0.2)", swing,
                twist_worst);
    cr_assert_lt(swing, 0.4 + HEFT_PI / 180.0);
    cr_assert_gt(swing, 0.39, "the bob should have reached the cone");
    cr_assert_lt(twist_worst, 0.2 + HEFT_PI / 180.0);
    cr_assert_lt(heft_joint_gap(w, j), 1e-3);
    heft_world_destroy(w);
}

Test(joint_limits, a_six_dof_limited_angle_stops_a_motor) {
    heft_world *w = scene_world(NULL);
    heft_body_id b = scene_body(w, heft_v3(0, 0, 1), 1.0, heft_mat3_zero());
    heft_joint_def d = scene_joint_def(w, HEFT_JOINT_SIX_DOF, HEFT_WORLD_FRAME, b, heft_v3(0, 0, 1),
                                       heft_v3(0, 0, 1));
    d.dof_mode[HEFT_DOF_RY] = HEFT_DOF_LIMITED;
    d.limit[HEFT_DOF_RY].lower = -0.2;
    d.limit[HEFT_DOF_RY].upper = 0.2;
    heft_joint_motor m = {HEFT_MOTOR_VELOCITY, 3.0, 0.0, 10.0, 0.0, 0.0};
    d.motor[HEFT_DOF_RY] = m;
    heft_joint_id j = scene_create(w, &d);
    for (int i = 0; i < 60; ++i) {
        heft_world_step(w, STEP);
    }
    cr_assert_float_eq(heft_joint_coordinate(w, j, HEFT_DOF_RY), 0.2, HEFT_PI / 180.0);
    cr_assert_float_eq(heft_joint_limit_force(w, j, HEFT_DOF_RY), -10.0, 1e-6,
                       "the limit takes the motor's 10 N m");
    cr_assert_float_eq(heft_joint_motor_force(w, j, HEFT_DOF_RY), 10.0, 1e-9);
    heft_world_destroy(w);
}

/* ropes: a 50 kg load on a 2 m rope from a fixed point, starting 1 m below it */
Test(joint_limits, a_rope_is_slack_then_taut_then_slack_again) {
    heft_world *w = scene_world(NULL);
    heft_body_id load = scene_body(w, heft_v3(0.0, 0.0, 9.0), 50.0, heft_mat3_zero());
    heft_joint_def d = heft_default_joint_def(HEFT_JOINT_ROPE);
    d.body_b = load;
    d.local_anchor_a = heft_v3(0.0, 0.0, 10.0);
    d.length = 2.0;
    heft_joint_id j = scene_create(w, &d);
    int slack_steps = 0;
    for (int i = 0; i < 30; ++i) { /* free fall of 1 m takes 0.45 s = 27 steps */
        heft_world_step(w, STEP);
        double z = heft_body_position(w, load).z;
        if (z > 8.0 + 0.02) {
            slack_steps++;
            heft_vec3 f;
            heft_joint_reaction(w, j, &f, NULL);
            cr_assert_eq(heft_v3_length(f), 0.0, "a slack rope pulls nothing (step %d, z %g)", i,
                         z);
        }
    }
    cr_assert_gt(slack_steps, 20);
    /* free fall was free: the speed after falling is g t */
    double longest = 0.0;
    for (int i = 0; i < 180; ++i) {
        heft_world_step(w, STEP);
        longest = fmax(longest, heft_joint_coordinate(w, j, HEFT_DOF_X));
    }
    heft_vec3 f;
    heft_joint_reaction(w, j, &f, NULL);
    cr_log_info("rope: longest %.6f m (length 2), holding force %.6f N", longest, f.z);
    cr_assert_lt(longest - 2.0, 1e-3, "the rope stretched to %g m", longest);
    cr_assert_float_eq(f.z, 50.0 * 9.81, 1e-3, "a taut rope holds the load: %g N", f.z);
    cr_assert_lt(heft_joint_gap(w, j), 1e-3);
    /* thrown up: slack again, no impulse */
    heft_body_set_linear_velocity(w, load, heft_v3(0.0, 0.0, 4.0));
    int slack_again = 0;
    for (int i = 0; i < 20; ++i) {
        double z = heft_body_position(w, load).z; /* where the step's rows were written */
        heft_world_step(w, STEP);
        if (z > 8.05) {
            slack_again++;
            cr_assert_eq(heft_joint_row_count(w, j), 0, "slack rope with a row at z %g", z);
            cr_assert_eq(heft_joint_row_impulse(w, j, 0), 0.0);
        }
    }
    cr_assert_gt(slack_again, 10);
    cr_assert_gt(heft_body_position(w, load).z, 8.5);
    heft_world_destroy(w);
}

/* no allocation after warm-up with limits and motors that come and go */

static void machine_steps_allocate_nothing(const char *solver) {
    counting_allocator_install();
    heft_world *w = scene_world(solver);
    heft_body_id b1, b2;
    heft_joint_id hinge = arm(w, &b1, -0.4, 0.4, 0.0);
    heft_joint_motor m = {HEFT_MOTOR_VELOCITY, 0.0, 0.0, 30.0, 0.0, 0.0};
    heft_joint_set_motor(w, hinge, HEFT_DOF_RX, &m);
    b2 = scene_body(w, heft_v3(3.0, 0.0, 0.0), 5.0, heft_mat3_zero());
    heft_joint_def rope = heft_default_joint_def(HEFT_JOINT_ROPE);
    rope.body_b = b2;
    rope.local_anchor_a = heft_v3(3.0, 0.0, 1.0);
    rope.length = 1.2;
    heft_joint_id r = scene_create(w, &rope);
    (void)r;
    /* the operator swings the arm from limit to limit; the rope stays taut
     * (a rope going slack leaves its load's island without rows, and the
     * engine then drops and later re-creates that island's solver state) */
    int changes = 0, last_rows = 0;
    for (int i = 0; i < 600; ++i) {
        if (i == 240) {
            counting_allocator_calls = 0; /* warmed up: two full cycles seen */
        }
        heft_joint_set_motor_velocity(w, hinge, HEFT_DOF_RX, (i / 60) % 2 ? 3.0 : -3.0);
        heft_world_step(w, STEP);
        changes += i >= 240 && heft_joint_row_count(w, hinge) != last_rows;
        last_rows = heft_joint_row_count(w, hinge);
    }
    long during = counting_allocator_calls;
    cr_assert_geq(changes, 10, "the limit rows should come and go (%d changes)", changes);
    heft_world_destroy(w);
    heft_set_allocator(NULL);
    cr_assert_eq(during, 0, "%s: %ld allocations in 360 steps after warm-up", solver, during);
}

Test(joint_limits, steps_with_limits_motors_and_ropes_allocate_nothing_after_warmup) {
    machine_steps_allocate_nothing("pgs");
    machine_steps_allocate_nothing("bpp");
}
