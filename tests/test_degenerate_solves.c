/* Every registered solver, through heft_solve, on the degenerate families an
 * island or an .mlcp file can bring (non-symmetric dense A, indefinite A,
 * zero diagonal, duplicated rows, huge and tiny scales, NaN in b): each must
 * return a status, spend at most its budget of passes, and never answer NaN
 * with a status other than HEFT_SOLVE_FAILED.
 *
 * Each solve runs in a child process so that a solver that never returns is
 * reported (and fails the test) instead of hanging the suite; the child's
 * alarm is only that safety net, the assertions are on statuses and counts. */
#include <criterion/criterion.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mlcp.h"
#include "planted.h"

enum {
    FAMILY_NON_SYMMETRIC,
    FAMILY_INDEFINITE,
    FAMILY_ZERO_DIAGONAL,
    FAMILY_DUPLICATED_ROWS,
    FAMILY_HUGE_SCALE,
    FAMILY_TINY_SCALE,
    FAMILY_NAN_IN_B,
    FAMILY_COUNT
};
static const char *const family_names[FAMILY_COUNT] = {
    "non-symmetric", "indefinite", "zero diagonal", "duplicated rows",
    "huge scale",    "tiny scale", "NaN in b"};

#define N 8

/* The options of the test: small budgets, so that a loop which spends its
 * budget ends at once. */
static heft_solver_options small_budgets(void) {
    heft_solver_options o = heft_solver_default_options();
    o.max_iterations = 50;
    o.max_pivots = 20;
    o.bpp_pgs_sweeps = 50;
    o.pcg_max_iterations = 100;
    o.cr_max_iterations = 200;
    return o;
}

/* Passes a solve may spend with those options: every counter the solvers
 * report (sweeps, pivots, CG iterations, backstop pivots, restarts' sweeps)
 * is bounded by a budget of the options, times a margin for the nested ones
 * (one PCG solve per pivot, one backstop per restart). */
static long pass_bound(const heft_solver_options *o) {
    const long per = (long)o->max_iterations + o->max_pivots + o->bpp_pgs_sweeps +
                     o->pcg_max_iterations + o->cr_max_iterations;
    return per * (o->max_pivots + 2) * 4;
}

static long passes(const heft_solver_stats *s) {
    return (long)s->iterations + s->inner_iterations + s->backstop_pivots + s->pgs_sweeps +
           s->frozen_rounds;
}

/* A problem of the family: a planted structured problem with its dense A,
 * then spoiled. dense_only drops the structured form (the reader's view). */
static heft_mlcp *make_problem(int family, int dense_only, uint64_t seed, planted_problem *pp) {
    *pp = planted_structured(N, 0.5, 1, seed);
    heft_mlcp *p = pp->p;
    double *A = p->A;
    switch (family) {
    case FAMILY_NON_SYMMETRIC:
        A[5 * N + 2] += 1.0;
        A[1 * N + 6] -= 0.7;
        dense_only = 1; /* only a dense A can be non-symmetric */
        break;
    case FAMILY_INDEFINITE:
        if (p->epsilon) {
            p->epsilon[3] = -4.0 * A[3 * N + 3];
        }
        A[3 * N + 3] *= -3.0;
        break;
    case FAMILY_ZERO_DIAGONAL:
        for (int k = 0; k < 6; ++k) {
            p->rows[2].ja[k] = p->rows[2].jb[k] = 0.0;
        }
        p->epsilon[2] = 0.0;
        heft_mlcp_assemble_dense(p, A);
        break;
    case FAMILY_DUPLICATED_ROWS:
        p->rows[4] = p->rows[1];
        p->epsilon[4] = p->epsilon[1] = 0.0;
        p->b[4] = p->b[1];
        p->lo[4] = p->lo[1];
        p->hi[4] = p->hi[1];
        p->findex[4] = p->findex[1];
        heft_mlcp_assemble_dense(p, A);
        break;
    case FAMILY_HUGE_SCALE:
    case FAMILY_TINY_SCALE: {
        const double s = family == FAMILY_HUGE_SCALE ? 1e150 : 1e-150;
        for (int k = 0; k < p->nbodies; ++k) {
            p->bodies[k].inv_mass *= s;
            for (int c = 0; c < 6; ++c) {
                p->bodies[k].inv_inertia[c] *= s;
            }
        }
        for (int i = 0; i < N; ++i) {
            p->epsilon[i] *= s;
            p->b[i] *= s;
        }
        heft_mlcp_assemble_dense(p, A);
        break;
    }
    case FAMILY_NAN_IN_B:
        p->b[3] = NAN;
        break;
    }
    if (dense_only) {
        p->rows = NULL;
        p->nbodies = 0;
        p->bodies = NULL;
        p->epsilon = NULL;
    }
    return p;
}

typedef struct outcome {
    int status; /* heft_solve's return */
    int nonfinite;
    long passes;
} outcome;

/* Runs one solve in a child; returns 0 and fills out, or the signal that
 * ended the child (SIGALRM: it did not return). */
