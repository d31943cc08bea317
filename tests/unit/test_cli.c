/* Unit tests of the CLI helpers: suggestions, numbers, listen addresses,
 * and run's command line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/tc_help.h"
#include "core/tc_suggest.h"
#include "core/tc_cmdline.h"
#include "cli/cli_opts.h"
#include "cli/cli_run.h"

static void suggests_close_commands(void **state)
{
    (void)state;
    const char *names[] = {"sim", "run", "runs", "show", "export", "help"};
    assert_int_equal(tc_suggest_distance("sim", "sim"), 0);
    assert_int_equal(tc_suggest_distance("smi", "sim"), 2);
    assert_int_equal(tc_suggest_distance("", "abc"), 3);
    assert_string_equal(tc_suggest("sm", names, 6), "sim");
    assert_string_equal(tc_suggest("expotr", names, 6), "export");
    assert_string_equal(tc_suggest("sho", names, 6), "show");
    assert_null(tc_suggest("completely-different", names, 6));
}

static void parses_numbers_strictly(void **state)
{
    (void)state;
    double d;
    long long n;
    assert_int_equal(tc_cli_double("--x", "2.5", 0, 10, &d), 0);
    assert_true(d == 2.5);
    assert_int_equal(tc_cli_double("--x", "2.5ms", 0, 10, &d), -1);
    assert_int_equal(tc_cli_double("--x", "", 0, 10, &d), -1);
    assert_int_equal(tc_cli_double("--x", "11", 0, 10, &d), -1);
    assert_int_equal(tc_cli_double("--x", "nan", 0, 10, &d), -1);
    assert_int_equal(tc_cli_int("--n", "42", 1, 100, &n), 0);
    assert_int_equal(n, 42);
    assert_int_equal(tc_cli_int("--n", "4.2", 1, 100, &n), -1);
    assert_int_equal(tc_cli_int("--n", "0", 1, 100, &n), -1);
    assert_int_equal(tc_cli_int("--n", "99999999999999999999", 1, 100, &n), -1);
}

static void parses_listen_addresses(void **state)
{
    (void)state;
    char *owned;
    const char *host;
    uint16_t port;
    assert_int_equal(tc_cli_listen("127.0.0.1:8080", &owned, &host, &port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_int_equal(port, 8080);
    free(owned);
    assert_int_equal(tc_cli_listen("[::1]:0", &owned, &host, &port), 0);
    assert_string_equal(host, "::1");
    assert_int_equal(port, 0);
    free(owned);
    assert_int_equal(tc_cli_listen(":9000", &owned, &host, &port), 0);
    assert_string_equal(host, "127.0.0.1");
    assert_null(owned);
    assert_int_equal(tc_cli_listen("9001", &owned, &host, &port), 0);
    assert_int_equal(port, 9001);
    assert_int_equal(tc_cli_listen("localhost:99999", &owned, &host, &port), -1);
    assert_null(owned);
    assert_int_equal(tc_cli_listen("localhost:http", &owned, &host, &port), -1);
}

/* Runs tc_cli_run_parse_args on "run ARGS..." with stderr caught into err;
 * returns what it returned. */
static int parse_run(const char *const *args, int n, run_args *a, char *err, size_t errlen)
{
    char *argv[16];
    argv[0] = (char *)"run";
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    argv[n + 1] = NULL;
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), STDERR_FILENO) >= 0);
    int rc = tc_cli_run_parse_args(n + 1, argv, a);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    rewind(tmp);
    size_t got = fread(err, 1, errlen - 1, tmp);
    err[got] = '\0';
    fclose(tmp);
    return rc;
}

/* An empty label is its own usage error, not "all digits". */
static void run_refuses_empty_label(void **state)
{
    (void)state;
    run_args a;
    char err[512];
    const char *empty[] = {"http://127.0.0.1:1", "--label", ""};
    assert_int_equal(parse_run(empty, 3, &a, err, sizeof err), -1);
    assert_string_equal(err, "truecost: run: --label: empty; give a name, e.g. --label "
                             "h100-baseline\n");
    const char *digits[] = {"--label", "42"};
    assert_int_equal(parse_run(digits, 2, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "all digits"));
    const char *fine[] = {"--label=h100-baseline"};
    assert_int_equal(parse_run(fine, 1, &a, err, sizeof err), 0);
    assert_string_equal(a.label, "h100-baseline");
}

