#include "shape_mesh.h"

#include <glad/gl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int mesh_alloc(mesh_data *m, int vertices, int indices) {
    m->vertices = calloc((size_t)vertices * 6, sizeof(float));
    m->indices = calloc((size_t)indices, sizeof(uint32_t));
    m->vertex_count = 0;
    m->index_count = 0;
    if (!m->vertices || !m->indices) {
        shape_mesh_free(m);
        return -1;
    }
    return 0;
}

void shape_mesh_free(mesh_data *m) {
    free(m->vertices);
    free(m->indices);
    memset(m, 0, sizeof *m);
}

static uint32_t put_vertex(mesh_data *m, double px, double py, double pz, double nx, double ny,
                           double nz) {
    float *v = m->vertices + (size_t)m->vertex_count * 6;
    v[0] = (float)px;
    v[1] = (float)py;
    v[2] = (float)pz;
    v[3] = (float)nx;
    v[4] = (float)ny;
    v[5] = (float)nz;
    return (uint32_t)m->vertex_count++;
}

static void put_triangle(mesh_data *m, uint32_t a, uint32_t b, uint32_t c) {
    m->indices[m->index_count++] = a;
    m->indices[m->index_count++] = b;
    m->indices[m->index_count++] = c;
}

/* A surface of revolution about z from a profile of (r, z, nr, nz) rings. */
static void revolve(mesh_data *m, const double (*profile)[4], int rings, int slices) {
    uint32_t first = (uint32_t)m->vertex_count;
    for (int i = 0; i < rings; ++i) {
        for (int j = 0; j <= slices; ++j) {
            double phi = 2.0 * HEFT_PI * j / slices;
            double c = cos(phi), s = sin(phi);
            put_vertex(m, profile[i][0] * c, profile[i][0] * s, profile[i][1], profile[i][2] * c,
                       profile[i][2] * s, profile[i][3]);
        }
    }
    for (int i = 0; i + 1 < rings; ++i) {
        for (int j = 0; j < slices; ++j) {
            uint32_t a = first + (uint32_t)(i * (slices + 1) + j);
            uint32_t b = a + (uint32_t)(slices + 1);
            put_triangle(m, a, a + 1, b + 1);
            put_triangle(m, a, b + 1, b);
        }
    }
}

int mesh_sphere(mesh_data *m, int slices, int stacks) {
    double(*profile)[4] = calloc((size_t)stacks + 1, sizeof *profile);
    if (!profile || mesh_alloc(m, (stacks + 1) * (slices + 1), stacks * slices * 6) != 0) {
        free(profile);
        return -1;
    }
    for (int i = 0; i <= stacks; ++i) {
        double theta = -0.5 * HEFT_PI + HEFT_PI * i / stacks; /* from the south pole up */
        profile[i][0] = cos(theta);
        profile[i][1] = sin(theta);
        profile[i][2] = cos(theta);
        profile[i][3] = sin(theta);
    }
    revolve(m, (const double(*)[4])profile, stacks + 1, slices);
    free(profile);
    return 0;
}

int mesh_capsule(mesh_data *m, double radius, double half_length, int slices, int stacks) {
    int half = stacks / 2 > 1 ? stacks / 2 : 2;
    int rings = 2 * (half + 1);
    double(*profile)[4] = calloc((size_t)rings, sizeof *profile);
    if (!profile || mesh_alloc(m, rings * (slices + 1), (rings - 1) * slices * 6) != 0) {
        free(profile);
        return -1;
    }
    int k = 0;
    for (int cap = 0; cap < 2; ++cap) {
        double zc = cap ? half_length : -half_length;
        for (int i = 0; i <= half; ++i) {
            double theta =
                cap ? 0.5 * HEFT_PI * i / half : -0.5 * HEFT_PI + 0.5 * HEFT_PI * i / half;
            profile[k][0] = radius * cos(theta);
            profile[k][1] = zc + radius * sin(theta);
            profile[k][2] = cos(theta);
            profile[k][3] = sin(theta);
            ++k;
        }
    }
    revolve(m, (const double(*)[4])profile, rings, slices);
    free(profile);
    return 0;
}

int mesh_cylinder(mesh_data *m, int slices) {
    if (mesh_alloc(m, 2 * (slices + 1) + 2 * (slices + 2), slices * 12) != 0) {
        return -1;
    }
    const double side[2][4] = {{1.0, -1.0, 1.0, 0.0}, {1.0, 1.0, 1.0, 0.0}};
    revolve(m, side, 2, slices);
    for (int cap = 0; cap < 2; ++cap) {
        double z = cap ? 1.0 : -1.0;
        uint32_t centre = put_vertex(m, 0.0, 0.0, z, 0.0, 0.0, z);
        for (int j = 0; j <= slices; ++j) {
            double phi = 2.0 * HEFT_PI * j / slices;
            put_vertex(m, cos(phi), sin(phi), z, 0.0, 0.0, z);
        }
        for (int j = 0; j < slices; ++j) {
            uint32_t a = centre + 1 + (uint32_t)j;
            if (cap) {
                put_triangle(m, centre, a, a + 1);
            } else {
                put_triangle(m, centre, a + 1, a);
            }
        }
    }
    return 0;
}

