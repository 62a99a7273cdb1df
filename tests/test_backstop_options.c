/* The options of the pivoting solvers' exact backstop (Lemke's method,
 * docs/friction-backstop.md "Options"): backstop_max_variables decides
 * whether it runs on an island, in every solver that has it and in a
 * world's step; backstop_pivot_budget bounds its pivots; backstop_accept
 * stops the last stages of an island above the cap early; all are checked,
 * and all survive a scene file's save and load. */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bpp.h"
#include "heft/heft.h"
#include "lemke.h"
#include "mlcp.h"
#include "runner.h"
#include "testdata.h"

/* the acceptance line of mlcp-format.md, J */
#define ACCEPT 1e-10

/* Lemke's pivots (and crash pivots) of a solve: the backstop's steps that
 * are not the Newton stage's */
static int lemke_pivots(const heft_solver_stats *st) {
    return st->backstop_pivots - st->newton_steps;
}

/* A stack of five boxes rocking under PGS (60 rows). With one pivoting step
 * the Newton stage has two steps and stops 1.4e-4 J short; Lemke's method
 * ends it exactly. The cap is compared with the island's LCP size (N
 * variables): N - 1 leaves it out, N lets it in, and so does the build's
 * cap; off leaves it out whatever the size. What the solve does without it
 * (the stages before Lemke's, and whatever may come after) is not asserted
 * here beyond being the same for N - 1 and off. */
Test(backstop_options, the_cap_decides_whether_lemke_runs_and_ends_exact) {
    heft_mlcp *p = read_testdata("boxes-pgs-step149.mlcp");
    const int N = heft_lemke_size(p);
    cr_assert_gt(N, 1);
    cr_log_info("boxes-pgs-step149: %d rows, %d LCP variables", p->n, N);
    static const char *const solvers[] = {"bpp", "bpp-downdate", "bpp-skyline", "bpp-pcg"};
    const int caps[] = {N - 1, HEFT_BACKSTOP_OFF, N, HEFT_BACKSTOP_BUILD_CAP, 2 * N};
    const int runs[] = {0, 0, 1, 1, 1};
    double *lambda = malloc(sizeof(double) * (size_t)p->n);
    double *first[2] = {malloc(sizeof(double) * (size_t)p->n),
                        malloc(sizeof(double) * (size_t)p->n)};
    for (size_t s = 0; s < sizeof solvers / sizeof solvers[0]; ++s) {
        for (int k = 0; k < 5; ++k) {
            heft_solver_options o = heft_solver_default_options();
            o.bpp_pgs_sweeps = 0;
            o.max_pivots = 1;
            o.backstop_max_variables = caps[k];
            heft_solver_stats st;
            const int rc = heft_solve(solvers[s], &o, p, lambda, &st);
            cr_log_info("%s, cap %d: rc %d, error %.3g J, backstop stages %d, Lemke pivots %d",
                        solvers[s], caps[k], rc, st.error_max, st.backstops, lemke_pivots(&st));
            if (runs[k]) {
                cr_assert_eq(rc, HEFT_SOLVE_OK, "%s cap %d", solvers[s], caps[k]);
                cr_assert_eq(st.backstops, 2, "%s cap %d: Newton, then Lemke", solvers[s], caps[k]);
                cr_assert_gt(lemke_pivots(&st), 0);
                cr_assert_eq(st.answer, HEFT_ANSWER_BACKSTOP);
                cr_assert_lt(st.error_max, ACCEPT, "%s cap %d: %g J", solvers[s], caps[k],
                             st.error_max);
            } else {
                cr_assert_eq(lemke_pivots(&st), 0, "%s cap %d", solvers[s], caps[k]);
            }
            /* whether Lemke's method runs is all the cap changes: the
             * answers of the solves that leave it out agree bit for bit,
             * and so do those that let it in */
            if (k == 0 || k == 2) {
                memcpy(first[k / 2], lambda, sizeof(double) * (size_t)p->n);
            } else {
                cr_assert_eq(memcmp(first[runs[k]], lambda, sizeof(double) * (size_t)p->n), 0,
                             "%s cap %d", solvers[s], caps[k]);
            }
        }
    }
    free(first[0]);
    free(first[1]);
    free(lambda);
    heft_mlcp_destroy(p);
}

