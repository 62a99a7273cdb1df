#include "shadow_map.h"

#include <glad/gl.h>
#include <string.h>

int shadow_map_init(shadow_map *s, int size) {
    memset(s, 0, sizeof *s);
    s->size = size;
    vec3 dir = {-0.45f, -0.65f, 1.0f}; /* from behind the default camera, a little to its left */
    glm_vec3_normalize_to(dir, s->light_dir);
    glm_mat4_identity(s->light_view_proj);
    glGenTextures(1, &s->texture);
    glBindTexture(GL_TEXTURE_2D, s->texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_DEPTH_COMPONENT24, size, size, 0, GL_DEPTH_COMPONENT,
                 GL_FLOAT, NULL);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    glGenFramebuffers(1, &s->fbo);
    glBindFramebuffer(GL_FRAMEBUFFER, s->fbo);
    glFramebufferTexture2D(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_TEXTURE_2D, s->texture, 0);
    glDrawBuffer(GL_NONE);
    glReadBuffer(GL_NONE);
    int complete = glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    return complete ? 0 : -1;
}

void shadow_map_free(shadow_map *s) {
    if (s->fbo) {
        glDeleteFramebuffers(1, &s->fbo);
        glDeleteTextures(1, &s->texture);
    }
    memset(s, 0, sizeof *s);
}

void shadow_map_begin(shadow_map *s, const vec3 centre, float radius) {
    vec3 eye, up = {0.0f, 0.0f, 1.0f};
    glm_vec3_copy((float *)centre, eye);
    glm_vec3_muladds(s->light_dir, 2.0f * radius, eye);
    mat4 view, proj;
    glm_lookat(eye, (float *)centre, up, view);
    glm_ortho(-radius, radius, -radius, radius, 0.01f, 4.0f * radius, proj);
    glm_mat4_mul(proj, view, s->light_view_proj);
    glBindFramebuffer(GL_FRAMEBUFFER, s->fbo);
    glViewport(0, 0, s->size, s->size);
    glClear(GL_DEPTH_BUFFER_BIT);
    glEnable(GL_POLYGON_OFFSET_FILL);
    glPolygonOffset(1.5f, 2.0f);
}

void shadow_map_end(shadow_map *s) {
    (void)s;
    glDisable(GL_POLYGON_OFFSET_FILL);
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
}
