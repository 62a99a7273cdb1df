/* After warm-up the step makes no allocation: every allocation of the
 * engine and the solvers goes through heft_alloc, which a test can count. */
#include <criterion/criterion.h>

#include "counting_allocator.h"
#include "task_pool.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bpp.h"
#include "heft.h"
#include "lemke.h"
#include "mlcp.h"
#include "newton.h"
#include "ordering.h"
#include "planted.h"
#include "skyline.h"
#include "runner.h"
#include "scenario.h"

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

/* 101 LCPs of 100 to 200 rows (A tridiagonal, SPD), as an island's rows
 * creep up a contact at a time. */
static void creeping_problems(heft_mlcp **problems) {
    for (int k = 0; k <= 100; ++k) {
        const int n = 100 + k;
        heft_mlcp *p = heft_mlcp_create(n, 0, HEFT_MLCP_DENSE);
        cr_assert_not_null(p);
        for (int i = 0; i < n; ++i) {
            p->A[(size_t)i * n + i] = 2.0;
            if (i > 0)
                p->A[(size_t)i * n + i - 1] = p->A[(size_t)(i - 1) * n + i] = -0.5;
            p->b[i] = i % 3 == 0 ? -1.0 : 1.0;
            p->lo[i] = 0.0;
        }
        problems[k] = p;
    }
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
    creeping_problems(problems);
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

/* The pivoting family's workspaces (bpp-skyline's own with its ordering and
 * skyline, the Newton stage's and Lemke's method's) regrow once or twice
 * while an island's rows creep up, not at every new row: the 100 solves of
 * 101 to 200 rows make at most 3 times the allocator calls of the first
 * solve, of 100 rows (one regrowth of every array is a free and an
 * allocation each). Measured: 90, 52 and 78 calls against 44, 25 and 304
 * (Lemke's first solve also sizes the regions its UMFPACK factors are built
 * in, through the hooks); with the arrays sized to the row count alone,
 * 8,404, 5,000 and 6,208. */
/* Solve k of a method's sweep: its allocator calls go to first (k = 0) or
 * are added to later. */
static void tally(int k, long *first, long *later) {
    if (k == 0) {
        *first = counting_allocator_calls;
        *later = 0;
    } else {
        *later += counting_allocator_calls;
    }
}

Test(allocation, pivoting_workspaces_regrow_rarely_while_rows_creep_up) {
    heft_mlcp *problems[101];
    creeping_problems(problems);
    static double lambda[200], work[200];
    long first[3], later[3];
    counting_allocator_install();
    /* bpp-skyline */
    const heft_solver_vtable *bpp = heft_solver_find("bpp-skyline");
    cr_assert_not_null(bpp);
    void *state = bpp->create(NULL);
    cr_assert_not_null(state);
    heft_solver_stats stats;
    for (int k = 0; k <= 100; ++k) {
        counting_allocator_calls = 0;
        cr_assert_eq(bpp->solve(state, problems[k], lambda, &stats), HEFT_SOLVE_OK);
        tally(k, &first[0], &later[0]);
    }
    bpp->destroy(state);
    /* the Newton stage */
    heft_newton newton;
    memset(&newton, 0, sizeof newton);
    for (int k = 0; k <= 100; ++k) {
        counting_allocator_calls = 0;
        heft_newton_result r;
        memset(lambda, 0, sizeof lambda);
        heft_newton_solve(&newton, problems[k], lambda, 1e-12, 20, lambda, work, &r);
        cr_assert_eq(r.status, HEFT_NEWTON_SOLVED, "%d rows: %g J", problems[k]->n, r.error_max);
        tally(k, &first[1], &later[1]);
    }
    heft_newton_release(&newton);
    /* Lemke's method */
    heft_lemke lemke;
    memset(&lemke, 0, sizeof lemke);
    for (int k = 0; k <= 100; ++k) {
        counting_allocator_calls = 0;
        heft_lemke_options o = heft_lemke_default_options(problems[k]->n, 1e-12);
        heft_lemke_result r;
        heft_lemke_solve(&lemke, problems[k], NULL, NULL, 0, &o, lambda, work, &r);
        cr_assert_eq(r.status, HEFT_LEMKE_SOLVED, "%d rows: %g J", problems[k]->n, r.error_max);
        tally(k, &first[2], &later[2]);
    }
    heft_lemke_release(&lemke);
    heft_set_allocator(NULL);
    for (int k = 0; k <= 100; ++k)
        heft_mlcp_destroy(problems[k]);
    static const char *const names[3] = {"bpp-skyline", "the Newton stage", "Lemke's method"};
    for (int m = 0; m < 3; ++m) {
        cr_log_info("%s: %ld allocations in the first solve, %ld in the 100 after", names[m],
                    first[m], later[m]);
        cr_assert_gt(first[m], 0, "%s", names[m]);
        cr_assert_leq(later[m], 3 * first[m],
                      "%s: %ld allocations in 100 solves of 101 to 200 rows, %ld in the first",
                      names[m], later[m], first[m]);
    }
}

#define ROW_HALF 0.2 /* boxes of 0.4 m */

/* A row of boxes on the ground, 1 cm apart (within the contact margin: one
 * island), grown by a box at a time: the island gains about 24 rows a box,
 * as a winch's island gains contacts while its chain winds on. The steps
 * between the additions may regrow the step's arrays, the solver's
 * workspace and the rescue's scratch a few times (each at least doubles),
 * not at every new box: from 10 to 60 boxes, at most 250 allocations in the
 * steps (164 measured; with the solver's workspace and the rescue's scratch
 * sized to the rows alone, 2,036). */
Test(allocation, an_island_growing_a_box_at_a_time_regrows_its_memory_rarely) {
    heft_world_def wd = heft_default_world_def();
    wd.solver = "pgs";
    heft_world *w = heft_world_create(&wd);
    cr_assert_not_null(w, "%s", heft_last_error());
    heft_shape_id plane;
    cr_assert_eq(heft_body_shapes(w, scenario_add_ground(w), &plane, 1), 1);
    cr_assert(heft_shape_is_valid(w, plane));
    counting_allocator_install();
    long in_steps = 0;
    for (int k = 0; k < 60; ++k) {
        heft_shape_def sd = heft_default_shape_def();
        sd.type = HEFT_SHAPE_BOX;
        sd.half_extents = heft_v3(ROW_HALF, ROW_HALF, ROW_HALF);
        const heft_body_id b = scenario_add_body(
            w, NULL, heft_v3(k * (2.0 * ROW_HALF + 0.01), 0.0, ROW_HALF), heft_quat_identity(), 2.5,
            heft_inertia_box(2.5, sd.half_extents), &sd);
        cr_assert(heft_body_is_valid(w, b), "%s", heft_last_error());
        counting_allocator_calls = 0;
        for (int i = 0; i < 5; ++i)
            cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
        if (k >= 10)
            in_steps += counting_allocator_calls;
    }
    const heft_step_stats *st = heft_world_stats(w);
    const int rows = st->rows_max, islands = st->islands;
    heft_world_destroy(w);
    heft_set_allocator(NULL);
    cr_assert_eq(islands, 1, "the row is one island (%d)", islands);
    cr_assert_gt(rows, 1000, "the island grew to %d rows", rows);
    cr_assert_leq(in_steps, 250, "%ld allocations in the steps from 10 to 60 boxes", in_steps);
}

/* The winch under pgs, stepped on its timeline: the allocations of the steps
 * from the end of simulated second `from` to the end of second `to`. */
static long winch_allocations(int reserve, double from, double to, int *contacts, int *pairs,
                              heft_vec3 *at_80s) {
    counting_allocator_install();
    run_config cfg = {0};
    cfg.scenario = "winch";
    cfg.solver = "pgs";
    cfg.steps = 1;
    cfg.params.no_reserve = !reserve;
    run_result r;
    cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
    const double h = 1.0 / 60.0;
    const int first = (int)(from / h + 0.5), last = (int)(to / h + 0.5);
    long during = 0;
    *contacts = *pairs = 0;
    for (int i = 1; i < last; ++i) {
        if (i == first) {
            counting_allocator_calls = 0;
        }
        r.desc->control(r.scene, r.world, i, h);
        cr_assert_eq(heft_world_step(r.world, h), HEFT_OK, "%s", heft_last_error());
        const int c = heft_world_stats(r.world)->contacts, p = heft_world_contact_pairs(r.world);
        *contacts = c > *contacts ? c : *contacts;
        *pairs = p > *pairs ? p : *pairs;
        if (i == (int)(80.0 / h + 0.5) - 1) {
            heft_body_id ids[64];
            const int n = heft_world_bodies(r.world, ids, 64);
            cr_assert_leq(n, 64);
            for (int k = 0; k < n; ++k) {
                *at_80s = heft_v3_add(*at_80s, heft_body_position(r.world, ids[k]));
            }
        }
    }
    during = counting_allocator_calls;
    run_result_free(&r);
    heft_set_allocator(NULL);
    return during;
}

/* A chain winding onto a drum gains contacts for minutes (127 points in the
 * first minute, more in the second): the scene reserves its world for the
 * wound chain (heft_world_reserve), and then its steps allocate nothing from
 * the end of the first minute to the end of the third. Without the
 * reservation the contact arrays grow in the second minute (3 allocations
 * at 73 s), and the bodies move bit for bit the same either way. */
Test(allocation, the_winch_reserved_for_its_wound_chain_allocates_nothing_after_its_first_minute) {
    int contacts, pairs;
    heft_vec3 reserved_at_80s = {0}, grown_at_80s = {0};
    const long reserved = winch_allocations(1, 60.0, 180.0, &contacts, &pairs, &reserved_at_80s);
    cr_assert_eq(reserved, 0, "%ld allocations from 60 s to 180 s with the reservation", reserved);
    cr_assert_gt(contacts, 127, "the chain gained contacts after the first minute (%d)", contacts);
    const long grown = winch_allocations(0, 60.0, 80.0, &contacts, &pairs, &grown_at_80s);
    cr_assert_gt(grown, 0, "without the reservation the steps from 60 s to 80 s allocate");
    /* the reservation changes where memory is, not what is computed */
    cr_assert(reserved_at_80s.x == grown_at_80s.x && reserved_at_80s.y == grown_at_80s.y &&
                  reserved_at_80s.z == grown_at_80s.z,
              "the bodies at 80 s differ with and without the reservation");
}

#ifdef HEFT_HAVE_UMFPACK

/* SuiteSparse's allocation functions as the test installs them before any
 * solve (an application's own, or the C library's): Heft forwards to them
 * every allocation it does not serve itself, so they count what UMFPACK
 * takes from outside Heft's regions. */
static long suitesparse_calls;

static void *counted_malloc(size_t n) {
    suitesparse_calls++;
    return malloc(n);
}

static void *counted_calloc(size_t count, size_t size) {
    suitesparse_calls++;
    return calloc(count, size);
}

static void *counted_realloc(void *p, size_t n) {
    suitesparse_calls++;
    return realloc(p, n);
}

static void counted_free(void *p) {
    suitesparse_calls++;
    free(p);
}

#if __has_include(<SuiteSparse_config.h>)
#include <SuiteSparse_config.h>
#else
#include <suitesparse/SuiteSparse_config.h>
#endif

static void suitesparse_count_through_test_functions(void) {
#if SUITESPARSE_MAIN_VERSION >= 7
    SuiteSparse_config_malloc_func_set(counted_malloc);
    SuiteSparse_config_calloc_func_set(counted_calloc);
    SuiteSparse_config_realloc_func_set(counted_realloc);
    SuiteSparse_config_free_func_set(counted_free);
#else
    SuiteSparse_config.malloc_func = counted_malloc;
    SuiteSparse_config.calloc_func = counted_calloc;
    SuiteSparse_config.realloc_func = counted_realloc;
    SuiteSparse_config.free_func = counted_free;
#endif
}

/* One cold Lemke solve of p on the sparse path; returns its factorizations. */
static int lemke_sparse_solve(heft_lemke *ws, const heft_mlcp *p, double *lambda, double *work) {
    heft_lemke_options o = heft_lemke_default_options(p->n, 1e-12);
    heft_lemke_result r;
    memset(lambda, 0, sizeof(double) * (size_t)p->n);
    cr_assert_eq(heft_lemke_solve(ws, p, NULL, NULL, 0, &o, lambda, work, &r), HEFT_LEMKE_SOLVED,
                 "status %d, %g J", r.status, r.error_max);
    return r.factorizations;
}

/* Lemke's sparse basis is refactored by UMFPACK every 64 pivots; its
 * factors are built in two regions of the solver's workspace (one holds the
 * live factors while the next are built in the other), so once they have
 * grown to a factorization's need, the solves of an island of that size take
 * nothing from the C heap and allocate nothing through Heft's hooks. Before,
 * every factorization allocated and freed UMFPACK's objects with malloc (on
 * this 240-row problem: 15 factorizations a solve, 4,788 calls to
 * SuiteSparse's functions in three solves), which the heap's holes let grow
 * for minutes. */
Test(allocation, lemke_sparse_factorizations_allocate_nothing_after_warmup) {
    suitesparse_count_through_test_functions();
    planted_problem pp = planted_structured(240, 0.02, 1, 3);
    const heft_mlcp *p = pp.p;
    double *lambda = malloc(sizeof(double) * (size_t)p->n);
    double *first = malloc(sizeof(double) * (size_t)p->n);
    double *work = malloc(sizeof(double) * (size_t)(p->n + 6 * p->nbodies + 1));
    heft_lemke ws;
    memset(&ws, 0, sizeof ws);
    counting_allocator_install();
    suitesparse_calls = 0;
    /* warm-up: the first solve's factors spill out of the empty regions,
     * and a region grows (at least doubling) at the reset after a spill */
    cr_assert_gt(lemke_sparse_solve(&ws, p, first, work), 1);
    for (int k = 0; k < 3; ++k)
        lemke_sparse_solve(&ws, p, lambda, work);
    const long heft_calls_warmup = counting_allocator_calls;
    counting_allocator_calls = 0;
    suitesparse_calls = 0;
    int factorizations = 0;
    for (int k = 0; k < 3; ++k) {
        factorizations += lemke_sparse_solve(&ws, p, lambda, work);
        cr_assert(memcmp(lambda, first, sizeof(double) * (size_t)p->n) == 0,
                  "solve %d differs from the first", k);
    }
    const long heft_calls = counting_allocator_calls, heap_calls = suitesparse_calls;
    heft_lemke_release(&ws);
    heft_set_allocator(NULL);
    cr_log_info("%d factorizations in 3 solves; %ld allocations through the hooks in the first "
                "four",
                factorizations, heft_calls_warmup);
    cr_assert_gt(factorizations, 3);
    cr_assert_gt(heft_calls_warmup, 0, "UMFPACK's blocks went through Heft's hooks in warm-up");
    cr_assert_eq(heap_calls, 0, "%ld calls to SuiteSparse's own functions in %d factorizations",
                 heap_calls, factorizations);
    cr_assert_eq(heft_calls, 0, "%ld allocations through the hooks after warm-up", heft_calls);
    free(lambda);
    free(first);
    free(work);
    planted_free(&pp);
}

/* Where UMFPACK's memory comes from changes no bit of the answer: with the
 * regions, and with SuiteSparse's functions replaced after Heft installed
 * its own (Heft then leaves UMFPACK on them, freeing what it allocated
 * through them), the same solve gives the same impulses. */
Test(allocation, lemke_regions_change_no_bit_of_the_answer) {
    planted_problem pp = planted_structured(240, 0.02, 1, 5);
    const heft_mlcp *p = pp.p;
    double *in_regions = malloc(sizeof(double) * (size_t)p->n);
    double *on_heap = malloc(sizeof(double) * (size_t)p->n);
    double *work = malloc(sizeof(double) * (size_t)(p->n + 6 * p->nbodies + 1));
    heft_lemke ws;
    memset(&ws, 0, sizeof ws);
    cr_assert_gt(lemke_sparse_solve(&ws, p, in_regions, work), 1);
    heft_lemke_release(&ws);
    suitesparse_count_through_test_functions(); /* after Heft's: no region from now on */
    suitesparse_calls = 0;
    memset(&ws, 0, sizeof ws);
    cr_assert_gt(lemke_sparse_solve(&ws, p, on_heap, work), 1);
    heft_lemke_release(&ws);
    cr_assert_gt(suitesparse_calls, 0, "UMFPACK allocated through the functions set last");
    cr_assert(memcmp(in_regions, on_heap, sizeof(double) * (size_t)p->n) == 0);
    free(in_regions);
    free(on_heap);
    free(work);
    planted_free(&pp);
}
#endif

/* The envelope entries and the band (rows times the tallest column) of the
 * reverse Cuthill-McKee layout of p, as bpp-skyline lays it out. */
static void envelope_of(const heft_mlcp *p, size_t *stored, size_t *band) {
    heft_ordering o;
    memset(&o, 0, sizeof o);
    cr_assert_eq(heft_ordering_from_structure(&o, p), 0);
    size_t *start = malloc(sizeof(size_t) * (size_t)(p->n + 1));
    *stored = heft_skyline_layout(p->n, o.last, start);
    *band = heft_skyline_room(p->n, o.last, *stored, 0);
    free(start);
    heft_ordering_release(&o);
}

/* An island whose rows stay the same while its structure changes (a chain
 * winding onto a drum: each turn that lies on the last couples rows far
 * apart in the order) gets a wider envelope from the same rows. The
 * skyline's envelope arrays are sized for the band of the rows they first
 * held, so a later envelope within that band needs no regrowth: on the
 * winch, the doubling of the envelopes at 351 s (+0.74 MB in six arrays)
 * was such a reordering. Two planted islands of 120 rows, the second's
 * envelope larger than the first's and within its band: before, the arrays
 * held the first envelope exactly and grew for the second. */
Test(allocation, a_reordered_island_fits_the_skyline_envelope_sized_for_its_rows) {
    const int n = 120;
    int first = -1, second = -1;
    size_t stored[41], band[41];
    for (int seed = 1; seed <= 40; ++seed) {
        planted_problem pp = planted_structured(n, 0.02, 0, (uint64_t)seed);
        envelope_of(pp.p, &stored[seed], &band[seed]);
        planted_free(&pp);
    }
    for (int a = 1; a <= 40 && first < 0; ++a)
        for (int b = 1; b <= 40; ++b)
            if (stored[b] > stored[a] && stored[b] <= band[a]) {
                first = a;
                second = b;
                break;
            }
    cr_assert_geq(first, 1, "two planted islands, the second within the first's band");
    planted_problem pa = planted_structured(n, 0.02, 0, (uint64_t)first);
    planted_problem pb = planted_structured(n, 0.02, 0, (uint64_t)second);
    const heft_solver_vtable *skyline = heft_solver_find("bpp-skyline");
    cr_assert_not_null(skyline);
    bpp_state *s = skyline->create(NULL);
    cr_assert_not_null(s);
    heft_solver_stats stats;
    double lambda[120];
    memset(lambda, 0, sizeof lambda);
    cr_assert_eq(skyline->solve(s, pa.p, lambda, &stats), HEFT_SOLVE_OK);
    const size_t caps[3] = {s->A_sky_cap, s->L0_sky_cap, s->L_sky_cap};
    memset(lambda, 0, sizeof lambda);
    cr_assert_eq(skyline->solve(s, pb.p, lambda, &stats), HEFT_SOLVE_OK);
    cr_log_info("envelopes %zu then %zu entries, band %zu, arrays of %zu", stored[first],
                stored[second], band[first], caps[0]);
    cr_assert_geq(caps[0], band[first]);
    cr_assert(s->A_sky_cap == caps[0] && s->L0_sky_cap == caps[1] && s->L_sky_cap == caps[2],
              "the envelope arrays grew from %zu to %zu entries", caps[0], s->A_sky_cap);
    skyline->destroy(s);
    planted_free(&pa);
    planted_free(&pb);
}

#define FALL_LINKS 8
#define FALL_LENGTH 0.5

/* A chain of capsules on ball joints, held horizontal from a fixed point
 * 2 m above the ground and let fall: it swings down and lies on the
 * ground, its island growing from the joints' 24 rows by three a contact
 * point. Returns the allocations of its steps after the first (which makes
 * the island's state) and, in *sum, its bodies' positions summed at the
 * end; *rows_first and *rows_max: the island's rows at the first step and
 * at its largest. */
static long falling_chain_run(const char *solver, int reserve_rows, int envelope, int reserve_at,
                              int workers, heft_vec3 *sum, int *rows_first, int *rows_max,
                              int *envelope_max) {
    heft_world_def wd = heft_default_world_def();
    wd.solver = solver;
    heft_world *w = heft_world_create(&wd);
    cr_assert_not_null(w, "%s", heft_last_error());
    if (workers)
        cr_assert_eq(
            heft_world_set_task_system(w, task_inline_enqueue, task_inline_finish, NULL, 2),
            HEFT_OK, "%s", heft_last_error());
    heft_world_capacity c = {0};
    c.bodies = FALL_LINKS + 1;
    c.shapes = FALL_LINKS + 1;
    c.joints = FALL_LINKS;
    c.contacts = 4 * FALL_LINKS;
    c.pairs = FALL_LINKS * (FALL_LINKS + 1) / 2;
    c.rows = reserve_at == 0 ? reserve_rows : 0;
    c.envelope = reserve_at == 0 ? envelope : 0;
    cr_assert_eq(heft_world_reserve(w, &c), HEFT_OK, "%s", heft_last_error());
    scenario_add_ground(w);
    const heft_vec3 pivot = heft_v3(0.0, 0.0, 2.0);
    heft_body_id prev = HEFT_WORLD_FRAME;
    heft_body_id ids[FALL_LINKS];
    for (int i = 0; i < FALL_LINKS; ++i) {
        heft_shape_def sd = heft_default_shape_def();
        sd.type = HEFT_SHAPE_CAPSULE;
        sd.radius = 0.05;
        sd.half_length = 0.5 * FALL_LENGTH - sd.radius;
        /* capsules lie along their z axis: turned onto x */
        const heft_quat q = heft_quat_axis_angle(heft_v3(0.0, 1.0, 0.0), 0.5 * HEFT_PI);
        ids[i] = scenario_add_body(
            w, NULL, heft_v3_madd(pivot, (i + 0.5) * FALL_LENGTH, heft_v3(1.0, 0.0, 0.0)), q, 1.0,
            heft_inertia_capsule(1.0, sd.radius, sd.half_length), &sd);
        cr_assert(heft_body_is_valid(w, ids[i]), "%s", heft_last_error());
        heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
        jd.body_a = prev;
        jd.body_b = ids[i];
        heft_joint_def_set_world_frame(w, &jd,
                                       heft_v3_madd(pivot, i * FALL_LENGTH, heft_v3(1.0, 0.0, 0.0)),
                                       heft_v3(0.0, 0.0, 1.0));
        cr_assert(heft_joint_is_valid(w, heft_create_joint(w, &jd)), "%s", heft_last_error());
        prev = ids[i];
    }
    counting_allocator_install();
    cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
    *rows_first = *rows_max = heft_world_stats(w)->rows_max;
    *envelope_max = heft_world_stats(w)->envelope_max;
    counting_allocator_calls = 0;
    for (int i = 1; i < 300; ++i) {
        if (reserve_at > 0 && (i == reserve_at || i == reserve_at + 1)) {
            /* the rows first, the envelope alone a step later */
            heft_world_capacity late = {0};
            late.rows = i == reserve_at ? reserve_rows : 0;
            late.envelope = i == reserve_at ? 0 : envelope;
            cr_assert_eq(heft_world_reserve(w, &late), HEFT_OK, "%s", heft_last_error());
        }
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
        const heft_step_stats *st = heft_world_stats(w);
        *rows_max = st->rows_max > *rows_max ? st->rows_max : *rows_max;
        *envelope_max = st->envelope_max > *envelope_max ? st->envelope_max : *envelope_max;
    }
    const long during = counting_allocator_calls;
    *sum = heft_v3(0.0, 0.0, 0.0);
    for (int i = 0; i < FALL_LINKS; ++i)
        *sum = heft_v3_add(*sum, heft_body_position(w, ids[i]));
    heft_world_destroy(w);
    heft_set_allocator(NULL);
    return during;
}

static long falling_chain_allocations(int reserve_rows, int workers, heft_vec3 *sum,
                                      int *rows_first, int *rows_max) {
    int envelope;
    const int rows = reserve_rows ? 3 * FALL_LINKS + 3 * 4 * FALL_LINKS : 0;
    return falling_chain_run("pgs", rows, 0, 0, workers, sum, rows_first, rows_max, &envelope);
}

/* heft_world_capacity.rows sizes the step's scratch, the rescue's and pgs's
 * workspaces for the largest island ahead: an island that first grows to it
 * (a chain falling onto the ground) then allocates nothing, where without it
 * the three grow as the rows do. The bodies move bit for bit the same. */
static void reserved_rows_allocate_nothing(int workers) {
    heft_vec3 with_rows, without_rows;
    int first, largest, first_without, largest_without;
    const long reserved = falling_chain_allocations(1, workers, &with_rows, &first, &largest);
    const long grown =
        falling_chain_allocations(0, workers, &without_rows, &first_without, &largest_without);
    cr_assert_geq(largest, 2 * first, "the island grew from %d to %d rows", first, largest);
    cr_assert_leq(largest, 3 * FALL_LINKS + 12 * FALL_LINKS, "within the reservation: %d", largest);
    cr_assert_eq(reserved, 0, "%ld allocations while the island grew from %d to %d rows", reserved,
                 first, largest);
    cr_assert_gt(grown, 0, "without the rows reserved the growth allocates (%ld)", grown);
    cr_assert(with_rows.x == without_rows.x && with_rows.y == without_rows.y &&
                  with_rows.z == without_rows.z,
              "the reservation changed the motion");
}

Test(allocation, a_world_reserved_for_its_largest_island_allocates_nothing_as_the_island_grows) {
    reserved_rows_allocate_nothing(0);
}

Test(allocation, a_reserved_world_with_workers_allocates_nothing_as_the_island_grows) {
    reserved_rows_allocate_nothing(1);
}

/* heft_world_capacity.envelope sizes bpp-skyline's envelopes (its own and
 * its Newton stage's) and its ordering's graph ahead, beside the rows: a
 * run reserved for the rows and the envelope a first run reported
 * (heft_step_stats.rows_max, envelope_max) allocates nothing after its
 * first step, where the first run grew its arrays as the island did, and a
 * run reserved for the rows alone grew its envelopes. The bodies move bit
 * for bit the same. */
Test(allocation, a_world_reserved_for_its_rows_and_envelope_allocates_nothing_under_bpp_skyline) {
    heft_vec3 first_sum, rows_sum, reserved_sum;
    int first, largest, envelope, first_rows, largest_rows, envelope_rows, first_again,
        largest_again, envelope_again;
    const long grown =
        falling_chain_run("bpp-skyline", 0, 0, 0, 0, &first_sum, &first, &largest, &envelope);
    cr_assert_geq(largest, 2 * first, "the island grew from %d to %d rows", first, largest);
    cr_assert_geq(envelope, largest, "the envelope's room is reported (%d)", envelope);
    cr_assert_leq(envelope, largest * largest);
    cr_assert_gt(grown, 0, "without a reservation the growth allocates (%ld)", grown);
    const long rows_only = falling_chain_run("bpp-skyline", largest, 0, 0, 0, &rows_sum,
                                             &first_rows, &largest_rows, &envelope_rows);
    const long reserved = falling_chain_run("bpp-skyline", largest, envelope, 0, 0, &reserved_sum,
                                            &first_again, &largest_again, &envelope_again);
    cr_log_info("rows %d -> %d, envelope %d: %ld allocations unreserved, %ld with the rows alone, "
                "%ld with the rows and the envelope",
                first, largest, envelope, grown, rows_only, reserved);
    cr_assert_gt(rows_only, 0, "the rows alone leave the envelopes to grow (%ld)", rows_only);
    cr_assert_eq(largest_again, largest);
    cr_assert_eq(envelope_again, envelope);
    cr_assert_eq(reserved, 0, "%ld allocations with %d rows and an envelope of %d reserved",
                 reserved, largest, envelope);
    cr_assert(first_sum.x == reserved_sum.x && first_sum.y == reserved_sum.y &&
                  first_sum.z == reserved_sum.z && rows_sum.x == reserved_sum.x &&
                  rows_sum.y == reserved_sum.y && rows_sum.z == reserved_sum.z,
              "the reservation changed the motion");
}

/* A reservation between steps changes nothing in the motion, also when the
 * island states it sizes have solved before (their kept index sets and
 * impulses survive the growth; their orderings are computed again, the
 * same): the chain reserved for its rows after 60 steps, then for its
 * envelope alone a step later, ends bit for bit where the chain never
 * reserved does, under bpp-skyline and pgs. */
Test(allocation, a_reservation_between_steps_changes_no_bit_of_the_motion) {
    const char *solvers[] = {"bpp-skyline", "pgs"};
    for (int k = 0; k < 2; ++k) {
        heft_vec3 plain, late;
        int first, largest, envelope, first_late, largest_late, envelope_late;
        falling_chain_run(solvers[k], 0, 0, 0, 0, &plain, &first, &largest, &envelope);
        falling_chain_run(solvers[k], 4 * largest, 4 * envelope + 100, 60, 0, &late, &first_late,
                          &largest_late, &envelope_late);
        cr_assert(plain.x == late.x && plain.y == late.y && plain.z == late.z,
                  "%s: reserved after 60 steps (%d rows, envelope %d), the chain ends %.17g %.17g "
                  "%.17g against %.17g %.17g %.17g",
                  solvers[k], 4 * largest, 4 * envelope + 100, late.x, late.y, late.z, plain.x,
                  plain.y, plain.z);
        cr_assert_eq(envelope_late, envelope, "%s", solvers[k]);
    }
}

/* An allocator that refuses any block above 64 MB and records the largest
 * block asked for. */
#define CAPPED_LIMIT ((size_t)64 << 20)
static size_t capped_largest;

static void *capped_alloc(size_t n, void *user) {
    (void)user;
    capped_largest = n > capped_largest ? n : capped_largest;
    return n > CAPPED_LIMIT ? NULL : malloc(n);
}

static void *capped_realloc(void *p, size_t n, void *user) {
    (void)user;
    capped_largest = n > capped_largest ? n : capped_largest;
    return n > CAPPED_LIMIT ? NULL : realloc(p, n);
}

static void capped_free(void *p, void *user) {
    (void)user;
    free(p);
}

/* A reservation that runs out of memory leaves the world's capacity as it
 * was: the island states made after it are not sized for what it asked
 * (each would ask for the same blocks again, 134 MB an envelope array),
 * and the world steps on. Two boxes resting apart on the ground under
 * bpp-skyline: the first's island state exists when the reservation of an
 * envelope of HEFT_CAPACITY_MAX numbers fails; the second box, added
 * after, makes a new island state. */
Test(allocation, a_reservation_out_of_memory_leaves_the_capacity_as_it_was) {
    static const heft_allocator capped = {capped_alloc, capped_realloc, capped_free, NULL};
    heft_set_allocator(&capped);
    heft_world_def wd = heft_default_world_def();
    wd.solver = "bpp-skyline";
    heft_world *w = heft_world_create(&wd);
    cr_assert_not_null(w, "%s", heft_last_error());
    scenario_add_ground(w);
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = heft_v3(0.5, 0.5, 0.5);
    const heft_body_id first =
        scenario_add_body(w, NULL, heft_v3(0.0, 0.0, 0.5), heft_quat_identity(), 1.0,
                          heft_inertia_box(1.0, sd.half_extents), &sd);
    cr_assert(heft_body_is_valid(w, first), "%s", heft_last_error());
    for (int i = 0; i < 5; ++i)
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
    heft_world_capacity c = {0};
    c.rows = 64;
    c.envelope = HEFT_CAPACITY_MAX;
    capped_largest = 0;
    cr_assert_eq(heft_world_reserve(w, &c), HEFT_ERROR_OUT_OF_MEMORY);
    cr_assert_gt(capped_largest, CAPPED_LIMIT, "the reservation asked for %zu bytes",
                 capped_largest);
    const heft_body_id second =
        scenario_add_body(w, NULL, heft_v3(5.0, 0.0, 0.5), heft_quat_identity(), 1.0,
                          heft_inertia_box(1.0, sd.half_extents), &sd);
    cr_assert(heft_body_is_valid(w, second), "%s", heft_last_error());
    capped_largest = 0;
    for (int i = 0; i < 30; ++i)
        cr_assert_eq(heft_world_step(w, 1.0 / 60.0), HEFT_OK, "%s", heft_last_error());
    const heft_step_stats *st = heft_world_stats(w);
    const int islands = st->islands_solved;
    const double z = heft_body_position(w, second).z;
    heft_world_destroy(w);
    heft_set_allocator(NULL);
    cr_assert_eq(islands, 2, "two islands solved (%d)", islands);
    cr_assert_lt(capped_largest, (size_t)1 << 20,
                 "after the failed reservation the steps asked for a block of %zu bytes",
                 capped_largest);
    cr_assert(z > 0.49 && z < 0.51, "the second box rests on the ground (z %g)", z);
}
