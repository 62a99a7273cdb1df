/* baraff ([Baraff 1996]): the O(n) solve of the KKT system against dense solves
 * on trees, loops by anticipation, contacts against bpp, the operation count
 * and time per body as chains grow, the engine's scenes, no allocation on
 * repeated solves, bad input, contacts alone solved on their rows. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baraff.h"
#include "mechanisms.h"
#include "counting_allocator.h"
#include "hard_family.h"
#include "planted.h"
#include "runner.h"
#include "testdata.h"

/* baraff's lambda and the dense solve's: relative difference */
static double baraff_vs_dense(heft_mlcp *p, heft_baraff_info *info, heft_solver_stats *st) {
    const heft_solver_vtable *vt = heft_solver_find("baraff");
    cr_assert_not_null(vt);
    cr_assert_eq(vt->direct, 1);
    const heft_solver_options o = heft_solver_default_options();
    void *state = vt->create(&o);
    double *lambda = malloc(sizeof(double) * (size_t)p->n),
           *ref = malloc(sizeof(double) * (size_t)p->n);
    cr_assert_eq(vt->solve(state, p, lambda, st), HEFT_SOLVE_OK);
    cr_assert_eq(st->fallback, 0);
    mech_dense_solve(p, ref);
    const double rel = mech_relative(lambda, ref, p->n);
    *info = heft_baraff_get_info(state);
    vt->destroy(state);
    free(lambda);
    free(ref);
    return rel;
}

Test(baraff, sparse_solve_equals_dense_kkt_solve_on_trees) {
    double worst = 0.0;
    heft_baraff_info info = {0};
    heft_solver_stats st;
    for (int t = 0; t < 20; ++t) {
        int nj;
        mech_joint *j = mech_random_tree(5 + 9 * t, 1, 6, 500 + (uint64_t)t, &nj);
        heft_mlcp *p = mech_build(5 + 9 * t, j, nj, 0, t % 2 ? 1e-7 : 0.0, 600 + (uint64_t)t);
        worst = fmax(worst, baraff_vs_dense(p, &info, &st));
        cr_assert_eq(info.auxiliary_rows, 0);
        cr_assert_eq(info.trees, 1);
        heft_mlcp_destroy(p);
        free(j);
    }
    cr_log_info("random trees (5..176 bodies, joints of 1..6 rows, with and without compliance): "
                "O(n) KKT solve vs dense, relative %.3g",
                worst);
    cr_assert(worst < 1e-10, "%g", worst);
}

Test(baraff, loops_by_anticipation_equal_the_dense_solve) {
    double worst = 0.0;
    heft_baraff_info info = {0};
    heft_solver_stats st;
    for (int t = 0; t < 6; ++t) {
        int nj;
        mech_joint *j = mech_chain(15 + 20 * t, 3 + t % 2, 2 + t % 4, &nj);
        heft_mlcp *p = mech_build(15 + 20 * t, j, nj, 0, t % 2 ? 1e-8 : 0.0, 700 + (uint64_t)t);
        worst = fmax(worst, baraff_vs_dense(p, &info, &st));
        cr_assert(info.loop_closures > 0);
        heft_mlcp_destroy(p);
        free(j);
    }
    /* a chain held by the world at both ends: the loop closes through the world */
    mech_joint both[12];
    for (int k = 0; k < 11; ++k)
        both[k] = (mech_joint){k - 1, k, 4};
    both[0] = (mech_joint){-1, 0, 4};
    both[11] = (mech_joint){10, -1, 3};
    heft_mlcp *p = mech_build(11, both, 12, 0, 0.0, 777);
    worst = fmax(worst, baraff_vs_dense(p, &info, &st));
    cr_assert_eq(info.loop_closures, 1);
    heft_mlcp_destroy(p);
    cr_log_info("chains with loops (and one closed through the world): vs dense, relative %.3g",
                worst);
    cr_assert(worst < 1e-10, "%g", worst);
}

