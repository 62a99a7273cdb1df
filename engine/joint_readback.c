/* Joint readback: coordinates, gaps, and the last step's impulses per row,
 * per coordinate and as the reaction on body b (lambda / h). */
#include "error.h"
#include "world.h"

static double dot6(const double *a, const double *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5];
}

/* does the type have this coordinate to read */
static int has_coordinate(const joint *j, int dof) {
    switch (j->type) {
    case HEFT_JOINT_GEAR:
    case HEFT_JOINT_RACK:
    case HEFT_JOINT_FIXED:
        return 0;
    case HEFT_JOINT_DISTANCE:
    case HEFT_JOINT_ROPE:
        return dof == HEFT_DOF_X;
    case HEFT_JOINT_BALL:
        return dof < HEFT_JOINT_DOF_COUNT;
    default:
        return dof >= 0 && dof < 6;
    }
}

/* the coordinate, unwrapped, and its rate at the bodies' velocities */
static int coordinate_now(const heft_world *w, heft_joint_id id, int dof, double *value,
                          double *rate) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_coordinate");
    *value = 0.0;
    *rate = 0.0;
    if (!j || dof < 0 || !has_coordinate(j, dof)) {
        return 0;
    }
    joint_coordinate c;
    if (dof == HEFT_DOF_SWING || j->type == HEFT_JOINT_DISTANCE || j->type == HEFT_JOINT_ROPE) {
        joint_frame f;
        joint_frame_compute(j, w->bodies, &f);
        if (dof == HEFT_DOF_SWING) {
            ball_joint_swing(&f, j, &c);
        } else {
            distance_joint_measure(&f, &c);
        }
    } else {
        joint_ends e = joint_get_ends(j);
        joint_coordinate_measure(w->bodies, &e, dof, &c);
    }
    *value = dof == HEFT_DOF_SWING ? c.value : joint_coordinate_value(j, &c, dof);
    double va[6] = {0.0}, vb[6];
    if (j->body_a >= 0) {
        const body *a = &w->bodies[j->body_a];
        row_put6(va, a->linear_velocity, a->angular_velocity);
    }
    const body *b = &w->bodies[j->body_b];
    row_put6(vb, b->linear_velocity, b->angular_velocity);
    *rate = dot6(c.ja, va) + dot6(c.jb, vb);
    return 1;
}

double heft_joint_coordinate(const heft_world *w, heft_joint_id id, heft_joint_dof dof) {
    double value, rate;
    coordinate_now(w, id, (int)dof, &value, &rate);
    return value;
}

double heft_joint_coordinate_velocity(const heft_world *w, heft_joint_id id, heft_joint_dof dof) {
    double value, rate;
    coordinate_now(w, id, (int)dof, &value, &rate);
    return rate;
}

double heft_joint_gap(const heft_world *w, heft_joint_id id) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_gap");
    if (!j) {
        return 0.0;
    }
    if (j->type == HEFT_JOINT_GEAR) {
        return 0.0;
    }
    if (j->type == HEFT_JOINT_RACK) {
        return fabs(coupling_error(j, w->bodies));
    }
    joint_frame f;
    joint_frame_compute(j, w->bodies, &f);
    heft_vec3 d = heft_v3_sub(f.anchor_b, f.anchor_a);
    heft_vec3 axis = heft_quat_rotate(f.qa, heft_v3(1.0, 0.0, 0.0));
    switch (j->type) {
    case HEFT_JOINT_PRISMATIC:
    case HEFT_JOINT_CYLINDRICAL:
        return heft_v3_length(heft_v3_madd(d, -heft_v3_dot(d, axis), axis));
    case HEFT_JOINT_DISTANCE:
        return fabs(heft_v3_length(d) - j->length);
    case HEFT_JOINT_ROPE:
        return fmax(0.0, heft_v3_length(d) - j->length);
    case HEFT_JOINT_SIX_DOF: {
        double sum = 0.0;
        for (int k = 0; k < 3; ++k) {
            if (j->dof_mode[k] == HEFT_DOF_LOCKED) {
                double x = heft_v3_dot(d, heft_quat_rotate(f.qa, heft_v3(k == 0, k == 1, k == 2)));
                sum += x * x;
            }
        }
        return sqrt(sum);
    }
    default:
        return heft_v3_length(d);
    }
}

