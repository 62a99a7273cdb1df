/* Writes a world as a scene file (docs/scene-format.md). The text is written
 * by hand rather than by cJSON's printer so that its layout is fixed and its
 * numbers are the shortest that read back as the same doubles. Internal
 * joint state (frames, whole turns, coupling origins, broken) is written
 * too, so a saved world continues exactly where it was. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "scene.h"
#include "world.h"

typedef struct text_out {
    char *data;
    size_t length, capacity;
    int failed;
} text_out;

static void out_raw(text_out *o, const char *s, size_t n) {
    if (o->failed) {
        return;
    }
    if (o->length + n + 1 > o->capacity) {
        size_t cap = o->capacity ? o->capacity : 4096;
        while (o->length + n + 1 > cap) {
            cap *= 2;
        }
        char *p = heft_realloc(o->data, cap);
        if (!p) {
            o->failed = 1;
            return;
        }
        o->data = p;
        o->capacity = cap;
    }
    memcpy(o->data + o->length, s, n);
    o->length += n;
    o->data[o->length] = 0;
}

static void out_printf(text_out *o, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf) {
        o->failed = 1;
        return;
    }
    out_raw(o, buf, (size_t)n);
}

/* the shortest of 15, 16, 17 significant digits that reads back as x */
static void out_number(text_out *o, double x) {
    if (isnan(x)) {
        out_raw(o, "\"nan\"", 5);
        return;
    }
    if (isinf(x)) {
        out_raw(o, x > 0 ? "\"inf\"" : "\"-inf\"", x > 0 ? 5 : 6);
        return;
    }
    char buf[40];
    for (int digits = 15; digits <= 17; ++digits) {
        snprintf(buf, sizeof buf, "%.*g", digits, x);
        if (strtod(buf, NULL) == x) {
            break;
        }
    }
    out_raw(o, buf, strlen(buf));
}

/* the comma before every element of a list but the first */
static void separator(text_out *o, int index) {
    if (index > 0) {
        out_raw(o, ",", 1);
    }
}

static void out_string(text_out *o, const char *s) {
    out_raw(o, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; ++p) {
        if (*p == '"' || *p == '\\') {
            char e[2] = {'\\', (char)*p};
            out_raw(o, e, 2);
        } else if (*p < 0x20) {
            out_printf(o, "\\u%04x", *p);
        } else {
            out_raw(o, (const char *)p, 1);
        }
    }
    out_raw(o, "\"", 1);
}

/* "key": at the indentation; the first member of an object has no comma */
typedef struct members {
    text_out *o;
    int indent; /* 0: the object on one line */
    int count;
} members;

static void key(members *m, const char *k) {
    int first = m->count++ == 0;
    if (m->indent == 0) {
        out_raw(m->o, ", ", first ? 0 : 2);
    } else {
        out_raw(m->o, first ? "\n" : ",\n", first ? 1 : 2);
        for (int i = 0; i < m->indent; ++i) {
            out_raw(m->o, "  ", 2);
        }
    }
    out_string(m->o, k);
    out_raw(m->o, ": ", 2);
}

static void open_object(text_out *o, members *m, int indent) {
    out_raw(o, "{", 1);
    m->o = o;
    m->indent = indent;
    m->count = 0;
}

static void close_object(members *m) {
    if (m->indent > 0 && m->count > 0) {
        out_raw(m->o, "\n", 1);
        for (int i = 0; i < m->indent - 1; ++i) {
            out_raw(m->o, "  ", 2);
        }
    }
    out_raw(m->o, "}", 1);
}

/* ---- defaults: a field whose value is the loader's default is not written.
 * The comparisons are of bits, so that -0 and +0 stay apart and what loads
 * back is the value saved. */

static int same_bits(double a, double b) {
    return memcmp(&a, &b, sizeof a) == 0;
}

static int vec3_is(heft_vec3 v, double x, double y, double z) {
    return same_bits(v.x, x) && same_bits(v.y, y) && same_bits(v.z, z);
}

static int quat_is_identity(heft_quat q) {
    return same_bits(q.w, 1.0) && same_bits(q.x, 0.0) && same_bits(q.y, 0.0) && same_bits(q.z, 0.0);
}

static int mat3_is_diagonal(const heft_mat3 *a) {
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            if (r != c && !same_bits(a->m[r][c], 0.0)) {
                return 0;
            }
        }
    }
    return 1;
}

static void put_number(members *m, const char *k, double x) {
    key(m, k);
    out_number(m->o, x);
}

static void put_int(members *m, const char *k, long long x) {
    key(m, k);
    out_printf(m->o, "%lld", x);
}

