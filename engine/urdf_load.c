/* Imports URDF robot descriptions (docs/urdf.md). The XML is read with
 * expat into an element tree (xml_tree.c); the links and joints are checked
 * and laid out at the joints' zero position, then everything is made in a
 * scratch world first, so that every check the engine makes runs before the
 * caller's world is touched, as the scene loader does. Errors name the
 * file, the line, the element and the attribute. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "heft.h"

heft_urdf_options heft_default_urdf_options(void) {
    heft_urdf_options o;
    memset(&o, 0, sizeof o);
    o.orientation = heft_quat_identity();
    o.fixed_base = 1;
    o.joint_dynamics = 1;
    o.friction = heft_default_shape_def().friction;
    o.category_bits = 1u;
    o.mask_bits = 0xFFFFFFFFu;
    return o;
}

#ifndef HEFT_HAVE_URDF

heft_result heft_world_import_urdf(heft_world *world, const char *path,
                                   const heft_urdf_options *options, heft_urdf_result *result) {
    (void)world;
    (void)path;
    (void)options;
    (void)result;
    heft_set_error("heft_world_import_urdf: this build of Heft has no URDF import "
                   "(configure with HEFT_URDF=ON and libexpat)");
    return HEFT_ERROR_INVALID_ARGUMENT;
}

heft_result heft_world_import_urdf_text(heft_world *world, const char *text, size_t length,
                                        const char *source, const heft_urdf_options *options,
                                        heft_urdf_result *result) {
    (void)world;
    (void)text;
    (void)length;
    (void)source;
    (void)options;
    (void)result;
    heft_set_error("heft_world_import_urdf_text: this build of Heft has no URDF import "
                   "(configure with HEFT_URDF=ON and libexpat)");
    return HEFT_ERROR_INVALID_ARGUMENT;
}

#else

#include "mesh_file.h"
#include "world.h"
#include "xml_tree.h"

#define URDF_MAX_FILE (64u * 1024u * 1024u)
#define URDF_MAX_DEPTH 64
#define URDF_MAX_LINKS 100000
#define URDF_MAX_HULL_POINTS 4096

typedef enum urdf_joint_type {
    URDF_REVOLUTE,
    URDF_CONTINUOUS,
    URDF_PRISMATIC,
    URDF_FIXED,
    URDF_FLOATING,
    URDF_PLANAR
} urdf_joint_type;

static const char *const joint_type_names[] = {"revolute", "continuous", "prismatic",
                                               "fixed",    "floating",   "planar"};

typedef struct pose {
    heft_vec3 p;
    heft_quat q;
} pose;

typedef struct urdf_link {
    const xml_element *e;
    const char *name;
    const xml_element *inertial;
    double mass;       /* 0: none */
    heft_vec3 com;     /* link frame */
    heft_mat3 inertia; /* about com, link axes (the inertial frame's rotation applied) */
    int parent_joint;  /* -1 for the root */
    int group;         /* the body it belongs to */
    pose in_group;     /* the link frame in its group's reference link frame */
    pose in_world;     /* at the joints' zero position */
} urdf_link;

typedef struct urdf_joint {
    const xml_element *e;
    const char *name;
    urdf_joint_type type;
    int parent, child; /* links */
    pose origin;       /* the child link frame in the parent's */
    heft_vec3 axis;    /* unit, joint (child link) frame */
    int has_limit;
    double lower, upper;
    double damping, friction;
    int merged; /* the child joined its parent's body */
    int mimic;  /* the joint this one follows through a gear or rack, or -1 */
    double multiplier;
    heft_joint_id made;
} urdf_joint;

typedef struct urdf_group {
    int link;      /* the reference link: the group's topmost */
    int is_static; /* the fixed root */
    double mass;   /* kg */
    heft_vec3 com; /* in the reference link frame */
    heft_mat3 inertia;
    const xml_element *mass_from; /* the inertial element of a one-link group (messages) */
} urdf_group;

typedef struct urdf_shape {
    const xml_element *e; /* the <collision> element */
    int link;
    heft_shape_def def;
    mesh_data mesh;
} urdf_shape;

typedef struct named {
    const char *name;
    int index;
} named;

typedef struct importer {
    const char *source;
    char dir[1024];
    heft_urdf_options opt;
    const xml_element *robot;
    urdf_link *links;
    int link_count;
    named *by_name;     /* links sorted by name */
    named *joint_names; /* joints sorted by name */
    urdf_joint *joints;
    int joint_count;
    int *order; /* links from the root, parents first */
    urdf_group *groups;
    int group_count;
    urdf_shape *shapes;
    int shape_count;
    heft_body_id *bodies; /* made, by group */
    heft_urdf_result result;
} importer;

/* ---- messages --------------------------------------------------------------- */

/* "link \"arm\" <inertial><mass> value": the element's link or joint, the
 * elements below it, the attribute. */
static void describe(const importer *im, const xml_element *e, const char *attribute, char *out,
                     size_t size) {
    const xml_element *chain[URDF_MAX_DEPTH + 1];
    int n = 0;
    for (const xml_element *x = e; x && x != im->robot && n <= URDF_MAX_DEPTH; x = x->parent) {
        chain[n++] = x;
    }
    size_t used = 0;
    out[0] = 0;
    if (n == 0 && e) {
        snprintf(out, size, "<%s>%s%s", e->name, attribute ? " " : "", attribute ? attribute : "");
        return;
    }
    for (int k = n - 1; k >= 0 && used < size; --k) {
        const xml_element *x = chain[k];
        const char *name = k == n - 1 ? xml_attribute(x, "name") : NULL;
        int w = name && name[0] ? snprintf(out + used, size - used, "%s \"%s\" ", x->name, name)
                                : snprintf(out + used, size - used, "<%s>", x->name);
        used += w > 0 ? (size_t)w : 0;
    }
    if (used < size && attribute) {
        snprintf(out + used, size - used, "%s%s", used && out[used - 1] != ' ' ? " " : "",
                 attribute);
    } else if (used > 0 && used < size && out[used - 1] == ' ') {
        out[used - 1] = 0;
    }
}

