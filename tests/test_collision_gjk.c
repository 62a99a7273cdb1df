/* GJK distances against brute force on random convex pairs, EPA depths
 * against closed forms, and the hull builder (faces, degenerate input, mass). */
#include <criterion/criterion.h>
#include <string.h>

#include "convex.h"
#include "error.h"

static unsigned seed_state = 12345u;
static double urand(void) { /* [0, 1) */
    seed_state = seed_state * 1664525u + 1013904223u;
    return (seed_state >> 8) / 16777216.0;
}
static double srand1(void) {
    return 2.0 * urand() - 1.0;
}
/* draws in a fixed order (argument evaluation order is unspecified in C) */
static heft_vec3 srand3(double sx, double sy, double sz) {
    double x = sx * srand1();
    double y = sy * srand1();
    double z = sz * srand1();
    return heft_v3(x, y, z);
}
static heft_vec3 urand3(double base) {
    double x = base + urand();
    double y = base + urand();
    double z = base + urand();
    return heft_v3(x, y, z);
}
static heft_vec3 rand_unit(void) {
    for (;;) {
        heft_vec3 v = srand3(1.0, 1.0, 1.0);
        double l = heft_v3_length(v);
        if (l > 0.1 && l <= 1.0) {
            return heft_v3_scale(v, 1.0 / l);
        }
    }
}
static heft_quat rand_quat(void) {
    heft_vec3 v = srand3(1.0, 1.0, 1.0);
    double s = srand1() + 0.01;
    return heft_quat_normalize(heft_q(v.x, v.y, v.z, s));
}

/* ---- brute force, written apart from the library's closest-point code ---- */

static double point_segment(heft_vec3 p, heft_vec3 a, heft_vec3 b) {
    heft_vec3 e = heft_v3_sub(b, a);
    double t = heft_v3_dot(heft_v3_sub(p, a), e) / heft_v3_dot(e, e);
    t = t < 0.0 ? 0.0 : (t > 1.0 ? 1.0 : t);
    return heft_v3_length(heft_v3_sub(p, heft_v3_madd(a, t, e)));
}

static double segment_segment(heft_vec3 a0, heft_vec3 a1, heft_vec3 b0, heft_vec3 b1) {
    double best = fmin(fmin(point_segment(a0, b0, b1), point_segment(a1, b0, b1)),
                       fmin(point_segment(b0, a0, a1), point_segment(b1, a0, a1)));
    /* the interior critical point, if any: solve the 2x2 normal equations */
    heft_vec3 u = heft_v3_sub(a1, a0), v = heft_v3_sub(b1, b0), r = heft_v3_sub(a0, b0);
    double a = heft_v3_dot(u, u), b = heft_v3_dot(u, v), c = heft_v3_dot(v, v);
    double d = heft_v3_dot(u, r), e = heft_v3_dot(v, r);
    double det = a * c - b * b;
    if (det > 1e-14 * a * c) {
        double s = (b * e - c * d) / det, t = (a * e - b * d) / det;
        if (s > 0.0 && s < 1.0 && t > 0.0 && t < 1.0) {
            heft_vec3 pa = heft_v3_madd(a0, s, u), pb = heft_v3_madd(b0, t, v);
            best = fmin(best, heft_v3_length(heft_v3_sub(pa, pb)));
        }
    }
    return best;
}

static double point_triangle(heft_vec3 p, heft_vec3 a, heft_vec3 b, heft_vec3 c) {
    heft_vec3 u = heft_v3_sub(b, a), v = heft_v3_sub(c, a), w = heft_v3_sub(p, a);
    double uu = heft_v3_dot(u, u), uv = heft_v3_dot(u, v), vv = heft_v3_dot(v, v);
    double wu = heft_v3_dot(w, u), wv = heft_v3_dot(w, v);
    double det = uu * vv - uv * uv;
    double s = (vv * wu - uv * wv) / det, t = (uu * wv - uv * wu) / det;
    if (s >= 0.0 && t >= 0.0 && s + t <= 1.0) {
        heft_vec3 q = heft_v3_add(a, heft_v3_add(heft_v3_scale(u, s), heft_v3_scale(v, t)));
        return heft_v3_length(heft_v3_sub(p, q));
    }
    return fmin(point_segment(p, a, b), fmin(point_segment(p, b, c), point_segment(p, c, a)));
}

