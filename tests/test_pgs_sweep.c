/* Tests of the pgs sweep's exact savings: its order (independent rows
 * interleaved) and the rows boxed at [0, 0] it skips change no bit of an
 * answer. Each test solves the same problems with a state that sweeps the
 * rows in their own order and updates every row (heft_pgs_plain_sweep) and
 * with a default state, and compares the answers with memcmp: the tolerance
 * is zero, signed zeros included. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp.h"
#include "pgs.h"
#include "planted.h"
#include "runner.h"

/* Solves p with a plain and a default state under options o and expects the
 * same status, sweeps and answer, bit for bit; the default state's answer
 * and statistics into answer and stats when not NULL. Returns the friction
 * rows whose normal row ends at zero (their box [0, 0]: the rows the
 * default state skipped in its last sweep). */
static int expect_same_bits(const heft_mlcp *p, const heft_solver_options *o, const char *what,
                            double *answer, heft_solver_stats *stats) {
    void *plain = heft_pgs_solver.create(o), *fast = heft_pgs_solver.create(o);
    cr_assert(plain != NULL && fast != NULL);
    heft_pgs_plain_sweep(plain, 1);
    double *lp = malloc(sizeof(double) * (size_t)p->n), *lf = malloc(sizeof(double) * (size_t)p->n);
    heft_solver_stats sp, sf;
    const int rp = heft_pgs_solver.solve(plain, p, lp, &sp);
    const int rf = heft_pgs_solver.solve(fast, p, lf, &sf);
    cr_assert_eq(rp, rf, "%s: status %d plain, %d default", what, rp, rf);
    cr_assert_eq(sp.iterations, sf.iterations, "%s: %d sweeps plain, %d default", what,
                 sp.iterations, sf.iterations);
    cr_assert_eq(sp.inner_iterations, sf.inner_iterations,
                 "%s: %d position sweeps plain, %d default", what, sp.inner_iterations,
                 sf.inner_iterations);
    int differ = 0, boxed_at_zero = 0;
    for (int i = 0; i < p->n; ++i) {
        differ += memcmp(&lp[i], &lf[i], sizeof(double)) != 0;
        const int32_t f = p->findex != NULL ? p->findex[i] : -1;
        boxed_at_zero += f >= 0 && f < p->n && !(lf[f] > 0.0);
    }
    cr_assert_eq(differ, 0, "%s: %d of %d impulses differ", what, differ, p->n);
    cr_assert_eq(memcmp(&sp.error_max, &sf.error_max, sizeof(double)), 0);
    if (answer != NULL)
        memcpy(answer, lf, sizeof(double) * (size_t)p->n);
    if (stats != NULL)
        *stats = sf;
    free(lp);
    free(lf);
    heft_pgs_solver.destroy(plain);
    heft_pgs_solver.destroy(fast);
    return boxed_at_zero;
}

/* n impulses uniform in [-1, 1] (malloc'd) */
static double *uniform_impulses(planted_rng *rng, int n) {
    double *x = malloc(sizeof(double) * (size_t)n);
    for (int i = 0; i < n; ++i)
        x[i] = planted_uniform(rng, -1.0, 1.0);
    return x;
}

/* Random islands with friction and static sides, cold and warm started from
 * impulses where a normal row is zero and its friction rows are not (the
 * skip then sets them to +0 in one update) or are -0 (which must stay -0),
 * over-relaxed or not, after 1, 3 and 10 sweeps. */
Test(pgs_sweep, random_islands_give_the_plain_sweeps_bits) {
    int boxed = 0;
    for (int seed = 1; seed <= 6; ++seed) {
        const int n = 240;
        planted_problem pp = planted_structured(n, 0.1, 0, (uint64_t)seed);
        heft_mlcp *p = pp.p;
        planted_rng rng = {(uint64_t)seed * 7919u};
        double *lambda0 = uniform_impulses(&rng, n);
        /* every third normal row at zero; its friction rows at -0 or pushing */
        for (int i = 0; i < n; ++i) {
            const int32_t f = p->findex != NULL ? p->findex[i] : -1;
            if (f < 0 && i % 3 == 0)
                lambda0[i] = 0.0;
        }
        for (int i = 0; i < n; ++i) {
            const int32_t f = p->findex != NULL ? p->findex[i] : -1;
            if (f >= 0 && lambda0[f] == 0.0 && i % 2 == 0)
                lambda0[i] = -0.0;
        }
        p->lambda0 = lambda0;
        const int sweeps[3] = {1, 3, 10};
        for (int k = 0; k < 3; ++k)
            for (int warm = 0; warm <= 1; ++warm) {
                heft_solver_options o = heft_solver_default_options();
                o.tolerance = 0.0;
                o.max_iterations = sweeps[k];
                o.warm_start = warm;
                o.relaxation = warm ? 1.0 : 1.3;
                char what[96];
                snprintf(what, sizeof what, "seed %d, %d sweeps, %s", seed, sweeps[k],
                         warm ? "warm" : "cold");
                boxed += expect_same_bits(p, &o, what, NULL, NULL);
            }
        p->lambda0 = NULL;
        free(lambda0);
        planted_free(&pp);
    }
    cr_log_info("random islands: %d friction rows ended boxed at [0, 0]", boxed);
    cr_assert_gt(boxed, 100, "the skip was hardly exercised: %d rows", boxed);
}

