/* Tests of the "cr" solver (solver/cr.c; paper 002 §3, Algorithms 1-3):
 * the MLCP answer on problems without friction coupling, the friction cone
 * on a slope, and the PCG family switched at run time in the engine. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>

#include "heft.h"
#include "heft_math.h"
#include "planted.h"

#define PI 3.14159265358979323846

static double max_abs(const double *x, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i)
        m = fmax(m, fabs(x[i]));
    return m;
}

/* Planted contact problems with every friction row turned into a plain box
 * at its planted bounds (no friction coupling): cr's active set must end on
 * bpp's answer. */
Test(cr, matches_bpp_without_friction_coupling) {
    const int sizes[3] = {10, 40, 120};
    for (int k = 0; k < 3; ++k)
        for (int seed = 1; seed <= 4; ++seed) {
            planted_problem pp = planted_structured(sizes[k], 0.02, 0, (uint64_t)seed);
            heft_mlcp *p = pp.p;
            const int n = p->n;
            for (int i = 0; i < n; ++i) {
                if (p->findex[i] < 0)
                    continue;
                double lo, hi;
                heft_mlcp_bounds(p, pp.solution, i, &lo, &hi);
                p->lo[i] = lo;
                p->hi[i] = hi;
                p->findex[i] = -1;
            }
            double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
            heft_solver_stats sa, sb;
            cr_assert_eq(heft_solve("bpp", NULL, p, a, &sa), HEFT_SOLVE_OK);
            const int rc = heft_solve("cr", NULL, p, b, &sb);
            const double diff = planted_max_diff(a, b, n) / (1.0 + max_abs(a, n));
            cr_log_info("n %d seed %d: cr %d iterations, %d restarts, error %.1e J, "
                        "|cr - bpp| %.1e",
                        n, seed, sb.iterations, sb.inner_iterations, sb.error_max, diff);
            cr_assert_eq(rc, HEFT_SOLVE_OK, "n %d seed %d", n, seed);
            cr_assert_lt(diff, 1e-6, "n %d seed %d: %.3e", n, seed, diff);
            cr_assert_lt(sb.error_max, 1e-8);
            free(a);
            free(b);
            planted_free(&pp);
        }
}

Test(cr, refuses_a_problem_without_the_structured_form) {
    planted_problem pp = planted_dense(10, 0.02, 1);
    double lambda[10];
    cr_assert_eq(heft_solve("cr", NULL, pp.p, lambda, NULL), HEFT_SOLVE_FAILED);
    planted_free(&pp);
}

/* ---- a box sliding down a slope ---------------------------------------------------- */

/* A plane tilted 40 degrees from horizontal, its downhill direction at 45
 * degrees between the x and y axes; mu = 0.5 < tan 40, so a box put on it
 * slides. The contact's tangent basis (heft_v3_basis) is not aligned with
 * the downhill direction, so a friction box (pyramid) pulls the box off the
 * line of steepest descent; the cone does not. Returns the angle, degrees,
 * between the box's velocity after 1 s and the steepest descent. */
static double slide_angle(const char *solver, int sphere, double mu, double *speed) {
    heft_world_def wd = heft_default_world_def();
    wd.solver = solver;
    heft_world *w = heft_world_create(&wd);
    cr_assert_not_null(w);
    const double tilt = 40.0 * PI / 180.0, azimuth = 45.0 * PI / 180.0;
    const heft_vec3 n = heft_v3(sin(tilt) * cos(azimuth), sin(tilt) * sin(azimuth), cos(tilt));
    heft_body_def ground = heft_default_body_def();
    ground.type = HEFT_BODY_STATIC;
    const heft_body_id g = heft_create_body(w, &ground);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    plane.normal = n;
    plane.offset = 0.0;
    plane.friction = mu;
    heft_create_shape(w, g, &plane);

    /* the box's z axis along n: rotation about z x n by the tilt */
    heft_body_def bd = heft_default_body_def();
    const heft_vec3 axis = heft_v3_normalize(heft_v3_cross(heft_v3(0, 0, 1), n));
    bd.orientation = heft_q(cos(0.5 * tilt), sin(0.5 * tilt) * axis.x, sin(0.5 * tilt) * axis.y,
                            sin(0.5 * tilt) * axis.z);
    bd.position = heft_v3_scale(n, 0.25);
    bd.mass = 1.0;
    bd.inertia = heft_inertia_box(1.0, heft_v3(0.25, 0.25, 0.25));
    const heft_body_id box = heft_create_body(w, &bd);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = sphere ? HEFT_SHAPE_SPHERE : HEFT_SHAPE_BOX;
    sd.radius = 0.25;
    sd.half_extents = heft_v3(0.25, 0.25, 0.25);
    sd.friction = mu;
    heft_create_shape(w, box, &sd);

    for (int step = 0; step < 60; ++step)
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
    const heft_vec3 v = heft_body_linear_velocity(w, box);
    /* steepest descent: -z projected on the plane */
    const heft_vec3 down =
        heft_v3_normalize(heft_v3_sub(heft_v3(0, 0, -1), heft_v3_scale(n, -n.z)));
    *speed = heft_v3_length(v);
    const double c = heft_v3_dot(v, down) / *speed;
    heft_world_destroy(w);
    return acos(c > 1.0 ? 1.0 : c) * 180.0 / PI;
}

