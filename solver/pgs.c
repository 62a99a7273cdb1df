/* Heft: projected Gauss-Seidel, the "pgs" solver.
 *
 * Gauss-Seidel on A lambda = b, one row at a time, each new value projected
 * onto the row's box [lo_i, hi_i] ([Mizerski 2020], slide "Solving K Lambda
 * = R: (Projected) Gauss-Seidel"; [Lefebvre 2020] §1.3.1). For row i, with
 * w = A lambda - b and d_i = A_ii:
 *
 *     lambda_i <- clamp(lambda_i - relaxation * w_i / d_i, lo_i, hi_i)
 *
 * On the structured form A is never formed ([Mizerski 2020], slide "Faster
 * Calculation of K_i Lambda"): A_i lambda = J_i (M^-1 J^T lambda) = J_i dv,
 * where dv, 6 numbers per body, is the velocity change the current impulses
 * cause. A row touches two bodies, so w_i costs 12 multiplications, and a
 * change of lambda_i updates dv with the row's 12 precomputed numbers
 * M^-1 J_i^T. On a dense-only problem w_i is the dot of row i of A with lambda.
 *
 * The sweep reads the rows as Bullet's sequential impulses do
 * (btSequentialImpulseConstraintSolver): a copy of J_i and M^-1 J_i^T per row
 * in one contiguous record, the body slots resolved once (a static side
 * points at a zero slot), J_i stored scaled by relaxation / d_i, and the
 * 12-term products in SSE2 pairs. The sweep's cost is the latency of one row
 * after another on the same bodies, so the products are summed as a tree
 * (the order is written out for builds without SSE2, which give the same
 * bits) and the part of the update that does not depend on dv is computed
 * off that path. The rows are taken in an order that puts rows of different
 * bodies next to each other, and the friction rows whose normal row pushes
 * nothing are not computed, both without changing a bit of the answers
 * (schedule_rows, sweep_rows; docs/pgs.md "The sweep's order and the rows it
 * skips").
 *
 * Friction rows take their box from the current normal impulse (ODE's
 * findex), so the coupling is seen as soon as the normal row moves.
 * Iteration stops when no row changed by more than options.tolerance joules
 * (0.5 delta^2 d_i) over a whole sweep, or after options.max_iterations sweeps.
 *
 * The warm start and the position correction (docs/pgs.md "A light chain
 * under a heavy load"). The warm start carries the last step's whole impulse,
 * the Baumgarte part too, and on the modes the sweeps do not converge within
 * a step it keeps pushing where the last step pushed: a delayed position
 * feedback. Where the sweeps converge a mode in a fraction alpha per step and
 * the joints correct a fraction beta of their gap per step, it grows once
 * alpha falls below about beta; the tension mode of a 100-link chain under
 * 100 kg has alpha of 1e-2 to 3e-2 at 50 sweeps and opened its joints by
 * hundreds of metres. The same memory is what corrects the gaps of a chain
 * dragged onto a winch's drum, which the sweeps of one step cannot. So an
 * island keeps it until its joints ask for a correction faster than
 * PGS_SPLIT_SPEED on PGS_SPLIT_STEPS solves in a row, as a runaway does and
 * a swing or a knock does not; from then on (latched for the island) the
 * position correction is solved apart, as split impulses are (Bullet's
 * btSequentialImpulseConstraintSolver on deep contacts; Box2D's relax
 * iterations): the sweeps solve A lambda = b - bias from a warm start without
 * it, as many sweeps again solve A share = bias within the rows' boxes (as
 * Bullet's split impulse sweeps its pseudo-velocities as often; a tenth as
 * many left the chain's gaps at 1 cm after a minute instead of 1.3 mm),
 * and the answer is their sum. The state remembers the share and takes it
 * off the next warm start of each row that carries this answer. A
 * contact's push out of penetration is always taken apart, from the first
 * solve: left in the warm start it made stacks of boxes sway as one column
 * at 50 sweeps (docs/pgs.md "Contacts: the correction always apart").
 *
 * Light bodies (docs/pgs.md "Light bodies between heavy ones"). A body much
 * lighter than a moving body it is jointed to passes impulses between its
 * neighbours only through many sweeps: one row moves the light body and
 * barely the heavy one, and the next row takes the motion back. A 0.9 kg
 * steering knuckle between a 2,430 kg chassis and a 67 kg wheel held at 50
 * sweeps let the wheel spin up to 1,000 rad/s and threw the truck. So the
 * joint rows (free on both sides, no friction index) of a body at most
 * 1/options.pgs_light_ratio as heavy as a moving body one of them joins it
 * to are, after each sweep, solved together exactly (one dense Cholesky
 * factor of their A block a solve; a block of at most PGS_BLOCK_MAX rows),
 * with every other row held: block Gauss-Seidel on that block. The boxed
 * rows on the body (motors, limits) stay in the sweep.
 *
 * The state of one island is the options, a workspace that only grows (once
 * the largest problem of an island has been seen, a solve allocates nothing)
 * and the position correction's count, latch and memory. */
#include "array.h"
#include "dense_cholesky.h"
#include "pgs.h"
#include "row_math.h"
#include "solve_frame.h"
#include "state_bytes.h"

#include <math.h>
#include <string.h>

/* The rows of the structured form as the sweep reads them: one record of 24
 * doubles per row, J_i for side a and side b then M^-1 J_i^T for side a and
 * side b, so a row's numbers are one contiguous read; the body indices in
 * their own arrays, a static side pointing at a spare zero slot of dv past
 * the bodies with zero Jacobian and response there. The sweep then has no
 * branch on the sides and no lookup through the problem's row structs. */
#define PGS_ROW 24

/* An island whose rigid joints ask, on PGS_SPLIT_STEPS solves in a row, for
 * a position correction faster than PGS_SPLIT_SPEED m/s (rad/s on angular
 * rows) latches into solving the correction apart. At h = 1/60 s with the
 * engine's Baumgarte factor for iterative solvers (0.2) that is a gap above
 * 4 mm for a quarter of a second: the 100-link chain under 100 kg gets there
 * after 0.3 s and latches at 0.52 s; a pendulum swung hard against its cone
 * limit opens its joint that wide for at most 7 steps at a time, a 6-joint
 * arm falling from horizontal for at most 14, and the winch's joints stay
 * under 2.3 mm.
 * Below it an island is stepped exactly as without. */
#define PGS_SPLIT_SPEED 0.05
#define PGS_SPLIT_STEPS 15

