#include "capture.h"

#include <errno.h>
#include <glad/gl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stb/stb_image_write.h>

struct recorder {
    FILE *pipe;
    int width, height;
};

unsigned char *capture_pixels(int width, int height) {
    if (width <= 0 || height <= 0) {
        return NULL;
    }
    size_t row = (size_t)width * 3;
    unsigned char *pixels = malloc(row * (size_t)height);
    unsigned char *line = malloc(row);
    if (!pixels || !line) {
        free(pixels);
        free(line);
        return NULL;
    }
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGB, GL_UNSIGNED_BYTE, pixels);
    for (int y = 0; y < height / 2; ++y) { /* OpenGL's first row is the bottom one */
        unsigned char *a = pixels + row * (size_t)y, *b = pixels + row * (size_t)(height - 1 - y);
        memcpy(line, a, row);
        memcpy(a, b, row);
        memcpy(b, line, row);
    }
    free(line);
    return pixels;
}

static void png_bytes(void *context, void *data, int size) {
    FILE *f = context;
    if (size > 0 && !ferror(f)) {
        fwrite(data, 1, (size_t)size, f);
    }
}

int capture_write_png(const char *path, const unsigned char *rgb, int width, int height) {
    /* through our own FILE: stbi_write_png neither checks its writes nor its
     * fclose, so a full disk would pass for a written picture */
    FILE *f = fopen(path, "wb");
    if (!f) {
        return -1;
    }
    int encoded = stbi_write_png_to_func(png_bytes, f, width, height, 3, rgb, width * 3);
    int saved = errno;
    int lost = fflush(f) != 0 || ferror(f);
    saved = lost && errno ? errno : saved;
    struct stat st;
    int regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
    if (fclose(f) != 0 && !lost) {
        lost = 1;
        saved = errno;
    }
    if (!encoded || lost) {
        if (regular) {
            remove(path); /* no truncated picture left behind; never a device or a pipe */
        }
        errno = encoded ? saved : ENOMEM;
        return -1;
    }
    return 0;
}

int capture_have_ffmpeg(void) {
    const char *path = getenv("PATH");
    if (!path) {
        return 0;
    }
    char dir[4096];
    while (*path) {
        size_t n = strcspn(path, ":");
        if (n > 0 && n < sizeof dir - 8) {
            memcpy(dir, path, n);
            strcpy(dir + n, "/ffmpeg");
            if (access(dir, X_OK) == 0) {
                return 1;
            }
        }
        path += n + (path[n] == ':');
    }
    return 0;
}

recorder *recorder_open(const char *path, int width, int height, int fps, char *err,
                        unsigned long err_size) {
    if (!capture_have_ffmpeg()) {
        snprintf(err, err_size, "--record needs ffmpeg on PATH (Debian: apt-get install ffmpeg)");
        return NULL;
    }
    if (strchr(path, '\'')) {
        snprintf(err, err_size, "--record: the file name may not contain a quote");
        return NULL;
    }
    recorder *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, err_size, "out of memory");
        return NULL;
    }
    char command[4608];
    snprintf(command, sizeof command,
             "ffmpeg -loglevel error -y -f rawvideo -pix_fmt rgb24 -s %dx%d -r %d -i - "
             "-c:v libx264 -pix_fmt yuv420p -vf 'scale=trunc(iw/2)*2:trunc(ih/2)*2' '%s'",
             width, height, fps, path);
    r->pipe = popen(command, "w");
    if (!r->pipe) {
        snprintf(err, err_size, "could not start ffmpeg");
        free(r);
        return NULL;
    }
    r->width = width;
    r->height = height;
    return r;
}

int recorder_frame(recorder *r, const unsigned char *rgb, int width, int height) {
    if (!r || width != r->width || height != r->height) {
        return -1; /* ffmpeg was told one size; a resized window's frames are skipped */
    }
    size_t bytes = (size_t)width * (size_t)height * 3;
    return fwrite(rgb, 1, bytes, r->pipe) == bytes ? 0 : -1;
}

int recorder_close(recorder *r) {
    if (!r) {
        return 0;
    }
    int status = pclose(r->pipe);
    free(r);
    return (status != -1 && WIFEXITED(status)) ? WEXITSTATUS(status) : -1;
}
