/* Scene files (docs/scene-format.md): what the loader and the saver share.
 * Private to the library. */
#ifndef HEFT_SCENE_H
#define HEFT_SCENE_H

#include <stddef.h>

#include "heft.h"

struct cJSON;

/* The format's name and version, the first two fields of every file. */
#define SCENE_FORMAT "heft-scene"
#define SCENE_VERSION 1

/* The line (1-based) in text of the value item of the parsed root, found by
 * walking the text's values in the order cJSON made them; 0 if not found. */
int scene_line_of(const char *text, size_t length, const struct cJSON *root,
                  const struct cJSON *item);
/* The line of the byte at offset in text. */
int scene_line_at(const char *text, size_t length, size_t offset);

/* Names of the enumerations as the files spell them; NULL when out of range. */
const char *scene_body_type_name(int type);
const char *scene_shape_type_name(int type);
const char *scene_joint_type_name(int type);
const char *scene_dof_name(int dof);
const char *scene_motor_mode_name(int mode);
const char *scene_dof_mode_name(int mode);
const char *scene_gyroscopic_name(int mode);
const char *scene_operator_target_name(int target);
/* The value of a name in one of the tables above, or -1. */
int scene_name_lookup(const char *(*table)(int), const char *name);

#endif