/* pgcg shares the backstop, and baraff's auxiliary problem is solved by a
 * bpp made from the same options: with the build's cap both end the island
 * exactly through Lemke's method (its 98 and 198 pivots and crash pivots);
 * with it off both run only the Newton stage, within twice max_pivots (2
 * steps), whose steps are all their backstop's steps */
Test(backstop_options, pgcg_and_baraff_read_the_same_cap) {
    heft_mlcp *p = read_testdata("boxes-pgs-step149.mlcp");
    double *lambda = malloc(sizeof(double) * (size_t)p->n);
    static const char *const solvers[] = {"pgcg", "baraff"};
    for (int k = 0; k < 2; ++k) {
        heft_solver_options o = heft_solver_default_options();
        o.bpp_pgs_sweeps = 0;
        o.max_pivots = 1;
        heft_solver_stats on, off;
        cr_assert_eq(heft_solve(solvers[k], &o, p, lambda, &on), HEFT_SOLVE_OK, "%s", solvers[k]);
        o.backstop_max_variables = HEFT_BACKSTOP_OFF;
        heft_solve(solvers[k], &o, p, lambda, &off);
        cr_log_info("%s: backstop %d stages, %d steps, %.3g J; off: %d, %d, %.3g J", solvers[k],
                    on.backstops, on.backstop_pivots, on.error_max, off.backstops,
                    off.backstop_pivots, off.error_max);
        cr_assert_lt(on.error_max, ACCEPT, "%s", solvers[k]);
        cr_assert_gt(on.backstop_pivots, off.backstop_pivots + 50, "%s: Lemke's pivots",
                     solvers[k]);
        cr_assert_eq(off.backstop_pivots, off.newton_steps, "%s: no Lemke pivot", solvers[k]);
        cr_assert_gt(off.newton_steps, 0, "%s", solvers[k]);
    }
    free(lambda);
    heft_mlcp_destroy(p);
}

/* The options reach the islands of a world (heft_world_set_solver_options,
 * through the scene runner of heft-run): the pyramid of base 3 (one island
 * of up to 144 rows) for 60 steps under bpp-skyline, with one pivoting step
 * and no restart so that the backstop is what ends its stalled solves. With
 * the build's cap Lemke's method ends every solve the Newton stage left
 * (576 pivots over the run); off, none of its pivots is made (and 1 solve
 * ended unconverged, PGS's answer kept by the step's rescue, when this was
 * written). */
Test(backstop_options, a_world_solves_its_islands_with_them) {
    const int caps[] = {HEFT_BACKSTOP_BUILD_CAP, HEFT_BACKSTOP_OFF};
    long lemke[2];
    for (int k = 0; k < 2; ++k) {
        run_config cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.scenario = "stacking";
        cfg.params.variant = "pyramid";
        cfg.params.size = 3;
        cfg.solver = "bpp-skyline";
        cfg.steps = 60;
        cfg.options = heft_solver_default_options();
        cfg.options.max_pivots = 1;
        cfg.options.bpp_pgs_sweeps = 0;
        cfg.options.backstop_max_variables = caps[k];
        cfg.has_options = 1;
        run_result r;
        cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
        lemke[k] = r.backstop_pivots - r.newton_steps;
        cr_log_info("pyramid of 3, cap %d: %ld Lemke pivots, %ld backstop stages, %ld solves "
                    "unconverged, %ld PGS answers kept, largest error %.3g J",
                    caps[k], lemke[k], r.backstops, (long)r.not_converged, r.answers_pgs,
                    r.mlcp_error_max);
        if (k == 0) {
            cr_assert_eq(r.not_converged, 0);
            cr_assert_eq(r.answers_pgs, 0);
            cr_assert_lt(r.mlcp_error_max, ACCEPT);
        }
        run_result_free(&r);
    }
    cr_assert_gt(lemke[0], 0);
    cr_assert_eq(lemke[1], 0);
}

/* The backstop on its own, from no guess (the all-slack basis, so every
 * pivot is a path's and none a crash pivot): budget F gives at most
 * ceil(F N) pivots over the solve. F = 60 ends the 60-row island (N = 140)
 * exactly in 132 pivots; F = 0.05 and 0.5 (7 and 70 pivots) are too few,
 * spend all of it and say so. */
