/* Reads scene files (docs/scene-format.md) with cJSON. Everything is read
 * and made in a scratch world first, so that every check the engine makes
 * runs before the caller's world is touched; only a file that built
 * completely is built again into an existing world. Errors name the file,
 * the line and the field. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "array.h"
#include "error.h"
#include "mesh_file.h"
#include "scene.h"
#include "world.h"

#define SCENE_MAX_FILE (256u * 1024u * 1024u)

/* The element being read, for messages: bodies[3] "boom".shapes[0]. Kept
 * as parts and formatted only when something is refused. */
typedef struct place {
    const char *section;      /* "bodies", "solver.options", ...; "" for the top level */
    int index;                /* in the section's list; -1 for none */
    char name[HEFT_NAME_MAX]; /* the element's name; "" for none */
    int shape;                /* a body's shape; -1 for none */
} place;

/* The members of an object whose fields were checked: at[i] is the member
 * named keys[i] (NULL when absent), so that reading a field is a look-up
 * rather than a walk of the object's list. */
#define SCENE_MAX_KEYS 32
#define SCENE_INDEXED 8

typedef struct indexed {
    const cJSON *obj;
    const char *const *keys;
    int count;
    int cursor; /* after the last key asked for: the readers ask in the lists' order */
    const cJSON *at[SCENE_MAX_KEYS];
} indexed;

typedef struct loader {
    const char *source; /* the file's name in messages */
    const char *dir;    /* where relative mesh paths start ("" for the current folder) */
    const char *text;
    size_t length;
    const cJSON *root;
    place where;
    heft_scene_info info;
    /* the objects checked last (a ring): enough for the nesting of the format */
    indexed indexed[SCENE_INDEXED];
    int indexed_next;
    /* what the file made, in file order */
    heft_body_id *bodies;
    int body_count;
    heft_joint_id *joints;
    int joint_count;
    int *weld; /* union-find over the file's bodies and the world (last): fixed joints */
    /* the bodies' and joints' names, sorted, made at the first reference by name */
    struct name_table *body_names, *joint_names;
    /* the file's classes, read once */
    struct body_class *classes;
    int class_count;
} loader;

enum {
    NUM_FINITE = 0,
    NUM_INF = 1,     /* "inf" and "-inf" allowed */
    NUM_NONNEG = 2,  /* >= 0 */
    NUM_POSITIVE = 4 /* > 0 */
};

static void set_where(loader *L, const char *section, int index) {
    L->where.section = section;
    L->where.index = index;
    L->where.name[0] = 0;
    L->where.shape = -1;
}

static void where_named(loader *L, const char *name) {
    size_t n = strlen(name);
    n = n < sizeof L->where.name ? n : sizeof L->where.name - 1;
    memcpy(L->where.name, name, n);
    L->where.name[n] = 0;
}

static int fail(loader *L, const cJSON *item, const char *field, const char *fmt, ...) {
    char message[256], where[128] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    const place *p = &L->where;
    if (p->section && p->section[0]) {
        size_t n = (size_t)snprintf(where, sizeof where, "%s", p->section);
        if (p->index >= 0 && n < sizeof where) {
            n += (size_t)snprintf(where + n, sizeof where - n, "[%d]", p->index);
        }
        if (p->name[0] && n < sizeof where) {
            n += (size_t)snprintf(where + n, sizeof where - n, " \"%s\"", p->name);
        }
        if (p->shape >= 0 && n < sizeof where) {
            snprintf(where + n, sizeof where - n, ".shapes[%d]", p->shape);
        }
    }
    int line = scene_line_of(L->text, L->length, L->root, item);
    const char *sep = where[0] && field && field[0] ? "." : "";
    heft_set_error("%s:%d: %s%s%s: %s", L->source, line, where, sep, field ? field : "", message);
    return 0;
}

/* the newest first: fields are read from the object checked last, mostly */
static indexed *indexed_of(loader *L, const cJSON *obj) {
    for (int k = 1; k <= SCENE_INDEXED && obj; ++k) {
        indexed *x = &L->indexed[(L->indexed_next + SCENE_INDEXED - k) % SCENE_INDEXED];
        if (x->obj == obj) {
            return x;
        }
    }
    return NULL;
}

/* The member key of obj, or NULL. The keys the loader asks for are the
 * literals of its key lists, so the pointers usually match (and mostly in
 * the list's order, from the cursor on); the names are compared when they
 * do not. Objects not checked yet are walked. */
static const cJSON *member(loader *L, const cJSON *obj, const char *key) {
    indexed *x = indexed_of(L, obj);
    if (!x) {
        return cJSON_GetObjectItemCaseSensitive(obj, key);
    }
    for (int k = 0, i = x->cursor; k < x->count; ++k, i = i + 1 < x->count ? i + 1 : 0) {
        if (x->keys[i] == key) {
            x->cursor = i + 1 < x->count ? i + 1 : 0;
            return x->at[i];
        }
    }
    for (int i = 0; i < x->count; ++i) {
        if (strcmp(x->keys[i], key) == 0) {
            return x->at[i];
        }
    }
    return cJSON_GetObjectItemCaseSensitive(obj, key);
}

/* refuses members not in allowed (NULL-terminated, at most SCENE_MAX_KEYS)
 * and members given twice; notes where each member is, for member() */
static int check_keys(loader *L, const cJSON *obj, const char *const *allowed) {
    indexed *x = &L->indexed[L->indexed_next];
    L->indexed_next = (L->indexed_next + 1) % SCENE_INDEXED;
    x->obj = NULL;
    x->keys = allowed;
    x->count = 0;
    x->cursor = 0;
    while (allowed[x->count] && x->count < SCENE_MAX_KEYS) {
        x->at[x->count++] = NULL;
    }
    for (const cJSON *c = obj->child; c; c = c->next) {
        int known = -1;
        for (int i = 0; i < x->count && known < 0; ++i) {
            if (allowed[i][0] == c->string[0] && strcmp(allowed[i], c->string) == 0) {
                known = i;
            }
        }
        if (known < 0) {
            return fail(L, c, c->string, "unknown field");
        }
        if (x->at[known]) {
            return fail(L, c, c->string, "given twice");
        }
        x->at[known] = c;
    }
    x->obj = obj;
    return 1;
}

static int expect_object(loader *L, const cJSON *item, const char *field) {
    return cJSON_IsObject(item) ? 1 : fail(L, item, field, "must be an object");
}

static int number_of(loader *L, const cJSON *item, const char *field, double *out, int flags) {
    double x;
    if (cJSON_IsNumber(item)) {
        x = item->valuedouble;
    } else if (cJSON_IsString(item) && (flags & NUM_INF) &&
               (strcmp(item->valuestring, "inf") == 0 || strcmp(item->valuestring, "-inf") == 0)) {
        x = item->valuestring[0] == '-' ? -INFINITY : INFINITY;
    } else {
        return fail(L, item, field,
                    (flags & NUM_INF) ? "must be a number or \"inf\"" : "must be a number");
    }
    if (isnan(x) || (isinf(x) && !(flags & NUM_INF))) {
        return fail(L, item, field, "must be finite");
    }
    if ((flags & NUM_NONNEG) && !(x >= 0.0)) {
        return fail(L, item, field, "must not be negative (got %g)", x);
    }
    if ((flags & NUM_POSITIVE) && !(x > 0.0)) {
        return fail(L, item, field, "must be positive (got %g)", x);
    }
    *out = x;
    return 1;
}

/* optional members: absent leaves *out as it was */
static int read_number(loader *L, const cJSON *obj, const char *key, double *out, int flags) {
    const cJSON *item = member(L, obj, key);
    return item ? number_of(L, item, key, out, flags) : 1;
}

static int read_int(loader *L, const cJSON *obj, const char *key, int *out, double lo, double hi) {
    const cJSON *item = member(L, obj, key);
    if (!item) {
        return 1;
    }
    if (!cJSON_IsNumber(item) || item->valuedouble != floor(item->valuedouble) ||
        !(item->valuedouble >= lo && item->valuedouble <= hi)) {
        return fail(L, item, key, "must be an integer in [%.0f, %.0f]", lo, hi);
    }
    *out = (int)item->valuedouble;
    return 1;
}

static int read_bits(loader *L, const cJSON *obj, const char *key, uint32_t *out) {
    const cJSON *item = member(L, obj, key);
    if (!item) {
        return 1;
    }
    if (!cJSON_IsNumber(item) || item->valuedouble != floor(item->valuedouble) ||
        !(item->valuedouble >= 0.0 && item->valuedouble <= 4294967295.0)) {
        return fail(L, item, key, "must be an integer in [0, 4294967295]");
    }
    *out = (uint32_t)item->valuedouble;
    return 1;
}