typedef struct pgs_state {
    heft_solver_options options;
    double *rows;         /* PGS_ROW per row: ja, jb, M^-1 ja^T, M^-1 jb^T */
    int32_t *side;        /* 2 per row: dv slots of sides a and b */
    double *diagonal;     /* d_i per row; 0 marks a row PGS cannot move */
    double *step;         /* relaxation / d_i per row, 0 where d_i is 0 */
    double *epsilon;      /* eps_i per row (zeros when the problem has none) */
    double *dv;           /* 6 per body and 6 spare zeros: M^-1 J^T lambda */
    double *measure_work; /* n + 6 nbodies for heft_mlcp_measure */
    /* The structured sweep takes the rows in its own order (schedule_rows):
     * position k holds row order[k], and rows, side, step, epsilon and
     * diagonal above are by position, as are the arrays below. */
    int32_t *order;    /* n: the row at each position */
    int32_t *normal;   /* n: a friction row's normal row (its position), else -1 */
    int32_t *schedule; /* 3 n + nbodies + 1: the levels of the order */
    double *lo, *hi;   /* n: the bounds; a friction row's hi is its mu */
    double *lambda_at; /* n: lambda by position */
    double *b_at;      /* n: the swept b by position */
    double *share_at;  /* n: the position share by position */
    int finite_rows;   /* every row's record, step and eps finite (this solve) */
    int plain_sweep;   /* rows in their own order, each updated: the reference (tests) */
    size_t rows_cap, side_cap, diagonal_cap, step_cap, epsilon_cap, dv_cap, measure_cap, order_cap,
        normal_cap, schedule_cap, lo_cap, hi_cap, lambda_at_cap, b_at_cap,
        share_at_cap; /* in elements */
    /* the position correction solved apart: only in the pgs solver's own
     * states (not the restarts and rescues inside other solvers), once
     * latched */
    int split_bias;      /* may latch */
    int latched;         /* solves the correction apart from now on */
    int above;           /* solves in a row with a correction above PGS_SPLIT_SPEED */
    double *velocity_b;  /* n: b - bias */
    double *position_b;  /* n: bias, 0 where not finite */
    double *last_answer; /* n: the last solve's answer */
    double *last_share;  /* n: the part of it the position pass added */
    int last_n;          /* rows of the last solve, -1: nothing remembered */
    size_t velocity_b_cap, position_b_cap, last_cap;
    /* the light bodies' blocks (find_blocks), by position */
    int nblocks;
    int32_t *block_start; /* nblocks + 1: each block's first entry in block_pos */
    int32_t *block_pos;   /* the positions of the blocks' rows */
    size_t *factor_start; /* nblocks + 1: each block's first entry in factor */
    double *factor;       /* per block, m x m: the Cholesky factor of its A block */
    int32_t *body_rows;   /* nbodies: joint rows on a light body, -1 on the others */
    size_t block_start_cap, block_pos_cap, factor_start_cap, factor_cap, body_rows_cap;
} pgs_state;

/* The most joint rows a light body's block takes (four six-row joints); a
 * body with more keeps them in the sweep. */
#define PGS_BLOCK_MAX 24

/* Makes *array hold at least need elements of size bytes; the contents are
 * not kept. An array that grows again at least doubles (capacity_ahead). */
static int workspace_reserve(void **array, size_t *cap, size_t need, size_t size) {
    if (need <= *cap)
        return 1;
    need = capacity_ahead(*cap, need);
    heft_free(*array);
    *array = need <= SIZE_MAX / size ? heft_alloc(size * need) : NULL;
    *cap = *array != NULL ? need : 0;
    return *array != NULL;
}

/* Makes the memory of the last answer hold n rows, keeping what it holds: a
 * state restored from a snapshot has only the room its saved answer needed,
 * and must remember as the original does. Returns 0 when out of memory (the
 * memory then forgotten). */
static int reserve_memory(pgs_state *s, size_t n) {
    if (n <= s->last_cap)
        return 1;
    n = capacity_ahead(s->last_cap, n);
    double *answer = heft_alloc(sizeof(double) * n), *share = heft_alloc(sizeof(double) * n);
    if (answer != NULL && share != NULL && s->last_n > 0) {
        memcpy(answer, s->last_answer, sizeof(double) * (size_t)s->last_n);
        memcpy(share, s->last_share, sizeof(double) * (size_t)s->last_n);
    }
    heft_free(s->last_answer);
    heft_free(s->last_share);
    s->last_answer = answer;
    s->last_share = share;
    if (answer == NULL || share == NULL) {
        heft_free(answer);
        heft_free(share);
        s->last_answer = s->last_share = NULL;
        s->last_cap = 0;
        s->last_n = -1;
        return 0;
    }
    s->last_cap = n;
    return 1;
}

int heft_pgs_reserve(void *state, const heft_mlcp *p) {
    return heft_pgs_reserve_size(state, p->n, p->nbodies, p->rows != NULL);
}

int heft_pgs_reserve_size(void *state, int rows, int bodies, int structured) {
    pgs_state *s = state;
    const size_t n = rows > 0 ? (size_t)rows : 0;
    if (s->split_bias && structured &&
        (!workspace_reserve((void **)&s->velocity_b, &s->velocity_b_cap, n, sizeof(double)) ||
         !workspace_reserve((void **)&s->position_b, &s->position_b_cap, n, sizeof(double)) ||
         !reserve_memory(s, n)))
        return 0;
    const size_t nb = structured && bodies > 0 ? (size_t)bodies : 0;
    const size_t d = sizeof(double);
    return workspace_reserve((void **)&s->diagonal, &s->diagonal_cap, n, d) &&
           workspace_reserve((void **)&s->measure_work, &s->measure_cap, n + 6 * nb, d) &&
           (!structured ||
            (workspace_reserve((void **)&s->rows, &s->rows_cap, PGS_ROW * n, d) &&
             workspace_reserve((void **)&s->side, &s->side_cap, 2 * n, sizeof(int32_t)) &&
             workspace_reserve((void **)&s->step, &s->step_cap, n, d) &&
             workspace_reserve((void **)&s->epsilon, &s->epsilon_cap, n, d) &&
             workspace_reserve((void **)&s->dv, &s->dv_cap, 6 * nb + 6, d) &&
             workspace_reserve((void **)&s->order, &s->order_cap, n, sizeof(int32_t)) &&
             workspace_reserve((void **)&s->normal, &s->normal_cap, n, sizeof(int32_t)) &&
             workspace_reserve((void **)&s->schedule, &s->schedule_cap, 3 * n + nb + 1,
                               sizeof(int32_t)) &&
             workspace_reserve((void **)&s->lo, &s->lo_cap, n, d) &&
             workspace_reserve((void **)&s->hi, &s->hi_cap, n, d) &&
             workspace_reserve((void **)&s->lambda_at, &s->lambda_at_cap, n, d) &&
             workspace_reserve((void **)&s->b_at, &s->b_at_cap, n, d) &&
             workspace_reserve((void **)&s->share_at, &s->share_at_cap, n, d)));
}

void *heft_pgs_create_inner(const heft_solver_options *options) {
    pgs_state *s = heft_alloc(sizeof *s);
    if (s == NULL)
        return NULL;
    memset(s, 0, sizeof *s);
    s->options = options != NULL ? *options : heft_solver_default_options();
    s->last_n = -1;
    return s;
}

void heft_pgs_plain_sweep(void *state, int plain) {
    pgs_state *s = state;
    if (s != NULL)
        s->plain_sweep = plain != 0;
}

static void *pgs_create(const heft_solver_options *options) {
    pgs_state *s = heft_pgs_create_inner(options);
    if (s != NULL)
        s->split_bias = 1;
    return s;
}

