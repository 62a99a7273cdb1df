/* Tests of the .mlcp reader and writer (mlcp-format.md): the outside problems
 * of tests/data/siconos are read and solved to their known solutions, every
 * problem survives a write and a read bit for bit, every malformed file is
 * refused with the line where it goes wrong, and thousands of randomly
 * damaged files give either a problem or a clean error, never a crash. */
#include <criterion/criterion.h>
#include <criterion/logging.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mlcp.h"
#include "planted.h"

#define SICONOS_DIR HEFT_TESTDATA_DIR "/siconos/"

/* The converted Siconos problems (tests/data/siconos/README.md) and their sizes. */
static const struct {
    const char *file;
    int n;
} siconos[] = {
    {"PDSym_mlcp.mlcp", 7},  {"lcp_deudeu.mlcp", 2},      {"lcp_mmc.mlcp", 26},
    {"lcp_trivial.mlcp", 9}, {"legacy_trivial2.mlcp", 8}, {"relay1.mlcp", 15},
    {"relay_2x2.mlcp", 2},   {"relay_4x4.mlcp", 4},       {"relay_simple2.mlcp", 2},
    {"step_1x1.mlcp", 1},    {"step_2x2.mlcp", 2},        {"step_4x4.mlcp", 4},
};
#define SICONOS_COUNT ((int)(sizeof siconos / sizeof siconos[0]))

/* Solvers that work on the structured form only (design "The MLCP of an
 * island"): the Siconos problems have just A, so these skip them. */
static int needs_structured_form(const char *solver) {
    static const char *const names[] = {"ldl-pgs", "baraff", "cr"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; ++k)
        if (strcmp(names[k], solver) == 0)
            return 1;
    return 0;
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    cr_assert_eq(fread(text, 1, (size_t)size, f), (size_t)size);
    text[size] = '\0';
    fclose(f);
    return text;
}

static heft_mlcp *read_siconos(const char *file, double **solution) {
    char path[512], err[512];
    snprintf(path, sizeof path, "%s%s", SICONOS_DIR, file);
    heft_mlcp *p = NULL;
    const int rc = heft_mlcp_read_file(path, &p, solution, err, sizeof err);
    cr_assert_eq(rc, 0, "%s: %s", file, err);
    cr_assert_not_null(p);
    return p;
}

/* The text heft_mlcp_write gives, in a malloc'd string. */
static char *write_to_string(const heft_mlcp *p, const double *solution) {
    char *buf = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&buf, &size);
    cr_assert_not_null(f);
    const int rc = heft_mlcp_write(f, p, NULL, solution);
    fclose(f);
    cr_assert_eq(rc, 0, "write failed: %s", strerror(errno));
    return buf;
}

static int same_doubles(const double *x, const double *y, size_t count) {
    if ((x == NULL) != (y == NULL))
        return 0;
    return x == NULL || memcmp(x, y, sizeof(double) * count) == 0;
}

/* NULL when x and y are the same problem bit for bit, else what differs. A
 * friction row's lo is not part of the problem (it is written as -hi). */
static const char *problem_difference(const heft_mlcp *x, const heft_mlcp *y) {
    const int n = x->n;
    if (y->n != n)
        return "n";
    if (!same_doubles(x->A, y->A, (size_t)n * (size_t)n))
        return "A";
    if (!same_doubles(x->b, y->b, (size_t)n))
        return "b";
    if (!same_doubles(x->hi, y->hi, (size_t)n))
        return "hi";
    for (int i = 0; i < n; ++i) {
        if (x->findex[i] != y->findex[i])
            return "findex";
        if (x->findex[i] < 0 && memcmp(&x->lo[i], &y->lo[i], sizeof(double)) != 0)
            return "lo";
        if (x->findex[i] >= 0 && y->lo[i] != -y->hi[i])
            return "lo of a friction row";
    }
    if (!same_doubles(x->lambda0, y->lambda0, (size_t)n))
        return "lambda0";
    if ((x->kind == NULL) != (y->kind == NULL) ||
        (x->kind != NULL && memcmp(x->kind, y->kind, (size_t)n) != 0))
        return "kind";
    if ((x->block == NULL) != (y->block == NULL) ||
        (x->block != NULL && memcmp(x->block, y->block, sizeof(int32_t) * (size_t)n) != 0))
        return "block";
    if (x->nbodies != y->nbodies || (x->rows == NULL) != (y->rows == NULL))
        return "structured form present or body count";
    if (x->rows != NULL) {
        for (int k = 0; k < x->nbodies; ++k)
            if (memcmp(&x->bodies[k], &y->bodies[k], sizeof(heft_mlcp_body)) != 0)
                return "bodies";
        for (int i = 0; i < n; ++i) {
            const heft_mlcp_row *a = &x->rows[i], *b = &y->rows[i];
            if (a->a != b->a || a->b != b->b || memcmp(a->ja, b->ja, sizeof a->ja) != 0 ||
                memcmp(a->jb, b->jb, sizeof a->jb) != 0)
                return "rows";
        }
        if (!same_doubles(x->epsilon, y->epsilon, (size_t)n))
            return "epsilon";
    }
    return NULL;
}

/* Writes p, reads it back and holds the two to bit equality; the second
 * write must give the same text. Returns the text (malloc'd). */
static char *round_trip(const heft_mlcp *p, const double *solution, const char *what) {
    char *text = write_to_string(p, solution);
    heft_mlcp *q = NULL;
    double *sol = NULL;
    char err[512];
    const int rc = heft_mlcp_read_string(text, &q, &sol, err, sizeof err);
    cr_assert_eq(rc, 0, "%s: the written file is refused: %s", what, err);
    const char *diff = problem_difference(p, q);
    cr_assert_null(diff, "%s: %s differs after a write and a read", what, diff);
    cr_assert(same_doubles(solution, sol, (size_t)p->n), "%s: solution differs", what);
    char *again = write_to_string(q, sol);
    cr_assert_str_eq(text, again, "%s: a second write gives another text", what);
    free(again);
    heft_mlcp_destroy(q);
    heft_free(sol);
    return text;
}

