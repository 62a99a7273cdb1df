#include "shaders.h"

#include <glad/gl.h>
#include <stdio.h>

/* Instanced bodies: per vertex position and normal, per instance the model
 * matrix (4 columns) and the colour (alpha < 0 marks the ground grid). */
static const char *mesh_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_position;\n"
    "layout(location = 1) in vec3 a_normal;\n"
    "layout(location = 2) in vec4 a_model0;\n"
    "layout(location = 3) in vec4 a_model1;\n"
    "layout(location = 4) in vec4 a_model2;\n"
    "layout(location = 5) in vec4 a_model3;\n"
    "layout(location = 6) in vec4 a_colour;\n"
    "uniform mat4 u_view_proj;\n"
    "uniform mat4 u_light_view_proj;\n"
    "out vec3 v_world;\n"
    "out vec3 v_normal;\n"
    "out vec3 v_local;\n"
    "out vec4 v_colour;\n"
    "out vec4 v_light;\n"
    "void main() {\n"
    "    mat4 model = mat4(a_model0, a_model1, a_model2, a_model3);\n"
    "    vec4 world = model * vec4(a_position, 1.0);\n"
    "    v_world = world.xyz;\n"
    "    v_local = a_position;\n"
    "    v_normal = normalize(transpose(inverse(mat3(model))) * a_normal);\n"
    "    v_colour = a_colour;\n"
    "    v_light = u_light_view_proj * world;\n"
    "    gl_Position = u_view_proj * world;\n"
    "}\n";

static const char *mesh_fs =
    "#version 330 core\n"
    "in vec3 v_world;\n"
    "in vec3 v_normal;\n"
    "in vec3 v_local;\n"
    "in vec4 v_colour;\n"
    "in vec4 v_light;\n"
    "uniform vec3 u_light_dir;\n" /* towards the light */
    "uniform vec3 u_eye;\n"
    "uniform sampler2D u_shadow;\n"
    "uniform int u_shadows;\n"
    "uniform int u_flat;\n" /* wireframe: no lighting */
    "out vec4 frag;\n"
    "float shadow_factor(vec3 n) {\n"
    "    if (u_shadows == 0) return 1.0;\n"
    "    vec3 p = v_light.xyz / v_light.w * 0.5 + 0.5;\n"
    "    if (p.x < 0.0 || p.x > 1.0 || p.y < 0.0 || p.y > 1.0 || p.z > 1.0) return 1.0;\n"
    "    float bias = max(0.0025 * (1.0 - dot(n, u_light_dir)), 0.0008);\n"
    "    vec2 texel = 1.0 / vec2(textureSize(u_shadow, 0));\n"
    "    float lit = 0.0;\n"
    "    for (int x = -1; x <= 1; ++x)\n"
    "        for (int y = -1; y <= 1; ++y)\n"
    "            lit += (p.z - bias > texture(u_shadow, p.xy + vec2(x, y) * texel).r) ? 0.0 : "
    "1.0;\n"
    "    return lit / 9.0;\n"
    "}\n"
    "void main() {\n"
    "    vec3 n = normalize(v_normal);\n"
    "    if (!gl_FrontFacing) n = -n;\n"
    "    vec3 base = v_colour.rgb;\n"
    "    if (v_colour.a < 0.0) {\n" /* ground: checker and grid lines in metres */
    "        vec2 g = v_local.xy;\n"
    "        vec2 cell = floor(g);\n"
    "        float checker = mod(cell.x + cell.y, 2.0);\n"
    "        base *= 0.88 + 0.12 * checker;\n"
    "        vec2 d = abs(fract(g - 0.5) - 0.5) / fwidth(g);\n"
    "        float line = 1.0 - min(min(d.x, d.y), 1.0);\n"
    "        vec2 d5 = abs(fract(g / 5.0 - 0.5) - 0.5) / fwidth(g / 5.0);\n"
    "        float line5 = 1.0 - min(min(d5.x, d5.y), 1.0);\n"
    "        base = mix(base, base * 0.6, max(line * 0.7, line5));\n"
    "        float fade = clamp(length(v_world.xy - u_eye.xy) / 150.0, 0.0, 1.0);\n"
    "        base = mix(base, vec3(0.70, 0.78, 0.86), fade * fade);\n"
    "    }\n"
    "    if (u_flat != 0) { frag = vec4(base, 1.0); return; }\n"
    "    float diffuse = max(dot(n, u_light_dir), 0.0) * shadow_factor(n);\n"
    "    float sky = 0.5 + 0.5 * n.z;\n"
    "    vec3 view = normalize(u_eye - v_world);\n"
    "    vec3 half_dir = normalize(view + u_light_dir);\n"
    "    float spec = v_colour.a < 0.0 ? 0.0 : pow(max(dot(n, half_dir), 0.0), 48.0) * 0.25 * "
    "diffuse;\n"
    "    vec3 colour = base * (0.38 + 0.20 * sky + 0.55 * diffuse) + vec3(spec);\n"
    "    frag = vec4(pow(colour, vec3(1.0 / 1.1)), 1.0);\n"
    "}\n";

