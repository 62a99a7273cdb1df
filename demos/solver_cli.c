#include "solver_cli.h"

#include <limits.h>
#include <math.h>
#include <string.h>

const char *const solver_cli_preconditioners[HEFT_PRECOND_COUNT] = {"jacobi", "ic0", "ic0-shift",
                                                                    "ict", "ic0-imaginary"};

static const char *const ldl_orderings[HEFT_LDL_ORDER_COUNT] = {"min-edge", "min-degree",
                                                                "natural"};

void solver_cli_usage(FILE *out, const char *indent) {
    static const char *const lines[] = {
        "[--iterations N] [--tolerance J] [--relaxation W] [--max-pivots N]",
        "[--pgs-restart SWEEPS] [--cold]",
        "[--preconditioner jacobi|ic0|ic0-shift|ict|ic0-imaginary]",
        "[--pcg-tolerance R] [--adaptive-regularization SHIFT]",
        "[--ldl-ordering min-edge|min-degree|natural] [--ldl-shatter N]",
        "[--ldl-shard N] [--ldl-regularization EPS] [--pgs-light-ratio R]",
        "[--backstop-cap VARIABLES|default|off] [--backstop-budget PIVOTS_PER_VARIABLE]",
        "[--backstop-accept J]",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; ++i) {
        fprintf(out, "%s%s\n", indent, lines[i]);
    }
}

int solver_cli_option(int id, const char *v, heft_solver_options *o, char *err, size_t err_size) {
    int rc = 0;
    switch (id) {
    case SOLVER_CLI_ITERATIONS:
        rc = cli_int("--iterations", v, 1, INT_MAX, &o->max_iterations, err, err_size);
        break;
    case SOLVER_CLI_TOLERANCE:
        rc = cli_double("--tolerance", v, 0.0, HUGE_VAL, 0, NULL, &o->tolerance, err, err_size);
        break;
    case SOLVER_CLI_RELAXATION:
        /* PGS over-relaxation converges only inside (0, 2) */
        rc = cli_double("--relaxation", v, 0.0, 2.0, CLI_LO_OPEN | CLI_HI_OPEN, NULL,
                        &o->relaxation, err, err_size);
        break;
    case SOLVER_CLI_MAX_PIVOTS:
        rc = cli_int("--max-pivots", v, 1, INT_MAX, &o->max_pivots, err, err_size);
        break;
    case SOLVER_CLI_PGS_RESTART:
        rc = cli_int("--pgs-restart", v, 0, INT_MAX, &o->bpp_pgs_sweeps, err, err_size);
        break;
    case SOLVER_CLI_COLD:
        o->warm_start = 0;
        break;
    case SOLVER_CLI_PRECONDITIONER: {
        int k = 0;
        rc = cli_choice("--preconditioner", v, solver_cli_preconditioners, HEFT_PRECOND_COUNT, &k,
                        err, err_size);
        if (rc == 0) {
            o->preconditioner = k;
        }
        break;
    }
    case SOLVER_CLI_PCG_TOLERANCE:
        rc = cli_double("--pcg-tolerance", v, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL, &o->pcg_tolerance,
                        err, err_size);
        break;
    case SOLVER_CLI_ADAPTIVE_REGULARIZATION:
        rc = cli_double("--adaptive-regularization", v, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL,
                        &o->regularization_shift, err, err_size);
        if (rc == 0) { /* a refused value changes nothing */
            o->adaptive_regularization = 1;
        }
        break;
    case SOLVER_CLI_LDL_ORDERING: {
        int k = 0;
        rc =
            cli_choice("--ldl-ordering", v, ldl_orderings, HEFT_LDL_ORDER_COUNT, &k, err, err_size);
        if (rc == 0) {
            o->ldl_ordering = k;
        }
        break;
    }
    case SOLVER_CLI_LDL_SHATTER:
        rc = cli_int("--ldl-shatter", v, 0, INT_MAX, &o->ldl_shatter_degree, err, err_size);
        break;
    case SOLVER_CLI_LDL_SHARD:
        rc = cli_int("--ldl-shard", v, 1, INT_MAX, &o->ldl_shard_constraints, err, err_size);
        break;
    case SOLVER_CLI_LDL_REGULARIZATION:
        /* H~_ii = (1 + E) H_ii: below 1, so the diagonal at most doubles */
        rc = cli_double("--ldl-regularization", v, 0.0, 1.0, CLI_HI_OPEN, NULL,
                        &o->ldl_regularization, err, err_size);
        break;
    case SOLVER_CLI_PGS_LIGHT_RATIO: {
        /* 0 turns the light bodies' blocks off; a ratio below 1 means
         * nothing; a refused value leaves the option as it was */
        double ratio = 0.0;
        rc = cli_double("--pgs-light-ratio", v, 0.0, HUGE_VAL, 0, NULL, &ratio, err, err_size);
        if (rc == 0 && ratio > 0.0 && ratio < 1.0) {
            snprintf(err, err_size,
                     "--pgs-light-ratio wants 0 (off) or a mass ratio >= 1, not %.40s", v);
            rc = -1;
        }
        if (rc == 0)
            o->pgs_light_ratio = ratio;
        break;
    }
    case SOLVER_CLI_BACKSTOP_CAP:
        /* the words for the field's two special values, so a command line
         * need not know them */
        if (strcmp(v, "off") == 0) {
            o->backstop_max_variables = HEFT_BACKSTOP_OFF;
        } else if (strcmp(v, "default") == 0) {
            o->backstop_max_variables = HEFT_BACKSTOP_BUILD_CAP;
        } else {
            int cap = 0;
            rc = cli_int("--backstop-cap", v, 1, HEFT_BACKSTOP_MAX_VARIABLES_LIMIT, &cap, err,
                         err_size);
            if (rc != 0) {
                snprintf(err, err_size,
                         "--backstop-cap wants LCP variables from 1 to %d, default or off, not "
                         "\"%.40s\"",
                         HEFT_BACKSTOP_MAX_VARIABLES_LIMIT, v);
            } else {
                o->backstop_max_variables = cap;
            }
        }
        break;
    case SOLVER_CLI_BACKSTOP_BUDGET:
        rc = cli_double("--backstop-budget", v, 0.0, HEFT_BACKSTOP_PIVOT_BUDGET_LIMIT, CLI_LO_OPEN,
                        NULL, &o->backstop_pivot_budget, err, err_size);
        break;
    case SOLVER_CLI_BACKSTOP_ACCEPT:
        rc = cli_double("--backstop-accept", v, 0.0, HUGE_VAL, 0, NULL, &o->backstop_accept, err,
                        err_size);
        break;
    default:
        return 0;
    }
    return rc == 0 ? 1 : -1;
}
