/* Heft: Lemke's complementary pivoting on the LCP form of the box-friction
 * MLCP, the exact backstop of the pivoting solvers (lemke.h,
 * docs/friction-backstop.md).
 *
 * References:
 *   C. E. Lemke, "Bimatrix equilibrium points and mathematical programming",
 *     Management Science 11(7):681-689, 1965 (the method);
 *   R. W. Cottle, J.-S. Pang, R. E. Stone, "The Linear Complementarity
 *     Problem", Academic Press, 1992, §4.4 (Scheme I with a covering vector,
 *     the lexicographic rule that makes it finite);
 *   D. E. Stewart, J. C. Trinkle, "An implicit time-stepping scheme for rigid
 *     body dynamics with inelastic collisions and Coulomb friction",
 *     Int. J. Numer. Methods Eng. 39(15):2673-2691, 1996, and M. Anitescu,
 *     F. A. Potra, "Formulating dynamic multi-rigid-body contact problems
 *     with friction as solvable linear complementarity problems", Nonlinear
 *     Dynamics 14(3):231-247, 1997 (the friction impulse split into two
 *     nonnegative parts with a sliding-speed slack; the LCP Lemke processes).
 *
 * The LCP. Variables are scaled first, lambda_i = sigma_i l_i with
 * sigma_i = A_ii^-1/2, so the scaled matrix has a unit diagonal and a
 * covering vector of ones is meaningful whatever the mass ratios. Every row
 * of the MLCP becomes 0 to 3 nonnegative LCP variables z with complements
 * s = q + M z >= 0, z^T s = 0 (w = A lambda - b, l = c + z_a - z_b):
 *
 *   fixed    lo == hi, or friction with mu = 0: l = c, no variable
 *   free     lo = -inf, hi = inf:  l = z_a - z_b,   s_a = w,  s_b = -w
 *   lower    lo finite, hi = inf:  l = lo + z_a,    s_a = w
 *   upper    lo = -inf, hi finite: l = hi - z_b,    s_b = -w
 *   box      both finite:          l = lo + z_a,    s_a = w + nu,  s_nu = hi - lo - z_a
 *   friction |l_t| <= mu l_f:      l = z_a - z_b,   s_a = w + g,   s_b = -w + g,
 *                                  s_g = mu l_f - z_a - z_b       (g: the sliding speed)
 *
 * A solution of the LCP is one of the MLCP and back (the friction row is
 * Stewart-Trinkle's with one tangent direction per axis, i.e. the box).
 * Bilateral rows are split rather than eliminated, so a singular A (redundant
 * contacts, a joint loop without compliance) needs no factorization: the
 * basis stays nonsingular by construction.
 *
 * The method (Cottle-Pang-Stone Algorithm 4.4.5) in revised form: the basis
 * inverse B^-1 (N x N) is kept explicitly and updated by one Gauss-Jordan
 * step a pivot, the entering column is B^-1 times a column of the LCP, and
 * ties of the ratio test go to z0 first, then to the lexicographically
 * smallest row of B^-1 / a (the lexicographic rule; with the all-slack start
 * every row of B^-1 is lexicographically positive, so no basis repeats).
 *
 * Departures (docs/friction-backstop.md):
 *   - a warm start: each path from a guess starts from the basis the guess
 *     suggests (z basic where the guess is off its bounds; a row at its box
 *     or cone bound first, z in the cap's row and the multiplier or slip in
 *     z's, the cap's column being independent of A), reached by "crash"
 *     pivots that skip a dependent column (a redundant row keeps its
 *     slack), with the covering vector d = B e, so that an exact guess ends
 *     at once. With that d the theory's guarantee (a ray only when the LCP
 *     has no solution) does not hold, so the all-slack basis follows, with
 *     d = e and two other positive covering vectors;
 *   - a ray met while z0 is at round-off level ends at the last
 *     complementary basis (a degenerate tie with z0 that round-off hid: the
 *     halves of a free row have opposite columns);
 *   - when every path fails, rounds on A + eps I about a centre, each centre
 *     the last answer (at a fixed point the shift cancels);
 *   - every path has a budget of pivots; the basic solution is refined
 *     (iterative refinement with B^-1) and measured by heft_mlcp_measure: a
 *     path never claims a solution it has not measured. */
#include "lemke.h"

#include <math.h>
#include <string.h>

#include "bpp.h"
#include "workspace.h"

#ifdef HEFT_HAVE_UMFPACK
#include <umfpack.h>
#endif

enum { ROW_FIXED, ROW_FREE, ROW_LOWER, ROW_UPPER, ROW_BOX, ROW_FRICTION };
enum { ROLE_POS, ROLE_NEG, ROLE_MULT, ROLE_SLIP };

/* pivots on a column entry below this fraction of its largest are refused */
#define LEMKE_PIVOT_TOL 1e-11
/* crash pivots below this fraction are skipped (a dependent column) */
#define LEMKE_CRASH_TOL 1e-8
/* ratios within this relative distance of the smallest are ties */
#define LEMKE_TIE_TOL 1e-12
#define LEMKE_Z0_TIE_TOL 1e-9
/* a ray met with z0 below this (relative to q) ends at the last complementary
 * basis: degenerate ties round-off hid; the answer is measured anyway */
#define LEMKE_Z0_RAY 1e-4
#define LEMKE_REFINEMENTS 3
/* all-slack paths after those from the guesses: covering vectors e and two others */
#define LEMKE_COLD_PATHS 3
/* the proximal shift of the scaled A's unit diagonal, and the rounds */
#define LEMKE_PROXIMAL 1e-6
#define LEMKE_PROXIMAL_ROUNDS 8
/* The sparse path refactors B after this many eta columns, when the eta
 * file outgrows four times B0's entries, and after a pivot below this
 * fraction of its column's largest entry: a fresh factorization also
 * recomputes x = B^-1 q, so the basic values do not drift over a long path */
#define LEMKE_REFACTOR_PIVOTS 64
#define LEMKE_REFACTOR_PIVOT_RATIO 1e-6

/* The largest |v_k| of n entries, a NaN passed over as fmax passes it,
 * written as comparisons: gcc calls the library's fmax, and these loops run
 * over the N entries of every pivot's column. */
static double largest_magnitude(const double *v, int n) {
    double largest = 0.0;
    for (int k = 0; k < n; ++k) {
        const double m = fabs(v[k]);
        if (m > largest)
            largest = m;
    }
    return largest;
}

/* fmax(x, 0.0) without the call: NaN gives 0, -0 stays -0, as there */
static inline double at_least_zero(double x) {
    return x >= 0.0 ? x : 0.0;
}

static int friction(const heft_mlcp *p, int i) {
    return p->findex != NULL && p->findex[i] >= 0;
}

