#include "history.h"

#include <stdlib.h>
#include <string.h>

#include "viewer.h"

void history_clear(viewer *v) {
    viewer_history *h = &v->history;
    h->keyframe.size = 0;
    h->count = 0;
    h->newest = -1;
}

void history_free(viewer *v) {
    viewer_history *h = &v->history;
    free(h->keyframe.bytes);
    for (int i = 0; i < HISTORY_SLOTS; ++i) {
        free(h->ring[i].bytes);
    }
    memset(h, 0, sizeof *h);
}

/* The world's state into f; 0, or -1 (f unchanged but for its memory). */
static int take(viewer *v, history_frame *f) {
    size_t need = 0;
    if (heft_world_save_state(v->world, NULL, 0, &need) != HEFT_OK) {
        return -1;
    }
    if (need > f->capacity) {
        /* room to spare: contacts come and go from step to step */
        size_t cap = need + need / 4;
        unsigned char *bigger = realloc(f->bytes, cap);
        if (!bigger) {
            return -1;
        }
        f->bytes = bigger;
        f->capacity = cap;
    }
    if (heft_world_save_state(v->world, f->bytes, f->capacity, &need) != HEFT_OK) {
        return -1;
    }
    f->size = need;
    f->step = v->step_index;
    return 0;
}

/* Puts f back, with the step the scene's timeline reads. */
static int put_back(viewer *v, const history_frame *f) {
    if (heft_world_restore_state(v->world, f->bytes, f->size) != HEFT_OK) {
        viewer_set_status(v, "%s", heft_last_error());
        return -1;
    }
    v->step_index = f->step;
    v->left_bounds = 0;
    v->accumulator = 0.0;
    v->drag.active = 0;
    return 0;
}

void history_record(viewer *v) {
    viewer_history *h = &v->history;
    if (v->step_index % HISTORY_EVERY != 0) {
        return;
    }
    int next = (h->newest + 1) % HISTORY_SLOTS;
    if (take(v, &h->ring[next]) != 0) {
        return;
    }
    h->newest = next;
    h->count = h->count < HISTORY_SLOTS ? h->count + 1 : HISTORY_SLOTS;
}

int viewer_keyframe_save(viewer *v) {
    if (take(v, &v->history.keyframe) != 0) {
        v->history.keyframe.size = 0;
        viewer_set_status(v, "keyframe not taken: %s", heft_last_error());
        return -1;
    }
    viewer_set_status(v, "keyframe at step %d (%.2f s), %zu kB (F9 goes back to it)", v->step_index,
                      heft_world_time(v->world), (v->history.keyframe.size + 1023) / 1024);
    return 0;
}

int viewer_keyframe_restore(viewer *v) {
    const history_frame *f = &v->history.keyframe;
    if (f->size == 0) {
        viewer_set_status(v, "no keyframe yet (F5 takes one)");
        return -1;
    }
    if (put_back(v, f) != 0) {
        return -1;
    }
    /* the ring's frames after the keyframe are of another future */
    viewer_history *h = &v->history;
    while (h->count > 0 && h->ring[h->newest].step > f->step) {
        h->newest = (h->newest + HISTORY_SLOTS - 1) % HISTORY_SLOTS;
        h->count--;
    }
    viewer_set_status(v, "back to the keyframe at step %d", f->step);
    return 0;
}

int viewer_rewind(viewer *v) {
    viewer_history *h = &v->history;
    while (h->count > 0 && h->ring[h->newest].step >= v->step_index) {
        h->newest = (h->newest + HISTORY_SLOTS - 1) % HISTORY_SLOTS;
        h->count--;
    }
    if (h->count == 0) {
        viewer_set_status(v, "nothing to rewind to (the last %d s are kept)",
                          (int)(HISTORY_SLOTS * HISTORY_EVERY * v->h + 0.5));
        return -1;
    }
    if (put_back(v, &h->ring[h->newest]) != 0) {
        return -1;
    }
    v->paused = 1;
    viewer_set_status(v, "rewound to step %d (%.2f s; paused, space runs on)", v->step_index,
                      heft_world_time(v->world));
    return 0;
}

double history_seconds(const viewer *v) {
    const viewer_history *h = &v->history;
    if (h->count == 0) {
        return 0.0;
    }
    int oldest = (h->newest - h->count + 1 + HISTORY_SLOTS) % HISTORY_SLOTS;
    return (v->step_index - h->ring[oldest].step) * v->h;
}
