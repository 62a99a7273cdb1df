#include "operator.h"

#include <GLFW/glfw3.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "viewer.h"

/* The keys of a scene's axes, by the axis' name: each machine gets the keys
 * a driver expects (arrows steer and move, a/z and e/d the hydraulics). An
 * axis not in this table takes the first free pair of the fallback list.
 * None of these keys has another meaning in the viewer (input.c): the single
 * step is `n` only, so the arrows are free for the machines. */
static const axis_binding named_bindings[] = {
    /* crane: the arrows turn and raise the boom, a/z wind the cable in and out */
    {"slew", GLFW_KEY_RIGHT, GLFW_KEY_LEFT, "left/right"}, /* left: counter-clockwise */
    {"luff", GLFW_KEY_DOWN, GLFW_KEY_UP, "up/down"},
    {"hoist", GLFW_KEY_Z, GLFW_KEY_A, "a/z"},
    /* forklift: the arrows drive and steer, a/z lift, e/d tilt */
    {"drive", GLFW_KEY_DOWN, GLFW_KEY_UP, "up/down"},
    {"steer", GLFW_KEY_RIGHT, GLFW_KEY_LEFT, "left/right"}, /* left: a left turn */
    {"lift", GLFW_KEY_Z, GLFW_KEY_A, "a/z"},
    {"tilt", GLFW_KEY_D, GLFW_KEY_E, "e/d"}, /* e: back */
    /* winch: up winds in */
    {"drum", GLFW_KEY_DOWN, GLFW_KEY_UP, "up/down"},
};

static const axis_binding fallback_bindings[] = {
    {NULL, GLFW_KEY_DOWN, GLFW_KEY_UP, "up/down"},
    {NULL, GLFW_KEY_LEFT, GLFW_KEY_RIGHT, "right/left"},
    {NULL, GLFW_KEY_Z, GLFW_KEY_A, "a/z"},
    {NULL, GLFW_KEY_D, GLFW_KEY_E, "e/d"},
};

#define BINDING_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int binding_uses(const axis_binding *a, const axis_binding *b) {
    return a && b &&
           (a->minus_key == b->minus_key || a->minus_key == b->plus_key ||
            a->plus_key == b->minus_key || a->plus_key == b->plus_key);
}

void operator_bindings(const char *const *names, int count, const axis_binding **out) {
    for (int k = 0; k < count; ++k) {
        out[k] = NULL;
        for (int b = 0; b < BINDING_COUNT(named_bindings); ++b) {
            if (names[k] && strcmp(names[k], named_bindings[b].axis) == 0) {
                out[k] = &named_bindings[b];
            }
        }
        for (int j = 0; j < k && out[k]; ++j) {
            if (binding_uses(out[j], out[k])) {
                out[k] = NULL; /* two axes of one scene never share a key */
            }
        }
    }
    for (int k = 0; k < count; ++k) {
        for (int f = 0; !out[k] && f < BINDING_COUNT(fallback_bindings); ++f) {
            int free_pair = 1;
            for (int j = 0; j < count; ++j) {
                free_pair &= !binding_uses(out[j], &fallback_bindings[f]);
            }
            if (free_pair) {
                out[k] = &fallback_bindings[f];
            }
        }
    }
}

void operator_reset(viewer *v) {
    memset(&v->op, 0, sizeof v->op);
}

static scenario_controls *controls_of(viewer *v) {
    return (v->desc && v->desc->controls && v->desc->apply && v->scene)
               ? v->desc->controls(v->scene)
               : NULL;
}

int operator_axis_count(viewer *v) {
    scenario_controls *c = controls_of(v);
    int n = c ? c->count : 0;
    return n > OPERATOR_MAX_AXES ? OPERATOR_MAX_AXES : n;
}

static void scene_bindings(viewer *v, const axis_binding **out) {
    scenario_controls *c = controls_of(v);
    const char *names[OPERATOR_MAX_AXES];
    int n = operator_axis_count(v);
    for (int k = 0; k < n; ++k) {
        names[k] = c->axis[k].name;
    }
    operator_bindings(names, n, out);
}

const char *operator_axis_keys(viewer *v, int k) {
    const axis_binding *b[OPERATOR_MAX_AXES];
    if (k < 0 || k >= operator_axis_count(v)) {
        return NULL;
    }
    scene_bindings(v, b);
    return b[k] ? b[k]->label : NULL;
}

int operator_axis_is_rate(const char *unit) {
    return unit && strstr(unit, "/s") != NULL;
}

static void take_over(viewer *v) {
    if (!v->op.manual) {
        scenario_controls *c = controls_of(v);
        v->op.manual = 1;
        for (int k = 0; c && k < operator_axis_count(v); ++k) {
            scenario_axis *a = &c->axis[k];
            if (operator_axis_is_rate(a->unit)) {
                /* a rate starts from rest, not from the timeline's */
                v->op.latched[k] = 0.0;
                a->value = 0.0;
            } else {
                v->op.latched[k] = a->value; /* a position stays where the timeline left it */
            }
        }
        viewer_set_status(v, "operator controls (m: back to the scene's timeline)");
    }
}

int operator_key(viewer *v, int key, int action) {
    const axis_binding *b[OPERATOR_MAX_AXES];
    int n = operator_axis_count(v);
    scene_bindings(v, b);
    for (int k = 0; k < n; ++k) {
        for (int side = 0; b[k] && side < 2; ++side) {
            if (key == (side ? b[k]->plus_key : b[k]->minus_key)) {
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
        int towards = v->op.held[k][1] - v->op.held[k][0];
        double target = v->op.latched[k];
        if (operator_axis_is_rate(a->unit)) {
            /* a rate: full rate while the key is held, the latched rate (0
             * unless the panel set one) when it is released */
            target = towards > 0 ? a->max : (towards < 0 ? a->min : target);
        } else if (towards != 0) {
            /* a position (steering angle, mast tilt): the key moves it across
             * its range in two seconds, and it stays where it is released */
            target += 0.5 * (a->max - a->min) * v->h * towards;
            target = fmax(a->min, fmin(a->max, target));
            v->op.latched[k] = target;
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
            v->op.manual ? "operator (m: timeline)" : "timeline (m or an axis key: operator)");
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
        const char *keys = operator_axis_keys(v, k);
        char label[96];
        snprintf(label, sizeof label, "%-6s %+.2f %-5s %s", a->name, a->value,
                 a->unit ? a->unit : "", keys ? keys : "");
        ui_text(ui, x + pad + 3.0f * (small + 2.0f) + 6.0f,
                cy + 0.5f * (bh - 7.0f * ui->text_scale), white, label);
        cy += bh + 2.0f;
    }
    if (ui_button(ui, x + pad, cy, w - 2.0f * pad, bh,
                  v->op.manual ? "back to the timeline (m)" : "take over (m)", v->op.manual)) {
        operator_toggle(v);
    }
    return h;
}
