#include "camera.h"

#include <math.h>
#include <string.h>

/* Per-scene presets. A direction (yaw from +y towards -x, pitch down) and a
 * zoom on the framing of the bodies' bounds; or, for a scene whose action
 * leaves its starting bounds (the winch pulls its chain in, the chain falls
 * round its rod, the crane slews its load, the forklift drives round its
 * cone), a fixed target and distance (m) chosen so the machine and its load
 * stay in view for the scene's run (at 16:9, between the overlay's panels).
 * Scenes with variants have one entry per variant (NAME/VARIANT). */
typedef struct camera_hint {
    const char *scene;
    float yaw_deg, pitch_deg, zoom; /* zoom < 1 comes closer than the framing distance */
    int fixed;                      /* 1: target and distance below, not the bounds */
    float target[3], distance;
} camera_hint;

static const camera_hint hints[] = {
    /* the crane nearly side on: chassis, turntable and boom, the cable and
     * the pipe under the boom tip, and the boom still in view (clear of the
     * right-hand panel) after its 45 degree slew away from the camera */
    {"crane", -12.0f, 18.0f, 1.0f, 1, {3.5f, 2.5f, 6.0f}, 30.0f},
    {"hanging-chain", -20.0f, 18.0f, 0.9f, 0, {0}, 0},
    {"pendulum", 0.0f, 10.0f, 1.0f, 0, {0}, 0},
    {"box-on-ground", -30.0f, 25.0f, 1.0f, 0, {0}, 0},
    /* the forklift from its fork side: the crate on its pedestal ahead,
     * the cone it turns round behind */
    {"forklift", 35.0f, 24.0f, 1.0f, 1, {1.4f, 0.9f, 0.6f}, 11.0f},
    /* the drum and the first metres of chain, from the side */
    {"winch", 22.0f, 22.0f, 1.0f, 1, {2.2f, 0.0f, 0.8f}, 9.0f},
    /* along the rod: the chain's fall and its wrap seen edge on */
    {"chain", -12.0f, 6.0f, 1.0f, 1, {0.0f, 0.0f, 6.8f}, 28.0f},
    {"stacking/boxes", -32.0f, 24.0f, 0.85f, 0, {0}, 0},
    {"stacking/pyramid", -20.0f, 14.0f, 0.9f, 0, {0}, 0},
    {"stacking/tower", -25.0f, 14.0f, 0.9f, 0, {0}, 0},
    {"stacking/wall", -18.0f, 14.0f, 0.9f, 0, {0}, 0},
};

static void camera_axes(const camera *c, vec3 forward, vec3 right, vec3 up) {
    forward[0] = -sinf(c->yaw) * cosf(c->pitch);
    forward[1] = cosf(c->yaw) * cosf(c->pitch);
    forward[2] = -sinf(c->pitch);
    vec3 z = {0.0f, 0.0f, 1.0f};
    glm_vec3_crossn(forward, z, right);
    glm_vec3_cross(right, forward, up);
}

int camera_has_preset(const char *scene) {
    for (size_t i = 0; scene && i < sizeof hints / sizeof hints[0]; ++i) {
        if (strcmp(hints[i].scene, scene) == 0) {
            return 1;
        }
    }
    return 0;
}

