/* The devices of every telemetry source that finds some, behind one list:
 * `auto` tries each source in order and keeps all that find devices,
 * skipping a command-line fallback when its library backend already covers
 * that vendor. */
#ifndef TC_TELEM_SET_H
#define TC_TELEM_SET_H

#include <stddef.h>

#include "telem.h"

typedef struct tc_telem_set tc_telem_set;

/* The backend names `which` accepts besides "auto" and "none", in the
 * order auto tries them; NULL-terminated. */
extern const char *const tc_telem_backend_names[];

/* Opens `which` ("auto", "none" or a backend name). For auto, sources that
 * find nothing are not errors: why each was skipped goes, one line each,
 * into notes (may be NULL). An explicit backend that finds nothing is
 * TC_ERR_NOTFOUND with its reason in err; an unknown name TC_ERR_INVALID.
 * Free with tc_telem_set_close. */
TC_MUST_CHECK tc_err tc_telem_set_open(const char *which, const tc_telem_config *cfg,
                                       tc_telem_set **out, char *notes, size_t noteslen, char *err,
                                       size_t errlen);

/* The most exporter URLs one remote set reads. */
#define TC_TELEM_MAX_URLS 16

/* Opens a set of the devices that n exporter URLs describe (telem_remote.h),
 * each scraped with the bearer token (NULL: none) within timeout_ms. A URL
 * that does not answer or describes no device is no error: why goes, one
 * line each, into notes, and the set may be empty. TC_ERR_INVALID for
 * more than TC_TELEM_MAX_URLS; TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_telem_set_open_remote(const char *const *urls, int n, const char *token,
                                              int timeout_ms, tc_telem_set **out, char *notes,
                                              size_t noteslen, char *err, size_t errlen);

void tc_telem_set_close(tc_telem_set *s); /* accepts NULL */

int tc_telem_set_count(const tc_telem_set *s);

/* Device i's description and the name of the backend that reads it. */
const tc_telem_device *tc_telem_set_device(const tc_telem_set *s, int i);
const char *tc_telem_set_backend(const tc_telem_set *s, int i);

/* Reads device i; stamps mono_ns. After a device fails (TC_ERR_IO), its
 * later samples carry no valid field; the reason stays in
 * tc_telem_set_error. */
TC_MUST_CHECK tc_err tc_telem_set_sample(tc_telem_set *s, int i, tc_telem_sample *out);
const char *tc_telem_set_error(const tc_telem_set *s, int i);

#endif
