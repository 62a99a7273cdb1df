#version 330 core
// A full-screen triangle behind everything; the fragment shader colours it
// from the view ray's elevation.
uniform mat4 u_inverse_view_proj;
out vec3 v_ray;
void main() {
    vec2 p = vec2((gl_VertexID == 1) ? 3.0 : -1.0, (gl_VertexID == 2) ? 3.0 : -1.0);
    vec4 far_point = u_inverse_view_proj * vec4(p, 1.0, 1.0);
    vec4 near_point = u_inverse_view_proj * vec4(p, -1.0, 1.0);
    v_ray = far_point.xyz / far_point.w - near_point.xyz / near_point.w;
    gl_Position = vec4(p, 0.9999, 1.0);
}
