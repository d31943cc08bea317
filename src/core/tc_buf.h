/* A growable byte buffer, always NUL-terminated, for building wire text
 * (JSON lines, SSE events) without an allocation per piece. */
#ifndef TC_BUF_H
#define TC_BUF_H

#include <stddef.h>

#include "tc_error.h"

typedef struct tc_buf {
    char *data; /* NUL-terminated; NULL until the first append */
    size_t len;
    size_t cap;
    int failed; /* set once an allocation failed; later appends are no-ops */
} tc_buf;

/* Zero-initialised tc_buf is valid and empty. _free accepts NULL and an
 * empty buffer, and leaves the buffer empty and reusable. */
void tc_buf_free(tc_buf *b);

/* Empties the buffer, keeping its memory. */
void tc_buf_reset(tc_buf *b);

void tc_buf_append(tc_buf *b, const char *data, size_t len);
void tc_buf_puts(tc_buf *b, const char *s);
void tc_buf_printf(tc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends `s` (len bytes) as a quoted JSON string with escapes; invalid
 * UTF-8 bytes are passed through unchanged. */
void tc_buf_json_str(tc_buf *b, const char *s, size_t len);

/* TC_ERR_NOMEM if any append failed since the last reset, else TC_OK. */
TC_MUST_CHECK tc_err tc_buf_status(const tc_buf *b);

#endif