/* ---- the Siconos problems ---------------------------------------------------- */

Test(mlcp_io, reads_every_siconos_problem_with_its_solution) {
    for (int k = 0; k < SICONOS_COUNT; ++k) {
        double *solution = NULL;
        heft_mlcp *p = read_siconos(siconos[k].file, &solution);
        cr_assert_eq(p->n, siconos[k].n, "%s: n = %d", siconos[k].file, p->n);
        cr_assert_not_null(p->A);
        cr_assert_not_null(solution, "%s has a solution section", siconos[k].file);
        cr_assert_null(p->rows);
        cr_assert_null(p->kind);
        cr_assert_null(p->block);
        cr_assert_null(p->lambda0);
        for (int i = 0; i < p->n; ++i) {
            cr_assert_eq(p->findex[i], -1);
            for (int j = 0; j < i; ++j)
                cr_assert_eq(p->A[i * p->n + j], p->A[j * p->n + i]);
        }
        /* the README: the error measure at the included solutions is at most 8e-28 J */
        const heft_mlcp_error e = heft_mlcp_measure(p, solution, NULL);
        cr_log_info("%s: n=%d, error at the file's solution %.3g J", siconos[k].file, p->n, e.max);
        cr_assert(e.max < 1e-20, "%s: %g J", siconos[k].file, e.max);
        cr_assert_eq(e.bound_violations, 0);
        heft_mlcp_destroy(p);
        heft_free(solution);
    }
}