/* --api is checked while parsing, before any server is probed. */
static void run_checks_api_name(void **state)
{
    (void)state;
    run_args a;
    char err[512];
    const char *bogus[] = {"http://127.0.0.1:1", "--api", "bogus"};
    assert_int_equal(parse_run(bogus, 3, &a, err, sizeof err), -1);
    assert_string_equal(err, "truecost: run: --api 'bogus': expected auto, ollama, ollama-chat, "
                             "openai, openai-chat or llamacpp\n");
    const char *empty[] = {"--api", ""};
    assert_int_equal(parse_run(empty, 2, &a, err, sizeof err), -1);
    assert_non_null(strstr(err, "--api '': expected auto"));
    const char *good[] = {"auto", "ollama", "ollama-chat", "openai", "openai-chat", "llamacpp"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        const char *args[] = {"--api", good[i]};
        assert_int_equal(parse_run(args, 2, &a, err, sizeof err), 0);
        assert_string_equal(a.api, good[i]);
        assert_string_equal(err, "");
    }
}

/* The workload shape: presets, --isl/--osl over them, and the options
 * that cannot go together, each refused naming both. */
static void run_workload_shapes(void **state)
{
    (void)state;
    run_args a;
    char err[512];
    const char *chat[] = {"--workload", "chat"};
    assert_int_equal(parse_run(chat, 2, &a, err, sizeof err), 0);
    assert_int_equal(a.isl, 1024);
    assert_int_equal(a.osl, 1024);
    assert_int_equal(a.max_tokens, 1024); /* the token limit is the OSL */
    assert_true(a.isl_range == 0.8);
    assert_int_equal(a.seed, 0);
    const char *over[] = {"--workload", "summarize", "--osl", "64", "--seed", "9"};
    assert_int_equal(parse_run(over, 6, &a, err, sizeof err), 0);
    assert_int_equal(a.isl, 8192);
    assert_int_equal(a.osl, 64);
    assert_int_equal(a.seed, 9);
    const char *isl_only[] = {"--isl", "500"}; /* the OSL is the usual limit */
    assert_int_equal(parse_run(isl_only, 2, &a, err, sizeof err), 0);
    assert_int_equal(a.osl, 128);
    assert_int_equal(a.max_tokens, 128);
    const char *isl_max[] = {"--isl", "500", "--max-tokens", "32", "--isl-range", "1"};
    assert_int_equal(parse_run(isl_max, 6, &a, err, sizeof err), 0);
    assert_int_equal(a.osl, 32);
    assert_true(a.isl_range == 1);
    const char *plain[] = {"--max-tokens", "32"};
    assert_int_equal(parse_run(plain, 2, &a, err, sizeof err), 0);
    assert_int_equal(a.isl, 0); /* no shape: the given prompts */

    static const struct {
        const char *args[4];
        int n;
        const char *err;
    } bad[] = {
        {{"--isl", "100", "--prompt", "hi"},
         4,
         "truecost: run: give --isl or --prompt, not both (--isl makes synthetic prompts)\n"},
        {{"--workload", "chat", "--prompts", "f.txt"},
         4,
         "truecost: run: give --workload or --prompts, not both (--workload makes synthetic "
         "prompts)\n"},
        {{"--osl", "64"},
         2,
         "truecost: run: --osl sets the output length of synthetic prompts: give --isl N too "
         "(or --workload); with your own prompts, use --max-tokens\n"},
        {{"--isl-range", "0.5"}, 2, "truecost: run: --isl-range needs --isl N (or --workload)\n"},
        {{"--isl", "100", "--isl-range", "0"},
         4,
         "truecost: run: --isl-range 0: expected a fraction above 0 and at most 1 (the shortest "
         "prompt as a share of --isl), e.g. 0.8\n"},
        {{"--isl", "100", "--isl-range", "1.5"},
         4,
         "truecost: --isl-range: 1.5 is out of range (0 to 1)\n"},
        {{"--workload", "code"},
         2,
         "truecost: run: --workload 'code': expected chat (1024/1024), reasoning (1024/8192) or "
         "summarize (8192/1024) (input/output tokens)\n"},
        {{"--isl", "0"}, 2, "truecost: --isl: 0 is out of range (1 to 1000000)\n"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse_run(bad[i].args, bad[i].n, &a, err, sizeof err), -1);
        assert_string_equal(err, bad[i].err);
    }
    const char *both[] = {"--isl", "100", "--osl", "8", "--max-tokens", "8"};
    assert_int_equal(parse_run(both, 6, &a, err, sizeof err), -1);
    assert_string_equal(err, "truecost: run: give --osl or --max-tokens, not both (with --isl, "
                             "--osl is the token limit)\n");
}

