#include <stdarg.h>
#include <stdio.h>

#include "error.h"

static _Thread_local char last_error[256];

const char *heft_last_error(void) {
    return last_error;
}

void heft_set_error(const char *format, ...) {
    va_list args;
    va_start(args, format);
    vsnprintf(last_error, sizeof last_error, format, args);
    va_end(args);
}
