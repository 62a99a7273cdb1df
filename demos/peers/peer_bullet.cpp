// heft-peers: the scenes in Bullet 3.24 (double precision), through its C++
// API: btDiscreteDynamicsWorld with the sequential-impulse solver at its
// defaults (10 iterations, warm starting, split impulse for penetration).
// No body sleeps. The solver's iterations are timed by a subclass that wraps
// solveGroupCacheFriendlyIterations, so the setup of the rows is not counted.
#include <btBulletDynamicsCommon.h>

#include <vector>

#include "peers.h"

namespace {

class TimedSolver : public btSequentialImpulseConstraintSolver {
  public:
    double iterations_ms = 0.0;
    int iterations = 0;
    int rows = 0;
    btScalar solveGroupCacheFriendlyIterations(btCollisionObject **bodies, int numBodies,
                                               btPersistentManifold **manifolds, int numManifolds,
                                               btTypedConstraint **constraints, int numConstraints,
                                               const btContactSolverInfo &info,
                                               btIDebugDraw *debug) override {
        const double t0 = peer_cpu_ms();
        btScalar r = btSequentialImpulseConstraintSolver::solveGroupCacheFriendlyIterations(
            bodies, numBodies, manifolds, numManifolds, constraints, numConstraints, info, debug);
        iterations_ms += peer_cpu_ms() - t0;
        rows += m_tmpSolverContactConstraintPool.size() +
                m_tmpSolverContactFrictionConstraintPool.size() +
                m_tmpSolverContactRollingFrictionConstraintPool.size() +
                m_tmpSolverNonContactConstraintPool.size();
        iterations = info.m_numIterations;
        return r;
    }
};

struct BulletPeer {
    btDefaultCollisionConfiguration config;
    btCollisionDispatcher dispatcher{&config};
    btDbvtBroadphase broadphase;
    TimedSolver solver;
    btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
    std::vector<btCollisionShape *> shapes;
    std::vector<btRigidBody *> bodies;
    std::vector<btTypedConstraint *> joints;
    btRigidBody *ground = nullptr;

    btRigidBody *add(btCollisionShape *shape, double mass, const double at[3]) {
        btVector3 inertia(0, 0, 0);
        if (mass > 0.0)
            shape->calculateLocalInertia(mass, inertia);
        btTransform t;
        t.setIdentity();
        t.setOrigin(btVector3(at[0], at[1], at[2]));
        btRigidBody::btRigidBodyConstructionInfo ci(mass, nullptr, shape, inertia);
        ci.m_startWorldTransform = t;
        ci.m_friction = 1.0;
        auto *b = new btRigidBody(ci);
        b->setActivationState(DISABLE_DEACTIVATION);
        world.addRigidBody(b);
        return b;
    }

