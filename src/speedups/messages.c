/*
 * Message reader: a message's wire dict to a Message, for the common valid case, in one C call. It reads the
 * envelope (role, content, metadata), text blocks and their citations itself, and hands every other block to
 * its Python body (the same closures _bodies.py gives the Python path). _structure.py builds one per
 * converter; its Python message body stays the reference and runs whenever this one misses.
 *
 * It misses (returns NULL without an exception) on anything but the plain, valid shape: a key it does not
 * know, a value of another type or a subclass, a string over its limit, empty or with a lone surrogate,
 * surrounding whitespace where a rule forbids it, a URI the Python rule refuses, a span out of order, a block
 * the role may not carry, or any problem a Python body or the metadata reader reports. What it accepts it
 * builds exactly as the Python path would, from the same objects.
 */

#include "messages.h"
#include <stddef.h>

static const char *const NAMES[N_NAMES] = {
    "role", "content", "metadata", "type", "text", "citations", "source", "title", "quote", "start", "end",
    "kind", "value",
};

/* Each of these returns a new reference, or NULL: with an exception on an error, without one on a miss.
 * Every dict is read only once its keys are known to be exact str (str_keys), and everything borrowed from
 * the input is held before Python code may run (a body, a rule, an allocation). */

PyObject *
cb_call_body(PyObject *body, PyObject *raw, PyObject **problems)
{
    PyObject *out;

    if (*problems == NULL && (*problems = PyList_New(0)) == NULL) {
        return NULL;
    }
    Py_INCREF(body);
    out = PyObject_CallFunctionObjArgs(body, raw, *problems, NULL);
    Py_DECREF(body);
    if (out != NULL && PyList_GET_SIZE(*problems) != 0) {
        Py_CLEAR(out);
    }
    return out;
}

