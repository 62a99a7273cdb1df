#version 330 core
// Instanced bodies, lit and shadowed: per vertex the position and normal, per
// instance the model matrix (4 columns) and the colour (alpha < 0 marks the
// ground grid).
layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec4 a_model0;
layout(location = 3) in vec4 a_model1;
layout(location = 4) in vec4 a_model2;
layout(location = 5) in vec4 a_model3;
layout(location = 6) in vec4 a_colour;
uniform mat4 u_view_proj;
uniform mat4 u_light_view_proj;
out vec3 v_world;
out vec3 v_normal;
out vec3 v_local;
out vec4 v_colour;
out vec4 v_light;
void main() {
    mat4 model = mat4(a_model0, a_model1, a_model2, a_model3);
    vec4 world = model * vec4(a_position, 1.0);
    v_world = world.xyz;
    v_local = a_position;
    v_normal = normalize(transpose(inverse(mat3(model))) * a_normal);
    v_colour = a_colour;
    v_light = u_light_view_proj * world;
    gl_Position = u_view_proj * world;
}
