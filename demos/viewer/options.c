#include "options.h"

#include "script.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void viewer_usage(FILE *out) {
    fprintf(out, "usage: heft-viewer [--scenario NAME] [--solver NAME] [options]\n"
                 "  --scenario NAME     scene to open (default: crane, else hanging-chain)\n"
                 "  --variant NAME      stacking: boxes (default), pyramid, tower, wall\n"
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
                 "  --iterations N      PGS sweeps (solver max_iterations)\n"
                 "  --tolerance X       solver tolerance, J\n"
                 "  --links N, --link-mass KG, --load-mass KG, --angle DEG, --length M\n"
                 "                      scene parameters, as heft-run takes them\n"
                 "  -h, --help          this text\n");
}

void viewer_list(FILE *out) {
    fprintf(out, "scenes (tab in this order):\n");
    for (int i = 0; i < viewer_scene_count(); ++i) {
        const viewer_scene *e = viewer_scene_at(i);
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

static int parse_double(const char *s, double lo, double hi, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= lo && v <= hi)) {
        return -1;
    }
    *out = v;
    return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        return -1;
    }
    *out = (int)v;
    return 0;
}

options_action viewer_parse_options(int argc, char **argv, viewer_options *o, char *err,
                                    size_t err_size) {
    *o = viewer_default_options();
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        const char *value = (i + 1 < argc) ? argv[i + 1] : NULL;
#define NEEDS_VALUE()                                                                              \
    do {                                                                                           \
        if (!value) {                                                                              \
            snprintf(err, err_size, "%s needs a value (heft-viewer --help)", a);                   \
            return OPTIONS_ERROR;                                                                  \
        }                                                                                          \
        ++i;                                                                                       \
    } while (0)
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            return OPTIONS_HELP;
        } else if (strcmp(a, "--list") == 0) {
            return OPTIONS_LIST;
        } else if (strcmp(a, "--scenario") == 0) {
            NEEDS_VALUE();
            if (!scenario_find(value)) {
                snprintf(err, err_size, "unknown scenario \"%s\" (heft-viewer --list shows them)",
                         value);
                return OPTIONS_ERROR;
            }
            o->scenario = value;
        } else if (strcmp(a, "--variant") == 0) {
            NEEDS_VALUE();
            o->params.variant = value;
        } else if (strcmp(a, "--solver") == 0) {
            NEEDS_VALUE();
            if (!heft_solver_find(value)) {
                snprintf(err, err_size, "unknown solver \"%s\" (heft-viewer --list shows them)",
                         value);
                return OPTIONS_ERROR;
            }
            o->solver = value;
        } else if (strcmp(a, "--size") == 0) {
            NEEDS_VALUE();
            int w = 0, h = 0;
            char x = 0, extra;
            if (sscanf(value, "%d%c%d%c", &w, &x, &h, &extra) != 3 || x != 'x' || w < 64 ||
                h < 64 || w > 8192 || h > 8192) {
                snprintf(err, err_size, "--size wants WxH between 64x64 and 8192x8192, not \"%s\"",
                         value);
                return OPTIONS_ERROR;
            }
            o->width = w;
            o->height = h;
        } else if (strcmp(a, "--frames") == 0) {
            NEEDS_VALUE();
            if (parse_int(value, 1, 100000000, &o->frames) != 0) {
                snprintf(err, err_size, "--frames wants a whole number >= 1, not \"%s\"", value);
                return OPTIONS_ERROR;
            }
        } else if (strcmp(a, "--samples") == 0) {
            NEEDS_VALUE();
            if (parse_int(value, 0, 16, &o->samples) != 0) {
                snprintf(err, err_size, "--samples wants 0..16, not \"%s\"", value);
                return OPTIONS_ERROR;
            }
        } else if (strcmp(a, "--screenshot") == 0) {
            NEEDS_VALUE();
            o->screenshot = value;
        } else if (strcmp(a, "--record") == 0) {
            NEEDS_VALUE();
            o->record = value;
        } else if (strcmp(a, "--script") == 0) {
            NEEDS_VALUE();
            o->script = value;
        } else if (strcmp(a, "--hidden") == 0) {
            o->hidden = 1;
        } else if (strcmp(a, "--stats") == 0) {
            o->print_stats = 1;
        } else if (strcmp(a, "--realtime") == 0) {
            o->fixed_step = 0;
        } else if (strcmp(a, "--iterations") == 0 || strcmp(a, "--links") == 0) {
            NEEDS_VALUE();
            int *target = strcmp(a, "--links") == 0 ? &o->params.links : &o->iterations;
            if (parse_int(value, 1, 1000000, target) != 0) {
                snprintf(err, err_size, "%s wants a whole number >= 1, not \"%s\"", a, value);
                return OPTIONS_ERROR;
            }
        } else if (strcmp(a, "--tolerance") == 0 || strcmp(a, "--link-mass") == 0 ||
                   strcmp(a, "--load-mass") == 0 || strcmp(a, "--length") == 0) {
            NEEDS_VALUE();
            double *target = strcmp(a, "--tolerance") == 0   ? &o->tolerance
                             : strcmp(a, "--link-mass") == 0 ? &o->params.link_mass
                             : strcmp(a, "--load-mass") == 0 ? &o->params.load_mass
                                                             : &o->params.length;
            if (parse_double(value, 1e-300, 1e12, target) != 0) {
                snprintf(err, err_size, "%s wants a positive number, not \"%s\"", a, value);
                return OPTIONS_ERROR;
            }
        } else if (strcmp(a, "--angle") == 0) {
            NEEDS_VALUE();
            if (parse_double(value, -180.0, 180.0, &o->params.angle_deg) != 0) {
                snprintf(err, err_size, "--angle wants degrees in [-180, 180], not \"%s\"", value);
                return OPTIONS_ERROR;
            }
        } else if (strcmp(a, "--no-geometric-stiffness") == 0) {
            o->geometric_stiffness = 0;
        } else {
            snprintf(err, err_size, "unknown option \"%s\" (heft-viewer --help)", a);
            return OPTIONS_ERROR;
        }
#undef NEEDS_VALUE
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
