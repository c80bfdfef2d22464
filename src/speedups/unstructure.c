/*
 * Unstructurer: objects out as plain dicts and lists, by a table of each class's fields that _gen.py
 * derives from the declarations (its generated Python functions stay the reference). The table is read
 * once, when the unstructurer is made: attribute names become slot offsets, kind names become numbers.
 *
 * Blocks are checked when they are built, so there is nothing to judge on the way out; the walk still
 * misses (returns NULL without an exception) on anything its table does not describe exactly: a class it
 * does not know (a subclass included), an unset slot, a sequence that is not an exact tuple, metadata that is
 * not a JsonObject, binary that is not exact bytes, or a JSON value nested deeper than thaw recurses.
 */

#include "speedups.h"
#include <stddef.h>

/* The table's objects nest a few levels deep (a conversation's deepest is five); anything deeper than this
 * is not a shape of the table's and goes back to the Python functions. */
#define MAX_SHAPE_DEPTH 16

enum kind {
    K_CONST,            /* key: a constant (a union member's tag) */
    K_ATTR,             /* key: the attribute as it is (str, int) */
    K_OPTIONAL_ATTR,    /* key: the attribute, left out when None */
    K_THAWED,           /* key: a JSON value, copied to plain dicts and lists (or kept, see copy_json) */
    K_NONEMPTY_THAWED,  /* key: a JsonObject like K_THAWED, left out when empty */
    K_BINARY,           /* key: bytes as base64 text (or kept, see base64) */
    K_OPTIONAL_BINARY,  /* K_BINARY, left out when None */
    K_OBJECT,           /* key: another object of the table */
    K_OBJECTS,          /* key: a tuple of objects of the table, as a list */
    K_NONEMPTY_OBJECTS, /* K_OBJECTS, left out when empty */
    K_LIST,             /* the object's whole result is a list of the objects in this tuple (no key) */
};

static const char *const KIND_NAMES[] = {
    "const", "attr", "optional_attr", "thawed", "nonempty_thawed", "binary", "optional_binary", "object", "objects",
    "nonempty_objects", "list", NULL,
};

typedef struct {
    int kind;
    PyObject *key;       /* NULL for K_LIST */
    PyObject *constant;  /* K_CONST only */
    Py_ssize_t offset;   /* the slot's offset in the instance, for every other kind */
} Field;

