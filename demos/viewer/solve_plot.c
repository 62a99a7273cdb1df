#include "solve_plot.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ui.h"

void solve_plot_clear(solve_plot *p) {
    memset(p, 0, sizeof *p);
    p->latest_step = -1;
}

void solve_plot_add(solve_plot *p, const char *solver, int step, double ms) {
    plot_series *s = NULL;
    for (int i = 0; i < p->count; ++i) {
        if (strcmp(p->series[i].solver, solver) == 0) {
            s = &p->series[i];
        }
    }
    if (!s) {
        if (p->count == PLOT_MAX_SERIES) {
            memmove(p->series, p->series + 1, (PLOT_MAX_SERIES - 1) * sizeof *p->series);
            p->count--;
        }
        s = &p->series[p->count++];
        memset(s, 0, sizeof *s);
        snprintf(s->solver, sizeof s->solver, "%s", solver);
        s->first_step = step;
        s->last_step = step - 1;
    }
    if (step > s->last_step + 1 && s->last_step >= s->first_step) {
        /* a gap (another solver ran): mark the missing steps */
        for (int k = s->last_step + 1; k < step && k <= s->last_step + PLOT_HISTORY; ++k) {
            s->ms[k % PLOT_HISTORY] = NAN;
        }
    }
    s->ms[step % PLOT_HISTORY] = ms;
    s->last_step = step;
    if (s->first_step < step - PLOT_HISTORY + 1) {
        s->first_step = step - PLOT_HISTORY + 1;
    }
    if (step > p->latest_step) {
        p->latest_step = step;
    }
}

static const unsigned char series_colour[PLOT_MAX_SERIES][4] = {
    {255, 170, 60, 255},  {90, 170, 255, 255}, {255, 90, 90, 255},  {110, 220, 120, 255},
    {200, 130, 255, 255}, {250, 230, 80, 255}, {80, 220, 220, 255}, {255, 140, 200, 255},
    {200, 200, 200, 255}, {160, 120, 80, 255}, {120, 160, 80, 255}, {120, 120, 220, 255},
};

void solve_plot_draw(const solve_plot *p, ui_context *ui, float x, float y, float w, float h,
                     const char *current) {
    static const unsigned char axis[4] = {150, 155, 165, 255}, text[4] = {220, 224, 232, 255},
                               grid[4] = {70, 75, 88, 255};
    ui_panel(ui, x, y, w, h);
    float lh = ui_line_height(ui);
    ui_text(ui, x + 6.0f, y + 4.0f, text, "solve time per step (ms, log)");
    float px = x + 44.0f, py = y + lh + 8.0f, pw = w - 52.0f, ph = h - 2.0f * lh - 16.0f;
    if (pw < 10.0f || ph < 10.0f) {
        return;
    }
    const double lo = -3.0, hi = 2.0; /* 1 us .. 100 ms */
    for (int d = (int)lo; d <= (int)hi; ++d) {
        float gy = py + ph - (float)((d - lo) / (hi - lo)) * ph;
        ui_line(ui, px, gy, px + pw, gy, 1.0f, grid);
        char label[16];
        snprintf(label, sizeof label, "1e%d", d);
        ui_text(ui, x + 4.0f, gy - 0.3f * lh, axis, label);
    }
    int last = p->latest_step;
    float lx = x + 6.0f;
    for (int i = 0; i < p->count; ++i) {
        const plot_series *s = &p->series[i];
        const unsigned char *c = series_colour[i % PLOT_MAX_SERIES];
        float width = (current && strcmp(current, s->solver) == 0) ? 2.0f : 1.2f;
        float prev_x = 0.0f, prev_y = 0.0f;
        int have_prev = 0;
        for (int step = s->first_step; step <= s->last_step; ++step) {
            if (step < last - PLOT_HISTORY + 1) {
                continue;
            }
            double ms = s->ms[step % PLOT_HISTORY];
            if (!(ms > 0.0) || !isfinite(ms)) {
                have_prev = 0;
                continue;
            }
            double e = log10(ms);
            e = e < lo ? lo : (e > hi ? hi : e);
            float sx = px + pw * (float)(step - (last - PLOT_HISTORY + 1)) / (float)PLOT_HISTORY;
            float sy = py + ph - (float)((e - lo) / (hi - lo)) * ph;
            if (have_prev) {
                ui_line(ui, prev_x, prev_y, sx, sy, width, c);
            }
            prev_x = sx;
            prev_y = sy;
            have_prev = 1;
        }
        lx += ui_text(ui, lx, y + h - lh - 2.0f, c, s->solver) + 12.0f;
    }
}
