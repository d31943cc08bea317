/* "Did you mean" hints and listen addresses: small text helpers of the
 * command line, pure, so tests and every front end share them. */
#ifndef TC_SUGGEST_H
#define TC_SUGGEST_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"

/* Levenshtein distance (99 for words over 64 bytes). */
int tc_suggest_distance(const char *a, const char *b);

/* The closest of `names` (n of them) to `word`, or NULL when none is close
 * (distance > 2 and not a prefix). */
const char *tc_suggest(const char *word, const char *const *names, int n);

/* Splits "HOST:PORT", "[V6]:PORT", ":PORT" or "PORT" into host (a static
 * default "127.0.0.1" when absent, else a copy the caller frees via
 * *owned) and port. TC_ERR_INVALID (the port is no number 0..65535) or
 * TC_ERR_NOMEM, with why in err; *owned is NULL then. */
TC_MUST_CHECK tc_err tc_listen_parse(const char *text, char **owned, const char **host,
                                     uint16_t *port, char *err, size_t errlen);

#endif