Test(baraff, contacts_and_loops_match_bpp) {
    double worst = 0.0;
    for (int t = 0; t < 8; ++t) {
        int nj;
        mech_joint *j = t % 2 ? mech_chain(20 + 5 * t, 4, 4, &nj)
                              : mech_random_tree(20 + 5 * t, 2, 6, 800 + (uint64_t)t, &nj);
        heft_mlcp *p = mech_build(20 + 5 * t, j, nj, 3 + t, 1e-7, 900 + (uint64_t)t);
        const int n = p->n;
        double *lambda = malloc(sizeof(double) * (size_t)n),
               *ref = malloc(sizeof(double) * (size_t)n);
        heft_solver_stats sa, sb;
        cr_assert_eq(heft_solve("baraff", NULL, p, lambda, &sa), HEFT_SOLVE_OK);
        cr_assert_eq(heft_solve("bpp", NULL, p, ref, &sb), HEFT_SOLVE_OK);
        cr_assert_eq(sa.fallback, 0);
        worst = fmax(worst, mech_relative(lambda, ref, n));
        heft_mlcp_destroy(p);
        free(j);
        free(lambda);
        free(ref);
    }
    cr_log_info("trees and looped chains with 3..10 frictional contacts: baraff vs bpp, relative "
                "%.3g",
                worst);
    cr_assert(worst < 1e-9, "%g", worst);
}

/* ---- linear growth ---------------------------------------------------------------------- */

Test(baraff, operation_count_grows_linearly_with_the_chain) {
    const int sizes[4] = {100, 1000, 5000, 10000};
    double per_body[4];
    for (int k = 0; k < 4; ++k) {
        int nj;
        mech_joint *j = mech_chain(sizes[k], 5, 0, &nj);
        heft_mlcp *p = mech_build(sizes[k], j, nj, 0, 1e-9, 1000 + (uint64_t)k);
        const heft_solver_vtable *vt = heft_solver_find("baraff");
        const heft_solver_options o = heft_solver_default_options();
        void *state = vt->create(&o);
        double *lambda = malloc(sizeof(double) * (size_t)p->n);
        heft_solver_stats st;
        cr_assert_eq(vt->solve(state, p, lambda, &st), HEFT_SOLVE_OK);
        per_body[k] = heft_baraff_get_info(state).flops / sizes[k];
        vt->destroy(state);
        heft_mlcp_destroy(p);
        free(j);
        free(lambda);
    }
    cr_log_info("multiply-adds per body, chains of 100 / 1000 / 5000 / 10000: %.1f %.1f %.1f %.1f",
                per_body[0], per_body[1], per_body[2], per_body[3]);
    for (int k = 1; k < 4; ++k)
        cr_assert(fabs(per_body[k] / per_body[0] - 1.0) < 0.02, "%g vs %g", per_body[k],
                  per_body[0]);
}

Test(baraff, time_per_body_is_measured_on_chains) {
    const int sizes[7] = {10, 30, 100, 300, 1000, 3000, 10000};
    double lx[7], ly[7], us_per_body[7];
    for (int k = 0; k < 7; ++k) {
        int nj;
        mech_joint *j = mech_chain(sizes[k], 5, 0, &nj);
        heft_mlcp *p = mech_build(sizes[k], j, nj, 0, 1e-9, 1100 + (uint64_t)k);
        const heft_solver_vtable *vt = heft_solver_find("baraff");
        const heft_solver_options o = heft_solver_default_options();
        void *state = vt->create(&o);
        double *lambda = malloc(sizeof(double) * (size_t)p->n);
        heft_solver_stats st;
        vt->solve(state, p, lambda, &st); /* symbolic phase and workspace */
        const int reps = 20000 / sizes[k] + 3;
        double best = INFINITY;
        for (int r = 0; r < 5; ++r) {
            const double t0 = heft_time_ms();
            for (int q = 0; q < reps; ++q)
                vt->solve(state, p, lambda, &st);
            best = fmin(best, (heft_time_ms() - t0) / reps);
        }
        us_per_body[k] = best * 1000.0 / sizes[k];
        lx[k] = log((double)sizes[k]);
        ly[k] = log(best);
        vt->destroy(state);
        heft_mlcp_destroy(p);
        free(j);
        free(lambda);
    }
    double mx = 0, my = 0, sxy = 0, sxx = 0;
    for (int k = 2; k < 7; ++k) { /* 100..10,000 bodies */
        mx += lx[k] / 5;
        my += ly[k] / 5;
    }
    for (int k = 2; k < 7; ++k) {
        sxy += (lx[k] - mx) * (ly[k] - my);
        sxx += (lx[k] - mx) * (lx[k] - mx);
    }
    cr_log_info(
        "baraff, chains of 5-row joints: us per body at 10 / 30 / 100 / 300 / 1000 / 3000 / "
        "10000 bodies: %.3f %.3f %.3f %.3f %.3f %.3f %.3f; fitted exponent 100..10000: %.3f",
        us_per_body[0], us_per_body[1], us_per_body[2], us_per_body[3], us_per_body[4],
        us_per_body[5], us_per_body[6], sxy / sxx);
}