int heft_joint_row_count(const heft_world *w, heft_joint_id id) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_row_count");
    return j ? j->row_count : 0;
}

double heft_joint_row_impulse(const heft_world *w, heft_joint_id id, int i) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_row_impulse");
    return (j && i >= 0 && i < j->row_count) ? j->lambda[i] : 0.0;
}

heft_result heft_joint_get_row_info(const heft_world *w, heft_joint_id id, int i,
                                    heft_joint_row_info *out) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_get_row_info");
    if (!j) {
        heft_set_error("joint id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    if (i < 0 || i >= j->row_count || !out) {
        heft_set_error("row %d is not one of the joint's %d rows of the last step", i,
                       j->row_count);
        return HEFT_ERROR_INVALID_ARGUMENT;
    }
    const joint_row_tag *t = &j->tags_last[i];
    double inv_h = j->h_last > 0.0 ? 1.0 / j->h_last : 0.0;
    out->role = (heft_joint_row_role)t->role;
    out->dof = t->dof;
    out->impulse = j->lambda[i];
    out->force = t->sign * j->lambda[i] * inv_h;
    joint_reaction_of_rows(j, w->bodies, i, 1, &out->force_b, &out->torque_b);
    return HEFT_OK;
}

static double dof_force(const heft_world *w, heft_joint_id id, int dof, int motor) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_motor_force/limit_force");
    if (!j || j->h_last <= 0.0) {
        return 0.0;
    }
    double sum = 0.0;
    for (int i = 0; i < j->row_count; ++i) {
        const joint_row_tag *t = &j->tags_last[i];
        int is_motor = t->role == HEFT_JOINT_ROW_MOTOR;
        int is_limit =
            t->role == HEFT_JOINT_ROW_LIMIT_LOWER || t->role == HEFT_JOINT_ROW_LIMIT_UPPER;
        if (t->dof == dof && (motor ? is_motor : is_limit)) {
            sum += t->sign * j->lambda[i];
        }
    }
    return sum / j->h_last;
}

double heft_joint_motor_force(const heft_world *w, heft_joint_id id, heft_joint_dof dof) {
    return dof_force(w, id, (int)dof, 1);
}

double heft_joint_limit_force(const heft_world *w, heft_joint_id id, heft_joint_dof dof) {
    return dof_force(w, id, (int)dof, 0);
}

heft_result heft_joint_reaction(const heft_world *w, heft_joint_id id, heft_vec3 *force,
                                heft_vec3 *torque) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_reaction");
    if (!j) {
        heft_set_error("joint id is not valid");
        return HEFT_ERROR_INVALID_ID;
    }
    heft_vec3 f, t;
    joint_reaction_of_rows(j, w->bodies, 0, j->row_count, &f, &t);
    if (force) {
        *force = f;
    }
    if (torque) {
        *torque = t;
    }
    return HEFT_OK;
}

heft_result heft_joint_get_frames(const heft_world *w, heft_joint_id id, heft_joint_frames *out) {
    const joint *j = world_joint_or_error(w, id, "heft_joint_get_frames");
    if (!j || !out) {
        heft_set_error(j ? "out is NULL" : "joint id is not valid");
        return j ? HEFT_ERROR_INVALID_ARGUMENT : HEFT_ERROR_INVALID_ID;
    }
    joint_frame f;
    joint_frame_compute(j, w->bodies, &f);
    out->body_a = HEFT_WORLD_FRAME;
    if (j->body_a >= 0) {
        out->body_a.index = j->body_a;
        out->body_a.generation = w->bodies[j->body_a].slot.generation;
    }
    out->body_b.index = j->body_b;
    out->body_b.generation = w->bodies[j->body_b].slot.generation;
    out->anchor_a = f.anchor_a;
    out->anchor_b = f.anchor_b;
    out->frame_a = f.qa;
    out->frame_b = f.qb;
    return HEFT_OK;
}
