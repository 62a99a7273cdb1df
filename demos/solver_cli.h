/* The solver options of heft-run's and heft-mlcp's command lines, one table
 * for both (docs/heft-mlcp.md "solve"): each sets a field of
 * heft_solver_options. Values are checked here (syntax, range, named
 * choices); heft_solver_options_check runs on the whole set afterwards. */
#ifndef HEFT_DEMOS_SOLVER_CLI_H
#define HEFT_DEMOS_SOLVER_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"
#include "mlcp.h"

/* getopt_long values of these options: above every character, so a
 * program's own short options and ids below 0x1000 never collide. */
enum solver_cli_id {
    SOLVER_CLI_ITERATIONS = 0x1000,
    SOLVER_CLI_TOLERANCE,
    SOLVER_CLI_RELAXATION,
    SOLVER_CLI_MAX_PIVOTS,
    SOLVER_CLI_PGS_RESTART,
    SOLVER_CLI_COLD,
    SOLVER_CLI_PRECONDITIONER,
    SOLVER_CLI_PCG_TOLERANCE,
    SOLVER_CLI_ADAPTIVE_REGULARIZATION,
    SOLVER_CLI_LDL_ORDERING,
    SOLVER_CLI_LDL_SHATTER,
    SOLVER_CLI_LDL_SHARD,
    SOLVER_CLI_LDL_REGULARIZATION,
    SOLVER_CLI_PGS_LIGHT_RATIO,
    SOLVER_CLI_BACKSTOP_CAP,
    SOLVER_CLI_BACKSTOP_BUDGET,
    SOLVER_CLI_BACKSTOP_ACCEPT,
    SOLVER_CLI_END
};

/* The entries to put in a program's struct option table. */
#define SOLVER_CLI_OPTIONS                                                                         \
    {"iterations", required_argument, NULL, SOLVER_CLI_ITERATIONS},                                \
        {"tolerance", required_argument, NULL, SOLVER_CLI_TOLERANCE},                              \
        {"relaxation", required_argument, NULL, SOLVER_CLI_RELAXATION},                            \
        {"max-pivots", required_argument, NULL, SOLVER_CLI_MAX_PIVOTS},                            \
        {"pgs-restart", required_argument, NULL, SOLVER_CLI_PGS_RESTART},                          \
        {"cold", no_argument, NULL, SOLVER_CLI_COLD},                                              \
        {"preconditioner", required_argument, NULL, SOLVER_CLI_PRECONDITIONER},                    \
        {"pcg-tolerance", required_argument, NULL, SOLVER_CLI_PCG_TOLERANCE},                      \
        {"adaptive-regularization", required_argument, NULL, SOLVER_CLI_ADAPTIVE_REGULARIZATION},  \
        {"ldl-ordering", required_argument, NULL, SOLVER_CLI_LDL_ORDERING},                        \
        {"ldl-shatter", required_argument, NULL, SOLVER_CLI_LDL_SHATTER},                          \
        {"ldl-shard", required_argument, NULL, SOLVER_CLI_LDL_SHARD},                              \
        {"ldl-regularization", required_argument, NULL, SOLVER_CLI_LDL_REGULARIZATION},            \
        {"pgs-light-ratio", required_argument, NULL, SOLVER_CLI_PGS_LIGHT_RATIO},                  \
        {"backstop-cap", required_argument, NULL, SOLVER_CLI_BACKSTOP_CAP},                        \
        {"backstop-budget", required_argument, NULL, SOLVER_CLI_BACKSTOP_BUDGET}, {                \
        "backstop-accept", required_argument, NULL, SOLVER_CLI_BACKSTOP_ACCEPT                     \
    }

/* Prints the usage lines of these options, each after indent. */
void solver_cli_usage(FILE *out, const char *indent);

/* The preconditioners' names, in heft_preconditioner's order. */
extern const char *const solver_cli_preconditioners[HEFT_PRECOND_COUNT];

/* Sets the option id (one of enum solver_cli_id) from value. Returns 1 when
 * id is a solver option and its value was taken, 0 when id is not one of
 * them, -1 with a message in err when the value is refused. */
int solver_cli_option(int id, const char *value, heft_solver_options *options, char *err,
                      size_t err_size);

#endif