static int fail(const importer *im, const xml_element *e, const char *attribute, const char *fmt,
                ...) {
    char message[320], what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    describe(im, e, attribute, what, sizeof what);
    heft_set_error("%s:%d: %s: %s", im->source, e ? e->line : 0, what, message);
    return 0;
}

/* Something read and not mapped: counted, the first one kept. */
static void note(importer *im, const xml_element *e, const char *fmt, ...) {
    if (im->result.ignored++ == 0) {
        char message[160], what[120];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(message, sizeof message, fmt, ap);
        va_end(ap);
        describe(im, e, NULL, what, sizeof what);
        char full[1600];
        snprintf(full, sizeof full, "%.1000s:%d: %s: %s", im->source, e->line, what, message);
        size_t n = strlen(full);
        n = n < sizeof im->result.note ? n : sizeof im->result.note - 1;
        memcpy(im->result.note, full, n);
        im->result.note[n] = 0;
    }
}

/* ---- attributes ---------------------------------------------------------------- */

static const char *skip_space(const char *s) {
    while (*s && isspace((unsigned char)*s)) {
        s++;
    }
    return s;
}

/* n finite numbers separated by white space, nothing else */
static int numbers_in(const char *s, double *out, int n) {
    for (int k = 0; k < n; ++k) {
        s = skip_space(s);
        char *end;
        out[k] = strtod(s, &end);
        if (end == s || !isfinite(out[k])) {
            return 0;
        }
        s = end;
    }
    return *skip_space(s) == 0;
}

static int read_numbers(const importer *im, const xml_element *e, const char *attribute,
                        double *out, int n, int required) {
    const char *v = xml_attribute(e, attribute);
    if (!v) {
        return required ? fail(im, e, attribute, "is missing") : 1;
    }
    if (!numbers_in(v, out, n)) {
        return n == 1 ? fail(im, e, attribute, "must be a finite number, not \"%.40s\"", v)
                      : fail(im, e, attribute, "must be %d finite numbers, not \"%.40s\"", n, v);
    }
    return 1;
}

static int read_number(const importer *im, const xml_element *e, const char *attribute, double *out,
                       int required) {
    return read_numbers(im, e, attribute, out, 1, required);
}

static int read_nonneg(const importer *im, const xml_element *e, const char *attribute, double *out,
                       int required) {
    if (!read_number(im, e, attribute, out, required)) {
        return 0;
    }
    if (*out < 0.0) {
        return fail(im, e, attribute, "must not be negative (%g)", *out);
    }
    return 1;
}

static int read_vec3(const importer *im, const xml_element *e, const char *attribute,
                     heft_vec3 *out) {
    double x[3] = {out->x, out->y, out->z};
    if (!read_numbers(im, e, attribute, x, 3, 0)) {
        return 0;
    }
    *out = heft_v3(x[0], x[1], x[2]);
    return 1;
}

/* Fixed-axis roll, pitch, yaw: R = Rz(yaw) Ry(pitch) Rx(roll). Zero angles
 * give the exact identity. */
static heft_quat quat_rpy(heft_vec3 rpy) {
    if (rpy.x == 0.0 && rpy.y == 0.0 && rpy.z == 0.0) {
        return heft_quat_identity();
    }
    heft_quat qx = heft_quat_axis_angle(heft_v3(1, 0, 0), rpy.x);
    heft_quat qy = heft_quat_axis_angle(heft_v3(0, 1, 0), rpy.y);
    heft_quat qz = heft_quat_axis_angle(heft_v3(0, 0, 1), rpy.z);
    return heft_quat_normalize(heft_quat_mul(qz, heft_quat_mul(qy, qx)));
}

/* <origin xyz rpy> of e, identity when absent */
static int read_origin(importer *im, const xml_element *e, pose *out) {
    out->p = heft_v3(0, 0, 0);
    out->q = heft_quat_identity();
    const xml_element *o = xml_child(e, "origin");
    if (!o) {
        return 1;
    }
    if (xml_next_named(o)) {
        return fail(im, xml_next_named(o), NULL, "only one <origin> is allowed here");
    }
    heft_vec3 rpy = heft_v3(0, 0, 0);
    if (!read_vec3(im, o, "xyz", &out->p) || !read_vec3(im, o, "rpy", &rpy)) {
        return 0;
    }
    for (int k = 0; k < 3; ++k) {
        double c = k == 0 ? out->p.x : k == 1 ? out->p.y : out->p.z;
        if (fabs(c) > HEFT_POSITION_MAX) {
            return fail(im, o, "xyz", "beyond %g m", HEFT_POSITION_MAX);
        }
    }
    if (fabs(rpy.x) > 1e6 || fabs(rpy.y) > 1e6 || fabs(rpy.z) > 1e6) {
        return fail(im, o, "rpy", "angles beyond 1e6 rad");
    }
    out->q = quat_rpy(rpy);
    return 1;
}

static pose pose_mul(pose a, pose b) {
    pose r;
    r.p = heft_v3_add(a.p, heft_quat_rotate(a.q, b.p));
    r.q = heft_quat_normalize(heft_quat_mul(a.q, b.q));
    return r;
}

static pose pose_identity(void) {
    pose r = {heft_v3(0, 0, 0), heft_quat_identity()};
    return r;
}

/* ---- links -------------------------------------------------------------------- */

static int compare_names(const void *a, const void *b) {
    const named *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

static int find_link(const importer *im, const char *name) {
    int lo = 0, hi = im->link_count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(name, im->by_name[mid].name);
        if (c == 0) {
            return im->by_name[mid].index;
        }
        if (c < 0) {
            hi = mid - 1;
        } else {
            lo = mid + 1;
        }
    }
    return -1;
}

/* Sylvester's criterion: the leading minors of a symmetric matrix */
static int positive_definite(heft_mat3 m) {
    double m1 = m.m[0][0];
    double m2 = m.m[0][0] * m.m[1][1] - m.m[0][1] * m.m[1][0];
    return m1 > 0.0 && m2 > 0.0 && heft_mat3_det(m) > 0.0;
}

