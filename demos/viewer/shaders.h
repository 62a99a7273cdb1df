/* The viewer's GLSL 3.30 programs, embedded as strings (shaders.c). */
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

/* Compiles and links one program; 0 (with the log on stderr) on failure. */
unsigned shader_program(shader_id id);

#endif
