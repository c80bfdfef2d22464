/* JSON values: validate and copy into the read-only JsonObject/JsonArray (freeze), copy back into plain
 * dicts and lists (thaw), and the duplicate-key hook of cb.loads. The Python walks in _json/_values.py are the
 * reference: these return the same result for a valid value and a miss for anything else. */

#include "speedups.h"
#include <math.h>

typedef struct {
    Py_ssize_t max_chars;
    Py_ssize_t max_nodes;
    Py_ssize_t nodes;
    int max_depth;
} Walk;

int
cb_has_surrogate(PyObject *s)
{
    Py_ssize_t i, n = PyUnicode_GET_LENGTH(s);
    int kind = PyUnicode_KIND(s);
    if (kind == PyUnicode_1BYTE_KIND) {
        return 0;
    }
    if (kind == PyUnicode_2BYTE_KIND) {
        const Py_UCS2 *data = PyUnicode_2BYTE_DATA(s);
        for (i = 0; i < n; i++) {
            if (data[i] >= 0xD800 && data[i] <= 0xDFFF) {
                return 1;
            }
        }
        return 0;
    }
    {
        const Py_UCS4 *data = PyUnicode_4BYTE_DATA(s);
        for (i = 0; i < n; i++) {
            if (data[i] >= 0xD800 && data[i] <= 0xDFFF) {
                return 1;
            }
        }
    }
    return 0;
}

