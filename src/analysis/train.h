/* The figures of a training run, from its step records (maths on arrays,
 * no store). A step's time is the gap between two step records (divided
 * by the steps between them when the trainer logs every K steps), read
 * over the steady window: the records after the warm-up (--warmup-steps,
 * default the larger of 5 and 10% of the records, never more than half of
 * them). Throughput counts the samples and tokens the log gives per step
 * (or --samples-per-step/--tokens-per-step), else the trainer's own rate.
 * MFU = FLOPs per token x tokens/s / the card's dense FP16 peak, with
 * 6 x parameters per token, or for LoRA 4 x frozen + 6 x trainable (an
 * estimate: backward through frozen weights costs their activations'
 * gradients, not their own). */
#ifndef TC_ANALYSIS_TRAIN_H
#define TC_ANALYSIS_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"
#include "record/record_sample.h"
#include "record/record_train.h"
#include "stats.h"

/* Where a throughput figure came from. */
typedef enum tc_training_source {
    TC_TRAINING_NONE = 0, /* not known */
    TC_TRAINING_COUNTS,   /* per-step counts (the log, or --samples/--tokens-per-step) */
    TC_TRAINING_RATE,     /* the trainer's own rate, averaged over the window */
    TC_TRAINING_SUMMARY   /* Hugging Face's final train_samples_per_second */
} tc_training_source;

/* "none", "counts", "trainer_rate", "trainer_summary". */
const char *tc_training_source_name(tc_training_source s);

typedef struct tc_training_figures {
    size_t records;      /* step records */
    size_t warmup;       /* records skipped */
    size_t window_steps; /* optimizer steps in the steady window */
    int64_t from_ns, to_ns;
    tc_summary step_ms; /* per-step time over the window; n == 0: none */
    /* Gaps under 50 us in the window: step lines that arrived together
     * (a block-buffered output), so their times are not the steps'. */
    size_t bunched;
    double cv; /* step_ms stddev / mean; NaN without two */
    double steps_per_s;
    tc_training_source samples_source, tokens_source;
    double samples_per_s, tokens_per_s; /* NaN unknown */
    int64_t peak_framework_bytes;       /* the log's peak memory; -1 unknown */
    /* MFU: NaN without parameters, tokens/s or the card's peak. */
    double flops_per_token;
    int lora; /* 4 x frozen + 6 x trainable was used */
    double peak_tflops;
    double mfu;
    /* Energy over the window (tc_training_energy): NaN when not measured. */
    double energy_j, avg_power_w;
    double joules_per_step, joules_per_1k_samples, joules_per_mtok;
    int64_t peak_device_mem_bytes; /* summed over the GPUs; -1 unknown */
} tc_training_figures;

/* The warm-up records skipped of n: `given` (>= 0) or the default, never
 * more than n / 2. */
size_t tc_training_warmup(size_t n, int64_t given);

/* The figures of steps[0..n) (in order of reading) under info (warm-up,
 * parameters, counts per step, Hugging Face's summary); peak_tflops is the
 * card's dense FP16 peak (<= 0: unknown, no MFU). Energy fields NaN. */
void tc_training_figures_compute(const tc_train_info *info, const tc_train_step *steps, size_t n,
                                 double peak_tflops, tc_training_figures *out);

/* The per-step times (ms) of the steady window into a malloc'ed array
 * (*out, *n_out; NULL when none) for a comparison's bootstrap. */
TC_MUST_CHECK tc_err tc_training_step_times(const tc_train_info *info, const tc_train_step *steps,
                                            size_t n, double **out, size_t *n_out);

/* The energy of the window from the run's telemetry: energy, power, per
 * step / 1,000 samples / million tokens, the devices' peak memory. */
void tc_training_energy(tc_training_figures *f, const tc_run_device *devs, int n_devs,
                        const tc_run_sample *samples, size_t n_samples);

/* The gap reading of a ratio of step times (slower / faster, >= 1), as the
 * seed reads it: "acceptable" within 20%, "needs tuning" 20-50%, over
 * 50% "look for operator fallbacks" (truecost gaps, truecost kernels). */
const char *tc_training_gap_reading(double slowdown);

#endif
