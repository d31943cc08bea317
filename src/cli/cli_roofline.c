/* truecost roofline: how close a stored run's single-stream decode came to
 * the bandwidth bound of its GPU, and the prefill bound; computed on read,
 * so a corrected spec table applies to old runs. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/roofline.h"
#include "analysis/run_metrics.h"
#include "cli.h"
#include "cli_results.h"
#include "cli_roofline.h"
#include "report/report_json.h"

typedef struct roof_args {
    const char *run, *gpu, *specs, *db;
    double model_bytes, params, kv_bytes;
    int json, list, help;
} roof_args;

/* What the run gives besides its fingerprint. */
typedef struct roof_run {
    char device[128]; /* first GPU the run sampled; "" = none */
    double decode_p50;
    size_t decode_n;
    char *fingerprint; /* malloc()ed; NULL = none */
} roof_run;

void tc_cmd_roofline_help(FILE *out)
{
    fputs("Usage: truecost roofline RUN [--gpu NAME] [--gpu-specs FILE] [--model-bytes N]\n"
          "                         [--params N] [--kv-bytes N] [--json] [--db PATH]\n"
          "       truecost roofline --list [--gpu-specs FILE] [--json]\n"
          "\n"
          "The bandwidth ceiling of a stored run (id or label): one stream cannot decode\n"
          "faster than the GPU's memory bandwidth over the bytes it reads per token\n"
          "(the weights, plus the KV cache when --kv-bytes gives it), nor prefill faster\n"
          "than the dense FP16 peak over 2 x parameters FLOPs per token. The run's median\n"
          "decode tokens/s is shown as a percentage of the decode ceiling: well-tuned\n"
          "engines reach 60-85%, so a low figure points at the software, not the card.\n"
          "\n"
          "  --gpu NAME          the GPU, as a device name or a table row's name (default:\n"
          "                      the first GPU the run sampled, else its fingerprint's)\n"
          "  --gpu-specs FILE    more GPU rows (CSV, the columns of --list); yours win\n"
          "  --model-bytes N     weight bytes read per token (default: the server's\n"
          "                      parameter count x the quantisation's bits per weight)\n"
          "  --params N          parameter count, e.g. 8.0B or 8030261248\n"
          "  --kv-bytes N        KV-cache bytes read per generated token (default: 0)\n"
          "  --list              print the GPU table with its sources\n"
          "  --json              one JSON document on stdout\n"
          "  --db PATH           the results database\n"
          "\n"
          "Exit status: 0 done, 1 usage or bad --gpu-specs file, 2 run or database not\n"
          "found, or no ceiling (no GPU known, GPU not in the table, no model size).\n",
          out);
}

enum { OPT_DB = 256, OPT_JSON, OPT_GPU, OPT_SPECS, OPT_BYTES, OPT_PARAMS, OPT_KV, OPT_LIST };

