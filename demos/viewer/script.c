#include "script.h"

#include <GLFW/glfw3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "viewer.h"

typedef enum command_kind {
    CMD_KEY,
    CMD_KEY_DOWN,
    CMD_KEY_UP,
    CMD_WAIT,
    CMD_CLICK,
    CMD_DRAG,
    CMD_SHOT,
    CMD_DROP,
    CMD_QUIT
} command_kind;

typedef struct command {
    command_kind kind;
    int key, mods, frames;
    double x0, y0, x1, y1;
    char file[256];
} command;

struct input_script {
    command *commands;
    int count;
    int next;
    int wait;       /* frames left in the current wait */
    int drag_frame; /* frames done of the current drag, -1 if none */
};

static const struct {
    const char *name;
    int key;
} named_keys[] = {
    {"space", GLFW_KEY_SPACE},
    {"tab", GLFW_KEY_TAB},
    {"enter", GLFW_KEY_ENTER},
    {"esc", GLFW_KEY_ESCAPE},
    {"backspace", GLFW_KEY_BACKSPACE},
    {"left", GLFW_KEY_LEFT},
    {"right", GLFW_KEY_RIGHT},
    {"up", GLFW_KEY_UP},
    {"down", GLFW_KEY_DOWN},
    {"pageup", GLFW_KEY_PAGE_UP},
    {"pagedown", GLFW_KEY_PAGE_DOWN},
    {"minus", GLFW_KEY_MINUS},
    {"equal", GLFW_KEY_EQUAL},
    {"comma", GLFW_KEY_COMMA},
    {"period", GLFW_KEY_PERIOD},
    {"lbracket", GLFW_KEY_LEFT_BRACKET},
    {"rbracket", GLFW_KEY_RIGHT_BRACKET},
    {"f1", GLFW_KEY_F1},
    {"f5", GLFW_KEY_F5},
    {"f6", GLFW_KEY_F6},
    {"f9", GLFW_KEY_F9},
    {"f12", GLFW_KEY_F12},
};

int script_key_code(const char *name) {
    if (strlen(name) == 1) {
        char c = name[0];
        if (c >= 'a' && c <= 'z') {
            return GLFW_KEY_A + (c - 'a');
        }
        if (c >= '0' && c <= '9') {
            return GLFW_KEY_0 + (c - '0');
        }
    }
    for (size_t i = 0; i < sizeof named_keys / sizeof named_keys[0]; ++i) {
        if (strcmp(named_keys[i].name, name) == 0) {
            return named_keys[i].key;
        }
    }
    return -1;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) {
            break;
        }
        if (n + 1 == cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
    }
    return buf;
}

static int parse_token(const char *tok, command *c, char *err, size_t err_size) {
    memset(c, 0, sizeof *c);
    char extra;
    if (strncmp(tok, "wait:", 5) == 0) {
        c->kind = CMD_WAIT;
        if (sscanf(tok + 5, "%d%c", &c->frames, &extra) != 1 || c->frames < 0) {
            snprintf(err, err_size, "script: \"%s\": wait:N needs a frame count >= 0", tok);
            return -1;
        }
        return 0;
    }
    if (strncmp(tok, "click:", 6) == 0) {
        c->kind = CMD_CLICK;
        if (sscanf(tok + 6, "%lf,%lf%c", &c->x0, &c->y0, &extra) != 2) {
            snprintf(err, err_size, "script: \"%s\": click:X,Y needs two numbers", tok);
            return -1;
        }
        return 0;
    }
    if (strncmp(tok, "drag:", 5) == 0) {
        c->kind = CMD_DRAG;
        if (sscanf(tok + 5, "%lf,%lf,%lf,%lf,%d%c", &c->x0, &c->y0, &c->x1, &c->y1, &c->frames,
                   &extra) != 5 ||
            c->frames < 1) {
            snprintf(err, err_size,
                     "script: \"%s\": drag:X0,Y0,X1,Y1,N needs four numbers and N >= 1", tok);
            return -1;
        }
        return 0;
    }
    if (strncmp(tok, "shot:", 5) == 0) {
        c->kind = CMD_SHOT;
        if (tok[5] == '\0' || strlen(tok + 5) >= sizeof c->file) {
            snprintf(err, err_size, "script: \"%s\": shot:FILE needs a file name", tok);
            return -1;
        }
        snprintf(c->file, sizeof c->file, "%s", tok + 5);
        return 0;
    }
    if (strncmp(tok, "drop:", 5) == 0) {
        c->kind = CMD_DROP;
        if (tok[5] == '\0' || strlen(tok + 5) >= sizeof c->file) {
            snprintf(err, err_size, "script: \"%s\": drop:FILE needs a file name", tok);
            return -1;
        }
        snprintf(c->file, sizeof c->file, "%s", tok + 5);
        return 0;
    }
    if (strcmp(tok, "quit") == 0) {
        c->kind = CMD_QUIT;
        return 0;
    }
    c->kind = CMD_KEY;
    const char *name = tok;
    if (strncmp(name, "down:", 5) == 0) {
        c->kind = CMD_KEY_DOWN;
        name += 5;
    } else if (strncmp(name, "up:", 3) == 0) {
        c->kind = CMD_KEY_UP;
        name += 3;
    }
    for (;;) {
        if (strncmp(name, "shift+", 6) == 0) {
            c->mods |= GLFW_MOD_SHIFT;
            name += 6;
        } else if (strncmp(name, "ctrl+", 5) == 0) {
            c->mods |= GLFW_MOD_CONTROL;
            name += 5;
        } else {
            break;
        }
    }
    c->key = script_key_code(name);
    if (c->key < 0) {
        snprintf(err, err_size, "script: unknown key or command \"%s\" (docs/viewer.md lists them)",
                 tok);
        return -1;
    }
    return 0;
}

