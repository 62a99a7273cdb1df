#version 330 core
// Coloured debug lines (contacts, joints, bounding boxes) in world space.
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec4 a_colour;
uniform mat4 u_view_proj;
out vec4 v_colour;
void main() {
    v_colour = a_colour;
    gl_Position = u_view_proj * vec4(a_position, 1.0);
}
