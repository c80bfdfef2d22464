/*
 * The unstructurer object: made from the table of shapes that _conversion/_gen.py derives from the declarations, and
 * released. The table is read once, here: attribute names become slot offsets, kind names become numbers.
 * unstructure.c walks objects by it.
 */

#include "unstructure.h"
#include <stddef.h>

/* The names of enum shape_kind, in its order, as the table spells them. */
static const char *const KIND_NAMES[] = {
    "const", "attr", "optional_attr", "thawed", "nonempty_thawed", "binary", "optional_binary", "object",
    "optional_object", "objects",
    "nonempty_objects", "list", NULL,
};
_Static_assert(sizeof(KIND_NAMES) / sizeof(KIND_NAMES[0]) == K_LIST + 2, "a name for each shape kind");

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
read_field(PyTypeObject *cls, PyObject *spec, Py_ssize_t index, Py_ssize_t count, ShapeField *field)
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
"(kind, key, attribute), or (\"const\", key, value). Kinds: const, attr, optional_attr, thawed,\n"
"nonempty_thawed, binary, optional_binary, object, optional_object, objects, nonempty_objects, and list\n"
"(the one field of a class that unstructures to a list). JSON values are copied to plain dicts and lists\n"
"when `copy_json`\n"
"is true, else kept; bytes become base64 text when `base64` is true, else kept. It returns `miss` for any\n"
"object the table does not describe exactly.");

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
    u->vectorcall = cb_unstructurer_call;
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
        shape->fields = PyMem_Calloc(PyTuple_GET_SIZE(fields), sizeof(ShapeField));
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

