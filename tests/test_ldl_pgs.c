/* ldl-pgs ([Mizerski 2020]): the sparse block LDL^T of the equality block against
 * dense Cholesky, its scatter indices against the dense Schur complement,
 * body shattering, the topology cache, the solver on mixed problems and on
 * the engine's scenes, no allocation on repeated solves, bad input. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "block_ldl.h"
#include "dense_cholesky.h"
#include "ldl_pgs.h"
#include "mechanisms.h"
#include "counting_allocator.h"
#include "planted.h"
#include "runner.h"

static int *all_rows(int n) {
    int *r = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i)
        r[i] = i;
    return r;
}

static heft_block_ldl_config exact_config(int ordering, int shatter_degree) {
    heft_block_ldl_config c = heft_block_ldl_default_config();
    c.ordering = ordering;
    c.shatter_degree = shatter_degree;
    c.regularization = 0.0;
    return c;
}

/* The block LDL solve of A x = b against the dense Cholesky solve. */
static double block_vs_dense(heft_mlcp *p, const heft_block_ldl_config *config,
                             heft_block_ldl_stats *stats) {
    int *rows = all_rows(p->n);
    heft_block_ldl f = {0};
    cr_assert_eq(heft_block_ldl_analyze(&f, p, rows, p->n, config), 0);
    cr_assert_eq(heft_block_ldl_factor(&f, p, -1), 0);
    double *x = malloc(sizeof(double) * (size_t)p->n), *ref = malloc(sizeof(double) * (size_t)p->n);
    heft_block_ldl_solve(&f, p->b, x);
    mech_dense_solve(p, ref);
    const double rel = mech_relative(x, ref, p->n);
    if (stats != NULL)
        *stats = f.stats;
    heft_block_ldl_release(&f);
    free(rows);
    free(x);
    free(ref);
    return rel;
}

Test(block_ldl, solve_equals_dense_cholesky_on_random_trees) {
    double worst = 0.0;
    for (int t = 0; t < 20; ++t) {
        int nj;
        mech_joint *j = mech_random_tree(5 + 7 * t, 1, 6, 100 + (uint64_t)t, &nj);
        heft_mlcp *p = mech_build(5 + 7 * t, j, nj, 0, t % 2 ? 1e-8 : 0.0, 200 + (uint64_t)t);
        for (int o = 0; o < 3; ++o) {
            const heft_block_ldl_config c = exact_config(o, 0);
            worst = fmax(worst, block_vs_dense(p, &c, NULL));
        }
        heft_mlcp_destroy(p);
        free(j);
    }
    cr_log_info("random trees (5..138 bodies, joints of 1..6 rows, three orderings): block LDL vs "
                "dense Cholesky, relative %.3g",
                worst);
    cr_assert(worst < 1e-10, "%g", worst);
}

Test(block_ldl, generic_kernel_takes_blocks_over_six_rows) {
    /* two joints under one block number make one node of up to 12 rows */
    int nj;
    mech_joint *j = mech_random_tree(40, 3, 6, 17, &nj);
    heft_mlcp *p = mech_build(40, j, nj, 0, 0.0, 18);
    for (int i = 0; i < p->n; ++i)
        p->block[i] /= 2;
    heft_block_ldl_stats st;
    const heft_block_ldl_config c = exact_config(HEFT_ORDER_MIN_EDGE, 0);
    const double rel = block_vs_dense(p, &c, &st);
    cr_log_info(
        "tree of 40 joints merged two by two: %d nodes, %d of more than 6 rows, relative %.3g",
        st.nodes, st.block_sizes[7], rel);
    cr_assert(st.block_sizes[7] > 0);
    cr_assert(rel < 1e-10, "%g", rel);
    heft_mlcp_destroy(p);
    free(j);
}

