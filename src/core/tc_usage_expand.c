/* The help texts' shared parts: the description of an option several
 * commands take is written once here, and docs/help/CMD.txt names it
 * ("--db PATH   @db", or a line "@@telemetry-sources" for a group of
 * options), so every command says the same thing of it. Expanded when a
 * help text is printed or read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_usage.h"

typedef struct fragment {
    const char *name;
    const char *text;
} fragment;

/* An option's description; what follows "@name" on the line is appended. */
static const fragment FRAGMENTS[] = {
    {"db", "the results database: an SQLite file or a PostgreSQL URL, "
           "postgresql://USER@HOST/DBNAME (default $TRUECOST_DB, else "
           "$XDG_DATA_HOME/truecost/truecost.db, else ~/.local/share/truecost/truecost.db)"},
    {"profile", "the cost profile of both sides (or of A alone)"},
    {"profile-ab", "each side's own cost profile (they win over --profile)"},
    {"resamples", "bootstrap resamples, 1000 to 1000000"},
    {"seed-boot", "the bootstrap's seed (default 20261129)"},
    {"slo", "objectives as 'run --slo' takes them"},
    {"demand", "output tokens per month the fleets are sized for"},
};

/* A group of options, one line each: {option, description}. */
typedef struct block {
    const char *name;
    const char *rows[6][2];
} block;

static const block BLOCKS[] = {
    {"telemetry-sources",
     {{"--sysfs-root DIR", "read sysfs from DIR instead of /sys (tests, containers)"},
      {"--nvml-lib PATH", "load NVML from PATH instead of libnvidia-ml.so.1"},
      {"--rocm-lib PATH", "load ROCm SMI from PATH instead of librocm_smi64.so"},
      {"--nvidia-smi CMD, --rocm-smi CMD", "the fallback commands (default: on PATH)"},
      {NULL, NULL}}},
};

#define WIDTH 79

typedef struct out_buf {
    char *p;
    size_t n, cap;
    int full;
} out_buf;

static void put(out_buf *o, const char *s, size_t n)
{
    if (o->n + n + 1 > o->cap) {
        o->full = 1;
        return;
    }
    memcpy(o->p + o->n, s, n);
    o->n += n;
    o->p[o->n] = '\0';
}

static void pad(out_buf *o, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(o, " ", 1);
}

/* text wrapped at WIDTH, its lines after the first indented to col; the
 * first starts at column `at`. */
static void wrap(out_buf *o, const char *text, size_t col, size_t at)
{
    while (*text) {
        while (*text == ' ')
            text++;
        size_t room = WIDTH > at ? WIDTH - at : 1, take = strlen(text);
        if (take > room) {
            size_t cut = room;
            while (cut > 0 && text[cut] != ' ')
                cut--;
            take = cut ? cut : strcspn(text, " ");
        }
        put(o, text, take);
        put(o, "\n", 1);
        text += take;
        while (*text == ' ')
            text++;
        if (*text)
            pad(o, col);
        at = col;
    }
}

/* The description column of an option line ("  --x ARG   text"): past the
 * option and the run of spaces after it; 0 when none. */
static size_t description_column(const char *line, size_t len)
{
    const char *gap = NULL;
    for (size_t i = 2; i + 1 < len && !gap; i++)
        if (line[i] == ' ' && line[i + 1] == ' ')
            gap = line + i;
    if (!gap || line[0] != ' ')
        return 0;
    return (size_t)(gap - line) + strspn(gap, " ");
}

static void expand_block(out_buf *o, const char *name, size_t len, size_t col)
{
    for (size_t b = 0; b < sizeof BLOCKS / sizeof BLOCKS[0]; b++) {
        if (strlen(BLOCKS[b].name) != len || strncmp(BLOCKS[b].name, name, len) != 0)
            continue;
        for (const char *const(*r)[2] = BLOCKS[b].rows; (*r)[0]; r++) {
            size_t w = 2 + strlen((*r)[0]);
            put(o, "  ", 2);
            put(o, (*r)[0], strlen((*r)[0]));
            pad(o, w + 2 <= col ? col - w : 2);
            wrap(o, (*r)[1], col, w + 2 <= col ? col : w + 2);
        }
        return;
    }
    put(o, "@@", 2); /* unknown: left as written, so a test sees it */
    put(o, name, len);
    put(o, "\n", 1);
}

/* One line, its "@name" replaced; 0 when it holds none. */
static int expand_fragment(out_buf *o, const char *line, size_t len)
{
    for (size_t at = 1; at < len; at++) {
        if (line[at] != '@' || line[at - 1] != ' ')
            continue;
        for (size_t f = 0; f < sizeof FRAGMENTS / sizeof FRAGMENTS[0]; f++) {
            size_t n = strlen(FRAGMENTS[f].name);
            if (at + 1 + n > len || strncmp(line + at + 1, FRAGMENTS[f].name, n) != 0 ||
                (at + 1 + n < len && line[at + 1 + n] != ' ' && line[at + 1 + n] != ',' &&
                 line[at + 1 + n] != ';' && line[at + 1 + n] != '.'))
                continue;
            char text[1024];
            snprintf(text, sizeof text, "%s%.*s", FRAGMENTS[f].text, (int)(len - at - 1 - n),
                     line + at + 1 + n);
            put(o, line, at);
            wrap(o, text, at, at);
            return 1;
        }
    }
    return 0;
}

char *tc_usage_expand(const char *text, size_t len, size_t *out_len)
{
    out_buf o = {.cap = 2 * len + 4096};
    if (!(o.p = malloc(o.cap)))
        return NULL;
    o.p[0] = '\0';
    size_t col = 21;
    for (const char *t = text, *end = text + len; t < end;) {
        const char *nl = memchr(t, '\n', (size_t)(end - t));
        size_t n = nl ? (size_t)(nl - t) : (size_t)(end - t);
        size_t lead = strspn(t, " ");
        if (lead + 2 < n && t[lead] == '@' && t[lead + 1] == '@')
            expand_block(&o, t + lead + 2, n - lead - 2, col);
        else if (!expand_fragment(&o, t, n)) {
            put(&o, t, n);
            if (nl)
                put(&o, "\n", 1);
        }
        if (lead == 2 && n > 2 && t[2] == '-' && description_column(t, n))
            col = description_column(t, n);
        t += n + (nl != NULL);
    }
    if (o.full) {
        free(o.p);
        return NULL;
    }
    *out_len = o.n;
    return o.p;
}
