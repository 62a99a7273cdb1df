/* Heft: A = J M^-1 J^T + diag(epsilon) assembled into skyline (envelope)
 * storage in a given row order (private header of the solver library).
 *
 * Shared by the skyline backend of block pivoting (bpp_skyline.c) and the
 * semismooth Newton stage (newton.c): both keep an RCM ordering
 * (ordering.h) and the layout it gives (skyline.h), and fill it from the
 * structured form without forming a dense A, or gather it from p->A. */
#ifndef HEFT_SOLVER_ENVELOPE_H
#define HEFT_SOLVER_ENVELOPE_H

#include <stddef.h>

#include "mlcp.h"
#include "ordering.h"

/* Grow-only scratch of the assembly. */
typedef struct heft_envelope_work {
    /* one body's entries (a row's side on it), component-major: component
     * j of entry e at [j * (most + 2) + e], most the largest body's entries;
     * the side's J and M^-1 J^T, and the entries' RCM positions */
    double *jacobian, *response;
    int *entry_row;
    int *body_start, *body_entries; /* per body: 2 r + side of the rows touching it, r the RCM
                                       position */
    size_t jacobian_cap, response_cap, entry_row_cap, body_start_cap, body_entries_cap;
} heft_envelope_work;

/* Fills values (o->n columns laid out by start, heft_skyline_layout) with
 * the lower envelope of A in the order of o: from the structured form when
 * p->A is NULL, else gathered from p->A's lower triangle (o must then have
 * been computed from A's own pattern, so nothing lies outside). Returns 0,
 * or -1 when out of memory. */
int heft_envelope_assemble(const heft_mlcp *p, const heft_ordering *o, const size_t *start,
                           double *values, heft_envelope_work *w);

/* Sizes w for problems of up to rows rows on bodies bodies (a body's
 * entries are at most 2 rows), so that assembling them allocates nothing.
 * Returns 0 when memory runs out. */
int heft_envelope_work_reserve(heft_envelope_work *w, int rows, int bodies);

void heft_envelope_work_release(heft_envelope_work *w);

#endif
