/* truecost run: its help and command line. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_results.h"
#include "cli_run.h"
#include "telemetry/telem_set.h"

void tc_cmd_run_help(FILE *out)
{
    fputs("Usage: truecost run [URL] [OPTIONS]\n"
          "\n"
          "Measure an inference endpoint: send a fixed workload, time every chunk, store\n"
          "every request, print TTFT, ITL, TPOT, E2E percentiles and throughput.\n"
          "Without URL, the usual local servers are tried on 127.0.0.1 (Ollama 11434,\n"
          "vLLM 8000, llama.cpp 8080, SGLang 30000).\n"
          "\n"
          "Options:\n"
          "  --model M            model to use (default: the server's only model)\n"
          "  --api KIND           auto, ollama, ollama-chat, openai, openai-chat, llamacpp\n"
          "                       (default auto: detected from the server)\n"
          "  -n, --requests N     measured requests (default 20)\n"
          "  --duration SECONDS   send for this long instead, then let in-flight finish\n"
          "  --warmup N           warm-up requests first, stored but left out of every\n"
          "                       figure (default 1)\n"
          "  -c, --concurrency N  requests in flight at once (default 1)\n"
          "  --max-tokens N       token limit per request (default 128)\n"
          "  --prompt TEXT        the prompt (default: the seeds' recipe prompt)\n"
          "  --prompts FILE       prompts, one per line, or JSONL {\"prompt\"|\"messages\",\n"
          "                       \"max_tokens\"}; requests cycle through them in order\n"
          "  --label NAME         a name for the run (for show/export)\n"
          "  --repeat K           run the workload K times as one group named by --label\n"
          "                       (default: repeat-DATE-TIME); 'show', 'cost' and\n"
          "                       'compare' take the group name; its throughput spread\n"
          "                       is flagged when the CV is over 3%\n"
          "  --db PATH            results database (default $TRUECOST_DB, else\n"
          "                       $XDG_DATA_HOME/truecost/truecost.db, else\n"
          "                       ~/.local/share/truecost/truecost.db)\n"
          "  --json               print the summary as one JSON document on stdout\n"
          "  --no-progress        no progress line on stderr\n"
          "  --api-key-env VAR    send $VAR as a Bearer token (default: OPENAI_API_KEY, to\n"
          "                       non-local https hosts only); never stored or printed\n"
          "  --timeout SECONDS    per request (default 300)\n"
          "  --max-error-rate F   exit 3 when more than this fraction failed (default 0.05)\n"
          "  --telemetry SOURCE   auto (default: every GPU/CPU sensor found), none, nvml,\n"
          "                       rocm, amdgpu, rapl, nvidia-smi or rocm-smi; samples\n"
          "                       are stored with the run\n"
          "  --sample-ms MS       telemetry interval, 10 to 60000 (default 100)\n"
          "  --idle-s SECONDS     sample this long before the load for the idle baseline\n"
          "  --sysfs-root DIR     read sysfs from DIR (tests, containers)\n"
          "  --nvml-lib PATH      load NVML from PATH instead of libnvidia-ml.so.1\n"
          "  --rocm-lib PATH      load ROCm SMI from PATH instead of librocm_smi64.so\n"
          "  --nvidia-smi CMD, --rocm-smi CMD   the fallback commands (default: on PATH)\n"
          "\n"
          "Temperature is 0. Ctrl-C stops sending, gives in-flight requests a second,\n"
          "saves and marks the run 'interrupted' (requests still in flight then are kept\n"
          "as failed with kind 'interrupted'); a second Ctrl-C exits at once with what\n"
          "was saved. SIGTERM does the same.\n"
          "\n"
          "Exit status: 0 success; 1 usage error; 2 endpoint unreachable, not an\n"
          "inference server, the database unusable, or a named --telemetry source not\n"
          "available (the run is stored as failed); 3 completed but the error rate\n"
          "was above --max-error-rate; 130 interrupted by Ctrl-C (143 by SIGTERM).\n",
          out);
}

enum {
    OPT_MODEL = 256,
    OPT_API,
    OPT_DURATION,
    OPT_WARMUP,
    OPT_MAX_TOKENS,
    OPT_PROMPT,
    OPT_PROMPTS,
    OPT_LABEL,
    OPT_DB,
    OPT_JSON,
    OPT_NO_PROGRESS,
    OPT_KEY_ENV,
    OPT_TIMEOUT,
    OPT_MAX_ERR,
    OPT_TELEMETRY,
    OPT_SAMPLE_MS,
    OPT_IDLE_S,
    OPT_REPEAT
};

static const struct option options[] = {
    {"model", required_argument, NULL, OPT_MODEL},
    {"api", required_argument, NULL, OPT_API},
    {"requests", required_argument, NULL, 'n'},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"warmup", required_argument, NULL, OPT_WARMUP},
    {"concurrency", required_argument, NULL, 'c'},
    {"max-tokens", required_argument, NULL, OPT_MAX_TOKENS},
    {"prompt", required_argument, NULL, OPT_PROMPT},
    {"prompts", required_argument, NULL, OPT_PROMPTS},
    {"label", required_argument, NULL, OPT_LABEL},
    {"db", required_argument, NULL, OPT_DB},
    {"json", no_argument, NULL, OPT_JSON},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"api-key-env", required_argument, NULL, OPT_KEY_ENV},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"max-error-rate", required_argument, NULL, OPT_MAX_ERR},
    {"telemetry", required_argument, NULL, OPT_TELEMETRY},
    {"sample-ms", required_argument, NULL, OPT_SAMPLE_MS},
    {"idle-s", required_argument, NULL, OPT_IDLE_S},
    {"repeat", required_argument, NULL, OPT_REPEAT},
    TC_CLI_TELEM_OPTIONS,
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int apply(run_args *a, int opt, const char *v)
{
    switch (opt) {
    case OPT_MODEL:
        a->model = v;
        return 0;
    case OPT_API:
        a->api = v;
        return 0;
    case 'n':
        a->requests_given = 1;
        return tc_cli_int("--requests", v, 1, 100000000, &a->requests);
    case OPT_DURATION:
        return tc_cli_double("--duration", v, 0.001, 30 * 86400.0, &a->duration_s);
    case OPT_WARMUP:
        return tc_cli_int("--warmup", v, 0, 1000000, &a->warmup);
    case 'c':
        return tc_cli_int("--concurrency", v, 1, 10000, &a->concurrency);
    case OPT_MAX_TOKENS:
        return tc_cli_int("--max-tokens", v, 1, 1000000, &a->max_tokens);
    case OPT_PROMPT:
        a->prompt = v;
        return 0;
    case OPT_PROMPTS:
        a->prompts_file = v;
        return 0;
    case OPT_LABEL:
        a->label = v;
        return 0;
    case OPT_DB:
        a->db = v;
        return 0;
    case OPT_JSON:
        a->json = 1;
        return 0;
    case OPT_NO_PROGRESS:
        a->no_progress = 1;
        return 0;
    case OPT_KEY_ENV:
        a->key_env = v;
        return 0;
    case OPT_TIMEOUT:
        return tc_cli_double("--timeout", v, 0.001, 86400.0, &a->timeout_s);
    case OPT_MAX_ERR:
        return tc_cli_double("--max-error-rate", v, 0, 1, &a->max_error_rate);
    case OPT_TELEMETRY:
        a->telemetry = v;
        return 0;
    case OPT_SAMPLE_MS:
        return tc_cli_int("--sample-ms", v, 10, 60000, &a->sample_ms);
    case OPT_IDLE_S:
        return tc_cli_double("--idle-s", v, 0, 3600, &a->idle_s);
    case OPT_REPEAT:
        return tc_cli_int("--repeat", v, 1, 1000, &a->repeat);
    case 'h':
        a->help = 1;
        return 0;
    }
    const char **slot = tc_cli_telem_slot(opt, &a->telem);
    if (!slot)
        return -1;
    *slot = v;
    return 0;
}

/* --api is checked before anything is probed, so a typo is a usage error
 * rather than whatever the probe of the URL says. The list is built from
 * the API names so it cannot fall behind them. */
