/* Height fields: validation, the copy, the triangles of a cell (with which
 * edges are real ridges), box queries and rays walking the grid. */
#include "height_field.h"

#include <string.h>

#include "error.h"
#include "mesh.h"

height_field *height_field_create(const heft_height_field_def *d) {
    if (!d->heights || d->count_x < 2 || d->count_y < 2) {
        heft_set_error("a height field needs heights and at least 2 x 2 grid points");
        return NULL;
    }
    if ((double)d->count_x * (double)d->count_y > (double)(1 << 23)) {
        heft_set_error("a height field takes at most 2^23 grid points");
        return NULL;
    }
    if (!isfinite(d->spacing_x) || !isfinite(d->spacing_y) || !(d->spacing_x > 0.0) ||
        !(d->spacing_y > 0.0)) {
        heft_set_error("height field spacings must be finite and positive");
        return NULL;
    }
    int n = d->count_x * d->count_y;
    for (int i = 0; i < n; ++i) {
        if (!isfinite(d->heights[i])) {
            heft_set_error("height field height %d (i %d, j %d) is not finite", i, i % d->count_x,
                           i / d->count_x);
            return NULL;
        }
    }
    size_t head = (sizeof(height_field) + 7) & ~(size_t)7;
    char *block = heft_alloc(head + sizeof(double) * (size_t)n);
    if (!block) {
        heft_set_error("out of memory");
        return NULL;
    }
    height_field *f = (height_field *)block;
    memset(f, 0, sizeof *f);
    f->count_x = d->count_x;
    f->count_y = d->count_y;
    f->spacing_x = d->spacing_x;
    f->spacing_y = d->spacing_y;
    f->heights = (double *)(block + head);
    memcpy(f->heights, d->heights, sizeof(double) * (size_t)n);
    f->min_height = f->max_height = f->heights[0];
    for (int i = 1; i < n; ++i) {
        f->min_height = fmin(f->min_height, f->heights[i]);
        f->max_height = fmax(f->max_height, f->heights[i]);
    }
    return f;
}

void height_field_free(height_field *f) {
    heft_free(f);
}

aabb height_field_bounds(const height_field *f) {
    return aabb_make(
        heft_v3(0.0, 0.0, f->min_height),
        heft_v3((f->count_x - 1) * f->spacing_x, (f->count_y - 1) * f->spacing_y, f->max_height));
}

int height_field_triangle_count(const height_field *f) {
    return 2 * (f->count_x - 1) * (f->count_y - 1);
}

static heft_vec3 grid_point(const height_field *f, int i, int j) {
    return heft_v3(i * f->spacing_x, j * f->spacing_y, f->heights[j * f->count_x + i]);
}

static int inside(const height_field *f, int i, int j) {
    return i >= 0 && j >= 0 && i < f->count_x && j < f->count_y;
}

/* Edge e of the triangle (from v[e] to v[e+1]) is real unless the
 * neighbouring triangle's far vertex (grid point (qi, qj)) lies on or above
 * this triangle's plane. */
static void mark_edge(const height_field *f, triangle *t, int e, int qi, int qj) {
    if (!inside(f, qi, qj)) {
        t->real_edges |= (uint8_t)(1u << e);
        return;
    }
    heft_vec3 p = t->v[e];
    double len = heft_v3_length(heft_v3_sub(t->v[(e + 1) % 3], p));
    if (heft_v3_dot(t->n, heft_v3_sub(grid_point(f, qi, qj), p)) < -1e-9 * len) {
        t->real_edges |= (uint8_t)(1u << e);
    }
}

void height_field_triangle(const height_field *f, int index, triangle *t) {
    int cell = index / 2, k = index % 2, cx = f->count_x - 1;
    int i = cell % cx, j = cell / cx;
    heft_vec3 p00 = grid_point(f, i, j), p10 = grid_point(f, i + 1, j),
              p11 = grid_point(f, i + 1, j + 1), p01 = grid_point(f, i, j + 1);
    t->index = index;
    t->real_edges = 0;
    if (k == 0) {
        t->v[0] = p00, t->v[1] = p10, t->v[2] = p11;
    } else {
        t->v[0] = p00, t->v[1] = p11, t->v[2] = p01;
    }
    t->n = heft_v3_normalize(
        heft_v3_cross(heft_v3_sub(t->v[1], t->v[0]), heft_v3_sub(t->v[2], t->v[0])));
    /* the far vertex of the neighbour across each edge */
    if (k == 0) {
        mark_edge(f, t, 0, i, j - 1);     /* p00 -> p10: cell (i, j-1), its triangle 1 */
        mark_edge(f, t, 1, i + 2, j + 1); /* p10 -> p11: cell (i+1, j), its triangle 1 */
        mark_edge(f, t, 2, i, j + 1);     /* diagonal: this cell's triangle 1 */
    } else {
        mark_edge(f, t, 0, i + 1, j);     /* diagonal: this cell's triangle 0 */
        mark_edge(f, t, 1, i + 1, j + 2); /* p11 -> p01: cell (i, j+1), its triangle 0 */
        mark_edge(f, t, 2, i - 1, j);     /* p01 -> p00: cell (i-1, j), its triangle 0 */
    }
}

