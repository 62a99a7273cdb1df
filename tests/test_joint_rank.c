/* Each joint removes exactly the degrees of freedom it should: the rank of the
 * Jacobian of its constraint rows at a generic assembled pose ([Mizerski 2020]: a
 * constraint is regular when its Jacobian has full rank, d = DOF removed). */
#include <criterion/criterion.h>

#include "world.h"

static double urand(unsigned *s) {
    *s = *s * 1103515245u + 12345u;
    return ((*s >> 8) & 0xFFFF) / 65535.0 * 2.0 - 1.0;
}

static heft_vec3 rvec(unsigned *s) {
    return heft_v3(urand(s), urand(s), urand(s));
}

/* rank of an m x n row-major matrix by Gaussian elimination with complete
 * pivoting; a pivot below tol times the largest entry ends it */
static int matrix_rank(double *a, int m, int n, double tol) {
    double largest = 0.0;
    for (int i = 0; i < m * n; ++i) {
        largest = fmax(largest, fabs(a[i]));
    }
    int rank = 0;
    for (; rank < m && rank < n; ++rank) {
        int pr = -1, pc = -1;
        double best = 0.0;
        for (int i = rank; i < m; ++i) {
            for (int j = rank; j < n; ++j) {
                if (fabs(a[i * n + j]) > best) {
                    best = fabs(a[i * n + j]);
                    pr = i;
                    pc = j;
                }
            }
        }
        if (best <= tol * largest) {
            break;
        }
        for (int j = 0; j < n; ++j) { /* swap rows */
            double t = a[rank * n + j];
            a[rank * n + j] = a[pr * n + j];
            a[pr * n + j] = t;
        }
        for (int i = 0; i < m; ++i) { /* swap columns */
            double t = a[i * n + rank];
            a[i * n + rank] = a[i * n + pc];
            a[i * n + pc] = t;
        }
        for (int i = rank + 1; i < m; ++i) {
            double f = a[i * n + rank] / a[rank * n + rank];
            for (int j = rank; j < n; ++j) {
                a[i * n + j] -= f * a[rank * n + j];
            }
        }
    }
    return rank;
}

#define MAX_BODIES 4
#define MAX_ROWS 64

/* The constraint rows (role CONSTRAINT: not limits, not motors) of some
 * joints, as a matrix over the world's bodies: 6 columns per body. */
typedef struct jacobian {
    double a[MAX_ROWS * 6 * MAX_BODIES];
    int rows, cols;
} jacobian;

static void add_joint_rows(heft_world *w, heft_joint_id id, jacobian *J) {
    const joint *j = world_joint(w, id);
    row rows[HEFT_JOINT_MAX_ROWS];
    joint_row_tag tags[HEFT_JOINT_MAX_ROWS];
    row_context ctx = {1.0 / 60.0, 1e-10, 0.2};
    int n = joint_fill_tagged_rows(j, w->bodies, &ctx, rows, tags);
    J->cols = 6 * w->body_high;
    for (int i = 0; i < n; ++i) {
        if (tags[i].role != HEFT_JOINT_ROW_CONSTRAINT) {
            continue;
        }
        double *r = &J->a[J->rows * 6 * MAX_BODIES];
        memset(r, 0, sizeof(double) * 6 * MAX_BODIES);
        for (int k = 0; k < 6; ++k) {
            if (j->body_a >= 0) {
                r[6 * j->body_a + k] += rows[i].ja[k];
            }
            r[6 * j->body_b + k] += rows[i].jb[k];
        }
        J->rows++;
    }
}

static int rank_of(jacobian *J) {
    /* compact to rows x cols */
    static double m[MAX_ROWS * 6 * MAX_BODIES];
    for (int i = 0; i < J->rows; ++i) {
        memcpy(&m[i * J->cols], &J->a[i * 6 * MAX_BODIES], sizeof(double) * (size_t)J->cols);
    }
    return matrix_rank(m, J->rows, J->cols, 1e-9);
}

static heft_body_id body_at(heft_world *w, heft_vec3 p, unsigned *seed) {
    heft_body_def bd = heft_default_body_def();
    bd.position = p;
    bd.orientation =
        heft_quat_normalize(heft_q(urand(seed), urand(seed), urand(seed), urand(seed) + 1.2));
    return heft_create_body(w, &bd);
}

typedef void (*def_setup)(heft_joint_def *d);

/* rank of the joint's constraint rows over two dynamic bodies at random
 * assembled poses, every trial the same */
