/* A strict, allocation-free JSON scanner for the client's hot path.
 *
 * It validates a JSON text (RFC 8259 grammar, well-formed UTF-8, nesting
 * bounded) in one pass and hands each object member to a caller's
 * callback, which reads the values it wants and skips the rest. Nothing is
 * built: strings come back as spans of the input. jansson, the project's
 * JSON library, costs ~10 us per 200-byte chunk (a malloc per key and
 * value) against a whole-client budget of 10 us per chunk; this costs well
 * under 1 us. Use jansson everywhere speed does not matter.
 *
 * Every function returns 0, or -1 after recording the first fault in the
 * cursor (why, at); a fault whose position is the end of the input means
 * the text was cut short (tc_jscan_is_cut). */
#ifndef TC_BENCH_JSCAN_H
#define TC_BENCH_JSCAN_H

#include <stddef.h>
#include <stdint.h>

#define TC_JSCAN_MAX_DEPTH 64

typedef struct tc_jscan {
    const char *p, *start, *end;
    const char *why; /* the first fault as a noun phrase ("an unexpected end"); NULL while valid */
    const char *at;  /* where it was found */
    int depth;
} tc_jscan;

/* A string value: the raw bytes between the quotes, escapes undecoded. */
typedef struct tc_jstr {
    const char *s;
    size_t n;    /* 0 exactly when the decoded string is empty */
    int escaped; /* it contains a backslash escape */
} tc_jstr;

typedef struct tc_jnum {
    double d;
    int64_t i;    /* the value, when is_count */
    int is_count; /* a non-negative whole number below 9e18 */
} tc_jnum;

/* Called with the cursor at a member's value; it must consume the value
 * (tc_jscan_value when it has no use for it). Returns 0 or -1. */
typedef int (*tc_jscan_member_fn)(tc_jscan *c, const tc_jstr *key, void *ctx);
/* The same for an array element. */
typedef int (*tc_jscan_elem_fn)(tc_jscan *c, void *ctx);

/* Points `c` at `len` bytes (need not be NUL-terminated). */
void tc_jscan_init(tc_jscan *c, const char *text, size_t len);

/* Scans a whole document: one value between optional whitespace, nothing
 * after. When it is an object, `fn` gets its top-level members.
 * *is_object tells whether it was. */
int tc_jscan_doc(tc_jscan *c, tc_jscan_member_fn fn, void *ctx, int *is_object);

/* Validates and skips any value. */
int tc_jscan_value(tc_jscan *c);

/* The cursor is at a value: the typed readers below each accept only
 * their type; tc_jscan_peek tells which it is by its first byte. */
int tc_jscan_peek(const tc_jscan *c, char first);
int tc_jscan_is_number(const tc_jscan *c);
int tc_jscan_string(tc_jscan *c, tc_jstr *out);
int tc_jscan_number(tc_jscan *c, tc_jnum *out);
int tc_jscan_object(tc_jscan *c, tc_jscan_member_fn fn, void *ctx);
int tc_jscan_array(tc_jscan *c, tc_jscan_elem_fn fn, void *ctx);

/* 1 when `key` is exactly `name` (an escaped key never matches). */
int tc_jscan_key_is(const tc_jstr *key, const char *name, size_t name_len);

/* 1 when the recorded fault is the input ending early. */
int tc_jscan_is_cut(const tc_jscan *c);

/* Decodes a validated string into `out` (size n > 0) as one line of UTF-8
 * for a message: control characters (and DEL) become spaces, lone surrogates
 * U+FFFD, and it is cut at a character boundary to fit. Returns the
 * length written (out is NUL-terminated). */
size_t tc_jscan_decode(const tc_jstr *s, char *out, size_t n);

#endif
