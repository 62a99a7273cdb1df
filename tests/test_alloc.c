/* After warm-up the step makes no allocation: every allocation of the
 * engine and the solvers goes through heft_alloc, which a test can count. */
#include <criterion/criterion.h>

#include "counting_allocator.h"
#include <stdlib.h>

#include "heft.h"
#include "runner.h"

static void steps_without_allocation_with(const char *scene, const char *solver, int heavy,
                                          int warmup, int measured) {
    counting_allocator_install();
    run_config cfg = {0};
    cfg.scenario = scene;
    cfg.solver = solver;
    cfg.steps = 1;
    run_result r;
    cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
    if (heavy) {
        heft_world_set_geometric_stiffness(r.world, 1);
        heft_world_set_post_stabilization(r.world, 2);
        heft_world_set_substeps(r.world, 2);
    }
    for (int i = 0; i < warmup; ++i) {
        heft_world_step(r.world, 1.0 / 60.0);
    }
    counting_allocator_calls = 0;
    for (int i = 0; i < measured; ++i) {
        heft_world_step(r.world, 1.0 / 60.0);
    }
    long during = counting_allocator_calls;
    run_result_free(&r);
    heft_set_allocator(NULL);
    cr_assert_eq(during, 0, "%s: %ld allocations in %d steps after warm-up", scene, during,
                 measured);
}

static void steps_without_allocation(const char *scene, int warmup, int measured) {
    steps_without_allocation_with(scene, "pgs", 0, warmup, measured);
}

Test(allocation, heavy_chain_with_every_remedy_and_bpp_skyline_allocates_nothing_after_warmup) {
    steps_without_allocation_with("hanging-chain", "bpp-skyline", 1, 10, 200);
}

/* auto hands the chain's island to bpp-skyline and keeps its state */
Test(allocation, heavy_chain_under_auto_allocates_nothing_after_warmup) {
    steps_without_allocation_with("hanging-chain", "auto", 1, 10, 200);
}

Test(allocation, hanging_chain_steps_allocate_nothing_after_warmup) {
    steps_without_allocation("hanging-chain", 10, 200);
}

Test(allocation, box_on_ground_steps_allocate_nothing_after_warmup) {
    steps_without_allocation("box-on-ground", 10, 200);
}

Test(allocation, the_counting_allocator_sees_world_creation) {
    counting_allocator_install();
    counting_allocator_calls = 0;
    heft_world *w = heft_world_create(NULL);
    heft_world_destroy(w);
    heft_set_allocator(NULL);
    cr_assert_gt(counting_allocator_calls, 0);
}