static void pgs_destroy(void *state) {
    pgs_state *s = state;
    if (s == NULL)
        return;
    heft_free(s->rows);
    heft_free(s->side);
    heft_free(s->step);
    heft_free(s->epsilon);
    heft_free(s->diagonal);
    heft_free(s->dv);
    heft_free(s->measure_work);
    heft_free(s->order);
    heft_free(s->normal);
    heft_free(s->schedule);
    heft_free(s->lo);
    heft_free(s->hi);
    heft_free(s->lambda_at);
    heft_free(s->b_at);
    heft_free(s->share_at);
    heft_free(s->velocity_b);
    heft_free(s->position_b);
    heft_free(s->last_answer);
    heft_free(s->last_share);
    heft_free(s->block_start);
    heft_free(s->block_pos);
    heft_free(s->factor_start);
    heft_free(s->factor);
    heft_free(s->body_rows);
    heft_free(s);
}

/* The engine resets a state when its island's rows change, as they do
 * whenever a contact comes or goes, while the warm starts it hands on keep
 * their shares: the memory stays (it is used only where a row's warm start is
 * its last answer bit for bit), and so does the latch. */
static void pgs_reset(void *state) {
    (void)state;
}

/* ---- the structured form: velocity deltas --------------------------------- */

/* The normal row whose impulse gives row i its box (ODE's findex), or -1. */
static int32_t normal_row(const heft_mlcp *p, int i) {
    const int32_t f = p->findex != NULL ? p->findex[i] : -1;
    return f >= 0 && f < p->n ? f : -1;
}

/* The order the sweep takes the rows in. Row i reads and writes only dv of
 * its two bodies and its own impulse, and reads its normal row's; so a row
 * may run before an earlier row with which it shares no body and no
 * friction coupling, and every number of the sweep stays what it is in the
 * rows' own order (each dv slot sees the same updates in the same order; the
 * largest energy is a maximum). The rows are sorted by their level: one more
 * than the highest level of the earlier rows they must follow (the last
 * earlier row on each of their bodies, their normal row if it comes first,
 * the friction rows before it that read a normal row). Rows of one level
 * share no body, so a row rarely waits for the previous row's dv: the
 * sweep's cost is the latency of one row after the next on the same bodies. */
static void schedule_rows(const heft_mlcp *p, pgs_state *s) {
    const int n = p->n, nb = p->nbodies;
    int32_t *order = s->order;
    if (s->plain_sweep) {
        for (int i = 0; i < n; ++i)
            order[i] = i;
        return;
    }
    int32_t *body_level = s->schedule; /* nb: the level of the last row on each body */
    int32_t *level = body_level + nb;  /* n: each row's */
    int32_t *read_level = level + n;   /* n: the highest level of the rows reading it */
    int32_t *count = read_level + n;   /* n + 1: rows per level, then where each begins */
    for (int k = 0; k < nb; ++k)
        body_level[k] = 0;
    for (int i = 0; i < n; ++i)
        read_level[i] = 0;
    for (int i = 0; i <= n; ++i)
        count[i] = 0;
    int top = 0;
    for (int i = 0; i < n; ++i) {
        const heft_mlcp_row *r = &p->rows[i];
        const int has_a = heft_row_body(p, r->a) >= 0, has_b = heft_row_body(p, r->b) >= 0;
        int32_t l = read_level[i];
        if (has_a && body_level[r->a] > l)
            l = body_level[r->a];
        if (has_b && body_level[r->b] > l)
            l = body_level[r->b];
        const int32_t f = normal_row(p, i);
        if (f >= 0 && f < i && level[f] > l)
            l = level[f];
        ++l; /* levels 1 .. n */
        level[i] = l;
        if (has_a)
            body_level[r->a] = l;
        if (has_b)
            body_level[r->b] = l;
        if (f > i && read_level[f] < l)
            read_level[f] = l;
        ++count[l - 1];
        top = l > top ? l : top;
    }
    /* a stable counting sort by level */
    int32_t begin = 0;
    for (int l = 0; l < top; ++l) {
        const int32_t c = count[l];
        count[l] = begin;
        begin += c;
    }
    for (int i = 0; i < n; ++i)
        order[count[level[i] - 1]++] = i;
}

/* The order of the sweep (schedule_rows), then per row at its position k:
 * J_i and response = M^-1 J_i^T (12 numbers each, zero on a static side),
 * the dv slots of its sides, d_i = J_i M^-1 J_i^T + eps_i, its bounds and
 * its normal row's position. */
static void precompute_rows(const heft_mlcp *p, pgs_state *s) {
    const int32_t spare = 6 * p->nbodies; /* always zero: nothing moves it */
    int finite = 1;
    schedule_rows(p, s);
    int32_t *position = s->schedule; /* by row; the levels are spent */
    for (int k = 0; k < p->n; ++k)
        position[s->order[k]] = k;
    for (int k = 0; k < p->n; ++k) {
        const int i = s->order[k];
        const heft_mlcp_row *r = &p->rows[i];
        double *row = &s->rows[PGS_ROW * (size_t)k];
        double *ja = row, *jb = row + 6, *ra = row + 12, *rb = row + 18;
        memset(row, 0, PGS_ROW * sizeof(double));
        double d = p->epsilon != NULL ? p->epsilon[i] : 0.0;
        const int has_a = heft_row_body(p, r->a) >= 0, has_b = heft_row_body(p, r->b) >= 0;
        s->side[2 * k] = has_a ? 6 * r->a : spare;
        s->side[2 * k + 1] = has_b ? 6 * r->b : spare;
        if (has_a) {
            memcpy(ja, r->ja, 6 * sizeof(double));
            heft_body_inverse_mass_times(&p->bodies[r->a], r->ja, ra);
            d += heft_dot6(r->ja, ra);
        }
        if (has_b) {
            memcpy(jb, r->jb, 6 * sizeof(double));
            heft_body_inverse_mass_times(&p->bodies[r->b], r->jb, rb);
            d += heft_dot6(r->jb, rb);
            if (r->b == r->a) /* both sides on one body: the cross terms */
                d += 2.0 * heft_dot6(r->ja, rb);
        }
        if (!isfinite(d)) {
            /* A broken row must not spread Inf/NaN through dv to its neighbours. */
            memset(row, 0, PGS_ROW * sizeof(double));
            d = 0.0;
        }
        s->diagonal[k] = d > 0.0 ? d : 0.0;
        s->step[k] = d > 0.0 ? s->options.relaxation / d : 0.0;
        s->epsilon[k] = p->epsilon != NULL ? p->epsilon[i] : 0.0;
        /* the sweep reads J_i scaled by relaxation / d_i: one product less
         * on the path from dv to the row's new impulse */
        for (int c = 0; c < 12; ++c)
            row[c] *= s->step[k];
        const int32_t f = normal_row(p, i);
        s->normal[k] = f >= 0 ? position[f] : -1;
        s->lo[k] = p->lo[i];
        s->hi[k] = f >= 0 ? fabs(p->hi[i]) : p->hi[i];
        finite = finite && isfinite(s->step[k]) && isfinite(s->epsilon[k]);
        for (int c = 0; c < PGS_ROW; ++c)
            finite = finite && isfinite(row[c]);
    }
    s->finite_rows = finite;
}

