#include "options.h"

#include "script.h"

#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "assets.h"
#include "cli.h"

void viewer_usage(FILE *out) {
    fprintf(out, "usage: heft-viewer [--scenario NAME] [--solver NAME] [options]\n"
                 "  --scenario NAME     scene to open (default: crane, else hanging-chain)\n"
                 "  --variant NAME      stacking: boxes (default), pyramid, tower, wall\n"
                 "  --scene FILE        open a scene file (docs/scene-format.md) instead\n"
                 "  --solver NAME       solver at start (default: bpp-skyline)\n"
                 "  --list              list the scenes and solvers\n"
                 "  --size WxH          window size (default 1280x720)\n"
                 "  --frames N          stop after N frames (one physics step per frame)\n"
                 "  --screenshot FILE   write a PNG after the last frame (needs --frames)\n"
                 "  --record FILE.mp4   record every frame through ffmpeg\n"
                 "  --script TEXT|@FILE scripted keys, clicks and waits (docs/viewer.md)\n"
                 "  --hidden            no visible window (screenshots, tests)\n"
                 "  --stats             print the run's statistics as JSON on exit\n"
                 "  --samples N         MSAA samples (default 4, 0 on a software renderer)\n"
                 "  --realtime          follow the wall clock even with --frames\n"
                 "  --no-geometric-stiffness   start without the heavy-load remedy\n"
                 "  --sleep             sleeping islands on (g greys the sleeping bodies)\n"
                 "  --iterations N      PGS sweeps (solver max_iterations)\n"
                 "  --tolerance X       solver tolerance, J\n"
                 "  --links N, --link-mass KG, --load-mass KG, --angle DEG, --length M\n"
                 "                      scene parameters, as heft-run takes them\n"
                 "  --assets DIR        read the shaders from DIR/shaders (also HEFT_ASSETS);\n"
                 "                      built-in: the copies built into the program\n"
                 "  -h, --help          this text\n");
}

void viewer_list(FILE *out) {
    fprintf(out, "scenes (tab in this order):\n");
    for (int i = 0; i < viewer_scene_count(); ++i) {
        const viewer_scene *e = viewer_scene_at(i);
        if (e->file[0]) {
            fprintf(out, "  --scene %s\n", e->file);
            continue;
        }
        char name[64];
        snprintf(name, sizeof name, "%s%s%s", e->desc->name, e->variant ? " --variant " : "",
                 e->variant ? e->variant : "");
        int repeat = i > 0 && viewer_scene_at(i - 1)->desc == e->desc;
        fprintf(out, "  %-28s %s\n", name, repeat ? "" : e->desc->description);
    }
    fprintf(out, "solvers (keys 1-9 in this order):\n");
    for (int i = 0; i < heft_solver_count(); ++i) {
        fprintf(out, "  %d %-14s %s\n", i + 1, heft_solver_at(i)->name,
                heft_solver_at(i)->description ? heft_solver_at(i)->description : "");
    }
}

enum {
    OPT_SCENARIO = 0x100,
    OPT_VARIANT,
    OPT_SOLVER,
    OPT_LIST,
    OPT_SIZE,
    OPT_FRAMES,
    OPT_SCREENSHOT,
    OPT_RECORD,
    OPT_SCRIPT,
    OPT_HIDDEN,
    OPT_STATS,
    OPT_SAMPLES,
    OPT_REALTIME,
    OPT_NO_GEOMETRIC_STIFFNESS,
    OPT_SLEEP,
    OPT_ITERATIONS,
    OPT_TOLERANCE,
    OPT_LINKS,
    OPT_LINK_MASS,
    OPT_LOAD_MASS,
    OPT_ANGLE,
    OPT_LENGTH,
    OPT_ASSETS,
    OPT_SCENE
};

