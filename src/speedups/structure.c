/*
 * Structurer: raw dicts and lists in, instances out, by a table of each class's fields that _conversion/_structure_table.py
 * derives from the declarations. The generated Python structure functions stay the reference and the
 * authority on every problem: the walk takes only the common valid path, and misses (returns NULL without
 * an exception) on anything else, for the caller to run the Python function on the same value, which finds
 * and words what is wrong. So a miss costs time, never a different result.
 *
 * What the table says of a field is generic: a kind (text, choice, JSON value, metadata, binary, offset,
 * one object, many objects), a check for text (free text, trimmed text, or a Python predicate the
 * generator compiled from the rule's own fast condition), its flags and its limit. Cross-field rules are
 * the declarations' own Python checks, called unless the values meet the rule's declared cannot-fail form
 * (structure_cross.c).
 * No key, tag or rule of the format is written here.
 */

#include "structure.h"

/* The table's objects nest a few levels deep (a message's deepest is four); deeper is not a table shape. */
#define MAX_OBJECT_DEPTH 16

/* 1 if two exact strs, the first of them interned and ready, hold the same characters. */
static inline int
same_key(PyObject *known, Py_hash_t known_hash, PyObject *key)
{
    Py_ssize_t n;

    if (known == key) {
        return 1;
    }
    /* A str's hash is cached once it is a dict key; hashing a str never fails. */
    if (PyObject_Hash(key) != known_hash) {
        return 0;
    }
    if (str_ready(key) < 0) {
        PyErr_Clear();
        return 0;
    }
    n = PyUnicode_GET_LENGTH(key);
    return n == PyUnicode_GET_LENGTH(known) && PyUnicode_KIND(key) == PyUnicode_KIND(known)
           && memcmp(PyUnicode_DATA(key), PyUnicode_DATA(known), (size_t)n * PyUnicode_KIND(key)) == 0;
}

/* 1 if `value` passes a text field's check, 0 if not, -1 on error (a predicate raised). */
static int
text_ok(const Field *field, PyObject *value)
{
    Py_ssize_t n, i;
    Py_UCS4 first, last;
    const Py_UCS1 *ascii;
    int kind, ok;
    PyObject *answer;

    if (!PyUnicode_CheckExact(value)) {
        return 0;
    }
    if (str_ready(value) < 0) {
        PyErr_Clear();
        return 0;
    }
    n = PyUnicode_GET_LENGTH(value);
    if (field->check == T_ASCII_CHARS && PyUnicode_IS_ASCII(value)) {
        if (n == 0 || n > field->max) {
            return 0;
        }
        for (i = 0, ascii = PyUnicode_1BYTE_DATA(value); i < n; i++) {
            if (!(field->chars[ascii[i] >> 5] & ((uint32_t)1 << (ascii[i] & 31)))) {
                return 0;
            }
        }
        return 1;
    }
    if (field->check == T_CALL || field->check == T_ASCII_CHARS) {
        answer = PyObject_CallOneArg(field->arg, value);
        if (answer == NULL) {
            return -1;
        }
        ok = PyObject_IsTrue(answer);
        Py_DECREF(answer);
        return ok;
    }
    if (n == 0 || n > field->max || (!PyUnicode_IS_ASCII(value) && cb_has_surrogate(value))) {
        return 0;
    }
    if (field->check == T_TRIMMED) {
        kind = PyUnicode_KIND(value);
        first = PyUnicode_READ(kind, PyUnicode_DATA(value), 0);
        last = PyUnicode_READ(kind, PyUnicode_DATA(value), n - 1);
        return !Py_UNICODE_ISSPACE(first) && !Py_UNICODE_ISSPACE(last);
    }
    return 1;
}

/* An instance of `c` from its field values, stolen (each slot of a fresh instance is NULL). */
static PyObject *
make(const Class *c, PyObject **values)
{
    PyObject *obj = c->cls->tp_alloc(c->cls, 0);
    int i;

    if (obj == NULL) {
        for (i = 0; i < c->nfields; i++) {
            Py_DECREF(values[i]);
        }
        return NULL;
    }
    for (i = 0; i < c->nfields; i++) {
        *(PyObject **)((char *)obj + c->fields[i].offset) = values[i];
    }
    return obj;
}