void heft_lemke_release(heft_lemke *ws) {
    if (ws == NULL)
        return;
    void *arrays[] = {
        ws->A,           ws->Binv,    ws->x,         ws->col,     ws->a,        ws->q,
        ws->lambda,      ws->work,    ws->scale,     ws->c,       ws->mu,       ws->basic,
        ws->where,       ws->var_row, ws->var_role,  ws->row_var, ws->row_type, ws->child_start,
        ws->children,    ws->answer,  ws->idx,       ws->bs,      ws->center,   ws->Bp,
        ws->Bi,          ws->Bx,      ws->eta_start, ws->eta_row, ws->eta_idx,  ws->eta_val,
        ws->eta_pivot,   ws->z0col,   ws->rhs,       ws->row1,    ws->row2,     ws->pattern_start,
        ws->pattern_row, ws->umf_wi,  ws->umf_w};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; ++k)
        heft_free(arrays[k]);
#ifdef HEFT_HAVE_UMFPACK
    if (ws->numeric != NULL && ws->numeric_on_heap)
        umfpack_di_free_numeric(&ws->numeric);
#endif
    heft_ss_region_release(&ws->region[0]);
    heft_ss_region_release(&ws->region[1]);
    memset(ws, 0, sizeof *ws);
}

static int add_var(heft_lemke *ws, int *N, int row, int role) {
    ws->var_row[*N] = row;
    ws->var_role[*N] = role;
    return (*N)++;
}

/* Builds the scaled A, the row types, the variables and q. Returns the
 * number of variables, -1 for a non-finite A, -2 when out of memory. */
static int build_lcp(heft_lemke *ws, const heft_mlcp *p, const double *A) {
    const int n = p->n;
    const size_t un = (size_t)n;
    double *As = ws->A, *sc = ws->scale;
    for (int i = 0; i < n; ++i) {
        const double d = A[i * un + i];
        sc[i] = d > 0.0 && isfinite(d) ? 1.0 / sqrt(d) : 1.0;
    }
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double v = A[i * un + j];
            if (!isfinite(v))
                return -1;
            As[i * un + j] = sc[i] * v * sc[j];
        }
    for (int i = 0; i < n; ++i)
        As[i * un + i] += ws->eps;
    /* the pattern of each column of A (its diagonal always in, for the
     * proximal shift): a column of the LCP costs its entries, not n */
    size_t nnz = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
            nnz += As[j * un + i] != 0.0 || As[i * un + j] != 0.0 || i == j;
    if (!HEFT_RESERVE(ws->pattern_start, ws->pattern_start_cap, un + 1) ||
        !HEFT_RESERVE(ws->pattern_row, ws->pattern_row_cap, nnz))
        return -2;
    ws->pattern_start[0] = 0;
    nnz = 0;
    for (int j = 0; j < n; ++j) { /* the union of column j and row j (A need not be symmetric) */
        for (int i = 0; i < n; ++i)
            if (As[j * un + i] != 0.0 || As[i * un + j] != 0.0 || i == j)
                ws->pattern_row[nnz++] = i;
        ws->pattern_start[j + 1] = (int)nnz;
    }
    /* children: the friction rows of each normal row */
    for (int i = 0; i <= n; ++i)
        ws->child_start[i] = 0;
    for (int t = 0; t < n; ++t)
        if (friction(p, t))
            ws->child_start[p->findex[t] + 1]++;
    for (int i = 0; i < n; ++i)
        ws->child_start[i + 1] += ws->child_start[i];
    for (int i = 0; i < n; ++i)
        ws->where[i] = ws->child_start[i]; /* fill cursor */
    for (int t = 0; t < n; ++t)
        if (friction(p, t))
            ws->children[ws->where[p->findex[t]]++] = t;

    int N = 0;
    for (int i = 0; i < n; ++i) {
        int *rv = &ws->row_var[3 * i];
        rv[0] = rv[1] = rv[2] = -1;
        ws->c[i] = 0.0;
        ws->mu[i] = 0.0;
        if (friction(p, i)) {
            const int f = p->findex[i];
            ws->mu[i] = p->hi[i] * sc[f] / sc[i];
            if (!(p->hi[i] > 0.0)) {
                ws->row_type[i] = ROW_FIXED;
                continue;
            }
            ws->row_type[i] = ROW_FRICTION;
            rv[0] = add_var(ws, &N, i, ROLE_POS);
            rv[1] = add_var(ws, &N, i, ROLE_NEG);
            rv[2] = add_var(ws, &N, i, ROLE_SLIP);
            continue;
        }
        const double lo = p->lo[i] / sc[i], hi = p->hi[i] / sc[i];
        if (!(lo < hi)) {
            ws->row_type[i] = ROW_FIXED;
            ws->c[i] = lo;
        } else if (isinf(lo) && isinf(hi)) {
            ws->row_type[i] = ROW_FREE;
            rv[0] = add_var(ws, &N, i, ROLE_POS);
            rv[1] = add_var(ws, &N, i, ROLE_NEG);
        } else if (isinf(hi)) {
            ws->row_type[i] = ROW_LOWER;
            ws->c[i] = lo;
            rv[0] = add_var(ws, &N, i, ROLE_POS);
        } else if (isinf(lo)) {
            ws->row_type[i] = ROW_UPPER;
            ws->c[i] = hi;
            rv[1] = add_var(ws, &N, i, ROLE_NEG);
        } else {
            ws->row_type[i] = ROW_BOX;
            ws->c[i] = lo;
            rv[0] = add_var(ws, &N, i, ROLE_POS);
            rv[2] = add_var(ws, &N, i, ROLE_MULT);
        }
    }
    return N;
}

/* s = q + M z for the scaled LCP (z == NULL: s = q); uses ws->work (n) and
 * ws->lambda (n) as scratch. */
static void lcp_evaluate(heft_lemke *ws, const heft_mlcp *p, const double *z, double *s, int N) {
    const int n = p->n;
    const size_t un = (size_t)n;
    double *l = ws->lambda, *w = ws->work;
    for (int i = 0; i < n; ++i) {
        const int *rv = &ws->row_var[3 * i];
        l[i] = ws->c[i];
        if (z != NULL) {
            if (rv[0] >= 0)
                l[i] += z[rv[0]];
            if (rv[1] >= 0)
                l[i] -= z[rv[1]];
        }
    }
    for (int i = 0; i < n; ++i) {
        const double *row = &ws->A[i * un];
        double sum = -ws->bs[i];
        for (int j = 0; j < n; ++j)
            sum += row[j] * l[j];
        w[i] = sum;
    }
    for (int k = 0; k < N; ++k) {
        const int i = ws->var_row[k];
        const int *rv = &ws->row_var[3 * i];
        const double zx = rv[2] >= 0 && z != NULL ? z[rv[2]] : 0.0;
        switch (ws->var_role[k]) {
        case ROLE_POS:
            s[k] = w[i] + zx;
            break;
        case ROLE_NEG:
            s[k] = -w[i] + (ws->row_type[i] == ROW_FRICTION ? zx : 0.0);
            break;
        case ROLE_MULT:
            s[k] = (p->hi[i] - p->lo[i]) / ws->scale[i] - (z != NULL ? z[rv[0]] : 0.0);
            break;
        default: { /* ROLE_SLIP */
            double v = ws->mu[i] * l[p->findex[i]];
            if (z != NULL)
                v -= z[rv[0]] + z[rv[1]];
            s[k] = v;
        }
        }
    }
}

