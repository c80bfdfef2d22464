/*
 * The structurer's table, read once from the tuples _conversion/_structure_table.py emits (kind names become numbers,
 * attribute names slot offsets, keys interned strings with their hashes), and the structurer made from it.
 * See structure.c for the walk and structure_type.c for the structurer's methods.
 */

#include "structure.h"

static const char *const FIELD_KINDS[] = {
    "string", "choice", "json_value", "json_object", "binary", "offset", "one", "many", NULL,
};
static const char *const FORMS[] = {"never", "absent", "empty", "allowed_types", NULL};
/* The text checks the walk runs itself, in the order of enum text_check; any other is a Python predicate. */
static const char *const TEXT_CHECKS[] = {"free", "trimmed", NULL};

/* The index of `name` in a NULL-ended list of names, or -1 with a ValueError naming `what`. */
static int
name_index(PyObject *name, const char *const *names, const char *what)
{
    int i;

    for (i = 0; names[i] != NULL; i++) {
        if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, names[i]) == 0) {
            return i;
        }
    }
    PyErr_Format(PyExc_ValueError, "unknown %s %R", what, name);
    return -1;
}

/* An interned copy of exact str `key` and its hash; -1 with a TypeError for anything else. */
static int
intern_key(PyObject *key, PyObject **out, Py_hash_t *hash)
{
    if (!PyUnicode_CheckExact(key)) {
        PyErr_SetString(PyExc_TypeError, "the table's keys are str");
        return -1;
    }
    *out = Py_NewRef(key);
    PyUnicode_InternInPlace(out);
    *hash = PyObject_Hash(*out);
    return *hash == -1 ? -1 : 0;
}

int
cb_table_index(PyObject *value, long lo, long hi, const char *what, int *out)
{
    long v = PyLong_CheckExact(value) ? PyLong_AsLong(value) : lo - 1;

    if (PyErr_Occurred() || v < lo || v >= hi) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s out of range", what);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* Field `f` of class `c` from (kind, key, flags, arg, target or limit, shorthand). */
static int
read_field(Structurer *s, Class *c, PyObject *spec, Field *f)
{
    PyObject *arg, *shorthand;

    if (!PyTuple_CheckExact(spec) || PyTuple_GET_SIZE(spec) != 6) {
        PyErr_Format(PyExc_TypeError, "each field of %s is a 6-tuple", c->cls->tp_name);
        return -1;
    }
    f->kind = name_index(PyTuple_GET_ITEM(spec, 0), FIELD_KINDS, "field kind");
    if (f->kind < 0 || intern_key(PyTuple_GET_ITEM(spec, 1), &f->key, &f->hash) < 0
        || cb_table_index(PyTuple_GET_ITEM(spec, 2), 0, 8, "field flags", &f->flags) < 0) {
        return -1;
    }
    f->offset = cb_object_slot(c->cls, f->key, 1);
    if (f->offset < 0) {
        if (f->offset != SLOT_ERROR) {
            PyErr_Format(PyExc_TypeError, "%R is not a writable object slot of %s", f->key, c->cls->tp_name);
        }
        return -1;
    }
    arg = PyTuple_GET_ITEM(spec, 3);
    shorthand = PyTuple_GET_ITEM(spec, 5);
    f->short_class = -1;
    if (f->kind == F_TEXT) {
        /* arg: the name of one of TEXT_CHECKS, or a predicate; target: the limit */
        if (PyUnicode_Check(arg)) {
            f->check = name_index(arg, TEXT_CHECKS, "text check");
            if (f->check < 0) {
                return -1;
            }
        }
        else if (PyCallable_Check(arg)) {
            f->check = T_CALL;
            f->arg = Py_NewRef(arg);
        }
        else {
            PyErr_SetString(PyExc_TypeError, "a text check is a name or a callable");
            return -1;
        }
        return cb_size_limit(PyTuple_GET_ITEM(spec, 4), "a text limit", &f->max);
    }
    if (f->kind == F_CHOICE && !PyFrozenSet_CheckExact(arg)) {
        PyErr_SetString(PyExc_TypeError, "a choice is a frozenset");
        return -1;
    }
    if (f->kind == F_METADATA && Py_TYPE(arg) != JsonObject_Type) {
        PyErr_SetString(PyExc_TypeError, "metadata's empty value is a JsonObject");
        return -1;
    }
    if (f->kind == F_CHOICE || f->kind == F_METADATA) {
        f->arg = Py_NewRef(arg);
    }
    if (f->kind == F_ONE || f->kind == F_MANY) {
        if (cb_table_index(PyTuple_GET_ITEM(spec, 4), -s->nunions, s->nclasses, "target", &f->target) < 0) {
            return -1;
        }
    }
    if (f->kind == F_MANY && shorthand != Py_None) {
        /* (class, field, defaults) */
        if (!PyTuple_CheckExact(shorthand) || PyTuple_GET_SIZE(shorthand) != 3
            || cb_table_index(PyTuple_GET_ITEM(shorthand, 0), 0, s->nclasses, "shorthand class", &f->short_class) < 0
            || cb_table_index(PyTuple_GET_ITEM(shorthand, 1), 0, MAX_FIELDS, "shorthand field", &f->short_field) < 0
            || !PyTuple_CheckExact(PyTuple_GET_ITEM(shorthand, 2))) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "a shorthand is (class, field, defaults)");
            }
            return -1;
        }
        f->short_defaults = Py_NewRef(PyTuple_GET_ITEM(shorthand, 2));
    }
    return 0;
}