/* the hull's faces as a fan of triangles */
static int hull_triangles(const convex_hull *h, const heft_vec3 *v, heft_vec3 (*out)[3]) {
    int n = 0;
    for (int f = 0; f < h->face_count; ++f) {
        int e0 = h->face_edge[f];
        for (int e = h->edges[e0].next; h->edges[e].next != e0; e = h->edges[e].next) {
            out[n][0] = v[h->edges[e0].origin];
            out[n][1] = v[h->edges[e].origin];
            out[n][2] = v[h->edges[h->edges[e].next].origin];
            n++;
        }
    }
    return n;
}

static double triangle_triangle(const heft_vec3 *p, const heft_vec3 *q) {
    double best = INFINITY;
    for (int i = 0; i < 3; ++i) {
        best = fmin(best, point_triangle(p[i], q[0], q[1], q[2]));
        best = fmin(best, point_triangle(q[i], p[0], p[1], p[2]));
        for (int j = 0; j < 3; ++j) {
            best = fmin(best, segment_segment(p[i], p[(i + 1) % 3], q[j], q[(j + 1) % 3]));
        }
    }
    return best;
}

/* a random hull of n points in the unit ball, moved by (q, c); a draw of
 * nearly coplanar points (the builder refuses them) is drawn again */
static convex_hull *random_hull(int n, double shift_x, heft_vec3 *world, heft_quat q, heft_vec3 c) {
    heft_vec3 pts[64];
    convex_hull *h = NULL;
    for (int attempt = 0; attempt < 10 && !h; ++attempt) {
        for (int i = 0; i < n; ++i) {
            heft_vec3 u = rand_unit();
            pts[i] = heft_v3_scale(u, 0.3 + 0.7 * urand());
            /* all on one side of the plane x = shift_x */
            pts[i].x = shift_x >= 0.0 ? shift_x + fabs(pts[i].x) : shift_x - fabs(pts[i].x);
        }
        h = convex_hull_build(pts, n);
    }
    cr_assert(h, "%s", heft_last_error());
    for (int i = 0; i < h->vertex_count; ++i) {
        world[i] = heft_v3_add(c, heft_quat_rotate(q, h->vertices[i]));
    }
    return h;
}

static convex_proxy points_proxy(const heft_vec3 *p, int n) {
    convex_proxy x;
    memset(&x, 0, sizeof x);
    x.points = p;
    x.count = n;
    return x;
}

static heft_vec3 va[HULL_MAX_VERTICES], vb[HULL_MAX_VERTICES];
static heft_vec3 ta[2 * HULL_MAX_FACES][3], tb[2 * HULL_MAX_FACES][3];

Test(gjk, distances_between_random_hulls_match_brute_force_to_1e_9) {
    double worst = 0.0;
    for (int trial = 0; trial < 200; ++trial) {
        /* separated by the plane x = 0 before the common motion, gap g */
        double g = trial % 4 == 0 ? 1e-4 * urand() + 1e-6 : 0.5 * urand() + 1e-4;
        heft_quat q = rand_quat();
        heft_vec3 c = srand3(10.0, 10.0, 10.0);
        convex_hull *ha = random_hull(4 + trial % 20, -0.5 * g, va, q, c);
        convex_hull *hb = random_hull(4 + (trial * 7) % 25, 0.5 * g, vb, q, c);
        convex_proxy pa = points_proxy(va, ha->vertex_count),
                     pb = points_proxy(vb, hb->vertex_count);
        gjk_output out;
        gjk_distance(&pa, &pb, INFINITY, &out);
        int na = hull_triangles(ha, va, ta), nb = hull_triangles(hb, vb, tb);
        double brute = INFINITY;
        for (int i = 0; i < na; ++i) {
            for (int j = 0; j < nb; ++j) {
                brute = fmin(brute, triangle_triangle(ta[i], tb[j]));
            }
        }
        cr_assert(!out.overlap, "trial %d: separated hulls reported overlapping", trial);
        double err = fabs(out.distance - brute);
        worst = fmax(worst, err);
        cr_assert_lt(err, 1e-9, "trial %d: gjk %.15f brute %.15f", trial, out.distance, brute);
        cr_assert_float_eq(heft_v3_length(heft_v3_sub(out.pa, out.pb)), out.distance, 1e-12);
        convex_hull_free(ha);
        convex_hull_free(hb);
    }
    cr_log_info("hull-hull: largest |gjk - brute force| %.2e m over 200 pairs", worst);
}

