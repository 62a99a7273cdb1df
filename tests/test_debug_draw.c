/* Debug draw (docs/queries.md): a recording draw struct on a small scene,
 * counting calls and checking where they draw. */
#include <criterion/criterion.h>
#include <string.h>

#include "heft.h"

#define MAX_CALLS 4096

typedef struct record {
    int segments, points, transforms, shapes, texts;
    heft_vec3 seg_a[MAX_CALLS], seg_b[MAX_CALLS];
    heft_color seg_color[MAX_CALLS];
    heft_vec3 point[64], transform_at[64];
    heft_quat transform_q[64];
    heft_vec3 shape_at[64];
    heft_shape_id shape_id[64];
    heft_shape_type shape_type[64];
    heft_color shape_color[64];
    char text[8][48];
} record;

static void on_segment(void *context, heft_vec3 a, heft_vec3 b, heft_color color) {
    record *r = context;
    if (r->segments < MAX_CALLS) {
        r->seg_a[r->segments] = a;
        r->seg_b[r->segments] = b;
        r->seg_color[r->segments] = color;
    }
    r->segments++;
}
static void on_point(void *context, heft_vec3 p, double size, heft_color color) {
    (void)size;
    (void)color;
    record *r = context;
    if (r->points < 64) {
        r->point[r->points] = p;
    }
    r->points++;
}
static void on_transform(void *context, heft_vec3 origin, heft_quat q) {
    record *r = context;
    if (r->transforms < 64) {
        r->transform_at[r->transforms] = origin;
        r->transform_q[r->transforms] = q;
    }
    r->transforms++;
}
static void on_shape(void *context, heft_shape_id id, heft_shape_type type, heft_vec3 p,
                     heft_quat q, heft_color color) {
    (void)q;
    record *r = context;
    if (r->shapes < 64) {
        r->shape_at[r->shapes] = p;
        r->shape_id[r->shapes] = id;
        r->shape_type[r->shapes] = type;
        r->shape_color[r->shapes] = color;
    }
    r->shapes++;
}
static void on_text(void *context, heft_vec3 p, const char *text, heft_color color) {
    (void)p;
    (void)color;
    record *r = context;
    if (r->texts < 8) {
        strncpy(r->text[r->texts], text, 47);
    }
    r->texts++;
}

static record rec;

static heft_debug_draw recorder(int with_shapes) {
    memset(&rec, 0, sizeof rec);
    heft_debug_draw d = heft_default_debug_draw();
    d.segment = on_segment;
    d.point = on_point;
    d.transform = on_transform;
    d.shape = with_shapes ? on_shape : NULL;
    d.text = on_text;
    d.context = &rec;
    return d;
}

static double dist(heft_vec3 a, heft_vec3 b) {
    return heft_v3_length(heft_v3_sub(a, b));
}

/* A ground plane, a 1 kg box resting on it, and a pendulum: a body hung from
 * the world frame by a hinge with a limit. */
typedef struct scene {
    heft_world *w;
    heft_body_id ground, box, bob;
    heft_shape_id plane, box_shape, bob_shape;
    heft_joint_id hinge;
} scene;

static scene make_scene(void) {
    scene s;
    s.w = heft_world_create(NULL);
    heft_body_def gd = heft_default_body_def();
    gd.type = HEFT_BODY_STATIC;
    s.ground = heft_create_body(s.w, &gd);
    heft_shape_def pd = heft_default_shape_def();
    pd.type = HEFT_SHAPE_PLANE;
    s.plane = heft_create_shape(s.w, s.ground, &pd);
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0, 0, 0.25);
    bd.name = "crate";
    bd.mass = 1.0;
    s.box = heft_create_body(s.w, &bd);
    heft_shape_def box = heft_default_shape_def();
    box.type = HEFT_SHAPE_BOX;
    box.half_extents = heft_v3(0.5, 0.5, 0.25);
    s.box_shape = heft_create_shape(s.w, s.box, &box);
    bd = heft_default_body_def();
    bd.position = heft_v3(5, 0, 2);
    s.bob = heft_create_body(s.w, &bd);
    heft_shape_def ball = heft_default_shape_def();
    ball.radius = 0.2;
    s.bob_shape = heft_create_shape(s.w, s.bob, &ball);
    heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_HINGE);
    jd.body_a = HEFT_WORLD_FRAME;
    jd.body_b = s.bob;
    heft_joint_def_set_world_frame(s.w, &jd, heft_v3(5, 0, 3), heft_v3(0, 1, 0));
    jd.limit[HEFT_DOF_RX].enabled = 1;
    jd.limit[HEFT_DOF_RX].lower = -0.5;
    jd.limit[HEFT_DOF_RX].upper = 0.7;
    s.hinge = heft_create_joint(s.w, &jd);
    cr_assert(heft_joint_is_valid(s.w, s.hinge), "%s", heft_last_error());
    for (int i = 0; i < 60; ++i) {
        heft_world_step(s.w, 1.0 / 60.0);
    }
    return s;
}

