/* Whole-file reads for the readers of user files. */
#include "core/tc_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Doubles the buffer, keeping room for the NUL. */
static tc_err grow(char **buf, size_t *cap, size_t max_bytes, const char *path, const char *what,
                   char *err, size_t errlen)
{
    if (*cap > max_bytes)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: over %zu MiB: not %s", path,
                       max_bytes >> 20 ? max_bytes >> 20 : 1, what);
    size_t ncap = *cap ? *cap * 2 : 4096;
    char *grown = realloc(*buf, ncap + 1);
    if (!grown)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", path);
    *buf = grown;
    *cap = ncap;
    return TC_OK;
}

tc_err tc_read_file(const char *path, size_t max_bytes, const char *what, char **text, size_t *len,
                    char *err, size_t errlen)
{
    if (!path || !what || !text || !len)
        return tc_fail(err, errlen, TC_ERR_INVALID, "read: NULL argument");
    *text = NULL;
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return tc_fail(err, errlen, TC_ERR_IO, "%s: %s", path, strerror(errno));
    char *buf = NULL;
    size_t n = 0, cap = 0;
    tc_err rc = TC_OK;
    for (;;) {
        if (n == cap && (rc = grow(&buf, &cap, max_bytes, path, what, err, errlen)) != TC_OK)
            break;
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (rc == TC_OK && ferror(f))
        rc = tc_fail(err, errlen, TC_ERR_IO, "%s: read error", path);
    if (rc == TC_OK && n > max_bytes)
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "%s: over %zu MiB: not %s", path,
                     max_bytes >> 20 ? max_bytes >> 20 : 1, what);
    fclose(f);
    if (rc != TC_OK) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return TC_OK;
}
