/* `truecost export`: a run's raw requests, their chunk times, or its
 * summary, as CSV or JSON for other tools.
 *
 *   requests  one row per request, warm-up included (see the warmup column):
 *             seq, warmup, send_wall (UTC RFC 3339), http_status, error,
 *             error_detail, ttft_ms, e2e_ms, tpot_ms, output_tokens,
 *             output_source, prompt_tokens, prompt_source, chunks, then the
 *             server's report: total_duration_ns, load_duration_ns,
 *             prompt_eval_count, prompt_eval_duration_ns, eval_count,
 *             eval_duration_ns (Ollama), prompt_n, prompt_ms, predicted_n,
 *             predicted_ms, predicted_per_second (llama.cpp), simulated;
 *             an open loop's rows add sched_wall (when the request was
 *             meant to go out, UTC RFC 3339) and schedule_lag_ms (how much
 *             later it went) after send_wall, and their ttft_ms and e2e_ms
 *             count from sched_wall
 *   chunks    one row per text chunk: seq, index, t_ms (since the send),
 *             gap_ms (since the previous chunk; missing for the first),
 *             warmup and error (of the chunk's request, as in the
 *             requests export: the ITL figure pools the gaps of rows with
 *             warmup false and error "ok"), simulated
 *   summary   the run's JSON document (report_json.h); as CSV, that
 *             document flattened to rows of key,value with dotted keys
 *             ("metrics.ttft_ms.p50")
 *
 * CSV: a header row, then rows ending in "\n"; text fields are quoted as
 * RFC 4180 says (in double quotes, quotes doubled) when they hold a comma,
 * a quote, CR or LF. JSON: an array of objects, one per line (summary: the
 * document). A missing value is an empty CSV field or JSON null. The
 * `simulated` column labels every row of a simulated run. */
#ifndef TC_REPORT_EXPORT_H
#define TC_REPORT_EXPORT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "record/record.h"
#include "core/tc_error.h"

typedef enum tc_export_what {
    TC_EXPORT_REQUESTS = 0,
    TC_EXPORT_CHUNKS,
    TC_EXPORT_SUMMARY,
    TC_EXPORT_WHAT_COUNT
} tc_export_what;

typedef enum tc_export_format {
    TC_EXPORT_CSV = 0,
    TC_EXPORT_JSON,
    TC_EXPORT_FORMAT_COUNT
} tc_export_format;

/* "requests", "chunks", "summary" / "csv", "json"; "?" when out of range. */
const char *tc_report_export_what_name(tc_export_what what);
const char *tc_report_export_format_name(tc_export_format fmt);

/* Parse the names above. Return 0, or -1 when unknown. */
int tc_report_export_what_parse(const char *name, tc_export_what *out);
int tc_report_export_format_parse(const char *name, tc_export_format *out);

/* Writes the run's requests or chunks (its n records, in the order given)
 * to `out` as `fmt`. Returns TC_OK, TC_ERR_INVALID (bad argument, or
 * TC_EXPORT_SUMMARY: the summary is the run's document, computed once by
 * the caller and written with tc_report_export_doc), TC_ERR_NOMEM or
 * TC_ERR_IO (the stream failed), with the detail in err. Output already
 * written stays written. */
TC_MUST_CHECK tc_err tc_report_export(FILE *out, tc_export_what what, tc_export_format fmt,
                                      const tc_run_info *run, const tc_req_record *recs, size_t n,
                                      char *err, size_t errlen);

/* One run of a group's requests or chunks export: the same rows with a
 * first column (JSON: key) "run_id"; the header (JSON: '[') only when
 * `first`, the end (JSON: ']') only when `last`, so that calling it for
 * each run of a group in order writes one table. *rows carries the rows
 * written so far from call to call (start at 0), so that JSON gets its
 * commas right whichever runs are empty. TC_ERR_INVALID for
 * TC_EXPORT_SUMMARY. */
TC_MUST_CHECK tc_err tc_report_export_part(FILE *out, tc_export_what what, tc_export_format fmt,
                                           const tc_run_info *run, const tc_req_record *recs,
                                           size_t n, int first, int last, size_t *rows, char *err,
                                           size_t errlen);

/* Writes a run document (as tc_report_run_json builds it, possibly with
 * more members) as JSON, or flattened to "key,value" CSV rows. */
TC_MUST_CHECK tc_err tc_report_export_doc(FILE *out, tc_export_format fmt, json_t *doc, char *err,
                                          size_t errlen);

/* Writes one CSV text field, quoted only when it must be (see above). */
void tc_report_csv_field(FILE *out, const char *s);

#endif
