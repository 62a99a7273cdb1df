/* heft-viewer's command line (docs/viewer.md). */
#ifndef HEFT_VIEWER_OPTIONS_H
#define HEFT_VIEWER_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "viewer.h"

typedef enum options_action {
    OPTIONS_RUN = 0,
    OPTIONS_HELP, /* printed usage; exit 0 */
    OPTIONS_LIST, /* print the scenes and solvers; exit 0 */
    OPTIONS_ERROR /* err says what was wrong; exit 2 */
} options_action;

options_action viewer_parse_options(int argc, char **argv, viewer_options *out, char *err,
                                    size_t err_size);
void viewer_usage(FILE *out);
void viewer_list(FILE *out);

#endif