static void put_bool(members *m, const char *k, int x) {
    key(m, k);
    out_raw(m->o, x ? "true" : "false", x ? 4 : 5);
}

static void put_string(members *m, const char *k, const char *s) {
    key(m, k);
    out_string(m->o, s);
}

static void out_numbers(text_out *o, const double *x, int n) {
    out_raw(o, "[", 1);
    for (int i = 0; i < n; ++i) {
        if (i) {
            out_raw(o, ", ", 2);
        }
        out_number(o, x[i]);
    }
    out_raw(o, "]", 1);
}

static void put_vec3(members *m, const char *k, heft_vec3 v) {
    double x[3] = {v.x, v.y, v.z};
    key(m, k);
    out_numbers(m->o, x, 3);
}

static void put_quat(members *m, const char *k, heft_quat q) {
    double x[4] = {q.w, q.x, q.y, q.z};
    key(m, k);
    out_numbers(m->o, x, 4);
}

static void put_mat3(members *m, const char *k, heft_mat3 a) {
    key(m, k);
    out_raw(m->o, "[", 1);
    for (int r = 0; r < 3; ++r) {
        out_raw(m->o, r ? ", " : "", r ? 2 : 0);
        out_numbers(m->o, a.m[r], 3);
    }
    out_raw(m->o, "]", 1);
}

/* the inertia as one number when it is that times the identity, as its
 * diagonal [xx, yy, zz] when the rest is zero, else as three rows */
static void put_inertia(members *m, heft_mat3 a) {
    if (mat3_is_diagonal(&a) && same_bits(a.m[0][0], a.m[1][1]) &&
        same_bits(a.m[0][0], a.m[2][2])) {
        put_number(m, "inertia", a.m[0][0]);
    } else if (mat3_is_diagonal(&a)) {
        double d[3] = {a.m[0][0], a.m[1][1], a.m[2][2]};
        key(m, "inertia");
        out_numbers(m->o, d, 3);
    } else {
        put_mat3(m, "inertia", a);
    }
}

static void put_number_unless(members *m, const char *k, double x, double fallback) {
    if (!same_bits(x, fallback)) {
        put_number(m, k, x);
    }
}

static void put_vec3_unless_zero(members *m, const char *k, heft_vec3 v) {
    if (!vec3_is(v, 0.0, 0.0, 0.0)) {
        put_vec3(m, k, v);
    }
}

static void indent_line(text_out *o, int indent) {
    out_raw(o, "\n", 1);
    for (int i = 0; i < indent; ++i) {
        out_raw(o, "  ", 2);
    }
}

/* ---- references: a name when it is unique, else the position in the file */

typedef struct saver {
    const heft_world *w;
    text_out out;
    int32_t *body_position;  /* by body index: position in the file's list */
    int32_t *joint_position; /* by joint index */
    int32_t *body_class;     /* by body index: its class, -1 for none */
    int32_t *class_body;     /* by class: its first body */
    char (*class_name)[32];
    int class_count;
} saver;

static int unique_body_name(const heft_world *w, int32_t index) {
    const char *n = w->bodies[index].name;
    if (!n[0]) {
        return 0;
    }
    for (int i = 0; i < w->body_high; ++i) {
        if (i != index && w->bodies[i].slot.alive && strcmp(w->bodies[i].name, n) == 0) {
            return 0;
        }
    }
    return 1;
}

static int unique_joint_name(const heft_world *w, int32_t index) {
    const char *n = w->joints[index].name;
    if (!n[0]) {
        return 0;
    }
    for (int i = 0; i < w->joint_high; ++i) {
        if (i != index && w->joints[i].slot.alive && strcmp(w->joints[i].name, n) == 0) {
            return 0;
        }
    }
    return 1;
}

static void put_body_ref(saver *s, members *m, const char *k, int32_t index) {
    if (index < 0) {
        key(m, k);
        out_raw(m->o, "null", 4);
    } else if (unique_body_name(s->w, index)) {
        put_string(m, k, s->w->bodies[index].name);
    } else {
        put_int(m, k, s->body_position[index]);
    }
}

static void put_joint_ref(saver *s, members *m, const char *k, int32_t index) {
    if (unique_joint_name(s->w, index)) {
        put_string(m, k, s->w->joints[index].name);
    } else {
        put_int(m, k, s->joint_position[index]);
    }
}

/* ---- the sections ------------------------------------------------------- */