Test(gjk, distances_of_points_and_segments_to_random_hulls_match_brute_force) {
    double worst = 0.0;
    for (int trial = 0; trial < 200; ++trial) {
        double g = 0.3 * urand() + 1e-5;
        heft_quat q = rand_quat();
        heft_vec3 c = srand3(1.0, 1.0, 1.0);
        convex_hull *hb = random_hull(4 + trial % 30, 0.5 * g, vb, q, c);
        /* a point or a segment on the other side of the plane */
        heft_vec3 s[2];
        for (int k = 0; k < 2; ++k) {
            double px = -0.5 * g - urand();
            heft_vec3 p = srand3(0.0, 1.0, 1.0);
            p.x = px;
            s[k] = heft_v3_add(c, heft_quat_rotate(q, p));
        }
        int count = 1 + trial % 2;
        convex_proxy pa = points_proxy(s, count), pb = points_proxy(vb, hb->vertex_count);
        gjk_output out;
        gjk_distance(&pa, &pb, INFINITY, &out);
        int nb = hull_triangles(hb, vb, tb);
        double brute = INFINITY;
        for (int j = 0; j < nb; ++j) {
            if (count == 1) {
                brute = fmin(brute, point_triangle(s[0], tb[j][0], tb[j][1], tb[j][2]));
            } else {
                brute = fmin(brute, fmin(point_triangle(s[0], tb[j][0], tb[j][1], tb[j][2]),
                                         point_triangle(s[1], tb[j][0], tb[j][1], tb[j][2])));
                for (int e = 0; e < 3; ++e) {
                    brute = fmin(brute, segment_segment(s[0], s[1], tb[j][e], tb[j][(e + 1) % 3]));
                }
            }
        }
        double err = fabs(out.distance - brute);
        worst = fmax(worst, err);
        cr_assert_lt(err, 1e-9, "trial %d: gjk %.15f brute %.15f", trial, out.distance, brute);
        convex_hull_free(hb);
    }
    cr_log_info("point/segment-hull: largest |gjk - brute force| %.2e m", worst);
}

Test(gjk, distances_of_points_to_cylinders_match_the_closed_form) {
    double worst = 0.0;
    for (int trial = 0; trial < 500; ++trial) {
        double r = 0.1 + urand();
        double h = 0.1 + urand();
        heft_quat q = rand_quat();
        heft_vec3 c = srand3(1.0, 1.0, 1.0);
        /* a point outside, in the cylinder's frame */
        heft_vec3 local;
        do {
            local = srand3(3.0, 3.0, 3.0);
        } while (hypot(local.x, local.y) <= r + 1e-3 && fabs(local.z) <= h + 1e-3);
        double dr = fmax(hypot(local.x, local.y) - r, 0.0), dz = fmax(fabs(local.z) - h, 0.0);
        double exact = hypot(dr, dz);
        heft_vec3 p = heft_v3_add(c, heft_quat_rotate(q, local));
        convex_proxy pa = points_proxy(&p, 1), pb;
        memset(&pb, 0, sizeof pb);
        pb.cylinder = 1;
        pb.center = c;
        pb.axis = heft_quat_rotate(q, heft_v3(0, 0, 1));
        pb.radius = r;
        pb.half_length = h;
        gjk_output out;
        gjk_distance(&pa, &pb, INFINITY, &out);
        double err = fabs(out.distance - exact);
        worst = fmax(worst, err);
        cr_assert_lt(err, 1e-9, "trial %d: gjk %.15f exact %.15f", trial, out.distance, exact);
    }
    cr_log_info("point-cylinder: largest |gjk - exact| %.2e m", worst);
}

