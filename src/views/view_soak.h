/* A stored soak: its plan, windows and outages read from the store, and
 * judged (analysis/soak.h). */
#ifndef TC_VIEW_SOAK_H
#define TC_VIEW_SOAK_H

#include "analysis/soak.h"
#include "store/store.h"

/* Reads the soak of run_id and judges it; *found = 0 (TC_OK) when the run
 * is no soak. Free with tc_soak_stored_free. */
TC_MUST_CHECK tc_err tc_view_soak(tc_store *st, int64_t run_id, tc_soak_stored *out, int *found,
                                  char *err, size_t errlen);

#endif