/* The LCP's column of variable v (s_k: e_k; z_k: -M e_k) into col; returns
 * the count of its nonzeros, their indices in idx. */
static int lcp_column(heft_lemke *ws, const heft_mlcp *p, int N, int v, double *col, int *idx) {
    const int n = p->n;
    const size_t un = (size_t)n;
    int nz = 0;
    if (v < N) {
        col[v] = 1.0;
        idx[nz++] = v;
        return nz;
    }
    const int k = v - N, j = ws->var_row[k], role = ws->var_role[k];
    const int *rj = &ws->row_var[3 * j];
#define LEMKE_ADD(var, val)                                                                        \
    do {                                                                                           \
        const int at_ = (var);                                                                     \
        if (col[at_] == 0.0)                                                                       \
            idx[nz++] = at_;                                                                       \
        col[at_] -= (val);                                                                         \
        if (col[at_] == 0.0)                                                                       \
            col[at_] = 0x1p-1074; /* stays listed */                                               \
    } while (0)
    if (role == ROLE_POS || role == ROLE_NEG) {
        const double sign =
            role == ROLE_POS ? 1.0 : -1.0; /* d l_j / d z_k (an upper row's z_b: -1 too) */
        for (int e = ws->pattern_start[j]; e < ws->pattern_start[j + 1]; ++e) {
            const int i = ws->pattern_row[e];
            const double a = ws->A[i * un + j];
            if (a == 0.0)
                continue;
            const int *ri = &ws->row_var[3 * i];
            if (ri[0] >= 0)
                LEMKE_ADD(ri[0], sign * a);
            if (ri[1] >= 0)
                LEMKE_ADD(ri[1], -sign * a);
        }
        for (int e = ws->child_start[j]; e < ws->child_start[j + 1]; ++e) {
            const int t = ws->children[e];
            if (ws->row_var[3 * t + 2] >= 0)
                LEMKE_ADD(ws->row_var[3 * t + 2], ws->mu[t] * sign);
        }
        if (ws->row_type[j] == ROW_BOX && role == ROLE_POS)
            LEMKE_ADD(rj[2], -1.0);
        if (ws->row_type[j] == ROW_FRICTION)
            LEMKE_ADD(rj[2], -1.0);
    } else if (role == ROLE_MULT) {
        LEMKE_ADD(rj[0], 1.0);
    } else { /* ROLE_SLIP */
        LEMKE_ADD(rj[0], 1.0);
        LEMKE_ADD(rj[1], 1.0);
    }
#undef LEMKE_ADD
    return nz;
}

#ifdef HEFT_HAVE_UMFPACK
/* Returns array grown to at least count elements with its first used ones
 * kept (the eta file and B0's entries grow while they are filled;
 * workspace.h's arrays drop their contents). On allocation failure, or when
 * *ok is 0 already, returns array unchanged and sets *ok to 0. */
static void *grow_keep(void *array, size_t *cap, size_t used, size_t count, size_t elem, int *ok) {
    if (!*ok || (count <= *cap && array != NULL))
        return array;
    size_t want = *cap > 0 ? 2 * *cap : 64;
    if (want < count)
        want = count;
    void *fresh = want <= SIZE_MAX / elem ? heft_alloc(want * elem) : NULL;
    if (fresh == NULL) {
        *ok = 0;
        return array;
    }
    if (array != NULL && used > 0)
        memcpy(fresh, array, used * elem);
    heft_free(array);
    *cap = want;
    return fresh;
}
#define LEMKE_GROW(array, cap, used, count, ok)                                                    \
    ((array) = grow_keep((array), &(cap), (size_t)(used), (size_t)(count), sizeof *(array), &(ok)))

/* Factors the current basis afresh (B0 = B, no eta columns) and recomputes
 * x = B^-1 q. Returns 0 when UMFPACK finds B singular or runs out of
 * memory; the old factors and eta file are then kept. */
static int sparse_refactor(heft_lemke *ws, const heft_mlcp *p, int N) {
    int nnz = 0;
    ws->Bp[0] = 0;
    for (int r = 0; r < N; ++r) {
        const int v = ws->basic[r];
        int nz = 0;
        if (v == 2 * N) { /* z0: its column on this path */
            for (int k = 0; k < N; ++k)
                if (ws->z0col[k] != 0.0) {
                    ws->col[k] = ws->z0col[k];
                    ws->idx[nz++] = k;
                }
        } else {
            nz = lcp_column(ws, p, N, v, ws->col, ws->idx);
        }
        int ok = 1;
        LEMKE_GROW(ws->Bi, ws->Bi_cap, nnz, nnz + nz, ok);
        LEMKE_GROW(ws->Bx, ws->Bx_cap, nnz, nnz + nz, ok);
        if (!ok) {
            for (int e = 0; e < nz; ++e)
                ws->col[ws->idx[e]] = 0.0;
            return 0;
        }
        /* UMFPACK wants each column's rows ascending (a column holds the
         * rows of two bodies' contacts, a few dozen) */
        heft_sort_indices(ws->idx, nz);
        for (int e = 0; e < nz; ++e) {
            ws->Bi[nnz] = ws->idx[e];
            ws->Bx[nnz++] = ws->col[ws->idx[e]];
            ws->col[ws->idx[e]] = 0.0;
        }
        ws->Bp[r + 1] = nnz;
    }
    double control[UMFPACK_CONTROL];
    umfpack_di_defaults(control);
    /* The factorization is built in the region the live factors are not in
     * (they stay valid if it fails); its blocks are dropped with the
     * region's next reset, so nothing of it is freed one by one */
    heft_ss_region *into = NULL;
    if (heft_ss_region_hooks()) {
        into = &ws->region[!ws->live];
        heft_ss_region_reset(into);
    }
    heft_ss_region *was = heft_ss_region_enter(into);
    void *symbolic = NULL, *numeric = NULL;
    int status = umfpack_di_symbolic(N, N, ws->Bp, ws->Bi, ws->Bx, &symbolic, control, NULL);
    if (status == UMFPACK_OK)
        status = umfpack_di_numeric(ws->Bp, ws->Bi, ws->Bx, symbolic, &numeric, control, NULL);
    if (symbolic != NULL)
        umfpack_di_free_symbolic(&symbolic);
    if (status != UMFPACK_OK && numeric != NULL)
        umfpack_di_free_numeric(&numeric);
    heft_ss_region_enter(was);
    if (status != UMFPACK_OK)
        return 0;
    if (ws->numeric != NULL && ws->numeric_on_heap)
        umfpack_di_free_numeric(&ws->numeric);
    ws->numeric = numeric;
    ws->numeric_on_heap = into == NULL;
    if (into != NULL)
        ws->live = !ws->live;
    /* The eta file until the next factorization holds at most
     * LEMKE_REFACTOR_PIVOTS columns and 4 nnz + N entries (sparse_pivot):
     * reserved now, it does not grow pivot by pivot, and reaches its size
     * with the densest basis met so far (on the winch, without this, it
     * doubled to 1.5 MB in the second minute) */
    int room = 1;
    LEMKE_GROW(ws->eta_idx, ws->eta_idx_cap, 0, (size_t)(4 * (size_t)nnz + (size_t)N), room);
    LEMKE_GROW(ws->eta_val, ws->eta_val_cap, 0, (size_t)(4 * (size_t)nnz + (size_t)N), room);
    LEMKE_GROW(ws->eta_start, ws->eta_start_cap, 0, LEMKE_REFACTOR_PIVOTS + 2, room);
    LEMKE_GROW(ws->eta_row, ws->eta_row_cap, 0, LEMKE_REFACTOR_PIVOTS + 1, room);
    LEMKE_GROW(ws->eta_pivot, ws->eta_pivot_cap, 0, LEMKE_REFACTOR_PIVOTS + 1, room);
    (void)room; /* out of memory: sparse_pivot grows them as before, or refactors */
    ws->identity = 0;
    ws->broken = 0;
    ws->etas = 0;
    ws->eta_nnz = 0;
    ws->eta_start[0] = 0;
    ws->factorizations++;
    control[UMFPACK_IRSTEP] = 0;
    umfpack_di_wsolve(UMFPACK_A, ws->Bp, ws->Bi, ws->Bx, ws->x, ws->q, ws->numeric, control, NULL,
                      ws->umf_wi, ws->umf_w);
    return 1;
}

