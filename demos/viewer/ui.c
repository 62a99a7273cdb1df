#include "ui.h"

#include <glad/gl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "shaders.h"
#include "stb_text.h"

int ui_init(ui_context *ui) {
    memset(ui, 0, sizeof *ui);
    ui->scale = 1.0f;
    ui->text_scale = 1.5f;
    ui->program = shader_program(SHADER_UI);
    if (!ui->program) {
        return -1;
    }
    ui->loc_screen = glGetUniformLocation(ui->program, "u_screen");
    glGenVertexArrays(1, &ui->vao);
    glGenBuffers(1, &ui->vbo);
    glBindVertexArray(ui->vao);
    glBindBuffer(GL_ARRAY_BUFFER, ui->vbo);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, sizeof(ui_vertex), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(ui_vertex),
                          (void *)offsetof(ui_vertex, rgba));
    glBindVertexArray(0);
    return 0;
}

void ui_free(ui_context *ui) {
    if (ui->program) {
        glDeleteProgram(ui->program);
        glDeleteBuffers(1, &ui->vbo);
        glDeleteVertexArrays(1, &ui->vao);
    }
    free(ui->vertices);
    memset(ui, 0, sizeof *ui);
}

void ui_begin(ui_context *ui, float width, float height, float mouse_x, float mouse_y) {
    ui->width = width;
    ui->height = height;
    ui->mouse_x = mouse_x;
    ui->mouse_y = mouse_y;
    ui->count = 0;
    memcpy(ui->last_rects, ui->rects, sizeof ui->rects);
    ui->last_rect_count = ui->rect_count;
    ui->rect_count = 0;
    ui->text_scale = (height >= 1000.0f ? 2.0f : 1.5f);
}

static ui_vertex *ui_reserve(ui_context *ui, int n) {
    if (ui->count + n > ui->capacity) {
        int cap = ui->capacity ? ui->capacity : 4096;
        while (cap < ui->count + n) {
            cap *= 2;
        }
        ui_vertex *grown = realloc(ui->vertices, (size_t)cap * sizeof *grown);
        if (!grown) {
            return NULL;
        }
        ui->vertices = grown;
        ui->capacity = cap;
    }
    ui_vertex *out = ui->vertices + ui->count;
    ui->count += n;
    return out;
}

static void ui_quad(ui_context *ui, const float *p, const uint8_t rgba[4]) {
    ui_vertex *v = ui_reserve(ui, 6);
    if (!v) {
        return;
    }
    static const int order[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; ++i) {
        v[i].x = p[2 * order[i]];
        v[i].y = p[2 * order[i] + 1];
        memcpy(v[i].rgba, rgba, 4);
    }
}

void ui_fill(ui_context *ui, float x, float y, float w, float h, const uint8_t rgba[4]) {
    const float p[8] = {x, y, x + w, y, x + w, y + h, x, y + h};
    ui_quad(ui, p, rgba);
}

void ui_line(ui_context *ui, float x0, float y0, float x1, float y1, float width,
             const uint8_t rgba[4]) {
    float dx = x1 - x0, dy = y1 - y0;
    float len = sqrtf(dx * dx + dy * dy);
    if (len <= 0.0f) {
        return;
    }
    float nx = -dy / len * 0.5f * width, ny = dx / len * 0.5f * width;
    const float p[8] = {x0 + nx, y0 + ny, x1 + nx, y1 + ny, x1 - nx, y1 - ny, x0 - nx, y0 - ny};
    ui_quad(ui, p, rgba);
}

void ui_panel(ui_context *ui, float x, float y, float w, float h) {
    static const uint8_t background[4] = {18, 22, 30, 200};
    if (ui->rect_count < UI_MAX_RECTS) {
        ui->rects[ui->rect_count++] = (ui_rect){x, y, w, h};
    }
    ui_fill(ui, x, y, w, h, background);
}

float ui_text_width(const ui_context *ui, const char *text) {
    return (float)stb_text_width(text) * ui->text_scale;
}

float ui_line_height(const ui_context *ui) {
    return 12.0f * ui->text_scale;
}

float ui_text(ui_context *ui, float x, float y, const uint8_t rgba[4], const char *text) {
    static char quads[64 * 1024];
    int n = stb_text_quads(0.0f, 0.0f, text, quads, (int)sizeof quads);
    float s = ui->text_scale;
    for (int q = 0; q < n; ++q) {
        float p[8];
        for (int k = 0; k < 4; ++k) {
            float xy[2];
            memcpy(xy, quads + (size_t)(q * 4 + k) * 16, sizeof xy);
            p[2 * k] = x + xy[0] * s;
            p[2 * k + 1] = y + xy[1] * s;
        }
        ui_quad(ui, p, rgba);
    }
    return ui_text_width(ui, text);
}

int ui_button(ui_context *ui, float x, float y, float w, float h, const char *label, int active) {
    static const uint8_t idle[4] = {48, 56, 72, 230}, hover[4] = {70, 84, 108, 240},
                         on[4] = {40, 110, 190, 255}, text[4] = {235, 238, 245, 255};
    int inside = ui->mouse_x >= x && ui->mouse_x < x + w && ui->mouse_y >= y && ui->mouse_y < y + h;
    ui_fill(ui, x, y, w, h, active ? on : (inside ? hover : idle));
    ui_text(ui, x + 4.0f * ui->text_scale, y + 0.5f * (h - 7.0f * ui->text_scale), text, label);
    int clicked = ui->click_pending && ui->click_x >= x && ui->click_x < x + w &&
                  ui->click_y >= y && ui->click_y < y + h;
    if (clicked) {
        ui->click_pending = 0;
    }
    return clicked;
}

int ui_covers(const ui_context *ui, float x, float y) {
    for (int i = 0; i < ui->rect_count; ++i) {
        const ui_rect *r = &ui->rects[i];
        if (x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h) {
            return 1;
        }
    }
    return 0;
}

void ui_click(ui_context *ui, float x, float y) {
    ui->click_pending = 1;
    ui->click_x = x;
    ui->click_y = y;
}

void ui_end(ui_context *ui) {
    ui->click_pending = 0;
    if (ui->count == 0) {
        return;
    }
    glDisable(GL_DEPTH_TEST);
    glDisable(GL_CULL_FACE);
    glEnable(GL_BLEND);
    glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glUseProgram(ui->program);
    glUniform2f(ui->loc_screen, ui->width, ui->height);
    glBindVertexArray(ui->vao);
    glBindBuffer(GL_ARRAY_BUFFER, ui->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)ui->count * sizeof(ui_vertex)), ui->vertices,
                 GL_STREAM_DRAW);
    glDrawArrays(GL_TRIANGLES, 0, ui->count);
    glBindVertexArray(0);
    glDisable(GL_BLEND);
    glEnable(GL_DEPTH_TEST);
}
