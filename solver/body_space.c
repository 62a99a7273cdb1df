/* Heft: an island's rows seen from its bodies (body_space.h). */
#include "body_space.h"

#include <math.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "bpp.h"
#include "ordering.h"
#include "row_math.h"
#include "skyline.h"
#include "workspace.h"

/* The inverse of a symmetric 3 x 3 (xx xy xz yy yz zz) into out; 0 when it
 * is not positive definite or not finite. */
static int invert_sym3(const double a[6], double out[6]) {
    const double c0 = a[3] * a[5] - a[4] * a[4];
    const double c1 = a[2] * a[4] - a[1] * a[5];
    const double c2 = a[1] * a[4] - a[2] * a[3];
    const double det = a[0] * c0 + a[1] * c1 + a[2] * c2;
    if (!(a[0] > 0.0) || !(c0 > 0.0) || !(det > 0.0) || !isfinite(det))
        return 0;
    const double inv = 1.0 / det;
    out[0] = c0 * inv;
    out[1] = c1 * inv;
    out[2] = c2 * inv;
    out[3] = (a[0] * a[5] - a[2] * a[2]) * inv;
    out[4] = (a[1] * a[2] - a[0] * a[4]) * inv;
    out[5] = (a[0] * a[3] - a[1] * a[1]) * inv;
    for (int k = 0; k < 6; ++k)
        if (!isfinite(out[k]))
            return 0;
    return 1;
}

static int same_topology(const heft_body_space *b, const heft_mlcp *p) {
    if (!b->ordered || b->pairs_n != p->n || b->pairs_nb != p->nbodies)
        return 0;
    for (int i = 0; i < p->n; ++i)
        if (b->pairs[2 * i] != p->rows[i].a || b->pairs[2 * i + 1] != p->rows[i].b)
            return 0;
    return 1;
}

/* The rows of each body, the body graph, its RCM order and K's skyline. */
static int order_bodies(heft_body_space *b, const heft_mlcp *p) {
    const int n = p->n, nb = p->nbodies, m = 6 * nb;
    b->ordered = 0;
    if (!HEFT_RESERVE(b->pairs, b->pairs_cap, 2 * (size_t)n) ||
        !HEFT_RESERVE(b->place, b->place_cap, nb) || !HEFT_RESERVE(b->order, b->order_cap, nb) ||
        !HEFT_RESERVE(b->rows_start, b->rows_start_cap, (size_t)nb + 1) ||
        !HEFT_RESERVE(b->rows_of, b->rows_of_cap, 2 * (size_t)n) ||
        !HEFT_RESERVE(b->xadj, b->xadj_cap, (size_t)nb + 1) ||
        !HEFT_RESERVE(b->adj, b->adj_cap, 2 * (size_t)n) ||
        !HEFT_RESERVE(b->work, b->work_cap, 3 * (size_t)nb) ||
        !HEFT_RESERVE(b->lo, b->lo_cap, nb) || !HEFT_RESERVE(b->last, b->last_cap, m) ||
        !HEFT_RESERVE(b->start, b->start_cap, (size_t)m + 1))
        return -1;
    for (int i = 0; i < n; ++i) {
        b->pairs[2 * i] = p->rows[i].a;
        b->pairs[2 * i + 1] = p->rows[i].b;
    }
    /* the rows of each body (a row on one body twice is listed once) */
    memset(b->rows_start, 0, sizeof(int) * ((size_t)nb + 1));
    for (int i = 0; i < n; ++i) {
        const int a = p->rows[i].a, c = p->rows[i].b;
        if (a >= 0)
            b->rows_start[a + 1]++;
        if (c >= 0 && c != a)
            b->rows_start[c + 1]++;
    }
    for (int k = 0; k < nb; ++k)
        b->rows_start[k + 1] += b->rows_start[k];
    int *fill = b->work; /* nb */
    for (int k = 0; k < nb; ++k)
        fill[k] = b->rows_start[k];
    for (int i = 0; i < n; ++i) {
        const int a = p->rows[i].a, c = p->rows[i].b;
        if (a >= 0)
            b->rows_of[fill[a]++] = i;
        if (c >= 0 && c != a)
            b->rows_of[fill[c]++] = i;
    }
    /* the body graph: bodies sharing a row, each neighbour once */
    int *mark = b->lo; /* nb: the last body that listed it */
    for (int k = 0; k < nb; ++k)
        mark[k] = -1;
    int edges = 0;
    for (int k = 0; k < nb; ++k) {
        b->xadj[k] = edges;
        mark[k] = k;
        for (int e = b->rows_start[k]; e < b->rows_start[k + 1]; ++e) {
            const heft_mlcp_row *r = &p->rows[b->rows_of[e]];
            const int other = r->a == k ? r->b : r->a;
            if (other >= 0 && mark[other] != k) {
                mark[other] = k;
                b->adj[edges++] = other;
            }
        }
    }
    b->xadj[nb] = edges;
    heft_rcm(nb, b->xadj, b->adj, b->order, b->work);
    for (int q = 0; q < nb; ++q)
        b->place[b->order[q]] = q;
    /* lo[q]: the first place coupled to place q; K's rows of place q start
     * at column 6 lo[q] */
    for (int q = 0; q < nb; ++q) {
        const int k = b->order[q];
        int first = q;
        for (int e = b->xadj[k]; e < b->xadj[k + 1]; ++e)
            if (b->place[b->adj[e]] < first)
                first = b->place[b->adj[e]];
        b->lo[q] = first;
    }
    /* column c reaches the last place q with lo[q] <= c (a prefix maximum:
     * lo[q] <= q, but lo is not monotone) */
    int *reach = b->work; /* nb */
    for (int c = 0; c < nb; ++c)
        reach[c] = c;
    for (int q = 0; q < nb; ++q)
        if (q > reach[b->lo[q]])
            reach[b->lo[q]] = q;
    for (int c = 0, far = 0; c < nb; ++c) {
        if (reach[c] > far)
            far = reach[c];
        for (int t = 0; t < 6; ++t)
            b->last[6 * c + t] = 6 * far + 5;
    }
    if (heft_skyline_layout(m, b->last, b->start) == 0 && m > 0)
        return -1;
    b->solve_flops = 4.0 * (double)b->start[m];
    b->lu_flops = 144.0 * (double)n;
    for (int k = 0; k < m; ++k)
        b->lu_flops += 4.0 * (double)(b->last[k] - k) * (double)(b->last[k] - k);
    b->pairs_n = n;
    b->pairs_nb = nb;
    b->ordered = 1;
    return 0;
}

/* A_ii of row i from the structured form (its compliance included; a
 * dense A beside it is not read) */
static double row_diagonal(const heft_mlcp *p, int i) {
    return heft_row_self_coupling(p, i) + p->epsilon[i];
}

