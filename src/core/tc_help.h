/* The help texts compiled into the binary (docs/help/NAME.txt, made into
 * bytes by CMake: generated/tc_help.c) and what is read from them: a
 * command's --help with its shared parts expanded, the options it names,
 * whether its arguments are files. The man page and the bash completion
 * are made from these, so they cannot drift from --help. */
#ifndef TC_HELP_H
#define TC_HELP_H

#include <stddef.h>

#include "core/tc_usage.h"

/* One help text as compiled in. */
typedef struct tc_help_text {
    const char *name; /* its file's name without .txt: "run", "sim_train", "method" */
    const unsigned char *text;
    size_t len;
} tc_help_text;

/* Every help text, NULL-named at the end, and their count (generated). */
extern const tc_help_text tc_help_texts[];
extern const size_t tc_help_count;

/* The bash completion's template (completion/truecost.bash.in). */
extern const unsigned char tc_help_completion_template[];
extern const size_t tc_help_completion_template_len;

/* The help text called name, or NULL. */
const tc_help_text *tc_help_find(const char *name);

/* name's help text with its shared parts expanded (tc_usage_expand): a
 * new string of *len bytes (free it), or NULL when there is none or no
 * memory. */
char *tc_help_expanded(const char *name, size_t *len);

/* The name of the help of `CMD SUB`: "CMD_SUB" when a subcommand has
 * its own text (sim_train), else cmd. A static buffer: use it at once. */
const char *tc_help_name(const char *cmd, const char *sub);

/* The options name's help names, with what each takes, at most max into
 * out; their count, or -1 when there is no such help. */
int tc_help_options(const char *name, tc_usage_opt *out, int max);

/* 1 when name's arguments are files (tc_usage_file_args of its help). */
int tc_help_file_args(const char *name);

#endif