static int read_inertial(importer *im, urdf_link *l) {
    const xml_element *in = xml_child(l->e, "inertial");
    l->inertial = in;
    l->mass = 0.0;
    l->com = heft_v3(0, 0, 0);
    l->inertia = heft_mat3_zero();
    if (!in) {
        return 1;
    }
    if (xml_next_named(in)) {
        return fail(im, xml_next_named(in), NULL, "a link has at most one <inertial>");
    }
    pose origin;
    if (!read_origin(im, in, &origin)) {
        return 0;
    }
    const xml_element *m = xml_child(in, "mass");
    if (!m) {
        return fail(im, in, NULL, "<mass value=...> is missing");
    }
    if (!read_nonneg(im, m, "value", &l->mass, 1)) {
        return 0;
    }
    if (l->mass > HEFT_MASS_MAX) {
        return fail(im, m, "value", "%g kg is beyond %g kg", l->mass, HEFT_MASS_MAX);
    }
    const xml_element *i = xml_child(in, "inertia");
    if (!i) {
        return fail(im, in, NULL, "<inertia ixx ixy ixz iyy iyz izz> is missing");
    }
    static const char *const names[6] = {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"};
    double v[6];
    for (int k = 0; k < 6; ++k) {
        if (!read_number(im, i, names[k], &v[k], 1)) {
            return 0;
        }
    }
    heft_mat3 t;
    t.m[0][0] = v[0];
    t.m[0][1] = t.m[1][0] = v[1];
    t.m[0][2] = t.m[2][0] = v[2];
    t.m[1][1] = v[3];
    t.m[1][2] = t.m[2][1] = v[4];
    t.m[2][2] = v[5];
    if (l->mass > 0.0 && !positive_definite(t)) {
        return fail(im, i, NULL, "the inertia tensor is not positive definite");
    }
    l->com = origin.p;
    /* the inertia frame's axes turned into the link's */
    l->inertia = heft_mat3_rotate_tensor(heft_quat_to_mat3(origin.q), t);
    if (origin.q.w == 1.0) {
        l->inertia = t;
    }
    return 1;
}

static int read_links(importer *im) {
    int k = 0;
    for (const xml_element *e = xml_child(im->robot, "link"); e; e = xml_next_named(e)) {
        urdf_link *l = &im->links[k];
        memset(l, 0, sizeof *l);
        l->e = e;
        l->name = xml_attribute(e, "name");
        l->parent_joint = -1;
        l->group = -1;
        if (!l->name || !l->name[0]) {
            return fail(im, e, "name", "a link needs a name");
        }
        if (!read_inertial(im, l)) {
            return 0;
        }
        im->by_name[k].name = l->name;
        im->by_name[k].index = k;
        k++;
    }
    qsort(im->by_name, (size_t)im->link_count, sizeof *im->by_name, compare_names);
    for (int i = 1; i < im->link_count; ++i) {
        const urdf_link *first = &im->links[im->by_name[i - 1].index];
        const urdf_link *later = &im->links[im->by_name[i].index];
        if (strcmp(first->name, later->name) == 0) {
            return fail(im, later->e, "name", "link \"%s\" is already defined on line %d",
                        later->name, first->e->line);
        }
    }
    return 1;
}

/* ---- joints ------------------------------------------------------------------- */

static int link_of(importer *im, const xml_element *j, const char *element, int *out) {
    const xml_element *x = xml_child(j, element);
    if (!x) {
        return fail(im, j, NULL, "<%s link=...> is missing", element);
    }
    const char *name = xml_attribute(x, "link");
    if (!name) {
        return fail(im, x, "link", "is missing");
    }
    *out = find_link(im, name);
    if (*out < 0) {
        return fail(im, x, "link", "no link is named \"%.60s\"", name);
    }
    return 1;
}

static int read_joint(importer *im, urdf_joint *j) {
    const xml_element *e = j->e;
    j->name = xml_attribute(e, "name");
    if (!j->name || !j->name[0]) {
        return fail(im, e, "name", "a joint needs a name");
    }
    const char *type = xml_attribute(e, "type");
    if (!type) {
        return fail(im, e, "type", "is missing");
    }
    int t = -1;
    for (int k = 0; k < 6; ++k) {
        if (strcmp(type, joint_type_names[k]) == 0) {
            t = k;
        }
    }
    if (t < 0) {
        return fail(im, e, "type",
                    "unknown joint type \"%.40s\" (revolute, continuous, prismatic, fixed, "
                    "floating, planar)",
                    type);
    }
    j->type = (urdf_joint_type)t;
    if (!link_of(im, e, "parent", &j->parent) || !link_of(im, e, "child", &j->child) ||
        !read_origin(im, e, &j->origin)) {
        return 0;
    }
    if (j->parent == j->child) {
        return fail(im, xml_child(e, "child"), "link", "the joint joins link \"%s\" to itself",
                    im->links[j->child].name);
    }
    j->axis = heft_v3(1, 0, 0);
    const xml_element *axis = xml_child(e, "axis");
    if (axis && !read_vec3(im, axis, "xyz", &j->axis)) {
        return 0;
    }
    double length = heft_v3_length(j->axis);
    if (!(length > 1e-9) || !isfinite(length)) {
        return fail(im, axis ? axis : e, "xyz", "the axis must not be zero");
    }
    j->axis = heft_v3_scale(j->axis, 1.0 / length);
    const xml_element *limit = xml_child(e, "limit");
    int ranged = j->type == URDF_REVOLUTE || j->type == URDF_PRISMATIC;
    if (ranged && !limit) {
        return fail(im, e, NULL, "a %s joint needs <limit lower upper effort velocity>", type);
    }
    if (limit) {
        double effort = 0.0, velocity = 0.0;
        j->lower = j->upper = 0.0;
        if (!read_number(im, limit, "lower", &j->lower, 0) ||
            !read_number(im, limit, "upper", &j->upper, 0) ||
            !read_nonneg(im, limit, "effort", &effort, ranged) ||
            !read_nonneg(im, limit, "velocity", &velocity, ranged)) {
            return 0;
        }
        if (ranged && j->lower > j->upper) {
            return fail(im, limit, "lower", "%g is above upper (%g)", j->lower, j->upper);
        }
        if (ranged && (fabs(j->lower) > HEFT_POSITION_MAX || fabs(j->upper) > HEFT_POSITION_MAX)) {
            return fail(im, limit, "lower", "bounds beyond %g", HEFT_POSITION_MAX);
        }
        j->has_limit = ranged;
    }
    const xml_element *dynamics = xml_child(e, "dynamics");
    if (dynamics && (!read_nonneg(im, dynamics, "damping", &j->damping, 0) ||
                     !read_nonneg(im, dynamics, "friction", &j->friction, 0))) {
        return 0;
    }
    if (j->friction > HEFT_TORQUE_MAX || j->damping > HEFT_TORQUE_MAX) {
        return fail(im, dynamics, NULL, "friction or damping beyond %g", HEFT_TORQUE_MAX);
    }
    if (im->opt.joint_dynamics && j->friction > 0.0 && j->damping > 0.0) {
        note(im, dynamics, "damping not mapped: the joint's motor holds its friction");
    }
    j->mimic = -1;
    return 1;
}

static int read_joints(importer *im) {
    int k = 0;
    for (const xml_element *e = xml_child(im->robot, "joint"); e; e = xml_next_named(e)) {
        urdf_joint *j = &im->joints[k];
        memset(j, 0, sizeof *j);
        j->e = e;
        if (!read_joint(im, j)) {
            return 0;
        }
        urdf_link *child = &im->links[j->child];
        if (child->parent_joint >= 0) {
            return fail(im, xml_child(e, "child"), "link",
                        "link \"%s\" already has a parent (joint \"%s\", line %d)", child->name,
                        im->joints[child->parent_joint].name,
                        im->joints[child->parent_joint].e->line);
        }
        child->parent_joint = k;
        im->joint_names[k].name = j->name;
        im->joint_names[k].index = k;
        k++;
    }
    qsort(im->joint_names, (size_t)im->joint_count, sizeof *im->joint_names, compare_names);
    for (int i = 1; i < im->joint_count; ++i) {
        const urdf_joint *first = &im->joints[im->joint_names[i - 1].index];
        const urdf_joint *later = &im->joints[im->joint_names[i].index];
        if (strcmp(first->name, later->name) == 0) {
            return fail(im, later->e, "name", "joint \"%s\" is already defined on line %d",
                        later->name, first->e->line);
        }
    }
    return 1;
}

static int find_joint(const importer *im, const char *name) {
    int lo = 0, hi = im->joint_count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = strcmp(name, im->joint_names[mid].name);
        if (c == 0) {
            return im->joint_names[mid].index;
        }
        if (c < 0) {
            hi = mid - 1;
        } else {
            lo = mid + 1;
        }
    }
    return -1;
}

