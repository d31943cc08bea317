/* The command line that made a run (stored with it) or a report (shown in
 * it), kept once by main (core/tc_cmdline.h quotes and redacts it). */
#include "app/app.h"

#include "core/tc_cmdline.h"

static char command_line[2048];
static int whole;

void tc_app_set_command_line(int argc, char **argv)
{
    whole = tc_cmdline_quote(argc, argv, command_line, sizeof command_line);
}

int tc_app_command_line_whole(void)
{
    return whole;
}

const char *tc_app_command_line(void)
{
    return command_line;
}
