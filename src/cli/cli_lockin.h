/* truecost lockin: tc_cmd_lockin and its help are declared in cli.h; the
 * documents are report/report_lockin.h. Kept for main.c's include until
 * that goes. */
#ifndef TC_CLI_LOCKIN_H
#define TC_CLI_LOCKIN_H

#include "cli.h"

#endif