static int is_hinge(const urdf_joint *j) {
    return j->type == URDF_REVOLUTE || j->type == URDF_CONTINUOUS;
}

/* <mimic joint multiplier offset>: a hinge following a hinge is a gear, a
 * prismatic joint following a hinge a rack; both hold the ratio from the
 * zero position, so a non-zero offset is noted, as is every other pair. */
static int read_mimics(importer *im) {
    for (int k = 0; k < im->joint_count; ++k) {
        urdf_joint *j = &im->joints[k];
        const xml_element *m = xml_child(j->e, "mimic");
        if (!m) {
            continue;
        }
        const char *name = xml_attribute(m, "joint");
        if (!name) {
            return fail(im, m, "joint", "is missing");
        }
        int other = find_joint(im, name);
        if (other < 0) {
            return fail(im, m, "joint", "no joint is named \"%.60s\"", name);
        }
        if (other == k) {
            return fail(im, m, "joint", "a joint cannot follow itself");
        }
        double multiplier = 1.0, offset = 0.0;
        if (!read_number(im, m, "multiplier", &multiplier, 0) ||
            !read_number(im, m, "offset", &offset, 0)) {
            return 0;
        }
        if (fabs(multiplier) > 1e6) {
            return fail(im, m, "multiplier", "beyond 1e6");
        }
        const urdf_joint *o = &im->joints[other];
        if (!is_hinge(o) || !(is_hinge(j) || j->type == URDF_PRISMATIC)) {
            note(im, m,
                 "not mapped: Heft couples a hinge to a hinge (gear) or a prismatic "
                 "joint to a hinge (rack) only");
            continue;
        }
        if (im->links[o->child].group == im->links[j->child].group) {
            note(im, m, "not mapped: both joints move the same body");
            continue;
        }
        if (offset != 0.0) {
            note(im, m, "offset not mapped: the coupling holds the ratio from the zero position");
        }
        j->mimic = other;
        j->multiplier = multiplier;
    }
    return 1;
}

/* ---- the tree, and bodies of links ---------------------------------------------- */

static int order_links(importer *im) {
    int root = -1;
    for (int k = 0; k < im->link_count; ++k) {
        if (im->links[k].parent_joint < 0) {
            if (root >= 0) {
                return fail(im, im->links[k].e, NULL,
                            "a second root: links \"%s\" (line %d) and \"%s\" have no parent "
                            "joint; a robot is one tree",
                            im->links[root].name, im->links[root].e->line, im->links[k].name);
            }
            root = k;
        }
    }
    if (root < 0) {
        return fail(im, im->robot, NULL,
                    "every link has a parent: the joints form a cycle and there is no root");
    }
    /* breadth first from the root over the children lists */
    int *first_child = heft_alloc(sizeof(int) * (size_t)im->link_count * 3);
    if (!first_child) {
        heft_set_error("out of memory");
        return 0;
    }
    int *next_sibling = first_child + im->link_count;
    int *reached = next_sibling + im->link_count;
    for (int k = 0; k < im->link_count; ++k) {
        first_child[k] = -1;
        reached[k] = 0;
    }
    for (int k = im->joint_count - 1; k >= 0; --k) {
        int c = im->joints[k].child, p = im->joints[k].parent;
        next_sibling[c] = first_child[p];
        first_child[p] = c;
    }
    int n = 0;
    im->order[n++] = root;
    reached[root] = 1;
    for (int head = 0; head < n; ++head) {
        for (int c = first_child[im->order[head]]; c >= 0; c = next_sibling[c]) {
            im->order[n++] = c;
            reached[c] = 1;
        }
    }
    int unreached = -1;
    for (int k = 0; k < im->link_count && n < im->link_count; ++k) {
        if (!reached[k] && (unreached < 0 || im->links[k].e->line < im->links[unreached].e->line)) {
            unreached = k;
        }
    }
    heft_free(first_child);
    if (unreached >= 0) {
        const urdf_joint *j = &im->joints[im->links[unreached].parent_joint];
        return fail(im, j->e, NULL,
                    "the joints form a cycle through link \"%s\": it cannot be reached from "
                    "the root \"%s\"",
                    im->links[unreached].name, im->links[root].name);
    }
    return 1;
}

