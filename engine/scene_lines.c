/* Where a value of a scene file is: cJSON keeps no positions, so the text's
 * values are walked in the order the parser made them (depth first, members
 * in order) and counted until the one asked for. Also the names the files
 * give the engine's enumerations. */
#include <string.h>

#include <cJSON.h>

#include "scene.h"

int scene_line_at(const char *text, size_t length, size_t offset) {
    int line = 1;
    for (size_t i = 0; i < offset && i < length; ++i) {
        line += text[i] == '\n';
    }
    return line;
}

/* the pre-order position of item below node (node itself is 0), or -1 */
static long preorder_index(const cJSON *node, const cJSON *item, long *counter) {
    long mine = (*counter)++;
    if (node == item) {
        return mine;
    }
    for (const cJSON *c = node->child; c; c = c->next) {
        long found = preorder_index(c, item, counter);
        if (found >= 0) {
            return found;
        }
    }
    return -1;
}

static size_t skip_string(const char *t, size_t n, size_t i) {
    for (++i; i < n && t[i] != '"'; ++i) {
        i += t[i] == '\\';
    }
    return i; /* at the closing quote (or n) */
}

int scene_line_of(const char *text, size_t length, const cJSON *root, const cJSON *item) {
    long counter = 0;
    long target = root && item ? preorder_index(root, item, &counter) : -1;
    if (target < 0) {
        return 0;
    }
    long values = -1;
    int line = 1;
    for (size_t i = 0; i < length && text[i]; ++i) {
        char c = text[i];
        if (c == '\n') {
            line++;
            continue;
        }
        int value_line = line;
        if (c == '"') {
            i = skip_string(text, length, i);
            size_t k = i + 1;
            while (k < length && strchr(" \t\r\n", text[k]) && text[k]) {
                line += text[k] == '\n';
                k++;
            }
            i = k - 1;
            if (k < length && text[k] == ':') {
                continue; /* a member's key, not a value */
            }
        } else if (c == '{' || c == '[') {
            /* a value that opens */
        } else if (strchr("-0123456789tfn", c)) {
            while (i + 1 < length && text[i + 1] && !strchr(",]} \t\r\n", text[i + 1])) {
                i++;
            }
        } else {
            continue;
        }
        if (++values == target) {
            return value_line;
        }
    }
    return 0;
}

const char *scene_body_type_name(int type) {
    static const char *names[] = {"static", "kinematic", "dynamic"};
    return type >= 0 && type < 3 ? names[type] : NULL;
}

const char *scene_shape_type_name(int type) {
    static const char *names[] = {"sphere",   "box",  "capsule", "plane",
                                  "cylinder", "hull", "mesh",    "height_field"};
    return type >= 0 && type < 8 ? names[type] : NULL;
}

const char *scene_joint_type_name(int type) {
    static const char *names[] = {"ball",        "hinge",     "fixed",    "prismatic",
                                  "cylindrical", "universal", "distance", "rope",
                                  "six_dof",     "gear",      "rack"};
    return type >= 0 && type < 11 ? names[type] : NULL;
}

const char *scene_dof_name(int dof) {
    static const char *names[] = {"X", "Y", "Z", "RX", "RY", "RZ", "SWING"};
    return dof >= 0 && dof < HEFT_JOINT_DOF_COUNT ? names[dof] : NULL;
}

const char *scene_motor_mode_name(int mode) {
    static const char *names[] = {"off", "velocity", "position"};
    return mode >= 0 && mode < 3 ? names[mode] : NULL;
}

const char *scene_dof_mode_name(int mode) {
    static const char *names[] = {"locked", "free", "limited"};
    return mode >= 0 && mode < 3 ? names[mode] : NULL;
}

const char *scene_gyroscopic_name(int mode) {
    static const char *names[] = {"none", "explicit", "implicit"};
    return mode >= 0 && mode < 3 ? names[mode] : NULL;
}

const char *scene_operator_target_name(int target) {
    static const char *names[] = {"motor_velocity", "motor_position", "length"};
    return target >= 0 && target < 3 ? names[target] : NULL;
}

int scene_name_lookup(const char *(*table)(int), const char *name) {
    for (int i = 0; name && table(i); ++i) {
        if (strcmp(table(i), name) == 0) {
            return i;
        }
    }
    return -1;
}