/* out = B^-1 in (FTRAN): B0's factors, then the eta columns in order.
 * in and out are distinct. */
static void sparse_ftran(const heft_lemke *ws, int N, const double *in, double *out) {
    if (ws->identity) {
        memcpy(out, in, sizeof(double) * (size_t)N);
    } else {
        double control[UMFPACK_CONTROL];
        umfpack_di_defaults(control);
        control[UMFPACK_IRSTEP] = 0;
        umfpack_di_wsolve(UMFPACK_A, ws->Bp, ws->Bi, ws->Bx, out, in, ws->numeric, control, NULL,
                          ws->umf_wi, ws->umf_w);
    }
    for (int j = 0; j < ws->etas; ++j) {
        const int r = ws->eta_row[j];
        const double xr = out[r] / ws->eta_pivot[j];
        out[r] = xr;
        if (xr == 0.0)
            continue;
        for (int e = ws->eta_start[j]; e < ws->eta_start[j + 1]; ++e)
            out[ws->eta_idx[e]] -= ws->eta_val[e] * xr;
    }
}

/* out = row r of B^-1 (BTRAN of e_r): the eta columns backwards, then B0's
 * transpose. Uses ws->rhs. */
static void sparse_row(heft_lemke *ws, int N, int r, double *out) {
    double *u = ws->rhs;
    memset(u, 0, sizeof(double) * (size_t)N);
    u[r] = 1.0;
    for (int j = ws->etas - 1; j >= 0; --j) {
        const int k = ws->eta_row[j];
        double v = u[k];
        for (int e = ws->eta_start[j]; e < ws->eta_start[j + 1]; ++e)
            v -= u[ws->eta_idx[e]] * ws->eta_val[e];
        u[k] = v / ws->eta_pivot[j];
    }
    if (ws->identity) {
        memcpy(out, u, sizeof(double) * (size_t)N);
        return;
    }
    double control[UMFPACK_CONTROL];
    umfpack_di_defaults(control);
    control[UMFPACK_IRSTEP] = 0;
    umfpack_di_wsolve(UMFPACK_At, ws->Bp, ws->Bi, ws->Bx, out, u, ws->numeric, control, NULL,
                      ws->umf_wi, ws->umf_w);
}

/* The pivot on the sparse path: x updated, a's column appended to the eta
 * file, and B refactored when the file is long or the pivot small. */
static int sparse_pivot(heft_lemke *ws, int N, int r, const double *a) {
    const double inv = 1.0 / a[r];
    ws->x[r] *= inv;
    double largest = 0.0;
    int nz = 0;
    for (int i = 0; i < N; ++i) {
        const double m = fabs(a[i]);
        if (m > largest)
            largest = m;
        if (i != r && a[i] != 0.0) {
            ws->x[i] -= a[i] * ws->x[r];
            ++nz;
        }
    }
    const size_t need = (size_t)ws->eta_nnz + (size_t)nz;
    const int k = ws->etas;
    int stored = 1;
    LEMKE_GROW(ws->eta_idx, ws->eta_idx_cap, ws->eta_nnz, need, stored);
    LEMKE_GROW(ws->eta_val, ws->eta_val_cap, ws->eta_nnz, need, stored);
    LEMKE_GROW(ws->eta_start, ws->eta_start_cap, k + 1, k + 2, stored);
    LEMKE_GROW(ws->eta_row, ws->eta_row_cap, k, k + 1, stored);
    LEMKE_GROW(ws->eta_pivot, ws->eta_pivot_cap, k, k + 1, stored);
    if (!stored)
        ws->broken = 1; /* until a factorization replaces the eta file */
    if (stored) {
        int e = ws->eta_nnz;
        for (int i = 0; i < N; ++i)
            if (i != r && a[i] != 0.0) {
                ws->eta_idx[e] = i;
                ws->eta_val[e++] = a[i];
            }
        ws->eta_row[ws->etas] = r;
        ws->eta_pivot[ws->etas] = a[r];
        ws->eta_start[ws->etas + 1] = e;
        ws->etas++;
        ws->eta_nnz = e;
    }
    ws->lex_row = -1;
    const int factors = ws->identity ? N : ws->Bp[N];
    return !stored || ws->etas >= LEMKE_REFACTOR_PIVOTS || ws->eta_nnz > 4 * factors ||
           fabs(a[r]) < LEMKE_REFACTOR_PIVOT_RATIO * largest;
}
#endif

/* a = B^-1 col over col's nonzeros; col is cleared */
static void basis_solve(const heft_lemke *ws, int N, double *col, const int *idx, int nz,
                        double *a) {
#ifdef HEFT_HAVE_UMFPACK
    if (ws->sparse) {
        sparse_ftran(ws, N, col, a);
        for (int e = 0; e < nz; ++e)
            col[idx[e]] = 0.0;
        return;
    }
#endif
    const size_t uN = (size_t)N;
    for (int r = 0; r < N; ++r) {
        const double *row = &ws->Binv[r * uN];
        double sum = 0.0;
        for (int e = 0; e < nz; ++e)
            sum += row[idx[e]] * col[idx[e]];
        a[r] = sum;
    }
    for (int e = 0; e < nz; ++e)
        col[idx[e]] = 0.0;
}

/* Brings entering into row r of the basis: on the sparse path an eta
 * column (and a factorization when due), else one Gauss-Jordan step on
 * B^-1. a: B^-1 times the entering column. */