static int clampi(int x, int lo, int hi) {
    return x < lo ? lo : (x > hi ? hi : x);
}

int height_field_query(const height_field *f, aabb box, int32_t *out, int max) {
    if (box.hi.z < f->min_height || box.lo.z > f->max_height) {
        return 0;
    }
    double fx0 = floor(box.lo.x / f->spacing_x), fx1 = floor(box.hi.x / f->spacing_x);
    double fy0 = floor(box.lo.y / f->spacing_y), fy1 = floor(box.hi.y / f->spacing_y);
    if (fx1 < 0.0 || fy1 < 0.0 || fx0 > f->count_x - 2 || fy0 > f->count_y - 2) {
        return 0;
    }
    int i0 = clampi((int)fmax(fx0, 0.0), 0, f->count_x - 2),
        i1 = clampi((int)fmin(fx1, f->count_x), 0, f->count_x - 2);
    int j0 = clampi((int)fmax(fy0, 0.0), 0, f->count_y - 2),
        j1 = clampi((int)fmin(fy1, f->count_y), 0, f->count_y - 2);
    int n = 0;
    for (int j = j0; j <= j1; ++j) {
        for (int i = i0; i <= i1; ++i) {
            double h00 = f->heights[j * f->count_x + i], h10 = f->heights[j * f->count_x + i + 1];
            double h01 = f->heights[(j + 1) * f->count_x + i],
                   h11 = f->heights[(j + 1) * f->count_x + i + 1];
            double lo0 = fmin(h00, fmin(h10, h11)), hi0 = fmax(h00, fmax(h10, h11));
            double lo1 = fmin(h00, fmin(h11, h01)), hi1 = fmax(h00, fmax(h11, h01));
            int base = 2 * (j * (f->count_x - 1) + i);
            if (box.lo.z <= hi0 && box.hi.z >= lo0) {
                if (n < max) {
                    out[n] = base;
                }
                n++;
            }
            if (box.lo.z <= hi1 && box.hi.z >= lo1) {
                if (n < max) {
                    out[n] = base + 1;
                }
                n++;
            }
        }
    }
    return n;
}

int height_field_ray_cast(const height_field *f, heft_vec3 o, heft_vec3 d, double max_t,
                          double *t_hit) {
    aabb b = height_field_bounds(f);
    heft_vec3 inv = heft_v3(1.0 / d.x, 1.0 / d.y, 1.0 / d.z);
    double t0 = aabb_ray(&b, o, inv, max_t);
    if (t0 < 0.0) {
        return -1;
    }
    /* walk the cells the ray's shadow crosses, in order (Amanatides & Woo) */
    heft_vec3 p = heft_v3_madd(o, t0, d);
    int i = clampi((int)floor(p.x / f->spacing_x), 0, f->count_x - 2);
    int j = clampi((int)floor(p.y / f->spacing_y), 0, f->count_y - 2);
    int si = d.x > 0.0 ? 1 : (d.x < 0.0 ? -1 : 0), sj = d.y > 0.0 ? 1 : (d.y < 0.0 ? -1 : 0);
    double next_x = si > 0 ? (i + 1) * f->spacing_x : i * f->spacing_x;
    double next_y = sj > 0 ? (j + 1) * f->spacing_y : j * f->spacing_y;
    double tx = si ? (next_x - o.x) / d.x : INFINITY, ty = sj ? (next_y - o.y) / d.y : INFINITY;
    double dtx = si ? f->spacing_x / fabs(d.x) : INFINITY,
           dty = sj ? f->spacing_y / fabs(d.y) : INFINITY;
    int guard = 2 * (f->count_x + f->count_y) + 4;
    while (guard-- > 0) {
        int best = -1;
        double best_t = max_t;
        for (int k = 0; k < 2; ++k) {
            triangle tri;
            int index = 2 * (j * (f->count_x - 1) + i) + k;
            height_field_triangle(f, index, &tri);
            double t = triangle_ray(&tri, o, d, best_t);
            if (t >= 0.0 && (best < 0 || t < best_t)) {
                best = index;
                best_t = t;
            }
        }
        if (best >= 0) {
            *t_hit = best_t;
            return best;
        }
        double t_next = tx < ty ? tx : ty;
        if (t_next > max_t) {
            break;
        }
        if (tx < ty) {
            i += si;
            tx += dtx;
        } else {
            j += sj;
            ty += dty;
        }
        if (i < 0 || j < 0 || i > f->count_x - 2 || j > f->count_y - 2) {
            break;
        }
    }
    return -1;
}