/* The position pass (docs/pgs.md "A light chain under a heavy load"): random
 * islands whose contacts' normal rows carry a position bias of either sign,
 * warm started, after 1, 3 and 10 sweeps of each pass. Where a bias pulls a
 * contact together, its normal row's total impulse (velocity answer plus
 * share) goes to zero though its velocity answer pushes: its friction rows'
 * box is then the single point -v_i, which the default state takes without
 * computing the row. The test counts those rows: the velocity answer v from
 * the same sweeps on b - bias without the split, and the rows whose normal
 * row pushes in v and not in the answer. */
Test(pgs_sweep, position_pass_gives_the_plain_sweeps_bits) {
    int pulled_apart = 0, position_sweeps = 0;
    for (int seed = 1; seed <= 6; ++seed) {
        const int n = 240;
        planted_problem pp = planted_structured(n, 0.1, 0, (uint64_t)seed);
        heft_mlcp *p = pp.p;
        planted_rng rng = {(uint64_t)seed * 104729u};
        double *lambda0 = uniform_impulses(&rng, n);
        double *bias = uniform_impulses(&rng, n);
        double *const b = p->b; /* the problem's own, swapped for velocity_b below */
        double *velocity_b = malloc(sizeof(double) * (size_t)n);
        double *v = malloc(sizeof(double) * (size_t)n);
        double *lambda = malloc(sizeof(double) * (size_t)n);
        for (int i = 0; i < n; ++i) {
            if (p->kind[i] != HEFT_ROW_NORMAL)
                bias[i] = 0.0; /* only the contacts' normal rows correct positions */
            velocity_b[i] = b[i] - bias[i];
        }
        p->lambda0 = lambda0;
        const int sweeps[3] = {1, 3, 10};
        for (int k = 0; k < 3; ++k) {
            heft_solver_options o = heft_solver_default_options();
            o.tolerance = 0.0;
            o.max_iterations = sweeps[k];
            o.warm_start = 1;
            char what[96];
            snprintf(what, sizeof what, "seed %d, %d sweeps, with a position bias", seed,
                     sweeps[k]);
            p->bias = bias;
            heft_solver_stats st;
            expect_same_bits(p, &o, what, lambda, &st);
            position_sweeps += st.inner_iterations;
            /* the velocity answer: the same sweeps on b - bias, no split */
            p->bias = NULL;
            p->b = velocity_b;
            void *state = heft_pgs_solver.create(&o);
            heft_pgs_solver.solve(state, p, v, &st);
            heft_pgs_solver.destroy(state);
            p->b = b;
            for (int i = 0; i < n; ++i) {
                const int32_t f = p->findex != NULL ? p->findex[i] : -1;
                pulled_apart += f >= 0 && v[f] > 0.0 && !(lambda[f] > 0.0) && v[i] != 0.0;
            }
        }
        p->lambda0 = NULL;
        p->bias = NULL;
        free(lambda0);
        free(bias);
        free(velocity_b);
        free(v);
        free(lambda);
        planted_free(&pp);
    }
    cr_log_info("position pass: %d sweeps, %d friction rows on a contact pulled apart",
                position_sweeps, pulled_apart);
    cr_assert_gt(position_sweeps, 6 * 10, "the position pass hardly ran: %d sweeps",
                 position_sweeps);
    cr_assert_gt(pulled_apart, 20, "the pulled-apart box was hardly exercised: %d rows",
                 pulled_apart);
}

/* The island of the pyramid of base 10 (1,740 rows, 580 contact points, 180
 * of them made 1 cm before the side faces touch) at steps 1, 30 and 100 of a
 * pgs run: 1, 5 and 50 sweeps from the engine's warm start and cold. */
typedef struct pyramid_record {
    int solved, boxed;
} pyramid_record;

