/* A small element tree read with expat: elements, their attributes and the
 * line each element starts on, for formats that keep everything in
 * attributes (URDF). Text content is dropped. Private to the library. */
#ifndef HEFT_XML_TREE_H
#define HEFT_XML_TREE_H

#include <stddef.h>

typedef struct xml_element {
    const char *name;
    const char **attributes; /* name, value, name, value, ..., NULL */
    int line;
    struct xml_element *parent, *first_child, *last_child, *next_sibling;
} xml_element;

typedef struct xml_tree xml_tree;

/* Parses text; NULL on a syntax error or no memory, with the message
 * ("LINE: what", or "out of memory") in message. The tree owns every
 * string. Documents deeper than max_depth are refused. */
xml_tree *xml_tree_parse(const char *text, size_t length, int max_depth, char *message,
                         size_t size);
void xml_tree_free(xml_tree *tree);
const xml_element *xml_tree_root(const xml_tree *tree);

/* The value of an attribute, or NULL. */
const char *xml_attribute(const xml_element *e, const char *name);
/* The first child named name, or NULL; the next sibling of the same name. */
const xml_element *xml_child(const xml_element *e, const char *name);
const xml_element *xml_next_named(const xml_element *e);

#endif
