/* * Maker: builds an instance of a slotted class from its field values, positionally, without running its
 * __init__ (the converter hooks have checked every field already). It does what the generated Python
 * constructor in _conversion/_unchecked.py does, object.__new__(cls) and one slot __set__ per field, in one call.
 */

#include "speedups.h"
#include <structmember.h>


typedef struct {
    PyObject_HEAD
    PyTypeObject *cls;
    Py_ssize_t n;
    Py_ssize_t *offsets;
    vectorcallfunc vectorcall;
} Maker;

static PyObject *
maker_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    Maker *maker = (Maker *)self;
    Py_ssize_t i, nargs = PyVectorcall_NARGS(nargsf);
    PyObject *obj;

    if (nargs != maker->n || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0)) {
        PyErr_Format(PyExc_TypeError, "making %s takes exactly %zd positional arguments (%zd given)",
                     maker->cls->tp_name, maker->n, nargs);
        return NULL;
    }
    obj = maker->cls->tp_alloc(maker->cls, 0);
    if (obj == NULL) {
        return NULL;
    }
    for (i = 0; i < nargs; i++) {
        /* The slots of a fresh instance are NULL: nothing to release. */
        *(PyObject **)((char *)obj + maker->offsets[i]) = Py_NewRef(args[i]);
    }
    return obj;
}

static void
maker_dealloc(Maker *self)
{
    Py_XDECREF(self->cls);
    PyMem_Free(self->offsets);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
maker_repr(Maker *self)
{
    return PyUnicode_FromFormat("<contentblocks maker of %s>", self->cls->tp_name);
}

static PyTypeObject Maker_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "contentblocks._speedups.Maker",
    .tp_basicsize = sizeof(Maker),
    .tp_dealloc = (destructor)maker_dealloc,
    .tp_repr = (reprfunc)maker_repr,
    .tp_vectorcall_offset = offsetof(Maker, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Builds instances of one slotted class from its field values; see instance_maker().",
};

Py_ssize_t
cb_object_slot(PyTypeObject *cls, PyObject *name, int writable)
{
    PyObject *descr = PyObject_GetAttr((PyObject *)cls, name);
    PyMemberDef *member;
    Py_ssize_t offset = SLOT_NOT_OURS;

    if (descr == NULL) {
        return SLOT_ERROR;
    }
    /* A member descriptor of another class, even under the same name, would reach outside the instance. */
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type) && PyType_IsSubtype(cls, PyDescr_TYPE(descr))) {
        member = ((PyMemberDescrObject *)descr)->d_member;
        offset = SLOT_UNFIT;
        if (member->type == T_OBJECT_EX && !(writable && (member->flags & READONLY))
            && member->offset >= (Py_ssize_t)sizeof(PyObject)
            && member->offset + (Py_ssize_t)sizeof(PyObject *) <= cls->tp_basicsize) {
            offset = member->offset;
        }
    }
    Py_DECREF(descr);
    return offset;
}

PyDoc_STRVAR(instance_maker_doc,
"instance_maker(cls, names, /)\n--\n\n"
"A callable taking the values of the slots `names` of `cls` positionally and returning a new instance\n"
"with them set, without calling __init__. Every name must be a writable object slot of cls itself or of\n"
"one of its bases, each slot named once, and cls must be a plain fixed-size class whose instances\n"
"object.__new__ can build.");

static PyObject *
speedups_instance_maker(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyTypeObject *cls;
    PyObject *names;
    Maker *maker;
    Py_ssize_t i, j, n, offset;

    if (!check_nargs("instance_maker", nargs, 2)) {
        return NULL;
    }
    if (!PyType_Check(args[0]) || !PyTuple_CheckExact(args[1])) {
        PyErr_SetString(PyExc_TypeError, "instance_maker() takes a class and a tuple of slot names");
        return NULL;
    }
    cls = (PyTypeObject *)args[0];
    names = args[1];
    if (cls->tp_itemsize != 0 || cls->tp_new != PyBaseObject_Type.tp_new
        || (cls->tp_flags & Py_TPFLAGS_IS_ABSTRACT)) {
        PyErr_Format(PyExc_TypeError, "%s is not a plain class built by object.__new__", cls->tp_name);
        return NULL;
    }
    n = PyTuple_GET_SIZE(names);
    maker = PyObject_New(Maker, &Maker_Type);
    if (maker == NULL) {
        return NULL;
    }
    maker->cls = (PyTypeObject *)Py_NewRef(cls);
    maker->n = n;
    maker->vectorcall = maker_vectorcall;
    maker->offsets = PyMem_New(Py_ssize_t, n > 0 ? n : 1);
    if (maker->offsets == NULL) {
        Py_DECREF(maker);
        return PyErr_NoMemory();
    }
    for (i = 0; i < n; i++) {
        offset = cb_object_slot(cls, PyTuple_GET_ITEM(names, i), 1);
        if (offset < 0) {
            if (offset == SLOT_NOT_OURS) {
                PyErr_Format(PyExc_TypeError, "%R is not a slot of %s", PyTuple_GET_ITEM(names, i), cls->tp_name);
            }
            else if (offset == SLOT_UNFIT) {
                PyErr_Format(PyExc_TypeError, "%R is not a writable object slot of %s", PyTuple_GET_ITEM(names, i),
                             cls->tp_name);
            }
            Py_DECREF(maker);
            return NULL;
        }
        /* A slot set twice would lose the first reference set in it: the fresh slot holds nothing to release
         * only the first time. Two names can share a slot (a descriptor set on a class under another name). */
        for (j = 0; j < i; j++) {
            if (maker->offsets[j] == offset) {
                PyErr_Format(PyExc_ValueError, "%R names the same slot as %R", PyTuple_GET_ITEM(names, i),
                             PyTuple_GET_ITEM(names, j));
                Py_DECREF(maker);
                return NULL;
            }
        }
        maker->offsets[i] = offset;
    }
    return (PyObject *)maker;
}

int
cb_maker_init(void)
{
    return PyType_Ready(&Maker_Type);
}

PyMethodDef cb_maker_methods[] = {
    {"instance_maker", (PyCFunction)(void (*)(void))speedups_instance_maker, METH_FASTCALL, instance_maker_doc},
    {NULL, NULL, 0, NULL},
};