/* Whether row i is a joint row a light body's block may take: free on both
 * sides, no friction index (motors and limits have a box and stay in the
 * sweep). */
static int joint_row(const heft_mlcp *p, int i) {
    return p->kind != NULL && p->kind[i] == HEFT_ROW_BILATERAL && normal_row(p, i) < 0 &&
           p->lo[i] == -INFINITY && p->hi[i] == INFINITY;
}

/* The light bodies (mark[b] >= 0) whose block takes row i, into owner;
 * returns how many (0 to 2). */
static int block_owners(const heft_mlcp *p, const int32_t *mark, int i, int32_t owner[2]) {
    if (!joint_row(p, i))
        return 0;
    const heft_mlcp_row *r = &p->rows[i];
    int count = 0;
    if (heft_row_body(p, r->a) >= 0 && mark[r->a] >= 0)
        owner[count++] = r->a;
    if (heft_row_body(p, r->b) >= 0 && r->b != r->a && mark[r->b] >= 0)
        owner[count++] = r->b;
    return count;
}

/* A's entry of the rows at positions x and y: J_x M^-1 J_y^T over the bodies
 * they share, from the sweep's records (J_x is stored scaled by step_x). */
static double block_entry(const pgs_state *s, int x, int y) {
    const double *rx = &s->rows[PGS_ROW * (size_t)x], *ry = &s->rows[PGS_ROW * (size_t)y];
    double v = 0.0;
    for (int u = 0; u < 2; ++u)
        for (int t = 0; t < 2; ++t)
            if (s->side[2 * x + u] == s->side[2 * y + t])
                v += heft_dot6(rx + 6 * u, ry + 12 + 6 * t);
    return v / s->step[x] + (x == y ? s->epsilon[x] : 0.0);
}

/* In place: the Cholesky factor of the block's m x m matrix a
 * (dense_cholesky.h); 0 when a pivot is not above 1e-12 of its diagonal
 * entry (the block's rows depend on one another, and the compliance alone
 * would make its solve huge). diag: m doubles of scratch. */
static int block_factor(double *a, int m, double *diag) {
    for (int k = 0; k < m; ++k)
        diag[k] = a[k * m + k];
    if (heft_dense_cholesky_factor(a, m) != 0)
        return 0;
    for (int k = 0; k < m; ++k)
        if (!(a[k * m + k] * a[k * m + k] > 1e-12 * diag[k]))
            return 0;
    return 1;
}

/* The light bodies' blocks of this solve (after precompute_rows): a body
 * whose inverse mass is at least pgs_light_ratio times that of a moving
 * body a joint row joins it to takes its joint rows, 2 to PGS_BLOCK_MAX of
 * them, as a block; each block's A is factored once. A block whose factor
 * fails (dependent rows) or whose rows PGS cannot move is dropped. Returns 0
 * when out of memory. */
static int find_blocks(const heft_mlcp *p, pgs_state *s) {
    s->nblocks = 0;
    const double ratio = s->options.pgs_light_ratio;
    const int n = p->n, nb = p->nbodies;
    if (!(ratio > 0.0) || p->kind == NULL || n == 0)
        return 1;
    /* two passes over the joint rows: whether any body is light (a problem
     * without one, as every stack, touches no memory of the blocks), then
     * which */
    int32_t *count = NULL;
    for (int pass = 0; pass < 2; ++pass) {
        int any = 0;
        for (int i = 0; i < n; ++i) {
            const heft_mlcp_row *r = &p->rows[i];
            if (!joint_row(p, i) || heft_row_body(p, r->a) < 0 || heft_row_body(p, r->b) < 0 ||
                r->a == r->b)
                continue;
            const double ia = p->bodies[r->a].inv_mass, ib = p->bodies[r->b].inv_mass;
            const int light_a = ia >= ratio * ib && ib > 0.0,
                      light_b = ib >= ratio * ia && ia > 0.0;
            any = any || light_a || light_b;
            if (count != NULL && light_a)
                count[r->a] = 0;
            if (count != NULL && light_b)
                count[r->b] = 0;
        }
        if (!any)
            return 1;
        if (count == NULL) {
            if (!workspace_reserve((void **)&s->body_rows, &s->body_rows_cap, (size_t)nb,
                                   sizeof(int32_t)))
                return 0;
            count = s->body_rows;
            for (int b = 0; b < nb; ++b)
                count[b] = -1;
        }
    }
    int32_t owner[2];
    for (int k = 0; k < n; ++k)
        for (int o = 0, m = block_owners(p, count, s->order[k], owner); o < m; ++o)
            ++count[owner[o]];
    int blocks = 0;
    size_t entries = 0, cells = 0;
    for (int b = 0; b < nb; ++b)
        if (count[b] >= 2 && count[b] <= PGS_BLOCK_MAX) {
            ++blocks;
            entries += (size_t)count[b];
            cells += (size_t)count[b] * (size_t)count[b];
        }
    if (blocks == 0)
        return 1;
    if (!workspace_reserve((void **)&s->block_start, &s->block_start_cap, (size_t)blocks + 1,
                           sizeof(int32_t)) ||
        !workspace_reserve((void **)&s->block_pos, &s->block_pos_cap, entries, sizeof(int32_t)) ||
        !workspace_reserve((void **)&s->factor_start, &s->factor_start_cap, (size_t)blocks + 1,
                           sizeof(size_t)) ||
        !workspace_reserve((void **)&s->factor, &s->factor_cap, cells, sizeof(double)))
        return 0;
    /* each body's block in body order, its rows in the sweep's order: count
     * becomes the body's block and the fill pointer goes through block_start */
    int q = 0;
    int32_t at = 0;
    for (int b = 0; b < nb; ++b) {
        if (count[b] >= 2 && count[b] <= PGS_BLOCK_MAX) {
            s->block_start[q] = at;
            at += count[b];
            count[b] = q++;
        } else {
            count[b] = -1;
        }
    }
    s->block_start[q] = at;
    int32_t *fill = s->schedule; /* free after precompute_rows beyond the n positions */
    fill += n;
    for (int k = 0; k < blocks; ++k)
        fill[k] = s->block_start[k];
    for (int k = 0; k < n; ++k)
        for (int o = 0, m = block_owners(p, count, s->order[k], owner); o < m; ++o)
            s->block_pos[fill[count[owner[o]]]++] = k;
    /* factor each block; a failed one is left out, the next ones moved down */
    int kept = 0;
    size_t used = 0;
    int32_t write = 0, begin = 0;
    for (int k = 0; k < blocks; ++k) {
        const int32_t end = s->block_start[k + 1]; /* read before block_start[kept] is written */
        const int m = end - begin;
        const int32_t *pos = &s->block_pos[begin];
        double *a = &s->factor[used];
        int ok = 1;
        for (int x = 0; x < m && ok; ++x)
            ok = s->step[pos[x]] > 0.0;
        for (int x = 0; x < m && ok; ++x)
            for (int y = 0; y < m; ++y)
                a[x * m + y] = block_entry(s, pos[x], pos[y]);
        double diag[PGS_BLOCK_MAX];
        if (ok && block_factor(a, m, diag)) {
            memmove(&s->block_pos[write], pos, sizeof(int32_t) * (size_t)m);
            s->block_start[kept] = write;
            s->factor_start[kept] = used;
            write += m;
            used += (size_t)m * (size_t)m;
            ++kept;
        }
        begin = end;
    }
    s->block_start[kept] = write;
    s->factor_start[kept] = used;
    s->nblocks = kept;
    return 1;
}

