/* stacking ([Ho 2022] §6.1.1, §6.1.2, §6.1.7): contact-only scenes, one variant
 * each (scenario_params.variant, heft-run --variant; size with --size):
 *
 * - boxes: stacks of 2.5 kg boxes (0.4 m cubes) dropped from 1 cm apart, 5
 *   high; size = stacks (default 16, about 1,000 contact rows);
 * - pyramid: a 2D pyramid of 2.5 kg boxes, size = boxes at the base (default
 *   20, 210 boxes), 1 cm apart side by side and 1 mm above each other;
 * - tower: a log tower of 50 kg logs (capsules 2 m long), four to a layer,
 *   the layers crossed; size = layers (default 40: 160 logs), hit at 3 m by
 *   a 2,500 kg ball thrown at 6 m/s; the ground resists the logs' and the
 *   ball's rolling as firm soil does (TOWER_GROUND_ROLLING_RESISTANCE);
 * - wall: a running-bond wall of 2.5 kg bricks (0.4 x 0.2 x 0.2 m), 10
 *   courses, size = bricks per course (default 10), gaps of 1 cm between
 *   bricks and 2 mm between courses (no initial contact), hit by a 10 kg
 *   steel box thrown at 8 m/s.
 *
 * Works when (boxes, pyramid) every body's speed is under 1 cm/s at the end
 * (a run of at least 10 s) and the top box is within 2 cm of its start
 * horizontally; (tower, wall) no body goes more than 2 cm into the ground.
 * The wall also reports the share of bricks knocked more than 10 cm from
 * their places (only part of it collapses). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

#define STACK_BOX_MASS 2.5
#define STACK_BOX_HALF 0.2

typedef enum { VARIANT_BOXES, VARIANT_PYRAMID, VARIANT_TOWER, VARIANT_WALL } stacking_variant;

struct scenario {
    stacking_variant variant;
    int count, capacity;
    heft_body_id *bodies;
    heft_vec3 *starts;
    heft_body_id top; /* boxes: one stack's top; pyramid: the apex */
    heft_vec3 top_start;
    double max_ground_penetration;
    double time;
};

/* The variants in stacking_variant's order, with their sizes: the default,
 * the smallest that makes the scene (a running bond needs two bricks a
 * course) and the bodies a size builds. */
static const char *const variant_names[] = {"boxes", "pyramid", "tower", "wall", NULL};
static const struct {
    int default_size, min_size;
    const char *size_means;
} variant_sizes[] = {
    [VARIANT_BOXES] = {16, 1, "stacks"},
    [VARIANT_PYRAMID] = {20, 1, "boxes at the base"},
    [VARIANT_TOWER] = {40, 1, "layers"},
    [VARIANT_WALL] = {10, 2, "bricks per course"},
};

/* Bodies the variant builds at this size, in long long: a pyramid's
 * size * (size + 1) / 2 overflows an int from a base of 65,536. */
static long long variant_bodies(stacking_variant v, long long size) {
    switch (v) {
    case VARIANT_BOXES:
        return 5 * size;
    case VARIANT_PYRAMID:
        return size * (size + 1) / 2;
    case VARIANT_TOWER:
        return 4 * size + 1; /* and the ball */
    case VARIANT_WALL:
        return 10 * size + 1; /* and the projectile */
    }
    return 0;
}

/* The largest size within SCENARIO_MAX_BODIES (the body count grows with it). */
static int variant_max_size(stacking_variant v) {
    int lo = variant_sizes[v].min_size, hi = SCENARIO_MAX_BODIES;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (variant_bodies(v, mid) <= SCENARIO_MAX_BODIES) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    return lo;
}

static int variant_index(const char *name, stacking_variant *out) {
    for (int k = 0; variant_names[k]; ++k) {
        if (strcmp(variant_names[k], name ? name : variant_names[0]) == 0) {
            *out = (stacking_variant)k;
            return 0;
        }
    }
    return -1;
}

