/* The option parsing every subcommand shares: a table of options, each
 * naming where its value goes, read with getopt_long. The messages are the
 * house's: "truecost: CMD: unknown or incomplete option '--x'",
 * "truecost: CMD: unexpected argument 'y'", and tc_cli_int/tc_cli_double's
 * range errors. */
#ifndef TC_CLI_OPTS_H
#define TC_CLI_OPTS_H

#include <stdint.h>

typedef enum tc_opt_kind {
    TC_OPT_FLAG,   /* no value: *(int *)dest = 1 */
    TC_OPT_STRING, /* *(const char **)dest = the value (the last one given wins) */
    TC_OPT_INT,    /* *(long long *)dest, in [min, max] */
    TC_OPT_DOUBLE, /* *(double *)dest, in [min, max] */
    TC_OPT_CALL    /* call(value or NULL, ctx); returns 0, or -1 after saying why */
} tc_opt_kind;

typedef struct tc_cli_opt {
    const char *name; /* long name without "--"; NULL ends the table */
    char letter;      /* short option, or 0 */
    tc_opt_kind kind;
    void *dest;
    long long imin, imax;                      /* TC_OPT_INT */
    double min, max;                           /* TC_OPT_DOUBLE */
    int (*call)(const char *value, void *ctx); /* TC_OPT_CALL */
    int takes_value;                           /* TC_OPT_CALL: 1 when it takes a value */
} tc_cli_opt;

/* Table rows: a flag, a string, a whole number or a number in a range, a
 * callback (with or without a value), and the end of the table. */
#define TC_OPT_F(n, l, d)                                                                          \
    {                                                                                              \
        .name = (n), .letter = (l), .kind = TC_OPT_FLAG, .dest = (d)                               \
    }
#define TC_OPT_S(n, l, d)                                                                          \
    {                                                                                              \
        .name = (n), .letter = (l), .kind = TC_OPT_STRING, .dest = (d)                             \
    }
#define TC_OPT_I(n, l, d, lo, hi)                                                                  \
    {                                                                                              \
        .name = (n), .letter = (l), .kind = TC_OPT_INT, .dest = (d), .imin = (lo), .imax = (hi)    \
    }
#define TC_OPT_D(n, l, d, lo, hi)                                                                  \
    {                                                                                              \
        .name = (n), .letter = (l), .kind = TC_OPT_DOUBLE, .dest = (d), .min = (lo), .max = (hi)   \
    }
#define TC_OPT_C(n, l, fn, value)                                                                  \
    {                                                                                              \
        .name = (n), .letter = (l), .kind = TC_OPT_CALL, .call = (fn), .takes_value = (value)      \
    }
/* Where the telemetry sources read (a tc_telem_config *t): the same five
 * options for run, soak, sweep, env, monitor and agent. */
#define TC_OPT_TELEM_SOURCES(t)                                                                    \
    TC_OPT_S("sysfs-root", 0, &(t)->sysfs_root), TC_OPT_S("nvml-lib", 0, &(t)->nvml_lib),          \
        TC_OPT_S("rocm-lib", 0, &(t)->rocm_lib), TC_OPT_S("nvidia-smi", 0, &(t)->nvidia_smi),      \
        TC_OPT_S("rocm-smi", 0, &(t)->rocm_smi)
/* The options several commands share, one definition each: the same name,
 * range and meaning wherever a command takes it. */
#define TC_OPT_CLAIM_MIN 1e-6 /* "A is X times more cost-efficient than B" */
#define TC_OPT_CLAIM_MAX 1e6
#define TC_OPT_RESAMPLES_MIN 1000 /* a 95% interval from fewer is noise */
#define TC_OPT_RESAMPLES_MAX 1000000
/* --claim X into a double left NaN when not given. */
#define TC_OPT_CLAIM(d) TC_OPT_D("claim", 0, (d), TC_OPT_CLAIM_MIN, TC_OPT_CLAIM_MAX)
/* --resamples N into a long long left 0 when not given (each command's
 * own default then applies). */
