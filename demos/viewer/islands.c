#include "islands.h"

#include <stdlib.h>
#include <string.h>

static int find(int *parent, int i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

static void join(int *parent, int a, int b) {
    a = find(parent, a);
    b = find(parent, b);
    if (a != b) {
        parent[a < b ? b : a] = a < b ? a : b; /* the lower index is the root: stable labels */
    }
}

static int is_dynamic(heft_world *w, heft_body_id id, int n) {
    heft_body_state st;
    return id.index >= 0 && id.index < n && heft_body_get_state(w, id, &st) == HEFT_OK &&
           st.type == HEFT_BODY_DYNAMIC;
}

int island_map_update(island_map *m, heft_world *w) {
    int count = heft_world_bodies(w, NULL, 0);
    heft_body_id *ids = calloc((size_t)count + 1, sizeof *ids);
    if (!ids) {
        return -1;
    }
    heft_world_bodies(w, ids, count);
    int n = count > 0 ? ids[count - 1].index + 1 : 0;
    if (n > m->capacity) {
        int *grown = realloc(m->label, (size_t)n * sizeof *grown);
        if (!grown) {
            free(ids);
            return -1;
        }
        m->label = grown;
        m->capacity = n;
    }
    int *parent = calloc((size_t)n + 1, sizeof *parent);
    if (!parent) {
        free(ids);
        return -1;
    }
    for (int i = 0; i < n; ++i) {
        parent[i] = i;
        m->label[i] = -1;
    }
    int joints = heft_world_joints(w, NULL, 0);
    heft_joint_id *jids = calloc((size_t)joints + 1, sizeof *jids);
    if (jids) {
        heft_world_joints(w, jids, joints);
        for (int j = 0; j < joints; ++j) {
            heft_joint_frames f;
            if (heft_joint_get_frames(w, jids[j], &f) == HEFT_OK && is_dynamic(w, f.body_a, n) &&
                is_dynamic(w, f.body_b, n)) {
                join(parent, f.body_a.index, f.body_b.index);
            }
        }
        free(jids);
    }
    int contacts = heft_world_contact_count(w);
    for (int c = 0; c < contacts; ++c) {
        heft_contact_info info;
        if (heft_world_contact(w, c, &info) == HEFT_OK && is_dynamic(w, info.body_a, n) &&
            is_dynamic(w, info.body_b, n)) {
            join(parent, info.body_a.index, info.body_b.index);
        }
    }
    m->count = 0;
    for (int k = 0; k < count; ++k) {
        int i = ids[k].index;
        if (!is_dynamic(w, ids[k], n)) {
            continue;
        }
        int root = find(parent, i);
        if (m->label[root] < 0) {
            m->label[root] = m->count++;
        }
        m->label[i] = m->label[root];
    }
    free(parent);
    free(ids);
    return 0;
}

int island_map_label(const island_map *m, heft_body_id body) {
    return (body.index >= 0 && body.index < m->capacity) ? m->label[body.index] : -1;
}

void island_map_free(island_map *m) {
    free(m->label);
    memset(m, 0, sizeof *m);
}
