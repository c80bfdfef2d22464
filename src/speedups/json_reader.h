/*
 * The state of one reading of JSON text (json_reader.c), shared with the readers of its strings and numbers
 * (json_scalars.c).
 */

#ifndef CONTENTBLOCKS_JSON_READER_H
#define CONTENTBLOCKS_JSON_READER_H

#include "speedups.h"

/* How many recent keys a reading keeps (a power of two), and the longest key kept. */
#define RECENT_KEY_SLOTS 256
#define RECENT_KEY_LONGEST 32

typedef struct {
    const unsigned char *p;
    const unsigned char *end;
    /* Keys seen in this text, so that equal keys share one str, as json's memo makes them. */
    PyObject *memo;
    /* The memo's short plain keys by a cheap hash of their bytes: a key met again is found
     * here without building a str, hashing it and freeing it again. A slot holds the last key that fell in it. */
    PyObject *recent_keys[RECENT_KEY_SLOTS];
    /* Room to unescape a string or to NUL-terminate a number in. */
    char *scratch;
    Py_ssize_t scratch_size;
    int depth;
} Reader;

/* A string whose opening quote was read, or a number: a new reference, or NULL (with an exception, or none
 * on a miss). */
PyObject *cb_read_json_string(Reader *r);
PyObject *cb_read_json_number(Reader *r);

#endif