/* heft_body_space_fits, with A_ii into diag when it is not NULL, read from
 * known when it is not NULL */
static int fits(const heft_mlcp *p, double least, const double *known, double *diag) {
    const int n = p->n, nb = p->nbodies;
    if (p->rows == NULL || p->epsilon == NULL || nb < 1 || p->bodies == NULL ||
        (double)n < HEFT_BODY_SPACE_ROW_RATIO * 6.0 * (double)nb || !heft_mlcp_structure_valid(p))
        return 0;
    for (int k = 0; k < nb; ++k) {
        const heft_mlcp_body *B = &p->bodies[k];
        double inertia[6];
        if (!(B->inv_mass > 0.0) || !isfinite(B->inv_mass) || !invert_sym3(B->inv_inertia, inertia))
            return 0;
    }
    for (int i = 0; i < n; ++i) {
        const double d = known != NULL ? known[i] : row_diagonal(p, i);
        if (!(p->epsilon[i] > 0.0) || !(p->epsilon[i] >= least * d) || !isfinite(d) ||
            !isfinite(1.0 / p->epsilon[i]))
            return 0;
        if (diag != NULL)
            diag[i] = d;
    }
    return 1;
}

int heft_body_space_fits(const heft_mlcp *p, double least) {
    return fits(p, least, NULL, NULL);
}

int heft_body_space_take(heft_body_space *b, const heft_mlcp *p, double least, const double *known,
                         double *diag) {
    const int n = p->n, nb = p->nbodies;
    if (!fits(p, least, known, diag))
        return 0;
    if (!HEFT_RESERVE(b->mass, b->mass_cap, 7 * (size_t)nb) ||
        !HEFT_RESERVE(b->vel, b->vel_cap, 6 * (size_t)nb))
        return -1;
    for (int k = 0; k < nb; ++k) {
        double *mk = &b->mass[7 * (size_t)k];
        invert_sym3(p->bodies[k].inv_inertia, mk + 1);
        mk[0] = 1.0 / p->bodies[k].inv_mass;
    }
    if (!same_topology(b, p) && order_bodies(b, p) != 0)
        return -1;
    b->p = p;
    b->n = n;
    b->nb = nb;
    b->m = 6 * nb;
    return 1;
}

/* A body pair's run of rows sums into copies of the two bodies' entries of
 * v (at oa and ob, -1: none, the two apart), loaded once and stored once:
 * the same sums, in the same order, as row by row, without a store and a
 * reload per row. */
static inline void run_load(const double *v, int oa, int ob, double va[6], double vb[6]) {
    for (int c = 0; c < 6; ++c) {
        va[c] = oa >= 0 ? v[oa + c] : 0.0;
        vb[c] = ob >= 0 ? v[ob + c] : 0.0;
    }
}

static inline void run_store(double *v, int oa, int ob, const double va[6], const double vb[6]) {
    if (oa >= 0)
        memcpy(&v[oa], va, sizeof(double) * 6);
    if (ob >= 0)
        memcpy(&v[ob], vb, sizeof(double) * 6);
}

/* va += la t, vb += lb t */
static inline void run_add(double va[6], double vb[6], const double la[6], const double lb[6],
                           double t) {
    for (int c = 0; c < 6; ++c) {
        va[c] += la[c] * t;
        vb[c] += lb[c] * t;
    }
}

void heft_body_space_multiply(heft_body_space *b, const double *x, double *y) {
    const heft_mlcp *p = b->p;
    double *vel = b->vel;
    memset(vel, 0, sizeof(double) * (size_t)b->m);
    for (int i = 0; i < b->n;) {
        const int ra = p->rows[i].a, rb = p->rows[i].b;
        const int oa = ra >= 0 ? 6 * ra : -1, ob = rb >= 0 && rb != ra ? 6 * rb : -1;
        double va[6], vb[6];
        run_load(vel, oa, ob, va, vb);
        int j = i;
        if (ra >= 0 && rb >= 0 && ra != rb) { /* the usual run */
            do {
                const double xj = x[j];
                if (xj != 0.0)
                    run_add(va, vb, p->rows[j].ja, p->rows[j].jb, xj);
            } while (++j < b->n && p->rows[j].a == ra && p->rows[j].b == rb);
        } else {
            do {
                const double xj = x[j];
                if (xj == 0.0)
                    continue;
                const heft_mlcp_row *r = &p->rows[j];
                if (ra >= 0)
                    for (int c = 0; c < 6; ++c)
                        va[c] += r->ja[c] * xj;
                if (rb >= 0 && rb == ra)
                    for (int c = 0; c < 6; ++c)
                        va[c] += r->jb[c] * xj;
                else if (rb >= 0)
                    for (int c = 0; c < 6; ++c)
                        vb[c] += r->jb[c] * xj;
            } while (++j < b->n && p->rows[j].a == ra && p->rows[j].b == rb);
        }
        run_store(vel, oa, ob, va, vb);
        i = j;
    }
    for (int k = 0; k < b->nb; ++k) {
        double v[6];
        heft_body_inverse_mass_times(&p->bodies[k], &vel[6 * k], v);
        memcpy(&vel[6 * k], v, sizeof v);
    }
    for (int i = 0; i < b->n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        double yi = p->epsilon[i] * x[i];
        if (r->a >= 0 && r->b >= 0) {
            double da, db;
            heft_dot6_pair(r->ja, &vel[6 * r->a], r->jb, &vel[6 * r->b], &da, &db);
            yi += da;
            yi += db;
        } else if (r->a >= 0) {
            yi += heft_dot6(r->ja, &vel[6 * r->a]);
        } else if (r->b >= 0) {
            yi += heft_dot6(r->jb, &vel[6 * r->b]);
        }
        y[i] = yi;
    }
}

/* Row r's entry through the velocity changes u0 of body k0 and u1 of k1
 * (-1: none). */
static double row_through(const heft_mlcp_row *r, int k0, const double u0[6], int k1,
                          const double u1[6]) {
    double v = 0.0;
    if (r->a >= 0 && r->a == k0)
        v += heft_dot6(r->ja, u0);
    if (r->a >= 0 && r->a == k1)
        v += heft_dot6(r->ja, u1);
    if (r->b >= 0 && r->b == k0)
        v += heft_dot6(r->jb, u0);
    if (r->b >= 0 && r->b == k1)
        v += heft_dot6(r->jb, u1);
    return v;
}

