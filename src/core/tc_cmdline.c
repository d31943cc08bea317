/* Command lines quoted and read back (tc_cmdline.h). */
#include "core/tc_cmdline.h"

#include <stdio.h>
#include <string.h>

#include "core/tc_redact.h"

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

int tc_cmdline_quote(int argc, char **argv, char *out, size_t len)
{
    size_t o = (size_t)snprintf(out, len, "truecost");
    int cut = 0;
    for (int i = 1; i < argc && o < len; i++) {
        char word[1024];
        tc_redact_url(argv[i], word, sizeof word);
        cut |= strlen(argv[i]) >= sizeof word;
        o = append(out, o, len, word);
    }
    return !(cut || o >= len - 1);
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

int tc_cmdline_words(const char *line, char **words, int max, char *buf, size_t len)
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