static void basis_pivot(heft_lemke *ws, const heft_mlcp *p, int N, int r, const double *a,
                        int entering) {
#ifdef HEFT_HAVE_UMFPACK
    if (ws->sparse) {
        const int due = sparse_pivot(ws, N, r, a);
        const int leaving = ws->basic[r];
        ws->where[leaving] = -1;
        ws->basic[r] = entering;
        ws->where[entering] = r;
        if (due)
            sparse_refactor(ws, p, N);
        return;
    }
#endif
    (void)p;
    const size_t uN = (size_t)N;
    double *pr = &ws->Binv[r * uN];
    const double inv = 1.0 / a[r];
    for (int c = 0; c < N; ++c)
        pr[c] *= inv;
    ws->x[r] *= inv;
    /* the nonzero columns of row r bound the update */
    int lo = 0, hi = N - 1;
    while (lo < N && pr[lo] == 0.0)
        ++lo;
    while (hi >= lo && pr[hi] == 0.0)
        --hi;
    for (int i = 0; i < N; ++i) {
        const double f = a[i];
        if (i == r || f == 0.0)
            continue;
        double *pi = &ws->Binv[i * uN];
        for (int c = lo; c <= hi; ++c)
            pi[c] -= f * pr[c];
        ws->x[i] -= f * ws->x[r];
    }
    const int leaving = ws->basic[r];
    ws->where[leaving] = -1;
    ws->basic[r] = entering;
    ws->where[entering] = r;
}

/* Lexicographic comparison of rows r1 and r2 of B^-1 divided by a: 1 when
 * r2's is smaller. */
static int lexico_smaller(heft_lemke *ws, int N, const double *a, int r1, int r2) {
    const size_t uN = (size_t)N;
    const double *p1, *p2;
#ifdef HEFT_HAVE_UMFPACK
    if (ws->sparse) {
        /* rows of B^-1 by BTRAN, only for the rows in a tie; row1 keeps the
         * current winner's */
        if (ws->lex_row != r1) {
            sparse_row(ws, N, r1, ws->row1);
            ws->lex_row = r1;
        }
        sparse_row(ws, N, r2, ws->row2);
        p1 = ws->row1;
        p2 = ws->row2;
        int smaller = r2 < r1;
        for (int c = 0; c < N; ++c) {
            const double u = p1[c] / a[r1], v = p2[c] / a[r2];
            if (fabs(u - v) <= LEMKE_TIE_TOL * (fabs(u) + fabs(v)))
                continue;
            smaller = v < u;
            break;
        }
        if (smaller) {
            double *t = ws->row1;
            ws->row1 = ws->row2;
            ws->row2 = t;
            size_t tc = ws->row1_cap;
            ws->row1_cap = ws->row2_cap;
            ws->row2_cap = tc;
            ws->lex_row = r2;
        }
        return smaller;
    }
#endif
    p1 = &ws->Binv[r1 * uN];
    p2 = &ws->Binv[r2 * uN];
    for (int c = 0; c < N; ++c) {
        const double u = p1[c] / a[r1], v = p2[c] / a[r2];
        if (fabs(u - v) <= LEMKE_TIE_TOL * (fabs(u) + fabs(v)))
            continue;
        return v < u;
    }
    return r2 < r1;
}

/* The all-slack basis, B^-1 = I, x = q. */
static void basis_identity(heft_lemke *ws, int N) {
    const size_t uN = (size_t)N;
    if (ws->sparse) {
        ws->identity = 1;
        ws->etas = 0;
        ws->eta_nnz = 0;
        ws->eta_start[0] = 0;
        ws->lex_row = -1;
        ws->broken = 0;
    } else {
        memset(ws->Binv, 0, sizeof(double) * uN * uN);
    }
    for (int k = 0; k < N; ++k) {
        if (!ws->sparse)
            ws->Binv[k * uN + k] = 1.0;
        ws->x[k] = ws->q[k];
        ws->basic[k] = k;
        ws->where[k] = k;
        ws->where[N + k] = -1;
    }
    ws->where[2 * N] = -1;
}

/* x = B^-1 q (the sparse path: by a fresh factorization of B) */
static void basis_values(heft_lemke *ws, const heft_mlcp *p, int N) {
#ifdef HEFT_HAVE_UMFPACK
    if (ws->sparse) {
        if (!ws->identity || ws->etas > 0)
            sparse_refactor(ws, p, N);
        if (ws->etas > 0) /* B singular to UMFPACK: from the eta file */
            sparse_ftran(ws, N, ws->q, ws->x);
        return;
    }
#endif
    (void)p;
    const size_t uN = (size_t)N;
    for (int r = 0; r < N; ++r) {
        const double *row = &ws->Binv[r * uN];
        double sum = 0.0;
        for (int c = 0; c < N; ++c)
            sum += row[c] * ws->q[c];
        ws->x[r] = sum;
    }
}

/* Pivots variable v into row r when its entry there is not negligible
 * against the column's largest. Returns 1 when it did. */
static int crash_pivot(heft_lemke *ws, const heft_mlcp *p, int N, int v, int r, int *idx) {
    if (r < 0)
        return 0;
    const int nz = lcp_column(ws, p, N, v, ws->col, idx);
    basis_solve(ws, N, ws->col, idx, nz, ws->a);
    const double largest = largest_magnitude(ws->a, N);
    if (!(fabs(ws->a[r]) > LEMKE_CRASH_TOL * largest))
        return 0; /* dependent on the columns already in */
    basis_pivot(ws, p, N, r, ws->a, v);
    return 1;
}

/* Brings the z variables the guess has off their bounds into the basis.
 * A row at the bound of its box or its friction cone (z and the multiplier
 * or slip basic) goes in first, z in the cap's row and the multiplier in
 * z's: the cap's column is independent of A, so these rows stay in even
 * when A is singular. The other variables follow, each in its own slack's
 * row, skipped when dependent (a redundant row keeps its slack). */
static int crash(heft_lemke *ws, const heft_mlcp *p, int N, const double *guess, int *idx) {
    const int n = p->n;
    const size_t un = (size_t)n;
    int pivots = 0;
    /* the sign of w at the guess picks the side of a closed friction box
     * (a separated contact: mu lambda_f = 0, the slip is |w|) */
    double *w = ws->work;
    for (int i = 0; i < n; ++i)
        ws->lambda[i] = isfinite(guess[i]) ? guess[i] / ws->scale[i] : 0.0;
    for (int i = 0; i < n; ++i) {
        const double *row = &ws->A[i * un];
        double sum = -ws->bs[i];
        for (int j = 0; j < n; ++j)
            sum += row[j] * ws->lambda[j];
        w[i] = sum;
    }
    for (int pass = 0; pass < 2; ++pass)
        for (int i = 0; i < n; ++i) {
            const int *rv = &ws->row_var[3 * i];
            double lo, hi;
            heft_mlcp_bounds(p, guess, i, &lo, &hi);
            const double g = guess[i];
            if (!isfinite(g))
                continue;
            const double tol = 1e-9 * (1.0 + fabs(isfinite(lo) ? lo : 0.0) +
                                       fabs(isfinite(hi) ? hi : 0.0) + fabs(g));
            int want[3] = {0, 0, 0};
            switch (ws->row_type[i]) {
            case ROW_FREE:
                want[0] = g > tol;
                want[1] = g < -tol;
                break;
            case ROW_LOWER:
                want[0] = g > lo + tol;
                break;
            case ROW_UPPER:
                want[1] = g < hi - tol;
                break;
            case ROW_BOX:
                want[0] = g > lo + tol;
                want[2] = g >= hi - tol;
                break;
            case ROW_FRICTION:
                if (hi > tol) {
                    want[0] = g > tol;
                    want[1] = g < -tol;
                    want[2] = g >= hi - tol || g <= lo + tol;
                } else if (w[i] != 0.0) { /* closed: at the side w pushes against */
                    want[w[i] < 0.0 ? 0 : 1] = 1;
                    want[2] = 1;
                }
                break;
            default:
                break;
            }
            const int grouped = want[2] && rv[2] >= 0 && (want[0] || want[1]);
            if (pass == 0) {
                if (!grouped)
                    continue;
                const int m = rv[want[0] ? 0 : 1], e = rv[2];
                if (ws->where[m] < 0 || ws->where[e] < 0)
                    continue;
                const int row_m = ws->where[m];
                if (!crash_pivot(ws, p, N, N + m, ws->where[e], idx))
                    continue;
                ++pivots;
                if (crash_pivot(ws, p, N, N + e, row_m, idx)) {
                    ++pivots;
                } else { /* back to the slack: the basis stays complementary */
                    crash_pivot(ws, p, N, e, ws->where[N + m], idx);
                    ++pivots;
                }
                continue;
            }
            for (int k = 0; k < 3; ++k) {
                if (!want[k] || rv[k] < 0 || ws->where[N + rv[k]] >= 0)
                    continue;
                pivots += crash_pivot(ws, p, N, N + rv[k], ws->where[rv[k]], idx);
            }
        }
    return pivots;
}

