/* heft-scene: scene files from the command line (docs/scene-format.md).
 *
 *   heft-scene export NAME FILE [--variant V]   the C scene NAME, as built
 *                                               before its first step
 *   heft-scene export-all DIR                   every C scene (and each
 *                                               stacking variant) into DIR
 *   heft-scene check FILE                       loads FILE, prints what it holds
 *   heft-scene resave FILE OUT                  loads FILE and saves it again
 *   heft-scene urdf FILE OUT [options]          imports a URDF robot (docs/urdf.md)
 *                                               and saves it as a scene
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runner.h"
#include "scene_attach.h"

static int export_scene(const char *name, const char *variant, const char *path) {
    run_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.scenario = name;
    cfg.params.variant = variant;
    run_result r;
    int steps = 0;
    double h = 0.0;
    if (run_open(&cfg, &r, &steps, &h) != 0) {
        fprintf(stderr, "heft-scene: %s\n", r.error);
        return 1;
    }
    heft_scene_info info = heft_default_scene_info();
    scene_attach_name(r.desc, &cfg.params, info.name, sizeof info.name);
    info.time_step = h;
    info.steps = steps;
    scene_attach_operators(r.desc, r.world, &info);
    int bad = heft_world_save(r.world, path, &info) != HEFT_OK;
    if (bad) {
        fprintf(stderr, "heft-scene: %s\n", heft_last_error());
    }
    run_result_free(&r);
    return bad;
}

static const char *variants[] = {"boxes", "pyramid", "tower", "wall"};

static int export_all(const char *dir) {
    char path[1024];
    int bad = 0;
    for (int i = 0; i < scenario_count(); ++i) {
        const scenario_desc *d = scenario_at(i);
        int variant_count = strcmp(d->name, "stacking") == 0 ? 4 : 1;
        for (int v = 0; v < variant_count; ++v) {
            const char *variant = variant_count > 1 ? variants[v] : NULL;
            snprintf(path, sizeof path, "%s/%s%s%s.json", dir, d->name, variant ? "-" : "",
                     variant ? variant : "");
            bad |= export_scene(d->name, variant, path);
            if (!bad) {
                printf("%s\n", path);
            }
        }
    }
    return bad;
}

static int check(const char *path) {
    heft_scene_info info;
    heft_world *w = heft_world_load(path, &info);
    if (!w) {
        fprintf(stderr, "%s\n", heft_last_error());
        return 1;
    }
    printf("%s: scene \"%s\", %d bodies, %d joints, %d operators, solver %s, h %g s, %d steps\n",
           path, info.name, heft_world_body_count(w), heft_world_joint_count(w),
           info.operator_count, heft_world_solver(w), info.time_step, info.steps);
    heft_world_destroy(w);
    return 0;
}

static int resave(const char *path, const char *out) {
    heft_scene_info info;
    heft_world *w = heft_world_load(path, &info);
    if (!w) {
        fprintf(stderr, "%s\n", heft_last_error());
        return 1;
    }
    int bad = heft_world_save(w, out, &info) != HEFT_OK;
    if (bad) {
        fprintf(stderr, "heft-scene: %s\n", heft_last_error());
    }
    heft_world_destroy(w);
    return bad;
}

/* heft-scene urdf FILE OUT [--floating] [--merge-fixed] [--no-dynamics]
 *                          [--at X Y Z] [--package-root DIR] */
static int import_urdf(int argc, char **argv) {
    const char *path = argv[2], *out = argv[3];
    heft_urdf_options options = heft_default_urdf_options();
    for (int i = 4; i < argc; ++i) {
        if (strcmp(argv[i], "--floating") == 0) {
            options.fixed_base = 0;
        } else if (strcmp(argv[i], "--merge-fixed") == 0) {
            options.merge_fixed = 1;
        } else if (strcmp(argv[i], "--no-dynamics") == 0) {
            options.joint_dynamics = 0;
        } else if (strcmp(argv[i], "--at") == 0 && i + 3 < argc) {
            char *end[3];
            options.position = heft_v3(strtod(argv[i + 1], &end[0]), strtod(argv[i + 2], &end[1]),
                                       strtod(argv[i + 3], &end[2]));
            if (*end[0] || *end[1] || *end[2]) {
                fprintf(stderr, "heft-scene: --at needs three numbers\n");
                return 2;
            }
            i += 3;
        } else if (strcmp(argv[i], "--package-root") == 0 && i + 1 < argc) {
            options.package_root = argv[++i];
        } else {
            fprintf(stderr, "heft-scene: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    heft_world *w = heft_world_create(NULL);
    heft_urdf_result result;
    if (!w || heft_world_import_urdf(w, path, &options, &result) != HEFT_OK) {
        fprintf(stderr, "%s\n", heft_last_error());
        heft_world_destroy(w);
        return 1;
    }
    heft_scene_info info = heft_default_scene_info();
    snprintf(info.name, sizeof info.name, "%s", result.robot);
    int bad = heft_world_save(w, out, &info) != HEFT_OK;
    if (bad) {
        fprintf(stderr, "heft-scene: %s\n", heft_last_error());
    } else {
        printf("%s: robot \"%s\", %d bodies, %d shapes, %d joints, %d links merged, "
               "%d things not mapped%s%s\n",
               out, result.robot, result.body_count, result.shape_count, result.joint_count,
               result.merged_links, result.ignored, result.ignored ? ", the first: " : "",
               result.note);
    }
    heft_world_destroy(w);
    return bad;
}

static void usage(FILE *f) {
    fputs("usage: heft-scene export NAME FILE [--variant V]\n"
          "       heft-scene export-all DIR\n"
          "       heft-scene check FILE\n"
          "       heft-scene resave FILE OUT\n"
          "       heft-scene urdf FILE OUT [--floating] [--merge-fixed] [--no-dynamics]\n"
          "                                [--at X Y Z] [--package-root DIR]\n",
          f);
}

int main(int argc, char **argv) {
    if (argc >= 4 && strcmp(argv[1], "export") == 0) {
        const char *variant = NULL;
        if (argc == 6 && strcmp(argv[4], "--variant") == 0) {
            variant = argv[5];
        } else if (argc != 4) {
            usage(stderr);
            return 2;
        }
        return export_scene(argv[2], variant, argv[3]);
    }
    if (argc == 3 && strcmp(argv[1], "export-all") == 0) {
        return export_all(argv[2]);
    }
    if (argc == 3 && strcmp(argv[1], "check") == 0) {
        return check(argv[2]);
    }
    if (argc == 4 && strcmp(argv[1], "resave") == 0) {
        return resave(argv[2], argv[3]);
    }
    if (argc >= 4 && strcmp(argv[1], "urdf") == 0) {
        return import_urdf(argc, argv);
    }
    usage(argc > 1 && strcmp(argv[1], "--help") == 0 ? stdout : stderr);
    return argc > 1 && strcmp(argv[1], "--help") == 0 ? 0 : 2;
}
