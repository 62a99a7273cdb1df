/* The last error of the calling thread, in words (heft_last_error). */
#ifndef HEFT_ERROR_H
#define HEFT_ERROR_H

#include "heft.h"

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void heft_set_error(const char *format, ...);

#endif
