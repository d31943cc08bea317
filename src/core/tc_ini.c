/* Strict INI text in memory. */
#include "core/tc_ini.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_file.h"
#include "core/tc_number.h"

void tc_ini_init(tc_ini *ini, const char *name, const char *text, size_t len, char *err,
                 size_t errlen)
{
    *ini =
        (tc_ini){.name = name, .text = text, .len = text ? len : 0, .err = err, .errlen = errlen};
}

/* fgets-like over the text. inih reads a line into a fixed buffer and
 * takes the rest of a longer one as a line of its own, so a long comment
 * ending in "pue = 9" would set pue: the rest of a long comment line is
 * dropped here, and any other line too long for the buffer is refused. */
static char *read_line(char *str, int num, void *stream)
{
    tc_ini *c = stream;
    if (c->failed || c->pos >= c->len || num < 2)
        return NULL;
    c->line++;
    int i = 0;
    while (i < num - 1 && c->pos < c->len) {
        char ch = c->text[c->pos++];
        str[i++] = ch;
        if (ch == '\n')
            break;
    }
    str[i] = '\0';
    if (str[i - 1] != '\n' && c->pos < c->len && c->text[c->pos] == '\n') {
        c->pos++; /* it just fits: its newline ends it */
    } else if (str[i - 1] != '\n' && c->pos < c->len) {
        const char *first = str + strspn(str, " \t");
        if (*first != ';' && *first != '#') {
            tc_ini_fail(c, "the line is too long (at most %d bytes; a comment may be longer)",
                        num - 2);
            return NULL;
        }
        while (c->pos < c->len && c->text[c->pos++] != '\n') {
        }
    }
    if (c->on_line)
        c->on_line(c->user, str);
    return str;
}

int tc_ini_fail(tc_ini *ini, const char *fmt, ...)
{
    if (!ini->failed) {
        char detail[600];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, sizeof detail, fmt, ap);
        va_end(ap);
        snprintf(ini->err, ini->errlen, "%s:%d: %s", ini->name, ini->line, detail);
        ini->failed = 1;
    }
    return 0;
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

/* ---- the schema reader -------------------------------------------------- */

typedef struct schema_ctx {
    tc_ini *ini;
    const tc_ini_schema *s;
    char *out;
    int line[TC_INI_MAX_KEYS];         /* where each key was given; 0: not (yet) */
    int section_line[TC_INI_MAX_KEYS]; /* where its section's first header is */
} schema_ctx;

static int known_section(const tc_ini_schema *s, const char *name)
{
    for (size_t i = 0; i < s->n_keys; i++)
        if (name[0] && strcmp(s->keys[i].section, name) == 0)
            return 1;
    return 0;
}

/* Appends item to the ", "-separated list in buf. */
static void list_add(char *buf, size_t len, const char *fmt, const char *item)
{
    size_t used = strlen(buf);
    if (used)
        snprintf(buf + used, len - used, ", ");
    used = strlen(buf);
    snprintf(buf + used, len - used, fmt, item);
}

/* "[a], [b]": the sections of the schema, each once, in its order. */
static void sections_of(const tc_ini_schema *s, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < s->n_keys; i++) {
        const char *name = s->keys[i].section;
        size_t first = 0;
        while (strcmp(s->keys[first].section, name) != 0)
            first++;
        if (name[0] && first == i)
            list_add(buf, len, "[%s]", name);
    }
}

/* The keys of `section`, "a, b" (section "": "'a', 'b'"). */
static void keys_of(const tc_ini_schema *s, const char *section, char *buf, size_t len)
{
    buf[0] = '\0';
    for (size_t i = 0; i < s->n_keys; i++)
        if (strcmp(s->keys[i].section, section) == 0)
            list_add(buf, len, section[0] ? "%s" : "'%s'", s->keys[i].key);
}

/* Notes where a "[section]" line starts (column 0, as inih reads it when no
 * value continues) so that a missing key can name its section's line, and
 * with strict sections rejects an unknown one even when it has no keys. */
