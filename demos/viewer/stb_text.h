/* Text as quads from stb_easy_font (implemented in stb_impl.c): 4 vertices of
 * 16 bytes (x, y, z floats and 4 colour bytes) per quad, 12 pixels a line. */
#ifndef HEFT_VIEWER_STB_TEXT_H
#define HEFT_VIEWER_STB_TEXT_H

int stb_text_quads(float x, float y, const char *text, void *vertices, int vertex_bytes);
int stb_text_width(const char *text);

#endif
