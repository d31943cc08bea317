#include "tc_json.h"

#include "tc_text.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
        unsigned cp;
        size_t n = tc_utf8_decode((const unsigned char *)s + i, &cp);
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

json_t *tc_json_alias(json_t *obj, const char *old_key, const char *key)
{
    json_t *v = obj ? json_object_get(obj, key) : NULL;
    if (v)
        json_object_set(obj, old_key, v);
    return obj;
}
