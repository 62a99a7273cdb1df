/* The "auto" solver (solver/auto.c, docs/auto-solver.md): which solver it
 * hands an island to, that its answer is that solver's to the bit, that the
 * statistics name it, and the engine's sums of the row updates. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "body_space.h"
#include "heft/heft.h"
#include "mlcp.h"
#include "runner.h"
#include "testdata.h"

/* copies of one structured problem side by side, bodies and rows renumbered:
 * an island of copies * n rows, block diagonal */
static heft_mlcp *tile(const heft_mlcp *q, int copies) {
    const int n = q->n, nb = q->nbodies;
    heft_mlcp *p = heft_mlcp_create(n * copies, nb * copies, HEFT_MLCP_STRUCTURED | HEFT_MLCP_META);
    cr_assert_not_null(p);
    for (int c = 0; c < copies; ++c) {
        for (int i = 0; i < n; ++i) {
            const int k = c * n + i;
            p->b[k] = q->b[i];
            p->lo[k] = q->lo[i];
            p->hi[k] = q->hi[i];
            p->findex[k] = q->findex[i] >= 0 ? q->findex[i] + c * n : -1;
            p->kind[k] = q->kind != NULL ? q->kind[i] : HEFT_ROW_BILATERAL;
            p->block[k] = q->block != NULL ? q->block[i] + c * n : k;
            p->lambda0[k] = q->lambda0 != NULL ? q->lambda0[i] : 0.0;
            p->epsilon[k] = q->epsilon[i];
            p->rows[k] = q->rows[i];
            p->rows[k].a = q->rows[i].a >= 0 ? q->rows[i].a + c * nb : -1;
            p->rows[k].b = q->rows[i].b >= 0 ? q->rows[i].b + c * nb : -1;
        }
        for (int j = 0; j < nb; ++j)
            p->bodies[c * nb + j] = q->bodies[j];
    }
    return p;
}

/* Solves p with one "auto" state and with the named solver alone; the two
 * answers must be the same bits, and the statistics must name it. */
static void solves_as(void *state, const heft_mlcp *p, const char *expected) {
    const heft_solver_vtable *vt = heft_solver_find("auto");
    double *a = malloc(sizeof(double) * (size_t)p->n);
    double *b = malloc(sizeof(double) * (size_t)p->n);
    heft_solver_stats sa, sb;
    memset(&sa, 0, sizeof sa);
    const int rc = vt->solve(state, p, a, &sa);
    const int rb = heft_solve(expected, NULL, p, b, &sb);
    cr_assert_eq(rc, rb, "n %d: auto rc %d, %s rc %d", p->n, rc, expected, rb);
    cr_assert_not_null(sa.delegate, "n %d: no delegate named", p->n);
    cr_assert_str_eq(sa.delegate, expected, "n %d", p->n);
    cr_assert_null(sb.delegate, "a solver other than auto names no delegate");
    cr_assert_eq(memcmp(a, b, sizeof(double) * (size_t)p->n), 0, "n %d: answers differ", p->n);
    const heft_mlcp_error e = heft_mlcp_measure(p, a, NULL);
    cr_assert_lt(e.max, 1e-10, "n %d: error %.3e J", p->n, e.max);
    free(a);
    free(b);
}

Test(auto_solver, is_registered_as_a_direct_solver) {
    const heft_solver_vtable *vt = heft_solver_find("auto");
    cr_assert_not_null(vt);
    cr_assert_eq(vt->direct, 1);
}

Test(auto_solver, gives_joint_islands_and_small_contact_islands_to_bpp_skyline) {
    const heft_solver_options o = heft_solver_default_options();
    const char *files[] = {"chain-step120.mlcp", "winch-step70.mlcp", "boxes-pgs-step149.mlcp",
                           "tower15-step30.mlcp"};
    for (size_t k = 0; k < sizeof files / sizeof files[0]; ++k) {
        heft_mlcp *p = read_testdata(files[k]);
        void *state = heft_solver_find("auto")->create(&o);
        cr_assert_not_null(state);
        solves_as(state, p, "bpp-skyline");
        heft_solver_find("auto")->destroy(state);
        heft_mlcp_destroy(p);
    }
    /* 70 copies of the box stack made into joint rows only (no bounds, no
     * friction): 4,200 rows, still banded, still bpp-skyline */
    heft_mlcp *q = read_testdata("boxes-pgs-step149.mlcp");
    heft_mlcp *p = tile(q, 70);
    for (int i = 0; i < p->n; ++i) {
        p->lo[i] = -INFINITY;
        p->hi[i] = INFINITY;
        p->findex[i] = -1;
        p->kind[i] = HEFT_ROW_BILATERAL;
    }
    void *state = heft_solver_find("auto")->create(&o);
    solves_as(state, p, "bpp-skyline");
    heft_solver_find("auto")->destroy(state);
    heft_mlcp_destroy(p);
    heft_mlcp_destroy(q);
}

