/* The roofline of runs: the spec table as the commands load it, and the
 * short bound that show and compare print beside a run's figures
 * (roofline.h has the model itself; views/view_roofline.h reads a stored
 * run's inputs). */
#ifndef TC_ROOFLINE_RUN_H
#define TC_ROOFLINE_RUN_H

#include <stddef.h>

#include <jansson.h>

#include "analysis/figures.h"
#include "analysis/roofline.h"
#include "analysis/run_energy.h"

/* Adds the rows of `specs` (may be NULL) first, so that they win, then the
 * built-in ones, to t (free with tc_roofline_table_free). TC_OK; TC_ERR_IO
 * or TC_ERR_PARSE: the specs file cannot be read or is bad (detail in err);
 * TC_ERR_NOMEM (err says which table). */
TC_MUST_CHECK tc_err tc_roofline_table_load(tc_roofline_table *t, const char *specs, char *err,
                                            size_t errlen);

/* The name of the first GPU a run sampled, or NULL (then the roofline
 * takes the fingerprint's). Borrowed from e. */
const char *tc_roofline_first_gpu(const tc_run_energy *e);

/* The bandwidth bound of a run for other reports, from table t: its GPU
 * (`gpu_name`, or NULL for the fingerprint's first GPU), its parsed
 * `fingerprint` (may be NULL or JSON null) and `measured_decode_tps` (its
 * median single-stream decode speed, 0 = none). What is missing is in
 * out->missing, not an error. TC_OK, or TC_ERR_INVALID (a NULL argument). */
TC_MUST_CHECK tc_err tc_roofline_brief(const tc_roofline_table *t, const char *gpu_name,
                                       json_t *fingerprint, double measured_decode_tps,
                                       tc_roofline_result *out);

/* The bound of the run document (run --json, show, export summary): the
 * built-in table, the run's first sampled GPU, its parsed fingerprint `fp`
 * and its median decode speed. When the table cannot be loaded, *out says
 * TC_ROOF_NEED_GPU (no bound) and the error is returned (detail in err). */
TC_MUST_CHECK tc_err tc_roofline_of_figures(const tc_figures *f, json_t *fp,
                                            tc_roofline_result *out, char *err, size_t errlen);

#endif
