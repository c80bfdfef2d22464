/*
 * Cross-field rules in the structurer's walk. A rule whose values meet the cannot-fail form the table
 * declares for it (every field absent, an empty tuple, items of the types a key field's value allows) holds
 * without a call; otherwise the walk calls the declaration's own Python check, which appends what is wrong
 * to a list, and an empty list means the rule holds. Which rule has which form is _conversion/_structure_table.py's
 * business: nothing here knows a rule.
 */

#include "structure.h"

/* The path the checks are called with: the walk reports no problem, so the path is never read. */
static PyObject *empty_path;

/* 1 if a cross rule holds for the values (without a call where they meet its cannot-fail form), 0 if not,
 * -1 on error. `values` are the fields' values, `raw` their raw values (NULL for absent keys). */
int
cb_cross_holds(const Cross *cross, PyObject **values, PyObject **raw)
{
    PyObject *args[2 + 2 * MAX_FIELDS], *problems, *result, *allowed, *content;
    Py_ssize_t i, n;
    int j, ok;

    switch (cross->form) {
    case C_ABSENT:
        for (j = 0; j < cross->nfields && values[cross->fields[j]] == Py_None; j++) {
        }
        if (j == cross->nfields) {
            return 1;
        }
        break;
    case C_EMPTY:
        if (PyTuple_CheckExact(values[cross->form_fields[0]]) && PyTuple_GET_SIZE(values[cross->form_fields[0]]) == 0) {
            return 1;
        }
        break;
    case C_ALLOWED_TYPES:
        if (!PyUnicode_CheckExact(values[cross->form_fields[0]])) {
            return 1;
        }
        /* A dict of exact str keys: looking a str up in it runs no code. */
        allowed = PyDict_GetItemWithError(cross->allowed, values[cross->form_fields[0]]);
        if (allowed == NULL) {
            return PyErr_Occurred() ? -1 : 1;
        }
        content = values[cross->form_fields[1]];
        if (PyTuple_CheckExact(content)) {
            n = PyTuple_GET_SIZE(content);
            for (i = 0; i < n; i++) {
                ok = PySet_Contains(allowed, (PyObject *)Py_TYPE(PyTuple_GET_ITEM(content, i)));
                if (ok != 1) {
                    if (ok < 0) {
                        return -1;
                    }
                    break;
                }
            }
            if (i == n) {
                return 1;
            }
        }
        break;
    default:
        break;
    }
    problems = PyList_New(0);
    if (problems == NULL) {
        return -1;
    }
    args[0] = problems;
    args[1] = empty_path;
    for (j = 0; j < cross->nfields; j++) {
        args[2 + j] = values[cross->fields[j]];
    }
    for (j = 0; j < cross->ngiven; j++) {
        args[2 + cross->nfields + j] = raw[cross->given[j]] == NULL ? Py_None : raw[cross->given[j]];
    }
    result = PyObject_Vectorcall(cross->check, args, (size_t)(2 + cross->nfields + cross->ngiven), NULL);
    if (result == NULL) {
        Py_DECREF(problems);
        return -1;
    }
    Py_DECREF(result);
    ok = PyList_GET_SIZE(problems) == 0;
    Py_DECREF(problems);
    return ok;
}

int
cb_cross_init(void)
{
    empty_path = PyUnicode_FromStringAndSize(NULL, 0);
    return empty_path == NULL ? -1 : 0;
}