/* A sphere (one contact point) with mu = 0.1 slips while it rolls: the
 * contact slides along the steepest descent with the cone, and the centre
 * accelerates at g (sin 40 - mu cos 40). A box on the same slope is not
 * tested: its four contact points make J singular and cr does not converge
 * on it (docs/pcg.md "Weaknesses"). */
Test(cr, sliding_sphere_follows_the_steepest_descent_on_a_tilted_slope) {
    const double mu = 0.1;
    double speed_bpp, speed_cr;
    const double bpp = slide_angle("bpp", 1, mu, &speed_bpp);
    const double cone = slide_angle("cr", 1, mu, &speed_cr);
    const double tilt = 40.0 * PI / 180.0;
    const double expected = 9.81 * (sin(tilt) - mu * cos(tilt)) * 1.0;
    cr_log_info("sphere, mu %.1f, after 1 s: bpp (box friction) %.2f degrees off the steepest "
                "descent at %.3f m/s; cr (cone) %.4f degrees at %.3f m/s; the cone's %.3f m/s",
                mu, bpp, speed_bpp, cone, speed_cr, expected);
    cr_assert_gt(bpp, 1.0, "the pyramid should bias the direction: %.3f degrees", bpp);
    cr_assert_lt(cone, 0.05, "cr slid %.3f degrees off the steepest descent", cone);
    cr_assert_float_eq(speed_cr, expected, 0.01 * expected);
}

/* ---- the engine, solvers switched at run time -------------------------------------- */

/* Three spheres resting on the ground, the solver switched every second
 * (heft_world_set_solver): each must keep them where they are. */
Test(pcg_family, solvers_switch_at_run_time_in_the_engine) {
    heft_world_def wd = heft_default_world_def();
    heft_world *w = heft_world_create(&wd);
    heft_body_def ground = heft_default_body_def();
    ground.type = HEFT_BODY_STATIC;
    const heft_body_id g = heft_create_body(w, &ground);
    heft_shape_def plane = heft_default_shape_def();
    plane.type = HEFT_SHAPE_PLANE;
    heft_create_shape(w, g, &plane);
    heft_body_id balls[3];
    for (int k = 0; k < 3; ++k) {
        heft_body_def bd = heft_default_body_def();
        bd.position = heft_v3(0.5 * k, 0.0, 0.25);
        bd.inertia = heft_inertia_sphere(1.0, 0.25);
        balls[k] = heft_create_body(w, &bd);
        heft_shape_def sd = heft_default_shape_def();
        sd.radius = 0.25;
        heft_create_shape(w, balls[k], &sd);
    }
    const char *names[5] = {"bpp", "bpp-pcg", "pgcg", "cr", "bpp-pcg"};
    for (int s = 0; s < 5; ++s) {
        cr_assert_eq(heft_world_set_solver(w, names[s]), HEFT_OK, "%s", names[s]);
        for (int step = 0; step < 60; ++step)
            cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK);
        for (int k = 0; k < 3; ++k) {
            const heft_vec3 x = heft_body_position(w, balls[k]);
            cr_assert_float_eq(x.z, 0.25, 2e-3, "%s: ball %d at z %.5f", names[s], k, x.z);
            cr_assert_lt(fabs(x.x - 0.5 * k) + fabs(x.y), 1e-3, "%s: ball %d moved", names[s], k);
        }
    }
    cr_assert_eq(heft_world_set_solver(w, "no-such-solver"), HEFT_ERROR_UNKNOWN_SOLVER);
    heft_world_destroy(w);
}
