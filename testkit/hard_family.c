/* The hard family of planted box-friction MLCPs (see hard_family.h). */
#include "hard_family.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "planted.h"

typedef struct body_geom {
    double pos[3];
    double mass;
} body_geom;

static void cross(const double a[3], const double b[3], double out[3]) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static void normalize(double v[3]) {
    const double l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; ++k)
        v[k] /= l;
}

/* A random unit normal and two tangents completing it. */
static void random_frame(planted_rng *rng, double nrm[3], double t1[3], double t2[3]) {
    for (int k = 0; k < 3; ++k)
        nrm[k] = planted_uniform(rng, -1.0, 1.0);
    nrm[2] += 2.0; /* mostly up, as in a pile */
    normalize(nrm);
    const double helper[3] = {fabs(nrm[0]) < 0.9 ? 1.0 : 0.0, fabs(nrm[0]) < 0.9 ? 0.0 : 1.0, 0.0};
    cross(nrm, helper, t1);
    normalize(t1);
    cross(nrm, t1, t2);
}

/* Row Jacobian of direction dir at point pt between bodies a and b (-1:
 * the world): body a pushed along +dir, body b along -dir. */
static void fill_row(heft_mlcp_row *row, int a, int b, const body_geom *g, const double dir[3],
                     const double pt[3]) {
    row->a = a;
    row->b = b;
    memset(row->ja, 0, sizeof row->ja);
    memset(row->jb, 0, sizeof row->jb);
    if (a >= 0) {
        double r[3], rx[3];
        for (int k = 0; k < 3; ++k)
            r[k] = pt[k] - g[a].pos[k];
        cross(r, dir, rx);
        for (int k = 0; k < 3; ++k) {
            row->ja[k] = dir[k];
            row->ja[3 + k] = rx[k];
        }
    }
    if (b >= 0) {
        double r[3], rx[3];
        for (int k = 0; k < 3; ++k)
            r[k] = pt[k] - g[b].pos[k];
        cross(r, dir, rx);
        for (int k = 0; k < 3; ++k) {
            row->jb[k] = -dir[k];
            row->jb[3 + k] = -rx[k];
        }
    }
}

