/* Scene files in the programs: a file loaded, and when it names one of the
 * C scenes ("crane", "stacking:pyramid"), that scene's timeline, operators
 * and checks attached to it (docs/scene-format.md, "Scenes as files"). */
#ifndef HEFT_SCENE_ATTACH_H
#define HEFT_SCENE_ATTACH_H

#include <stddef.h>

#include "scenario.h"

/* The C scene a file's name means: its desc and its params (the variant
 * after a ':' is copied into variant_buf). NULL for none. */
const scenario_desc *scene_attach_find(const char *name, scenario_params *params, char *variant_buf,
                                       size_t size);

/* The scene's name for a file: "stacking:pyramid" for a variant. */
void scene_attach_name(const scenario_desc *desc, const scenario_params *params, char *out,
                       size_t size);

/* Builds the C scene desc in a scratch world made from def and options and,
 * when its bodies and joints have the same ids and names as world's, returns
 * its state to run with world (NULL otherwise: the file differs from the C
 * scene, or the build failed). */
scenario *scene_attach(const scenario_desc *desc, const scenario_params *params,
                       const heft_world_def *def, const heft_solver_options *options,
                       const heft_world *world);

/* Fills info's operator axes of the C scene's controls that bind directly to
 * one joint motor (crane slew and luff, winch drum, forklift lift and tilt);
 * the others stay with the C code. */
void scene_attach_operators(const scenario_desc *desc, const heft_world *world,
                            heft_scene_info *info);

/* The desc of a file no C scene is attached to: no timeline, no checks. */
extern const scenario_desc scenario_file;

#endif
