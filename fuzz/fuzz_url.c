/* libFuzzer target: the endpoint URL parser (a user's command-line URL).
 *
 * Besides not crashing it checks what a user relies on: an accepted URL is
 * stored and printed without its user:password@ and without a query or
 * fragment (either may hold a secret), and a refused one is refused with a
 * message that repeats neither the user:password nor the query. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The user:password part of `url`'s authority, or NULL; *len gets its size. */
static const char *userinfo(const char *url, size_t *len)
{
    const char *start = strstr(url, "://");
    /* a scheme only at the start: "://" in a path or fragment is not one */
    start = start && start < url + strcspn(url, "/?#") ? start + 3 : url;
    size_t auth = strcspn(start, "/?#");
    const char *at = NULL;
    for (size_t i = 0; i < auth; i++)
        if (start[i] == '@')
            at = start + i;
    if (!at)
        return NULL;
    *len = (size_t)(at - start);
    return start;
}

static void check_accepted(const tc_endpoint *ep)
{
    if (strncmp(ep->stored, "http://", 7) != 0 && strncmp(ep->stored, "https://", 8) != 0)
        __builtin_trap();
    if (strncmp(ep->base, "http://", 7) != 0 && strncmp(ep->base, "https://", 8) != 0)
        __builtin_trap();
    if (!ep->host[0] || strpbrk(ep->stored, "?#"))
        __builtin_trap();
    const char *auth = strstr(ep->stored, "://") + 3;
    if (memchr(auth, '@', strcspn(auth, "/")))
        __builtin_trap(); /* credentials would be stored and printed */
    char route[1200];
    tc_endpoint_url(ep, "/v1/completions", route, sizeof route);
    if (strncmp(route, ep->base, strlen(ep->base)) != 0)
        __builtin_trap();
}

/* Overwrites the plain bytes of url[from, to) (not separators, spaces or
 * controls, which change how it parses) with other letters. */
static void scramble(char *url, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if ((unsigned char)url[i] > ' ' && url[i] != 0x7f && !strchr("?#@/:[]", url[i]))
            url[i] = url[i] == 'Z' ? 'Y' : 'Z';
}

/* A refused URL must give the same message whatever its query says. */
static void check_query_hidden(char *url, const char *err)
{
    const char *start = strstr(url, "://");
    start = start && start < url + strcspn(url, "/?#") ? start + 3 : url;
    size_t q = (size_t)(start - url) + strcspn(start, "?#");
    if (!url[q])
        return;
    scramble(url, q + 1, strlen(url));
    tc_endpoint ep;
    char other_err[1024] = "";
    if (tc_endpoint_parse(url, &ep, other_err, sizeof other_err) == TC_OK ||
        strcmp(err, other_err) != 0)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 2048)
        return 0;
    char *url = malloc(size + 1);
    if (!url)
        return 0;
    memcpy(url, data, size);
    url[size] = '\0';
    tc_endpoint ep;
    char err[1024] = "";
    if (tc_endpoint_parse(url, &ep, err, sizeof err) == TC_OK) {
        check_accepted(&ep);
    } else {
        if (!err[0])
            __builtin_trap();
        /* The same URL with other credentials must fail with the same
         * message: the credentials are dropped before anything else reads
         * the authority, so a difference means they showed. */
        check_query_hidden(url, err);
        size_t n = 0;
        const char *secret = userinfo(url, &n);
        if (secret) {
            char other_err[1024] = "";
            scramble(url, (size_t)(secret - url), (size_t)(secret - url) + n);
            if (tc_endpoint_parse(url, &ep, other_err, sizeof other_err) == TC_OK ||
                strcmp(err, other_err) != 0)
                __builtin_trap();
        }
    }
    free(url);
    return 0;
}