static int check_api(const char *name)
{
    tc_api api;
    if (!strcmp(name, "auto") || tc_api_parse(name, &api) == 0)
        return 0;
    char valid[160] = "auto";
    size_t n = strlen(valid);
    for (int i = 0; i < TC_API_COUNT && n < sizeof valid; i++)
        n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%s",
                              i == TC_API_COUNT - 1 ? " or " : ", ", tc_api_name((tc_api)i));
    tc_cli_error("run: --api '%s': expected %s", name, valid);
    return -1;
}

int tc_run_parse_args(int argc, char **argv, run_args *a)
{
    *a = (run_args){.requests = 20,
                    .warmup = 1,
                    .concurrency = 1,
                    .max_tokens = 128,
                    .timeout_s = 300,
                    .max_error_rate = 0.05,
                    .telemetry = "auto",
                    .sample_ms = 100,
                    .repeat = 1};
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "n:c:h", options, NULL)) != -1) {
        if (opt == '?') {
            tc_cli_error("run: unknown or incomplete option '%s'", argv[optind - 1]);
            return -1;
        }
        if (apply(a, opt, optarg) < 0)
            return -1;
    }
    if (optind < argc)
        a->url = argv[optind++];
    if (optind < argc) {
        tc_cli_error("run: unexpected argument '%s' (one URL at most)", argv[optind]);
        return -1;
    }
    int known = !strcmp(a->telemetry, "auto") || !strcmp(a->telemetry, "none");
    for (int i = 0; !known && tc_telem_backend_names[i]; i++)
        known = !strcmp(a->telemetry, tc_telem_backend_names[i]);
    if (!known) { /* checked before anything is probed or stored */
        tc_cli_error("run: --telemetry '%s': expected auto, none or a source name (see "
                     "truecost monitor --help)",
                     a->telemetry);
        return -1;
    }
    if (a->requests_given && a->duration_s > 0) {
        tc_cli_error("run: give -n or --duration, not both");
        return -1;
    }
    if (a->prompt && a->prompts_file) {
        tc_cli_error("run: give --prompt or --prompts, not both");
        return -1;
    }
    if (a->api && check_api(a->api) < 0)
        return -1;
    if (a->label && !a->label[0]) { /* else the all-digits check below would catch it */
        tc_cli_error("run: --label: empty; give a name, e.g. --label h100-baseline");
        return -1;
    }
    if (a->label && strlen(a->label) >= sizeof((tc_run_info *)0)->label) {
        tc_cli_error("run: --label is longer than 127 bytes");
        return -1;
    }
    if (a->label && a->label[strspn(a->label, "0123456789")] == '\0') {
        tc_cli_error("run: --label '%s': a label cannot be all digits (show and export would "
                     "read it as a run id); add a letter, e.g. 'run-%s'",
                     a->label, a->label);
        return -1;
    }
    return 0;
}
