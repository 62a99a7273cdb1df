/* Contacts: the set kept across steps (for warm starts) and the rows each
 * contact point writes (design "The MLCP of an island": a normal row and two
 * friction rows coupled to it through the friction index). */
#include <string.h>

#include "shape.h"
#include "slots.h"

static int grow(contact **array, int *capacity, int need) {
    if (need <= *capacity) {
        return 1;
    }
    int cap = *capacity ? *capacity : 16;
    while (cap < need) {
        cap *= 2;
    }
    contact *p = heft_realloc(*array, (size_t)cap * sizeof(contact));
    if (!p) {
        return 0;
    }
    *array = p;
    *capacity = cap;
    return 1;
}

int contact_set_update(contact_set *set, const shape *shapes, int shape_count, const body *bodies,
                       double margin) {
    contact *swap = set->previous;
    set->previous = set->items;
    set->items = swap;
    int previous_count = set->count;
    for (;;) {
        int n = ground_contacts_find(shapes, shape_count, bodies, margin, set->previous,
                                     previous_count, set->items, set->capacity);
        if (n <= set->capacity) {
            set->count = n;
            return 1;
        }
        /* the two arrays share one capacity */
        int cap = set->capacity, cap2 = set->capacity;
        if (!grow(&set->items, &cap, n) || !grow(&set->previous, &cap2, n)) {
            set->count = 0;
            return 0;
        }
        set->capacity = cap < cap2 ? cap : cap2;
    }
}

void contact_set_release(contact_set *set) {
    heft_free(set->items);
    heft_free(set->previous);
    memset(set, 0, sizeof *set);
}

void contact_fill_rows(contact *c, const body *bodies, const contact_params *cp, int block,
                       int first, row *out) {
    const body *ba = &bodies[c->body_a], *bb = &bodies[c->body_b];
    heft_vec3 ra = heft_v3_sub(c->point, ba->position), rb = heft_v3_sub(c->point, bb->position);
    heft_vec3 t1, t2;
    heft_v3_basis(c->normal, &t1, &t2);
    heft_vec3 dirs[3] = {c->normal, t1, t2};
    for (int k = 0; k < 3; ++k) {
        row *r = &out[k];
        memset(r, 0, sizeof *r);
        r->a = c->body_a;
        r->b = c->body_b;
        row_set_linear(r, dirs[k], ra, rb);
        r->epsilon = cp->compliance;
        r->block = block;
        r->lambda0 = c->lambda[k];
        r->lambda_out = &c->lambda[k];
        if (k == 0) {
            r->kind = HEFT_ROW_NORMAL;
            r->lo = 0.0;
            r->hi = INFINITY;
            r->findex = -1;
            if (c->separation > 0.0) {
                /* speculative: may close the gap within this step, no further */
                r->phi = c->separation;
                r->gamma = 1.0;
            } else {
                double phi = c->separation + cp->slop;
                r->phi = phi < 0.0 ? phi : 0.0;
                r->gamma = cp->baumgarte;
            }
            if (c->restitution > 0.0) {
                double vn = heft_v3_dot(c->normal, heft_v3_sub(body_point_velocity(bb, c->point),
                                                               body_point_velocity(ba, c->point)));
                double bounce = -c->restitution * vn;
                if (vn < -1.0 && bounce > -r->gamma * r->phi / cp->h) {
                    r->target = bounce;
                    r->gamma = 0.0;
                }
            }
        } else {
            r->kind = HEFT_ROW_FRICTION;
            r->lo = -c->friction;
            r->hi = c->friction;
            r->findex = first;
        }
    }
}
