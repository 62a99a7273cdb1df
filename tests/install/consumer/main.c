/* An application outside the Heft tree: built against the installed package
 * (CMake find_package or pkg-config) by tests/install/run_install_test.sh.
 * Drops one body with the default world and checks that it fell (default
 * gravity is -9.81 along z). */
#include <heft/heft.h>

#include <stdio.h>

int main(void) {
    if (!heft_version_compatible(HEFT_VERSION) || heft_version() != HEFT_VERSION) {
        fprintf(stderr, "header version %d, library %s\n", HEFT_VERSION, heft_version_string());
        return 1;
    }
    printf("heft %s\n", heft_version_string());
    heft_world_def def = heft_default_world_def();
    heft_world *w = heft_world_create(&def);
    if (!w) {
        fprintf(stderr, "heft_world_create failed\n");
        return 1;
    }
    heft_body_def bd = heft_default_body_def();
    heft_body_id b = heft_create_body(w, &bd);
    heft_world_step(w, 1.0 / 60.0);
    heft_vec3 p = heft_body_position(w, b);
    heft_world_destroy(w);

    printf("z after one step: %.9g\n", (double)p.z);
    if (!(p.z < 0)) {
        fprintf(stderr, "the body did not fall under default gravity\n");
        return 1;
    }
    return 0;
}