static int stacking_check_params(const scenario_params *p, char *err, size_t err_size) {
    stacking_variant v;
    if (variant_index(p->variant, &v) != 0) {
        snprintf(err, err_size, "--variant: unknown variant \"%s\" of stacking", p->variant);
        return -1;
    }
    if (p->size == 0) {
        return 0;
    }
    int lo = variant_sizes[v].min_size, hi = variant_max_size(v);
    if (p->size < lo || p->size > hi) {
        snprintf(err, err_size,
                 "--size %d: the %s takes %d to %d %s (at most %d bodies in a scene)", p->size,
                 variant_names[v], lo, hi, variant_sizes[v].size_means, SCENARIO_MAX_BODIES);
        return -1;
    }
    return 0;
}

static int stacking_add(scenario *s, heft_world *w, const char *name, heft_vec3 at, heft_quat q,
                        double mass, heft_mat3 inertia, const heft_shape_def *sd) {
    if (s->count >= s->capacity) {
        return -1; /* the builders and variant_bodies disagree: refuse, never overrun */
    }
    heft_body_id b = scenario_add_body(w, name, at, q, mass, inertia, sd);
    if (b.generation == 0) {
        return -1;
    }
    s->bodies[s->count] = b;
    s->starts[s->count] = at;
    s->count++;
    return 0;
}

static heft_shape_def box_def(heft_vec3 half) {
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_BOX;
    sd.half_extents = half;
    return sd;
}

static int build_boxes(scenario *s, heft_world *w, int stacks) {
    const int high = 5;
    const double a = STACK_BOX_HALF;
    heft_vec3 half = heft_v3(a, a, a);
    heft_shape_def sd = box_def(half);
    int per_row = (int)ceil(sqrt((double)stacks));
    char name[48];
    for (int k = 0; k < stacks; ++k) {
        double x = (k % per_row) * 1.0, y = (k / per_row) * 1.0;
        for (int j = 0; j < high; ++j) {
            snprintf(name, sizeof name, "box%d_%d", k, j);
            heft_vec3 at = heft_v3(x, y, a + 0.01 + j * (2.0 * a + 0.01));
            if (stacking_add(s, w, name, at, heft_quat_identity(), STACK_BOX_MASS,
                             heft_inertia_box(STACK_BOX_MASS, half), &sd) != 0) {
                return -1;
            }
        }
    }
    s->top = s->bodies[high - 1];
    s->top_start = s->starts[high - 1];
    return 0;
}

static int build_pyramid(scenario *s, heft_world *w, int base) {
    const double a = STACK_BOX_HALF, gap = 0.01;
    heft_vec3 half = heft_v3(a, a, a);
    heft_shape_def sd = box_def(half);
    char name[48];
    for (int row = 0; row < base; ++row) {
        int n = base - row;
        for (int i = 0; i < n; ++i) {
            double x = (i - 0.5 * (n - 1)) * (2.0 * a + gap);
            heft_vec3 at = heft_v3(x, 0.0, a + 0.001 + row * (2.0 * a + 0.001));
            snprintf(name, sizeof name, "box%d_%d", row, i);
            if (stacking_add(s, w, name, at, heft_quat_identity(), STACK_BOX_MASS,
                             heft_inertia_box(STACK_BOX_MASS, half), &sd) != 0) {
                return -1;
            }
        }
    }
    s->top = s->bodies[s->count - 1];
    s->top_start = s->starts[s->count - 1];
    return 0;
}

/* The ground's rolling resistance under the tower, m: the lever arm of
 * the normal force that resists a log's or the ball's rolling (contacts
 * take the larger of their two shapes' and the logs and ball have none).
 * Firm soil, whose dent ahead of a rolling body takes its energy: over a
 * body's radius it is a wheel's rolling resistance coefficient, 0.1 for a
 * log (r 0.1 m; a wheel has 0.01 to 0.02 on asphalt, 0.1 to 0.3 on soft
 * soil) and 0.02 for the ball (r 0.5 m). A log rolling off at 5 m/s then
 * stops within about 20 m, and the ball, were it to roll away at its 6 m/s,
 * within 130 m, inside the scene's 150 m; without it they rolled on past
 * 150 m. Only the ground has it: on the ball its rows at every log it
 * struck made bpp-skyline's solves of the impact 3.5 times slower, and 2 cm
 * on the ground 2 times (more pivots and backstop stages), where 1 cm costs
 * what no rolling resistance did. */
#define TOWER_GROUND_ROLLING_RESISTANCE 0.01

