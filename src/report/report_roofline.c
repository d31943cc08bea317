/* `truecost roofline`: the GPU table (--list) and a run's ceilings, as
 * text and JSON. */
#include "report_roofline.h"

#include "core/tc_json.h"

/* A table figure: unknown (<= 0) is null. */
static json_t *figure(double v)
{
    return tc_json_num(v > 0, v);
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
                     "vendor", tc_json_string(s->vendor), "memory_gb", figure(s->memory_gb),
                     "bandwidth_gb_s", s->bandwidth_gb_s, "fp16_dense_tflops",
                     figure(s->fp16_dense_tflops), "board_power_w", figure(s->board_power_w),
                     "launch_price_usd", figure(s->launch_price_usd), "match",
                     tc_json_string(s->match), "source", tc_json_string(s->source), "origin",
                     tc_json_string(origin));
}

json_t *tc_report_roofline_list_json(const tc_roofline_table *t, const char *specs)
{
    json_t *rows = json_array();
    for (int i = 0; rows && i < t->n; i++)
        if (json_array_append_new(rows, spec_json(&t->rows[i], specs)) != 0) {
            json_decref(rows);
            return NULL;
        }
    return rows;
}

static void cell(FILE *out, double v, const char *fmt)
{
    if (v > 0)
        fprintf(out, fmt, v);
    else
        fprintf(out, "%9s", "-");
}

tc_err tc_report_roofline_list(FILE *out, const tc_roofline_table *t, const char *specs)
{
    fprintf(out, "%-18s %-7s %9s %9s %9s %9s %9s  %s\n", "NAME", "VENDOR", "MEM GB", "GB/s",
            "FP16 TF", "POWER W", "PRICE $", "MATCH");
    for (int i = 0; i < t->n; i++) {
        const tc_gpu_spec *s = &t->rows[i];
        char origin[1100];
        origin_of(s, specs, origin, sizeof origin);
        fprintf(out, "%-18s %-7s", s->name, s->vendor);
        cell(out, s->memory_gb, " %8.0f");
        cell(out, s->bandwidth_gb_s, " %8.0f");
        cell(out, s->fp16_dense_tflops, " %8.1f");
        cell(out, s->board_power_w, " %8.0f");
        cell(out, s->launch_price_usd, " %8.0f");
        fprintf(out, "  %s\n    source: %s (%s)\n", s->match,
                s->source[0] ? s->source : "none given", origin);
    }
    fputs("FP16 TF is the dense tensor peak (not the sparse figure). A device name matches\n"
          "a row when it contains one of its patterns as a whole phrase (case aside) and\n"
          "none of its !patterns; the longest pattern wins, and --gpu-specs rows win first.\n",
          out);
    return ferror(out) ? TC_ERR_IO : TC_OK;
}

/* ---- one run ------------------------------------------------------------ */

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
    return json_pack("{s:o,s:o,s:o,s:o,s:f,s:s,s:o,s:f}", "parameters", figure(r->params),
                     "parameters_source", tc_json_string(r->params_source), "quantization",
                     tc_json_str_or_null(r->quant), "bits_per_weight", figure(r->bits_per_weight),
                     "weight_bytes", r->weight_bytes, "weight_bytes_source",
                     tc_roofline_bytes_source_name(r->bytes_source), "loaded_bytes",
                     figure(r->loaded_bytes), "kv_bytes_per_token", r->kv_bytes_per_token);
}