/* ---- allocation and bad input ---------------------------------------------------------- */

Test(baraff, repeated_solve_of_the_same_topology_makes_no_allocation) {
    int nj;
    mech_joint *j = mech_chain(30, 4, 6, &nj);
    heft_mlcp *p = mech_build(30, j, nj, 5, 1e-8, 1201);
    counting_allocator_install();
    const heft_solver_vtable *vt = heft_solver_find("baraff");
    const heft_solver_options o = heft_solver_default_options();
    void *state = vt->create(&o);
    double *lambda = malloc(sizeof(double) * (size_t)p->n);
    heft_solver_stats st;
    counting_allocator_calls = 0;
    cr_assert_eq(vt->solve(state, p, lambda, &st), HEFT_SOLVE_OK);
    cr_assert(counting_allocator_calls > 0, "the hook is not in use");
    counting_allocator_calls = 0;
    for (int step = 0; step < 3; ++step) {
        p->b[step] += 0.01;
        p->rows[3].ja[2] += 0.01;
        cr_assert_eq(vt->solve(state, p, lambda, &st), HEFT_SOLVE_OK);
    }
    cr_assert_eq(counting_allocator_calls, 0, "%d calls", counting_allocator_calls);
    cr_assert_eq(heft_baraff_get_info(state).symbolic_count, 1);
    vt->destroy(state);
    heft_set_allocator(NULL);
    heft_mlcp_destroy(p);
    free(j);
    free(lambda);
}

Test(baraff, bad_input_fails_cleanly_or_falls_back) {
    int nj;
    mech_joint *j = mech_chain(6, 3, 0, &nj);
    heft_mlcp *p = mech_build(6, j, nj, 2, 0.0, 1301);
    const int n = p->n;
    double *lambda = malloc(sizeof(double) * (size_t)n);
    heft_solver_stats st;
    p->rows[1].a = 7;
    cr_assert_eq(heft_solve("baraff", NULL, p, lambda, &st), HEFT_SOLVE_FAILED);
    p->rows[1].a = 0;
    p->b[2] = NAN;
    cr_assert_eq(heft_solve("baraff", NULL, p, lambda, &st), HEFT_SOLVE_FAILED);
    for (int i = 0; i < n; ++i)
        cr_assert(isfinite(lambda[i]));
    p->b[2] = 0.5;
    /* a body with no inverse mass but some inverse inertia: no M block; bpp */
    p->bodies[3].inv_mass = 0.0;
    const int rc = heft_solve("baraff", NULL, p, lambda, &st);
    cr_assert_neq(rc, HEFT_SOLVE_FAILED);
    cr_assert_eq(st.fallback, 1);
    p->bodies[3].inv_mass = 1.0;
    /* a repeated joint with no compliance: singular pivot, bpp says what it can */
    memcpy(&p->rows[1], &p->rows[0], sizeof p->rows[0]);
    heft_solve("baraff", NULL, p, lambda, &st);
    for (int i = 0; i < n; ++i)
        cr_assert(isfinite(lambda[i]));
    /* a static body (zero inverse mass and inertia) is part of the world */
    heft_mlcp *q = mech_build(6, j, nj, 2, 1e-8, 1302);
    q->bodies[2].inv_mass = 0.0;
    memset(q->bodies[2].inv_inertia, 0, sizeof q->bodies[2].inv_inertia);
    double *ref = malloc(sizeof(double) * (size_t)n);
    cr_assert_eq(heft_solve("baraff", NULL, q, lambda, &st), HEFT_SOLVE_OK);
    cr_assert_eq(st.fallback, 0);
    cr_assert_eq(heft_solve("bpp", NULL, q, ref, &st), HEFT_SOLVE_OK);
    cr_assert(mech_relative(lambda, ref, n) < 1e-9, "%g", mech_relative(lambda, ref, n));
    /* the dense form only: bpp, flagged */
    heft_mlcp *d = heft_mlcp_create(n, 0, HEFT_MLCP_DENSE);
    heft_mlcp_assemble_dense(q, d->A);
    for (int i = 0; i < n; ++i) {
        d->b[i] = q->b[i];
        d->lo[i] = q->lo[i];
        d->hi[i] = q->hi[i];
        d->findex[i] = q->findex[i];
    }
    cr_assert_eq(heft_solve("baraff", NULL, d, lambda, &st), HEFT_SOLVE_OK);
    cr_assert_eq(st.fallback, 1);
    heft_mlcp_destroy(d);
    heft_mlcp_destroy(q);
    heft_mlcp_destroy(p);
    free(j);
    free(lambda);
    free(ref);
}

