/* truecost env: print the fingerprint of this host (and of the inference
 * server, when there is one), or the differences between two saved ones. */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "cli.h"
#include "cli_results.h"
#include "cli_env.h"
#include "envinfo/env_fingerprint.h"
#include "analysis/env_diff.h"

void tc_cmd_env_help(FILE *out)
{
    fputs("Usage: truecost env [URL] [--json] [--root DIR] [--model NAME]\n"
          "       truecost env --diff A B [--db PATH]   (files or stored runs)\n"
          "\n"
          "Print what outside the workload changes a result: OS, kernel, virtualisation\n"
          "(VM, container, WSL2), CPU, memory, the disk holding the model store, each GPU\n"
          "with its driver, CUDA/ROCm version and power limit, the inference server with\n"
          "its version and model (family, parameters, quantisation, context length), and\n"
          "truecost's own build. What cannot be read is shown as n/a (null in JSON).\n"
          "\n"
          "Without URL, the usual local servers (Ollama :11434, vLLM :8000, llama.cpp\n"
          ":8080, SGLang :30000) are tried, unless --root or --no-server is given.\n"
          "\n"
          "Options:\n"
          "  --json              print the fingerprint as JSON (the form --diff reads)\n"
          "  --diff A B          compare two fingerprints and name each difference that\n"
          "                      makes their runs unfair to compare; A and B are files\n"
          "                      saved with --json, or stored runs (id or label; --db)\n"
          "  --db PATH           the results database for --diff of runs\n"
          "  --model NAME        the model to describe (default: the loaded one, else the\n"
          "                      only one)\n"
          "  --root DIR          read files under DIR instead of / (a copied tree, tests);\n"
          "                      GPU sensors are then not asked unless --telemetry is given\n"
          "  --model-store PATH  the path whose disk is described (default ~/.ollama, else /)\n"
          "  --no-server         do not look for a local inference server\n"
          "  --api-key-env VAR   send $VAR as a Bearer token to the server\n"
          "  --telemetry SOURCE  GPU source: auto, none, nvml, rocm, amdgpu, nvidia-smi,\n"
          "                      rocm-smi (default auto; none with --root)\n"
          "  --sysfs-root DIR, --nvml-lib PATH, --rocm-lib PATH, --nvidia-smi CMD,\n"
          "  --rocm-smi CMD      where the telemetry sources read (as in truecost monitor)\n"
          "\n"
          "Exit status: 0 success (--diff: no difference); 1 usage error; 2 the server at\n"
          "URL does not answer or lacks --model, or a --diff file cannot be read;\n"
          "3 --diff found differences.\n",
          out);
}

enum {
    OPT_JSON = 256,
    OPT_DIFF,
    OPT_DB,
    OPT_MODEL,
    OPT_ROOT,
    OPT_STORE,
    OPT_NO_SERVER,
    OPT_KEY_ENV,
    OPT_TELEM,
};

static const struct option options[] = {
    {"json", no_argument, NULL, OPT_JSON},
    {"diff", no_argument, NULL, OPT_DIFF},
    {"db", required_argument, NULL, OPT_DB},
    {"model", required_argument, NULL, OPT_MODEL},
    {"root", required_argument, NULL, OPT_ROOT},
    {"model-store", required_argument, NULL, OPT_STORE},
    {"no-server", no_argument, NULL, OPT_NO_SERVER},
    {"api-key-env", required_argument, NULL, OPT_KEY_ENV},
    {"telemetry", required_argument, NULL, OPT_TELEM},
    TC_CLI_TELEM_OPTIONS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct env_args {
    tc_env_config cfg;
    int json, diff, help, no_server;
    const char *db; /* --diff of stored runs: the results database */
    const char *key_env;
    const char *files[2];
} env_args;

/* Options that only set a string field of the config. */
static const char **string_option(env_args *a, int opt)
{
    switch (opt) {
    case OPT_MODEL:
        return &a->cfg.model;
    case OPT_ROOT:
        return &a->cfg.root;
    case OPT_STORE:
        return &a->cfg.model_store;
    case OPT_KEY_ENV:
        return &a->key_env;
    case OPT_TELEM:
        return &a->cfg.telemetry;
    }
    return tc_cli_telem_slot(opt, &a->cfg.telem);
}

static int positionals(int argc, char **argv, env_args *a)
{
    int n = argc - optind;
    if (a->diff) {
        if (n != 2) {
            tc_cli_error("env: --diff takes two fingerprint files, A.json B.json");
            return -1;
        }
        a->files[0] = argv[optind];
        a->files[1] = argv[optind + 1];
        return 0;
    }
    if (n > 1) {
        tc_cli_error("env: unexpected argument '%s'", argv[optind + 1]);
        return -1;
    }
    a->cfg.url = n == 1 ? argv[optind] : NULL;
    return 0;
}

static int parse(int argc, char **argv, env_args *a)
{
    memset(a, 0, sizeof *a);
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        const char **field = string_option(a, opt);
        if (field)
            *field = optarg;
        else if (opt == OPT_JSON)
            a->json = 1;
        else if (opt == OPT_DIFF)
            a->diff = 1;
        else if (opt == OPT_DB)
            a->db = optarg;
        else if (opt == OPT_NO_SERVER)
            a->no_server = 1;
        else if (opt == 'h')
            a->help = 1;
        else {
            tc_cli_error("env: unknown or incomplete option '%s'", argv[optind - 1]);
            return -1;
        }
    }
    if (positionals(argc, argv, a) < 0)
        return -1;
    a->cfg.find_local = !a->cfg.url && !a->cfg.root && !a->no_server;
    if (a->key_env) {
        a->cfg.api_key = getenv(a->key_env);
        if (!a->cfg.api_key || !*a->cfg.api_key) {
            tc_cli_error("env: --api-key-env %s: the variable is not set or empty", a->key_env);
            return -1;
        }
    }
    return 0;
}