static int read_bool(loader *L, const cJSON *obj, const char *key, int *out) {
    const cJSON *item = member(L, obj, key);
    if (!item) {
        return 1;
    }
    if (!cJSON_IsBool(item)) {
        return fail(L, item, key, "must be true or false");
    }
    *out = cJSON_IsTrue(item) ? 1 : 0;
    return 1;
}

static int read_string(loader *L, const cJSON *obj, const char *key, char *out, size_t size) {
    const cJSON *item = member(L, obj, key);
    if (!item) {
        return 1;
    }
    if (!cJSON_IsString(item)) {
        return fail(L, item, key, "must be a string");
    }
    size_t n = strlen(item->valuestring);
    if (n >= size) {
        return fail(L, item, key, "is longer than %d bytes", (int)size - 1);
    }
    memcpy(out, item->valuestring, n + 1);
    return 1;
}

static int read_enum(loader *L, const cJSON *obj, const char *key, const char *(*table)(int),
                     int *out) {
    const cJSON *item = member(L, obj, key);
    if (!item) {
        return 1;
    }
    int v = cJSON_IsString(item) ? scene_name_lookup(table, item->valuestring) : -1;
    if (v < 0) {
        char names[160] = "";
        for (int i = 0; table(i); ++i) {
            size_t n = strlen(names);
            snprintf(names + n, sizeof names - n, "%s\"%s\"", i ? ", " : "", table(i));
        }
        return fail(L, item, key, "must be one of %s", names);
    }
    *out = v;
    return 1;
}

static int numbers_of(loader *L, const cJSON *item, const char *field, double *out, int n,
                      int flags) {
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != n) {
        return fail(L, item, field, "must be an array of %d numbers", n);
    }
    int i = 0;
    for (const cJSON *c = item->child; c; c = c->next) {
        if (!number_of(L, c, field, &out[i++], flags)) {
            return 0;
        }
    }
    return 1;
}

static int read_vec3(loader *L, const cJSON *obj, const char *key, heft_vec3 *out) {
    const cJSON *item = member(L, obj, key);
    double x[3];
    if (!item) {
        return 1;
    }
    if (!numbers_of(L, item, key, x, 3, NUM_FINITE)) {
        return 0;
    }
    *out = heft_v3(x[0], x[1], x[2]);
    return 1;
}

static int read_quat(loader *L, const cJSON *obj, const char *key, heft_quat *out) {
    const cJSON *item = member(L, obj, key);
    double x[4];
    if (!item) {
        return 1;
    }
    if (!numbers_of(L, item, key, x, 4, NUM_FINITE)) {
        return 0;
    }
    if (x[0] == 0.0 && x[1] == 0.0 && x[2] == 0.0 && x[3] == 0.0) {
        return fail(L, item, key, "must not be all zeros ([w, x, y, z])");
    }
    out->w = x[0];
    out->x = x[1];
    out->y = x[2];
    out->z = x[3];
    return 1;
}

/* three rows of three numbers, the diagonal's three numbers, or one number
 * for the same diagonal entry on every axis */
static int read_mat3(loader *L, const cJSON *obj, const char *key, heft_mat3 *out) {
    const cJSON *item = member(L, obj, key);
    if (!item) {
        return 1;
    }
    if (cJSON_IsNumber(item)) {
        double d;
        if (!number_of(L, item, key, &d, NUM_FINITE)) {
            return 0;
        }
        *out = heft_mat3_diag(d, d, d);
        return 1;
    }
    if (!cJSON_IsArray(item) || cJSON_GetArraySize(item) != 3) {
        return fail(L, item, key,
                    "must be three rows of three numbers, a diagonal's three, or one number");
    }
    if (cJSON_IsNumber(item->child)) {
        double d[3];
        if (!numbers_of(L, item, key, d, 3, NUM_FINITE)) {
            return 0;
        }
        *out = heft_mat3_diag(d[0], d[1], d[2]);
        return 1;
    }
    int r = 0;
    for (const cJSON *line = item->child; line; line = line->next) {
        if (!numbers_of(L, line, key, out->m[r++], 3, NUM_FINITE)) {
            return 0;
        }
    }
    return 1;
}

/* a failure of the engine's own checks, at the element being made */
static int engine_refused(loader *L, const cJSON *item) {
    char message[256];
    snprintf(message, sizeof message, "%s", heft_last_error());
    return fail(L, item, NULL, "%s", message);
}

/* ---- the world section ---------------------------------------------------- */

typedef struct world_settings {
    heft_world_def def;
    char solver[32];
    heft_solver_options options;
    double restitution_threshold;
    double hit_event_threshold;
} world_settings;

