/* Endpoint URLs: the base URL a user gives, made safe to store and turned
 * into route URLs. */
#ifndef TC_BENCH_URL_H
#define TC_BENCH_URL_H

#include <stddef.h>

#include "core/tc_error.h"

typedef struct tc_endpoint {
    char base[512];   /* scheme://host[:port][/prefix], no trailing slash, may hold credentials */
    char stored[512]; /* the same without user:password@ (what is stored and printed) */
    char host[256];
    int local; /* 1 when host is loopback (localhost, 127.x, ::1) */
} tc_endpoint;

/* Parses `url` ("http://host:port", "host:port" or "https://..."; a query
 * or fragment is dropped, since it may hold secrets; a path such as "/v1"
 * is kept as a prefix unless it is an API route the client adds itself).
 * Returns TC_OK, or TC_ERR_INVALID with the reason in err. */
TC_MUST_CHECK tc_err tc_endpoint_parse(const char *url, tc_endpoint *out, char *err, size_t errlen);

/* Writes base + path into buf (e.g. path "/api/generate"). Returns buf. */
char *tc_endpoint_url(const tc_endpoint *ep, const char *path, char *buf, size_t len);

#endif
