/* Command-line values for the programs (heft-run, heft-mlcp, heft-bench,
 * heft-viewer), parsed once and checked the same way everywhere: a value is
 * the whole argument or it is refused, numbers are finite and in range,
 * integers never overflow, and a named choice that is not known lists the
 * valid ones. Options themselves are read with getopt_long; the helpers here
 * turn its errors into one-line messages.
 *
 * Every function that can refuse returns 0, or -1 with a message in err
 * (err_size bytes) that names the option and the value, e.g.
 *   --steps wants a whole number from 1 to 100000000, not "ten". */
#ifndef HEFT_DEMOS_CLI_H
#define HEFT_DEMOS_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>

/* A whole number (decimal, optional sign, nothing after it) in [lo, hi]. */
int cli_int(const char *option, const char *text, long lo, long hi, int *out, char *err,
            size_t err_size);

/* Bounds excluded from cli_double's range. */
enum { CLI_LO_OPEN = 1, CLI_HI_OPEN = 2 };

/* A finite number (strtod's syntax, nothing after it) in [lo, hi], a bound
 * excluded when flags has CLI_LO_OPEN or CLI_HI_OPEN (a positive number: lo
 * 0, hi HUGE_VAL, CLI_LO_OPEN). what describes the wanted value in the
 * message (NULL: the range in words). */
int cli_double(const char *option, const char *text, double lo, double hi, int flags,
               const char *what, double *out, char *err, size_t err_size);

/* One of count names; *out is its index. The message lists the names. */
int cli_choice(const char *option, const char *text, const char *const *names, int count, int *out,
               char *err, size_t err_size);

/* Makes the next getopt_long call start from argv[1] again with fresh state
 * (glibc keeps a scanning state that only optind = 0 resets), so a parser
 * can run more than once in one process (the viewer's tests do). */
void cli_getopt_reset(void);

/* The message for what getopt_long returned as '?' or ':' (the optstring
 * must start with ':' and opterr be 0): an unknown or ambiguous option, or
 * one that needs a value. program names the program's --help. */
void cli_getopt_error(int code, char *const *argv, const struct option *options,
                      const char *program, char *err, size_t err_size);

/* Output that must not be lost: flushes f and checks that every write to it
 * succeeded; closes it unless it is stdout or stderr. Returns 0, or -1 with
 * "cannot write NAME: REASON" in err. */
int cli_finish_output(FILE *f, const char *name, char *err, size_t err_size);

#endif