/* ---- the engine's scenes --------------------------------------------------------------- */

typedef struct scene_record {
    int problems, joint_islands;
    double worst_joints, worst_impulse, worst_error;
} scene_record;

/* J^T lambda, 6 per body: the impulse the bodies feel, unique even where
 * lambda is not (four contact points of a box carry its weight any way). */
static void body_impulse(const heft_mlcp *p, const double *lambda, double *g) {
    memset(g, 0, sizeof(double) * 6 * (size_t)p->nbodies);
    for (int i = 0; i < p->n; ++i)
        for (int c = 0; c < 6; ++c) {
            if (p->rows[i].a >= 0)
                g[6 * p->rows[i].a + c] += p->rows[i].ja[c] * lambda[i];
            if (p->rows[i].b >= 0)
                g[6 * p->rows[i].b + c] += p->rows[i].jb[c] * lambda[i];
        }
}

static void compare_with_bpp(void *user, int step, int island, const heft_mlcp *p,
                             const double *lambda, const heft_solver_stats *stats) {
    (void)step;
    (void)island;
    scene_record *rec = user;
    double *ref = malloc(sizeof(double) * (size_t)p->n);
    heft_solver_stats sb;
    cr_assert_eq(heft_solve("bpp", NULL, p, ref, &sb), HEFT_SOLVE_OK);
    int all_eq = 1;
    for (int i = 0; i < p->n; ++i)
        all_eq = all_eq && isinf(p->lo[i]) && isinf(p->hi[i]) && p->findex[i] < 0;
    if (all_eq) {
        rec->worst_joints = fmax(rec->worst_joints, mech_relative(lambda, ref, p->n));
        rec->joint_islands++;
    }
    double *g = malloc(sizeof(double) * 6 * (size_t)p->nbodies);
    double *gref = malloc(sizeof(double) * 6 * (size_t)p->nbodies);
    body_impulse(p, lambda, g);
    body_impulse(p, ref, gref);
    rec->worst_impulse = fmax(rec->worst_impulse, mech_relative(g, gref, 6 * p->nbodies));
    rec->worst_error = fmax(rec->worst_error, stats->error_max);
    rec->problems++;
    free(ref);
    free(g);
    free(gref);
}

