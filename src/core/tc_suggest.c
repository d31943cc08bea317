/* Hints and listen addresses (tc_suggest.h). */
#include "core/tc_suggest.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int tc_suggest_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return 99;
    int row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0];
        row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            int best = diag + cost;
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *tc_suggest(const char *word, const char *const *names, int n)
{
    const char *best = NULL;
    int best_d = 3;
    for (int i = 0; i < n; i++) {
        int d = tc_suggest_distance(word, names[i]);
        if (*word && strncmp(names[i], word, strlen(word)) == 0)
            d = 1; /* a prefix is as good as one typo */
        if (d < best_d) {
            best_d = d;
            best = names[i];
        }
    }
    return best;
}

tc_err tc_listen_parse(const char *text, char **owned, const char **host, uint16_t *port, char *err,
                       size_t errlen)
{
    *owned = NULL;
    *host = "127.0.0.1";
    const char *port_text = text;
    const char *colon = strrchr(text, ':');
    if (colon) {
        size_t hl = (size_t)(colon - text);
        if (hl >= 2 && text[0] == '[' && text[hl - 1] == ']') { /* [::1]:8080 */
            text++;
            hl -= 2;
        }
        if (hl > 0 && !(*owned = strndup(text, hl)))
            return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
        if (hl > 0)
            *host = *owned;
        port_text = colon + 1;
    }
    char *end;
    errno = 0;
    long long p = strtoll(port_text, &end, 10);
    if (errno || end == port_text || *end || p < 0 || p > 65535) {
        free(*owned);
        *owned = NULL;
        *host = "127.0.0.1";
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "'%s': expected HOST:PORT, e.g. 127.0.0.1:8080 (port 0 to 65535; 0 "
                       "picks a free one)",
                       port_text);
    }
    *port = (uint16_t)p;
    return TC_OK;
}