#define TC_OPT_RESAMPLES(d)                                                                        \
    TC_OPT_I("resamples", 0, (d), TC_OPT_RESAMPLES_MIN, TC_OPT_RESAMPLES_MAX)
/* --db PATH: the results database (NULL: the default; tc_app_open_store). */
#define TC_OPT_DB(d) TC_OPT_S("db", 0, (d))
/* --json: the command's document as JSON on stdout. */
#define TC_OPT_JSON(d) TC_OPT_F("json", 0, (d))
/* --slo SPEC, parsed by the command with tc_slo_parse (as run takes it). */
#define TC_OPT_SLO(d) TC_OPT_S("slo", 0, (d))
/* --at X: one interactivity, output tokens/s per user (lockin, decide). */
#define TC_OPT_AT_MIN 0.001
#define TC_OPT_AT_MAX 1e6
#define TC_OPT_AT(d) TC_OPT_D("at", 0, (d), TC_OPT_AT_MIN, TC_OPT_AT_MAX)
/* --at LIST: target interactivities, read by tc_cli_frontier_targets
 * (frontier, compare, report), each within TC_OPT_AT's range. */
#define TC_OPT_AT_LIST(d) TC_OPT_S("at", 0, (d))
/* --demand TOKENS: output tokens per month a fleet is sized for (frontier,
 * and the measured hardware saving of lockin, decide and report). */
#define TC_OPT_DEMAND(d) TC_OPT_D("demand", 0, (d), 1, 1e18)
/* --seed S: any non-negative 64-bit value. */
#define TC_OPT_SEED(d) TC_OPT_I("seed", 0, (d), 0, INT64_MAX)
/* Cost profiles of two platforms: --profile FILE for both sides,
 * --profile-a / --profile-b for one side each (they win over --profile);
 * tc_cli_profiles_resolve settles them. */
#define TC_OPT_PROFILES(both, a, b)                                                                \
    TC_OPT_S("profile", 0, (both)), TC_OPT_S("profile-a", 0, (a)), TC_OPT_S("profile-b", 0, (b))
#define TC_OPT_END                                                                                 \
    {                                                                                              \
        .name = NULL                                                                               \
    }

/* Parses argv[1..] (argv[0] is the subcommand) against opts (-h and
 * --help never reach it: main answers them for every command). Positional arguments go to
 * pos[0..max_pos-1] (unset ones stay as they were). Returns the number of positional arguments, or
 * -1 after printing the error (an unknown option, a missing or bad value, more than max_pos
 * arguments: "unexpected argument 'X'" followed by extra_hint when not NULL). ctx is handed to
 * TC_OPT_CALL. */
int tc_cli_parse(const char *cmd, int argc, char **argv, const tc_cli_opt *opts, void *ctx,
                 const char **pos, int max_pos, const char *extra_hint);

/* For a command that wraps run's options (sweep, soak): the options of
 * `opts` are parsed one at a time, with the table's checks, into ctx;
 * every other argument goes to rest (argv[0] first, NULL-ended, at most
 * argc + 1 entries) for run's parser. The option named `shared` (may be
 * NULL) is both parsed and passed on. 0, or -1 after printing why. */
/* After parsing TC_OPT_PROFILES: each side without a file of its own gets
 * --profile's (when given). */
void tc_cli_profiles_resolve(const char *both, const char **a, const char **b);

/* --telemetry VALUE, as run and train take it (repeatable): an exporter
 * URL (http:// or https://) is appended to urls[*n_urls] (at most
 * TC_TELEM_MAX_URLS), anything else is a source name into *name with
 * *named set. 0, or -1 after saying "CMD: --telemetry: at most N URLs". */
int tc_cli_take_telemetry(const char *cmd, const char *val, const char **name, int *named,
                          const char **urls, int *n_urls);

int tc_cli_split(const char *cmd, int argc, char **argv, const tc_cli_opt *opts, void *ctx,
                 const char *shared, char **rest, int *n_rest);

#endif