/* The open loop's options: each bad value or lone option is a usage
 * error that names it and the fix; good ones land in run_args. */
/* The options of a help text, as the completion and the man page take
 * them: each once, with what it takes read from the word after it. */
static void help_text_options(void **state)
{
    (void)state;
    tc_usage_opt o[96];
    int n = tc_help_options("report", o, 96);
    assert_true(n > 10);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        if (!strcmp(o[i].name, "--profile-a") || !strcmp(o[i].name, "--db") ||
            !strcmp(o[i].name, "-o") || !strcmp(o[i].name, "--output"))
            seen++, assert_int_equal(o[i].kind, TC_USAGE_FILE);
        if (!strcmp(o[i].name, "--force"))
            seen++, assert_int_equal(o[i].kind, TC_USAGE_FLAG);
        if (!strcmp(o[i].name, "--resamples"))
            seen++, assert_int_equal(o[i].kind, TC_USAGE_VALUE);
        for (int k = 0; k < i; k++)
            assert_string_not_equal(o[i].name, o[k].name);
    }
    assert_int_equal(seen, 6);
    assert_int_equal(tc_help_options("nosuch", o, 96), -1);
    assert_int_equal(tc_usage_kind_name(TC_USAGE_DIR)[0], 'd');
}

/* The help texts' shared parts: "@name" after an option becomes the
 * shared description (what follows it appended), wrapped at its column;
 * "@@name" a group of option lines aligned with the line above. */
static void help_text_expands_shared_parts(void **state)
{
    (void)state;
    const char text[] = "Usage: x\n\n  --seed S     @seed-boot\n  --db PATH    @db, here\n"
                        "  @@telemetry-sources\n  --x          @nosuch\n";
    size_t len;
    char *out = tc_usage_expand(text, sizeof text - 1, &len);
    assert_non_null(out);
    assert_int_equal(strlen(out), len);
    assert_non_null(strstr(out, "\n  --seed S     the bootstrap's seed (default 20261129)\n"));
    assert_non_null(strstr(out, "\n  --db PATH    the results database: an SQLite file or a "));
    assert_non_null(strstr(out, "\n               postgresql://USER@HOST/DBNAME"));
    assert_non_null(strstr(out, "truecost.db), here\n"));
    assert_non_null(strstr(out, "\n  --nvml-lib PATH  load NVML from PATH"));
    assert_non_null(strstr(out, "\n  --x          @nosuch\n")); /* unknown: as written */
    for (const char *l = out; *l; l = strchr(l, '\n') + 1) /* 79 columns at most */
        assert_true(strcspn(l, "\n") <= 79);
    free(out);
}

