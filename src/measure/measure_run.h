/* One measured run, or a group of them (`run --repeat`), with nothing
 * measured lost: the environment is recorded before the run is stored (a
 * stop while it is read leaves no run behind) and stored with it before
 * the first request; finished requests and telemetry samples go to the
 * store in batches as they come; a save that fails keeps its requests and
 * offers them again (the load generator's save patience); a stop hands
 * over every finished request, marks the run "interrupted" at once and
 * keeps what was measured; a run is never left "running".
 *
 * The library never prints, exits or touches signals: the caller passes a
 * stop flag (set by its signal handler) and callbacks that say what
 * happens, and maps the results to its exit status. */
#ifndef TC_MEASURE_RUN_H
#define TC_MEASURE_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "bench/bench_runner.h"
#include "core/tc_error.h"
#include "measure_saver.h"
#include "record/record.h"
#include "store/store.h"
#include "telemetry/telem.h"

typedef struct tc_measure_config {
    /* The workload: endpoint, API, model, prompts, counts, timeouts, API
     * key and save_patience_s. Its callbacks, ctx and stop are ignored:
     * tc_measure_run sets its own. */
    tc_runner_config load;
    const char *label;          /* the run's label; NULL: none, or the group's name */
    const char *group;          /* the group of every run (NULL: not grouped) */
    const char *slo;            /* the objectives stored with each run (NULL: none) */
    const char *group_kind;     /* "sweep", or NULL (a --repeat group, or none) */
    int64_t group_runs_before;  /* the group's runs stored before these (a sweep's points) */
    int gpus;                   /* sweep --gpus, stored; 0: not given */
    int repeat;                 /* runs to make, one after another; < 1 counts as 1 */
    int simulated;              /* what the server said of itself, stored with the run */
    const char *server_version; /* NULL: unknown */
    const char *telemetry;      /* "auto", "none" or a source name (tc_telem_set_open) */
    tc_telem_config telem;      /* where the sources read from */
    int sample_ms;              /* telemetry interval */
    /* Remote telemetry: exporter URLs scraped every remote_ms (with a
     * bearer token, NULL: none) as more devices of the run; the first
     * URL whose /env answers gives the run's host environment. */
    const char *const *remote_urls;
    int n_remote_urls;
    int remote_ms;
    const char *remote_token;
    double idle_s;       /* sampled before the load, for the idle baseline */
    int max_concurrency; /* open loop: the --max-concurrency given, 0 = none (stored) */
    /* The command line stored with each run (passwords redacted); NULL:
     * none. */
    const char *command;
    /* The workload shape stored with each run; NULL: given prompts. */
    const tc_run_workload *workload;
    /* run --shard: one of several processes (often on several hosts)
     * that split one workload and store into one group at once, so the
     * group's count is not checked; group_kind is "shard". */
    int shard;
    /* Wall-clock time (ns since the epoch) to start the load at, so that
     * shards start together; 0: at once. The wait ends early on stop. */
    int64_t start_at_wall_ns;
    /* Soak: how many chunk times each request stores (0: all; N > 0:
     * every Nth request all, the others their first, for the TTFT; -1:
     * the first only). */
    int chunk_sample;
    /* Soak --resume: measure into this stored run (0: a new one); its
     * environment and workload are already stored. */
    int64_t resume_run_id;
} tc_measure_config;

/* Where a run failed. */
typedef enum tc_measure_stage {
    TC_MEASURE_OK = 0,
    TC_MEASURE_BEGIN,     /* before or while storing the run: none was stored */
    TC_MEASURE_TELEMETRY, /* opening the telemetry sources; err is theirs */
    TC_MEASURE_SAMPLER,   /* storing the devices or starting the sampler */
    TC_MEASURE_LOAD       /* the load generator (e.g. saving stayed refused) */
} tc_measure_stage;

/* One run that was stored, as it ended. */
typedef struct tc_measure_outcome {
    tc_run_info info; /* as stored; info.status is the final status */
    int rep;          /* 0 for the first run of the group */
    tc_err rc;        /* TC_OK, or why the run failed (status "failed") */
    tc_measure_stage stage;
    char err[1100];           /* the reason when rc is not TC_OK */
    tc_runner_result load;    /* requests measured, abandoned at a stop, left unsaved */
    uint64_t samples_dropped; /* telemetry samples the sampler could not hand over */
    char finish_err[512];     /* "" or why the final status could not be stored */
    /* "" or why the run's figures were not stored beside its records
     * (they are computed from the records when read then: only time is lost). */
    char figures_err[512];
} tc_measure_outcome;