static int read_world(loader *L, world_settings *ws) {
    static const char *const keys[] = {"gravity",
                                       "rigid_compliance",
                                       "joint_baumgarte",
                                       "contact_baumgarte",
                                       "contact_slop",
                                       "contact_margin",
                                       "contact_compliance",
                                       "gyroscopic",
                                       "geometric_stiffness",
                                       "post_stabilization",
                                       "substeps",
                                       "restitution_threshold",
                                       "hit_event_threshold",
                                       "enable_sleep",
                                       "sleep_linear_speed",
                                       "sleep_angular_speed",
                                       "time_to_sleep",
                                       NULL};
    ws->def = heft_default_world_def();
    ws->options = heft_solver_default_options();
    snprintf(ws->solver, sizeof ws->solver, "pgs");
    ws->restitution_threshold = 1.0;
    ws->hit_event_threshold = 1.0;
    const cJSON *w = member(L, L->root, "world");
    set_where(L, "world", -1);
    if (w) {
        int gyro = (int)ws->def.gyroscopic;
        if (!expect_object(L, w, NULL) || !check_keys(L, w, keys) ||
            !read_vec3(L, w, "gravity", &ws->def.gravity) ||
            !read_number(L, w, "rigid_compliance", &ws->def.rigid_compliance, NUM_NONNEG) ||
            !read_number(L, w, "contact_baumgarte", &ws->def.contact_baumgarte, NUM_NONNEG) ||
            !read_number(L, w, "contact_slop", &ws->def.contact_slop, NUM_NONNEG) ||
            !read_number(L, w, "contact_margin", &ws->def.contact_margin, NUM_NONNEG) ||
            !read_number(L, w, "contact_compliance", &ws->def.contact_compliance, NUM_NONNEG) ||
            !read_enum(L, w, "gyroscopic", scene_gyroscopic_name, &gyro) ||
            !read_bool(L, w, "geometric_stiffness", &ws->def.geometric_stiffness) ||
            !read_int(L, w, "post_stabilization", &ws->def.post_stabilization, 0, 100) ||
            !read_int(L, w, "substeps", &ws->def.substeps, 1, 1000) ||
            !read_number(L, w, "restitution_threshold", &ws->restitution_threshold, NUM_NONNEG) ||
            !read_number(L, w, "hit_event_threshold", &ws->hit_event_threshold, NUM_NONNEG) ||
            !read_bool(L, w, "enable_sleep", &ws->def.enable_sleep) ||
            !read_number(L, w, "sleep_linear_speed", &ws->def.sleep_linear_speed, NUM_NONNEG) ||
            !read_number(L, w, "sleep_angular_speed", &ws->def.sleep_angular_speed, NUM_NONNEG) ||
            !read_number(L, w, "time_to_sleep", &ws->def.time_to_sleep, NUM_NONNEG)) {
            return 0;
        }
        ws->def.gyroscopic = (heft_gyroscopic)gyro;
        const cJSON *jb = member(L, w, "joint_baumgarte");
        if (jb && !(cJSON_IsString(jb) && strcmp(jb->valuestring, "auto") == 0)) {
            if (!number_of(L, jb, "joint_baumgarte", &ws->def.joint_baumgarte, NUM_NONNEG)) {
                return 0;
            }
            if (ws->def.joint_baumgarte > 1.0) {
                return fail(L, jb, "joint_baumgarte", "must lie in [0, 1] or be \"auto\"");
            }
        }
        if (ws->def.contact_baumgarte > 1.0) {
            return fail(L, member(L, w, "contact_baumgarte"), "contact_baumgarte",
                        "must lie in [0, 1]");
        }
    }
    static const char *const solver_keys[] = {"name", "options", NULL};
    static const char *const option_keys[] = {"max_iterations",
                                              "tolerance",
                                              "relaxation",
                                              "warm_start",
                                              "max_pivots",
                                              "bpp_pgs_sweeps",
                                              "keep_index_sets",
                                              "skyline_refactor_fraction",
                                              "backstop_max_variables",
                                              "backstop_pivot_budget",
                                              "backstop_accept",
                                              "preconditioner",
                                              "pcg_tolerance",
                                              "pcg_max_iterations",
                                              "ict_drop_tolerance",
                                              "ict_fill",
                                              "adaptive_regularization",
                                              "regularization_shift",
                                              "regularization_pivot_limit",
                                              "cr_tolerance",
                                              "cr_max_iterations",
                                              "ldl_ordering",
                                              "ldl_shatter_degree",
                                              "ldl_shard_constraints",
                                              "ldl_regularization",
                                              "pgs_light_ratio",
                                              NULL};
    const cJSON *s = member(L, L->root, "solver");
    set_where(L, "solver", -1);
    if (s) {
        if (!expect_object(L, s, NULL) || !check_keys(L, s, solver_keys) ||
            !read_string(L, s, "name", ws->solver, sizeof ws->solver)) {
            return 0;
        }
        if (member(L, s, "name") && !heft_solver_find(ws->solver)) {
            return fail(L, member(L, s, "name"), "name", "unknown solver \"%s\"", ws->solver);
        }
        const cJSON *o = member(L, s, "options");
        heft_solver_options *op = &ws->options;
        const double big = 2147483647.0;
        set_where(L, "solver.options", -1);
        if (o &&
            (!expect_object(L, o, NULL) || !check_keys(L, o, option_keys) ||
             !read_int(L, o, "max_iterations", &op->max_iterations, 0, big) ||
             !read_number(L, o, "tolerance", &op->tolerance, NUM_FINITE) ||
             !read_number(L, o, "relaxation", &op->relaxation, NUM_FINITE) ||
             !read_bool(L, o, "warm_start", &op->warm_start) ||
             !read_int(L, o, "max_pivots", &op->max_pivots, 0, big) ||
             !read_int(L, o, "bpp_pgs_sweeps", &op->bpp_pgs_sweeps, 0, big) ||
             !read_bool(L, o, "keep_index_sets", &op->keep_index_sets) ||
             !read_number(L, o, "skyline_refactor_fraction", &op->skyline_refactor_fraction,
                          NUM_FINITE) ||
             !read_int(L, o, "backstop_max_variables", &op->backstop_max_variables, -1.0, big) ||
             !read_number(L, o, "backstop_pivot_budget", &op->backstop_pivot_budget, NUM_FINITE) ||
             !read_number(L, o, "backstop_accept", &op->backstop_accept, NUM_FINITE) ||
             !read_int(L, o, "preconditioner", &op->preconditioner, 0, big) ||
             !read_number(L, o, "pcg_tolerance", &op->pcg_tolerance, NUM_FINITE) ||
             !read_int(L, o, "pcg_max_iterations", &op->pcg_max_iterations, 0, big) ||
             !read_number(L, o, "ict_drop_tolerance", &op->ict_drop_tolerance, NUM_FINITE) ||
             !read_int(L, o, "ict_fill", &op->ict_fill, 0, big) ||
             !read_bool(L, o, "adaptive_regularization", &op->adaptive_regularization) ||
             !read_number(L, o, "regularization_shift", &op->regularization_shift, NUM_FINITE) ||
             !read_int(L, o, "regularization_pivot_limit", &op->regularization_pivot_limit, 0,
                       big) ||
             !read_number(L, o, "cr_tolerance", &op->cr_tolerance, NUM_FINITE) ||
             !read_int(L, o, "cr_max_iterations", &op->cr_max_iterations, 0, big) ||
             !read_int(L, o, "ldl_ordering", &op->ldl_ordering, 0, big) ||
             !read_int(L, o, "ldl_shatter_degree", &op->ldl_shatter_degree, 0, big) ||
             !read_int(L, o, "ldl_shard_constraints", &op->ldl_shard_constraints, 0, big) ||
             !read_number(L, o, "ldl_regularization", &op->ldl_regularization, NUM_FINITE) ||
             !read_number(L, o, "pgs_light_ratio", &op->pgs_light_ratio, NUM_FINITE))) {
            return 0;
        }
        char message[160];
        if (heft_solver_options_check(op, message, sizeof message) != 0) {
            return fail(L, o, NULL, "%s", message);
        }
    }
    ws->def.solver = ws->solver;
    set_where(L, "", -1);
    return 1;
}

/* ---- shapes ------------------------------------------------------------------ */

typedef struct shape_data {
    heft_vec3 *points;
    double *heights;
    mesh_data mesh;
} shape_data;

static void shape_data_free(shape_data *d) {
    heft_free(d->points);
    heft_free(d->heights);
    mesh_data_free(&d->mesh);
}

static int read_point_list(loader *L, const cJSON *obj, const char *key, mesh_data *m, int max) {
    const cJSON *item = member(L, obj, key);
    if (!cJSON_IsArray(item)) {
        return fail(L, item ? item : obj, key, "must be an array of [x, y, z] points");
    }
    if (cJSON_GetArraySize(item) > max) {
        return fail(L, item, key, "has more than %d points", max);
    }
    for (const cJSON *c = item->child; c; c = c->next) {
        double x[3];
        if (!numbers_of(L, c, key, x, 3, NUM_FINITE)) {
            return 0;
        }
        if (!mesh_data_push_vertex(m, heft_v3(x[0], x[1], x[2]))) {
            return fail(L, c, key, "out of memory");
        }
    }
    return 1;
}

static int read_shape(loader *L, const cJSON *o, heft_shape_def *d, shape_data *data) {
    static const char *const keys[] = {"type",
                                       "radius",
                                       "half_length",
                                       "half_extents",
                                       "normal",
                                       "offset",
                                       "points",
                                       "vertices",
                                       "triangles",
                                       "file",
                                       "count_x",
                                       "count_y",
                                       "spacing_x",
                                       "spacing_y",
                                       "heights",
                                       "local_position",
                                       "local_orientation",
                                       "friction",
                                       "restitution",
                                       "rolling_resistance",
                                       "density",
                                       "category_bits",
                                       "mask_bits",
                                       "is_sensor",
                                       NULL};
    *d = heft_default_shape_def();
    int type = -1;
    if (!expect_object(L, o, NULL) || !check_keys(L, o, keys) ||
        !read_enum(L, o, "type", scene_shape_type_name, &type)) {
        return 0;
    }
    if (type < 0) {
        return fail(L, o, "type", "is missing");
    }
    d->type = (heft_shape_type)type;
    if (!read_number(L, o, "radius", &d->radius, NUM_POSITIVE) ||
        !read_number(L, o, "half_length", &d->half_length, NUM_NONNEG) ||
        !read_vec3(L, o, "half_extents", &d->half_extents) ||
        !read_vec3(L, o, "normal", &d->normal) ||
        !read_number(L, o, "offset", &d->offset, NUM_FINITE) ||
        !read_vec3(L, o, "local_position", &d->local_position) ||
        !read_quat(L, o, "local_orientation", &d->local_orientation) ||
        !read_number(L, o, "friction", &d->friction, NUM_NONNEG) ||
        !read_number(L, o, "restitution", &d->restitution, NUM_NONNEG) ||
        !read_number(L, o, "rolling_resistance", &d->rolling_resistance, NUM_NONNEG) ||
        !read_number(L, o, "density", &d->density, NUM_NONNEG) ||
        !read_bits(L, o, "category_bits", &d->category_bits) ||
        !read_bits(L, o, "mask_bits", &d->mask_bits) ||
        !read_bool(L, o, "is_sensor", &d->is_sensor)) {
        return 0;
    }
    if (d->type == HEFT_SHAPE_HULL) {
        if (!read_point_list(L, o, "points", &data->mesh, 4096)) {
            return 0;
        }
        d->hull.points = data->mesh.vertices;
        d->hull.count = data->mesh.vertex_count;
    } else if (d->type == HEFT_SHAPE_MESH) {
        const cJSON *file = member(L, o, "file");
        if (file) {
            char path[1024], message[1400];
            if (!cJSON_IsString(file)) {
                return fail(L, file, "file", "must be a string (a Wavefront OBJ file)");
            }
            if (member(L, o, "vertices") || member(L, o, "triangles")) {
                return fail(L, file, "file",
                            "a mesh is given by a file or by vertices and "
                            "triangles, not both");
            }
            int absolute = file->valuestring[0] == '/';
            snprintf(path, sizeof path, "%s%s", absolute ? "" : L->dir, file->valuestring);
            if (!mesh_data_read_obj(path, &data->mesh, message, sizeof message)) {
                return fail(L, file, "file", "%s", message);
            }
        } else {
            if (!read_point_list(L, o, "vertices", &data->mesh, 1 << 24)) {
                return 0;
            }
            const cJSON *t = member(L, o, "triangles");
            if (!cJSON_IsArray(t)) {
                return fail(L, t ? t : o, "triangles", "must be an array of [a, b, c] indices");
            }
            for (const cJSON *c = t->child; c; c = c->next) {
                double x[3];
                if (!numbers_of(L, c, "triangles", x, 3, NUM_NONNEG)) {
                    return 0;
                }
                for (int k = 0; k < 3; ++k) {
                    if (x[k] != floor(x[k]) || x[k] >= data->mesh.vertex_count) {
                        return fail(L, c, "triangles", "index %g is not a vertex", x[k]);
                    }
                    if (!mesh_data_push_index(&data->mesh, (int32_t)x[k])) {
                        return fail(L, c, "triangles", "out of memory");
                    }
                }
            }
        }
        d->mesh.vertices = data->mesh.vertices;
        d->mesh.vertex_count = data->mesh.vertex_count;
        d->mesh.indices = data->mesh.indices;
        d->mesh.triangle_count = data->mesh.index_count / 3;
    } else if (d->type == HEFT_SHAPE_HEIGHT_FIELD) {
        heft_height_field_def *h = &d->height_field;
        if (!read_int(L, o, "count_x", &h->count_x, 2, 1 << 14) ||
            !read_int(L, o, "count_y", &h->count_y, 2, 1 << 14) ||
            !read_number(L, o, "spacing_x", &h->spacing_x, NUM_POSITIVE) ||
            !read_number(L, o, "spacing_y", &h->spacing_y, NUM_POSITIVE)) {
            return 0;
        }
        const cJSON *rows = member(L, o, "heights");
        if (!cJSON_IsArray(rows) || cJSON_GetArraySize(rows) != h->count_y || h->count_x < 2) {
            return fail(L, rows ? rows : o, "heights",
                        "must be count_y rows of count_x numbers (count_x, count_y >= 2)");
        }
        for (const cJSON *line = rows->child; line; line = line->next) {
            if (!cJSON_IsArray(line) || cJSON_GetArraySize(line) != h->count_x) {
                return fail(L, line, "heights", "each row must have count_x (%d) numbers",
                            h->count_x);
            }
        }
        data->heights = heft_alloc(sizeof(double) * (size_t)h->count_x * (size_t)h->count_y);
        if (!data->heights) {
            return fail(L, rows, "heights", "out of memory");
        }
        int j = 0;
        for (const cJSON *line = rows->child; line; line = line->next, ++j) {
            if (!numbers_of(L, line, "heights", data->heights + (size_t)j * (size_t)h->count_x,
                            h->count_x, NUM_FINITE)) {
                return 0;
            }
        }
        h->heights = data->heights;
    }
    return 1;
}

