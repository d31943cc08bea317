#include "bench_prompts.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROMPTS_FILE (64u << 20)

void tc_prompts_free(tc_prompts *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++) {
        free(p->items[i].text);
        free(p->items[i].messages_json);
    }
    free(p->items);
    p->items = NULL;
    p->n = 0;
}

void tc_prompts_stride(tc_prompts *p, size_t i, size_t n)
{
    if (!p || p->synthetic || n < 2 || p->n < n)
        return;
    size_t kept = 0;
    for (size_t k = 0; k < p->n; k++) {
        if (k % n == i % n) {
            p->items[kept++] = p->items[k];
        } else {
            free(p->items[k].text);
            free(p->items[k].messages_json);
        }
    }
    p->n = kept;
}

void tc_prompts_synthetic(const tc_synth *s, tc_prompts *out)
{
    memset(out, 0, sizeof *out);
    out->synthetic = 1;
    out->synth = *s;
}

int tc_prompts_empty(const tc_prompts *p)
{
    return !p || (p->n == 0 && !p->synthetic);
}

const tc_prompt *tc_prompts_at(const tc_prompts *p, int64_t seq, tc_prompt *scratch, tc_buf *text)
{
    if (!p->synthetic)
        return &p->items[(size_t)seq % p->n];
    if (tc_synth_prompt(&p->synth, seq, text) != TC_OK)
        return NULL;
    *scratch = (tc_prompt){
        .text = text->data, .max_tokens = p->synth.osl, .ignore_eos = p->synth.ignore_eos};
    return scratch;
}

static tc_prompt *grow(tc_prompts *p)
{
    tc_prompt *items = realloc(p->items, (p->n + 1) * sizeof *items);
    if (!items)
        return NULL;
    p->items = items;
    memset(&items[p->n], 0, sizeof items[0]);
    return &items[p->n++];
}

tc_err tc_prompts_single(const char *text, tc_prompts *out)
{
    memset(out, 0, sizeof *out);
    tc_prompt *pr = grow(out);
    if (!pr || !(pr->text = strdup(text))) {
        tc_prompts_free(out);
        return TC_ERR_NOMEM;
    }
    return TC_OK;
}

/* Content is a string, or OpenAI's array of {"type": "text", "text": ...}
 * parts; anything else would be sent without its text. */
static int valid_content(json_t *c)
{
    if (json_is_string(c))
        return 1;
    if (!json_is_array(c) || json_array_size(c) == 0)
        return 0;
    size_t i;
    json_t *part;
    json_array_foreach(c, i, part)
    {
        if (!json_is_string(json_object_get(part, "text")))
            return 0;
    }
    return 1;
}

static int valid_messages(json_t *msgs)
{
    if (!json_is_array(msgs) || json_array_size(msgs) == 0)
        return 0;
    size_t i;
    json_t *m;
    json_array_foreach(msgs, i, m)
    {
        if (!json_is_string(json_object_get(m, "role")) ||
            !valid_content(json_object_get(m, "content")))
            return 0;
    }
    return 1;
}

/* One JSONL line into *pr; returns NULL or the reason. */
static const char *parse_json_line(const char *line, size_t len, tc_prompt *pr, char *why,
                                   size_t whylen)
{
    json_error_t je;
    json_t *o = json_loadb(line, len, 0, &je);
    const char *reason = NULL;
    if (!o) {
        snprintf(why, whylen, "not valid JSON: %s (column %d)", je.text, je.column);
        return why;
    }
    json_t *p = json_object_get(o, "prompt"), *m = json_object_get(o, "messages");
    json_t *mt = json_object_get(o, "max_tokens");
    if (!json_is_object(o))
        reason = "expected an object {\"prompt\": ...} or {\"messages\": [...]}";
    else if (p && m)
        reason = "give either \"prompt\" or \"messages\", not both";
    else if (p && (!json_is_string(p) || json_string_length(p) == 0))
        reason = "\"prompt\" must be a non-empty string";
    else if (m && !valid_messages(m))
        reason = "\"messages\" must be a non-empty array of {\"role\": ..., \"content\": ...} "
                 "with content a string or an array of {\"type\": \"text\", \"text\": ...}";
    else if (!p && !m)
        reason = "no \"prompt\" or \"messages\"";
    else if (mt && (!json_is_integer(mt) || json_integer_value(mt) < 1 ||
                    json_integer_value(mt) > 1000000))
        reason = "\"max_tokens\" must be an integer from 1 to 1000000";
    if (!reason) {
        pr->max_tokens = mt ? json_integer_value(mt) : 0;
        if (p)
            pr->text = strdup(json_string_value(p));
        else
            pr->messages_json = json_dumps(m, JSON_COMPACT);
        if (!pr->text && !pr->messages_json)
            reason = "out of memory";
    }
    json_decref(o);
    return reason;
}

/* Request bodies are JSON, which must be UTF-8. */
static int valid_utf8(const char *s, size_t len)
{
    json_t *probe = json_stringn(s, len);
    json_decref(probe);
    return probe != NULL;
}

tc_err tc_prompts_parse(const char *name, const char *data, size_t len, tc_prompts *out, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r'))
        i++;
    int jsonl = i < len && data[i] == '{';
    if (memchr(data, '\0', len))
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: contains NUL bytes; expected text or JSONL",
                       name);
    size_t lineno = 0, pos = 0;
    while (pos < len) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        size_t l = nl ? (size_t)(nl - (data + pos)) : len - pos;
        const char *line = data + pos;
        pos += l + (nl ? 1 : 0);
        lineno++;
        while (l > 0 && (line[l - 1] == '\r' || line[l - 1] == ' ' || line[l - 1] == '\t'))
            l--;
        size_t lead = 0;
        while (lead < l && (line[lead] == ' ' || line[lead] == '\t'))
            lead++;
        if (lead == l)
            continue; /* blank lines separate nothing */
        tc_prompt *pr = grow(out);
        char why[256];
        const char *reason = NULL;
        if (!pr)
            reason = "out of memory";
        else if (jsonl)
            reason = parse_json_line(line + lead, l - lead, pr, why, sizeof why);
        else if (!valid_utf8(line + lead, l - lead))
            reason = "not valid UTF-8 text (save the file as UTF-8)";
        else if (!(pr->text = strndup(line + lead, l - lead)))
            reason = "out of memory";
        if (reason) {
            tc_prompts_free(out);
            return tc_fail(err, errlen, TC_ERR_PARSE, "%s:%zu: %s", name, lineno, reason);
        }
    }
    if (out->n == 0)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: no prompt (%s)", name,
                       len ? "every line is blank" : "the file is empty");
    return TC_OK;
}

tc_err tc_prompts_load(const char *path, tc_prompts *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f)
        return tc_fail(err, errlen, TC_ERR_IO, "--prompts %s: %s", path, strerror(errno));
    char *data = NULL;
    size_t len = 0, cap = 0;
    tc_err rc = TC_OK;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            char *p = cap <= MAX_PROMPTS_FILE ? realloc(data, cap) : NULL;
            if (!p) {
                rc = tc_fail(err, errlen, TC_ERR_INVALID, "--prompts %s: larger than 64 MiB", path);
                goto done;
            }
            data = p;
        }
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        rc = tc_fail(err, errlen, TC_ERR_IO, "--prompts %s: read error", path);
        goto done;
    }
    rc = tc_prompts_parse(path, data, len, out, err, errlen);
done:
    free(data);
    fclose(f);
    return rc;
}
