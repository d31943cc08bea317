#include "tc_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(tc_buf *b, size_t extra)
{
    if (b->failed)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->cap = cap;
    return 0;
}

void tc_buf_free(tc_buf *b)
{
    if (!b)
        return;
    free(b->data);
    memset(b, 0, sizeof *b);
}

void tc_buf_reset(tc_buf *b)
{
    b->len = 0;
    b->failed = 0;
    if (b->data)
        b->data[0] = '\0';
}

void tc_buf_append(tc_buf *b, const char *data, size_t len)
{
    if (reserve(b, len) < 0)
        return;
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void tc_buf_puts(tc_buf *b, const char *s)
{
    tc_buf_append(b, s, strlen(s));
}

void tc_buf_printf(tc_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        tc_buf_append(b, small, (size_t)n);
        return;
    }
    if (reserve(b, (size_t)n) < 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void tc_buf_json_str(tc_buf *b, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    tc_buf_append(b, "\"", 1);
    size_t run = 0; /* start of the pending run of bytes that need no escape */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        tc_buf_append(b, s + run, i - run);
        run = i + 1;
        char esc[6] = {'\\', 0, 0, 0, 0, 0};
        size_t n = 2;
        switch (c) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        default:
            esc[1] = 'u';
            esc[2] = '0';
            esc[3] = '0';
            esc[4] = hex[c >> 4];
            esc[5] = hex[c & 15];
            n = 6;
        }
        tc_buf_append(b, esc, n);
    }
    tc_buf_append(b, s + run, len - run);
    tc_buf_append(b, "\"", 1);
}

tc_err tc_buf_status(const tc_buf *b)
{
    return b->failed ? TC_ERR_NOMEM : TC_OK;
}
