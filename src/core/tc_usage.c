/* Reading a command's usage text (tc_usage.h). */
#include "core/tc_usage.h"

#include <ctype.h>
#include <string.h>

static int word_char(char c)
{
    return isalnum((unsigned char)c) || c == '-' || c == '_';
}

/* What the option at t (its name n long) takes, by the word after it:
 * FILE, F, PATH and LOG name files; DIR and ROOT folders; any other word a
 * value; none (an option, a bracket, the end) nothing. */
static tc_usage_kind kind_after(const char *t, size_t n)
{
    const char *p = t + n;
    if (*p == '=')
        return TC_USAGE_VALUE;
    if (*p != ' ' || !p[1] || strchr("-[|(", p[1]))
        return TC_USAGE_FLAG;
    char meta[32];
    size_t k = 0;
    for (p++; word_char(*p) && k + 1 < sizeof meta; p++)
        meta[k++] = *p;
    meta[k] = '\0';
    if (!k)
        return TC_USAGE_FLAG;
    if (strstr(meta, "FILE") || strstr(meta, "PATH") || !strcmp(meta, "F") || !strcmp(meta, "LOG"))
        return TC_USAGE_FILE;
    if (strstr(meta, "DIR") || strstr(meta, "ROOT"))
        return TC_USAGE_DIR;
    return TC_USAGE_VALUE;
}

static void add(tc_usage_opt *out, int *n, int max, const char *name, size_t len,
                tc_usage_kind kind)
{
    for (int i = 0; i < *n; i++)
        if (strlen(out[i].name) == len && strncmp(out[i].name, name, len) == 0) {
            if (kind > out[i].kind) /* a file or folder over a value over nothing */
                out[i].kind = kind;
            return;
        }
    if (*n >= max || len >= sizeof out[0].name)
        return;
    memcpy(out[*n].name, name, len);
    out[*n].name[len] = '\0';
    out[(*n)++].kind = kind;
}

/* The options in text[0..len): --long or -x, whole words. "-o, --output
 * PATH": the short one takes what the long one does. */
static void scan(const char *text, size_t len, tc_usage_opt *out, int *n, int max)
{
    size_t short_at = 0, short_len = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '-' || (i > 0 && word_char(text[i - 1])))
            continue;
        size_t j = i + 1;
        if (text[j] == '-' && islower((unsigned char)text[j + 1]))
            for (j += 2; j < len && (islower((unsigned char)text[j]) ||
                                     isdigit((unsigned char)text[j]) || text[j] == '-');
                 j++)
                ;
        else if (isalpha((unsigned char)text[j]))
            j++;
        else
            continue;
        if (j < len && word_char(text[j]))
            continue;
        tc_usage_kind kind = kind_after(text + i, j - i);
        add(out, n, max, text + i, j - i, kind);
        if (j - i == 2 && text[j] == ',') { /* "-o, --output PATH" */
            short_at = i;
            short_len = 2;
        } else if (short_len) {
            add(out, n, max, text + short_at, short_len, kind);
            short_len = 0;
        }
        i = j;
    }
}

int tc_usage_options(const char *text, size_t text_len, tc_usage_opt *out, int max)
{
    const char *t = text, *end = text + text_len;
    int n = 0, usage = 1;
    while (t < end) {
        const char *nl = memchr(t, '\n', (size_t)(end - t));
        size_t len = nl ? (size_t)(nl - t) : (size_t)(end - t);
        size_t lead = strspn(t, " ");
        if (usage && len == 0)
            usage = 0;
        else if (usage)
            scan(t, len, out, &n, max);
        else if (lead > 0 && lead < len && t[lead] == '-') {
            /* An option line: the option, not its description. */
            const char *gap = strstr(t + lead, "  ");
            size_t upto = gap && gap < t + len ? (size_t)(gap - t) : len;
            scan(t + lead, upto - lead, out, &n, max);
        }
        t += len + 1;
    }
    return n;
}

const char *tc_usage_kind_name(tc_usage_kind k)
{
    static const char *const names[] = {"flag", "value", "dir", "file"};
    return (unsigned)k < 4 ? names[k] : "?";
}

/* A word of a usage line naming a file argument: FILE, FILE_B, MODEL (a
 * model file) ... not after an option (whose value it would be). */
static int file_word(const char *w, size_t n)
{
    char word[32];
    size_t k = 0;
    for (size_t i = 0; i < n && k + 1 < sizeof word; i++)
        if (isupper((unsigned char)w[i]) || w[i] == '_')
            word[k++] = w[i];
        else if (strchr("[]()|,.:", w[i]) == NULL)
            return 0;
    word[k] = '\0';
    return strstr(word, "FILE") != NULL || strcmp(word, "MODEL") == 0;
}

int tc_usage_file_args(const char *text, size_t text_len)
{
    const char *t = text, *end = text + text_len;
    int after_option = 0;
    while (t < end && *t != '\n') { /* the usage lines: up to the first blank one */
        size_t len = strcspn(t, " \n");
        if (len && !after_option && file_word(t, len))
            return 1;
        if (len)
            after_option = t[strspn(t, "[(|")] == '-';
        t += len;
        if (t < end && *t == '\n' && t + 1 < end && t[1] == '\n')
            break;
        t += t < end;
    }
    return 0;
}
