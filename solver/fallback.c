/* Heft: the rescue of a failed or unconverged solve (mlcp.h
 * "heft_solve_with_fallback"), the policy the engine applies around every
 * island's solver.
 *
 * A solve that failed, or whose answer holds NaN or Inf, is solved again by
 * PGS, which cannot diverge (docs/architecture.md "The step"). A pivoting
 * solver that ran out of pivots (it can cycle on friction, [Ho 2022]
 * §2.5.3) hands back its best index sets, whose impulses may be far from any
 * answer (1e15 J seen on a stack of boxes, and the stack thrown apart). PGS
 * then polishes that answer, started from it (the joints' impulses of a near
 * answer are kept, which a PGS solve from the last step's impulses loses on
 * heavy loads), and solves the problem from the warm start too; the answer
 * with the smallest MLCP error of the three is kept. */
#include <math.h>
#include <string.h>

#include "mlcp.h"
#include "pgs.h"
#include "row_math.h"
#include "workspace.h"

struct heft_fallback {
    void *pgs; /* heft_pgs_solver's state, with the caller's options */
    double *work, *tried;
    size_t work_cap, tried_cap;
};

heft_fallback *heft_fallback_create(const heft_solver_options *options) {
    heft_fallback *f = heft_alloc(sizeof *f);
    if (f == NULL)
        return NULL;
    memset(f, 0, sizeof *f);
    f->pgs = heft_pgs_create_inner(options);
    if (f->pgs == NULL) {
        heft_free(f);
        return NULL;
    }
    return f;
}

void heft_fallback_destroy(heft_fallback *f) {
    if (f == NULL)
        return;
    heft_pgs_solver.destroy(f->pgs);
    heft_free(f->work);
    heft_free(f->tried);
    heft_free(f);
}

int heft_fallback_reserve(heft_fallback *f, int rows, int bodies) {
    if (f == NULL || rows < 0 || bodies < 0)
        return 0;
    /* the rescue's PGS too: it runs only after a failed or unconverged
     * solve, and the winch under bpp-skyline allocated its workspace minutes
     * into a run, when its first rescue came */
    return HEFT_RESERVE(f->work, f->work_cap, (size_t)rows + 6 * (size_t)bodies + 1) &&
           HEFT_RESERVE(f->tried, f->tried_cap, (size_t)rows + 1) &&
           heft_pgs_reserve_size(f->pgs, rows, bodies, 1);
}

int heft_solve_with_fallback(heft_fallback *f, const heft_solver_vtable *solver, void *state,
                             const heft_mlcp *p, double *lambda, heft_solver_stats *stats,
                             heft_fallback_report *report) {
    const int n = p->n;
    const size_t vec = sizeof(double) * (size_t)(n > 0 ? n : 0);
    int kept_rescue = 0, sweeps = 0;
    memset(stats, 0, sizeof *stats);
    int rc = state != NULL ? solver->solve(state, p, lambda, stats) : HEFT_SOLVE_FAILED;
    if (rc == HEFT_SOLVE_FAILED || !heft_all_finite(lambda, (size_t)n)) {
        heft_solver_stats fs;
        memset(&fs, 0, sizeof fs);
        rc = f != NULL ? heft_pgs_solver.solve(f->pgs, p, lambda, &fs) : HEFT_SOLVE_FAILED;
        stats->answer = HEFT_ANSWER_PGS;
        if (rc == HEFT_SOLVE_FAILED || !heft_all_finite(lambda, (size_t)n)) {
            memset(lambda, 0, vec);
            stats->answer = HEFT_ANSWER_ZERO;
        }
        sweeps += fs.iterations;
        kept_rescue = 1;
    }
    stats->n = n;
    stats->converged = rc == HEFT_SOLVE_OK;
    /* every solver's answer measured the same way (mlcp-format.md) */
    const size_t work_count = (size_t)(n > 0 ? n : 0) + 6 * (size_t)p->nbodies + 1;
    double *work = f != NULL && HEFT_RESERVE(f->work, f->work_cap, work_count) ? f->work : NULL;
    heft_mlcp_error e;
    if (!kept_rescue && solver->measures_answer) {
        /* the solver measured this very answer: 9% of the 1,000 boxes'
         * step went to measuring each island's answer, half of it twice */
        e.max = stats->error_max;
        e.sum = stats->error_sum;
        e.worst_row = -1;
        e.bound_violations = stats->bound_violations;
        e.nonfinite = 0; /* all finite, checked above */
    } else {
        e = heft_mlcp_measure(p, lambda, work);
    }
    if (rc == HEFT_SOLVE_NOT_CONVERGED && !kept_rescue && f != NULL && solver != &heft_pgs_solver &&
        HEFT_RESERVE(f->tried, f->tried_cap, (size_t)n + 1)) {
        for (int attempt = 0; attempt < 2; ++attempt) {
            heft_mlcp from = *p;
            if (attempt == 0)
                from.lambda0 = lambda; /* polish the solver's answer */
            heft_solver_stats fs;
            memset(&fs, 0, sizeof fs);
            const int prc = heft_pgs_solver.solve(f->pgs, &from, f->tried, &fs);
            sweeps += fs.iterations;
            if (prc != HEFT_SOLVE_FAILED && heft_all_finite(f->tried, (size_t)n)) {
                const heft_mlcp_error pe = heft_mlcp_measure(p, f->tried, work);
                if (pe.max < e.max) {
                    memcpy(lambda, f->tried, vec);
                    e = pe;
                    kept_rescue = 1;
                    stats->answer = HEFT_ANSWER_PGS;
                }
            }
        }
    }
    stats->error_max = e.max;
    stats->error_sum = e.sum;
    stats->bound_violations = e.bound_violations;
    stats->iterations += sweeps;
    if (report != NULL) {
        report->rescued = kept_rescue;
        report->rescue_sweeps = sweeps;
    }
    return rc;
}
