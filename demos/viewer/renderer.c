#include "renderer.h"

#include <glad/gl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "debug_lines.h"
#include "islands.h"
#include "shaders.h"
#include "shadow_map.h"
#include "shape_mesh.h"
#include "viewer.h"

/* A mesh made for particular geometry: capsules by their dimensions,
 * hulls, meshes and height fields by shape id. */
typedef struct cached_mesh {
    int kind; /* heft_shape_type */
    double radius, half_length;
    heft_shape_id shape;
    gpu_mesh mesh;
} cached_mesh;

struct renderer {
    unsigned mesh_program, depth_program, sky_program;
    int loc_view_proj, loc_light_view_proj, loc_light_dir, loc_eye, loc_shadow, loc_shadows,
        loc_flat;
    int loc_depth_light_view_proj;
    int loc_sky_inverse;
    unsigned sky_vao;
    gpu_mesh sphere, box, cylinder, ground;
    cached_mesh *cache;
    int cache_count, cache_capacity;
    shadow_map shadow;
    debug_lines lines;
    island_map islands;
    heft_body_id *bodies;
    int body_capacity;
    heft_vec3 *triangles;
    int triangle_capacity;
    int debug_segments; /* segments heft_world_draw gave in the last frame */
};

static int make_mesh(gpu_mesh *g, int (*build)(mesh_data *)) {
    mesh_data m = {0};
    if (build(&m) != 0) {
        return -1;
    }
    gpu_mesh_create(g, &m);
    shape_mesh_free(&m);
    return 0;
}

static int build_sphere(mesh_data *m) {
    return mesh_sphere(m, 32, 20);
}
static int build_cylinder(mesh_data *m) {
    return mesh_cylinder(m, 32);
}
static int build_ground(mesh_data *m) {
    return mesh_quad(m, 500.0f);
}

renderer *renderer_create(void) {
    renderer *r = calloc(1, sizeof *r);
    if (!r) {
        return NULL;
    }
    r->mesh_program = shader_program(SHADER_MESH);
    r->depth_program = shader_program(SHADER_DEPTH);
    r->sky_program = shader_program(SHADER_SKY);
    if (!r->mesh_program || !r->depth_program || !r->sky_program ||
        debug_lines_init(&r->lines) != 0 || shadow_map_init(&r->shadow, 1024) != 0 ||
        make_mesh(&r->sphere, build_sphere) != 0 || make_mesh(&r->box, mesh_box) != 0 ||
        make_mesh(&r->cylinder, build_cylinder) != 0 || make_mesh(&r->ground, build_ground) != 0) {
        renderer_destroy(r);
        return NULL;
    }
    r->loc_view_proj = glGetUniformLocation(r->mesh_program, "u_view_proj");
    r->loc_light_view_proj = glGetUniformLocation(r->mesh_program, "u_light_view_proj");
    r->loc_light_dir = glGetUniformLocation(r->mesh_program, "u_light_dir");
    r->loc_eye = glGetUniformLocation(r->mesh_program, "u_eye");
    r->loc_shadow = glGetUniformLocation(r->mesh_program, "u_shadow");
    r->loc_shadows = glGetUniformLocation(r->mesh_program, "u_shadows");
    r->loc_flat = glGetUniformLocation(r->mesh_program, "u_flat");
    r->loc_depth_light_view_proj = glGetUniformLocation(r->depth_program, "u_light_view_proj");
    r->loc_sky_inverse = glGetUniformLocation(r->sky_program, "u_inverse_view_proj");
    glGenVertexArrays(1, &r->sky_vao);
    return r;
}

void renderer_reset(renderer *r) {
    for (int i = 0; i < r->cache_count; ++i) {
        gpu_mesh_free(&r->cache[i].mesh);
    }
    r->cache_count = 0;
}

