/* truecost gaps: the operator gap table of a model on a target backend. */
#ifndef TC_CLI_GAPS_H
#define TC_CLI_GAPS_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/gaps.h"

/* The subcommand: `truecost gaps --ops FILE --support FILE
 * [--risk-patterns FILE] [--dtype D] [--json]`. Returns 0, 1 (usage or a
 * bad file, the message naming FILE:LINE) or 2 (a file cannot be read). */
int tc_cmd_gaps(int argc, char **argv);
void tc_cmd_gaps_help(FILE *out);

/* The `gaps --json` document (a contract: keys are only ever added):
 *   ops_file, support_file, risk_patterns_file (null when none)
 *   format         "profiler_table", "profiler_csv" or "plain_csv"
 *   share_source   "device_time", "cpu_time", "count" or "share"
 *   ops            [{name, dtype, status, risk, risk_category, risk_pattern,
 *                    risk_from ("user", "builtin", "default"), share,
 *                    self_time_us, calls, match ("exact", "case",
 *                    "normalised", "prefix" for a name the profiler cut
 *                    with "...", "none"), support_op, support_line,
 *                    alternative, notes, why, line, t_op_days {low, mode,
 *                    high}}], largest share first; absent values are null
 *   totals         {ops, skipped_rows (including skipped_labels),
 *                   skipped_labels (record_function annotations),
 *                   negative_cpu_times (taken as 0), share {native,
 *                   fallback, missing, unknown, other}, count {native,
 *                   fallback, missing, unknown}}
 *   t_op_days      {low, mode, high}: what `lockin --gaps` reads
 *   t_op_rule      the per-operator days, in words
 *   warnings       [text]
 *   note           the support list is the user's to check
 * Returns a new reference the caller decrefs, or NULL when memory ran out.
 * File names may be NULL (then null). */
json_t *tc_gaps_json(const tc_gap_inventory *inv, const tc_gap_table *t, const char *ops_file,
                     const char *support_file, const char *risk_file);

#endif