/* Which links share a body: a link on a fixed joint joins its parent's when
 * either has no mass, or always with merge_fixed. */
static int make_groups(importer *im) {
    pose base = {im->opt.position, heft_quat_normalize(im->opt.orientation)};
    for (int i = 0; i < im->link_count; ++i) {
        int k = im->order[i];
        urdf_link *l = &im->links[k];
        if (l->parent_joint < 0) {
            l->in_world = base;
        } else {
            urdf_joint *j = &im->joints[l->parent_joint];
            const urdf_link *p = &im->links[j->parent];
            l->in_world = pose_mul(p->in_world, j->origin);
            const urdf_group *pg = &im->groups[p->group];
            int massless = l->mass == 0.0 || (pg->mass == 0.0 && !pg->is_static);
            if (j->type == URDF_FIXED && (im->opt.merge_fixed || massless)) {
                j->merged = 1;
                l->group = p->group;
                l->in_group = pose_mul(p->in_group, j->origin);
                im->result.merged_links++;
            }
        }
        if (l->group < 0) {
            urdf_group *g = &im->groups[im->group_count];
            memset(g, 0, sizeof *g);
            g->link = k;
            g->is_static = l->parent_joint < 0 && im->opt.fixed_base;
            l->group = im->group_count++;
            l->in_group = pose_identity();
        }
        urdf_group *g = &im->groups[l->group];
        if (l->mass > 0.0) {
            g->mass += l->mass; /* the centre and inertia follow once the group is whole */
            g->mass_from = g->mass_from ? im->robot : l->inertial;
        }
    }
    /* centres of mass, then inertias about them (parallel axes) */
    for (int gi = 0; gi < im->group_count; ++gi) {
        urdf_group *g = &im->groups[gi];
        g->com = heft_v3(0, 0, 0);
        g->inertia = heft_mat3_zero();
    }
    for (int k = 0; k < im->link_count; ++k) {
        const urdf_link *l = &im->links[k];
        urdf_group *g = &im->groups[l->group];
        if (l->mass > 0.0 && l->mass == g->mass) {
            g->com = heft_v3_add(l->in_group.p, heft_quat_rotate(l->in_group.q, l->com));
        } else if (l->mass > 0.0) {
            heft_vec3 c = heft_v3_add(l->in_group.p, heft_quat_rotate(l->in_group.q, l->com));
            g->com = heft_v3_madd(g->com, l->mass / g->mass, c);
        }
    }
    for (int k = 0; k < im->link_count; ++k) {
        const urdf_link *l = &im->links[k];
        urdf_group *g = &im->groups[l->group];
        if (!(l->mass > 0.0)) {
            continue;
        }
        if (l->mass == g->mass && l->in_group.q.w == 1.0 && l->in_group.p.x == 0.0 &&
            l->in_group.p.y == 0.0 && l->in_group.p.z == 0.0) {
            g->inertia = l->inertia; /* the link alone, as the file gives it */
            continue;
        }
        heft_mat3 r = heft_quat_to_mat3(l->in_group.q);
        heft_mat3 own = heft_mat3_rotate_tensor(r, l->inertia);
        heft_vec3 c = heft_v3_add(l->in_group.p, heft_quat_rotate(l->in_group.q, l->com));
        heft_vec3 d = heft_v3_sub(c, g->com);
        double dd = heft_v3_dot(d, d);
        double dv[3] = {d.x, d.y, d.z};
        for (int a = 0; a < 3; ++a) {
            for (int b = 0; b < 3; ++b) {
                own.m[a][b] += l->mass * ((a == b ? dd : 0.0) - dv[a] * dv[b]);
            }
        }
        g->inertia = heft_mat3_add(g->inertia, own);
    }
    for (int gi = 0; gi < im->group_count; ++gi) {
        const urdf_group *g = &im->groups[gi];
        const urdf_link *l = &im->links[g->link];
        if (g->is_static || g->mass > 0.0) {
            continue;
        }
        if (l->parent_joint < 0) {
            return fail(im, l->e, NULL,
                        "the root link has no mass: give it an <inertial>, or import it with "
                        "a fixed base");
        }
        const urdf_joint *j = &im->joints[l->parent_joint];
        return fail(im, l->inertial ? l->inertial : l->e, NULL,
                    "link \"%s\" has no mass, and joint \"%s\" (line %d) moves it: give it an "
                    "<inertial> with a positive mass",
                    l->name, j->name, j->e->line);
    }
    return 1;
}

/* ---- collision geometry ------------------------------------------------------- */

static int ends_with_obj(const char *path) {
    size_t n = strlen(path);
    return n >= 4 && path[n - 4] == '.' && tolower((unsigned char)path[n - 3]) == 'o' &&
           tolower((unsigned char)path[n - 2]) == 'b' && tolower((unsigned char)path[n - 1]) == 'j';
}

static int mesh_path(importer *im, const xml_element *m, const char *name, char *out, size_t size) {
    int n;
    if (strncmp(name, "package://", 10) == 0) {
        if (!im->opt.package_root) {
            return fail(im, m, "filename",
                        "\"%.80s\": package:// paths need heft_urdf_options.package_root", name);
        }
        n = snprintf(out, size, "%s/%s", im->opt.package_root, name + 10);
    } else if (strncmp(name, "file://", 7) == 0) {
        n = snprintf(out, size, "%s", name + 7);
    } else if (strstr(name, "://")) {
        return fail(im, m, "filename",
                    "\"%.80s\": only file paths, file:// and package:// are read", name);
    } else {
        n = snprintf(out, size, "%s%s", name[0] == '/' ? "" : im->dir, name);
    }
    if (n < 0 || (size_t)n >= size) {
        return fail(im, m, "filename", "the path is too long");
    }
    return 1;
}

