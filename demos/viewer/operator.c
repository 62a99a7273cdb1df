#include "operator.h"

#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "viewer.h"

/* keys of axis k: towards min, towards max */
static const int axis_keys[4][2] = {
    {GLFW_KEY_DOWN, GLFW_KEY_UP}, {GLFW_KEY_LEFT, GLFW_KEY_RIGHT}, {GLFW_KEY_Z, GLFW_KEY_A},
    {GLFW_KEY_D, GLFW_KEY_E}};
static const char *const axis_key_names[4] = {"down/up", "left/right", "z/a", "d/e"};

void operator_reset(viewer *v) { memset(&v->op, 0, sizeof v->op); }

#ifdef SCENARIO_MAX_AXES /* the scene registry has operator axes */

static scenario_controls *controls_of(viewer *v) {
    return (v->desc && v->desc->controls && v->desc->apply && v->scene) ? v->desc->controls(v->scene)
                                                                         : NULL;
}

int operator_axis_count(viewer *v) {
    scenario_controls *c = controls_of(v);
    int n = c ? c->count : 0;
    return n > OPERATOR_MAX_AXES ? OPERATOR_MAX_AXES : n;
}

static void take_over(viewer *v) {
    if (!v->op.manual) {
        scenario_controls *c = controls_of(v);
        v->op.manual = 1;
        for (int k = 0; c && k < operator_axis_count(v); ++k) {
            v->op.latched[k] = 0.0; /* the operator starts from rest, not from the timeline */
            c->axis[k].value = 0.0;
        }
        viewer_set_status(v, "operator controls (m: back to the scene's timeline)");
    }
}

int operator_key(viewer *v, int key, int action) {
    int n = operator_axis_count(v);
    for (int k = 0; k < n && k < 4; ++k) {
        for (int side = 0; side < 2; ++side) {
            if (key == axis_keys[k][side]) {
                if (action == GLFW_PRESS) {
                    take_over(v);
                    v->op.held[k][side] = 1;
                } else if (action == GLFW_RELEASE) {
                    v->op.held[k][side] = 0;
                }
                return 1;
            }
        }
    }
    return 0;
}

void operator_toggle(viewer *v) {
    if (operator_axis_count(v) == 0) {
        viewer_set_status(v, "%s has no operator controls", v->desc->name);
        return;
    }
    if (v->op.manual) {
        v->op.manual = 0;
        memset(v->op.held, 0, sizeof v->op.held);
        viewer_set_status(v, "the scene's timeline drives it (at step %d)", v->step_index);
    } else {
        take_over(v);
    }
}

void operator_before_step(viewer *v) {
    scenario_controls *c = controls_of(v);
    if (!c || !v->op.manual) {
        if (v->desc->control) {
            v->desc->control(v->scene, v->world, v->step_index, v->h);
        }
        return;
    }
    for (int k = 0; k < operator_axis_count(v); ++k) {
        scenario_axis *a = &c->axis[k];
        double target = v->op.latched[k];
        if (v->op.held[k][1]) {
            target = a->max;
        } else if (v->op.held[k][0]) {
            target = a->min;
        }
        /* reach full rate in half a second: heavy loads are not jerked */
        double step = 2.0 * (a->max - a->min) * v->h;
        double value = a->value + fmax(-step, fmin(step, target - a->value));
        scenario_set_axis(c, a->name, value);
    }
    v->desc->apply(v->scene, v->world, v->h);
}

float operator_panel(viewer *v, float x, float y, float w) {
    scenario_controls *c = controls_of(v);
    int n = operator_axis_count(v);
    if (!c || n == 0) {
        return 0.0f;
    }
    static const unsigned char title[4] = {255, 200, 90, 255}, white[4] = {235, 238, 245, 255};
    ui_context *ui = &v->ui;
    float lh = ui_line_height(ui), bh = lh + 6.0f, pad = 8.0f;
    float h = 2.0f * pad + (lh + 2.0f) + (float)n * (bh + 2.0f) + bh;
    ui_panel(ui, x, y, w, h);
    ui_text(ui, x + pad, y + pad, title,
            v->op.manual ? "operator (m: timeline)" : "timeline (m or a key: operator)");
    float cy = y + pad + lh + 2.0f;
    for (int k = 0; k < n; ++k) {
        scenario_axis *a = &c->axis[k];
        float small = bh + 4.0f;
        double nudge = 0.25 * (a->max - a->min);
        if (ui_button(ui, x + pad, cy, small, bh, "-", 0)) {
            take_over(v);
            v->op.latched[k] = fmax(a->min, v->op.latched[k] - nudge);
        }
        if (ui_button(ui, x + pad + small + 2.0f, cy, small, bh, "0", 0)) {
            take_over(v);
            v->op.latched[k] = 0.0;
        }
        if (ui_button(ui, x + pad + 2.0f * (small + 2.0f), cy, small, bh, "+", 0)) {
            take_over(v);
            v->op.latched[k] = fmin(a->max, v->op.latched[k] + nudge);
        }
        char label[96];
        snprintf(label, sizeof label, "%-6s %+.2f %s%s%s", a->name, a->value, a->unit ? a->unit : "",
                 k < 4 ? "  " : "", k < 4 ? axis_key_names[k] : "");
        ui_text(ui, x + pad + 3.0f * (small + 2.0f) + 6.0f, cy + 0.5f * (bh - 7.0f * ui->text_scale),
                white, label);
        cy += bh + 2.0f;
    }
    if (ui_button(ui, x + pad, cy, w - 2.0f * pad, bh, v->op.manual ? "back to the timeline (m)"
                                                                   : "take over (m)",
                  v->op.manual)) {
        operator_toggle(v);
    }
    return h;
}

#else /* a registry without operator axes: every scene runs its control callback */

int operator_axis_count(viewer *v) {
    (void)v;
    return 0;
}

int operator_key(viewer *v, int key, int action) {
    (void)v;
    (void)key;
    (void)action;
    return 0;
}

void operator_toggle(viewer *v) { viewer_set_status(v, "%s has no operator controls", v->desc->name); }

void operator_before_step(viewer *v) {
    if (v->desc->control) {
        v->desc->control(v->scene, v->world, v->step_index, v->h);
    }
}

float operator_panel(viewer *v, float x, float y, float w) {
    (void)v;
    (void)x;
    (void)y;
    (void)w;
    (void)axis_keys;
    (void)axis_key_names;
    return 0.0f;
}

#endif