void renderer_destroy(renderer *r) {
    if (!r) {
        return;
    }
    renderer_reset(r);
    free(r->cache);
    gpu_mesh_free(&r->sphere);
    gpu_mesh_free(&r->box);
    gpu_mesh_free(&r->cylinder);
    gpu_mesh_free(&r->ground);
    shadow_map_free(&r->shadow);
    debug_lines_free(&r->lines);
    island_map_free(&r->islands);
    if (r->mesh_program)
        glDeleteProgram(r->mesh_program);
    if (r->depth_program)
        glDeleteProgram(r->depth_program);
    if (r->sky_program)
        glDeleteProgram(r->sky_program);
    if (r->sky_vao)
        glDeleteVertexArrays(1, &r->sky_vao);
    free(r->bodies);
    free(r->triangles);
    free(r);
}

int renderer_island_count(const renderer *r) {
    return r->islands.count;
}

/* ---- colours ---------------------------------------------------------- */

static const float palette[][3] = {
    {0.90f, 0.55f, 0.15f}, {0.20f, 0.55f, 0.85f}, {0.85f, 0.25f, 0.25f}, {0.30f, 0.70f, 0.35f},
    {0.65f, 0.40f, 0.80f}, {0.95f, 0.80f, 0.20f}, {0.20f, 0.75f, 0.75f}, {0.85f, 0.45f, 0.60f},
};
#define PALETTE_SIZE ((int)(sizeof palette / sizeof palette[0]))

static int body_at_rest(const viewer *v, heft_body_id id) {
    if (heft_world_sleeping(v->world)) {
        return !heft_body_is_awake(v->world, id);
    }
    return heft_v3_length(heft_body_linear_velocity(v->world, id)) < 0.02 &&
           heft_v3_length(heft_body_angular_velocity(v->world, id)) < 0.02 && v->step_index > 30;
}

void viewer_body_colour(const viewer *v, heft_body_id id, float rgb[3]) {
    heft_body_state st;
    if (heft_body_get_state(v->world, id, &st) != HEFT_OK || st.type == HEFT_BODY_STATIC) {
        rgb[0] = 0.62f;
        rgb[1] = 0.60f;
        rgb[2] = 0.56f;
        return;
    }
    int k = id.index;
    if (v->show.islands && v->renderer) {
        int label = island_map_label(&v->renderer->islands, id);
        k = label >= 0 ? label : k;
    }
    memcpy(rgb, palette[k % PALETTE_SIZE], 3 * sizeof(float));
    if (st.type == HEFT_BODY_KINEMATIC) {
        rgb[0] = 0.45f;
        rgb[1] = 0.50f;
        rgb[2] = 0.60f;
    } else if (v->show.grey_resting && body_at_rest(v, id)) {
        float grey = 0.3f * rgb[0] + 0.59f * rgb[1] + 0.11f * rgb[2];
        for (int c = 0; c < 3; ++c) {
            rgb[c] = 0.25f * rgb[c] + 0.75f * grey;
        }
    }
    if (heft_body_is_valid(v->world, v->selected) && v->selected.index == id.index) {
        for (int c = 0; c < 3; ++c) {
            rgb[c] = 0.6f * rgb[c] + 0.4f;
        }
    }
}

/* ---- geometry --------------------------------------------------------- */

/* model = body pose * shape pose * scale, column-major floats */
static void shape_model(heft_vec3 p, heft_quat q, heft_vec3 scale, float out[16]) {
    heft_mat3 r = heft_quat_to_mat3(q);
    const double s[3] = {scale.x, scale.y, scale.z};
    for (int c = 0; c < 3; ++c) {
        for (int row = 0; row < 3; ++row) {
            out[c * 4 + row] = (float)(r.m[row][c] * s[c]);
        }
        out[c * 4 + 3] = 0.0f;
    }
    out[12] = (float)p.x;
    out[13] = (float)p.y;
    out[14] = (float)p.z;
    out[15] = 1.0f;
}

