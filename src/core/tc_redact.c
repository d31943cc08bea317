#include "core/tc_redact.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const secret_words[] = {"token", "key",  "secret", "password",  "passwd",
                                           "pwd",   "auth", "sig",    "signature", "apikey"};

static int is_word(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof secret_words / sizeof secret_words[0]; i++)
        if (strlen(secret_words[i]) == n && strncasecmp(s, secret_words[i], n) == 0)
            return 1;
    return 0;
}

int tc_redact_secret_param(const char *name, size_t n)
{
    if (is_word(name, n))
        return 1;
    /* The last word after '_' or '-': api_key, access_token, x-auth. */
    for (size_t i = n; i-- > 0;)
        if (name[i] == '_' || name[i] == '-')
            return is_word(name + i + 1, n - i - 1);
    return 0;
}

/* Appends to out what fits. */
typedef struct sink {
    char *out;
    size_t len, n;
} sink;

static void put(sink *s, const char *p, size_t n)
{
    for (size_t i = 0; i < n && s->n + 1 < s->len; i++)
        s->out[s->n++] = p[i];
}

/* The authority of a URL starting at p (after "://"): its password, if
 * any, redacted. Returns where the authority ends. */
static const char *authority(sink *s, const char *p)
{
    size_t end = strcspn(p, "/?#, \t\n\"'");
    const char *at = NULL;
    for (size_t i = 0; i < end; i++)
        if (p[i] == '@')
            at = p + i;
    const char *colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
    if (colon) {
        put(s, p, (size_t)(colon + 1 - p));
        put(s, "***", 3);
        put(s, at, (size_t)(p + end - at));
    } else {
        put(s, p, end);
    }
    return p + end;
}

/* A query string at p (after '?'), up to '#' or white space: each
 * credential's value redacted. Returns where it ends. */
static const char *query(sink *s, const char *p)
{
    while (*p && !strchr("# \t\n\"'", *p)) {
        size_t pair = strcspn(p, "&;# \t\n\"'");
        const char *eq = memchr(p, '=', pair);
        if (eq && tc_redact_secret_param(p, (size_t)(eq - p))) {
            put(s, p, (size_t)(eq + 1 - p));
            put(s, "***", 3);
        } else {
            put(s, p, pair);
        }
        p += pair;
        if (*p == '&' || *p == ';')
            put(s, p++, 1);
    }
    return p;
}

/* Text with no URL in it, word by word: a libpq-style "password=..." (a
 * credential's key=value) redacted. */
static void words(sink *s, const char *p)
{
    while (*p) {
        size_t gap = strspn(p, " \t\n");
        put(s, p, gap);
        p += gap;
        size_t word = strcspn(p, " \t\n");
        const char *eq = memchr(p, '=', word);
        if (eq && eq > p && tc_redact_secret_param(p, (size_t)(eq - p))) {
            put(s, p, (size_t)(eq + 1 - p));
            put(s, "***", 3);
        } else {
            put(s, p, word);
        }
        p += word;
    }
}

void tc_redact_url(const char *text, char *out, size_t len)
{
    if (!out || len == 0)
        return;
    sink s = {out, len, 0};
    const char *p = text ? text : "";
    while (*p) {
        const char *scheme = strstr(p, "://");
        const char *q = strchr(p, '?');
        if (q && (!scheme || q < scheme)) { /* a query with no scheme before it */
            put(&s, p, (size_t)(q + 1 - p));
            p = query(&s, q + 1);
            continue;
        }
        if (!scheme) {
            words(&s, p);
            break;
        }
        put(&s, p, (size_t)(scheme + 3 - p));
        p = authority(&s, scheme + 3);
        size_t path = strcspn(p, "?#, \t\n\"'"); /* a comma: a list of URLs */
        put(&s, p, path);
        p += path;
        if (*p == '?') {
            put(&s, p++, 1);
            p = query(&s, p);
        }
    }
    out[s.n] = '\0';
}

int tc_redact_password_span(const char *url, size_t *at, size_t *n)
{
    const char *scheme = url ? strstr(url, "://") : NULL;
    if (!scheme)
        return 0;
    const char *p = scheme + 3;
    size_t end = strcspn(p, "/?#");
    const char *user_end = NULL;
    for (size_t i = 0; i < end; i++)
        if (p[i] == '@')
            user_end = p + i;
    const char *colon = user_end ? memchr(p, ':', (size_t)(user_end - p)) : NULL;
    if (colon && user_end > colon + 1) {
        *at = (size_t)(colon + 1 - url);
        *n = (size_t)(user_end - colon - 1);
        return 1;
    }
    const char *q = strchr(p, '?');
    while (q && *q && *q != '#') {
        q++;
        size_t pair = strcspn(q, "&;#");
        const char *eq = memchr(q, '=', pair);
        if (eq && tc_redact_secret_param(q, (size_t)(eq - q)) && pair > (size_t)(eq + 1 - q)) {
            *at = (size_t)(eq + 1 - url);
            *n = pair - (size_t)(eq + 1 - q);
            return 1;
        }
        q += pair;
    }
    return 0;
}