static const char *depth_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec3 a_position;\n"
    "layout(location = 2) in vec4 a_model0;\n"
    "layout(location = 3) in vec4 a_model1;\n"
    "layout(location = 4) in vec4 a_model2;\n"
    "layout(location = 5) in vec4 a_model3;\n"
    "uniform mat4 u_light_view_proj;\n"
    "void main() {\n"
    "    mat4 model = mat4(a_model0, a_model1, a_model2, a_model3);\n"
    "    gl_Position = u_light_view_proj * model * vec4(a_position, 1.0);\n"
    "}\n";

static const char *depth_fs = "#version 330 core\n"
                              "void main() {}\n";

/* A full-screen triangle; the colour from the view ray's elevation. */
static const char *sky_vs =
    "#version 330 core\n"
    "uniform mat4 u_inverse_view_proj;\n"
    "out vec3 v_ray;\n"
    "void main() {\n"
    "    vec2 p = vec2((gl_VertexID == 1) ? 3.0 : -1.0, (gl_VertexID == 2) ? 3.0 : -1.0);\n"
    "    vec4 far_point = u_inverse_view_proj * vec4(p, 1.0, 1.0);\n"
    "    vec4 near_point = u_inverse_view_proj * vec4(p, -1.0, 1.0);\n"
    "    v_ray = far_point.xyz / far_point.w - near_point.xyz / near_point.w;\n"
    "    gl_Position = vec4(p, 0.9999, 1.0);\n"
    "}\n";

static const char *sky_fs = "#version 330 core\n"
                            "in vec3 v_ray;\n"
                            "out vec4 frag;\n"
                            "void main() {\n"
                            "    float e = normalize(v_ray).z;\n"
                            "    vec3 horizon = vec3(0.70, 0.78, 0.86);\n"
                            "    vec3 zenith = vec3(0.25, 0.45, 0.75);\n"
                            "    vec3 below = vec3(0.40, 0.42, 0.45);\n"
                            "    vec3 c = e >= 0.0 ? mix(horizon, zenith, pow(e, 0.6)) : "
                            "mix(horizon, below, min(-e * 4.0, 1.0));\n"
                            "    frag = vec4(c, 1.0);\n"
                            "}\n";

static const char *lines_vs = "#version 330 core\n"
                              "layout(location = 0) in vec3 a_position;\n"
                              "layout(location = 1) in vec4 a_colour;\n"
                              "uniform mat4 u_view_proj;\n"
                              "out vec4 v_colour;\n"
                              "void main() {\n"
                              "    v_colour = a_colour;\n"
                              "    gl_Position = u_view_proj * vec4(a_position, 1.0);\n"
                              "}\n";

static const char *lines_fs = "#version 330 core\n"
                              "in vec4 v_colour;\n"
                              "out vec4 frag;\n"
                              "void main() { frag = v_colour; }\n";

static const char *ui_vs =
    "#version 330 core\n"
    "layout(location = 0) in vec2 a_position;\n"
    "layout(location = 1) in vec4 a_colour;\n"
    "uniform vec2 u_screen;\n"
    "out vec4 v_colour;\n"
    "void main() {\n"
    "    v_colour = a_colour;\n"
    "    gl_Position = vec4(2.0 * a_position.x / u_screen.x - 1.0,\n"
    "                       1.0 - 2.0 * a_position.y / u_screen.y, 0.0, 1.0);\n"
    "}\n";

static const char *ui_fs = "#version 330 core\n"
                           "in vec4 v_colour;\n"
                           "out vec4 frag;\n"
                           "void main() { frag = v_colour; }\n";

static unsigned compile(unsigned type, const char *source, const char *what) {
    unsigned s = glCreateShader(type);
    glShaderSource(s, 1, &source, NULL);
    glCompileShader(s);
    int ok = 0;
    glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "heft-viewer: %s shader does not compile:\n%s\n", what, log);
        glDeleteShader(s);
        return 0;
    }
    return s;
}

unsigned shader_program(shader_id id) {
    static const char *names[SHADER_COUNT] = {"mesh", "depth", "sky", "lines", "ui"};
    const char *vs = NULL, *fs = NULL;
    switch (id) {
    case SHADER_MESH:
        vs = mesh_vs;
        fs = mesh_fs;
        break;
    case SHADER_DEPTH:
        vs = depth_vs;
        fs = depth_fs;
        break;
    case SHADER_SKY:
        vs = sky_vs;
        fs = sky_fs;
        break;
    case SHADER_LINES:
        vs = lines_vs;
        fs = lines_fs;
        break;
    case SHADER_UI:
        vs = ui_vs;
        fs = ui_fs;
        break;
    default:
        return 0;
    }
    unsigned v = compile(GL_VERTEX_SHADER, vs, names[id]);
    unsigned f = compile(GL_FRAGMENT_SHADER, fs, names[id]);
    if (!v || !f) {
        if (v)
            glDeleteShader(v);
        if (f)
            glDeleteShader(f);
        return 0;
    }
    unsigned p = glCreateProgram();
    glAttachShader(p, v);
    glAttachShader(p, f);
    glLinkProgram(p);
    glDeleteShader(v);
    glDeleteShader(f);
    int ok = 0;
    glGetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok) {
        char log[2048];
        glGetProgramInfoLog(p, sizeof log, NULL, log);
        fprintf(stderr, "heft-viewer: %s program does not link:\n%s\n", names[id], log);
        glDeleteProgram(p);
        return 0;
    }
    return p;
}