static gpu_mesh *cached(renderer *r, heft_world *w, heft_shape_id sid, const heft_shape_def *def) {
    for (int i = 0; i < r->cache_count; ++i) {
        cached_mesh *c = &r->cache[i];
        if (c->kind != (int)def->type) {
            continue;
        }
        if (def->type == HEFT_SHAPE_CAPSULE
                ? (c->radius == def->radius && c->half_length == def->half_length)
                : (c->shape.index == sid.index && c->shape.generation == sid.generation)) {
            return &c->mesh;
        }
    }
    if (r->cache_count == r->cache_capacity) {
        int cap = r->cache_capacity ? 2 * r->cache_capacity : 16;
        cached_mesh *grown = realloc(r->cache, (size_t)cap * sizeof *grown);
        if (!grown) {
            return NULL;
        }
        r->cache = grown;
        r->cache_capacity = cap;
    }
    mesh_data m = {0};
    int ok;
    if (def->type == HEFT_SHAPE_CAPSULE) {
        ok = mesh_capsule(&m, def->radius, def->half_length, 24, 16) == 0;
    } else {
        int n = heft_shape_triangles(w, sid, NULL, 0);
        if (n <= 0) {
            return NULL;
        }
        if (3 * n > r->triangle_capacity) {
            heft_vec3 *grown = realloc(r->triangles, (size_t)(3 * n) * sizeof *grown);
            if (!grown) {
                return NULL;
            }
            r->triangles = grown;
            r->triangle_capacity = 3 * n;
        }
        n = heft_shape_triangles(w, sid, r->triangles, n);
        ok = mesh_triangles(&m, r->triangles, n) == 0;
    }
    if (!ok) {
        return NULL;
    }
    cached_mesh *c = &r->cache[r->cache_count++];
    memset(c, 0, sizeof *c);
    c->kind = (int)def->type;
    c->radius = def->radius;
    c->half_length = def->half_length;
    c->shape = sid;
    gpu_mesh_create(&c->mesh, &m);
    shape_mesh_free(&m);
    return &c->mesh;
}

/* rotation taking +z to n */
static heft_quat rotation_to(heft_vec3 n) {
    heft_vec3 z = heft_v3(0.0, 0.0, 1.0);
    double d = heft_v3_dot(z, n);
    if (d < -0.999999) {
        return heft_quat_axis_angle(heft_v3(1.0, 0.0, 0.0), HEFT_PI);
    }
    heft_vec3 c = heft_v3_cross(z, n);
    return heft_quat_normalize(heft_q(1.0 + d, c.x, c.y, c.z));
}

double renderer_proxy_radius(const heft_world *world, heft_body_id body) {
    double m = heft_body_mass(world, body);
    double r = cbrt(3.0 * (m > 0.0 ? m : 1.0) / (4.0 * HEFT_PI * 1000.0));
    return r < 0.03 ? 0.03 : (r > 1.0 ? 1.0 : r);
}

static int queue_shape(renderer *r, viewer *v, heft_body_id body, heft_shape_id sid,
                       const float colour[4]) {
    heft_shape_def def;
    if (heft_shape_get_def(v->world, sid, &def) != HEFT_OK) {
        return 0;
    }
    heft_vec3 bp = heft_body_position(v->world, body);
    heft_quat bq = heft_body_orientation(v->world, body);
    heft_vec3 p = heft_v3_add(bp, heft_quat_rotate(bq, def.local_position));
    heft_quat q = heft_quat_mul(bq, def.local_orientation);
    float model[16];
    gpu_mesh *mesh = NULL;
    heft_vec3 scale = heft_v3(1.0, 1.0, 1.0);
    switch (def.type) {
    case HEFT_SHAPE_SPHERE:
        mesh = &r->sphere;
        scale = heft_v3(def.radius, def.radius, def.radius);
        break;
    case HEFT_SHAPE_BOX:
        mesh = &r->box;
        scale = def.half_extents;
        break;
    case HEFT_SHAPE_CYLINDER:
        mesh = &r->cylinder;
        scale = heft_v3(def.radius, def.radius, def.half_length);
        break;
    case HEFT_SHAPE_PLANE: {
        heft_vec3 n = heft_v3_normalize(def.normal);
        p = heft_v3_add(p, heft_quat_rotate(q, heft_v3_scale(n, def.offset)));
        q = heft_quat_mul(q, rotation_to(n));
        mesh = &r->ground;
        float ground[4] = {0.58f, 0.60f, 0.56f, -1.0f};
        shape_model(p, q, scale, model);
        gpu_mesh_add_instance(mesh, model, ground);
        return 1;
    }
    default:
        mesh = cached(r, v->world, sid, &def);
        break;
    }
    if (!mesh) {
        return 0;
    }
    shape_model(p, q, scale, model);
    gpu_mesh_add_instance(mesh, model, colour);
    return 0;
}

