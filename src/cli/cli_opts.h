/* The option parsing every subcommand shares: a table of options, each
 * naming where its value goes, read with getopt_long. The messages are the
 * house's: "truecost: CMD: unknown or incomplete option '--x'",
 * "truecost: CMD: unexpected argument 'y'", and tc_cli_int/tc_cli_double's
 * range errors. */
#ifndef TC_CLI_OPTS_H
#define TC_CLI_OPTS_H

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
#define TC_OPT_END                                                                                 \
    {                                                                                              \
        .name = NULL                                                                               \
    }

/* Parses argv[1..] (argv[0] is the subcommand) against opts plus
 * -h/--help, which sets *help. Positional arguments go to pos[0..max_pos-1]
 * (unset ones stay as they were). Returns the number of positional
 * arguments, or -1 after printing the error (an unknown option, a missing
 * or bad value, more than max_pos arguments: "unexpected argument 'X'"
 * followed by extra_hint when not NULL). ctx is handed to TC_OPT_CALL. */
int tc_cli_parse(const char *cmd, int argc, char **argv, const tc_cli_opt *opts, void *ctx,
                 int *help, const char **pos, int max_pos, const char *extra_hint);

/* For a command that wraps run's options (sweep, soak): the options of
 * `opts` are parsed one at a time, with the table's checks, into ctx;
 * every other argument goes to rest (argv[0] first, NULL-ended, at most
 * argc + 1 entries) for run's parser. The option named `shared` (may be
 * NULL) is both parsed and passed on. 0, or -1 after printing why. */
int tc_cli_split(const char *cmd, int argc, char **argv, const tc_cli_opt *opts, void *ctx,
                 const char *shared, char **rest, int *n_rest);

#endif
