#version 330 core
// Coloured debug lines.
in vec4 v_colour;
out vec4 frag;
void main() { frag = v_colour; }
