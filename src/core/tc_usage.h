/* A command's usage text (its --help) read as data: the options it names
 * and what each takes, and whether its arguments are files. The
 * completion and the man page are made from the help texts this way, so
 * they cannot drift from them. Pure, on bytes. */
#ifndef TC_USAGE_H
#define TC_USAGE_H

#include <stddef.h>

/* What an option takes, by the word after it: FILE, F, PATH, LOG a file;
 * DIR, ROOT a folder; another word a value; none (an option, a bracket,
 * the end) nothing. Ordered: where an option is named twice the later
 * kind wins. */
typedef enum tc_usage_kind {
    TC_USAGE_FLAG,
    TC_USAGE_VALUE,
    TC_USAGE_DIR,
    TC_USAGE_FILE
} tc_usage_kind;

typedef struct tc_usage_opt {
    char name[40];
    tc_usage_kind kind;
} tc_usage_opt;

/* The options text[0..len) names: its usage lines (up to the first blank
 * line) and the lines that start with an option (the option, not its
 * description); --long or -x, whole words, each once. "-o, --output PATH":
 * the short one takes what the long one does. At most max into out; the
 * count. */
int tc_usage_options(const char *text, size_t len, tc_usage_opt *out, int max);

/* "flag", "value", "dir", "file". */
const char *tc_usage_kind_name(tc_usage_kind k);

/* 1 when a word of the usage lines that is no option's value names a
 * file: FILE, FILE_B, MODEL (a model file). */
int tc_usage_file_args(const char *text, size_t len);

/* A help text (len bytes) with its shared parts expanded: "@name" after
 * an option (the description several commands share, tc_usage_expand.c)
 * and "@@name" lines (a group of options). A new string of *out_len
 * bytes (free it), or NULL when out of memory. */
char *tc_usage_expand(const char *text, size_t len, size_t *out_len);

#endif
