/* Shared by messages.c and text_blocks.c: the message reader's state and the checks both halves use. */

#ifndef CONTENTBLOCKS_MESSAGES_H
#define CONTENTBLOCKS_MESSAGES_H

#include "speedups.h"

/* The wire names the reader looks up, interned once per reader (the strings are in messages.c). */
enum { K_ROLE, K_CONTENT, K_METADATA, K_TYPE, K_TEXT, K_CITATIONS, K_SOURCE, K_TITLE, K_QUOTE, K_START, K_END,
       K_KIND, K_VALUE, N_NAMES };

/* The objects the reader is made of, in the order message_reader() takes them. */
enum { A_ROLES, A_BODIES, A_METADATA, A_URI_PROBLEM, A_NEW_MESSAGE, A_NEW_TEXT, A_NEW_CITATION, A_NEW_CITED_URI,
       A_NEW_CITED_REFERENCE, A_TEXT_CLASS, A_EMPTY_OBJECT, A_MISS, N_OBJECTS };

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    Py_ssize_t max_chars;
    Py_ssize_t max_uri;
    PyObject *objects[N_OBJECTS];
    PyObject *names[N_NAMES];
} MessageReader;

#define OBJ(r, i) ((r)->objects[i])

/* 1 if `s` is a non-empty exact str of at most `max` characters without a lone surrogate; 0 if not; -1 on
 * error. */
static inline int
plain_text(PyObject *s, Py_ssize_t max)
{
    int ok;

    if (!PyUnicode_CheckExact(s)) {
        return 0;
    }
    ok = cb_text_within(s, max);
    return ok <= 0 ? ok : PyUnicode_GET_LENGTH(s) > 0;
}

/* plain_text() that also refuses leading or trailing whitespace (str.isspace() of the first or last character). */
static inline int
trimmed_text(PyObject *s, Py_ssize_t max)
{
    int ok = plain_text(s, max);
    if (ok <= 0) {
        return ok;
    }
    return !Py_UNICODE_ISSPACE(PyUnicode_READ_CHAR(s, 0))
           && !Py_UNICODE_ISSPACE(PyUnicode_READ_CHAR(s, PyUnicode_GET_LENGTH(s) - 1));
}

/* 1 if every key of the dict is an exact str. Only then is a lookup free of Python code: a key of another
 * type (a str subclass included) whose hash matched a name would be compared by its own __eq__, which could
 * change the dict and free the values read before it. */
static inline int
str_keys(PyObject *d)
{
    Py_ssize_t pos = 0;
    PyObject *key, *value;

    while (PyDict_Next(d, &pos, &key, &value)) {
        if (!PyUnicode_CheckExact(key)) {
            return 0;
        }
    }
    return 1;
}

/* The value under a name, borrowed (NULL if absent); -1 in *error when the lookup raised. */
static inline PyObject *
get(MessageReader *r, PyObject *raw, int name, int *error)
{
    PyObject *value = PyDict_GetItemWithError(raw, r->names[name]);
    if (value == NULL && PyErr_Occurred()) {
        *error = 1;
    }
    return value;
}

/* A text block's wire dict (its keys already known to be exact str) to a TextBlock: a new reference, or NULL,
 * with an exception on an error and without one on a miss. `problems` is the message's list for the Python
 * readers, made on first use. */
PyObject *cb_read_text(MessageReader *r, PyObject *raw, PyObject **problems);

/* What a Python body or reader, body(raw, problems), returns for `raw`: a new reference, or NULL, with an
 * exception when it raised, and without one (a miss) when it reported a problem. `*problems` is the message's
 * list, made on first use; every problem in it makes a miss, so it stays empty while the reader goes on. */
PyObject *cb_call_body(PyObject *body, PyObject *raw, PyObject **problems);

/* The metadata of a message or block: the empty object when `present` is false, else the Python reader's. */
static inline PyObject *
metadata_of(MessageReader *r, PyObject *raw, int present, PyObject **problems)
{
    return present ? cb_call_body(OBJ(r, A_METADATA), raw, problems) : Py_NewRef(OBJ(r, A_EMPTY_OBJECT));
}

#endif
