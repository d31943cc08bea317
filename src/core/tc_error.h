/* Error codes shared by every truecost module.
 *
 * Library functions return one of these (TC_OK on success) and, where the
 * caller passes a buffer, write a human-readable detail into it. Library code
 * never prints and never exits. */
#ifndef TC_ERROR_H
#define TC_ERROR_H

#include <stddef.h>

typedef enum tc_err {
    TC_OK = 0,
    TC_ERR_NOMEM,    /* an allocation failed */
    TC_ERR_INVALID,  /* an argument or input value is out of range or malformed */
    TC_ERR_PARSE,    /* outside data (JSON, spec string, file) could not be parsed */
    TC_ERR_IO,       /* a file or socket operation failed (errno in the detail) */
    TC_ERR_NET,      /* a network endpoint could not be bound or reached */
    TC_ERR_NOTFOUND, /* a named thing (model, file, run) does not exist */
    TC_ERR_BUSY      /* a resource (the results database) stayed locked: try again later */
} tc_err;

/* On every function that returns tc_err: a result dropped on the floor is a
 * compile error under -Werror, since an ignored failure is a silent wrong
 * figure. */
#define TC_MUST_CHECK __attribute__((warn_unused_result))

/* A static, never-NULL description of `err` ("unknown error" for values
 * outside the enum). */
const char *tc_strerror(tc_err err);

/* Writes a printf-formatted detail into `buf` (may be NULL or len 0, then
 * nothing is written) and returns `err`, so callers can write
 * `return tc_fail(buf, len, TC_ERR_PARSE, "line %d: ...", n);`. */
tc_err tc_fail(char *buf, size_t len, tc_err err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
