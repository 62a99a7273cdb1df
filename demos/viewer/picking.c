/* Picking with the world's ray cast, and the drag spring: the picked point
 * is pulled towards the mouse, in the plane facing the camera through it, by
 * a damped spring scaled by the body's mass (a 2 Hz pull whatever the body
 * weighs, so a tonne load and a 1 kg link both follow the hand). */
#include <math.h>
#include <stdlib.h>

#include "renderer.h"

#include "viewer.h"

#define DRAG_FREQUENCY_HZ 2.0
#define DRAG_DAMPING_RATIO 0.7

static void window_ray(viewer *v, double x, double y, vec3 origin, vec3 dir) {
    float w = (float)(v->win_w > 0 ? v->win_w : 1), h = (float)(v->win_h > 0 ? v->win_h : 1);
    v->cam.aspect = w / h;
    camera_ray(&v->cam, (float)x, (float)y, w, h, origin, dir);
}

/* Bodies without shapes are drawn as spheres (renderer_proxy_radius); the
 * world's ray cast cannot see them, so they are hit here. */
static int pick_proxies(viewer *v, heft_vec3 o, heft_vec3 d, heft_ray_hit *hit) {
    int n = heft_world_bodies(v->world, NULL, 0), found = 0;
    heft_body_id *ids = n > 0 ? calloc((size_t)n, sizeof *ids) : NULL;
    if (!ids) {
        return 0;
    }
    heft_world_bodies(v->world, ids, n);
    for (int i = 0; i < n; ++i) {
        if (heft_body_shapes(v->world, ids[i], NULL, 0) != 0) {
            continue;
        }
        double r = renderer_proxy_radius(v->world, ids[i]);
        heft_vec3 c = heft_v3_sub(heft_body_position(v->world, ids[i]), o);
        double t = heft_v3_dot(c, d);
        double miss2 = heft_v3_dot(c, c) - t * t;
        if (t <= 0.0 || miss2 > r * r) {
            continue;
        }
        t -= sqrt(r * r - miss2);
        if (!found || t < hit->distance) {
            found = 1;
            hit->body = ids[i];
            hit->shape = (heft_shape_id){0, 0};
            hit->distance = t;
            hit->point = heft_v3_madd(o, t, d);
            hit->normal = heft_v3_normalize(heft_v3_sub(hit->point, heft_v3_add(o, c)));
        }
    }
    free(ids);
    return found;
}

int viewer_pick(viewer *v, double x, double y, heft_ray_hit *hit) {
    vec3 o, d;
    window_ray(v, x, y, o, d);
    heft_vec3 origin = heft_v3(o[0], o[1], o[2]), dir = heft_v3(d[0], d[1], d[2]);
    heft_ray_hit proxy;
    int found = heft_world_ray_cast(v->world, origin, dir, 1e5, 0xFFFFFFFFu, hit);
    if (found < 0) {
        return found;
    }
    if (pick_proxies(v, origin, dir, &proxy) && (!found || proxy.distance < hit->distance)) {
        *hit = proxy;
        found = 1;
    }
    return found;
}

void viewer_drag_begin(viewer *v, const heft_ray_hit *hit) {
    vec3 eye, f;
    camera_eye(&v->cam, eye);
    glm_vec3_sub(v->cam.target, eye, f);
    glm_vec3_normalize(f);
    v->drag.active = 1;
    v->drag.body = hit->body;
    v->drag.local_anchor = heft_body_local_point(v->world, hit->body, hit->point);
    v->drag.target = hit->point;
    v->drag.plane_distance = (hit->point.x - eye[0]) * f[0] + (hit->point.y - eye[1]) * f[1] +
                             (hit->point.z - eye[2]) * f[2];
}

void viewer_drag_move(viewer *v, double x, double y) {
    if (!v->drag.active) {
        return;
    }
    vec3 o, d, eye, f;
    window_ray(v, x, y, o, d);
    camera_eye(&v->cam, eye);
    glm_vec3_sub(v->cam.target, eye, f);
    glm_vec3_normalize(f);
    double along = glm_vec3_dot(d, f);
    if (along < 1e-6) {
        return;
    }
    double t = v->drag.plane_distance / along;
    v->drag.target = heft_v3(o[0] + t * d[0], o[1] + t * d[1], o[2] + t * d[2]);
}

void viewer_drag_end(viewer *v) {
    v->drag.active = 0;
}

void viewer_drag_apply(viewer *v) {
    if (!v->drag.active) {
        return;
    }
    if (!heft_body_is_valid(v->world, v->drag.body)) {
        v->drag.active = 0;
        return;
    }
    double mass = heft_body_mass(v->world, v->drag.body);
    double omega = 2.0 * HEFT_PI * DRAG_FREQUENCY_HZ;
    heft_vec3 anchor = heft_body_world_point(v->world, v->drag.body, v->drag.local_anchor);
    heft_vec3 r = heft_v3_sub(anchor, heft_body_position(v->world, v->drag.body));
    heft_vec3 vel =
        heft_v3_add(heft_body_linear_velocity(v->world, v->drag.body),
                    heft_v3_cross(heft_body_angular_velocity(v->world, v->drag.body), r));
    heft_vec3 force =
        heft_v3_sub(heft_v3_scale(heft_v3_sub(v->drag.target, anchor), mass * omega * omega),
                    heft_v3_scale(vel, 2.0 * DRAG_DAMPING_RATIO * omega * mass));
    double limit = mass * 200.0; /* about 20 g: firm, but a runaway mouse cannot fling the scene */
    double f = heft_v3_length(force);
    if (f > limit) {
        force = heft_v3_scale(force, limit / f);
    }
    if (heft_v3_isfinite(force)) {
        heft_body_apply_force(v->world, v->drag.body, force, anchor);
    }
}