static int joint_rank(heft_joint_type type, def_setup setup, double turn) {
    unsigned seed = 777u + (unsigned)type * 31u;
    int result = -1;
    for (int trial = 0; trial < 10; ++trial) {
        heft_world *w = heft_world_create(NULL);
        heft_body_id a = body_at(w, rvec(&seed), &seed);
        heft_body_id b = body_at(w, heft_v3_add(rvec(&seed), heft_v3(0.0, 0.0, 1.0)), &seed);
        heft_joint_def d = heft_default_joint_def(type);
        d.body_a = a;
        d.body_b = b;
        heft_vec3 anchor = rvec(&seed), axis = rvec(&seed);
        cr_assert_eq(heft_joint_def_set_world_frame(w, &d, anchor, axis), HEFT_OK);
        if (setup) {
            setup(&d);
        }
        heft_joint_id id = heft_create_joint(w, &d);
        cr_assert(heft_joint_is_valid(w, id), "%s", heft_last_error());
        if (turn != 0.0) {
            /* turn b about the joint axis through the anchor: still assembled
             * for joints that allow it, at a generic angle */
            body *bb = world_body(w, b);
            heft_quat r = heft_quat_axis_angle(axis, turn);
            bb->position =
                heft_v3_add(anchor, heft_quat_rotate(r, heft_v3_sub(bb->position, anchor)));
            bb->orientation = heft_quat_mul(r, bb->orientation);
        }
        jacobian J = {{0}, 0, 0};
        add_joint_rows(w, id, &J);
        int rank = rank_of(&J);
        cr_assert(result < 0 || rank == result, "rank changes with the pose: %d then %d", result,
                  rank);
        result = rank;
        heft_world_destroy(w);
    }
    return result;
}

Test(joint_rank, ball_removes_three_dof) {
    cr_assert_eq(joint_rank(HEFT_JOINT_BALL, NULL, 0.0), 3);
}
Test(joint_rank, hinge_removes_five_dof_at_any_angle) {
    cr_assert_eq(joint_rank(HEFT_JOINT_HINGE, NULL, 0.0), 5);
    cr_assert_eq(joint_rank(HEFT_JOINT_HINGE, NULL, 2.3), 5);
}
Test(joint_rank, fixed_removes_six_dof) {
    cr_assert_eq(joint_rank(HEFT_JOINT_FIXED, NULL, 0.0), 6);
}
Test(joint_rank, prismatic_removes_five_dof) {
    cr_assert_eq(joint_rank(HEFT_JOINT_PRISMATIC, NULL, 0.0), 5);
}
Test(joint_rank, cylindrical_removes_four_dof_at_any_angle) {
    cr_assert_eq(joint_rank(HEFT_JOINT_CYLINDRICAL, NULL, 0.0), 4);
    cr_assert_eq(joint_rank(HEFT_JOINT_CYLINDRICAL, NULL, -1.9), 4);
}
Test(joint_rank, universal_removes_four_dof) {
    cr_assert_eq(joint_rank(HEFT_JOINT_UNIVERSAL, NULL, 0.0), 4);
}
static void rod_to_centre(heft_joint_def *d) {
    d->local_anchor_b = heft_v3(0.0, 0.0, 0.0);
}
Test(joint_rank, distance_removes_one_dof) {
    cr_assert_eq(joint_rank(HEFT_JOINT_DISTANCE, rod_to_centre, 0.0), 1);
}

static void six_linear_locked(heft_joint_def *d) {
    for (int k = 3; k < 6; ++k) {
        d->dof_mode[k] = HEFT_DOF_FREE;
    }
}
static void six_cylindrical(heft_joint_def *d) {
    d->dof_mode[HEFT_DOF_X] = HEFT_DOF_FREE;
    d->dof_mode[HEFT_DOF_RX] = HEFT_DOF_LIMITED;
    d->limit[HEFT_DOF_RX].lower = -10.0;
    d->limit[HEFT_DOF_RX].upper = 10.0;
}
static void six_swing_locked(heft_joint_def *d) {
    d->dof_mode[HEFT_DOF_X] = HEFT_DOF_FREE;
    d->dof_mode[HEFT_DOF_Y] = HEFT_DOF_FREE;
    d->dof_mode[HEFT_DOF_Z] = HEFT_DOF_FREE;
    d->dof_mode[HEFT_DOF_RX] = HEFT_DOF_FREE;
}
static void six_twist_locked(heft_joint_def *d) {
    for (int k = 0; k < 6; ++k) {
        d->dof_mode[k] = k == HEFT_DOF_RX ? HEFT_DOF_LOCKED : HEFT_DOF_FREE;
    }
}
Test(joint_rank, six_dof_removes_one_dof_per_locked_coordinate) {
    cr_assert_eq(joint_rank(HEFT_JOINT_SIX_DOF, NULL, 0.0), 6);
    cr_assert_eq(joint_rank(HEFT_JOINT_SIX_DOF, six_linear_locked, 0.0), 3);
    cr_assert_eq(joint_rank(HEFT_JOINT_SIX_DOF, six_cylindrical, 0.0), 4);
    cr_assert_eq(joint_rank(HEFT_JOINT_SIX_DOF, six_cylindrical, 1.1), 4);
    cr_assert_eq(joint_rank(HEFT_JOINT_SIX_DOF, six_swing_locked, 0.0), 2);
    cr_assert_eq(joint_rank(HEFT_JOINT_SIX_DOF, six_swing_locked, 2.0), 2);
    cr_assert_eq(joint_rank(HEFT_JOINT_SIX_DOF, six_twist_locked, 0.0), 1);
}