hard_problem hard_family_problem(int rows, double mass_ratio, uint64_t seed) {
    hard_problem hp;
    memset(&hp, 0, sizeof hp);
    hp.rank = -1;
    planted_rng rng = {seed * 2654435761u + 977u};
    /* a body in about six blocks of about eight rows */
    int nbodies = rows / 24;
    if (nbodies < 2)
        nbodies = 2;
    const int cap = rows + 12;
    heft_mlcp *p =
        heft_mlcp_create(cap, nbodies, HEFT_MLCP_STRUCTURED | HEFT_MLCP_META | HEFT_MLCP_DENSE);
    body_geom *g = calloc((size_t)nbodies, sizeof *g);
    double *x = calloc((size_t)cap, sizeof(double)), *w = calloc((size_t)cap, sizeof(double));
    for (int k = 0; k < nbodies; ++k) {
        g[k].mass = exp(planted_uniform(&rng, 0.0, log(mass_ratio > 1.0 ? mass_ratio : 1.0)));
        double half[3];
        for (int c = 0; c < 3; ++c) {
            g[k].pos[c] = planted_uniform(&rng, -3.0, 3.0);
            half[c] = planted_uniform(&rng, 0.2, 1.0);
        }
        heft_mlcp_body *b = &p->bodies[k];
        b->inv_mass = 1.0 / g[k].mass;
        const double ixx = g[k].mass / 3.0 * (half[1] * half[1] + half[2] * half[2]);
        const double iyy = g[k].mass / 3.0 * (half[0] * half[0] + half[2] * half[2]);
        const double izz = g[k].mass / 3.0 * (half[0] * half[0] + half[1] * half[1]);
        const double inv[6] = {1.0 / ixx, 0.0, 0.0, 1.0 / iyy, 0.0, 1.0 / izz};
        memcpy(b->inv_inertia, inv, sizeof inv);
    }
    /* what joins each pair (the world is body nbodies): 0 nothing yet, 1
     * contacts, 2 a joint. A jointed pair does not touch, as the engine
     * filters collisions between jointed bodies: a joint and a contact on
     * one pair make internal forces that change no velocity (joint pulling,
     * contact pushing) and an unbounded set of answers. */
    const int np = nbodies + 1;
    unsigned char *joined = calloc((size_t)np * (size_t)np, 1);
    int n = 0, block = 0;
    while (n < rows) {
        const int a = planted_int(&rng, 0, nbodies);
        int b = -1;
        if (planted_uniform(&rng, 0, 1) > 0.3) {
            b = planted_int(&rng, 0, nbodies - 1);
            b += b >= a;
        }
        unsigned char *pair = &joined[(size_t)a * np + (size_t)(b >= 0 ? b : nbodies)];
        unsigned char *mirror = &joined[(size_t)(b >= 0 ? b : nbodies) * np + (size_t)a];
        /* impulses of the size the bodies' weight over a step gives */
        const double m = b >= 0 ? fmin(g[a].mass, g[b].mass) : g[a].mass;
        const double scale = m * 9.81 / 60.0;
        const double u = planted_uniform(&rng, 0, 1);
        double mid[3];
        for (int c = 0; c < 3; ++c)
            mid[c] = 0.5 * (g[a].pos[c] + (b >= 0 ? g[b].pos[c] : g[a].pos[c] - 1.0)) +
                     planted_uniform(&rng, -0.2, 0.2);
        const int want_contact = u < 0.8;
        if ((want_contact && *pair == 2) || (!want_contact && *pair == 1))
            continue; /* another pair next time */
        *pair = *mirror = want_contact ? 1 : 2;
        if (want_contact && n + 12 <= cap) { /* a face, or one point */
            const int points = u < 0.7 ? 4 : 1;
            double nrm[3], t1[3], t2[3];
            random_frame(&rng, nrm, t1, t2);
            const double hu = planted_uniform(&rng, 0.2, 0.6), hv = planted_uniform(&rng, 0.2, 0.6);
            const int pressing = planted_uniform(&rng, 0, 1) < 0.85;
            hp.faces += points == 4;
            for (int q = 0; q < points; ++q) {
                double pt[3];
                const double su = points == 1 ? 0.0 : (q & 1 ? hu : -hu);
                const double sv = points == 1 ? 0.0 : (q & 2 ? hv : -hv);
                for (int c = 0; c < 3; ++c)
                    pt[c] = mid[c] + su * t1[c] + sv * t2[c];
                const int nr = n;
                fill_row(&p->rows[n], a, b, g, nrm, pt);
                p->kind[n] = HEFT_ROW_NORMAL;
                p->lo[n] = 0.0;
                p->hi[n] = INFINITY;
                /* a face presses on some points, lifts off others */
                const int on = pressing && planted_uniform(&rng, 0, 1) < 0.8;
                x[n] = on ? scale * planted_uniform(&rng, 0.1, 1.0) : 0.0;
                w[n] = on ? 0.0 : planted_uniform(&rng, 0.01, 0.5);
                p->block[n] = block;
                ++n;
                const double mu = planted_uniform(&rng, 0.1, 1.0);
                const int sliding = planted_uniform(&rng, 0, 1) < 0.5;
                double slide_dir = planted_uniform(&rng, 0.0, 6.283185307179586);
                for (int t = 0; t < 2; ++t, ++n) {
                    fill_row(&p->rows[n], a, b, g, t == 0 ? t1 : t2, pt);
                    p->kind[n] = HEFT_ROW_FRICTION;
                    p->findex[n] = nr;
                    p->hi[n] = mu;
                    p->lo[n] = -mu;
                    p->block[n] = block;
                    const double limit = mu * x[nr];
                    if (limit == 0.0) {
                        x[n] = 0.0;
                        w[n] = planted_uniform(&rng, -0.5, 0.5);
                    } else if (!sliding) {
                        x[n] = limit * planted_uniform(&rng, -0.9, 0.9);
                        w[n] = 0.0;
                    } else {
                        /* box friction slides per axis: each axis at a bound
                         * against its velocity */
                        const double c = t == 0 ? cos(slide_dir) : sin(slide_dir);
                        const double sgn = c >= 0.0 ? 1.0 : -1.0;
                        x[n] = -sgn * limit;
                        w[n] = sgn * planted_uniform(&rng, 0.01, 0.5);
                    }
                }
            }
        } else if (u < 0.92 && n + 3 <= cap) { /* a ball joint */
            const double axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
            for (int c = 0; c < 3; ++c, ++n) {
                fill_row(&p->rows[n], a, b, g, axes[c], mid);
                p->kind[n] = HEFT_ROW_BILATERAL;
                x[n] = scale * planted_uniform(&rng, -1.0, 1.0);
                w[n] = 0.0;
                p->block[n] = block;
            }
        } else { /* a motor: a boxed row along a random axis */
            double nrm[3], t1[3], t2[3];
            random_frame(&rng, nrm, t1, t2);
            fill_row(&p->rows[n], a, b, g, nrm, mid);
            p->kind[n] = HEFT_ROW_MOTOR;
            const double fmax = scale * planted_uniform(&rng, 0.2, 1.0);
            p->lo[n] = -fmax;
            p->hi[n] = fmax;
            const double v = planted_uniform(&rng, 0, 1);
            x[n] = v < 0.4 ? fmax * planted_uniform(&rng, -0.9, 0.9) : (v < 0.7 ? fmax : -fmax);
            w[n] = v < 0.4 ? 0.0
                           : (v < 0.7 ? -planted_uniform(&rng, 0.01, 0.5)
                                      : planted_uniform(&rng, 0.01, 0.5));
            p->block[n] = block;
            ++n;
        }
        ++block;
    }
    p->n = n; /* the arrays hold cap rows; the problem uses the first n */
    for (int i = 0; i < n; ++i)
        p->epsilon[i] = 0.0;
    heft_mlcp_assemble_dense(p, p->A);
    for (int i = 0; i < n; ++i) {
        double ax = 0.0;
        for (int j = 0; j < n; ++j)
            ax += p->A[(size_t)i * n + j] * x[j];
        p->b[i] = ax - w[i];
    }
    free(g);
    free(w);
    free(joined);
    hp.p = p;
    hp.solution = x;
    return hp;
}

