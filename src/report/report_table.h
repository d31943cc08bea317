/* The terminal summary of a run, and the one-line-per-run list, printed to
 * a FILE* the caller gives. Missing values print "n/a", never 0; a
 * simulated run says SIMULATED in its title (and the list marks it). */
#ifndef TC_REPORT_TABLE_H
#define TC_REPORT_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/run_metrics.h"
#include "record/record.h"
#include "core/tc_error.h"

/* Prints the summary of one run (about 80 columns): title, requests,
 * latency table (mean, stddev, min, p50, p90, p95, p99, max of TTFT, ITL,
 * TPOT, E2E in ms; an open loop adds its load line, the schedule lag and
 * the lag warning), throughput, tokens and their source, client and
 * server-reported decode speed, errors by kind. `color` is reserved (the
 * CLI passes 0 under NO_COLOR); no colour is written yet. Returns TC_OK,
 * TC_ERR_INVALID (a NULL argument) or TC_ERR_IO (the stream failed). */
TC_MUST_CHECK tc_err tc_report_table(FILE *out, const tc_run_info *run, const tc_run_metrics *m,
                                     int color);

/* The load's shape for people: "closed loop, concurrency 4", or an open
 * loop's "poisson arrivals at 50 requests/s, seed 1, at most 8 in flight"
 * (gamma: "gamma arrivals (burstiness 0.5) at ..."). Returns buf. */
const char *tc_report_load_text(const tc_run_info *run, char *buf, size_t len);

/* When an open loop's schedule lag p99 is above TC_SCHEDULE_LAG_LIMIT_MS:
 * the warning (a sentence without a final newline: the client could not
 * keep up, TTFT and E2E include the wait) in buf; else NULL. */
const char *tc_report_lag_warning(const tc_run_info *run, const tc_run_metrics *m, char *buf,
                                  size_t len);

/* Prints a header line and one line per run: id, date (UTC), label, model,
 * endpoint, status, requests (completed/measured), output tokens/s, TTFT
 * p50 ms; long text is clipped with "~". m holds one pointer per run; m or
 * any m[i] may be NULL (figures shown as n/a). Returns as above. */
TC_MUST_CHECK tc_err tc_report_runs_table(FILE *out, const tc_run_info *runs,
                                          const tc_run_metrics *const *m, size_t n, int color);

/* The figures people read have 4 significant digits at most (JSON keeps
 * every digit): more is noise a measurement does not carry, and a table
 * of them cannot be read. */
#define TC_REPORT_DIGITS 4

/* Formats a figure into buf for people: "n/a" when !valid or not finite,
 * else to TC_REPORT_DIGITS significant digits with tc_report_decimals(v)
 * decimals (2.849, 912.3, 1235, 12350). Returns buf. Shared by the report
 * formats that print for people. */
const char *tc_report_fmt(char *buf, size_t len, int valid, double v);

/* The same with a fixed number of decimals (a row that lines up); a value
 * of more digits than TC_REPORT_DIGITS before the point is rounded to
 * them. */
const char *tc_report_fmt_fixed(char *buf, size_t len, int valid, double v, int decimals);

/* Decimals that keep TC_REPORT_DIGITS significant digits: 3 below 10, 2
 * below 100, 1 below 1000, else 0 (and 3 for 0; up to 6 below 0.01). */
int tc_report_decimals(double v);

/* v to TC_REPORT_DIGITS significant digits, the shortest way ("2.849",
 * "0.0125", "12350", "20"; "n/a" when not finite), as text, tables and
 * the HTML print it. Returns buf. */
const char *tc_report_sig(char *buf, size_t len, double v);

/* The last line of a summary: where its figures are defined ('truecost
 * help method' and docs/method.md's section `section`). */
void tc_report_method_pointer(FILE *out, const char *section);

#endif