static int read_geometry(importer *im, urdf_shape *s, const xml_element *c, int dynamic) {
    const xml_element *g = xml_child(c, "geometry");
    if (!g) {
        return fail(im, c, NULL, "<geometry> is missing");
    }
    const xml_element *x = g->first_child;
    if (!x) {
        return fail(im, g, NULL, "needs one of <box>, <cylinder>, <sphere>, <mesh>");
    }
    if (x->next_sibling) {
        return fail(im, x->next_sibling, NULL, "a <geometry> holds one shape");
    }
    heft_shape_def *d = &s->def;
    double v[3];
    if (strcmp(x->name, "box") == 0) {
        if (!read_numbers(im, x, "size", v, 3, 1)) {
            return 0;
        }
        if (!(v[0] > 0.0 && v[1] > 0.0 && v[2] > 0.0)) {
            return fail(im, x, "size", "the sides must be positive");
        }
        d->type = HEFT_SHAPE_BOX;
        d->half_extents = heft_v3(0.5 * v[0], 0.5 * v[1], 0.5 * v[2]);
    } else if (strcmp(x->name, "sphere") == 0 || strcmp(x->name, "cylinder") == 0 ||
               strcmp(x->name, "capsule") == 0) {
        if (!read_number(im, x, "radius", &d->radius, 1)) {
            return 0;
        }
        if (!(d->radius > 0.0)) {
            return fail(im, x, "radius", "must be positive");
        }
        d->type = HEFT_SHAPE_SPHERE;
        if (x->name[0] != 's') {
            double length;
            if (!read_number(im, x, "length", &length, 1)) {
                return 0;
            }
            if (!(length > 0.0)) {
                return fail(im, x, "length", "must be positive");
            }
            /* both along the shape's z, as in URDF */
            d->type =
                x->name[0] == 'c' && x->name[1] == 'y' ? HEFT_SHAPE_CYLINDER : HEFT_SHAPE_CAPSULE;
            d->half_length = 0.5 * length;
        }
    } else if (strcmp(x->name, "mesh") == 0) {
        const char *name = xml_attribute(x, "filename");
        if (!name || !name[0]) {
            return fail(im, x, "filename", "is missing");
        }
        if (!ends_with_obj(name)) {
            return fail(im, x, "filename",
                        "\"%.80s\": only Wavefront OBJ meshes (.obj) are read; convert it, or "
                        "use a box, cylinder or sphere",
                        name);
        }
        heft_vec3 scale = heft_v3(1, 1, 1);
        if (!read_vec3(im, x, "scale", &scale)) {
            return 0;
        }
        if (!(scale.x > 0.0 && scale.y > 0.0 && scale.z > 0.0)) {
            return fail(im, x, "scale", "must be positive");
        }
        char path[1200], message[1400];
        if (!mesh_path(im, x, name, path, sizeof path)) {
            return 0;
        }
        if (!mesh_data_read_obj(path, &s->mesh, message, sizeof message)) {
            return fail(im, x, "filename", "%s", message);
        }
        for (int k = 0; k < s->mesh.vertex_count; ++k) {
            heft_vec3 *p = &s->mesh.vertices[k];
            *p = heft_v3(p->x * scale.x, p->y * scale.y, p->z * scale.z);
        }
        if (dynamic) {
            /* a moving body collides with the convex hull of the mesh */
            if (s->mesh.vertex_count > URDF_MAX_HULL_POINTS) {
                return fail(im, x, "filename",
                            "%d vertices: a moving link's mesh becomes a convex hull of at most "
                            "%d points; simplify it",
                            s->mesh.vertex_count, URDF_MAX_HULL_POINTS);
            }
            d->type = HEFT_SHAPE_HULL;
            d->hull.points = s->mesh.vertices;
            d->hull.count = s->mesh.vertex_count;
        } else {
            d->type = HEFT_SHAPE_MESH;
            d->mesh.vertices = s->mesh.vertices;
            d->mesh.vertex_count = s->mesh.vertex_count;
            d->mesh.indices = s->mesh.indices;
            d->mesh.triangle_count = s->mesh.index_count / 3;
        }
    } else {
        return fail(im, x, NULL, "unknown geometry (box, cylinder, sphere, mesh)");
    }
    return 1;
}

static int read_shapes(importer *im) {
    int n = 0;
    for (int k = 0; k < im->link_count; ++k) {
        const urdf_link *l = &im->links[k];
        const urdf_group *g = &im->groups[l->group];
        for (const xml_element *c = xml_child(l->e, "collision"); c; c = xml_next_named(c)) {
            urdf_shape *s = &im->shapes[n++];
            im->shape_count = n;
            s->e = c;
            s->link = k;
            s->def = heft_default_shape_def();
            s->def.friction = im->opt.friction;
            s->def.restitution = 0.0;
            s->def.category_bits = im->opt.category_bits;
            s->def.mask_bits = im->opt.mask_bits;
            pose origin;
            if (!read_origin(im, c, &origin) || !read_geometry(im, s, c, !g->is_static)) {
                return 0;
            }
            /* shape frame in the body frame: at the group's centre of mass, with the
             * reference link's axes */
            pose in_group = pose_mul(l->in_group, origin);
            s->def.local_position = heft_v3_sub(in_group.p, g->com);
            s->def.local_orientation = in_group.q;
        }
    }
    return 1;
}

/* ---- making ------------------------------------------------------------------- */

static int engine_refused(const importer *im, const xml_element *e) {
    char message[256];
    snprintf(message, sizeof message, "%s", heft_last_error());
    return fail(im, e, NULL, "refused: %s", message);
}

static heft_vec3 anchor_in_group(const importer *im, int link, heft_vec3 point_in_link) {
    const urdf_link *l = &im->links[link];
    const urdf_group *g = &im->groups[l->group];
    heft_vec3 p = heft_v3_add(l->in_group.p, heft_quat_rotate(l->in_group.q, point_in_link));
    return heft_v3_sub(p, g->com);
}

