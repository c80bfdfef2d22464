/* * JSON text: what json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":")) writes, for
 * values built of exact dicts, lists, str, int, float, bool and None (and JsonObject/JsonArray). cb.dumps
 * uses it; anything else (a subclass, a non-string key, NaN, deep nesting) is handed back to json.
 * dumps_ascii_sorted writes what the same call with sort_keys=True writes (seals' canonical form uses it).
 */

#include "speedups.h"
#include <math.h>


typedef struct {
    char *data;
    Py_ssize_t size;
    Py_ssize_t capacity;
    int sort_keys;        /* objects' keys in code point order, as json.dumps(sort_keys=True) */
} Buffer;

static int
buffer_reserve(Buffer *buf, Py_ssize_t extra)
{
    Py_ssize_t needed = buf->size + extra;
    char *data;
    if (needed <= buf->capacity) {
        return 0;
    }
    if (extra > PY_SSIZE_T_MAX / 2 - buf->size) {
        PyErr_NoMemory();
        return -1;
    }
    /* Half as much again, not twice: a 20,000-block conversation's 19.5 MB of text then ends in a 20 MB
     * buffer, not a 32 MiB one, which glibc would map fresh from the kernel at every call (5,000 page
     * faults a call, against 950). */
    needed = needed > buf->capacity + buf->capacity / 2 ? needed : buf->capacity + buf->capacity / 2;
    data = PyMem_Realloc(buf->data, (size_t)needed);
    if (data == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    buf->data = data;
    buf->capacity = needed;
    return 0;
}

static int
buffer_write(Buffer *buf, const char *text, Py_ssize_t size)
{
    if (buffer_reserve(buf, size) < 0) {
        return -1;
    }
    memcpy(buf->data + buf->size, text, (size_t)size);
    buf->size += size;
    return 0;
}

static const char HEX[] = "0123456789abcdef";

static char *
write_u_escape(char *out, Py_UCS4 c)
{
    out[0] = '\\';
    out[1] = 'u';
    out[2] = HEX[(c >> 12) & 0xF];
    out[3] = HEX[(c >> 8) & 0xF];
    out[4] = HEX[(c >> 4) & 0xF];
    out[5] = HEX[c & 0xF];
    return out + 6;
}

/* A JSON string with every non-ASCII character escaped, as json's ascii encoder writes it. */
static int
write_string(Buffer *buf, PyObject *s)
{
    Py_ssize_t i, n, per;
    int kind;
    const void *data;
    const Py_UCS1 *ascii;
    Py_UCS4 c;
    char *out;

    if (str_ready(s) < 0) {
        return -1;
    }
    n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_IS_ASCII(s)) {
        /* Most strings need no escape at all (text, identifiers, base64): copied in one go. */
        ascii = PyUnicode_1BYTE_DATA(s);
        if (cb_plain_run_end(ascii, ascii + n, 1) == ascii + n) {
            if (n > PY_SSIZE_T_MAX - 2 || buffer_reserve(buf, n + 2) < 0) {
                if (!PyErr_Occurred()) {
                    PyErr_NoMemory();
                }
                return -1;
            }
            out = buf->data + buf->size;
            *out++ = '"';
            memcpy(out, ascii, (size_t)n);
            out += n;
            *out++ = '"';
            buf->size = out - buf->data;
            return 0;
        }
    }
    kind = PyUnicode_KIND(s);
    data = PyUnicode_DATA(s);
    /* At most 6 output characters per code point, 12 for one outside the BMP (a surrogate pair). */
    per = kind == PyUnicode_4BYTE_KIND ? 12 : 6;
    if (n > (PY_SSIZE_T_MAX - 2) / per || buffer_reserve(buf, per * n + 2) < 0) {
        if (!PyErr_Occurred()) {
            PyErr_NoMemory();
        }
        return -1;
    }
    out = buf->data + buf->size;
    *out++ = '"';
    for (i = 0; i < n; i++) {
        c = PyUnicode_READ(kind, data, i);
        if (c >= ' ' && c <= '~' && c != '\\' && c != '"') {
            *out++ = (char)c;
            continue;
        }
        switch (c) {
        case '\\': *out++ = '\\'; *out++ = '\\'; break;
        case '"': *out++ = '\\'; *out++ = '"'; break;
        case '\b': *out++ = '\\'; *out++ = 'b'; break;
        case '\f': *out++ = '\\'; *out++ = 'f'; break;
        case '\n': *out++ = '\\'; *out++ = 'n'; break;
        case '\r': *out++ = '\\'; *out++ = 'r'; break;
        case '\t': *out++ = '\\'; *out++ = 't'; break;
        default:
            if (c >= 0x10000) {
                c -= 0x10000;
                out = write_u_escape(out, 0xD800 | ((c >> 10) & 0x3FF));
                out = write_u_escape(out, 0xDC00 | (c & 0x3FF));
            }
            else {
                out = write_u_escape(out, c);
            }
        }
    }
    *out++ = '"';
    buf->size = out - buf->data;
    return 0;
}

