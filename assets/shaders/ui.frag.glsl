#version 330 core
// The overlay's flat colours.
in vec4 v_colour;
out vec4 frag;
void main() { frag = v_colour; }