Test(mlcp_io, ignores_the_solution_when_not_asked_for_it) {
    char path[512], err[512];
    snprintf(path, sizeof path, "%s%s", SICONOS_DIR, "relay1.mlcp");
    heft_mlcp *p = NULL;
    cr_assert_eq(heft_mlcp_read_file(path, &p, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(p->n, 15);
    heft_mlcp_destroy(p); /* and ASan sees no leak of the solution */
}

/* The scale a solution is compared on: its largest entry. */
static double solution_scale(const double *x, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i)
        m = fmax(m, fabs(x[i]));
    return m > 0.0 ? m : 1.0;
}

static heft_solver_options exact_options(void) {
    heft_solver_options o = heft_solver_default_options();
    o.tolerance = 1e-30;
    o.max_iterations = 200000;
    o.warm_start = 0;
    return o;
}

Test(mlcp_io, pgs_solves_the_siconos_problems_to_their_known_solutions) {
    const heft_solver_options o = exact_options();
    /* relay1 (cond2 ~ 2e5) is the slow one: the converter's PGS gave up after
     * 20000 sweeps (README "Solutions"); this one converges in about 63000. */
    for (int k = 0; k < SICONOS_COUNT; ++k) {
        double *solution = NULL;
        heft_mlcp *p = read_siconos(siconos[k].file, &solution);
        double *lambda = calloc((size_t)p->n, sizeof(double));
        heft_solver_stats st;
        const int rc = heft_solve("pgs", &o, p, lambda, &st);
        const double diff = planted_max_diff(lambda, solution, p->n);
        const double rel = diff / solution_scale(solution, p->n);
        cr_log_info("pgs %s: rc %d, %d sweeps, error max %.3g J, |lambda - lambda*| / |lambda*| "
                    "= %.3g",
                    siconos[k].file, rc, st.iterations, st.error_max, rel);
        cr_assert_eq(rc, HEFT_SOLVE_OK, "%s: rc %d", siconos[k].file, rc);
        cr_assert(rel < 1e-8, "%s: relative difference %g", siconos[k].file, rel);
        cr_assert(st.error_max < 1e-10, "%s: error %g J", siconos[k].file, st.error_max);
        cr_assert_eq(st.bound_violations, 0);
        free(lambda);
        heft_mlcp_destroy(p);
        heft_free(solution);
    }
}

/* Every registered solver but pgs (which has its own test above), so a solver
 * registered later is held to the same answers without touching this file. */
Test(mlcp_io, every_other_solver_solves_the_siconos_problems) {
    const heft_solver_options o = exact_options();
    int checked = 0;
    for (int s = 0; s < heft_solver_count(); ++s) {
        const char *name = heft_solver_at(s)->name;
        if (strcmp(name, "pgs") == 0 || needs_structured_form(name))
            continue;
        for (int k = 0; k < SICONOS_COUNT; ++k) {
            double *solution = NULL;
            heft_mlcp *p = read_siconos(siconos[k].file, &solution);
            double *lambda = calloc((size_t)p->n, sizeof(double));
            heft_solver_stats st;
            const int rc = heft_solve(name, &o, p, lambda, &st);
            const double rel =
                planted_max_diff(lambda, solution, p->n) / solution_scale(solution, p->n);
            cr_log_info("%s %s: rc %d, %d iterations, error max %.3g J, relative difference "
                        "%.3g",
                        name, siconos[k].file, rc, st.iterations, st.error_max, rel);
            cr_expect_eq(rc, HEFT_SOLVE_OK, "%s %s: rc %d", name, siconos[k].file, rc);
            cr_expect(rel < 1e-8, "%s %s: relative difference %g", name, siconos[k].file, rel);
            cr_expect(st.error_max < 1e-10, "%s %s: error %g J", name, siconos[k].file,
                      st.error_max);
            free(lambda);
            heft_mlcp_destroy(p);
            heft_free(solution);
            checked++;
        }
    }
    cr_log_info("%d solver-problem pairs checked besides pgs (%d solvers registered)", checked,
                heft_solver_count());
}

/* ---- round trips --------------------------------------------------------------- */

Test(mlcp_io, siconos_problems_round_trip_bit_for_bit) {
    for (int k = 0; k < SICONOS_COUNT; ++k) {
        double *solution = NULL;
        heft_mlcp *p = read_siconos(siconos[k].file, &solution);
        free(round_trip(p, solution, siconos[k].file));
        heft_mlcp_destroy(p);
        heft_free(solution);
    }
}

/* A small island-like problem with friction, every optional section, and
 * numbers that test the printing: -0, subnormals, the extremes, infinities. */
static heft_mlcp *awkward_problem(void) {
    planted_problem pp = planted_structured(12, 0.5, 1, 5);
    heft_mlcp *p = pp.p;
    pp.p = NULL;
    for (int i = 0; i < p->n; ++i)
        p->lambda0[i] = pp.solution[i] * (1.0 + 1e-3 * i);
    p->lambda0[0] = -0.0;
    p->lambda0[1] = 4.9406564584124654e-324;
    p->lambda0[2] = 1.7976931348623157e308;
    p->lambda0[3] = -2.2250738585072014e-308;
    p->lambda0[4] = 0.1;
    p->lambda0[5] = 1.0 / 3.0;
    p->b[0] = -0.0;
    static const uint8_t others[] = {HEFT_ROW_BILATERAL, HEFT_ROW_NORMAL, HEFT_ROW_LIMIT,
                                     HEFT_ROW_MOTOR};
    for (int i = 0; i < p->n; ++i)
        p->kind[i] = p->findex[i] >= 0 ? (uint8_t)HEFT_ROW_FRICTION : others[i % 4];
    p->block[3] = -7;
    planted_free(&pp);
    return p;
}

Test(mlcp_io, structured_problems_round_trip_bit_for_bit) {
    heft_mlcp *p = awkward_problem();
    double solution[12];
    for (int i = 0; i < 12; ++i)
        solution[i] = 1e-300 * i - 1e300 * (i % 2);
    char *text = round_trip(p, solution, "awkward structured problem");
    cr_assert_not_null(
        strstr(text, "\nlambda0 -0 4.9406564584124654e-324 1.7976931348623157e+308"));
    cr_assert_not_null(strstr(text, "\nkind "));
    cr_assert_not_null(strstr(text, "\nblock "));
    cr_assert_not_null(strstr(text, "\nbodies "));
    cr_assert_not_null(strstr(text, "\nrows\n"));
    cr_assert_not_null(strstr(text, "inf"));
    free(text);
    heft_mlcp_destroy(p);

    /* The structured form alone (no A): the writer assembles A, the reader
     * keeps the file's A and the structure. */
    for (int seed = 1; seed <= 20; ++seed) {
        planted_problem pp = planted_structured(3 + 7 * seed, 0.5, 0, (uint64_t)seed);
        char *t = write_to_string(pp.p, NULL);
        heft_mlcp *q = NULL;
        char err[512];
        cr_assert_eq(heft_mlcp_read_string(t, &q, NULL, err, sizeof err), 0, "seed %d: %s", seed,
                     err);
        cr_assert_not_null(q->A);
        double *A = malloc(sizeof(double) * (size_t)q->n * (size_t)q->n);
        heft_mlcp_assemble_dense(pp.p, A);
        cr_assert(same_doubles(A, q->A, (size_t)q->n * (size_t)q->n), "seed %d: A", seed);
        q->A = NULL; /* compare the rest against the A-less original */
        const char *diff = problem_difference(pp.p, q);
        cr_assert_null(diff, "seed %d: %s", seed, diff);
        free(A);
        free(t);
        heft_mlcp_destroy(q);
        planted_free(&pp);
    }
}

Test(mlcp_io, big_sparse_islands_are_written_as_coo_lower_and_round_trip) {
    planted_problem pp = planted_structured(240, 0.5, 1, 11);
    char *text = round_trip(pp.p, pp.solution, "240 rows");
    cr_assert_not_null(strstr(text, "\nA coo-lower "), "a sparse island is written as coo-lower");
    free(text);
    /* a non-symmetric A is refused by the writer as the reader would refuse it */
    heft_mlcp *p = heft_mlcp_create(40, 0, HEFT_MLCP_DENSE);
    for (int i = 0; i < 40; ++i)
        p->A[i * 40 + i] = 2.0 + i;
    p->A[3 * 40 + 1] = 0.5;
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    errno = 0;
    cr_assert_eq(heft_mlcp_write(f, p, NULL, NULL), -1);
    cr_assert_eq(errno, EINVAL);
    fclose(f);
    heft_mlcp_destroy(p);
    planted_free(&pp);
}

/* The format promises a symmetric A; a file whose A is not (the audit's
 * 8-row files hung bpp, whose sparse copy reads one triangle while the error
 * measure reads all of A) is refused with the worst pair named, in dense and
 * in coo storage, while an asymmetry within 1e-9 relative is read. */
Test(mlcp_io, non_symmetric_A_is_refused_naming_the_worst_entry) {
    char text[4096];
    for (int storage = 0; storage < 2; ++storage) {
        size_t at = 0;
        at += (size_t)snprintf(text + at, sizeof text - at, "MLCP 1\ndim 8\n");
        if (storage == 0) {
            at += (size_t)snprintf(text + at, sizeof text - at, "A dense\n");
            for (int i = 0; i < 8; ++i) {
                for (int j = 0; j < 8; ++j) {
                    double v = i == j               ? 4.0
                               : (i == 5 && j == 2) ? 1.0
                               : (i == 1 && j == 0) ? 0.3
                                                    : 0.0;
                    if (i == 0 && j == 1)
                        v = 0.3 * (1.0 + 1e-12); /* within tolerance */
                    at += (size_t)snprintf(text + at, sizeof text - at, " %.17g", v);
                }
                at += (size_t)snprintf(text + at, sizeof text - at, "\n");
            }
        } else {
            at += (size_t)snprintf(text + at, sizeof text - at, "A coo 9\n");
            for (int i = 0; i < 8; ++i)
                at += (size_t)snprintf(text + at, sizeof text - at, "%d %d 4\n", i, i);
            at += (size_t)snprintf(text + at, sizeof text - at, "5 2 1\n");
        }
        at += (size_t)snprintf(text + at, sizeof text - at,
                               "b 1 1 1 1 1 1 1 1\nlo -inf -inf -inf -inf -inf -inf -inf -inf\n"
                               "hi inf inf inf inf inf inf inf inf\nfindex -1 -1 -1 -1 -1 -1 -1 "
                               "-1\n");
        heft_mlcp *p = NULL;
        char err[512];
        cr_assert_eq(heft_mlcp_read_string(text, &p, NULL, err, sizeof err), -1, "storage %d",
                     storage);
        cr_assert_null(p);
        cr_assert_not_null(strstr(err, "not symmetric"), "%s", err);
        cr_assert_not_null(strstr(err, "A[5][2]"), "%s", err);
        /* the line of the entry: the sixth row of the dense A (line 9), the coo entry on line 12 */
        cr_assert_not_null(strstr(err, storage == 0 ? "line 9:" : "line 12:"), "%s", err);
    }
}

Test(mlcp_io, writer_refuses_what_the_reader_would_refuse) {
    heft_mlcp *p = heft_mlcp_create(2, 0, HEFT_MLCP_DENSE);
    p->A[0] = p->A[3] = 1.0;
    char path[] = "/tmp/heft_mlcp_io_XXXXXX";
    const int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    cr_assert_eq(heft_mlcp_write_file(path, p, NULL, NULL), 0);
    p->b[1] = NAN;
    errno = 0;
    cr_assert_eq(heft_mlcp_write_file(path, p, NULL, NULL), -1);
    cr_assert_eq(errno, EINVAL);
    cr_assert_eq(access(path, F_OK), -1, "a failed write leaves no file behind");
    p->b[1] = 0.0;
    p->lo[0] = 2.0;
    p->hi[0] = 1.0;
    cr_assert_eq(heft_mlcp_write_file(path, p, NULL, NULL), -1);
    p->lo[0] = -INFINITY;
    p->hi[0] = INFINITY;
    p->findex[0] = 1;
    p->hi[0] = INFINITY; /* a friction row needs a finite mu */
    cr_assert_eq(heft_mlcp_write_file(path, p, NULL, NULL), -1);
    p->findex[0] = -1;
    errno = 0;
    cr_assert_eq(heft_mlcp_write_file("/nonexistent-dir/x.mlcp", p, NULL, NULL), -1);
    cr_assert_eq(errno, ENOENT);
    heft_mlcp_destroy(p);
}

/* ---- malformed files ----------------------------------------------------------- */

/* A valid two-row problem, one section a line. */
static const char *const base_lines[] = {
    "MLCP 1", "dim 2", "A dense", "2 1", "1 2", "b 1 -1", "lo 0 -inf", "hi inf 1", "findex -1 -1",
};
#define BASE_LINES ((int)(sizeof base_lines / sizeof base_lines[0]))

/* The base text with line `at` (1-based) replaced by `with` (NULL: removed)
 * and `extra` appended. */
static char *base_with(int at, const char *with, const char *extra) {
    char *text = malloc(4096);
    text[0] = '\0';
    for (int l = 1; l <= BASE_LINES; ++l) {
        const char *line = l == at ? with : base_lines[l - 1];
        if (line != NULL) {
            strcat(text, line);
            strcat(text, "\n");
        }
    }
    if (extra != NULL)
        strcat(text, extra);
    return text;
}

static void expect_refused(const char *text, int line, const char *words, const char *what) {
    heft_mlcp *p = (heft_mlcp *)(uintptr_t)1;
    double *solution = (double *)(uintptr_t)1;
    char err[512];
    const int rc = heft_mlcp_read_string(text, &p, &solution, err, sizeof err);
    cr_assert_eq(rc, -1, "%s: accepted", what);
    cr_assert_null(p, "%s", what);
    cr_assert_null(solution, "%s", what);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "line %d: ", line);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "%s: expected line %d, got \"%s\"", what,
              line, err);
    cr_assert_not_null(strstr(err, words), "%s: \"%s\" lacks \"%s\"", what, err, words);
}

