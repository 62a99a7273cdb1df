/* The element tree of xml_tree.h on expat's stream of start and end tags.
 * Expat itself refuses malformed XML and, since 2.4, entity expansion
 * attacks; external entities are never loaded (no handler is set). */
#include <stdio.h>
#include <string.h>

#include <expat.h>

#include "base.h"
#include "xml_tree.h"

/* Strings and elements come from blocks freed together with the tree. */
typedef struct xml_block {
    struct xml_block *next;
    size_t used, size;
    /* the block's bytes follow */
} xml_block;

struct xml_tree {
    xml_block *blocks;
    xml_element *root, *open;
    int depth, max_depth;
    int failed; /* 1: out of memory, 2: too deep */
    int fail_line;
    XML_Parser parser;
};

static void *tree_alloc(xml_tree *t, size_t n) {
    n = (n + 15u) & ~(size_t)15u;
    xml_block *b = t->blocks;
    if (!b || b->size - b->used < n) {
        size_t size = n > 60000u ? n : 60000u;
        b = heft_alloc(sizeof *b + 16u + size);
        if (!b) {
            return NULL;
        }
        b->next = t->blocks;
        b->used = 0;
        b->size = size;
        t->blocks = b;
    }
    /* the data starts at a 16-byte boundary after the header */
    char *base = (char *)b + ((sizeof *b + 15u) & ~(size_t)15u);
    void *p = base + b->used;
    b->used += n;
    return p;
}

static const char *tree_strdup(xml_tree *t, const char *s) {
    size_t n = strlen(s) + 1;
    char *p = tree_alloc(t, n);
    if (p) {
        memcpy(p, s, n);
    }
    return p;
}

static void stop(xml_tree *t, int why) {
    if (!t->failed) {
        t->failed = why;
        t->fail_line = (int)XML_GetCurrentLineNumber(t->parser);
    }
    XML_StopParser(t->parser, XML_FALSE);
}

static void XMLCALL on_start(void *user, const XML_Char *name, const XML_Char **attributes) {
    xml_tree *t = user;
    if (t->failed) {
        return;
    }
    if (++t->depth > t->max_depth) {
        stop(t, 2);
        return;
    }
    int n = 0;
    while (attributes[n]) {
        n++;
    }
    xml_element *e = tree_alloc(t, sizeof *e);
    const char **a = tree_alloc(t, sizeof *a * (size_t)(n + 1));
    if (!e || !a) {
        stop(t, 1);
        return;
    }
    memset(e, 0, sizeof *e);
    e->name = tree_strdup(t, name);
    for (int i = 0; i < n; ++i) {
        a[i] = tree_strdup(t, attributes[i]);
        if (!a[i]) {
            stop(t, 1);
            return;
        }
    }
    a[n] = NULL;
    if (!e->name) {
        stop(t, 1);
        return;
    }
    e->attributes = a;
    e->line = (int)XML_GetCurrentLineNumber(t->parser);
    e->parent = t->open;
    if (t->open) {
        /* appended, so that children keep the document's order */
        if (t->open->last_child) {
            t->open->last_child->next_sibling = e;
        } else {
            t->open->first_child = e;
        }
        t->open->last_child = e;
    } else {
        t->root = e;
    }
    t->open = e;
}

static void XMLCALL on_end(void *user, const XML_Char *name) {
    xml_tree *t = user;
    (void)name;
    if (t->failed) {
        return;
    }
    t->depth--;
    t->open = t->open ? t->open->parent : NULL;
}

xml_tree *xml_tree_parse(const char *text, size_t length, int max_depth, char *message,
                         size_t size) {
    xml_tree *t = heft_alloc(sizeof *t);
    if (!t) {
        snprintf(message, size, "out of memory");
        return NULL;
    }
    memset(t, 0, sizeof *t);
    t->max_depth = max_depth;
    t->parser = XML_ParserCreate(NULL);
    if (!t->parser) {
        heft_free(t);
        snprintf(message, size, "out of memory");
        return NULL;
    }
    XML_SetUserData(t->parser, t);
    XML_SetElementHandler(t->parser, on_start, on_end);
    int ok = 1;
    /* expat takes an int length: feed large texts in pieces */
    size_t done = 0;
    do {
        size_t piece = length - done > (1u << 24) ? (1u << 24) : length - done;
        int final = done + piece == length;
        if (XML_Parse(t->parser, text + done, (int)piece, final) != XML_STATUS_OK) {
            ok = 0;
            break;
        }
        done += piece;
    } while (done < length);
    if (ok && length == 0) {
        ok = XML_Parse(t->parser, "", 0, 1) == XML_STATUS_OK;
    }
    if (!ok || !t->root) {
        if (t->failed == 1) {
            snprintf(message, size, "out of memory");
        } else if (t->failed == 2) {
            snprintf(message, size, "%d: elements nested deeper than %d", t->fail_line, max_depth);
        } else if (!ok) {
            snprintf(message, size, "%d: not well-formed XML: %s",
                     (int)XML_GetCurrentLineNumber(t->parser),
                     XML_ErrorString(XML_GetErrorCode(t->parser)));
        } else {
            snprintf(message, size, "1: no element");
        }
        xml_tree_free(t);
        return NULL;
    }
    XML_ParserFree(t->parser);
    t->parser = NULL;
    return t;
}

void xml_tree_free(xml_tree *t) {
    if (!t) {
        return;
    }
    if (t->parser) {
        XML_ParserFree(t->parser);
    }
    for (xml_block *b = t->blocks; b;) {
        xml_block *next = b->next;
        heft_free(b);
        b = next;
    }
    heft_free(t);
}

const xml_element *xml_tree_root(const xml_tree *t) {
    return t ? t->root : NULL;
}

const char *xml_attribute(const xml_element *e, const char *name) {
    for (const char **a = e->attributes; a && a[0]; a += 2) {
        if (strcmp(a[0], name) == 0) {
            return a[1];
        }
    }
    return NULL;
}

const xml_element *xml_child(const xml_element *e, const char *name) {
    for (const xml_element *c = e->first_child; c; c = c->next_sibling) {
        if (strcmp(c->name, name) == 0) {
            return c;
        }
    }
    return NULL;
}

const xml_element *xml_next_named(const xml_element *e) {
    for (const xml_element *c = e->next_sibling; c; c = c->next_sibling) {
        if (strcmp(c->name, e->name) == 0) {
            return c;
        }
    }
    return NULL;
}
