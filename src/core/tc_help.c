/* The compiled-in help texts, looked up and read (tc_help.h). */
#include <stdlib.h>
#include <string.h>

#include "core/tc_help.h"

const tc_help_text *tc_help_find(const char *name)
{
    for (size_t i = 0; i < tc_help_count; i++)
        if (strcmp(tc_help_texts[i].name, name) == 0)
            return &tc_help_texts[i];
    return NULL;
}

char *tc_help_expanded(const char *name, size_t *len)
{
    const tc_help_text *h = tc_help_find(name);
    return h ? tc_usage_expand((const char *)h->text, h->len, len) : NULL;
}

const char *tc_help_name(const char *cmd, const char *sub)
{
    static char name[96];
    if (!sub || !sub[0] || sub[0] == '-' || strlen(cmd) + strlen(sub) + 2 > sizeof name)
        return cmd;
    size_t n = strlen(cmd);
    memcpy(name, cmd, n);
    name[n] = '_';
    memcpy(name + n + 1, sub, strlen(sub) + 1);
    return tc_help_find(name) ? name : cmd;
}

int tc_help_options(const char *name, tc_usage_opt *out, int max)
{
    size_t len;
    char *text = tc_help_expanded(name, &len);
    int n = text ? tc_usage_options(text, len, out, max) : -1;
    free(text);
    return n;
}

int tc_help_file_args(const char *name)
{
    size_t len;
    char *text = tc_help_expanded(name, &len);
    int yes = text && tc_usage_file_args(text, len);
    free(text);
    return yes;
}