static void expect_read(const char *text, const char *what) {
    heft_mlcp *p = NULL;
    char err[512];
    cr_assert_eq(heft_mlcp_read_string(text, &p, NULL, err, sizeof err), 0, "%s: %s", what, err);
    heft_mlcp_destroy(p);
}

Test(mlcp_io, the_base_file_and_harmless_variants_are_read) {
    char *t = base_with(0, NULL, NULL);
    expect_read(t, "base");
    heft_mlcp *p = NULL;
    char err[256];
    cr_assert_eq(heft_mlcp_read_string(t, &p, NULL, err, sizeof err), 0);
    cr_assert_eq(p->A[1], 1.0);
    cr_assert(isinf(p->lo[1]) && p->lo[1] < 0);
    cr_assert(isinf(p->hi[0]) && p->hi[0] > 0);
    heft_mlcp_destroy(p);
    free(t);
    expect_read("MLCP 1 dim 2 A dense 2 1 1 2 b 1 -1 lo 0 -inf hi inf 1 findex -1 -1",
                "all on one line");
    expect_read("# a comment\n  MLCP 1# right after\n\r\ndim 2\t\nA dense\n2 1 1\n2\nb 1 -1 "
                "lo 0 -INF hi infinity 1 findex -1 -1\n# the end",
                "comments, tabs, CR, rows across lines, INF and infinity");
    t = base_with(0, NULL, "lambda0 0.5 -0.5\nsolution 1 0\nkind normal motor\nblock 0 0\n");
    expect_read(t, "every optional section in order");
    free(t);
    /* A coo that leaves out the mirror of an entry gives a non-symmetric A,
     * which the format does not allow: refused at that entry's line */
    expect_refused("MLCP 1\ndim 2\nA coo 3\n0 0 2\n1 1 2\n0 1 1\nb 1 -1\nlo 0 -inf\nhi inf 1\n"
                   "findex -1 -1\n",
                   6, "not symmetric", "coo without the mirror entry");
    expect_read("MLCP 1\ndim 2\nA coo 4\n0 0 2\n1 1 2\n0 1 1\n1 0 1\nb 1 -1\nlo 0 -inf\n"
                "hi inf 1\nfindex -1 -1\n",
                "coo with both triangles");
    expect_read("MLCP 1\ndim 2\nA coo-lower 3\n0 0 2\n1 0 1\n1 1 2\nb 1 -1\nlo 0 -inf\nhi 0.5 1\n"
                "findex 1 -1\n",
                "coo-lower with a friction row");
    expect_read("MLCP 1\ndim 2\nA coo 0\nb 0x1p-3 -1e-320\nlo 0 -inf\nhi inf 1\nfindex -1 -1\n",
                "empty coo, hex float, subnormal");
}