Test(epa, depth_of_overlapping_boxes_is_the_smallest_axis_overlap) {
    for (int trial = 0; trial < 100; ++trial) {
        heft_vec3 ha = urand3(0.2);
        heft_vec3 hb = urand3(0.2);
        heft_vec3 d = srand3(0.5 * ha.x, 0.5 * ha.y, 0.5 * ha.z);
        convex_hull *ba = convex_hull_box(ha), *bb = convex_hull_box(hb);
        for (int i = 0; i < 8; ++i) {
            va[i] = ba->vertices[i];
            vb[i] = heft_v3_add(bb->vertices[i], d);
        }
        double overlap[3] = {ha.x + hb.x - fabs(d.x), ha.y + hb.y - fabs(d.y),
                             ha.z + hb.z - fabs(d.z)};
        double exact = fmin(overlap[0], fmin(overlap[1], overlap[2]));
        convex_proxy pa = points_proxy(va, 8), pb = points_proxy(vb, 8);
        gjk_output out;
        gjk_distance(&pa, &pb, INFINITY, &out);
        cr_assert(out.overlap);
        heft_vec3 n, wa, wb;
        double depth;
        cr_assert(epa_penetration(&pa, &pb, &out.simplex, &n, &depth, &wa, &wb));
        cr_assert_float_eq(depth, exact, 1e-9, "trial %d: epa %.15f exact %.15f", trial, depth,
                           exact);
        /* moving b by depth along n separates them: they then touch */
        for (int i = 0; i < 8; ++i) {
            vb[i] = heft_v3_madd(vb[i], depth + 1e-7, n);
        }
        gjk_distance(&pa, &pb, INFINITY, &out);
        cr_assert(!out.overlap && out.distance < 2e-7, "trial %d: %g apart after the push", trial,
                  out.distance);
        convex_hull_free(ba);
        convex_hull_free(bb);
    }
}

Test(epa, depth_of_a_point_inside_a_cylinder_is_the_nearest_surface) {
    for (int trial = 0; trial < 100; ++trial) {
        double r = 0.2 + urand();
        double h = 0.2 + urand();
        heft_vec3 p = srand3(0.6 * r, 0.6 * r, 0.9 * h);
        double exact = fmin(r - hypot(p.x, p.y), h - fabs(p.z));
        convex_proxy pa = points_proxy(&p, 1), pb;
        memset(&pb, 0, sizeof pb);
        pb.cylinder = 1;
        pb.axis = heft_v3(0, 0, 1);
        pb.radius = r;
        pb.half_length = h;
        gjk_output out;
        gjk_distance(&pa, &pb, INFINITY, &out);
        cr_assert(out.overlap);
        heft_vec3 n, wa, wb;
        double depth;
        cr_assert(epa_penetration(&pa, &pb, &out.simplex, &n, &depth, &wa, &wb));
        cr_assert_float_eq(depth, exact, 1e-6, "trial %d: epa %.12f exact %.12f", trial, depth,
                           exact);
    }
}

/* ---- hulls ------------------------------------------------------------------- */

Test(hull, cube_with_points_inside_on_faces_and_edges_has_8_vertices_and_6_faces) {
    heft_vec3 pts[200];
    int n = 0;
    for (int i = 0; i < 27; ++i) { /* the 3x3x3 grid: corners, edge and face middles, centre */
        pts[n++] = heft_v3(0.5 * (i % 3 - 1), 0.5 * (i / 3 % 3 - 1), 0.5 * (i / 9 - 1));
    }
    for (int i = 0; i < 100; ++i) {
        pts[n++] = srand3(0.49, 0.49, 0.49);
    }
    convex_hull *h = convex_hull_build(pts, n);
    if (!h) {
        for (int i = 0; i < n; ++i) {
            cr_log_error("point %d: %.17g %.17g %.17g", i, pts[i].x, pts[i].y, pts[i].z);
        }
    }
    cr_assert(h, "%s", heft_last_error());
    cr_assert_eq(h->vertex_count, 8);
    cr_assert_eq(h->face_count, 6);
    cr_assert_eq(h->edge_count, 24);
    cr_assert_float_eq(h->volume, 1.0, 1e-12);
    cr_assert_lt(heft_v3_length(h->center), 1e-12);
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            cr_assert_float_eq(h->inertia.m[i][j], i == j ? 1.0 / 6.0 : 0.0, 1e-12);
        }
    }
    convex_hull_free(h);
}

Test(hull, random_points_on_a_sphere_make_a_closed_hull_containing_them_all) {
    heft_vec3 pts[300];
    for (int i = 0; i < 300; ++i) {
        pts[i] = heft_v3_add(heft_v3(5, -3, 2), heft_v3_scale(rand_unit(), 2.0));
    }
    convex_hull *h = convex_hull_build(pts, 200);
    cr_assert(h, "%s", heft_last_error());
    /* Euler: V - E + F = 2 (E counts edges, half the half-edges) */
    cr_assert_eq(h->vertex_count - h->edge_count / 2 + h->face_count, 2);
    for (int i = 0; i < 200; ++i) {
        for (int f = 0; f < h->face_count; ++f) {
            cr_assert_leq(heft_v3_dot(h->planes[f].normal, pts[i]) - h->planes[f].offset, 1e-9);
        }
    }
    for (int e = 0; e < h->edge_count; ++e) {
        cr_assert_eq(h->edges[h->edges[e].twin].twin, e);
        cr_assert_eq(h->edges[h->edges[e].twin].origin, h->edges[h->edges[e].next].origin);
    }
    /* the volume approaches the sphere's from below */
    double sphere = 4.0 / 3.0 * HEFT_PI * 8.0;
    cr_assert(h->volume < sphere && h->volume > 0.85 * sphere, "volume %g of %g", h->volume,
              sphere);
    convex_hull_free(h);
}

