/* `truecost import`: what was copied from one store into another. */
#ifndef TC_REPORT_IMPORT_H
#define TC_REPORT_IMPORT_H

#include <jansson.h>
#include <stdio.h>

#include "core/tc_error.h"
#include "store/store.h"

/* One paragraph: runs copied (with requests and samples), runs already
 * there, runs left for later as still running. from and to are the
 * stores' names as shown (tc_store_path: a URL's password redacted). */
TC_MUST_CHECK tc_err tc_report_import_text(FILE *out, const char *from, const char *to,
                                           const tc_store_import_stats *st);

/* {from, to, runs_in_source, imported, already_present, still_running,
 * requests, samples}; NULL when out of memory. */
json_t *tc_report_import_json(const char *from, const char *to, const tc_store_import_stats *st);

#endif
