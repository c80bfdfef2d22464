/*
 * JSON text read into plain values: what json.loads returns for the same text, for text that is valid JSON
 * and valid UTF-8 with no duplicate key, no NaN or Infinity, no lone surrogate escape and at most READ_DEPTH
 * nested containers. cb.loads calls it first; on anything else it hands the text back and the standard
 * library's parser reads it again and words the problem, so the two paths give the same errors.
 */

#include "json_reader.h"

/* Deeper text is read by the standard library, whose recursion then decides, as it does on the pure path:
 * within this depth both parsers recurse once per container, so only a call stack with fewer free frames
 * than READ_DEPTH could tell them apart. Real documents (a conversation, its messages, their blocks, a tool's
 * input) nest far less. */
#define READ_DEPTH 48

/* The frames json.loads takes before its first container (JSONDecoder.decode, raw_decode and the scanner's
 * call): taken here too, so that a call stack near the recursion limit refuses the same texts either way. */
#define PARSER_FRAMES 3

static inline void
skip_space(Reader *r)
{
    while (r->p < r->end && (*r->p == ' ' || *r->p == '\n' || *r->p == '\r' || *r->p == '\t')) {
        r->p++;
    }
}

static PyObject *read_value(Reader *r);

static int
enter(Reader *r)
{
    if (r->depth >= READ_DEPTH) {
        return -1;
    }
    if (Py_EnterRecursiveCall(" while reading JSON")) {
        return -1;
    }
    r->depth++;
    r->p++;
    skip_space(r);
    return 0;
}

static void
leave(Reader *r)
{
    r->depth--;
    Py_LeaveRecursiveCall();
}

/* The memo's str for a key whose opening quote was read: a new reference, or NULL. */
static PyObject *
memo_key(Reader *r)
{
    PyObject *key, *read = cb_read_json_string(r);

    if (read == NULL) {
        return NULL;
    }
    key = PyDict_SetDefault(r->memo, read, read);
    Py_XINCREF(key);
    Py_DECREF(read);
    return key;
}

/* A key whose opening quote was read, as memo_key reads it; a short plain one is looked up among the recent
 * keys first, and a key read from the text goes into its slot. memo_key returns plain ASCII for plain bytes,
 * so a kept key's characters are its bytes. */
static PyObject *
read_key(Reader *r)
{
    const unsigned char *start = r->p, *q = cb_plain_run_end(start, r->end, 0);
    Py_ssize_t size = q - start, i;
    size_t hash = (size_t)size;
    PyObject **slot, *key;

    if (q >= r->end || *q != '"' || size > RECENT_KEY_LONGEST) {
        return memo_key(r);
    }
    for (i = 0; i < size; i++) {
        hash = (hash * 31) ^ start[i];
    }
    slot = &r->recent_keys[(hash ^ (hash >> 8)) & (RECENT_KEY_SLOTS - 1)];
    if (*slot != NULL && PyUnicode_GET_LENGTH(*slot) == size &&
        memcmp(PyUnicode_1BYTE_DATA(*slot), start, (size_t)size) == 0) {
        r->p = q + 1;
        return Py_NewRef(*slot);
    }
    key = memo_key(r);
    if (key != NULL) {
        Py_XSETREF(*slot, Py_NewRef(key));
    }
    return key;
}

static PyObject *
read_object(Reader *r)
{
    PyObject *obj, *key, *value;
    Py_ssize_t size;

    if (enter(r) < 0) {
        return NULL;
    }
    obj = PyDict_New();
    if (obj == NULL) {
        goto fail;
    }
    if (r->p < r->end && *r->p == '}') {
        r->p++;
        leave(r);
        return obj;
    }
    for (;;) {
        if (r->p >= r->end || *r->p != '"') {
            goto fail;
        }
        r->p++;
        key = read_key(r);
        if (key == NULL) {
            goto fail;
        }
        skip_space(r);
        if (r->p >= r->end || *r->p != ':') {
            Py_DECREF(key);
            goto fail;
        }
        r->p++;
        value = read_value(r);
        if (value == NULL) {
            Py_DECREF(key);
            goto fail;
        }
        size = PyDict_GET_SIZE(obj);
        if (PyDict_SetItem(obj, key, value) < 0 || PyDict_GET_SIZE(obj) == size) {
            /* a duplicate key (json's hook refuses it) when the size stayed */
            Py_DECREF(key);
            Py_DECREF(value);
            goto fail;
        }
        Py_DECREF(key);
        Py_DECREF(value);
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            skip_space(r);
            continue;
        }
        if (r->p < r->end && *r->p == '}') {
            r->p++;
            leave(r);
            return obj;
        }
        goto fail;
    }
fail:
    Py_XDECREF(obj);
    leave(r);
    return NULL;
}

