/*
 * The structurer's table, read once from the named records _conversion/_structure_table.py emits (kind names become
 * numbers, attribute names slot offsets, keys interned strings with their hashes), and the structurer made from it.
 * A record is read by its field names (the RECORDS below, which the module exports), never by position.
 * See structure.c for the walk and structure_type.c for the structurer's methods.
 */

#include "structure.h"

static const char *const FIELD_KINDS[] = {
    "string", "choice", "json_value", "json_object", "binary", "offset", "one", "many", "flag", NULL,
};
static const char *const FORMS[] = {"never", "absent", "empty", "allowed_types", NULL};
/* The text checks the walk runs itself, in the order of enum text_check; any other is a Python predicate. */
static const char *const TEXT_CHECKS[] = {"free", "trimmed", "ascii_chars", NULL};

/* The fields of each record the table is made of, in the order the readers below index them. */
enum { CLASS_CLS, CLASS_TAG, CLASS_FIELDS, CLASS_CROSS_RULES, CLASS_N };
static const char *const CLASS_RECORD[] = {"cls", "tag", "fields", "cross_rules", NULL};
enum { FIELD_KERNEL, FIELD_KEY, FIELD_FLAGS, FIELD_ARG, FIELD_LIMIT, FIELD_TARGET, FIELD_SHORTHAND, FIELD_N };
static const char *const FIELD_RECORD[] = {"kernel", "key", "flags", "arg", "limit", "target", "shorthand", NULL};
enum { SHORT_CLS, SHORT_FIELD, SHORT_DEFAULTS, SHORT_N };
static const char *const SHORTHAND_RECORD[] = {"cls", "field", "defaults", NULL};
enum { CROSS_CHECK, CROSS_FIELDS, CROSS_GIVEN, CROSS_FORM, CROSS_ARG, CROSS_N };
static const char *const CROSS_RECORD[] = {"check", "fields", "given", "form", "arg", NULL};
enum { ALLOWED_KEY_FIELD, ALLOWED_ITEMS_FIELD, ALLOWED_TYPES, ALLOWED_N };
static const char *const ALLOWED_RECORD[] = {"key_field", "items_field", "allowed", NULL};
enum { UNION_KEY, UNION_MEMBERS, UNION_N };
static const char *const UNION_RECORD[] = {"key", "members", NULL};
enum { BOUNDS_N = 5 };
static const char *const BOUNDS_RECORD[] = {"max_chars", "max_depth", "max_nodes", "max_bytes", "max_base64", NULL};

/* Each field of `record` that `names` lists, as new references in `out`; -1 with a TypeError naming a missing one. */
static int
read_record(PyObject *record, const char *const *names, PyObject **out, const char *what)
{
    int i, j;

    for (i = 0; names[i] != NULL; i++) {
        out[i] = PyObject_GetAttrString(record, names[i]);
        if (out[i] == NULL) {
            for (j = 0; j < i; j++) {
                Py_DECREF(out[j]);
            }
            if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
                PyErr_Format(PyExc_TypeError, "a %s record needs the field %s, got %R", what, names[i], record);
            }
            return -1;
        }
    }
    return 0;
}

static void
release_record(PyObject **fields, int n)
{
    int i;

    for (i = 0; i < n; i++) {
        Py_DECREF(fields[i]);
    }
}

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

/* The characters an ascii_chars check accepts, from an ASCII str, as bits; -1 with an error. */
static int
read_chars(PyObject *chars, int check, uint32_t *bits)
{
    Py_ssize_t i;
    const Py_UCS1 *data;

    if (check != T_ASCII_CHARS) {
        PyErr_SetString(PyExc_TypeError, "only the ascii_chars text check takes characters");
        return -1;
    }
    if (!PyUnicode_CheckExact(chars) || str_ready(chars) < 0 || !PyUnicode_IS_ASCII(chars)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "an ascii_chars check's characters are an ASCII str");
        return -1;
    }
    data = PyUnicode_1BYTE_DATA(chars);
    memset(bits, 0, 4 * sizeof(uint32_t));
    for (i = 0; i < PyUnicode_GET_LENGTH(chars); i++) {
        bits[data[i] >> 5] |= (uint32_t)1 << (data[i] & 31);
    }
    return 0;
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

