/* The checks of the public inputs against the documented ranges of heft.h
 * (docs/limits.md). Each sets heft_last_error to a message naming the value
 * and the limit it breaks, and returns 0 when it refuses. Private to the
 * library. */
#ifndef HEFT_INPUT_CHECK_H
#define HEFT_INPUT_CHECK_H

#include "heft.h"

/* Every component finite and |component| <= max; what names the value
 * ("position"), limit_name the macro of max ("HEFT_POSITION_MAX"). */
int check_vec_range(heft_vec3 v, double max, const char *what, const char *limit_name);
/* A scalar: finite and |x| <= max. */
int check_scalar_range(double x, double max, const char *what, const char *limit_name);
/* A quaternion to be normalised: finite, its length within
 * [HEFT_QUAT_NORM_MIN, HEFT_QUAT_NORM_MAX] (measured without overflow). */
int check_orientation(heft_quat q, const char *what);
/* The length of q computed without overflow or underflow. */
double quat_length(heft_quat q);
/* Mass and body-frame inertia: finite, mass within [HEFT_MASS_MIN,
 * HEFT_MASS_MAX], the tensor symmetric positive definite with principal
 * moments within [HEFT_INERTIA_MIN, HEFT_INERTIA_MAX] and a condition at
 * most HEFT_INERTIA_CONDITION_MAX. */
int check_mass_properties(double mass, heft_mat3 inertia);
/* The principal moments of a symmetric tensor, ascending (exact to
 * rounding; no overflow for finite entries). */
void symmetric_eigenvalues(heft_mat3 a, double out[3]);

#endif
