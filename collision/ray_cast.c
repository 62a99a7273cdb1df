/* Rays against single shapes, in the shape's frame: spheres, capsules,
 * boxes (slabs), cylinders, hulls (clipping by the face planes), planes,
 * meshes and height fields. A ray starting inside a solid shape misses it. */
#include "ray_cast.h"

/* First entry of the ray into the sphere |x - c| <= r, or -1. */
static double ray_sphere(heft_vec3 o, heft_vec3 d, heft_vec3 c, double r) {
    heft_vec3 m = heft_v3_sub(o, c);
    double b = heft_v3_dot(m, d), cc = heft_v3_dot(m, m) - r * r;
    if (cc <= 0.0) {
        return -1.0; /* starts inside */
    }
    double disc = b * b - cc;
    if (b > 0.0 || disc < 0.0) {
        return -1.0;
    }
    return -b - sqrt(disc);
}

/* First entry through the side of the cylinder x^2 + y^2 <= r^2, |z| <= h. */
static double ray_side(heft_vec3 o, heft_vec3 d, double r, double h) {
    double a = d.x * d.x + d.y * d.y;
    if (a <= 1e-300) {
        return -1.0;
    }
    double b = o.x * d.x + o.y * d.y, c = o.x * o.x + o.y * o.y - r * r;
    double disc = b * b - a * c;
    if (c <= 0.0 || disc < 0.0 || b > 0.0) {
        return -1.0;
    }
    double t = (-b - sqrt(disc)) / a;
    double z = o.z + t * d.z;
    return (t >= 0.0 && fabs(z) <= h) ? t : -1.0;
}

static void keep(double t, heft_vec3 n, double *best, heft_vec3 *best_n) {
    if (t >= 0.0 && (*best < 0.0 || t < *best)) {
        *best = t;
        *best_n = n;
    }
}

static double ray_capsule(heft_vec3 o, heft_vec3 d, double r, double h, heft_vec3 *n) {
    heft_vec3 a = heft_v3(0.0, 0.0, -h), b = heft_v3(0.0, 0.0, h);
    heft_vec3 q = v3_lerp(a, b, segment_closest_t(a, b, o));
    if (v3_length2(heft_v3_sub(o, q)) <= r * r) {
        return -1.0;
    }
    double best = -1.0;
    double t = ray_side(o, d, r, h);
    if (t >= 0.0) {
        heft_vec3 p = heft_v3_madd(o, t, d);
        keep(t, heft_v3_normalize(heft_v3(p.x, p.y, 0.0)), &best, n);
    }
    for (int k = 0; k < 2; ++k) {
        heft_vec3 c = k ? b : a;
        t = ray_sphere(o, d, c, r);
        if (t >= 0.0) {
            keep(t, heft_v3_normalize(heft_v3_sub(heft_v3_madd(o, t, d), c)), &best, n);
        }
    }
    return best;
}

static double ray_box(heft_vec3 o, heft_vec3 d, heft_vec3 he, heft_vec3 *n) {
    double t0 = -INFINITY, t1 = INFINITY;
    int axis = -1;
    double sign = 0.0;
    int inside = 1;
    for (int k = 0; k < 3; ++k) {
        double oi = v3_get(o, k), di = v3_get(d, k), e = v3_get(he, k);
        inside &= fabs(oi) < e;
        if (di == 0.0) {
            if (fabs(oi) > e) {
                return -1.0;
            }
            continue;
        }
        double ta = (-e - oi) / di, tb = (e - oi) / di;
        double s = -1.0;
        if (ta > tb) {
            double t = ta;
            ta = tb;
            tb = t;
            s = 1.0;
        }
        if (ta > t0) {
            t0 = ta;
            axis = k;
            sign = s;
        }
        t1 = tb < t1 ? tb : t1;
    }
    if (inside || axis < 0 || t0 > t1 || t0 < 0.0) {
        return -1.0;
    }
    *n = heft_v3(axis == 0 ? sign : 0.0, axis == 1 ? sign : 0.0, axis == 2 ? sign : 0.0);
    return t0;
}