static void save_world(saver *s, members *top) {
    const heft_world_def *d = &s->w->def;
    members m;
    key(top, "world");
    open_object(&s->out, &m, 2);
    put_vec3(&m, "gravity", d->gravity);
    put_number(&m, "rigid_compliance", d->rigid_compliance);
    if (d->joint_baumgarte == HEFT_BAUMGARTE_AUTO) {
        put_string(&m, "joint_baumgarte", "auto");
    } else {
        put_number(&m, "joint_baumgarte", d->joint_baumgarte);
    }
    put_number(&m, "contact_baumgarte", d->contact_baumgarte);
    put_number(&m, "contact_slop", d->contact_slop);
    put_number(&m, "contact_margin", d->contact_margin);
    put_number(&m, "contact_compliance", d->contact_compliance);
    put_string(&m, "gyroscopic", scene_gyroscopic_name((int)d->gyroscopic));
    put_bool(&m, "geometric_stiffness", d->geometric_stiffness);
    put_int(&m, "post_stabilization", d->post_stabilization);
    put_int(&m, "substeps", d->substeps);
    put_number(&m, "restitution_threshold", s->w->restitution_threshold);
    if (heft_world_hit_event_threshold(s->w) != 1.0) { /* the default is not written */
        put_number(&m, "hit_event_threshold", heft_world_hit_event_threshold(s->w));
    }
    /* sleeping (docs/sleeping.md): only what differs from the defaults, so
     * that a world without it saves as it always did */
    const heft_world_def base = heft_default_world_def();
    if (d->enable_sleep != base.enable_sleep) {
        put_bool(&m, "enable_sleep", d->enable_sleep);
    }
    if (d->sleep_linear_speed != base.sleep_linear_speed) {
        put_number(&m, "sleep_linear_speed", d->sleep_linear_speed);
    }
    if (d->sleep_angular_speed != base.sleep_angular_speed) {
        put_number(&m, "sleep_angular_speed", d->sleep_angular_speed);
    }
    if (d->time_to_sleep != base.time_to_sleep) {
        put_number(&m, "time_to_sleep", d->time_to_sleep);
    }
    close_object(&m);
}

static void save_solver(saver *s, members *top) {
    const heft_solver_options *o = &s->w->solver_options;
    const heft_solver_options defaults = heft_solver_default_options();
    members m, p;
    key(top, "solver");
    open_object(&s->out, &m, 2);
    put_string(&m, "name", s->w->solver_name);
    key(&m, "options");
    open_object(&s->out, &p, 3);
    put_int(&p, "max_iterations", o->max_iterations);
    put_number(&p, "tolerance", o->tolerance);
    put_number(&p, "relaxation", o->relaxation);
    put_bool(&p, "warm_start", o->warm_start);
    put_int(&p, "max_pivots", o->max_pivots);
    put_int(&p, "bpp_pgs_sweeps", o->bpp_pgs_sweeps);
    put_bool(&p, "keep_index_sets", o->keep_index_sets);
    put_number(&p, "skyline_refactor_fraction", o->skyline_refactor_fraction);
    /* written only when not the defaults, so that a scene with the default
     * backstop saves to the same file as before these options existed */
    if (o->backstop_max_variables != defaults.backstop_max_variables) {
        put_int(&p, "backstop_max_variables", o->backstop_max_variables);
    }
    put_number_unless(&p, "backstop_pivot_budget", o->backstop_pivot_budget,
                      defaults.backstop_pivot_budget);
    put_number_unless(&p, "backstop_accept", o->backstop_accept, defaults.backstop_accept);
    put_int(&p, "preconditioner", o->preconditioner);
    put_number(&p, "pcg_tolerance", o->pcg_tolerance);
    put_int(&p, "pcg_max_iterations", o->pcg_max_iterations);
    put_number(&p, "ict_drop_tolerance", o->ict_drop_tolerance);
    put_int(&p, "ict_fill", o->ict_fill);
    put_bool(&p, "adaptive_regularization", o->adaptive_regularization);
    put_number(&p, "regularization_shift", o->regularization_shift);
    put_int(&p, "regularization_pivot_limit", o->regularization_pivot_limit);
    put_number(&p, "cr_tolerance", o->cr_tolerance);
    put_int(&p, "cr_max_iterations", o->cr_max_iterations);
    put_int(&p, "ldl_ordering", o->ldl_ordering);
    put_int(&p, "ldl_shatter_degree", o->ldl_shatter_degree);
    put_int(&p, "ldl_shard_constraints", o->ldl_shard_constraints);
    put_number(&p, "ldl_regularization", o->ldl_regularization);
    put_number_unless(&p, "pgs_light_ratio", o->pgs_light_ratio, defaults.pgs_light_ratio);
    close_object(&p);
    close_object(&m);
}