/* ---- bodies --------------------------------------------------------------------- */

/* ---- references by name: a sorted table of the list's names, so that a
 * file of n joints naming n bodies is read in n log n, not n^2 ---------------- */

typedef struct name_entry {
    const char *name;
    int position; /* in the file's list */
} name_entry;

typedef struct name_table {
    int count;
    name_entry entries[]; /* by name, then position */
} name_table;

static int by_name(const void *a, const void *b) {
    const name_entry *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->position > y->position) - (x->position < y->position);
}

/* the names of the first count objects of list; NULL when out of memory */
static name_table *name_table_make(const cJSON *list, int count) {
    name_table *t = heft_alloc(sizeof *t + sizeof(name_entry) * (size_t)(count > 0 ? count : 1));
    if (!t) {
        return NULL;
    }
    t->count = 0;
    int k = 0;
    for (const cJSON *o = list ? list->child : NULL; o && k < count; o = o->next, ++k) {
        const cJSON *name = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, "name") : NULL;
        if (cJSON_IsString(name)) {
            t->entries[t->count].name = name->valuestring;
            t->entries[t->count].position = k;
            t->count++;
        }
    }
    qsort(t->entries, (size_t)t->count, sizeof(name_entry), by_name);
    return t;
}

/* the first position (in the file) named name, -1 for none; *twice when
 * another has the name too */
static int name_table_find(const name_table *t, const char *name, int *twice) {
    int lo = 0, hi = t->count;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(t->entries[mid].name, name) < 0) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    if (lo == t->count || strcmp(t->entries[lo].name, name) != 0) {
        *twice = 0;
        return -1;
    }
    *twice = lo + 1 < t->count && strcmp(t->entries[lo + 1].name, name) == 0;
    return t->entries[lo].position;
}

/* a body reference; *position is its place in the file, body_count for the
 * world frame */
static int find_body(loader *L, const cJSON *item, const char *field, heft_body_id *out,
                     int *position) {
    if (cJSON_IsNull(item)) {
        *out = HEFT_WORLD_FRAME;
        *position = L->body_count;
        return 1;
    }
    if (cJSON_IsNumber(item)) {
        double k = item->valuedouble;
        if (k != floor(k) || k < 0 || k >= L->body_count) {
            return fail(L, item, field, "body %g is not in the file's bodies (0 .. %d)", k,
                        L->body_count - 1);
        }
        *out = L->bodies[(int)k];
        *position = (int)k;
        return 1;
    }
    if (!cJSON_IsString(item)) {
        return fail(L, item, field, "must be a body's name, its position in bodies, or null");
    }
    if (!L->body_names &&
        !(L->body_names = name_table_make(member(L, L->root, "bodies"), L->body_count))) {
        return fail(L, item, field, "out of memory");
    }
    int twice = 0, found = name_table_find(L->body_names, item->valuestring, &twice);
    if (twice) {
        return fail(L, item, field, "two bodies are named \"%s\"", item->valuestring);
    }
    if (found < 0) {
        return fail(L, item, field, "no body is named \"%s\"", item->valuestring);
    }
    *out = L->bodies[found];
    *position = found;
    return 1;
}

/* Creation normalises quaternions and plane normals; a saved file holds
 * them normalised already, and normalising again may change their last bit.
 * Values within round-off of unit length are therefore kept as written, so
 * that a loaded world is the saved one bit for bit. */
static int is_unit_quat(heft_quat q) {
    return fabs(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z - 1.0) <= 1e-14;
}

static void keep_exact_shape(shape *s, const heft_shape_def *d) {
    if (is_unit_quat(d->local_orientation)) {
        s->local_orientation = d->local_orientation;
    }
    heft_vec3 n = d->normal;
    if (d->type == HEFT_SHAPE_PLANE && fabs(heft_v3_dot(n, n) - 1.0) <= 1e-14) {
        s->normal = n;
        s->offset = d->offset;
    }
}

/* The fields a class gives its bodies (docs/scene-format.md "classes"). */
static const char *const class_keys[] = {"mass",           "inertia",         "mass_from_shapes",
                                         "linear_damping", "angular_damping", "gravity_scale",
                                         "enable_sleep",   "shapes",          NULL};

/* the mass, damping and sleeping fields of a body or a class */
static int read_mass_part(loader *L, const cJSON *o, heft_body_def *d, int *from_shapes) {
    return read_number(L, o, "mass", &d->mass, NUM_POSITIVE) &&
           read_mat3(L, o, "inertia", &d->inertia) &&
           read_bool(L, o, "mass_from_shapes", from_shapes) &&
           read_number(L, o, "linear_damping", &d->linear_damping, NUM_NONNEG) &&
           read_number(L, o, "angular_damping", &d->angular_damping, NUM_NONNEG) &&
           read_number(L, o, "gravity_scale", &d->gravity_scale, NUM_FINITE) &&
           read_bool(L, o, "enable_sleep", &d->enable_sleep);
}

/* A class as read: what it sets of a body's def, and its shapes' defs
 * (whose points and meshes its data holds). */
typedef struct class_shape {
    const cJSON *item;
    heft_shape_def def;
    shape_data data;
} class_shape;

typedef struct body_class {
    const cJSON *obj;
    heft_body_def def;
    int from_shapes;
    const cJSON *mass_from_shapes; /* the member, or NULL */
    int gives_mass;                /* mass or inertia given */
    const cJSON *shapes;           /* the member, or NULL */
    int shape_count;
    class_shape *shape;
} body_class;

static void classes_free(loader *L) {
    for (int c = 0; c < L->class_count; ++c) {
        for (int k = 0; k < L->classes[c].shape_count; ++k) {
            shape_data_free(&L->classes[c].shape[k].data);
        }
        heft_free(L->classes[c].shape);
    }
    heft_free(L->classes);
    L->classes = NULL;
    L->class_count = 0;
}