/* The text of a float or an int, as their reprs give it; 0 on success, 1 to hand back (NaN), -1 on error. */
static int
write_number(Buffer *buf, PyObject *v, int is_float)
{
    PyObject *text;
    const char *utf8;
    char *repr;
    Py_ssize_t size;
    int overflow = 0, result;
    long long small;
    char digits[32];

    if (is_float) {
        if (!isfinite(PyFloat_AS_DOUBLE(v))) {
            return 1;
        }
        /* What float.__repr__ calls, without making a str of it. */
        repr = PyOS_double_to_string(PyFloat_AS_DOUBLE(v), 'r', 0, Py_DTSF_ADD_DOT_0, NULL);
        if (repr == NULL) {
            return -1;
        }
        result = buffer_write(buf, repr, (Py_ssize_t)strlen(repr));
        PyMem_Free(repr);
        return result;
    }
    small = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (small == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (overflow == 0) {
        size = snprintf(digits, sizeof(digits), "%lld", small);
        return buffer_write(buf, digits, size);
    }
    text = PyLong_Type.tp_repr(v);
    if (text == NULL) {
        return -1;
    }
    utf8 = PyUnicode_AsUTF8AndSize(text, &size);
    result = utf8 == NULL ? -1 : buffer_write(buf, utf8, size);
    Py_DECREF(text);
    return result;
}

static int write_value(Buffer *buf, PyObject *v, int depth, PyObject *part, PyObject *miss);

/* An object with its keys sorted, as json.dumps(sort_keys=True) writes it; 0, 1 or -1 as write_value. The
 * keys list holds the keys; comparing exact str keys, looking them up and writing run no Python code, so
 * `v` cannot change meanwhile and its values may be borrowed. */
static int
write_sorted_object(Buffer *buf, PyObject *v, int depth, PyObject *miss)
{
    PyObject *keys = PyDict_Keys(v), *key, *value;
    Py_ssize_t i, n;
    int result = 0;

    if (keys == NULL) {
        return -1;
    }
    n = PyList_GET_SIZE(keys);
    for (i = 0; i < n; i++) {
        if (!PyUnicode_CheckExact(PyList_GET_ITEM(keys, i))) {
            Py_DECREF(keys);
            return 1;
        }
    }
    if (PyList_Sort(keys) < 0 || buffer_write(buf, "{", 1) < 0) {
        Py_DECREF(keys);
        return -1;
    }
    for (i = 0; i < n && result == 0; i++) {
        key = PyList_GET_ITEM(keys, i);
        value = PyDict_GetItemWithError(v, key);
        if (value == NULL) {
            result = PyErr_Occurred() ? -1 : 1;
        }
        else if ((i > 0 && buffer_write(buf, ",", 1) < 0) || write_string(buf, key) < 0
                 || buffer_write(buf, ":", 1) < 0) {
            result = -1;
        }
        else {
            result = write_value(buf, value, depth + 1, NULL, miss);
        }
    }
    Py_DECREF(keys);
    return result != 0 ? result : buffer_write(buf, "}", 1);
}

/* 0 on success, 1 to hand the value back, -1 on error. `part` (or NULL) is called for a value of no JSON
 * type, and what it returns is written in its place (without further calls) and released at once: only the
 * top-level value and the items of a tuple, which cannot change while Python code runs, are offered to it. */
static int
write_value(Buffer *buf, PyObject *v, int depth, PyObject *part, PyObject *miss)
{
    PyTypeObject *t = Py_TYPE(v);
    PyObject *key, *value;
    Py_ssize_t pos = 0, i;
    int first = 1, result;

    if (t == &PyUnicode_Type) {
        return write_string(buf, v);
    }
    if (t == &PyLong_Type) {
        return write_number(buf, v, 0);
    }
    if (t == &PyFloat_Type) {
        return write_number(buf, v, 1);
    }
    if (v == Py_True) {
        return buffer_write(buf, "true", 4);
    }
    if (v == Py_False) {
        return buffer_write(buf, "false", 5);
    }
    if (v == Py_None) {
        return buffer_write(buf, "null", 4);
    }
    if (depth >= MAX_RECURSION) {
        return 1;
    }
    if (t == &PyDict_Type || t == JsonObject_Type) {
        if (buf->sort_keys && PyDict_GET_SIZE(v) > 1) {
            return write_sorted_object(buf, v, depth, miss);
        }
        if (buffer_write(buf, "{", 1) < 0) {
            return -1;
        }
        while (PyDict_Next(v, &pos, &key, &value)) {
            if (!PyUnicode_CheckExact(key)) {
                return 1;
            }
            if ((!first && buffer_write(buf, ",", 1) < 0) || write_string(buf, key) < 0
                || buffer_write(buf, ":", 1) < 0) {
                return -1;
            }
            first = 0;
            /* Writing runs no Python code (reprs of exact ints and floats): `v` cannot change meanwhile. */
            result = write_value(buf, value, depth + 1, NULL, miss);
            if (result != 0) {
                return result;
            }
        }
        return buffer_write(buf, "}", 1);
    }
    if (t == &PyList_Type || t == JsonArray_Type || t == &PyTuple_Type) {
        Py_ssize_t n = t == &PyTuple_Type ? PyTuple_GET_SIZE(v) : PyList_GET_SIZE(v);
        if (buffer_write(buf, "[", 1) < 0) {
            return -1;
        }
        for (i = 0; i < n; i++) {
            if (i > 0 && buffer_write(buf, ",", 1) < 0) {
                return -1;
            }
            value = t == &PyTuple_Type ? PyTuple_GET_ITEM(v, i) : PyList_GET_ITEM(v, i);
            result = write_value(buf, value, depth + 1, t == &PyTuple_Type ? part : NULL, miss);
            if (result != 0) {
                return result;
            }
        }
        return buffer_write(buf, "]", 1);
    }
    if (part != NULL) {
        value = PyObject_CallOneArg(part, v);
        if (value == NULL) {
            return -1;
        }
        result = value == miss ? 1 : write_value(buf, value, depth + 1, NULL, miss);
        Py_DECREF(value);
        return result;
    }
    return 1;
}

PyDoc_STRVAR(dumps_ascii_doc,
"dumps_ascii(value, miss, part=None, /)\n--\n\n"
"Compact, ASCII-only JSON text of a value built of exact JSON types (and JsonObject/JsonArray), exactly\n"
"as json.dumps(value, separators=(',', ':'), allow_nan=False) writes it; `miss` for anything else.\n"
"With `part`, an object of no JSON type at the top or in a tuple is written as `part(obj)`, which is\n"
"released once written (so a conversation's messages can be unstructured one at a time); `part`\n"
"returning `miss` hands the whole value back.");

static PyObject *
dumps(PyObject *value, PyObject *miss, PyObject *part, int sort_keys)
{
    Buffer buf = {NULL, 0, 0, sort_keys};
    PyObject *out = NULL;
    int result;

    if (!setup_done()) {
        return NULL;
    }
    if (buffer_reserve(&buf, 4096) < 0) {
        return NULL;
    }
    result = write_value(&buf, value, 0, part, miss);
    if (result == 0) {
        out = PyUnicode_New(buf.size, 127);
        if (out != NULL) {
            memcpy(PyUnicode_1BYTE_DATA(out), buf.data, (size_t)buf.size);
        }
    }
    else if (result == 1) {
        out = Py_NewRef(miss);
    }
    PyMem_Free(buf.data);
    return out;
}

static PyObject *
speedups_dumps_ascii(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 && nargs != 3) {
        PyErr_Format(PyExc_TypeError, "dumps_ascii() takes 2 or 3 arguments (%zd given)", nargs);
        return NULL;
    }
    return dumps(args[0], args[1], nargs == 3 && args[2] != Py_None ? args[2] : NULL, 0);
}

PyDoc_STRVAR(dumps_ascii_sorted_doc,
"dumps_ascii_sorted(value, miss, /)\n--\n\n"
"As dumps_ascii without `part`, every object's keys in code point order: exactly what\n"
"json.dumps(value, separators=(',', ':'), allow_nan=False, sort_keys=True) writes; `miss` for anything else.");

static PyObject *
speedups_dumps_ascii_sorted(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "dumps_ascii_sorted() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    return dumps(args[0], args[1], NULL, 1);
}

PyMethodDef cb_json_writer_methods[] = {
    {"dumps_ascii", (PyCFunction)(void (*)(void))speedups_dumps_ascii, METH_FASTCALL, dumps_ascii_doc},
    {"dumps_ascii_sorted", (PyCFunction)(void (*)(void))speedups_dumps_ascii_sorted, METH_FASTCALL,
     dumps_ascii_sorted_doc},
    {NULL, NULL, 0, NULL},
};