void heft_body_space_add_column(const heft_body_space *b, int j, double c, double *out) {
    const heft_mlcp *p = b->p;
    const heft_mlcp_row *rj = &p->rows[j];
    /* u_k = W_k (row j's Jacobian blocks on body k) */
    const int k0 = rj->a, k1 = rj->b == rj->a ? -1 : rj->b;
    double u0[6] = {0}, u1[6] = {0}, sum[6];
    if (k0 >= 0) {
        for (int t = 0; t < 6; ++t)
            sum[t] = rj->ja[t] + (rj->b == k0 ? rj->jb[t] : 0.0);
        heft_body_inverse_mass_times(&p->bodies[k0], sum, u0);
    }
    if (k1 >= 0)
        heft_body_inverse_mass_times(&p->bodies[k1], rj->jb, u1);
    for (int side = 0; side < 2; ++side) {
        const int k = side == 0 ? k0 : k1;
        if (k < 0)
            continue;
        for (int e = b->rows_start[k]; e < b->rows_start[k + 1]; ++e) {
            const int i = b->rows_of[e];
            const heft_mlcp_row *r = &p->rows[i];
            /* a row on both bodies is taken once, from k0's list */
            if (side == 1 && k0 >= 0 && (r->a == k0 || r->b == k0))
                continue;
            out[i] += c * row_through(r, k0, u0, k1, u1);
        }
    }
    out[j] += c * p->epsilon[j];
}

void heft_body_space_mass(const heft_body_space *b, double *lower, double *upper) {
    /* the inertia xx xy xz yy yz zz at these (row, column) of the angular
     * block, row >= column */
    static const int rows[6] = {0, 1, 2, 1, 2, 2}, cols[6] = {0, 0, 0, 1, 1, 2};
    const size_t stored = b->start[b->m];
    memset(lower, 0, sizeof(double) * stored);
    if (upper != NULL)
        memset(upper, 0, sizeof(double) * stored);
    for (int k = 0; k < b->nb; ++k) {
        const int o = 6 * b->place[k];
        const double *mk = &b->mass[7 * (size_t)k];
        for (int t = 0; t < 3; ++t)
            *heft_body_space_at(b, lower, upper, o + t, o + t) = mk[0];
        for (int e = 0; e < 6; ++e) {
            const int r = o + 3 + rows[e], c = o + 3 + cols[e];
            *heft_body_space_at(b, lower, upper, r, c) = mk[1 + e];
            if (upper != NULL && r != c)
                *heft_body_space_at(b, lower, upper, c, r) = mk[1 + e];
        }
    }
}

/* A row's sides as (body, left vector, Jacobian block), at most two, with
 * a body named twice folded into one side and the static world left out.
 * Returns the number of sides. */
static int sides(const heft_mlcp_row *row, const double la[6], const double lb[6], int body[2],
                 double l[2][6], double j[2][6]) {
    int count = 0;
    if (row->a >= 0) {
        body[count] = row->a;
        for (int t = 0; t < 6; ++t) {
            l[count][t] = la[t] + (row->b == row->a ? lb[t] : 0.0);
            j[count][t] = row->ja[t] + (row->b == row->a ? row->jb[t] : 0.0);
        }
        ++count;
    }
    if (row->b >= 0 && row->b != row->a) {
        body[count] = row->b;
        memcpy(l[count], lb, sizeof(double) * 6);
        memcpy(j[count], row->jb, sizeof(double) * 6);
        ++count;
    }
    return count;
}

/* K += w j^T j for a row on two different bodies or one, the lower half
 * (the symmetric K's assembly, the most frequent call) */
static void add_row_symmetric(const heft_body_space *b, const heft_mlcp_row *row, double w,
                              double *lower) {
    const size_t *start = b->start;
    const double *j1 = row->ja, *j2 = row->jb;
    int o1 = row->a >= 0 ? 6 * b->place[row->a] : -1, o2 = row->b >= 0 ? 6 * b->place[row->b] : -1;
    if (o1 < o2) { /* o1 the later place */
        const int to = o1;
        o1 = o2;
        o2 = to;
        j1 = row->jb;
        j2 = row->ja;
    }
    double w1[6], w2[6];
    for (int t = 0; t < 6; ++t) {
        w1[t] = w * j1[t];
        w2[t] = w * j2[t];
    }
    for (int u = 0; u < 6; ++u) { /* the diagonal blocks, column by column */
        double *c1 = lower + start[o1 + u];
        for (int t = u; t < 6; ++t)
            c1[t - u] += w1[t] * j1[u];
        if (o2 < 0)
            continue;
        double *c2 = lower + start[o2 + u];
        for (int t = u; t < 6; ++t)
            c2[t - u] += w2[t] * j2[u];
        double *cross = lower + start[o2 + u] + (size_t)(o1 - o2 - u);
        for (int t = 0; t < 6; ++t)
            cross[t] += w1[t] * j2[u];
    }
}

/* One row of a run into the run's copies of K's entries (add_pair_rows):
 * each stored entry gets the product add_row_symmetric adds. The diagonal
 * blocks are computed whole, their upper halves thrown away, so that every
 * column is six straight products the compiler can pair into SSE2's. */
static void add_row_to_blocks(const heft_mlcp_row *row, int swap, double w, double d1[6][6],
                              double d2[6][6], double cross[6][6], int two) {
    const double *j1 = swap ? row->jb : row->ja, *j2 = swap ? row->ja : row->jb;
    double w1[6], w2[6];
    for (int t = 0; t < 6; ++t) {
        w1[t] = w * j1[t];
        w2[t] = w * j2[t];
    }
    for (int u = 0; u < 6; ++u)
        for (int t = 0; t < 6; ++t)
            d1[u][t] += w1[t] * j1[u];
    if (!two)
        return;
    for (int u = 0; u < 6; ++u)
        for (int t = 0; t < 6; ++t)
            d2[u][t] += w2[t] * j2[u];
    for (int u = 0; u < 6; ++u)
        for (int t = 0; t < 6; ++t)
            cross[u][t] += w1[t] * j2[u];
}