/* 1 when v is one half of a free row's split impulse whose other half is
 * basic */
static int split_partner_basic(const heft_lemke *ws, int N, int v) {
    if (v < N)
        return 0;
    const int k = v - N, i = ws->var_row[k];
    if (ws->row_type[i] != ROW_FREE)
        return 0;
    const int *rv = &ws->row_var[3 * i];
    const int other = rv[0] == k ? rv[1] : rv[0];
    return ws->where[N + other] >= 0;
}

/* Takes the variable that just left back into the basis in z0's place:
 * the path ends at the complementary basis of the last step. */
static int end_at_z0(heft_lemke *ws, const heft_mlcp *p, int N, int leaving, int *idx,
                     int *pivots) {
    const int nz = lcp_column(ws, p, N, leaving, ws->col, idx);
    basis_solve(ws, N, ws->col, idx, nz, ws->a);
    const int rz = ws->where[2 * N];
    const double largest = largest_magnitude(ws->a, N);
    if (rz < 0 || !(fabs(ws->a[rz]) > LEMKE_PIVOT_TOL * largest))
        return HEFT_LEMKE_RAY;
    basis_pivot(ws, p, N, rz, ws->a, leaving);
    ++*pivots;
    return HEFT_LEMKE_SOLVED;
}

/* One complementary path from the basis in ws (x = B^-1 q) with the covering
 * vector d = B e. Returns HEFT_LEMKE_SOLVED (a complementary basis),
 * HEFT_LEMKE_RAY or HEFT_LEMKE_BUDGET; counts pivots. */
static int lemke_path(heft_lemke *ws, const heft_mlcp *p, int N, const double *d, double qscale,
                      int budget, int *pivots, int *idx) {
    const int z0 = 2 * N;
    /* z0 enters at the smallest value that makes x + z0 B^-1 d >= 0 */
    int r = -1;
    double most = 0.0;
    for (int k = 0; k < N; ++k) {
        const double dk = d != NULL ? d[k] : 1.0;
        const double need = -ws->x[k] / dk;
        if (need > most || (need == most && r >= 0 && need > 0.0)) {
            most = need;
            r = k; /* ties: the largest index, lexicographically positive rows */
        }
    }
    if (r < 0)
        return HEFT_LEMKE_SOLVED; /* the start is complementary and feasible */
    for (int k = 0; k < N; ++k)
        ws->a[k] = -(d != NULL ? d[k] : 1.0); /* B^-1 (-d) */
    if (*pivots >= budget)
        return HEFT_LEMKE_BUDGET;
    if (ws->sparse) {
        /* z0's column itself, B times B^-1 (-d), for the factorizations */
        memset(ws->z0col, 0, sizeof(double) * (size_t)N);
        for (int k = 0; k < N; ++k) {
            const int nz = lcp_column(ws, p, N, ws->basic[k], ws->col, idx);
            for (int e = 0; e < nz; ++e) {
                ws->z0col[idx[e]] += ws->a[k] * ws->col[idx[e]];
                ws->col[idx[e]] = 0.0;
            }
        }
    }
    int leaving = ws->basic[r];
    basis_pivot(ws, p, N, r, ws->a, z0);
    ++*pivots;
    for (;;) {
        const int entering = leaving < N ? leaving + N : leaving - N;
        if (*pivots >= budget)
            return HEFT_LEMKE_BUDGET;
        /* The two halves of a free row have opposite columns, so
         * s_a + s_b = (d_a + d_b) z0 all along the path: when one half is
         * basic and the other is to enter, the slack that just left did so
         * at z0 = 0, a tie round-off hid. */
        if (split_partner_basic(ws, N, entering))
            return end_at_z0(ws, p, N, leaving, idx, pivots);
        const int nz = lcp_column(ws, p, N, entering, ws->col, idx);
        basis_solve(ws, N, ws->col, idx, nz, ws->a);
        const double tol = LEMKE_PIVOT_TOL * largest_magnitude(ws->a, N);
        double theta = INFINITY;
        for (int k = 0; k < N; ++k)
            if (ws->a[k] > tol) {
                const double ratio = at_least_zero(ws->x[k]) / ws->a[k];
                if (ratio < theta)
                    theta = ratio;
            }
        if (!isfinite(theta)) {
            /* a ray; when z0 is at round-off level already, the variable
             * that just left did so in a tie with z0 */
            const int rz = ws->where[z0];
            if (rz >= 0 && fabs(ws->x[rz]) <= LEMKE_Z0_RAY * qscale)
                return end_at_z0(ws, p, N, leaving, idx, pivots);
            return HEFT_LEMKE_RAY;
        }
        const double ties = theta + LEMKE_TIE_TOL * (theta + qscale);
        r = -1;
        /* z0 leaves when it is a tie up to a looser tolerance: the path ends
         * there, and the refined answer is measured anyway */
        const int rz = ws->where[z0];
        if (rz >= 0 && ws->a[rz] > tol &&
            at_least_zero(ws->x[rz]) / ws->a[rz] <= theta + LEMKE_Z0_TIE_TOL * (theta + qscale))
            r = rz;
        for (int k = 0; k < N && r != rz; ++k) {
            if (!(ws->a[k] > tol) || at_least_zero(ws->x[k]) / ws->a[k] > ties)
                continue;
            if (r < 0 || lexico_smaller(ws, N, ws->a, r, k))
                r = k;
        }
        leaving = ws->basic[r];
        basis_pivot(ws, p, N, r, ws->a, entering);
        ++*pivots;
        if (ws->broken)
            return HEFT_LEMKE_NO_MEMORY;
        if (leaving == z0)
            return HEFT_LEMKE_SOLVED;
    }
}

