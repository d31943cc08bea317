/* What a report function writes, captured in memory for the unit tests:
 * cap_open gives the FILE* to hand it; cap_close ends the stream and
 * returns the NUL-terminated text (kept in c->text; the caller frees it). */
#ifndef TC_TEST_CAPTURE_H
#define TC_TEST_CAPTURE_H

#include <stdio.h>
#include <string.h>

typedef struct capture {
    char *text;
    size_t len;
    FILE *f;
} capture;

static inline FILE *cap_open(capture *c)
{
    memset(c, 0, sizeof *c);
    c->f = open_memstream(&c->text, &c->len);
    assert_non_null(c->f);
    return c->f;
}

static inline char *cap_close(capture *c)
{
    fclose(c->f);
    return c->text;
}

#endif
