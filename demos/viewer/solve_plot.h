/* The live plot of solve time per step: one history per solver, so after a
 * switch the old solver's curve stays next to the new one's (the block
 * pivoting thesis's Figure 2.7, live). Log scale in milliseconds. */
#ifndef HEFT_VIEWER_SOLVE_PLOT_H
#define HEFT_VIEWER_SOLVE_PLOT_H

#define PLOT_MAX_SERIES 12
#define PLOT_HISTORY 600

typedef struct plot_series {
    char solver[32];
    double ms[PLOT_HISTORY];   /* by step number modulo PLOT_HISTORY */
    int first_step, last_step; /* steps recorded: [first_step, last_step], -1 if none */
} plot_series;

typedef struct solve_plot {
    plot_series series[PLOT_MAX_SERIES];
    int count;
    int latest_step;
} solve_plot;

void solve_plot_clear(solve_plot *p);
void solve_plot_add(solve_plot *p, const char *solver, int step, double ms);

struct ui_context;
void solve_plot_draw(const solve_plot *p, struct ui_context *ui, float x, float y, float w, float h,
                     const char *current);

#endif