void hard_family_free(hard_problem *hp) {
    heft_mlcp_destroy(hp->p);
    free(hp->solution);
    memset(hp, 0, sizeof *hp);
}

int hard_family_rank(const hard_problem *hp) {
    const int n = hp->p->n;
    double *a = malloc(sizeof(double) * (size_t)n * (size_t)n);
    memcpy(a, hp->p->A, sizeof(double) * (size_t)n * (size_t)n);
    double largest = 0.0;
    for (int i = 0; i < n; ++i)
        largest = fmax(largest, a[(size_t)i * n + i]);
    int rank = 0;
    /* pivoted Cholesky: the largest remaining diagonal each column */
    int *done = calloc((size_t)n, sizeof(int));
    for (int step = 0; step < n; ++step) {
        int best = -1;
        for (int i = 0; i < n; ++i)
            if (!done[i] && (best < 0 || a[(size_t)i * n + i] > a[(size_t)best * n + best]))
                best = i;
        const double d = a[(size_t)best * n + best];
        if (!(d > 1e-10 * largest))
            break;
        done[best] = 1;
        ++rank;
        for (int i = 0; i < n; ++i) {
            if (done[i])
                continue;
            const double f = a[(size_t)i * n + best] / d;
            for (int j = 0; j < n; ++j)
                if (!done[j])
                    a[(size_t)i * n + j] -= f * a[(size_t)best * n + j];
        }
    }
    free(done);
    free(a);
    return rank;
}

hard_problem hard_family_member(int k, int max_rows) {
    static const double ratios[3] = {1.0, 1e2, 1e4};
    const int sizes = max_rows >= 50 ? max_rows : 50;
    /* sizes spread log-uniformly over [50, max_rows] */
    planted_rng rng = {(uint64_t)k * 40503u + 11u};
    const int rows = (int)exp(planted_uniform(&rng, log(50.0), log((double)sizes + 1.0)));
    return hard_family_problem(rows, ratios[k % 3], (uint64_t)k + 1u);
}
