/* Continuous collision of fast bodies (docs/queries.md). Private to the
 * library. */
#ifndef HEFT_CONTINUOUS_H
#define HEFT_CONTINUOUS_H

typedef struct heft_world heft_world;

/* After the positions of a step of length h: each fast dynamic body whose
 * shapes would have passed into static, kinematic or slow dynamic shapes
 * during the step is moved back to its time of impact, velocity kept; the
 * next step's contacts take it from there. */
void continuous_collision(heft_world *w, double h);

#endif
