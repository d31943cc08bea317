/* The command line that made a run (stored with it) or a report (shown in
 * it): the process's arguments as a shell would take them back, with any
 * password in a URL replaced by "***" (a --db postgresql://user:pw@host,
 * an endpoint's http://user:pw@host). API keys never appear: they come
 * from environment variables, named by --api-key-env. */
#include "cli.h"

#include "core/tc_redact.h"

#include <stdio.h>
#include <string.h>

static char command_line[2048];

/* Appends word, single-quoted when a shell would split or expand it. */
static size_t append(char *out, size_t o, size_t len, const char *word)
{
    int plain = *word != '\0';
    for (const char *p = word; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=,+@%-",
                       *p) != NULL;
    if (o >= len)
        return o;
    if (plain)
        return o + (size_t)snprintf(out + o, len - o, " %s", word);
    o += (size_t)snprintf(out + o, len - o, " '");
    for (const char *p = word; *p && o < len; p++)
        o += (size_t)(*p == '\'' ? snprintf(out + o, len - o, "'\\''")
                                 : snprintf(out + o, len - o, "%c", *p));
    return o < len ? o + (size_t)snprintf(out + o, len - o, "'") : o;
}

void tc_cli_set_command_line(int argc, char **argv)
{
    size_t o = (size_t)snprintf(command_line, sizeof command_line, "truecost");
    for (int i = 1; i < argc && o < sizeof command_line; i++) {
        char word[1024];
        tc_redact_password(argv[i], word, sizeof word);
        o = append(command_line, o, sizeof command_line, word);
    }
}

const char *tc_cli_command_line(void)
{
    return command_line;
}
