/* Reading a whole user file (profile, assessment, gap table, spec table)
 * into memory, with one size limit and one set of messages. */
#ifndef TC_FILE_H
#define TC_FILE_H

#include <stddef.h>

#include "core/tc_error.h"

/* Reads the file at `path` into a new NUL-terminated buffer *text (the
 * caller frees it) of *len bytes (the NUL not counted). A file over
 * max_bytes is refused with TC_ERR_PARSE: "PATH: over N MiB: not WHAT"
 * (`what`, e.g. "a cost profile"). TC_ERR_IO when it cannot be opened or
 * read (errno's text in err), TC_ERR_NOMEM, TC_ERR_INVALID for NULL
 * arguments. On error *text is NULL and *len 0. */
TC_MUST_CHECK tc_err tc_read_file(const char *path, size_t max_bytes, const char *what, char **text,
                                  size_t *len, char *err, size_t errlen);

#endif