/* An allowed_types dict: exact str keys (so a lookup runs no code), each giving a frozenset. */
static int
check_allowed(PyObject *allowed)
{
    PyObject *key, *value;
    Py_ssize_t pos = 0;

    while (PyDict_Next(allowed, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key) || !PyFrozenSet_CheckExact(value)) {
            PyErr_SetString(PyExc_TypeError, "allowed_types maps str keys to frozensets");
            return -1;
        }
    }
    return 0;
}

/* Cross rule `x` of class `c` from (check, fields, given, form, form_arg). */
static int
read_cross(Class *c, PyObject *spec, Cross *x)
{
    PyObject *fields, *given, *arg;
    int j;

    if (!PyTuple_CheckExact(spec) || PyTuple_GET_SIZE(spec) != 5 || !PyCallable_Check(PyTuple_GET_ITEM(spec, 0))
        || !PyTuple_CheckExact(PyTuple_GET_ITEM(spec, 1)) || !PyTuple_CheckExact(PyTuple_GET_ITEM(spec, 2))) {
        PyErr_Format(PyExc_TypeError, "each cross rule of %s is (check, fields, given, form, arg)", c->cls->tp_name);
        return -1;
    }
    x->check = Py_NewRef(PyTuple_GET_ITEM(spec, 0));
    fields = PyTuple_GET_ITEM(spec, 1);
    given = PyTuple_GET_ITEM(spec, 2);
    x->nfields = (int)PyTuple_GET_SIZE(fields);
    x->ngiven = (int)PyTuple_GET_SIZE(given);
    if (x->nfields > MAX_FIELDS || x->ngiven > MAX_FIELDS) {
        PyErr_SetString(PyExc_ValueError, "too many fields in a cross rule");
        return -1;
    }
    for (j = 0; j < x->nfields; j++) {
        if (cb_table_index(PyTuple_GET_ITEM(fields, j), 0, c->nfields, "cross rule field", &x->fields[j]) < 0) {
            return -1;
        }
    }
    for (j = 0; j < x->ngiven; j++) {
        if (cb_table_index(PyTuple_GET_ITEM(given, j), 0, c->nfields, "cross rule field", &x->given[j]) < 0) {
            return -1;
        }
    }
    x->form = name_index(PyTuple_GET_ITEM(spec, 3), FORMS, "cannot-fail form");
    if (x->form < 0) {
        return -1;
    }
    arg = PyTuple_GET_ITEM(spec, 4);
    if (x->form == C_EMPTY) {
        return cb_table_index(arg, 0, c->nfields, "cannot-fail field", &x->form_fields[0]);
    }
    if (x->form == C_ALLOWED_TYPES) {
        /* (key field, items field, dict of key to frozenset of classes) */
        if (!PyTuple_CheckExact(arg) || PyTuple_GET_SIZE(arg) != 3 || !PyDict_CheckExact(PyTuple_GET_ITEM(arg, 2))) {
            PyErr_SetString(PyExc_TypeError, "allowed_types takes (field, field, dict)");
            return -1;
        }
        if (cb_table_index(PyTuple_GET_ITEM(arg, 0), 0, c->nfields, "cannot-fail field", &x->form_fields[0]) < 0
            || cb_table_index(PyTuple_GET_ITEM(arg, 1), 0, c->nfields, "cannot-fail field", &x->form_fields[1]) < 0
            || check_allowed(PyTuple_GET_ITEM(arg, 2)) < 0) {
            return -1;
        }
        x->allowed = Py_NewRef(PyTuple_GET_ITEM(arg, 2));
    }
    return 0;
}

