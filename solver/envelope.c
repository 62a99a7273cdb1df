/* Heft: A assembled into skyline storage (envelope.h). */
#include <string.h>

#include "envelope.h"
#include "workspace.h"
#include "row_math.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Component j of entry e in the component-major arrays (envelope.h). */
#define ENTRY(array, j, e) ((array)[(size_t)(j)*cap + (size_t)(e)])

/* A = J M^-1 J^T + diag(epsilon) into the envelope, body by body: two rows
 * touching one body couple through it (the only place J M^-1 J^T is nonzero),
 * and each pair lands in column min(r1, r2) of the RCM order. Each body's
 * entries (a row's side on it: its J and M^-1 J^T) are laid out in RCM
 * order, so the pairs with r2 <= r1 are a triangle of the body's block,
 * walked column by column without a test. The six components of the
 * entries are stored component-major, so that the products of one column's
 * entry with two consecutive entries are computed side by side (SSE2), each
 * summed over the six components in the order of heft_dot6: A is the same
 * to the bit as one product at a time. They are written for one body at a
 * time into a buffer of the largest body's entries, which stays in cache
 * (for every entry of the island at once, 23 KB on a 120-row stack, they
 * were a cache miss each step). A row with both sides on one body
 * contributes all four side pairs, as heft_mlcp_assemble_dense does. */
static int assemble_structured(const heft_mlcp *p, const heft_ordering *o, const size_t *start,
                               double *A, heft_envelope_work *s) {
    const int n = p->n, nb = p->nbodies > 0 ? p->nbodies : 0;
    if (!HEFT_RESERVE(s->body_start, s->body_start_cap, (size_t)nb + 1) ||
        !HEFT_RESERVE(s->body_entries, s->body_entries_cap, 2 * (size_t)n + 1))
        return -1;
    for (int k = 0; k <= nb; ++k)
        s->body_start[k] = 0;
    for (int i = 0; i < n; ++i) {
        const int32_t a = heft_row_body(p, p->rows[i].a), b = heft_row_body(p, p->rows[i].b);
        if (a >= 0)
            s->body_start[a + 1]++;
        if (b >= 0)
            s->body_start[b + 1]++;
    }
    int most = 0;
    for (int k = 0; k < nb; ++k) {
        const int count = s->body_start[k + 1];
        most = count > most ? count : most;
        s->body_start[k + 1] += s->body_start[k];
    }
    const int *perm = o->perm;
    for (int r = 0; r < n; ++r) { /* in RCM order; the starts move on by one body */
        const heft_mlcp_row *row = &p->rows[perm[r]];
        const int32_t side[2] = {heft_row_body(p, row->a), heft_row_body(p, row->b)};
        for (int e = 0; e < 2; ++e)
            if (side[e] >= 0)
                s->body_entries[s->body_start[side[e]]++] = 2 * r + e;
    }
    for (int k = nb; k > 0; --k)
        s->body_start[k] = s->body_start[k - 1];
    s->body_start[0] = 0;
    /* one body's entries at a time: the row, J and M^-1 J^T, component-major */
    const size_t cap = (size_t)most + 2;
    if (!HEFT_RESERVE(s->jacobian, s->jacobian_cap, 6 * cap) ||
        !HEFT_RESERVE(s->response, s->response_cap, 6 * cap) ||
        !HEFT_RESERVE(s->entry_row, s->entry_row_cap, cap))
        return -1;
    double *J = s->jacobian, *R = s->response;
    int *entry_row = s->entry_row;

    memset(A, 0, sizeof(double) * start[n]);
    for (int body = 0; body < nb; ++body) {
        const int begin = s->body_start[body], end = s->body_start[body + 1] - begin;
        for (int e = 0; e < end; ++e) {
            const int code = s->body_entries[begin + e], r = code >> 1;
            const heft_mlcp_row *row = &p->rows[perm[r]];
            const double *jac = (code & 1) ? row->jb : row->ja;
            double response[6];
            heft_body_inverse_mass_times(&p->bodies[body], jac, response);
            entry_row[e] = r;
            ENTRY(J, 0, e) = jac[0];
            ENTRY(J, 1, e) = jac[1];
            ENTRY(J, 2, e) = jac[2];
            ENTRY(J, 3, e) = jac[3];
            ENTRY(J, 4, e) = jac[4];
            ENTRY(J, 5, e) = jac[5];
            ENTRY(R, 0, e) = response[0];
            ENTRY(R, 1, e) = response[1];
            ENTRY(R, 2, e) = response[2];
            ENTRY(R, 3, e) = response[3];
            ENTRY(R, 4, e) = response[4];
            ENTRY(R, 5, e) = response[5];
        }
        /* column r2 outer, rows r1 >= r2 inner: the writes go down one column */
        for (int e2 = 0; e2 < end; ++e2) {
            const int r2 = entry_row[e2];
            double *col = &A[start[r2]];
            const double y0 = ENTRY(R, 0, e2), y1 = ENTRY(R, 1, e2), y2 = ENTRY(R, 2, e2),
                         y3 = ENTRY(R, 3, e2), y4 = ENTRY(R, 4, e2), y5 = ENTRY(R, 5, e2);
            int e1 = e2;
#if defined(__SSE2__)
            const __m128d v0 = _mm_set1_pd(y0), v1 = _mm_set1_pd(y1), v2 = _mm_set1_pd(y2),
                          v3 = _mm_set1_pd(y3), v4 = _mm_set1_pd(y4), v5 = _mm_set1_pd(y5);
            for (; e1 + 2 <= end; e1 += 2) {
                __m128d d = _mm_mul_pd(_mm_loadu_pd(&ENTRY(J, 0, e1)), v0);
                d = _mm_add_pd(d, _mm_mul_pd(_mm_loadu_pd(&ENTRY(J, 1, e1)), v1));
                d = _mm_add_pd(d, _mm_mul_pd(_mm_loadu_pd(&ENTRY(J, 2, e1)), v2));
                d = _mm_add_pd(d, _mm_mul_pd(_mm_loadu_pd(&ENTRY(J, 3, e1)), v3));
                d = _mm_add_pd(d, _mm_mul_pd(_mm_loadu_pd(&ENTRY(J, 4, e1)), v4));
                d = _mm_add_pd(d, _mm_mul_pd(_mm_loadu_pd(&ENTRY(J, 5, e1)), v5));
                const int o0 = entry_row[e1] - r2, o1 = entry_row[e1 + 1] - r2;
                if (o1 == o0 + 1) {
                    /* neighbouring rows (a contact's rows are neighbours in
                     * the RCM order): both sums in one addition, each lane
                     * the scalar one */
                    _mm_storeu_pd(col + o0, _mm_add_pd(_mm_loadu_pd(col + o0), d));
                } else {
                    double two[2];
                    _mm_storeu_pd(two, d);
                    col[o0] += two[0];
                    col[o1] += two[1];
                }
            }
#endif
            for (; e1 < end; ++e1)
                col[entry_row[e1] - r2] += ENTRY(J, 0, e1) * y0 + ENTRY(J, 1, e1) * y1 +
                                           ENTRY(J, 2, e1) * y2 + ENTRY(J, 3, e1) * y3 +
                                           ENTRY(J, 4, e1) * y4 + ENTRY(J, 5, e1) * y5;
            /* the other side of a row with both sides on this body (its two
             * entries are neighbours), added after the first as
             * heft_mlcp_assemble_dense adds them */
            if (e2 + 1 < end && entry_row[e2 + 1] == r2)
                col[0] +=
                    ENTRY(J, 0, e2) * ENTRY(R, 0, e2 + 1) + ENTRY(J, 1, e2) * ENTRY(R, 1, e2 + 1) +
                    ENTRY(J, 2, e2) * ENTRY(R, 2, e2 + 1) + ENTRY(J, 3, e2) * ENTRY(R, 3, e2 + 1) +
                    ENTRY(J, 4, e2) * ENTRY(R, 4, e2 + 1) + ENTRY(J, 5, e2) * ENTRY(R, 5, e2 + 1);
        }
    }
    if (p->epsilon != NULL)
        for (int i = 0; i < n; ++i)
            A[start[o->inverse[i]]] += p->epsilon[i];
    return 0;
}

