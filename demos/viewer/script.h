/* Scripted input: a sequence of key presses, clicks and waits fed through
 * the same handlers the window's callbacks call (input.c), so a script (or a
 * test) exercises exactly what a user does. Syntax (docs/viewer.md): tokens
 * separated by spaces, e.g. "2 wait:30 space shot:a.png click:640,360 quit".
 *   KEY            a key press and release: a..z, 0..9, space, tab, enter,
 *                  esc, backspace, left, right, up, down, pageup, pagedown,
 *                  minus, equal, comma, period, lbracket, rbracket, f1, f5, f6,
 *                  f9, f12;
 *                  prefix shift+ or ctrl+ for modifiers
 *   down:KEY, up:KEY   press, release (hold an operator axis between them)
 *   wait:N         let N frames pass
 *   click:X,Y      left click at window coordinates (from the top-left)
 *   drag:X0,Y0,X1,Y1,N   press at (X0,Y0), move to (X1,Y1) over N frames, release
 *   shot:FILE      write a PNG of the current frame
 *   drop:FILE      a scene file dropped on the window (opens it)
 *   quit           close the viewer */
#ifndef HEFT_VIEWER_SCRIPT_H
#define HEFT_VIEWER_SCRIPT_H

#include <stddef.h>

typedef struct viewer viewer;
typedef struct input_script input_script;

/* Parses text (or the file after @). NULL with a message in err if malformed. */
input_script *script_parse(const char *text, char *err, size_t err_size);
void script_free(input_script *s);
/* Runs the commands due this frame. */
void script_run(input_script *s, viewer *v);
int script_done(const input_script *s);
/* The GLFW key code of a script key name, or -1. */
int script_key_code(const char *name);

#endif