/* Shapes without point lists take one line. */
static void save_shape(saver *s, const heft_shape_def *d, int indent) {
    const heft_shape_def base = heft_default_shape_def();
    int lists = d->type == HEFT_SHAPE_HULL || d->type == HEFT_SHAPE_MESH ||
                d->type == HEFT_SHAPE_HEIGHT_FIELD;
    members m;
    open_object(&s->out, &m, lists ? indent : 0);
    put_string(&m, "type", scene_shape_type_name((int)d->type));
    switch (d->type) {
    case HEFT_SHAPE_SPHERE:
        put_number(&m, "radius", d->radius);
        break;
    case HEFT_SHAPE_BOX:
        put_vec3(&m, "half_extents", d->half_extents);
        break;
    case HEFT_SHAPE_CAPSULE:
    case HEFT_SHAPE_CYLINDER:
        put_number(&m, "radius", d->radius);
        put_number(&m, "half_length", d->half_length);
        break;
    case HEFT_SHAPE_PLANE:
        put_vec3(&m, "normal", d->normal);
        put_number(&m, "offset", d->offset);
        break;
    case HEFT_SHAPE_HULL:
        key(&m, "points");
        out_raw(&s->out, "[", 1);
        for (int i = 0; i < d->hull.count; ++i) {
            double x[3] = {d->hull.points[i].x, d->hull.points[i].y, d->hull.points[i].z};
            separator(&s->out, i);
            indent_line(&s->out, indent + 1);
            out_numbers(&s->out, x, 3);
        }
        out_raw(&s->out, "]", 1);
        break;
    case HEFT_SHAPE_MESH:
        key(&m, "vertices");
        out_raw(&s->out, "[", 1);
        for (int i = 0; i < d->mesh.vertex_count; ++i) {
            const heft_vec3 *v = &d->mesh.vertices[i];
            double x[3] = {v->x, v->y, v->z};
            separator(&s->out, i);
            indent_line(&s->out, indent + 1);
            out_numbers(&s->out, x, 3);
        }
        out_raw(&s->out, "]", 1);
        key(&m, "triangles");
        out_raw(&s->out, "[", 1);
        for (int i = 0; i < d->mesh.triangle_count; ++i) {
            const int32_t *t = &d->mesh.indices[3 * i];
            separator(&s->out, i);
            indent_line(&s->out, indent + 1);
            out_printf(&s->out, "[%d, %d, %d]", (int)t[0], (int)t[1], (int)t[2]);
        }
        out_raw(&s->out, "]", 1);
        break;
    case HEFT_SHAPE_HEIGHT_FIELD: {
        const heft_height_field_def *h = &d->height_field;
        put_int(&m, "count_x", h->count_x);
        put_int(&m, "count_y", h->count_y);
        put_number(&m, "spacing_x", h->spacing_x);
        put_number(&m, "spacing_y", h->spacing_y);
        key(&m, "heights");
        out_raw(&s->out, "[", 1);
        for (int j = 0; j < h->count_y; ++j) {
            separator(&s->out, j);
            indent_line(&s->out, indent + 1);
            out_numbers(&s->out, h->heights + (size_t)j * (size_t)h->count_x, h->count_x);
        }
        out_raw(&s->out, "]", 1);
        break;
    }
    }
    put_vec3_unless_zero(&m, "local_position", d->local_position);
    if (!quat_is_identity(d->local_orientation)) {
        put_quat(&m, "local_orientation", d->local_orientation);
    }
    put_number_unless(&m, "friction", d->friction, base.friction);
    put_number_unless(&m, "restitution", d->restitution, base.restitution);
    put_number_unless(&m, "rolling_resistance", d->rolling_resistance, base.rolling_resistance);
    put_number_unless(&m, "density", d->density, base.density);
    if (d->category_bits != base.category_bits) {
        put_int(&m, "category_bits", d->category_bits);
    }
    if (d->mask_bits != base.mask_bits) {
        put_int(&m, "mask_bits", d->mask_bits);
    }
    if (d->is_sensor) {
        put_bool(&m, "is_sensor", 1);
    }
    close_object(&m);
}

/* What a body may share with others through a class: its mass, inertia,
 * damping, gravity scale, sleeping and shapes. */