#ifdef HEFT_HAVE_CHOLMOD
Test(auto_solver, gives_large_contact_islands_out_of_body_space_to_bpp_sparse_with_hysteresis) {
    const heft_solver_options o = heft_solver_default_options();
    heft_mlcp *q = read_testdata("boxes-pgs-step149.mlcp"); /* 60 contact rows */
    void *state = heft_solver_find("auto")->create(&o);
    cr_assert_not_null(state);
    /* 4,200 rows: bpp-sparse; 3,480 (above the way back, 3,200): still
     * bpp-sparse; 3,000: bpp-skyline; 3,480 again: bpp-skyline (below the
     * way there, 4,000). Each copy has one row without compliance, so that
     * bpp-skyline cannot take it in body space (below). */
    const int copies[] = {70, 58, 50, 58};
    const char *expected[] = {"bpp-sparse", "bpp-sparse", "bpp-skyline", "bpp-skyline"};
    for (int k = 0; k < 4; ++k) {
        heft_mlcp *p = tile(q, copies[k]);
        p->epsilon[0] = 0.0;
        cr_assert(!heft_body_space_fits(p, HEFT_BODY_SPACE_MIN_COMPLIANCE));
        solves_as(state, p, expected[k]);
        heft_mlcp_destroy(p);
    }
    /* with the compliance on every row, 4,200 rows on 350 boxes (2 rows a
     * body coordinate): bpp-skyline, in body space */
    heft_mlcp *p = tile(q, 70);
    cr_assert(heft_body_space_fits(p, HEFT_BODY_SPACE_MIN_COMPLIANCE));
    solves_as(state, p, "bpp-skyline");
    heft_mlcp_destroy(p);
    heft_solver_find("auto")->destroy(state);
    heft_mlcp_destroy(q);
}
#else
Test(auto_solver, gives_every_island_to_bpp_skyline_without_cholmod) {
    const heft_solver_options o = heft_solver_default_options();
    heft_mlcp *q = read_testdata("boxes-pgs-step149.mlcp");
    heft_mlcp *p = tile(q, 70);
    void *state = heft_solver_find("auto")->create(&o);
    solves_as(state, p, "bpp-skyline");
    heft_solver_find("auto")->destroy(state);
    heft_mlcp_destroy(p);
    heft_mlcp_destroy(q);
}
#endif

/* ---- the engine's sums ----------------------------------------------------------------- */

typedef struct step_sums {
    int steps, mismatches, unnamed;
    long updates, downdates;
} step_sums;

/* After every step: the step's updates and downdates are the islands' sums
 * (one substep), and under auto every island names its solver. */
static void check_step(void *user, heft_world *world, int step) {
    (void)step;
    step_sums *s = user;
    const heft_step_stats *st = heft_world_stats(world);
    long updates = 0, downdates = 0;
    for (int i = 0; i < st->islands; ++i) {
        heft_island_stats ist;
        cr_assert_eq(heft_world_island_stats(world, i, &ist), HEFT_OK);
        updates += ist.solver.updates;
        downdates += ist.solver.downdates;
        if (ist.rows > 0 && ist.solver.delegate == NULL)
            s->unnamed++;
    }
    if (st->substeps == 1 && (updates != st->updates || downdates != st->downdates))
        s->mismatches++;
    s->updates += st->updates;
    s->downdates += st->downdates;
    s->steps++;
}

Test(auto_solver, step_statistics_sum_the_islands_row_updates) {
    const char *solvers[] = {"auto", "bpp-sparse"};
    for (int k = 0; k < 2; ++k) {
        if (heft_solver_find(solvers[k]) == NULL)
            continue; /* bpp-sparse without CHOLMOD */
        step_sums sums = {0, 0, 0, 0, 0};
        run_config cfg = {0};
        cfg.scenario = "chain";
        cfg.solver = solvers[k];
        cfg.steps = 120;
        cfg.frame = check_step;
        cfg.frame_user = &sums;
        run_result r;
        cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
        cr_log_info("chain under %s: %ld row updates, %ld downdates over %d steps", solvers[k],
                    sums.updates, sums.downdates, sums.steps);
        cr_assert_eq(sums.steps, 120);
        cr_assert_eq(sums.mismatches, 0, "%s: %d steps whose sums differ", solvers[k],
                     sums.mismatches);
        cr_assert_eq(r.updates, sums.updates, "the run's total %ld, the steps' %ld", r.updates,
                     sums.updates);
        if (k == 0) {
            cr_assert_eq(sums.unnamed, 0, "%d island solves under auto name no solver",
                         sums.unnamed);
            cr_assert_eq(r.delegate_count, 1);
            cr_assert_str_eq(r.delegate_names[0], "bpp-skyline");
        } else {
            /* the sparse factor followed the pivoting by row additions */
            cr_assert_gt(sums.updates, 0);
        }
        run_result_free(&r);
    }
}