static void run_checks_open_loop_options(void **state)
{
    (void)state;
    static const struct {
        const char *args[4];
        int n;
        const char *want;
    } bad[] = {
        {{"--rate", "0"},
         2,
         "truecost: run: --rate 0: expected a number above 0 and at most 1e+06, e.g. --rate 10\n"},
        {{"--rate", "-3"}, 2, "--rate -3: expected a number above 0"},
        {{"--rate", "fast"}, 2, "--rate: 'fast' is not a number"},
        {{"--rate", "5", "--burstiness", "0"}, 4, "--burstiness 0: expected a number above 0"},
        {{"--rate", "5", "--arrival", "uniform"},
         4,
         "truecost: run: --arrival 'uniform': expected poisson, constant or gamma\n"},
        {{"--rate", "5", "--arrival", "closed"}, 4, "--arrival 'closed': expected"},
        {{"--rate", "5", "--burstiness", "0.5"}, 4, "give --arrival gamma too"},
        {{"--arrival", "poisson"}, 2, "--arrival needs --rate"},
        {{"--burstiness", "2"}, 2, "--burstiness needs --rate and --arrival gamma"},
        {{"--max-concurrency", "4"}, 2, "--max-concurrency caps an open loop and needs --rate"},
        {{"--rate", "5", "-c", "4"}, 4, "with --rate, cap them with --max-concurrency"},
        {{"--rate", "5", "--max-concurrency", "0"}, 4, "--max-concurrency"},
        {{"--seed", "-1"}, 2, "--seed"},
    };
    run_args a;
    char err[512];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse_run(bad[i].args, bad[i].n, &a, err, sizeof err), -1);
        if (!strstr(err, bad[i].want))
            fail_msg("case %zu: '%s' does not say '%s'", i, err, bad[i].want);
    }
    const char *closed[] = {"http://127.0.0.1:1"};
    assert_int_equal(parse_run(closed, 1, &a, err, sizeof err), 0);
    assert_true(a.rate == 0 && a.arrival_kind == TC_ARRIVAL_CLOSED && a.concurrency == 1);
    const char *poisson[] = {"--rate", "2.5"};
    assert_int_equal(parse_run(poisson, 2, &a, err, sizeof err), 0);
    assert_true(a.rate == 2.5 && a.arrival_kind == TC_ARRIVAL_POISSON && a.seed == 0);
    assert_int_equal(a.max_concurrency, 0);
    const char *gamma[] = {"--rate", "9",  "--arrival",         "gamma",
                           "--seed", "77", "--max-concurrency", "3"};
    assert_int_equal(parse_run(gamma, 8, &a, err, sizeof err), 0);
    assert_true(a.arrival_kind == TC_ARRIVAL_GAMMA && a.burstiness == 1); /* vLLM's default */
    assert_true(a.seed == 77 && a.max_concurrency == 3);
    const char *bursty[] = {"--rate=9", "--arrival=gamma", "--burstiness=0.25"};
    assert_int_equal(parse_run(bursty, 3, &a, err, sizeof err), 0);
    assert_true(a.burstiness == 0.25);
    assert_string_equal(err, "");
}

static int seen_calls;
static int count_call(const char *value, void *ctx)
{
    (void)ctx;
    seen_calls++;
    return value && strcmp(value, "bad") == 0 ? -1 : 0;
}

/* The shared option table: values land where the table says, ranges are
 * checked, positionals are counted and capped, unknown options refused. */
static void parses_option_tables(void **state)
{
    (void)state;
    const char *db = NULL, *pos[2] = {NULL, NULL};
    int json = 0;
    long long n = 0;
    double rate = 0;
    const tc_cli_opt opts[] = {
        TC_OPT_S("db", 0, &db),
        TC_OPT_F("json", 0, &json),
        TC_OPT_I("count", 'n', &n, 1, 10),
        TC_OPT_D("rate", 0, &rate, 0, 1),
        TC_OPT_C("fault", 0, count_call, 1),
        TC_OPT_END,
    };
    char *ok[] = {"x", "A",          "--db",    "f.db", "-n",      "7", "--json",
                  "B", "--rate=0.5", "--fault", "a",    "--fault", "b", NULL};
    seen_calls = 0;
    assert_int_equal(tc_cli_parse("x", 13, ok, opts, NULL, pos, 2, NULL), 2);
    assert_string_equal(db, "f.db");
    assert_int_equal(json, 1);
    assert_int_equal(n, 7);
    assert_true(rate == 0.5);
    assert_int_equal(seen_calls, 2);
    assert_string_equal(pos[0], "A");
    assert_string_equal(pos[1], "B");

    char *too_many[] = {"x", "A", "B", "C", NULL};
    assert_int_equal(tc_cli_parse("x", 4, too_many, opts, NULL, pos, 2, NULL), -1);
    char *out_of_range[] = {"x", "-n", "11", NULL};
    assert_int_equal(tc_cli_parse("x", 3, out_of_range, opts, NULL, pos, 2, NULL), -1);
    char *unknown[] = {"x", "--nope", NULL};
    assert_int_equal(tc_cli_parse("x", 2, unknown, opts, NULL, pos, 2, NULL), -1);
    char *missing[] = {"x", "--db", NULL};
    assert_int_equal(tc_cli_parse("x", 2, missing, opts, NULL, pos, 2, NULL), -1);
    char *refused[] = {"x", "--fault", "bad", NULL};
    assert_int_equal(tc_cli_parse("x", 3, refused, opts, NULL, pos, 2, NULL), -1);
    /* --help is main's, for every command, anywhere before "--"; to the
     * table it is an unknown option. */
    char *helped[] = {"x", "--db", "f", "--help", NULL};
    assert_true(tc_cli_wants_help(4, helped));
    char *short_help[] = {"x", "-h", NULL};
    assert_true(tc_cli_wants_help(2, short_help));
    char *after_dashes[] = {"x", "--", "cmd", "--help", NULL};
    assert_false(tc_cli_wants_help(4, after_dashes));
    char *plain[] = {"x", "--db", "f", NULL};
    assert_false(tc_cli_wants_help(3, plain));
    assert_int_equal(
        tc_cli_parse("x", 2, (char *[]){"x", "--help", NULL}, opts, NULL, pos, 2, NULL), -1);

    /* whole-number bounds are exact up to LLONG_MAX (a double bound is not) */
    long long seed = 0;
    const tc_cli_opt seeds[] = {TC_OPT_I("seed", 0, &seed, 0, LLONG_MAX), TC_OPT_END};
    char *big[] = {"x", "--seed", "9223372036854775807", NULL};
    assert_int_equal(tc_cli_parse("x", 3, big, seeds, NULL, pos, 0, NULL), 0);
    assert_true(seed == LLONG_MAX);
}

