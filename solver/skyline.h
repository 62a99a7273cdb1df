/* Heft: a symmetric matrix and its LL^T factor in skyline (envelope) storage
 * (private header of the solver library).
 *
 * [Lefebvre 2020] §2.2.3: after a bandwidth-reducing ordering, the skyline s gives
 * for every column k of L the row of its last entry, s_k. Here
 *
 *     s_k = max { r : f_r <= k },  f_r = the first nonzero column of row r of A,
 *
 * so column k stores rows k..s_k (diagonal first, contiguous). The fill of a
 * Cholesky factorization stays inside the envelope { (r, k) : f_r <= k <= r }
 * (George & Liu), hence inside these columns, and removing rows only shrinks
 * it (§2.2.3: "we only remove, but never add rows and columns"), so the same
 * storage holds A, L0 and every downdated L. s is nondecreasing.
 *
 * Memory is the number of stored entries, sum_k (s_k - k + 1): the envelope
 * plus the diagonal, never m x m. */
#ifndef HEFT_SKYLINE_H
#define HEFT_SKYLINE_H

#include <stddef.h>

/* The layout: m columns, last[k] = s_k, start[k] = offset of column k in the
 * values (m + 1 entries, start[m] = stored entries). Entry (r, k) with
 * k <= r <= last[k] is values[start[k] + r - k]. */
typedef struct heft_skyline {
    int m;
    const int *last;
    const size_t *start;
    double *values;
} heft_skyline;

/* Fills start (m + 1 entries) from last and returns the number of stored
 * entries. last must satisfy k <= last[k] < m and be nondecreasing; returns 0
 * (and m > 0) when it is not. */
size_t heft_skyline_layout(int m, const int *last, size_t *start);

/* The room to reserve for an envelope of stored entries that no longer fits
 * in cap: at least the band of the layout, m times its tallest column, which
 * holds the envelope of any ordering of the same rows no wider than this
 * one. Sized from the rows and not the envelope, so that an island's
 * reordering (a chain winding onto a drum reorders its rows as its turns
 * touch) needs no regrowth; stored when it fits in cap. */
size_t heft_skyline_room(int m, const int *last, size_t stored, size_t cap);

/* The first column r whose envelope reaches row k (last[r] >= k; last is
 * nondecreasing, so a binary search): row k of the lower envelope holds
 * columns r..k. */
int heft_skyline_first_reaching(const int *last, int k);

/* Factors the matrix held in s (its lower envelope) in place into L.
 * When removed is not NULL, the rows and columns with removed[r] != 0 are
 * left out: the kept entries then hold the factor of A_FF, F = the kept rows,
 * in place (the removed entries hold garbage and are never read by the
 * functions below). Returns 0, or k + 1 when the pivot of column k is not
 * positive and finite. */
int heft_skyline_factor(heft_skyline s, const unsigned char *removed);
/* The same with its four-column passes on AVX where the processor has it
 * (wide != 0, what heft_skyline_factor does) or on SSE2 alone (wide 0): the
 * same bits either way (tests/test_skyline.c). */
int heft_skyline_factor_wide(heft_skyline s, const unsigned char *removed, int wide);

/* The envelope of the kept rows (removed[r] == 0) alone, in their order:
 * row[k] is the k-th kept row, prev[r] the place of the last kept row at or
 * before r (-1: none), and kept column k reaches kept_last[k], the last
 * kept row within the reach of row[k]; kept_start (kept + 1 entries) is its
 * layout. Factoring a matrix there gives its kept entries the products and
 * differences heft_skyline_factor with removed gives them in the full
 * envelope, in the same order, so the same bits, without the work on the
 * removed rows. Returns the number of kept rows. */
int heft_skyline_kept(int m, const int *last, const unsigned char *removed, int *row, int *prev,
                      int *kept_last, size_t *kept_start);

/* Copies the kept rows' entries of from (the full layout, start) into to
 * (the kept layout). to may be from: every entry moves to a place at or
 * before its own, in the order they are read. */
void heft_skyline_gather_kept(const size_t *start, const double *from, int kept, const int *row,
                              const int *kept_last, const size_t *kept_start, double *to);

/* The inverse, in place: each kept column back to its place in the full
 * layout (m columns reaching last), the removed rows' entries of the kept
 * columns zero; the removed columns hold garbage, as after
 * heft_skyline_factor with removed. */
void heft_skyline_scatter_kept(const int *last, const size_t *start, int kept, const int *row,
                               const int *prev, const size_t *kept_start, double *values);

/* Alg. 2.5: removes row and column i from L L^T in place, every update
 * bounded by the skyline. Removals go in ascending order of i; column i is
 * left as it is and skipped from then on. sigma: m doubles of scratch.
 * Returns 0, or -1 when a non-finite number appeared. */
int heft_skyline_remove(heft_skyline s, int i, double *sigma);

/* Alg. 2.6: solves L_FF L_FF^T x_F = x_F with the substitutions bounded by
 * the skyline, skipping removed rows (removed may be NULL: none). The removed
 * entries of x are set to 0. */
void heft_skyline_solve(heft_skyline s, const unsigned char *removed, double *x);

/* y = A x for the symmetric A whose lower envelope s holds. */
void heft_skyline_multiply(heft_skyline s, const double *x, double *y);

/* Copies columns first..m-1 of src into dst (same layout). */
void heft_skyline_copy_columns(heft_skyline dst, heft_skyline src, int first);

#endif
