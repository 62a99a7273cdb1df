/* Writing JSON for the programs' --json outputs (heft-run, heft-mlcp):
 * numbers at full precision with null for NaN and Inf (JSON has neither),
 * strings escaped. */
#ifndef HEFT_JSON_OUT_H
#define HEFT_JSON_OUT_H

#include <math.h>
#include <stdio.h>

static inline void json_number(FILE *f, double x) {
    if (isfinite(x)) {
        fprintf(f, "%.17g", x);
    } else {
        fputs("null", f);
    }
}

static inline void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; ++s) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

#endif