static PyObject *
read_array(Reader *r)
{
    PyObject *array, *value;

    if (enter(r) < 0) {
        return NULL;
    }
    array = PyList_New(0);
    if (array == NULL) {
        goto fail;
    }
    if (r->p < r->end && *r->p == ']') {
        r->p++;
        leave(r);
        return array;
    }
    for (;;) {
        value = read_value(r);
        if (value == NULL) {
            goto fail;
        }
        if (PyList_Append(array, value) < 0) {
            Py_DECREF(value);
            goto fail;
        }
        Py_DECREF(value);
        skip_space(r);
        if (r->p < r->end && *r->p == ',') {
            r->p++;
            continue;
        }
        if (r->p < r->end && *r->p == ']') {
            r->p++;
            leave(r);
            return array;
        }
        goto fail;
    }
fail:
    Py_XDECREF(array);
    leave(r);
    return NULL;
}

static PyObject *
read_word(Reader *r, const char *word, Py_ssize_t size, PyObject *value)
{
    if (r->end - r->p < size || memcmp(r->p, word, (size_t)size) != 0) {
        return NULL;
    }
    r->p += size;
    return Py_NewRef(value);
}

static PyObject *
read_value(Reader *r)
{
    skip_space(r);
    if (r->p >= r->end) {
        return NULL;
    }
    switch (*r->p) {
    case '{':
        return read_object(r);
    case '[':
        return read_array(r);
    case '"':
        r->p++;
        return cb_read_json_string(r);
    case 't':
        return read_word(r, "true", 4, Py_True);
    case 'f':
        return read_word(r, "false", 5, Py_False);
    case 'n':
        return read_word(r, "null", 4, Py_None);
    default:
        return cb_read_json_number(r); /* NULL for anything that does not start like one, NaN and Infinity included */
    }
}

PyDoc_STRVAR(read_json_doc,
"read_json(text, miss, /)\n--\n\n"
"The value of JSON text (exact str or bytes) as json.loads builds it, or `miss` for text it does not read:\n"
"not JSON or not UTF-8, a duplicate key, NaN or Infinity, a lone surrogate escape, an integer int() refuses,\n"
"nesting past its depth or the recursion limit. The standard library's parser words those.");

static PyObject *
speedups_read_json(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *text, *utf8 = NULL, *value = NULL;
    Reader r = {0};
    int frames, slot;

    if (!check_nargs("read_json", nargs, 2)) {
        return NULL;
    }
    text = args[0];
    if (PyBytes_CheckExact(text)) {
        r.p = (const unsigned char *)PyBytes_AS_STRING(text);
        r.end = r.p + PyBytes_GET_SIZE(text);
    }
    else if (PyUnicode_CheckExact(text)) {
        if (str_ready(text) < 0) {
            return NULL;
        }
        if (PyUnicode_IS_ASCII(text)) {
            r.p = PyUnicode_1BYTE_DATA(text);
            r.end = r.p + PyUnicode_GET_LENGTH(text);
        }
        else {
            /* A copy that lives for this call only (the str would keep a cached one as long as it lives). */
            utf8 = PyUnicode_AsUTF8String(text);
            if (utf8 == NULL) {
                if (!PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
                    return NULL;
                }
                PyErr_Clear(); /* a lone surrogate in the str itself */
                return Py_NewRef(args[1]);
            }
            r.p = (const unsigned char *)PyBytes_AS_STRING(utf8);
            r.end = r.p + PyBytes_GET_SIZE(utf8);
        }
    }
    else {
        return Py_NewRef(args[1]);
    }
    r.memo = PyDict_New();
    if (r.memo == NULL) {
        Py_XDECREF(utf8);
        return NULL;
    }
    for (frames = 0; frames < PARSER_FRAMES && !Py_EnterRecursiveCall(" while reading JSON"); frames++) {
    }
    if (frames == PARSER_FRAMES) {
        value = read_value(&r);
        if (value != NULL) {
            skip_space(&r);
            if (r.p != r.end) {
                Py_CLEAR(value);
            }
        }
    }
    while (frames-- > 0) {
        Py_LeaveRecursiveCall();
    }
    for (slot = 0; slot < RECENT_KEY_SLOTS; slot++) {
        Py_XDECREF(r.recent_keys[slot]);
    }
    Py_DECREF(r.memo);
    Py_XDECREF(utf8);
    PyMem_Free(r.scratch);
    if (value != NULL) {
        return value;
    }
    /* Recursion running out, int()'s digit limit and invalid UTF-8 are the parser's to word; an exhausted
     * memory is not a property of the text. */
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_RecursionError) && !PyErr_ExceptionMatches(PyExc_ValueError)) {
            return NULL;
        }
        PyErr_Clear();
    }
    return Py_NewRef(args[1]);
}

PyMethodDef cb_json_reader_methods[] = {
    {"read_json", (PyCFunction)(void (*)(void))speedups_read_json, METH_FASTCALL, read_json_doc},
    {NULL, NULL, 0, NULL},
};
