/* The text of `truecost gaps`: the operator gap table, the notes of each
 * gap, the share by status, T_op and the caveats. (The JSON document is
 * written beside its reader, assess/gaps_doc.h.) */
#ifndef TC_REPORT_GAPS_H
#define TC_REPORT_GAPS_H

#include <stdio.h>

#include "assess/gaps.h"

/* Prints table t of inventory inv on out; ops_file and support_file are
 * the names shown in the title. */
void tc_report_gaps_print(FILE *out, const tc_gap_inventory *inv, const tc_gap_table *t,
                          const char *ops_file, const char *support_file);

#endif
