/*
 * Text blocks and their citations, for the message reader (messages.c): the plain valid shape read in C,
 * anything else a miss. The Python bodies in _bodies.py are the reference for every rule applied here.
 */

#include "messages.h"

/* Each of these returns a new reference, or NULL: with an exception on an error, without one on a miss.
 * Everything borrowed from the input is held before Python code may run (a rule, a reader, an allocation). */

static PyObject *
read_citation(MessageReader *r, PyObject *raw, Py_ssize_t text_length)
{
    /* source, kind, value, title, quote, start, end: all held once read, and built from as read */
    PyObject *v[7] = {NULL}, *source = NULL, *problem, *out = NULL;
    Py_ssize_t expected, s, e;
    int i, error = 0, ok = 0;

    if (!PyDict_CheckExact(raw) || !str_keys(raw)) {
        return NULL;
    }
    v[0] = get(r, raw, K_SOURCE, &error);
    v[3] = get(r, raw, K_TITLE, &error);
    v[4] = get(r, raw, K_QUOTE, &error);
    v[5] = get(r, raw, K_START, &error);
    v[6] = get(r, raw, K_END, &error);
    if (error || v[0] == NULL || !PyDict_CheckExact(v[0]) || PyDict_GET_SIZE(v[0]) != 2 || !str_keys(v[0])) {
        return NULL;
    }
    v[1] = get(r, v[0], K_KIND, &error);
    v[2] = get(r, v[0], K_VALUE, &error);
    if (error || v[1] == NULL || v[2] == NULL) {
        return NULL;
    }
    expected = 1 + (v[3] != NULL) + (v[4] != NULL) + (v[5] != NULL) + (v[6] != NULL);
    if (PyDict_GET_SIZE(raw) != expected || (v[5] == NULL) != (v[6] == NULL)) {
        return NULL;
    }
    for (i = 0; i < 7; i++) {
        Py_XINCREF(v[i]);
    }
    if (!PyUnicode_CheckExact(v[1]) || !PyUnicode_CheckExact(v[2])) {
        goto done;
    }
    if ((v[3] != NULL && trimmed_text(v[3], r->max_chars) <= 0) || (v[4] != NULL && plain_text(v[4], r->max_chars) <= 0)) {
        goto done;
    }
    if (v[5] != NULL) {
        if (!PyLong_CheckExact(v[5]) || !PyLong_CheckExact(v[6])) {
            goto done;
        }
        /* An int beyond Py_ssize_t is beyond any text, so an overflow is a miss (the Python path words it). */
        s = PyLong_AsSsize_t(v[5]);
        if (s == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            goto done;
        }
        e = PyLong_AsSsize_t(v[6]);
        if (e == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            goto done;
        }
        if (s < 0 || s > e || e > text_length) {
            goto done;
        }
    }
    if (PyUnicode_CompareWithASCIIString(v[1], "uri") == 0) {
        problem = PyObject_CallOneArg(OBJ(r, A_URI_PROBLEM), v[2]);
        if (problem != NULL) {
            ok = problem == Py_None;
            Py_DECREF(problem);
        }
        if (ok) {
            source = PyObject_CallOneArg(OBJ(r, A_NEW_CITED_URI), v[2]);
        }
    }
    else if (PyUnicode_CompareWithASCIIString(v[1], "reference") == 0 && trimmed_text(v[2], r->max_uri) > 0) {
        source = PyObject_CallOneArg(OBJ(r, A_NEW_CITED_REFERENCE), v[2]);
    }
    if (source != NULL) {
        PyObject *args[5] = {source, v[3] ? v[3] : Py_None, v[4] ? v[4] : Py_None, v[5] ? v[5] : Py_None,
                             v[6] ? v[6] : Py_None};
        out = PyObject_Vectorcall(OBJ(r, A_NEW_CITATION), args, 5, NULL);
        Py_DECREF(source);
    }
done:
    for (i = 0; i < 7; i++) {
        Py_XDECREF(v[i]);
    }
    return out;
}

PyObject *
cb_read_text(MessageReader *r, PyObject *raw, PyObject **problems)
{
    PyObject *text, *citations, *metadata, *items = NULL, *item, *meta = NULL, *out = NULL;
    Py_ssize_t i, n;
    int error = 0, ok;

    text = get(r, raw, K_TEXT, &error);
    citations = get(r, raw, K_CITATIONS, &error);
    metadata = get(r, raw, K_METADATA, &error);
    if (error || text == NULL
        || PyDict_GET_SIZE(raw) != 2 + (citations != NULL) + (metadata != NULL)
        || (citations != NULL && !PyList_CheckExact(citations))) {
        return NULL;
    }
    if ((ok = plain_text(text, r->max_chars)) <= 0) {
        return NULL;
    }
    Py_INCREF(raw);
    Py_INCREF(text);
    if (citations == NULL || PyList_GET_SIZE(citations) == 0) {
        items = Py_NewRef(empty_tuple);
    }
    else {
        Py_INCREF(citations);
        n = PyList_GET_SIZE(citations);
        items = PyTuple_New(n);
        for (i = 0; items != NULL && i < n; i++) {
            if (PyList_GET_SIZE(citations) != n) {  /* only Python code could have changed it */
                Py_CLEAR(items);
                break;
            }
            item = Py_NewRef(PyList_GET_ITEM(citations, i));
            PyTuple_SET_ITEM(items, i, read_citation(r, item, PyUnicode_GET_LENGTH(text)));
            Py_DECREF(item);
            if (PyTuple_GET_ITEM(items, i) == NULL) {
                Py_CLEAR(items);
            }
        }
        Py_DECREF(citations);
    }
    if (items != NULL) {
        meta = metadata_of(r, raw, metadata != NULL, problems);
    }
    if (meta != NULL && PyDict_GET_SIZE(raw) == 2 + (citations != NULL) + (metadata != NULL)) {
        PyObject *args[3] = {text, items, meta};
        out = PyObject_Vectorcall(OBJ(r, A_NEW_TEXT), args, 3, NULL);
    }
    Py_XDECREF(meta);
    Py_XDECREF(items);
    Py_DECREF(text);
    Py_DECREF(raw);
    return out;
}
