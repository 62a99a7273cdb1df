/* libFuzzer target for the scene file loader (built with -DHEFT_FUZZ=ON and
 * clang). Every input must give either an error naming the source and a
 * line, with the world it was loaded into unchanged, or a world whose saved
 * text loads again and saves to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heft.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    heft_world *w = heft_world_load_text(text, size, "fuzz.json", NULL);
    if (!w) {
        if (strncmp(heft_last_error(), "fuzz.json:", 10) != 0 &&
            strcmp(heft_last_error(), "out of memory") != 0) {
            abort();
        }
        /* the same refusal into a world leaves it as it was */
        heft_world *into = heft_world_create(NULL);
        size_t n0 = 0, n1 = 0;
        char *before = heft_world_save_text(into, NULL, &n0);
        if (heft_world_load_text_into(into, text, size, "fuzz.json", NULL) == HEFT_OK) {
            abort();
        }
        char *after = heft_world_save_text(into, NULL, &n1);
        if (n0 != n1 || memcmp(before, after, n0) != 0) {
            abort();
        }
        heft_free(before);
        heft_free(after);
        heft_world_destroy(into);
        return 0;
    }
    heft_scene_info info;
    size_t n1 = 0, n2 = 0;
    char *first = heft_world_save_text(w, NULL, &n1);
    heft_world *again = first ? heft_world_load_text(first, n1, "saved", &info) : NULL;
    char *second = again ? heft_world_save_text(again, NULL, &n2) : NULL;
    if (!second || n1 != n2 || memcmp(first, second, n1) != 0) {
        abort();
    }
    heft_world_step(w, 1.0 / 60.0);
    heft_free(first);
    heft_free(second);
    heft_world_destroy(again);
    heft_world_destroy(w);
    return 0;
}