Test(joint_rank, six_dof_all_locked_spans_the_rows_of_a_fixed_joint) {
    unsigned seed = 99u;
    heft_world *w = heft_world_create(NULL);
    heft_body_id a = body_at(w, rvec(&seed), &seed), b = body_at(w, rvec(&seed), &seed);
    heft_joint_id ids[2];
    for (int k = 0; k < 2; ++k) {
        heft_joint_def d = heft_default_joint_def(k ? HEFT_JOINT_SIX_DOF : HEFT_JOINT_FIXED);
        d.body_a = a;
        d.body_b = b;
        heft_joint_def_set_world_frame(w, &d, heft_v3(0.2, 0.1, 0.4), heft_v3(1.0, 2.0, -0.5));
        ids[k] = heft_create_joint(w, &d);
    }
    jacobian J = {{0}, 0, 0};
    add_joint_rows(w, ids[0], &J);
    add_joint_rows(w, ids[1], &J);
    cr_assert_eq(J.rows, 12);
    cr_assert_eq(rank_of(&J), 6, "the twelve rows of both joints should span six directions");
    heft_world_destroy(w);
}

/* A gear on two hinges leaves one degree of freedom for the pair; so does a
 * rack on a hinge and a slider. */
static int coupled_rank(heft_joint_type coupling, int with_coupling) {
    unsigned seed = 4242u;
    heft_world *w = heft_world_create(NULL);
    heft_body_id g1 = body_at(w, heft_v3(0.0, 0.0, 1.0), &seed);
    heft_body_id g2 = body_at(w, heft_v3(0.7, 0.2, 1.0), &seed);
    heft_joint_def h1 = heft_default_joint_def(HEFT_JOINT_HINGE);
    h1.body_b = g1;
    heft_joint_def_set_world_frame(w, &h1, heft_v3(0.0, 0.0, 1.0), heft_v3(0.0, 1.0, 0.2));
    heft_joint_def h2 = heft_default_joint_def(coupling == HEFT_JOINT_GEAR ? HEFT_JOINT_HINGE
                                                                           : HEFT_JOINT_PRISMATIC);
    h2.body_b = g2;
    heft_joint_def_set_world_frame(w, &h2, heft_v3(0.7, 0.2, 1.0), heft_v3(1.0, 0.0, 0.0));
    heft_joint_def g = heft_default_joint_def(coupling);
    g.joint_a = heft_create_joint(w, &h1);
    g.joint_b = heft_create_joint(w, &h2);
    g.ratio = -2.5;
    heft_joint_id gear = heft_create_joint(w, &g);
    cr_assert(heft_joint_is_valid(w, gear), "%s", heft_last_error());
    jacobian J = {{0}, 0, 0};
    add_joint_rows(w, g.joint_a, &J);
    add_joint_rows(w, g.joint_b, &J);
    if (with_coupling) {
        add_joint_rows(w, gear, &J);
    }
    int rank = rank_of(&J);
    heft_world_destroy(w);
    return rank;
}

Test(joint_rank, gear_removes_one_dof_from_two_hinges) {
    cr_assert_eq(coupled_rank(HEFT_JOINT_GEAR, 0), 10);
    cr_assert_eq(coupled_rank(HEFT_JOINT_GEAR, 1), 11);
}

Test(joint_rank, rack_removes_one_dof_from_a_hinge_and_a_slider) {
    cr_assert_eq(coupled_rank(HEFT_JOINT_RACK, 0), 10);
    cr_assert_eq(coupled_rank(HEFT_JOINT_RACK, 1), 11);
}

Test(joint_rank, a_taut_rope_removes_one_dof_and_a_slack_one_none) {
    heft_world *w = heft_world_create(NULL);
    unsigned seed = 5u;
    heft_body_id a = body_at(w, heft_v3(0, 0, 0), &seed),
                 b = body_at(w, heft_v3(0.3, 0.4, 1.0), &seed);
    heft_joint_def d = heft_default_joint_def(HEFT_JOINT_ROPE);
    d.body_a = a;
    d.body_b = b;
    heft_joint_id id = heft_create_joint(w, &d); /* length: the distance now, taut */
    jacobian J = {{0}, 0, 0};
    add_joint_rows(w, id, &J);
    cr_assert_eq(J.rows, 0, "the rope's row is a limit, not a constraint row");
    joint_row_tag tags[HEFT_JOINT_MAX_ROWS];
    row rows[HEFT_JOINT_MAX_ROWS];
    row_context ctx = {1.0 / 60.0, 1e-10, 0.2};
    cr_assert_eq(joint_fill_tagged_rows(world_joint(w, id), w->bodies, &ctx, rows, tags), 1);
    cr_assert_eq(tags[0].role, HEFT_JOINT_ROW_LIMIT_UPPER);
    cr_assert_eq(heft_joint_set_length(w, id, 2.0), HEFT_OK);
    cr_assert_eq(joint_fill_tagged_rows(world_joint(w, id), w->bodies, &ctx, rows, tags), 0,
                 "a rope 0.8 m slack writes no row");
    heft_world_destroy(w);
}
