/* libFuzzer target: every registered solver on every problem the .mlcp
 * reader accepts, with small budgets. Each solve must return a status, spend
 * at most its budget of passes, and answer NaN or Inf only with
 * HEFT_SOLVE_FAILED (heft_solve measures the answer). A solver that never
 * returns shows up as libFuzzer's timeout. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* big problems only slow the search down: the reader is fuzzed on its own */
#define FUZZ_SOLVE_MAX_DIM 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    heft_mlcp *p = NULL;
    char err[512];
    const int rc = heft_mlcp_read_string(text, &p, NULL, err, sizeof err);
    free(text);
    if (rc != 0)
        return 0;
    if (p->n > FUZZ_SOLVE_MAX_DIM) {
        heft_mlcp_destroy(p);
        return 0;
    }
    heft_solver_options o = heft_solver_default_options();
    o.max_iterations = 30;
    o.max_pivots = 10;
    o.bpp_pgs_sweeps = 30;
    o.pcg_max_iterations = 60;
    o.cr_max_iterations = 120;
    const long per = (long)o.max_iterations + o.max_pivots + o.bpp_pgs_sweeps +
                     o.pcg_max_iterations + o.cr_max_iterations;
    const long bound = per * (o.max_pivots + 2) * 4;
    double *lambda = malloc(sizeof(double) * (size_t)p->n);
    if (lambda == NULL)
        abort();
    for (int s = 0; s < heft_solver_count(); ++s) {
        heft_solver_stats stats;
        const int status = heft_solve(heft_solver_at(s)->name, &o, p, lambda, &stats);
        if (status != HEFT_SOLVE_OK && status != HEFT_SOLVE_NOT_CONVERGED &&
            status != HEFT_SOLVE_FAILED)
            abort();
        const long passes = (long)stats.iterations + stats.inner_iterations +
                            stats.backstop_pivots + stats.pgs_sweeps + stats.frozen_rounds;
        if (passes > bound)
            abort();
        if (status != HEFT_SOLVE_FAILED)
            for (int i = 0; i < p->n; ++i)
                if (!(lambda[i] - lambda[i] == 0.0)) /* NaN or Inf */
                    abort();
    }
    free(lambda);
    heft_mlcp_destroy(p);
    return 0;
}
