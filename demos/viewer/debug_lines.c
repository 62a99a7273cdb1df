#include "debug_lines.h"

#include <glad/gl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "shaders.h"

int debug_lines_init(debug_lines *d) {
    memset(d, 0, sizeof *d);
    d->program = shader_program(SHADER_LINES);
    if (!d->program) {
        return -1;
    }
    d->loc_view_proj = glGetUniformLocation(d->program, "u_view_proj");
    glGenVertexArrays(1, &d->vao);
    glGenBuffers(1, &d->vbo);
    glBindVertexArray(d->vao);
    glBindBuffer(GL_ARRAY_BUFFER, d->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(line_vertex), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_FLOAT, GL_FALSE, sizeof(line_vertex),
                          (void *)offsetof(line_vertex, colour));
    glBindVertexArray(0);
    return 0;
}

void debug_lines_free(debug_lines *d) {
    if (d->program) {
        glDeleteProgram(d->program);
        glDeleteBuffers(1, &d->vbo);
        glDeleteVertexArrays(1, &d->vao);
    }
    free(d->vertices);
    memset(d, 0, sizeof *d);
}

void debug_lines_clear(debug_lines *d) {
    d->count = 0;
}

static void put(debug_lines *d, heft_vec3 p, const float rgba[4]) {
    if (d->count == d->capacity) {
        int cap = d->capacity ? 2 * d->capacity : 1024;
        line_vertex *grown = realloc(d->vertices, (size_t)cap * sizeof *grown);
        if (!grown) {
            return;
        }
        d->vertices = grown;
        d->capacity = cap;
    }
    line_vertex *v = &d->vertices[d->count++];
    v->position[0] = (float)p.x;
    v->position[1] = (float)p.y;
    v->position[2] = (float)p.z;
    memcpy(v->colour, rgba, sizeof v->colour);
}

void debug_line(debug_lines *d, heft_vec3 a, heft_vec3 b, const float rgba[4]) {
    if (!heft_v3_isfinite(a) || !heft_v3_isfinite(b)) {
        return;
    }
    put(d, a, rgba);
    put(d, b, rgba);
}

void debug_box(debug_lines *d, heft_vec3 lo, heft_vec3 hi, const float rgba[4]) {
    for (int i = 0; i < 4; ++i) {
        double x0 = (i & 1) ? hi.x : lo.x, y0 = (i & 2) ? hi.y : lo.y;
        debug_line(d, heft_v3(x0, y0, lo.z), heft_v3(x0, y0, hi.z), rgba);
        double y1 = (i & 1) ? hi.y : lo.y, z1 = (i & 2) ? hi.z : lo.z;
        debug_line(d, heft_v3(lo.x, y1, z1), heft_v3(hi.x, y1, z1), rgba);
        double x2 = (i & 1) ? hi.x : lo.x, z2 = (i & 2) ? hi.z : lo.z;
        debug_line(d, heft_v3(x2, lo.y, z2), heft_v3(x2, hi.y, z2), rgba);
    }
}

void debug_frame(debug_lines *d, heft_vec3 origin, heft_quat q, double size) {
    static const float axis_colour[3][4] = {
        {0.95f, 0.2f, 0.2f, 1.0f}, {0.2f, 0.85f, 0.2f, 1.0f}, {0.25f, 0.45f, 1.0f, 1.0f}};
    const heft_vec3 e[3] = {heft_v3(1, 0, 0), heft_v3(0, 1, 0), heft_v3(0, 0, 1)};
    for (int k = 0; k < 3; ++k) {
        debug_line(d, origin, heft_v3_madd(origin, size, heft_quat_rotate(q, e[k])),
                   axis_colour[k]);
    }
}

void debug_lines_draw(debug_lines *d, const float view_proj[16], int overlay) {
    if (d->count == 0) {
        return;
    }
    if (overlay) {
        glDisable(GL_DEPTH_TEST);
    }
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glUseProgram(d->program);
    glUniformMatrix4fv(d->loc_view_proj, 1, GL_FALSE, view_proj);
    glBindVertexArray(d->vao);
    glBindBuffer(GL_ARRAY_BUFFER, d->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)d->count * sizeof(line_vertex)), d->vertices,
                 GL_STREAM_DRAW);
    glDrawArrays(GL_LINES, 0, d->count);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
}
