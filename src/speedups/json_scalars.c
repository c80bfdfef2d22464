/*
 * The strings and numbers of JSON text, read as json.loads reads them (see json_reader.c, which reads the
 * containers around them and hands back any text these refuse).
 */

#include "json_reader.h"

static int
reserve_scratch(Reader *r, Py_ssize_t size)
{
    char *bigger;
    if (size <= r->scratch_size) {
        return 0;
    }
    bigger = PyMem_Realloc(r->scratch, (size_t)size);
    if (bigger == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    r->scratch = bigger;
    r->scratch_size = size;
    return 0;
}

static int
hex_value(const unsigned char *p)
{
    int i, c, v = 0;
    for (i = 0; i < 4; i++) {
        c = p[i];
        if (c >= '0' && c <= '9') {
            v = v * 16 + (c - '0');
        }
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
            v = v * 16 + ((c | 0x20) - 'a' + 10);
        }
        else {
            return -1;
        }
    }
    return v;
}

PyObject *
cb_read_json_string(Reader *r)
{
    const unsigned char *start = r->p, *q = r->p, *end = r->end;
    char *out;
    int cp, low, escaped = 0;
    PyObject *s;

    q = cb_plain_run_end(q, end, 0);
    if (q < end && *q == '"') {
        /* Plain ASCII, the common case: copied as it is. */
        s = PyUnicode_New(q - start, 127);
        if (s != NULL) {
            memcpy(PyUnicode_1BYTE_DATA(s), start, (size_t)(q - start));
        }
        r->p = q + 1;
        return s;
    }
    /* Non-ASCII or escapes: the text is decoded strictly, which refuses invalid UTF-8 in the text's own bytes;
     * escapes are first undone into the scratch space as UTF-8 (never longer than the text). */
    while (q < end && *q != '"') {
        if (*q < 0x20) {
            return NULL;
        }
        if (*q == '\\') {
            escaped = 1;
            q++;
        }
        q++;
    }
    if (q >= end) {
        return NULL;
    }
    if (!escaped) {
        r->p = q + 1;
        return PyUnicode_DecodeUTF8((const char *)start, q - start, NULL);
    }
    if (reserve_scratch(r, q - start) < 0) {
        return NULL;
    }
    out = r->scratch;
    for (q = start; *q != '"';) {
        if (*q != '\\') {
            *out++ = (char)*q++;
            continue;
        }
        switch (q[1]) {
        case '"': *out++ = '"'; break;
        case '\\': *out++ = '\\'; break;
        case '/': *out++ = '/'; break;
        case 'b': *out++ = '\b'; break;
        case 'f': *out++ = '\f'; break;
        case 'n': *out++ = '\n'; break;
        case 'r': *out++ = '\r'; break;
        case 't': *out++ = '\t'; break;
        case 'u':
            if (end - q < 6 || (cp = hex_value(q + 2)) < 0) {
                return NULL;
            }
            q += 4;
            if (cp >= 0xDC00 && cp <= 0xDFFF) {
                return NULL; /* a lone low surrogate: json keeps it, and words it on the way */
            }
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (end - q < 8 || q[2] != '\\' || q[3] != 'u' || (low = hex_value(q + 4)) < 0xDC00 || low > 0xDFFF) {
                    return NULL;
                }
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                q += 6;
            }
            /* Never longer than its escape: 1 to 3 bytes for 6, 4 bytes for 12. */
            if (cp < 0x80) {
                *out++ = (char)cp;
            }
            else if (cp < 0x800) {
                *out++ = (char)(0xC0 | (cp >> 6));
                *out++ = (char)(0x80 | (cp & 0x3F));
            }
            else if (cp < 0x10000) {
                *out++ = (char)(0xE0 | (cp >> 12));
                *out++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                *out++ = (char)(0x80 | (cp & 0x3F));
            }
            else {
                *out++ = (char)(0xF0 | (cp >> 18));
                *out++ = (char)(0x80 | ((cp >> 12) & 0x3F));
                *out++ = (char)(0x80 | ((cp >> 6) & 0x3F));
                *out++ = (char)(0x80 | (cp & 0x3F));
            }
            break;
        default:
            return NULL;
        }
        q += 2;
    }
    r->p = q + 1;
    return PyUnicode_DecodeUTF8(r->scratch, out - r->scratch, NULL);
}

static inline int
is_digit(const Reader *r, const unsigned char *q)
{
    return q < r->end && *q >= '0' && *q <= '9';
}

/* As json's scanner reads it: an int unless it has a fraction or an exponent. */
PyObject *
cb_read_json_number(Reader *r)
{
    const unsigned char *start = r->p, *q = r->p;
    int is_float = 0;
    Py_ssize_t size;
    double d;
    char *endp;

    if (*q == '-') {
        q++;
    }
    if (!is_digit(r, q)) {
        return NULL;
    }
    if (*q++ != '0') {
        while (is_digit(r, q)) {
            q++;
        }
    }
    if (q < r->end && *q == '.' && is_digit(r, q + 1)) {
        is_float = 1;
        q += 2;
        while (is_digit(r, q)) {
            q++;
        }
    }
    if (q < r->end && (*q == 'e' || *q == 'E')) {
        const unsigned char *e = q + 1;
        if (e < r->end && (*e == '+' || *e == '-')) {
            e++;
        }
        if (is_digit(r, e)) {
            is_float = 1;
            q = e;
            while (is_digit(r, q)) {
                q++;
            }
        }
    }
    r->p = q;
    size = q - start;
    if (!is_float && size - (*start == '-') <= 18) {
        long long v = 0;
        const unsigned char *digit = start + (*start == '-');
        for (; digit < q; digit++) {
            v = v * 10 + (*digit - '0');
        }
        return PyLong_FromLongLong(*start == '-' ? -v : v);
    }
    if (reserve_scratch(r, size + 1) < 0) {
        return NULL;
    }
    memcpy(r->scratch, start, (size_t)size);
    r->scratch[size] = '\0';
    if (!is_float) {
        return PyLong_FromString(r->scratch, NULL, 10); /* ValueError past int()'s digit limit, as json */
    }
    d = PyOS_string_to_double(r->scratch, &endp, NULL); /* float() of the same digits: 1e400 is inf */
    if (d == -1.0 && PyErr_Occurred()) {
        return NULL;
    }
    return PyFloat_FromDouble(d);
}