Test(block_ldl, solve_equals_dense_cholesky_on_chains_with_loops) {
    double worst = 0.0;
    heft_block_ldl_stats st = {0};
    for (int t = 0; t < 6; ++t) {
        int nj;
        mech_joint *j = mech_chain(20 + 30 * t, 3 + t % 2, 2 + t % 4, &nj);
        heft_mlcp *p = mech_build(20 + 30 * t, j, nj, 0, 0.0, 300 + (uint64_t)t);
        for (int o = 0; o < 2; ++o) {
            const heft_block_ldl_config c = exact_config(o, 0);
            worst = fmax(worst, block_vs_dense(p, &c, &st));
        }
        heft_mlcp_destroy(p);
        free(j);
    }
    cr_log_info("chains with loops (20..170 bodies): relative %.3g; last: %d nodes, dim %d, fill "
                "edges %d, flops %.0f",
                worst, st.nodes, st.dim, st.fill_edges, st.flops);
    cr_assert(worst < 1e-10, "%g", worst);
}

Test(block_ldl, hub_of_twenty_joints_with_and_without_shattering) {
    int nj;
    mech_joint *j = mech_hub(20, 3, 6, 7, &nj);
    heft_mlcp *p = mech_build(21, j, nj, 0, 0.0, 8);
    heft_block_ldl_stats plain, shattered;
    const heft_block_ldl_config c0 = exact_config(HEFT_ORDER_MIN_EDGE, 0);
    const double r0 = block_vs_dense(p, &c0, &plain);
    /* the slides shatter the 20-wheel vehicle's body (degree 20): threshold 19 */
    const heft_block_ldl_config c1 = exact_config(HEFT_ORDER_MIN_EDGE, 19);
    const double r1 = block_vs_dense(p, &c1, &shattered);
    cr_log_info(
        "hub, 20 joints: unshattered %d nodes, dim %d, density %.1f%%, flops %.0f, rel %.3g; "
        "shattered into %d shards: %d nodes, dim %d, density %.1f%%, flops %.0f, rel %.3g "
        "(slides: 20 / 88 / 100%% / 250k -> 29 / 142 / 17.5%% / 35k)",
        plain.nodes, plain.dim, 100 * plain.density, plain.flops, r0, shattered.shards + 1,
        shattered.nodes, shattered.dim, 100 * shattered.density, shattered.flops, r1);
    cr_assert(r0 < 1e-10, "%g", r0);
    cr_assert(r1 < 1e-10, "%g", r1);
    cr_assert_eq(plain.density, 1.0);
    cr_assert_eq(shattered.nodes, 29);
    cr_assert(shattered.density < 0.3);
    cr_assert(shattered.flops < 0.5 * plain.flops, "%g vs %g", shattered.flops, plain.flops);
    heft_mlcp_destroy(p);
    free(j);
}

/* S = A_RR - A_RE A_EE^-1 A_ER for the eliminated set E (dense, by Cholesky). */
static void dense_schur(const double *A, int n, const unsigned char *elim, double *S) {
    int *E = malloc(sizeof(int) * (size_t)n), ne = 0;
    for (int i = 0; i < n; ++i)
        if (elim[i])
            E[ne++] = i;
    double *Aee = malloc(sizeof(double) * (size_t)(ne * ne + 1));
    for (int r = 0; r < ne; ++r)
        for (int c = 0; c < ne; ++c)
            Aee[r * ne + c] = A[(size_t)E[r] * n + E[c]];
    cr_assert_eq(heft_dense_cholesky_factor(Aee, ne), 0);
    double *col = malloc(sizeof(double) * (size_t)(ne + 1));
    memcpy(S, A, sizeof(double) * (size_t)n * (size_t)n);
    for (int c = 0; c < n; ++c) {
        if (elim[c])
            continue;
        for (int r = 0; r < ne; ++r)
            col[r] = A[(size_t)E[r] * n + c];
        heft_dense_cholesky_solve(Aee, ne, col);
        for (int r = 0; r < n; ++r) {
            if (elim[r])
                continue;
            double sum = 0.0;
            for (int k = 0; k < ne; ++k)
                sum += A[(size_t)r * n + E[k]] * col[k];
            S[(size_t)r * n + c] -= sum;
        }
    }
    free(E);
    free(Aee);
    free(col);
}