Test(backstop_options, the_budget_bounds_the_pivots_of_the_solve) {
    heft_mlcp *p = read_testdata("boxes-pgs-step149.mlcp");
    const int N = heft_lemke_size(p);
    double *answer = malloc(sizeof(double) * (size_t)p->n);
    double *work = malloc(sizeof(double) * (size_t)(p->n + 6 * p->nbodies));
    heft_lemke ws;
    memset(&ws, 0, sizeof ws);
    const double budgets[] = {0.05, 0.5, 60.0, HEFT_BACKSTOP_PIVOT_BUDGET_LIMIT};
    int exact_pivots = 0;
    for (int k = 0; k < 4; ++k) {
        heft_solver_options o = heft_solver_default_options();
        o.backstop_pivot_budget = budgets[k];
        heft_solver_stats st;
        memset(&st, 0, sizeof st);
        const int solved = heft_bpp_backstop(p, &o, &ws, NULL, NULL, 0, 1e-12, answer, work, &st);
        const double limit = ceil(budgets[k] * N);
        cr_log_info("budget %g N (N = %d): %d pivots, %s", budgets[k], N, st.backstop_pivots,
                    solved > 0 ? "exact" : "not exact");
        cr_assert_eq(st.backstops, 1);
        cr_assert_leq(st.backstop_pivots, limit, "budget %g: %d pivots", budgets[k],
                      st.backstop_pivots);
        if (k < 2) {
            /* too few to end a path (132 pivots from the all-slack basis):
             * the whole budget is spent, and no more */
            cr_assert_leq(solved, 0, "%d pivots cannot end a path of this island", (int)limit);
            cr_assert_eq(st.backstop_pivots, limit, "budget %g", budgets[k]);
        }
        if (k >= 2) {
            cr_assert_eq(solved, 1, "budget %g", budgets[k]);
            cr_assert_lt(heft_mlcp_measure(p, answer, NULL).max, ACCEPT);
            if (k == 2)
                exact_pivots = st.backstop_pivots;
            else /* a larger budget changes nothing when the first path ends */
                cr_assert_eq(st.backstop_pivots, exact_pivots);
        }
    }
    heft_lemke_release(&ws);
    free(work);
    free(answer);
    heft_mlcp_destroy(p);
}

/* Each value at the edge of its range is taken; each beyond it, NaN and
 * infinity refused with the field named and the world's options kept. */
Test(backstop_options, the_ranges_are_checked_by_name) {
    heft_world_def wd = heft_default_world_def();
    heft_world *w = heft_world_create(&wd);
    cr_assert_not_null(w);
    const int good_caps[] = {HEFT_BACKSTOP_OFF, HEFT_BACKSTOP_BUILD_CAP, 1, 2500,
                             HEFT_BACKSTOP_MAX_VARIABLES_LIMIT};
    const int bad_caps[] = {-2, INT_MIN, HEFT_BACKSTOP_MAX_VARIABLES_LIMIT + 1, INT_MAX};
    const double good_budgets[] = {1e-9, 1.0, 60.0, HEFT_BACKSTOP_PIVOT_BUDGET_LIMIT};
    const double bad_budgets[] = {0.0,
                                  -1.0,
                                  -0.0,
                                  NAN,
                                  INFINITY,
                                  -INFINITY,
                                  HEFT_BACKSTOP_PIVOT_BUDGET_LIMIT * (1.0 + 1e-12)};
    char err[200];
    for (size_t k = 0; k < sizeof good_caps / sizeof good_caps[0]; ++k) {
        heft_solver_options o = heft_solver_default_options();
        o.backstop_max_variables = good_caps[k];
        cr_assert_eq(heft_solver_options_check(&o, err, sizeof err), 0, "%d: %s", good_caps[k],
                     err);
        cr_assert_eq(heft_world_set_solver_options(w, &o), HEFT_OK);
        cr_assert_eq(heft_world_solver_options(w).backstop_max_variables, good_caps[k]);
    }
    for (size_t k = 0; k < sizeof good_budgets / sizeof good_budgets[0]; ++k) {
        heft_solver_options o = heft_solver_default_options();
        o.backstop_pivot_budget = good_budgets[k];
        cr_assert_eq(heft_solver_options_check(&o, err, sizeof err), 0, "%g: %s", good_budgets[k],
                     err);
    }
    heft_solver_options kept = heft_solver_default_options();
    kept.backstop_max_variables = 777;
    kept.backstop_pivot_budget = 12.5;
    cr_assert_eq(heft_world_set_solver_options(w, &kept), HEFT_OK);
    for (size_t k = 0; k < sizeof bad_caps / sizeof bad_caps[0]; ++k) {
        heft_solver_options o = heft_solver_default_options();
        o.backstop_max_variables = bad_caps[k];
        cr_assert_eq(heft_solver_options_check(&o, err, sizeof err), -1, "%d", bad_caps[k]);
        cr_assert_not_null(strstr(err, "backstop_max_variables"), "%s", err);
        cr_assert_eq(heft_world_set_solver_options(w, &o), HEFT_ERROR_INVALID_ARGUMENT);
        cr_assert_not_null(strstr(heft_last_error(), "backstop_max_variables"), "%s",
                           heft_last_error());
    }
    for (size_t k = 0; k < sizeof bad_budgets / sizeof bad_budgets[0]; ++k) {
        heft_solver_options o = heft_solver_default_options();
        o.backstop_pivot_budget = bad_budgets[k];
        cr_assert_eq(heft_solver_options_check(&o, err, sizeof err), -1, "%g", bad_budgets[k]);
        cr_assert_not_null(strstr(err, "backstop_pivot_budget"), "%s", err);
        cr_assert_eq(heft_world_set_solver_options(w, &o), HEFT_ERROR_INVALID_ARGUMENT);
        cr_assert_not_null(strstr(heft_last_error(), "backstop_pivot_budget"), "%s",
                           heft_last_error());
    }
    const heft_solver_options now = heft_world_solver_options(w);
    cr_assert_eq(now.backstop_max_variables, 777);
    cr_assert_eq(now.backstop_pivot_budget, 12.5);
    heft_world_destroy(w);
}