/* What happened on the way, said where it happens; text is a sentence
 * without a final newline ("the environment was not recorded: WHY"), but
 * for NO_SENSOR, which ends with why each source found nothing, a line
 * each. */
typedef enum tc_measure_notice {
    TC_MEASURE_NO_ENVIRONMENT, /* the environment was not recorded; the run goes on */
    TC_MEASURE_NO_SENSOR,      /* telemetry "auto" found no device; the run goes on */
    TC_MEASURE_SAMPLES_LOST,   /* a batch of samples was not stored (once a run) */
    TC_MEASURE_NO_WORKLOAD,    /* the workload shape was not stored; the run goes on */
    TC_MEASURE_NO_REMOTE,      /* a telemetry URL gave no device; the run goes on */
    TC_MEASURE_CLIENT_HOST,    /* no agent /env answered: the client's environment is stored */
    TC_MEASURE_SAVED_INLINE    /* no saver thread: batches saved by the timing thread; goes on */
} tc_measure_notice;

typedef struct tc_measure_callbacks {
    /* Set (e.g. by a signal handler, to the signal number) to stop: before
     * a run is stored, nothing is; during one, sending stops, in-flight
     * requests get a second and the run ends "interrupted". A flag, not a
     * query: the load generator reads it at every wake-up and a signal
     * wakes it, so a second signal soon after finds the run marked. Read
     * only; may be NULL. */
    volatile sig_atomic_t *stop;
    /* Each may be NULL. started: the run and its environment are stored,
     * measuring begins. progress: about five times a second while the
     * load runs. finished: the run has ended and its status is stored;
     * a nonzero return ends the group there. */
    void (*started)(void *ctx, const tc_run_info *run, int rep);
    void (*progress)(void *ctx, const tc_runner_progress *p);
    void (*notice)(void *ctx, tc_measure_notice what, const char *text);
    int (*finished)(void *ctx, const tc_measure_outcome *run);
    /* Each may be NULL (soak): a batch of finished records once handed
     * to the store (each record once), and a batch of telemetry samples
     * likewise. */
    void (*records)(void *ctx, const tc_req_record *recs, size_t n);
    void (*samples)(void *ctx, const tc_run_sample *s, size_t n);
    /* May be NULL. While the load runs, a saver thread writes into the
     * store (measure_saver.h): called with it as the load starts and with
     * NULL once it has stopped. A callback that writes into the store in
     * between (soak's windows) does it through tc_saver_with_store. */
    void (*saver)(void *ctx, tc_saver *saver);
    void *ctx;
} tc_measure_callbacks;

typedef struct tc_measure_result {
    int runs;               /* runs stored */
    int failed;             /* of them, ended "failed" */
    int interrupted;        /* the stop ended the group (maybe before a run was stored) */
    int64_t last_run_id;    /* 0 when none was stored */
    tc_measure_stage stage; /* where the returned error arose */
} tc_measure_result;

/* Makes cfg->repeat runs against `store`, one after another, until one is
 * interrupted or `finished` says stop. Returns TC_OK when every run made
 * was measured (an interrupted one too: out->interrupted); else the error
 * of the last that failed, its reason in err, its stage in out->stage.
 * TC_MEASURE_BEGIN: it could not be stored (or there are no prompts,
 * TC_ERR_INVALID) and no more are tried; the others, stored as failed,
 * were handed to `finished` like every stored run. */
TC_MUST_CHECK tc_err tc_measure_run(const tc_measure_config *cfg, tc_store *store,
                                    const tc_measure_callbacks *cb, tc_measure_result *out,
                                    char *err, size_t errlen);

/* Which prompts a run sends, so that compare can tell workloads apart:
 * "N prompt(s), fnv1a HASH" over every prompt and its token limit, or for
 * synthetic prompts "synthetic isl MIN-MAX osl M seed S". */
void tc_measure_prompt_set(const tc_prompts *p, char *out, size_t len);

#endif
