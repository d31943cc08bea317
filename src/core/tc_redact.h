/* Secrets out of text a user may see or that is stored: one redactor for
 * every URL truecost prints or keeps (a stored command line, a telemetry
 * URL in a message or a fingerprint, a PostgreSQL URL). A URL's
 * "user:password@" and the values of query parameters that carry
 * credentials become "***". */
#ifndef TC_REDACT_H
#define TC_REDACT_H

#include <stddef.h>

/* text into out (len bytes, truncated), every URL in it redacted:
 * scheme://user:***@host/..., ...?token=***&page=2. A parameter carries a
 * credential when its name (any case) is token, key, secret, password,
 * passwd, pwd, auth, sig or signature, or ends in one of them after '_' or
 * '-' (api_key, access_token, client_secret, x-auth). Outside URLs, a
 * word "password=..." (libpq's key=value form) is redacted the same way. */
void tc_redact_url(const char *text, char *out, size_t len);

/* Where the first password sits in a URL: its userinfo password, else
 * the value of a credential query parameter. 1 with *at and *n set, 0
 * when it has none. */
int tc_redact_password_span(const char *url, size_t *at, size_t *n);

/* 1 when a query parameter of this name (n bytes) carries a credential. */
int tc_redact_secret_param(const char *name, size_t n);

#endif
