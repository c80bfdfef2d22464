/* Shared by the units of contentblocks._speedups: see module.c for what the extension is and is not. */

#ifndef CONTENTBLOCKS_SPEEDUPS_H
#define CONTENTBLOCKS_SPEEDUPS_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#if defined(__SSE2__) && (defined(__GNUC__) || defined(__clang__))
#include <emmintrin.h>
#define CB_SSE2 1
#endif

/* The deepest any walk recurses; max_depth is capped at 500 (501 with metadata), deeper values are handed
 * back to the Python walks, which use an explicit stack. */
#define MAX_RECURSION 1000

/* The read-only container types of _json/_values.py, given by setup(). */
extern PyTypeObject *JsonObject_Type;
extern PyTypeObject *JsonArray_Type;
extern PyObject *empty_tuple;

int check_nargs(const char *name, Py_ssize_t nargs, Py_ssize_t expected);

/* A size limit given as an int, in *out: a limit too large for a Py_ssize_t is PY_SSIZE_T_MAX, which no size
 * reaches either, so a converter's limits are taken as they are however large. 0, or -1 with an exception:
 * TypeError for a value that is not an int, ValueError naming `what` (e.g. "freeze() max_depth") for a
 * negative one. */
int cb_size_limit(PyObject *value, const char *what, Py_ssize_t *out);

/* Make a str's data readable: legacy strings need PyUnicode_READY before 3.12, which has none. 0 on success,
 * -1 with an exception set. */
static inline int
str_ready(PyObject *s)
{
#if PY_VERSION_HEX < 0x030C0000
    return PyUnicode_READY(s);
#else
    (void)s;
    return 0;
#endif
}
int setup_done(void);

/* Each unit's functions, added to the module by module.c. */
extern PyMethodDef cb_json_values_methods[];
extern PyMethodDef cb_json_nodes_methods[];
extern PyMethodDef cb_maker_methods[];
extern PyMethodDef cb_base64_methods[];
extern PyMethodDef cb_json_writer_methods[];
extern PyMethodDef cb_json_reader_methods[];
extern PyMethodDef cb_unstructure_methods[];
extern PyMethodDef cb_structure_methods[];

int cb_maker_init(void);
int cb_unstructure_init(void);
int cb_structure_init(void);
/* Add STRUCTURER to the module: what the walk can run (field kinds, text checks, fields and cross rules per
 * class), so that the Python side knows, and reports, what it leaves to the generated functions. */
int cb_structure_capabilities(PyObject *module);
void cb_base64_init(void);

/* Shared between units. cb_thaw_value: the plain dict/list copy of a frozen JSON value `depth` containers
 * down, a new reference, NULL without an exception on a miss. cb_b64encode: the base64 str of exact bytes. */
PyObject *cb_thaw_value(PyObject *v, int depth);
PyObject *cb_b64encode(PyObject *data);

/* cb_freeze: the read-only copy of a valid JSON value under these limits (see freeze()), a new reference;
 * NULL without an exception is a miss. cb_b64decode: the bytes of canonical base64 text (an exact str), a
 * new reference; NULL without an exception is a miss. */
PyObject *cb_freeze(PyObject *value, Py_ssize_t max_chars, Py_ssize_t max_depth, Py_ssize_t max_nodes);
PyObject *cb_b64decode(PyObject *text);

/* cb_int_fits: 1 if an exact int fits [-2**63, 2**64 - 1], 0 if not, -1 on error. cb_count_nodes: the
 * node-counting walk of json_nodes.c: 1 when a container takes the count past max_nodes, 0 when none does
 * (or the value is not a container of exact types, or nests deeper than max_depth), -1 on error. With `keys`
 * (a list), it checks each value as the Python valid-path walk does, gives 2 when another doubt comes first,
 * and on 1 leaves the keys from that container up to the root in `keys`, innermost first. */
int cb_int_fits(PyObject *v);
int cb_count_nodes(PyObject *value, Py_ssize_t max_chars, Py_ssize_t max_depth, Py_ssize_t max_nodes, PyObject *keys);

/* 1 if a ready str holds a lone surrogate (any UTF-16 surrogate code point: Python strings hold no pairs). */
int cb_has_surrogate(PyObject *s);

/* The first byte from `q` on (before `end`) that ends a plain run of JSON string text: the quote, the
 * backslash, a control byte or a non-ASCII one, and DEL too when `stop_at_del` is set (the ASCII writer
 * escapes it). With SSE2, which every x86-64 processor has, sixteen bytes are tested at a time: a signed
 * comparison with 0x20 finds the control bytes and the non-ASCII ones (0x80 and up are negative) at once. */
static inline const unsigned char *
cb_plain_run_end(const unsigned char *q, const unsigned char *end, int stop_at_del)
{
#ifdef CB_SSE2
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
    const __m128i del = _mm_set1_epi8(stop_at_del ? 0x7F : '"');  /* without DEL: the quote again */
    __m128i v, stops;
    int mask;

    while (end - q >= 16) {
        v = _mm_loadu_si128((const __m128i *)q);
        stops = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                             _mm_or_si128(_mm_cmplt_epi8(v, space), _mm_cmpeq_epi8(v, del)));
        mask = _mm_movemask_epi8(stops);
        if (mask != 0) {
            return q + __builtin_ctz((unsigned int)mask);
        }
        q += 16;
    }
#endif
    while (q < end && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\' && !(stop_at_del && *q == 0x7F)) {
        q++;
    }
    return q;
}

/* 1 if an exact str is at most `max` characters long and holds no lone surrogate (what every string of the
 * wire format must be, JSON strings included), 0 if not, -1 on error. */
static inline int
cb_text_within(PyObject *s, Py_ssize_t max)
{
    if (str_ready(s) < 0) {
        return -1;
    }
    if (PyUnicode_GET_LENGTH(s) > max) {
        return 0;
    }
    return PyUnicode_IS_ASCII(s) || !cb_has_surrogate(s);
}

/* The offset of the object slot `name` of `cls` (its own or a base's: a T_OBJECT_EX member descriptor lying
 * inside the instance, and not read-only when `writable` is set), or a negative code for the caller to word:
 * SLOT_ERROR (the lookup raised; the exception is set), SLOT_NOT_OURS (no member descriptor of cls or a
 * base), SLOT_UNFIT (a member of the wrong kind). */
#define SLOT_ERROR (-1)
#define SLOT_NOT_OURS (-2)
#define SLOT_UNFIT (-3)
Py_ssize_t cb_object_slot(PyTypeObject *cls, PyObject *name, int writable);

#endif
