/*
 * contentblocks._speedups: optional C versions of the JSON-value walks in _json.py.
 *
 * The pure-Python walks in _json.py are the reference and the authority on every message. The functions
 * here only take the common path: when a value is valid they return exactly what the Python walk returns,
 * and on anything else (a problem, a subclass, a limit reached) they return the caller's `miss` object,
 * and the caller runs the Python walk, which finds and words the problem. So this file never formats an
 * error and never decides that a value is invalid on its own: at worst it gives up and costs a little time.
 *
 * The walks recurse, but never deeper than MAX_RECURSION: the library caps max_depth at 500 (501 with
 * metadata's extra level), and a deeper request is handed back to the Python walk, which uses an explicit
 * stack. Borrowed references from the input are taken as strong references before anything allocates,
 * since an allocation can run a garbage collection and with it arbitrary finalizers.
 */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <math.h>

#define MAX_RECURSION 1000

static PyTypeObject *JsonObject_Type = NULL;
static PyTypeObject *JsonArray_Type = NULL;
static PyObject *empty_tuple = NULL;

typedef struct {
    Py_ssize_t max_chars;
    Py_ssize_t max_nodes;
    Py_ssize_t nodes;
    int max_depth;
} Walk;

/* 1 if the string holds a UTF-16 surrogate code point (a lone surrogate: Python strings hold no pairs). */
static int
has_surrogate(PyObject *s)
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

/* 1 if `s` (an exact str) is a valid JSON string under the limits, 0 if not, -1 on error. */
static int
string_ok(PyObject *s, const Walk *walk)
{
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) {
        return -1;
    }
#endif
    if (PyUnicode_GET_LENGTH(s) > walk->max_chars) {
        return 0;
    }
    if (PyUnicode_IS_ASCII(s)) {
        return 1;
    }
    return !has_surrogate(s);
}

/* 1 if the exact int fits [-2**63, 2**64 - 1], 0 if not, -1 on error. */
static int
int_ok(PyObject *v)
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
        ok = PyUnicode_CheckExact(key) ? string_ok(key, walk) : 0;
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
        ok = string_ok(v, walk);
    }
    else if (t == &PyLong_Type) {
        ok = int_ok(v);
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

static int
check_nargs(const char *name, Py_ssize_t nargs, Py_ssize_t expected)
{
    if (nargs != expected) {
        PyErr_Format(PyExc_TypeError, "%s() takes exactly %zd arguments (%zd given)", name, expected, nargs);
        return 0;
    }
    return 1;
}

static int
setup_done(void)
{
    if (JsonObject_Type == NULL || JsonArray_Type == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "contentblocks._speedups.setup() has not been called");
        return 0;
    }
    return 1;
}

PyDoc_STRVAR(freeze_doc,
"freeze(value, max_chars, max_depth, max_nodes, miss, /)\n--\n\n"
"The read-only copy of a valid JSON value, built of JsonObject and JsonArray, or `miss` when the value\n"
"is not valid, is not built of exact built-in types, or reaches a limit (the Python walk then says why).");

static PyObject *
speedups_freeze(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Walk walk;
    long max_depth;
    PyObject *out;

    if (!check_nargs("freeze", nargs, 5) || !setup_done()) {
        return NULL;
    }
    walk.max_chars = PyLong_AsSsize_t(args[1]);
    if (walk.max_chars == -1 && PyErr_Occurred()) {
        return NULL;
    }
    max_depth = PyLong_AsLong(args[2]);
    if (max_depth == -1 && PyErr_Occurred()) {
        return NULL;
    }
    walk.max_nodes = PyLong_AsSsize_t(args[3]);
    if (walk.max_nodes == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (max_depth > MAX_RECURSION) {
        return Py_NewRef(args[4]);
    }
    walk.max_depth = (int)max_depth;
    walk.nodes = 1;
    out = freeze_value(args[0], &walk, 0);
    if (out == NULL && !PyErr_Occurred()) {
        return Py_NewRef(args[4]);
    }
    return out;
}

/* A plain dict/list deep copy of a frozen value, a new reference; NULL without an exception is a miss. */
static PyObject *
thaw_value(PyObject *v, int depth)
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
            copy = thaw_value(value, depth + 1);
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
        n = PyList_GET_SIZE(v);
        out = PyList_GetSlice(v, 0, n);  /* an exact list */
        if (out == NULL) {
            return NULL;
        }
        for (i = 0; i < PyList_GET_SIZE(out); i++) {
            value = PyList_GET_ITEM(out, i);
            t = Py_TYPE(value);
            if (t != JsonObject_Type && t != JsonArray_Type) {
                continue;
            }
            copy = thaw_value(value, depth + 1);
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
    out = thaw_value(args[0], 0);
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
    /* Setting items of a fresh dict with keys json made (exact str) runs no Python code: `pairs` cannot
     * change during the loop. */
    n = PyList_GET_SIZE(pairs);
    for (i = 0; i < n; i++) {
        pair = PyList_GET_ITEM(pairs, i);
        if (!PyTuple_CheckExact(pair) || PyTuple_GET_SIZE(pair) != 2) {
            Py_DECREF(out);
            PyErr_SetString(PyExc_TypeError, "unique_pairs() takes a list of 2-tuples");
            return NULL;
        }
        if (PyDict_SetItem(out, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)) < 0) {
            Py_DECREF(out);
            return NULL;
        }
    }
    if (PyDict_GET_SIZE(out) != n) {
        Py_DECREF(out);
        return PyObject_CallOneArg(args[0], pairs);
    }
    return out;
}

