/* Heft: the solver registry (docs/architecture.md "The solver interface").
 *
 * Solvers are tables of functions found by a short name. The built-in ones
 * sit in the table from the start; an application may add its own. The table
 * has a fixed capacity so registering never allocates. */
#include "mlcp.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The built-in solvers, one file each. */
extern const heft_solver_vtable heft_pgs_solver;
extern const heft_solver_vtable heft_bpp_solver;
extern const heft_solver_vtable heft_bpp_downdate_solver;
extern const heft_solver_vtable heft_bpp_skyline_solver;
extern const heft_solver_vtable heft_ldl_pgs_solver;
extern const heft_solver_vtable heft_baraff_solver;
extern const heft_solver_vtable heft_bpp_pcg_solver;
extern const heft_solver_vtable heft_pgcg_solver;
extern const heft_solver_vtable heft_cr_solver;
extern const heft_solver_vtable heft_auto_solver;
#ifdef HEFT_HAVE_CHOLMOD
extern const heft_solver_vtable heft_bpp_sparse_solver;
#endif

#define HEFT_SOLVER_CAPACITY 32

static const heft_solver_vtable *solvers[HEFT_SOLVER_CAPACITY] = {
    &heft_pgs_solver,         &heft_bpp_solver,     &heft_bpp_downdate_solver,
    &heft_bpp_skyline_solver, &heft_ldl_pgs_solver, &heft_baraff_solver,
    &heft_bpp_pcg_solver,     &heft_pgcg_solver,    &heft_cr_solver,
#ifdef HEFT_HAVE_CHOLMOD
    &heft_bpp_sparse_solver,
#endif
    &heft_auto_solver,
};
static int solver_count = 10
#ifdef HEFT_HAVE_CHOLMOD
                          + 1
#endif
    ;

const heft_solver_vtable *heft_solver_find(const char *name) {
    if (name == NULL)
        return NULL;
    for (int i = 0; i < solver_count; ++i)
        if (strcmp(solvers[i]->name, name) == 0)
            return solvers[i];
    return NULL;
}

int heft_solver_count(void) {
    return solver_count;
}

const heft_solver_vtable *heft_solver_at(int index) {
    if (index < 0 || index >= solver_count)
        return NULL;
    return solvers[index];
}

/* Returns the new solver's index, or -1 for a NULL table or name, a missing
 * create/solve/destroy, a name already taken, or a full table. The table is
 * kept by pointer: it must outlive its use. */
int heft_solver_register(const heft_solver_vtable *vtable) {
    if (vtable == NULL || vtable->name == NULL || vtable->create == NULL || vtable->solve == NULL ||
        vtable->destroy == NULL)
        return -1;
    if (heft_solver_find(vtable->name) != NULL || solver_count >= HEFT_SOLVER_CAPACITY)
        return -1;
    solvers[solver_count] = vtable;
    return solver_count++;
}

heft_solver_options heft_solver_default_options(void) {
    heft_solver_options o;
    o.max_iterations = 50;
    o.tolerance = 1e-12;
    o.relaxation = 1.0;
    o.warm_start = 1;
    o.max_pivots = 35;
    o.bpp_pgs_sweeps = 1000;
    o.keep_index_sets = 1;
    o.skyline_refactor_fraction = 0.15;
    o.backstop_max_variables = HEFT_BACKSTOP_BUILD_CAP;
    o.backstop_pivot_budget = 60.0;
    o.backstop_accept = 0.0;
    o.preconditioner = HEFT_PRECOND_IC0_IMAGINARY;
    o.pcg_tolerance = 1e-6;
    o.pcg_max_iterations = 1000;
    o.ict_drop_tolerance = 1e-3;
    o.ict_fill = 10;
    o.adaptive_regularization = 0;
    o.regularization_shift = 1e-3;
    o.regularization_pivot_limit = 10;
    o.cr_tolerance = 1e-10;
    o.cr_max_iterations = 5000;
    o.ldl_ordering = HEFT_LDL_ORDER_MIN_EDGE;
    o.ldl_shatter_degree = 20;
    o.ldl_shard_constraints = 2;
    o.ldl_regularization = 1e-12;
    o.pgs_light_ratio = 100.0;
    return o;
}

/* One refusal: the field, its documented range and the value given. */
static int refuse_int(char *err, size_t errlen, const char *field, const char *range, int got) {
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "solver options: %s must be %s (got %d)", field, range, got);
    return -1;
}

static int refuse_double(char *err, size_t errlen, const char *field, const char *range,
                         double got) {
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "solver options: %s must be %s (got %g)", field, range, got);
    return -1;
}

/* Every field of heft_solver_options, in declaration order; the ranges are
 * the ones mlcp.h documents (and docs/limits.md lists). A NaN fails every
 * comparison, so each double test is written to be false for NaN. */
