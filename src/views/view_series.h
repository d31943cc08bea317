/* A stored run's timeline: its records streamed through
 * analysis/run_series.h, and its telemetry. */
#ifndef TC_VIEW_SERIES_H
#define TC_VIEW_SERIES_H

#include "analysis/run_series.h"
#include "store/store.h"

/* The series of `run` whose figures are m (stored or computed: needs
 * first_send, last_end and window). TC_OK (out->n 0 when m has no span),
 * or the store's errors with the detail in err. */
TC_MUST_CHECK tc_err tc_view_run_series(tc_store *st, const tc_run_info *run,
                                        const tc_run_metrics *m, tc_run_series *out, char *err,
                                        size_t errlen);

#endif