/* The string shorthand of a many-field: a one-item tuple of the class it stands for; NULL is a miss. */
static PyObject *
shorthand(Structurer *s, const Field *field, PyObject *text)
{
    const Class *c = &s->classes[field->short_class];
    PyObject *values[MAX_FIELDS], *obj, *tuple;
    int i, ok = text_ok(&c->fields[field->short_field], text);

    if (ok != 1) {
        return NULL;
    }
    for (i = 0; i < c->nfields; i++) {
        values[i] = Py_NewRef(i == field->short_field ? text : PyTuple_GET_ITEM(field->short_defaults, i));
    }
    obj = make(c, values);
    if (obj == NULL) {
        return NULL;
    }
    tuple = PyTuple_New(1);
    if (tuple == NULL) {
        Py_DECREF(obj);
        return NULL;
    }
    PyTuple_SET_ITEM(tuple, 0, obj);
    return tuple;
}

/* The objects of an exact list, as a tuple; NULL is a miss (or an error, with its exception). */
static PyObject *
objects(Structurer *s, const Field *field, PyObject *list, int depth)
{
    Py_ssize_t i, n = PyList_GET_SIZE(list);
    PyObject *out, *item, *obj;

    if (n == 0) {
        return (field->flags & FLAG_NONEMPTY) ? NULL : PyTuple_New(0);
    }
    out = PyTuple_New(n);
    if (out == NULL) {
        return NULL;
    }
    for (i = 0; i < n; i++) {
        /* Code the walk runs (a predicate, a rule, a finalizer) may have changed the list. */
        if (PyList_GET_SIZE(list) != n) {
            Py_DECREF(out);
            return NULL;
        }
        item = Py_NewRef(PyList_GET_ITEM(list, i));
        obj = PyDict_CheckExact(item) ? cb_structure_target(s, item, field->target, depth) : NULL;
        Py_DECREF(item);
        if (obj == NULL) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, obj);
    }
    if (PyList_GET_SIZE(list) != n) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* A metadata object: absent or empty is the empty object; else a JSON object whose keys are not empty. */
static PyObject *
metadata(Structurer *s, const Field *field, PyObject *value)
{
    PyObject *key, *item, *frozen;
    Py_ssize_t pos = 0;

    if (value == NULL || (PyDict_CheckExact(value) && PyDict_GET_SIZE(value) == 0)) {
        return Py_NewRef(field->arg);
    }
    if (!PyDict_CheckExact(value)) {
        return NULL;
    }
    while (PyDict_Next(value, &pos, &key, &item)) {
        if (PyUnicode_CheckExact(key) && PyUnicode_GET_LENGTH(key) < field->max) {
            return NULL;
        }
    }
    /* The object itself is one level of the depth its values may use. */
    frozen = cb_freeze(value, s->max_chars, s->max_depth + 1, s->max_nodes);
    if (frozen != NULL && Py_TYPE(frozen) != JsonObject_Type) {
        Py_CLEAR(frozen);
    }
    return frozen;
}

/* Binary data: bytes as they are (native mode), or decoded from canonical base64 text. */
static PyObject *
binary(Structurer *s, const Field *field, PyObject *value)
{
    PyObject *data;

    if (value == NULL) {
        return (field->flags & FLAG_OPTIONAL) ? Py_NewRef(Py_None) : NULL;
    }
    if (s->native_binary) {
        data = PyBytes_CheckExact(value) ? Py_NewRef(value) : NULL;
    }
    else if (!PyUnicode_CheckExact(value) || PyUnicode_GET_LENGTH(value) > s->max_base64) {
        return NULL;
    }
    else {
        data = cb_b64decode(value);
    }
    if (data != NULL
        && (PyBytes_GET_SIZE(data) > s->max_bytes || ((field->flags & FLAG_NONEMPTY) && PyBytes_GET_SIZE(data) == 0))) {
        Py_CLEAR(data);
    }
    return data;
}

/* The value of one field from its raw value (NULL when the key is absent), a new reference; NULL is a miss
 * (or an error, with its exception). */
