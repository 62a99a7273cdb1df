/* Planted-solution MLCPs for the solver tests (see planted.h). */
#include "planted.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t planted_next(planted_rng *rng) {
    uint64_t z = (rng->state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

double planted_uniform(planted_rng *rng, double lo, double hi) {
    const double u = (double)(planted_next(rng) >> 11) * 0x1.0p-53;
    return lo + (hi - lo) * u;
}

int planted_int(planted_rng *rng, int lo, int hi_exclusive) {
    return lo + (int)(planted_next(rng) % (uint64_t)(hi_exclusive - lo));
}

double planted_max_diff(const double *x, const double *y, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i)
        m = fmax(m, fabs(x[i] - y[i]));
    return m;
}

static void random_body(planted_rng *rng, heft_mlcp_body *body) {
    body->inv_mass = planted_uniform(rng, 0.2, 2.0);
    /* inverse inertia L L^T + 0.1 I: symmetric positive definite */
    double L[3][3] = {{0}};
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c <= r; ++c)
            L[r][c] = planted_uniform(rng, -1.0, 1.0);
    double I[3][3];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            I[r][c] = r == c ? 0.1 : 0.0;
            for (int k = 0; k < 3; ++k)
                I[r][c] += L[r][k] * L[c][k];
        }
    const double six[6] = {I[0][0], I[0][1], I[0][2], I[1][1], I[1][2], I[2][2]};
    memcpy(body->inv_inertia, six, sizeof six);
}

heft_mlcp *planted_random_structured(int n, int nbodies, double dominance, int with_dense,
                                     uint64_t seed) {
    planted_rng rng = {seed * 7919u + 17u};
    unsigned parts = HEFT_MLCP_STRUCTURED | HEFT_MLCP_META | (with_dense ? HEFT_MLCP_DENSE : 0);
    heft_mlcp *p = heft_mlcp_create(n, nbodies, parts);
    if (p == NULL)
        return NULL;
    for (int k = 0; k < nbodies; ++k)
        random_body(&rng, &p->bodies[k]);

    /* Rows come in blocks, like an island's: a contact is three rows (normal
     * and two friction) on one body pair, other blocks are single rows. */
    int block = 0;
    for (int i = 0; i < n; ++block) {
        /* body pair: a dynamic, b another body or (1 in 5) the static world */
        int32_t a = planted_int(&rng, 0, nbodies), b = -1;
        if (nbodies > 1 && planted_uniform(&rng, 0, 1) > 0.2) {
            b = planted_int(&rng, 0, nbodies - 1);
            b += b >= a;
        }
        if (planted_uniform(&rng, 0, 1) < 0.5) { /* the world may be on either side */
            int32_t t = a;
            a = b;
            b = t;
        }
        const int contact = n - i >= 3 && planted_uniform(&rng, 0, 1) < 0.4;
        const int size = contact ? 3 : 1;
        for (int r = 0; r < size; ++r, ++i) {
            heft_mlcp_row *row = &p->rows[i];
            row->a = a;
            row->b = b;
            for (int k = 0; k < 6; ++k) {
                row->ja[k] = a >= 0 ? planted_uniform(&rng, -1.0, 1.0) : 0.0;
                row->jb[k] = b >= 0 ? planted_uniform(&rng, -1.0, 1.0) : 0.0;
            }
            p->block[i] = block;
            p->kind[i] =
                contact ? (r == 0 ? HEFT_ROW_NORMAL : HEFT_ROW_FRICTION) : HEFT_ROW_BILATERAL;
            if (contact && r > 0)
                p->findex[i] = i - r;
            p->b[i] = planted_uniform(&rng, -1.0, 1.0);
        }
    }

    /* epsilon from the off-diagonal sums of J M^-1 J^T */
    double *A = malloc(sizeof(double) * (size_t)n * (size_t)n);
    heft_mlcp_assemble_dense(p, A); /* epsilon is still zero here */
    for (int i = 0; i < n; ++i) {
        double off = 0.0;
        for (int j = 0; j < n; ++j)
            if (j != i)
                off += fabs(A[(size_t)i * n + j]);
        p->epsilon[i] = dominance * off + 1e-3;
    }
    free(A);
    if (with_dense)
        heft_mlcp_assemble_dense(p, p->A);
    return p;
}