/* ---------------------------------------------------------------------------------------------------------
 * Maker: builds an instance of a slotted class from its field values, positionally, without running its
 * __init__ (the converter hooks have checked every field already). It does what the generated Python
 * constructor in _unchecked.py does, object.__new__(cls) and one slot __set__ per field, in one call.
 */

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

PyDoc_STRVAR(instance_maker_doc,
"instance_maker(cls, names, /)\n--\n\n"
"A callable taking the values of the slots `names` of `cls` positionally and returning a new instance\n"
"with them set, without calling __init__. Every name must be a writable object slot of cls itself or of\n"
"one of its bases, and cls must be a plain fixed-size class whose instances object.__new__ can build.");

static PyObject *
speedups_instance_maker(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyTypeObject *cls;
    PyObject *names, *descr;
    PyMemberDef *member;
    Maker *maker;
    Py_ssize_t i, n;

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
        descr = PyObject_GetAttr((PyObject *)cls, PyTuple_GET_ITEM(names, i));
        if (descr == NULL) {
            Py_DECREF(maker);
            return NULL;
        }
        if (!Py_IS_TYPE(descr, &PyMemberDescr_Type)
            || !PyType_IsSubtype(cls, PyDescr_TYPE(descr))) {
            Py_DECREF(descr);
            Py_DECREF(maker);
            PyErr_Format(PyExc_TypeError, "%R is not a slot of %s", PyTuple_GET_ITEM(names, i), cls->tp_name);
            return NULL;
        }
        member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type != T_OBJECT_EX || (member->flags & READONLY)
            || member->offset < (Py_ssize_t)sizeof(PyObject)
            || member->offset + (Py_ssize_t)sizeof(PyObject *) > cls->tp_basicsize) {
            Py_DECREF(descr);
            Py_DECREF(maker);
            PyErr_Format(PyExc_TypeError, "%R is not a writable object slot of %s", PyTuple_GET_ITEM(names, i),
                         cls->tp_name);
            return NULL;
        }
        maker->offsets[i] = member->offset;
        Py_DECREF(descr);
    }
    return (PyObject *)maker;
}

/* ---------------------------------------------------------------------------------------------------------
 * Base64: canonical, padded, standard-alphabet text only. binascii runs at about 400 MB/s here and its
 * strict decoder at less; these loops run several times faster. As everywhere in this file, decoding
 * answers only for valid text and hands anything else back, for _rules.check_base64 to word.
 */

static const char B64_ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static signed char B64_VALUES[256];

static void
b64_init(void)
{
    int i;
    for (i = 0; i < 256; i++) {
        B64_VALUES[i] = -1;
    }
    for (i = 0; i < 64; i++) {
        B64_VALUES[(unsigned char)B64_ALPHABET[i]] = (signed char)i;
    }
}

PyDoc_STRVAR(b64decode_doc,
"b64decode(text, miss, /)\n--\n\n"
"The bytes of canonical base64 text (standard alphabet, padded, zero pad bits), or `miss` for anything\n"
"else, including a str subclass.");

static PyObject *
speedups_b64decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *text, *out;
    const unsigned char *src;
    unsigned char *dst;
    Py_ssize_t i, n, full, size;
    int a, b, c, d, pad = 0;

    if (!check_nargs("b64decode", nargs, 2)) {
        return NULL;
    }
    text = args[0];
    if (!PyUnicode_CheckExact(text)) {
        return Py_NewRef(args[1]);
    }
#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(text) < 0) {
        return NULL;
    }
