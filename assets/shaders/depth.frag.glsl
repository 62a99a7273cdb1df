#version 330 core
// Depth only: nothing to write.
void main() {}
