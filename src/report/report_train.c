/* A training run's text document. */
#include "report_train.h"

#include <math.h>
#include <signal.h>
#include <string.h>

#include "core/tc_json.h"
#include "core/tc_text.h"
#include "core/tc_time.h"
#include "report_table.h"

/* A figure at 4 significant digits with its unit, or "n/a". */
static const char *fig(char *buf, size_t len, double v, const char *unit)
{
    char n[48];
    if (!isfinite(v))
        return snprintf(buf, len, "n/a"), buf;
    snprintf(buf, len, "%s%s%s", tc_report_sig(n, sizeof n, v), unit[0] ? " " : "", unit);
    return buf;
}

/* "exited 0", "killed by SIGSEGV", "interrupted (SIGINT passed on)", ... */
static void end_text(const tc_train_info *t, char *buf, size_t len)
{
    const char *sig = t->signal > 0 ? strsignal(t->signal) : "";
    switch (t->end) {
    case TC_TRAIN_EXITED:
        snprintf(buf, len, "exited with status %d", t->exit_code);
        break;
    case TC_TRAIN_SIGNALED:
        snprintf(buf, len, "killed by signal %d (%s)", t->signal, sig);
        break;
    case TC_TRAIN_INTERRUPTED:
        snprintf(buf, len, "interrupted: the stop was passed on, the trainer ended");
        break;
    case TC_TRAIN_KILLED:
        snprintf(buf, len, "killed: it ignored the stop, SIGKILL after the grace period");
        break;
    case TC_TRAIN_NOT_STARTED:
        snprintf(buf, len, "not started");
        break;
    default:
        snprintf(buf, len, "still running (or truecost was killed)");
    }
}

static void head(FILE *out, const tc_view_train *v)
{
    const tc_train_info *t = &v->info;
    char safe[4 * 1024], end[160], date[64];
    tc_text_term(t->command, safe, sizeof safe);
    end_text(t, end, sizeof end);
    fprintf(out, "Training run %lld%s%s%s%s\n", (long long)v->run.id, v->run.label[0] ? " (" : "",
            v->run.label, v->run.label[0] ? ")" : "",
            v->run.simulated ? "  SIMULATED (truecost sim train)" : "");
    fprintf(out, "  command     %s\n", safe);
    fprintf(out, "  started     %s\n", tc_rfc3339_ns(v->run.created_wall_ns, date, sizeof date));
    fprintf(out, "  format      %s%s%s\n", tc_train_format_name(t->format),
            t->metrics_path[0] ? ", from --metrics " : "", t->metrics_path);
    fprintf(out, "  status      %s: %s\n", tc_status_name(v->run.status), end);
    fprintf(out, "  steps       %lld read, %lld checkpoint%s saved\n", (long long)t->steps,
            (long long)t->checkpoints, t->checkpoints == 1 ? "" : "s");
    if (t->long_lines || t->binary_lines)
        fprintf(out, "  output      %lld lines, %lld cut at 1 MiB, %lld not text\n",
                (long long)t->lines, (long long)t->long_lines, (long long)t->binary_lines);
    if (t->note[0]) {
        tc_text_term(t->note, safe, sizeof safe);
        fprintf(out, "  note        %s\n", safe);
    }
}

