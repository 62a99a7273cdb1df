/* Collision in the running world: manifolds of resting bodies, a stack of
 * boxes, a ball rolling down a ramp mesh, refused input, ray casts and box
 * queries, filtering by mask bits and by joints, warm starts by feature id,
 * mass from shapes, materials, the broad phase against brute force, and no
 * allocation once warmed up. */
#include <criterion/criterion.h>

#include "counting_allocator.h"
#include <stdlib.h>
#include <string.h>

#include "collision_fixture.h"

#define H (1.0 / 60.0)

static heft_body_id add_ground(heft_world *w) {
    heft_body_def bd = heft_default_body_def();
    bd.type = HEFT_BODY_STATIC;
    heft_body_id g = heft_create_body(w, &bd);
    heft_shape_def sd = plane_def(heft_v3(0, 0, 1), 0.0);
    heft_create_shape(w, g, &sd);
    return g;
}

static heft_body_id add_body(heft_world *w, heft_body_type type, heft_vec3 p, heft_quat q,
                             heft_shape_def sd) {
    heft_body_def bd = heft_default_body_def();
    bd.type = type;
    bd.position = p;
    bd.orientation = q;
    heft_body_id b = heft_create_body(w, &bd);
    cr_assert(heft_body_is_valid(w, b), "%s", heft_last_error());
    cr_assert(heft_create_shape(w, b, &sd).index >= 0, "%s", heft_last_error());
    if (type == HEFT_BODY_DYNAMIC) {
        cr_assert_eq(heft_body_set_mass_from_shapes(w, b), HEFT_OK, "%s", heft_last_error());
    }
    return b;
}

static void step(heft_world *w, int n) {
    for (int i = 0; i < n; ++i) {
        cr_assert_eq(heft_world_step(w, H), HEFT_OK, "%s", heft_last_error());
    }
}

/* contact points between two bodies in the last step */
static int contacts_between(heft_world *w, heft_body_id a, heft_body_id b) {
    int n = 0;
    for (int i = 0; i < heft_world_contact_count(w); ++i) {
        heft_contact_info c;
        heft_world_contact(w, i, &c);
        n += (c.body_a.index == a.index && c.body_b.index == b.index) ||
             (c.body_a.index == b.index && c.body_b.index == a.index);
    }
    return n;
}

static const heft_quat I = {1.0, 0.0, 0.0, 0.0};

/* ---- manifolds in the world ---------------------------------------------------- */

Test(collision_world, box_resting_on_a_box_makes_four_points) {
    heft_world *w = heft_world_create(NULL);
    heft_body_id base = add_body(w, HEFT_BODY_STATIC, heft_v3(0, 0, 0.5), I, box_def(1, 1, 0.5));
    heft_body_id top =
        add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0.1, 0, 1.25), I, box_def(0.25, 0.25, 0.25));
    step(w, 60);
    cr_assert_eq(contacts_between(w, base, top), 4);
    cr_assert_float_eq(heft_body_position(w, top).z, 1.25, 1e-3);
    heft_world_destroy(w);
}

Test(collision_world, capsule_lying_on_a_box_makes_two_points) {
    heft_world *w = heft_world_create(NULL);
    heft_body_id base = add_body(w, HEFT_BODY_STATIC, heft_v3(0, 0, 0.5), I, box_def(1, 1, 0.5));
    heft_body_id cap = add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0, 0, 1.2),
                                qaxis(0, 1, 0, HEFT_PI / 2), capsule_def(0.2, 0.5));
    step(w, 60);
    cr_assert_eq(contacts_between(w, base, cap), 2);
    cr_assert_float_eq(heft_body_position(w, cap).z, 1.2, 1e-3);
    heft_world_destroy(w);
}

Test(collision_world, stack_of_ten_boxes_stands_for_ten_seconds_with_pgs) {
    /* PGS at its default 50 sweeps leaves penetrations of a few 0.1 mm in a
     * stack of 10; with the default slop of 0.1 mm the Baumgarte term then
     * keeps pushing the corners apart and the stack rocks itself over (it
     * stands at 500 sweeps). A slop of 1 mm (Box2D uses 5 mm) lets it rest
     * (docs/collision.md, "Stacks"). */
    heft_world_def wd = heft_default_world_def();
    wd.contact_slop = 1e-3;
    heft_world *w = heft_world_create(&wd);
    add_ground(w);
    heft_body_id boxes[10];
    for (int i = 0; i < 10; ++i) {
        heft_shape_def sd = box_def(0.25, 0.25, 0.25);
        sd.density = 2.5 / 0.125; /* 2.5 kg, the papers' boxes */
        boxes[i] = add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0, 0, 0.25 + 0.5 * i + 0.001 * i), I, sd);
    }
    heft_vec3 start = heft_body_position(w, boxes[9]);
    step(w, 600);
    heft_vec3 end = heft_body_position(w, boxes[9]);
    double drift = hypot(end.x - start.x, end.y - start.y), fastest = 0.0;
    for (int i = 0; i < 10; ++i) {
        fastest = fmax(fastest, heft_v3_length(heft_body_linear_velocity(w, boxes[i])));
    }
    cr_log_info("stack of 10, PGS %d iterations: top drift %.2e m, fastest %.2e m/s, top z %.4f",
                heft_world_solver_options(w).max_iterations, drift, fastest, end.z);
    cr_assert_lt(drift, 0.02);
    cr_assert_lt(fastest, 0.01);
    cr_assert_gt(end.z, 4.7);
    heft_world_destroy(w);
}

