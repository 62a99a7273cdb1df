/* heft-mlcp: solves, checks and describes .mlcp files (design "Programs";
 * the commands and their JSON are documented in docs/heft-mlcp.md). It is a
 * thin program over the solver library: every solver of the registry, on any
 * problem an engine export, a test or an outside suite wrote. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "json_out.h"
#include "mlcp.h"
#include "solver_cli.h"

/* The format's acceptance bound (mlcp-format.md "The error measure"). */
#define EXACT_ERROR_J 1e-10

enum { EXIT_OK = 0, EXIT_NOT_SOLVED = 1, EXIT_USAGE = 2 };

static void usage(FILE *f) {
    fprintf(f, "usage: heft-mlcp solve FILE --solver NAME [--json]\n");
    solver_cli_usage(f, "                 ");
    fprintf(f, "       heft-mlcp check FILE --lambda FILE [--json] [--exact J]\n"
               "       heft-mlcp info FILE [--json]\n"
               "       heft-mlcp --list\n"
               "solve: answers the problem with a solver of the registry (exit 1 if it did not\n"
               "converge); check: measures a given answer (exit 1 if it is not exact);\n"
               "info: sizes, bounds and structure of the problem. FILE may be - for stdin.\n"
               "Exit 2: bad command line, a file that cannot be read (the message names the line)\n"
               "or output that cannot be written.\n");
}

/* ---- JSON ---------------------------------------------------------------- */

static void json_key(FILE *f, const char *key, int *first) {
    fputs(*first ? "{\n  " : ",\n  ", f);
    *first = 0;
    json_string(f, key);
    fputs(": ", f);
}

static void json_numbers(FILE *f, const double *x, int n) {
    fputc('[', f);
    for (int i = 0; i < n; ++i) {
        if (i) {
            fputs(", ", f);
        }
        json_number(f, x[i]);
    }
    fputc(']', f);
}

/* ---- reading ------------------------------------------------------------- */

/* The whole of a file (or stdin for "-"), NUL-terminated; NULL with a
 * message on stderr. */
static char *read_text(const char *path, size_t *length) {
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "heft-mlcp: %s: cannot open: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t len = 0, cap = 1 << 16;
    char *text = malloc(cap);
    while (text) {
        if (len + 1 >= cap) {
            char *bigger = realloc(text, cap * 2);
            if (!bigger) {
                free(text);
                text = NULL;
                break;
            }
            text = bigger;
            cap *= 2;
        }
        size_t got = fread(text + len, 1, cap - 1 - len, f);
        len += got;
        if (got == 0) {
            break;
        }
    }
    int failed = ferror(f) || !text;
    if (f != stdin) {
        fclose(f);
    }
    if (failed) {
        fprintf(stderr, "heft-mlcp: %s: cannot read it\n", path);
        free(text);
        return NULL;
    }
    text[len] = '\0';
    if (memchr(text, '\0', len)) {
        fprintf(stderr, "heft-mlcp: %s: a NUL byte (not a text file?)\n", path);
        free(text);
        return NULL;
    }
    *length = len;
    return text;
}

static heft_mlcp *read_problem(const char *path, double **solution) {
    heft_mlcp *p = NULL;
    char err[512];
    if (strcmp(path, "-") != 0) {
        if (heft_mlcp_read_file(path, &p, solution, err, sizeof err) != 0) {
            fprintf(stderr, "heft-mlcp: %s\n", err);
            return NULL;
        }
        return p;
    }
    size_t len;
    char *text = read_text(path, &len);
    if (!text) {
        return NULL;
    }
    if (heft_mlcp_read_string(text, &p, solution, err, sizeof err) != 0) {
        fprintf(stderr, "heft-mlcp: (stdin): %s\n", err);
        p = NULL;
    }
    free(text);
    return p;
}

