#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The value as the user typed it, cut short so one bad argument cannot push
 * the reason out of the message. */
static const char *shown(const char *text, char *buf, size_t size) {
    if (strlen(text) < size) {
        return text;
    }
    snprintf(buf, size, "%.*s...", (int)(size - 4), text);
    return buf;
}

int cli_int(const char *option, const char *text, long lo, long hi, int *out, char *err,
            size_t err_size) {
    /* the result is an int whatever the caller asks */
    lo = lo < INT_MIN ? INT_MIN : lo;
    hi = hi > INT_MAX ? INT_MAX : hi;
    char *end = NULL;
    errno = 0;
    long v = text ? strtol(text, &end, 10) : 0;
    /* strtol skips leading white space; a value is the whole argument */
    int ok = text && *text && !strchr(" \t\n\v\f\r", *text) && end != text && *end == '\0' &&
             errno == 0 && v >= lo && v <= hi;
    if (ok) {
        *out = (int)v;
        return 0;
    }
    char buf[48];
    snprintf(err, err_size, "%s wants a whole number from %ld to %ld, not \"%s\"", option, lo, hi,
             shown(text ? text : "", buf, sizeof buf));
    return -1;
}

int cli_double(const char *option, const char *text, double lo, double hi, int flags,
               const char *what, double *out, char *err, size_t err_size) {
    const int lo_open = flags & CLI_LO_OPEN, hi_open = flags & CLI_HI_OPEN;
    char *end = NULL;
    errno = 0;
    double v = text ? strtod(text, &end) : 0.0;
    /* ERANGE on underflow still gives a usable (tiny) value; only overflow,
     * NaN and infinity are refused */
    int ok = text && *text && !strchr(" \t\n\v\f\r", *text) && end != text && *end == '\0' &&
             isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
    if (ok) {
        *out = v;
        return 0;
    }
    char buf[48], range[96];
    if (what) {
        snprintf(range, sizeof range, "%s", what);
    } else if (lo_open && lo == 0.0 && hi == HUGE_VAL) {
        snprintf(range, sizeof range, "a positive number");
    } else if (hi == HUGE_VAL) {
        snprintf(range, sizeof range, "a number %s %g", lo_open ? ">" : ">=", lo);
    } else if (lo == -HUGE_VAL) {
        snprintf(range, sizeof range, "a number %s %g", hi_open ? "<" : "<=", hi);
    } else {
        snprintf(range, sizeof range, "a number in %c%g, %g%c", lo_open ? '(' : '[', lo, hi,
                 hi_open ? ')' : ']');
    }
    snprintf(err, err_size, "%s wants %s, not \"%s\"", option, range,
             shown(text ? text : "", buf, sizeof buf));
    return -1;
}

int cli_choice(const char *option, const char *text, const char *const *names, int count, int *out,
               char *err, size_t err_size) {
    for (int k = 0; text && k < count; ++k) {
        if (strcmp(text, names[k]) == 0) {
            *out = k;
            return 0;
        }
    }
    char buf[48];
    int used = snprintf(err, err_size, "%s: unknown value \"%s\" (one of", option,
                        shown(text ? text : "", buf, sizeof buf));
    for (int k = 0; k < count && used >= 0 && (size_t)used < err_size; ++k) {
        used += snprintf(err + used, err_size - (size_t)used, "%s %s", k ? "," : "", names[k]);
    }
    if (used >= 0 && (size_t)used < err_size) {
        snprintf(err + used, err_size - (size_t)used, ")");
    }
    return -1;
}

void cli_getopt_reset(void) {
#ifdef __GLIBC__
    optind = 0;
#else
    optind = 1;
#endif
}

void cli_getopt_error(int code, char *const *argv, const struct option *options,
                      const char *program, char *err, size_t err_size) {
    /* getopt_long has stepped past the bad argument: a long option is named
     * by the argument itself, a short one by optopt */
    const char *a = optind > 0 ? argv[optind - 1] : "";
    size_t len = strcspn(a, "=");
    char name[64];
    if (strncmp(a, "--", 2) != 0 && optopt > 0 && optopt < 256) {
        snprintf(name, sizeof name, "-%c", optopt);
    } else {
        snprintf(name, sizeof name, "%.*s", (int)(len < 60 ? len : 60), a);
    }
    int matches = 0, exact = 0;
    size_t typed = strlen(name) > 2 ? strlen(name) - 2 : 0;
    for (const struct option *o = options; o && o->name; ++o) {
        if (strncmp(name, "--", 2) == 0 && typed > 0 && strncmp(o->name, name + 2, typed) == 0) {
            matches++;
            exact |= strlen(o->name) == typed;
        }
    }
    if (code == ':') {
        snprintf(err, err_size, "%s needs a value (%s --help)", name, program);
    } else if (exact && a[len] == '=') {
        snprintf(err, err_size, "%s takes no value (%s --help)", name, program);
    } else if (matches > 1 && !exact) {
        snprintf(err, err_size, "ambiguous option \"%s\" (%s --help)", name, program);
    } else {
        snprintf(err, err_size, "unknown option \"%s\" (%s --help)", name, program);
    }
}

int cli_finish_output(FILE *f, const char *name, char *err, size_t err_size) {
    errno = 0;
    int failed = fflush(f) != 0;
    int why = errno;
    /* an earlier write may have failed and been forgotten by the flush */
    failed |= ferror(f) != 0;
    if (f != stdout && f != stderr) {
        errno = 0;
        if (fclose(f) != 0 && !failed) {
            failed = 1;
            why = errno;
        }
    }
    if (!failed) {
        return 0;
    }
    snprintf(err, err_size, "cannot write %s: %s", name, why ? strerror(why) : "a write failed");
    return -1;
}
