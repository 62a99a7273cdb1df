/* The ldl-pgs options of heft-run and heft-mlcp's command lines (one parser
 * for both; docs/ldl-pgs-baraff.md "Options"):
 *   --ldl-ordering min-edge|min-degree|natural
 *   --ldl-shatter N          shatter bodies touched by more than N joints (0: never)
 *   --ldl-shard N            joints per shard
 *   --ldl-regularization E   H~_ii = (1 + E) H_ii
 * Ranges are checked afterwards by heft_solver_options_check. */
#ifndef HEFT_DEMOS_LDL_CLI_H
#define HEFT_DEMOS_LDL_CLI_H

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlcp.h"

/* Returns 1 when a is one of these options (then *ok says whether its value
 * v parsed), 0 when it is not. */
static inline int ldl_cli_option(const char *a, const char *v, heft_solver_options *o, int *ok) {
    char *end = NULL;
    if (!strcmp(a, "--ldl-ordering")) {
        static const char *const names[HEFT_LDL_ORDER_COUNT] = {"min-edge", "min-degree",
                                                                "natural"};
        *ok = 0;
        for (int k = 0; k < HEFT_LDL_ORDER_COUNT; ++k)
            if (!strcmp(v, names[k])) {
                o->ldl_ordering = k;
                *ok = 1;
            }
        return 1;
    }
    if (!strcmp(a, "--ldl-shatter") || !strcmp(a, "--ldl-shard")) {
        errno = 0;
        const long x = strtol(v, &end, 10);
        *ok = !errno && end != v && *end == '\0' && x >= -1000000 && x <= 1000000;
        if (*ok)
            *(!strcmp(a, "--ldl-shatter") ? &o->ldl_shatter_degree : &o->ldl_shard_constraints) =
                (int)x;
        return 1;
    }
    if (!strcmp(a, "--ldl-regularization")) {
        errno = 0;
        const double x = strtod(v, &end);
        *ok = !errno && end != v && *end == '\0' && isfinite(x);
        if (*ok)
            o->ldl_regularization = x;
        return 1;
    }
    return 0;
}

#endif