/* A strict number: the whole token, finite. */
static int parse_number(const char *token, size_t len, double *out) {
    char buf[128];
    if (len == 0 || len >= sizeof buf) {
        return 0;
    }
    memcpy(buf, token, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (*end || !isfinite(v)) {
        return 0;
    }
    *out = v;
    return 1;
}

/* The answer to check, in one of three forms (docs/heft-mlcp.md):
 *   n numbers separated by white space (and # comments);
 *   the word `lambda` or `solution` and then n numbers (an .mlcp section line);
 *   the JSON of `heft-mlcp solve --json` (its "lambda" array).
 * Exactly n numbers, all finite, or an error on stderr. */
static double *read_lambda(const char *path, int n) {
    size_t len;
    char *text = read_text(path, &len);
    if (!text) {
        return NULL;
    }
    double *lambda = calloc((size_t)n + 1, sizeof *lambda);
    int count = 0, ok = lambda != NULL, line = 1;
    const char *why = NULL;
    char *s = text;
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') {
        ++s;
    }
    if (ok && *s == '{') {
        /* the JSON of `solve`: the array after "lambda" */
        char *at = strstr(text, "\"lambda\"");
        char *open = at ? strchr(at, '[') : NULL;
        char *close = open ? strchr(open, ']') : NULL;
        if (!close) {
            why = "no \"lambda\" array in this JSON";
        }
        for (char *c = open ? open + 1 : NULL; c && c < close && !why;) {
            while (c < close &&
                   (*c == ' ' || *c == ',' || *c == '\n' || *c == '\r' || *c == '\t')) {
                ++c;
            }
            if (c >= close) {
                break;
            }
            size_t tl = strcspn(c, " ,\n\r\t]");
            double v;
            if (!parse_number(c, tl, &v)) {
                why = "a lambda entry is not a finite number (null?)";
            } else if (count >= n) {
                why = "more numbers than the problem has rows";
            } else {
                lambda[count++] = v;
            }
            c += tl;
        }
    } else if (ok) {
        int first = 1;
        for (char *c = text; *c && !why;) {
            if (*c == '#') {
                c += strcspn(c, "\n");
                continue;
            }
            if (*c == '\n') {
                ++line;
            }
            if (strchr(" \t\r\n\v\f", *c)) {
                ++c;
                continue;
            }
            size_t tl = strcspn(c, " \t\r\n\v\f#");
            double v;
            if (first && ((tl == 6 && !strncmp(c, "lambda", 6)) ||
                          (tl == 8 && !strncmp(c, "solution", 8)))) {
                /* the keyword of an .mlcp section line */
            } else if (!parse_number(c, tl, &v)) {
                why = "not a finite number";
            } else if (count >= n) {
                why = "more numbers than the problem has rows";
            } else {
                lambda[count++] = v;
            }
            first = 0;
            if (!why) {
                c += tl;
            }
        }
    }
    free(text);
    if (ok && !why && count != n) {
        fprintf(stderr, "heft-mlcp: %s: %d numbers, the problem has %d rows\n", path, count, n);
        ok = 0;
    } else if (why) {
        fprintf(stderr, "heft-mlcp: %s: line %d: %s\n", path, line, why);
        ok = 0;
    }
    if (!ok) {
        free(lambda);
        return NULL;
    }
    return lambda;
}

static double max_abs_difference(const double *x, const double *y, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i) {
        double d = fabs(x[i] - y[i]);
        m = d > m || isnan(d) ? d : m;
    }
    return m;
}

/* ---- the commands -------------------------------------------------------- */

typedef struct command_line {
    const char *command, *file, *solver, *lambda_file;
    int json, has_options, has_exact;
    double exact;
    heft_solver_options options;
} command_line;

/* heft_answer_source in words, as --json writes it */
static const char *answer_name(int answer) {
    switch (answer) {
    case HEFT_ANSWER_SOLVER:
        return "solver";
    case HEFT_ANSWER_BACKSTOP:
        return "backstop";
    case HEFT_ANSWER_PGS:
        return "pgs";
    case HEFT_ANSWER_WARM_START:
        return "warm_start";
    case HEFT_ANSWER_ZERO:
        return "zero";
    default:
        return "unknown";
    }
}