/* One block of a message's content array: a text block here, any other kind through its Python body. */
static PyObject *
read_block(MessageReader *r, PyObject *raw, PyObject *allowed, PyObject **problems)
{
    PyObject *tag, *body, *out;
    int error = 0, ok;

    if (!PyDict_CheckExact(raw) || !str_keys(raw)) {
        return NULL;
    }
    tag = get(r, raw, K_TYPE, &error);
    if (error || tag == NULL || !PyUnicode_CheckExact(tag)) {
        return NULL;
    }
    if (PyUnicode_CompareWithASCIIString(tag, "text") == 0) {
        out = cb_read_text(r, raw, problems);
    }
    else {
        body = PyDict_GetItemWithError(OBJ(r, A_BODIES), tag);
        if (body == NULL) {
            return NULL;
        }
        out = cb_call_body(body, raw, problems);
    }
    if (out == NULL) {
        return NULL;
    }
    ok = PySet_Contains(allowed, (PyObject *)Py_TYPE(out));
    if (ok <= 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

static PyObject *
read_content(MessageReader *r, PyObject *content, PyObject *allowed, PyObject **problems)
{
    PyObject *blocks, *item, *block;
    Py_ssize_t i, n;
    int ok;

    if (PyUnicode_CheckExact(content)) {
        ok = plain_text(content, r->max_chars);
        if (ok <= 0 || (ok = PySet_Contains(allowed, OBJ(r, A_TEXT_CLASS))) <= 0) {
            return NULL;
        }
        PyObject *args[3] = {content, empty_tuple, OBJ(r, A_EMPTY_OBJECT)};
        block = PyObject_Vectorcall(OBJ(r, A_NEW_TEXT), args, 3, NULL);
        if (block == NULL) {
            return NULL;
        }
        blocks = PyTuple_Pack(1, block);
        Py_DECREF(block);
        return blocks;
    }
    if (!PyList_CheckExact(content) || PyList_GET_SIZE(content) == 0) {
        return NULL;
    }
    n = PyList_GET_SIZE(content);
    blocks = NULL;  /* made once the first block is read: an array whose first item is no block costs nothing */
    for (i = 0; i < n; i++) {
        if (PyList_GET_SIZE(content) != n) {
            Py_XDECREF(blocks);
            return NULL;
        }
        item = Py_NewRef(PyList_GET_ITEM(content, i));
        block = read_block(r, item, allowed, problems);
        Py_DECREF(item);
        if (block == NULL || (blocks == NULL && (blocks = PyTuple_New(n)) == NULL)) {
            Py_XDECREF(block);
            Py_XDECREF(blocks);
            return NULL;
        }
        PyTuple_SET_ITEM(blocks, i, block);
    }
    return blocks;
}

static PyObject *
read_message(MessageReader *r, PyObject *raw)
{
    PyObject *role, *content, *metadata, *allowed, *blocks = NULL, *meta = NULL, *out = NULL, *problems = NULL;
    int error = 0;

    if (!PyDict_CheckExact(raw) || !str_keys(raw)) {
        return NULL;
    }
    role = get(r, raw, K_ROLE, &error);
    content = get(r, raw, K_CONTENT, &error);
    metadata = get(r, raw, K_METADATA, &error);
    if (error || role == NULL || content == NULL || !PyUnicode_CheckExact(role)
        || PyDict_GET_SIZE(raw) != 2 + (metadata != NULL)) {
        return NULL;
    }
    allowed = PyDict_GetItemWithError(OBJ(r, A_ROLES), role);
    if (allowed == NULL) {
        return NULL;
    }
    Py_INCREF(raw);
    Py_INCREF(role);
    Py_INCREF(content);
    Py_INCREF(allowed);
    blocks = read_content(r, content, allowed, &problems);
    if (blocks != NULL) {
        meta = metadata_of(r, raw, metadata != NULL, &problems);
    }
    if (meta != NULL && PyDict_GET_SIZE(raw) == 2 + (metadata != NULL)) {
        PyObject *args[3] = {role, blocks, meta};
        out = PyObject_Vectorcall(OBJ(r, A_NEW_MESSAGE), args, 3, NULL);
    }
    Py_XDECREF(meta);
    Py_XDECREF(blocks);
    Py_XDECREF(problems);
    Py_DECREF(allowed);
    Py_DECREF(content);
    Py_DECREF(role);
    Py_DECREF(raw);
    return out;
}

static PyObject *
reader_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    MessageReader *r = (MessageReader *)self;
    PyObject *out;

    if (PyVectorcall_NARGS(nargsf) != 1 || (kwnames != NULL && PyTuple_GET_SIZE(kwnames) != 0)) {
        PyErr_SetString(PyExc_TypeError, "a message reader takes exactly one positional argument");
        return NULL;
    }
    out = read_message(r, args[0]);
    if (out == NULL && !PyErr_Occurred()) {
        return Py_NewRef(OBJ(r, A_MISS));
    }
    return out;
}

static void
reader_dealloc(MessageReader *self)
{
    int i;

    for (i = 0; i < N_OBJECTS; i++) {
        Py_XDECREF(self->objects[i]);
    }
    for (i = 0; i < N_NAMES; i++) {
        Py_XDECREF(self->names[i]);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject MessageReader_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "contentblocks._speedups.MessageReader",
    .tp_basicsize = sizeof(MessageReader),
    .tp_dealloc = (destructor)reader_dealloc,
    .tp_vectorcall_offset = offsetof(MessageReader, vectorcall),
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "Reads the common valid shape of a message; see message_reader().",
};

PyDoc_STRVAR(message_reader_doc,
"message_reader(max_chars, max_uri, roles, bodies, metadata, uri_problem, new_message, new_text,\n"
"               new_citation, new_cited_uri, new_cited_reference, text_class, empty_object, miss, /)\n--\n\n"
"A callable reading a message's wire dict to a Message where every part is plain and valid, and returning\n"
"`miss` otherwise. `roles` maps each role to the frozenset of block classes it may carry; `bodies` maps\n"
"each block tag but text to its Python body(raw, problems); `metadata(raw, problems)` reads metadata;\n"
"`uri_problem(value)` is None for a valid citation URI; the new_* callables build instances from checked\n"
"fields, positionally.");

static PyObject *
speedups_message_reader(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    MessageReader *r;
    int i;

    if (!check_nargs("message_reader", nargs, 2 + N_OBJECTS)) {
        return NULL;
    }
    if (!PyLong_CheckExact(args[0]) || !PyLong_CheckExact(args[1]) || !PyDict_CheckExact(args[2 + A_ROLES])
        || !PyDict_CheckExact(args[2 + A_BODIES]) || !PyType_Check(args[2 + A_TEXT_CLASS])) {
        PyErr_SetString(PyExc_TypeError, "message_reader() takes two ints, two dicts, ... and a class");
        return NULL;
    }
    r = PyObject_New(MessageReader, &MessageReader_Type);
    if (r == NULL) {
        return NULL;
    }
    r->vectorcall = reader_vectorcall;
    for (i = 0; i < N_OBJECTS; i++) {
        r->objects[i] = Py_NewRef(args[2 + i]);
    }
    for (i = 0; i < N_NAMES; i++) {
        r->names[i] = PyUnicode_InternFromString(NAMES[i]);
        if (r->names[i] == NULL) {
            for (i = i + 1; i < N_NAMES; i++) {
                r->names[i] = NULL;
            }
            Py_DECREF(r);
            return NULL;
        }
    }
    if (cb_size_limit(args[0], "message_reader() max_chars", &r->max_chars) < 0
        || cb_size_limit(args[1], "message_reader() max_uri", &r->max_uri) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

int
cb_messages_init(void)
{
    return PyType_Ready(&MessageReader_Type);
}

PyMethodDef cb_messages_methods[] = {
    {"message_reader", (PyCFunction)(void (*)(void))speedups_message_reader, METH_FASTCALL, message_reader_doc},
    {NULL, NULL, 0, NULL},
};
