/* Base64: canonical, padded, standard-alphabet text only (docs/performance.md says why it is in C). As
 * everywhere in this file, decoding answers only for valid text and hands anything else back, for
 * _patterns.check_base64 to word.
 */

#include "speedups.h"
#include <stdint.h>
#include <string.h>


#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(_M_X64))
#define HAVE_SSSE3_ENCODE 1
#include <immintrin.h>
static int has_ssse3, has_avx2;
#else
#define HAVE_SSSE3_ENCODE 0
#endif

static const char B64_ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static signed char B64_VALUES[256];
/* Each character's six bits already shifted into place for its position in a quantum, or INVALID: a quantum
 * decodes with four lookups and three ORs, and any invalid character leaves a bit above the 24 data bits. */
#define INVALID 0x80000000u
static uint32_t B64_SHIFTED[4][256];
/* The two characters of every 12-bit value, for encoding: two lookups per three bytes. */
static char B64_PAIRS[4096][2];

void
cb_base64_init(void)
{
    int i;
#if HAVE_SSSE3_ENCODE
    __builtin_cpu_init();
    has_ssse3 = __builtin_cpu_supports("ssse3");
    has_avx2 = __builtin_cpu_supports("avx2");
#endif
    for (i = 0; i < 256; i++) {
        B64_VALUES[i] = -1;
    }
    for (i = 0; i < 64; i++) {
        B64_VALUES[(unsigned char)B64_ALPHABET[i]] = (signed char)i;
    }
    for (i = 0; i < 4096; i++) {
        B64_PAIRS[i][0] = B64_ALPHABET[i >> 6];
        B64_PAIRS[i][1] = B64_ALPHABET[i & 0x3F];
    }
    for (i = 0; i < 256; i++) {
        uint32_t v = B64_VALUES[i] < 0 ? INVALID : (uint32_t)B64_VALUES[i];
        B64_SHIFTED[0][i] = v == INVALID ? INVALID : v << 18;
        B64_SHIFTED[1][i] = v == INVALID ? INVALID : v << 12;
        B64_SHIFTED[2][i] = v == INVALID ? INVALID : v << 6;
        B64_SHIFTED[3][i] = v;
    }
}

PyDoc_STRVAR(b64decode_doc,
"b64decode(text, miss, /)\n--\n\n"
"The bytes of canonical base64 text (standard alphabet, padded, zero pad bits), or `miss` for anything\n"
"else, including a str subclass.");

PyObject *
cb_b64decode(PyObject *text)
{
    PyObject *out;
    const unsigned char *src;
    unsigned char *dst;
    Py_ssize_t i, n, full, size;
    int a, b, c, pad = 0;
    uint32_t quantum, seen = 0;

    if (!PyUnicode_CheckExact(text)) {
        return NULL;
    }
    if (str_ready(text) < 0) {
        return NULL;
    }
    n = PyUnicode_GET_LENGTH(text);
    if (!PyUnicode_IS_ASCII(text) || n % 4 != 0) {
        return NULL;
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
        quantum = B64_SHIFTED[0][src[i]] | B64_SHIFTED[1][src[i + 1]] | B64_SHIFTED[2][src[i + 2]]
                  | B64_SHIFTED[3][src[i + 3]];
        seen |= quantum;
        dst[0] = (unsigned char)(quantum >> 16);
        dst[1] = (unsigned char)(quantum >> 8);
        dst[2] = (unsigned char)quantum;
        dst += 3;
    }
    if (seen & INVALID) {  /* checked once: the bytes written so far are thrown away */
        goto miss;
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
    return NULL;
}

static PyObject *
speedups_b64decode(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *out;

    if (!check_nargs("b64decode", nargs, 2)) {
        return NULL;
    }
    out = cb_b64decode(args[0]);
    if (out == NULL && !PyErr_Occurred()) {
        return Py_NewRef(args[1]);
    }
    return out;
}

PyDoc_STRVAR(b64encode_doc,
"b64encode(data, /)\n--\n\n"
"The canonical base64 text (a str) of bytes: standard alphabet, padded, no newline.");

static PyObject *
speedups_b64encode(PyObject *module, PyObject *data)
{
    if (!PyBytes_CheckExact(data)) {
        PyErr_SetString(PyExc_TypeError, "b64encode() takes bytes");
        return NULL;
    }
    return cb_b64encode(data);
}

#if HAVE_SSSE3_ENCODE
/* The vector steps of the encoder, on x86-64 processors that have the instructions (asked once, at import).
 * Each 3-byte group is spread over a 32-bit lane, its four 6-bit values moved into place by two multiplies,
 * and each value turned into its character by adding an offset picked by range (A-Z, a-z, 0-9, +, /) with one
 * byte shuffle. Each function starts at byte `i` (a multiple of 3), writes from `dst`, the place of that byte's
 * group, and returns the byte it stopped at, a multiple of 3, for the next loop to go on from. */
#define SPREAD_BYTES 1, 0, 2, 1, 4, 3, 5, 4, 7, 6, 8, 7, 10, 9, 11, 10
#define RANGE_OFFSETS 'a' - 26, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, '0' - 52, \
                      '0' - 52, '0' - 52, '+' - 62, '/' - 63, 'A', 0, 0

/* Twelve bytes to sixteen characters per step (SSSE3). */
__attribute__((target("ssse3"))) static Py_ssize_t
encode_ssse3(const unsigned char *src, Py_ssize_t i, Py_ssize_t n, unsigned char *dst)
{
    const __m128i spread = _mm_setr_epi8(SPREAD_BYTES), offsets = _mm_setr_epi8(RANGE_OFFSETS);
    __m128i in, hi, lo, values, range;

    /* Sixteen bytes are loaded for the twelve used: stop while sixteen can be read. */
    for (; i + 16 <= n; i += 12, dst += 16) {
        in = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(src + i)), spread);
        hi = _mm_mulhi_epu16(_mm_and_si128(in, _mm_set1_epi32(0x0fc0fc00)), _mm_set1_epi32(0x04000040));
        lo = _mm_mullo_epi16(_mm_and_si128(in, _mm_set1_epi32(0x003f03f0)), _mm_set1_epi32(0x01000010));
        values = _mm_or_si128(hi, lo);
        /* 0 for 0-51, 1-12 for 52-63; then 13 for 0-25: the index of each value's offset */
        range = _mm_subs_epu8(values, _mm_set1_epi8(51));
        range = _mm_or_si128(range, _mm_and_si128(_mm_cmpgt_epi8(_mm_set1_epi8(26), values), _mm_set1_epi8(13)));
        _mm_storeu_si128((__m128i *)dst, _mm_add_epi8(values, _mm_shuffle_epi8(offsets, range)));
    }
    return i;
}