static int cmd_solve(const command_line *c) {
    if (!c->solver) {
        fprintf(stderr, "heft-mlcp: solve needs --solver NAME (heft-mlcp --list shows them)\n");
        return EXIT_USAGE;
    }
    if (!heft_solver_find(c->solver)) {
        fprintf(stderr, "heft-mlcp: unknown solver \"%s\" (heft-mlcp --list shows them)\n",
                c->solver);
        return EXIT_USAGE;
    }
    double *solution = NULL;
    heft_mlcp *p = read_problem(c->file, &solution);
    if (!p) {
        return EXIT_USAGE;
    }
    double *lambda = calloc((size_t)p->n, sizeof *lambda);
    if (!lambda) {
        fprintf(stderr, "heft-mlcp: out of memory\n");
        heft_mlcp_destroy(p);
        heft_free(solution);
        return EXIT_NOT_SOLVED;
    }
    heft_solver_stats st;
    int rc = heft_solve(c->solver, c->has_options ? &c->options : NULL, p, lambda, &st);
    const char *status = rc == HEFT_SOLVE_OK              ? "converged"
                         : rc == HEFT_SOLVE_NOT_CONVERGED ? "not converged"
                                                          : "failed";
    if (c->json) {
        int first = 1;
        FILE *f = stdout;
        json_key(f, "file", &first);
        json_string(f, c->file);
        json_key(f, "solver", &first);
        json_string(f, c->solver);
        json_key(f, "n", &first);
        fprintf(f, "%d", p->n);
        json_key(f, "status", &first);
        json_string(f, status);
        json_key(f, "converged", &first);
        fputs(rc == HEFT_SOLVE_OK && st.converged ? "true" : "false", f);
        json_key(f, "iterations", &first);
        fprintf(f, "%d", st.iterations);
        json_key(f, "inner_iterations", &first);
        fprintf(f, "%d", st.inner_iterations);
        json_key(f, "factorizations", &first);
        fprintf(f, "%d", st.factorizations);
        json_key(f, "downdates", &first);
        fprintf(f, "%d", st.downdates);
        json_key(f, "updates", &first);
        fprintf(f, "%d", st.updates);
        json_key(f, "body_factorizations", &first);
        fprintf(f, "%d", st.body_factorizations);
        json_key(f, "envelope", &first);
        fprintf(f, "%d", st.envelope);
        if (st.delegate != NULL) {
            json_key(f, "delegate", &first);
            json_string(f, st.delegate);
        }
        json_key(f, "tight_trace", &first);
        fputc('[', f);
        for (int i = 0; i < st.tight_trace_count && i < HEFT_MAX_PIVOT_TRACE; ++i) {
            fprintf(f, i ? ", %d" : "%d", st.tight_trace[i]);
        }
        fputc(']', f);
        json_key(f, "fallback", &first);
        fputs(st.fallback ? "true" : "false", f);
        json_key(f, "imaginary_columns", &first);
        fprintf(f, "%d", st.imaginary_columns);
        json_key(f, "imaginary_columns_sum", &first);
        fprintf(f, "%ld", st.imaginary_columns_sum);
        json_key(f, "preconditioned_columns_sum", &first);
        fprintf(f, "%ld", st.preconditioned_columns_sum);
        json_key(f, "regularized_rows", &first);
        fprintf(f, "%d", st.regularized_rows);
        json_key(f, "restarts", &first);
        fprintf(f, "%d", st.restarts);
        json_key(f, "pgs_sweeps", &first);
        fprintf(f, "%d", st.pgs_sweeps);
        json_key(f, "pcg_tightenings", &first);
        fprintf(f, "%d", st.pcg_tightenings);
        json_key(f, "frozen_rounds", &first);
        fprintf(f, "%d", st.frozen_rounds);
        json_key(f, "backstops", &first);
        fprintf(f, "%d", st.backstops);
        json_key(f, "backstop_pivots", &first);
        fprintf(f, "%d", st.backstop_pivots);
        json_key(f, "newton_steps", &first);
        fprintf(f, "%d", st.newton_steps);
        json_key(f, "answer", &first);
        json_string(f, answer_name(st.answer));
        json_key(f, "error_max", &first);
        json_number(f, st.error_max);
        json_key(f, "error_sum", &first);
        json_number(f, st.error_sum);
        json_key(f, "bound_violations", &first);
        fprintf(f, "%d", st.bound_violations);
        json_key(f, "time_ms", &first);
        json_number(f, st.time_total_ms);
        json_key(f, "time_assembly_ms", &first);
        json_number(f, st.time_assembly_ms);
        json_key(f, "time_ordering_ms", &first);
        json_number(f, st.time_ordering_ms);
        json_key(f, "time_factor_ms", &first);
        json_number(f, st.time_factor_ms);
        json_key(f, "time_solve_ms", &first);
        json_number(f, st.time_solve_ms);
        if (solution) {
            json_key(f, "solution_error", &first);
            json_number(f, max_abs_difference(lambda, solution, p->n));
        }
        json_key(f, "lambda", &first);
        json_numbers(f, lambda, p->n);
        fputs("\n}\n", f);
    } else {
        printf("%s with %s: n %d, %s after %d iterations (%d factorizations, %d downdates%s), "
               "%.4f ms\n",
               c->file, c->solver, p->n, status, st.iterations, st.factorizations, st.downdates,
               st.fallback ? ", fallback used" : "", st.time_total_ms);
        if (st.delegate != NULL)
            printf("  solved by %s\n", st.delegate);
        printf("  answer: %s; %d restarts from PGS (%d sweeps), %d frozen-box rounds, "
               "%d backstops (%d pivots)\n",
               answer_name(st.answer), st.restarts, st.pgs_sweeps, st.frozen_rounds, st.backstops,
               st.backstop_pivots);
        printf("  MLCP error max %.3e J, sum %.3e J, bound violations %d\n", st.error_max,
               st.error_sum, st.bound_violations);
        if (solution) {
            printf("  |lambda - file's solution| max %.3e\n",
                   max_abs_difference(lambda, solution, p->n));
        }
    }
    free(lambda);
    heft_mlcp_destroy(p);
    heft_free(solution);
    return rc == HEFT_SOLVE_OK ? EXIT_OK : EXIT_NOT_SOLVED;
}

