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
 * and each pair lands in column min(r1, r2) of the RCM order. A row with both
 * sides on one body contributes all four side pairs, as heft_mlcp_assemble_dense
 * does. */
static int assemble_structured(const heft_mlcp *p, const heft_ordering *o, const size_t *start,
                               double *A, heft_envelope_work *s) {
    const int n = p->n, nb = p->nbodies > 0 ? p->nbodies : 0;
    if (!HEFT_RESERVE(s->response, s->response_cap, 12 * (size_t)n) ||
        !HEFT_RESERVE(s->body_start, s->body_start_cap, (size_t)nb + 1) ||
        !HEFT_RESERVE(s->body_entries, s->body_entries_cap, 2 * (size_t)n))
        return -1;
    for (int k = 0; k <= nb; ++k)
        s->body_start[k] = 0;
    for (int i = 0; i < n; ++i) {
        const heft_mlcp_row *row = &p->rows[i];
        const int32_t a = dynamic_body(p, row->a), b = dynamic_body(p, row->b);
        double *ra = &s->response[12 * (size_t)i];
        memset(ra, 0, 12 * sizeof(double));
        if (a >= 0) {
            heft_body_inverse_mass_times(&p->bodies[a], row->ja, ra);
            s->body_start[a + 1]++;
        }
        if (b >= 0) {
            heft_body_inverse_mass_times(&p->bodies[b], row->jb, ra + 6);
            s->body_start[b + 1]++;
        }
    }
    for (int k = 0; k < nb; ++k)
        s->body_start[k + 1] += s->body_start[k];
    for (int i = 0; i < n; ++i) { /* entries: 2 * row + side, the starts move on by one body */
        const int32_t a = dynamic_body(p, p->rows[i].a), b = dynamic_body(p, p->rows[i].b);
        if (a >= 0)
            s->body_entries[s->body_start[a]++] = 2 * i;
        if (b >= 0)
            s->body_entries[s->body_start[b]++] = 2 * i + 1;
    }
    for (int k = nb; k > 0; --k)
        s->body_start[k] = s->body_start[k - 1];
    s->body_start[0] = 0;

    const int *inverse = o->inverse;
    memset(A, 0, sizeof(double) * start[n]);
    for (int body = 0; body < nb; ++body) {
        const int begin = s->body_start[body], end = s->body_start[body + 1];
        for (int e1 = begin; e1 < end; ++e1) {
            const int i1 = s->body_entries[e1] >> 1, side1 = s->body_entries[e1] & 1;
            const int r1 = inverse[i1];
            const double *j1 = side1 ? p->rows[i1].jb : p->rows[i1].ja;
            for (int e2 = begin; e2 < end; ++e2) {
                const int i2 = s->body_entries[e2] >> 1, side2 = s->body_entries[e2] & 1;
                const int r2 = inverse[i2];
                if (r1 < r2)
                    continue;
                A[start[r2] + (size_t)(r1 - r2)] +=
                    heft_dot6(j1, &s->response[12 * (size_t)i2 + 6 * (size_t)side2]);
            }
        }
    }
    if (p->epsilon != NULL)
        for (int i = 0; i < n; ++i)
            A[start[inverse[i]]] += p->epsilon[i];
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
    heft_free(w->response);
    heft_free(w->body_start);
    heft_free(w->body_entries);
    memset(w, 0, sizeof *w);
}