int mesh_box(mesh_data *m) {
    if (mesh_alloc(m, 24, 36) != 0) {
        return -1;
    }
    for (int axis = 0; axis < 3; ++axis) {
        for (int sign = -1; sign <= 1; sign += 2) {
            double n[3] = {0.0, 0.0, 0.0}, u[3] = {0.0, 0.0, 0.0}, w[3] = {0.0, 0.0, 0.0};
            n[axis] = sign;
            u[(axis + 1) % 3] = 1.0;
            w[(axis + 2) % 3] = sign; /* u x w points along n */
            uint32_t first = (uint32_t)m->vertex_count;
            static const double corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
            for (int c = 0; c < 4; ++c) {
                put_vertex(m, n[0] + corner[c][0] * u[0] + corner[c][1] * w[0],
                           n[1] + corner[c][0] * u[1] + corner[c][1] * w[1],
                           n[2] + corner[c][0] * u[2] + corner[c][1] * w[2], n[0], n[1], n[2]);
            }
            put_triangle(m, first, first + 1, first + 2);
            put_triangle(m, first, first + 2, first + 3);
        }
    }
    return 0;
}

int mesh_triangles(mesh_data *m, const heft_vec3 *p, int triangle_count) {
    if (mesh_alloc(m, 3 * triangle_count + 1, 3 * triangle_count + 1) != 0) {
        return -1;
    }
    for (int t = 0; t < triangle_count; ++t) {
        heft_vec3 a = p[3 * t], b = p[3 * t + 1], c = p[3 * t + 2];
        heft_vec3 n = heft_v3_normalize(heft_v3_cross(heft_v3_sub(b, a), heft_v3_sub(c, a)));
        uint32_t ia = put_vertex(m, a.x, a.y, a.z, n.x, n.y, n.z);
        uint32_t ib = put_vertex(m, b.x, b.y, b.z, n.x, n.y, n.z);
        uint32_t ic = put_vertex(m, c.x, c.y, c.z, n.x, n.y, n.z);
        put_triangle(m, ia, ib, ic);
    }
    return 0;
}

int mesh_quad(mesh_data *m, float s) {
    if (mesh_alloc(m, 4, 6) != 0) {
        return -1;
    }
    put_vertex(m, -s, -s, 0.0, 0.0, 0.0, 1.0);
    put_vertex(m, s, -s, 0.0, 0.0, 0.0, 1.0);
    put_vertex(m, s, s, 0.0, 0.0, 0.0, 1.0);
    put_vertex(m, -s, s, 0.0, 0.0, 0.0, 1.0);
    put_triangle(m, 0, 1, 2);
    put_triangle(m, 0, 2, 3);
    return 0;
}

int gpu_mesh_create(gpu_mesh *g, const mesh_data *m) {
    memset(g, 0, sizeof *g);
    glGenVertexArrays(1, &g->vao);
    glGenBuffers(1, &g->vbo);
    glGenBuffers(1, &g->ebo);
    glGenBuffers(1, &g->instance_vbo);
    glBindVertexArray(g->vao);
    glBindBuffer(GL_ARRAY_BUFFER, g->vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)m->vertex_count * 6 * sizeof(float)),
                 m->vertices, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)0);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, 6 * sizeof(float), (void *)(3 * sizeof(float)));
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, g->ebo);
    glBufferData(GL_ELEMENT_ARRAY_BUFFER, (GLsizeiptr)((size_t)m->index_count * sizeof(uint32_t)),
                 m->indices, GL_STATIC_DRAW);
    glBindBuffer(GL_ARRAY_BUFFER, g->instance_vbo);
    for (int c = 0; c < 5; ++c) {
        glEnableVertexAttribArray(2 + (unsigned)c);
        glVertexAttribPointer(2 + (unsigned)c, 4, GL_FLOAT, GL_FALSE, sizeof(mesh_instance),
                              (void *)(size_t)(c * 4 * sizeof(float)));
        glVertexAttribDivisor(2 + (unsigned)c, 1);
    }
    glBindVertexArray(0);
    g->index_count = m->index_count;
    return 0;
}

void gpu_mesh_free(gpu_mesh *g) {
    if (g->vao) {
        glDeleteVertexArrays(1, &g->vao);
        glDeleteBuffers(1, &g->vbo);
        glDeleteBuffers(1, &g->ebo);
        glDeleteBuffers(1, &g->instance_vbo);
    }
    free(g->instances);
    memset(g, 0, sizeof *g);
}

void gpu_mesh_add_instance(gpu_mesh *g, const float model[16], const float colour[4]) {
    if (g->instance_count == g->instance_capacity) {
        int cap = g->instance_capacity ? 2 * g->instance_capacity : 16;
        mesh_instance *grown = realloc(g->instances, (size_t)cap * sizeof *grown);
        if (!grown) {
            return;
        }
        g->instances = grown;
        g->instance_capacity = cap;
    }
    mesh_instance *in = &g->instances[g->instance_count++];
    memcpy(in->model, model, sizeof in->model);
    memcpy(in->colour, colour, sizeof in->colour);
}

void gpu_mesh_draw(gpu_mesh *g) {
    if (g->instance_count == 0) {
        return;
    }
    glBindVertexArray(g->vao);
    glBindBuffer(GL_ARRAY_BUFFER, g->instance_vbo);
    glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)((size_t)g->instance_count * sizeof(mesh_instance)),
                 g->instances, GL_STREAM_DRAW);
    glDrawElementsInstanced(GL_TRIANGLES, g->index_count, GL_UNSIGNED_INT, 0, g->instance_count);
    glBindVertexArray(0);
}

void gpu_mesh_clear(gpu_mesh *g) {
    g->instance_count = 0;
}