/* A shorthand: a string standing for one instance of a class, its text in one field and the rest defaults. */
static int
read_shorthand(Structurer *s, PyObject *record, Field *f)
{
    PyObject *v[SHORT_N];
    int rc = -1;

    if (read_record(record, SHORTHAND_RECORD, v, "shorthand") < 0) {
        return -1;
    }
    if (cb_table_index(v[SHORT_CLS], 0, s->nclasses, "shorthand class", &f->short_class) < 0
        || cb_table_index(v[SHORT_FIELD], 0, MAX_FIELDS, "shorthand field", &f->short_field) < 0) {
        goto done;
    }
    if (!PyTuple_CheckExact(v[SHORT_DEFAULTS])) {
        PyErr_SetString(PyExc_TypeError, "a shorthand's defaults are a tuple");
        goto done;
    }
    f->short_defaults = Py_NewRef(v[SHORT_DEFAULTS]);
    rc = 0;
done:
    release_record(v, SHORT_N);
    return rc;
}

/* Field `f` of class `c` from the fields of its record. */
static int
read_field_values(Structurer *s, Class *c, PyObject *const *v, Field *f)
{
    PyObject *arg;

    f->kind = name_index(v[FIELD_KERNEL], FIELD_KINDS, "field kind");
    if (f->kind < 0 || intern_key(v[FIELD_KEY], &f->key, &f->hash) < 0
        || cb_table_index(v[FIELD_FLAGS], 0, 8, "field flags", &f->flags) < 0) {
        return -1;
    }
    f->offset = cb_object_slot(c->cls, f->key, 1);
    if (f->offset < 0) {
        if (f->offset != SLOT_ERROR) {
            PyErr_Format(PyExc_TypeError, "%R is not a writable object slot of %s", f->key, c->cls->tp_name);
        }
        return -1;
    }
    arg = v[FIELD_ARG];
    f->short_class = -1;
    if (f->kind == F_TEXT) {
        /* arg: the name of one of TEXT_CHECKS, or a predicate, or for ascii_chars (name, characters,
         * predicate for text that is not ASCII); target: the limit */
        if (PyTuple_Check(arg) && PyTuple_GET_SIZE(arg) == 3) {
            f->check = name_index(PyTuple_GET_ITEM(arg, 0), TEXT_CHECKS, "text check");
            if (f->check < 0 || read_chars(PyTuple_GET_ITEM(arg, 1), f->check, f->chars) < 0) {
                return -1;
            }
            if (!PyCallable_Check(PyTuple_GET_ITEM(arg, 2))) {
                PyErr_SetString(PyExc_TypeError, "an ascii_chars check's predicate is a callable");
                return -1;
            }
            f->arg = Py_NewRef(PyTuple_GET_ITEM(arg, 2));
        }
        else if (PyUnicode_Check(arg)) {
            f->check = name_index(arg, TEXT_CHECKS, "text check");
            if (f->check < 0) {
                return -1;
            }
            if (f->check == T_ASCII_CHARS) {
                PyErr_SetString(PyExc_TypeError, "the ascii_chars text check is given with its characters and predicate");
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
        return cb_size_limit(v[FIELD_LIMIT], "a text limit", &f->max);
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
    if (f->kind == F_METADATA && cb_size_limit(v[FIELD_LIMIT], "a key length", &f->max) < 0) {
        /* the fewest characters a key holds: a shorter one is a miss */
        return -1;
    }
    if (f->kind == F_ONE || f->kind == F_MANY) {
        if (cb_table_index(v[FIELD_TARGET], -s->nunions, s->nclasses, "target", &f->target) < 0) {
            return -1;
        }
    }
    if (f->kind == F_MANY && v[FIELD_SHORTHAND] != Py_None) {
        return read_shorthand(s, v[FIELD_SHORTHAND], f);
    }
    return 0;
}

static int
read_field(Structurer *s, Class *c, PyObject *record, Field *f)
{
    PyObject *v[FIELD_N];
    int rc;

    if (read_record(record, FIELD_RECORD, v, "field") < 0) {
        return -1;
    }
    rc = read_field_values(s, c, v, f);
    release_record(v, FIELD_N);
    return rc;
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

/* The allowed_types form: the key field, the items field, and a dict of key to the frozenset of classes allowed. */
static int
read_allowed(Class *c, PyObject *record, Cross *x)
{
    PyObject *v[ALLOWED_N];
    int rc = -1;

    if (read_record(record, ALLOWED_RECORD, v, "allowed_types") < 0) {
        return -1;
    }
    if (!PyDict_CheckExact(v[ALLOWED_TYPES])) {
        PyErr_SetString(PyExc_TypeError, "allowed_types takes a dict");
    }
    else if (cb_table_index(v[ALLOWED_KEY_FIELD], 0, c->nfields, "cannot-fail field", &x->form_fields[0]) == 0
             && cb_table_index(v[ALLOWED_ITEMS_FIELD], 0, c->nfields, "cannot-fail field", &x->form_fields[1]) == 0
             && check_allowed(v[ALLOWED_TYPES]) == 0) {
        x->allowed = Py_NewRef(v[ALLOWED_TYPES]);
        rc = 0;
    }
    release_record(v, ALLOWED_N);
    return rc;
}

/* Cross rule `x` of class `c` from the fields of its record. */
static int
read_cross_values(Class *c, PyObject *const *v, Cross *x)
{
    PyObject *fields, *given, *arg;
    int j;

    if (!PyCallable_Check(v[CROSS_CHECK]) || !PyTuple_CheckExact(v[CROSS_FIELDS]) || !PyTuple_CheckExact(v[CROSS_GIVEN])) {
        PyErr_Format(PyExc_TypeError, "a cross rule of %s has a callable check and tuples of fields", c->cls->tp_name);
        return -1;
    }
    x->check = Py_NewRef(v[CROSS_CHECK]);
    fields = v[CROSS_FIELDS];
    given = v[CROSS_GIVEN];
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
    x->form = name_index(v[CROSS_FORM], FORMS, "cannot-fail form");
    if (x->form < 0) {
        return -1;
    }
    arg = v[CROSS_ARG];
    if (x->form == C_EMPTY) {
        return cb_table_index(arg, 0, c->nfields, "cannot-fail field", &x->form_fields[0]);
    }
    if (x->form == C_ALLOWED_TYPES) {
        return read_allowed(c, arg, x);
    }
    return 0;
}

static int
read_cross(Class *c, PyObject *record, Cross *x)
{
    PyObject *v[CROSS_N];
    int rc;

    if (read_record(record, CROSS_RECORD, v, "cross rule") < 0) {
        return -1;
    }
    rc = read_cross_values(c, v, x);
    release_record(v, CROSS_N);
    return rc;
}

/* Class `c` from the fields of its record: the class, its tag key or None, its fields (or None) and cross rules. */
static int
read_class_values(Structurer *s, PyObject *const *v, Class *c)
{
    PyObject *fields, *crosses;
    int i, j;

    if (!PyType_Check(v[CLASS_CLS]) || !(PyTuple_CheckExact(v[CLASS_FIELDS]) || v[CLASS_FIELDS] == Py_None)
        || !PyTuple_CheckExact(v[CLASS_CROSS_RULES])) {
        PyErr_SetString(PyExc_TypeError, "a class record holds a class, a tuple of fields or None, a tuple of rules");
        return -1;
    }
    c->cls = (PyTypeObject *)Py_NewRef(v[CLASS_CLS]);
    if (c->cls->tp_itemsize != 0 || c->cls->tp_new != PyBaseObject_Type.tp_new) {
        PyErr_Format(PyExc_TypeError, "%s is not a plain class built by object.__new__", c->cls->tp_name);
        return -1;
    }
    if (v[CLASS_TAG] != Py_None && intern_key(v[CLASS_TAG], &c->tag_key, &c->tag_hash) < 0) {
        return -1;
    }
    fields = v[CLASS_FIELDS];
    crosses = v[CLASS_CROSS_RULES];
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

static int
read_class(Structurer *s, PyObject *record, Class *c)
{
    PyObject *v[CLASS_N];
    int rc;

    if (read_record(record, CLASS_RECORD, v, "class") < 0) {
        return -1;
    }
    rc = read_class_values(s, v, c);
    release_record(v, CLASS_N);
    return rc;
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

/* Union `u` from the fields of its record: its tag key and a dict of tag to class index. */
static int
read_union(Structurer *s, PyObject *record, Union *u)
{
    PyObject *v[UNION_N];
    int rc = -1;

    if (read_record(record, UNION_RECORD, v, "union") < 0) {
        return -1;
    }
    if (!PyDict_CheckExact(v[UNION_MEMBERS])) {
        PyErr_SetString(PyExc_TypeError, "a union's members are a dict of tag to class index");
    }
    else if (intern_key(v[UNION_KEY], &u->key, &u->hash) == 0) {
        u->members = PyDict_Copy(v[UNION_MEMBERS]);
        rc = u->members == NULL || check_members(s, u->members) < 0 ? -1 : 0;
    }
    release_record(v, UNION_N);
    return rc;
}

/* The walk's bounds from the fields of their record. */
static int
read_bounds(Structurer *s, PyObject *record)
{
    PyObject *v[BOUNDS_N];
    Py_ssize_t *bounds[BOUNDS_N] = {&s->max_chars, &s->max_depth, &s->max_nodes, &s->max_bytes, &s->max_base64};
    int i, rc = 0;

    if (read_record(record, BOUNDS_RECORD, v, "bounds") < 0) {
        return -1;
    }
    for (i = 0; i < BOUNDS_N && rc == 0; i++) {
        rc = cb_size_limit(v[i], "a structurer limit", bounds[i]);
    }
    release_record(v, BOUNDS_N);
    return rc;
}

PyDoc_STRVAR(structurer_doc,
"structurer(classes, unions, bounds, native_binary, miss, /)\n--\n\n"
"A structurer for a tuple of class records and a tuple of union records, read by the field names\n"
"STRUCTURER['records'] lists for each record (any object with those attributes will do).\n"
"`bounds` is a record of the walk's limits. With `native_binary`, binary fields take bytes, else\n"
"base64 text. A class whose fields are None (or more than eight, or with more than four cross rules)\n"
"is in the table only as a target: each of its objects is a miss. The structurer returns `miss` for\n"
"anything the table does not take.");

static PyObject *
speedups_structurer(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *classes, *unions;
    Structurer *s;
    int i;

    if (!check_nargs("structurer", nargs, 5) || !setup_done()) {
        return NULL;
    }
    classes = args[0];
    unions = args[1];
    if (!PyTuple_CheckExact(classes) || !PyTuple_CheckExact(unions) || PyTuple_GET_SIZE(classes) > 1000
        || PyTuple_GET_SIZE(unions) > 1000) {
        PyErr_SetString(PyExc_TypeError, "structurer() takes tuples of class and union records");
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
    if (read_bounds(s, args[2]) < 0) {
        goto fail;
    }
    /* Both counts are known before any target is read: a field may name a class or union after its own. */
    s->nclasses = (int)PyTuple_GET_SIZE(classes);
    s->nunions = (int)PyTuple_GET_SIZE(unions);
    for (i = 0; i < s->nunions; i++) {
        if (read_union(s, PyTuple_GET_ITEM(unions, i), &s->unions[i]) < 0) {
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

/* The fields of each record the table reads, by record. */
static PyObject *
records_dict(void)
{
    static const char *const RECORD_NAMES[] = {"class", "field", "shorthand", "cross_rule", "allowed_types", "union",
                                               "bounds", NULL};
    static const char *const *const RECORDS[] = {CLASS_RECORD, FIELD_RECORD, SHORTHAND_RECORD, CROSS_RECORD,
                                                  ALLOWED_RECORD, UNION_RECORD, BOUNDS_RECORD};
    PyObject *out = PyDict_New(), *names;
    int i;

    for (i = 0; out != NULL && RECORD_NAMES[i] != NULL; i++) {
        names = names_tuple(RECORDS[i]);
        if (names == NULL || PyDict_SetItemString(out, RECORD_NAMES[i], names) < 0) {
            Py_CLEAR(out);
        }
        Py_XDECREF(names);
    }
    return out;
}

int
cb_structure_capabilities(PyObject *module)
{
    PyObject *kinds = names_tuple(FIELD_KINDS), *checks = names_tuple(TEXT_CHECKS), *records = records_dict();
    PyObject *capabilities = NULL;

    if (kinds != NULL && checks != NULL && records != NULL) {
        capabilities = Py_BuildValue("{sOsOsisisO}", "field_kinds", kinds, "text_checks", checks,
                                     "max_fields", MAX_FIELDS, "max_cross_rules", MAX_CROSS, "records", records);
    }
    Py_XDECREF(kinds);
    Py_XDECREF(checks);
    Py_XDECREF(records);
    if (capabilities == NULL || PyModule_AddObjectRef(module, "STRUCTURER", capabilities) < 0) {
        Py_XDECREF(capabilities);
        return -1;
    }
    Py_DECREF(capabilities);
    return 0;
}