/* dv = M^-1 J^T lambda (by position), summed row by row from the
 * precomputed responses: each body's slot in the rows' own order. */
static void velocity_delta(const heft_mlcp *p, const pgs_state *s, const double *lambda) {
    double *dv = s->dv;
    for (size_t k = 0; k < 6 * (size_t)p->nbodies + 6; ++k)
        dv[k] = 0.0;
    for (int i = 0; i < p->n; ++i) {
        const double *row = &s->rows[PGS_ROW * (size_t)i];
        if (lambda[i] == 0.0)
            continue;
        heft_axpy6(lambda[i], row + 12, &dv[s->side[2 * i]]);
        heft_axpy6(lambda[i], row + 18, &dv[s->side[2 * i + 1]]);
    }
    /* a static side's zero response times an infinite lambda would leave NaN */
    for (int k = 0; k < 6; ++k)
        dv[6 * (size_t)p->nbodies + k] = 0.0;
}

/* ---- one sweep ------------------------------------------------------------- */

/* The box of the row at position k at lambda (by position): a friction
 * row's from its normal row's impulse (heft_mlcp_bounds, inlined for the
 * sweep). */
static inline void row_bounds(const pgs_state *s, const double *lambda, int k, double *lo,
                              double *hi) {
    const int32_t f = s->normal[k];
    if (f >= 0) {
        const double lf = lambda[f] > 0.0 ? lambda[f] : 0.0;
        const double limit = lf > 0.0 ? s->hi[k] * lf : 0.0;
        *lo = -limit;
        *hi = limit;
        return;
    }
    *lo = s->lo[k];
    *hi = s->hi[k];
}

/* The projected Gauss-Seidel update of row i given its residual w_i. A row
 * with d_i = 0 cannot be moved by its own impulse: it stays at 0 clamped into
 * its box, with no division. */
static inline double project_row(const heft_mlcp *p, const double *lambda, int i, double w,
                                 double d, double relaxation) {
    double lo, hi;
    heft_row_bounds(p, lambda, i, &lo, &hi);
    const double target = d > 0.0 ? lambda[i] - relaxation * w / d : 0.0;
    /* comparisons, not fmin/fmax: a NaN must come out as NaN, not as a bound */
    return target < lo ? lo : (target > hi ? hi : target);
}

/* max() that keeps a NaN, so a sweep that produced one cannot look converged. */
static double larger_energy(double largest, double e) {
    return (e > largest || isnan(e)) ? e : largest;
}

/* J_i dv over both sides as two partial sums, even and odd columns, each a
 * tree of pairs: the order SSE2 computes in, written out so that a build
 * without SSE2 gives the same bits. */
#if defined(__SSE2__)
#include <emmintrin.h>

static inline double row_velocity(const double *row, const double *dva, const double *dvb) {
    const __m128d a = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(row), _mm_loadu_pd(dva)),
                                 _mm_mul_pd(_mm_loadu_pd(row + 2), _mm_loadu_pd(dva + 2)));
    const __m128d c = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(row + 4), _mm_loadu_pd(dva + 4)),
                                 _mm_mul_pd(_mm_loadu_pd(row + 6), _mm_loadu_pd(dvb)));
    const __m128d e = _mm_add_pd(_mm_mul_pd(_mm_loadu_pd(row + 8), _mm_loadu_pd(dvb + 2)),
                                 _mm_mul_pd(_mm_loadu_pd(row + 10), _mm_loadu_pd(dvb + 4)));
    const __m128d sum = _mm_add_pd(_mm_add_pd(a, c), e);
    return _mm_cvtsd_f64(sum) + _mm_cvtsd_f64(_mm_unpackhi_pd(sum, sum));
}

static inline void row_apply(double delta, const double *row, double *dva, double *dvb) {
    const __m128d x = _mm_set1_pd(delta);
#define PGS_APPLY_PAIR(dv, at, k)                                                                  \
    _mm_storeu_pd((dv) + (k), _mm_add_pd(_mm_loadu_pd((dv) + (k)),                                 \
                                         _mm_mul_pd(x, _mm_loadu_pd(row + (at) + (k)))))
    PGS_APPLY_PAIR(dva, 12, 0);
    PGS_APPLY_PAIR(dva, 12, 2);
    PGS_APPLY_PAIR(dva, 12, 4);
    PGS_APPLY_PAIR(dvb, 18, 0);
    PGS_APPLY_PAIR(dvb, 18, 2);
    PGS_APPLY_PAIR(dvb, 18, 4);
#undef PGS_APPLY_PAIR
}
#else
static inline double row_velocity(const double *row, const double *dva, const double *dvb) {
    double lane[2];
    for (int l = 0; l < 2; ++l) {
        const double a = row[l] * dva[l] + row[2 + l] * dva[2 + l];
        const double c = row[4 + l] * dva[4 + l] + row[6 + l] * dvb[l];
        const double e = row[8 + l] * dvb[2 + l] + row[10 + l] * dvb[4 + l];
        lane[l] = (a + c) + e;
    }
    return lane[0] + lane[1];
}

static inline void row_apply(double delta, const double *row, double *dva, double *dvb) {
    for (int k = 0; k < 6; ++k) {
        dva[k] += delta * row[12 + k];
        dvb[k] += delta * row[18 + k];
    }
}
#endif

/* One sweep on the structured form, on lambda_at and b_at; returns the
 * largest 0.5 delta^2 d_i. Per row: 12 products of the scaled J_i with dv,
 * 12 multiply-adds into dv; the only branches are the box and the skip of a
 * row that did not move. The reference for sweep_rows, and the sweep of a
 * problem with non-finite numbers. */
