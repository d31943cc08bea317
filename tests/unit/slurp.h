/* A fixture file read whole for the unit tests: slurp_in(dir, name, &len)
 * gives dir/name NUL-terminated (at most 1 MiB; the caller frees it).
 * Include after cmocka.h. */
#ifndef TC_TEST_SLURP_H
#define TC_TEST_SLURP_H

#include <stdio.h>
#include <stdlib.h>

static inline char *slurp_in(const char *dir, const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", dir, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

#endif