int heft_body_space_add_pair_rows(const heft_body_space *b, const heft_mlcp *p, int first,
                                  const unsigned char *tight, double *lower) {
    const heft_mlcp_row *rows = p->rows;
    const int a = rows[first].a, c = rows[first].b;
    if (a == c || (a < 0 && c < 0)) {
        if (!tight[first])
            heft_body_space_add_row(b, &rows[first], rows[first].ja, rows[first].jb,
                                    1.0 / p->epsilon[first], lower, NULL);
        return first + 1;
    }
    const size_t *start = b->start;
    int o1 = a >= 0 ? 6 * b->place[a] : -1, o2 = c >= 0 ? 6 * b->place[c] : -1;
    const int swap = o1 < o2; /* o1 the later place, as add_row_symmetric has it */
    if (swap) {
        const int to = o1;
        o1 = o2;
        o2 = to;
    }
    const int two = o2 >= 0;
    /* K's entries the pair touches, copied out once, the run's rows added
     * to the copies in order (each entry gets the same sums, to the bit, as
     * row by row), written back once: the rows of a contact manifold share
     * their two bodies. [u][t]: column u, row t of a block (t >= u kept on
     * the diagonal blocks) */
    double d1[6][6], d2[6][6], cross[6][6];
    for (int u = 0; u < 6; ++u) {
        const double *c1 = lower + start[o1 + u];
        for (int t = u; t < 6; ++t)
            d1[u][t] = c1[t - u];
    }
    if (two)
        for (int u = 0; u < 6; ++u) {
            const double *c2 = lower + start[o2 + u];
            for (int t = u; t < 6; ++t)
                d2[u][t] = c2[t - u];
            const double *cr = lower + start[o2 + u] + (size_t)(o1 - o2 - u);
            for (int t = 0; t < 6; ++t)
                cross[u][t] = cr[t];
        }
    /* the thrown-away halves start defined */
    for (int u = 1; u < 6; ++u)
        for (int t = 0; t < u; ++t)
            d1[u][t] = d2[u][t] = 0.0;
    int i = first;
    for (; i < p->n && rows[i].a == a && rows[i].b == c; ++i)
        if (!tight[i])
            add_row_to_blocks(&rows[i], swap, 1.0 / p->epsilon[i], d1, d2, cross, two);
    for (int u = 0; u < 6; ++u) {
        double *c1 = lower + start[o1 + u];
        for (int t = u; t < 6; ++t)
            c1[t - u] = d1[u][t];
    }
    if (two)
        for (int u = 0; u < 6; ++u) {
            double *c2 = lower + start[o2 + u];
            for (int t = u; t < 6; ++t)
                c2[t - u] = d2[u][t];
            double *cr = lower + start[o2 + u] + (size_t)(o1 - o2 - u);
            for (int t = 0; t < 6; ++t)
                cr[t] = cross[u][t];
        }
    return i;
}

void heft_body_space_add_row(const heft_body_space *b, const heft_mlcp_row *row, const double la[6],
                             const double lb[6], double w, double *lower, double *upper) {
    if (upper == NULL && la == row->ja && lb == row->jb && row->a != row->b &&
        (row->a >= 0 || row->b >= 0)) {
        add_row_symmetric(b, row, w, lower);
        return;
    }
    int body[2];
    double l[2][6], j[2][6];
    const int count = sides(row, la, lb, body, l, j);
    const size_t *start = b->start;
    for (int s1 = 0; s1 < count; ++s1) {
        const int o1 = 6 * b->place[body[s1]];
        double wl[6];
        for (int t = 0; t < 6; ++t)
            wl[t] = w * l[s1][t];
        for (int s2 = 0; s2 < count; ++s2) {
            const int o2 = 6 * b->place[body[s2]];
            const double *j2 = j[s2];
            if (o1 > o2) {
                /* below the diagonal: column o2 + u holds rows o1 .. o1 + 5 */
                for (int u = 0; u < 6; ++u) {
                    double *col = lower + start[o2 + u] + (size_t)(o1 - o2 - u);
                    for (int t = 0; t < 6; ++t)
                        col[t] += wl[t] * j2[u];
                }
            } else if (o1 < o2) {
                if (upper == NULL)
                    continue; /* symmetric: the lower half only */
                /* above: row o1 + t holds columns o2 .. o2 + 5 */
                for (int t = 0; t < 6; ++t) {
                    double *rw = upper + start[o1 + t] + (size_t)(o2 - o1 - t);
                    for (int u = 0; u < 6; ++u)
                        rw[u] += wl[t] * j2[u];
                }
            } else {
                /* the diagonal block: column o1 + u holds rows o1 + u ..
                 * below, row o1 + t columns o1 + t + 1 .. above (each entry
                 * gets its one product, as heft_body_space_at would place it) */
                for (int u = 0; u < 6; ++u) {
                    double *col = lower + start[o1 + u];
                    for (int t = u; t < 6; ++t)
                        col[t - u] += wl[t] * j2[u];
                }
                if (upper != NULL)
                    for (int t = 0; t < 5; ++t) {
                        double *rw = upper + start[o1 + t];
                        for (int u = t + 1; u < 6; ++u)
                            rw[u - t] += wl[t] * j2[u];
                    }
            }
        }
    }
}

void heft_body_space_spread(const heft_body_space *b, const heft_mlcp_row *row, const double la[6],
                            const double lb[6], double t, double *g) {
    if (row->a >= 0) {
        double *ga = &g[6 * b->place[row->a]];
        for (int c = 0; c < 6; ++c)
            ga[c] += la[c] * t;
    }
    if (row->b >= 0) {
        double *gb = &g[6 * b->place[row->b]];
        for (int c = 0; c < 6; ++c)
            gb[c] += lb[c] * t;
    }
}

double heft_body_space_gather(const heft_body_space *b, const heft_mlcp_row *row, const double *v) {
    double s = 0.0;
    if (row->a >= 0 && row->b >= 0) {
        double da, db;
        heft_dot6_pair(row->ja, &v[6 * b->place[row->a]], row->jb, &v[6 * b->place[row->b]], &da,
                       &db);
        s += da;
        s += db;
        return s;
    }
    if (row->a >= 0)
        s += heft_dot6(row->ja, &v[6 * b->place[row->a]]);
    if (row->b >= 0)
        s += heft_dot6(row->jb, &v[6 * b->place[row->b]]);
    return s;
}

/* y[e] -= a[e] b for e in [from, to], two at a time where SSE2 is there
 * (each entry's product and difference are the scalar loop's: the
 * compiler's cheap vectorization at -O2 leaves this loop scalar) */
static inline void sub_scaled(double *restrict y, const double *restrict a, double b, int from,
                              int to) {
    if (b == 0.0)
        return;
    int e = from;
#if defined(__SSE2__)
    const __m128d v = _mm_set1_pd(b);
    for (; e + 1 <= to; e += 2)
        _mm_storeu_pd(&y[e], _mm_sub_pd(_mm_loadu_pd(&y[e]), _mm_mul_pd(_mm_loadu_pd(&a[e]), v)));
#endif
    for (; e <= to; ++e)
        y[e] -= a[e] * b;
}

/* The pivots of a panel: a body's six coordinates. K's skyline steps only
 * at a body's first coordinate, so a panel on one body hands its six
 * updates to each trailing column over the same rows, in one pass. */
#define LU_PANEL 6

/* The passes below give y[e] = (...(y[e] - a[0][s + e] b[0]) ...) -
 * a[n-1][s + e] b[n-1] for e in [from, to] (s the shift from y's
 * indices to the sources'): n pivots' updates of one column or row in one
 * pass over it, each product and difference rounded as when the pivots
 * come one after the other (a product, then a difference: no fused
 * multiply-add, two or four entries at a time as sub_scaled). */
