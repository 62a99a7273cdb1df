/* The viewer's data files (assets/ at the top of the tree: the GLSL
 * programs), read at run time so they can be changed without a rebuild, and
 * built into the program too (embed_assets.cmake writes the same bytes into
 * a C file) so an installed viewer without them still runs. A file is taken
 * from the first of:
 *   1. the directory of --assets DIR, else of the HEFT_ASSETS environment
 *      variable; when one is given, nothing else: a file missing there is an
 *      error, not a silent fall-back;
 *   2. the installed tree, HEFT_ASSETS_FROM_BIN relative to the executable
 *      (bin/heft-viewer and share/heft/assets);
 *   3. the source tree's assets/ (HEFT_SOURCE_ASSETS, a build tree);
 *   4. the copy built in; --assets built-in (ASSETS_BUILT_IN) goes straight
 *      there, whatever files exist.
 * GL-free, so the tests check it without a display. */
#ifndef HEFT_VIEWER_ASSETS_H
#define HEFT_VIEWER_ASSETS_H

#include <stddef.h>

typedef struct embedded_asset {
    const char *path; /* relative to assets/, e.g. "shaders/mesh.vert.glsl" */
    const unsigned char *data;
    size_t size; /* without the NUL that ends data */
} embedded_asset;

/* The --assets value that chooses the copies built in. */
#define ASSETS_BUILT_IN "built-in"

/* The built-in copies (generated: assets_embedded.c). */
extern const embedded_asset embedded_assets[];
extern const int embedded_asset_count;

/* The directory of step 1 (--assets); NULL: HEFT_ASSETS or the search. The
 * string must outlive the lookups. */
void assets_set_dir(const char *dir);

/* The text of the asset at path (relative to assets/), malloc'd and
 * NUL-terminated; origin (may be NULL) gets the file it was read from, or
 * "built-in PATH". NULL with a message in err when it cannot be had. */
char *assets_read_text(const char *path, char *origin, size_t origin_size, char *err,
                       size_t err_size);

/* The directory sub (e.g. "scenes") of the first assets directory of steps
 * 1-3 that has it, into out; 0, or -1 when none has (the files of such a
 * directory are not built in). */
int assets_find_dir(const char *sub, char *out, size_t size);

/* The built-in copy of path, or NULL. */
const embedded_asset *assets_embedded(const char *path);

#endif