static void compare_on_pyramid(void *user, int step, int island, const heft_mlcp *p,
                               const double *lambda, const heft_solver_stats *stats) {
    (void)island;
    (void)lambda;
    (void)stats;
    pyramid_record *rec = user;
    if ((step != 1 && step != 30 && step != 100) || p->n < 1000)
        return;
    const int sweeps[3] = {1, 5, 50};
    for (int k = 0; k < 3; ++k)
        for (int warm = 0; warm <= 1; ++warm) {
            heft_solver_options o = heft_solver_default_options();
            o.max_iterations = sweeps[k];
            o.warm_start = warm;
            char what[96];
            snprintf(what, sizeof what, "pyramid step %d, %d sweeps, %s", step, sweeps[k],
                     warm ? "warm" : "cold");
            const int boxed = expect_same_bits(p, &o, what, NULL, NULL);
            if (k == 2 && warm) {
                cr_log_info("pyramid of base 10, step %d: %d rows, %d friction rows boxed at "
                            "[0, 0] at the answer",
                            step, p->n, boxed);
                rec->boxed += boxed;
            }
        }
    rec->solved++;
}

Test(pgs_sweep, pyramid_island_gives_the_plain_sweeps_bits, .timeout = 300) {
    pyramid_record rec = {0, 0};
    run_config cfg = {0};
    cfg.scenario = "stacking";
    cfg.params.variant = "pyramid";
    cfg.params.size = 10;
    cfg.solver = "pgs";
    cfg.steps = 101;
    cfg.island = compare_on_pyramid;
    cfg.island_user = &rec;
    run_result res;
    cr_assert_eq(run_scenario(&cfg, &res), 0, "%s", res.error);
    run_result_free(&res);
    cr_assert_eq(rec.solved, 3);
    /* the side contacts alone give 2 x 180 = 360 rows a step */
    cr_assert_gt(rec.boxed, 3 * 300, "%d rows boxed at zero over 3 steps", rec.boxed);
}

/* The 100-link chain under 100 kg, where the island latches into solving the
 * position correction apart (docs/pgs.md "A light chain under a heavy
 * load"): a plain and a default state fed the same problems step after step
 * give the same answers, through the latch and the remembered shares. */
typedef struct chain_record {
    void *plain, *fast;
    double *lp, *lf;
    int solved, differ;
} chain_record;

static void compare_on_chain(void *user, int step, int island, const heft_mlcp *p,
                             const double *lambda, const heft_solver_stats *stats) {
    (void)step;
    (void)island;
    (void)lambda;
    (void)stats;
    chain_record *rec = user;
    cr_assert_leq(p->n, 4096);
    heft_solver_stats sp, sf;
    const int rp = heft_pgs_solver.solve(rec->plain, p, rec->lp, &sp);
    const int rf = heft_pgs_solver.solve(rec->fast, p, rec->lf, &sf);
    rec->differ += rp != rf || sp.iterations != sf.iterations ||
                   sp.inner_iterations != sf.inner_iterations ||
                   memcmp(rec->lp, rec->lf, sizeof(double) * (size_t)p->n) != 0;
    rec->solved++;
}

Test(pgs_sweep, latched_chain_gives_the_plain_sweeps_bits, .timeout = 300) {
    const heft_solver_options o = heft_solver_default_options();
    chain_record rec = {heft_pgs_solver.create(&o), heft_pgs_solver.create(&o), NULL, NULL, 0, 0};
    heft_pgs_plain_sweep(rec.plain, 1);
    rec.lp = malloc(sizeof(double) * 4096);
    rec.lf = malloc(sizeof(double) * 4096);
    run_config cfg = {0};
    cfg.scenario = "hanging-chain";
    cfg.params.links = 100;
    cfg.params.load_mass = 100.0;
    cfg.params.angle_set = 1;
    cfg.solver = "pgs";
    cfg.steps = 60; /* the island latches after 31 steps */
    cfg.island = compare_on_chain;
    cfg.island_user = &rec;
    run_result res;
    cr_assert_eq(run_scenario(&cfg, &res), 0, "%s", res.error);
    run_result_free(&res);
    cr_log_info("chain of 100 links: %d solves compared, %d differ", rec.solved, rec.differ);
    cr_assert_geq(rec.solved, 60);
    cr_assert_eq(rec.differ, 0);
    /* latched: the state saves its count, latch and the memory of its 300 rows */
    const size_t saved = heft_pgs_solver.save_state(rec.fast, NULL, 0);
    cr_assert_gt(saved, 12 + 2 * sizeof(double) * 300, "saved %zu bytes", saved);
    free(rec.lp);
    free(rec.lf);
    heft_pgs_solver.destroy(rec.plain);
    heft_pgs_solver.destroy(rec.fast);
}