static void note_header(void *user, const char *line)
{
    schema_ctx *c = user;
    if (line[0] != '[')
        return;
    const char *end = strchr(line, ']');
    if (!end)
        return; /* inih reports the syntax error */
    char name[64];
    size_t n = (size_t)(end - line - 1);
    if (n >= sizeof name)
        n = sizeof name - 1;
    memcpy(name, line + 1, n);
    name[n] = '\0';
    if (!known_section(c->s, name) && c->s->strict_sections) {
        char known[512];
        sections_of(c->s, known, sizeof known);
        tc_ini_fail(c->ini, "unknown section [%s] (known: %s)", name, known);
    }
    for (size_t i = 0; i < c->s->n_keys; i++)
        if (!c->section_line[i] && strcmp(c->s->keys[i].section, name) == 0)
            c->section_line[i] = c->ini->line;
}

/* "[section] key: what" and the expected form, in the schema's dialect. */
static int key_fail(schema_ctx *c, const tc_ini_key *k, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int key_fail(schema_ctx *c, const tc_ini_key *k, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return tc_ini_fail(c->ini,
                       c->s->dialect == TC_INI_PARENS ? "[%s] %s: %s (expected %s)"
                                                      : "[%s] %s: %s; expected %s",
                       k->section, k->key, what, k->expect);
}

static int *int_at(schema_ctx *c, size_t at)
{
    return (int *)(c->out + at);
}

static int store_number(schema_ctx *c, const tc_ini_key *k, const char *value)
{
    double v;
    if (tc_parse_plain_number(value, &v) < 0) {
        int negative = c->s->dialect == TC_INI_SEMICOLON && value[0] == '-' &&
                       tc_parse_plain_number(value + 1, &v) == 0;
        return key_fail(c, k, "'%s' %s", value, negative ? "is negative" : "is not a number");
    }
    if (v < k->min || v > k->max || ((k->flags & TC_INI_ABOVE_MIN) && v <= k->min) ||
        ((k->flags & TC_INI_WHOLE) && v != floor(v)))
        return key_fail(c, k, "%s is out of range", value);
    *(double *)(c->out + k->at) = v;
    *int_at(c, k->valid_at) = 1;
    *int_at(c, k->line_at) = c->ini->line;
    return 1;
}

static int store_answer(schema_ctx *c, const tc_ini_key *k, const char *value)
{
    for (int i = 0; k->words[i]; i++)
        if (strcmp(value, k->words[i]) == 0) {
            *int_at(c, k->at) = i + 1;
            *int_at(c, k->line_at) = c->ini->line;
            return 1;
        }
    return key_fail(c, k, "'%s' is not an answer", value);
}

static int store_string(schema_ctx *c, const tc_ini_key *k, const char *value)
{
    size_t n = strlen(value);
    if (n == 0 || n >= k->size) {
        char name[128];
        snprintf(name, sizeof name, k->section[0] ? "[%s] %s" : "%s%s", k->section, k->key);
        return tc_ini_fail(c->ini, "%s: '%s' is not a label; expected 1 to %zu characters, %s",
                           name, value, k->size - 1, k->expect);
    }
    memcpy(c->out + k->at, value, n + 1);
    return 1;
}

/* Key i of the schema, given `value` on the current line. */
static int store(schema_ctx *c, size_t i, const char *value)
{
    const tc_ini_key *k = &c->s->keys[i];
    if (k->section[0] && c->line[i])
        return tc_ini_fail(c->ini,
                           c->s->dialect == TC_INI_PARENS
                               ? "[%s] %s: given twice"
                               : "[%s] %s: given twice; expected it once",
                           k->section, k->key);
    int ok = 0;
    char why[200] = "";
    switch (k->kind) {
    case TC_INI_NUMBER:
        ok = store_number(c, k, value);
        break;
    case TC_INI_ANSWER:
        ok = store_answer(c, k, value);
        break;
    case TC_INI_STRING:
        ok = store_string(c, k, value);
        break;
    case TC_INI_CUSTOM:
        ok = k->parse(k, value, c->ini->line, c->out + k->at, why, sizeof why) == 0 ||
             key_fail(c, k, "%s", why);
        break;
    }
    if (!ok)
        return 0;
    c->line[i] = c->ini->line;
    return !c->s->check || c->s->check(c->ini, k, c->out);
}

static int on_pair(void *user, const char *section, const char *name, const char *value)
{
    schema_ctx *c = user;
    if (c->ini->failed)
        return 0;
    char known[512];
    if (section[0] && !known_section(c->s, section)) {
        sections_of(c->s, known, sizeof known);
        return tc_ini_fail(c->ini, "unknown section [%s] (known: %s)", section, known);
    }
    for (size_t i = 0; i < c->s->n_keys; i++)
        if (strcmp(c->s->keys[i].section, section) == 0 && strcmp(c->s->keys[i].key, name) == 0)
            return store(c, i, value);
    keys_of(c->s, section, known, sizeof known);
    if (!section[0])
        return tc_ini_fail(c->ini,
                           "'%s' outside a section; expected only %s before the first [section]",
                           name, known);
    if (c->s->dialect == TC_INI_PARENS)
        return tc_ini_fail(c->ini, "[%s] unknown key '%s' (known: %s)", section, name, known);
    return tc_ini_fail(c->ini, "[%s] %s: unknown key; expected one of: %s", section, name, known);
}

/* The first missing required key, named at the line of its section (or
 * without a line when the whole section is absent), and how many more. */
static tc_err check_required(const schema_ctx *c)
{
    const tc_ini_key *first = NULL;
    int line = 0, more = 0;
    for (size_t i = 0; i < c->s->n_keys; i++) {
        if (!(c->s->keys[i].flags & TC_INI_REQUIRED) || c->line[i])
            continue;
        if (first) {
            more++;
        } else {
            first = &c->s->keys[i];
            line = c->section_line[i];
        }
    }
    if (!first)
        return TC_OK;
    char tail[64] = "";
    if (more)
        snprintf(tail, sizeof tail, " (and %d more required key%s)", more, more > 1 ? "s" : "");
    tc_ini *ini = c->ini;
    if (!line)
        return tc_fail(ini->err, ini->errlen, TC_ERR_PARSE,
                       "%s: [%s] %s: missing, and so is the [%s] section%s; expected %s", ini->name,
                       first->section, first->key, first->section, tail, first->expect);
    return tc_fail(ini->err, ini->errlen, TC_ERR_PARSE, "%s:%d: [%s] %s: missing%s; expected %s",
                   ini->name, line, first->section, first->key, tail, first->expect);
}

tc_err tc_ini_read(tc_ini *ini, const tc_ini_schema *schema, void *out)
{
    if (!ini || !schema || !out)
        return TC_ERR_INVALID;
    if (schema->n_keys > TC_INI_MAX_KEYS)
        return tc_fail(ini->err, ini->errlen, TC_ERR_INVALID,
                       "%s: a schema of %zu keys (at most %d)", ini->name, schema->n_keys,
                       TC_INI_MAX_KEYS);
    schema_ctx c = {.ini = ini, .s = schema, .out = out};
    ini->on_line = note_header;
    ini->user = &c;
    tc_err rc = tc_ini_run(ini, on_pair, &c);
    ini->on_line = NULL; /* c ends here */
    ini->user = NULL;
    if (rc == TC_OK)
        rc = check_required(&c);
    return rc;
}

tc_err tc_ini_load(const char *path, const char *what, tc_ini_file_fn parse, void *out, char *err,
                   size_t errlen)
{
    if (!path || !parse || !out || !err || !errlen)
        return TC_ERR_INVALID;
    char *text;
    size_t len;
    tc_err status = tc_read_file(path, 1u << 20, what, &text, &len, err, errlen);
    if (status == TC_OK)
        status = parse(path, text, len, out, err, errlen);
    free(text);
    return status;
}
