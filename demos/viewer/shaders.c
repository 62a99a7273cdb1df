#include "shaders.h"

#include <glad/gl.h>
#include <stdio.h>
#include <stdlib.h>

#include "assets.h"

static unsigned compile(unsigned type, const char *source, const char *what) {
    unsigned s = glCreateShader(type);
    glShaderSource(s, 1, &source, NULL);
    glCompileShader(s);
    int ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "heft-viewer: %s does not compile:\n%s\n", what, log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

unsigned shader_program(shader_id id) {
    static const char *names[SHADER_COUNT] = {"mesh", "depth", "sky", "lines", "ui"};
    if ((int)id < 0 || id >= SHADER_COUNT) {
        return 0;
    }
    /* the file each came from, so a compile error names what to fix */
    char path[64], err[512], vs_origin[4400], fs_origin[4400];
    snprintf(path, sizeof path, "shaders/%s.vert.glsl", names[id]);
    char *vs = assets_read_text(path, vs_origin, sizeof vs_origin, err, sizeof err);
    snprintf(path, sizeof path, "shaders/%s.frag.glsl", names[id]);
    char *fs = vs ? assets_read_text(path, fs_origin, sizeof fs_origin, err, sizeof err) : NULL;
    if (!vs || !fs) {
        fprintf(stderr, "heft-viewer: %s shader: %s\n", names[id], err);
        free(vs);
        free(fs);
        return 0;
    }
    unsigned v = compile(GL_VERTEX_SHADER, vs, vs_origin);
    unsigned f = compile(GL_FRAGMENT_SHADER, fs, fs_origin);
    free(vs);
    free(fs);
    if (!v || !f) {
        if (v)
            glDeleteShader(v);
        if (f)
            glDeleteShader(f);
        return 0;
    }
    unsigned p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    int ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        fprintf(stderr, "heft-viewer: %s program does not link:\n%s\n", names[id], log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}
