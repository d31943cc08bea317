/* One training run measured (`truecost train`): the trainer's command run
 * as a child in its own process group, its stdout and stderr handed back
 * as they come (the caller echoes them) and read line by line (trainer/),
 * a --metrics file followed as it grows, telemetry sampled as `run` does,
 * and the run stored as it goes: its steps (each stamped on CLOCK_MONOTONIC
 * when its line was read), warnings and end. A stop (the caller's flag,
 * set by its signal handler to the signal number) is passed to the child's
 * process group; a child still there after the grace period gets SIGKILL.
 * A child killed or crashed leaves its run marked so, with every step up
 * to then. The library never prints or touches signals. */
#ifndef TC_MEASURE_TRAIN_H
#define TC_MEASURE_TRAIN_H

#include <signal.h>
#include <stddef.h>

#include "core/tc_error.h"
#include "record/record.h"
#include "record/record_train.h"
#include "store/store.h"
#include "telemetry/telem.h"
#include "trainer/trainer.h"

/* Longest line read whole; the rest of a longer one is dropped (counted). */
#define TC_MEASURE_TRAIN_MAX_LINE (1 << 20)

typedef struct tc_measure_train_config {
    char *const *argv;      /* the trainer's command, NULL-ended; argv[0] looked up on PATH */
    const char *label;      /* NULL: none */
    const char *model;      /* stored as the run's model; NULL: argv[0]'s name */
    const char *command;    /* truecost's command line, stored with the run; NULL: none */
    tc_trainer_config read; /* how its lines are read */
    const char *metrics;    /* --metrics FILE: the steps are read from it instead; NULL */
    tc_train_info plan;     /* samples/tokens per step, warm-up, params, gpu as given */
    int simulated;          /* the trainer is `truecost sim train` */
    /* Telemetry, as tc_measure_config has it. */
    const char *telemetry;
    tc_telem_config telem;
    int sample_ms;
    const char *const *remote_urls;
    int n_remote_urls;
    int remote_ms;
    const char *remote_token;
    double grace_s;  /* after a stop is passed on, SIGKILL after this long (default 10) */
    size_t max_line; /* 0: TC_MEASURE_TRAIN_MAX_LINE */
} tc_measure_train_config;

typedef struct tc_measure_train_callbacks {
    volatile sig_atomic_t *stop;  /* the signal to pass on once set; may be NULL */
    volatile sig_atomic_t *hurry; /* set (a second Ctrl-C): SIGKILL at once; may be NULL */
    /* Each may be NULL. output: bytes of the child's stdout (fd 1) or
     * stderr (fd 2) as read. step: a step stored. notice: something said
     * on the way (a sentence, no newline). */
    void (*output)(void *ctx, int fd, const char *buf, size_t len);
    void (*step)(void *ctx, const tc_train_step *s, const tc_train_info *info);
    void (*notice)(void *ctx, const char *text);
    void *ctx;
} tc_measure_train_callbacks;

typedef struct tc_measure_train_outcome {
    tc_run_info run;    /* as stored; run.status final */
    tc_train_info info; /* how it ended */
    int stored;         /* a run was stored (0: it failed before) */
    int escalated;      /* SIGKILL was sent after the grace period */
    int64_t warnings;   /* warning lines seen */
    int64_t errors;     /* error lines seen */
    char err[1100];     /* "" or why the run failed or what was lost */
} tc_measure_train_outcome;

/* Runs and measures the trainer into store. TC_OK when the run was stored
 * and ended (whatever the trainer's own end: out->info.end says, and an
 * ended run with no step read sets out->err); else the error (the store
 * refused the run, out of memory) with its reason in err. */
TC_MUST_CHECK tc_err tc_measure_train(const tc_measure_train_config *cfg, tc_store *store,
                                      const tc_measure_train_callbacks *cb,
                                      tc_measure_train_outcome *out, char *err, size_t errlen);

#endif