static const body_class *find_class(const loader *L, const char *name) {
    for (int c = 0; c < L->class_count; ++c) {
        if (strcmp(L->classes[c].obj->string, name) == 0) {
            return &L->classes[c];
        }
    }
    return NULL;
}

/* reads and checks every class once, where it is written: its fields and
 * its shapes' (what the engine says of a shape on a body is checked at
 * each body) */
static int read_classes(loader *L) {
    const cJSON *classes = member(L, L->root, "classes");
    if (!classes) {
        return 1;
    }
    set_where(L, "", -1);
    if (!expect_object(L, classes, "classes")) {
        return 0;
    }
    int n = cJSON_GetArraySize(classes);
    L->classes = heft_alloc(sizeof(body_class) * (size_t)(n > 0 ? n : 1));
    if (!L->classes) {
        return fail(L, classes, "classes", "out of memory");
    }
    for (const cJSON *c = classes->child; c; c = c->next) {
        body_class *bc = &L->classes[L->class_count++];
        memset(bc, 0, sizeof *bc);
        bc->obj = c;
        bc->def = heft_default_body_def();
        set_where(L, "classes", -1);
        where_named(L, c->string);
        if (find_class(L, c->string) != bc) {
            return fail(L, c, NULL, "given twice");
        }
        if (!expect_object(L, c, NULL) || !check_keys(L, c, class_keys) ||
            !read_mass_part(L, c, &bc->def, &bc->from_shapes)) {
            return 0;
        }
        bc->mass_from_shapes = member(L, c, "mass_from_shapes");
        bc->gives_mass = member(L, c, "mass") || member(L, c, "inertia");
        bc->shapes = member(L, c, "shapes");
        if (bc->shapes && !cJSON_IsArray(bc->shapes)) {
            return fail(L, bc->shapes, "shapes", "must be an array");
        }
        int count = bc->shapes ? cJSON_GetArraySize(bc->shapes) : 0;
        bc->shape = heft_alloc(sizeof(class_shape) * (size_t)(count > 0 ? count : 1));
        if (!bc->shape) {
            return fail(L, c, NULL, "out of memory");
        }
        for (const cJSON *sh = bc->shapes ? bc->shapes->child : NULL; sh; sh = sh->next) {
            class_shape *cs = &bc->shape[bc->shape_count++];
            memset(&cs->data, 0, sizeof cs->data);
            cs->item = sh;
            L->where.shape = bc->shape_count - 1;
            if (!read_shape(L, sh, &cs->def, &cs->data)) {
                return 0;
            }
        }
    }
    set_where(L, "", -1);
    return 1;
}

/* makes the shape sd (read from item) on body id */
static int build_shape(loader *L, heft_world *w, heft_body_id id, const cJSON *item,
                       const heft_shape_def *sd) {
    heft_shape_id sid = heft_create_shape(w, id, sd);
    if (sid.generation == 0) {
        return engine_refused(L, item);
    }
    keep_exact_shape(&w->shapes[sid.index], sd);
    return 1;
}

static int build_body(loader *L, heft_world *w, const cJSON *o, int index) {
    static const char *const keys[] = {"name",
                                       "class",
                                       "type",
                                       "position",
                                       "orientation",
                                       "linear_velocity",
                                       "angular_velocity",
                                       "mass",
                                       "inertia",
                                       "mass_from_shapes",
                                       "linear_damping",
                                       "angular_damping",
                                       "gravity_scale",
                                       "enable_sleep",
                                       "shapes",
                                       NULL};
    heft_body_def d = heft_default_body_def();
    char name[HEFT_NAME_MAX] = "";
    int type = (int)d.type, from_shapes = 0;
    set_where(L, "bodies", index);
    if (!expect_object(L, o, NULL) || !read_string(L, o, "name", name, sizeof name)) {
        return 0;
    }
    if (name[0]) {
        where_named(L, name);
    }
    if (!check_keys(L, o, keys)) {
        return 0;
    }
    /* a class's fields first, then the body's own, which take precedence */
    const body_class *cls = NULL;
    const cJSON *ref = member(L, o, "class");
    if (ref) {
        if (!cJSON_IsString(ref)) {
            return fail(L, ref, "class", "must be the name of a class");
        }
        if (!(cls = find_class(L, ref->valuestring))) {
            return fail(L, ref, "class", "no class is named \"%s\"", ref->valuestring);
        }
        d.mass = cls->def.mass;
        d.inertia = cls->def.inertia;
        d.linear_damping = cls->def.linear_damping;
        d.angular_damping = cls->def.angular_damping;
        d.gravity_scale = cls->def.gravity_scale;
        d.enable_sleep = cls->def.enable_sleep;
        from_shapes = cls->from_shapes;
    }
    if (!read_enum(L, o, "type", scene_body_type_name, &type) ||
        !read_vec3(L, o, "position", &d.position) ||
        !read_quat(L, o, "orientation", &d.orientation) ||
        !read_vec3(L, o, "linear_velocity", &d.linear_velocity) ||
        !read_vec3(L, o, "angular_velocity", &d.angular_velocity) ||
        !read_mass_part(L, o, &d, &from_shapes)) {
        return 0;
    }
    d.type = (heft_body_type)type;
    d.name = name;
    const cJSON *mfs = member(L, o, "mass_from_shapes");
    mfs = mfs ? mfs : cls ? cls->mass_from_shapes : NULL;
    if (from_shapes &&
        (member(L, o, "mass") || member(L, o, "inertia") || (cls && cls->gives_mass))) {
        return fail(L, mfs, "mass_from_shapes",
                    "a body takes its mass from its shapes or from mass and inertia, not both");
    }
    if (from_shapes && d.type != HEFT_BODY_DYNAMIC) {
        return fail(L, mfs, "mass_from_shapes", "only dynamic bodies have a mass");
    }
    const cJSON *shapes = member(L, o, "shapes");
    if (shapes && !cJSON_IsArray(shapes)) {
        return fail(L, shapes, "shapes", "must be an array");
    }
    heft_body_id id = heft_create_body(w, &d);
    if (id.generation == 0) {
        return engine_refused(L, o);
    }
    L->bodies[L->body_count++] = id;
    /* a unit orientation exactly as written (creation normalises it) */
    body *made = world_body(w, id);
    if (is_unit_quat(d.orientation) &&
        memcmp(&made->orientation, &d.orientation, sizeof d.orientation) != 0) {
        made->orientation = d.orientation;
        body_update_world_inertia(made);
    }
    int k = 0;
    for (const cJSON *s = shapes ? shapes->child : NULL; s; s = s->next, ++k) {
        heft_shape_def sd;
        shape_data data;
        memset(&data, 0, sizeof data);
        L->where.shape = k;
        int ok = read_shape(L, s, &sd, &data) && build_shape(L, w, id, s, &sd);
        shape_data_free(&data);
        if (!ok) {
            return 0;
        }
    }
    for (k = 0; !shapes && cls && k < cls->shape_count; ++k) {
        L->where.shape = k;
        if (!build_shape(L, w, id, cls->shape[k].item, &cls->shape[k].def)) {
            return 0;
        }
    }
    L->where.shape = -1;
    if (from_shapes && heft_body_set_mass_from_shapes(w, id) != HEFT_OK) {
        return engine_refused(L, mfs);
    }
    return 1;
}

/* ---- joints ---------------------------------------------------------------------- */

static int find_joint(loader *L, const cJSON *item, const char *field, heft_joint_id *out) {
    if (cJSON_IsNumber(item)) {
        double k = item->valuedouble;
        if (k != floor(k) || k < 0 || k >= L->joint_count) {
            return fail(L, item, field, "joint %g is not one of the joints before it (0 .. %d)", k,
                        L->joint_count - 1);
        }
        *out = L->joints[(int)k];
        return 1;
    }
    if (!cJSON_IsString(item)) {
        return fail(L, item, field, "must be a joint's name or its position in joints");
    }
    const cJSON *list = member(L, L->root, "joints");
    if (!L->joint_names &&
        !(L->joint_names = name_table_make(list, list ? cJSON_GetArraySize(list) : 0))) {
        return fail(L, item, field, "out of memory");
    }
    int twice = 0, found = name_table_find(L->joint_names, item->valuestring, &twice);
    if (twice) {
        return fail(L, item, field, "two joints are named \"%s\"", item->valuestring);
    }
    if (found < 0) {
        return fail(L, item, field, "no joint is named \"%s\"", item->valuestring);
    }
    if (found >= L->joint_count) {
        return fail(L, item, field, "joint \"%s\" must come before the joints that name it",
                    item->valuestring);
    }
    *out = L->joints[found];
    return 1;
}