Test(debug_draw, shapes_go_to_the_shape_callback_at_their_poses) {
    scene s = make_scene();
    heft_debug_draw d = recorder(1);
    cr_assert_eq(heft_world_draw(s.w, &d, HEFT_DRAW_SHAPES), HEFT_OK);
    cr_assert_eq(rec.shapes, 3);
    cr_assert_eq(rec.segments, 0);
    heft_shape_id ids[3] = {s.plane, s.box_shape, s.bob_shape};
    heft_body_id bodies[3] = {s.ground, s.box, s.bob};
    heft_color colors[3] = {HEFT_COLOR_STATIC, HEFT_COLOR_DYNAMIC, HEFT_COLOR_DYNAMIC};
    for (int k = 0; k < 3; ++k) {
        cr_assert_eq(rec.shape_id[k].index, ids[k].index);
        cr_assert_eq(rec.shape_color[k], colors[k]);
        cr_assert_lt(dist(rec.shape_at[k], heft_body_position(s.w, bodies[k])), 1e-12);
    }
    cr_assert_eq(rec.shape_type[1], HEFT_SHAPE_BOX);
    heft_world_destroy(s.w);
}

Test(debug_draw, wireframes_and_boxes_have_their_segments_where_the_shapes_are) {
    scene s = make_scene();
    heft_debug_draw d = recorder(0);
    cr_assert_eq(heft_world_draw(s.w, &d, HEFT_DRAW_SHAPES), HEFT_OK);
    /* plane: 4 sides and 2 diagonals; box: 12 edges; sphere: 3 circles of 16 */
    cr_assert_eq(rec.segments, 6 + 12 + 48, "%d segments", rec.segments);
    heft_vec3 c = heft_body_position(s.w, s.box);
    for (int k = 6; k < 18; ++k) { /* every box edge runs between two corners */
        heft_vec3 ends[2] = {heft_v3_sub(rec.seg_a[k], c), heft_v3_sub(rec.seg_b[k], c)};
        for (int e = 0; e < 2; ++e) {
            cr_assert_float_eq(fabs(ends[e].x), 0.5, 1e-3);
            cr_assert_float_eq(fabs(ends[e].y), 0.5, 1e-3);
            cr_assert_float_eq(fabs(ends[e].z), 0.25, 1e-3);
        }
        double len = dist(ends[0], ends[1]);
        cr_assert(fabs(len - 1.0) < 1e-3 || fabs(len - 0.5) < 1e-3, "edge of %g m", len);
    }
    heft_vec3 bob = heft_body_position(s.w, s.bob);
    for (int k = 18; k < 66; ++k) {
        cr_assert_float_eq(dist(rec.seg_a[k], bob), 0.2, 1e-12);
    }
    /* boxes: 12 segments for each bounded shape, on heft_shape_aabb */
    d = recorder(1);
    cr_assert_eq(heft_world_draw(s.w, &d, HEFT_DRAW_AABBS), HEFT_OK);
    cr_assert_eq(rec.segments, 24);
    heft_vec3 lo, hi;
    heft_shape_aabb(s.w, s.box_shape, &lo, &hi);
    for (int k = 0; k < 12; ++k) {
        heft_vec3 p = rec.seg_a[k];
        cr_assert(p.x == lo.x || p.x == hi.x);
        cr_assert(p.z == lo.z || p.z == hi.z);
        cr_assert_eq(rec.seg_color[k], HEFT_COLOR_AABB);
    }
    heft_world_destroy(s.w);
}