Test(mlcp_io, malformed_files_are_refused_at_the_right_line) {
    /* The line an error names is where the reader can tell: the token that
     * is wrong, or the first line of a section that runs short (a dense row
     * short of a number is only noticed when the next keyword comes). */
    static const struct {
        int replace;             /* line of the base to replace (0: none) */
        const char *replacement; /* NULL removes the line */
        const char *extra;       /* appended after the base */
        int line;                /* the line the message must name */
        const char *words;       /* and words it must contain */
    } cases[] = {
        {1, "MLCX 1", NULL, 1, "expected 'MLCP'"},
        {1, "MLCP 2", NULL, 1, "version 2"},
        {1, "MLCP one", NULL, 1, "not an integer"},
        {2, "dim 0", NULL, 2, "out of range"},
        {2, "dim -3", NULL, 2, "out of range"},
        {2, "dim 999999999999", NULL, 2, "out of range"},
        {2, "dim 99999999999999999999999999", NULL, 2, "out of range"},
        {2, "dim 16385", NULL, 2, "out of range"},
        {2, "dim 16384", NULL, 2, "dim 16384 needs at least 65536 more tokens"},
        {2, "dim 3", NULL, 3, "'A dense' needs 9 numbers, found 'b' on line 6 after 4"},
        {2, "dim 2.0", NULL, 2, "not an integer"},
        {2, "dims 2", NULL, 2, "expected 'dim'"},
        {3, "A sparse", NULL, 3, "A storage 'sparse'"},
        {3, "B dense", NULL, 3, "expected 'A'"},
        {3, "A coo -1", NULL, 3, "out of range"},
        {3, "A coo 999999999999", NULL, 3, "out of range"},
        {3, "A coo 4\n0 0 2\n1 1 2", NULL, 6, "A entry row: '2' is out of range"},
        {4, "2", NULL, 3, "'A dense' needs 4 numbers, found 'b' on line 6 after 3"},
        {4, "2 1x", NULL, 4, "not a number"},
        {4, "2 nan", NULL, 4, "NaN"},
        {4, "2 -nan(0x7)", NULL, 4, "NaN"},
        {4, "2 inf", NULL, 4, "not allowed"},
        {4, "2 1e999", NULL, 4, "out of the range"},
        {4, "2 --1", NULL, 4, "not a number"},
        {6, "b 1", NULL, 6, "'b' needs 2 numbers, found 'lo' on line 7 after 1"},
        {6, "b 1 -1 7", NULL, 6, "expected 'lo'"},
        {6, "b 1 inf", NULL, 6, "not allowed"},
        {6, NULL, NULL, 6, "expected 'b' after A, found 'lo'"},
        {7, "lo 0 inf", NULL, 7, "not allowed"},
        {7, "lo 0", NULL, 7, "'lo' needs 2 numbers, found 'hi' on line 8 after 1"},
        {8, "hi -inf 1", NULL, 8, "not allowed"},
        {7, "lo 0 2", NULL, 8, "row 1: lo 2 is above hi 1"},
        {9, "findex -1 2", NULL, 9, "out of range"},
        {9, "findex -2 -1", NULL, 9, "out of range"},
        {9, "findex 0 -1", NULL, 9, "names the row itself"},
        {8, "hi inf 1\nfindex 1 -1", NULL, 8, "friction row"},
        {9, "findex -1 -1 3", NULL, 9, "unknown keyword '3'"},
        {9, "findex -1", NULL, 9, "'findex' needs 2 integers, the file ends after 1"},
        {9, "findex -1 x", NULL, 9, "'findex' needs 2 integers, found 'x'"},
        {0, NULL, "foo 1 2\n", 10, "unknown keyword 'foo'"},
        {0, NULL, "lambda0 1\n", 10, "'lambda0' needs 2 numbers"},
        {0, NULL, "solution 1 2\nsolution 1 2\n", 11, "given twice"},
        {0, NULL, "kind normal normal\nlambda0 1 2\n", 11, "'lambda0' must come before 'kind'"},
        {0, NULL, "kind normal sliding\n", 10, "not one of"},
        {0, NULL, "block 0 x\n", 10, "'block' needs 2 integers"},
        {0, NULL, "block 0 99999999999\n", 10, "out of range"},
        {0, NULL, "solution 1 nan\n", 10, "NaN"},
        {0, NULL,
         "bodies 1\n1 1 0 0 1 0 1\nrows\n0 -1 1 0 0 0 0 0 0 0 0 0 0 0 1\n"
         "0 -1 0 1 0 0 0 0 0 0 0 0 0 0 1\n",
         10, "needs a 'block' section"},
        {0, NULL, "block 0 1\nbodies 999999999\n", 11, "needs"},
        {0, NULL, "block 0 1\nbodies -1\n", 11, "out of range"},
        {0, NULL, "block 0 1\nbodies 1\n1 1 0 0 1 0\n", 11,
         "bodies 1 needs at least 7 more tokens"},
        {0, NULL, "block 0 1\nbodies 1\n-1 1 0 0 1 0 1\nrows\n", 12, "negative inverse mass"},
        {0, NULL, "block 0 1\nbodies 1\n1 1 0 0 1 0 1\nrowz\n", 13, "expected 'rows'"},
        {0, NULL,
         "block 0 1\nbodies 1\n1 1 0 0 1 0 1\nrows\n0 -1 1 0 0 0 0 0 0 0 0 0 0 0 1\n"
         "0 2 0 1 0 0 0 0 0 0 0 0 0 0 1\n",
         15, "body b of row 1"},
        {0, NULL,
         "block 0 1\nbodies 1\n1 1 0 0 1 0 1\nrows\n0 -1 1 0 0 0 0 0 0 0 0 0 0 0 1\n"
         "0 -1 0 1 0 0 0 0 0 0 0 0 0 0 -1\n",
         15, "negative compliance"},
        {0, NULL,
         "block 0 1\nbodies 1\n1 1 0 0 1 0 1\nrows\n0 -1 1 0 0 0 0 0 0 0 0 0 0 0 1\n"
         "0 -1 0 1 0 0 0 0 0 0 0 0 0 0 1\n",
         4, "A[0][1] = 1, but the structured form gives 0"},
        {0, NULL,
         "block 0 1\nbodies 1\n1 1 0 0 1 0 1\nrows\n0 -1 1 0 0 0 0 0 0 0 0 0 0 0 1\n"
         "0 -1 0 1 0 0 0 0 0 0 0 0 0 0 1\nbodies 1\n",
         16, "given twice"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        char *t = base_with(cases[k].replace, cases[k].replacement, cases[k].extra);
        char what[160];
        snprintf(what, sizeof what, "case %zu (%s)", k,
                 cases[k].replacement != NULL ? cases[k].replacement
                 : cases[k].extra != NULL     ? cases[k].extra
                                              : "line removed");
        expect_refused(t, cases[k].line, cases[k].words, what);
        free(t);
    }
    expect_refused("", 1, "empty file", "empty text");
    expect_refused("# only a comment\n\n", 1, "empty file", "only a comment");
    expect_refused("MLCP 1\ndim 2\nA coo 3\n0 0 2\n0 0 3\n1 1 2\nb 1 -1\nlo 0 -inf\nhi inf 1\n"
                   "findex -1 -1\n",
                   5, "given twice", "coo entry twice");
    expect_refused("MLCP 1\ndim 2\nA coo-lower 3\n0 0 2\n0 1 1\n1 1 2\nb 1 -1\nlo 0 -inf\n"
                   "hi inf 1\nfindex -1 -1\n",
                   5, "above the diagonal", "coo-lower upper entry");
    expect_refused("MLCP 1\ndim 2\nA coo 2\n0 0 2\n1 1\nb 1 -1\nlo 0 -inf\nhi inf 1\n"
                   "findex -1 -1\n",
                   6, "A entry value: 'b' is not a number", "coo entry short of its value");
    expect_refused("MLCP 1\ndim 2\nA coo 2\n0 0 2\nb 1 -1\nlo 0 -inf\nhi inf 1\nfindex -1 -1\n", 3,
                   "'A coo' needs 2 entries, found 'b' on line 5 after 1", "coo short");
    expect_refused("MLCP 1\ndim 2\nA coo 1\n0 2 2\nb 1 -1\nlo 0 -inf\nhi inf 1\nfindex -1 -1\n", 4,
                   "out of range", "coo column out of range");
    expect_refused("MLCP 1\ndim 3\nA dense 1 0 0 0 1 0 0 0 1\nb 0 0 0\nlo 0 -inf 0\n"
                   "hi 0.5 inf 0.5\nfindex 1 -1 0\n",
                   7, "itself a friction row", "findex chain");
    expect_refused("MLCP 1\ndim 1\nA dense 1\nb 0\nlo 0\nhi -0.5\nfindex -1\n", 6, "above hi",
                   "lo above hi on line 6");
}

Test(mlcp_io, a_file_with_a_nul_byte_or_no_file_is_refused_cleanly) {
    char path[] = "/tmp/heft_mlcp_nul_XXXXXX";
    const int fd = mkstemp(path);
    cr_assert(fd >= 0);
    const char text[] = "MLCP 1\ndim 1\nA dense\n1\0\nb 1\nlo 0\nhi inf\nfindex -1\n";
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    heft_mlcp *p = NULL;
    char err[512];
    cr_assert_eq(heft_mlcp_read_file(path, &p, NULL, err, sizeof err), -1);
    cr_assert_null(p);
    cr_assert_not_null(strstr(err, "line 4: a NUL byte"), "%s", err);
    unlink(path);
    cr_assert_eq(heft_mlcp_read_file("/nonexistent/x.mlcp", &p, NULL, err, sizeof err), -1);
    cr_assert_not_null(strstr(err, "cannot open"), "%s", err);
    /* no room for a message is not a crash */
    cr_assert_eq(heft_mlcp_read_string("MLCP 9", &p, NULL, NULL, 0), -1);
    cr_assert_eq(heft_mlcp_read_string("MLCP 9", &p, NULL, err, 4), -1);
    cr_assert_eq(strlen(err), 3u);
}

/* ---- the structured form's consistency ----------------------------------------- */

/* The line (1-based) of text on which the given substring starts. */
static int line_of(const char *text, const char *at) {
    int line = 1;
    for (const char *c = text; c < at; ++c)
        line += *c == '\n';
    return line;
}

/* Replaces the k-th whitespace-separated token of line `line` by `with`. */
static char *replace_token(const char *text, int line, int k, const char *with) {
    const char *c = text;
    for (int l = 1; l < line; ++l)
        c = strchr(c, '\n') + 1;
    for (int t = 0; t < k; ++t) {
        c += strcspn(c, " \n");
        c += strspn(c, " ");
    }
    const size_t len = strcspn(c, " \n");
    char *out = malloc(strlen(text) + strlen(with) + 1);
    memcpy(out, text, (size_t)(c - text));
    strcpy(out + (c - text), with);
    strcat(out, c + len);
    return out;
}

Test(mlcp_io, a_tampered_A_is_refused_when_the_structured_form_is_present) {
    planted_problem pp = planted_structured(9, 0.5, 1, 3);
    char *text = write_to_string(pp.p, NULL);
    cr_assert_not_null(strstr(text, "A dense\n"));
    const int first_row = line_of(text, strstr(text, "A dense\n")) + 1;
    const int n = pp.p->n;
    /* row 4, column 2 of A, on line first_row + 4 */
    const double a = pp.p->A[4 * n + 2];
    char value[64];
    snprintf(value, sizeof value, "%.17g", a * (1.0 + 1e-6) + 1e-6);
    char *bad = replace_token(text, first_row + 4, 2, value);
    heft_mlcp *q = NULL;
    char err[512];
    cr_assert_eq(heft_mlcp_read_string(bad, &q, NULL, err, sizeof err), -1, "tampered A accepted");
    char prefix[32];
    snprintf(prefix, sizeof prefix, "line %d: A[4][2]", first_row + 4);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "%s", err);
    cr_assert_not_null(strstr(err, "structured form"), "%s", err);
    free(bad);

    /* a change within round-off (1e-13 relative) is accepted */
    snprintf(value, sizeof value, "%.17g", pp.p->A[4 * n + 4] * (1.0 + 1e-13));
    char *close_enough = replace_token(text, first_row + 4, 4, value);
    cr_assert_eq(heft_mlcp_read_string(close_enough, &q, NULL, err, sizeof err), 0, "%s", err);
    heft_mlcp_destroy(q);
    free(close_enough);

    /* a changed epsilon (structure) is refused at A's diagonal */
    const char *rows = strstr(text, "\nrows\n");
    const int row3 = line_of(text, rows) + 1 + 3 + 1;
    snprintf(value, sizeof value, "%.17g", pp.p->epsilon[3] * 2.0);
    bad = replace_token(text, row3, 14, value);
    cr_assert_eq(heft_mlcp_read_string(bad, &q, NULL, err, sizeof err), -1);
    snprintf(prefix, sizeof prefix, "line %d: A[3][3]", first_row + 3);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "%s", err);
    free(bad);
    free(text);
    planted_free(&pp);
}