static const struct option options[] = {
    {"db", required_argument, NULL, OPT_DB},
    {"json", no_argument, NULL, OPT_JSON},
    {"gpu", required_argument, NULL, OPT_GPU},
    {"gpu-specs", required_argument, NULL, OPT_SPECS},
    {"model-bytes", required_argument, NULL, OPT_BYTES},
    {"params", required_argument, NULL, OPT_PARAMS},
    {"kv-bytes", required_argument, NULL, OPT_KV},
    {"list", no_argument, NULL, OPT_LIST},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int parse_params_opt(const char *text, double *out)
{
    if (tc_roofline_parse_params(text, out) == TC_OK)
        return 0;
    tc_cli_error("roofline: --params: '%s' is not a parameter count (e.g. 8B, 135M, 8030261248)",
                 text);
    return -1;
}

static int take_option(int opt, roof_args *a)
{
    switch (opt) {
    case OPT_DB:
        a->db = optarg;
        return 0;
    case OPT_JSON:
        a->json = 1;
        return 0;
    case OPT_GPU:
        a->gpu = optarg;
        return 0;
    case OPT_SPECS:
        a->specs = optarg;
        return 0;
    case OPT_BYTES:
        return tc_cli_double("--model-bytes", optarg, 1, 1e15, &a->model_bytes);
    case OPT_PARAMS:
        return parse_params_opt(optarg, &a->params);
    case OPT_KV:
        return tc_cli_double("--kv-bytes", optarg, 0, 1e15, &a->kv_bytes);
    case OPT_LIST:
        a->list = 1;
        return 0;
    case 'h':
        a->help = 1;
        return 0;
    }
    return -2;
}

static int parse_args(int argc, char **argv, roof_args *a)
{
    memset(a, 0, sizeof *a);
    optind = 1;
    opterr = 0;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
        int rc = take_option(opt, a);
        if (rc == -2)
            tc_cli_error("roofline: unknown or incomplete option '%s'", argv[optind - 1]);
        if (rc < 0)
            return -1;
    }
    if (optind < argc)
        a->run = argv[optind++];
    if (optind < argc) {
        tc_cli_error("roofline: unexpected argument '%s'", argv[optind]);
        return -1;
    }
    if (a->help)
        return 0;
    if (a->list && a->run) {
        tc_cli_error("roofline: --list takes no run");
        return -1;
    }
    if (!a->list && !a->run) {
        tc_cli_error("roofline: which run? give its id or label (see 'truecost runs'), or --list");
        return -1;
    }
    return 0;
}