static const struct option long_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"scenario", required_argument, NULL, OPT_SCENARIO},
    {"variant", required_argument, NULL, OPT_VARIANT},
    {"solver", required_argument, NULL, OPT_SOLVER},
    {"list", no_argument, NULL, OPT_LIST},
    {"size", required_argument, NULL, OPT_SIZE},
    {"frames", required_argument, NULL, OPT_FRAMES},
    {"screenshot", required_argument, NULL, OPT_SCREENSHOT},
    {"record", required_argument, NULL, OPT_RECORD},
    {"script", required_argument, NULL, OPT_SCRIPT},
    {"hidden", no_argument, NULL, OPT_HIDDEN},
    {"stats", no_argument, NULL, OPT_STATS},
    {"samples", required_argument, NULL, OPT_SAMPLES},
    {"realtime", no_argument, NULL, OPT_REALTIME},
    {"no-geometric-stiffness", no_argument, NULL, OPT_NO_GEOMETRIC_STIFFNESS},
    {"sleep", no_argument, NULL, OPT_SLEEP},
    {"iterations", required_argument, NULL, OPT_ITERATIONS},
    {"tolerance", required_argument, NULL, OPT_TOLERANCE},
    {"links", required_argument, NULL, OPT_LINKS},
    {"link-mass", required_argument, NULL, OPT_LINK_MASS},
    {"load-mass", required_argument, NULL, OPT_LOAD_MASS},
    {"angle", required_argument, NULL, OPT_ANGLE},
    {"length", required_argument, NULL, OPT_LENGTH},
    {"assets", required_argument, NULL, OPT_ASSETS},
    {"scene", required_argument, NULL, OPT_SCENE},
    {NULL, 0, NULL, 0},
};

/* WxH, each side within [64, 8192] pixels */
static int parse_window_size(const char *value, viewer_options *o, char *err, size_t err_size) {
    size_t w_len = strcspn(value, "x");
    char w_text[16];
    int w = 0, h = 0;
    char scratch[8];
    if (value[w_len] == 'x' && w_len < sizeof w_text) {
        memcpy(w_text, value, w_len);
        w_text[w_len] = '\0';
        if (cli_int("--size", w_text, 64, 8192, &w, scratch, sizeof scratch) == 0 &&
            cli_int("--size", value + w_len + 1, 64, 8192, &h, scratch, sizeof scratch) == 0) {
            o->width = w;
            o->height = h;
            return 0;
        }
    }
    snprintf(err, err_size, "--size wants WxH between 64x64 and 8192x8192, not \"%.40s\"", value);
    return -1;
}