#endif
    n = PyUnicode_GET_LENGTH(text);
    if (!PyUnicode_IS_ASCII(text) || n % 4 != 0) {
        return Py_NewRef(args[1]);
    }
    if (n == 0) {
        return PyBytes_FromStringAndSize(NULL, 0);
    }
    src = PyUnicode_1BYTE_DATA(text);
    if (src[n - 1] == '=') {
        pad = src[n - 2] == '=' ? 2 : 1;
    }
    size = n / 4 * 3 - pad;
    out = PyBytes_FromStringAndSize(NULL, size);
    if (out == NULL) {
        return NULL;
    }
    dst = (unsigned char *)PyBytes_AS_STRING(out);
    full = pad ? n - 4 : n;
    for (i = 0; i < full; i += 4) {
        a = B64_VALUES[src[i]];
        b = B64_VALUES[src[i + 1]];
        c = B64_VALUES[src[i + 2]];
        d = B64_VALUES[src[i + 3]];
        if ((a | b | c | d) < 0) {
            goto miss;
        }
        dst[0] = (unsigned char)(a << 2 | b >> 4);
        dst[1] = (unsigned char)((b & 0x0F) << 4 | c >> 2);
        dst[2] = (unsigned char)((c & 0x03) << 6 | d);
        dst += 3;
    }
    if (pad == 1) {  /* xyz= : two bytes, the last two bits of z must be zero */
        a = B64_VALUES[src[n - 4]];
        b = B64_VALUES[src[n - 3]];
        c = B64_VALUES[src[n - 2]];
        if ((a | b | c) < 0 || (c & 0x03) != 0) {
            goto miss;
        }
        dst[0] = (unsigned char)(a << 2 | b >> 4);
        dst[1] = (unsigned char)((b & 0x0F) << 4 | c >> 2);
    }
    else if (pad == 2) {  /* xy== : one byte, the last four bits of y must be zero */
        a = B64_VALUES[src[n - 4]];
        b = B64_VALUES[src[n - 3]];
        if ((a | b) < 0 || (b & 0x0F) != 0) {
            goto miss;
        }
        dst[0] = (unsigned char)(a << 2 | b >> 4);
    }
    return out;
miss:
    Py_DECREF(out);
    return Py_NewRef(args[1]);
}

PyDoc_STRVAR(b64encode_doc,
"b64encode(data, /)\n--\n\n"
"The canonical base64 text (a str) of bytes: standard alphabet, padded, no newline.");

static PyObject *
speedups_b64encode(PyObject *module, PyObject *data)
{
    PyObject *out;
    const unsigned char *src;
    unsigned char *dst;
    Py_ssize_t i, n, rest;
    unsigned int v;

    if (!PyBytes_CheckExact(data)) {
        PyErr_SetString(PyExc_TypeError, "b64encode() takes bytes");
        return NULL;
    }
    n = PyBytes_GET_SIZE(data);
    if (n > (PY_SSIZE_T_MAX - 2) / 4 * 3) {
        return PyErr_NoMemory();
    }
    out = PyUnicode_New((n + 2) / 3 * 4, 127);
    if (out == NULL) {
        return NULL;
    }
    src = (const unsigned char *)PyBytes_AS_STRING(data);
    dst = PyUnicode_1BYTE_DATA(out);
    rest = n % 3;
    for (i = 0; i < n - rest; i += 3) {
        v = (unsigned int)src[i] << 16 | (unsigned int)src[i + 1] << 8 | src[i + 2];
        dst[0] = (unsigned char)B64_ALPHABET[v >> 18];
        dst[1] = (unsigned char)B64_ALPHABET[(v >> 12) & 0x3F];
        dst[2] = (unsigned char)B64_ALPHABET[(v >> 6) & 0x3F];
        dst[3] = (unsigned char)B64_ALPHABET[v & 0x3F];
        dst += 4;
    }
    if (rest == 1) {
        v = (unsigned int)src[n - 1] << 16;
        dst[0] = (unsigned char)B64_ALPHABET[v >> 18];
        dst[1] = (unsigned char)B64_ALPHABET[(v >> 12) & 0x3F];
        dst[2] = '=';
        dst[3] = '=';
    }
    else if (rest == 2) {
        v = (unsigned int)src[n - 2] << 16 | (unsigned int)src[n - 1] << 8;
        dst[0] = (unsigned char)B64_ALPHABET[v >> 18];
        dst[1] = (unsigned char)B64_ALPHABET[(v >> 12) & 0x3F];
        dst[2] = (unsigned char)B64_ALPHABET[(v >> 6) & 0x3F];
        dst[3] = '=';
    }
    return out;
}

