/* A run's figures as the text the store keeps (views/view_stored.h
 * computes, keeps and reads them): every field of tc_run_metrics but the
 * samples, doubles to the last bit, with the version of the figures'
 * definition that made them. */
#ifndef TC_FIGURES_CODEC_H
#define TC_FIGURES_CODEC_H

#include <stddef.h>

#include "analysis/run_metrics.h"

/* Raise it whenever a figure's definition changes. */
#define TC_FIGURES_VERSION 6

/* The figures (every field of tc_run_metrics but the samples) as a JSON
 * text, malloc()ed, doubles to the last bit; NULL when out of memory. */
char *tc_figures_encode(const tc_run_metrics *m);

/* Back from tc_figures_encode's text into *m (no samples; free with
 * tc_run_metrics_free). TC_ERR_INVALID when the text is not such a
 * document, with the field named in err. */
TC_MUST_CHECK tc_err tc_figures_decode(const char *json, tc_run_metrics *m, char *err,
                                       size_t errlen);

#endif