static int build_tower(scenario *s, heft_world *w, heft_body_id ground, int layers) {
    const double r = 0.1, half_len = 0.9, mass = 50.0;
    heft_shape_id soil;
    if (heft_body_shapes(w, ground, &soil, 1) != 1 ||
        heft_shape_set_rolling_resistance(w, soil, TOWER_GROUND_ROLLING_RESISTANCE) != HEFT_OK) {
        return -1;
    }
    heft_shape_def sd = heft_default_shape_def();
    sd.type = HEFT_SHAPE_CAPSULE;
    sd.radius = r;
    sd.half_length = half_len;
    heft_quat along_x = heft_quat_axis_angle(heft_v3(0.0, 1.0, 0.0), 0.5 * HEFT_PI);
    heft_quat along_y = heft_quat_axis_angle(heft_v3(1.0, 0.0, 0.0), 0.5 * HEFT_PI);
    static const double offsets[4] = {-0.75, -0.25, 0.25, 0.75};
    char name[48];
    for (int l = 0; l < layers; ++l) {
        for (int k = 0; k < 4; ++k) {
            int x_logs = l % 2 == 0;
            heft_vec3 at = x_logs ? heft_v3(0.0, offsets[k], r + 0.001 + l * (2.0 * r + 0.001))
                                  : heft_v3(offsets[k], 0.0, r + 0.001 + l * (2.0 * r + 0.001));
            snprintf(name, sizeof name, "log%d_%d", l, k);
            if (stacking_add(s, w, name, at, x_logs ? along_x : along_y, mass,
                             heft_inertia_capsule(mass, r, half_len), &sd) != 0) {
                return -1;
            }
        }
    }
    heft_shape_def bs = heft_default_shape_def();
    bs.radius = 0.5;
    if (stacking_add(s, w, "ball", heft_v3(-4.0, 0.0, 3.0), heft_quat_identity(), 2500.0,
                     heft_inertia_sphere(2500.0, 0.5), &bs) != 0) {
        return -1;
    }
    return heft_body_set_linear_velocity(w, s->bodies[s->count - 1], heft_v3(6.0, 0.0, 2.0));
}

static int build_wall(scenario *s, heft_world *w, int per_course) {
    const int courses = 10;
    heft_vec3 half = heft_v3(0.2, 0.1, 0.1);
    heft_shape_def sd = box_def(half);
    const double pitch = 2.0 * half.x + 0.01;
    char name[48];
    for (int c = 0; c < courses; ++c) {
        int n = c % 2 ? per_course - 1 : per_course; /* running bond */
        for (int i = 0; i < n; ++i) {
            double x = (i - 0.5 * (n - 1)) * pitch;
            heft_vec3 at = heft_v3(x, 0.0, half.z + 0.002 + c * (2.0 * half.z + 0.002));
            snprintf(name, sizeof name, "brick%d_%d", c, i);
            if (stacking_add(s, w, name, at, heft_quat_identity(), STACK_BOX_MASS,
                             heft_inertia_box(STACK_BOX_MASS, half), &sd) != 0) {
                return -1;
            }
        }
    }
    heft_vec3 bh = heft_v3(0.1, 0.1, 0.1);
    heft_shape_def bs = box_def(bh);
    if (stacking_add(s, w, "projectile", heft_v3(0.2, -3.0, 1.2), heft_quat_identity(), 10.0,
                     heft_inertia_box(10.0, bh), &bs) != 0) {
        return -1;
    }
    return heft_body_set_linear_velocity(w, s->bodies[s->count - 1], heft_v3(0.0, 8.0, 1.5));
}