Test(block_ldl, scatter_indices_reproduce_the_dense_schur_complement) {
    int nj;
    mech_joint *j = mech_chain(24, 4, 3, &nj);
    heft_mlcp *p = mech_build(24, j, nj, 0, 1e-6, 11);
    const int n = p->n;
    int *rows = all_rows(n);
    double *A = malloc(sizeof(double) * (size_t)n * (size_t)n),
           *S = malloc(sizeof(double) * (size_t)n * (size_t)n);
    heft_mlcp_assemble_dense(p, A);
    unsigned char *elim = malloc((size_t)n);
    const heft_block_ldl_config c = exact_config(HEFT_ORDER_MIN_EDGE, 0);
    heft_block_ldl f = {0};
    cr_assert_eq(heft_block_ldl_analyze(&f, p, rows, n, &c), 0);
    double worst = 0.0;
    int checked = 0;
    for (int k = 1; k < f.nnodes; k += 3) {
        cr_assert_eq(heft_block_ldl_factor(&f, p, k), 0);
        memset(elim, 0, (size_t)n);
        for (int q = 0; q < k; ++q)
            for (int r = f.node_start[f.order[q]]; r < f.node_start[f.order[q] + 1]; ++r)
                elim[r] = 1;
        dense_schur(A, n, elim, S);
        double scale = 0.0, diff = 0.0;
        for (int r = 0; r < n; ++r)
            for (int cc = 0; cc < n; ++cc) {
                if (elim[r] || elim[cc])
                    continue;
                scale = fmax(scale, fabs(S[(size_t)r * n + cc]));
                diff = fmax(diff, fabs(heft_block_ldl_entry(&f, r, cc) - S[(size_t)r * n + cc]));
                ++checked;
            }
        worst = fmax(worst, diff / scale);
    }
    cr_log_info("chain with loops, %d nodes: packed Schur complement after k pivots vs dense, "
                "%d entries, relative %.3g",
                f.nnodes, checked, worst);
    cr_assert(worst < 1e-12, "%g", worst);
    heft_block_ldl_release(&f);
    heft_mlcp_destroy(p);
    free(j);
    free(rows);
    free(A);
    free(S);
    free(elim);
}

Test(block_ldl, minimum_edge_creation_creates_no_more_fill_than_minimum_degree_on_trees) {
    int nj;
    mech_joint *j = mech_random_tree(80, 2, 6, 5, &nj);
    heft_mlcp *p = mech_build(80, j, nj, 0, 0.0, 6);
    heft_block_ldl_stats s[3];
    for (int o = 0; o < 3; ++o) {
        const heft_block_ldl_config c = exact_config(o, 0);
        cr_assert(block_vs_dense(p, &c, &s[o]) < 1e-10);
    }
    cr_log_info(
        "random tree of 80 joints: fill edges / flops: MECA %d / %.0f, min degree %d / %.0f, "
        "natural %d / %.0f",
        s[0].fill_edges, s[0].flops, s[1].fill_edges, s[1].flops, s[2].fill_edges, s[2].flops);
    cr_assert(s[0].fill_edges <= s[1].fill_edges);
    cr_assert(s[0].fill_edges <= s[2].fill_edges);
    int sizes = 0;
    for (int k = 1; k <= 7; ++k)
        sizes += s[0].block_sizes[k];
    cr_assert_eq(sizes, s[0].nodes);
    heft_mlcp_destroy(p);
    free(j);
}

/* ---- the solver ------------------------------------------------------------------------ */

static double equality_residual(const heft_mlcp *p, const double *lambda) {
    double *w = malloc(sizeof(double) * (size_t)p->n);
    double *work = malloc(sizeof(double) * (size_t)(6 * p->nbodies + 1));
    heft_mlcp_residual(p, lambda, w, work);
    double worst = 0.0, scale = 0.0;
    for (int i = 0; i < p->n; ++i) {
        scale = fmax(scale, fabs(p->b[i]));
        if (isinf(p->lo[i]) && isinf(p->hi[i]) && p->findex[i] < 0)
            worst = fmax(worst, fabs(w[i]));
    }
    free(w);
    free(work);
    return scale > 0.0 ? worst / scale : worst;
}