Test(mlcp_io, a_tampered_coo_entry_is_refused_at_its_line) {
    planted_problem pp = planted_structured(150, 0.5, 0, 8);
    char *text = write_to_string(pp.p, NULL);
    const char *coo = strstr(text, "\nA coo-lower ");
    cr_assert_not_null(coo);
    const int a_line = line_of(text, coo + 1);
    /* the 40th entry */
    const int entry_line = a_line + 40;
    const char *c = text;
    for (int l = 1; l < entry_line; ++l)
        c = strchr(c, '\n') + 1;
    int i, j;
    double v;
    cr_assert_eq(sscanf(c, "%d %d %lf", &i, &j, &v), 3);
    char value[64];
    snprintf(value, sizeof value, "%.17g", v * 1.001);
    char *bad = replace_token(text, entry_line, 2, value);
    heft_mlcp *q = NULL;
    char err[512];
    cr_assert_eq(heft_mlcp_read_string(bad, &q, NULL, err, sizeof err), -1);
    char prefix[64];
    snprintf(prefix, sizeof prefix, "line %d: A[", entry_line);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "expected line %d: %s", entry_line, err);
    free(bad);
    free(text);
    planted_free(&pp);
}

/* ---- fuzzing ------------------------------------------------------------------- */

/* Words a mutation may put into a file: the format's keywords, counts that
 * are huge, negative or off by one, numbers the reader must refuse. */