typedef void sub_scaled_six_fn(double *restrict y, const double *const *a, int s, const double *b,
                               int from, int to);

/* the pass of fewer pivots (a zero multiplier left out, a panel's end) */
static void sub_scaled_n(double *restrict y, const double *const *a, int s, const double *b, int n,
                         int from, int to) {
    int e = from;
#if defined(__SSE2__)
    for (; e + 1 <= to; e += 2) {
        __m128d v = _mm_loadu_pd(&y[e]);
        for (int i = 0; i < n; ++i)
            v = _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(&a[i][s + e]), _mm_set1_pd(b[i])));
        _mm_storeu_pd(&y[e], v);
    }
#endif
    for (; e <= to; ++e) {
        double v = y[e];
        for (int i = 0; i < n; ++i)
            v -= a[i][s + e] * b[i];
        y[e] = v;
    }
}

/* the pass of a full panel, the common one */
static void sub_scaled_six(double *restrict y, const double *const *a, int s, const double *b,
                           int from, int to) {
    int e = from;
#if defined(__SSE2__)
    const double *a0 = a[0] + s, *a1 = a[1] + s, *a2 = a[2] + s, *a3 = a[3] + s, *a4 = a[4] + s,
                 *a5 = a[5] + s;
    const __m128d v0 = _mm_set1_pd(b[0]), v1 = _mm_set1_pd(b[1]), v2 = _mm_set1_pd(b[2]),
                  v3 = _mm_set1_pd(b[3]), v4 = _mm_set1_pd(b[4]), v5 = _mm_set1_pd(b[5]);
    for (; e + 1 <= to; e += 2) {
        __m128d v = _mm_sub_pd(_mm_loadu_pd(&y[e]), _mm_mul_pd(_mm_loadu_pd(&a0[e]), v0));
        v = _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(&a1[e]), v1));
        v = _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(&a2[e]), v2));
        v = _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(&a3[e]), v3));
        v = _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(&a4[e]), v4));
        _mm_storeu_pd(&y[e], _mm_sub_pd(v, _mm_mul_pd(_mm_loadu_pd(&a5[e]), v5)));
    }
#endif
    sub_scaled_n(y, a, s, b, LU_PANEL, e, to); /* the rest, the same products */
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define LU_AVX 1
/* ... four entries at a time where the processor has AVX (the target
 * attribute enables AVX alone: the compiler cannot fuse a product and a
 * difference into an FMA) */
__attribute__((target("avx"))) static void sub_scaled_six_avx(double *restrict y,
                                                              const double *const *a, int s,
                                                              const double *b, int from, int to) {
    const double *a0 = a[0] + s, *a1 = a[1] + s, *a2 = a[2] + s, *a3 = a[3] + s, *a4 = a[4] + s,
                 *a5 = a[5] + s;
    int e = from;
    const __m256d v0 = _mm256_set1_pd(b[0]), v1 = _mm256_set1_pd(b[1]), v2 = _mm256_set1_pd(b[2]),
                  v3 = _mm256_set1_pd(b[3]), v4 = _mm256_set1_pd(b[4]), v5 = _mm256_set1_pd(b[5]);
    for (; e + 3 <= to; e += 4) {
        __m256d v =
            _mm256_sub_pd(_mm256_loadu_pd(&y[e]), _mm256_mul_pd(_mm256_loadu_pd(&a0[e]), v0));
        v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(&a1[e]), v1));
        v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(&a2[e]), v2));
        v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(&a3[e]), v3));
        v = _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(&a4[e]), v4));
        _mm256_storeu_pd(&y[e], _mm256_sub_pd(v, _mm256_mul_pd(_mm256_loadu_pd(&a5[e]), v5)));
    }
    /* The upper halves of the registers zeroed before any SSE2 code runs:
     * gcc put no vzeroupper before the call below nor at the return, and
     * with the halves left in use every later SSE2 instruction of the
     * thread paid for them (a settled step of the base-10 pyramid, after a
     * landing that ran this, took 2.7 times as long). */
    _mm256_zeroupper();
    sub_scaled_n(y, a, s, b, LU_PANEL, e, to); /* the last one to three entries */
}
#endif

/* Entries from..end[i] of y get the updates of sources i..n-1 (the ends
 * do not decrease with i): each entry its sources' updates in their
 * order, the rows past a source's reach without it. */
static void sub_sources(double *y, const double *const *a, int s, const double *b, int n, int from,
                        const int *end, sub_scaled_six_fn *six) {
    for (int i = 0; i < n; ++i) {
        if (end[i] >= from) {
            if (n - i == LU_PANEL)
                six(y, a + i, s, b + i, from, end[i]);
            else
                sub_scaled_n(y, a + i, s, b + i, n - i, from, end[i]);
            from = end[i] + 1;
        }
    }
}

/* Pivot k, its column and row having every earlier pivot's update: the
 * test of it, then L's column k divided by it. 0, or -1 when rejected. */
static int lu_pivot(const heft_body_space *b, double *lower, const double *upper, int k) {
    double *lk = lower + b->start[k];
    const double *uk = upper + b->start[k];
    const int len = b->last[k] - k;
    double size = fabs(lk[0]);
    /* NaN compares false: a NaN in U makes size NaN until an entry after
     * it replaces it, a NaN in L beside a number in U is passed over */
    for (int t = 1; t <= len; ++t) {
        double a = fabs(lk[t]);
        if (!(fabs(uk[t]) <= a))
            a = fabs(uk[t]);
        if (!(a <= size))
            size = a;
    }
    if (!isfinite(lk[0]) || !isfinite(size) || !(fabs(lk[0]) > 1e-13 * size))
        return -1;
    const double inv = 1.0 / lk[0];
    for (int t = 1; t <= len; ++t)
        lk[t] *= inv;
    return 0;
}

/* The updates of pivots k0..k0+count-1 (factored) on the columns and rows
 * from k1 on: for each, the pivots reaching it (a suffix of them, their
 * reaches not decreasing) in one pass. A zero multiplier is no update, as
 * in the plain loop (its product would not always leave the entry as it
 * is: zero times an infinity is NaN). */
