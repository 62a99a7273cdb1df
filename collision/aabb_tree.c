/* The dynamic AABB tree: insertion by surface-area cost, removal, AVL
 * rotations, box queries and ray casts with an explicit stack. */
#include "aabb_tree.h"

#include <string.h>

#include "mesh.h"
#include "mlcp.h"

#define TREE_STACK 256

void tree_init(aabb_tree *t) {
    memset(t, 0, sizeof *t);
    t->root = -1;
    t->free_list = -1;
}

void tree_release(aabb_tree *t) {
    heft_free(t->nodes);
    tree_init(t);
}

int tree_reserve(aabb_tree *t, int nodes) {
    if (nodes <= t->capacity) {
        return 1;
    }
    tree_node *p = heft_realloc(t->nodes, sizeof(tree_node) * (size_t)nodes);
    if (!p) {
        return 0;
    }
    t->nodes = p;
    for (int i = t->capacity; i < nodes; ++i) {
        t->nodes[i].parent = i + 1 < nodes ? i + 1 : -1;
        t->nodes[i].height = -1;
    }
    if (t->free_list < 0) {
        t->free_list = t->capacity;
    } else {
        int32_t last = t->free_list;
        while (t->nodes[last].parent >= 0) {
            last = t->nodes[last].parent;
        }
        t->nodes[last].parent = t->capacity;
    }
    t->capacity = nodes;
    return 1;
}

static int32_t allocate_node(aabb_tree *t) {
    if (t->free_list < 0 && !tree_reserve(t, t->capacity ? 2 * t->capacity : 64)) {
        return -1;
    }
    int32_t i = t->free_list;
    tree_node *n = &t->nodes[i];
    t->free_list = n->parent;
    n->parent = n->child1 = n->child2 = -1;
    n->height = 0;
    n->user = -1;
    return i;
}

static void free_node(aabb_tree *t, int32_t i) {
    t->nodes[i].parent = t->free_list;
    t->nodes[i].height = -1;
    t->free_list = i;
}

static int32_t imax(int32_t a, int32_t b) {
    return a > b ? a : b;
}

static void replace_child(aabb_tree *t, int32_t parent, int32_t old_child, int32_t new_child) {
    if (parent < 0) {
        t->root = new_child;
    } else if (t->nodes[parent].child1 == old_child) {
        t->nodes[parent].child1 = new_child;
    } else {
        t->nodes[parent].child2 = new_child;
    }
}

/* One AVL rotation at a if its children's heights differ by more than 1;
 * returns the node now at a's place. */
static int32_t balance(aabb_tree *t, int32_t ia) {
    tree_node *n = t->nodes;
    tree_node *a = &n[ia];
    if (a->child1 < 0 || a->height < 2) {
        return ia;
    }
    int32_t ib = a->child1, ic = a->child2;
    tree_node *b = &n[ib], *c = &n[ic];
    int32_t diff = c->height - b->height;
    if (diff > 1) { /* lift c */
        int32_t i_f = c->child1, ig = c->child2;
        tree_node *f = &n[i_f], *g = &n[ig];
        c->child1 = ia;
        c->parent = a->parent;
        a->parent = ic;
        replace_child(t, c->parent, ia, ic);
        if (f->height > g->height) {
            c->child2 = i_f;
            a->child2 = ig;
            g->parent = ia;
            a->box = aabb_union(b->box, g->box);
            c->box = aabb_union(a->box, f->box);
            a->height = 1 + imax(b->height, g->height);
            c->height = 1 + imax(a->height, f->height);
        } else {
            c->child2 = ig;
            a->child2 = i_f;
            f->parent = ia;
            a->box = aabb_union(b->box, f->box);
            c->box = aabb_union(a->box, g->box);
            a->height = 1 + imax(b->height, f->height);
            c->height = 1 + imax(a->height, g->height);
        }
        return ic;
    }
    if (diff < -1) { /* lift b */
        int32_t id = b->child1, ie = b->child2;
        tree_node *d = &n[id], *e = &n[ie];
        b->child1 = ia;
        b->parent = a->parent;
        a->parent = ib;
        replace_child(t, b->parent, ia, ib);
        if (d->height > e->height) {
            b->child2 = id;
            a->child1 = ie;
            e->parent = ia;
            a->box = aabb_union(c->box, e->box);
            b->box = aabb_union(a->box, d->box);
            a->height = 1 + imax(c->height, e->height);
            b->height = 1 + imax(a->height, d->height);
        } else {
            b->child2 = ie;
            a->child1 = id;
            d->parent = ia;
            a->box = aabb_union(c->box, d->box);
            b->box = aabb_union(a->box, e->box);
            a->height = 1 + imax(c->height, d->height);
            b->height = 1 + imax(a->height, e->height);
        }
        return ib;
    }
    return ia;
}

/* refits and rebalances from i to the root */
static void fix_upwards(aabb_tree *t, int32_t i) {
    while (i >= 0) {
        i = balance(t, i);
        tree_node *n = &t->nodes[i];
        tree_node *c1 = &t->nodes[n->child1], *c2 = &t->nodes[n->child2];
        n->height = 1 + imax(c1->height, c2->height);
        n->box = aabb_union(c1->box, c2->box);
        i = n->parent;
    }
}