static const char *const fuzz_words[] = {"MLCP",
                                         "dim",
                                         "A",
                                         "dense",
                                         "coo",
                                         "coo-lower",
                                         "b",
                                         "lo",
                                         "hi",
                                         "findex",
                                         "lambda0",
                                         "solution",
                                         "kind",
                                         "block",
                                         "bodies",
                                         "rows",
                                         "normal",
                                         "friction",
                                         "bilateral",
                                         "limit",
                                         "motor",
                                         "999999999999",
                                         "-999999999999",
                                         "99999999999999999999999",
                                         "2147483647",
                                         "2147483648",
                                         "-2147483649",
                                         "16384",
                                         "16385",
                                         "-1",
                                         "-2",
                                         "0",
                                         "1",
                                         "2",
                                         "3",
                                         "7",
                                         "nan",
                                         "-nan",
                                         "inf",
                                         "-inf",
                                         "infinity",
                                         "1e999",
                                         "-1e999",
                                         "1e-400",
                                         "0x1p-1074",
                                         "#",
                                         "\n",
                                         "--1",
                                         "1..2",
                                         "\xff\xfe",
                                         "\t",
                                         "1e",
                                         "+",
                                         "-",
                                         "."};
#define FUZZ_WORDS ((int)(sizeof fuzz_words / sizeof fuzz_words[0]))

static int is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Start and length of the k-th token of s (whitespace-separated), or -1. */
static int nth_token(const char *s, size_t len, int k, size_t *start, size_t *tlen) {
    size_t i = 0;
    int t = 0;
    while (i < len) {
        while (i < len && is_blank(s[i]))
            ++i;
        if (i >= len)
            break;
        const size_t b = i;
        while (i < len && !is_blank(s[i]))
            ++i;
        if (t++ == k) {
            *start = b;
            *tlen = i - b;
            return 0;
        }
    }
    return -1;
}

static int count_tokens_in(const char *s, size_t len) {
    int k = 0;
    for (size_t i = 0; i < len; ++i)
        k += !is_blank(s[i]) && (i == 0 || is_blank(s[i - 1]));
    return k;
}

/* Replaces [at, at + cut) of buf (length *len, capacity cap) with ins. */
static void splice(char *buf, size_t *len, size_t cap, size_t at, size_t cut, const char *ins,
                   size_t inslen) {
    if (*len - cut + inslen + 1 > cap)
        return;
    memmove(buf + at + inslen, buf + at + cut, *len - at - cut);
    memcpy(buf + at, ins, inslen);
    *len = *len - cut + inslen;
    buf[*len] = '\0';
}