Test(debug_draw, contacts_and_their_forces_hold_the_box_up) {
    scene s = make_scene();
    heft_debug_draw d = recorder(1);
    d.force_scale = 0.01;
    cr_assert_eq(heft_world_draw(s.w, &d, HEFT_DRAW_CONTACTS | HEFT_DRAW_CONTACT_FORCES), HEFT_OK);
    int n = heft_world_contact_count(s.w);
    cr_assert_eq(n, 4);
    cr_assert_eq(rec.points, n);
    cr_assert_eq(rec.segments, 3 * n); /* normal, normal force, friction force */
    double up = 0.0;
    for (int i = 0; i < n; ++i) {
        heft_contact_info ci;
        heft_world_contact(s.w, i, &ci);
        cr_assert_lt(dist(rec.point[i], ci.point), 1e-12);
        cr_assert_float_eq(dist(rec.seg_a[3 * i], rec.seg_b[3 * i]), d.axis_length, 1e-12);
        up += (rec.seg_b[3 * i + 1].z - rec.seg_a[3 * i + 1].z) / d.force_scale;
    }
    /* the normal forces carry the box's weight */
    cr_assert_float_eq(up, 9.81, 1e-3, "normal forces sum to %.6f N", up);
    heft_world_destroy(s.w);
}

Test(debug_draw, joints_limits_islands_mass_and_names) {
    scene s = make_scene();
    heft_debug_draw d = recorder(1);
    cr_assert_eq(heft_world_draw(s.w, &d, HEFT_DRAW_JOINTS), HEFT_OK);
    heft_joint_frames f;
    heft_joint_get_frames(s.w, s.hinge, &f);
    cr_assert_eq(rec.transforms, 2);
    cr_assert_lt(dist(rec.transform_at[0], f.anchor_a), 1e-12);
    cr_assert_lt(dist(rec.transform_at[1], f.anchor_b), 1e-12);
    cr_assert_eq(rec.segments, 2); /* bob to anchor, anchor to anchor (a is the world) */

    /* the hinge's limit: an arc of axis_length about the anchor, 1.2 rad
     * in 4 segments, and its two radii */
    d = recorder(1);
    cr_assert_eq(heft_world_draw(s.w, &d, HEFT_DRAW_JOINT_LIMITS), HEFT_OK);
    cr_assert_eq(rec.segments, 4 + 2);
    for (int k = 0; k < 4; ++k) {
        cr_assert_float_eq(dist(rec.seg_a[k], f.anchor_a), d.axis_length, 1e-12);
        cr_assert_eq(rec.seg_color[k], HEFT_COLOR_JOINT_LIMIT);
    }
    heft_vec3 axis = heft_quat_rotate(f.frame_a, heft_v3(1, 0, 0));
    cr_assert_lt(fabs(heft_v3_dot(heft_v3_sub(rec.seg_b[1], f.anchor_a), axis)), 1e-12);

    /* islands: the box and the pendulum, 12 segments each */
    d = recorder(1);
    cr_assert_eq(heft_world_draw(s.w, &d, HEFT_DRAW_ISLANDS), HEFT_OK);
    cr_assert_eq(heft_world_stats(s.w)->islands, 2);
    cr_assert_eq(rec.segments, 24);
    cr_assert_neq(rec.seg_color[0], rec.seg_color[12]);

    /* centres of mass of the two dynamic bodies; the one name */
    d = recorder(1);
    cr_assert_eq(heft_world_draw(s.w, &d, HEFT_DRAW_MASS | HEFT_DRAW_NAMES | HEFT_DRAW_SLEEP),
                 HEFT_OK);
    cr_assert_eq(rec.transforms, 2);
    cr_assert_lt(dist(rec.transform_at[0], heft_body_position(s.w, s.box)), 1e-12);
    cr_assert_eq(rec.texts, 1);
    cr_assert_str_eq(rec.text[0], "crate");
    heft_world_destroy(s.w);
}