void camera_preset(camera *c, const char *scene, heft_vec3 lo, heft_vec3 hi) {
    const camera_hint *hint = NULL;
    for (size_t i = 0; scene && i < sizeof hints / sizeof hints[0]; ++i) {
        if (strcmp(hints[i].scene, scene) == 0) {
            hint = &hints[i];
        }
    }
    float yaw = hint ? hint->yaw_deg : -30.0f, pitch = hint ? hint->pitch_deg : 20.0f;
    float zoom = hint ? hint->zoom : 1.0f;
    if (!(heft_v3_isfinite(lo) && heft_v3_isfinite(hi)) || lo.x > hi.x) {
        lo = heft_v3(-1.0, -1.0, 0.0);
        hi = heft_v3(1.0, 1.0, 2.0);
    }
    c->target[0] = (float)(0.5 * (lo.x + hi.x));
    c->target[1] = (float)(0.5 * (lo.y + hi.y));
    c->target[2] = (float)(0.5 * (lo.z + hi.z));
    float radius = (float)(0.5 * heft_v3_length(heft_v3_sub(hi, lo)));
    if (radius < 1.2f) {
        radius = 1.2f; /* a lone small body is shown with some ground around it */
    }
    c->fov_y = glm_rad(45.0f);
    c->yaw = glm_rad(yaw);
    c->pitch = glm_rad(pitch);
    c->distance = zoom * 1.15f * radius / sinf(0.5f * c->fov_y);
    if (hint && hint->fixed) {
        glm_vec3_copy((float *)hint->target, c->target);
        c->distance = hint->distance * zoom;
    }
    if (c->aspect <= 0.0f) {
        c->aspect = 16.0f / 9.0f;
    }
    /* the overlay's panels take the left third and the right quarter: the
     * scene is put a little right of the window's centre, in the middle of
     * what they leave free */
    vec3 f, r, u;
    camera_axes(c, f, r, u);
    float view_width = 2.0f * c->distance * tanf(0.5f * c->fov_y) * c->aspect;
    glm_vec3_muladds(r, -0.06f * view_width, c->target);
}

void camera_orbit(camera *c, float dx, float dy) {
    c->yaw -= 0.005f * dx;
    c->pitch += 0.005f * dy;
    float limit = glm_rad(89.0f);
    c->pitch = c->pitch > limit ? limit : (c->pitch < -limit ? -limit : c->pitch);
}

void camera_pan(camera *c, float dx, float dy, float height) {
    vec3 f, r, u;
    camera_axes(c, f, r, u);
    float scale = 2.0f * c->distance * tanf(0.5f * c->fov_y) / (height > 1.0f ? height : 1.0f);
    glm_vec3_muladds(r, -dx * scale, c->target);
    glm_vec3_muladds(u, dy * scale, c->target);
}

void camera_zoom(camera *c, float steps) {
    c->distance *= powf(0.9f, steps);
    c->distance = c->distance < 0.05f ? 0.05f : (c->distance > 5000.0f ? 5000.0f : c->distance);
}

void camera_eye(const camera *c, vec3 eye) {
    vec3 f, r, u;
    camera_axes(c, f, r, u);
    glm_vec3_copy((float *)c->target, eye);
    glm_vec3_muladds(f, -c->distance, eye);
}

void camera_view(const camera *c, mat4 view) {
    vec3 eye, up = {0.0f, 0.0f, 1.0f};
    camera_eye(c, eye);
    glm_lookat(eye, (float *)c->target, up, view);
}

void camera_projection(const camera *c, mat4 proj) {
    float near_plane = c->distance * 0.01f;
    near_plane = near_plane < 0.01f ? 0.01f : near_plane;
    glm_perspective(c->fov_y, c->aspect > 0.0f ? c->aspect : 1.0f, near_plane,
                    c->distance * 20.0f + 200.0f, proj);
}

void camera_ray(const camera *c, float px, float py, float width, float height, vec3 origin,
                vec3 direction) {
    vec3 f, r, u;
    camera_axes(c, f, r, u);
    camera_eye(c, origin);
    float t = tanf(0.5f * c->fov_y);
    float x = (2.0f * (px + 0.5f) / width - 1.0f) * t * (width / height);
    float y = (1.0f - 2.0f * (py + 0.5f) / height) * t;
    glm_vec3_copy(f, direction);
    glm_vec3_muladds(r, x, direction);
    glm_vec3_muladds(u, y, direction);
    glm_vec3_normalize(direction);
}

int camera_project(const camera *c, const float point[3], float width, float height, float *px,
                   float *py) {
    mat4 view, proj, vp;
    camera_view(c, view);
    camera_projection(c, proj);
    glm_mat4_mul(proj, view, vp);
    vec4 p = {point[0], point[1], point[2], 1.0f}, q;
    glm_mat4_mulv(vp, p, q);
    if (q[3] <= 1e-6f) {
        return 0;
    }
    *px = (0.5f * (q[0] / q[3]) + 0.5f) * width - 0.5f;
    *py = (0.5f - 0.5f * (q[1] / q[3])) * height - 0.5f;
    return 1;
}