/* { "RX": {...}, ... }: calls each(dof) for every member, with its object */
static int dof_of(loader *L, const cJSON *c, int max) {
    int dof = scene_name_lookup(scene_dof_name, c->string);
    if (dof < 0 || dof >= max) {
        return fail(L, c, c->string, "is not a coordinate (X, Y, Z, RX, RY, RZ%s)",
                    max > 6 ? ", SWING" : "") -
               1;
    }
    return dof;
}

static int read_joint_dofs(loader *L, const cJSON *o, heft_joint_def *d) {
    static const char *const soft_keys[] = {"stiffness", "damping", NULL};
    static const char *const limit_keys[] = {"enabled",   "lower",   "upper",
                                             "stiffness", "damping", NULL};
    static const char *const motor_keys[] = {
        "mode", "target_velocity", "target_position", "max_force", "stiffness", "damping", NULL};
    const cJSON *g = member(L, o, "dof_softness");
    if (g && !expect_object(L, g, "dof_softness")) {
        return 0;
    }
    for (const cJSON *c = g ? g->child : NULL; c; c = c->next) {
        int k = dof_of(L, c, 6);
        if (k < 0 || !expect_object(L, c, c->string) || !check_keys(L, c, soft_keys) ||
            !read_number(L, c, "stiffness", &d->dof_stiffness[k], NUM_NONNEG) ||
            !read_number(L, c, "damping", &d->dof_damping[k], NUM_NONNEG)) {
            return 0;
        }
    }
    g = member(L, o, "limits");
    if (g && !expect_object(L, g, "limits")) {
        return 0;
    }
    for (const cJSON *c = g ? g->child : NULL; c; c = c->next) {
        int k = dof_of(L, c, HEFT_JOINT_DOF_COUNT);
        heft_joint_limit *l = k >= 0 ? &d->limit[k] : NULL;
        if (k < 0 || !expect_object(L, c, c->string) || !check_keys(L, c, limit_keys)) {
            return 0;
        }
        l->enabled = 1;
        if (!read_bool(L, c, "enabled", &l->enabled) ||
            !read_number(L, c, "lower", &l->lower, NUM_INF) ||
            !read_number(L, c, "upper", &l->upper, NUM_INF) ||
            !read_number(L, c, "stiffness", &l->stiffness, NUM_NONNEG) ||
            !read_number(L, c, "damping", &l->damping, NUM_NONNEG)) {
            return 0;
        }
        if (l->lower > l->upper) {
            return fail(L, c, c->string, "lower (%g) must not exceed upper (%g)", l->lower,
                        l->upper);
        }
    }
    g = member(L, o, "motors");
    if (g && !expect_object(L, g, "motors")) {
        return 0;
    }
    for (const cJSON *c = g ? g->child : NULL; c; c = c->next) {
        int k = dof_of(L, c, 6);
        heft_joint_motor *m = k >= 0 ? &d->motor[k] : NULL;
        int mode = HEFT_MOTOR_VELOCITY;
        if (k < 0 || !expect_object(L, c, c->string) || !check_keys(L, c, motor_keys) ||
            !read_enum(L, c, "mode", scene_motor_mode_name, &mode) ||
            !read_number(L, c, "target_velocity", &m->target_velocity, NUM_FINITE) ||
            !read_number(L, c, "target_position", &m->target_position, NUM_FINITE) ||
            !read_number(L, c, "max_force", &m->max_force, NUM_INF | NUM_NONNEG) ||
            !read_number(L, c, "stiffness", &m->stiffness, NUM_NONNEG) ||
            !read_number(L, c, "damping", &m->damping, NUM_NONNEG)) {
            return 0;
        }
        m->mode = (heft_motor_mode)mode;
    }
    g = member(L, o, "dof_modes");
    if (g && !expect_object(L, g, "dof_modes")) {
        return 0;
    }
    for (const cJSON *c = g ? g->child : NULL; c; c = c->next) {
        int k = dof_of(L, c, 6);
        int mode = cJSON_IsString(c) ? scene_name_lookup(scene_dof_mode_name, c->valuestring) : -1;
        if (k < 0) {
            return 0;
        }
        if (mode < 0) {
            return fail(L, c, c->string, "must be \"locked\", \"free\" or \"limited\"");
        }
        d->dof_mode[k] = (heft_dof_mode)mode;
    }
    return 1;
}

typedef struct joint_state {
    int present;
    heft_quat frame_a, frame_b, relative_rotation;
    double coordinates[HEFT_JOINT_DOF_COUNT];
    double coupled_origin[2], coupled_last[2];
    int broken;
} joint_state;

static int read_joint_state(loader *L, const cJSON *o, int coupling, joint_state *st) {
    static const char *const keys[] = {
        "frame_a", "frame_b", "relative_rotation", "coordinates", "coupled_origin", "coupled_last",
        "broken",  NULL};
    const cJSON *s = member(L, o, "state");
    memset(st, 0, sizeof *st);
    if (!s) {
        return 1;
    }
    if (!expect_object(L, s, "state") || !check_keys(L, s, keys)) {
        return 0;
    }
    const char *need_plain[] = {"frame_a", "frame_b", "relative_rotation"};
    const char *need_coupling[] = {"coupled_origin", "coupled_last"};
    for (int k = 0; k < (coupling ? 2 : 3); ++k) {
        const char *name = coupling ? need_coupling[k] : need_plain[k];
        if (!member(L, s, name)) {
            return fail(L, s, "state", "needs %s for a joint of this type", name);
        }
    }
    if (!member(L, s, "coordinates")) {
        return fail(L, s, "state", "needs coordinates");
    }
    st->present = 1;
    const cJSON *c;
    if (!read_quat(L, s, "frame_a", &st->frame_a) || !read_quat(L, s, "frame_b", &st->frame_b) ||
        !read_quat(L, s, "relative_rotation", &st->relative_rotation) ||
        !numbers_of(L, member(L, s, "coordinates"), "state.coordinates", st->coordinates,
                    HEFT_JOINT_DOF_COUNT, NUM_FINITE) ||
        ((c = member(L, s, "coupled_origin")) &&
         !numbers_of(L, c, "state.coupled_origin", st->coupled_origin, 2, NUM_FINITE)) ||
        ((c = member(L, s, "coupled_last")) &&
         !numbers_of(L, c, "state.coupled_last", st->coupled_last, 2, NUM_FINITE)) ||
        !read_bool(L, s, "broken", &st->broken)) {
        return 0;
    }
    return 1;
}