static int solve_in_child(const char *solver, int family, int dense_only, uint64_t seed,
                          outcome *out) {
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    fflush(NULL);
    const pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        alarm(60); /* the safety net only: a hang becomes a reported failure */
        planted_problem pp;
        heft_mlcp *p = make_problem(family, dense_only, seed, &pp);
        heft_solver_options o = small_budgets();
        double lambda[N];
        heft_solver_stats stats;
        outcome r;
        r.status = heft_solve(solver, &o, p, lambda, &stats);
        r.nonfinite = 0;
        for (int i = 0; i < N; ++i) {
            r.nonfinite += !isfinite(lambda[i]);
        }
        r.passes = passes(&stats);
        if (write(fds[1], &r, sizeof r) != (ssize_t)sizeof r) {
            _exit(3);
        }
        /* the planted arrays point into pp (dense_only cleared our copies) */
        pp.p->rows = NULL;
        planted_free(&pp);
        _exit(0);
    }
    close(fds[1]);
    ssize_t got = read(fds[0], out, sizeof *out);
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st)) {
        return WTERMSIG(st);
    }
    cr_assert_eq(got, (ssize_t)sizeof *out, "%s: the child wrote no outcome (exit %d)", solver,
                 WEXITSTATUS(st));
    return 0;
}

Test(degenerate_solves, every_solver_returns_a_status_within_its_budget) {
    const heft_solver_options o = small_budgets();
    const long bound = pass_bound(&o);
    int cases = 0, failed_status = 0;
    for (int s = 0; s < heft_solver_count(); ++s) {
        const char *solver = heft_solver_at(s)->name;
        for (int family = 0; family < FAMILY_COUNT; ++family) {
            for (int dense_only = 0; dense_only < 2; ++dense_only) {
                if (family == FAMILY_NON_SYMMETRIC && !dense_only) {
                    continue; /* always dense only */
                }
                for (uint64_t seed = 1; seed <= 2; ++seed) {
                    outcome r;
                    const int sig = solve_in_child(solver, family, dense_only, seed, &r);
                    cr_assert_eq(sig, 0, "%s on %s (%s, seed %d) did not return (signal %d)",
                                 solver, family_names[family], dense_only ? "dense" : "both forms",
                                 (int)seed, sig);
                    cr_assert(r.status == HEFT_SOLVE_OK || r.status == HEFT_SOLVE_NOT_CONVERGED ||
                                  r.status == HEFT_SOLVE_FAILED,
                              "%s on %s: status %d", solver, family_names[family], r.status);
                    cr_assert(r.status == HEFT_SOLVE_FAILED || r.nonfinite == 0,
                              "%s on %s: %d non-finite impulses with status %d", solver,
                              family_names[family], r.nonfinite, r.status);
                    cr_assert_leq(r.passes, bound, "%s on %s: %ld passes, budget %ld", solver,
                                  family_names[family], r.passes, bound);
                    failed_status += r.status == HEFT_SOLVE_FAILED;
                    ++cases;
                }
            }
        }
    }
    cr_log_info("%d degenerate solves returned a status (%d of them FAILED)", cases, failed_status);
    cr_assert_gt(cases, 100);
}

/* NaN in b: no solver may answer it as converged */
Test(degenerate_solves, nan_in_b_is_never_converged) {
    for (int s = 0; s < heft_solver_count(); ++s) {
        const char *solver = heft_solver_at(s)->name;
        outcome r;
        cr_assert_eq(solve_in_child(solver, FAMILY_NAN_IN_B, 0, 3, &r), 0, "%s", solver);
        cr_assert_neq(r.status, HEFT_SOLVE_OK, "%s converged on a NaN b", solver);
    }
}

/* Every solver runs in the one solve frame (solver/solve_frame.c): nothing
 * to solve is converged, a negative size is refused, and an answer's
 * statistics carry its size, its total time and the error measure of what
 * was answered. */
Test(degenerate_solves, every_solver_reports_through_the_solve_frame) {
    planted_problem pp = planted_structured(24, 0.1, 1, 5);
    heft_mlcp *p = pp.p;
    cr_assert_not_null(p);
    double lambda[24];
    double *work = malloc(sizeof(double) * (size_t)(p->n + 6 * p->nbodies));
    const heft_solver_options o = heft_solver_default_options();
    for (int s = 0; s < heft_solver_count(); ++s) {
        /* the solver's own statistics: heft_solve would measure again */
        const heft_solver_vtable *vt = heft_solver_at(s);
        void *state = vt->create(&o);
        cr_assert_not_null(state, "%s", vt->name);
        heft_solver_stats st;
        heft_mlcp empty = {0};
        cr_assert_eq(vt->solve(state, &empty, lambda, &st), HEFT_SOLVE_OK, "%s", vt->name);
        cr_assert_eq(st.converged, 1, "%s", vt->name);
        empty.n = -1;
        cr_assert_eq(vt->solve(state, &empty, lambda, &st), HEFT_SOLVE_FAILED, "%s", vt->name);
        cr_assert_eq(st.n, -1, "%s", vt->name);
        const int rc = vt->solve(state, p, lambda, &st);
        vt->destroy(state);
        cr_assert_neq(rc, HEFT_SOLVE_FAILED, "%s", vt->name);
        cr_assert_eq(st.n, p->n, "%s", vt->name);
        cr_assert_gt(st.time_total_ms, 0.0, "%s", vt->name);
        const heft_mlcp_error e = heft_mlcp_measure(p, lambda, work);
        cr_assert_eq(st.error_max, e.max, "%s: %.17g reported, %.17g measured", vt->name,
                     st.error_max, e.max);
        cr_assert_eq(st.converged, rc == HEFT_SOLVE_OK, "%s", vt->name);
    }
    free(work);
    planted_free(&pp);
}