static double sweep_plain(int n, const pgs_state *s) {
    const double *restrict rows = s->rows;
    const int32_t *restrict side = s->side;
    const double *restrict diagonal = s->diagonal;
    const double *restrict step = s->step;
    const double *restrict eps = s->epsilon;
    const double *restrict b = s->b_at;
    double *restrict lambda = s->lambda_at;
    double *restrict dv = s->dv;
    double largest = 0.0;
    for (int i = 0; i < n; ++i) {
        const double *row = &rows[PGS_ROW * (size_t)i];
        double *dva = &dv[side[2 * i]], *dvb = &dv[side[2 * i + 1]];
        /* lambda_i - (relaxation / d_i) w_i, w_i = J_i dv + eps_i lambda_i - b_i:
         * the part without dv first, off the path from the previous row */
        const double rest = lambda[i] - step[i] * (eps[i] * lambda[i] - b[i]);
        double lo, hi;
        row_bounds(s, lambda, i, &lo, &hi);
        /* a row PGS cannot move (d_i = 0) goes to 0 clamped into its box */
        const double target = diagonal[i] > 0.0 ? rest - row_velocity(row, dva, dvb) : 0.0;
        /* comparisons, not fmin/fmax: a NaN must come out as NaN, not as a bound */
        const double delta = (target < lo ? lo : (target > hi ? hi : target)) - lambda[i];
        if (delta == 0.0)
            continue;
        lambda[i] += delta;
        row_apply(delta, row, dva, dvb);
        largest = larger_energy(largest, 0.5 * delta * delta * diagonal[i]);
    }
    return largest;
}

/* sweep_plain's and sweep_share's numbers, faster: a sweep on x against b
 * (by position) in the box shifted by -v, v the velocity sweeps' answer in
 * the position pass and NULL, taken as zeros, in the velocity sweeps (the
 * shift then changes no bit: y - (+0) is y, and a normal row's total
 * 0 + x_f is x_f wherever it pushes).
 *
 * - A friction row whose normal row's total v_f + x_f pushes nothing has
 *   the box [-0 - v_i, 0 - v_i], a single point: -v_i, or a zero of either
 *   sign when v_i is zero. Whatever its target the clamp gives that point,
 *   so its delta is -v_i - x_i exactly (a zero when both are, which the
 *   sweep skips anyway; -x_i when v_i is zero, x + (-x) being +0), and the
 *   target is not computed. That holds for every target but NaN, which
 *   finite data (finite_rows, b, v) cannot give while the sweep's numbers
 *   stay finite.
 * - The clamp is written as branches, which the compiler keeps, not as a
 *   select: a predicted branch puts nothing between target and delta on the
 *   path from one row's dv to the next row's, a min or max does.
 * - The box is read from the local arrays, no call.
 * - The largest energy is kept by a branch that is predicted, NaN noted
 *   apart (any NaN energy makes the sweep's NaN, as larger_energy does):
 *   nothing carries it from one row to the next but a compare. */
static inline __attribute__((always_inline)) double sweep_boxed(int n, const pgs_state *s,
                                                                double *restrict x,
                                                                const double *restrict b,
                                                                const double *restrict v) {
    const double *restrict rows = s->rows;
    const int32_t *restrict side = s->side;
    const int32_t *restrict normal = s->normal;
    const double *restrict lo_at = s->lo;
    const double *restrict hi_at = s->hi;
    const double *restrict diagonal = s->diagonal;
    const double *restrict step = s->step;
    const double *restrict eps = s->epsilon;
    double *restrict dv = s->dv;
    double largest = 0.0;
    int not_a_number = 0;
    for (int i = 0; i < n; ++i) {
        const double *row = &rows[PGS_ROW * (size_t)i];
        double *dva = &dv[side[2 * i]], *dvb = &dv[side[2 * i + 1]];
        const int32_t f = normal[i];
        const double vi = v != NULL ? v[i] : 0.0;
        const double total = f >= 0 ? (v != NULL ? v[f] : 0.0) + x[f] : 0.0;
        double delta;
        if (f >= 0 && !(total > 0.0)) {
            delta = -vi - x[i];
            if (delta == 0.0)
                continue;
        } else {
            double lo = lo_at[i] - vi, hi = hi_at[i] - vi;
            if (f >= 0) {
                const double limit = hi_at[i] * total;
                lo = -limit - vi;
                hi = limit - vi;
            }
            const double rest = x[i] - step[i] * (eps[i] * x[i] - b[i]);
            const double target = diagonal[i] > 0.0 ? rest - row_velocity(row, dva, dvb) : 0.0;
            if (target < lo)
                delta = lo - x[i];
            else if (target > hi)
                delta = hi - x[i];
            else
                delta = target - x[i];
            if (delta == 0.0)
                continue;
        }
        x[i] += delta;
        row_apply(delta, row, dva, dvb);
        const double e = 0.5 * delta * delta * diagonal[i];
        if (e > largest)
            largest = e;
        else if (e != e)
            not_a_number = 1;
    }
    return not_a_number ? NAN : largest;
}

/* sweep_plain's numbers (sweep_boxed) */
static double sweep_rows(int n, const pgs_state *s) {
    return sweep_boxed(n, s, s->lambda_at, s->b_at, NULL);
}

/* After a sweep: each light body's block solved exactly with every other row
 * held, on x (lambda_at, or share_at in the position pass) against b (b_at):
 * A_BB delta = -(J_B dv + eps x_B - b_B). The block's rows are free, so no
 * box applies. Returns the largest 0.5 delta^2 d_i. */
static double block_pass(const pgs_state *s, double *restrict x, const double *restrict b) {
    double largest = 0.0;
    double r[PGS_BLOCK_MAX];
    for (int q = 0; q < s->nblocks; ++q) {
        const int m = s->block_start[q + 1] - s->block_start[q];
        const int32_t *pos = &s->block_pos[s->block_start[q]];
        const double *l = &s->factor[s->factor_start[q]];
        for (int u = 0; u < m; ++u) {
            const int k = pos[u];
            const double *row = &s->rows[PGS_ROW * (size_t)k];
            const double jv = row_velocity(row, &s->dv[s->side[2 * k]], &s->dv[s->side[2 * k + 1]]);
            r[u] = b[k] - s->epsilon[k] * x[k] - jv / s->step[k];
        }
        heft_dense_cholesky_solve(l, m, r);
        for (int u = 0; u < m; ++u) {
            const int k = pos[u];
            if (r[u] == 0.0)
                continue;
            x[k] += r[u];
            row_apply(r[u], &s->rows[PGS_ROW * (size_t)k], &s->dv[s->side[2 * k]],
                      &s->dv[s->side[2 * k + 1]]);
            largest = larger_energy(largest, 0.5 * r[u] * r[u] * s->diagonal[k]);
        }
    }
    return largest;
}

/* Whether the sweeps may be sweep_rows' and stay exact: the rows and b
 * finite. */
static int sweep_may_be_fast(int n, const pgs_state *s) {
    return !s->plain_sweep && s->finite_rows && heft_all_finite(s->b_at, (size_t)n);
}

/* One sweep on the dense A; returns the largest 0.5 delta^2 d_i. */
static double sweep_dense(const heft_mlcp *p, const pgs_state *s, double *lambda) {
    const double relaxation = s->options.relaxation;
    const int n = p->n;
    double largest = 0.0;
    for (int i = 0; i < n; ++i) {
        const double *Ai = &p->A[(size_t)i * n];
        const double d = s->diagonal[i];
        double w = -p->b[i];
        for (int j = 0; j < n; ++j)
            w += Ai[j] * lambda[j];
        const double delta = project_row(p, lambda, i, w, d, relaxation) - lambda[i];
        if (delta == 0.0)
            continue;
        lambda[i] += delta;
        largest = larger_energy(largest, 0.5 * delta * delta * d);
    }
    return largest;
}