static int weld_root(int *parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

/* joins the groups of welded bodies of the bodies at positions a and b in
 * the file (body_count: the world); 0 when they were one already */
static int weld(loader *L, int a, int b) {
    int ra = weld_root(L->weld, a), rb = weld_root(L->weld, b);
    if (ra == rb) {
        return 0;
    }
    L->weld[ra] = rb;
    return 1;
}

static int build_joint(loader *L, heft_world *w, const cJSON *o, int index) {
    static const char *const keys[] = {"name",
                                       "type",
                                       "body_a",
                                       "body_b",
                                       "joint_a",
                                       "joint_b",
                                       "ratio",
                                       "local_anchor_a",
                                       "local_anchor_b",
                                       "local_axis_a",
                                       "local_axis_b",
                                       "world_anchor",
                                       "world_axis",
                                       "world_axis_b",
                                       "length",
                                       "stiffness",
                                       "damping",
                                       "dof_softness",
                                       "limits",
                                       "motors",
                                       "dof_modes",
                                       "collide_connected",
                                       "break_force",
                                       "break_torque",
                                       "geometric_stiffness",
                                       "state",
                                       NULL};
    char name[HEFT_NAME_MAX] = "";
    int type = -1;
    set_where(L, "joints", index);
    if (!expect_object(L, o, NULL) || !read_string(L, o, "name", name, sizeof name)) {
        return 0;
    }
    if (name[0]) {
        where_named(L, name);
    }
    if (!check_keys(L, o, keys)) {
        return 0;
    }
    if (!read_enum(L, o, "type", scene_joint_type_name, &type)) {
        return 0;
    }
    if (type < 0) {
        return fail(L, o, "type", "is missing");
    }
    heft_joint_def d = heft_default_joint_def((heft_joint_type)type);
    d.name = name;
    int coupling = type == HEFT_JOINT_GEAR || type == HEFT_JOINT_RACK;
    int at_a = L->body_count, at_b = L->body_count; /* positions in the file, for welds */
    int gs = 1;
    const cJSON *c;
    if (coupling) {
        if (!(c = member(L, o, "joint_a")) || !find_joint(L, c, "joint_a", &d.joint_a) ||
            !(c = member(L, o, "joint_b")) || !find_joint(L, c, "joint_b", &d.joint_b) ||
            !read_number(L, o, "ratio", &d.ratio, NUM_FINITE)) {
            return c ? 0
                     : fail(L, o, member(L, o, "joint_a") ? "joint_b" : "joint_a", "is missing");
        }
        for (int k = 0; k < 5; ++k) {
            const char *plain[] = {"body_a", "body_b", "local_anchor_a", "world_anchor",
                                   "local_axis_a"};
            if (member(L, o, plain[k])) {
                return fail(L, member(L, o, plain[k]), plain[k],
                            "gears and racks name joints, not bodies or frames");
            }
        }
    } else {
        if (member(L, o, "joint_a") || member(L, o, "joint_b") || member(L, o, "ratio")) {
            return fail(L, o, NULL, "only gears and racks take joint_a, joint_b and ratio");
        }
        if (!(c = member(L, o, "body_b"))) {
            return fail(L, o, "body_b", "is missing");
        }
        if (!find_body(L, c, "body_b", &d.body_b, &at_b) ||
            ((c = member(L, o, "body_a")) && !find_body(L, c, "body_a", &d.body_a, &at_a))) {
            return 0;
        }
        if (d.body_b.generation == 0) {
            return fail(L, member(L, o, "body_b"), "body_b", "must be a body, not the world");
        }
        const cJSON *wa = member(L, o, "world_anchor");
        if (wa) {
            heft_vec3 anchor, axis = heft_v3(0.0, 0.0, 1.0), axis_b;
            const char *local[] = {"local_anchor_a", "local_anchor_b", "local_axis_a",
                                   "local_axis_b"};
            for (int k = 0; k < 4; ++k) {
                if (member(L, o, local[k])) {
                    return fail(L, member(L, o, local[k]), local[k],
                                "a joint's frame is given in world or in local terms, not both");
                }
            }
            if (!read_vec3(L, o, "world_anchor", &anchor) ||
                !read_vec3(L, o, "world_axis", &axis)) {
                return 0;
            }
            if (member(L, o, "world_axis_b")) {
                if (!read_vec3(L, o, "world_axis_b", &axis_b)) {
                    return 0;
                }
                if (heft_joint_def_set_world_axes(w, &d, anchor, axis, axis_b) != HEFT_OK) {
                    return engine_refused(L, wa);
                }
            } else if (heft_joint_def_set_world_frame(w, &d, anchor, axis) != HEFT_OK) {
                return engine_refused(L, wa);
            }
        } else if (member(L, o, "world_axis") || member(L, o, "world_axis_b")) {
            return fail(L, o, "world_anchor", "is missing (world_axis needs it)");
        } else if (!read_vec3(L, o, "local_anchor_a", &d.local_anchor_a) ||
                   !read_vec3(L, o, "local_anchor_b", &d.local_anchor_b) ||
                   !read_vec3(L, o, "local_axis_a", &d.local_axis_a) ||
                   !read_vec3(L, o, "local_axis_b", &d.local_axis_b)) {
            return 0;
        }
    }
    if (type == HEFT_JOINT_FIXED && !weld(L, at_a, at_b)) {
        return fail(L, member(L, o, "body_b"), "body_b",
                    "welds bodies already welded together (a cycle of fixed joints)");
    }
    joint_state st;
    if (!read_number(L, o, "length", &d.length, NUM_NONNEG) ||
        !read_number(L, o, "stiffness", &d.stiffness, NUM_NONNEG) ||
        !read_number(L, o, "damping", &d.damping, NUM_NONNEG) || !read_joint_dofs(L, o, &d) ||
        !read_bool(L, o, "collide_connected", &d.collide_connected) ||
        !read_number(L, o, "break_force", &d.break_force, NUM_INF | NUM_POSITIVE) ||
        !read_number(L, o, "break_torque", &d.break_torque, NUM_INF | NUM_POSITIVE) ||
        !read_bool(L, o, "geometric_stiffness", &gs) || !read_joint_state(L, o, coupling, &st)) {
        return 0;
    }
    heft_joint_id id = heft_create_joint(w, &d);
    if (id.generation == 0) {
        return engine_refused(L, o);
    }
    L->joints[L->joint_count++] = id;
    if (!gs) {
        heft_joint_set_geometric_stiffness(w, id, 0);
    }
    if (st.present) {
        /* where the joint was made: its frames, turns and origins as saved */
        joint *j = world_joint(w, id);
        if (coupling) {
            memcpy(j->coupled_origin, st.coupled_origin, sizeof j->coupled_origin);
            memcpy(j->coupled_last, st.coupled_last, sizeof j->coupled_last);
        } else {
            j->local_axis_a = d.local_axis_a;
            j->local_axis_b = d.local_axis_b;
            j->frame_a = st.frame_a;
            j->frame_b = st.frame_b;
            j->relative_rotation = st.relative_rotation;
        }
        memcpy(j->coordinate_last, st.coordinates, sizeof j->coordinate_last);
        j->broken = st.broken;
    }
    return 1;
}

/* ---- operators ---------------------------------------------------------------------- */

static int read_operators(loader *L, heft_world *w) {
    static const char *const keys[] = {"name",  "unit", "help",   "min",   "max", "value",
                                       "joint", "dof",  "target", "scale", NULL};
    const cJSON *list = member(L, L->root, "operators");
    L->info.operator_count = 0;
    if (!list) {
        return 1;
    }
    set_where(L, "operators", -1);
    if (!cJSON_IsArray(list)) {
        return fail(L, list, NULL, "must be an array");
    }
    if (cJSON_GetArraySize(list) > HEFT_SCENE_MAX_OPERATORS) {
        return fail(L, list, NULL, "at most %d operators", HEFT_SCENE_MAX_OPERATORS);
    }
    int i = 0;
    for (const cJSON *o = list->child; o; o = o->next, ++i) {
        heft_scene_operator *op = &L->info.operators[i];
        memset(op, 0, sizeof *op);
        op->scale = 1.0;
        op->dof = HEFT_DOF_RX;
        int target = -1, dof = -1;
        set_where(L, "operators", i);
        if (!expect_object(L, o, NULL) || !check_keys(L, o, keys) ||
            !read_string(L, o, "name", op->name, sizeof op->name) ||
            !read_string(L, o, "unit", op->unit, sizeof op->unit) ||
            !read_string(L, o, "help", op->help, sizeof op->help) ||
            !read_number(L, o, "min", &op->min, NUM_FINITE) ||
            !read_number(L, o, "max", &op->max, NUM_FINITE) ||
            !read_number(L, o, "value", &op->value, NUM_FINITE) ||
            !read_number(L, o, "scale", &op->scale, NUM_FINITE) ||
            !read_enum(L, o, "target", scene_operator_target_name, &target) ||
            !read_enum(L, o, "dof", scene_dof_name, &dof)) {
            return 0;
        }
        if (!op->name[0]) {
            return fail(L, o, "name", "is missing");
        }
        if (target < 0) {
            return fail(L, o, "target", "is missing");
        }
        if (!(op->min <= op->max) || op->value < op->min || op->value > op->max) {
            return fail(L, o, "value", "min <= value <= max does not hold");
        }
        op->target = (heft_operator_target)target;
        const cJSON *j = member(L, o, "joint");
        if (!j) {
            return fail(L, o, "joint", "is missing");
        }
        if (!find_joint(L, j, "joint", &op->joint)) {
            return 0;
        }
        heft_joint_type jt = heft_joint_get_type(w, op->joint);
        if (op->target == HEFT_OPERATOR_LENGTH) {
            if (jt != HEFT_JOINT_DISTANCE && jt != HEFT_JOINT_ROPE) {
                return fail(L, j, "joint", "a length operator drives a distance or rope joint");
            }
        } else {
            if (dof < 0 || dof > HEFT_DOF_RZ) {
                return fail(L, o, "dof", "a motor operator needs the coordinate of the motor");
            }
            op->dof = (heft_joint_dof)dof;
            /* setting the motor it has is a no-op that runs the engine's checks */
            heft_joint_def jd;
            heft_joint_get_def(w, op->joint, &jd);
            if (heft_joint_set_motor(w, op->joint, op->dof, &jd.motor[dof]) != HEFT_OK ||
                jd.motor[dof].mode == HEFT_MOTOR_OFF) {
                return fail(L, member(L, o, "dof"), "dof",
                            "the joint has no motor (with a mode) on this coordinate");
            }
        }
    }
    L->info.operator_count = i;
    return 1;
}

/* ---- the file ----------------------------------------------------------------------- */

static int read_header(loader *L) {
    static const char *const keys[] = {"format", "version", "name",      "time_step",
                                       "steps",  "world",   "solver",    "classes",
                                       "bodies", "joints",  "operators", NULL};
    set_where(L, "", -1);
    if (!cJSON_IsObject(L->root)) {
        return fail(L, L->root, "(top level)", "must be an object");
    }
    if (!check_keys(L, L->root, keys)) {
        return 0;
    }
    const cJSON *f = member(L, L->root, "format");
    if (!cJSON_IsString(f) || strcmp(f->valuestring, SCENE_FORMAT) != 0) {
        return fail(L, f ? f : L->root, "format", "must be \"%s\"", SCENE_FORMAT);
    }
    int version = 0;
    if (!read_int(L, L->root, "version", &version, 0, 1e9)) {
        return 0;
    }
    if (version != SCENE_VERSION) {
        return fail(L, member(L, L->root, "version") ? member(L, L->root, "version") : L->root,
                    "version", "must be %d (this library reads version %d)", SCENE_VERSION,
                    SCENE_VERSION);
    }
    if (!read_string(L, L->root, "name", L->info.name, sizeof L->info.name) ||
        !read_number(L, L->root, "time_step", &L->info.time_step, NUM_POSITIVE) ||
        !read_int(L, L->root, "steps", &L->info.steps, 0, 2147483647.0)) {
        return 0;
    }
    const char *lists[] = {"bodies", "joints"};
    for (int k = 0; k < 2; ++k) {
        const cJSON *l = member(L, L->root, lists[k]);
        if (l && !cJSON_IsArray(l)) {
            return fail(L, l, lists[k], "must be an array");
        }
    }
    return 1;
}

/* makes the file's bodies, shapes, joints and operators in w */
static int build_objects(loader *L, heft_world *w) {
    const cJSON *bodies = member(L, L->root, "bodies");
    const cJSON *joints = member(L, L->root, "joints");
    L->body_count = L->joint_count = 0;
    int nb = bodies ? cJSON_GetArraySize(bodies) : 0;
    int nj = joints ? cJSON_GetArraySize(joints) : 0;
    for (int k = 0; k <= nb; ++k) {
        L->weld[k] = k;
    }
    /* room for them all at once (a body has one shape, mostly), rather than
     * the arrays doubling and moving on the way; a failure here is only
     * the room not made ahead */
    (void)array_grow((void **)&w->bodies, &w->body_capacity, w->body_high + nb, sizeof(body));
    (void)array_grow((void **)&w->shapes, &w->shape_capacity, w->shape_high + nb, sizeof(shape));
    (void)array_grow((void **)&w->joints, &w->joint_capacity, w->joint_high + nj, sizeof(joint));
    int i = 0;
    for (const cJSON *b = bodies ? bodies->child : NULL; b; b = b->next) {
        if (!build_body(L, w, b, i++)) {
            return 0;
        }
    }
    i = 0;
    for (const cJSON *j = joints ? joints->child : NULL; j; j = j->next) {
        if (!build_joint(L, w, j, i++)) {
            return 0;
        }
    }
    return read_operators(L, w);
}

static heft_world *make_world(loader *L, const world_settings *ws) {
    heft_world *w = heft_world_create(&ws->def);
    if (!w) {
        set_where(L, "world", -1);
        engine_refused(L, member(L, L->root, "world"));
        return NULL;
    }
    if (heft_world_set_solver_options(w, &ws->options) != HEFT_OK ||
        heft_world_set_restitution_threshold(w, ws->restitution_threshold) != HEFT_OK ||
        heft_world_set_hit_event_threshold(w, ws->hit_event_threshold) != HEFT_OK) {
        set_where(L, "solver", -1);
        engine_refused(L, member(L, L->root, "solver"));
        heft_world_destroy(w);
        return NULL;
    }
    return w;
}

/* Reads the text; makes a new world (into == NULL) or adds to into. */
static heft_world *load(const char *text, size_t length, const char *source, const char *dir,
                        heft_world *into, heft_scene_info *info, heft_result *result) {
    *result = HEFT_ERROR_INVALID_ARGUMENT;
    loader L;
    memset(&L, 0, sizeof L);
    L.source = source ? source : "(text)";
    L.dir = dir ? dir : "";
    L.text = text;
    L.length = length;
    L.info = heft_default_scene_info();
    set_where(&L, "", -1);
    if (!text) {
        heft_set_error("%s: no text", L.source);
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, length, &end, 0);
    if (!root) {
        size_t at = end && end >= text ? (size_t)(end - text) : 0;
        heft_set_error("%s:%d: not valid JSON near byte %zu", L.source,
                       scene_line_at(text, length, at), at);
        return NULL;
    }
    for (const char *p = end; p && p < text + length && *p; ++p) {
        if (!strchr(" \t\r\n", *p)) {
            heft_set_error("%s:%d: text after the scene's object", L.source,
                           scene_line_at(text, length, (size_t)(p - text)));
            cJSON_Delete(root);
            return NULL;
        }
    }
    L.root = root;
    world_settings ws;
    heft_world *scratch = NULL;
    const cJSON *bodies = member(&L, root, "bodies"), *joints = member(&L, root, "joints");
    int nb = bodies ? cJSON_GetArraySize(bodies) : 0, nj = joints ? cJSON_GetArraySize(joints) : 0;
    if (read_header(&L) && read_world(&L, &ws) && read_classes(&L)) {
        L.bodies = heft_alloc(sizeof *L.bodies * (size_t)(nb + 1));
        L.joints = heft_alloc(sizeof *L.joints * (size_t)(nj + 1));
        L.weld = heft_alloc(sizeof *L.weld * (size_t)(nb + 1));
        if (!L.bodies || !L.joints || !L.weld) {
            heft_set_error("out of memory");
            *result = HEFT_ERROR_OUT_OF_MEMORY;
        } else {
            scratch = make_world(&L, &ws);
        }
    }
    if (scratch && !build_objects(&L, scratch)) {
        heft_world_destroy(scratch);
        scratch = NULL;
    }
    heft_world *made = scratch;
    if (scratch && into) {
        /* everything held: the same again into the caller's world */
        heft_world_destroy(scratch);
        made = NULL;
        heft_body_id *first = L.bodies;
        int32_t high_before = into->body_high;
        if (build_objects(&L, into)) {
            made = into;
        } else {
            /* only out of memory gets here: take back what was made */
            for (int k = 0; k < L.body_count; ++k) {
                heft_destroy_body(into, first[k]);
            }
            (void)high_before;
            *result = HEFT_ERROR_OUT_OF_MEMORY;
        }
    }
    if (made) {
        *result = HEFT_OK;
        if (info) {
            *info = L.info;
        }
    }
    heft_free(L.bodies);
    heft_free(L.joints);
    heft_free(L.weld);
    heft_free(L.body_names);
    heft_free(L.joint_names);
    classes_free(&L);
    cJSON_Delete(root);
    return made;
}

/* the folder of path with its final '/', "" for none */
static void folder_of(const char *path, char *out, size_t size) {
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) + 1 : 0;
    if (n >= size) {
        n = 0;
    }
    memcpy(out, path, n);
    out[n] = 0;
}