Test(ldl_pgs, equality_only_problem_is_solved_exactly) {
    int nj;
    mech_joint *j = mech_random_tree(60, 1, 6, 21, &nj);
    heft_mlcp *p = mech_build(60, j, nj, 0, 1e-9, 22);
    double *lambda = malloc(sizeof(double) * (size_t)p->n),
           *ref = malloc(sizeof(double) * (size_t)p->n);
    heft_solver_stats st;
    cr_assert_eq(heft_solve("ldl-pgs", NULL, p, lambda, &st), HEFT_SOLVE_OK);
    mech_dense_solve(p, ref);
    const double rel = mech_relative(lambda, ref, p->n);
    cr_log_info("tree of 60 joints, equality rows only: %d iterations, relative to dense %.3g",
                st.iterations, rel);
    cr_assert(rel < 1e-10, "%g", rel);
    cr_assert(st.iterations <= 3);
    heft_mlcp_destroy(p);
    free(j);
    free(lambda);
    free(ref);
}

Test(ldl_pgs, joints_exact_and_contacts_converge_against_bpp) {
    int nj;
    mech_joint *j = mech_random_tree(30, 2, 5, 31, &nj);
    heft_mlcp *p = mech_build(30, j, nj, 12, 1e-6, 32);
    const int n = p->n;
    double *lambda = malloc(sizeof(double) * (size_t)n), *ref = malloc(sizeof(double) * (size_t)n);
    heft_solver_options o = heft_solver_default_options();
    o.max_iterations = 20000;
    o.tolerance = 1e-28;
    heft_solver_stats st, sb;
    const int rc = heft_solve("ldl-pgs", &o, p, lambda, &st);
    cr_assert_eq(heft_solve("bpp", NULL, p, ref, &sb), HEFT_SOLVE_OK);
    const double rel = mech_relative(lambda, ref, n), eq = equality_residual(p, lambda);
    cr_log_info("tree of 30 joints + 12 frictional contacts: rc %d, %d iterations, error %.3g J, "
                "vs bpp relative %.3g, equality residual relative %.3g",
                rc, st.iterations, st.error_max, rel, eq);
    cr_assert(eq < 1e-10, "%g", eq);
    cr_assert(rel < 1e-6, "%g", rel);
    heft_mlcp_destroy(p);
    free(j);
    free(lambda);
    free(ref);
}

Test(ldl_pgs, symbolic_phase_runs_once_per_topology) {
    int nj;
    mech_joint *j = mech_chain(40, 4, 5, &nj);
    heft_mlcp *p = mech_build(40, j, nj, 4, 1e-8, 41);
    const heft_solver_vtable *vt = heft_solver_find("ldl-pgs");
    cr_assert_not_null(vt);
    const heft_solver_options o = heft_solver_default_options();
    void *state = vt->create(&o);
    double *lambda = malloc(sizeof(double) * (size_t)p->n);
    heft_solver_stats st;
    for (int step = 0; step < 5; ++step) {
        p->b[step] += 0.1;
        p->rows[step].ja[0] *= 1.01;
        vt->solve(state, p, lambda, &st);
    }
    cr_assert_eq(heft_ldl_pgs_symbolic_count(state), 1);
    p->block[0] = 999; /* the first joint's first row becomes its own joint */
    vt->solve(state, p, lambda, &st);
    cr_assert_eq(heft_ldl_pgs_symbolic_count(state), 2);
    vt->reset(state);
    vt->solve(state, p, lambda, &st);
    cr_assert_eq(heft_ldl_pgs_symbolic_count(state), 3);
    vt->destroy(state);
    heft_mlcp_destroy(p);
    free(j);
    free(lambda);
}