static char *replace_once(const char *text, const char *what, const char *with) {
    const char *at = strstr(text, what);
    cr_assert_not_null(at, "\"%s\" is not in the scene", what);
    const size_t head = (size_t)(at - text), wl = strlen(what), tl = strlen(with);
    char *out = malloc(strlen(text) - wl + tl + 1);
    memcpy(out, text, head);
    memcpy(out + head, with, tl);
    strcpy(out + head + tl, at + wl);
    return out;
}

/* The saver writes the backstop's options only when they are not the
 * defaults (so the scenes saved before them are saved the same); a
 * non-default value survives save, load and save again; a bad one in a
 * file is refused with its name. */
Test(backstop_options, scene_files_keep_a_non_default_backstop) {
    heft_world_def wd = heft_default_world_def();
    wd.solver = "bpp-skyline";
    heft_world *w = heft_world_create(&wd);
    cr_assert_not_null(w);
    size_t n = 0;
    char *text = heft_world_save_text(w, NULL, &n);
    cr_assert_not_null(text, "%s", heft_last_error());
    cr_assert_null(strstr(text, "backstop"), "defaults are left out:\n%s", text);
    heft_free(text);

    const int caps[] = {HEFT_BACKSTOP_OFF, 4321};
    const double budgets[] = {0.125, 150.0};
    const double accepts[] = {1e-10, 0.0};
    for (int k = 0; k < 2; ++k) {
        heft_solver_options o = heft_world_solver_options(w);
        o.backstop_max_variables = caps[k];
        o.backstop_pivot_budget = budgets[k];
        o.backstop_accept = accepts[k];
        cr_assert_eq(heft_world_set_solver_options(w, &o), HEFT_OK);
        text = heft_world_save_text(w, NULL, &n);
        cr_assert_not_null(text);
        cr_assert_not_null(strstr(text, "backstop_max_variables"));
        cr_assert_not_null(strstr(text, "backstop_pivot_budget"));
        heft_world *back = heft_world_load_text(text, n, "backstop", NULL);
        cr_assert_not_null(back, "%s", heft_last_error());
        const heft_solver_options got = heft_world_solver_options(back);
        cr_assert_eq(got.backstop_max_variables, caps[k]);
        cr_assert_eq(got.backstop_pivot_budget, budgets[k]);
        cr_assert_eq(got.backstop_accept, accepts[k]);
        cr_assert((strstr(text, "backstop_accept") != NULL) == (accepts[k] != 0.0),
                  "backstop_accept written only when not the default");
        size_t n2 = 0;
        char *again = heft_world_save_text(back, NULL, &n2);
        cr_assert(n2 == n && memcmp(text, again, n) == 0, "save -> load -> save changed the text");
        heft_free(again);
        heft_world_destroy(back);
        if (k == 1) {
            /* the file's values out of range: refused, naming the field */
            const struct {
                const char *what, *with, *field;
            } bad[] = {
                {"\"backstop_max_variables\": 4321", "\"backstop_max_variables\": -2",
                 "backstop_max_variables"},
                {"\"backstop_max_variables\": 4321", "\"backstop_max_variables\": 1000001",
                 "backstop_max_variables"},
                {"\"backstop_max_variables\": 4321", "\"backstop_max_variables\": 2.5",
                 "backstop_max_variables"},
                {"\"backstop_pivot_budget\": 150", "\"backstop_pivot_budget\": 0",
                 "backstop_pivot_budget"},
                {"\"backstop_pivot_budget\": 150", "\"backstop_pivot_budget\": 1e300",
                 "backstop_pivot_budget"},
                {"\"backstop_pivot_budget\": 150", "\"backstop_pivot_budget\": \"many\"",
                 "backstop_pivot_budget"},
            };
            for (size_t b = 0; b < sizeof bad / sizeof bad[0]; ++b) {
                char *broken = replace_once(text, bad[b].what, bad[b].with);
                heft_world *none = heft_world_load_text(broken, strlen(broken), "broken", NULL);
                cr_assert_null(none, "%s was taken", bad[b].with);
                cr_assert_not_null(strstr(heft_last_error(), bad[b].field), "%s: %s", bad[b].with,
                                   heft_last_error());
                free(broken);
            }
        }
        heft_free(text);
    }
    heft_world_destroy(w);
}