Test(collision_world, ball_rolling_down_a_ramp_mesh_reaches_the_energy_speed) {
    /* a 20 degree ramp of two triangles from z = 3 down to z = 0 */
    double a = 20.0 * HEFT_PI / 180.0, height = 3.0, len = height / tan(a);
    heft_vec3 v[4] = {{0, -2, height}, {len, -2, 0}, {len, 2, 0}, {0, 2, height}};
    int32_t ix[6] = {0, 1, 2, 0, 2, 3};
    heft_world *w = heft_world_create(NULL);
    heft_shape_def md = heft_default_shape_def();
    md.type = HEFT_SHAPE_MESH;
    md.mesh.vertices = v;
    md.mesh.vertex_count = 4;
    md.mesh.indices = ix;
    md.mesh.triangle_count = 2;
    add_body(w, HEFT_BODY_STATIC, heft_v3(0, 0, 0), I, md);
    double r = 0.2;
    heft_vec3 n = heft_v3(sin(a), 0, cos(a));
    heft_vec3 start = heft_v3_madd(heft_v3(0.5, 0.3, height - 0.5 * tan(a)), r, n);
    heft_body_id ball = add_body(w, HEFT_BODY_DYNAMIC, start, I, sphere_def(r));
    /* until the centre has dropped 1.5 m */
    int steps = 0;
    while (heft_body_position(w, ball).z > start.z - 1.5 && steps < 600) {
        step(w, 1);
        steps++;
    }
    double drop = start.z - heft_body_position(w, ball).z;
    double expected = sqrt(10.0 / 7.0 * 9.81 * drop);
    double speed = heft_v3_length(heft_body_linear_velocity(w, ball));
    heft_vec3 wv = heft_body_angular_velocity(w, ball);
    cr_log_info(
        "ramp: dropped %.3f m in %d steps, speed %.4f m/s, v^2 = 10/7 g h gives %.4f (%.2f%%), "
        "omega r %.4f",
        drop, steps, speed, expected, 100.0 * (speed / expected - 1.0), heft_v3_length(wv) * r);
    cr_assert_float_eq(speed, expected, 0.05 * expected);
    /* rolling, not sliding: omega r = v */
    cr_assert_float_eq(heft_v3_length(wv) * r, speed, 0.05 * speed);
    heft_world_destroy(w);
}

Test(collision_world, box_rests_on_a_height_field_and_a_cylinder_on_a_mesh) {
    double heights[25];
    for (int i = 0; i < 25; ++i) {
        heights[i] = 0.0;
    }
    heft_shape_def hd = heft_default_shape_def();
    hd.type = HEFT_SHAPE_HEIGHT_FIELD;
    hd.height_field.heights = heights;
    hd.height_field.count_x = hd.height_field.count_y = 5;
    hd.height_field.spacing_x = hd.height_field.spacing_y = 0.5;
    heft_world *w = heft_world_create(NULL);
    heft_body_id field = add_body(w, HEFT_BODY_STATIC, heft_v3(-1, -1, 0), I, hd);
    heft_body_id box =
        add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0.1, 0.2, 0.4), I, box_def(0.3, 0.3, 0.3));
    heft_body_id mesh = add_body(w, HEFT_BODY_STATIC, heft_v3(10, 0, 0), I, square_mesh_def());
    heft_body_id cyl =
        add_body(w, HEFT_BODY_DYNAMIC, heft_v3(10, 0, 0.6), I, cylinder_def(0.3, 0.5));
    step(w, 120);
    cr_assert_float_eq(heft_body_position(w, box).z, 0.3, 2e-3);
    cr_assert_float_eq(heft_body_position(w, cyl).z, 0.5, 2e-3);
    cr_assert_eq(contacts_between(w, field, box), 4);
    cr_assert_eq(contacts_between(w, mesh, cyl), 4);
    heft_world_destroy(w);
}

/* ---- refused input -------------------------------------------------------------- */

