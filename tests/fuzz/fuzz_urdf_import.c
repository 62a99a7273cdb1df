/* libFuzzer target for the URDF importer (built with -DHEFT_FUZZ=ON and
 * clang, when the library has URDF import). Every input, imported into a
 * world that already holds a body, must give either an error naming the
 * source and a line, with the world unchanged, or a world whose saved text
 * loads again and saves to the same bytes, and that steps. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "heft.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.name = "existing";
    heft_create_body(w, &bd);
    size_t n0 = 0, n1 = 0;
    char *before = heft_world_save_text(w, NULL, &n0);
    heft_urdf_options options = heft_default_urdf_options();
    /* the length picks the options, so that both bases and merging run */
    options.fixed_base = (size & 1u) == 0;
    options.merge_fixed = (size & 2u) != 0;
    options.joint_dynamics = (size & 4u) == 0;
    heft_urdf_result result;
    if (heft_world_import_urdf_text(w, text, size, "fuzz.urdf", &options, &result) != HEFT_OK) {
        if (strncmp(heft_last_error(), "fuzz.urdf:", 10) != 0 &&
            strcmp(heft_last_error(), "out of memory") != 0) {
            abort();
        }
        char *after = heft_world_save_text(w, NULL, &n1);
        if (!after || n0 != n1 || memcmp(before, after, n0) != 0) {
            abort();
        }
        heft_free(after);
    } else {
        if (heft_world_body_count(w) != 1 + result.body_count ||
            heft_world_joint_count(w) != result.joint_count) {
            abort();
        }
        size_t n2 = 0;
        char *first = heft_world_save_text(w, NULL, &n1);
        heft_world *again = first ? heft_world_load_text(first, n1, "saved", NULL) : NULL;
        char *second = again ? heft_world_save_text(again, NULL, &n2) : NULL;
        if (!second || n1 != n2 || memcmp(first, second, n1) != 0) {
            abort();
        }
        heft_world_step(w, 1.0 / 60.0);
        heft_free(first);
        heft_free(second);
        heft_world_destroy(again);
    }
    heft_free(before);
    heft_world_destroy(w);
    return 0;
}