/* The answer of the complementary basis in ws: z, refined, then lambda
 * (unscaled, clamped). z: N scratch, s: N scratch. */
static void basis_answer(heft_lemke *ws, const heft_mlcp *p, int N, double *z, double *s,
                         double *lambda) {
    const size_t uN = (size_t)N;
#ifdef HEFT_HAVE_UMFPACK
    if (ws->sparse && (ws->etas > 0 || !ws->identity))
        sparse_refactor(ws, p, N); /* x from B itself */
#endif
    for (int refine = 0; refine <= LEMKE_REFINEMENTS; ++refine) {
        for (int k = 0; k < N; ++k)
            z[k] = ws->where[N + k] >= 0 ? ws->x[ws->where[N + k]] : 0.0;
        if (refine == LEMKE_REFINEMENTS)
            break;
        /* residual of B x = q: s(z) - s_basic */
        lcp_evaluate(ws, p, z, s, N);
        for (int k = 0; k < N; ++k)
            if (ws->where[k] >= 0)
                s[k] -= ws->x[ws->where[k]];
#ifdef HEFT_HAVE_UMFPACK
        if (ws->sparse) {
            sparse_ftran(ws, N, s, ws->a);
        } else
#endif
        {
            for (int r = 0; r < N; ++r) {
                const double *row = &ws->Binv[r * uN];
                double sum = 0.0;
                for (int c = 0; c < N; ++c)
                    sum += row[c] * s[c];
                ws->a[r] = sum;
            }
        }
        for (int r = 0; r < N; ++r)
            ws->x[r] += ws->a[r];
    }
    for (int i = 0; i < p->n; ++i) {
        const int *rv = &ws->row_var[3 * i];
        double l = ws->c[i];
        if (rv[0] >= 0)
            l += fmax(z[rv[0]], 0.0);
        if (rv[1] >= 0)
            l -= fmax(z[rv[1]], 0.0);
        lambda[i] = l * ws->scale[i];
    }
    heft_bpp_clamp_answer(p, lambda);
}

static int reserve(heft_lemke *ws, int n, int N) {
    const size_t un = (size_t)n, uN = (size_t)N + 1;
    if (ws->sparse) {
        if (!HEFT_RESERVE(ws->Bp, ws->Bp_cap, uN) || !HEFT_RESERVE(ws->z0col, ws->z0col_cap, uN) ||
            !HEFT_RESERVE(ws->rhs, ws->rhs_cap, uN) || !HEFT_RESERVE(ws->row1, ws->row1_cap, uN) ||
            !HEFT_RESERVE(ws->row2, ws->row2_cap, uN) ||
            !HEFT_RESERVE(ws->umf_wi, ws->umf_wi_cap, uN) ||
            !HEFT_RESERVE(ws->umf_w, ws->umf_w_cap, 5 * uN) ||
            !HEFT_RESERVE(ws->eta_start, ws->eta_start_cap, 2))
            return 0;
    } else if (!HEFT_RESERVE(ws->Binv, ws->Binv_cap, uN * uN)) {
        return 0;
    }
    return HEFT_RESERVE(ws->A, ws->A_cap, un * un) && HEFT_RESERVE(ws->x, ws->x_cap, uN) &&
           HEFT_RESERVE(ws->col, ws->col_cap, uN) && HEFT_RESERVE(ws->answer, ws->answer_cap, un) &&
           HEFT_RESERVE(ws->bs, ws->bs_cap, un) && HEFT_RESERVE(ws->center, ws->center_cap, un) &&
           HEFT_RESERVE(ws->idx, ws->idx_cap, uN) && HEFT_RESERVE(ws->a, ws->a_cap, uN) &&
           HEFT_RESERVE(ws->q, ws->q_cap, 2 * uN) && HEFT_RESERVE(ws->lambda, ws->lambda_cap, un) &&
           HEFT_RESERVE(ws->work, ws->work_cap, un + 2 * uN) &&
           HEFT_RESERVE(ws->scale, ws->scale_cap, un) && HEFT_RESERVE(ws->c, ws->c_cap, un) &&
           HEFT_RESERVE(ws->mu, ws->mu_cap, un) && HEFT_RESERVE(ws->basic, ws->basic_cap, uN) &&
           HEFT_RESERVE(ws->where, ws->where_cap, 2 * uN + un + 1) &&
           HEFT_RESERVE(ws->var_row, ws->var_row_cap, 3 * un) &&
           HEFT_RESERVE(ws->var_role, ws->var_role_cap, 3 * un) &&
           HEFT_RESERVE(ws->row_var, ws->row_var_cap, 3 * un) &&
           HEFT_RESERVE(ws->row_type, ws->row_type_cap, un) &&
           HEFT_RESERVE(ws->child_start, ws->child_start_cap, un + 1) &&
           HEFT_RESERVE(ws->children, ws->children_cap, un + 1);
}

int heft_lemke_size(const heft_mlcp *p) {
    int count = 0;
    for (int i = 0; i < p->n; ++i) {
        if (p->findex != NULL && p->findex[i] >= 0)
            count += p->hi[i] > 0.0 ? 3 : 0;
        else if (p->lo[i] < p->hi[i])
            count += isinf(p->lo[i]) == isinf(p->hi[i]) ? 2 : 1;
    }
    return count;
}

heft_lemke_options heft_lemke_default_options(int n, double tau) {
    heft_lemke_options o;
    o.max_pivots = 10 * n + 100;
    o.tau = tau;
    o.proximal = 0.0;
    o.fallback_proximal = LEMKE_PROXIMAL;
    o.max_rounds = LEMKE_PROXIMAL_ROUNDS;
    o.max_variables = 0;
    o.max_total_pivots = 0;
    o.max_guess_pivots = 0;
    o.dense = 0;
    o.polish = NULL;
    o.polish_user = NULL;
    o.polish_reach = -1.0;
    return o;
}

/* The paths of one round (from each guess's basis, then from the all-slack
 * one with covering vectors e and others) on the LCP of ws->bs; the better
 * answer by p's error goes to lambda. cold: all-slack paths. */
