/* Passwords out of text a user may see or that is stored: a URL's
 * "user:password@" and a "password=" parameter become "***". */
#ifndef TC_REDACT_H
#define TC_REDACT_H

#include <stddef.h>

/* text into out (len bytes, truncated) with its URL password, if any,
 * as "***": scheme://user:***@host/..., ...?password=***&... */
void tc_redact_password(const char *text, char *out, size_t len);

#endif