/* Chooses lambda*, the index set and w* for every row, sets the bounds and
 * b = A lambda* - w*. A is dense (row-major), n x n. */
static void plant(planted_problem *pp, const double *A, planted_rng *rng) {
    heft_mlcp *p = pp->p;
    const int n = p->n;
    double *x = pp->solution, *w = pp->w;
    for (int i = 0; i < n; ++i) {
        if (p->findex[i] >= 0) {
            /* friction row: box [-mu lambda_n, mu lambda_n], mu in hi */
            const double mu = planted_uniform(rng, 0.2, 0.8);
            const double limit = mu * x[p->findex[i]];
            p->hi[i] = mu;
            p->lo[i] = -mu;
            const double u = planted_uniform(rng, 0, 1);
            if (limit == 0.0) { /* separated contact: closed box, any w */
                x[i] = 0.0;
                w[i] = planted_uniform(rng, -1.0, 1.0);
            } else if (u < 0.4) { /* sticking */
                x[i] = planted_uniform(rng, -0.8, 0.8) * limit;
                w[i] = 0.0;
                pp->sticking++;
            } else if (u < 0.7) { /* sliding, at +mu lambda_n */
                x[i] = limit;
                w[i] = -planted_uniform(rng, 0.1, 1.0);
                pp->sliding++;
            } else { /* sliding, at -mu lambda_n */
                x[i] = -limit;
                w[i] = planted_uniform(rng, 0.1, 1.0);
                pp->sliding++;
            }
            continue;
        }
        if (p->kind != NULL && p->kind[i] == HEFT_ROW_NORMAL) {
            p->lo[i] = 0.0;
            p->hi[i] = INFINITY;
            if (planted_uniform(rng, 0, 1) < 0.8) { /* pressing */
                x[i] = planted_uniform(rng, 0.5, 2.0);
                w[i] = 0.0;
                pp->free_rows++;
            } else { /* separating */
                x[i] = 0.0;
                w[i] = planted_uniform(rng, 0.1, 1.0);
                pp->separated++;
            }
            continue;
        }
        const double u = planted_uniform(rng, 0, 1);
        if (u < 0.25) { /* bilateral, free */
            x[i] = planted_uniform(rng, -1.0, 1.0);
            w[i] = 0.0;
            pp->free_rows++;
        } else if (u < 0.5) { /* boxed, free inside its box */
            p->lo[i] = -planted_uniform(rng, 0.5, 2.0);
            p->hi[i] = planted_uniform(rng, 0.5, 2.0);
            const double width = p->hi[i] - p->lo[i];
            x[i] = p->lo[i] + width * planted_uniform(rng, 0.1, 0.9);
            w[i] = 0.0;
            pp->free_rows++;
        } else if (u < 0.75) { /* at the lower bound (upper bound finite or not) */
            p->lo[i] = planted_uniform(rng, -1.0, 0.5);
            p->hi[i] = planted_uniform(rng, 0, 1) < 0.5 ? INFINITY
                                                        : p->lo[i] + planted_uniform(rng, 0.5, 2.0);
            x[i] = p->lo[i];
            w[i] = planted_uniform(rng, 0.1, 1.0);
            pp->at_lo++;
        } else { /* at the upper bound */
            p->hi[i] = planted_uniform(rng, -0.5, 1.0);
            p->lo[i] = planted_uniform(rng, 0, 1) < 0.5 ? -INFINITY
                                                        : p->hi[i] - planted_uniform(rng, 0.5, 2.0);
            x[i] = p->hi[i];
            w[i] = -planted_uniform(rng, 0.1, 1.0);
            pp->at_hi++;
        }
    }
    for (int i = 0; i < n; ++i) {
        double ax = 0.0;
        for (int j = 0; j < n; ++j)
            ax += A[(size_t)i * n + j] * x[j];
        p->b[i] = ax - w[i];
    }
}