/* backstop_accept on an island above Lemke's cap (the pyramid of base 10's
 * first island, 1,740 rows, the cap off): with the default the last stages
 * end it within the tolerance; with 1e-10 J they stop once within that,
 * fewer Newton steps, the answer kept and not called converged; a value
 * below the tolerance changes nothing, to the bit. */
Test(backstop_options, accept_stops_the_last_stages_early_and_never_claims_convergence) {
    heft_mlcp *p = read_testdata("pyramid10-step1.mlcp");
    const int n = p->n;
    const heft_solver_vtable *v = heft_solver_find("bpp-skyline");
    cr_assert_not_null(v);
    double *exact = malloc(sizeof(double) * (size_t)n), *x = malloc(sizeof(double) * (size_t)n);
    const double accepts[3] = {0.0, 1e-10, 1e-13};
    heft_solver_stats st[3];
    int rc[3];
    for (int k = 0; k < 3; ++k) {
        heft_solver_options o = heft_solver_default_options();
        o.backstop_max_variables = HEFT_BACKSTOP_OFF;
        o.backstop_accept = accepts[k];
        cr_assert_eq(heft_solver_options_check(&o, NULL, 0), 0);
        void *state = v->create(&o);
        cr_assert_not_null(state);
        memset(&st[k], 0, sizeof st[k]);
        rc[k] = v->solve(state, p, k == 0 ? exact : x, &st[k]);
        v->destroy(state);
        const heft_mlcp_error e = heft_mlcp_measure(p, k == 0 ? exact : x, NULL);
        cr_log_info("accept %.0e: %s, %.3e J, %d Newton steps", accepts[k],
                    rc[k] == HEFT_SOLVE_OK ? "converged" : "not converged", e.max,
                    st[k].newton_steps);
        cr_assert_float_eq(e.max, st[k].error_max, 1e-300, "the error reported is the measure's");
    }
    const double tau = heft_solver_default_options().tolerance;
    cr_assert_eq(rc[0], HEFT_SOLVE_OK);
    cr_assert_leq(st[0].error_max, tau);
    /* stopped within 1e-10 J, short of the tolerance: kept, not converged */
    cr_assert_eq(rc[1], HEFT_SOLVE_NOT_CONVERGED);
    cr_assert_eq(st[1].answer, HEFT_ANSWER_BACKSTOP);
    cr_assert_gt(st[1].error_max, tau);
    cr_assert_leq(st[1].error_max, 1e-10);
    cr_assert_lt(st[1].newton_steps, st[0].newton_steps);
    /* below the tolerance: the default's solve */
    cr_assert_eq(rc[2], rc[0]);
    cr_assert_eq(st[2].newton_steps, st[0].newton_steps);
    cr_assert_eq(memcmp(x, exact, sizeof(double) * (size_t)n), 0);
    free(exact);
    free(x);
    heft_mlcp_destroy(p);
}