json_t *tc_report_roofline_json(const tc_run_info *run, const tc_roofline_result *r,
                                size_t decode_n, const char *specs)
{
    int reads = r->has_measured && run->concurrency <= 1;
    json_t *doc = json_pack(
        "{s:I,s:o,s:b,s:i,s:{s:o,s:o},s:o,s:f,s:o,s:o,s:I,s:o,s:o,s:b}", "run_id",
        (json_int_t)run->id, "label", tc_json_string(run->label), "simulated", run->simulated,
        "concurrency", run->concurrency, "gpu", "device", tc_json_string(r->gpu_name), "spec",
        spec_json(&r->spec, specs), "model", model_json(r), "decode_ceiling_tokens_per_s",
        r->decode_ceiling_tps, "prefill_ceiling_tokens_per_s",
        tc_json_num(r->has_prefill, r->prefill_ceiling_tps), "measured_decode_tokens_per_s",
        tc_json_num(r->has_measured, r->measured_decode_tps), "measured_requests",
        (json_int_t)decode_n, "percent_of_ceiling",
        tc_json_num(r->has_measured, r->percent_of_ceiling), "reading",
        tc_json_string(reads ? tc_roofline_reading_text(r->reading) : NULL), "per_stream",
        run->concurrency > 1);
    if (doc && !r->has_prefill &&
        json_object_set_new(doc, "prefill_note", json_string(prefill_why(r->missing))) != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

/* 8.03e9 -> "8.03B", as Ollama writes counts. */
static void print_count(FILE *out, double v)
{
    static const char units[] = " KMBT";
    int u = 0;
    while (v >= 1000 && u < 4) {
        v /= 1000;
        u++;
    }
    if (u)
        fprintf(out, "%.3g%c", v, units[u]);
    else
        fprintf(out, "%.0f", v);
}

static void print_model(FILE *out, const tc_roofline_result *r)
{
    if (r->params > 0) {
        fprintf(out, "Model:   ");
        print_count(out, r->params);
        fprintf(out, " parameters (%s)", r->params_source);
    } else {
        fprintf(out, "Model:   parameters unknown");
    }
    if (r->quant[0])
        fprintf(out, ", %s%s", r->quant,
                r->bits_per_weight > 0 ? "" : " (bits per weight unknown)");
    if (r->bits_per_weight > 0)
        fprintf(out, " = %.3g bits per weight", r->bits_per_weight);
    fprintf(out, "\n         weights %.4g GB read per token (%s)", r->weight_bytes / 1e9,
            tc_roofline_bytes_source_name(r->bytes_source));
    if (r->bytes_source == TC_ROOF_BYTES_LOADED)
        fprintf(out, ": holds the KV cache and buffers too, so the ceiling below is low");
    if (r->kv_bytes_per_token > 0)
        fprintf(out, " + KV cache %.4g MB per token\n", r->kv_bytes_per_token / 1e6);
    else
        fprintf(out, "; KV cache not counted (--kv-bytes)\n");
}

static void print_measured(FILE *out, const tc_run_info *run, const tc_roofline_result *r,
                           size_t decode_n)
{
    if (r->has_measured)
        fprintf(out,
                "Measured decode (median of %zu requests): %.1f tokens/s = %.0f%% of the "
                "bandwidth bound\n  %s\n",
                decode_n, r->measured_decode_tps, r->percent_of_ceiling,
                run->concurrency > 1 ? "(no reading at concurrency > 1: measure with -c 1)"
                                     : tc_roofline_reading_text(r->reading));
    else
        fputs("Measured decode: none (no completed request with 2 or more tokens)\n", out);
    if (r->moe_suspected && r->bytes_source != TC_ROOF_BYTES_GIVEN)
        fputs("Note: a mixture-of-experts model reads only its active experts per token; the "
              "bound above counts all weights: give --model-bytes of the active ones.\n",
              out);
    if (run->concurrency > 1)
        fprintf(out,
                "Note: the run had concurrency %d; the single-stream bound applies to each "
                "stream, and batching shares the weight reads between them.\n",
                run->concurrency);
}

tc_err tc_report_roofline_text(FILE *out, const tc_run_info *run, const tc_roofline_result *r,
                               size_t decode_n)
{
    const tc_gpu_spec *s = &r->spec;
    fprintf(out, "%sBandwidth ceiling of run %lld (%s)\n", run->simulated ? "SIMULATED " : "",
            (long long)run->id, run->label[0] ? run->label : "no label");
    fprintf(out, "GPU:     %s -> %s (%s, %.0f GB/s", r->gpu_name, s->name, s->vendor,
            s->bandwidth_gb_s);
    if (s->fp16_dense_tflops > 0)
        fprintf(out, ", %.4g TFLOPS dense FP16", s->fp16_dense_tflops);
    fprintf(out, ")\n         source: %s\n", s->source[0] ? s->source : "none given");
    print_model(out, r);
    fprintf(out, "Decode ceiling, one stream: %10.1f tokens/s = %.0f GB/s / %.4g GB per token\n",
            r->decode_ceiling_tps, s->bandwidth_gb_s,
            (r->weight_bytes + r->kv_bytes_per_token) / 1e9);
    if (r->has_prefill)
        fprintf(out,
                "Prefill ceiling:            %10.0f tokens/s = %.4g TFLOPS / (2 x %.4g FLOP)\n",
                r->prefill_ceiling_tps, s->fp16_dense_tflops, r->params);
    else
        fprintf(out, "Prefill ceiling:            not available: %s\n", prefill_why(r->missing));
    print_measured(out, run, r, decode_n);
    return ferror(out) ? TC_ERR_IO : TC_OK;
}