static scenario *stacking_create(heft_world *w, const scenario_params *p) {
    stacking_variant variant;
    if (variant_index(p->variant, &variant) != 0) {
        return NULL; /* unknown variant: stacking_check_params says which */
    }
    int size = p->size > 0 ? p->size : variant_sizes[variant].default_size;
    if (size < variant_sizes[variant].min_size || size > variant_max_size(variant)) {
        return NULL; /* out of the variant's range: stacking_check_params says why */
    }
    int capacity = (int)variant_bodies(variant, size);
    scenario *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->variant = variant;
    s->capacity = capacity;
    s->bodies = calloc((size_t)capacity, sizeof *s->bodies);
    s->starts = calloc((size_t)capacity, sizeof *s->starts);
    int rc = -1;
    if (s->bodies && s->starts) {
        const heft_body_id ground = scenario_add_ground(w);
        switch (variant) {
        case VARIANT_BOXES:
            rc = build_boxes(s, w, size);
            break;
        case VARIANT_PYRAMID:
            rc = build_pyramid(s, w, size);
            break;
        case VARIANT_TOWER:
            rc = build_tower(s, w, ground, size);
            break;
        case VARIANT_WALL:
            rc = build_wall(s, w, size);
            break;
        }
    }
    if (rc != 0) {
        free(s->bodies);
        free(s->starts);
        free(s);
        return NULL;
    }
    return s;
}

static void stacking_observe(scenario *s, heft_world *w, int step, double h) {
    s->time = (step + 1) * h;
    heft_shape_id shapes[2];
    for (int i = 0; i < s->count; ++i) {
        int n = heft_body_shapes(w, s->bodies[i], shapes, 2);
        for (int k = 0; k < n && k < 2; ++k) {
            heft_vec3 lo, hi;
            if (heft_shape_aabb(w, shapes[k], &lo, &hi) == HEFT_OK) {
                s->max_ground_penetration =
                    -lo.z > s->max_ground_penetration ? -lo.z : s->max_ground_penetration;
            }
        }
    }
}

static int stacking_checks(scenario *s, heft_world *w, scenario_check *out, int max) {
    int n = 0;
    if (s->variant == VARIANT_BOXES || s->variant == VARIANT_PYRAMID) {
        double speed = 0.0;
        for (int i = 0; i < s->count; ++i) {
            double v = heft_v3_length(heft_body_linear_velocity(w, s->bodies[i]));
            speed = v > speed ? v : speed;
        }
        heft_vec3 d = heft_v3_sub(heft_body_position(w, s->top), s->top_start);
        double drift = hypot(d.x, d.y);
        if (n < max) {
            scenario_check_set(&out[n++], "run_s", s->time, 10.0, s->time >= 10.0 - 1e-9);
        }
        if (n < max) {
            scenario_check_set(&out[n++], "speed_max_m_s", speed, 0.01, speed < 0.01);
        }
        if (n < max) {
            scenario_check_set(&out[n++], "top_drift_m", drift, 0.02, drift < 0.02);
        }
    } else {
        if (n < max) {
            scenario_check_set(&out[n++], "ground_penetration_max_m", s->max_ground_penetration,
                               0.02, s->max_ground_penetration < 0.02);
        }
        if (s->variant == VARIANT_WALL && n < max) {
            int moved = 0, bricks = s->count - 1;
            for (int i = 0; i < bricks; ++i) {
                heft_vec3 d = heft_v3_sub(heft_body_position(w, s->bodies[i]), s->starts[i]);
                moved += heft_v3_length(d) > 0.1;
            }
            double share = bricks > 0 ? (double)moved / bricks : 0.0;
            /* part of the wall falls, not none and not all */
            scenario_check_set(&out[n++], "bricks_knocked_share", share, 0.9,
                               share > 0.0 && share < 0.9);
        }
    }
    return n;
}

static void stacking_destroy(scenario *s) {
    if (s) {
        free(s->bodies);
        free(s->starts);
        free(s);
    }
}

const scenario_desc scenario_stacking = {
    .name = "stacking",
    .description = "contact-only stacks: --variant boxes (default), pyramid, tower, wall; --size N",
    .h = 1.0 / 60.0,
    .steps = 1200,
    .create = stacking_create,
    .observe = stacking_observe,
    .checks = stacking_checks,
    .destroy = stacking_destroy,
    .configure = scenario_configure_contacts,
    /* wide: the tower's 2,500 kg ball and the logs it knocks off roll
     * away at up to 6 m/s before their rolling resistance stops them; the
     * floor is what bounds a body passing through the ground */
    .bounds_lo = {-150.0, -150.0, -1.0},
    .bounds_hi = {150.0, 150.0, 30.0},
    .reads = SCENARIO_READS_VARIANT | SCENARIO_READS_SIZE,
    .variants = variant_names,
    .check_params = stacking_check_params,
};
