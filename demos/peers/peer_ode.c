/* heft-peers: the scenes in ODE 0.16 through its C API, stepped by
 * dWorldStep (the direct, Dantzig LCP solver) or dWorldQuickStep (SOR, 20
 * iterations by default). ERP 0.2 and CFM 1e-5 are ODE's defaults; contacts
 * use dContactApprox1 so that mu = 1 bounds friction by the normal force
 * (as Heft's findex), at most 4 points per pair. No body is auto-disabled. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <ode/ode.h>

#include "peers.h"

#define ODE_MAX_CONTACTS 4

typedef struct ode_peer {
    dWorldID world;
    dSpaceID space;
    dJointGroupID contacts;
    dBodyID *bodies;
    int count;
    int quick;
    double deepest; /* the last step's deepest contact */
} ode_peer;

static void near_callback(void *data, dGeomID g1, dGeomID g2) {
    ode_peer *s = data;
    dBodyID b1 = dGeomGetBody(g1), b2 = dGeomGetBody(g2);
    if (b1 && b2 && dAreConnectedExcluding(b1, b2, dJointTypeContact)) {
        return; /* jointed links do not collide */
    }
    dContact c[ODE_MAX_CONTACTS];
    memset(c, 0, sizeof c);
    const int n = dCollide(g1, g2, ODE_MAX_CONTACTS, &c[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
        c[i].surface.mode = dContactApprox1;
        c[i].surface.mu = 1.0;
        if (c[i].geom.depth > s->deepest) {
            s->deepest = c[i].geom.depth;
        }
        dJointID j = dJointCreateContact(s->world, s->contacts, &c[i]);
        dJointAttach(j, b1, b2);
    }
}

static dBodyID add_body(ode_peer *s, dGeomID geom, dMass *m, const double at[3]) {
    dBodyID b = dBodyCreate(s->world);
    dBodySetMass(b, m);
    dBodySetPosition(b, at[0], at[1], at[2]);
    dGeomSetBody(geom, b);
    dBodySetAutoDisableFlag(b, 0);
    return b;
}

static void *ode_create(const peer_scene *scene, const char *variant) {
    static int initialised = 0;
    if (!initialised) {
        dInitODE2(0);
        initialised = 1;
    }
    ode_peer *s = calloc(1, sizeof *s);
    if (!s) {
        return NULL;
    }
    s->count = peer_scene_body_count(scene);
    s->bodies = calloc((size_t)s->count + 1, sizeof *s->bodies);
    if (!s->bodies) {
        free(s);
        return NULL;
    }
    s->quick = variant != NULL && strcmp(variant, "quickstep") == 0;
    s->world = dWorldCreate();
    s->space = dHashSpaceCreate(0);
    s->contacts = dJointGroupCreate(0);
    dWorldSetGravity(s->world, 0, 0, -9.81);
    dWorldSetAutoDisableFlag(s->world, 0);
    double at[3];
    dMass m;
    if (scene->kind != PEER_CHAIN) { /* the chain hangs free: no ground */
        dCreatePlane(s->space, 0, 0, 1, 0);
        const double side = 2.0 * PEER_BOX_HALF;
        for (int i = 0; i < s->count; ++i) {
            peer_scene_start(scene, i, at);
            dMassSetBoxTotal(&m, PEER_BOX_MASS, side, side, side);
            s->bodies[i] = add_body(s, dCreateBox(s->space, side, side, side), &m, at);
        }
        return s;
    }
    double pivot[3];
    peer_chain_pivot(scene, pivot);
    const double cyl = PEER_LINK_LENGTH - 2.0 * PEER_LINK_RADIUS;
    for (int i = 0; i < s->count; ++i) {
        const int is_load = i == scene->size;
        peer_scene_start(scene, i, at);
        if (is_load) {
            dMassSetSphereTotal(&m, scene->load_mass, PEER_LOAD_RADIUS);
            s->bodies[i] = add_body(s, dCreateSphere(s->space, PEER_LOAD_RADIUS), &m, at);
        } else {
            dMassSetCapsuleTotal(&m, PEER_LINK_MASS, 3, PEER_LINK_RADIUS, cyl);
            s->bodies[i] = add_body(s, dCreateCapsule(s->space, PEER_LINK_RADIUS, cyl), &m, at);
        }
        dJointID j = dJointCreateBall(s->world, 0);
        dJointAttach(j, i > 0 ? s->bodies[i - 1] : 0, s->bodies[i]);
        dJointSetBallAnchor(j, pivot[0], pivot[1], pivot[2] - i * PEER_LINK_LENGTH);
    }
    return s;
}

static void ode_step(void *world, double h) {
    ode_peer *s = world;
    s->deepest = 0.0;
    dSpaceCollide(s->space, s, near_callback);
    if (s->quick) {
        dWorldQuickStep(s->world, h);
    } else {
        dWorldStep(s->world, h);
    }
    dJointGroupEmpty(s->contacts);
}

static int ode_count(void *world) {
    return ((ode_peer *)world)->count;
}

static void ode_pose(void *world, int i, peer_pose *out) {
    ode_peer *s = world;
    const dReal *p = dBodyGetPosition(s->bodies[i]);
    const dReal *q = dBodyGetQuaternion(s->bodies[i]);
    for (int k = 0; k < 3; ++k) {
        out->p[k] = p[k];
    }
    for (int k = 0; k < 4; ++k) {
        out->q[k] = q[k]; /* ODE stores w, x, y, z */
    }
}

static double ode_penetration(void *world) {
    return ((ode_peer *)world)->deepest;
}

static void ode_destroy(void *world) {
    ode_peer *s = world;
    if (s) {
        dJointGroupDestroy(s->contacts);
        dSpaceDestroy(s->space);
        dWorldDestroy(s->world);
        free(s->bodies);
        free(s);
    }
}

const peer_engine peer_ode_step = {.name = "ode step",
                                   .variant = "step",
                                   .create = ode_create,
                                   .step = ode_step,
                                   .body_count = ode_count,
                                   .pose = ode_pose,
                                   .penetration = ode_penetration,
                                   .destroy = ode_destroy};
const peer_engine peer_ode_quickstep = {.name = "ode quickstep",
                                        .variant = "quickstep",
                                        .create = ode_create,
                                        .step = ode_step,
                                        .body_count = ode_count,
                                        .pose = ode_pose,
                                        .penetration = ode_penetration,
                                        .destroy = ode_destroy};