/* Class `c` from (cls, tag_key or None, fields, cross rules). */
static int
read_class(Structurer *s, PyObject *spec, Class *c)
{
    PyObject *fields, *crosses;
    int i, j;

    if (!PyTuple_CheckExact(spec) || PyTuple_GET_SIZE(spec) != 4 || !PyType_Check(PyTuple_GET_ITEM(spec, 0))
        || !(PyTuple_CheckExact(PyTuple_GET_ITEM(spec, 2)) || PyTuple_GET_ITEM(spec, 2) == Py_None)
        || !PyTuple_CheckExact(PyTuple_GET_ITEM(spec, 3))) {
        PyErr_SetString(PyExc_TypeError, "each class is (cls, tag key, fields or None, cross rules)");
        return -1;
    }
    c->cls = (PyTypeObject *)Py_NewRef(PyTuple_GET_ITEM(spec, 0));
    if (c->cls->tp_itemsize != 0 || c->cls->tp_new != PyBaseObject_Type.tp_new) {
        PyErr_Format(PyExc_TypeError, "%s is not a plain class built by object.__new__", c->cls->tp_name);
        return -1;
    }
    if (PyTuple_GET_ITEM(spec, 1) != Py_None && intern_key(PyTuple_GET_ITEM(spec, 1), &c->tag_key, &c->tag_hash) < 0) {
        return -1;
    }
    fields = PyTuple_GET_ITEM(spec, 2);
    crosses = PyTuple_GET_ITEM(spec, 3);
    /* A class whose fields the generator could not describe, or more than a walk holds: always a miss. */
    if (fields == Py_None || PyTuple_GET_SIZE(fields) > MAX_FIELDS || PyTuple_GET_SIZE(crosses) > MAX_CROSS) {
        return 0;
    }
    c->walkable = 1;
    for (i = 0; i < PyTuple_GET_SIZE(fields); i++) {
        c->nfields = i + 1;  /* counted as it is filled, for the cleanup */
        if (read_field(s, c, PyTuple_GET_ITEM(fields, i), &c->fields[i]) < 0) {
            return -1;
        }
    }
    for (i = 0; i < c->nfields; i++) {
        for (j = 0; j < i; j++) {
            if (c->fields[i].offset == c->fields[j].offset) {
                /* A slot set twice would lose the first reference set in it. */
                PyErr_Format(PyExc_ValueError, "%R names the same slot as %R", c->fields[i].key, c->fields[j].key);
                return -1;
            }
        }
    }
    for (i = 0; i < PyTuple_GET_SIZE(crosses); i++) {
        c->ncross = i + 1;
        if (read_cross(c, PyTuple_GET_ITEM(crosses, i), &c->cross[i]) < 0) {
            return -1;
        }
    }
    return 0;
}

/* Every many-field's shorthand names a text field of its class and gives a value for each of its fields. */
static int
check_shorthands(Structurer *s)
{
    Field *f;
    const Class *short_class;
    int i, j;

    for (i = 0; i < s->nclasses; i++) {
        for (j = 0; j < s->classes[i].nfields; j++) {
            f = &s->classes[i].fields[j];
            if (f->short_class < 0) {
                continue;
            }
            short_class = &s->classes[f->short_class];
            if (!short_class->walkable) {
                f->short_class = -1;  /* a string is a miss */
                continue;
            }
            if (f->short_field >= short_class->nfields || short_class->fields[f->short_field].kind != F_TEXT
                || PyTuple_GET_SIZE(f->short_defaults) != short_class->nfields) {
                PyErr_SetString(PyExc_ValueError, "a shorthand names no text field of its class");
                return -1;
            }
        }
    }
    return 0;
}

/* A union's members: exact str tags, each of a class of the table. */
static int
check_members(Structurer *s, PyObject *members)
{
    PyObject *tag, *index;
    Py_ssize_t pos = 0;
    int cls;

    while (PyDict_Next(members, &pos, &tag, &index)) {
        if (!PyUnicode_CheckExact(tag) || cb_table_index(index, 0, s->nclasses, "member class", &cls) < 0) {
            if (!PyErr_Occurred()) {
                PyErr_SetString(PyExc_TypeError, "a union's tags are str");
            }
            return -1;
        }
    }
    return 0;
}

PyDoc_STRVAR(structurer_doc,
"structurer(classes, unions, limits, native_binary, miss, /)\n--\n\n"
"A structurer for a table of `classes`, each (cls, tag key or None, fields, cross rules), and `unions`,\n"
"each (tag key, dict of tag to class index). A field is (kind, key, flags, arg, target or limit,\n"
"shorthand); a cross rule (check, field indexes, given field indexes, cannot-fail form, its argument).\n"
"`limits` is (max_chars, max_depth, max_nodes, max_bytes, max_base64). With `native_binary`, binary\n"
"fields take bytes, else base64 text. A class whose fields are None (or more than eight, or with more\n"
"than four cross rules) is in the table only as a target: each of its objects is a miss. The\n"
"structurer returns `miss` for anything the table does not take.");

