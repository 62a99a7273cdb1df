/* Coloured line segments in world space for the debug views: what
 * heft_world_draw hands the viewer (contacts and their forces, joint frames
 * and limits, bounding boxes, islands) and the drag spring. */
#ifndef HEFT_VIEWER_DEBUG_LINES_H
#define HEFT_VIEWER_DEBUG_LINES_H

#include "heft.h"

typedef struct line_vertex {
    float position[3];
    float colour[4];
} line_vertex;

typedef struct debug_lines {
    line_vertex *vertices;
    int count, capacity;
    unsigned program, vao, vbo;
    int loc_view_proj;
} debug_lines;

int debug_lines_init(debug_lines *d);
void debug_lines_free(debug_lines *d);
void debug_lines_clear(debug_lines *d);
void debug_line(debug_lines *d, heft_vec3 a, heft_vec3 b, const float rgba[4]);
void debug_box(debug_lines *d, heft_vec3 lo, heft_vec3 hi, const float rgba[4]);
void debug_frame(debug_lines *d, heft_vec3 origin, heft_quat q, double size);
/* Draws on top of the scene (no depth test) when overlay is 1. */
void debug_lines_draw(debug_lines *d, const float view_proj[16], int overlay);

#endif
