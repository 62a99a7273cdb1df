/* heft-peers: the scenes in MuJoCo 2.2 through its C API, the model written
 * as MJCF text. MuJoCo's defaults: the Newton solver (100 iterations,
 * tolerance 1e-8), pyramidal friction cones, soft constraints (solref 0.02 s,
 * which MuJoCo stiffens no further than 2 h at h = 1/60). The chain is a tree
 * of ball joints in generalized coordinates, so its joints cannot open: its
 * gaps are 0 by construction. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "peers.h"

typedef struct mujoco_peer {
    mjModel *m;
    mjData *d;
    int count;
} mujoco_peer;

/* Appends formatted text to a growing buffer; returns 0 when out of memory. */
static int put(char **buf, size_t *len, size_t *cap, const char *fmt, ...) {
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(*buf ? *buf + *len : NULL, *buf ? *cap - *len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            return 0;
        }
        if (*buf && *len + (size_t)n < *cap) {
            *len += (size_t)n;
            return 1;
        }
        size_t want = (*cap ? *cap * 2 : 65536) + (size_t)n;
        char *grown = realloc(*buf, want);
        if (!grown) {
            return 0;
        }
        *buf = grown;
        *cap = want;
    }
}

static char *scene_mjcf(const peer_scene *scene) {
    char *b = NULL;
    size_t len = 0, cap = 0;
    const int n = peer_scene_body_count(scene);
    const int boxes = scene->kind != PEER_CHAIN;
    int ok = put(&b, &len, &cap,
                 "<mujoco model=\"heft-peers\">\n"
                 "  <option timestep=\"%.17g\" gravity=\"0 0 -9.81\"/>\n"
                 "  <size nconmax=\"%d\" njmax=\"%d\"/>\n"
                 "  <default><geom friction=\"1 0.005 0.0001\"/></default>\n"
                 "  <worldbody>\n%s",
                 1.0 / 60.0, boxes ? 8 * n + 100 : 1000, boxes ? 40 * n + 500 : 4000,
                 boxes ? "    <geom type=\"plane\" size=\"0 0 1\"/>\n" : "");
    double at[3];
    if (boxes) {
        for (int i = 0; ok && i < n; ++i) {
            peer_scene_start(scene, i, at);
            ok = put(&b, &len, &cap,
                     "    <body pos=\"%.17g %.17g %.17g\"><freejoint/>"
                     "<geom type=\"box\" size=\"%g %g %g\" mass=\"%g\"/></body>\n",
                     at[0], at[1], at[2], PEER_BOX_HALF, PEER_BOX_HALF, PEER_BOX_HALF,
                     PEER_BOX_MASS);
        }
    } else {
        double pivot[3];
        peer_chain_pivot(scene, pivot);
        const double L = PEER_LINK_LENGTH;
        for (int i = 0; ok && i < n; ++i) {
            const int is_load = i == scene->size;
            peer_scene_start(scene, i, at);
            ok =
                put(&b, &len, &cap, "    <body name=\"b%d\" pos=\"%.17g %.17g %.17g\"><freejoint/>",
                    i, at[0], at[1], at[2]);
            if (is_load) {
                ok = ok && put(&b, &len, &cap,
                               "<geom type=\"sphere\" size=\"%g\" mass=\"%.17g\"/></body>\n",
                               PEER_LOAD_RADIUS, scene->load_mass);
            } else {
                ok = ok && put(&b, &len, &cap,
                               "<geom type=\"capsule\" size=\"%g %g\" mass=\"%g\"/></body>\n",
                               PEER_LINK_RADIUS, 0.5 * L - PEER_LINK_RADIUS, PEER_LINK_MASS);
            }
        }
        ok = ok && put(&b, &len, &cap, "  </worldbody>\n  <contact>\n");
        for (int i = 1; ok && i < n; ++i) {
            ok = put(&b, &len, &cap, "    <exclude body1=\"b%d\" body2=\"b%d\"/>\n", i - 1, i);
        }
        ok = ok && put(&b, &len, &cap, "  </contact>\n  <equality>\n");
        /* connect: body1's anchor (its frame) held on body2's matching point */
        ok = ok &&
             put(&b, &len, &cap,
                 "    <connect body1=\"b0\" body2=\"world\" anchor=\"0 0 %.17g\"/>\n", 0.5 * L);
        for (int i = 1; ok && i < n; ++i) {
            const double top = i == scene->size ? PEER_LOAD_RADIUS : 0.5 * L;
            ok = put(&b, &len, &cap,
                     "    <connect body1=\"b%d\" body2=\"b%d\" anchor=\"0 0 %.17g\"/>\n", i, i - 1,
                     top);
        }
        ok = ok && put(&b, &len, &cap, "  </equality>\n</mujoco>\n");
        (void)pivot;
        if (!ok) {
            free(b);
            return NULL;
        }
        return b;
    }
    ok = ok && put(&b, &len, &cap, "  </worldbody>\n</mujoco>\n");
    if (!ok) {
        free(b);
        return NULL;
    }
    return b;
}

static void *mujoco_create(const peer_scene *scene, const char *variant) {
    (void)variant;
    char *xml = scene_mjcf(scene);
    if (!xml) {
        return NULL;
    }
    char path[] = "/tmp/heft-peers-XXXXXX.xml";
    int fd = mkstemps(path, 4);
    if (fd < 0) {
        free(xml);
        return NULL;
    }
    FILE *f = fdopen(fd, "w");
    if (f) {
        fputs(xml, f);
        fclose(f);
    }
    free(xml);
    char error[1000] = "";
    mjModel *m = mj_loadXML(path, NULL, error, (int)sizeof error);
    unlink(path);
    if (!m) {
        fprintf(stderr, "heft-peers: mujoco: %s\n", error);
        return NULL;
    }
    mujoco_peer *s = calloc(1, sizeof *s);
    if (!s) {
        mj_deleteModel(m);
        return NULL;
    }
    s->m = m;
    s->d = mj_makeData(m);
    s->count = peer_scene_body_count(scene);
    if (!s->d) {
        mj_deleteModel(m);
        free(s);
        return NULL;
    }
    mj_forward(s->m, s->d);
    return s;
}

static void mujoco_step(void *world, double h) {
    mujoco_peer *s = world;
    s->m->opt.timestep = h;
    mj_step(s->m, s->d);
}

static int mujoco_count(void *world) {
    return ((mujoco_peer *)world)->count;
}

static void mujoco_pose(void *world, int i, peer_pose *out) {
    mujoco_peer *s = world;
    for (int k = 0; k < 3; ++k) {
        out->p[k] = s->d->xpos[3 * (i + 1) + k];
    }
    for (int k = 0; k < 4; ++k) {
        out->q[k] = s->d->xquat[4 * (i + 1) + k];
    }
}

static double mujoco_penetration(void *world) {
    mujoco_peer *s = world;
    double deepest = 0.0;
    for (int i = 0; i < s->d->ncon; ++i) {
        deepest = -s->d->contact[i].dist > deepest ? -s->d->contact[i].dist : deepest;
    }
    return deepest;
}

static void mujoco_destroy(void *world) {
    mujoco_peer *s = world;
    if (s) {
        mj_deleteData(s->d);
        mj_deleteModel(s->m);
        free(s);
    }
}

const peer_engine peer_mujoco = {.name = "mujoco newton",
                                 .create = mujoco_create,
                                 .step = mujoco_step,
                                 .body_count = mujoco_count,
                                 .pose = mujoco_pose,
                                 .penetration = mujoco_penetration,
                                 .destroy = mujoco_destroy};