/* ---- the public options -------------------------------------------------------- */

/* ldl_ordering, ldl_shatter_degree, ldl_shard_constraints and
 * ldl_regularization of heft_solver_options reach the block LDL of an
 * ldl-pgs state made by the registry's create(): a hub of 24 joints is
 * shattered by default and not with ldl_shatter_degree = 0, the shards
 * follow ldl_shard_constraints, the natural order of a random tree makes
 * fill that minimum edge creation does not, and each answer is the same. */
Test(ldl_pgs, public_options_reach_the_block_ldl) {
    int nj;
    mech_joint *j = mech_hub(24, 3, 6, 7, &nj);
    heft_mlcp *p = mech_build(25, j, nj, 0, 1e-9, 8);
    const heft_solver_vtable *vt = heft_solver_find("ldl-pgs");
    double *lambda = malloc(sizeof(double) * (size_t)p->n);
    double *ref = malloc(sizeof(double) * (size_t)p->n);
    mech_dense_solve(p, ref);
    heft_solver_stats st;
    heft_block_ldl_stats stats[4];
    heft_solver_options o[4];
    for (int k = 0; k < 4; ++k)
        o[k] = heft_solver_default_options();
    o[1].ldl_shatter_degree = 0;    /* never */
    o[2].ldl_shard_constraints = 4; /* 6 shards instead of 12 */
    o[3].ldl_regularization = 0.0;
    for (int k = 0; k < 4; ++k) {
        void *state = vt->create(&o[k]);
        cr_assert_not_null(state);
        cr_assert_neq(vt->solve(state, p, lambda, &st), HEFT_SOLVE_FAILED);
        stats[k] = heft_ldl_pgs_factorization(state)->stats;
        cr_assert_lt(mech_relative(lambda, ref, p->n), 1e-8, "options %d: %.3g", k,
                     mech_relative(lambda, ref, p->n));
        vt->destroy(state);
    }
    cr_log_info("hub of 24 joints: default %d shards, %.0f flops; shatter 0: %d shards, %.0f "
                "flops; 4 joints per shard: %d shards, %.0f flops",
                stats[0].shards, stats[0].flops, stats[1].shards, stats[1].flops, stats[2].shards,
                stats[2].flops);
    cr_assert_eq(stats[0].shattered_bodies, 1);
    cr_assert_eq(stats[0].shards, 11); /* 24 joints, 2 per shard: 12 shards, 11 added */
    cr_assert_eq(stats[1].shattered_bodies, 0);
    cr_assert_eq(stats[1].shards, 0);
    cr_assert_eq(stats[2].shards, 5); /* 4 per shard: 6 shards, 5 added */
    cr_assert_gt(stats[1].flops, stats[0].flops);
    heft_mlcp_destroy(p);
    free(j);
    free(lambda);
    free(ref);

    j = mech_random_tree(80, 2, 6, 5, &nj);
    p = mech_build(80, j, nj, 0, 0.0, 6);
    lambda = malloc(sizeof(double) * (size_t)p->n);
    heft_block_ldl_stats order_stats[HEFT_LDL_ORDER_COUNT];
    for (int k = 0; k < HEFT_LDL_ORDER_COUNT; ++k) {
        heft_solver_options oo = heft_solver_default_options();
        oo.ldl_ordering = k;
        void *state = vt->create(&oo);
        cr_assert_not_null(state);
        cr_assert_neq(vt->solve(state, p, lambda, &st), HEFT_SOLVE_FAILED);
        order_stats[k] = heft_ldl_pgs_factorization(state)->stats;
        vt->destroy(state);
    }
    cr_log_info("random tree of 80 joints, fill edges: min-edge %d, min-degree %d, natural %d",
                order_stats[0].fill_edges, order_stats[1].fill_edges, order_stats[2].fill_edges);
    cr_assert_eq(order_stats[HEFT_LDL_ORDER_MIN_EDGE].fill_edges, 0);
    cr_assert_gt(order_stats[HEFT_LDL_ORDER_NATURAL].fill_edges, 100);
    heft_mlcp_destroy(p);
    free(j);
    free(lambda);
}