static void figures(FILE *out, const tc_view_train *v)
{
    const tc_training_figures *f = &v->fig;
    char a[64], b[64], c[64], d[64];
    if (f->step_ms.n == 0) {
        fprintf(out, "\nStep time: not enough steps (%zu read, %zu of them warm-up)\n", f->records,
                f->warmup);
        return;
    }
    fprintf(out, "\nStep time over the steady window (%zu steps after %zu warm-up records)\n",
            f->window_steps, f->warmup);
    if (f->bunched * 4 > f->step_ms.n)
        fprintf(out,
                "  WARNING: %zu of %zu steps arrived together with the one before: the trainer's "
                "output is buffered, so these times are not the steps' (flush each line: "
                "print(..., flush=True), python3 -u, stdbuf -oL)\n",
                f->bunched, f->step_ms.n);
    fprintf(out, "  mean %s  p50 %s  p99 %s  CV %s\n", fig(a, sizeof a, f->step_ms.mean, "ms"),
            fig(b, sizeof b, f->step_ms.p50, "ms"), fig(c, sizeof c, f->step_ms.p99, "ms"),
            fig(d, sizeof d, f->cv * 100, "%"));
    fprintf(out, "\nThroughput\n");
    fprintf(out, "  steps/s      %s\n", fig(a, sizeof a, f->steps_per_s, ""));
    fprintf(out, "  samples/s    %s (%s)\n", fig(a, sizeof a, f->samples_per_s, ""),
            tc_training_source_name(f->samples_source));
    fprintf(out, "  tokens/s     %s (%s)\n", fig(a, sizeof a, f->tokens_per_s, ""),
            tc_training_source_name(f->tokens_source));
    if (isfinite(f->mfu))
        fprintf(out, "  MFU          %s of %s's %s dense FP16 (%s FLOPs/token, estimate%s)\n",
                fig(a, sizeof a, f->mfu * 100, "%"), v->card,
                fig(b, sizeof b, f->peak_tflops, "TFLOPS"),
                fig(c, sizeof c, f->flops_per_token, ""),
                f->lora ? ", LoRA 4x frozen + 6x trainable" : "");
    else
        fprintf(out, "  MFU          n/a (%s)\n",
                !isfinite(f->flops_per_token) ? "give --params or --model"
                : !isfinite(f->tokens_per_s)  ? "no tokens/s: give --tokens-per-step"
                                              : "no card with a dense FP16 peak: give --gpu");
}

static void energy(FILE *out, const tc_view_train *v)
{
    const tc_training_figures *f = &v->fig;
    char a[64], b[64], c[64];
    fprintf(out, "\nMemory and energy\n");
    fprintf(out, "  framework peak  %s\n",
            fig(a, sizeof a,
                f->peak_framework_bytes >= 0 ? f->peak_framework_bytes / 1048576.0 : NAN, "MiB"));
    fprintf(out, "  device peak     %s\n",
            fig(a, sizeof a,
                f->peak_device_mem_bytes >= 0 ? f->peak_device_mem_bytes / 1048576.0 : NAN, "MiB"));
    if (!isfinite(f->energy_j)) {
        fprintf(out, "  energy          not measured (%d telemetry device%s)\n", v->n_devices,
                v->n_devices == 1 ? "" : "s");
        return;
    }
    fprintf(out, "  energy          %s over the window, %s average\n",
            fig(a, sizeof a, f->energy_j, "J"), fig(b, sizeof b, f->avg_power_w, "W"));
    fprintf(out, "  per step        %s;  per 1,000 samples %s;  per million tokens %s\n",
            fig(a, sizeof a, f->joules_per_step, "J"),
            fig(b, sizeof b, f->joules_per_1k_samples, "J"),
            fig(c, sizeof c, f->joules_per_mtok, "J"));
}

static void warnings(FILE *out, const tc_view_train *v)
{
    fprintf(out, "\nWarnings and errors: %lld warning line%s, %lld error line%s%s\n",
            (long long)v->warning_lines, v->warning_lines == 1 ? "" : "s",
            (long long)v->error_lines, v->error_lines == 1 ? "" : "s",
            tc_view_train_clean(v) ? " (completed with no error)" : "");
    if (v->n_warnings)
        fprintf(out, "  %-18s %7s %10s  %s\n", "CLASS", "COUNT", "FIRST STEP", "MESSAGE");
    for (size_t i = 0; i < v->n_warnings; i++) {
        const tc_train_warning *w = &v->warnings[i];
        char msg[4 * 256];
        tc_text_term(w->message, msg, sizeof msg);
        fprintf(out, "  %-18s %7lld %10lld  %s\n", tc_train_class_name(w->cls), (long long)w->count,
                (long long)w->first_step, msg);
    }
}

tc_err tc_report_train_text(FILE *out, const tc_view_train *v)
{
    head(out, v);
    figures(out, v);
    energy(out, v);
    warnings(out, v);
    fflush(out);
    return ferror(out) ? TC_ERR_IO : TC_OK;
}
