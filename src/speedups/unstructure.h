/* The unstructurer's table, shared by unstructure_table.c (which reads it from the shapes _conversion/_gen.py derives and
 * makes the unstructurer object) and unstructure.c (which walks objects by it). See unstructure.c for what
 * the walk does. */

#ifndef CONTENTBLOCKS_UNSTRUCTURE_H
#define CONTENTBLOCKS_UNSTRUCTURE_H

#include "speedups.h"

enum shape_kind {
    K_CONST,            /* key: a constant (a union member's tag) */
    K_ATTR,             /* key: the attribute as it is (str, int) */
    K_OPTIONAL_ATTR,    /* key: the attribute, left out when None */
    K_THAWED,           /* key: a JSON value, copied to plain dicts and lists (or kept, see copy_json) */
    K_NONEMPTY_THAWED,  /* key: a JsonObject like K_THAWED, left out when empty */
    K_BINARY,           /* key: bytes as base64 text (or kept, see base64) */
    K_OPTIONAL_BINARY,  /* K_BINARY, left out when None */
    K_OBJECT,           /* key: another object of the table */
    K_OPTIONAL_OBJECT,  /* K_OBJECT, left out when None */
    K_OBJECTS,          /* key: a tuple of objects of the table, as a list */
    K_NONEMPTY_OBJECTS, /* K_OBJECTS, left out when empty */
    K_LIST,             /* the object's whole result is a list of the objects in this tuple (no key) */
};

typedef struct {
    int kind;
    PyObject *key;       /* NULL for K_LIST */
    PyObject *constant;  /* K_CONST only */
    Py_ssize_t offset;   /* the slot's offset in the instance, for every other kind */
} ShapeField;

typedef struct {
    PyTypeObject *cls;
    Py_ssize_t n;
    ShapeField *fields;
} Shape;

typedef struct {
    PyObject_HEAD
    Py_ssize_t n;
    Shape *shapes;
    int copy_json;
    int base64;
    PyObject *miss;
    vectorcallfunc vectorcall;
} Unstructurer;

/* unstructure.c: an unstructurer's call, on one object (its vectorcall). */
PyObject *cb_unstructurer_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames);

#endif
