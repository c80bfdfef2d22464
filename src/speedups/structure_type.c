/*
 * The structurer object: its methods, which run the walk of structure.c on one value or on the items of an
 * array, and its release. structure_table.c makes it from the table.
 */

#include "structure.h"

static void
structurer_dealloc(Structurer *self)
{
    int i, j;
    Class *c;

    for (i = 0; self->classes != NULL && i < self->nclasses; i++) {
        c = &self->classes[i];
        Py_XDECREF(c->cls);
        Py_XDECREF(c->tag_key);
        for (j = 0; j < c->nfields; j++) {
            Py_XDECREF(c->fields[j].key);
            Py_XDECREF(c->fields[j].arg);
            Py_XDECREF(c->fields[j].short_defaults);
        }
        for (j = 0; j < c->ncross; j++) {
            Py_XDECREF(c->cross[j].check);
            Py_XDECREF(c->cross[j].allowed);
        }
    }
    for (i = 0; self->unions != NULL && i < self->nunions; i++) {
        Py_XDECREF(self->unions[i].key);
        Py_XDECREF(self->unions[i].members);
    }
    PyMem_Free(self->classes);
    PyMem_Free(self->unions);
    Py_XDECREF(self->miss);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The target (a class index, or -1 - a union's index) named by an argument; -1 with an exception. */
static int
read_target(Structurer *self, PyObject *value, int *target)
{
    return cb_table_index(value, -self->nunions, self->nclasses, "target", target);
}

PyDoc_STRVAR(object_doc,
"object(raw, target, /)\n--\n\n"
"The instance of class or union `target` (an index of the table, or -1 - a union's index) that the exact\n"
"dict `raw` describes, or the structurer's `miss` for anything else.");

static PyObject *
structurer_object(Structurer *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *out;
    int target;

    if (!check_nargs("object", nargs, 2) || read_target(self, args[1], &target) < 0) {
        return NULL;
    }
    if (!PyDict_CheckExact(args[0])) {
        return Py_NewRef(self->miss);
    }
    out = cb_structure_target(self, args[0], target, 0);
    if (out == NULL && !PyErr_Occurred()) {
        return Py_NewRef(self->miss);
    }
    return out;
}

PyDoc_STRVAR(objects_doc,
"objects(array, start, out, target, consume, /)\n--\n\n"
"Append to the list `out` the instance of `target` for each item of the exact list `array` from index\n"
"`start`, stopping at the first item it cannot take (a miss); return the index it stopped at (the\n"
"array's length when it took them all). With `consume` true, each item taken is replaced by None.");

static PyObject *
structurer_objects(Structurer *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *array, *out, *item, *obj;
    Py_ssize_t i;
    int target, consume, failed;

    if (!check_nargs("objects", nargs, 5) || read_target(self, args[3], &target) < 0) {
        return NULL;
    }
    array = args[0];
    out = args[2];
    if (!PyList_CheckExact(array) || !PyList_CheckExact(out)) {
        PyErr_SetString(PyExc_TypeError, "objects() takes an array and an output list");
        return NULL;
    }
    i = PyLong_AsSsize_t(args[1]);
    if (i < 0) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_ValueError, "start must not be negative");
        }
        return NULL;
    }
    consume = PyObject_IsTrue(args[4]);
    if (consume < 0) {
        return NULL;
    }
    for (; i < PyList_GET_SIZE(array); i++) {
        item = Py_NewRef(PyList_GET_ITEM(array, i));
        obj = PyDict_CheckExact(item) ? cb_structure_target(self, item, target, 0) : NULL;
        Py_DECREF(item);
        if (obj == NULL) {
            if (PyErr_Occurred()) {
                return NULL;
            }
            break;
        }
        failed = PyList_Append(out, obj);
        Py_DECREF(obj);
        if (failed) {
            return NULL;
        }
        if (consume && i < PyList_GET_SIZE(array)) {
            item = PyList_GET_ITEM(array, i);
            PyList_SET_ITEM(array, i, Py_NewRef(Py_None));
            Py_DECREF(item);
        }
    }
    return PyLong_FromSsize_t(i);
}

static PyObject *
structurer_repr(Structurer *self)
{
    return PyUnicode_FromFormat("<contentblocks structurer of %d classes>", self->nclasses);
}

static PyMethodDef structurer_methods[] = {
    {"object", (PyCFunction)(void (*)(void))structurer_object, METH_FASTCALL, object_doc},
    {"objects", (PyCFunction)(void (*)(void))structurer_objects, METH_FASTCALL, objects_doc},
    {NULL, NULL, 0, NULL},
};

PyTypeObject Structurer_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "contentblocks._speedups.Structurer",
    .tp_basicsize = sizeof(Structurer),
    .tp_dealloc = (destructor)structurer_dealloc,
    .tp_repr = (reprfunc)structurer_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_methods = structurer_methods,
    .tp_doc = "Structures raw dicts by one table of classes; see structurer().",
};