Test(collision_world, degenerate_shapes_are_refused_and_nothing_changes) {
    heft_world *w = heft_world_create(NULL);
    add_ground(w);
    heft_body_id mover =
        add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0, 0, 1), I, box_def(0.5, 0.5, 0.5));
    heft_body_def sbd = heft_default_body_def();
    sbd.type = HEFT_BODY_STATIC;
    heft_body_id fixed = heft_create_body(w, &sbd);
    step(w, 5);
    heft_vec3 line[6], flat[6], cube_nan[8];
    for (int i = 0; i < 6; ++i) {
        line[i] = heft_v3(i, 2.0 * i, 0.5 * i);
        flat[i] = heft_v3(cos(i), sin(i), 1.0);
    }
    memcpy(cube_nan, unit_cube, sizeof cube_nan);
    cube_nan[3].z = NAN;
    heft_vec3 mv[4] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}, mv_nan[4];
    memcpy(mv_nan, mv, sizeof mv);
    mv_nan[2].x = NAN;
    int32_t out_of_range[3] = {0, 1, 4}, negative[3] = {0, -1, 2}, zero_area[3] = {0, 1, 1},
            ix_ok[3] = {0, 1, 2};
    double heights[4] = {0, 0, NAN, 0}, good_heights[4] = {0, 0, 0, 0};

    struct {
        heft_shape_def def;
        int on_static;
        const char *words;
    } cases[20];
    int n = 0;
    cases[n].def = box_def(0.0, 0.5, 0.5), cases[n].on_static = 0,
    cases[n++].words = "half extents";
    cases[n].def = box_def(0.5, -1.0, 0.5), cases[n].on_static = 0,
    cases[n++].words = "half extents";
    cases[n].def = sphere_def(-1.0), cases[n].on_static = 0, cases[n++].words = "radius";
    cases[n].def = cylinder_def(0.5, 0.0), cases[n].on_static = 0, cases[n++].words = "cylinder";
    cases[n].def = hull_def(line, 6), cases[n].on_static = 0, cases[n++].words = "collinear";
    cases[n].def = hull_def(flat, 6), cases[n].on_static = 0, cases[n++].words = "coplanar";
    cases[n].def = hull_def(cube_nan, 8), cases[n].on_static = 0, cases[n++].words = "not finite";
    cases[n].def = hull_def(unit_cube, 3), cases[n].on_static = 0, cases[n++].words = "at least 4";
    heft_shape_def md = heft_default_shape_def();
    md.type = HEFT_SHAPE_MESH;
    md.mesh.vertices = mv;
    md.mesh.vertex_count = 4;
    md.mesh.triangle_count = 1;
    md.mesh.indices = out_of_range;
    cases[n].def = md, cases[n].on_static = 1, cases[n++].words = "out of range";
    md.mesh.indices = negative;
    cases[n].def = md, cases[n].on_static = 1, cases[n++].words = "out of range";
    md.mesh.indices = zero_area;
    cases[n].def = md, cases[n].on_static = 1, cases[n++].words = "zero area";
    md.mesh.indices = ix_ok;
    md.mesh.vertices = mv_nan;
    cases[n].def = md, cases[n].on_static = 1, cases[n++].words = "not finite";
    md.mesh.vertices = mv;
    cases[n].def = md, cases[n].on_static = 0, cases[n++].words = "static or kinematic";
    heft_shape_def hd = heft_default_shape_def();
    hd.type = HEFT_SHAPE_HEIGHT_FIELD;
    hd.height_field.heights = heights;
    hd.height_field.count_x = hd.height_field.count_y = 2;
    hd.height_field.spacing_x = hd.height_field.spacing_y = 1.0;
    cases[n].def = hd, cases[n].on_static = 1, cases[n++].words = "not finite";
    hd.height_field.heights = good_heights;
    hd.height_field.spacing_y = 0.0;
    cases[n].def = hd, cases[n].on_static = 1, cases[n++].words = "spacing";
    hd.height_field.spacing_y = 1.0;
    hd.height_field.count_x = 1;
    cases[n].def = hd, cases[n].on_static = 1, cases[n++].words = "2 x 2";
    cases[n].def = plane_def(heft_v3(0, 0, 1), 0.0), cases[n].on_static = 0,
    cases[n++].words = "static";
    cases[n].def = box_def(0.5, 0.5, 0.5), cases[n].def.density = NAN, cases[n].on_static = 0,
    cases[n++].words = "density";
    cases[n].def = box_def(0.5, 0.5, 0.5), cases[n].def.restitution = 2.0, cases[n].on_static = 0,
    cases[n++].words = "restitution";

    int shapes = w->shape_live, leaves = w->broad.tree.leaf_count, planes = w->broad.plane_count;
    int contacts = heft_world_contact_count(w);
    heft_body_state before;
    memset(&before, 0, sizeof before); /* memcmp below: zero the padding too */
    heft_body_get_state(w, mover, &before);
    for (int k = 0; k < n; ++k) {
        heft_shape_id id = heft_create_shape(w, cases[k].on_static ? fixed : mover, &cases[k].def);
        cr_assert_eq(id.index, -1, "case %d (%s) was accepted", k, cases[k].words);
        cr_assert(strstr(heft_last_error(), cases[k].words), "case %d: error \"%s\" lacks \"%s\"",
                  k, heft_last_error(), cases[k].words);
        cr_assert_eq(w->shape_live, shapes);
        cr_assert_eq(w->broad.tree.leaf_count, leaves);
        cr_assert_eq(w->broad.plane_count, planes);
        cr_assert_eq(heft_world_contact_count(w), contacts);
    }
    heft_body_state after;
    memset(&after, 0, sizeof after); /* memcmp below: zero the padding too */
    heft_body_get_state(w, mover, &after);
    cr_assert(!memcmp(&before, &after, sizeof before));
    heft_world_destroy(w);
}

/* ---- queries ----------------------------------------------------------------------- */