input_script *script_parse(const char *text, char *err, size_t err_size) {
    char *owned = NULL;
    if (text && text[0] == '@') {
        owned = read_file(text + 1);
        if (!owned) {
            snprintf(err, err_size, "script: cannot read %s", text + 1);
            return NULL;
        }
        text = owned;
    }
    input_script *s = calloc(1, sizeof *s);
    char *copy = text ? malloc(strlen(text) + 1) : NULL;
    if (!s || !copy) {
        snprintf(err, err_size, text ? "out of memory" : "script: empty");
        free(s);
        free(copy);
        free(owned);
        return NULL;
    }
    strcpy(copy, text);
    s->drag_frame = -1;
    int cap = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, " \t\r\n;", &save); tok;
         tok = strtok_r(NULL, " \t\r\n;", &save)) {
        if (tok[0] == '#') {
            break;
        }
        if (s->count == cap) {
            cap = cap ? 2 * cap : 16;
            command *grown = realloc(s->commands, (size_t)cap * sizeof *grown);
            if (!grown) {
                snprintf(err, err_size, "out of memory");
                script_free(s);
                s = NULL;
                break;
            }
            s->commands = grown;
        }
        if (parse_token(tok, &s->commands[s->count], err, err_size) != 0) {
            script_free(s);
            s = NULL;
            break;
        }
        s->count++;
    }
    free(copy);
    free(owned);
    return s;
}

void script_free(input_script *s) {
    if (s) {
        free(s->commands);
        free(s);
    }
}

int script_done(const input_script *s) {
    return !s || (s->next >= s->count && s->wait == 0);
}

void script_run(input_script *s, viewer *v) {
    if (!s) {
        return;
    }
    if (s->wait > 0) {
        s->wait--;
        return;
    }
    while (s->next < s->count) {
        command *c = &s->commands[s->next];
        switch (c->kind) {
        case CMD_WAIT:
            s->next++;
            if (c->frames > 0) {
                s->wait = c->frames - 1;
                return;
            }
            break;
        case CMD_KEY:
            viewer_key(v, c->key, GLFW_PRESS, c->mods);
            viewer_key(v, c->key, GLFW_RELEASE, c->mods);
            s->next++;
            break;
        case CMD_KEY_DOWN:
            viewer_key(v, c->key, GLFW_PRESS, c->mods);
            s->next++;
            break;
        case CMD_KEY_UP:
            viewer_key(v, c->key, GLFW_RELEASE, c->mods);
            s->next++;
            break;
        case CMD_CLICK:
            viewer_mouse_move(v, c->x0, c->y0);
            viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
            viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
            s->next++;
            break;
        case CMD_DRAG:
            if (s->drag_frame < 0) {
                viewer_mouse_move(v, c->x0, c->y0);
                viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_PRESS, 0);
                s->drag_frame = 0;
                return;
            }
            s->drag_frame++;
            {
                double t = (double)s->drag_frame / c->frames;
                viewer_mouse_move(v, c->x0 + t * (c->x1 - c->x0), c->y0 + t * (c->y1 - c->y0));
            }
            if (s->drag_frame >= c->frames) {
                viewer_mouse_button(v, GLFW_MOUSE_BUTTON_LEFT, GLFW_RELEASE, 0);
                s->drag_frame = -1;
                s->next++;
            }
            return;
        case CMD_SHOT:
            snprintf(v->shot_request, sizeof v->shot_request, "%s", c->file);
            s->next++;
            break;
        case CMD_DROP: /* what the window's drop callback does */
            viewer_load_file(v, c->file);
            s->next++;
            break;
        case CMD_QUIT:
            v->quit = 1;
            s->next++;
            return;
        }
    }
}