static int make_joint(importer *im, heft_world *w, const urdf_joint *j, heft_joint_id *out) {
    static const heft_joint_type types[] = {HEFT_JOINT_HINGE,     HEFT_JOINT_HINGE,
                                            HEFT_JOINT_PRISMATIC, HEFT_JOINT_FIXED,
                                            HEFT_JOINT_SIX_DOF,   HEFT_JOINT_SIX_DOF};
    heft_joint_def d = heft_default_joint_def(types[j->type]);
    const urdf_link *p = &im->links[j->parent], *c = &im->links[j->child];
    d.body_a = im->bodies[p->group];
    d.body_b = im->bodies[c->group];
    d.local_anchor_a = anchor_in_group(im, j->parent, j->origin.p);
    d.local_anchor_b = anchor_in_group(im, j->child, heft_v3(0, 0, 0));
    heft_vec3 axis_in_parent = heft_quat_rotate(j->origin.q, j->axis);
    d.local_axis_a = heft_quat_rotate(p->in_group.q, axis_in_parent);
    d.local_axis_b = heft_quat_rotate(c->in_group.q, j->axis);
    d.name = j->name;
    int dof = j->type == URDF_PRISMATIC ? HEFT_DOF_X : HEFT_DOF_RX;
    if (j->has_limit) {
        d.limit[dof].enabled = 1;
        d.limit[dof].lower = j->lower;
        d.limit[dof].upper = j->upper;
    }
    if (j->type == URDF_FLOATING) {
        for (int k = 0; k < 6; ++k) {
            d.dof_mode[k] = HEFT_DOF_FREE;
        }
    } else if (j->type == URDF_PLANAR) {
        /* in the plane normal to the axis: Y, Z and the turn about it */
        d.dof_mode[HEFT_DOF_Y] = d.dof_mode[HEFT_DOF_Z] = d.dof_mode[HEFT_DOF_RX] = HEFT_DOF_FREE;
    }
    int moves = j->type == URDF_REVOLUTE || j->type == URDF_CONTINUOUS || j->type == URDF_PRISMATIC;
    if (im->opt.joint_dynamics && moves && (j->friction > 0.0 || j->damping > 0.0)) {
        /* one velocity motor holding 0: stiff and bounded by the friction, or
         * viscous with the damping when there is no friction */
        heft_joint_motor *m = &d.motor[dof];
        m->mode = HEFT_MOTOR_VELOCITY;
        m->target_velocity = 0.0;
        if (j->friction > 0.0) {
            m->max_force = j->friction;
            m->damping = 0.0;
        } else {
            m->max_force = INFINITY;
            m->damping = j->damping;
        }
    }
    *out = heft_create_joint(w, &d);
    if (!heft_joint_is_valid(w, *out)) {
        return engine_refused(im, j->e);
    }
    return 1;
}

/* Makes every body, shape and joint in w; on failure what was made stays
 * (the caller destroys the scratch world, or the bodies). */
static int make_all(importer *im, heft_world *w, int *made_bodies) {
    *made_bodies = 0;
    for (int gi = 0; gi < im->group_count; ++gi) {
        const urdf_group *g = &im->groups[gi];
        const urdf_link *l = &im->links[g->link];
        heft_body_def d = heft_default_body_def();
        d.name = l->name;
        d.orientation = l->in_world.q;
        d.position = heft_v3_add(l->in_world.p, heft_quat_rotate(l->in_world.q, g->com));
        if (g->is_static) {
            d.type = HEFT_BODY_STATIC;
        } else {
            d.mass = g->mass;
            d.inertia = g->inertia;
        }
        im->bodies[gi] = heft_create_body(w, &d);
        if (!heft_body_is_valid(w, im->bodies[gi])) {
            return engine_refused(im,
                                  g->mass_from && g->mass_from != im->robot ? g->mass_from : l->e);
        }
        (*made_bodies)++;
    }
    for (int k = 0; k < im->shape_count; ++k) {
        const urdf_shape *s = &im->shapes[k];
        heft_shape_id id = heft_create_shape(w, im->bodies[im->links[s->link].group], &s->def);
        if (!heft_shape_is_valid(w, id)) {
            return engine_refused(im, s->e);
        }
    }
    int joints = 0;
    for (int i = 0; i < im->link_count; ++i) {
        const urdf_link *l = &im->links[im->order[i]];
        if (l->parent_joint < 0 || im->joints[l->parent_joint].merged) {
            continue;
        }
        urdf_joint *j = &im->joints[l->parent_joint];
        if (!make_joint(im, w, j, &j->made)) {
            return 0;
        }
        joints++;
    }
    for (int k = 0; k < im->joint_count; ++k) {
        const urdf_joint *j = &im->joints[k];
        if (j->mimic < 0) {
            continue;
        }
        heft_joint_def d =
            heft_default_joint_def(j->type == URDF_PRISMATIC ? HEFT_JOINT_RACK : HEFT_JOINT_GEAR);
        d.joint_a = im->joints[j->mimic].made;
        d.joint_b = j->made;
        d.ratio = j->multiplier;
        char name[64];
        snprintf(name, sizeof name, "%.40s.mimic", j->name);
        d.name = name;
        if (!heft_joint_is_valid(w, heft_create_joint(w, &d))) {
            return engine_refused(im, xml_child(j->e, "mimic"));
        }
        joints++;
    }
    im->result.body_count = im->group_count;
    im->result.shape_count = im->shape_count;
    im->result.joint_count = joints;
    im->result.root = im->bodies[im->links[im->order[0]].group];
    return 1;
}

static int check_options(const heft_urdf_options *o, const char *call) {
    heft_vec3 p = o->position;
    double qn = heft_quat_norm(o->orientation);
    if (!heft_v3_isfinite(p) || fabs(p.x) > HEFT_POSITION_MAX || fabs(p.y) > HEFT_POSITION_MAX ||
        fabs(p.z) > HEFT_POSITION_MAX) {
        heft_set_error("%s: options.position must be finite and within %g m", call,
                       HEFT_POSITION_MAX);
        return 0;
    }
    if (!heft_quat_isfinite(o->orientation) || !(qn >= HEFT_QUAT_NORM_MIN) ||
        !(qn <= HEFT_QUAT_NORM_MAX)) {
        heft_set_error("%s: options.orientation must be a finite quaternion of length in "
                       "[%g, %g]",
                       call, HEFT_QUAT_NORM_MIN, HEFT_QUAT_NORM_MAX);
        return 0;
    }
    if ((o->fixed_base != 0 && o->fixed_base != 1) ||
        (o->merge_fixed != 0 && o->merge_fixed != 1) ||
        (o->joint_dynamics != 0 && o->joint_dynamics != 1)) {
        heft_set_error("%s: options.fixed_base, merge_fixed and joint_dynamics must be 0 or 1",
                       call);
        return 0;
    }
    if (!isfinite(o->friction) || o->friction < 0.0) {
        heft_set_error("%s: options.friction must be finite and >= 0", call);
        return 0;
    }
    return 1;
}