/* ---- --diff ----------------------------------------------------------------- */

/* The fingerprint stored with run `which` (an id or a label). */
static json_t *load_run(const char *db, const char *which)
{
    tc_store *st = NULL;
    tc_run_info run;
    char *text = NULL, err[512];
    json_t *doc = NULL;
    if (tc_cli_open_store(db, TC_STORE_READ, &st))
        return NULL;
    if (tc_store_find_run(st, which, &run, err, sizeof err) != TC_OK ||
        tc_store_get_fingerprint(st, run.id, &text, err, sizeof err) != TC_OK)
        tc_cli_error("env: --diff: %s", err);
    else if (!text)
        tc_cli_error("env: --diff: run %s has no recorded environment (it was made before "
                     "truecost recorded one)",
                     which);
    else if (!(doc = json_loads(text, 0, NULL)))
        tc_cli_error("env: --diff: run %s: the stored environment is not valid JSON", which);
    free(text);
    tc_store_close(st);
    return doc;
}

/* A fingerprint file saved with --json, or else a stored run's id/label. */
static json_t *load(const char *path, const char *db)
{
    if (access(path, F_OK) != 0)
        return load_run(db, path);
    json_error_t e;
    json_t *doc = json_load_file(path, 0, &e);
    if (!doc)
        tc_cli_error("env: %s: line %d: %s (expected a fingerprint saved with "
                     "'truecost env --json > FILE')",
                     path, e.line, e.text);
    else if (!json_is_object(doc)) {
        tc_cli_error("env: %s: not a fingerprint (a JSON object from 'truecost env --json')", path);
        json_decref(doc);
        doc = NULL;
    }
    return doc;
}

static void print_value(json_t *v)
{
    char *text = json_is_string(v) ? NULL : json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    fputs(json_is_string(v) ? json_string_value(v)
          : json_is_null(v) ? "n/a"
          : text            ? text
                            : "?",
          stdout);
    free(text);
}

static int print_diff(json_t *list, const char *fa, const char *fb)
{
    size_t i;
    json_t *d;
    if (json_array_size(list) == 0) {
        printf("no differences that matter between %s and %s\n", fa, fb);
        return TC_EXIT_OK;
    }
    printf("%zu difference%s between A=%s and B=%s:\n", json_array_size(list),
           json_array_size(list) == 1 ? "" : "s", fa, fb);
    json_array_foreach(list, i, d)
    {
        printf("  %s: A ", json_string_value(json_object_get(d, "field")));
        print_value(json_object_get(d, "a"));
        fputs(", B ", stdout);
        print_value(json_object_get(d, "b"));
        printf("\n    %s\n", json_string_value(json_object_get(d, "why")));
    }
    return TC_EXIT_CHECK;
}

static int run_diff(const env_args *a)
{
    int code = TC_EXIT_RUNTIME;
    json_t *list = NULL, *fb = NULL, *fa = load(a->files[0], a->db);
    if (!fa || !(fb = load(a->files[1], a->db)))
        goto done;
    if (tc_env_diff(fa, fb, &list) != TC_OK) {
        tc_cli_error("env: --diff: out of memory");
        goto done;
    }
    if (a->json) {
        json_dumpf(list, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
        code = json_array_size(list) ? TC_EXIT_CHECK : TC_EXIT_OK;
    } else {
        code = print_diff(list, a->files[0], a->files[1]);
    }
done:
    json_decref(list);
    json_decref(fa);
    json_decref(fb);
    return code;
}

int tc_cmd_env(int argc, char **argv)
{
    env_args a;
    if (parse(argc, argv, &a) < 0)
        return tc_cli_usage_hint("env");
    if (a.help) {
        tc_cmd_env_help(stdout);
        return TC_EXIT_OK;
    }
    if (a.diff)
        return run_diff(&a);
    char err[1024] = "";
    json_t *fp = NULL;
    tc_err rc = tc_env_collect(&a.cfg, &fp, err, sizeof err);
    if (rc != TC_OK) {
        tc_cli_error("env: %s", err[0] ? err : tc_strerror(rc));
        return TC_EXIT_RUNTIME;
    }
    if (a.json) {
        json_dumpf(fp, stdout, JSON_INDENT(2));
        fputc('\n', stdout);
    } else {
        tc_cli_env_print(fp, stdout);
    }
    json_decref(fp);
    return TC_EXIT_OK;
}
