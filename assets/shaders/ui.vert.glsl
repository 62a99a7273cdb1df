#version 330 core
// The overlay: positions in pixels, origin at the top left.
layout(location = 0) in vec2 a_position;
layout(location = 1) in vec4 a_colour;
uniform vec2 u_screen;
out vec4 v_colour;
void main() {
    v_colour = a_colour;
    gl_Position = vec4(2.0 * a_position.x / u_screen.x - 1.0,
                       1.0 - 2.0 * a_position.y / u_screen.y, 0.0, 1.0);
}
