#include "island.h"

static int find_root(int *parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]]; /* path halving */
        i = parent[i];
    }
    return i;
}

/* the smaller index becomes the root, so a root is its island's lowest body */
static void unite(int *parent, int i, int j) {
    int ri = find_root(parent, i), rj = find_root(parent, j);
    if (ri < rj) {
        parent[rj] = ri;
    } else if (rj < ri) {
        parent[ri] = rj;
    }
}

static int row_body(const body *bodies, int32_t index) {
    return (index >= 0 && body_is_dynamic(&bodies[index])) ? index : -1;
}

int islands_build(arena *a, body *bodies, int n, const row *rows, int nrows, island_set *out) {
    int *parent = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
    int *island_of_root = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
    if (!parent || !island_of_root) {
        return 0;
    }
    for (int i = 0; i < n; ++i) {
        parent[i] = i;
    }
    for (int r = 0; r < nrows; ++r) {
        int ba = row_body(bodies, rows[r].a), bb = row_body(bodies, rows[r].b);
        if (ba >= 0 && bb >= 0) {
            unite(parent, ba, bb);
        }
    }
    int count = 0;
    for (int i = 0; i < n; ++i) {
        bodies[i].island = -1;
        if (bodies[i].slot.alive && body_is_dynamic(&bodies[i]) && find_root(parent, i) == i) {
            island_of_root[i] = count++;
        }
    }
    out->count = count;
    out->body_start = arena_calloc(a, (size_t)count + 1, sizeof(int));
    out->row_start = arena_calloc(a, (size_t)count + 1, sizeof(int));
    out->bodies = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
    out->rows = arena_alloc(a, sizeof(int) * (size_t)(nrows + 1));
    int *fill = arena_calloc(a, (size_t)count + 1, sizeof(int));
    if (!out->body_start || !out->row_start || !out->bodies || !out->rows || !fill) {
        return 0;
    }
    /* counting sort of bodies and rows by island keeps each list ascending */
    for (int i = 0; i < n; ++i) {
        if (bodies[i].slot.alive && body_is_dynamic(&bodies[i])) {
            bodies[i].island = island_of_root[find_root(parent, i)];
            out->body_start[bodies[i].island + 1]++;
        }
    }
    for (int r = 0; r < nrows; ++r) {
        int ba = row_body(bodies, rows[r].a), bb = row_body(bodies, rows[r].b);
        int k = bodies[ba >= 0 ? ba : bb].island;
        out->row_start[k + 1]++;
    }
    for (int k = 0; k < count; ++k) {
        out->body_start[k + 1] += out->body_start[k];
        out->row_start[k + 1] += out->row_start[k];
    }
    for (int i = 0; i < n; ++i) {
        if (bodies[i].island >= 0) {
            int k = bodies[i].island;
            bodies[i].island_local = fill[k];
            out->bodies[out->body_start[k] + fill[k]++] = i;
        }
    }
    for (int k = 0; k < count; ++k) {
        fill[k] = 0;
    }
    for (int r = 0; r < nrows; ++r) {
        int ba = row_body(bodies, rows[r].a), bb = row_body(bodies, rows[r].b);
        int k = bodies[ba >= 0 ? ba : bb].island;
        out->rows[out->row_start[k] + fill[k]++] = r;
    }
    return 1;
}