int renderer_scene_bounds(heft_world *w, heft_vec3 *lo, heft_vec3 *hi) {
    int n = heft_world_bodies(w, NULL, 0), found = 0;
    heft_body_id *ids = calloc((size_t)n + 1, sizeof *ids);
    if (!ids) {
        return 0;
    }
    heft_world_bodies(w, ids, n);
    *lo = heft_v3(INFINITY, INFINITY, INFINITY);
    *hi = heft_v3(-INFINITY, -INFINITY, -INFINITY);
    for (int i = 0; i < n; ++i) {
        heft_shape_id shapes[16];
        int count = heft_body_shapes(w, ids[i], shapes, 16);
        for (int s = 0; s < count && s < 16; ++s) {
            heft_vec3 a, b;
            if (heft_shape_aabb(w, shapes[s], &a, &b) != HEFT_OK || !heft_v3_isfinite(a) ||
                !heft_v3_isfinite(b) || b.x - a.x > 1e4 || b.y - a.y > 1e4) {
                continue; /* planes and huge terrain do not decide the framing */
            }
            *lo = heft_v3(fmin(lo->x, a.x), fmin(lo->y, a.y), fmin(lo->z, a.z));
            *hi = heft_v3(fmax(hi->x, b.x), fmax(hi->y, b.y), fmax(hi->z, b.z));
            found = 1;
        }
    }
    free(ids);
    return found;
}

/* ---- debug views ------------------------------------------------------- */

/* The debug layers (contacts and their forces, joint frames and limits,
 * bounding boxes, islands) come from the engine's debug draw
 * (heft_world_draw): the viewer only turns its callbacks into lines. */

typedef struct line_sink {
    debug_lines *lines;
    double axis_length; /* m: the frames of heft_debug_draw.transform */
    int segments;       /* segments received in this frame */
} line_sink;

static void colour_of(heft_color c, float rgba[4]) {
    rgba[0] = (float)((c >> 16) & 0xFFu) / 255.0f;
    rgba[1] = (float)((c >> 8) & 0xFFu) / 255.0f;
    rgba[2] = (float)(c & 0xFFu) / 255.0f;
    rgba[3] = 1.0f;
}

static void sink_segment(void *context, heft_vec3 a, heft_vec3 b, heft_color c) {
    line_sink *k = context;
    float rgba[4];
    colour_of(c, rgba);
    debug_line(k->lines, a, b, rgba);
    k->segments++;
}

/* size: the cross's half-width in m (the viewer sets point_size in metres) */
static void sink_point(void *context, heft_vec3 p, double size, heft_color c) {
    line_sink *k = context;
    float rgba[4];
    colour_of(c, rgba);
    for (int axis = 0; axis < 3; ++axis) {
        heft_vec3 e = heft_v3(axis == 0, axis == 1, axis == 2);
        debug_line(k->lines, heft_v3_madd(p, -size, e), heft_v3_madd(p, size, e), rgba);
    }
}

static void sink_transform(void *context, heft_vec3 origin, heft_quat orientation) {
    line_sink *k = context;
    debug_frame(k->lines, origin, orientation, k->axis_length);
}

uint32_t renderer_debug_flags(const viewer *v) {
    const view_toggles *show = &v->show;
    uint32_t flags = 0;
    if (show->contacts) {
        flags |= HEFT_DRAW_CONTACTS | HEFT_DRAW_CONTACT_FORCES;
    }
    if (show->joints) {
        flags |= HEFT_DRAW_JOINTS | HEFT_DRAW_JOINT_LIMITS;
    }
    if (show->aabbs) {
        flags |= HEFT_DRAW_AABBS;
    }
    if (show->islands) {
        flags |= HEFT_DRAW_ISLANDS;
    }
    return flags;
}