/* ---- the position correction solved apart ---------------------------------- */

/* Takes the last position share off the warm start of each row that starts
 * from the last answer: joints' rows come first in an island and keep their
 * order when contacts come and go, and the engine hands every row its own
 * impulse back bit for bit. Zero is no evidence (a row that did not push). */
static void forget_position_share(const pgs_state *s, int n, double *lambda) {
    const int m = n < s->last_n ? n : s->last_n;
    for (int i = 0; i < m; ++i)
        if (lambda[i] != 0.0 && lambda[i] == s->last_answer[i])
            lambda[i] -= s->last_share[i];
}

/* One sweep of A share = bias from the answer v of the sweeps on b - bias
 * (by position: v = lambda_at, share = share_at, bias = b_at): a row's share
 * is kept where v_i + share_i stays in the row's box (a friction row's at
 * its normal row's total), so that a contact the correction pulls away from
 * lets go as it would in one solve. Returns the largest 0.5 delta^2 d_i. */
static double sweep_share(int n, const pgs_state *s) {
    const double *restrict rows = s->rows;
    const int32_t *restrict side = s->side;
    const double *restrict v = s->lambda_at;
    const double *restrict bias = s->b_at;
    double *restrict share = s->share_at;
    double *restrict dv = s->dv;
    double largest = 0.0;
    for (int i = 0; i < n; ++i) {
        const double *row = &rows[PGS_ROW * (size_t)i];
        double *dva = &dv[side[2 * i]], *dvb = &dv[side[2 * i + 1]];
        const double rest = share[i] - s->step[i] * (s->epsilon[i] * share[i] - bias[i]);
        const double target = s->diagonal[i] > 0.0 ? rest - row_velocity(row, dva, dvb) : 0.0;
        double lo, hi;
        const int32_t f = s->normal[i];
        if (f >= 0) {
            const double normal = v[f] + share[f];
            const double limit = normal > 0.0 ? s->hi[i] * normal : 0.0;
            lo = -limit - v[i];
            hi = limit - v[i];
        } else {
            lo = s->lo[i] - v[i];
            hi = s->hi[i] - v[i];
        }
        const double delta = (target < lo ? lo : (target > hi ? hi : target)) - share[i];
        if (delta == 0.0)
            continue;
        share[i] += delta;
        row_apply(delta, row, dva, dvb);
        largest = larger_energy(largest, 0.5 * delta * delta * s->diagonal[i]);
    }
    return largest;
}

/* sweep_share's numbers (sweep_boxed): the share against the bias, in the
 * box shifted by the velocity sweeps' answer. */
static double sweep_share_rows(int n, const pgs_state *s) {
    return sweep_boxed(n, s, s->share_at, s->b_at, s->lambda_at);
}

/* Whether the position pass may sweep with sweep_share_rows and stay exact:
 * the velocity sweeps' rows fast, the bias (b_at) and their answer v finite. */
static int share_may_be_fast(int n, const pgs_state *s) {
    return sweep_may_be_fast(n, s) && heft_all_finite(s->lambda_at, (size_t)n);
}

/* The position pass (by position): up to as many sweeps as the velocity's
 * on A share = bias from zero, the share added to lambda_at and remembered
 * by row; *sweeps counts them. Returns 0 when the share did not converge. */
static int position_pass(const heft_mlcp *p, pgs_state *s, int *sweeps) {
    const int n = p->n;
    double *share = s->share_at;
    int has_bias = 0, converged = 1;
    for (int k = 0; k < n; ++k) {
        share[k] = 0.0;
        s->b_at[k] = s->position_b[s->order[k]];
        has_bias = has_bias || s->b_at[k] != 0.0;
    }
    if (has_bias) {
        memset(s->dv, 0, sizeof(double) * (6 * (size_t)p->nbodies + 6));
        const int most = s->options.max_iterations;
        const int fast = share_may_be_fast(n, s);
        converged = 0;
        for (int k = 0; k < most && !converged; ++k) {
            double largest = fast ? sweep_share_rows(n, s) : sweep_share(n, s);
            if (s->nblocks > 0)
                largest = larger_energy(largest, block_pass(s, share, s->b_at));
            ++*sweeps;
            if (isnan(largest)) {
                for (int i = 0; i < n; ++i)
                    share[i] = 0.0; /* no correction this step rather than a NaN */
                break;
            }
            converged = largest < s->options.tolerance;
        }
    }
    for (int k = 0; k < n; ++k) {
        s->lambda_at[k] += share[k];
        s->last_share[s->order[k]] = share[k];
    }
    return converged;
}

/* Whether row i is a contact's normal row, whose push out of penetration
 * is always solved apart (the joints' correction only once latched). */
static int contact_row(const heft_mlcp *p, int i) {
    return p->kind != NULL && p->kind[i] == HEFT_ROW_NORMAL;
}

/* Whether this solve takes the position correction apart: the pgs solver's
 * own state, warm started, with the engine's bias. The contacts' part is
 * always taken apart; the joints' once latched (a joint row asked for more
 * than PGS_SPLIT_SPEED on PGS_SPLIT_STEPS solves in a row). A solve with
 * nothing to take apart still goes through the split while a last share is
 * remembered, so that the warm start loses it. Fills position_b and
 * velocity_b then. */
static int split_position(pgs_state *s, const heft_mlcp *p, int warm) {
    if (!s->split_bias || p->rows == NULL || !warm || p->bias == NULL)
        return 0;
    if (!s->latched) {
        int fast = 0;
        for (int i = 0; i < p->n && !fast; ++i)
            fast = !contact_row(p, i) && fabs(p->bias[i]) > PGS_SPLIT_SPEED && isfinite(p->bias[i]);
        s->above = fast ? s->above + 1 : 0;
        s->latched = s->above >= PGS_SPLIT_STEPS;
    }
    int any = 0;
    for (int i = 0; i < p->n; ++i) {
        const int apart = s->latched || contact_row(p, i);
        s->position_b[i] = apart && isfinite(p->bias[i]) ? p->bias[i] : 0.0;
        s->velocity_b[i] = p->b[i] - s->position_b[i];
        any = any || s->position_b[i] != 0.0;
    }
    return s->latched || any || s->last_n > 0;
}

/* ---- solve ------------------------------------------------------------------ */

