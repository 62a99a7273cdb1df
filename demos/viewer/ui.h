/* A small immediate-mode UI: panels, text (stb_easy_font) and buttons,
 * rebuilt every frame and drawn as one batch of triangles. A click is given
 * to the UI when it falls on last frame's panels (ui_covers), so the mouse
 * never picks a body through a menu. */
#ifndef HEFT_VIEWER_UI_H
#define HEFT_VIEWER_UI_H

#include <stdint.h>

#define UI_MAX_RECTS 64

typedef struct ui_vertex {
    float x, y;
    uint8_t rgba[4];
} ui_vertex;

typedef struct ui_rect {
    float x, y, w, h;
} ui_rect;

typedef struct ui_context {
    float width, height; /* framebuffer pixels */
    float scale;         /* pixels per UI unit (window to framebuffer, HiDPI) */
    float text_scale;
    ui_vertex *vertices;
    int count, capacity;
    ui_rect rects[UI_MAX_RECTS], last_rects[UI_MAX_RECTS];
    int rect_count, last_rect_count;
    int click_pending;      /* a click to deliver to a button this frame */
    float click_x, click_y; /* framebuffer pixels */
    float mouse_x, mouse_y;
    unsigned program, vao, vbo;
    int loc_screen;
} ui_context;

int ui_init(ui_context *ui);
void ui_free(ui_context *ui);
void ui_begin(ui_context *ui, float width, float height, float mouse_x, float mouse_y);
/* Remembers a panel for ui_covers and draws its background. */
void ui_panel(ui_context *ui, float x, float y, float w, float h);
void ui_fill(ui_context *ui, float x, float y, float w, float h, const uint8_t rgba[4]);
void ui_line(ui_context *ui, float x0, float y0, float x1, float y1, float width,
             const uint8_t rgba[4]);
/* Text with its top-left at (x, y); returns its width in pixels. */
float ui_text(ui_context *ui, float x, float y, const uint8_t rgba[4], const char *text);
float ui_text_width(const ui_context *ui, const char *text);
float ui_line_height(const ui_context *ui);
/* A button; returns 1 when clicked this frame. active draws it highlighted. */
int ui_button(ui_context *ui, float x, float y, float w, float h, const char *label, int active);
/* Whether a framebuffer point is on a panel drawn in the last frame. */
int ui_covers(const ui_context *ui, float x, float y);
void ui_click(ui_context *ui, float x, float y);
void ui_end(ui_context *ui);

#endif