int heft_solver_options_check(const heft_solver_options *o, char *err, size_t errlen) {
#define CHECK_INT(field, ok, range)                                                                \
    do {                                                                                           \
        const int v = o->field;                                                                    \
        if (!(ok))                                                                                 \
            return refuse_int(err, errlen, #field, range, v);                                      \
    } while (0)
#define CHECK_DOUBLE(field, ok, range)                                                             \
    do {                                                                                           \
        const double v = o->field;                                                                 \
        if (!(ok))                                                                                 \
            return refuse_double(err, errlen, #field, range, v);                                   \
    } while (0)
    if (o == NULL) {
        if (err != NULL && errlen > 0)
            snprintf(err, errlen, "solver options: options must not be NULL");
        return -1;
    }
    CHECK_INT(max_iterations, v >= 0, ">= 0");
    CHECK_DOUBLE(tolerance, v >= 0.0 && isfinite(v), "finite and >= 0");
    CHECK_DOUBLE(relaxation, v > 0.0 && v < 2.0, "in (0, 2)");
    CHECK_INT(warm_start, v == 0 || v == 1, "0 or 1");
    CHECK_INT(max_pivots, v >= 0, ">= 0");
    CHECK_INT(bpp_pgs_sweeps, v >= 0, ">= 0 (0: no restart from PGS)");
    CHECK_INT(keep_index_sets, v == 0 || v == 1, "0 or 1");
    CHECK_DOUBLE(skyline_refactor_fraction, v >= 0.0 && v <= 1.0, "in [0, 1]");
    CHECK_INT(backstop_max_variables,
              v >= HEFT_BACKSTOP_OFF && v <= HEFT_BACKSTOP_MAX_VARIABLES_LIMIT,
              "-1 (off), 0 (the build's cap) or 1 to 1000000 LCP variables");
    CHECK_DOUBLE(backstop_pivot_budget, v > 0.0 && v <= HEFT_BACKSTOP_PIVOT_BUDGET_LIMIT,
                 "in (0, 10000] pivots per LCP variable");
    CHECK_DOUBLE(backstop_accept, v >= 0.0 && isfinite(v), "finite and >= 0 J (0: the tolerance)");
    CHECK_INT(preconditioner, v >= 0 && v < HEFT_PRECOND_COUNT,
              "a heft_preconditioner, 0 (jacobi) to 4 (ic0-imaginary)");
    CHECK_DOUBLE(pcg_tolerance, v >= 0.0 && v < 1.0, "in [0, 1)");
    CHECK_INT(pcg_max_iterations, v >= 1, ">= 1");
    CHECK_DOUBLE(ict_drop_tolerance, v >= 0.0 && isfinite(v), "finite and >= 0");
    CHECK_INT(ict_fill, v >= 0, ">= 0 (more than a column's rows keeps them all)");
    CHECK_INT(adaptive_regularization, v == 0 || v == 1, "0 or 1");
    CHECK_DOUBLE(regularization_shift, v >= 0.0 && v <= 1.0, "in [0, 1] (relative to A_ii)");
    CHECK_INT(regularization_pivot_limit, v >= 1, ">= 1");
    CHECK_DOUBLE(cr_tolerance, v >= 0.0 && v < 1.0, "in [0, 1)");
    CHECK_INT(cr_max_iterations, v >= 1, ">= 1");
    CHECK_INT(ldl_ordering, v >= 0 && v < HEFT_LDL_ORDER_COUNT,
              "HEFT_LDL_ORDER_MIN_EDGE (0), _MIN_DEGREE (1) or _NATURAL (2)");
    CHECK_INT(ldl_shatter_degree, v >= 0, ">= 0 (0: never shatter)");
    CHECK_INT(ldl_shard_constraints, v >= 1, ">= 1");
    CHECK_DOUBLE(ldl_regularization, v >= 0.0 && v < 1.0, "in [0, 1)");
    CHECK_DOUBLE(pgs_light_ratio, v == 0.0 || (v >= 1.0 && isfinite(v)),
                 "0 (off) or finite and >= 1 (a mass ratio)");
#undef CHECK_INT
#undef CHECK_DOUBLE
    return 0;
}

int heft_solve(const char *solver, const heft_solver_options *options, const heft_mlcp *p,
               double *lambda, heft_solver_stats *stats) {
    const double start = heft_time_ms();
    heft_solver_stats local;
    if (stats == NULL)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    stats->n = p->n;

    const heft_solver_vtable *vt = heft_solver_find(solver);
    if (vt == NULL)
        return HEFT_SOLVE_FAILED;
    const heft_solver_options defaults = heft_solver_default_options();
    void *state = vt->create(options != NULL ? options : &defaults);
    if (state == NULL)
        return HEFT_SOLVE_FAILED;
    int rc = vt->solve(state, p, lambda, stats);
    vt->destroy(state);

    /* Measured here, whatever the solver reported, so every solver's answer
     * is judged by the same yardstick. */
    const heft_mlcp_error err = heft_mlcp_measure(p, lambda, NULL);
    stats->error_max = err.max;
    stats->error_sum = err.sum;
    stats->bound_violations = err.bound_violations;
    if (err.nonfinite > 0)
        rc = HEFT_SOLVE_FAILED;
    stats->time_total_ms = heft_time_ms() - start;
    return rc;
}
