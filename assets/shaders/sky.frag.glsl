#version 330 core
// Horizon to zenith above, horizon to ground below.
in vec3 v_ray;
out vec4 frag;
void main() {
    float e = normalize(v_ray).z;
    vec3 horizon = vec3(0.70, 0.78, 0.86);
    vec3 zenith = vec3(0.25, 0.45, 0.75);
    vec3 below = vec3(0.40, 0.42, 0.45);
    vec3 c = e >= 0.0 ? mix(horizon, zenith, pow(e, 0.6)) : mix(horizon, below, min(-e * 4.0, 1.0));
    frag = vec4(c, 1.0);
}
