/* Heft: sparse block LDL^T of the equality block H = J W J^T (private header).
 *
 * [Mizerski 2020] (Mizerski, GDC 2020), slides "Block LDL" to "Body Shattering".
 * The matrix is that of a chosen subset of an MLCP's rows (ldl-pgs passes its
 * equality rows): rows are grouped into nodes (one joint = one block of
 * rows), two nodes are joined by an edge when they share a dynamic body
 * (slide "Constraint Graph": the edge graph of the body graph).
 *
 * Symbolic phase (heft_block_ldl_analyze), once per topology:
 *   - optional body shattering (slide "Body Shattering"): a body touched by
 *     more than shatter_degree nodes is split into equal shards (each with
 *     1/s of its mass and inertia, all in the body's frame) chained by fixed
 *     joints (6 rows, J = [I, -I]); its nodes are spread over the shards in
 *     runs of shard_constraints. With exact fixed rows the original rows'
 *     multipliers are those of the unshattered system.
 *   - graph elimination by minimum edge creation (slide "MECA"), or minimum
 *     degree, giving the pivot sequence and each pivot's edge sequence sorted
 *     in pivot order (slide "Gaussian Elimination on Graphs");
 *   - the packed layout: per pivot its diagonal block N (d x d, row-major)
 *     followed by its edge matrix E_{*,k} (h x d, row-major), in pivot order
 *     (slide "Sparse Block Matrix Memory Layout");
 *   - the reduction scatter indices, h(h+1)/2 per pivot (slide "Reduction
 *     Scattering Indexation").
 * Numeric phase (heft_block_ldl_factor), every step: per pivot, LDL of N in
 * place, L = E N^-1, S -= E L^T through the scatter indices, E <- L (slide
 * "Sparse Block Gaussian Elimination"), with kernels specialised for d = 1..6
 * (slide "Implementation"). */
#ifndef HEFT_BLOCK_LDL_H
#define HEFT_BLOCK_LDL_H

#include <stddef.h>
#include <stdint.h>

#include "mlcp.h"

enum { HEFT_ORDER_MIN_EDGE = 0, HEFT_ORDER_MIN_DEGREE = 1, HEFT_ORDER_NATURAL = 2 };

typedef struct heft_block_ldl_config {
    int ordering;       /* HEFT_ORDER_MIN_EDGE (default), _MIN_DEGREE or _NATURAL */
    int shatter_degree; /* shatter bodies touched by more nodes than this; 0: never (default 20) */
    int shard_constraints; /* nodes per shard (default 2: the slides' 20 wheels, 10 shards) */
    double regularization; /* eps of slide "Compliance and Regularization": H~_ii += eps H_ii
                              (default 1e-12) */
} heft_block_ldl_config;

heft_block_ldl_config heft_block_ldl_default_config(void);

typedef struct heft_block_ldl_stats {
    int nodes, dim;               /* after shattering */
    int shattered_bodies, shards; /* shards added (fixed joints = shards) */
    int edges;                    /* edges of the constraint graph */
    int fill_edges;               /* edges created by the elimination */
    double density;               /* stored lower entries of H / (dim (dim + 1) / 2) */
    size_t factor_entries;        /* doubles in the packed factor */
    double flops;                 /* slide "Performance of Block LDL": d^3/6 + h d^2 + d h(h+1)/2 */
    int block_sizes[8];           /* pivots of size 1..6 at [1..6], larger at [7] */
} heft_block_ldl_stats;

/* One block of H = J W J^T from one shared body: rows x cols entries at
 * values + out (row stride `stride`), entry (r, c) += J_{row_i + r, side_i} .
 * (W J^T)_{row_l + c, side_l}; lower: only c <= r (a diagonal block's own run). */
typedef struct heft_block_ldl_product {
    uint32_t out;
    int row_i, row_l, rows, cols, stride;
    unsigned char side_i, side_l, lower;
} heft_block_ldl_product;

typedef struct heft_block_ldl {
    heft_block_ldl_config config;
    int valid; /* symbolic phase done */
    /* the system's rows: the problem's chosen rows, then the fixed rows of shards */
    int nrows;          /* rows of the system (chosen + 6 per shard joint) */
    int nchosen;        /* rows chosen from the problem */
    int *src;           /* per system row: the problem row, or -1 - axis for a fixed row */
    int32_t *ra, *rb;   /* per system row: system bodies, -1 static */
    int nbodies;        /* system bodies: the problem's, then the added shards */
    int *body_origin;   /* per system body: the problem's body */
    double *body_scale; /* per system body: shards of its origin (W multiplier) */
    /* set by every factor */
    double *body_w;         /* 7 per system body: its scaled inverse mass and inertia */
    const double **row_jac; /* 2 per system row: its Jacobian blocks, side a then b */
    double *response;       /* W J^T by component: [(6 side + axis) nrows + row], + 1 spare */
    double *inv_pivot;      /* per system row: 1 / D_jj of its node's LDL^T */
    /* nodes: contiguous runs of system rows */
    int nnodes;
    int *node_start; /* nnodes + 1 */
    int *row_node;   /* per system row: its node */
    int *order;      /* pivot sequence: node of each pivot */
    int *pos;        /* per node: its place in the pivot sequence */
    /* packed layout, per pivot k (pivot order) */
    size_t *value_off; /* N_k at values + value_off[k], E_{*,k} right after */
    int *height;       /* h of E_{*,k} */
    int *erow_off;     /* E rows of pivot k: erow[erow_off[k] ..] */
    int *erow;         /* the system row of each E row */
    size_t *rsi_off;   /* scatter indices of pivot k */
    uint32_t *rsi;
    int *edge_off, *edge_node, *edge_row; /* edge sequence: nodes and first E row */
    /* assembly of H~ into the packed layout: one block product per pair of
     * row runs that share a body (symbolic phase), so the numeric phase adds
     * 6-term products J_i (W J_l^T) into each stored block with no search */
    heft_block_ldl_product *products;
    int nproducts;
    double *values;
    double *ltemp; /* scratch: L^T (d x h rounded up to even) and one row of E L^T */
    double *work;  /* dim doubles */
    heft_block_ldl_stats stats;
    size_t values_count, rsi_count;
    int factored; /* pivots eliminated by the last factor */
} heft_block_ldl;

/* Symbolic phase for the rows rows[0..count) of p, which must have the
 * structured form. Rows sharing p->block (when present; else the same body
 * pair) and adjacent in rows[] form one node. Frees whatever f held. Returns
 * 0, or -1 (out of memory, bad body index, a layout over 2^32 entries). */
int heft_block_ldl_analyze(heft_block_ldl *f, const heft_mlcp *p, const int *rows, int count,
                           const heft_block_ldl_config *config);

/* Numeric phase: assembles H~ = J W J^T + diag(epsilon) + reg diag(H) for the
 * current values of p (same topology as analyzed) and eliminates the first
 * npivots pivots (all when npivots < 0). Returns 0, or -1 when a pivot block
 * was not positive definite or not finite. */
int heft_block_ldl_factor(heft_block_ldl *f, const heft_mlcp *p, int npivots);

/* Solves H~ x = r for the chosen rows: r and x indexed like rows[] of
 * analyze (x may alias r). Needs a complete factor_. */
void heft_block_ldl_solve(heft_block_ldl *f, const double *r, double *x);

/* The packed matrix's entry for system rows i and j (0 where nothing is
 * stored): after factor(npivots), the entries among uneliminated nodes are
 * the Schur complement. For tests. */
double heft_block_ldl_entry(const heft_block_ldl *f, int i, int j);

void heft_block_ldl_release(heft_block_ldl *f);

#endif
