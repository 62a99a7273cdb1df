/* After warm-up the step makes no allocation: every allocation of the
 * engine and the solvers goes through heft_alloc, which a test can count. */
#include <criterion/criterion.h>

#include "counting_allocator.h"
#include <stdlib.h>

#include "heft.h"
#include "mlcp.h"
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

/* A pgs state whose island's rows creep up one at a time (a chain winding
 * onto a drum gains a contact now and then) regrows its workspace once or
 * twice, not at every new row: 101 solves of 100 to 200 rows may allocate
 * at most twice what the first solve of 100 rows did (sized to the row
 * count alone, every new row would reallocate every array: about 100 times
 * as many). */
Test(allocation, pgs_workspace_regrows_rarely_while_rows_creep_up) {
    const heft_solver_vtable *pgs = heft_solver_find("pgs");
    cr_assert_not_null(pgs);
    heft_mlcp *problems[101];
    for (int k = 0; k <= 100; ++k) {
        const int n = 100 + k;
        heft_mlcp *p = heft_mlcp_create(n, 0, HEFT_MLCP_DENSE);
        cr_assert_not_null(p);
        for (int i = 0; i < n; ++i) {
            p->A[(size_t)i * n + i] = 2.0;
            if (i > 0)
                p->A[(size_t)i * n + i - 1] = p->A[(size_t)(i - 1) * n + i] = -0.5;
            p->b[i] = 1.0;
            p->lo[i] = 0.0;
        }
        problems[k] = p;
    }
    static double lambda[200];
    heft_solver_stats stats;
    counting_allocator_install();
    void *state = pgs->create(NULL);
    cr_assert_not_null(state);
    counting_allocator_calls = 0;
    pgs->solve(state, problems[0], lambda, &stats);
    const long first = counting_allocator_calls;
    counting_allocator_calls = 0;
    for (int k = 1; k <= 100; ++k)
        pgs->solve(state, problems[k], lambda, &stats);
    const long later = counting_allocator_calls;
    pgs->destroy(state);
    heft_set_allocator(NULL);
    for (int k = 0; k <= 100; ++k)
        heft_mlcp_destroy(problems[k]);
    cr_assert_gt(first, 0);
    cr_assert_leq(later, 2 * first,
                  "%ld allocations in 100 solves of 101 to 200 rows, %ld in the first", later,
                  first);
}
