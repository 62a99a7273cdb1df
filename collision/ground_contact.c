/* Contacts of spheres, capsules and boxes against static planes: the minimal
 * narrowphase of the foundation (one point per sphere, the two cap centres of
 * a capsule, the eight corners of a box). The collision issue generalises it. */
#include "shape.h"

static uint64_t contact_key(int32_t shape_a, int32_t shape_b, int feature) {
    return ((uint64_t)(uint32_t)shape_b << 40) | ((uint64_t)(uint32_t)shape_a << 8) |
           (uint64_t)feature;
}

static const contact *find_previous(const contact *prev, int count, uint64_t key) {
    int lo = 0, hi = count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (prev[mid].key == key) {
            return &prev[mid];
        }
        if (prev[mid].key < key) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return NULL;
}

typedef struct plane_world {
    heft_vec3 n;
    double d; /* n . x = d on the plane */
} plane_world;

/* Candidate points of a shape (world frame, before subtracting the radius):
 * returns their number (at most 8) and the radius to subtract. */
static int shape_points(const shape *s, const body *b, heft_vec3 *pts, double *radius) {
    heft_quat q = heft_quat_mul(b->orientation, s->local_orientation);
    heft_vec3 c = heft_v3_add(b->position, heft_quat_rotate(b->orientation, s->local_position));
    switch (s->type) {
    case HEFT_SHAPE_SPHERE:
        pts[0] = c;
        *radius = s->radius;
        return 1;
    case HEFT_SHAPE_CAPSULE: {
        heft_vec3 axis = heft_quat_rotate(q, heft_v3(0.0, 0.0, s->half_length));
        pts[0] = heft_v3_sub(c, axis);
        pts[1] = heft_v3_add(c, axis);
        *radius = s->radius;
        return 2;
    }
    case HEFT_SHAPE_BOX: {
        heft_vec3 he = s->half_extents;
        for (int k = 0; k < 8; ++k) {
            heft_vec3 corner = heft_v3((k & 1) ? he.x : -he.x, (k & 2) ? he.y : -he.y,
                                       (k & 4) ? he.z : -he.z);
            pts[k] = heft_v3_add(c, heft_quat_rotate(q, corner));
        }
        *radius = 0.0;
        return 8;
    }
    case HEFT_SHAPE_PLANE:
        break;
    }
    return 0;
}

int ground_contacts_find(const shape *shapes, int shape_count, const body *bodies, double margin,
                         const contact *prev, int prev_count, contact *out, int max) {
    int count = 0;
    for (int ib = 0; ib < shape_count; ++ib) {
        const shape *sb = &shapes[ib];
        if (!sb->slot.alive || sb->type == HEFT_SHAPE_PLANE || !body_is_dynamic(&bodies[sb->body])) {
            continue;
        }
        const body *bb = &bodies[sb->body];
        heft_vec3 pts[8];
        double radius = 0.0;
        int npts = shape_points(sb, bb, pts, &radius);
        for (int ia = 0; ia < shape_count; ++ia) {
            const shape *sa = &shapes[ia];
            if (!sa->slot.alive || sa->type != HEFT_SHAPE_PLANE) {
                continue;
            }
            const body *ba = &bodies[sa->body];
            plane_world pl;
            pl.n = heft_quat_rotate(ba->orientation, heft_quat_rotate(sa->local_orientation, sa->normal));
            heft_vec3 origin =
                heft_v3_add(ba->position, heft_quat_rotate(ba->orientation, sa->local_position));
            pl.d = sa->offset + heft_v3_dot(pl.n, origin);
            for (int k = 0; k < npts; ++k) {
                double sep = heft_v3_dot(pl.n, pts[k]) - pl.d - radius;
                if (sep >= margin) {
                    continue;
                }
                if (count < max) {
                    contact *c = &out[count];
                    c->key = contact_key(ia, ib, k);
                    c->shape_a = ia;
                    c->shape_b = ib;
                    c->body_a = sa->body;
                    c->body_b = sb->body;
                    c->normal = pl.n;
                    c->point = heft_v3_madd(pts[k], -radius, pl.n);
                    c->separation = sep;
                    /* mixing rules: geometric mean friction, larger restitution */
                    c->friction = sqrt(sa->friction * sb->friction);
                    c->restitution = sa->restitution > sb->restitution ? sa->restitution : sb->restitution;
                    const contact *old = find_previous(prev, prev_count, c->key);
                    for (int r = 0; r < 3; ++r) {
                        c->lambda[r] = old ? old->lambda[r] : 0.0;
                    }
                }
                count++;
            }
        }
    }
    return count;
}