/* Twenty-four bytes to thirty-two characters per step (AVX2): the same steps in both 128-bit lanes. */
__attribute__((target("avx2"))) static Py_ssize_t
encode_avx2(const unsigned char *src, Py_ssize_t i, Py_ssize_t n, unsigned char *dst)
{
    const __m256i spread = _mm256_setr_epi8(SPREAD_BYTES, SPREAD_BYTES);
    const __m256i offsets = _mm256_setr_epi8(RANGE_OFFSETS, RANGE_OFFSETS);
    __m256i in, hi, lo, values, range;

    /* The second lane's sixteen bytes start twelve on: stop while they can be read. */
    for (; i + 28 <= n; i += 24, dst += 32) {
        in = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(src + i))),
                                     _mm_loadu_si128((const __m128i *)(src + i + 12)), 1);
        in = _mm256_shuffle_epi8(in, spread);
        hi = _mm256_mulhi_epu16(_mm256_and_si256(in, _mm256_set1_epi32(0x0fc0fc00)), _mm256_set1_epi32(0x04000040));
        lo = _mm256_mullo_epi16(_mm256_and_si256(in, _mm256_set1_epi32(0x003f03f0)), _mm256_set1_epi32(0x01000010));
        values = _mm256_or_si256(hi, lo);
        range = _mm256_subs_epu8(values, _mm256_set1_epi8(51));
        range = _mm256_or_si256(
            range, _mm256_and_si256(_mm256_cmpgt_epi8(_mm256_set1_epi8(26), values), _mm256_set1_epi8(13)));
        _mm256_storeu_si256((__m256i *)dst, _mm256_add_epi8(values, _mm256_shuffle_epi8(offsets, range)));
    }
    return i;
}
#endif

PyObject *
cb_b64encode(PyObject *data)
{
    PyObject *out;
    const unsigned char *src;
    unsigned char *dst;
    Py_ssize_t i, n, rest;
    unsigned int v;

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
    i = 0;
#if HAVE_SSSE3_ENCODE
    if (has_avx2) {
        i = encode_avx2(src, i, n, dst);
    }
    if (has_ssse3) {
        i = encode_ssse3(src, i, n, dst + i / 3 * 4);
    }
    dst += i / 3 * 4;
#endif
#if (defined(__GNUC__) || defined(__clang__)) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Six bytes at a time while eight can be read: one load and a byte swap give four 12-bit values, the top
     * 48 of the 64 bits. */
    for (; i + 8 <= n; i += 6) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        w = __builtin_bswap64(w);
        memcpy(dst, B64_PAIRS[w >> 52], 2);
        memcpy(dst + 2, B64_PAIRS[(w >> 40) & 0xFFF], 2);
        memcpy(dst + 4, B64_PAIRS[(w >> 28) & 0xFFF], 2);
        memcpy(dst + 6, B64_PAIRS[(w >> 16) & 0xFFF], 2);
        dst += 8;
    }
#endif
    for (; i < n - rest; i += 3) {
        v = (unsigned int)src[i] << 16 | (unsigned int)src[i + 1] << 8 | src[i + 2];
        memcpy(dst, B64_PAIRS[v >> 12], 2);
        memcpy(dst + 2, B64_PAIRS[v & 0xFFF], 2);
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

PyMethodDef cb_base64_methods[] = {
    {"b64decode", (PyCFunction)(void (*)(void))speedups_b64decode, METH_FASTCALL, b64decode_doc},
    {"b64encode", (PyCFunction)speedups_b64encode, METH_O, b64encode_doc},
    {NULL, NULL, 0, NULL},
};
