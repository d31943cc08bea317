/* The small JSON helper set every document builder uses (jansson): a
 * missing value is null, never 0 or "", and text from outside is made
 * valid UTF-8 before it goes into a document. */
#ifndef TC_JSON_H
#define TC_JSON_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "core/tc_error.h"

/* A JSON string of s with every byte that is not part of valid UTF-8
 * replaced by U+FFFD (JSON text must be UTF-8); NULL s gives JSON null.
 * Returns a new reference, or NULL when memory ran out. */
json_t *tc_json_string(const char *s);

/* tc_json_string(s), but null also for "" (unknown in the records). */
json_t *tc_json_str_or_null(const char *s);

/* v as a JSON number when valid is non-zero and v is finite (jansson
 * refuses NaN and infinity), else null. A new reference. */
json_t *tc_json_num(int valid, double v);

/* A renamed key kept for one release: obj[old_key] is obj[key]'s value
 * too (docs/json.md lists it under "Renamed"). Nothing when obj has no
 * key. Returns obj. */
json_t *tc_json_alias(json_t *obj, const char *old_key, const char *key);

/* Writes doc to out, indented by 2, numbers to 12 significant digits
 * (exact for the figures' precision; 9.1 prints as 9.1), with a final
 * newline, and flushes. TC_OK, TC_ERR_INVALID (no doc or out) or
 * TC_ERR_IO with the reason in err. */
TC_MUST_CHECK tc_err tc_json_dump(FILE *out, const json_t *doc, char *err, size_t errlen);

/* tc_json_dump, then drops the reference to doc (the document is done
 * with either way). A NULL doc, what a builder returns when memory ran out,
 * is TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_json_print(FILE *out, json_t *doc, char *err, size_t errlen);

#endif
