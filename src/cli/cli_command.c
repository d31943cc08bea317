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
static int cut; /* the line lost words or bytes: it cannot be taken back */

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
    cut = 0;
    for (int i = 1; i < argc && o < sizeof command_line; i++) {
        char word[1024];
        tc_redact_url(argv[i], word, sizeof word);
        cut |= strlen(argv[i]) >= sizeof word;
        o = append(command_line, o, sizeof command_line, word);
    }
    cut |= o >= sizeof command_line - 1;
}

int tc_cli_command_line_whole(void)
{
    return !cut;
}

/* One word of line from *p, unquoted, into out (at most len - 1 bytes);
 * -1 on a quote left open or a word too long. */
static int next_word(const char **p, char *out, size_t len)
{
    size_t n = 0;
    const char *s = *p;
    while (*s && *s != ' ') {
        if (*s != '\'') {
            if (n + 1 >= len)
                return -1;
            out[n++] = *s++;
            continue;
        }
        const char *end = strchr(s + 1, '\'');
        if (!end || n + (size_t)(end - s - 1) + 1 >= len)
            return -1;
        memcpy(out + n, s + 1, (size_t)(end - s - 1));
        n += (size_t)(end - s - 1);
        s = end + 1;
        if (strncmp(s, "\\'", 2) == 0) { /* '\'' : a quote inside quotes */
            if (n + 1 >= len)
                return -1;
            out[n++] = '\'';
            s += 2;
        }
    }
    out[n] = '\0';
    *p = s;
    return 0;
}

int tc_cli_command_words(const char *line, char **words, int max, char *buf, size_t len)
{
    int n = 0;
    size_t used = 0;
    for (const char *p = line; *p;) {
        if (*p == ' ') {
            p++;
            continue;
        }
        if (n >= max || used >= len || next_word(&p, buf + used, len - used) < 0)
            return -1;
        words[n++] = buf + used;
        used += strlen(buf + used) + 1;
    }
    return n;
}

const char *tc_cli_command_line(void)
{
    return command_line;
}
