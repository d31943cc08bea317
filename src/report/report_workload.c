#include "report_workload.h"

#include "report_table.h"
#include "core/tc_json.h"
#include "core/tc_text.h"

static json_t *summary(const tc_summary *s)
{
    int ok = s->n > 0;
    return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "mean", tc_json_num(ok, s->mean),
                     "stddev", tc_json_num(ok, s->stddev), "min", tc_json_num(ok, s->min), "p50",
                     tc_json_num(ok, s->p50), "p90", tc_json_num(ok, s->p90), "p95",
                     tc_json_num(ok, s->p95), "p99", tc_json_num(ok, s->p99), "max",
                     tc_json_num(ok, s->max));
}

json_t *tc_report_workload_json(const tc_workload_figures *w)
{
    const tc_run_workload *t = &w->target;
    json_t *achieved = json_pack(
        "{s:o, s:o, s:o}", "isl", summary(&w->isl), "osl", summary(&w->osl), "isl_in_range",
        tc_json_num(w->isl.n > 0, w->isl.n ? (double)w->isl_in_range / (double)w->isl.n : 0));
    return json_pack("{s:o, s:I, s:{s:I, s:I, s:f, s:I}, s:b, s:o, s:{s:f, s:f, s:o}, s:o}",
                     "preset", tc_json_str_or_null(t->preset), "seed", (json_int_t)t->seed,
                     "target", "isl_min", (json_int_t)t->isl_min, "isl_max", (json_int_t)t->isl,
                     "isl_range", t->isl_range, "osl", (json_int_t)t->osl, "ignore_eos",
                     t->ignore_eos, "eos_note", tc_json_str_or_null(t->eos_note), "calibration",
                     "tokens_per_word", t->tokens_per_word, "overhead_tokens", t->overhead_tokens,
                     "source", tc_json_string(t->calibration), "achieved", achieved);
}

static const char *num(char *buf, size_t len, const tc_summary *s, double v)
{
    return tc_report_fmt_fixed(buf, len, s->n > 0, v, 1);
}

void tc_report_workload_text(FILE *out, const tc_workload_figures *w)
{
    if (!w->has_target)
        return;
    const tc_run_workload *t = &w->target;
    char preset[4 * sizeof t->preset], note[4 * sizeof t->eos_note], src[4 * sizeof t->calibration];
    char a[32], b[32], c[32], d[32];
    fprintf(out, "%-14s%s%sISL %lld-%lld tokens, OSL %lld, seed %lld, ignore_eos %s\n", "workload",
            t->preset[0] ? tc_text_term(t->preset, preset, sizeof preset) : "",
            t->preset[0] ? ": " : "", (long long)t->isl_min, (long long)t->isl, (long long)t->osl,
            (long long)t->seed, t->ignore_eos ? "sent" : "not sent");
    fprintf(out, "%-14sISL mean %s, p50 %s; OSL mean %s, p50 %s (the server's counts)", "achieved",
            num(a, sizeof a, &w->isl, w->isl.mean), num(b, sizeof b, &w->isl, w->isl.p50),
            num(c, sizeof c, &w->osl, w->osl.mean), num(d, sizeof d, &w->osl, w->osl.p50));
    if (w->isl.n)
        fprintf(out, "; ISL of %zu of %zu within 5%% of the range", w->isl_in_range, w->isl.n);
    fputc('\n', out);
    fprintf(out, "%-14s%.3f tokens per word + %.1f per prompt (%s)\n", "calibration",
            t->tokens_per_word, t->overhead_tokens, tc_text_term(t->calibration, src, sizeof src));
    if (t->eos_note[0])
        fprintf(out, "%-14s%s\n", "note", tc_text_term(t->eos_note, note, sizeof note));
    if (w->isl_off)
        fprintf(out,
                "%-14sthe achieved ISL is more than 5%% from the target range's middle "
                "(%lld): the server's count differs from the calibration's\n",
                "warning", (long long)((t->isl_min + t->isl) / 2));
    if (w->osl_short && t->ignore_eos)
        fprintf(out,
                "%-14sthe achieved OSL is more than 5%% under the target %lld: the server "
                "may not honour ignore_eos\n",
                "warning", (long long)t->osl);
}
