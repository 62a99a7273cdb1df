/* A static plane against every convex shape: the points of the shape's core
 * below the plane plus margin (sphere centre, capsule ends, polytope
 * vertices, the cylinder's cap rim, side line or lowest rim point), reduced
 * to 4. The plane is shape a, so normals point out of the plane. */
#include <stddef.h>

#include "convex.h"

int collide_plane(heft_vec3 n, double d, const convex_view *b, double margin, manifold *m) {
    contact_point pts[HULL_MAX_VERTICES];
    int count = 0;
    double r = b->radius;
    const heft_vec3 *v = NULL;
    int nv = 0;
    feature f;
    switch (b->kind) {
    case CONVEX_POINT:
        v = b->p;
        nv = 1;
        break;
    case CONVEX_SEGMENT:
        v = b->p;
        nv = 2;
        break;
    case CONVEX_POLYTOPE:
        v = b->v;
        nv = b->hull->vertex_count;
        break;
    case CONVEX_CYLINDER:
        convex_feature(b, heft_v3_neg(n), &f);
        v = f.v;
        nv = f.count;
        break;
    }
    for (int i = 0; i < nv; ++i) {
        double sep = heft_v3_dot(n, v[i]) - d - r;
        if (sep > margin) {
            continue;
        }
        contact_point *c = &pts[count++];
        c->point = heft_v3_madd(v[i], -r, n);
        c->normal = n;
        c->separation = sep;
        unsigned id = b->kind == CONVEX_CYLINDER ? f.vid[i] : (unsigned)i;
        c->feature = feature_id(FEATURE_KIND_VERTEX, 0, 0, id);
    }
    count = manifold_reduce(pts, count);
    for (int i = 0; i < count; ++i) {
        m->points[i] = pts[i];
    }
    m->count = count;
    manifold_sort(m->points, count);
    return count;
}