/* Bad values: heft_solver_options_check names the field, ldl-pgs's create()
 * refuses them, and a world keeps its options. */
Test(ldl_pgs, bad_public_options_are_refused_with_a_message) {
    char err[160];
    heft_solver_options o = heft_solver_default_options();
    cr_assert_eq(heft_solver_options_check(&o, err, sizeof err), 0);
    struct {
        int field;
        double value;
        const char *words;
    } bad[] = {{0, -1, "ldl_ordering"},          {0, 3, "ldl_ordering"},
               {1, -1, "ldl_shatter_degree"},    {2, 0, "ldl_shard_constraints"},
               {3, -1e-3, "ldl_regularization"}, {3, 1.0, "ldl_regularization"},
               {3, NAN, "ldl_regularization"}};
    heft_world_def wd = heft_default_world_def();
    wd.solver = "ldl-pgs";
    heft_world *w = heft_world_create(&wd);
    cr_assert_not_null(w);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
        o = heft_solver_default_options();
        switch (bad[k].field) {
        case 0:
            o.ldl_ordering = (int)bad[k].value;
            break;
        case 1:
            o.ldl_shatter_degree = (int)bad[k].value;
            break;
        case 2:
            o.ldl_shard_constraints = (int)bad[k].value;
            break;
        default:
            o.ldl_regularization = bad[k].value;
            break;
        }
        err[0] = '\0';
        cr_assert_eq(heft_solver_options_check(&o, err, sizeof err), -1, "case %zu", k);
        cr_assert_not_null(strstr(err, bad[k].words), "case %zu: \"%s\"", k, err);
        cr_assert_null(heft_solver_find("ldl-pgs")->create(&o), "case %zu", k);
        cr_assert_neq(heft_world_set_solver_options(w, &o), HEFT_OK, "case %zu", k);
        cr_assert_not_null(strstr(heft_last_error(), bad[k].words), "case %zu: %s", k,
                           heft_last_error());
        const heft_solver_options kept = heft_world_solver_options(w);
        cr_assert_eq(kept.ldl_ordering, HEFT_LDL_ORDER_MIN_EDGE);
        cr_assert_eq(kept.ldl_shatter_degree, 20);
        cr_assert_eq(kept.ldl_shard_constraints, 2);
        cr_assert_eq(kept.ldl_regularization, 1e-12);
    }
    o = heft_solver_default_options();
    o.ldl_shatter_degree = 0;
    cr_assert_eq(heft_world_set_solver_options(w, &o), HEFT_OK);
    cr_assert_eq(heft_world_solver_options(w).ldl_shatter_degree, 0);
    heft_world_destroy(w);
}

Test(ldl_pgs, repeated_solve_of_the_same_topology_makes_no_allocation) {
    int nj;
    mech_joint *j = mech_hub(24, 3, 5, 51, &nj); /* shattered by default (degree 24 > 20) */
    heft_mlcp *p = mech_build(25, j, nj, 6, 1e-8, 52);
    counting_allocator_install();
    const heft_solver_vtable *vt = heft_solver_find("ldl-pgs");
    const heft_solver_options o = heft_solver_default_options();
    void *state = vt->create(&o);
    double *lambda = malloc(sizeof(double) * (size_t)p->n);
    heft_solver_stats st;
    counting_allocator_calls = 0;
    vt->solve(state, p, lambda, &st);
    cr_assert(counting_allocator_calls > 0, "the hook is not in use");
    cr_assert_eq(heft_ldl_pgs_factorization(state)->stats.shattered_bodies, 1);
    counting_allocator_calls = 0;
    for (int step = 0; step < 3; ++step) {
        p->b[step] += 0.01;
        p->rows[2].ja[1] += 0.01;
        vt->solve(state, p, lambda, &st);
    }
    cr_assert_eq(counting_allocator_calls, 0, "%d calls", counting_allocator_calls);
    vt->destroy(state);
    heft_set_allocator(NULL);
    heft_mlcp_destroy(p);
    free(j);
    free(lambda);
}

