/* Heft: reverse Cuthill-McKee ordering of an island's constraint rows and the
 * skyline it gives (private header of the solver library).
 *
 * [Lefebvre 2020] §2.2.3: "constraint variables are reordered according to a
 * traversal of the constraint graph using the reverse Cuthill-McKee (RCM)
 * algorithm", which shrinks the envelope of A and so the fill of L. The graph
 * has one node per row; two rows are adjacent when A couples them:
 * - from the structured form, when they act on a common dynamic body (A is
 *   never formed: J M^-1 J^T can only be nonzero there);
 * - from a dense A, when A_ij != 0.
 * Everything is deterministic: ties are broken by the smaller row index, and
 * nothing depends on addresses. */
#ifndef HEFT_ORDERING_H
#define HEFT_ORDERING_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "mlcp.h"

/* An ordering and the arrays it was computed with; every array only grows
 * (heft_ordering_release frees them). */
typedef struct heft_ordering {
    int n;
    int *perm;       /* perm[new] = old row */
    int *inverse;    /* inverse[old] = new position */
    int *last;       /* the skyline s of A in the new order (skyline.h) */
    size_t envelope; /* stored entries: sum_k (last[k] - k + 1) */
    int tallest;     /* the tallest column: max_k (last[k] - k + 1), 0 when n is 0 */
    /* what the ordering was computed from: a dense A's pattern (key), or the
     * structured form's body pair of every row (pairs, 2 n, the static world
     * as -1) and its body count */
    int from_dense;
    uint64_t key;
    int nbodies;
    int32_t *pairs;

    /* the graph, compressed rows: neighbours of v are adj[xadj[v] .. xadj[v+1]) */
    int *xadj, *adj;
    /* scratch: rows of each body (compressed), 3 n ints for RCM */
    int *body_start, *body_rows, *work;
    size_t perm_cap, inverse_cap, last_cap, xadj_cap, adj_cap, body_start_cap, body_rows_cap,
        work_cap, pairs_cap;
} heft_ordering;

/* The fingerprint of a dense A's nonzero pattern (n x n, row-major; the
 * lower triangle is read). */
uint64_t heft_ordering_dense_key(int n, const double *A);

/* Whether o, computed before, still holds for p: for a dense A (p->A set)
 * when the pattern's fingerprint is the same; for the structured form when
 * n, nbodies and every row's body pair are the same, compared exactly (a
 * comparison costs less than a fingerprint, and no two topologies can be
 * taken for one another). */
int heft_ordering_holds(const heft_ordering *o, const heft_mlcp *p);

/* Builds the graph of p's structured form (p->rows present), orders it by
 * RCM and computes its skyline. Returns 0, or -1 when out of memory. */
int heft_ordering_from_structure(heft_ordering *o, const heft_mlcp *p);

/* The same from the nonzero pattern of a dense symmetric A (n x n). */
int heft_ordering_from_dense(heft_ordering *o, int n, const double *A);

/* The numbers an envelope array laid out by o holds once grown
 * (heft_skyline_room): its rows times its tallest column, at most INT_MAX. */
static inline int heft_ordering_room(const heft_ordering *o) {
    const size_t room = (size_t)o->n * (size_t)o->tallest;
    return room < (size_t)INT_MAX ? (int)room : INT_MAX;
}

/* Sizes o's arrays for a problem of up to rows rows on bodies bodies whose
 * room (heft_ordering_room) is at most envelope, so that computing its
 * ordering allocates nothing: every edge of the graph lies in the envelope
 * below the diagonal, so the graph holds at most 2 envelope entries.
 * Returns 0 when memory runs out. */
int heft_ordering_reserve(heft_ordering *o, int rows, int bodies, int envelope);

void heft_ordering_release(heft_ordering *o);

/* ---- the pieces, for tests and benchmarks --------------------------------- */

/* Reverse Cuthill-McKee of the graph (xadj, adj) of n nodes: for each
 * connected component (taken in order of their smallest node), a
 * pseudo-peripheral start node by George & Liu's level-structure search, then
 * a breadth-first traversal visiting each node's unvisited neighbours by
 * increasing degree (then index); the whole sequence is reversed.
 * perm[new] = old. work: 3 n ints. */
void heft_rcm(int n, const int *xadj, const int *adj, int *perm, int *work);

/* The skyline of the graph's matrix in the order given by inverse
 * (inverse[old] = new): last[k] = max { r : f_r <= k }. Returns the stored
 * entries sum_k (last[k] - k + 1). */
size_t heft_envelope(int n, const int *xadj, const int *adj, const int *inverse, int *last);

#endif