static void lu_trailing(const heft_body_space *b, double *lower, double *upper, int k0, int count,
                        int k1, sub_scaled_six_fn *six) {
    const int *last = b->last;
    const size_t *start = b->start;
    if (count == 0)
        return;
    const double *lp[LU_PANEL], *up[LU_PANEL];
    for (int j = 0; j < count; ++j) { /* column and row k0 + j, indexed by row or column */
        lp[j] = lower + start[k0 + j] - (k0 + j);
        up[j] = upper + start[k0 + j] - (k0 + j);
    }
    /* the usual panel: six pivots reaching the same rows */
    const int same = count == LU_PANEL && last[k0] == last[k0 + count - 1];
    for (int c = k1, first = 0; c <= last[k0 + count - 1]; ++c) {
        if (same) {
            double bl[LU_PANEL], bu[LU_PANEL];
            int zero = 0;
            for (int j = 0; j < LU_PANEL; ++j) {
                bl[j] = up[j][c];
                bu[j] = lp[j][c];
                zero |= (bl[j] == 0.0) | (bu[j] == 0.0);
            }
            if (!zero) {
                six(lower + start[c], lp, c, bl, 0, last[k0] - c);
                six(upper + start[c], up, c, bu, 1, last[k0] - c);
                continue;
            }
        }
        while (last[k0 + first] < c)
            ++first;
        const double *al[LU_PANEL], *au[LU_PANEL];
        double bl[LU_PANEL], bu[LU_PANEL];
        int el[LU_PANEL], eu[LU_PANEL], nl = 0, nu = 0;
        for (int j = first; j < count; ++j) {
            const double l = lp[j][c], u = up[j][c];
            const int end = last[k0 + j] - c;
            if (u != 0.0) { /* L(r, k) U(k, c) off column c */
                al[nl] = lp[j];
                bl[nl] = u;
                el[nl++] = end;
            }
            if (l != 0.0) { /* U(k, r) L(c, k) off row c */
                au[nu] = up[j];
                bu[nu] = l;
                eu[nu++] = end;
            }
        }
        sub_sources(lower + start[c], al, c, bl, nl, 0, el, six);
        sub_sources(upper + start[c], au, c, bu, nu, 1, eu, six);
    }
}

/* Right-looking, a panel of pivots at a time: each pivot's update goes at
 * once to the panel's later columns and rows (the next pivots need it),
 * and after the panel, to the columns and rows past it in one pass each.
 * Every entry gets the same products and differences, in pivot order, as
 * from one pivot at a time, so the factors have the same bits. */
int heft_body_space_lu_wide(const heft_body_space *b, double *lower, double *upper, int wide) {
    const int m = b->m;
    const int *last = b->last;
    const size_t *start = b->start;
    sub_scaled_six_fn *six = sub_scaled_six;
#if defined(LU_AVX)
    if (wide && __builtin_cpu_supports("avx"))
        six = sub_scaled_six_avx;
#else
    (void)wide;
#endif
    for (int k0 = 0; k0 < m; k0 += LU_PANEL) {
        const int k1 = k0 + LU_PANEL < m ? k0 + LU_PANEL : m;
        for (int k = k0; k < k1; ++k) {
            if (lu_pivot(b, lower, upper, k) != 0) {
                /* leave K as one pivot at a time would */
                lu_trailing(b, lower, upper, k0, k - k0, k1, six);
                return -1;
            }
            double *lk = lower + start[k];
            const double *uk = upper + start[k];
            const int len = last[k] - k;
            for (int c = k + 1; c < k1 && c <= last[k]; ++c) {
                const int t = c - k;
                sub_scaled(lower + start[c], lk + t, uk[t], 0, len - t);
                sub_scaled(upper + start[c], uk + t, lk[t], 1, len - t);
            }
        }
        lu_trailing(b, lower, upper, k0, k1 - k0, k1, six);
    }
    return 0;
}

int heft_body_space_lu(const heft_body_space *b, double *lower, double *upper) {
    return heft_body_space_lu_wide(b, lower, upper, 1);
}

void heft_body_space_lu_solve(const heft_body_space *b, const double *lower, const double *upper,
                              double *x) {
    const int m = b->m;
    const int *last = b->last;
    const size_t *start = b->start;
    for (int k = 0; k < m; ++k)
        sub_scaled(x + k, lower + start[k], x[k], 1, last[k] - k);
    for (int k = m - 1; k >= 0; --k) {
        const double *uk = upper + start[k];
        double sum = x[k];
        for (int t = 1; t <= last[k] - k; ++t)
            sum -= uk[t] * x[k + t];
        x[k] = sum / lower[start[k]];
    }
}

/* the refinement of heft_body_space_solve: rounds at most, where it stops,
 * what it must reach, and the least gain a round before it counts as
 * stalled (all relative to |g| + max (1 + shift) A_ii |x|) */
#define SOLVE_REFINE_MAX 6
#define SOLVE_REFINE_DONE 1e-15
#define SOLVE_REFINE_ACCEPT 1e-13
#define SOLVE_REFINE_GAIN 0.25

static int reserve_solve(heft_body_space *b) {
    const size_t n = (size_t)b->n, m = (size_t)b->m, stored = b->start[b->m];
    return HEFT_RESERVE(b->K_lower, b->K_lower_cap, stored) &&
           HEFT_RESERVE(b->K_upper, b->K_upper_cap, stored) &&
           HEFT_RESERVE(b->left, b->left_cap, 12 * n) && HEFT_RESERVE(b->inv_e, b->inv_e_cap, n) &&
           HEFT_RESERVE(b->bg, b->bg_cap, m) && HEFT_RESERVE(b->bz, b->bz_cap, n) &&
           HEFT_RESERVE(b->by, b->by_cap, n) && HEFT_RESERVE(b->r0, b->r0_cap, n) &&
           HEFT_RESERVE(b->res, b->res_cap, n) && HEFT_RESERVE(b->sol, b->sol_cap, n) &&
           HEFT_RESERVE(b->bd, b->bd_cap, n);
}

/* bg = K^-1 bg, K = chol's K + U V^T by the Woodbury identity (the terms
 * in wood_*), or the unsymmetric LU in K_lower and K_upper (chol NULL) */
static void solve_k(heft_body_space *b, const double *chol) {
    if (chol == NULL) {
        heft_body_space_lu_solve(b, b->K_lower, b->K_upper, b->bg);
        return;
    }
    heft_skyline k = {b->m, b->last, b->start, (double *)chol};
    heft_skyline_solve(k, NULL, b->bg);
    const int wk = b->wood_k;
    if (wk == 0)
        return;
    const heft_mlcp *p = b->p;
    for (int q = 0; q < wk; ++q)
        b->wood_t[q] = heft_body_space_gather(b, &p->rows[b->wood_rows[q]], b->bg);
    heft_bpp_lu_solve(b->wood_s, wk, b->wood_pivot, b->wood_t);
    for (int q = 0; q < wk; ++q) {
        const double *z = &b->wood_z[(size_t)q * (size_t)b->m];
        for (int r = 0; r < b->m; ++r)
            b->bg[r] -= z[r] * b->wood_t[q];
    }
}

/* The Woodbury terms of K + U V^T on chol's K: Z = K^-1 U, S = I + V^T Z
 * and its LU. 0, 1 when S is singular, -1 when out of memory. */
