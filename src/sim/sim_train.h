/* `truecost sim train`: a SIMULATED trainer. It prints one step record a
 * step in any format `truecost train` reads (Hugging Face dicts,
 * torchtune, Lightning, JSON lines, or "it N loss=... samples=..." for a
 * regex) at a set step time with jitter, a slower warm-up and a slowdown
 * over time; Python warnings every K steps; an out-of-memory error or a
 * segmentation fault at step K; checkpoints. Its truth file gets one JSON
 * line per step: {"step", "emit_ns" (CLOCK_MONOTONIC right after the line
 * was written), "planned_ms"}, so a test compares the step times truecost
 * measured with the ones emitted. Every output says SIMULATED. */
#ifndef TC_SIM_TRAIN_H
#define TC_SIM_TRAIN_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "core/tc_error.h"

typedef struct tc_sim_train_config {
    const char *format;        /* hf, torchtune, lightning, jsonl (default), regex */
    int64_t steps;             /* default 50 */
    double step_ms;            /* default 100 */
    double jitter_ms;          /* each step +- up to this, uniform (default 0) */
    int64_t warmup_steps;      /* the first ones slower (default 0) */
    double warmup_factor;      /* by this factor (default 3) */
    double slowdown_pct;       /* step time grows by this % per 100 steps */
    int64_t warn_every;        /* a UserWarning every K steps (0: none) */
    int64_t oom_at;            /* CUDA out of memory at step K (0: none) */
    int64_t crash_at;          /* a segmentation fault at step K (0: none) */
    int64_t checkpoint_every;  /* "Saving model checkpoint" every K steps (0: none) */
    int64_t samples_per_step;  /* default 8 */
    int64_t tokens_per_step;   /* default 4096 */
    int64_t peak_memory_bytes; /* the framework's peak it reports (default 12 GiB) */
    int ignore_stop;           /* ignore SIGINT and SIGTERM (a trainer that hangs on) */
    uint64_t seed;
    const char *truth_path; /* NULL: none */
    const char *metrics;    /* write the step records to this file instead of stdout */
    double hold_s;          /* after the last step, wait this long before exiting */
} tc_sim_train_config;

/* The defaults above. */
void tc_sim_train_defaults(tc_sim_train_config *c);

/* 0 when cfg is usable, else -1 with the reason in err (naming the option). */
int tc_sim_train_check(const tc_sim_train_config *cfg, char *err, size_t errlen);

typedef enum tc_sim_train_end {
    TC_SIM_TRAIN_DONE = 0, /* every step printed */
    TC_SIM_TRAIN_OOM,      /* out of memory printed: exit 1 */
    TC_SIM_TRAIN_CRASH,    /* segmentation fault printed: the caller raises SIGSEGV */
    TC_SIM_TRAIN_STOPPED   /* *stop was set (the signal number) */
} tc_sim_train_end;

/* Runs the trainer: step records on out (or cfg->metrics), warnings and
 * errors on errf, truth as it goes. TC_OK with *end, or an error (a file
 * that cannot be written) with the reason in err. */
TC_MUST_CHECK tc_err tc_sim_train_run(const tc_sim_train_config *cfg, FILE *out, FILE *errf,
                                      volatile sig_atomic_t *stop, tc_sim_train_end *end,
                                      int64_t *last_step, char *err, size_t errlen);

#endif
