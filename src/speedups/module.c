/*
 * contentblocks._speedups: optional C versions of contentblocks' hottest loops.
 *
 * Each function stands in for a pure-Python one that stays in the package as the reference and the
 * authority on every message. The C functions only take the common path: on valid input they return
 * exactly what the Python code returns, and on anything else (a problem, a subclass, a limit reached)
 * they return the caller's `miss` object, and the caller runs the Python code, which finds and words the
 * problem. So no unit here formats an error or decides on its own that a value is invalid: at worst it
 * gives up and costs a little time.
 *
 * The units: json_values.c (freeze, thaw, the duplicate-key hook), maker.c (instances of checked fields),
 * base64.c (canonical base64), json_reader.c and json_writer.c (JSON text in and out), unstructure.c
 * (objects out as dicts, by a table the Python generator emits), structure.c and structure_table.c (raw
 * dicts in as instances, by another such table). No unit knows a wire key or a rule of the
 * format: those live in the Python declarations, and a change of the format never touches this code. The
 * walks recurse, but never deeper than MAX_RECURSION; references borrowed from the input are
 * taken as strong references before anything allocates, since an allocation can run a garbage collection
 * and with it arbitrary finalizers.
 */

#include "speedups.h"

PyTypeObject *JsonObject_Type = NULL;
PyTypeObject *JsonArray_Type = NULL;
PyObject *empty_tuple = NULL;

int
check_nargs(const char *name, Py_ssize_t nargs, Py_ssize_t expected)
{
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly %zd arguments (%zd given)", name, expected, nargs);
        return 0;
    }
    return 1;
}

int
cb_size_limit(PyObject *value, const char *what, Py_ssize_t *out)
{
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);

    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow > 0) {
        *out = PY_SSIZE_T_MAX;
        return 0;
    }
    if (overflow < 0 || v < 0) {
        /* Not the value: its str() could be thousands of digits long, or refuse to be made. */
        PyErr_Format(PyExc_ValueError, "%s must not be negative", what);
        return -1;
    }
    *out = v > PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX : (Py_ssize_t)v;
    return 0;
}

int
setup_done(void)
{
    if (JsonObject_Type == NULL || JsonArray_Type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "contentblocks._speedups.setup() has not been called");
        return 0;
    }
    return 1;
}

PyDoc_STRVAR(setup_doc,
"setup(json_object, json_array, /)\n--\n\n"
"Give the module the read-only container types it builds; _json/_values.py calls it once at import.");

static PyObject *
speedups_setup(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (!check_nargs("setup", nargs, 2)) {
        return NULL;
    }
    if (!PyType_Check(args[0]) || !PyType_IsSubtype((PyTypeObject *)args[0], &PyDict_Type)
        || !PyType_Check(args[1]) || !PyType_IsSubtype((PyTypeObject *)args[1], &PyList_Type)) {
        PyErr_SetString(PyExc_TypeError, "setup() takes a dict subclass and a list subclass");
        return NULL;
    }
    Py_XSETREF(JsonObject_Type, (PyTypeObject *)Py_NewRef(args[0]));
    Py_XSETREF(JsonArray_Type, (PyTypeObject *)Py_NewRef(args[1]));
    Py_RETURN_NONE;
}

static PyMethodDef speedups_methods[] = {
    {"setup", (PyCFunction)(void (*)(void))speedups_setup, METH_FASTCALL, setup_doc},
    {NULL, NULL, 0, NULL},
};
static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "contentblocks._speedups",
    .m_doc = "Optional C versions of contentblocks' JSON-value walks; the Python ones in _json/_values.py are the reference.",
    .m_size = -1,
    .m_methods = speedups_methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    PyObject *module;

    if (empty_tuple == NULL) {
        empty_tuple = PyTuple_New(0);
        if (empty_tuple == NULL) {
            return NULL;
        }
    }
    cb_base64_init();
    if (cb_maker_init() < 0 || cb_unstructure_init() < 0 || cb_structure_init() < 0) {
        return NULL;
    }
    module = PyModule_Create(&speedups_module);
    if (module == NULL) {
        return NULL;
    }
    if (PyModule_AddFunctions(module, cb_json_values_methods) < 0
        || PyModule_AddFunctions(module, cb_json_nodes_methods) < 0
        || PyModule_AddFunctions(module, cb_maker_methods) < 0
        || PyModule_AddFunctions(module, cb_base64_methods) < 0
        || PyModule_AddFunctions(module, cb_json_writer_methods) < 0
        || PyModule_AddFunctions(module, cb_json_reader_methods) < 0
        || PyModule_AddFunctions(module, cb_unstructure_methods) < 0
        || PyModule_AddFunctions(module, cb_structure_methods) < 0
        || cb_structure_capabilities(module) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