Test(baraff_scenes, scenes_match_bpp) {
    const char *scenes[3] = {"hanging-chain", "pendulum", "box-on-ground"};
    for (int s = 0; s < 3; ++s) {
        scene_record rec = {0};
        run_config cfg = {0};
        cfg.scenario = scenes[s];
        cfg.solver = "baraff";
        cfg.steps = 120;
        cfg.island = compare_with_bpp;
        cfg.island_user = &rec;
        run_result r;
        cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
        cr_log_info("%s with baraff: %d islands (%d of joints only: lambda vs bpp relative %.3g); "
                    "J^T lambda vs bpp relative %.3g; MLCP error max %.3g J; fallbacks %d",
                    scenes[s], rec.problems, rec.joint_islands, rec.worst_joints, rec.worst_impulse,
                    rec.worst_error, r.fallbacks);
        cr_assert(rec.problems > 0);
        cr_assert(rec.worst_joints < 1e-8, "%s: %g", scenes[s], rec.worst_joints);
        cr_assert(rec.worst_impulse < 1e-8, "%s: %g", scenes[s], rec.worst_impulse);
        cr_assert(rec.worst_error < 1e-10, "%s: %g", scenes[s], rec.worst_error);
        cr_assert_eq(r.fallbacks, 0);
        run_result_free(&r);
    }
}

/* ---- switching at run time -------------------------------------------------------------- */

Test(baraff_scenes, world_switches_between_pgs_ldl_pgs_and_baraff_between_steps) {
    run_config cfg = {0};
    cfg.scenario = "pendulum";
    cfg.steps = 10;
    run_result r;
    cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
    const char *order[6] = {"ldl-pgs", "baraff", "pgs", "baraff", "ldl-pgs", "bpp"};
    for (int k = 0; k < 6; ++k) {
        cr_assert_eq(heft_world_set_solver(r.world, order[k]), HEFT_OK);
        for (int step = 0; step < 10; ++step)
            cr_assert_eq(heft_world_step(r.world, 1.0 / 60.0), HEFT_OK);
        cr_assert_eq(heft_world_stats(r.world)->fallbacks, 0, "%s", order[k]);
        heft_island_stats is;
        cr_assert_eq(heft_world_island_stats(r.world, 0, &is), HEFT_OK);
        cr_assert(isfinite(is.solver.error_max));
        if (strcmp(order[k], "pgs") != 0)
            cr_assert(is.solver.error_max < 1e-20, "%s: %g J", order[k], is.solver.error_max);
    }
    heft_joint_id js[128];
    const int nj = heft_world_joints(r.world, js, 128);
    double gap = 0.0;
    for (int i = 0; i < nj; ++i)
        gap = fmax(gap, heft_joint_gap(r.world, js[i]));
    cr_log_info("pendulum, 60 steps switching ldl-pgs/baraff/pgs/baraff/ldl-pgs/bpp every 10: "
                "largest joint gap %.3g m",
                gap);
    cr_assert(gap < 1e-3, "%g", gap);
    run_result_free(&r);
}

Test(baraff_scenes, engine_steps_with_ldl_pgs_and_baraff_allocate_nothing_after_warmup) {
    const char *scenes[2] = {"pendulum", "box-on-ground"};
    const char *solvers[2] = {"ldl-pgs", "baraff"};
    for (int s = 0; s < 2; ++s)
        for (int v = 0; v < 2; ++v) {
            counting_allocator_install();
            run_config cfg = {0};
            cfg.scenario = scenes[s];
            cfg.solver = solvers[v];
            cfg.steps = 1;
            run_result r;
            cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
            for (int i = 0; i < 10; ++i)
                heft_world_step(r.world, 1.0 / 60.0);
            counting_allocator_calls = 0;
            for (int i = 0; i < 200; ++i)
                heft_world_step(r.world, 1.0 / 60.0);
            const int during = counting_allocator_calls;
            run_result_free(&r);
            heft_set_allocator(NULL);
            cr_assert_eq(during, 0, "%s with %s: %d allocations in 200 steps", scenes[s],
                         solvers[v], during);
        }
}

/* An auxiliary problem left open goes to bpp-skyline on the whole problem from
 * baraff's answer; a baraff made as a pivoting solver's last stage (nested)
 * does not. On the hard family's member 34 (257 rows) with Lemke's method
 * off, the restart off and a budget of 5 pivoting steps, the auxiliary
 * problem stays open: the rescue runs (one more backstop run than the
 * nested state's) and its answer is kept only when it is better. */
