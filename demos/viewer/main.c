/* heft-viewer: the interactive viewer (docs/viewer.md). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "viewer.h"

/* --help and --list: 0, or 1 when their text was lost (a full disk). */
static int finish_listing(char *err, size_t err_size) {
    if (cli_finish_output(stdout, "the standard output", err, err_size) != 0) {
        fprintf(stderr, "heft-viewer: %s\n", err);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    viewer_options options;
    char err[512] = "";
    switch (viewer_parse_options(argc, argv, &options, err, sizeof err)) {
    case OPTIONS_HELP:
        viewer_usage(stdout);
        return finish_listing(err, sizeof err);
    case OPTIONS_LIST:
        viewer_list(stdout);
        return finish_listing(err, sizeof err);
    case OPTIONS_ERROR:
        fprintf(stderr, "heft-viewer: %s\n", err);
        return 2;
    case OPTIONS_RUN:
        break;
    }
    if (options.record) {
        signal(SIGPIPE, SIG_IGN); /* a dying ffmpeg must not kill the viewer */
    }
    viewer *v = viewer_create(&options, err, sizeof err);
    if (!v) {
        fprintf(stderr, "heft-viewer: %s\n", err);
        return strncmp(err, VIEWER_NO_DISPLAY, strlen(VIEWER_NO_DISPLAY)) == 0
                   ? VIEWER_EXIT_NO_DISPLAY
                   : 1;
    }
    int status = viewer_run(v);
    if (options.print_stats) {
        viewer_print_stats(v, stdout);
    }
    viewer_destroy(v);
    if (cli_finish_output(stdout, "the standard output", err, sizeof err) != 0) {
        fprintf(stderr, "heft-viewer: %s\n", err); /* the statistics were lost */
        return status ? status : 1;
    }
    return status;
}
