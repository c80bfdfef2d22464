/* Shared by the units of contentblocks._speedups: see module.c for what the extension is and is not. */

#ifndef CONTENTBLOCKS_SPEEDUPS_H
#define CONTENTBLOCKS_SPEEDUPS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* The deepest any walk recurses; max_depth is capped at 500 (501 with metadata), deeper values are handed
 * back to the Python walks, which use an explicit stack. */
#define MAX_RECURSION 1000

/* The read-only container types of _json.py, given by setup(). */
extern PyTypeObject *JsonObject_Type;
extern PyTypeObject *JsonArray_Type;
extern PyObject *empty_tuple;

int check_nargs(const char *name, Py_ssize_t nargs, Py_ssize_t expected);

/* A size limit given as an int, in *out: a limit too large for a Py_ssize_t is PY_SSIZE_T_MAX, which no size
 * reaches either, so a converter's limits are taken as they are however large. 0, or -1 with an exception:
 * TypeError for a value that is not an int, ValueError naming `what` (e.g. "freeze() max_depth") for a
 * negative one. */
int cb_size_limit(PyObject *value, const char *what, Py_ssize_t *out);

/* Make a str's data readable: legacy strings need PyUnicode_READY before 3.12, which has none. 0 on success,
 * -1 with an exception set. */
static inline int
str_ready(PyObject *s)
{
#if PY_VERSION_HEX < 0x030C0000
    return PyUnicode_READY(s);
#else
    (void)s;
    return 0;
#endif
}
int setup_done(void);

/* Each unit's functions, added to the module by module.c. */
extern PyMethodDef cb_json_values_methods[];
extern PyMethodDef cb_maker_methods[];
extern PyMethodDef cb_base64_methods[];
extern PyMethodDef cb_json_writer_methods[];
extern PyMethodDef cb_json_reader_methods[];
extern PyMethodDef cb_unstructure_methods[];

int cb_maker_init(void);
int cb_unstructure_init(void);
void cb_base64_init(void);
void cb_json_reader_init(void);

/* Shared between units. cb_thaw_value: the plain dict/list copy of a frozen JSON value `depth` containers
 * down, a new reference, NULL without an exception on a miss. cb_b64encode: the base64 str of exact bytes. */
PyObject *cb_thaw_value(PyObject *v, int depth);
PyObject *cb_b64encode(PyObject *data);

/* 1 if a ready str holds a lone surrogate (any UTF-16 surrogate code point: Python strings hold no pairs). */
int cb_has_surrogate(PyObject *s);

/* 1 if an exact str is at most `max` characters long and holds no lone surrogate (what every string of the
 * wire format must be, JSON strings included), 0 if not, -1 on error. */
static inline int
cb_text_within(PyObject *s, Py_ssize_t max)
{
    if (str_ready(s) < 0) {
        return -1;
    }
    if (PyUnicode_GET_LENGTH(s) > max) {
        return 0;
    }
    return PyUnicode_IS_ASCII(s) || !cb_has_surrogate(s);
}

/* The offset of the object slot `name` of `cls` (its own or a base's: a T_OBJECT_EX member descriptor lying
 * inside the instance, and not read-only when `writable` is set), or a negative code for the caller to word:
 * SLOT_ERROR (the lookup raised; the exception is set), SLOT_NOT_OURS (no member descriptor of cls or a
 * base), SLOT_UNFIT (a member of the wrong kind). */
#define SLOT_ERROR (-1)
#define SLOT_NOT_OURS (-2)
#define SLOT_UNFIT (-3)
Py_ssize_t cb_object_slot(PyTypeObject *cls, PyObject *name, int writable);

#endif
