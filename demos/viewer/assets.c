#include "assets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *chosen_dir;

void assets_set_dir(const char *dir) {
    chosen_dir = dir;
}

const embedded_asset *assets_embedded(const char *path) {
    for (int i = 0; path && i < embedded_asset_count; ++i) {
        if (strcmp(embedded_assets[i].path, path) == 0) {
            return &embedded_assets[i];
        }
    }
    return NULL;
}

/* The whole file, NUL-terminated; NULL with errno set. */
static char *read_file(const char *file) {
    FILE *f = fopen(file, "rb");
    if (!f) {
        return NULL;
    }
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    while (text) {
        len += fread(text + len, 1, cap - 1 - len, f);
        if (len < cap - 1) {
            break; /* end of file or an error, told apart below */
        }
        char *bigger = cap < ((size_t)1 << 24) ? realloc(text, cap * 2) : NULL;
        if (!bigger) {
            free(text);
            text = NULL;
            errno = EFBIG; /* a shader of 16 MB is not one */
            break;
        }
        text = bigger;
        cap *= 2;
    }
    int failed = !text || ferror(f);
    int why = errno;
    fclose(f);
    if (failed) {
        free(text);
        errno = why ? why : EIO;
        return NULL;
    }
    text[len] = '\0';
    return text;
}

/* dir/path into out; 0, or -1 when it does not fit. */
static int join(char *out, size_t size, const char *dir, const char *path) {
    int n = snprintf(out, size, "%s/%s", dir, path);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

/* The installed assets next to the executable, when /proc says where it is. */
static int installed_dir(char *out, size_t size) {
#ifdef HEFT_ASSETS_FROM_BIN
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        return -1;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) {
        return -1;
    }
    *slash = '\0';
    return join(out, size, exe, HEFT_ASSETS_FROM_BIN);
#else
    (void)out;
    (void)size;
    return -1;
#endif
}

char *assets_read_text(const char *path, char *origin, size_t origin_size, char *err,
                       size_t err_size) {
    char file[4400];
    const char *dir = chosen_dir ? chosen_dir : getenv("HEFT_ASSETS");
    if (dir && strcmp(dir, ASSETS_BUILT_IN) == 0) {
        dir = NULL; /* straight to the copy built in */
    } else if (dir && *dir) {
        const char *from = chosen_dir ? "--assets" : "HEFT_ASSETS";
        char *text = NULL;
        if (join(file, sizeof file, dir, path) != 0) {
            errno = ENAMETOOLONG;
        } else {
            text = read_file(file);
        }
        if (!text) {
            snprintf(err, err_size, "cannot read %s/%s (%s): %s", dir, path, from, strerror(errno));
        } else if (origin) {
            snprintf(origin, origin_size, "%s", file);
        }
        return text;
    }
    char candidates[2][4096];
    int count = 0;
    if (!dir && installed_dir(candidates[count], sizeof candidates[count]) == 0) {
        ++count;
    }
#ifdef HEFT_SOURCE_ASSETS
    if (!dir) {
        snprintf(candidates[count++], sizeof candidates[0], "%s", HEFT_SOURCE_ASSETS);
    }
#endif
    for (int k = 0; k < count; ++k) {
        if (join(file, sizeof file, candidates[k], path) != 0 || access(file, R_OK) != 0) {
            continue;
        }
        char *text = read_file(file);
        if (text) {
            if (origin) {
                snprintf(origin, origin_size, "%s", file);
            }
            return text;
        }
    }
    const embedded_asset *e = assets_embedded(path);
    char *copy = e ? malloc(e->size + 1) : NULL;
    if (!copy) {
        snprintf(err, err_size, "%s: %s", path, e ? "out of memory" : "no such asset");
        return NULL;
    }
    memcpy(copy, e->data, e->size + 1);
    if (origin) {
        snprintf(origin, origin_size, "built-in %s", path);
    }
    return copy;
}

int assets_find_dir(const char *sub, char *out, size_t size) {
    char candidates[3][4096];
    int count = 0;
    const char *dir = chosen_dir ? chosen_dir : getenv("HEFT_ASSETS");
    if (dir && strcmp(dir, ASSETS_BUILT_IN) == 0) {
        return -1;
    }
    if (dir && *dir) {
        snprintf(candidates[count++], sizeof candidates[0], "%s", dir);
    } else {
        if (installed_dir(candidates[count], sizeof candidates[count]) == 0) {
            ++count;
        }
#ifdef HEFT_SOURCE_ASSETS
        snprintf(candidates[count++], sizeof candidates[0], "%s", HEFT_SOURCE_ASSETS);
#endif
    }
    for (int k = 0; k < count; ++k) {
        if (join(out, size, candidates[k], sub) == 0 && access(out, R_OK | X_OK) == 0) {
            return 0;
        }
    }
    return -1;
}
