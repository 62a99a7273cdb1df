#version 330 core
// Instanced bodies into the shadow map (depth only).
layout(location = 0) in vec3 a_position;
layout(location = 2) in vec4 a_model0;
layout(location = 3) in vec4 a_model1;
layout(location = 4) in vec4 a_model2;
layout(location = 5) in vec4 a_model3;
uniform mat4 u_light_view_proj;
void main() {
    mat4 model = mat4(a_model0, a_model1, a_model2, a_model3);
    gl_Position = u_light_view_proj * model * vec4(a_position, 1.0);
}
