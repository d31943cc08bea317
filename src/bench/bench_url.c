#include "bench_url.h"

#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>

/* Route paths users often paste with the base URL; the client adds its own. */
static const char *const route_suffixes[] = {
    "/v1/chat/completions", "/v1/completions", "/api/generate", "/api/chat", "/completion", "/v1"};

static int is_loopback(const char *host)
{
    return strcasecmp(host, "localhost") == 0 || strncmp(host, "127.", 4) == 0 ||
           strcmp(host, "::1") == 0 || strcmp(host, "[::1]") == 0;
}

static void strip_route(char *path)
{
    size_t n = strlen(path);
    while (n > 0 && path[n - 1] == '/')
        path[--n] = '\0';
    for (size_t i = 0; i < sizeof route_suffixes / sizeof route_suffixes[0]; i++) {
        size_t l = strlen(route_suffixes[i]);
        if (n >= l && strcmp(path + n - l, route_suffixes[i]) == 0) {
            path[n - l] = '\0';
            return;
        }
    }
}

/* Where the authority begins: after "scheme://" when the URL starts with
 * one (a "://" later on, in a path, query or fragment, is not a scheme). */
static const char *authority_of(const char *url, const char **sep)
{
    const char *p = strstr(url, "://");
    *sep = p && p < url + strcspn(url, "/?#") ? p : NULL;
    return *sep ? *sep + 3 : url;
}

/* The URL as errors may show it: user:password@ replaced by "***@", and
 * nothing from the first '?' or '#' on (a query or fragment may hold a
 * token). The userinfo ends at the authority's last '@', as the parser
 * reads it: a password may hold an unescaped '@', and its tail must not
 * show. */
static void redact(const char *url, char *out, size_t len)
{
    const char *sep;
    const char *start = authority_of(url, &sep);
    size_t auth_len = strcspn(start, "/?#");
    size_t shown_len = (size_t)(start - url) + strcspn(start, "?#");
    const char *at = NULL;
    for (size_t i = 0; i < auth_len; i++)
        if (start[i] == '@')
            at = start + i;
    if (!at) {
        snprintf(out, len, "%.*s", (int)shown_len, url);
        return;
    }
    snprintf(out, len, "%.*s***%.*s", (int)(start - url), url, (int)(url + shown_len - at), at);
}

/* The first byte a URL may not hold unencoded (space, control), or NULL. */
static const char *bad_char(const char *url)
{
    for (const char *p = url; *p; p++)
        if ((unsigned char)*p <= ' ' || *p == 0x7f)
            return p;
    return NULL;
}

/* The port after the host, if any: a number from 1 to 65535. */
static int valid_port(const char *hostport)
{
    const char *p = hostport[0] == '[' ? strchr(hostport, ']') : hostport;
    if (!p)
        return 0;
    p = strchr(p, ':');
    if (!p)
        return 1;
    p++;
    if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 5)
        return 0;
    long v = strtol(p, NULL, 10);
    return v >= 1 && v <= 65535;
}

tc_err tc_endpoint_parse(const char *url, tc_endpoint *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    char shown[600]; /* never print a password, even in an error */
    redact(url, shown, sizeof shown);
    const char *bad = bad_char(url);
    if (bad)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "URL '%s': a %s at character %zu; percent-encode it (a space is %%20)",
                       shown, *bad == ' ' ? "space" : "control character", (size_t)(bad - url) + 1);
    if (strlen(url) >= sizeof out->base)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "URL '%.60s...' is too long (at most %zu characters)", shown,
                       sizeof out->base - 1);
    const char *scheme = "http://";
    const char *rest = url;
    const char *sep;
    authority_of(url, &sep);
    if (sep) {
        if (strncasecmp(url, "http://", 7) == 0)
            rest = url + 7;
        else if (strncasecmp(url, "https://", 8) == 0) {
            scheme = "https://";
            rest = url + 8;
        } else
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "URL '%s': only http:// and https:// are supported", shown);
    }
    size_t end = strcspn(rest, "?#");
    char hostpart[512];
    if (end == 0 || end >= sizeof hostpart)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "URL '%s': no host (expected e.g. "
                       "http://127.0.0.1:11434)",
                       shown);
    memcpy(hostpart, rest, end);
    hostpart[end] = '\0';
    char *path = strchr(hostpart, '/');
    char pathbuf[512] = "";
    if (path) {
        snprintf(pathbuf, sizeof pathbuf, "%s", path);
        *path = '\0';
        strip_route(pathbuf);
    }
    char *at = strrchr(hostpart, '@');
    const char *hostport = at ? at + 1 : hostpart;
    if (!*hostport)
        return tc_fail(err, errlen, TC_ERR_INVALID, "URL '%s': no host", shown);
    if (!valid_port(hostport))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "URL '%s': the port must be a number from 1 to 65535", shown);
    /* host without the port: [v6]:port, host:port or host */
    if (hostport[0] == '[') {
        const char *close = strchr(hostport, ']');
        size_t hl = close ? (size_t)(close - hostport - 1) : 0;
        if (!close || hl == 0 || hl >= sizeof out->host)
            return tc_fail(err, errlen, TC_ERR_INVALID, "URL '%s': bad IPv6 address", shown);
        memcpy(out->host, hostport + 1, hl);
    } else {
        size_t hl = strcspn(hostport, ":");
        if (hl == 0 || hl >= sizeof out->host)
            return tc_fail(err, errlen, TC_ERR_INVALID, "URL '%s': no host", shown);
        memcpy(out->host, hostport, hl);
    }
    out->local = is_loopback(out->host);
    int n1 = snprintf(out->base, sizeof out->base, "%s%s%s", scheme, hostpart, pathbuf);
    int n2 = snprintf(out->stored, sizeof out->stored, "%s%s%s", scheme, hostport, pathbuf);
    if (n1 < 0 || n2 < 0 || (size_t)n1 >= sizeof out->base)
        return tc_fail(err, errlen, TC_ERR_INVALID, "URL '%s' is too long", shown);
    return TC_OK;
}

char *tc_endpoint_url(const tc_endpoint *ep, const char *path, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s", ep->base, path);
    return buf;
}