static void save_body_class_part(saver *s, members *m, const body *b) {
    const heft_body_def base = heft_default_body_def();
    if (b->type == HEFT_BODY_DYNAMIC) {
        /* absent, the inertia is that creation gives a body of this mass */
        double cube = b->mass / 6.0;
        heft_mat3 made = heft_mat3_diag(cube, cube, cube);
        put_number_unless(m, "mass", b->mass, base.mass);
        if (memcmp(&made, &b->inertia, sizeof made) != 0) {
            put_inertia(m, b->inertia);
        }
    }
    put_number_unless(m, "linear_damping", b->linear_damping, base.linear_damping);
    put_number_unless(m, "angular_damping", b->angular_damping, base.angular_damping);
    put_number_unless(m, "gravity_scale", b->gravity_scale, base.gravity_scale);
    if (!b->sleep_enabled) {
        put_bool(m, "enable_sleep", 0);
    }
    if (b->shapes < 0) {
        return;
    }
    key(m, "shapes");
    out_raw(&s->out, "[", 1);
    int n = 0;
    for (int32_t i = b->shapes; i >= 0; i = s->w->shapes[i].body_next) {
        heft_shape_id sid = {i, s->w->shapes[i].slot.generation};
        heft_shape_def sd;
        heft_shape_get_def(s->w, sid, &sd);
        separator(&s->out, n++);
        indent_line(&s->out, 4);
        save_shape(s, &sd, 5);
    }
    indent_line(&s->out, 3);
    out_raw(&s->out, "]", 1);
}

static void save_body(saver *s, int32_t index) {
    const body *b = &s->w->bodies[index];
    int32_t cls = s->body_class ? s->body_class[index] : -1;
    members m;
    open_object(&s->out, &m, 3);
    if (b->name[0]) {
        put_string(&m, "name", b->name);
    }
    if (cls >= 0) {
        put_string(&m, "class", s->class_name[cls]);
    }
    const heft_body_def base = heft_default_body_def();
    if (b->type != base.type) {
        put_string(&m, "type", scene_body_type_name((int)b->type));
    }
    put_vec3_unless_zero(&m, "position", b->position);
    if (!quat_is_identity(b->orientation)) {
        put_quat(&m, "orientation", b->orientation);
    }
    put_vec3_unless_zero(&m, "linear_velocity", b->linear_velocity);
    put_vec3_unless_zero(&m, "angular_velocity", b->angular_velocity);
    if (cls < 0) {
        save_body_class_part(s, &m, b);
    }
    close_object(&m);
}

/* ---- classes: bodies whose class parts are written alike (two or more)
 * share one, named for their first shape's type and numbered in the order
 * of their first bodies, so the same world always saves the same classes */

typedef struct class_part {
    char *text;
    size_t length;
    int32_t body;
} class_part;

static int by_text_then_body(const void *a, const void *b) {
    const class_part *x = a, *y = b;
    if (x->length != y->length) {
        return x->length < y->length ? -1 : 1;
    }
    int c = memcmp(x->text, y->text, x->length);
    return c ? c : (x->body > y->body) - (x->body < y->body);
}