/* The user's rows first, so that they win, then the built-in ones. */
int tc_cli_roofline_table_load(const char *specs, tc_roofline_table *t)
{
    char err[1024];
    if (specs && tc_roofline_table_add_file(t, specs, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        return TC_EXIT_USAGE;
    }
    if (tc_roofline_table_add_builtin(t, err, sizeof err) != TC_OK) {
        tc_cli_error("the built-in GPU table: %s", err);
        return TC_EXIT_RUNTIME;
    }
    return 0;
}

/* ---- --list ------------------------------------------------------------- */

static json_t *num_or_null(double v)
{
    return v > 0 && isfinite(v) ? json_real(v) : json_null();
}

static void origin_of(const tc_gpu_spec *s, const char *specs, char *out, size_t len)
{
    if (s->builtin)
        snprintf(out, len, "built-in:%d", s->line);
    else
        snprintf(out, len, "%s:%d", specs ? specs : "--gpu-specs", s->line);
}

static json_t *spec_json(const tc_gpu_spec *s, const char *specs)
{
    char origin[1100];
    origin_of(s, specs, origin, sizeof origin);
    return json_pack("{s:o,s:o,s:o,s:f,s:o,s:o,s:o,s:o,s:o,s:o}", "name", tc_json_string(s->name),
                     "vendor", tc_json_string(s->vendor), "memory_gb", num_or_null(s->memory_gb),
                     "bandwidth_gb_s", s->bandwidth_gb_s, "fp16_dense_tflops",
                     num_or_null(s->fp16_dense_tflops), "board_power_w",
                     num_or_null(s->board_power_w), "launch_price_usd",
                     num_or_null(s->launch_price_usd), "match", tc_json_string(s->match), "source",
                     tc_json_string(s->source), "origin", tc_json_string(origin));
}

static void cell(double v, const char *fmt)
{
    if (v > 0)
        printf(fmt, v);
    else
        printf("%9s", "-");
}

static int print_list(const tc_roofline_table *t, const char *specs, int json)
{
    if (json) {
        json_t *rows = json_array();
        for (int i = 0; rows && i < t->n; i++)
            json_array_append_new(rows, spec_json(&t->rows[i], specs));
        char err[256];
        int bad = !rows || tc_json_dump(stdout, rows, err, sizeof err) != TC_OK;
        json_decref(rows);
        return bad ? TC_EXIT_RUNTIME : 0;
    }
    printf("%-18s %-7s %9s %9s %9s %9s %9s  %s\n", "NAME", "VENDOR", "MEM GB", "GB/s", "FP16 TF",
           "POWER W", "PRICE $", "MATCH");
    for (int i = 0; i < t->n; i++) {
        const tc_gpu_spec *s = &t->rows[i];
        char origin[1100];
        origin_of(s, specs, origin, sizeof origin);
        printf("%-18s %-7s", s->name, s->vendor);
        cell(s->memory_gb, " %8.0f");
        cell(s->bandwidth_gb_s, " %8.0f");
        cell(s->fp16_dense_tflops, " %8.1f");
        cell(s->board_power_w, " %8.0f");
        cell(s->launch_price_usd, " %8.0f");
        printf("  %s\n    source: %s (%s)\n", s->match, s->source[0] ? s->source : "none given",
               origin);
    }
    puts("FP16 TF is the dense tensor peak (not the sparse figure). A device name matches\n"
         "a row when it contains one of its patterns as a whole phrase (case aside) and\n"
         "none of its !patterns; the longest pattern wins, and --gpu-specs rows win first.");
    return 0;
}

/* ---- one run ------------------------------------------------------------ */

static int first_gpu(tc_store *st, int64_t id, roof_run *r)
{
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    int n = 0;
    size_t ns = 0;
    char err[512];
    if (tc_store_load_telemetry(st, id, &devs, &n, &samples, &ns, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        return TC_EXIT_RUNTIME;
    }
    for (int i = 0; i < n && !r->device[0]; i++)
        if (devs[i].info.kind == TC_TELEM_GPU)
            snprintf(r->device, sizeof r->device, "%s", devs[i].info.name);
    free(devs);
    free(samples);
    return 0;
}

/* The run's median client decode speed, first GPU and fingerprint. */
static int load_run(tc_store *st, const tc_run_info *run, roof_run *r)
{
    tc_req_record *recs = NULL;
    size_t n = 0;
    tc_run_metrics m;
    char err[512];
    memset(&m, 0, sizeof m);
    int code = TC_EXIT_RUNTIME;
    if (tc_store_load_requests(st, run->id, &recs, &n, err, sizeof err) != TC_OK ||
        tc_store_get_fingerprint(st, run->id, &r->fingerprint, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        goto out;
    }
    if (tc_run_metrics_compute(run, recs, n, &m) != TC_OK) {
        tc_cli_error("run %lld: out of memory computing its figures", (long long)run->id);
        goto out;
    }
    r->decode_n = m.decode_tps.n;
    r->decode_p50 = m.decode_tps.n ? m.decode_tps.p50 : 0;
    code = first_gpu(st, run->id, r);
out:
    tc_run_metrics_free(&m);
    tc_store_free_requests(recs, n);
    return code;
}

/* Says what stops the decode ceiling and which option gives it; 0 when
 * nothing does. */
static int explain_missing(const tc_roofline_result *r, const tc_run_info *run)
{
    if (r->missing & TC_ROOF_NEED_GPU) {
        tc_cli_error("roofline: run %lld recorded no GPU (no GPU telemetry, none in its "
                     "environment); name one with --gpu NAME (see 'truecost roofline --list')",
                     (long long)run->id);
        return TC_EXIT_RUNTIME;
    }
    if (r->missing & TC_ROOF_NEED_SPEC) {
        tc_cli_error("roofline: GPU '%s' is not in the table; add a row with --gpu-specs FILE or "
                     "pick one with --gpu NAME (see 'truecost roofline --list')",
                     r->gpu_name);
        return TC_EXIT_RUNTIME;
    }
    if (r->missing & TC_ROOF_NEED_BYTES) {
        tc_cli_error("roofline: run %lld has no model size (the server reported no parameter "
                     "count and known quantisation%s); give --model-bytes N",
                     (long long)run->id, r->quant[0] ? "" : ", as only Ollama does");
        return TC_EXIT_RUNTIME;
    }
    return 0;
}

static const char *prefill_why(unsigned missing)
{
    if (missing & TC_ROOF_NEED_FLOPS)
        return "the table has no dense FP16 figure for this GPU (add one with --gpu-specs)";
    if (missing & TC_ROOF_BAD_PARAMS)
        return "the server's parameter_size did not parse (give --params N)";
    return "no parameter count (give --params N)";
}

static json_t *model_json(const tc_roofline_result *r)
{
    return json_pack(
        "{s:o,s:o,s:o,s:o,s:f,s:s,s:o,s:f}", "parameters", num_or_null(r->params),
        "parameters_source", r->params_source ? json_string(r->params_source) : json_null(),
        "quantization", r->quant[0] ? json_string(r->quant) : json_null(), "bits_per_weight",
        num_or_null(r->bits_per_weight), "weight_bytes", r->weight_bytes, "weight_bytes_source",
        tc_roofline_bytes_source_name(r->bytes_source), "loaded_bytes",
        num_or_null(r->loaded_bytes), "kv_bytes_per_token", r->kv_bytes_per_token);
}

static json_t *result_json(const tc_run_info *run, const roof_run *rr, const tc_roofline_result *r,
                           const char *specs)
{
    json_t *doc = json_pack(
        "{s:I,s:o,s:b,s:i,s:{s:o,s:o},s:o,s:f,s:o,s:o,s:I,s:o,s:o,s:b}", "run_id",
        (json_int_t)run->id, "label", tc_json_string(run->label), "simulated", run->simulated,
        "concurrency", run->concurrency, "gpu", "device", tc_json_string(r->gpu_name), "spec",
        spec_json(&r->spec, specs), "model", model_json(r), "decode_ceiling_tokens_per_s",
        r->decode_ceiling_tps, "prefill_ceiling_tokens_per_s",
        r->has_prefill ? json_real(r->prefill_ceiling_tps) : json_null(),
        "measured_decode_tokens_per_s",
        r->has_measured ? json_real(r->measured_decode_tps) : json_null(), "measured_requests",
        (json_int_t)rr->decode_n, "percent_of_ceiling",
        r->has_measured ? json_real(r->percent_of_ceiling) : json_null(), "reading",
        r->has_measured && run->concurrency <= 1 ? json_string(tc_roofline_reading_text(r->reading))
                                                 : json_null(),
        "per_stream", run->concurrency > 1);
    if (doc && !r->has_prefill)
        json_object_set_new(doc, "prefill_note", json_string(prefill_why(r->missing)));
    return doc;
}

/* 8.03e9 -> "8.03B", as Ollama writes counts. */
static void print_count(double v)
{
    static const char units[] = " KMBT";
    int u = 0;
    while (v >= 1000 && u < 4) {
        v /= 1000;
        u++;
    }
    if (u)
        printf("%.3g%c", v, units[u]);
    else
        printf("%.0f", v);
}

static void print_model(const tc_roofline_result *r)
{
    if (r->params > 0) {
        printf("Model:   ");
        print_count(r->params);
        printf(" parameters (%s)", r->params_source);
    } else {
        printf("Model:   parameters unknown");
    }
    if (r->quant[0])
        printf(", %s%s", r->quant, r->bits_per_weight > 0 ? "" : " (bits per weight unknown)");
    if (r->bits_per_weight > 0)
        printf(" = %.3g bits per weight", r->bits_per_weight);
    printf("\n         weights %.4g GB read per token (%s)", r->weight_bytes / 1e9,
           tc_roofline_bytes_source_name(r->bytes_source));
    if (r->bytes_source == TC_ROOF_BYTES_LOADED)
        printf(": holds the KV cache and buffers too, so the ceiling below is low");
    if (r->kv_bytes_per_token > 0)
        printf(" + KV cache %.4g MB per token\n", r->kv_bytes_per_token / 1e6);
    else
        printf("; KV cache not counted (--kv-bytes)\n");
}

static void print_result(const tc_run_info *run, const roof_run *rr, const tc_roofline_result *r)
{
    const tc_gpu_spec *s = &r->spec;
    printf("%sBandwidth ceiling of run %lld (%s)\n", run->simulated ? "SIMULATED " : "",
           (long long)run->id, run->label[0] ? run->label : "no label");
    printf("GPU:     %s -> %s (%s, %.0f GB/s", r->gpu_name, s->name, s->vendor, s->bandwidth_gb_s);
    if (s->fp16_dense_tflops > 0)
        printf(", %.4g TFLOPS dense FP16", s->fp16_dense_tflops);
    printf(")\n         source: %s\n", s->source[0] ? s->source : "none given");
    print_model(r);
    printf("Decode ceiling, one stream: %10.1f tokens/s = %.0f GB/s / %.4g GB per token\n",
           r->decode_ceiling_tps, s->bandwidth_gb_s,
           (r->weight_bytes + r->kv_bytes_per_token) / 1e9);
    if (r->has_prefill)
        printf("Prefill ceiling:            %10.0f tokens/s = %.4g TFLOPS / (2 x %.4g FLOP)\n",
               r->prefill_ceiling_tps, s->fp16_dense_tflops, r->params);
    else
        printf("Prefill ceiling:            not available: %s\n", prefill_why(r->missing));
    if (r->has_measured)
        printf("Measured decode (median of %zu requests): %.1f tokens/s = %.0f%% of the "
               "bandwidth bound\n  %s\n",
               rr->decode_n, r->measured_decode_tps, r->percent_of_ceiling,
               run->concurrency > 1 ? "(no reading at concurrency > 1: measure with -c 1)"
                                    : tc_roofline_reading_text(r->reading));
    else
        puts("Measured decode: none (no completed request with 2 or more tokens)");
    if (r->moe_suspected && r->bytes_source != TC_ROOF_BYTES_GIVEN)
        puts("Note: a mixture-of-experts model reads only its active experts per token; the "
             "bound above counts all weights: give --model-bytes of the active ones.");
    if (run->concurrency > 1)
        printf("Note: the run had concurrency %d; the single-stream bound applies to each "
               "stream, and batching shares the weight reads between them.\n",
               run->concurrency);
}

static int report(const tc_run_info *run, const roof_run *rr, const tc_roofline_result *r,
                  const roof_args *a)
{
    int code = explain_missing(r, run);
    if (code)
        return code;
    if (!a->json) {
        print_result(run, rr, r);
        return 0;
    }
    char err[256];
    json_t *doc = result_json(run, rr, r, a->specs);
    if (!doc || tc_json_dump(stdout, doc, err, sizeof err) != TC_OK)
        code = TC_EXIT_RUNTIME;
    json_decref(doc);
    return code;
}

static int roofline_run(const roof_args *a, const tc_roofline_table *t)
{
    tc_store *st;
    tc_run_info run;
    roof_run rr;
    char err[1024];
    memset(&rr, 0, sizeof rr);
    int code = tc_cli_open_store(a->db, TC_STORE_READ, &st);
    if (code)
        return code;
    if (tc_store_find_run(st, a->run, &run, err, sizeof err) != TC_OK) {
        tc_cli_error("%s", err);
        code = TC_EXIT_RUNTIME;
    } else {
        code = load_run(st, &run, &rr);
    }
    tc_store_close(st);
    if (code) {
        free(rr.fingerprint);
        return code;
    }
    tc_roofline_inputs in = {.gpu_name = a->gpu         ? a->gpu
                                         : rr.device[0] ? rr.device
                                                        : NULL,
                             .fingerprint_json = rr.fingerprint,
                             .model_bytes = a->model_bytes,
                             .params = a->params,
                             .kv_bytes_per_token = a->kv_bytes,
                             .measured_decode_tps = rr.decode_p50};
    tc_roofline_result r;
    if (tc_roofline_for_run(t, &in, &r, err, sizeof err) != TC_OK)
        tc_cli_error("roofline: run %lld: %s; going on without it", (long long)run.id, err);
    free(rr.fingerprint);
    return report(&run, &rr, &r, a);
}

int tc_cmd_roofline(int argc, char **argv)
{
    roof_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("roofline");
    if (a.help) {
        tc_cmd_roofline_help(stdout);
        return 0;
    }
    tc_roofline_table t = {0};
    int code = tc_cli_roofline_table_load(a.specs, &t);
    if (!code)
        code = a.list ? print_list(&t, a.specs, a.json) : roofline_run(&a, &t);
    tc_roofline_table_free(&t);
    return code;
}