static void importer_free(importer *im) {
    for (int k = 0; k < im->shape_count; ++k) {
        mesh_data_free(&im->shapes[k].mesh);
    }
    heft_free(im->links);
    heft_free(im->by_name);
    heft_free(im->joints);
    heft_free(im->joint_names);
    heft_free(im->order);
    heft_free(im->groups);
    heft_free(im->shapes);
    heft_free(im->bodies);
}

static int count_named(const xml_element *e, const char *name) {
    int n = 0;
    for (const xml_element *c = xml_child(e, name); c; c = xml_next_named(c)) {
        n++;
    }
    return n;
}

static int allocate(importer *im) {
    int shapes = 0;
    for (const xml_element *l = xml_child(im->robot, "link"); l; l = xml_next_named(l)) {
        shapes += count_named(l, "collision");
    }
    size_t nl = (size_t)im->link_count + 1, nj = (size_t)im->joint_count + 1;
    im->links = heft_alloc(sizeof *im->links * nl);
    im->by_name = heft_alloc(sizeof *im->by_name * nl);
    im->joints = heft_alloc(sizeof *im->joints * nj);
    im->joint_names = heft_alloc(sizeof *im->joint_names * nj);
    im->order = heft_alloc(sizeof *im->order * nl);
    im->groups = heft_alloc(sizeof *im->groups * nl);
    im->shapes = heft_alloc(sizeof *im->shapes * ((size_t)shapes + 1));
    im->bodies = heft_alloc(sizeof *im->bodies * nl);
    if (!im->links || !im->by_name || !im->joints || !im->joint_names || !im->order ||
        !im->groups || !im->shapes || !im->bodies) {
        heft_set_error("out of memory");
        return 0;
    }
    memset(im->shapes, 0, sizeof *im->shapes * ((size_t)shapes + 1));
    return 1;
}

static heft_result import(heft_world *w, const char *text, size_t length, const char *source,
                          const heft_urdf_options *options, heft_urdf_result *result,
                          const char *call) {
    if (!w) {
        heft_set_error("%s: world must not be NULL", call);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    importer im;
    memset(&im, 0, sizeof im);
    im.source = source ? source : "(text)";
    im.opt = options ? *options : heft_default_urdf_options();
    if (!check_options(&im.opt, call)) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    const char *slash = strrchr(im.source, '/');
    size_t dn = slash ? (size_t)(slash - im.source) + 1 : 0;
    if (dn < sizeof im.dir) {
        memcpy(im.dir, im.source, dn);
        im.dir[dn] = 0;
    }
    char message[256];
    xml_tree *tree = xml_tree_parse(text, length, URDF_MAX_DEPTH, message, sizeof message);
    if (!tree) {
        if (strcmp(message, "out of memory") == 0) {
            heft_set_error("out of memory");
            return HEFT_ERROR_OUT_OF_MEMORY;
        }
        heft_set_error("%s:%s", im.source, message);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    heft_result r = HEFT_ERROR_INVALID_ARGUMENT;
    im.robot = xml_tree_root(tree);
    im.link_count = count_named(im.robot, "link");
    im.joint_count = count_named(im.robot, "joint");
    heft_world *scratch = NULL;
    int ok = 0;
    if (strcmp(im.robot->name, "robot") != 0) {
        fail(&im, im.robot, NULL, "the document's element must be <robot>, not <%.40s>",
             im.robot->name);
    } else if (im.link_count == 0) {
        fail(&im, im.robot, NULL, "a robot needs at least one <link>");
    } else if (im.link_count > URDF_MAX_LINKS) {
        fail(&im, im.robot, NULL, "more than %d links", URDF_MAX_LINKS);
    } else if (allocate(&im) && read_links(&im) && read_joints(&im) && order_links(&im) &&
               make_groups(&im) && read_mimics(&im) && read_shapes(&im)) {
        const char *name = xml_attribute(im.robot, "name");
        snprintf(im.result.robot, sizeof im.result.robot, "%s", name ? name : "");
        scratch = heft_world_create(NULL);
        int made = 0;
        if (!scratch) {
            heft_set_error("out of memory");
            r = HEFT_ERROR_OUT_OF_MEMORY;
        } else if (make_all(&im, scratch, &made)) {
            heft_world_destroy(scratch);
            scratch = NULL;
            /* everything held: the same again into the caller's world */
            if (make_all(&im, w, &made)) {
                ok = 1;
            } else {
                /* only out of memory gets here: take back what was made */
                for (int k = 0; k < made; ++k) {
                    heft_destroy_body(w, im.bodies[k]);
                }
                r = HEFT_ERROR_OUT_OF_MEMORY;
            }
        }
    }
    if (ok) {
        r = HEFT_OK;
        if (result) {
            *result = im.result;
        }
    }
    heft_world_destroy(scratch);
    importer_free(&im);
    xml_tree_free(tree);
    return r;
}

heft_result heft_world_import_urdf(heft_world *world, const char *path,
                                   const heft_urdf_options *options, heft_urdf_result *result) {
    if (!world || !path) {
        heft_set_error("heft_world_import_urdf: %s must not be NULL", world ? "path" : "world");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    size_t length = 0;
    char *text = file_read_all(path, URDF_MAX_FILE, &length);
    if (!text) {
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    heft_result r = import(world, text, length, path, options, result, "heft_world_import_urdf");
    heft_free(text);
    return r;
}

heft_result heft_world_import_urdf_text(heft_world *world, const char *text, size_t length,
                                        const char *source, const heft_urdf_options *options,
                                        heft_urdf_result *result) {
    if (!text) {
        heft_set_error("heft_world_import_urdf_text: text must not be NULL");
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    return import(world, text, length, source, options, result, "heft_world_import_urdf_text");
}

#endif
