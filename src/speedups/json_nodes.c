/* Counting the values of a JSON value without copying it: how cb_freeze refuses a value past max_nodes at
 * the cost of a walk that allocates nothing, and how node_overflow() tells the Python side where the limit
 * was crossed, so that neither a copy nor a Python walk reads the value again to find it. */

#include "speedups.h"
#include <math.h>

#define WALKED 0   /* no container took the count past max_nodes */
#define OVER 1     /* a container did */
#define DOUBT 2    /* checking: a value the Python valid-path walk doubts came first */

typedef struct {
    Py_ssize_t max_chars;
    Py_ssize_t max_nodes;
    Py_ssize_t nodes;
    int max_depth;
    PyObject *keys;  /* checking: a list, which gets the keys to the container past the limit, innermost first */
} Count;

/* 1 if a scalar is what the Python valid-path walk takes without doubt, 0 if not, -1 on error. */
static int
scalar_ok(PyObject *v, Py_ssize_t max_chars)
{
    PyTypeObject *t = Py_TYPE(v);

    if (t == &PyUnicode_Type) {
        return cb_text_within(v, max_chars);
    }
    if (t == &PyFloat_Type) {
        return isfinite(PyFloat_AS_DOUBLE(v)) ? 1 : 0;
    }
    if (t == &PyLong_Type) {
        return cb_int_fits(v);
    }
    return v == Py_True || v == Py_False || v == Py_None;
}

static int count_value(PyObject *v, Count *count, int depth);

/* An item of a container at `depth`, reached by `key`: WALKED, OVER (its key recorded), DOUBT or -1. */
static int
count_item(PyObject *key, PyObject *item, Count *count, int depth)
{
    PyTypeObject *t = Py_TYPE(item);
    int found, ok;

    if (t == &PyDict_Type || t == &PyList_Type || t == &PyTuple_Type
        || (count->keys == NULL && (t == JsonObject_Type || t == JsonArray_Type))) {
        if (depth >= count->max_depth) {
            return count->keys == NULL ? WALKED : DOUBT;  /* too deep: the copy or the Python walk says so */
        }
        found = count_value(item, count, depth + 1);
        if (found == OVER && count->keys != NULL && PyList_Append(count->keys, key) < 0) {
            return -1;
        }
        return found;
    }
    if (count->keys == NULL) {
        return WALKED;
    }
    ok = scalar_ok(item, count->max_chars);
    return ok < 0 ? -1 : ok ? WALKED : DOUBT;
}

/* A container `depth` deep (the root is 1), of a type count_item or cb_count_nodes let through. */
static int
count_value(PyObject *v, Count *count, int depth)
{
    PyObject *key, *item, *index;
    Py_ssize_t pos = 0, i;
    int found, ok;

    if (PyDict_Check(v)) {
        count->nodes += PyDict_GET_SIZE(v);
        if (count->nodes > count->max_nodes) {
            return OVER;
        }
        while (PyDict_Next(v, &pos, &key, &item)) {
            if (count->keys != NULL) {
                ok = PyUnicode_CheckExact(key) ? cb_text_within(key, count->max_chars) : 0;
                if (ok != 1) {
                    return ok < 0 ? -1 : DOUBT;
                }
            }
            Py_INCREF(key);
            Py_INCREF(item);
            found = count_item(key, item, count, depth);
            Py_DECREF(key);
            Py_DECREF(item);
            if (found != WALKED) {
                return found;
            }
        }
        return WALKED;
    }
    count->nodes += PySequence_Fast_GET_SIZE(v);
    if (count->nodes > count->max_nodes) {
        return OVER;
    }
    /* A finalizer run by a collection may shrink a list: its size is read at each step. */
    for (i = 0; i < PySequence_Fast_GET_SIZE(v); i++) {
        item = Py_NewRef(PySequence_Fast_GET_ITEM(v, i));
        index = NULL;
        if (count->keys != NULL) {
            index = PyLong_FromSsize_t(i);
            if (index == NULL) {
                Py_DECREF(item);
                return -1;
            }
        }
        found = count_item(index, item, count, depth);
        Py_XDECREF(index);
        Py_DECREF(item);
        if (found != WALKED) {
            return found;
        }
    }
    return WALKED;
}

int
cb_count_nodes(PyObject *value, Py_ssize_t max_chars, Py_ssize_t max_depth, Py_ssize_t max_nodes, PyObject *keys)
{
    PyTypeObject *t = Py_TYPE(value);
    Count count;

    if (max_depth > MAX_RECURSION || max_depth < 1
        || !(t == &PyDict_Type || t == &PyList_Type || t == &PyTuple_Type || t == JsonObject_Type
             || t == JsonArray_Type)) {
        return WALKED;
    }
    count.max_chars = max_chars;
    count.max_nodes = max_nodes;
    count.nodes = 1;
    count.max_depth = (int)max_depth;
    count.keys = keys;
    return count_value(value, &count, 1);
}

PyDoc_STRVAR(node_overflow_doc,
"node_overflow(value, max_chars, max_depth, max_nodes, /)\n--\n\n"
"The keys (str for objects, int for arrays) from `value` down to the container whose items take the count\n"
"of values past max_nodes, when that is the first thing the Python valid-path walk of _json/_freeze.py doubts;\n"
"None otherwise (the value is valid, or something else comes first: the Python walks then read it).");

static PyObject *
speedups_node_overflow(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Py_ssize_t max_chars, max_depth, max_nodes;
    PyObject *keys;
    int found;

    if (!check_nargs("node_overflow", nargs, 4) || !setup_done()) {
        return NULL;
    }
    if (cb_size_limit(args[1], "node_overflow() max_chars", &max_chars) < 0
        || cb_size_limit(args[2], "node_overflow() max_depth", &max_depth) < 0
        || cb_size_limit(args[3], "node_overflow() max_nodes", &max_nodes) < 0) {
        return NULL;
    }
    keys = PyList_New(0);
    if (keys == NULL) {
        return NULL;
    }
    found = cb_count_nodes(args[0], max_chars, max_depth, max_nodes, keys);
    if (found == OVER && PyList_Reverse(keys) == 0) {
        return keys;
    }
    Py_DECREF(keys);
    if (found < 0 || PyErr_Occurred()) {
        return NULL;
    }
    Py_RETURN_NONE;
}

PyMethodDef cb_json_nodes_methods[] = {
    {"node_overflow", (PyCFunction)(void (*)(void))speedups_node_overflow, METH_FASTCALL, node_overflow_doc},
    {NULL, NULL, 0, NULL},
};