static int pgs_solve(void *state, const heft_mlcp *p, double *lambda, heft_solver_stats *stats) {
    pgs_state *s = state;
    heft_solve_frame frame;
    const int begun = heft_solve_begin(p, stats, &frame);
    if (begun >= 0)
        return begun;
    const double start = frame.start;
    const int n = p->n;
    const int structured = p->rows != NULL;

    if (!heft_pgs_reserve(s, p))
        return HEFT_SOLVE_FAILED;

    /* Setup: the row responses and diagonal (structured) or the diagonal of A. */
    if (structured) {
        precompute_rows(p, s);
        if (!find_blocks(p, s))
            return HEFT_SOLVE_FAILED;
    } else {
        s->nblocks = 0;
        for (int i = 0; i < n; ++i) {
            const double d = p->A[(size_t)i * n + i];
            s->diagonal[i] = (isfinite(d) && d > 0.0) ? d : 0.0;
        }
    }
    stats->time_assembly_ms = heft_time_ms() - start;

    /* Warm start from the previous step's impulses when asked; a non-finite
     * entry starts from zero rather than poisoning the sweep. */
    const double solve_start = heft_time_ms();
    const int warm = s->options.warm_start && p->lambda0 != NULL;
    for (int i = 0; i < n; ++i)
        lambda[i] = (warm && isfinite(p->lambda0[i])) ? p->lambda0[i] : 0.0;
    const int split = split_position(s, p, warm);
    heft_mlcp velocity_problem;
    const heft_mlcp *swept = p;
    if (split) {
        velocity_problem = *p;
        velocity_problem.b = s->velocity_b;
        swept = &velocity_problem;
        forget_position_share(s, n, lambda);
    }
    if (structured) {
        /* the structured sweeps work by position (schedule_rows) */
        for (int k = 0; k < n; ++k) {
            s->lambda_at[k] = lambda[s->order[k]];
            s->b_at[k] = swept->b[s->order[k]];
        }
        velocity_delta(p, s, s->lambda_at);
    }

    const int fast = structured && sweep_may_be_fast(n, s);
    int sweeps = 0, converged = n == 0;
    while (!converged && sweeps < s->options.max_iterations) {
        double largest = !structured ? sweep_dense(p, s, lambda)
                         : fast      ? sweep_rows(n, s)
                                     : sweep_plain(n, s);
        if (s->nblocks > 0)
            largest = larger_energy(largest, block_pass(s, s->lambda_at, s->b_at));
        ++sweeps;
        if (isnan(largest))
            break; /* no later sweep can recover from a NaN */
        converged = largest < s->options.tolerance;
    }
    int position_sweeps = 0;
    if (split && !position_pass(p, s, &position_sweeps))
        converged = 0;
    if (structured)
        for (int k = 0; k < n; ++k)
            lambda[s->order[k]] = s->lambda_at[k];
    if (split) {
        for (int i = 0; i < n; ++i)
            s->last_answer[i] = lambda[i];
        s->last_n = n;
    }
    stats->time_solve_ms = heft_time_ms() - solve_start;
    stats->iterations = sweeps;
    stats->inner_iterations = position_sweeps;
    const heft_mlcp_error err =
        heft_solve_finish(p, lambda, converged, &frame, s->measure_work, stats);

    /* An answer with NaN or Inf in lambda (or in w: a broken row that PGS
     * could not move) is no answer. */
    int finite = err.nonfinite == 0;
    for (int i = 0; i < n; ++i)
        finite = finite && isfinite(lambda[i]);
    if (!finite)
        return HEFT_SOLVE_FAILED;
    return converged ? HEFT_SOLVE_OK : HEFT_SOLVE_NOT_CONVERGED;
}

void *heft_pgs_create_for_restart(const heft_solver_options *options) {
    heft_solver_options o = *options;
    o.warm_start = 1;
    o.max_iterations = options->bpp_pgs_sweeps;
    o.relaxation = 1.0;
    return heft_pgs_create_inner(&o);
}

static size_t pgs_save_state(const void *state, void *buffer, size_t capacity);
static int pgs_restore_state(void *state, const void *buffer, size_t size);

/* Every workspace a structured problem of rows rows on bodies bodies can
 * need, the light bodies' blocks at their largest included: a block per
 * body at most, each of at most PGS_BLOCK_MAX rows, a row in at most two
 * blocks (a joint between two light bodies). */
static int pgs_reserve(void *state, const heft_solver_capacity *c) {
    pgs_state *s = state;
    if (s == NULL || c == NULL || c->rows < 0 || c->bodies < 0 ||
        !heft_pgs_reserve_size(state, c->rows, c->bodies, 1))
        return 0;
    const int rows = c->rows, bodies = c->bodies;
    if (!(s->options.pgs_light_ratio > 0.0))
        return 1;
    const size_t n = 2 * (size_t)rows, nb = (size_t)bodies;
    const size_t widest = (size_t)rows < PGS_BLOCK_MAX ? (size_t)rows : PGS_BLOCK_MAX;
    return workspace_reserve((void **)&s->body_rows, &s->body_rows_cap, nb, sizeof(int32_t)) &&
           workspace_reserve((void **)&s->block_start, &s->block_start_cap, nb + 1,
                             sizeof(int32_t)) &&
           workspace_reserve((void **)&s->block_pos, &s->block_pos_cap, n, sizeof(int32_t)) &&
           workspace_reserve((void **)&s->factor_start, &s->factor_start_cap, nb + 1,
                             sizeof(size_t)) &&
           workspace_reserve((void **)&s->factor, &s->factor_cap, n * widest, sizeof(double));
}

/* Found by registry.c, which declares it the same way, and by bpp.c and
 * pgcg.c (pgs.h). */
const heft_solver_vtable heft_pgs_solver = {
    "pgs",
    "projected Gauss-Seidel with velocity deltas (Mizerski 2020)",
    pgs_create,
    pgs_solve,
    pgs_reset,
    pgs_destroy,
    0,
    pgs_save_state,
    pgs_restore_state,
    1, /* heft_solve_finish measures the answer */
    pgs_reserve,
};

/* What changes the next solve: the count towards the latch, the latch, then
 * the last answer and its position share (their row count, then both
 * arrays). A state that counts nothing saves nothing. */
static size_t pgs_save_state(const void *state, void *buffer, size_t capacity) {
    const pgs_state *s = state;
    state_writer w = {buffer, capacity, 0};
    if (s == NULL || (!s->latched && s->above == 0 && s->last_n <= 0))
        return 0;
    const int n = s->last_n > 0 ? s->last_n : 0;
    state_put_int(&w, s->above);
    state_put_int(&w, s->latched);
    state_put_int(&w, n);
    state_put(&w, s->last_answer, sizeof(double) * (size_t)n);
    state_put(&w, s->last_share, sizeof(double) * (size_t)n);
    return w.size;
}

static int pgs_restore_state(void *state, const void *buffer, size_t size) {
    pgs_state *s = state;
    if (s == NULL)
        return -1;
    s->latched = 0;
    s->above = 0;
    s->last_n = -1;
    if (size == 0)
        return 0;
    state_reader r = {buffer, size, 0, 0};
    const int32_t above = state_get_int(&r, 0, INT32_MAX);
    const int32_t latched = state_get_int(&r, 0, 1);
    const int32_t n = state_get_int(&r, 0, INT32_MAX / 16);
    if (r.bad || !reserve_memory(s, (size_t)n) ||
        !state_get(&r, s->last_answer, sizeof(double) * (size_t)n) ||
        !state_get(&r, s->last_share, sizeof(double) * (size_t)n) || r.at != size)
        return -1;
    s->above = above;
    s->latched = latched;
    s->last_n = n > 0 ? n : -1;
    return 0;
}
