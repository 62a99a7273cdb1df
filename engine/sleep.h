/* Sleeping islands (docs/sleeping.md): the islands that fall asleep, what
 * wakes them, and the body events. Private to the library. */
#ifndef HEFT_SLEEP_H
#define HEFT_SLEEP_H

#include "body.h"

typedef struct heft_world heft_world;
struct island_set;

/* Does the body make its pairs worth testing this step: an awake dynamic
 * body, a moving kinematic one, or one the application moved or reshaped?
 * A pair of two bodies that are not is kept as it was (engine/contact.c). */
static inline int body_touch_active(const body *b) {
    if (b->type == HEFT_BODY_DYNAMIC) {
        return !b->sleeping;
    }
    if (b->wake_contacts) {
        return 1;
    }
    return b->type == HEFT_BODY_KINEMATIC &&
           (b->linear_velocity.x != 0.0 || b->linear_velocity.y != 0.0 ||
            b->linear_velocity.z != 0.0 || b->angular_velocity.x != 0.0 ||
            b->angular_velocity.y != 0.0 || b->angular_velocity.z != 0.0);
}

/* Wakes island k (its bodies' events recorded, their timers reset). */
void island_wake(heft_world *w, int32_t k);
/* The application changed body b: a dynamic body's island wakes and its
 * timer restarts; a static or kinematic body's pairs are tested in the next
 * step (body.wake_contacts). */
void sleep_wake_body(heft_world *w, int32_t b);
/* Wakes the dynamic bodies touching body b in the last step (b is being
 * moved away or losing a shape). */
void sleep_wake_touching(heft_world *w, int32_t b);
/* Wakes the bodies at both ends of joint index j (made, changed or about
 * to be destroyed). */
void sleep_wake_joint(heft_world *w, int32_t j);
/* Wakes every island (the world changed for all of them). */
void sleep_wake_all(heft_world *w);

/* In the step. Forgets the events of the last step and of the calls since. */
void sleep_begin_step(heft_world *w);
/* After the contacts: wakes the sleeping islands that an awake body, a
 * moving kinematic one or an application's change touches (a contact or a
 * joint), and returns where this step's wakes start in w->woke_events. */
int sleep_wake_touched(heft_world *w);
/* After the positions: each awake body's timer, and the islands whose
 * bodies all stayed slow long enough fall asleep. */
void sleep_update(heft_world *w, const struct island_set *is, double h);
/* The counts of sleeping islands and bodies. */
void sleep_count(const heft_world *w, int *islands, int *bodies);
void sleep_release(heft_world *w);
/* Checks the world's sleep thresholds, setting the last error if bad. */
int sleep_check_thresholds(double linear_speed, double angular_speed, double time_to_sleep);

#endif