static heft_world *load_path(const char *path, heft_world *into, heft_scene_info *info,
                             heft_result *result) {
    *result = HEFT_ERROR_INVALID_ARGUMENT;
    if (!path) {
        heft_set_error("heft_world_load: path must not be NULL");
        return NULL;
    }
    size_t length = 0;
    char *text = file_read_all(path, SCENE_MAX_FILE, &length);
    if (!text) {
        return NULL;
    }
    char dir[1024];
    folder_of(path, dir, sizeof dir);
    heft_world *w = load(text, length, path, dir, into, info, result);
    heft_free(text);
    return w;
}

heft_scene_info heft_default_scene_info(void) {
    heft_scene_info info;
    memset(&info, 0, sizeof info);
    info.time_step = 1.0 / 60.0;
    return info;
}

heft_world *heft_world_load(const char *path, heft_scene_info *info) {
    heft_result r;
    return load_path(path, NULL, info, &r);
}

heft_result heft_world_load_into(heft_world *world, const char *path, heft_scene_info *info) {
    heft_result r;
    if (!world) {
        heft_set_error("heft_world_load_into: world must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    load_path(path, world, info, &r);
    return r;
}

heft_world *heft_world_load_text(const char *text, size_t length, const char *source,
                                 heft_scene_info *info) {
    heft_result r;
    return load(text, length, source, NULL, NULL, info, &r);
}

heft_result heft_world_load_text_into(heft_world *world, const char *text, size_t length,
                                      const char *source, heft_scene_info *info) {
    heft_result r;
    if (!world) {
        heft_set_error("heft_world_load_text_into: world must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    load(text, length, source, NULL, world, info, &r);
    return r;
}
