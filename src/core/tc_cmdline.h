/* A command line as it is stored with a run or shown in a report: the
 * words as a shell takes them back (single-quoted where needed), a URL's
 * password as "***". API keys never appear: they come from environment
 * variables. */
#ifndef TC_CMDLINE_H
#define TC_CMDLINE_H

#include <stddef.h>

/* "truecost" and argv[1..argc) into out (len bytes, always terminated),
 * each word redacted and quoted. Returns 1 when the whole line fit (it can
 * be taken back by tc_cmdline_words), 0 when words or bytes were cut. */
int tc_cmdline_quote(int argc, char **argv, char *out, size_t len);

/* Takes a line of tc_cmdline_quote's back into words, unquoted, in buf
 * (len bytes), at most max; the count, or -1 on a quote left open or a
 * line too long for buf or max. */
int tc_cmdline_words(const char *line, char **words, int max, char *buf, size_t len);

#endif