/* Metres of arrow per newton: the largest contact force of the last step
 * spans 15% of the scene, whatever the scene's masses. */
static double force_scale(const heft_world *w, double h, double size) {
    double largest = 0.0;
    int count = heft_world_contact_count(w);
    for (int c = 0; c < count; ++c) {
        heft_contact_info info;
        if (heft_world_contact(w, c, &info) == HEFT_OK) {
            largest = fmax(largest, fabs(info.normal_impulse) / h);
            largest = fmax(largest, heft_v3_length(info.friction_impulse) / h);
        }
    }
    return largest > 0.0 ? 0.15 * size / largest : 0.0;
}

static void add_debug(renderer *r, viewer *v, double size) {
    debug_lines *d = &r->lines;
    static const float spring_colour[4] = {1.0f, 0.3f, 0.9f, 1.0f};
    double h = v->h > 0.0 ? v->h : 1.0 / 60.0;
    uint32_t flags = renderer_debug_flags(v);
    r->debug_segments = 0;
    if (flags) {
        line_sink sink = {d, 0.04 * size, 0};
        heft_debug_draw draw = heft_default_debug_draw();
        draw.segment = sink_segment;
        draw.point = sink_point;
        draw.transform = sink_transform;
        draw.context = &sink;
        draw.axis_length = 0.04 * size;
        draw.point_size = 0.01 * size;
        draw.force_scale =
            (flags & HEFT_DRAW_CONTACT_FORCES) ? force_scale(v->world, h, size) : 0.0;
        if (heft_world_draw(v->world, &draw, flags) == HEFT_OK) {
            r->debug_segments = sink.segments;
        }
    }
    if (v->drag.active && heft_body_is_valid(v->world, v->drag.body)) {
        heft_vec3 anchor = heft_body_world_point(v->world, v->drag.body, v->drag.local_anchor);
        debug_line(d, anchor, v->drag.target, spring_colour);
        double m = 0.01 * size;
        debug_box(d, heft_v3_sub(v->drag.target, heft_v3(m, m, m)),
                  heft_v3_add(v->drag.target, heft_v3(m, m, m)), spring_colour);
    }
}

int renderer_debug_segments(const renderer *r) {
    return r->debug_segments;
}

/* ---- the frame --------------------------------------------------------- */

static void draw_meshes(renderer *r) {
    gpu_mesh_draw(&r->sphere);
    gpu_mesh_draw(&r->box);
    gpu_mesh_draw(&r->cylinder);
    for (int i = 0; i < r->cache_count; ++i) {
        gpu_mesh_draw(&r->cache[i].mesh);
    }
}

static void clear_meshes(renderer *r) {
    gpu_mesh_clear(&r->sphere);
    gpu_mesh_clear(&r->box);
    gpu_mesh_clear(&r->cylinder);
    gpu_mesh_clear(&r->ground);
    for (int i = 0; i < r->cache_count; ++i) {
        gpu_mesh_clear(&r->cache[i].mesh);
    }
}

