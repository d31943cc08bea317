#include "cli_opts.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "core/tc_redact.h"
#include "telemetry/telem_set.h"

#define MAX_OPTS 64

/* --db values whose password was hidden: the argument (now starred) and
 * the copy that keeps it, for the process's life. */
static struct {
    const char *arg;
    char *copy;
} hidden[8];
static int n_hidden;

/* A password in --db's URL is readable by every user of the host (ps,
 * /proc/PID/cmdline) for the whole run or soak: the argument's own bytes
 * become '*' and the store is opened with a copy. Said once, with the
 * ways that keep it off the command line. */
static const char *hide_db_password(const char *value)
{
    for (int i = 0; i < n_hidden; i++)
        if (hidden[i].arg == value) /* parsed again (sweep, soak): the copy */
            return hidden[i].copy;
    size_t at, n;
    if (!value || !tc_redact_password_span(value, &at, &n) || n_hidden == 8)
        return value;
    char *copy = strdup(value);
    if (!copy)
        return value;
    memset((char *)value + at, '*', n);
    hidden[n_hidden].arg = value;
    hidden[n_hidden++].copy = copy;
    tc_app_error("warning: --db: a password on the command line can be read by any user of this "
                 "host (ps) while truecost runs; it is starred out now, but keep it off the "
                 "command line: ~/.pgpass, PGPASSWORD, or a service file (?service=NAME); see "
                 "docs/storage.md");
    return copy;
}

/* One option's value into its destination; 0 or -1 after saying why. */
static int take(const tc_cli_opt *o, const char *value, void *ctx)
{
    char name[80];
    snprintf(name, sizeof name, "--%s", o->name);
    switch (o->kind) {
    case TC_OPT_FLAG:
        *(int *)o->dest = 1;
        return 0;
    case TC_OPT_STRING:
        *(const char **)o->dest = strcmp(o->name, "db") == 0 ? hide_db_password(value) : value;
        return 0;
    case TC_OPT_INT:
        return tc_cli_int(name, value, o->imin, o->imax, (long long *)o->dest);
    case TC_OPT_DOUBLE:
        return tc_cli_double(name, value, o->min, o->max, (double *)o->dest);
    case TC_OPT_CALL:
        return o->call(value, ctx);
    }
    return -1;
}

static int takes_value(const tc_cli_opt *o)
{
    return o->kind == TC_OPT_CALL ? o->takes_value : o->kind != TC_OPT_FLAG;
}

int tc_cli_parse(const char *cmd, int argc, char **argv, const tc_cli_opt *opts, void *ctx,
                 const char **pos, int max_pos, const char *extra_hint)
{
    struct option longs[MAX_OPTS + 2];
    char shorts[2 * MAX_OPTS + 2] = "";
    size_t n = 0, ns = 0;
    for (; opts[n].name && n < MAX_OPTS; n++) {
        longs[n] =
            (struct option){opts[n].name, takes_value(&opts[n]) ? required_argument : no_argument,
                            NULL, 256 + (int)n};
        if (opts[n].letter) {
            shorts[ns++] = opts[n].letter;
            if (takes_value(&opts[n]))
                shorts[ns++] = ':';
        }
    }
    shorts[ns] = '\0';
    longs[n] = (struct option){NULL, 0, NULL, 0};
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        const tc_cli_opt *o = NULL;
        if (opt >= 256 && opt < 256 + (int)n)
            o = &opts[opt - 256];
        for (size_t i = 0; !o && opt != '?' && opt != ':' && i < n; i++)
            if (opts[i].letter == opt)
                o = &opts[i];
        if (!o) {
            tc_app_error("%s: unknown or incomplete option '%s'", cmd, argv[optind - 1]);
            return -1;
        }
        if (take(o, optarg, ctx) < 0)
            return -1;
    }
    int n_pos = 0;
    for (; optind < argc; optind++, n_pos++) {
        if (n_pos == max_pos) {
            tc_app_error("%s: unexpected argument '%s'%s", cmd, argv[optind],
                         extra_hint ? extra_hint : "");
            return -1;
        }
        pos[n_pos] = argv[optind];
    }
    return n_pos;
}

/* The row of opts that arg names (--name, --name=value, -l), or NULL. */
static const tc_cli_opt *named(const tc_cli_opt *opts, const char *arg)
{
    for (const tc_cli_opt *o = opts; o->name; o++) {
        size_t len = strlen(o->name);
        if (arg[0] == '-' && arg[1] == '-' && strncmp(arg + 2, o->name, len) == 0 &&
            (arg[2 + len] == '\0' || arg[2 + len] == '='))
            return o;
        if (o->letter && arg[0] == '-' && arg[1] == o->letter && !arg[2])
            return o;
    }
    return NULL;
}

int tc_cli_split(const char *cmd, int argc, char **argv, const tc_cli_opt *opts, void *ctx,
                 const char *shared, char **rest, int *n_rest)
{
    *n_rest = 0;
    rest[(*n_rest)++] = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const tc_cli_opt *hit = named(opts, arg);
        if (!hit || (shared && !strcmp(hit->name, shared)))
            rest[(*n_rest)++] = argv[i];
        if (!hit)
            continue;
        int takes = hit->kind == TC_OPT_CALL ? hit->takes_value : hit->kind != TC_OPT_FLAG;
        char *one[3] = {argv[0], argv[i], NULL};
        int n = 2;
        if (takes && !strchr(arg, '=') && i + 1 < argc)
            one[n++] = argv[++i];
        if (tc_cli_parse(cmd, n, one, opts, ctx, NULL, 0, NULL) < 0)
            return -1;
    }
    rest[*n_rest] = NULL;
    return 0;
}

void tc_cli_profiles_resolve(const char *both, const char **a, const char **b)
{
    if (!*a)
        *a = both;
    if (!*b)
        *b = both;
}

int tc_cli_take_telemetry(const char *cmd, const char *val, const char **name, int *named,
                          const char **urls, int *n_urls)
{
    if (strncmp(val, "http://", 7) != 0 && strncmp(val, "https://", 8) != 0) {
        *name = val;
        *named = 1;
        return 0;
    }
    if (*n_urls >= TC_TELEM_MAX_URLS) {
        tc_app_error("%s: --telemetry: at most %d URLs", cmd, TC_TELEM_MAX_URLS);
        return -1;
    }
    urls[(*n_urls)++] = val;
    return 0;
}
