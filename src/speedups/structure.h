/* The structurer's table, shared by structure_table.c (which reads it from the Python generator's tuples),
 * structure.c (which walks raw dicts by it), structure_cross.c (its cross-field rules) and structure_type.c
 * (the structurer's methods). See structure.c for what the walk does. */

#ifndef CONTENTBLOCKS_STRUCTURE_H
#define CONTENTBLOCKS_STRUCTURE_H

#include "speedups.h"

/* The most fields, and cross rules, one class of the table may have. */
#define MAX_FIELDS 8
#define MAX_CROSS 4

/* string: text by a check; json_value: any JSON value; json_object: metadata, an object whose keys are not too short */
enum field_kind { F_TEXT, F_CHOICE, F_JSON, F_METADATA, F_BINARY, F_OFFSET, F_ONE, F_MANY, F_FLAG };
enum text_check { T_FREE, T_TRIMMED, T_ASCII_CHARS, T_CALL };
enum cannot_fail { C_NEVER, C_ABSENT, C_EMPTY, C_ALLOWED_TYPES };

#define FLAG_OPTIONAL 1 /* text, binary, offset: an absent key is None */
#define FLAG_REQUIRED 2 /* many: an absent key is a problem (else the field is empty) */
#define FLAG_NONEMPTY 4 /* binary, many: an empty value is a problem */

typedef struct {
    int kind;
    int flags;
    PyObject *key;        /* interned */
    Py_hash_t hash;
    Py_ssize_t offset;    /* the instance slot the value goes in */
    int check;            /* text: enum text_check */
    Py_ssize_t max;       /* text: the limit passed to the check; metadata: the fewest characters in a key */
    PyObject *arg;        /* text T_CALL: the predicate; choice: the frozenset; metadata: the empty object */
    uint32_t chars[4];    /* text T_ASCII_CHARS: the ASCII characters it accepts, a bit each */
    int target;           /* one, many: a class (>= 0) or a union (-1 - index) */
    int short_class;      /* many: the class a string stands for (-1 for none) */
    int short_field;      /* many: the field of that class the string fills */
    PyObject *short_defaults; /* many: that class's field values, the string's place among them unused */
} Field;

typedef struct {
    PyObject *check;      /* check(problems, path, *values): the rule, which appends its problems */
    int form;             /* enum cannot_fail: when the values need no call */
    int form_fields[2];   /* C_EMPTY: the field; C_ALLOWED_TYPES: the key field and the items field */
    PyObject *allowed;    /* C_ALLOWED_TYPES: a dict of the key field's value to a frozenset of classes */
    int nfields;
    int fields[MAX_FIELDS];
    int ngiven;
    int given[MAX_FIELDS];
} Cross;

typedef struct {
    PyTypeObject *cls;
    int walkable;         /* 0: the table does not describe the class, and each of its objects is a miss */
    PyObject *tag_key;    /* the key of the union tag its objects carry, or NULL */
    Py_hash_t tag_hash;
    int nfields;
    Field fields[MAX_FIELDS];
    int ncross;
    Cross cross[MAX_CROSS];
} Class;

typedef struct {
    PyObject *key;
    Py_hash_t hash;
    PyObject *members;    /* dict of tag to class index (an int) */
} Union;

typedef struct {
    PyObject_HEAD
    int nclasses;
    Class *classes;
    int nunions;
    Union *unions;
    Py_ssize_t max_chars, max_depth, max_nodes, max_bytes, max_base64;
    int native_binary;
    PyObject *miss;
} Structurer;

extern PyTypeObject Structurer_Type;

/* structure_table.c: an int of the table in [lo, hi), in *out; -1 with a ValueError naming `what` otherwise. */
int cb_table_index(PyObject *value, long lo, long hi, const char *what, int *out);

/* structure_cross.c: whether a cross rule holds for a class's field values (1, 0, or -1 on error); and the
 * setup it needs, once, before any walk. */
int cb_cross_holds(const Cross *cross, PyObject **values, PyObject **raw);
int cb_cross_init(void);

/* structure.c: the instance of class or union `target` that exact dict `raw` describes, a new reference;
 * NULL without an exception is a miss. */
PyObject *cb_structure_target(Structurer *s, PyObject *raw, int target, int depth);

#endif