/* ---------------------------------------------------------------------------------------------------------
 * JSON text: what json.dumps(value, ensure_ascii=True, allow_nan=False, separators=(",", ":")) writes, for
 * values built of exact dicts, lists, str, int, float, bool and None (and JsonObject/JsonArray). cb.dumps
 * uses it; anything else (a subclass, a non-string key, NaN, deep nesting) is handed back to json.
 */

typedef struct {
    char *data;
    Py_ssize_t size;
    Py_ssize_t capacity;
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
    needed = needed > buf->capacity * 2 ? needed : buf->capacity * 2;
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

#if PY_VERSION_HEX < 0x030C0000
    if (PyUnicode_READY(s) < 0) {
        return -1;
    }
#endif
    n = PyUnicode_GET_LENGTH(s);
    if (PyUnicode_IS_ASCII(s)) {
        /* Most strings need no escape at all (text, identifiers, base64): copied in one go. */
        ascii = PyUnicode_1BYTE_DATA(s);
        for (i = 0; i < n; i++) {
            c = ascii[i];
            if (c < ' ' || c > '~' || c == '\\' || c == '"') {
                break;
            }
        }
        if (i == n) {
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

/* 0 on success, 1 to hand the value back, -1 on error. */
static int
write_value(Buffer *buf, PyObject *v, int depth)
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
            result = write_value(buf, value, depth + 1);
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
            result = write_value(buf, value, depth + 1);
            if (result != 0) {
                return result;
            }
        }
        return buffer_write(buf, "]", 1);
    }
    return 1;
}

PyDoc_STRVAR(dumps_ascii_doc,
"dumps_ascii(value, miss, /)\n--\n\n"
"Compact, ASCII-only JSON text of a value built of exact JSON types (and JsonObject/JsonArray), exactly\n"
"as json.dumps(value, separators=(',', ':'), allow_nan=False) writes it; `miss` for anything else.");

static PyObject *
speedups_dumps_ascii(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    Buffer buf = {NULL, 0, 0};
    PyObject *out = NULL;
    int result;

    if (!check_nargs("dumps_ascii", nargs, 2) || !setup_done()) {
        return NULL;
    }
    if (buffer_reserve(&buf, 4096) < 0) {
        return NULL;
    }
    result = write_value(&buf, args[0], 0);
    if (result == 0) {
        out = PyUnicode_New(buf.size, 127);
        if (out != NULL) {
            memcpy(PyUnicode_1BYTE_DATA(out), buf.data, (size_t)buf.size);
        }
    }
    else if (result == 1) {
        out = Py_NewRef(args[1]);
    }
    PyMem_Free(buf.data);
    return out;
}

PyDoc_STRVAR(setup_doc,
"setup(json_object, json_array, /)\n--\n\n"
"Give the module the read-only container types it builds; _json.py calls it once at import.");

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
    {"freeze", (PyCFunction)(void (*)(void))speedups_freeze, METH_FASTCALL, freeze_doc},
    {"thaw", (PyCFunction)(void (*)(void))speedups_thaw, METH_FASTCALL, thaw_doc},
    {"unique_pairs", (PyCFunction)(void (*)(void))speedups_unique_pairs, METH_FASTCALL, unique_pairs_doc},
    {"instance_maker", (PyCFunction)(void (*)(void))speedups_instance_maker, METH_FASTCALL, instance_maker_doc},
    {"b64decode", (PyCFunction)(void (*)(void))speedups_b64decode, METH_FASTCALL, b64decode_doc},
    {"b64encode", (PyCFunction)speedups_b64encode, METH_O, b64encode_doc},
    {"dumps_ascii", (PyCFunction)(void (*)(void))speedups_dumps_ascii, METH_FASTCALL, dumps_ascii_doc},
    {"setup", (PyCFunction)(void (*)(void))speedups_setup, METH_FASTCALL, setup_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "contentblocks._speedups",
    .m_doc = "Optional C versions of contentblocks' JSON-value walks; the Python ones in _json.py are the reference.",
    .m_size = -1,
    .m_methods = speedups_methods,
};

PyMODINIT_FUNC
PyInit__speedups(void)
{
    if (empty_tuple == NULL) {
        empty_tuple = PyTuple_New(0);
        if (empty_tuple == NULL) {
            return NULL;
        }
    }
    b64_init();
    if (PyType_Ready(&Maker_Type) < 0) {
        return NULL;
    }
    return PyModule_Create(&speedups_module);
}
