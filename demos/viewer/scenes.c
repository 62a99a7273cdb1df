/* The scenes the viewer offers: every scene of the registry, and a scene
 * with variants (stacking: boxes, pyramid, tower, wall) once per variant, so
 * the menu, tab and the camera presets reach each of them; then every scene
 * file of assets/scenes/. GL-free. */
/* realpath */
#define _XOPEN_SOURCE 700

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assets.h"
#include "scene_attach.h"

#include "viewer.h"

/* The menu's label prefix of a scene with variants (scenario_desc.variants);
 * a scene not listed here uses its name. */
static const struct {
    const char *scene;
    const char *short_name;
} short_names[] = {
    {"stacking", "stack"},
};

static const char *short_name(const scenario_desc *d) {
    for (size_t k = 0; k < sizeof short_names / sizeof short_names[0]; ++k) {
        if (strcmp(short_names[k].scene, d->name) == 0) {
            return short_names[k].short_name;
        }
    }
    return d->name;
}

/* The solver each scene opens with unless the user chose one (--solver, a
 * number key, the menu); the rest open with the viewer's default,
 * bpp-skyline. From the README's table of scenes under each solver: the
 * winch passes under PGS at about 1.6 ms a step and under bpp-skyline at
 * 12-14 ms on average with steps of several hundred ms where its friction
 * pivoting stalls, so it opens with PGS to stay interactive; the pyramid,
 * tower and wall put thousands of contact rows in one island, seconds a
 * step for a direct solver. The crane, the forklift, the chain and the
 * boxes work under bpp-skyline (and fail under PGS at 50 sweeps). */
static const struct {
    const char *key, *solver;
} scene_solvers[] = {
    {"winch", "pgs"},
    {"stacking/pyramid", "pgs"},
    {"stacking/tower", "pgs"},
    {"stacking/wall", "pgs"},
};

static const char *scene_solver(const char *key) {
    for (size_t k = 0; k < sizeof scene_solvers / sizeof scene_solvers[0]; ++k) {
        if (strcmp(scene_solvers[k].key, key) == 0) {
            return scene_solvers[k].solver;
        }
    }
    return NULL;
}

#define MAX_ENTRIES 64

static viewer_scene entries[MAX_ENTRIES];
static int entry_count = -1;

static void add_file_entries(void);

static void build_entries(void) {
    entry_count = 0;
    for (int i = 0; i < scenario_count() && entry_count < MAX_ENTRIES; ++i) {
        const scenario_desc *d = scenario_at(i);
        int variants = 0;
        for (int j = 0; d->variants && d->variants[j] && entry_count < MAX_ENTRIES; ++j) {
            viewer_scene *e = &entries[entry_count++];
            e->desc = d;
            e->variant = d->variants[j];
            snprintf(e->label, sizeof e->label, "%s %s", short_name(d), e->variant);
            snprintf(e->key, sizeof e->key, "%s/%s", d->name, e->variant);
            e->solver = scene_solver(e->key);
            variants++;
        }
        if (variants == 0) {
            viewer_scene *e = &entries[entry_count++];
            e->desc = d;
            e->variant = NULL;
            snprintf(e->label, sizeof e->label, "%s", d->name);
            snprintf(e->key, sizeof e->key, "%s", d->name);
            e->solver = scene_solver(e->key);
        }
    }
    add_file_entries();
}

static int by_name(const void *a, const void *b) {
    return strcmp((const char *)a, (const char *)b);
}

/* Every *.json of the assets' scenes/ directory, by name, after the C
 * scenes. */
static void add_file_entries(void) {
    char dir[440]; /* with a name of 63 bytes, within viewer_scene.file */
    if (assets_find_dir("scenes", dir, sizeof dir) != 0) {
        return;
    }
    DIR *d = opendir(dir);
    if (!d) {
        return;
    }
    char names[MAX_ENTRIES][64];
    int n = 0;
    struct dirent *f;
    while ((f = readdir(d)) != NULL && n < MAX_ENTRIES) {
        size_t len = strlen(f->d_name);
        if (len > 5 && len < sizeof names[0] && strcmp(f->d_name + len - 5, ".json") == 0) {
            memcpy(names[n++], f->d_name, len + 1); /* len < sizeof names[0] */
        }
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    for (int i = 0; i < n && entry_count < MAX_ENTRIES; ++i) {
        viewer_scene *e = &entries[entry_count++];
        memset(e, 0, sizeof *e);
        e->desc = &scenario_file;
        int stem = (int)strlen(names[i]) - 5;
        /* the stacking variants by their variant, as the C scenes' "stack ..." */
        const char *shown = names[i];
        if (strncmp(shown, "stacking-", 9) == 0) {
            shown += 9;
            stem -= 9;
        }
        snprintf(e->label, sizeof e->label, "%.*s", stem, shown); /* under "files" */
        snprintf(e->key, sizeof e->key, "file/%.*s", stem, names[i]);
        snprintf(e->file, sizeof e->file, "%s/%s", dir, names[i]);
    }
}

int viewer_file_index(const char *path) {
    int n = viewer_scene_count();
    char real[PATH_MAX];
    const char *canonical = path && realpath(path, real) ? real : path;
    for (int i = 0; path && i < n; ++i) {
        char mine[PATH_MAX];
        const char *entry = realpath(entries[i].file, mine) ? mine : entries[i].file;
        if (entries[i].file[0] && strcmp(entry, canonical) == 0) {
            return i;
        }
    }
    return -1;
}

int viewer_scene_count(void) {
    if (entry_count < 0) {
        build_entries();
    }
    return entry_count;
}

const viewer_scene *viewer_scene_at(int index) {
    return index >= 0 && index < viewer_scene_count() ? &entries[index] : NULL;
}

int viewer_scene_index(const scenario_desc *desc, const char *variant) {
    int n = viewer_scene_count(), first = -1;
    for (int i = 0; i < n; ++i) {
        if (entries[i].desc != desc || entries[i].file[0]) {
            continue;
        }
        if (first < 0) {
            first = i; /* no variant given: the scene's first (its default) */
        }
        if (variant && entries[i].variant && strcmp(variant, entries[i].variant) == 0) {
            return i;
        }
    }
    return first;
}

int viewer_scene_has_variant(const char *scene, const char *variant) {
    const scenario_desc *d = scenario_find(scene);
    scenario_params p = {0};
    p.variant = variant;
    return d && d->variants && scenario_variant(d, &p) != NULL;
}

int viewer_load_entry(viewer *v, int index) {
    const viewer_scene *e = viewer_scene_at(index);
    if (!e) {
        viewer_set_status(v, "no scene %d", index);
        return -1;
    }
    if (e->file[0]) {
        return viewer_load_file(v, e->file);
    }
    const char *before = v->opt.params.variant;
    v->opt.params.variant = e->variant;
    int r = viewer_load_scene(v, e->desc);
    if (r != 0) {
        v->opt.params.variant = before;
    }
    return r;
}

int viewer_current_scene(const viewer *v) {
    int file = v->scene_path[0] ? viewer_file_index(v->scene_path) : -1;
    if (file >= 0) {
        return file;
    }
    return viewer_scene_index(v->desc, v->opt.params.variant);
}