static int woodbury_terms(heft_body_space *b, const double *chol, int k) {
    const heft_mlcp *p = b->p;
    const size_t m = (size_t)b->m, uk = (size_t)k;
    if (!HEFT_RESERVE(b->wood_rows, b->wood_rows_cap, uk) ||
        !HEFT_RESERVE(b->wood_pivot, b->wood_pivot_cap, uk) ||
        !HEFT_RESERVE(b->wood_z, b->wood_z_cap, uk * m) ||
        !HEFT_RESERVE(b->wood_s, b->wood_s_cap, uk * uk) ||
        !HEFT_RESERVE(b->wood_t, b->wood_t_cap, uk))
        return -1;
    heft_skyline sk = {b->m, b->last, b->start, (double *)chol};
    int q = 0;
    for (int f = 0; f < b->n; ++f) {
        if (b->bz[f] == 0.0) /* marked below: a coupled normal row */
            continue;
        const heft_mlcp_row *rf = &p->rows[f];
        const double *l = &b->left[12 * (size_t)f];
        double la[6], lb[6];
        for (int c = 0; c < 6; ++c) {
            la[c] = l[c] - rf->ja[c];
            lb[c] = l[6 + c] - rf->jb[c];
        }
        double *z = &b->wood_z[(size_t)q * m];
        memset(z, 0, sizeof(double) * m);
        heft_body_space_spread(b, rf, la, lb, b->inv_e[f], z);
        heft_skyline_solve(sk, NULL, z);
        b->wood_rows[q++] = f;
    }
    for (int r = 0; r < k; ++r)
        for (int c = 0; c < k; ++c)
            b->wood_s[(size_t)r * uk + (size_t)c] =
                (r == c ? 1.0 : 0.0) +
                heft_body_space_gather(b, &p->rows[b->wood_rows[r]], &b->wood_z[(size_t)c * m]);
    b->wood_k = k;
    return heft_bpp_lu_factor(b->wood_s, k, b->wood_pivot) ? 0 : 1;
}

/* Row i's left vector on its side a (side 0) or b (1): the folded copy
 * when friction rows were folded in, else the row's own Jacobian block. */
static inline const double *left_of(const heft_body_space *b, int i, int side) {
    if (b->folded)
        return &b->left[12 * (size_t)i + 6 * (size_t)side];
    return side == 0 ? b->p->rows[i].ja : b->p->rows[i].jb;
}

/* The rows from first on that share its two bodies, those not out, into
 * K's lower and upper halves (the LU's assembly): the entries the pair
 * touches are copied out once, each row's products added to the copies in
 * row order and the copies written back, so that every entry gets the same
 * sums, to the bit, as from heft_body_space_add_row row by row. A row of
 * both sides on one body, or on none, goes alone. Returns the first row
 * after the run. [t][u]: row t, column u of a block. */
static int add_run_lu(const heft_body_space *b, const unsigned char *out, int first, double *lower,
                      double *upper) {
    const heft_mlcp *p = b->p;
    const heft_mlcp_row *rows = p->rows;
    const int a = rows[first].a, c = rows[first].b;
    if (a == c || (a < 0 && c < 0)) {
        if (!out[first])
            heft_body_space_add_row(b, &rows[first], left_of(b, first, 0), left_of(b, first, 1),
                                    b->inv_e[first], lower, upper);
        return first + 1;
    }
    const size_t *start = b->start;
    /* h: the side at the later place (its body's blocks below the other's) */
    const int oa = a >= 0 ? 6 * b->place[a] : -1, oc = c >= 0 ? 6 * b->place[c] : -1;
    const int h = oc > oa, oh = h ? oc : oa, ol = h ? oa : oc, two = ol >= 0;
    double dh[6][6], dl[6][6], lo[6][6], up[6][6];
    for (int t = 0; t < 6; ++t)
        for (int u = 0; u < 6; ++u) {
            dh[t][u] = t >= u ? lower[start[oh + u] + (size_t)(t - u)]
                              : upper[start[oh + t] + (size_t)(u - t)];
            if (!two)
                continue;
            dl[t][u] = t >= u ? lower[start[ol + u] + (size_t)(t - u)]
                              : upper[start[ol + t] + (size_t)(u - t)];
            lo[t][u] = lower[start[ol + u] + (size_t)(oh - ol - u + t)];
            up[t][u] = upper[start[ol + t] + (size_t)(oh - ol - t + u)];
        }
    int i = first;
    for (; i < p->n && rows[i].a == a && rows[i].b == c; ++i) {
        if (out[i])
            continue;
        const double w = b->inv_e[i];
        const double *lh = left_of(b, i, h), *jh = h ? rows[i].jb : rows[i].ja;
        double wh[6];
        for (int t = 0; t < 6; ++t)
            wh[t] = w * lh[t];
        for (int t = 0; t < 6; ++t)
            for (int u = 0; u < 6; ++u)
                dh[t][u] += wh[t] * jh[u];
        if (!two)
            continue;
        const double *ll = left_of(b, i, !h), *jl = h ? rows[i].ja : rows[i].jb;
        double wl[6];
        for (int t = 0; t < 6; ++t)
            wl[t] = w * ll[t];
        for (int t = 0; t < 6; ++t)
            for (int u = 0; u < 6; ++u) {
                dl[t][u] += wl[t] * jl[u];
                lo[t][u] += wh[t] * jl[u];
                up[t][u] += wl[t] * jh[u];
            }
    }
    for (int t = 0; t < 6; ++t)
        for (int u = 0; u < 6; ++u) {
            if (t >= u)
                lower[start[oh + u] + (size_t)(t - u)] = dh[t][u];
            else
                upper[start[oh + t] + (size_t)(u - t)] = dh[t][u];
            if (!two)
                continue;
            if (t >= u)
                lower[start[ol + u] + (size_t)(t - u)] = dl[t][u];
            else
                upper[start[ol + t] + (size_t)(u - t)] = dl[t][u];
            lower[start[ol + u] + (size_t)(oh - ol - u + t)] = lo[t][u];
            upper[start[ol + t] + (size_t)(oh - ol - t + u)] = up[t][u];
        }
    return i;
}