typedef struct {
    PyTypeObject *cls;
    Py_ssize_t n;
    Field *fields;
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
field_value(Unstructurer *u, const Field *field, PyObject *value, int depth, int *skip)
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
    const Field *field;
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

static PyObject *
unstructurer_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
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

static void
unstructurer_dealloc(Unstructurer *self)
{
    Py_ssize_t i, j;

    if (self->shapes != NULL) {
        for (i = 0; i < self->n; i++) {
            Py_XDECREF(self->shapes[i].cls);
            if (self->shapes[i].fields == NULL) {
                continue;
            }
            for (j = 0; j < self->shapes[i].n; j++) {
                Py_XDECREF(self->shapes[i].fields[j].key);
                Py_XDECREF(self->shapes[i].fields[j].constant);
            }
            PyMem_Free(self->shapes[i].fields);
        }
        PyMem_Free(self->shapes);
    }
    Py_XDECREF(self->miss);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
unstructurer_repr(Unstructurer *self)
{
    return PyUnicode_FromFormat("<contentblocks unstructurer of %zd classes>", self->n);
}

static PyTypeObject Unstructurer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "contentblocks._speedups.Unstructurer",
    .tp_basicsize = sizeof(Unstructurer),
    .tp_dealloc = (destructor)unstructurer_dealloc,
    .tp_repr = (reprfunc)unstructurer_repr,
    .tp_vectorcall_offset = offsetof(Unstructurer, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Unstructures the objects of one table of shapes; see unstructurer().",
};

/* Fill `field` from one (kind, key, attribute or constant) triple of `cls`'s shape; -1 on error. */
static int
read_field(PyTypeObject *cls, PyObject *spec, Py_ssize_t index, Py_ssize_t count, Field *field)
{
    PyObject *kind, *key, *arg;
    int k;

    if (!PyTuple_CheckExact(spec) || PyTuple_GET_SIZE(spec) != 3) {
        PyErr_Format(PyExc_TypeError, "each field of %s is a (kind, key, attribute) tuple", cls->tp_name);
        return -1;
    }
    kind = PyTuple_GET_ITEM(spec, 0);
    key = PyTuple_GET_ITEM(spec, 1);
    arg = PyTuple_GET_ITEM(spec, 2);
    for (k = 0; KIND_NAMES[k] != NULL; k++) {
        if (PyUnicode_Check(kind) && PyUnicode_CompareWithASCIIString(kind, KIND_NAMES[k]) == 0) {
            break;
        }
    }
    if (KIND_NAMES[k] == NULL) {
        PyErr_Format(PyExc_ValueError, "unknown field kind %R for %s", kind, cls->tp_name);
        return -1;
    }
    field->kind = k;
    if (k == K_LIST) {
        if (key != Py_None || count != 1) {
            PyErr_Format(PyExc_ValueError, "a list shape has one field and no key (%s)", cls->tp_name);
            return -1;
        }
    }
    else if (!PyUnicode_CheckExact(key)) {
        PyErr_Format(PyExc_TypeError, "the keys of %s are str", cls->tp_name);
        return -1;
    }
    else {
        field->key = Py_NewRef(key);
        PyUnicode_InternInPlace(&field->key);
    }
    if (k == K_CONST) {
        field->constant = Py_NewRef(arg);
        return 0;
    }
    if (!PyUnicode_Check(arg)) {
        PyErr_Format(PyExc_TypeError, "field %zd of %s names no attribute", index, cls->tp_name);
        return -1;
    }
    field->offset = cb_object_slot(cls, arg, 0);
    if (field->offset < 0) {
        if (field->offset != SLOT_ERROR) {
            PyErr_Format(PyExc_TypeError, "%R is not an object slot of %s", arg, cls->tp_name);
        }
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(unstructurer_doc,
"unstructurer(shapes, copy_json, base64, miss, /)\n--\n\n"
"A callable unstructuring objects of the classes in `shapes`, a dict of class to a tuple of fields, each\n"
"(kind, key, attribute), or (\"const\", key, value). Kinds: const, value, optional, json, metadata,\n"
"binary, optional_binary, object, objects, nonempty_objects, and list (the one field of a class that\n"
"unstructures to a list). JSON values are copied to plain dicts and lists when `copy_json` is true, else\n"
"kept; bytes become base64 text when `base64` is true, else kept. It returns `miss` for any object the\n"
"table does not describe exactly.");

static PyObject *
speedups_unstructurer(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *items, *cls, *fields;
    Unstructurer *u;
    Shape *shape;
    Py_ssize_t i, j, n;

    if (!check_nargs("unstructurer", nargs, 4) || !setup_done()) {
        return NULL;
    }
    if (!PyDict_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "unstructurer() takes a dict of shapes");
        return NULL;
    }
    /* A list of the (class, fields) pairs: looking attributes up can run code, which could change a dict. */
    items = PyDict_Items(args[0]);
    if (items == NULL) {
        return NULL;
    }
    n = PyList_GET_SIZE(items);
    u = PyObject_New(Unstructurer, &Unstructurer_Type);
    if (u == NULL) {
        Py_DECREF(items);
        return NULL;
    }
    u->n = 0;
    u->miss = Py_NewRef(args[3]);
    u->copy_json = PyObject_IsTrue(args[1]);
    u->base64 = PyObject_IsTrue(args[2]);
    u->vectorcall = unstructurer_vectorcall;
    u->shapes = PyMem_Calloc(n > 0 ? n : 1, sizeof(Shape));
    if (u->shapes == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (u->copy_json < 0 || u->base64 < 0) {
        goto fail;
    }
    for (i = 0; i < n; i++) {
        cls = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 0);
        fields = PyTuple_GET_ITEM(PyList_GET_ITEM(items, i), 1);
        if (!PyType_Check(cls) || !PyTuple_CheckExact(fields) || PyTuple_GET_SIZE(fields) == 0) {
            PyErr_SetString(PyExc_TypeError, "each shape is a class and a non-empty tuple of fields");
            goto fail;
        }
        shape = &u->shapes[i];
        u->n = i + 1;  /* counted before it is filled: dealloc releases what is filled */
        shape->cls = (PyTypeObject *)Py_NewRef(cls);
        shape->fields = PyMem_Calloc(PyTuple_GET_SIZE(fields), sizeof(Field));
        if (shape->fields == NULL) {
            PyErr_NoMemory();
            goto fail;
        }
        for (j = 0; j < PyTuple_GET_SIZE(fields); j++) {
            shape->n = j + 1;
            if (read_field(shape->cls, PyTuple_GET_ITEM(fields, j), j, PyTuple_GET_SIZE(fields),
                           &shape->fields[j]) < 0) {
                goto fail;
            }
        }
    }
    Py_DECREF(items);
    return (PyObject *)u;
fail:
    Py_DECREF(items);
    Py_DECREF(u);
    return NULL;
}

int
cb_unstructure_init(void)
{
    return PyType_Ready(&Unstructurer_Type);
}

PyMethodDef cb_unstructure_methods[] = {
    {"unstructurer", (PyCFunction)(void (*)(void))speedups_unstructurer, METH_FASTCALL, unstructurer_doc},
    {NULL, NULL, 0, NULL},
};