Test(collision_world, ray_casts_hit_what_they_should) {
    heft_world *w = heft_world_create(NULL);
    heft_body_id ground = add_ground(w);
    heft_body_id sphere = add_body(w, HEFT_BODY_STATIC, heft_v3(0, 0, 1), I, sphere_def(0.5));
    heft_body_id box = add_body(w, HEFT_BODY_STATIC, heft_v3(3, 0, 1), qaxis(0, 0, 1, 0.4),
                                box_def(0.5, 0.5, 0.25));
    heft_body_id cap = add_body(w, HEFT_BODY_STATIC, heft_v3(6, 0, 1), qaxis(0, 1, 0, HEFT_PI / 2),
                                capsule_def(0.3, 1.0));
    heft_body_id cyl = add_body(w, HEFT_BODY_STATIC, heft_v3(9, 0, 1), I, cylinder_def(0.4, 0.5));
    heft_body_id hull =
        add_body(w, HEFT_BODY_STATIC, heft_v3(12, 0, 1), I, hull_def(unit_octahedron, 6));
    heft_body_id mesh = add_body(w, HEFT_BODY_STATIC, heft_v3(15, 0, 2), I, square_mesh_def());
    double heights[9] = {0.5, 0.5, 0.5, 0.5, 1.5, 0.5, 0.5, 0.5, 0.5};
    heft_shape_def hd = heft_default_shape_def();
    hd.type = HEFT_SHAPE_HEIGHT_FIELD;
    hd.height_field.heights = heights;
    hd.height_field.count_x = hd.height_field.count_y = 3;
    hd.height_field.spacing_x = hd.height_field.spacing_y = 1.0;
    heft_body_id field = add_body(w, HEFT_BODY_STATIC, heft_v3(17, -1, 0), I, hd);
    struct {
        heft_vec3 x;
        heft_body_id body;
        double distance;
        heft_vec3 normal;
    } down[] = {
        {{0.1, 0.2, 5}, sphere, 5 - 1 - sqrt(0.25 - 0.05), {0.2, 0.4, sqrt(0.2) / 0.5}},
        {{3, 0, 5}, box, 3.75, {0, 0, 1}},
        {{6.4, 0.1, 5}, cap, 4 - sqrt(0.09 - 0.01), {0, 0.1 / 0.3, sqrt(0.08) / 0.3}},
        {{9.2, 0.1, 5}, cyl, 3.5, {0, 0, 1}},
        {{12, 0, 5}, hull, 3, {1 / sqrt(3.0), 1 / sqrt(3.0), 1 / sqrt(3.0)}},
        {{15.3, 0.4, 5}, mesh, 3, {0, 0, 1}},
        {{18.2, 0.1, 5},
         field,
         3.7,
         {0.5 * sqrt(2.0), 0, 0.5 * sqrt(2.0)}}, /* the slope off its peak */
        {{30, 0, 5}, ground, 5, {0, 0, 1}},
    };
    for (int k = 0; k < (int)(sizeof down / sizeof down[0]); ++k) {
        heft_ray_hit hit;
        int r = heft_world_ray_cast(w, down[k].x, heft_v3(0, 0, -2), 100.0, 0xFFFFFFFFu, &hit);
        cr_assert_eq(r, 1, "ray %d missed", k);
        cr_assert_eq(hit.body.index, down[k].body.index, "ray %d hit body %d", k, hit.body.index);
        cr_assert_float_eq(hit.distance, down[k].distance, 1e-9, "ray %d: %.12f", k, hit.distance);
        if (k != 4) { /* the octahedron's apex: any of its four upper faces */
            cr_assert_lt(fix_dist(hit.normal, down[k].normal), 1e-9, "ray %d normal (%g %g %g)", k,
                         hit.normal.x, hit.normal.y, hit.normal.z);
        }
        cr_assert_lt(fix_dist(hit.point, heft_v3_madd(down[k].x, -hit.distance, heft_v3(0, 0, 1))),
                     1e-9);
    }
    /* sideways along y = 0 from the left: the sphere first, then only masked shapes */
    heft_ray_hit hit;
    cr_assert_eq(
        heft_world_ray_cast(w, heft_v3(-5, 0, 1), heft_v3(1, 0, 0), 100.0, 0xFFFFFFFFu, &hit), 1);
    cr_assert_eq(hit.body.index, sphere.index);
    cr_assert_float_eq(hit.distance, 4.5, 1e-12);
    cr_assert_lt(fix_dist(hit.normal, heft_v3(-1, 0, 0)), 1e-12);
    cr_assert_eq(
        heft_world_ray_cast(w, heft_v3(-5, 0, 1), heft_v3(1, 0, 0), 4.0, 0xFFFFFFFFu, &hit), 0,
        "the sphere is 4.5 m away");
    heft_shape_id sphere_shape;
    heft_body_shapes(w, sphere, &sphere_shape, 1);
    cr_assert_eq(heft_shape_set_filter(w, sphere_shape, 2u, 0xFFFFFFFFu), HEFT_OK);
    cr_assert_eq(heft_world_ray_cast(w, heft_v3(-5, 0, 1), heft_v3(1, 0, 0), 100.0, 1u, &hit), 1);
    cr_assert_eq(hit.body.index, box.index, "the sphere's category is not in the mask");
    /* from inside the box: it is not hit, the capsule is */
    cr_assert_eq(
        heft_world_ray_cast(w, heft_v3(3, 0, 1), heft_v3(1, 0, 0), 100.0, 0xFFFFFFFFu, &hit), 1);
    cr_assert_eq(hit.body.index, cap.index);
    cr_assert_float_eq(hit.distance, 6 - 1 - 0.3 - 3, 1e-12);
    /* from below the ground, up: the plane is solid there, so its inside */
    cr_assert_eq(
        heft_world_ray_cast(w, heft_v3(30, 0, -1), heft_v3(0, 0, 1), 100.0, 0xFFFFFFFFu, &hit), 0);
    /* the mesh is one-sided: from below it is not hit */
    cr_assert_eq(
        heft_world_ray_cast(w, heft_v3(15.3, 0.4, 1.5), heft_v3(0, 0, 1), 100.0, 0xFFFFFFFFu, &hit),
        0);
    /* bad input */
    cr_assert_lt(heft_world_ray_cast(w, heft_v3(0, 0, 0), heft_v3(0, 0, 0), 1.0, 1u, &hit), 0);
    cr_assert_lt(heft_world_ray_cast(w, heft_v3(0, 0, NAN), heft_v3(0, 0, 1), 1.0, 1u, &hit), 0);
    heft_world_destroy(w);
}