/* The command line stored with a run and shown in a report: as a shell
 * takes it back, never a password. */
static void command_line_quoted_and_redacted(void **state)
{
    (void)state;
    char *argv[] = {"truecost",
                    "run",
                    "http://bob:hunter2@gpu-box:8000",
                    "--db=postgresql://tc:s3cret@db/runs?sslmode=require",
                    "--db",
                    "postgresql://db/runs?password=s3cret&sslmode=require",
                    "--prompt",
                    "it's a test",
                    "--label",
                    "nv-h100",
                    NULL};
    tc_app_set_command_line(10, argv);
    const char *c = tc_app_command_line();
    assert_null(strstr(c, "hunter2"));
    assert_null(strstr(c, "s3cret"));
    assert_string_equal(c, "truecost run 'http://bob:***@gpu-box:8000' "
                           "'--db=postgresql://tc:***@db/runs?sslmode=require' --db "
                           "'postgresql://db/runs?password=***&sslmode=require' --prompt "
                           "'it'\\''s a test' --label nv-h100");
}

/* soak --resume takes a stored line back into its words: every word as
 * given (quotes, spaces, empty), a password as "***"; a line cut to fit,
 * or one that does not split, is said so. */
static void command_line_reads_back(void **state)
{
    (void)state;
    char *argv[] = {"truecost",
                    "soak",
                    "http://bob:hunter2@gpu-box:8000",
                    "--prompt",
                    "it's 'quoted' a b",
                    "",
                    "--label",
                    "nv-h100",
                    NULL};
    tc_app_set_command_line(8, argv);
    assert_true(tc_app_command_line_whole());
    char *w[16], buf[512];
    assert_int_equal(tc_cmdline_words(tc_app_command_line(), w, 16, buf, sizeof buf), 8);
    assert_string_equal(w[2], "http://bob:***@gpu-box:8000");
    for (int i = 0; i < 8; i++)
        if (i != 2)
            assert_string_equal(w[i], argv[i]);
    /* no room: fewer words or bytes than the line has */
    assert_int_equal(tc_cmdline_words(tc_app_command_line(), w, 4, buf, sizeof buf), -1);
    assert_int_equal(tc_cmdline_words(tc_app_command_line(), w, 16, buf, 20), -1);
    assert_int_equal(tc_cmdline_words("truecost soak 'open", w, 16, buf, sizeof buf), -1);
    assert_int_equal(tc_cmdline_words("", w, 16, buf, sizeof buf), 0);

    static char long_word[3000];
    memset(long_word, 'x', sizeof long_word - 1);
    char *too_long[] = {"truecost", "soak", long_word, NULL};
    tc_app_set_command_line(3, too_long);
    assert_false(tc_app_command_line_whole());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(suggests_close_commands),
        cmocka_unit_test(parses_numbers_strictly),
        cmocka_unit_test(parses_listen_addresses),
        cmocka_unit_test(run_refuses_empty_label),
        cmocka_unit_test(run_checks_api_name),
        cmocka_unit_test(run_workload_shapes),
        cmocka_unit_test(parses_option_tables),
        cmocka_unit_test(help_text_options),
        cmocka_unit_test(help_text_expands_shared_parts),
        cmocka_unit_test(run_checks_open_loop_options),
        cmocka_unit_test(command_line_quoted_and_redacted),
        cmocka_unit_test(command_line_reads_back),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
