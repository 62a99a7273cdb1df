/* Scenarios: each scene is one function that builds it through the public
 * API (design "Scenarios"), plus its operator inputs and its "it works"
 * checks. The headless runner, the tests, the benchmarks and the viewer all
 * run the same functions. */
#ifndef HEFT_SCENARIO_H
#define HEFT_SCENARIO_H

#include "heft.h"

/* Parameters a scene may read; zero means the scene's default. */
typedef struct scenario_params {
    int links;          /* hanging-chain: number of links (default 20) */
    double link_mass;   /* hanging-chain: kg per link (default 1) */
    double load_mass;   /* hanging-chain: kg (default 2000) */
    double angle_deg;   /* hanging-chain, pendulum: start angle from vertical */
    double length;      /* pendulum: m (default 1); hanging-chain: link length (default 0.5) */
} scenario_params;

typedef struct scenario_check {
    char name[64];
    int pass;
    double value;
    double limit;
} scenario_check;

#define SCENARIO_MAX_CHECKS 8

/* A running scene: what the scene function built, and what its observer
 * keeps between steps. */
typedef struct scenario scenario;

typedef struct scenario_desc {
    const char *name;
    const char *description;
    double h;      /* default step */
    int steps;     /* default length of a headless run */
    /* builds the scene into world; NULL with heft_last_error() set on failure */
    scenario *(*create)(heft_world *world, const scenario_params *params);
    /* operator inputs before step number `step` (0-based); may be NULL */
    void (*control)(scenario *s, heft_world *world, int step, double h);
    /* measurements after each step; may be NULL */
    void (*observe)(scenario *s, heft_world *world, int step, double h);
    /* the checks of the run so far; returns how many were written */
    int (*checks)(scenario *s, heft_world *world, scenario_check *out, int max);
    void (*destroy)(scenario *s);
} scenario_desc;

const scenario_desc *scenario_find(const char *name);
int scenario_count(void);
const scenario_desc *scenario_at(int index);

void scenario_check_set(scenario_check *c, const char *name, double value, double limit, int pass);

/* the scenes */
extern const scenario_desc scenario_pendulum;
extern const scenario_desc scenario_hanging_chain;
extern const scenario_desc scenario_box_on_ground;

/* shared building blocks */
heft_body_id scenario_add_ground(heft_world *world);

#endif