Test(collision_world, box_query_returns_the_overlapping_shapes_in_index_order) {
    heft_world *w = heft_world_create(NULL);
    heft_shape_id ids[6];
    for (int i = 0; i < 6; ++i) {
        heft_body_id b = add_body(w, HEFT_BODY_STATIC, heft_v3(2.0 * i, 0, 0), I, sphere_def(0.5));
        heft_body_shapes(w, b, &ids[i], 1);
    }
    heft_shape_id out[8];
    int n = heft_world_query_aabb(w, heft_v3(1.6, -1, -1), heft_v3(6.4, 1, 1), 0xFFFFFFFFu, out, 8);
    cr_assert_eq(n, 3); /* spheres at 2, 4, 6 (the one at 6 reaches 5.5) */
    for (int k = 0; k < 3; ++k) {
        cr_assert_eq(out[k].index, ids[k + 1].index);
    }
    heft_shape_set_filter(w, ids[2], 4u, 0xFFFFFFFFu);
    n = heft_world_query_aabb(w, heft_v3(1.6, -1, -1), heft_v3(6.4, 1, 1), 1u, out, 8);
    cr_assert_eq(n, 2);
    cr_assert_eq(heft_world_query_aabb(w, heft_v3(1, 1, 1), heft_v3(0, 0, 0), 1u, out, 8) < 0, 1);
    heft_world_destroy(w);
}

/* ---- filtering ------------------------------------------------------------------------ */

Test(collision_world, mask_bits_let_shapes_pass_through_each_other) {
    heft_world *w = heft_world_create(NULL);
    add_ground(w);
    heft_body_id low =
        add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0, 0, 0.25), I, box_def(0.25, 0.25, 0.25));
    heft_shape_def sd = box_def(0.25, 0.25, 0.25);
    sd.category_bits = 2u;
    sd.mask_bits = 1u; /* the ground (category 1) only */
    heft_body_id high = add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0, 0, 1.0), I, sd);
    heft_shape_id low_shape;
    heft_body_shapes(w, low, &low_shape, 1);
    /* low: category 4, not in high's mask */
    cr_assert_eq(heft_shape_set_filter(w, low_shape, 4u, 1u), HEFT_OK);
    step(w, 120);
    /* high fell through low onto the ground */
    cr_assert_float_eq(heft_body_position(w, high).z, 0.25, 2e-3);
    cr_assert_float_eq(heft_body_position(w, low).z, 0.25, 2e-3);
    cr_assert_eq(contacts_between(w, low, high), 0);
    heft_world_destroy(w);
}

Test(collision_world, bodies_sharing_a_joint_do_not_collide_unless_asked) {
    for (int connected = 0; connected <= 1; ++connected) {
        heft_world_def wd = heft_default_world_def();
        wd.gravity = heft_v3(0, 0, 0);
        heft_world *w = heft_world_create(&wd);
        /* two overlapping boxes held by a ball joint */
        heft_body_id a =
            add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0, 0, 0), I, box_def(0.5, 0.5, 0.5));
        heft_body_id b =
            add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0.8, 0, 0), I, box_def(0.5, 0.5, 0.5));
        heft_joint_def jd = heft_default_joint_def(HEFT_JOINT_BALL);
        jd.body_a = a;
        jd.body_b = b;
        jd.collide_connected = connected;
        heft_joint_def_set_world_frame(w, &jd, heft_v3(0.4, 0, 0), heft_v3(0, 0, 1));
        cr_assert(heft_joint_is_valid(w, heft_create_joint(w, &jd)), "%s", heft_last_error());
        step(w, 1);
        int n = contacts_between(w, a, b);
        if (connected) {
            cr_assert_gt(n, 0, "collide_connected = 1 must collide");
        } else {
            cr_assert_eq(n, 0, "jointed bodies collided");
        }
        heft_world_destroy(w);
    }
}

/* ---- warm starts ------------------------------------------------------------------------- */

typedef struct captured {
    double lambda0[64];
    int n;
} captured;

static void capture(void *user, int island, const heft_mlcp *p, const double *lambda,
                    const heft_solver_stats *s) {
    (void)island;
    (void)lambda;
    (void)s;
    captured *c = user;
    c->n = 0;
    for (int i = 0; i < p->n && c->n < 64; ++i) {
        if (p->kind[i] == HEFT_ROW_NORMAL) {
            c->lambda0[c->n++] = p->lambda0[i];
        }
    }
}

Test(collision_world, contact_warm_starts_carry_from_step_to_step_by_feature) {
    heft_world *w = heft_world_create(NULL);
    add_ground(w);
    add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0, 0, 0.75), qaxis(0, 0, 1, 0.3),
             box_def(0.5, 0.5, 0.5));
    add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0.1, 0, 1.75), qaxis(0, 0, 1, 0.7),
             box_def(0.5, 0.5, 0.5));
    step(w, 30);
    captured cap;
    heft_world_set_island_callback(w, capture, &cap);
    for (int s = 0; s < 20; ++s) {
        int n = heft_world_contact_count(w);
        uint64_t features[16];
        double impulses[16];
        cr_assert_eq(n, 8);
        for (int i = 0; i < n; ++i) {
            heft_contact_info c;
            heft_world_contact(w, i, &c);
            features[i] = c.feature;
            impulses[i] = c.normal_impulse;
        }
        step(w, 1);
        cr_assert_eq(heft_world_contact_count(w), n);
        cr_assert_eq(cap.n, n);
        for (int i = 0; i < n; ++i) {
            heft_contact_info c;
            heft_world_contact(w, i, &c);
            cr_assert_eq(c.feature, features[i], "step %d point %d changed feature", s, i);
            /* the solver started from the last step's impulse */
            cr_assert_eq(cap.lambda0[i], impulses[i], "step %d point %d: warm start %g, last %g", s,
                         i, cap.lambda0[i], impulses[i]);
        }
    }
    heft_world_destroy(w);
}

/* ---- mass from shapes ------------------------------------------------------------------ */

static void expect_mat(heft_mat3 a, heft_mat3 b, double tol) {
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            cr_assert_float_eq(a.m[i][j], b.m[i][j], tol, "[%d][%d] %.12g vs %.12g", i, j,
                               a.m[i][j], b.m[i][j]);
        }
    }
}

