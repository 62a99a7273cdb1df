/* The checks of the public inputs against the documented ranges (heft.h,
 * docs/limits.md): beyond those ranges a double-precision step freezes a
 * body (its update rejected as non-finite every step), zeroes it or
 * overflows it, so such values are refused where they enter, with a message
 * naming the value and the limit. */
#include "input_check.h"

#include <math.h>

#include "error.h"

int check_vec_range(heft_vec3 v, double max, const char *what, const char *limit_name) {
    if (!heft_v3_isfinite(v)) {
        heft_set_error("%s is not finite (%g, %g, %g)", what, v.x, v.y, v.z);
        return 0;
    }
    double c[3] = {v.x, v.y, v.z};
    for (int i = 0; i < 3; ++i) {
        if (fabs(c[i]) > max) {
            heft_set_error("%s (%g, %g, %g) has a component beyond %s (%g)", what, v.x, v.y, v.z,
                           limit_name, max);
            return 0;
        }
    }
    return 1;
}

int check_scalar_range(double x, double max, const char *what, const char *limit_name) {
    if (!isfinite(x)) {
        heft_set_error("%s is not finite (%g)", what, x);
        return 0;
    }
    if (fabs(x) > max) {
        heft_set_error("%s %g is beyond %s (%g)", what, x, limit_name, max);
        return 0;
    }
    return 1;
}

double quat_length(heft_quat q) {
    double s = fmax(fmax(fabs(q.w), fabs(q.x)), fmax(fabs(q.y), fabs(q.z)));
    if (!(s > 0.0) || !isfinite(s)) {
        return s;
    }
    double w = q.w / s, x = q.x / s, y = q.y / s, z = q.z / s;
    return s * sqrt(w * w + x * x + y * y + z * z);
}

int check_orientation(heft_quat q, const char *what) {
    if (!heft_quat_isfinite(q)) {
        heft_set_error("%s is not finite (%g, %g, %g, %g)", what, q.w, q.x, q.y, q.z);
        return 0;
    }
    double n = quat_length(q);
    if (!(n >= HEFT_QUAT_NORM_MIN)) {
        heft_set_error("%s has zero length (|q| = %g, below HEFT_QUAT_NORM_MIN %g)", what, n,
                       HEFT_QUAT_NORM_MIN);
        return 0;
    }
    if (n > HEFT_QUAT_NORM_MAX) {
        heft_set_error("%s has length %g, beyond HEFT_QUAT_NORM_MAX (%g): give a unit "
                       "quaternion (it is normalised, but one this long is a mistake)",
                       what, n, HEFT_QUAT_NORM_MAX);
        return 0;
    }
    return 1;
}

void symmetric_eigenvalues(heft_mat3 a, double out[3]) {
    /* scaled to its largest entry so that no product overflows; then the
     * trigonometric solution of the characteristic cubic (Smith 1961) */
    double s = 0.0;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            s = fmax(s, fabs(a.m[i][j]));
        }
    }
    if (s == 0.0) {
        out[0] = out[1] = out[2] = 0.0;
        return;
    }
    double m[3][3];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            m[i][j] = a.m[i][j] / s;
        }
    }
    double p1 = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
    double e[3];
    if (p1 == 0.0) {
        e[0] = m[0][0];
        e[1] = m[1][1];
        e[2] = m[2][2];
    } else {
        double q = (m[0][0] + m[1][1] + m[2][2]) / 3.0;
        double p2 = (m[0][0] - q) * (m[0][0] - q) + (m[1][1] - q) * (m[1][1] - q) +
                    (m[2][2] - q) * (m[2][2] - q) + 2.0 * p1;
        double p = sqrt(p2 / 6.0);
        double b[3][3];
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                b[i][j] = (m[i][j] - (i == j ? q : 0.0)) / p;
            }
        }
        double r = 0.5 * (b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1]) -
                          b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0]) +
                          b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0]));
        double phi = r <= -1.0 ? HEFT_PI / 3.0 : r >= 1.0 ? 0.0 : acos(r) / 3.0;
        e[2] = q + 2.0 * p * cos(phi);
        e[0] = q + 2.0 * p * cos(phi + 2.0 * HEFT_PI / 3.0);
        e[1] = 3.0 * q - e[0] - e[2];
    }
    /* ascending */
    for (int i = 0; i < 3; ++i) {
        for (int j = i + 1; j < 3; ++j) {
            if (e[j] < e[i]) {
                double t = e[i];
                e[i] = e[j];
                e[j] = t;
            }
        }
    }
    for (int i = 0; i < 3; ++i) {
        out[i] = e[i] * s;
    }
}

int check_mass_properties(double mass, heft_mat3 I) {
    if (!isfinite(mass) || !(mass > 0.0)) {
        heft_set_error("mass must be finite and positive (got %g kg)", mass);
        return 0;
    }
    if (mass < HEFT_MASS_MIN || mass > HEFT_MASS_MAX) {
        heft_set_error("mass %g kg is outside [HEFT_MASS_MIN, HEFT_MASS_MAX] = [%g, %g] kg", mass,
                       HEFT_MASS_MIN, HEFT_MASS_MAX);
        return 0;
    }
    if (!heft_mat3_isfinite(I)) {
        heft_set_error("inertia tensor is not finite");
        return 0;
    }
    double scale = fabs(I.m[0][0]) + fabs(I.m[1][1]) + fabs(I.m[2][2]);
    for (int i = 0; i < 3; ++i) {
        for (int j = i + 1; j < 3; ++j) {
            if (fabs(I.m[i][j] - I.m[j][i]) > 1e-12 * scale) {
                heft_set_error("inertia tensor is not symmetric");
                return 0;
            }
        }
    }
    double e[3];
    symmetric_eigenvalues(I, e);
    if (!(e[0] > 0.0)) {
        heft_set_error("inertia tensor is not positive definite (smallest principal moment %g "
                       "kg m^2)",
                       e[0]);
        return 0;
    }
    if (e[0] < HEFT_INERTIA_MIN || e[2] > HEFT_INERTIA_MAX) {
        heft_set_error("inertia principal moments %g .. %g kg m^2 are outside [HEFT_INERTIA_MIN, "
                       "HEFT_INERTIA_MAX] = [%g, %g] kg m^2",
                       e[0], e[2], HEFT_INERTIA_MIN, HEFT_INERTIA_MAX);
        return 0;
    }
    if (e[2] > HEFT_INERTIA_CONDITION_MAX * e[0]) {
        heft_set_error(
            "inertia tensor is too ill-conditioned: principal moments %g .. %g kg m^2, a "
            "ratio above HEFT_INERTIA_CONDITION_MAX (%g)",
            e[0], e[2], HEFT_INERTIA_CONDITION_MAX);
        return 0;
    }
    return 1;
}
