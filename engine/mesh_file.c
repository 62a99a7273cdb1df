/* Vertex and index lists, the Wavefront OBJ reader and whole-file reads
 * (mesh_file.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "mesh_file.h"

void mesh_data_free(mesh_data *m) {
    heft_free(m->vertices);
    heft_free(m->indices);
    memset(m, 0, sizeof *m);
}

int mesh_data_push_vertex(mesh_data *m, heft_vec3 v) {
    if (m->vertex_count == m->vertex_capacity) {
        int cap = m->vertex_capacity ? 2 * m->vertex_capacity : 64;
        heft_vec3 *p = heft_realloc(m->vertices, sizeof *p * (size_t)cap);
        if (!p) {
            return 0;
        }
        m->vertices = p;
        m->vertex_capacity = cap;
    }
    m->vertices[m->vertex_count++] = v;
    return 1;
}

int mesh_data_push_index(mesh_data *m, int32_t i) {
    if (m->index_count == m->index_capacity) {
        int cap = m->index_capacity ? 2 * m->index_capacity : 192;
        int32_t *p = heft_realloc(m->indices, sizeof *p * (size_t)cap);
        if (!p) {
            return 0;
        }
        m->indices = p;
        m->index_capacity = cap;
    }
    m->indices[m->index_count++] = i;
    return 1;
}

int mesh_data_read_obj(const char *path, mesh_data *m, char *message, size_t size) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(message, size, "cannot open mesh file \"%s\"", path);
        return 0;
    }
    char line[1024];
    int number = 0, ok = 1;
    while (ok && fgets(line, sizeof line, f)) {
        number++;
        char *p = line;
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        if (p[0] == 'v' && (p[1] == ' ' || p[1] == '\t')) {
            double x, y, z;
            if (sscanf(p + 2, "%lf %lf %lf", &x, &y, &z) != 3 || !isfinite(x) || !isfinite(y) ||
                !isfinite(z)) {
                snprintf(message, size, "%s:%d: a vertex needs three finite numbers", path, number);
                ok = 0;
            } else if (!mesh_data_push_vertex(m, heft_v3(x, y, z))) {
                snprintf(message, size, "out of memory");
                ok = 0;
            }
        } else if (p[0] == 'f' && (p[1] == ' ' || p[1] == '\t')) {
            int32_t corner[3];
            int n = 0;
            p += 2;
            for (;;) {
                char *end;
                long k = strtol(p, &end, 10);
                if (end == p) {
                    break;
                }
                p = end;
                while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n') {
                    p++; /* /texture/normal */
                }
                long index = k > 0 ? k - 1 : m->vertex_count + k;
                if (k == 0 || index < 0 || index >= m->vertex_count) {
                    snprintf(message, size, "%s:%d: face index %ld out of range", path, number, k);
                    ok = 0;
                    break;
                }
                if (n < 3) {
                    corner[n] = (int32_t)index;
                } else {
                    corner[1] = corner[2];
                    corner[2] = (int32_t)index;
                }
                if (++n >= 3 &&
                    (!mesh_data_push_index(m, corner[0]) || !mesh_data_push_index(m, corner[1]) ||
                     !mesh_data_push_index(m, corner[2]))) {
                    snprintf(message, size, "out of memory");
                    ok = 0;
                    break;
                }
            }
            if (ok && n < 3) {
                snprintf(message, size, "%s:%d: a face needs at least three vertices", path,
                         number);
                ok = 0;
            }
        }
    }
    fclose(f);
    if (ok && m->index_count == 0) {
        snprintf(message, size, "%s: no faces", path);
        ok = 0;
    }
    return ok;
}

char *file_read_all(const char *path, unsigned max_bytes, size_t *length) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        heft_set_error("%s: cannot open the file", path);
        return NULL;
    }
    char *data = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            if (cap > max_bytes) {
                heft_set_error("%s: larger than %u bytes", path, max_bytes);
                heft_free(data);
                fclose(f);
                return NULL;
            }
            char *p = heft_realloc(data, cap);
            if (!p) {
                heft_set_error("out of memory");
                heft_free(data);
                fclose(f);
                return NULL;
            }
            data = p;
        }
        size_t got = fread(data + n, 1, 4096, f);
        n += got;
        if (got < 4096) {
            break;
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        heft_set_error("%s: read error", path);
        heft_free(data);
        return NULL;
    }
    data[n] = 0;
    *length = n;
    return data;
}