Test(debug_draw, no_flags_draw_nothing_and_bad_input_is_refused) {
    scene s = make_scene();
    heft_debug_draw d = recorder(1);
    cr_assert_eq(heft_world_draw(s.w, &d, 0), HEFT_OK);
    cr_assert_eq(rec.segments + rec.points + rec.transforms + rec.shapes + rec.texts, 0);
    cr_assert_eq(heft_world_draw(NULL, &d, HEFT_DRAW_SHAPES), HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_eq(heft_world_draw(s.w, NULL, HEFT_DRAW_SHAPES), HEFT_ERROR_INVALID_ARGUMENT);
    d.axis_length = NAN;
    cr_assert_eq(heft_world_draw(s.w, &d, HEFT_DRAW_SHAPES), HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_str_neq(heft_last_error(), "");
    cr_assert_eq(rec.shapes, 0);
    /* callbacks left NULL are skipped */
    heft_debug_draw none = heft_default_debug_draw();
    cr_assert_eq(heft_world_draw(s.w, &none, 0xFFFFFFFFu), HEFT_OK);
    heft_world_destroy(s.w);
}

/* Distance from p to the segment [a, b]. */
static double to_segment(heft_vec3 p, heft_vec3 a, heft_vec3 b) {
    heft_vec3 e = heft_v3_sub(b, a);
    double t = heft_v3_dot(heft_v3_sub(p, a), e) / heft_v3_dot(e, e);
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return dist(p, heft_v3_madd(a, t, e));
}

Test(debug_draw, wireframes_of_capsules_cylinders_meshes_and_height_fields) {
    heft_world *w = heft_world_create(NULL);
    heft_body_def bd = heft_default_body_def();
    bd.type = HEFT_BODY_STATIC;
    bd.position = heft_v3(1, 2, 3);
    bd.orientation = heft_quat_axis_angle(heft_v3(1, 1, 0), 0.7);
    heft_body_id b = heft_create_body(w, &bd);
    heft_shape_def cap = heft_default_shape_def();
    cap.type = HEFT_SHAPE_CAPSULE;
    cap.radius = 0.3;
    cap.half_length = 0.6;
    heft_create_shape(w, b, &cap);
    heft_debug_draw d = recorder(0);
    cr_assert_eq(heft_world_draw(w, &d, HEFT_DRAW_SHAPES), HEFT_OK);
    /* two rings of 16, four lines, four half circles of 8 */
    cr_assert_eq(rec.segments, 32 + 4 + 32, "%d", rec.segments);
    heft_vec3 axis = heft_quat_rotate(bd.orientation, heft_v3(0, 0, 0.6));
    heft_vec3 a = heft_v3_sub(bd.position, axis), c = heft_v3_add(bd.position, axis);
    for (int k = 0; k < rec.segments; ++k) { /* every point on the capsule's surface */
        cr_assert_float_eq(to_segment(rec.seg_a[k], a, c), 0.3, 1e-12);
        cr_assert_float_eq(to_segment(rec.seg_b[k], a, c), 0.3, 1e-12);
    }
    heft_world_destroy(w);

    w = heft_world_create(NULL);
    b = heft_create_body(w, &bd);
    heft_shape_def cyl = cap;
    cyl.type = HEFT_SHAPE_CYLINDER;
    heft_create_shape(w, b, &cyl);
    d = recorder(0);
    heft_world_draw(w, &d, HEFT_DRAW_SHAPES);
    cr_assert_eq(rec.segments, 32 + 4);
    heft_world_destroy(w);

    w = heft_world_create(NULL);
    bd.orientation = heft_quat_identity();
    b = heft_create_body(w, &bd);
    static const heft_vec3 quad[4] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}};
    static const int32_t tris[6] = {0, 1, 2, 0, 2, 3};
    heft_shape_def mesh = heft_default_shape_def();
    mesh.type = HEFT_SHAPE_MESH;
    mesh.mesh.vertices = quad;
    mesh.mesh.vertex_count = 4;
    mesh.mesh.indices = tris;
    mesh.mesh.triangle_count = 2;
    heft_create_shape(w, b, &mesh);
    double heights[9] = {0, 0, 0, 0, 1, 0, 0, 0, 0};
    heft_shape_def field = heft_default_shape_def();
    field.type = HEFT_SHAPE_HEIGHT_FIELD;
    field.height_field.heights = heights;
    field.height_field.count_x = field.height_field.count_y = 3;
    field.height_field.spacing_x = field.height_field.spacing_y = 1.0;
    heft_create_shape(w, b, &field);
    d = recorder(0);
    heft_world_draw(w, &d, HEFT_DRAW_SHAPES);
    cr_assert_eq(rec.segments, 2 * 3 + 8 * 3);
    cr_assert_lt(dist(rec.seg_a[0], heft_v3(0, 1, 3)), 1e-12); /* the quad's first corner */
    int peak = 0;
    for (int k = 6; k < rec.segments; ++k) {
        peak += dist(rec.seg_a[k], heft_v3(2, 3, 4)) < 1e-12;
    }
    cr_assert_gt(peak, 0, "no edge starts at the field's peak");
    heft_world_destroy(w);
}
