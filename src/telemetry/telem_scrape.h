/* One HTTP GET with libcurl's easy interface, bounded in time and size:
 * for the remote telemetry's scrapes and the agent's /env. */
#ifndef TC_TELEM_SCRAPE_H
#define TC_TELEM_SCRAPE_H

#include <stddef.h>

#include "core/tc_error.h"

/* GETs url with an optional bearer token (never printed). On TC_OK
 * *body is a NUL-terminated malloc'd copy of the body (caller frees) of
 * *len bytes, with HTTP status 200. TC_ERR_NET (no answer, timeout),
 * TC_ERR_INVALID (body over max_bytes), TC_ERR_NOTFOUND (status other
 * than 200; 401/403 say the token is missing or wrong) with the URL and
 * why in err. */
TC_MUST_CHECK tc_err tc_telem_http_get(const char *url, const char *token, int timeout_ms,
                                       size_t max_bytes, char **body, size_t *len, char *err,
                                       size_t errlen);

#endif