static PyObject *
speedups_structurer(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *classes, *unions, *limits, *spec;
    Structurer *s;
    Py_ssize_t *bounds[5];
    int i;

    if (!check_nargs("structurer", nargs, 5) || !setup_done()) {
        return NULL;
    }
    classes = args[0];
    unions = args[1];
    limits = args[2];
    if (!PyTuple_CheckExact(classes) || !PyTuple_CheckExact(unions) || !PyTuple_CheckExact(limits)
        || PyTuple_GET_SIZE(limits) != 5 || PyTuple_GET_SIZE(classes) > 1000 || PyTuple_GET_SIZE(unions) > 1000) {
        PyErr_SetString(PyExc_TypeError, "structurer() takes tuples of classes, unions and five limits");
        return NULL;
    }
    s = PyObject_New(Structurer, &Structurer_Type);
    if (s == NULL) {
        return NULL;
    }
    s->nclasses = 0;
    s->nunions = 0;
    s->miss = Py_NewRef(args[4]);
    s->classes = PyMem_Calloc(PyTuple_GET_SIZE(classes) + 1, sizeof(Class));
    s->unions = PyMem_Calloc(PyTuple_GET_SIZE(unions) + 1, sizeof(Union));
    if (s->classes == NULL || s->unions == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    s->native_binary = PyObject_IsTrue(args[3]);
    if (s->native_binary < 0) {
        goto fail;
    }
    bounds[0] = &s->max_chars;
    bounds[1] = &s->max_depth;
    bounds[2] = &s->max_nodes;
    bounds[3] = &s->max_bytes;
    bounds[4] = &s->max_base64;
    for (i = 0; i < 5; i++) {
        if (cb_size_limit(PyTuple_GET_ITEM(limits, i), "a structurer limit", bounds[i]) < 0) {
            goto fail;
        }
    }
    /* Both counts are known before any target is read: a field may name a class or union after its own. */
    s->nclasses = (int)PyTuple_GET_SIZE(classes);
    s->nunions = (int)PyTuple_GET_SIZE(unions);
    for (i = 0; i < s->nunions; i++) {
        spec = PyTuple_GET_ITEM(unions, i);
        if (!PyTuple_CheckExact(spec) || PyTuple_GET_SIZE(spec) != 2 || !PyDict_CheckExact(PyTuple_GET_ITEM(spec, 1))) {
            PyErr_SetString(PyExc_TypeError, "each union is (tag key, dict of tag to class index)");
            goto fail;
        }
        if (intern_key(PyTuple_GET_ITEM(spec, 0), &s->unions[i].key, &s->unions[i].hash) < 0) {
            goto fail;
        }
        s->unions[i].members = PyDict_Copy(PyTuple_GET_ITEM(spec, 1));
        if (s->unions[i].members == NULL || check_members(s, s->unions[i].members) < 0) {
            goto fail;
        }
    }
    for (i = 0; i < s->nclasses; i++) {
        if (read_class(s, PyTuple_GET_ITEM(classes, i), &s->classes[i]) < 0) {
            goto fail;
        }
    }
    if (check_shorthands(s) < 0) {
        goto fail;
    }
    return (PyObject *)s;
fail:
    Py_DECREF(s);
    return NULL;
}

PyMethodDef cb_structure_methods[] = {
    {"structurer", (PyCFunction)(void (*)(void))speedups_structurer, METH_FASTCALL, structurer_doc},
    {NULL, NULL, 0, NULL},
};

/* A tuple of the names in a NULL-ended list. */
static PyObject *
names_tuple(const char *const *names)
{
    Py_ssize_t n = 0, i;
    PyObject *out;

    while (names[n] != NULL) {
        n++;
    }
    out = PyTuple_New(n);
    for (i = 0; out != NULL && i < n; i++) {
        PyObject *name = PyUnicode_FromString(names[i]);
        if (name == NULL) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, name);
    }
    return out;
}

int
cb_structure_capabilities(PyObject *module)
{
    PyObject *kinds = names_tuple(FIELD_KINDS), *checks = names_tuple(TEXT_CHECKS);
    PyObject *capabilities = NULL;

    if (kinds != NULL && checks != NULL) {
        capabilities = Py_BuildValue("{sOsOsisi}", "field_kinds", kinds, "text_checks", checks,
                                     "max_fields", MAX_FIELDS, "max_cross_rules", MAX_CROSS);
    }
    Py_XDECREF(kinds);
    Py_XDECREF(checks);
    if (capabilities == NULL || PyModule_AddObjectRef(module, "STRUCTURER", capabilities) < 0) {
        Py_XDECREF(capabilities);
        return -1;
    }
    Py_DECREF(capabilities);
    return 0;
}