    ~BulletPeer() {
        for (auto *j : joints) {
            world.removeConstraint(j);
            delete j;
        }
        for (auto *b : bodies) {
            world.removeRigidBody(b);
            delete b;
        }
        if (ground) {
            world.removeRigidBody(ground);
            delete ground;
        }
        for (auto *s : shapes)
            delete s;
    }
};

void *bullet_create(const peer_scene *scene, const char *) {
    auto *s = new BulletPeer;
    s->world.setGravity(btVector3(0, 0, -9.81));
    const int n = peer_scene_body_count(scene);
    double at[3];
    if (scene->kind != PEER_CHAIN) { // the chain hangs free: no ground
        auto *plane = new btStaticPlaneShape(btVector3(0, 0, 1), 0);
        s->shapes.push_back(plane);
        const double origin[3] = {0, 0, 0};
        s->ground = s->add(plane, 0.0, origin);
        auto *box = new btBoxShape(btVector3(PEER_BOX_HALF, PEER_BOX_HALF, PEER_BOX_HALF));
        s->shapes.push_back(box);
        for (int i = 0; i < n; ++i) {
            peer_scene_start(scene, i, at);
            s->bodies.push_back(s->add(box, PEER_BOX_MASS, at));
        }
        return s;
    }
    auto *link = new btCapsuleShapeZ(PEER_LINK_RADIUS, PEER_LINK_LENGTH - 2.0 * PEER_LINK_RADIUS);
    auto *load = new btSphereShape(PEER_LOAD_RADIUS);
    s->shapes.push_back(link);
    s->shapes.push_back(load);
    double pivot[3];
    peer_chain_pivot(scene, pivot);
    for (int i = 0; i < n; ++i) {
        const bool is_load = i == scene->size;
        peer_scene_start(scene, i, at);
        btRigidBody *b = s->add(is_load ? (btCollisionShape *)load : link,
                                is_load ? scene->load_mass : PEER_LINK_MASS, at);
        const double top = is_load ? PEER_LOAD_RADIUS : 0.5 * PEER_LINK_LENGTH;
        btTypedConstraint *j;
        if (i == 0) {
            j = new btPoint2PointConstraint(*b, btVector3(0, 0, top));
        } else {
            j = new btPoint2PointConstraint(*s->bodies.back(), *b,
                                            btVector3(0, 0, -0.5 * PEER_LINK_LENGTH),
                                            btVector3(0, 0, top));
        }
        s->world.addConstraint(j, true); // jointed bodies do not collide
        s->joints.push_back(j);
        s->bodies.push_back(b);
    }
    return s;
}

void bullet_step(void *world, double h) {
    auto *s = static_cast<BulletPeer *>(world);
    s->solver.iterations_ms = 0.0;
    s->solver.iterations = 0;
    s->solver.rows = 0;
    s->world.stepSimulation(h, 0); // exactly one step of h
}

int bullet_count(void *world) {
    return (int)static_cast<BulletPeer *>(world)->bodies.size();
}

void bullet_pose(void *world, int i, peer_pose *out) {
    const btTransform &t = static_cast<BulletPeer *>(world)->bodies[i]->getWorldTransform();
    const btVector3 &p = t.getOrigin();
    const btQuaternion q = t.getRotation();
    out->p[0] = p.x();
    out->p[1] = p.y();
    out->p[2] = p.z();
    out->q[0] = q.w();
    out->q[1] = q.x();
    out->q[2] = q.y();
    out->q[3] = q.z();
}

double bullet_penetration(void *world) {
    auto *s = static_cast<BulletPeer *>(world);
    double deepest = 0.0;
    const int m = s->dispatcher.getNumManifolds();
    for (int k = 0; k < m; ++k) {
        btPersistentManifold *pm = s->dispatcher.getManifoldByIndexInternal(k);
        for (int c = 0; c < pm->getNumContacts(); ++c) {
            const double d = -pm->getContactPoint(c).getDistance();
            deepest = d > deepest ? d : deepest;
        }
    }
    return deepest;
}

double bullet_solver_ms(void *world) {
    return static_cast<BulletPeer *>(world)->solver.iterations_ms;
}

int bullet_solver_iterations(void *world) {
    return static_cast<BulletPeer *>(world)->solver.iterations;
}

int bullet_solver_rows(void *world) {
    return static_cast<BulletPeer *>(world)->solver.rows;
}

void bullet_destroy(void *world) {
    delete static_cast<BulletPeer *>(world);
}

} // namespace

extern "C" const peer_engine peer_bullet = {"bullet",
                                            nullptr,
                                            bullet_create,
                                            bullet_step,
                                            bullet_count,
                                            bullet_pose,
                                            bullet_penetration,
                                            bullet_solver_ms,
                                            bullet_solver_iterations,
                                            bullet_solver_rows,
                                            nullptr, // no measuring inside the step
                                            bullet_destroy,
                                            1,        // one thread
                                            nullptr,  // no MLCP error exposed
                                            nullptr,  // nor a convergence flag
                                            nullptr}; // one pass over the rows an iteration