static PyObject *
field_value(Structurer *s, const Field *field, PyObject *value, int depth)
{
    int ok;

    switch (field->kind) {
    case F_TEXT:
        if (value == NULL) {
            return (field->flags & FLAG_OPTIONAL) ? Py_NewRef(Py_None) : NULL;
        }
        ok = text_ok(field, value);
        return ok == 1 ? Py_NewRef(value) : NULL;
    case F_CHOICE:
        if (value == NULL || !PyUnicode_CheckExact(value)) {
            return NULL;
        }
        ok = PySet_Contains(field->arg, value);
        return ok == 1 ? Py_NewRef(value) : NULL;
    case F_JSON:
        return value == NULL ? NULL : cb_freeze(value, s->max_chars, s->max_depth, s->max_nodes);
    case F_METADATA:
        return metadata(s, field, value);
    case F_BINARY:
        return binary(s, field, value);
    case F_OFFSET:
        if (value == NULL) {
            return Py_NewRef(Py_None);
        }
        return PyLong_CheckExact(value) ? Py_NewRef(value) : NULL;
    case F_FLAG:
        if (value == NULL) {
            return (field->flags & FLAG_OPTIONAL) ? Py_NewRef(Py_None) : NULL;
        }
        return PyBool_Check(value) ? Py_NewRef(value) : NULL;
    case F_ONE:
        if (value == NULL && (field->flags & FLAG_OPTIONAL)) {
            return Py_NewRef(Py_None);
        }
        return value != NULL && PyDict_CheckExact(value) ? cb_structure_target(s, value, field->target, depth) : NULL;
    case F_MANY:
        if (value == NULL) {
            return (field->flags & FLAG_REQUIRED) ? NULL : PyTuple_New(0);
        }
        if (PyList_CheckExact(value)) {
            return objects(s, field, value, depth);
        }
        if (field->short_class >= 0 && PyUnicode_CheckExact(value)) {
            return shorthand(s, field, value);
        }
        return NULL;
    default:
        return NULL;
    }
}

/* The instance of class `c` that exact dict `raw` describes, a new reference; NULL is a miss (or an error,
 * with its exception). */
static PyObject *
read_object(Structurer *s, const Class *c, PyObject *raw, int depth)
{
    PyObject *given[MAX_FIELDS] = {NULL}, *values[MAX_FIELDS] = {NULL}, *key, *value, *out = NULL;
    Py_ssize_t pos = 0;
    int i, ok;

    if (depth >= MAX_OBJECT_DEPTH || !c->walkable) {
        return NULL;
    }
    /* One pass over the keys: each must be a field's or the tag's (which the union has read). Nothing in
     * the pass runs code or allocates, so the borrowed values stay alive until they are taken below. */
    while (PyDict_Next(raw, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            return NULL;
        }
        for (i = 0; i < c->nfields; i++) {
            if (same_key(c->fields[i].key, c->fields[i].hash, key)) {
                break;
            }
        }
        if (i < c->nfields) {
            given[i] = value;
        }
        else if (c->tag_key == NULL || !same_key(c->tag_key, c->tag_hash, key)) {
            return NULL;
        }
    }
    for (i = 0; i < c->nfields; i++) {
        Py_XINCREF(given[i]);
    }
    for (i = 0; i < c->nfields; i++) {
        values[i] = field_value(s, &c->fields[i], given[i], depth + 1);
        if (values[i] == NULL) {
            goto done;
        }
    }
    for (i = 0; i < c->ncross; i++) {
        ok = cb_cross_holds(&c->cross[i], values, given);
        if (ok != 1) {
            goto done;
        }
    }
    out = make(c, values);
    for (i = 0; i < c->nfields; i++) {
        values[i] = NULL;  /* taken by make, even when it fails */
    }
done:
    for (i = 0; i < c->nfields; i++) {
        Py_XDECREF(values[i]);
        Py_XDECREF(given[i]);
    }
    return out;
}

PyObject *
cb_structure_target(Structurer *s, PyObject *raw, int target, int depth)
{
    const Union *u;
    PyObject *key, *value, *tag = NULL, *index;
    Py_ssize_t pos = 0;
    long cls;

    if (target >= 0) {
        return read_object(s, &s->classes[target], raw, depth);
    }
    u = &s->unions[-1 - target];
    while (PyDict_Next(raw, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            return NULL;
        }
        if (same_key(u->key, u->hash, key)) {
            tag = value;
            break;
        }
    }
    if (tag == NULL || !PyUnicode_CheckExact(tag)) {
        return NULL;
    }
    /* The members dict has exact str keys only: looking a str up in it runs no code. */
    index = PyDict_GetItemWithError(u->members, tag);
    if (index == NULL) {
        return NULL;
    }
    cls = PyLong_AsLong(index);
    if (cls < 0 || cls >= s->nclasses) {
        PyErr_Clear();
        return NULL;
    }
    return read_object(s, &s->classes[cls], raw, depth);
}

int
cb_structure_init(void)
{
    if (cb_cross_init() < 0) {
        return -1;
    }
    return PyType_Ready(&Structurer_Type);
}