Test(collision_world, mass_and_inertia_from_shapes_and_densities) {
    heft_world *w = heft_world_create(NULL);
    /* single solids against the closed forms */
    heft_shape_def defs[5] = {box_def(0.5, 0.25, 0.1), sphere_def(0.3), capsule_def(0.2, 0.4),
                              cylinder_def(0.25, 0.6), hull_def(unit_cube, 8)};
    double volumes[5] = {0.1, 4.0 / 3.0 * HEFT_PI * 0.027, HEFT_PI * 0.04 * (0.8 + 4.0 / 3.0 * 0.2),
                         HEFT_PI * 0.0625 * 1.2, 1.0};
    for (int k = 0; k < 5; ++k) {
        defs[k].density = 700.0;
        heft_body_id b = add_body(w, HEFT_BODY_DYNAMIC, heft_v3(3.0 * k, 0, 0), I, defs[k]);
        double m = 700.0 * volumes[k];
        cr_assert_float_eq(heft_body_mass(w, b), m, 1e-9 * m, "solid %d", k);
        heft_body_state st;
        heft_body_get_state(w, b, &st);
        heft_mat3 expect = k == 0   ? heft_inertia_box(m, defs[0].half_extents)
                           : k == 1 ? heft_inertia_sphere(m, 0.3)
                           : k == 2 ? heft_inertia_capsule(m, 0.2, 0.4)
                           : k == 3 ? heft_inertia_cylinder(m, 0.25, 0.6)
                                    : heft_inertia_box(m, heft_v3(0.5, 0.5, 0.5));
        expect_mat(st.inertia, expect, 1e-9 * m);
    }
    /* a compound: a 1 m cube at x = +1 (1000 kg) and a sphere of r 0.5 at
     * x = -1, rotated shapes included; the body frame moves to the centre */
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0, 5, 0);
    heft_body_id c = heft_create_body(w, &bd);
    heft_shape_def cube = box_def(0.5, 0.5, 0.5);
    cube.local_position = heft_v3(1, 0, 0);
    cube.local_orientation = qaxis(0, 0, 1, 0.3); /* a cube's inertia does not care */
    heft_shape_def ball = sphere_def(0.5);
    ball.local_position = heft_v3(-1, 0, 0);
    heft_shape_id cs = heft_create_shape(w, c, &cube), bs = heft_create_shape(w, c, &ball);
    cr_assert_eq(heft_body_set_mass_from_shapes(w, c), HEFT_OK);
    double mc = 1000.0, mb = 1000.0 * 4.0 / 3.0 * HEFT_PI * 0.125, m = mc + mb;
    double x = (mc - mb) / m; /* centre of mass along x */
    cr_assert_float_eq(heft_body_mass(w, c), m, 1e-9 * m);
    cr_assert_lt(fix_dist(heft_body_position(w, c), heft_v3(x, 5, 0)), 1e-12);
    heft_body_state st;
    heft_body_get_state(w, c, &st);
    double ic = mc / 6.0, ib = 0.4 * mb * 0.25;
    double dc = 1.0 - x, db = 1.0 + x;
    heft_mat3 expect = heft_mat3_diag(ic + ib, ic + ib + mc * dc * dc + mb * db * db,
                                      ic + ib + mc * dc * dc + mb * db * db);
    expect_mat(st.inertia, expect, 1e-9 * m);
    /* the shapes did not move in the world */
    heft_vec3 lo, hi;
    heft_shape_aabb(w, bs, &lo, &hi);
    cr_assert_lt(fix_dist(heft_v3_scale(heft_v3_add(lo, hi), 0.5), heft_v3(-1, 5, 0)), 1e-12);
    heft_shape_aabb(w, cs, &lo, &hi);
    cr_assert_lt(fix_dist(heft_v3_scale(heft_v3_add(lo, hi), 0.5), heft_v3(1, 5, 0)), 1e-12);
    /* refused: no density, a static body */
    heft_body_id empty = heft_create_body(w, &bd);
    heft_shape_def light = sphere_def(0.5);
    light.density = 0.0;
    heft_create_shape(w, empty, &light);
    cr_assert_eq(heft_body_set_mass_from_shapes(w, empty), HEFT_ERROR_INVALID_ARGUMENT);
    cr_assert_float_eq(heft_body_mass(w, empty), 1.0, 0.0, "the refused call changed the mass");
    heft_world_destroy(w);
}

/* ---- materials ---------------------------------------------------------------------------- */

/* Drops a ball onto ground of this restitution: the upward speed right after
 * the first impact over the downward speed just before it. */
static double rebound_ratio(double height, double restitution) {
    heft_world *w = heft_world_create(NULL);
    heft_body_id g = add_ground(w);
    heft_shape_id gs;
    heft_body_shapes(w, g, &gs, 1);
    heft_shape_set_material(w, gs, 1.0, restitution);
    heft_body_id ball =
        add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0, 0, 0.1 + height), I, sphere_def(0.1));
    double down = 0.0, up = 0.0;
    for (int i = 0; i < 240 && up <= 0.0; ++i) {
        double before = heft_body_linear_velocity(w, ball).z;
        step(w, 1);
        double after = heft_body_linear_velocity(w, ball).z;
        if (before < 0.0 && after > before + 1e-9) { /* the impact step */
            down = -before;
            up = after;
        }
    }
    heft_world_destroy(w);
    return down > 0.0 ? up / down : 0.0;
}

