/* `truecost help --completion`: the bash completion script, its template
 * (completion/truecost.bash.in, compiled in) filled from the command list
 * and each command's help text, so it cannot drift from either. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "core/tc_help.h"

#define MAX_OPTS 96

static void commands(FILE *out)
{
    for (int i = 0; i < tc_cli_n_commands; i++)
        fprintf(out, "%s ", tc_cli_commands[i].name);
    fputs("help", out);
}

/* Each command's options (-h left out: --help is offered). */
static void options(FILE *out)
{
    for (int i = 0; i < tc_cli_n_commands; i++) {
        tc_usage_opt o[MAX_OPTS];
        int n = tc_help_options(tc_cli_commands[i].name, o, MAX_OPTS), help = 0;
        fprintf(out, "    %s) echo \"", tc_cli_commands[i].name);
        for (int k = 0; k < n; k++)
            if (strcmp(o[k].name, "-h") != 0) {
                fprintf(out, "%s ", o[k].name);
                help |= strcmp(o[k].name, "--help") == 0;
            }
        fprintf(out, "%s\" ;;\n", help ? "" : "--help");
    }
}

/* What each option that takes something takes. */
static void kinds(FILE *out)
{
    for (int i = 0; i < tc_cli_n_commands; i++) {
        tc_usage_opt o[MAX_OPTS];
        int n = tc_help_options(tc_cli_commands[i].name, o, MAX_OPTS);
        for (int k = 0; k < n; k++)
            if (o[k].kind != TC_USAGE_FLAG)
                fprintf(out, "    \"%s %s\") echo %s ;;\n", tc_cli_commands[i].name, o[k].name,
                        tc_usage_kind_name(o[k].kind));
    }
}

static void file_args(FILE *out)
{
    for (int i = 0; i < tc_cli_n_commands; i++)
        if (tc_help_file_args(tc_cli_commands[i].name))
            fprintf(out, "%s ", tc_cli_commands[i].name);
}

int tc_cli_completion(FILE *out)
{
    const char *t = (const char *)tc_help_completion_template;
    const char *end = t + tc_help_completion_template_len;
    static const struct {
        const char *mark;
        void (*fill)(FILE *);
    } marks[] = {{"@COMMANDS@", commands},
                 {"@OPTIONS@\n", options},
                 {"@KINDS@\n", kinds},
                 {"@FILE_ARGS@", file_args}};
    while (t < end) {
        const char *at = memchr(t, '@', (size_t)(end - t));
        size_t k = 0, n = sizeof marks / sizeof marks[0];
        for (; at && k < n; k++)
            if ((size_t)(end - at) >= strlen(marks[k].mark) &&
                strncmp(at, marks[k].mark, strlen(marks[k].mark)) == 0)
                break;
        const char *stop = at ? at + (k < n ? 0 : 1) : end;
        fwrite(t, 1, (size_t)(stop - t), out);
        if (at && k < n) {
            marks[k].fill(out);
            stop += strlen(marks[k].mark);
        }
        t = stop;
    }
    return fflush(out) == 0 && !ferror(out) ? TC_EXIT_OK : TC_EXIT_RUNTIME;
}