/* The envelope of p->A in the RCM order; the ordering came from A's own
 * pattern, so no nonzero lies outside. The lower triangle is read. */
static void gather_dense(const heft_mlcp *p, const heft_ordering *o, const size_t *start,
                         double *values) {
    const int n = p->n;
    const size_t un = (size_t)n;
    const int *perm = o->perm, *last = o->last;
    for (int k = 0; k < n; ++k) {
        const int j = perm[k];
        double *col = &values[start[k]];
        for (int r = k; r <= last[k]; ++r) {
            const int i = perm[r];
            col[r - k] = i >= j ? p->A[(size_t)i * un + j] : p->A[(size_t)j * un + i];
        }
    }
}

int heft_envelope_assemble(const heft_mlcp *p, const heft_ordering *o, const size_t *start,
                           double *values, heft_envelope_work *w) {
    if (p->A != NULL) {
        gather_dense(p, o, start, values);
        return 0;
    }
    return assemble_structured(p, o, start, values, w);
}

int heft_envelope_work_reserve(heft_envelope_work *w, int rows, int bodies) {
    if (rows <= 0)
        return 1;
    const size_t un = (size_t)rows, cap = 2 * un + 2;
    return HEFT_RESERVE(w->body_start, w->body_start_cap, (size_t)(bodies > 0 ? bodies : 0) + 1) &&
           HEFT_RESERVE(w->body_entries, w->body_entries_cap, 2 * un + 1) &&
           HEFT_RESERVE(w->jacobian, w->jacobian_cap, 6 * cap) &&
           HEFT_RESERVE(w->response, w->response_cap, 6 * cap) &&
           HEFT_RESERVE(w->entry_row, w->entry_row_cap, cap);
}

void heft_envelope_work_release(heft_envelope_work *w) {
    heft_free(w->jacobian);
    heft_free(w->response);
    heft_free(w->entry_row);
    heft_free(w->body_start);
    heft_free(w->body_entries);
    memset(w, 0, sizeof *w);
}