Test(collision_world, restitution_acts_only_above_the_threshold_speed) {
    /* from 1.25 m the impact is at 4.95 m/s: e = 0.5 sends it back at half */
    double ratio = rebound_ratio(1.25, 0.5);
    cr_log_info("rebound at %.4f of the impact speed (e = 0.5)", ratio);
    cr_assert_float_eq(ratio, 0.5, 0.05 * 0.5);
    /* from 2 cm the impact is at 0.63 m/s, below 1 m/s: it stops */
    cr_assert_lt(rebound_ratio(0.02, 0.5), 0.01);
}

Test(collision_world, friction_combines_as_the_geometric_mean) {
    /* 30 degree slope: mu = sqrt(0.09 * 1.0) = 0.3 slides at g (sin a - 0.3 cos a) */
    double a = 30.0 * HEFT_PI / 180.0;
    heft_world *w = heft_world_create(NULL);
    heft_shape_def pd = plane_def(heft_v3(sin(a), 0, cos(a)), 0.0);
    pd.friction = 0.09;
    add_body(w, HEFT_BODY_STATIC, heft_v3(0, 0, 0), I, pd);
    heft_body_id b = add_body(w, HEFT_BODY_DYNAMIC, heft_v3_scale(heft_v3(sin(a), 0, cos(a)), 0.25),
                              qaxis(0, 1, 0, a), box_def(0.25, 0.25, 0.25));
    step(w, 60);
    double expected = 9.81 * (sin(a) - 0.3 * cos(a));
    double speed = heft_v3_length(heft_body_linear_velocity(w, b));
    cr_assert_float_eq(speed, expected, 0.03 * expected, "speed %g, expected %g", speed, expected);
    heft_world_destroy(w);
}

/* ---- the broad phase ---------------------------------------------------------------------- */

static int has_pair(const heft_world *w, int32_t a, int32_t b) {
    uint64_t key = pair_key(a, b);
    for (int i = 0; i < w->broad.pair_count; ++i) {
        if (w->broad.pairs[i] == key) {
            return 1;
        }
    }
    return 0;
}

Test(collision_world, broad_phase_keeps_every_pair_within_the_margin) {
    heft_world *w = heft_world_create(NULL);
    add_ground(w);
    unsigned seed = 99u;
    for (int i = 0; i < 120; ++i) {
        double r[3];
        for (int k = 0; k < 3; ++k) {
            seed = seed * 1103515245u + 12345u;
            r[k] = ((seed >> 8) & 0xFFFF) / 65535.0;
        }
        heft_shape_def d = i % 3 == 0   ? sphere_def(0.2 + 0.2 * r[2])
                           : i % 3 == 1 ? box_def(0.2, 0.3, 0.2 + 0.2 * r[2])
                                        : capsule_def(0.15, 0.3);
        heft_body_id b =
            add_body(w, HEFT_BODY_DYNAMIC, heft_v3(4.0 * r[0], 4.0 * r[1], 0.5 + 0.05 * i), I, d);
        heft_body_set_linear_velocity(w, b, heft_v3(2.0 * (r[1] - 0.5), 2.0 * (r[0] - 0.5), 0));
    }
    for (int s = 0; s < 240; ++s) {
        step(w, 1);
        if (s % 40 != 39) {
            continue;
        }
        /* every pair whose margin-grown boxes overlap is known to the broad phase */
        for (int i = 0; i < w->shape_high; ++i) {
            for (int j = i + 1; j < w->shape_high; ++j) {
                const shape *a = &w->shapes[i], *b = &w->shapes[j];
                if (!broad_phase_may_pair(w, i, j)) {
                    continue;
                }
                int overlap = a->type == HEFT_SHAPE_PLANE ? plane_overlaps_box(a, &b->box)
                                                          : aabb_overlap(&a->box, &b->box);
                if (overlap) {
                    cr_assert(has_pair(w, i, j),
                              "step %d: shapes %d and %d overlap but have no pair", s, i, j);
                }
            }
        }
    }
    /* pairs ascend and are unique */
    for (int i = 1; i < w->broad.pair_count; ++i) {
        cr_assert_lt(w->broad.pairs[i - 1], w->broad.pairs[i]);
    }
    heft_world_destroy(w);
}

Test(collision_world, the_same_scene_twice_gives_bit_identical_states) {
    heft_world *worlds[2];
    heft_body_id bodies[2][40];
    for (int k = 0; k < 2; ++k) {
        worlds[k] = heft_world_create(NULL);
        add_ground(worlds[k]);
        for (int i = 0; i < 40; ++i) {
            heft_shape_def d = i % 4 == 0   ? sphere_def(0.2)
                               : i % 4 == 1 ? box_def(0.2, 0.3, 0.2)
                               : i % 4 == 2 ? capsule_def(0.1, 0.3)
                                            : cylinder_def(0.2, 0.2);
            bodies[k][i] = add_body(worlds[k], HEFT_BODY_DYNAMIC,
                                    heft_v3(0.3 * (i % 5), 0.2 * (i % 3), 0.5 + 0.45 * i),
                                    qaxis(1, 1, 0, 0.1 * i), d);
        }
        step(worlds[k], 180);
    }
    for (int i = 0; i < 40; ++i) {
        heft_body_state a, b;
        heft_body_get_state(worlds[0], bodies[0][i], &a);
        heft_body_get_state(worlds[1], bodies[1][i], &b);
        cr_assert(!memcmp(&a.position, &b.position, sizeof a.position), "body %d differs", i);
        cr_assert(!memcmp(&a.orientation, &b.orientation, sizeof a.orientation));
    }
    heft_world_destroy(worlds[0]);
    heft_world_destroy(worlds[1]);
}

/* ---- no allocation once warmed up ----------------------------------------------------------- */

