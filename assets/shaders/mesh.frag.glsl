#version 330 core
// Bodies: diffuse and specular light, 3x3 PCF shadows; the ground as a
// checker with metre and 5 m lines fading into the horizon's colour.
in vec3 v_world;
in vec3 v_normal;
in vec3 v_local;
in vec4 v_colour;
in vec4 v_light;
uniform vec3 u_light_dir; // towards the light
uniform vec3 u_eye;
uniform sampler2D u_shadow;
uniform int u_shadows;
uniform int u_flat; // wireframe: no lighting
out vec4 frag;
float shadow_factor(vec3 n) {
    if (u_shadows == 0) return 1.0;
    vec3 p = v_light.xyz / v_light.w * 0.5 + 0.5;
    if (p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0 || p.z > 1.0) return 1.0;
    float bias = max(0.0025 * (1.0 - dot(n, u_light_dir)), 0.0008);
    vec2 texel = 1.0 / vec2(textureSize(u_shadow, 0));
    float lit = 0.0;
    for (int x = -1; x <= 1; ++x)
        for (int y = -1; y <= 1; ++y)
            lit += (p.z - bias > texture(u_shadow, p.xy + vec2(x, y) * texel).r) ? 0.0 : 1.0;
    return lit / 9.0;
}
void main() {
    vec3 n = normalize(v_normal);
    if (!gl_FrontFacing) n = -n;
    vec3 base = v_colour.rgb;
    if (v_colour.a < 0.0) { // ground: checker and grid lines in metres
        vec2 g = v_local.xy;
        vec2 cell = floor(g);
        float checker = mod(cell.x + cell.y, 2.0);
        base *= 0.88 + 0.12 * checker;
        vec2 d = abs(fract(g - 0.5) - 0.5) / fwidth(g);
        float line = 1.0 - min(min(d.x, d.y), 1.0);
        vec2 d5 = abs(fract(g / 5.0 - 0.5) - 0.5) / fwidth(g / 5.0);
        float line5 = 1.0 - min(min(d5.x, d5.y), 1.0);
        base = mix(base, base * 0.6, max(line * 0.7, line5));
        float fade = clamp(length(v_world.xy - u_eye.xy) / 150.0, 0.0, 1.0);
        base = mix(base, vec3(0.70, 0.78, 0.86), fade * fade);
    }
    if (u_flat != 0) { frag = vec4(base, 1.0); return; }
    float diffuse = max(dot(n, u_light_dir), 0.0) * shadow_factor(n);
    float sky = 0.5 + 0.5 * n.z;
    vec3 view = normalize(u_eye - v_world);
    vec3 half_dir = normalize(view + u_light_dir);
    float spec = v_colour.a < 0.0 ? 0.0 : pow(max(dot(n, half_dir), 0.0), 48.0) * 0.25 * diffuse;
    vec3 colour = base * (0.38 + 0.20 * sky + 0.55 * diffuse) + vec3(spec);
    frag = vec4(pow(colour, vec3(1.0 / 1.1)), 1.0);
}