/* d_F = approximately the solve of res_F through K (its factor in hand) */
static void solve_correction(heft_body_space *b, const unsigned char *out, const double *chol,
                             const double *res, double *d) {
    const heft_mlcp *p = b->p;
    double *g = b->bg;
    memset(g, 0, sizeof(double) * (size_t)b->m);
    for (int i = 0; i < b->n;) {
        const int ra = p->rows[i].a, rb = p->rows[i].b;
        if (ra == rb) {
            if (!out[i] && res[i] != 0.0)
                heft_body_space_spread(b, &p->rows[i], left_of(b, i, 0), left_of(b, i, 1),
                                       res[i] * b->inv_e[i], g);
            ++i;
            continue;
        }
        /* a pair's run into copies of its bodies' entries */
        const int oa = ra >= 0 ? 6 * b->place[ra] : -1, ob = rb >= 0 ? 6 * b->place[rb] : -1;
        double ga[6], gb[6];
        run_load(g, oa, ob, ga, gb);
        int j = i;
        do {
            if (!out[j] && res[j] != 0.0)
                run_add(ga, gb, left_of(b, j, 0), left_of(b, j, 1), res[j] * b->inv_e[j]);
        } while (++j < b->n && p->rows[j].a == ra && p->rows[j].b == rb);
        run_store(g, oa, ob, ga, gb);
        i = j;
    }
    solve_k(b, chol);
    for (int i = 0; i < b->n; ++i)
        d[i] =
            out[i] ? 0.0 : (res[i] - heft_body_space_gather(b, &p->rows[i], b->bg)) * b->inv_e[i];
}

/* y_F = (A_FF + C + shift diag) x_F, zero off F */
static void solve_product(heft_body_space *b, const unsigned char *out, const double *kappa,
                          double shift, const double *diag, const double *x, double *y) {
    const heft_mlcp *p = b->p;
    for (int i = 0; i < b->n; ++i)
        b->bz[i] = out[i] ? 0.0 : x[i];
    if (kappa != NULL)
        for (int t = 0; t < b->n; ++t)
            if (kappa[t] != 0.0)
                b->bz[t] = kappa[t] * x[p->findex[t]];
    heft_body_space_multiply(b, b->bz, y);
    for (int i = 0; i < b->n; ++i)
        y[i] = out[i] ? 0.0 : y[i] + shift * diag[i] * x[i];
}

/* the largest |x_i| off out; NaN when one is NaN */
static double max_abs_in(const unsigned char *out, const double *x, int n) {
    double m = 0.0;
    for (int i = 0; i < n; ++i)
        if (!out[i] && !(fabs(x[i]) <= m))
            m = isnan(x[i]) ? NAN : fabs(x[i]);
    return m;
}

int heft_body_space_solve(heft_body_space *b, const unsigned char *out, const double *kappa,
                          double shift, const double *diag, const double *chol, const double *g,
                          double *x) {
    const heft_mlcp *p = b->p;
    const int n = b->n;
    b->used_lu = 0;
    if (!reserve_solve(b))
        return -1;
    /* the left vectors are copied only when friction rows fold into them */
    b->folded = 0;
    for (int t = 0; kappa != NULL && t < n && !b->folded; ++t)
        b->folded = kappa[t] != 0.0;
    for (int i = 0; i < n; ++i) {
        if (out[i])
            continue;
        if (b->folded) {
            memcpy(&b->left[12 * (size_t)i], p->rows[i].ja, sizeof(double) * 6);
            memcpy(&b->left[12 * (size_t)i + 6], p->rows[i].jb, sizeof(double) * 6);
        }
        b->inv_e[i] = 1.0 / (p->epsilon[i] + shift * diag[i]);
    }
    for (int t = 0; kappa != NULL && t < n; ++t) {
        if (kappa[t] == 0.0)
            continue;
        const int f = p->findex[t];
        const heft_mlcp_row *rt = &p->rows[t], *rf = &p->rows[f];
        if (rt->a != rf->a || rt->b != rf->b || out[f])
            return 1;
        double *l = &b->left[12 * (size_t)f];
        for (int c = 0; c < 6; ++c) {
            l[c] += kappa[t] * rt->ja[c];
            l[6 + c] += kappa[t] * rt->jb[c];
        }
    }
    /* the coupled normal rows, marked in bz (the product's scratch) */
    int k = 0;
    memset(b->bz, 0, sizeof(double) * (size_t)n);
    for (int t = 0; kappa != NULL && t < n; ++t)
        if (kappa[t] != 0.0 && b->bz[p->findex[t]] == 0.0) {
            b->bz[p->findex[t]] = 1.0;
            ++k;
        }
    const double kk = (double)k;
    if (chol != NULL && (kk + 2.0) * b->solve_flops + kk * kk * kk < b->lu_flops) {
        b->wood_k = 0;
        const int rc = k > 0 ? woodbury_terms(b, chol, k) : 0;
        if (rc != 0)
            return rc;
    } else {
        chol = NULL;
        b->used_lu = 1;
        heft_body_space_mass(b, b->K_lower, b->K_upper);
        for (int i = 0; i < n;)
            i = add_run_lu(b, out, i, b->K_lower, b->K_upper);
        if (heft_body_space_lu(b, b->K_lower, b->K_upper) != 0)
            return 1;
    }
    double dmax = 0.0;
    for (int i = 0; i < n; ++i) {
        b->r0[i] = b->res[i] = out[i] ? 0.0 : g[i];
        b->sol[i] = 0.0;
        if (!out[i] && (1.0 + shift) * diag[i] > dmax)
            dmax = (1.0 + shift) * diag[i];
    }
    const double gnorm = max_abs_in(out, b->r0, n);
    double prev = gnorm, scaled = INFINITY;
    for (int it = 0; it < SOLVE_REFINE_MAX; ++it) {
        solve_correction(b, out, chol, b->res, b->bd);
        for (int i = 0; i < n; ++i)
            b->sol[i] += b->bd[i];
        solve_product(b, out, kappa, shift, diag, b->sol, b->by);
        for (int i = 0; i < n; ++i)
            b->res[i] = out[i] ? 0.0 : b->r0[i] - b->by[i];
        const double rn = max_abs_in(out, b->res, n);
        const double scale = gnorm + dmax * max_abs_in(out, b->sol, n);
        if (!isfinite(rn) || !isfinite(scale)) {
            scaled = INFINITY; /* never the last round's score for this iterate */
            break;
        }
        scaled = scale > 0.0 ? rn / scale : 0.0;
        if (scaled <= SOLVE_REFINE_DONE || rn > SOLVE_REFINE_GAIN * prev)
            break;
        prev = rn;
    }
    if (!(scaled <= SOLVE_REFINE_ACCEPT))
        return 1;
    memcpy(x, b->sol, sizeof(double) * (size_t)n);
    return 0;
}

void heft_body_space_forget(heft_body_space *b) {
    b->ordered = 0;
}

void heft_body_space_release(heft_body_space *b) {
    void *arrays[] = {b->pairs,     b->place,      b->order,   b->rows_start, b->rows_of, b->xadj,
                      b->adj,       b->work,       b->lo,      b->last,       b->start,   b->mass,
                      b->vel,       b->K_lower,    b->K_upper, b->left,       b->inv_e,   b->bg,
                      b->bz,        b->by,         b->r0,      b->res,        b->sol,     b->bd,
                      b->wood_rows, b->wood_pivot, b->wood_z,  b->wood_s,     b->wood_t};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
    memset(b, 0, sizeof *b);
}
