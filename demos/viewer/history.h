/* Keyframes and rewind in the viewer (docs/viewer.md "Keyframes and
 * rewind"): world snapshots (heft_world_save_state) with the step they were
 * taken at, one kept by a key and a ring of the last seconds. GL-free. */
#ifndef HEFT_VIEWER_HISTORY_H
#define HEFT_VIEWER_HISTORY_H

#include <stddef.h>

/* A snapshot every HISTORY_EVERY steps, HISTORY_SLOTS of them: 5 s of a
 * 60 Hz scene, rewound 0.1 s a key press. */
#define HISTORY_EVERY 6
#define HISTORY_SLOTS 50

typedef struct history_frame {
    unsigned char *bytes;
    size_t size, capacity;
    int step; /* the viewer's step_index it was taken at */
} history_frame;

typedef struct viewer_history {
    history_frame keyframe; /* size 0: none */
    history_frame ring[HISTORY_SLOTS];
    int newest, count; /* ring[newest] is the last taken; count in use */
} viewer_history;

typedef struct viewer viewer;

/* Forgets the keyframe and the ring (a new scene); keeps the memory. */
void history_clear(viewer *v);
void history_free(viewer *v);
/* After each step: a ring frame every HISTORY_EVERY steps. */
void history_record(viewer *v);
/* The keyframe: taken now, or put back (0, or -1 with the status line
 * saying why). */
int viewer_keyframe_save(viewer *v);
int viewer_keyframe_restore(viewer *v);
/* Back to the newest ring frame before the current step, and paused; -1
 * when the ring holds none. */
int viewer_rewind(viewer *v);
/* seconds the ring reaches back from the current step */
double history_seconds(const viewer *v);

#endif