Test(ldl_pgs, bad_input_fails_cleanly) {
    int nj;
    mech_joint *j = mech_chain(6, 3, 0, &nj);
    heft_mlcp *p = mech_build(6, j, nj, 2, 0.0, 61);
    const int n = p->n;
    double *lambda = malloc(sizeof(double) * (size_t)n);
    heft_solver_stats st;
    /* a body index out of range */
    p->rows[1].b = 6;
    cr_assert_eq(heft_solve("ldl-pgs", NULL, p, lambda, &st), HEFT_SOLVE_FAILED);
    p->rows[1].b = 1;
    /* NaN in b: failed, and no NaN handed back */
    p->b[2] = NAN;
    cr_assert_eq(heft_solve("ldl-pgs", NULL, p, lambda, &st), HEFT_SOLVE_FAILED);
    for (int i = 0; i < n; ++i)
        cr_assert(isfinite(lambda[i]));
    p->b[2] = 0.5;
    /* a joint repeated exactly with no compliance: H~ singular but for the
     * regularization; no NaN either way */
    memcpy(&p->rows[1], &p->rows[0], sizeof p->rows[0]);
    p->block[1] = p->block[0];
    const int rc = heft_solve("ldl-pgs", NULL, p, lambda, &st);
    for (int i = 0; i < n; ++i)
        cr_assert(isfinite(lambda[i]));
    cr_log_info("repeated rows: rc %d, fallback %d, error %.3g J", rc, st.fallback, st.error_max);
    /* the dense form only: solved by PGS, flagged as a fallback */
    heft_mlcp *d = heft_mlcp_create(n, 0, HEFT_MLCP_DENSE);
    heft_mlcp_assemble_dense(p, d->A);
    for (int i = 0; i < n; ++i) {
        d->b[i] = p->b[i];
        d->lo[i] = p->lo[i];
        d->hi[i] = p->hi[i];
        d->findex[i] = p->findex[i];
        d->A[(size_t)i * n + i] += 1e-3;
    }
    cr_assert_neq(heft_solve("ldl-pgs", NULL, d, lambda, &st), HEFT_SOLVE_FAILED);
    cr_assert_eq(st.fallback, 1);
    /* an empty problem has nothing to solve (as for every solver: the solve
     * frame answers it); a negative size is refused */
    heft_mlcp empty = {0};
    cr_assert_eq(heft_solve("ldl-pgs", NULL, &empty, lambda, &st), HEFT_SOLVE_OK);
    cr_assert_eq(st.converged, 1);
    empty.n = -1;
    cr_assert_eq(heft_solve("ldl-pgs", NULL, &empty, lambda, &st), HEFT_SOLVE_FAILED);
    heft_mlcp_destroy(d);
    heft_mlcp_destroy(p);
    free(j);
    free(lambda);
}

/* ---- the engine's scenes --------------------------------------------------------------- */

typedef struct scene_record {
    int problems, compared;
    double worst_eq, worst_vs_bpp;
} scene_record;

static void check_island(void *user, int step, int island, const heft_mlcp *p, const double *lambda,
                         const heft_solver_stats *stats) {
    (void)step;
    (void)island;
    (void)stats;
    scene_record *rec = user;
    rec->problems++;
    rec->worst_eq = fmax(rec->worst_eq, equality_residual(p, lambda));
    int all_eq = 1;
    for (int i = 0; i < p->n; ++i)
        all_eq = all_eq && isinf(p->lo[i]) && isinf(p->hi[i]) && p->findex[i] < 0;
    if (!all_eq)
        return;
    double *ref = malloc(sizeof(double) * (size_t)p->n);
    heft_solver_stats sb;
    cr_assert_eq(heft_solve("bpp", NULL, p, ref, &sb), HEFT_SOLVE_OK);
    rec->worst_vs_bpp = fmax(rec->worst_vs_bpp, mech_relative(lambda, ref, p->n));
    rec->compared++;
    free(ref);
}

