/*
 * Unstructurer: objects out as plain dicts and lists, by a table of each class's fields that _conversion/_gen.py
 * derives from the declarations (its generated Python functions stay the reference). unstructure_table.c
 * reads the table once, when the unstructurer is made: attribute names become slot offsets, kind names
 * become numbers.
 *
 * Blocks are checked when they are built, so there is nothing to judge on the way out; the walk still
 * misses (returns NULL without an exception) on anything its table does not describe exactly: a class it
 * does not know (a subclass included), an unset slot, a sequence that is not an exact tuple, metadata that is
 * not a JsonObject, binary that is not exact bytes, or a JSON value nested deeper than thaw recurses.
 */

#include "unstructure.h"

/* The table's objects nest a few levels deep (a conversation's deepest is five); anything deeper than this
 * is not a shape of the table's and goes back to the Python functions. */
#define MAX_SHAPE_DEPTH 16

static PyObject *walk(Unstructurer *u, PyObject *obj, int depth);

/* A list of each object of an exact tuple walked, a new reference; NULL without an exception is a miss. */
static PyObject *
walk_items(Unstructurer *u, PyObject *items, int depth)
{
    Py_ssize_t i, n = PyTuple_GET_SIZE(items);
    PyObject *out = PyList_New(n), *item;

    if (out == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        /* The tuple is immutable and held by the caller: its items live as long as it does. */
        item = walk(u, PyTuple_GET_ITEM(items, i), depth + 1);
        if (item == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, item);
    }
    return out;
}

/* The value a field puts under its key, a new reference; `*skip` set when the field is left out. NULL
 * without an exception is a miss. `value` is held by the caller. */
static PyObject *
field_value(Unstructurer *u, const ShapeField *field, PyObject *value, int depth, int *skip)
{
    switch (field->kind) {
    case K_OPTIONAL_ATTR:
        if (value == Py_None) {
            *skip = 1;
            return NULL;
        }
        /* fall through */
    case K_ATTR:
        return Py_NewRef(value);
    case K_NONEMPTY_THAWED:
        if (Py_TYPE(value) != JsonObject_Type) {
            return NULL;
        }
        if (PyDict_GET_SIZE(value) == 0) {
            *skip = 1;
            return NULL;
        }
        /* fall through */
    case K_THAWED:
        return u->copy_json ? cb_thaw_value(value, 0) : Py_NewRef(value);
    case K_OPTIONAL_BINARY:
        if (value == Py_None) {
            *skip = 1;
            return NULL;
        }
        /* fall through */
    case K_BINARY:
        if (!PyBytes_CheckExact(value)) {
            return NULL;
        }
        return u->base64 ? cb_b64encode(value) : Py_NewRef(value);
    case K_OPTIONAL_OBJECT:
        if (value == Py_None) {
            *skip = 1;
            return NULL;
        }
        /* fall through */
    case K_OBJECT:
        return walk(u, value, depth);
    case K_NONEMPTY_OBJECTS:
        if (PyTuple_CheckExact(value) && PyTuple_GET_SIZE(value) == 0) {
            *skip = 1;
            return NULL;
        }
        /* fall through */
    case K_OBJECTS:
        return PyTuple_CheckExact(value) ? walk_items(u, value, depth) : NULL;
    default:
        return NULL;
    }
}

/* Start loading every field's value at once. The walk touches each value's reference count in turn, and on a
 * machine whose cache is shared with busy neighbours those loads miss one after another; issued together they
 * overlap (docs/performance.md has the measurements). */
static inline void
prefetch_fields(const Shape *shape, PyObject *obj)
{
#if defined(__GNUC__) || defined(__clang__)
    Py_ssize_t i;
    PyObject *value;

    for (i = 0; i < shape->n; i++) {
        if (shape->fields[i].kind != K_CONST) {
            value = *(PyObject **)((char *)obj + shape->fields[i].offset);
            if (value != NULL) {
                __builtin_prefetch(value, 1, 3);
            }
        }
    }
#else
    (void)shape;
    (void)obj;
#endif
}

static PyObject *
walk(Unstructurer *u, PyObject *obj, int depth)
{
    PyTypeObject *t = Py_TYPE(obj);
    const Shape *shape = NULL;
    const ShapeField *field;
    PyObject *out, *value, *item;
    Py_ssize_t i;
    int skip;

    if (depth >= MAX_SHAPE_DEPTH) {
        return NULL;
    }
    for (i = 0; i < u->n; i++) {
        if (u->shapes[i].cls == t) {
            shape = &u->shapes[i];
            break;
        }
    }
    if (shape == NULL) {
        return NULL;
    }
    if (shape->fields[0].kind == K_LIST) {
        value = *(PyObject **)((char *)obj + shape->fields[0].offset);
        if (value == NULL || !PyTuple_CheckExact(value)) {
            return NULL;
        }
        Py_INCREF(value);
        out = walk_items(u, value, depth);
        Py_DECREF(value);
        return out;
    }
    prefetch_fields(shape, obj);
    out = PyDict_New();
    if (out == NULL) {
        return NULL;
    }
    for (i = 0; i < shape->n; i++) {
        field = &shape->fields[i];
        if (field->kind == K_CONST) {
            if (PyDict_SetItem(out, field->key, field->constant) < 0) {
                goto fail;
            }
            continue;
        }
        value = *(PyObject **)((char *)obj + field->offset);
        if (value == NULL) {
            goto fail;
        }
        /* Held while the field's value is built: an allocation can collect garbage and run finalizers. */
        Py_INCREF(value);
        skip = 0;
        item = field_value(u, field, value, depth + 1, &skip);
        Py_DECREF(value);
        if (skip) {
            continue;
        }
        if (item == NULL) {
            goto fail;
        }
        if (PyDict_SetItem(out, field->key, item) < 0) {
            Py_DECREF(item);
            goto fail;
        }
        Py_DECREF(item);
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

PyObject *
cb_unstructurer_call(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Unstructurer *u = (Unstructurer *)self;
    PyObject *out;

    if (PyVectorcall_NARGS(nargsf) != 1 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0)) {
        PyErr_SetString(PyExc_TypeError, "an unstructurer takes exactly one positional argument");
        return NULL;
    }
    out = walk(u, args[0], 0);
    if (out == NULL && !PyErr_Occurred()) {
        return Py_NewRef(u->miss);
    }
    return out;
}