static int by_first_body(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* fills body_class, class_body and class_name; 0 when out of memory */
static int find_classes(saver *s) {
    const heft_world *w = s->w;
    class_part *parts = heft_alloc(sizeof(class_part) * (size_t)(w->body_high + 1));
    s->body_class = heft_alloc(sizeof(int32_t) * (size_t)(w->body_high + 1));
    s->class_body = heft_alloc(sizeof(int32_t) * (size_t)(w->body_high + 1));
    int n = 0, ok = parts && s->body_class && s->class_body;
    text_out keep = s->out;
    for (int32_t i = 0; ok && i < w->body_high; ++i) {
        s->body_class[i] = -1;
        if (!w->bodies[i].slot.alive) {
            continue;
        }
        members m = {&s->out, 3, 0};
        memset(&s->out, 0, sizeof s->out);
        save_body_class_part(s, &m, &w->bodies[i]);
        ok = !s->out.failed;
        if (ok && s->out.length > 0) {
            parts[n].text = s->out.data;
            parts[n].length = s->out.length;
            parts[n].body = i;
            n++;
        } else {
            heft_free(s->out.data);
        }
    }
    s->out = keep;
    if (ok) {
        qsort(parts, (size_t)n, sizeof(class_part), by_text_then_body);
        for (int a = 0, b; a < n; a = b) {
            for (b = a + 1; b < n && parts[b].length == parts[a].length &&
                            memcmp(parts[b].text, parts[a].text, parts[a].length) == 0;
                 ++b) {
            }
            if (b - a >= 2) {
                s->class_body[s->class_count++] = parts[a].body;
            }
        }
        qsort(s->class_body, (size_t)s->class_count, sizeof(int32_t), by_first_body);
        s->class_name = heft_alloc(sizeof *s->class_name * (size_t)(s->class_count + 1));
        ok = s->class_name != NULL;
    }
    for (int c = 0; ok && c < s->class_count; ++c) {
        const body *b = &w->bodies[s->class_body[c]];
        const char *stem =
            b->shapes >= 0 ? scene_shape_type_name((int)w->shapes[b->shapes].type) : "body";
        int same = 0;
        for (int e = 0; e < c; ++e) {
            same += strncmp(s->class_name[e], stem, strlen(stem)) == 0;
        }
        if (same) {
            snprintf(s->class_name[c], sizeof s->class_name[c], "%s%d", stem, same + 1);
        } else {
            snprintf(s->class_name[c], sizeof s->class_name[c], "%s", stem);
        }
    }
    /* the bodies of each class: those whose text is the first body's */
    for (int a = 0, b; ok && a < n; a = b) {
        for (b = a + 1; b < n && parts[b].length == parts[a].length &&
                        memcmp(parts[b].text, parts[a].text, parts[a].length) == 0;
             ++b) {
        }
        for (int c = 0; b - a >= 2 && c < s->class_count; ++c) {
            if (s->class_body[c] == parts[a].body) {
                for (int k = a; k < b; ++k) {
                    s->body_class[parts[k].body] = c;
                }
            }
        }
    }
    for (int k = 0; k < n; ++k) {
        heft_free(parts[k].text);
    }
    heft_free(parts);
    return ok;
}

static void save_classes(saver *s, members *top) {
    members all, m;
    key(top, "classes");
    open_object(&s->out, &all, 2);
    for (int c = 0; c < s->class_count; ++c) {
        key(&all, s->class_name[c]);
        open_object(&s->out, &m, 3);
        save_body_class_part(s, &m, &s->w->bodies[s->class_body[c]]);
        close_object(&m);
    }
    close_object(&all);
}

static int motor_is_default(const heft_joint_motor *mo) {
    return mo->mode == HEFT_MOTOR_OFF && same_bits(mo->target_velocity, 0.0) &&
           same_bits(mo->target_position, 0.0) && same_bits(mo->max_force, INFINITY) &&
           same_bits(mo->stiffness, 0.0) && same_bits(mo->damping, 0.0);
}

static int limit_is_default(const heft_joint_limit *l) {
    return !l->enabled && same_bits(l->lower, 0.0) && same_bits(l->upper, 0.0) &&
           same_bits(l->stiffness, 0.0) && same_bits(l->damping, 0.0);
}

static int softness_is_default(const joint *j, int k) {
    return same_bits(j->dof_stiffness[k], 0.0) && same_bits(j->dof_damping[k], 0.0);
}

static void save_joint_dofs(saver *s, members *m, const joint *j) {
    members g, e;
    int any = 0;
    for (int k = 0; k < 6; ++k) {
        any |= !softness_is_default(j, k);
    }
    if (any) {
        key(m, "dof_softness");
        open_object(&s->out, &g, 4);
        for (int k = 0; k < 6; ++k) {
            if (!softness_is_default(j, k)) {
                key(&g, scene_dof_name(k));
                open_object(&s->out, &e, 0);
                put_number_unless(&e, "stiffness", j->dof_stiffness[k], 0.0);
                put_number_unless(&e, "damping", j->dof_damping[k], 0.0);
                close_object(&e);
            }
        }
        close_object(&g);
    }
    any = 0;
    for (int k = 0; k < HEFT_JOINT_DOF_COUNT; ++k) {
        any |= !limit_is_default(&j->limit[k]);
    }
    if (any) {
        key(m, "limits");
        open_object(&s->out, &g, 4);
        for (int k = 0; k < HEFT_JOINT_DOF_COUNT; ++k) {
            const heft_joint_limit *l = &j->limit[k];
            if (!limit_is_default(l)) {
                /* a limit given is enabled unless it says otherwise */
                key(&g, scene_dof_name(k));
                open_object(&s->out, &e, 0);
                if (!l->enabled) {
                    put_bool(&e, "enabled", 0);
                }
                put_number_unless(&e, "lower", l->lower, 0.0);
                put_number_unless(&e, "upper", l->upper, 0.0);
                put_number_unless(&e, "stiffness", l->stiffness, 0.0);
                put_number_unless(&e, "damping", l->damping, 0.0);
                close_object(&e);
            }
        }
        close_object(&g);
    }
    any = 0;
    for (int k = 0; k < 6; ++k) {
        any |= !motor_is_default(&j->motor[k]);
    }
    if (any) {
        key(m, "motors");
        open_object(&s->out, &g, 4);
        for (int k = 0; k < 6; ++k) {
            const heft_joint_motor *mo = &j->motor[k];
            if (!motor_is_default(mo)) {
                key(&g, scene_dof_name(k));
                open_object(&s->out, &e, 0);
                put_string(&e, "mode", scene_motor_mode_name((int)mo->mode));
                put_number_unless(&e, "target_velocity", mo->target_velocity, 0.0);
                put_number_unless(&e, "target_position", mo->target_position, 0.0);
                put_number_unless(&e, "max_force", mo->max_force, INFINITY);
                put_number_unless(&e, "stiffness", mo->stiffness, 0.0);
                put_number_unless(&e, "damping", mo->damping, 0.0);
                close_object(&e);
            }
        }
        close_object(&g);
    }
    if (j->type == HEFT_JOINT_SIX_DOF) {
        key(m, "dof_modes");
        open_object(&s->out, &g, 0);
        for (int k = 0; k < 6; ++k) {
            put_string(&g, scene_dof_name(k), scene_dof_mode_name((int)j->dof_mode[k]));
        }
        close_object(&g);
    }
}

static void save_joint(saver *s, int32_t index) {
    const joint *j = &s->w->joints[index];
    int coupling = j->type == HEFT_JOINT_GEAR || j->type == HEFT_JOINT_RACK;
    const heft_joint_def base = heft_default_joint_def(j->type);
    members m, st;
    open_object(&s->out, &m, 3);
    if (j->name[0]) {
        put_string(&m, "name", j->name);
    }
    put_string(&m, "type", scene_joint_type_name((int)j->type));
    if (coupling) {
        put_joint_ref(s, &m, "joint_a", j->coupled[0].index);
        put_joint_ref(s, &m, "joint_b", j->coupled[1].index);
        put_number(&m, "ratio", j->ratio);
    } else {
        if (j->body_a >= 0) { /* absent: the world frame */
            put_body_ref(s, &m, "body_a", j->body_a);
        }
        put_body_ref(s, &m, "body_b", j->body_b);
        put_vec3_unless_zero(&m, "local_anchor_a", j->local_anchor_a);
        put_vec3_unless_zero(&m, "local_anchor_b", j->local_anchor_b);
        if (!vec3_is(j->local_axis_a, base.local_axis_a.x, base.local_axis_a.y,
                     base.local_axis_a.z)) {
            put_vec3(&m, "local_axis_a", j->local_axis_a);
        }
        if (!vec3_is(j->local_axis_b, base.local_axis_b.x, base.local_axis_b.y,
                     base.local_axis_b.z)) {
            put_vec3(&m, "local_axis_b", j->local_axis_b);
        }
    }
    if (j->type == HEFT_JOINT_DISTANCE || j->type == HEFT_JOINT_ROPE) {
        put_number(&m, "length", j->length);
    }
    put_number_unless(&m, "stiffness", j->stiffness, base.stiffness);
    put_number_unless(&m, "damping", j->damping, base.damping);
    save_joint_dofs(s, &m, j);
    if (j->collide_connected) {
        put_bool(&m, "collide_connected", 1);
    }
    put_number_unless(&m, "break_force", j->break_force, base.break_force);
    put_number_unless(&m, "break_torque", j->break_torque, base.break_torque);
    if (j->geometric_stiffness_off) {
        put_bool(&m, "geometric_stiffness", 0);
    }
    /* what creation measured from the poses it was made at */
    key(&m, "state");
    open_object(&s->out, &st, 4);
    if (coupling) {
        key(&st, "coupled_origin");
        out_numbers(&s->out, j->coupled_origin, 2);
        key(&st, "coupled_last");
        out_numbers(&s->out, j->coupled_last, 2);
    } else {
        put_quat(&st, "frame_a", j->frame_a);
        put_quat(&st, "frame_b", j->frame_b);
        put_quat(&st, "relative_rotation", j->relative_rotation);
    }
    key(&st, "coordinates");
    out_numbers(&s->out, j->coordinate_last, HEFT_JOINT_DOF_COUNT);
    if (j->broken) {
        put_bool(&st, "broken", 1);
    }
    close_object(&st);
    close_object(&m);
}

static void save_operators(saver *s, members *top, const heft_scene_info *info) {
    key(top, "operators");
    out_raw(&s->out, "[", 1);
    for (int i = 0; i < info->operator_count; ++i) {
        const heft_scene_operator *op = &info->operators[i];
        members m;
        separator(&s->out, i);
        indent_line(&s->out, 2);
        open_object(&s->out, &m, 3);
        put_string(&m, "name", op->name);
        put_string(&m, "unit", op->unit);
        put_string(&m, "help", op->help);
        put_number(&m, "min", op->min);
        put_number(&m, "max", op->max);
        put_number(&m, "value", op->value);
        put_joint_ref(s, &m, "joint", op->joint.index);
        put_string(&m, "target", scene_operator_target_name((int)op->target));
        if (op->target != HEFT_OPERATOR_LENGTH) {
            put_string(&m, "dof", scene_dof_name((int)op->dof));
        }
        put_number(&m, "scale", op->scale);
        close_object(&m);
    }
    if (info->operator_count) {
        indent_line(&s->out, 1);
    }
    out_raw(&s->out, "]", 1);
}

static int check_operators(const heft_world *w, const heft_scene_info *info) {
    if (info->operator_count < 0 || info->operator_count > HEFT_SCENE_MAX_OPERATORS) {
        heft_set_error("scene info: operator_count must lie in [0, %d]", HEFT_SCENE_MAX_OPERATORS);
        return 0;
    }
    for (int i = 0; i < info->operator_count; ++i) {
        const heft_scene_operator *op = &info->operators[i];
        if (!world_joint(w, op->joint) || !scene_operator_target_name((int)op->target) ||
            (op->target != HEFT_OPERATOR_LENGTH && !scene_dof_name((int)op->dof))) {
            heft_set_error("scene info: operator %d (%s) names no live joint, or a bad target", i,
                           op->name);
            return 0;
        }
    }
    return 1;
}

char *heft_world_save_text(const heft_world *w, const heft_scene_info *info, size_t *length) {
    heft_scene_info defaults = heft_default_scene_info();
    if (!w) {
        heft_set_error("heft_world_save: world must not be NULL");
        return NULL;
    }
    info = info ? info : &defaults;
    if (!check_operators(w, info)) {
        return NULL;
    }
    saver s;
    memset(&s, 0, sizeof s);
    s.w = w;
    s.body_position = heft_alloc(sizeof(int32_t) * (size_t)(w->body_high + 1));
    s.joint_position = heft_alloc(sizeof(int32_t) * (size_t)(w->joint_high + 1));
    if (!s.body_position || !s.joint_position) {
        heft_free(s.body_position);
        heft_free(s.joint_position);
        heft_set_error("out of memory");
        return NULL;
    }
    int32_t n = 0;
    for (int i = 0; i < w->body_high; ++i) {
        s.body_position[i] = w->bodies[i].slot.alive ? n++ : -1;
    }
    n = 0;
    for (int i = 0; i < w->joint_high; ++i) {
        s.joint_position[i] = w->joints[i].slot.alive ? n++ : -1;
    }
    members top;
    open_object(&s.out, &top, 1);
    put_string(&top, "format", SCENE_FORMAT);
    put_int(&top, "version", SCENE_VERSION);
    put_string(&top, "name", info->name);
    put_number(&top, "time_step", info->time_step);
    put_int(&top, "steps", info->steps);
    save_world(&s, &top);
    save_solver(&s, &top);
    if (!find_classes(&s)) {
        s.out.failed = 1;
    } else if (s.class_count > 0) {
        save_classes(&s, &top);
    }
    key(&top, "bodies");
    out_raw(&s.out, "[", 1);
    n = 0;
    for (int i = 0; i < w->body_high; ++i) {
        if (w->bodies[i].slot.alive) {
            separator(&s.out, n++);
            indent_line(&s.out, 2);
            save_body(&s, i);
        }
    }
    if (n) {
        indent_line(&s.out, 1);
    }
    out_raw(&s.out, "]", 1);
    key(&top, "joints");
    out_raw(&s.out, "[", 1);
    n = 0;
    for (int i = 0; i < w->joint_high; ++i) {
        if (w->joints[i].slot.alive) {
            separator(&s.out, n++);
            indent_line(&s.out, 2);
            save_joint(&s, i);
        }
    }
    if (n) {
        indent_line(&s.out, 1);
    }
    out_raw(&s.out, "]", 1);
    save_operators(&s, &top, info);
    close_object(&top);
    out_raw(&s.out, "\n", 1);
    heft_free(s.body_position);
    heft_free(s.joint_position);
    heft_free(s.body_class);
    heft_free(s.class_body);
    heft_free(s.class_name);
    if (s.out.failed) {
        heft_free(s.out.data);
        heft_set_error("out of memory");
        return NULL;
    }
    if (length) {
        *length = s.out.length;
    }
    return s.out.data;
}

heft_result heft_world_save(const heft_world *w, const char *path, const heft_scene_info *info) {
    if (!path) {
        heft_set_error("heft_world_save: path must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    size_t length = 0;
    char *text = heft_world_save_text(w, info, &length);
    if (!text) {
        return strcmp(heft_last_error(), "out of memory") == 0 ? HEFT_ERROR_OUT_OF_MEMORY
                                                               : HEFT_ERROR_INVALID_ARGUMENT;
    }
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(text, 1, length, f) == length;
    ok = (f && fclose(f) == 0) && ok;
    heft_free(text);
    if (!ok) {
        heft_set_error("%s: could not be written", path);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    return HEFT_OK;
}