void renderer_draw(renderer *r, viewer *v) {
    clear_meshes(r);
    debug_lines_clear(&r->lines);
    if (v->show.islands) {
        island_map_update(&r->islands, v->world);
    }
    int n = heft_world_bodies(v->world, NULL, 0);
    if (n > r->body_capacity) {
        heft_body_id *grown = realloc(r->bodies, (size_t)n * sizeof *grown);
        if (!grown) {
            return;
        }
        r->bodies = grown;
        r->body_capacity = n;
    }
    n = heft_world_bodies(v->world, r->bodies, n);
    int planes = 0;
    for (int i = 0; i < n; ++i) {
        float colour[4] = {0.0f, 0.0f, 0.0f, 1.0f};
        viewer_body_colour(v, r->bodies[i], colour);
        heft_shape_id shapes[16];
        int count = heft_body_shapes(v->world, r->bodies[i], shapes, 16);
        for (int s = 0; s < count && s < 16; ++s) {
            planes += queue_shape(r, v, r->bodies[i], shapes[s], colour);
        }
        if (count == 0) { /* a body without shapes: a sphere of its mass at water density */
            double radius = renderer_proxy_radius(v->world, r->bodies[i]);
            float model[16];
            shape_model(heft_body_position(v->world, r->bodies[i]),
                        heft_body_orientation(v->world, r->bodies[i]),
                        heft_v3(radius, radius, radius), model);
            gpu_mesh_add_instance(&r->sphere, model, colour);
        }
    }
    if (planes == 0) { /* no ground in the scene: a reference grid at z = 0 (nothing collides) */
        float model[16], ground[4] = {0.58f, 0.60f, 0.56f, -1.0f};
        shape_model(heft_v3(0.0, 0.0, 0.0), heft_quat_identity(), heft_v3(1.0, 1.0, 1.0), model);
        gpu_mesh_add_instance(&r->ground, model, ground);
    }
    heft_vec3 lo, hi;
    if (!renderer_scene_bounds(v->world, &lo, &hi)) {
        lo = heft_v3(-1.0, -1.0, 0.0);
        hi = heft_v3(1.0, 1.0, 1.0);
    }
    double size = heft_v3_length(heft_v3_sub(hi, lo));
    size = size < 2.0 ? 2.0 : (size > 200.0 ? 200.0 : size);
    add_debug(r, v, size);

    /* shadow pass */
    vec3 centre = {(float)(0.5 * (lo.x + hi.x)), (float)(0.5 * (lo.y + hi.y)),
                   (float)(0.5 * (lo.z + hi.z))};
    float radius = (float)(0.5 * size) + 1.0f;
    if (v->show.shadows) {
        shadow_map_begin(&r->shadow, centre, radius);
        glUseProgram(r->depth_program);
        glUniformMatrix4fv(r->loc_depth_light_view_proj, 1, GL_FALSE,
                           (const float *)r->shadow.light_view_proj);
        draw_meshes(r);
        gpu_mesh_draw(&r->ground);
        shadow_map_end(&r->shadow);
    }

    /* colour pass */
    glViewport(0, 0, v->fb_w, v->fb_h);
    glClearColor(0.70f, 0.78f, 0.86f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
    v->cam.aspect = v->fb_h > 0 ? (float)v->fb_w / (float)v->fb_h : 1.0f;
    mat4 view, proj, view_proj, inverse;
    camera_view(&v->cam, view);
    camera_projection(&v->cam, proj);
    glm_mat4_mul(proj, view, view_proj);
    glm_mat4_inv(view_proj, inverse);
    vec3 eye;
    camera_eye(&v->cam, eye);

    glDisable(GL_DEPTH_TEST);
    glUseProgram(r->sky_program);
    glUniformMatrix4fv(r->loc_sky_inverse, 1, GL_FALSE, (const float *)inverse);
    glBindVertexArray(r->sky_vao);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    glDisable(GL_CULL_FACE);

    glUseProgram(r->mesh_program);
    glUniformMatrix4fv(r->loc_view_proj, 1, GL_FALSE, (const float *)view_proj);
    glUniformMatrix4fv(r->loc_light_view_proj, 1, GL_FALSE,
                       (const float *)r->shadow.light_view_proj);
    glUniform3fv(r->loc_light_dir, 1, r->shadow.light_dir);
    glUniform3fv(r->loc_eye, 1, eye);
    glUniform1i(r->loc_shadows, v->show.shadows);
    glUniform1i(r->loc_flat, 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, r->shadow.texture);
    glUniform1i(r->loc_shadow, 0);
    gpu_mesh_draw(&r->ground);
    if (v->show.wireframe) {
        glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
        glUniform1i(r->loc_flat, 1);
    }
    draw_meshes(r);
    glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
    glUniform1i(r->loc_flat, 0);
    debug_lines_draw(&r->lines, (const float *)view_proj, 1);
}
