#include "core/tc_redact.h"

#include <stdio.h>
#include <string.h>

/* The userinfo ends at the last '@' before the path; a ':' in it starts
 * the password. Query parameters may carry one too (password=...). */
void tc_redact_password(const char *text, char *out, size_t len)
{
    snprintf(out, len, "%s", text ? text : "");
    char *scheme = strstr(out, "://");
    if (scheme) {
        char *auth = scheme + 3;
        char *end = auth + strcspn(auth, "/?#");
        char *at = NULL;
        for (char *p = auth; p < end; p++)
            if (*p == '@')
                at = p;
        char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
        if (colon) {
            char tail[1024];
            snprintf(tail, sizeof tail, "%s", at);
            snprintf(colon + 1, len - (size_t)(colon + 1 - out), "***%s", tail);
        }
    }
    char *pw = strstr(out, "password=");
    if (pw && pw > out && strchr("?&", pw[-1])) {
        char tail[1024];
        snprintf(tail, sizeof tail, "%s", pw + 9 + strcspn(pw + 9, "&#"));
        snprintf(pw + 9, len - (size_t)(pw + 9 - out), "***%s", tail);
    }
}
