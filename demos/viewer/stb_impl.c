/* The stb single-file libraries the viewer uses, implemented once here and
 * compiled without the project's warnings (they are not our code). */
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#include <stb/stb_image.h>
#include <stb/stb_easy_font.h>

#include "stb_text.h"

int stb_text_quads(float x, float y, const char *text, void *vertices, int vertex_bytes) {
    return stb_easy_font_print(x, y, (char *)text, NULL, vertices, vertex_bytes);
}

int stb_text_width(const char *text) {
    return stb_easy_font_width((char *)text);
}