Test(hull, degenerate_point_sets_are_refused_with_an_error) {
    heft_vec3 line[10], flat[10], same[5], nan_pts[8];
    for (int i = 0; i < 10; ++i) {
        line[i] = heft_v3(0.1 * i, 0.2 * i, -0.05 * i);
        flat[i] = heft_v3(cos(i), sin(i), 0.0);
    }
    for (int i = 0; i < 5; ++i) {
        same[i] = heft_v3(1, 2, 3);
    }
    for (int i = 0; i < 8; ++i) {
        nan_pts[i] = heft_v3((i & 1) ? 1 : -1, (i & 2) ? 1 : -1, (i & 4) ? 1 : -1);
    }
    nan_pts[5].y = NAN;
    struct {
        const heft_vec3 *p;
        int n;
        const char *words;
    } cases[] = {{line, 3, "at least 4"},
                 {line, 10, "collinear"},
                 {flat, 10, "coplanar"},
                 {same, 5, "coincide"},
                 {nan_pts, 8, "not finite"}};
    for (int k = 0; k < 5; ++k) {
        heft_set_error("%s", "");
        cr_assert_null(convex_hull_build(cases[k].p, cases[k].n), "case %d built a hull", k);
        cr_assert(strstr(heft_last_error(), cases[k].words), "case %d: \"%s\"", k,
                  heft_last_error());
    }
}

/* A box of the size built last is a copy of that hull: every array and
 * mass property equals, bit for bit, quickhull's of the box's corners. */
static void assert_same_hull(const convex_hull *a, const convex_hull *b) {
    cr_assert_eq(a->vertex_count, b->vertex_count);
    cr_assert_eq(a->edge_count, b->edge_count);
    cr_assert_eq(a->face_count, b->face_count);
    cr_assert_eq(memcmp(a->vertices, b->vertices, sizeof(heft_vec3) * (size_t)a->vertex_count), 0);
    cr_assert_eq(memcmp(a->edges, b->edges, sizeof(hull_half_edge) * (size_t)a->edge_count), 0);
    cr_assert_eq(memcmp(a->planes, b->planes, sizeof(hull_plane) * (size_t)a->face_count), 0);
    cr_assert_eq(memcmp(a->face_edge, b->face_edge, sizeof(uint16_t) * (size_t)a->face_count), 0);
    cr_assert(memcmp(&a->centroid, &b->centroid, sizeof a->centroid) == 0 &&
              memcmp(&a->volume, &b->volume, sizeof a->volume) == 0 &&
              memcmp(&a->center, &b->center, sizeof a->center) == 0 &&
              memcmp(&a->inertia, &b->inertia, sizeof a->inertia) == 0);
}

Test(hull, a_box_of_the_last_size_is_the_same_hull_copied) {
    for (int trial = 0; trial < 20; ++trial) {
        heft_vec3 he = urand3(0.05);
        heft_vec3 c[8];
        for (int k = 0; k < 8; ++k) {
            c[k] = heft_v3((k & 1) ? he.x : -he.x, (k & 2) ? he.y : -he.y, (k & 4) ? he.z : -he.z);
        }
        convex_hull *built = convex_hull_build(c, 8);
        convex_hull *first = convex_hull_box(he), *second = convex_hull_box(he);
        cr_assert(built && first && second);
        cr_assert_neq(first, second);
        assert_same_hull(built, first);
        assert_same_hull(built, second);
        /* the copy's arrays are its own */
        cr_assert(second->vertices != first->vertices && second->edges != first->edges);
        convex_hull_free(first);
        convex_hull *third = convex_hull_box(he);
        assert_same_hull(built, third);
        convex_hull_free(built);
        convex_hull_free(second);
        convex_hull_free(third);
    }
}