Test(ldl_pgs_scenes, scenes_run_with_joint_rows_exact) {
    const char *scenes[3] = {"hanging-chain", "pendulum", "box-on-ground"};
    for (int s = 0; s < 3; ++s) {
        scene_record rec = {0};
        run_config cfg = {0};
        cfg.scenario = scenes[s];
        cfg.solver = "ldl-pgs";
        cfg.steps = 120;
        cfg.island = check_island;
        cfg.island_user = &rec;
        run_result r;
        cr_assert_eq(run_scenario(&cfg, &r), 0, "%s", r.error);
        cr_log_info("%s with ldl-pgs: %d islands, equality residual relative %.3g, %d all-joint "
                    "islands vs bpp relative %.3g, fallbacks %d",
                    scenes[s], rec.problems, rec.worst_eq, rec.compared, rec.worst_vs_bpp,
                    r.fallbacks);
        cr_assert(rec.problems > 0);
        cr_assert(rec.worst_eq < 1e-8, "%s: %g", scenes[s], rec.worst_eq);
        cr_assert(rec.worst_vs_bpp < 1e-8, "%s: %g", scenes[s], rec.worst_vs_bpp);
        cr_assert_eq(r.fallbacks, 0);
        cr_assert_eq(r.nonfinite_rejected, 0);
        run_result_free(&r);
    }
}

/* ---- the slides' mechanisms (timed by heft-bench --ldl, not here) ------------------------ */

Test(block_ldl, slides_mechanisms_have_the_slides_size_and_solve_exactly) {
    /* slide "Sparse Methods": 50 constraints, dim 246, density 12%, 90k flops */
    int nj;
    mech_joint *j = mech_clustered_tree(50, 4, 6, 135, &nj);
    heft_mlcp *p = mech_build(50, j, nj, 0, 1e-8, 1135);
    heft_block_ldl_stats s;
    const heft_block_ldl_config c = exact_config(HEFT_ORDER_MIN_EDGE, 20);
    const double rel = block_vs_dense(p, &c, &s);
    cr_log_info("50-joint mechanism: dim %d, density %.1f%%, %.0f multiply-adds, %d fill edges, "
                "relative %.3g (slides: dim 246, 12%%, 90k flops)",
                s.dim, 100 * s.density, s.flops, s.fill_edges, rel);
    cr_assert_eq(s.nodes, 50);
    cr_assert_eq(s.dim, 246);
    cr_assert(fabs(s.density - 0.12) < 0.005, "%g", s.density);
    cr_assert(fabs(2.0 * s.flops - 90e3) < 0.15 * 90e3, "%g flops", 2.0 * s.flops);
    cr_assert(rel < 1e-10, "%g", rel);
    heft_mlcp_destroy(p);
    free(j);
    /* slide "Track": 40 constraints, dim 200, density 7.5%, 43k flops; a closed
     * loop of 5-row joints, whose runs of odd length take the kernels' last
     * half-used pair */
    mech_joint *t = mech_track(40, 5, &nj);
    p = mech_build(40, t, nj, 0, 1e-8, 73);
    const double rel2 = block_vs_dense(p, &c, &s);
    cr_log_info("40-joint track: dim %d, density %.2f%%, %.0f multiply-adds, relative %.3g "
                "(slides: dim 200, 7.5%%, 43k flops)",
                s.dim, 100 * s.density, s.flops, rel2);
    cr_assert_eq(s.dim, 200);
    cr_assert(fabs(s.density - 0.075) < 1e-12, "%g", s.density);
    cr_assert(fabs(2.0 * s.flops - 43e3) < 0.05 * 43e3, "%g flops", 2.0 * s.flops);
    cr_assert(rel2 < 1e-10, "%g", rel2);
    heft_mlcp_destroy(p);
    free(t);
}