static int cmd_check(const command_line *c) {
    if (!c->lambda_file) {
        fprintf(stderr, "heft-mlcp: check needs --lambda FILE\n");
        return EXIT_USAGE;
    }
    double *solution = NULL;
    heft_mlcp *p = read_problem(c->file, &solution);
    if (!p) {
        return EXIT_USAGE;
    }
    double *lambda = read_lambda(c->lambda_file, p->n);
    if (!lambda) {
        heft_mlcp_destroy(p);
        heft_free(solution);
        return EXIT_USAGE;
    }
    heft_mlcp_error e = heft_mlcp_measure(p, lambda, NULL);
    int exact = e.max < c->exact && e.bound_violations == 0 && e.nonfinite == 0;
    if (c->json) {
        int first = 1;
        FILE *f = stdout;
        json_key(f, "file", &first);
        json_string(f, c->file);
        json_key(f, "lambda_file", &first);
        json_string(f, c->lambda_file);
        json_key(f, "n", &first);
        fprintf(f, "%d", p->n);
        json_key(f, "error_max", &first);
        json_number(f, e.max);
        json_key(f, "error_sum", &first);
        json_number(f, e.sum);
        json_key(f, "worst_row", &first);
        fprintf(f, "%d", e.worst_row);
        json_key(f, "bound_violations", &first);
        fprintf(f, "%d", e.bound_violations);
        json_key(f, "nonfinite", &first);
        fprintf(f, "%d", e.nonfinite);
        json_key(f, "exact_limit", &first);
        json_number(f, c->exact);
        json_key(f, "exact", &first);
        fputs(exact ? "true" : "false", f);
        if (solution) {
            json_key(f, "solution_error", &first);
            json_number(f, max_abs_difference(lambda, solution, p->n));
        }
        fputs("\n}\n", f);
    } else {
        printf("%s: n %d, MLCP error max %.3e J (row %d), sum %.3e J, bound violations %d: %s\n",
               c->file, p->n, e.max, e.worst_row, e.sum, e.bound_violations,
               exact ? "exact" : "not exact");
        if (solution) {
            printf("  |lambda - file's solution| max %.3e\n",
                   max_abs_difference(lambda, solution, p->n));
        }
    }
    free(lambda);
    heft_mlcp_destroy(p);
    heft_free(solution);
    return exact ? EXIT_OK : EXIT_NOT_SOLVED;
}

