/* The clock of the statistics, in standard C (timespec_get) so that the
 * library needs nothing beyond C11. */
#include "base.h"

#include <time.h>

double heft_time_ms(void) {
    struct timespec ts;
#ifdef TIME_MONOTONIC
    /* C23 names it; glibc has it since 2.38: immune to clock adjustments */
    if (timespec_get(&ts, TIME_MONOTONIC) == TIME_MONOTONIC) {
        return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
    }
#endif
    if (timespec_get(&ts, TIME_UTC) != TIME_UTC) {
        return 0.0;
    }
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
