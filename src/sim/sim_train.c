/* The SIMULATED trainer (sim_train.h). */
#include "sim_train.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <time.h>

#include "core/tc_rng.h"
#include "core/tc_time.h"

void tc_sim_train_defaults(tc_sim_train_config *c)
{
    memset(c, 0, sizeof *c);
    c->format = "jsonl";
    c->steps = 50;
    c->step_ms = 100;
    c->warmup_factor = 3;
    c->samples_per_step = 8;
    c->tokens_per_step = 4096;
    c->peak_memory_bytes = 12LL << 30;
}

static const char *const FORMATS[] = {"hf", "torchtune", "lightning", "jsonl", "regex", NULL};

int tc_sim_train_check(const tc_sim_train_config *c, char *err, size_t errlen)
{
    int known = 0;
    for (int i = 0; FORMATS[i]; i++)
        known |= strcmp(c->format, FORMATS[i]) == 0;
    if (!known)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--format '%s': expected hf, torchtune, lightning, jsonl or regex",
                       c->format),
               -1;
    if (c->jitter_ms >= c->step_ms)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--jitter-ms %g: must be below --step-ms %g (a step takes some time)",
                       c->jitter_ms, c->step_ms),
               -1;
    return 0;
}

/* Step k's planned time (ms), k from 1. */
static double planned_ms(const tc_sim_train_config *c, int64_t k, tc_rng *rng)
{
    double ms = c->step_ms * (1 + c->slowdown_pct / 100 * (double)k / 100);
    if (k <= c->warmup_steps)
        ms *= c->warmup_factor;
    if (c->jitter_ms > 0)
        ms += (2 * tc_rng_unit(rng) - 1) * c->jitter_ms;
    return ms;
}

static void print_step(const tc_sim_train_config *c, FILE *out, int64_t k, double ms)
{
    double loss = 2.5 * exp(-(double)k / 200.0) + 0.5, lr = 2e-5;
    double s_per_s = (double)c->samples_per_step * 1000 / ms;
    double t_per_s = (double)c->tokens_per_step * 1000 / ms;
    const char *f = c->format;
    if (strcmp(f, "hf") == 0)
        fprintf(out,
                "{'loss': %.4f, 'grad_norm': 1.234, 'learning_rate': %g, 'epoch': %.4f, "
                "'num_input_tokens_seen': %lld}\n",
                loss, lr, (double)k / (double)c->steps, (long long)(k * c->tokens_per_step));
    else if (strcmp(f, "torchtune") == 0)
        fprintf(out,
                "Step %lld | loss:%.6f lr:%g tokens_per_second_per_gpu:%.2f "
                "peak_memory_alloc:%.2f\n",
                (long long)k, loss, lr, t_per_s, (double)c->peak_memory_bytes / 1073741824.0);
    else if (strcmp(f, "lightning") == 0)
        fprintf(out,
                "{'train/batches': %lld, 'train/samples': %lld, 'train/batches_per_sec': %.4f, "
                "'train/samples_per_sec': %.4f, 'train/items_per_sec': %.2f, 'train_loss': "
                "%.4f}\n",
                (long long)k, (long long)(k * c->samples_per_step), 1000 / ms, s_per_s, t_per_s,
                loss);
    else if (strcmp(f, "regex") == 0)
        fprintf(out, "it %lld loss=%.4f samples=%lld (SIMULATED)\n", (long long)k, loss,
                (long long)c->samples_per_step);
    else
        fprintf(out,
                "{\"step\": %lld, \"loss\": %.4f, \"samples\": %lld, \"tokens\": %lld, \"lr\": "
                "%g, \"peak_memory_bytes\": %lld}\n",
                (long long)k, loss, (long long)c->samples_per_step, (long long)c->tokens_per_step,
                lr, (long long)c->peak_memory_bytes);
}