typedef struct problem_summary {
    int free_rows, lower_only, upper_only, boxed, fixed, friction;
    int kinds[HEFT_ROW_ROLLING + 1], blocks, nonzeros;
    double asymmetry, diag_min, diag_max;
} problem_summary;

static problem_summary summarize(const heft_mlcp *p) {
    problem_summary s;
    memset(&s, 0, sizeof s);
    const int n = p->n;
    s.diag_min = INFINITY;
    s.diag_max = -INFINITY;
    for (int i = 0; i < n; ++i) {
        if (p->findex[i] >= 0) {
            s.friction++;
        } else if (isinf(p->lo[i]) && isinf(p->hi[i])) {
            s.free_rows++;
        } else if (isinf(p->hi[i])) {
            s.lower_only++;
        } else if (isinf(p->lo[i])) {
            s.upper_only++;
        } else if (p->lo[i] == p->hi[i]) {
            s.fixed++;
        } else {
            s.boxed++;
        }
        if (p->kind) {
            s.kinds[p->kind[i] <= HEFT_ROW_ROLLING ? p->kind[i] : 0]++;
        }
        int new_block = 1;
        for (int j = 0; p->block && j < i; ++j) {
            if (p->block[j] == p->block[i]) {
                new_block = 0;
                break;
            }
        }
        s.blocks += p->block ? new_block : 0;
        double d = heft_mlcp_diagonal(p, i);
        s.diag_min = fmin(s.diag_min, d);
        s.diag_max = fmax(s.diag_max, d);
        for (int j = 0; p->A && j < n; ++j) {
            double a = p->A[(size_t)i * n + j];
            s.nonzeros += a != 0.0;
            s.asymmetry = fmax(s.asymmetry, fabs(a - p->A[(size_t)j * n + i]));
        }
    }
    return s;
}

