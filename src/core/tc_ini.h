/* Strict INI text in memory, over inih: the reader that feeds inih from a
 * buffer and counts lines (the system inih is built without
 * INI_HANDLER_LINENO), the first error kept as "NAME:LINE: detail", and
 * the mapping of inih's result to an error code. Cost profiles and
 * assessments are read with it. */
#ifndef TC_INI_H
#define TC_INI_H

#include <stdarg.h>
#include <stddef.h>

#include <ini.h>

#include "core/tc_error.h"

typedef struct tc_ini {
    const char *name; /* the file, for messages */
    const char *text;
    size_t len, pos;
    int line;          /* of the line being handled, from 1 */
    int at_line_start; /* internal: the next read starts a line */
    int failed;        /* an error is recorded in err */
    char *err;
    size_t errlen;
    /* Called with each new line before inih sees it (may be NULL). */
    void (*on_line)(void *user, const char *line);
    void *user;
} tc_ini;

/* Sets up *ini over `len` bytes of `text` named `name`; errors go to err. */
void tc_ini_init(tc_ini *ini, const char *name, const char *text, size_t len, char *err,
                 size_t errlen);

/* Records "NAME:LINE: detail" unless an error is recorded already (later
 * errors often follow from the first). Returns 0, what an inih handler
 * returns to say "error". */
int tc_ini_vfail(tc_ini *ini, const char *fmt, va_list ap);

/* The one key allowed before the first [section]: `currency`, a label of 1
 * to size - 1 characters copied into currency[size]. Returns 1, or 0 after
 * recording the error (another key, or a bad label). */
int tc_ini_top_level(tc_ini *ini, const char *name, const char *value, char *currency, size_t size);

/* Runs inih over the text with `handler` (given `user`). Returns TC_OK;
 * TC_ERR_PARSE for a NUL byte, a recorded error or a line inih cannot
 * read ("NAME:LINE: not a '[section]' or 'key = value' line"); or
 * TC_ERR_NOMEM. */
tc_err tc_ini_run(tc_ini *ini, ini_handler handler, void *user);

#endif