static planted_problem planted_alloc(heft_mlcp *p) {
    planted_problem pp;
    memset(&pp, 0, sizeof pp);
    pp.p = p;
    pp.solution = calloc((size_t)p->n, sizeof(double));
    pp.w = calloc((size_t)p->n, sizeof(double));
    return pp;
}

planted_problem planted_structured(int n, double dominance, int with_dense, uint64_t seed) {
    const int nbodies = n / 3 > 2 ? n / 3 : 2;
    heft_mlcp *p = planted_random_structured(n, nbodies, dominance, with_dense, seed);
    planted_problem pp = planted_alloc(p);
    double *A = malloc(sizeof(double) * (size_t)n * (size_t)n);
    heft_mlcp_assemble_dense(p, A);
    planted_rng rng = {seed * 104729u + 3u};
    plant(&pp, A, &rng);
    free(A);
    return pp;
}

planted_problem planted_dense(int n, double dominance, uint64_t seed) {
    planted_rng rng = {seed * 15485863u + 5u};
    heft_mlcp *p = heft_mlcp_create(n, 0, HEFT_MLCP_DENSE | HEFT_MLCP_META);
    double *B = malloc(sizeof(double) * (size_t)n * (size_t)n);
    for (size_t k = 0; k < (size_t)n * (size_t)n; ++k)
        B[k] = planted_uniform(&rng, -1.0, 1.0);
    double *A = p->A;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) {
            double s = 0.0;
            for (int k = 0; k < n; ++k)
                s += B[(size_t)i * n + k] * B[(size_t)j * n + k];
            A[(size_t)i * n + j] = A[(size_t)j * n + i] = s / n;
        }
    free(B);
    for (int i = 0; i < n; ++i) {
        double off = 0.0;
        for (int j = 0; j < n; ++j)
            if (j != i)
                off += fabs(A[(size_t)i * n + j]);
        A[(size_t)i * n + i] += dominance * off;
    }
    /* contacts: every fifth row starts a normal row with two friction rows */
    for (int i = 0; i + 2 < n; i += 5) {
        p->kind[i] = HEFT_ROW_NORMAL;
        p->kind[i + 1] = p->kind[i + 2] = HEFT_ROW_FRICTION;
        p->findex[i + 1] = p->findex[i + 2] = i;
        p->block[i + 1] = p->block[i + 2] = i;
    }
    planted_problem pp = planted_alloc(p);
    plant(&pp, A, &rng);
    return pp;
}

void planted_free(planted_problem *pp) {
    heft_mlcp_destroy(pp->p);
    free(pp->solution);
    free(pp->w);
    memset(pp, 0, sizeof *pp);
}

int planted_hard_friction_failures(const char *solver, const heft_solver_options *o) {
    static const int sizes[4] = {30, 60, 120, 240};
    static const double dominance[2] = {0.0, 0.02};
    double lambda[240];
    int failures = 0;
    for (int d = 0; d < 2; ++d)
        for (int k = 0; k < 4; ++k)
            for (int seed = 1; seed <= 30; ++seed) {
                planted_problem pp = planted_structured(sizes[k], dominance[d], 1, (uint64_t)seed);
                heft_solver_stats st;
                const int rc = heft_solve(solver, o, pp.p, lambda, &st);
                if (rc == HEFT_SOLVE_FAILED || !(st.error_max < 1e-8)) {
                    ++failures;
                    fprintf(stderr, "%s (restart %d): %d rows, dominance %.2f, seed %d: %.3g J\n",
                            solver, o->bpp_pgs_sweeps, sizes[k], dominance[d], seed, st.error_max);
                }
                planted_free(&pp);
            }
    return failures;
}