static int cmd_info(const command_line *c) {
    double *solution = NULL;
    heft_mlcp *p = read_problem(c->file, &solution);
    if (!p) {
        return EXIT_USAGE;
    }
    problem_summary s = summarize(p);
    static const char *const kind_names[HEFT_ROW_ROLLING + 1] = {"bilateral", "normal", "friction",
                                                                 "limit",     "motor",  "rolling"};
    double *zeros = calloc((size_t)p->n, sizeof *zeros);
    heft_mlcp_error at_zero = heft_mlcp_measure(p, zeros, NULL);
    heft_mlcp_error at_lambda0 = {0};
    heft_mlcp_error at_solution = {0};
    if (p->lambda0) {
        at_lambda0 = heft_mlcp_measure(p, p->lambda0, NULL);
    }
    if (solution) {
        at_solution = heft_mlcp_measure(p, solution, NULL);
    }
    if (c->json) {
        int first = 1;
        FILE *f = stdout;
        json_key(f, "file", &first);
        json_string(f, c->file);
        json_key(f, "n", &first);
        fprintf(f, "%d", p->n);
        json_key(f, "structured", &first);
        fputs(p->rows ? "true" : "false", f);
        json_key(f, "bodies", &first);
        fprintf(f, "%d", p->rows ? p->nbodies : 0);
        json_key(f, "nonzeros", &first);
        fprintf(f, "%d", s.nonzeros);
        json_key(f, "asymmetry", &first);
        json_number(f, s.asymmetry);
        json_key(f, "diagonal_min", &first);
        json_number(f, s.diag_min);
        json_key(f, "diagonal_max", &first);
        json_number(f, s.diag_max);
        json_key(f, "rows", &first);
        fprintf(f,
                "{\"free\": %d, \"lower_bound_only\": %d, \"upper_bound_only\": %d, "
                "\"boxed\": %d, \"fixed\": %d, \"friction\": %d}",
                s.free_rows, s.lower_only, s.upper_only, s.boxed, s.fixed, s.friction);
        json_key(f, "kinds", &first);
        if (p->kind) {
            fputc('{', f);
            for (int k = 0; k <= HEFT_ROW_ROLLING; ++k) {
                fprintf(f, k ? ", \"%s\": %d" : "\"%s\": %d", kind_names[k], s.kinds[k]);
            }
            fputc('}', f);
        } else {
            fputs("null", f);
        }
        json_key(f, "blocks", &first);
        if (p->block) {
            fprintf(f, "%d", s.blocks);
        } else {
            fputs("null", f);
        }
        json_key(f, "has_lambda0", &first);
        fputs(p->lambda0 ? "true" : "false", f);
        json_key(f, "has_solution", &first);
        fputs(solution ? "true" : "false", f);
        json_key(f, "error_at_zero", &first);
        json_number(f, at_zero.max);
        if (p->lambda0) {
            json_key(f, "error_at_lambda0", &first);
            json_number(f, at_lambda0.max);
        }
        if (solution) {
            json_key(f, "error_at_solution", &first);
            json_number(f, at_solution.max);
        }
        fputs("\n}\n", f);
    } else {
        printf("%s: n %d, %s", c->file, p->n,
               p->rows ? "structured form and A" : "A only (no structured form)");
        if (p->rows) {
            printf(", %d bodies", p->nbodies);
        }
        printf("\n  A: %d nonzeros (%.1f%%), diagonal %.3g .. %.3g, max |A_ij - A_ji| %.3g\n",
               s.nonzeros, 100.0 * s.nonzeros / ((double)p->n * p->n), s.diag_min, s.diag_max,
               s.asymmetry);
        printf("  rows: %d free, %d lower bound only, %d upper bound only, %d boxed, %d fixed, "
               "%d friction\n",
               s.free_rows, s.lower_only, s.upper_only, s.boxed, s.fixed, s.friction);
        if (p->kind) {
            printf("  kinds:");
            for (int k = 0; k <= HEFT_ROW_ROLLING; ++k) {
                printf(" %s %d", kind_names[k], s.kinds[k]);
            }
            printf("\n");
        }
        if (p->block) {
            printf("  blocks: %d\n", s.blocks);
        }
        printf("  MLCP error at lambda = 0: %.3e J", at_zero.max);
        if (p->lambda0) {
            printf("; at lambda0: %.3e J", at_lambda0.max);
        }
        if (solution) {
            printf("; at the file's solution: %.3e J", at_solution.max);
        }
        printf("\n");
    }
    free(zeros);
    heft_mlcp_destroy(p);
    heft_free(solution);
    return EXIT_OK;
}

/* ---- the command line ---------------------------------------------------- */

enum { OPT_JSON = 0x100, OPT_SOLVER, OPT_LAMBDA, OPT_EXACT };

static const struct option long_options[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"solver", required_argument, NULL, OPT_SOLVER},
    {"lambda", required_argument, NULL, OPT_LAMBDA},
    {"exact", required_argument, NULL, OPT_EXACT},
    SOLVER_CLI_OPTIONS,
    {NULL, 0, NULL, 0},
};

/* The exit status once everything is printed: an answer that never reached
 * its reader (a full disk, a closed pipe) is a failure, not a success. */