int
cb_int_fits(PyObject *v)
{
    int overflow = 0;
    (void)PyLong_AsLongLongAndOverflow(v, &overflow);
    if (PyErr_Occurred()) {
        return -1;
    }
    if (overflow == 0) {
        return 1;
    }
    if (overflow < 0) {
        return 0;
    }
    (void)PyLong_AsUnsignedLongLong(v);
    if (PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
    return 1;
}

static PyObject *freeze_value(PyObject *v, Walk *walk, int depth);

/* The frozen copy of an exact dict (or JsonObject), a new reference; NULL without an exception is a miss. */
static PyObject *
freeze_object(PyObject *src, Walk *walk, int depth)
{
    PyObject *out, *key, *value, *frozen;
    Py_ssize_t pos = 0;
    int ok;

    walk->nodes += PyDict_GET_SIZE(src);
    if (walk->nodes > walk->max_nodes) {
        return NULL;
    }
    out = PyDict_Type.tp_new(JsonObject_Type, empty_tuple, NULL);
    if (out == NULL) {
        return NULL;
    }
    while (PyDict_Next(src, &pos, &key, &value)) {
        Py_INCREF(key);
        Py_INCREF(value);
        ok = PyUnicode_CheckExact(key) ? cb_text_within(key, walk->max_chars) : 0;
        frozen = ok == 1 ? freeze_value(value, walk, depth) : NULL;
        Py_DECREF(value);
        if (frozen == NULL) {
            Py_DECREF(key);
            Py_DECREF(out);
            return NULL;
        }
        ok = PyDict_SetItem(out, key, frozen);
        Py_DECREF(key);
        Py_DECREF(frozen);
        if (ok < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    return out;
}

/* The frozen copy of an exact list or tuple (or JsonArray), a new reference; NULL without an exception is a
 * miss. */
static PyObject *
freeze_array(PyObject *src, Walk *walk, int depth)
{
    PyObject *items, *out, *item, *frozen;
    int is_tuple = PyTuple_CheckExact(src);
    Py_ssize_t i, n = is_tuple ? PyTuple_GET_SIZE(src) : PyList_GET_SIZE(src);

    walk->nodes += n;
    if (walk->nodes > walk->max_nodes) {
        return NULL;
    }
    items = PyList_New(n);
    if (items == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        if (is_tuple) {
            item = PyTuple_GET_ITEM(src, i);
        }
        else {
            /* A finalizer run by a collection may have shrunk the list. */
            if (i >= PyList_GET_SIZE(src)) {
                Py_DECREF(items);
                return NULL;
            }
            item = PyList_GET_ITEM(src, i);
        }
        Py_INCREF(item);
        frozen = freeze_value(item, walk, depth);
        Py_DECREF(item);
        if (frozen == NULL) {
            Py_DECREF(items);
            return NULL;
        }
        PyList_SET_ITEM(items, i, frozen);
    }
    out = PyList_Type.tp_new(JsonArray_Type, empty_tuple, NULL);
    if (out == NULL) {
        Py_DECREF(items);
        return NULL;
    }
    if (PyList_SetSlice(out, 0, 0, items) < 0) {
        Py_DECREF(items);
        Py_DECREF(out);
        return NULL;
    }
    Py_DECREF(items);
    return out;
}

/* The frozen copy of any JSON value (scalars are returned as they are), a new reference; NULL without an
 * exception is a miss. `depth` is the number of containers above `v`. */
static PyObject *
freeze_value(PyObject *v, Walk *walk, int depth)
{
    PyTypeObject *t = Py_TYPE(v);
    int ok;

    if (t == &PyUnicode_Type) {
        ok = cb_text_within(v, walk->max_chars);
    }
    else if (t == &PyLong_Type) {
        ok = cb_int_fits(v);
    }
    else if (t == &PyFloat_Type) {
        ok = isfinite(PyFloat_AS_DOUBLE(v)) ? 1 : 0;
    }
    else if (v == Py_True || v == Py_False || v == Py_None) {
        ok = 1;
    }
    else if (t == &PyDict_Type || t == JsonObject_Type) {
        return depth < walk->max_depth ? freeze_object(v, walk, depth + 1) : NULL;
    }
    else if (t == &PyList_Type || t == &PyTuple_Type || t == JsonArray_Type) {
        return depth < walk->max_depth ? freeze_array(v, walk, depth + 1) : NULL;
    }
    else {
        ok = 0;
    }
    if (ok == 1) {
        Py_INCREF(v);
        return v;
    }
    return NULL;
}

PyObject *
cb_freeze(PyObject *value, Py_ssize_t max_chars, Py_ssize_t max_depth, Py_ssize_t max_nodes)
{
    Walk walk;

    /* Deeper than the walk recurses, however much deeper: the Python walk takes the value. */
    if (max_depth > MAX_RECURSION) {
        return NULL;
    }
    /* A value past max_nodes is a miss found by a walk that copies nothing: refusing it costs less than
     * accepting a value of the same size (a valid one is walked twice, the count a fraction of the copy). */
    if (cb_count_nodes(value, max_chars, max_depth, max_nodes, NULL) != 0) {
        return NULL;
    }
    walk.max_chars = max_chars;
    walk.max_nodes = max_nodes;
    walk.max_depth = (int)max_depth;  /* 0 to MAX_RECURSION */
    walk.nodes = 1;
    return freeze_value(value, &walk, 0);
}

PyDoc_STRVAR(freeze_doc,
"freeze(value, max_chars, max_depth, max_nodes, miss, /)\n--\n\n"
"The read-only copy of a valid JSON value, built of JsonObject and JsonArray, or `miss` when the value\n"
"is not valid, is not built of exact built-in types, or reaches a limit (the Python walk then says why).\n"
"The limits are ints from 0 up (a negative one is a ValueError); a max_depth above what this function\n"
"recurses hands every value back.");

static PyObject *
speedups_freeze(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t max_chars, max_depth, max_nodes;
    PyObject *out;

    if (!check_nargs("freeze", nargs, 5) || !setup_done()) {
        return NULL;
    }
    if (cb_size_limit(args[1], "freeze() max_chars", &max_chars) < 0
        || cb_size_limit(args[2], "freeze() max_depth", &max_depth) < 0
        || cb_size_limit(args[3], "freeze() max_nodes", &max_nodes) < 0) {
        return NULL;
    }
    out = cb_freeze(args[0], max_chars, max_depth, max_nodes);
    if (out == NULL && !PyErr_Occurred()) {
        return Py_NewRef(args[4]);
    }
    return out;
}

/* A plain dict/list deep copy of a frozen value, a new reference; NULL without an exception is a miss. */
PyObject *
cb_thaw_value(PyObject *v, int depth)
{
    PyTypeObject *t = Py_TYPE(v);
    PyObject *out, *key, *value, *copy;
    Py_ssize_t pos = 0, i, n;

    if (t == JsonObject_Type) {
        if (depth >= MAX_RECURSION) {
            return NULL;
        }
        out = PyDict_Copy(v);  /* an exact dict, copied from the subclass without calling its methods */
        if (out == NULL) {
            return NULL;
        }
        /* Replacing the value of an existing key does not change the dict's size: iteration stays valid. */
        while (PyDict_Next(out, &pos, &key, &value)) {
            t = Py_TYPE(value);
            if (t != JsonObject_Type && t != JsonArray_Type) {
                continue;
            }
            Py_INCREF(key);
            copy = cb_thaw_value(value, depth + 1);
            if (copy == NULL || PyDict_SetItem(out, key, copy) < 0) {
                Py_XDECREF(copy);
                Py_DECREF(key);
                Py_DECREF(out);
                return NULL;
            }
            Py_DECREF(copy);
            Py_DECREF(key);
        }
        return out;
    }
    if (t == JsonArray_Type) {
        if (depth >= MAX_RECURSION) {
            return NULL;
        }
        /* Allocate first, then copy with nothing allocating in between: the allocation can run a collection,
         * whose finalizers may shrink `v` (list.clear(v) works on a JsonArray), and a copy of the size read
         * before it would read freed slots (PyList_GetSlice does exactly that). A size changed by then is a
         * miss: the Python walk copies what the array holds now. */
        n = PyList_GET_SIZE(v);
        out = PyList_New(n);  /* an exact list */
        if (out == NULL) {
            return NULL;
        }
        if (PyList_GET_SIZE(v) != n) {
            Py_DECREF(out);
            return NULL;
        }
        for (i = 0; i < n; i++) {
            PyList_SET_ITEM(out, i, Py_NewRef(PyList_GET_ITEM(v, i)));
        }
        for (i = 0; i < n; i++) {
            value = PyList_GET_ITEM(out, i);
            t = Py_TYPE(value);
            if (t != JsonObject_Type && t != JsonArray_Type) {
                continue;
            }
            copy = cb_thaw_value(value, depth + 1);
            if (copy == NULL) {
                Py_DECREF(out);
                return NULL;
            }
            /* `out` is ours alone: no other code can have changed it since the size check. */
            PyList_SET_ITEM(out, i, copy);
            Py_DECREF(value);
        }
        return out;
    }
    return Py_NewRef(v);
}

PyDoc_STRVAR(thaw_doc,
"thaw(value, miss, /)\n--\n\n"
"A plain dict/list deep copy of a value built of JsonObject and JsonArray, or `miss` if it nests deeper\n"
"than this function recurses (the Python walk then copies it).");

static PyObject *
speedups_thaw(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *out;

    if (!check_nargs("thaw", nargs, 2) || !setup_done()) {
        return NULL;
    }
    out = cb_thaw_value(args[0], 0);
    if (out == NULL && !PyErr_Occurred()) {
        return Py_NewRef(args[1]);
    }
    return out;
}

PyDoc_STRVAR(unique_pairs_doc,
"unique_pairs(on_duplicate, pairs, /)\n--\n\n"
"A dict of a list of (key, value) pairs, as json's object_pairs_hook gets them (bind `on_duplicate`\n"
"with functools.partial); when a key repeats, what on_duplicate(pairs) returns (it is expected to raise).");

static PyObject *
speedups_unique_pairs(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *out, *pair, *pairs;
    Py_ssize_t i, n;

    if (!check_nargs("unique_pairs", nargs, 2)) {
        return NULL;
    }
    pairs = args[1];
    if (!PyList_CheckExact(pairs)) {
        PyErr_SetString(PyExc_TypeError, "unique_pairs() takes a list of pairs");
        return NULL;
    }
    out = PyDict_New();
    if (out == NULL) {
        return NULL;
    }
    /* json passes exact str keys, whose hashing runs no Python code; a caller passing other keys could
     * change `pairs` from their __hash__ or __eq__, so the size is read at each step and each pair held. */
    for (i = 0; i < PyList_GET_SIZE(pairs); i++) {
        pair = Py_NewRef(PyList_GET_ITEM(pairs, i));
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            Py_DECREF(pair);
            Py_DECREF(out);
            PyErr_SetString(PyExc_TypeError, "unique_pairs() takes a list of 2-tuples");
            return NULL;
        }
        if (PyDict_SetItem(out, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)) < 0) {
            Py_DECREF(pair);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(pair);
    }
    n = PyList_GET_SIZE(pairs);
    if (PyDict_GET_SIZE(out) != n) {
        Py_DECREF(out);
        return PyObject_CallOneArg(args[0], pairs);
    }
    return out;
}

PyDoc_STRVAR(has_surrogate_doc,
"has_surrogate(text, /)\n--\n\n"
"Whether a str holds a surrogate code point (a lone surrogate: no UTF-8 encoder accepts it).");

static PyObject *
speedups_has_surrogate(PyObject *module, PyObject *text)
{
    if (!PyUnicode_Check(text)) {
        PyErr_SetString(PyExc_TypeError, "has_surrogate() takes a str");
        return NULL;
    }
    if (str_ready(text) < 0) {
        return NULL;
    }
    return PyBool_FromLong(!PyUnicode_IS_ASCII(text) && cb_has_surrogate(text));
}

PyMethodDef cb_json_values_methods[] = {
    {"has_surrogate", (PyCFunction)speedups_has_surrogate, METH_O, has_surrogate_doc},
    {"freeze", (PyCFunction)(void (*)(void))speedups_freeze, METH_FASTCALL, freeze_doc},
    {"thaw", (PyCFunction)(void (*)(void))speedups_thaw, METH_FASTCALL, thaw_doc},
    {"unique_pairs", (PyCFunction)(void (*)(void))speedups_unique_pairs, METH_FASTCALL, unique_pairs_doc},
    {NULL, NULL, 0, NULL},
};