static int lemke_round(heft_lemke *ws, const heft_mlcp *p, int N, const double *const *guesses,
                       int nguesses, int cold, const heft_lemke_options *o, double *lambda,
                       double *best_error, double *round_error, double *measure_work,
                       heft_lemke_result *result) {
    const size_t un = (size_t)p->n;
    lcp_evaluate(ws, p, NULL, ws->q, N);
    double qscale = 0.0;
    for (int k = 0; k < N; ++k)
        qscale = fmax(qscale, fabs(ws->q[k]));
    if (!(qscale > 0.0))
        qscale = 1.0;
    double *z = ws->work + un, *s = ws->work + un + (size_t)N;
    int status = HEFT_LEMKE_RAY;
    for (int attempt = 0; attempt < nguesses + cold; ++attempt) {
        if (attempt < nguesses && guesses[attempt] == NULL)
            continue;
        result->attempts++;
        basis_identity(ws, N);
        const double *d = NULL; /* B^-1 d = e */
        if (attempt < nguesses) {
            result->crash_pivots += crash(ws, p, N, guesses[attempt], ws->idx);
            basis_values(ws, p, N);
        } else if (attempt > nguesses) {
            /* another covering vector, another path: entries in [0.5, 1.5]
             * from a fixed sequence (deterministic) */
            uint64_t h = 0x9E3779B97F4A7C15ull * (uint64_t)(attempt - nguesses);
            for (int k = 0; k < N; ++k) {
                h ^= h >> 33;
                h *= 0xFF51AFD7ED558CCDull;
                h ^= h >> 29;
                h += 0x9E3779B97F4A7C15ull;
                ws->a[k] = 0.5 + (double)(h >> 11) * 0x1.0p-53;
            }
            memcpy(z, ws->a, sizeof(double) * (size_t)N); /* z: scratch until the answer */
            d = z;
        }
        /* each path has the whole budget of a path, within what is left of
         * the solve's */
        int budget =
            attempt < nguesses && o->max_guess_pivots > 0 ? o->max_guess_pivots : o->max_pivots;
        if (o->max_total_pivots > 0 && o->max_total_pivots - result->pivots < budget)
            budget = o->max_total_pivots - result->pivots;
        if (budget <= 0) {
            if (status != HEFT_LEMKE_SOLVED)
                status = HEFT_LEMKE_BUDGET;
            break;
        }
        int used = 0;
        const int path = lemke_path(ws, p, N, d, qscale, budget, &used, ws->idx);
        result->pivots += used;
        if (path != HEFT_LEMKE_SOLVED) {
            if (status != HEFT_LEMKE_SOLVED)
                status = path;
            continue;
        }
        basis_answer(ws, p, N, z, s, ws->answer);
        double e = heft_mlcp_measure(p, ws->answer, measure_work).max;
        if (e > o->tau && e <= o->polish_reach && o->polish != NULL &&
            o->polish(o->polish_user, p, ws->answer, o->tau)) {
            e = heft_mlcp_measure(p, ws->answer, measure_work).max;
            result->polished++;
        }
        *round_error = fmin(*round_error, e);
        if (!(e >= *best_error)) {
            *best_error = e;
            memcpy(lambda, ws->answer, sizeof(double) * un);
        }
        status = HEFT_LEMKE_SOLVED;
        if (*best_error <= o->tau)
            break;
        /* a complementary basis whose answer misses: round-off in an
         * ill-conditioned basis; the next path may end at a better one */
    }
    return status;
}

int heft_lemke_solve(heft_lemke *ws, const heft_mlcp *p, const double *A,
                     const double *const *guesses, int nguesses, const heft_lemke_options *o,
                     double *lambda, double *measure_work, heft_lemke_result *result) {
    memset(result, 0, sizeof *result);
    result->error_max = INFINITY;
    if (heft_mlcp_check(p, NULL, 0) != 0) {
        result->status = HEFT_LEMKE_INVALID;
        return result->status;
    }
    const int n = p->n;
    const size_t un = (size_t)n;
    if (o->max_variables > 0) {
        const int count = heft_lemke_size(p); /* before anything is allocated */
        result->lcp_size = count;
        if (count > o->max_variables) {
            result->status = HEFT_LEMKE_TOO_LARGE;
            return result->status;
        }
    }
#ifdef HEFT_HAVE_UMFPACK
    ws->sparse = !o->dense;
#else
    ws->sparse = 0;
#endif
    ws->factorizations = 0;
    ws->identity = 1;
    ws->etas = 0;
    ws->lex_row = -1;
    /* the LCP has at most 3 variables a row; the arrays are sized for that */
    if (!reserve(ws, n, 3 * n)) {
        result->status = HEFT_LEMKE_NO_MEMORY;
        return result->status;
    }
    if (A == NULL)
        A = p->A;
    if (A == NULL) {
        heft_mlcp_assemble_dense(p, ws->A); /* scaled in place below */
        A = ws->A;
    }
    ws->eps = o->proximal > 0.0 ? o->proximal : 0.0;
    const int N = build_lcp(ws, p, A);
    if (N < 0) {
        result->status = N == -2 ? HEFT_LEMKE_NO_MEMORY : HEFT_LEMKE_INVALID;
        return result->status;
    }
    result->lcp_size = N;
    memset(ws->col, 0, sizeof(double) * (size_t)N);

    const double *guess = nguesses > 0 ? guesses[0] : NULL;
    /* the proximal centre: the first guess, else 0 */
    for (int i = 0; i < n; ++i)
        ws->center[i] = guess != NULL && isfinite(guess[i]) ? guess[i] : 0.0;
    double best_error = INFINITY;
    int status = HEFT_LEMKE_RAY;
    const double *from = guess;
    for (int stage = 0; stage < 2; ++stage) {
        if (stage == 1) {
            /* Every path ended on a ray (or its basis was inexact): the LCP
             * of A + eps I about a centre is solved instead, round after
             * round, each centre the last round's answer; at a fixed point
             * the shift cancels and the answer is the MLCP's. */
            if (best_error <= o->tau || !(o->fallback_proximal > 0.0) || ws->eps > 0.0)
                break;
            ws->eps = o->fallback_proximal;
            for (int i = 0; i < n; ++i)
                ws->A[i * un + i] += ws->eps;
            if (isfinite(best_error))
                memcpy(ws->center, lambda, sizeof(double) * un);
            from = isfinite(best_error) || guess != NULL ? ws->center : NULL;
            guesses = &from;
            nguesses = 1;
        }
        const int rounds = ws->eps > 0.0 ? (o->max_rounds > 0 ? o->max_rounds : 1) : 1;
        const int cold = ws->eps > 0.0 ? 1 : LEMKE_COLD_PATHS;
        /* the proximal rounds go on while each gets closer than the one
         * before: their fixed point is what counts, not an answer of the
         * unshifted paths that is better than the first rounds' */
        double before = INFINITY;
        for (int round = 0; round < rounds; ++round) {
            for (int i = 0; i < n; ++i)
                ws->bs[i] = ws->scale[i] * p->b[i] + ws->eps * ws->center[i] / ws->scale[i];
            double this_round = INFINITY;
            const int r = lemke_round(ws, p, N, guesses, nguesses, cold, o, lambda, &best_error,
                                      &this_round, measure_work, result);
            result->rounds++;
            if (r != HEFT_LEMKE_SOLVED) {
                if (!isfinite(best_error))
                    status = r;
                break;
            }
            if (best_error <= o->tau || ws->eps == 0.0 || !(this_round < before))
                break;
            before = this_round;
            /* the next round about this round's answer, from its basis */
            memcpy(ws->center, ws->answer, sizeof(double) * un);
            from = ws->center;
            guesses = &from;
            nguesses = 1;
        }
    }
    if (isfinite(best_error))
        status = best_error <= o->tau ? HEFT_LEMKE_SOLVED : HEFT_LEMKE_INEXACT;
    result->status = status;
    result->error_max = best_error;
    result->factorizations = ws->factorizations;
    return status;
}