static int finish(int status) {
    char err[256];
    if (cli_finish_output(stdout, "the standard output", err, sizeof err) != 0) {
        fprintf(stderr, "heft-mlcp: %s\n", err);
        return EXIT_USAGE;
    }
    return status;
}

/* Reads the options and the FILE after the command (args[0]); EXIT_OK or
 * EXIT_USAGE with the message printed. */
static int parse_command_line(int count, char **args, command_line *c) {
    char err[512];
    opterr = 0;
    cli_getopt_reset();
    for (int k; (k = getopt_long(count, args, ":", long_options, NULL)) != -1;) {
        int rc = 0;
        switch (k) {
        case '?':
        case ':':
            cli_getopt_error(k, args, long_options, "heft-mlcp", err, sizeof err);
            rc = -1;
            break;
        case OPT_JSON:
            c->json = 1;
            break;
        case OPT_SOLVER:
            c->solver = optarg;
            break;
        case OPT_LAMBDA:
            c->lambda_file = optarg;
            break;
        case OPT_EXACT:
            c->has_exact = 1;
            rc = cli_double("--exact", optarg, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL, &c->exact, err,
                            sizeof err);
            break;
        default: {
            int taken = solver_cli_option(k, optarg, &c->options, err, sizeof err);
            c->has_options = 1;
            rc = taken > 0 ? 0 : -1;
            if (taken == 0) {
                snprintf(err, sizeof err, "option %d is not handled", k);
            }
        }
        }
        if (rc != 0) {
            fprintf(stderr, "heft-mlcp: %s\n", err);
            return EXIT_USAGE;
        }
    }
    for (int i = optind; i < count; ++i) { /* getopt_long moved the operands last */
        if (c->file) {
            fprintf(stderr, "heft-mlcp: one FILE only (%s and %s)\n", c->file, args[i]);
            return EXIT_USAGE;
        }
        c->file = args[i];
    }
    return EXIT_OK;
}

int main(int argc, char **argv) {
    command_line c;
    memset(&c, 0, sizeof c);
    c.options = heft_solver_default_options();
    c.exact = EXACT_ERROR_J;
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return finish(EXIT_OK);
    }
    if (!strcmp(argv[1], "--list")) {
        for (int k = 0; k < heft_solver_count(); ++k) {
            printf("%-16s %s\n", heft_solver_at(k)->name, heft_solver_at(k)->description);
        }
        return finish(EXIT_OK);
    }
    c.command = argv[1];
    if (strcmp(c.command, "solve") && strcmp(c.command, "check") && strcmp(c.command, "info")) {
        fprintf(stderr, "heft-mlcp: unknown command \"%s\"\n", c.command);
        usage(stderr);
        return EXIT_USAGE;
    }
    /* the command stands where getopt_long expects the program's name */
    if (parse_command_line(argc - 1, argv + 1, &c) != EXIT_OK) {
        return EXIT_USAGE;
    }
    /* an option of another command would be silently ignored */
    const int solve = !strcmp(c.command, "solve"), check = !strcmp(c.command, "check");
    const char *stray = !solve && c.solver        ? "--solver"
                        : !solve && c.has_options ? "a solver option"
                        : !check && c.lambda_file ? "--lambda"
                        : !check && c.has_exact   ? "--exact"
                                                  : NULL;
    if (stray) {
        fprintf(stderr, "heft-mlcp: %s is not an option of %s (heft-mlcp --help)\n", stray,
                c.command);
        return EXIT_USAGE;
    }
    char bad[160];
    if (c.has_options && heft_solver_options_check(&c.options, bad, sizeof bad) != 0) {
        fprintf(stderr, "heft-mlcp: %s\n", bad);
        return EXIT_USAGE;
    }
    if (!c.file) {
        fprintf(stderr, "heft-mlcp: %s needs a FILE\n", c.command);
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(c.command, "solve")) {
        return finish(cmd_solve(&c));
    }
    if (!strcmp(c.command, "check")) {
        return finish(cmd_check(&c));
    }
    return finish(cmd_info(&c));
}