Test(baraff, an_open_auxiliary_problem_goes_to_bpp_on_the_whole_problem, .timeout = 120) {
    hard_problem hp = hard_family_member(34, 1000);
    const int n = hp.p->n;
    heft_solver_options o = heft_solver_default_options();
    o.bpp_pgs_sweeps = 0;
    o.backstop_max_variables = HEFT_BACKSTOP_OFF;
    o.max_pivots = 5;
    const heft_solver_vtable *v = heft_solver_find("baraff");
    void *nested = v->create(&o), *plain = v->create(&o);
    cr_assert(nested != NULL && plain != NULL);
    heft_baraff_set_nested(nested);
    double *a = calloc((size_t)n, sizeof(double)), *b = calloc((size_t)n, sizeof(double));
    heft_solver_stats sa, sb;
    memset(&sa, 0, sizeof sa);
    memset(&sb, 0, sizeof sb);
    v->solve(nested, hp.p, a, &sa);
    v->solve(plain, hp.p, b, &sb);
    const double ea = heft_mlcp_measure(hp.p, a, NULL).max;
    const double eb = heft_mlcp_measure(hp.p, b, NULL).max;
    cr_log_info("nested: %.3g J, %d backstop runs; with the rescue: %.3g J, %d", ea, sa.backstops,
                eb, sb.backstops);
    cr_assert_gt(ea, 1e-10, "the auxiliary problem stays open (%.3g J)", ea);
    cr_assert_geq(sb.backstops, sa.backstops + 1, "%d against %d", sb.backstops, sa.backstops);
    cr_assert_leq(eb, ea, "%.3g J against %.3g J", eb, ea);
    free(a);
    free(b);
    v->destroy(nested);
    v->destroy(plain);
    hard_family_free(&hp);
}

/* An island of contacts alone (the 15-layer tower's step 30, 717 rows, no
 * joint) has no primary rows, so its auxiliary problem is the problem
 * itself: it is solved on its rows by bpp-skyline, with bpp-skyline's
 * answer to the bit and its counts, and no block of the size of a dense
 * 717 x 717 A^ (4.1 MB) is ever asked for. The dense copy cost k^3 / 6 a
 * factorization: 2.7 s a solve on the 40-layer tower's 1,918 rows, 0.12 s on
 * its rows. */
Test(baraff, contacts_alone_are_solved_on_their_rows_not_as_a_dense_copy) {
    heft_mlcp *p = read_testdata("tower15-step30.mlcp");
    p->A = NULL; /* the engine's islands carry no dense A */
    const int n = p->n;
    const heft_solver_options o = heft_solver_default_options();
    const heft_solver_vtable *vb = heft_solver_find("baraff"),
                             *vs = heft_solver_find("bpp-skyline");
    double *a = calloc((size_t)n, sizeof(double)), *b = calloc((size_t)n, sizeof(double));
    heft_solver_stats sa, sb;
    counting_allocator_install();
    void *state = vb->create(&o);
    cr_assert_not_null(state);
    const int rc = vb->solve(state, p, a, &sa);
    const heft_baraff_info info = heft_baraff_get_info(state);
    vb->destroy(state);
    heft_set_allocator(NULL);
    cr_log_info("baraff: %.3g J, %d iterations, %d factorizations, largest block %zu bytes",
                sa.error_max, sa.iterations, sa.factorizations, counting_allocator_largest);
    cr_assert_eq(rc, HEFT_SOLVE_OK);
    cr_assert_eq(info.primary_rows, 0);
    cr_assert_eq(info.auxiliary_rows, n);
    cr_assert_lt(counting_allocator_largest, sizeof(double) * (size_t)n * (size_t)n);
    cr_assert_leq(heft_mlcp_measure(p, a, NULL).max, o.tolerance);
    void *sky = vs->create(&o);
    cr_assert_eq(vs->solve(sky, p, b, &sb), HEFT_SOLVE_OK);
    vs->destroy(sky);
    cr_assert_eq(memcmp(a, b, sizeof(double) * (size_t)n), 0, "not bpp-skyline's answer");
    cr_assert_eq(sa.iterations, sb.iterations);
    cr_assert_eq(sa.factorizations, sb.factorizations);
    cr_assert_eq(sa.fallback, sb.fallback);
    free(a);
    free(b);
    heft_mlcp_destroy(p);
}