static void mutate(char *buf, size_t *len, size_t cap, planted_rng *rng) {
    const int kind = planted_int(rng, 0, 9);
    const int tokens = count_tokens_in(buf, *len);
    size_t a, b;
    switch (kind) {
    case 0: /* truncate */
        *len = *len > 0 ? (size_t)planted_int(rng, 0, (int)*len) : 0;
        buf[*len] = '\0';
        break;
    case 1: /* a random byte */
        if (*len > 0)
            buf[planted_int(rng, 0, (int)*len)] = (char)planted_int(rng, 1, 256);
        break;
    case 2: /* flip a bit */
        if (*len > 0)
            buf[planted_int(rng, 0, (int)*len)] ^= (char)(1 << planted_int(rng, 0, 7));
        break;
    case 3: /* replace a token with a word */
    case 4:
        if (tokens > 0 && nth_token(buf, *len, planted_int(rng, 0, tokens), &a, &b) == 0) {
            const char *w = fuzz_words[planted_int(rng, 0, FUZZ_WORDS)];
            splice(buf, len, cap, a, b, w, strlen(w));
        }
        break;
    case 5: /* delete a token */
        if (tokens > 0 && nth_token(buf, *len, planted_int(rng, 0, tokens), &a, &b) == 0)
            splice(buf, len, cap, a, b, "", 0);
        break;
    case 6: /* duplicate a token */
        if (tokens > 0 && nth_token(buf, *len, planted_int(rng, 0, tokens), &a, &b) == 0) {
            char copy[128];
            const size_t n = b < sizeof copy - 2 ? b : sizeof copy - 2;
            copy[0] = ' ';
            memcpy(copy + 1, buf + a, n);
            splice(buf, len, cap, a + b, 0, copy, n + 1);
        }
        break;
    case 7: { /* insert a word anywhere */
        const char *w = fuzz_words[planted_int(rng, 0, FUZZ_WORDS)];
        char ins[64];
        snprintf(ins, sizeof ins, " %s ", w);
        splice(buf, len, cap, (size_t)planted_int(rng, 0, (int)*len + 1), 0, ins, strlen(ins));
        break;
    }
    default: { /* delete a range of bytes */
        if (*len == 0)
            break;
        const size_t at = (size_t)planted_int(rng, 0, (int)*len);
        const size_t cut = (size_t)planted_int(rng, 1, 40);
        splice(buf, len, cap, at, cut < *len - at ? cut : *len - at, "", 0);
        break;
    }
    }
}

/* One damaged file: either a problem that writes and reads back the same, or
 * "line L: ..." with L on the file. */
static int fuzz_one(const char *text, int lines, const char *what) {
    heft_mlcp *p = NULL;
    double *solution = NULL;
    char err[512];
    err[0] = 'x';
    const int rc = heft_mlcp_read_string(text, &p, &solution, err, sizeof err);
    if (rc != 0) {
        cr_assert_eq(rc, -1, "%s", what);
        cr_assert_null(p, "%s", what);
        cr_assert_null(solution, "%s", what);
        int line = 0;
        cr_assert_eq(sscanf(err, "line %d: ", &line), 1, "%s: message \"%s\"", what, err);
        cr_assert(line >= 1 && line <= lines, "%s: line %d of %d: %s", what, line, lines, err);
        return 0;
    }
    cr_assert(p->n >= 1 && p->A != NULL, "%s", what);
    free(round_trip(p, solution, what));
    heft_mlcp_destroy(p);
    heft_free(solution);
    return 1;
}

Test(mlcp_io, randomly_damaged_files_give_a_problem_or_a_clean_error, .timeout = 600) {
    /* the bases: every Siconos file, an island with every section (dense and
     * coo-lower), the small base above */
    char *bases[SICONOS_COUNT + 4];
    int nbases = 0;
    for (int k = 0; k < SICONOS_COUNT; ++k) {
        char path[512];
        snprintf(path, sizeof path, "%s%s", SICONOS_DIR, siconos[k].file);
        bases[nbases++] = slurp(path);
    }
    heft_mlcp *awkward = awkward_problem();
    bases[nbases++] = write_to_string(awkward, NULL);
    heft_mlcp_destroy(awkward);
    planted_problem pp = planted_structured(72, 0.5, 0, 21);
    bases[nbases++] = write_to_string(pp.p, pp.solution);
    cr_assert_not_null(strstr(bases[nbases - 1], "A coo-lower"));
    planted_free(&pp);
    bases[nbases++] = base_with(0, NULL, "lambda0 0.5 -0.5\nsolution 1 0\nkind normal motor\n");
    bases[nbases++] = strdup("MLCP 1\ndim 2\nA coo-lower 3\n0 0 2\n1 0 1\n1 1 2\nb 1 -1\n"
                             "lo 0 -inf\nhi 0.5 1\nfindex 1 -1\n");

    const int per_base = 2500;
    int accepted = 0, refused = 0;
    planted_rng rng = {20260812};
    for (int k = 0; k < nbases; ++k) {
        const size_t base_len = strlen(bases[k]);
        const size_t cap = base_len + 4096;
        char *buf = malloc(cap);
        for (int c = 0; c < per_base; ++c) {
            memcpy(buf, bases[k], base_len + 1);
            size_t len = base_len;
            const int mutations = planted_int(&rng, 1, 5);
            for (int m = 0; m < mutations; ++m)
                mutate(buf, &len, cap, &rng);
            int lines = 1;
            for (size_t i = 0; i < len && buf[i] != '\0'; ++i)
                lines += buf[i] == '\n';
            char what[64];
            snprintf(what, sizeof what, "base %d case %d", k, c);
            if (fuzz_one(buf, lines, what))
                accepted++;
            else
                refused++;
        }
        free(buf);
        free(bases[k]);
    }
    cr_log_info("fuzz: %d damaged files, %d read (and round-tripped), %d refused with a line",
                accepted + refused, accepted, refused);
    cr_assert(refused > accepted, "most damage must be noticed");
    cr_assert(accepted > 0, "some damage is harmless (a changed number)");
}