static double ray_cylinder(heft_vec3 o, heft_vec3 d, double r, double h, heft_vec3 *n) {
    if (o.x * o.x + o.y * o.y <= r * r && fabs(o.z) <= h) {
        return -1.0;
    }
    double best = -1.0;
    double t = ray_side(o, d, r, h);
    if (t >= 0.0) {
        heft_vec3 p = heft_v3_madd(o, t, d);
        keep(t, heft_v3_normalize(heft_v3(p.x, p.y, 0.0)), &best, n);
    }
    for (int k = 0; k < 2; ++k) {
        double z = k ? h : -h;
        /* enters through the cap only from outside its plane */
        if (d.z == 0.0 || (k ? (o.z < h || d.z >= 0.0) : (o.z > -h || d.z <= 0.0))) {
            continue;
        }
        t = (z - o.z) / d.z;
        heft_vec3 p = heft_v3_madd(o, t, d);
        if (t >= 0.0 && p.x * p.x + p.y * p.y <= r * r) {
            keep(t, heft_v3(0.0, 0.0, k ? 1.0 : -1.0), &best, n);
        }
    }
    return best;
}

static double ray_hull(const convex_hull *h, heft_vec3 o, heft_vec3 d, double max_t, heft_vec3 *n) {
    double t0 = 0.0, t1 = max_t;
    int face = -1;
    for (int f = 0; f < h->face_count; ++f) {
        const hull_plane *pl = &h->planes[f];
        double denom = heft_v3_dot(pl->normal, d), dist = pl->offset - heft_v3_dot(pl->normal, o);
        if (denom == 0.0) {
            if (dist < 0.0) {
                return -1.0;
            }
        } else if (denom < 0.0) {
            double t = dist / denom;
            if (t > t0 || (face < 0 && dist < 0.0)) {
                t0 = t > t0 ? t : t0;
                face = f;
            }
        } else {
            double t = dist / denom;
            t1 = t < t1 ? t : t1;
        }
        if (t0 > t1) {
            return -1.0;
        }
    }
    if (face < 0) {
        return -1.0; /* starts inside */
    }
    *n = h->planes[face].normal;
    return t0;
}

double shape_ray_cast(const shape *s, const transform *t, heft_vec3 origin, heft_vec3 dir,
                      double max_t, heft_vec3 *normal) {
    heft_vec3 o = transform_inv_point(t, origin), d = transform_inv_vector(t, dir);
    heft_vec3 n = heft_v3(0.0, 0.0, 1.0);
    double hit = -1.0;
    switch (s->type) {
    case HEFT_SHAPE_SPHERE: {
        hit = ray_sphere(o, d, heft_v3(0.0, 0.0, 0.0), s->radius);
        if (hit >= 0.0) {
            n = heft_v3_normalize(heft_v3_madd(o, hit, d));
        }
        break;
    }
    case HEFT_SHAPE_CAPSULE:
        hit = ray_capsule(o, d, s->radius, s->half_length, &n);
        break;
    case HEFT_SHAPE_BOX:
        hit = ray_box(o, d, s->half_extents, &n);
        break;
    case HEFT_SHAPE_CYLINDER:
        hit = ray_cylinder(o, d, s->radius, s->half_length, &n);
        break;
    case HEFT_SHAPE_HULL:
        hit = ray_hull(s->hull, o, d, max_t, &n);
        break;
    case HEFT_SHAPE_PLANE: {
        double above = heft_v3_dot(s->normal, o) - s->offset, denom = heft_v3_dot(s->normal, d);
        if (above > 0.0 && denom < 0.0) {
            hit = -above / denom;
            n = s->normal;
        }
        break;
    }
    case HEFT_SHAPE_MESH: {
        double th;
        int tri = mesh_ray_cast(s->mesh, o, d, max_t, &th);
        if (tri >= 0) {
            hit = th;
            n = s->mesh->normals[tri];
        }
        break;
    }
    case HEFT_SHAPE_HEIGHT_FIELD: {
        double th;
        int tri = height_field_ray_cast(s->field, o, d, max_t, &th);
        if (tri >= 0) {
            triangle tr;
            height_field_triangle(s->field, tri, &tr);
            hit = th;
            n = tr.n;
        }
        break;
    }
    }
    if (hit < 0.0 || hit > max_t) {
        return -1.0;
    }
    *normal = transform_vector(t, n);
    return hit;
}
