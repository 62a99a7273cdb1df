/* libFuzzer target for the programs' command-line parsers, demos/cli.c and
 * demos/solver_cli.c (tests/fuzz/README.md). The input is a command line:
 * arguments separated by NUL or newline bytes, read by getopt_long with the
 * solver options of heft-run and heft-mlcp and a few options of each kind
 * the programs have (a whole number, a number in a range, a positive number,
 * a named choice, a flag, short options). What must hold for every input:
 *   - an accepted value is finite and within the option's range;
 *   - a refused value leaves the options as they were and gives a one-line
 *     message that names the option;
 *   - an unknown, ambiguous or valueless option gives a message;
 *   - heft_solver_options_check answers the whole set, with a message when
 *     it refuses it. */
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mlcp.h"
#include "solver_cli.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CLI_MAX_ARGS 64

enum { OPT_STEPS = 0x2000, OPT_H, OPT_ANGLE, OPT_SOLVER, OPT_JSON };

static const struct option options[] = {{"steps", required_argument, NULL, OPT_STEPS},
                                        {"h", required_argument, NULL, OPT_H},
                                        {"angle", required_argument, NULL, OPT_ANGLE},
                                        {"solver", required_argument, NULL, OPT_SOLVER},
                                        {"json", no_argument, NULL, OPT_JSON},
                                        SOLVER_CLI_OPTIONS,
                                        {NULL, 0, NULL, 0}};

/* a message was written: not empty, ends inside the buffer, one line */
static void check_message(const char *err, size_t size) {
    const size_t len = strnlen(err, size);
    if (len == 0 || len == size || strchr(err, '\n') != NULL)
        abort();
}

static void check_finite_options(const heft_solver_options *o) {
    const double values[] = {o->tolerance,          o->relaxation,
                             o->pcg_tolerance,      o->regularization_shift,
                             o->ldl_regularization, o->backstop_pivot_budget,
                             o->backstop_accept};
    for (size_t k = 0; k < sizeof values / sizeof values[0]; ++k)
        if (!isfinite(values[k]))
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1);
    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[FUZZ_CLI_MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = "heft-fuzz";
    size_t start = 0;
    for (size_t i = 0; i <= size && argc <= FUZZ_CLI_MAX_ARGS; ++i) {
        if (i == size || text[i] == '\0' || text[i] == '\n') {
            text[i] = '\0';
            argv[argc++] = text + start;
            start = i + 1;
        }
    }
    argv[argc] = NULL;

    heft_solver_options o = heft_solver_default_options();
    int steps = 0;
    double h = 0.0, angle = 0.0;
    int solver = -1;
    static const char *const solver_names[] = {"pgs", "bpp", "bpp-skyline", "baraff"};
    char err[256];
    cli_getopt_reset();
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":s:n:j", options, NULL)) != -1) {
        err[0] = '\0';
        int rc = 0;
        switch (c) {
        case OPT_STEPS:
        case 'n':
            rc = cli_int("--steps", optarg, 1, 100000000, &steps, err, sizeof err);
            if (rc == 0 && (steps < 1 || steps > 100000000))
                abort();
            break;
        case OPT_H:
            rc = cli_double("--h", optarg, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL, &h, err, sizeof err);
            if (rc == 0 && !(isfinite(h) && h > 0.0))
                abort();
            break;
        case OPT_ANGLE:
            rc = cli_double("--angle", optarg, -180.0, 180.0, 0, "degrees in [-180, 180]", &angle,
                            err, sizeof err);
            if (rc == 0 && !(angle >= -180.0 && angle <= 180.0))
                abort();
            break;
        case OPT_SOLVER:
        case 's':
            rc = cli_choice("--solver", optarg, solver_names, 4, &solver, err, sizeof err);
            if (rc == 0 && (solver < 0 || solver >= 4))
                abort();
            break;
        case OPT_JSON:
        case 'j':
            break;
        case '?':
        case ':':
            cli_getopt_error(c, argv, options, "heft-fuzz", err, sizeof err);
            check_message(err, sizeof err);
            continue;
        default: {
            heft_solver_options before;
            memcpy(&before, &o, sizeof o);
            const int taken = solver_cli_option(c, optarg, &o, err, sizeof err);
            if (taken == 0)
                abort(); /* every other id in the table is a solver option */
            if (taken < 0 && memcmp(&before, &o, sizeof o) != 0)
                abort(); /* a refused value changed the options */
            rc = taken < 0 ? -1 : 0;
            break;
        }
        }
        if (rc != 0) {
            check_message(err, sizeof err);
            if (strncmp(err, "--", 2) != 0)
                abort(); /* the message starts with the option's name */
        }
    }
    check_finite_options(&o);
    char why[256];
    why[0] = '\0';
    if (heft_solver_options_check(&o, why, sizeof why) != 0)
        check_message(why, sizeof why);
    free(text);
    return 0;
}
