/* The GGUF reader's cursor and metadata, shared by its two files:
 * modelfile_gguf.c (header and metadata) and modelfile_gguf_tensors.c
 * (the tensor infos and their bounds). */
#ifndef TC_MODELFILE_GGUF_INTERNAL_H
#define TC_MODELFILE_GGUF_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"
#include "record/record_model.h"

/* Where the reader is. A shortage past `len` but inside the file asks for
 * more bytes (need); past the file it is an error. */
typedef struct tc_gguf_cursor {
    const unsigned char *b;
    size_t len;
    uint64_t size; /* the file's */
    size_t pos;
    size_t need; /* > 0: stop, the caller reads more */
    tc_err rc;   /* the first error */
    const char *file;
    char *err;
    size_t errlen;
} tc_gguf_cursor;

/* Records the error "FILE: offset AT: <fmt>" (the first one wins); -1. */
int tc_gguf_fail(tc_gguf_cursor *c, uint64_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* n bytes at the cursor into *p (the cursor moves on): 0, or -1 when they
 * are not there (an error past the file's end, a request for more past
 * len). `what` names them in the message. */
int tc_gguf_take(tc_gguf_cursor *c, uint64_t n, const char *what, const unsigned char **p);
int tc_gguf_u32(tc_gguf_cursor *c, const char *what, uint32_t *out);
int tc_gguf_u64(tc_gguf_cursor *c, const char *what, uint64_t *out);

/* Reads the tensor infos (n of them) at the cursor, then checks that their
 * data lies inside the file, aligned and without overlap, and adds them to
 * m. 0 or -1 (the cursor says why). */
int tc_gguf_read_tensors(tc_gguf_cursor *c, uint64_t n, uint32_t alignment, tc_model_shape *m);

#endif
