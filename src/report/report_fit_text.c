/* truecost fit: the document for people. Figures to 4 significant digits;
 * the JSON keeps them whole. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/tc_number.h"
#include "report/report_fit.h"

/* v bytes in the unit that suits it ("12.55 GiB", "512 KiB"). */
static const char *bytes(char *buf, size_t len, double v)
{
    static const char *const U[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double a = fabs(v);
    int u = 0;
    while (u < 4 && a >= 1024) {
        a /= 1024;
        u++;
    }
    char n[24];
    tc_number_sig(n, sizeof n, v < 0 ? -a : a, 4);
    snprintf(buf, len, "%s %s", n, U[u]);
    return buf;
}

static const char *sig(char *buf, size_t len, double v)
{
    return tc_number_sig(buf, len, v, 4);
}

/* A parameter count: "6.738B", "135M", "4096". */
static const char *count(char *buf, size_t len, double v)
{
    char n[24];
    const char *unit = v >= 1e12 ? "T" : v >= 1e9 ? "B" : v >= 1e6 ? "M" : "";
    double d = v >= 1e12 ? 1e12 : v >= 1e9 ? 1e9 : v >= 1e6 ? 1e6 : 1;
    snprintf(buf, len, "%s%s", tc_number_sig(n, sizeof n, v / d, 4), unit);
    return buf;
}

static void print_model(FILE *out, const tc_fit_report *r)
{
    const tc_model_shape *m = r->model;
    char p[32], b[32];
    fprintf(out, "Model: %s (%s%s%s)\n", m->name[0] ? m->name : r->model_path,
            tc_model_format_name(m->format), m->arch[0] ? ", " : "", m->arch);
    fprintf(out, "  %s parameters, counted from the %s", count(p, sizeof p, (double)m->params),
            m->params_from == TC_MODEL_FROM_TENSORS ? "tensors" : "config's shapes");
    if (m->weight_bytes)
        fprintf(out, "; %s of weights (%s)", bytes(b, sizeof b, (double)m->weight_bytes), m->dtype);
    else if (m->dtype[0])
        fprintf(out, "; dtype %s", m->dtype);
    fputc('\n', out);
    if (m->layers)
        fprintf(out,
                "  %lld layers, hidden %lld, %lld heads, %lld KV heads of %lld, FFN %lld%s, "
                "vocab %lld, context %lld\n",
                (long long)m->layers, (long long)m->hidden, (long long)m->heads,
                (long long)m->kv_heads, (long long)m->key_length, (long long)m->ffn,
                m->experts ? " per expert" : "", (long long)m->vocab, (long long)m->context_length);
    for (int i = 0; i < m->n_types && m->n_types > 1; i++)
        fprintf(out, "  %-8s %6llu tensors  %s\n", m->types[i].name,
                (unsigned long long)m->types[i].tensors,
                bytes(b, sizeof b, (double)m->types[i].bytes));
}

static void print_workload(FILE *out, const tc_fit_report *r)
{
    const tc_fit_options *o = r->opts;
    char k[32], t[64];
    if (o->task == TC_FIT_SERVE)
        fprintf(out, "Workload: serve %lld tokens x %lld sequence%s, KV cache %s (%s per token)",
                (long long)o->ctx, (long long)o->concurrency, o->concurrency == 1 ? "" : "s",
                o->kv_dtype, bytes(k, sizeof k, r->terms->kv_bytes_per_token));
    else
        fprintf(out, "Workload: %s, micro-batch %lld x %lld tokens, %s, checkpointing %s",
                tc_fit_task_name(o->task), (long long)o->batch, (long long)o->seq,
                tc_fit_optimizer_name(o->optimizer), tc_fit_ckpt_name(o->checkpointing));
    if (o->task == TC_FIT_LORA || o->task == TC_FIT_QLORA)
        fprintf(out, ", LoRA rank %lld on %s (%s trainable)", (long long)o->lora_rank,
                tc_fit_lora_targets_text(o->lora_targets, t, sizeof t),
                count(k, sizeof k, r->terms->trainable));
    fprintf(out, "\n  %s defaults, %lld GPU%s, %.3g of each card's memory usable\n",
            tc_fit_engine_name(o->engine), (long long)o->gpus, o->gpus == 1 ? "" : "s",
            o->utilization);
}

static void print_terms(FILE *out, const tc_fit_report *r)
{
    char b[32];
    fprintf(out, "\n  %-17s %11s  %s\n", "term", "per card", "formula");
    for (int i = 0; i < TC_FIT_N_TERMS; i++)
        if (r->terms->used[i])
            fprintf(out, "  %-17s %11s  %s\n", tc_fit_term_name((tc_fit_term_id)i),
                    bytes(b, sizeof b, r->terms->bytes[i]),
                    tc_report_fit_formula(r->opts, r->terms, (tc_fit_term_id)i));
    fprintf(out, "  %-17s %11s\n", "total", bytes(b, sizeof b, r->terms->total));
    if (r->opts->gpus > 1) /* what --gpus divides, and what each card keeps whole */
        for (int split = 1; split >= 0; split--) {
            if (split)
                fprintf(out, "  split across the %lld cards:", (long long)r->opts->gpus);
            else
                fputs("  whole on each card:", out);
            for (int i = 0; i < TC_FIT_N_TERMS; i++)
                if (r->terms->used[i] && tc_fit_term_split((tc_fit_term_id)i) == split)
                    fprintf(out, " %s", tc_fit_term_name((tc_fit_term_id)i));
            fputc('\n', out);
        }
}

/* "largest that fits" of one card. */
static void print_largest(FILE *out, const tc_fit_report *r, const tc_fit_card *c)
{
    char a[32], b[32];
    if (r->opts->task == TC_FIT_SERVE) {
        fprintf(out, "    largest: %s sequences of %lld tokens; one sequence of %s tokens",
                sig(a, sizeof a, (double)c->max_concurrency), (long long)r->opts->ctx,
                sig(b, sizeof b, (double)c->max_ctx));
        if (r->model->context_length > 0 && c->max_ctx > r->model->context_length)
            fprintf(out, " (the model was trained for %lld)", (long long)r->model->context_length);
        fputc('\n', out);
    } else {
        fprintf(out, "    largest micro-batch of %lld tokens: %s\n", (long long)r->opts->seq,
                sig(a, sizeof a, (double)c->max_batch));
    }
    if (c->verdict == TC_FIT_NO && c->min_gpus > 0)
        fprintf(out, "    fits on %lld such cards (--gpus %lld)\n", (long long)c->min_gpus,
                (long long)c->min_gpus);
    else if (c->verdict == TC_FIT_NO)
        fputs("    does not fit on up to 1024 such cards\n", out);
}

static void print_cards(FILE *out, const tc_fit_report *r)
{
    char cap[32], bud[32], need[32], spare[32], share[32];
    if (r->n_cards == 0) {
        fputs("\nNo card: give --gpu NAME (see 'truecost roofline --list') or --vram GIB for a "
              "verdict.\n",
              out);
        return;
    }
    for (int i = 0; i < r->n_cards; i++) {
        const tc_fit_card *c = &r->cards[i];
        fprintf(out, "\n%s: %s (%s), %s usable at %.3g; needs %s: %s, %s (%s%%) %s\n", c->name,
                bytes(cap, sizeof cap, c->capacity_bytes), c->capacity_from,
                bytes(bud, sizeof bud, c->budget_bytes), r->opts->utilization,
                bytes(need, sizeof need, c->need_bytes), tc_fit_verdict_name(c->verdict),
                bytes(spare, sizeof spare, fabs(c->spare_bytes)),
                sig(share, sizeof share, 100 * fabs(c->spare_share)),
                c->spare_bytes < 0 ? "short" : "to spare");
        print_largest(out, r, c);
    }
}

static void print_buffers(FILE *out, const tc_fit_log *l)
{
    char m[32], k[32], c[32];
    fprintf(out, "  %-14s %11s %11s %11s\n", "buffer", "model", "KV", "compute");
    for (int i = 0; i < l->n_devices; i++) {
        const tc_fit_log_device *d = &l->dev[i];
        double model = d->model_bytes >= 0 ? d->model_bytes : d->repack_bytes;
        fprintf(out, "  %-14s %11s %11s %11s%s\n", d->name[0] ? d->name : "(none)",
                model >= 0 ? bytes(m, sizeof m, model) : "-",
                d->kv_bytes >= 0 ? bytes(k, sizeof k, d->kv_bytes) : "-",
                d->compute_bytes >= 0 ? bytes(c, sizeof c, d->compute_bytes) : "-",
                d->repack_bytes >= 0 ? "  (repacked copies of mapped weights: not added)" : "");
    }
}

/* A check's figure in its unit. */
static const char *figure(char *buf, size_t len, const tc_fit_check *c, double v)
{
    return strcmp(c->unit, "bytes") == 0 ? bytes(buf, len, v) : sig(buf, len, v);
}

static void print_log(FILE *out, const tc_fit_report *r)
{
    const tc_fit_log *l = r->log;
    tc_fit_check c[TC_FIT_MAX_CHECKS];
    char a[32], b[32], d[32];
    int n = tc_fit_log_compare(l, r->model, r->opts, r->terms, r->n_cards ? &r->cards[0] : NULL, c);
    fprintf(out, "\nServer log %s (%s): what the engine reported, beside the prediction%s\n",
            r->log_path, tc_fit_log_engine_name(l->engine),
            l->engine == TC_FIT_LOG_VLLM ? " (per card)" : " (the whole server)");
    if (l->n_devices)
        print_buffers(out, l);
    for (int i = 0; i < n; i++) {
        fprintf(out, "  %-19s reported %s", c[i].what, figure(a, sizeof a, &c[i], c[i].reported));
        if (c[i].has_predicted)
            fprintf(out, ", predicted %s (%s%s%%)\n", figure(b, sizeof b, &c[i], c[i].predicted),
                    c[i].share >= 0 ? "+" : "", sig(d, sizeof d, 100 * c[i].share));
        else
            fputs(", no prediction without a card (--gpu or --vram)\n", out);
    }
}

static void print_run(FILE *out, const tc_fit_report *r)
{
    const tc_fit_measured *m = r->run;
    char a[32], b[32], d[32];
    fprintf(out, "\nRun %lld%s%s%s: peak device memory measured (telemetry)%s\n",
            (long long)m->run_id, m->label[0] ? " (" : "", m->label, m->label[0] ? ")" : "",
            m->simulated ? ", SIMULATED" : "");
    int shown = 0;
    for (int i = 0; i < m->n; i++) {
        const tc_fit_measured_dev *x = &m->dev[i];
        if (!x->gpu)
            continue;
        shown++;
        if (!x->has_peak) {
            fprintf(out, "  %s: no memory readings\n", x->name);
            continue;
        }
        double diff = (double)x->peak_mem_bytes - r->terms->total;
        fprintf(out, "  %s: %s, predicted %s per card: %s%s (measured - predicted)\n", x->name,
                bytes(a, sizeof a, (double)x->peak_mem_bytes), bytes(b, sizeof b, r->terms->total),
                diff >= 0 ? "+" : "-", bytes(d, sizeof d, fabs(diff)));
    }
    if (!shown)
        fputs("  the run sampled no GPU (no telemetry of device memory)\n", out);
}

static void print_notes(FILE *out, const tc_fit_report *r)
{
    const tc_fit_options *o = r->opts;
    fputs("\nNotes: the compute buffer and the overhead are estimates (the engine's defaults; "
          "--overhead\nreplaces the overhead); --server-log and --run show what an engine "
          "really took.\n",
          out);
    if (o->task != TC_FIT_SERVE)
        fputs("Activations are an upper bound (Korthikanti et al. 2022, 16-bit, without "
              "FlashAttention).\n",
              out);
    if (o->task == TC_FIT_FULL && o->optimizer == TC_FIT_ADAMW)
        fputs("adamw is mixed precision: 16-bit weights and gradients, fp32 master weights and "
              "moments,\n16 bytes per parameter. The first seed counts 16-bit states (8 bytes "
              "per parameter):\n--optimizer adamw-bf16.\n",
              out);
}

tc_err tc_report_fit_text(FILE *out, const tc_fit_report *r)
{
    if (!out || !r)
        return TC_ERR_INVALID;
    print_model(out, r);
    print_workload(out, r);
    print_terms(out, r);
    print_cards(out, r);
    if (r->log)
        print_log(out, r);
    if (r->run)
        print_run(out, r);
    print_notes(out, r);
    return ferror(out) ? TC_ERR_IO : TC_OK;
}
