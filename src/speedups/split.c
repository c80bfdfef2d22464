/*
 * The elements of a top-level JSON array, as separate bytes, so that loads can parse and structure a
 * conversation one message at a time. This is not a parser: it finds the commas and the closing bracket of
 * the outer array, outside strings, and leaves every element to the real parser.
 *
 * For valid JSON the split is exact (an array of valid values joined by commas is valid, and conversely);
 * anything it cannot split cleanly (no array, unbalanced brackets, an unterminated string, nesting deeper
 * than it was told, a byte it does not expect) is a miss, and the caller parses the whole text as before, so
 * an invalid text gets the whole parser's error.
 *
 * Each element comes wrapped in an array of its own, `[element]`: a recursive parser then nests exactly as
 * deep for an element as for the whole text, so an element parses alone only where the whole text would.
 */

#include "speedups.h"
#include <string.h>

static int
is_space(unsigned char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Append `[` data[start:end] `]`, without the whitespace around the element, to `parts`; -1 on error, 1 if
 * the element is empty. */
static int
add_part(PyObject *parts, const char *data, Py_ssize_t start, Py_ssize_t end)
{
    PyObject *part;
    char *out;
    int result;

    while (start < end && is_space((unsigned char)data[start])) {
        start++;
    }
    while (end > start && is_space((unsigned char)data[end - 1])) {
        end--;
    }
    if (start == end) {
        return 1;
    }
    part = PyBytes_FromStringAndSize(NULL, end - start + 2);
    if (part == NULL) {
        return -1;
    }
    out = PyBytes_AS_STRING(part);
    out[0] = '[';
    memcpy(out + 1, data + start, (size_t)(end - start));
    out[end - start + 1] = ']';
    result = PyList_Append(parts, part);
    Py_DECREF(part);
    return result;
}

PyDoc_STRVAR(split_array_doc,
"split_array(data, max_depth, miss, /)\n--\n\n"
"The elements of the JSON array that exact bytes `data` hold, as a list of bytes, each the text of an\n"
"array holding only that element (`[element]`, the whitespace around the element removed), so that it\n"
"nests as deep as in the whole text; or `miss` for text that is not plainly one array of non-empty\n"
"elements with brackets balanced outside strings and nested at most `max_depth` deep (the array itself\n"
"counts one).");

static PyObject *
speedups_split_array(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    const char *data;
    Py_ssize_t n, i, start, depth = 0, max_depth;
    PyObject *parts;
    unsigned char c;
    int result;

    if (!check_nargs("split_array", nargs, 3)) {
        return NULL;
    }
    if (!PyBytes_CheckExact(args[0])) {
        PyErr_SetString(PyExc_TypeError, "split_array() takes bytes");
        return NULL;
    }
    max_depth = PyLong_AsSsize_t(args[1]);
    if (max_depth == -1 && PyErr_Occurred()) {
        return NULL;
    }
    data = PyBytes_AS_STRING(args[0]);
    n = PyBytes_GET_SIZE(args[0]);
    for (i = 0; i < n && is_space((unsigned char)data[i]); i++) {
    }
    if (i == n || data[i] != '[' || max_depth < 1) {
        return Py_NewRef(args[2]);
    }
    parts = PyList_New(0);
    if (parts == NULL) {
        return NULL;
    }
    depth = 1;
    start = ++i;
    for (; i < n; i++) {
        c = (unsigned char)data[i];
        if (c == '"') {
            /* A string: skip to its closing quote, the first one after an even run of backslashes (memchr
             * finds quotes many bytes at a time). In UTF-8 no byte of a multi-byte character is a quote or a
             * backslash. */
            for (;;) {
                const char *quote = memchr(data + i + 1, '"', (size_t)(n - i - 1));
                Py_ssize_t backslashes = 0;
                if (quote == NULL) {
                    goto miss;
                }
                i = quote - data;
                while (data[i - 1 - backslashes] == '\\') {
                    backslashes++;
                }
                if (backslashes % 2 == 0) {
                    break;
                }
            }
        }
        else if (c == '[' || c == '{') {
            if (++depth > max_depth) {
                goto miss;
            }
        }
        else if (c == ']' || c == '}') {
            if (--depth == 0) {
                break;
            }
        }
        else if (c == ',' && depth == 1) {
            if ((result = add_part(parts, data, start, i)) != 0) {
                goto fail_or_miss;
            }
            start = i + 1;
        }
    }
    if (i >= n || data[i] != ']') {
        goto miss;
    }
    result = add_part(parts, data, start, i);
    /* `[ ]` is an empty array; an empty last element after a comma (`[1,]`) is not JSON. */
    if (result < 0 || (result == 1 && PyList_GET_SIZE(parts) > 0)) {
        goto fail_or_miss;
    }
    for (i++; i < n; i++) {
        if (!is_space((unsigned char)data[i])) {
            goto miss;
        }
    }
    return parts;
fail_or_miss:
    if (result < 0) {
        Py_DECREF(parts);
        return NULL;
    }
miss:
    Py_DECREF(parts);
    return Py_NewRef(args[2]);
}

PyMethodDef cb_split_methods[] = {
    {"split_array", (PyCFunction)(void (*)(void))speedups_split_array, METH_FASTCALL, split_array_doc},
    {NULL, NULL, 0, NULL},
};
