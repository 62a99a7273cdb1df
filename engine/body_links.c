#include "body_links.h"

void body_links_init(body *b) {
    b->joint_edges = BODY_LINK_NONE;
    b->shapes = BODY_LINK_NONE;
}

static int32_t *edge_next(heft_world *w, int32_t e) {
    return &w->joints[e >> 1].edge_next[e & 1];
}

static int32_t *edge_prev(heft_world *w, int32_t e) {
    return &w->joints[e >> 1].edge_prev[e & 1];
}

/* A joint whose two ends are one body (a gear between two hinges on the same
 * body) is listed once, by its end a. */
static int end_linked(const joint *j, int k) {
    int32_t end = k == 0 ? j->body_a : j->body_b;
    return end >= 0 && !(k == 1 && j->body_b == j->body_a);
}

void body_link_joint(heft_world *w, int32_t ji) {
    joint *j = &w->joints[ji];
    for (int k = 0; k < 2; ++k) {
        j->edge_next[k] = j->edge_prev[k] = BODY_LINK_NONE;
        if (!end_linked(j, k)) {
            continue;
        }
        body *b = &w->bodies[k == 0 ? j->body_a : j->body_b];
        int32_t e = 2 * ji + k;
        int32_t prev = BODY_LINK_NONE, next = b->joint_edges;
        while (next >= 0 && (next >> 1) < ji) {
            prev = next;
            next = *edge_next(w, next);
        }
        j->edge_prev[k] = prev;
        j->edge_next[k] = next;
        if (prev >= 0) {
            *edge_next(w, prev) = e;
        } else {
            b->joint_edges = e;
        }
        if (next >= 0) {
            *edge_prev(w, next) = e;
        }
    }
}

void body_unlink_joint(heft_world *w, int32_t ji) {
    joint *j = &w->joints[ji];
    for (int k = 0; k < 2; ++k) {
        if (!end_linked(j, k)) {
            continue;
        }
        body *b = &w->bodies[k == 0 ? j->body_a : j->body_b];
        int32_t prev = j->edge_prev[k], next = j->edge_next[k];
        if (prev >= 0) {
            *edge_next(w, prev) = next;
        } else {
            b->joint_edges = next;
        }
        if (next >= 0) {
            *edge_prev(w, next) = prev;
        }
        j->edge_next[k] = j->edge_prev[k] = BODY_LINK_NONE;
    }
}

void body_link_shape(heft_world *w, int32_t si) {
    shape *s = &w->shapes[si];
    body *b = &w->bodies[s->body];
    int32_t prev = BODY_LINK_NONE, next = b->shapes;
    while (next >= 0 && next < si) {
        prev = next;
        next = w->shapes[next].body_next;
    }
    s->body_prev = prev;
    s->body_next = next;
    if (prev >= 0) {
        w->shapes[prev].body_next = si;
    } else {
        b->shapes = si;
    }
    if (next >= 0) {
        w->shapes[next].body_prev = si;
    }
}

void body_unlink_shape(heft_world *w, int32_t si) {
    shape *s = &w->shapes[si];
    body *b = &w->bodies[s->body];
    if (s->body_prev >= 0) {
        w->shapes[s->body_prev].body_next = s->body_next;
    } else {
        b->shapes = s->body_next;
    }
    if (s->body_next >= 0) {
        w->shapes[s->body_next].body_prev = s->body_prev;
    }
    s->body_next = s->body_prev = BODY_LINK_NONE;
}