/* Reads one option; 0, or -1 with a message. */
static int take_option(int id, const char *value, viewer_options *o, char *err, size_t err_size) {
    switch (id) {
    case OPT_SCENE:
        o->scene_file = value; /* read when the viewer opens: its errors name the file */
        return 0;
    case OPT_SCENARIO:
        if (!scenario_find(value)) {
            snprintf(err, err_size, "unknown scenario \"%s\" (heft-viewer --list shows them)",
                     value);
            return -1;
        }
        o->scenario = value;
        return 0;
    case OPT_VARIANT:
        o->params.variant = value; /* checked once the scene is known */
        return 0;
    case OPT_SOLVER:
        if (!heft_solver_find(value)) {
            snprintf(err, err_size, "unknown solver \"%s\" (heft-viewer --list shows them)", value);
            return -1;
        }
        o->solver = value;
        return 0;
    case OPT_SIZE:
        return parse_window_size(value, o, err, err_size);
    case OPT_FRAMES:
        return cli_int("--frames", value, 1, 100000000, &o->frames, err, err_size);
    case OPT_SAMPLES:
        return cli_int("--samples", value, 0, 16, &o->samples, err, err_size);
    case OPT_SCREENSHOT:
        o->screenshot = value;
        return 0;
    case OPT_RECORD:
        o->record = value;
        return 0;
    case OPT_SCRIPT:
        o->script = value;
        return 0;
    case OPT_HIDDEN:
        o->hidden = 1;
        return 0;
    case OPT_STATS:
        o->print_stats = 1;
        return 0;
    case OPT_REALTIME:
        o->fixed_step = 0;
        return 0;
    case OPT_NO_GEOMETRIC_STIFFNESS:
        o->geometric_stiffness = 0;
        return 0;
    case OPT_SLEEP:
        o->sleeping = 1;
        return 0;
    case OPT_ITERATIONS:
        return cli_int("--iterations", value, 1, 1000000, &o->iterations, err, err_size);
    case OPT_LINKS:
        return cli_int("--links", value, 1, SCENARIO_MAX_BODIES - 1, &o->params.links, err,
                       err_size);
    case OPT_TOLERANCE:
        return cli_double("--tolerance", value, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL, &o->tolerance,
                          err, err_size);
    case OPT_LINK_MASS:
        return cli_double("--link-mass", value, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL,
                          &o->params.link_mass, err, err_size);
    case OPT_LOAD_MASS:
        return cli_double("--load-mass", value, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL,
                          &o->params.load_mass, err, err_size);
    case OPT_LENGTH:
        return cli_double("--length", value, 0.0, HUGE_VAL, CLI_LO_OPEN, NULL, &o->params.length,
                          err, err_size);
    case OPT_ASSETS: {
        struct stat st;
        if (strcmp(value, ASSETS_BUILT_IN) != 0 &&
            (stat(value, &st) != 0 || !S_ISDIR(st.st_mode))) {
            snprintf(err, err_size,
                     "--assets wants a directory holding shaders/ (or built-in), not \"%s\"",
                     value);
            return -1;
        }
        o->assets = value;
        return 0;
    }
    case OPT_ANGLE:
        o->params.angle_set = 1;
        return cli_double("--angle", value, -180.0, 180.0, 0, "degrees in [-180, 180]",
                          &o->params.angle_deg, err, err_size);
    }
    snprintf(err, err_size, "option %d is not handled", id);
    return -1;
}

options_action viewer_parse_options(int argc, char **argv, viewer_options *o, char *err,
                                    size_t err_size) {
    *o = viewer_default_options();
    opterr = 0;
    cli_getopt_reset();
    for (int c; (c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1;) {
        if (c == 'h') {
            return OPTIONS_HELP;
        }
        if (c == OPT_LIST) {
            return OPTIONS_LIST;
        }
        if (c == '?' || c == ':') {
            cli_getopt_error(c, argv, long_options, "heft-viewer", err, err_size);
            return OPTIONS_ERROR;
        }
        if (take_option(c, optarg, o, err, err_size) != 0) {
            return OPTIONS_ERROR;
        }
    }
    if (optind < argc) {
        snprintf(err, err_size, "unexpected argument \"%s\" (heft-viewer --help)", argv[optind]);
        return OPTIONS_ERROR;
    }
    if (o->script) { /* a malformed script is a bad command line, found before any window */
        input_script *parsed = script_parse(o->script, err, err_size);
        if (!parsed) {
            return OPTIONS_ERROR;
        }
        script_free(parsed);
    }
    if (o->params.variant) {
        const char *scene = o->scenario;
        for (int i = 0; !scene && i < viewer_scene_count(); ++i) {
            const viewer_scene *e = viewer_scene_at(i);
            if (e->variant && strcmp(e->variant, o->params.variant) == 0) {
                scene = e->desc->name; /* --variant pyramid alone: the scene that has it */
                o->scenario = scene;
            }
        }
        if (!scene || !viewer_scene_has_variant(scene, o->params.variant)) {
            snprintf(err, err_size, "unknown variant \"%s\"%s%s (heft-viewer --list shows them)",
                     o->params.variant, scene ? " of " : "", scene ? scene : "");
            return OPTIONS_ERROR;
        }
    }
    if (o->screenshot && o->frames == 0) {
        snprintf(err, err_size, "--screenshot needs --frames N (how many frames to render first)");
        return OPTIONS_ERROR;
    }
    return OPTIONS_RUN;
}