/* Sleeps until the monotonic time `until` (ns); early when *stop is set. */
static void sleep_until(int64_t until, volatile sig_atomic_t *stop)
{
    struct timespec ts = {(time_t)(until / 1000000000), (long)(until % 1000000000)};
    while (!(stop && *stop) && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void oom(FILE *errf, int64_t k)
{
    fprintf(errf,
            "Traceback (most recent call last):\n"
            "  File \"train.py\", line 88, in <module>\n"
            "    loss.backward()\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has "
            "a total capacity of 23.64 GiB of which 1.12 GiB is free. (SIMULATED at step %lld)\n",
            (long long)k);
    fflush(errf);
}

typedef struct sim_state {
    const tc_sim_train_config *c;
    FILE *steps, *errf, *truth;
    tc_rng rng;
    int64_t next_ns;
} sim_state;

/* One step: its time slept, its record printed and flushed, its truth
 * line. 1 when the run ends at it (*end set). */
static int one_step(sim_state *s, int64_t k, volatile sig_atomic_t *stop, tc_sim_train_end *end)
{
    const tc_sim_train_config *c = s->c;
    double ms = planned_ms(c, k, &s->rng);
    s->next_ns += (int64_t)(ms * 1e6);
    sleep_until(s->next_ns, stop);
    if (stop && *stop)
        return *end = TC_SIM_TRAIN_STOPPED, 1;
    if (k == c->oom_at)
        return oom(s->errf, k), *end = TC_SIM_TRAIN_OOM, 1;
    if (k == c->crash_at) {
        fprintf(s->errf, "Fatal Python error: Segmentation fault (SIMULATED at step %lld)\n",
                (long long)k);
        fflush(s->errf);
        return *end = TC_SIM_TRAIN_CRASH, 1;
    }
    print_step(c, s->steps, k, ms);
    fflush(s->steps);
    int64_t emit = tc_mono_ns();
    if (s->truth) {
        fprintf(s->truth, "{\"step\": %lld, \"emit_ns\": %lld, \"planned_ms\": %.6f}\n",
                (long long)k, (long long)emit, ms);
        fflush(s->truth);
    }
    if (c->warn_every > 0 && k % c->warn_every == 0)
        fprintf(s->errf,
                "/sim/train.py:42: UserWarning: SIMULATED warning: the loss scale was lowered\n"
                "  warnings.warn(\n");
    if (c->checkpoint_every > 0 && k % c->checkpoint_every == 0)
        fprintf(s->errf, "Saving model checkpoint to out/checkpoint-%lld (SIMULATED)\n",
                (long long)k);
    fflush(s->errf);
    return 0;
}

tc_err tc_sim_train_run(const tc_sim_train_config *c, FILE *out, FILE *errf,
                        volatile sig_atomic_t *stop, tc_sim_train_end *end, int64_t *last_step,
                        char *err, size_t errlen)
{
    sim_state s = {.c = c, .steps = out, .errf = errf};
    *end = TC_SIM_TRAIN_DONE;
    *last_step = 0;
    if (c->truth_path && !(s.truth = fopen(c->truth_path, "w")))
        return tc_fail(err, errlen, TC_ERR_IO, "--truth %s: %s", c->truth_path, strerror(errno));
    if (c->metrics && !(s.steps = fopen(c->metrics, "w"))) {
        if (s.truth)
            fclose(s.truth);
        return tc_fail(err, errlen, TC_ERR_IO, "--metrics %s: %s", c->metrics, strerror(errno));
    }
    tc_rng_seed(&s.rng, c->seed);
    s.next_ns = tc_mono_ns();
    for (int64_t k = 1; k <= c->steps; k++) {
        if (one_step(&s, k, stop, end))
            break;
        *last_step = k;
    }
    if (*end == TC_SIM_TRAIN_DONE && strcmp(c->format, "hf") == 0) {
        fprintf(s.steps,
                "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, "
                "'train_steps_per_second': %.3f, 'train_loss': 0.9, 'epoch': 1.0}\n",
                (double)c->steps * c->step_ms / 1000,
                1000 * (double)c->samples_per_step / c->step_ms, 1000 / c->step_ms);
    }
    if (*end == TC_SIM_TRAIN_DONE && c->hold_s > 0)
        sleep_until(tc_mono_ns() + (int64_t)(c->hold_s * 1e9), stop);
    fflush(s.steps);
    if (c->metrics)
        fclose(s.steps);
    if (s.truth)
        fclose(s.truth);
    return TC_OK;
}
