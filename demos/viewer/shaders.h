/* The viewer's GLSL 3.30 programs: assets/shaders/NAME.vert.glsl and
 * NAME.frag.glsl, found as assets.h says. */
#ifndef HEFT_VIEWER_SHADERS_H
#define HEFT_VIEWER_SHADERS_H

typedef enum shader_id {
    SHADER_MESH = 0, /* lit, shadowed, instanced bodies; grid on the ground */
    SHADER_DEPTH,    /* instanced bodies into the shadow map */
    SHADER_SKY,      /* full-screen gradient behind everything */
    SHADER_LINES,    /* coloured debug lines */
    SHADER_UI,       /* the overlay, in pixels */
    SHADER_COUNT
} shader_id;

/* Reads, compiles and links one program; 0 (with the reason on stderr) on
 * failure. */
unsigned shader_program(shader_id id);

#endif