/* links an allocated leaf into the tree; new_parent is a free node to use */
static void insert_leaf(aabb_tree *t, int32_t leaf, int32_t new_parent) {
    tree_node *n = t->nodes;
    if (t->root < 0) {
        t->root = leaf;
        n[leaf].parent = -1;
        if (new_parent >= 0) {
            free_node(t, new_parent);
        }
        return;
    }
    aabb box = n[leaf].box;
    int32_t i = t->root;
    while (n[i].child1 >= 0) {
        double area = aabb_perimeter(n[i].box);
        double combined = aabb_perimeter(aabb_union(n[i].box, box));
        double cost = 2.0 * combined;
        double inherit = 2.0 * (combined - area);
        double costs[2];
        int32_t ch[2] = {n[i].child1, n[i].child2};
        for (int k = 0; k < 2; ++k) {
            double u = aabb_perimeter(aabb_union(box, n[ch[k]].box));
            costs[k] = (n[ch[k]].child1 < 0 ? u : u - aabb_perimeter(n[ch[k]].box)) + inherit;
        }
        if (cost < costs[0] && cost < costs[1]) {
            break;
        }
        i = costs[0] <= costs[1] ? ch[0] : ch[1];
    }
    int32_t sibling = i, old_parent = n[sibling].parent;
    tree_node *p = &n[new_parent];
    p->parent = old_parent;
    p->box = aabb_union(box, n[sibling].box);
    p->height = n[sibling].height + 1;
    p->child1 = sibling;
    p->child2 = leaf;
    p->user = -1;
    replace_child(t, old_parent, sibling, new_parent);
    n[sibling].parent = new_parent;
    n[leaf].parent = new_parent;
    fix_upwards(t, n[leaf].parent);
}

/* unlinks a leaf; returns the freed inner node (or -1) */
static int32_t remove_leaf(aabb_tree *t, int32_t leaf) {
    tree_node *n = t->nodes;
    if (leaf == t->root) {
        t->root = -1;
        return -1;
    }
    int32_t parent = n[leaf].parent, grand = n[parent].parent;
    int32_t sibling = n[parent].child1 == leaf ? n[parent].child2 : n[parent].child1;
    replace_child(t, grand, parent, sibling);
    n[sibling].parent = grand;
    if (grand >= 0) {
        fix_upwards(t, grand);
    }
    return parent;
}

int32_t tree_insert(aabb_tree *t, aabb box, int32_t user) {
    int32_t leaf = allocate_node(t);
    if (leaf < 0) {
        return -1;
    }
    int32_t parent = -1;
    if (t->root >= 0) {
        parent = allocate_node(t);
        if (parent < 0) {
            free_node(t, leaf);
            return -1;
        }
    }
    t->nodes[leaf].box = box;
    t->nodes[leaf].user = user;
    insert_leaf(t, leaf, parent);
    t->leaf_count++;
    return leaf;
}

void tree_remove(aabb_tree *t, int32_t leaf) {
    int32_t freed = remove_leaf(t, leaf);
    if (freed >= 0) {
        free_node(t, freed);
    }
    free_node(t, leaf);
    t->leaf_count--;
}

void tree_move(aabb_tree *t, int32_t leaf, aabb box) {
    int32_t freed = remove_leaf(t, leaf);
    t->nodes[leaf].box = box;
    insert_leaf(t, leaf, freed);
}

int tree_height(const aabb_tree *t) {
    return t->root >= 0 ? t->nodes[t->root].height : 0;
}

void tree_query(const aabb_tree *t, aabb box, tree_query_fn fn, void *context) {
    int32_t stack[TREE_STACK];
    int top = 0;
    if (t->root >= 0) {
        stack[top++] = t->root;
    }
    while (top > 0) {
        int32_t i = stack[--top];
        const tree_node *n = &t->nodes[i];
        if (!aabb_overlap(&n->box, &box)) {
            continue;
        }
        if (n->child1 < 0) {
            if (!fn(context, i, n->user)) {
                return;
            }
        } else if (top + 2 <= TREE_STACK) {
            stack[top++] = n->child2;
            stack[top++] = n->child1;
        }
    }
}

void tree_ray_cast(const aabb_tree *t, heft_vec3 o, heft_vec3 d, double max_s, tree_ray_fn fn,
                   void *context) {
    heft_vec3 inv = heft_v3(1.0 / d.x, 1.0 / d.y, 1.0 / d.z);
    int32_t stack[TREE_STACK];
    int top = 0;
    if (t->root >= 0) {
        stack[top++] = t->root;
    }
    while (top > 0) {
        int32_t i = stack[--top];
        const tree_node *n = &t->nodes[i];
        if (aabb_ray(&n->box, o, inv, max_s) < 0.0) {
            continue;
        }
        if (n->child1 < 0) {
            max_s = fn(context, i, n->user, max_s);
        } else if (top + 2 <= TREE_STACK) {
            stack[top++] = n->child2;
            stack[top++] = n->child1;
        }
    }
}
