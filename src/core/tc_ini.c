/* Strict INI text in memory. */
#include "core/tc_ini.h"

#include <stdio.h>
#include <string.h>

void tc_ini_init(tc_ini *ini, const char *name, const char *text, size_t len, char *err,
                 size_t errlen)
{
    *ini = (tc_ini){.name = name,
                    .text = text,
                    .len = text ? len : 0,
                    .at_line_start = 1,
                    .err = err,
                    .errlen = errlen};
}

/* fgets-like over the text. A line longer than inih's buffer comes in
 * several reads; only the first counts as a new line. */
static char *read_line(char *str, int num, void *stream)
{
    tc_ini *c = stream;
    if (c->failed || c->pos >= c->len || num < 2)
        return NULL;
    int starts = c->at_line_start;
    if (starts)
        c->line++;
    int i = 0;
    while (i < num - 1 && c->pos < c->len) {
        char ch = c->text[c->pos++];
        str[i++] = ch;
        if (ch == '\n')
            break;
    }
    str[i] = '\0';
    c->at_line_start = str[i - 1] == '\n';
    if (starts && c->on_line)
        c->on_line(c->user, str);
    return str;
}

int tc_ini_vfail(tc_ini *ini, const char *fmt, va_list ap)
{
    if (!ini->failed) {
        char detail[600];
        vsnprintf(detail, sizeof detail, fmt, ap);
        snprintf(ini->err, ini->errlen, "%s:%d: %s", ini->name, ini->line, detail);
        ini->failed = 1;
    }
    return 0;
}

static int fail(tc_ini *ini, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(tc_ini *ini, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tc_ini_vfail(ini, fmt, ap);
    va_end(ap);
    return 0;
}

int tc_ini_top_level(tc_ini *ini, const char *name, const char *value, char *currency, size_t size)
{
    if (strcmp(name, "currency") != 0)
        return fail(ini,
                    "'%s' outside a section; expected only 'currency' before the first "
                    "[section]",
                    name);
    size_t n = strlen(value);
    if (n == 0 || n >= size)
        return fail(ini, "currency: '%s' is not a label; expected 1 to %zu characters, e.g. USD",
                    value, size - 1);
    memcpy(currency, value, n + 1);
    return 1;
}

tc_err tc_ini_run(tc_ini *ini, ini_handler handler, void *user)
{
    if (ini->text && memchr(ini->text, '\0', ini->len))
        return tc_fail(ini->err, ini->errlen, TC_ERR_PARSE,
                       "%s: contains a NUL byte: not a text file", ini->name);
    int rc = ini_parse_stream(read_line, ini, handler, user);
    if (ini->failed)
        return TC_ERR_PARSE; /* err already says where and why */
    if (rc == -2)
        return tc_fail(ini->err, ini->errlen, TC_ERR_NOMEM, "%s: out of memory", ini->name);
    if (rc != 0)
        return tc_fail(ini->err, ini->errlen, TC_ERR_PARSE,
                       "%s:%d: not a '[section]' or 'key = value' line", ini->name, rc);
    return TC_OK;
}
