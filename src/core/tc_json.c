#include "tc_json.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    size_t n = c < 0x80                 ? 1
               : c >= 0xC2 && c <= 0xDF ? 2
               : (c & 0xF0) == 0xE0     ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && s[1] < 0xA0) || (c == 0xED && s[1] > 0x9F) || (c == 0xF0 && s[1] < 0x90) ||
        (c == 0xF4 && s[1] > 0x8F))
        return 0;
    return n;
}

/* Text from outside (a server's error message cut at 200 bytes, a label)
 * may not be UTF-8, which JSON requires: each bad byte becomes U+FFFD. */
json_t *tc_json_string(const char *s)
{
    if (!s)
        return json_null();
    json_t *v = json_string(s);
    if (v)
        return v;
    size_t len = strlen(s), o = 0;
    char *clean = malloc(len * 3 + 1);
    if (!clean)
        return NULL;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_len((const unsigned char *)s + i);
        if (n == 0) {
            memcpy(clean + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
            continue;
        }
        memcpy(clean + o, s + i, n);
        o += n;
        i += n;
    }
    clean[o] = '\0';
    v = json_string(clean);
    free(clean);
    return v;
}

json_t *tc_json_str_or_null(const char *s)
{
    return s && s[0] ? tc_json_string(s) : json_null();
}

json_t *tc_json_num(int valid, double v)
{
    return valid && isfinite(v) ? json_real(v) : json_null();
}

tc_err tc_json_dump(FILE *out, const json_t *doc, char *err, size_t errlen)
{
    if (!out || !doc)
        return tc_fail(err, errlen, TC_ERR_INVALID, "nothing to write");
    errno = 0;
    if (json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) != 0 ||
        fputc('\n', out) == EOF || fflush(out) == EOF)
        return tc_fail(err, errlen, TC_ERR_IO, "writing JSON: %s",
                       errno ? strerror(errno) : "write failed");
    return TC_OK;
}

tc_err tc_json_print(FILE *out, json_t *doc, char *err, size_t errlen)
{
    if (!doc)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory building the JSON document");
    tc_err rc = tc_json_dump(out, doc, err, errlen);
    json_decref(doc);
    return rc;
}