Test(collision_world, steps_of_a_mixed_scene_allocate_nothing_after_warmup) {
    counting_allocator_install();
    heft_world *w = heft_world_create(NULL);
    add_ground(w);
    add_body(w, HEFT_BODY_STATIC, heft_v3(4, 0, 0.01), I, square_mesh_def());
    for (int i = 0; i < 8; ++i) {
        add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0, 0, 0.25 + 0.5 * i), I, box_def(0.25, 0.25, 0.25));
    }
    add_body(w, HEFT_BODY_DYNAMIC, heft_v3(4, 0, 0.5), I, hull_def(unit_cube, 8));
    add_body(w, HEFT_BODY_DYNAMIC, heft_v3(4.2, 0.3, 1.5), I, cylinder_def(0.2, 0.3));
    add_body(w, HEFT_BODY_DYNAMIC, heft_v3(-2, 0, 0.5), qaxis(0, 1, 0, 1.0), capsule_def(0.1, 0.4));
    step(w, 30);
    counting_allocator_calls = 0;
    step(w, 200);
    long during = counting_allocator_calls;
    heft_world_destroy(w);
    heft_set_allocator(NULL);
    cr_assert_eq(during, 0, "%ld allocations in 200 steps after warm-up", during);
}

Test(collision_world, shape_readback_and_triangles) {
    heft_world *w = heft_world_create(NULL);
    heft_body_id b =
        add_body(w, HEFT_BODY_STATIC, heft_v3(0, 0, 0), I, hull_def(unit_octahedron, 6));
    heft_shape_id s;
    cr_assert_eq(heft_body_shapes(w, b, &s, 1), 1);
    heft_shape_def d;
    cr_assert_eq(heft_shape_get_def(w, s, &d), HEFT_OK);
    cr_assert_eq(d.type, HEFT_SHAPE_HULL);
    cr_assert_eq(d.hull.count, 6);
    cr_assert_eq(heft_shape_triangles(w, s, NULL, 0), 8);
    heft_vec3 tri[3 * 8];
    cr_assert_eq(heft_shape_triangles(w, s, tri, 8), 8);
    for (int t = 0; t < 8; ++t) { /* outward: the normal points away from the centre */
        heft_vec3 n = heft_v3_cross(heft_v3_sub(tri[3 * t + 1], tri[3 * t]),
                                    heft_v3_sub(tri[3 * t + 2], tri[3 * t]));
        cr_assert_gt(heft_v3_dot(n, tri[3 * t]), 0.0);
    }
    cr_assert_eq(heft_shape_body(w, s).index, b.index);
    cr_assert_eq(heft_destroy_shape(w, s), HEFT_OK);
    cr_assert(!heft_shape_is_valid(w, s));
    cr_assert_eq(heft_shape_get_def(w, s, &d), HEFT_ERROR_INVALID_ID);
    heft_world_destroy(w);
}

Test(collision_world, compound_body_of_two_boxes_rests_level_on_its_base) {
    /* an inverted T: a 1 m x 0.2 m base with a post on one end */
    heft_world *w = heft_world_create(NULL);
    heft_body_id ground = add_ground(w);
    heft_body_def bd = heft_default_body_def();
    bd.position = heft_v3(0, 0, 0.15);
    heft_body_id t = heft_create_body(w, &bd);
    heft_shape_def base = box_def(0.5, 0.2, 0.1), post = box_def(0.1, 0.1, 0.4);
    post.local_position = heft_v3(0.35, 0, 0.5);
    heft_shape_id sb = heft_create_shape(w, t, &base);
    heft_create_shape(w, t, &post);
    cr_assert_eq(heft_body_set_mass_from_shapes(w, t), HEFT_OK);
    /* the centre of mass sits over the base, towards the post */
    heft_vec3 c = heft_body_position(w, t);
    cr_assert_gt(c.x, 0.0);
    cr_assert_lt(c.x, 0.5);
    step(w, 180);
    cr_assert_eq(contacts_between(w, ground, t), 4);
    heft_vec3 lo, hi;
    heft_shape_aabb(w, sb, &lo, &hi);
    cr_assert_float_eq(lo.z, 0.0, 1e-3, "the base bottom at %g", lo.z);
    heft_vec3 up = heft_quat_rotate(heft_body_orientation(w, t), heft_v3(0, 0, 1));
    cr_assert_gt(up.z, 1.0 - 1e-6, "tilted: up (%g, %g, %g)", up.x, up.y, up.z);
    heft_world_destroy(w);
}

Test(collision_world, fast_bodies_do_not_pass_through_a_thin_mesh) {
    /* 20 m/s is 0.33 m a step: more than the margin and the box together */
    heft_world *w = heft_world_create(NULL);
    add_body(w, HEFT_BODY_STATIC, heft_v3(0, 0, 0), I, square_mesh_def());
    heft_body_id box =
        add_body(w, HEFT_BODY_DYNAMIC, heft_v3(0.2, 0.1, 1.0), I, box_def(0.1, 0.1, 0.1));
    heft_body_id ball =
        add_body(w, HEFT_BODY_DYNAMIC, heft_v3(-0.5, -0.5, 1.3), I, sphere_def(0.05));
    heft_body_set_linear_velocity(w, box, heft_v3(0, 0, -20));
    heft_body_set_linear_velocity(w, ball, heft_v3(0, 0, -30));
    step(w, 60);
    cr_assert_float_eq(heft_body_position(w, box).z, 0.1, 2e-3, "box at %g",
                       heft_body_position(w, box).z);
    cr_assert_float_eq(heft_body_position(w, ball).z, 0.05, 2e-3, "ball at %g",
                       heft_body_position(w, ball).z);
    heft_world_destroy(w);
}
