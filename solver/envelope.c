/* Heft: A assembled into skyline storage (envelope.h). */
#include <string.h>

#include "envelope.h"
#include "workspace.h"
#include "row_math.h"

static int32_t dynamic_body(const heft_mlcp *p, int32_t index) {
    return (index >= 0 && index < p->nbodies) ? index : -1;
}

/* A = J M^-1 J^T + diag(epsilon) into the envelope, body by body: two rows
 * touching one body couple through it (the only place J M^-1 J^T is nonzero),
 * and each pair lands in column min(r1, r2) of the RCM order. Each body's
 * entries (a row's side on it, with the side's J and M^-1 J^T copied next to
 * each other) are laid out in RCM order, so the pairs with r2 <= r1 are a
 * triangle of the body's block, walked without a test and from contiguous
 * memory. A row with both sides on one body contributes all four side pairs,
 * as heft_mlcp_assemble_dense does. */
static int assemble_structured(const heft_mlcp *p, const heft_ordering *o, const size_t *start,
                               double *A, heft_envelope_work *s) {
    const int n = p->n, nb = p->nbodies > 0 ? p->nbodies : 0;
    if (!HEFT_RESERVE(s->jacobian, s->jacobian_cap, 12 * (size_t)n) ||
        !HEFT_RESERVE(s->response, s->response_cap, 12 * (size_t)n) ||
        !HEFT_RESERVE(s->body_start, s->body_start_cap, (size_t)nb + 1) ||
        !HEFT_RESERVE(s->body_entries, s->body_entries_cap, 2 * (size_t)n))
        return -1;
    for (int k = 0; k <= nb; ++k)
        s->body_start[k] = 0;
    for (int i = 0; i < n; ++i) {
        const int32_t a = dynamic_body(p, p->rows[i].a), b = dynamic_body(p, p->rows[i].b);
        if (a >= 0)
            s->body_start[a + 1]++;
        if (b >= 0)
            s->body_start[b + 1]++;
    }
    for (int k = 0; k < nb; ++k)
        s->body_start[k + 1] += s->body_start[k];
    const int *perm = o->perm;
    for (int r = 0; r < n; ++r) { /* in RCM order; the starts move on by one body */
        const heft_mlcp_row *row = &p->rows[perm[r]];
        const int32_t side[2] = {dynamic_body(p, row->a), dynamic_body(p, row->b)};
        const double *jac[2] = {row->ja, row->jb};
        for (int e = 0; e < 2; ++e) {
            if (side[e] < 0)
                continue;
            const size_t at = (size_t)s->body_start[side[e]]++;
            s->body_entries[at] = r;
            memcpy(&s->jacobian[6 * at], jac[e], 6 * sizeof(double));
            heft_body_inverse_mass_times(&p->bodies[side[e]], jac[e], &s->response[6 * at]);
        }
    }
    for (int k = nb; k > 0; --k)
        s->body_start[k] = s->body_start[k - 1];
    s->body_start[0] = 0;

    memset(A, 0, sizeof(double) * start[n]);
    const double *J = s->jacobian, *R = s->response;
    for (int body = 0; body < nb; ++body) {
        const int begin = s->body_start[body], end = s->body_start[body + 1];
        /* column r2 outer, rows r1 >= r2 inner: the writes go down one column */
        for (int e2 = begin; e2 < end; ++e2) {
            const int r2 = s->body_entries[e2];
            const double *resp2 = &R[6 * (size_t)e2];
            double *col = &A[start[r2]];
            for (int e1 = e2; e1 < end; ++e1) {
                const int r1 = s->body_entries[e1];
                col[r1 - r2] += heft_dot6(&J[6 * (size_t)e1], resp2);
                if (r1 == r2 && e1 > e2) /* the other side of the same row, on this body */
                    col[r1 - r2] += heft_dot6(&J[6 * (size_t)e2], &R[6 * (size_t)e1]);
            }
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

void heft_envelope_work_release(heft_envelope_work *w) {
    heft_free(w->jacobian);
    heft_free(w->response);
    heft_free(w->body_start);
    heft_free(w->body_entries);
    memset(w, 0, sizeof *w);
}
