/* Settling a run before it measures (measure_plan.h). */
#include "measure/measure_plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure_setup.h"
#include "measure/measure_workload.h"

/* An open loop without a cap keeps as many requests in flight as its
 * arrivals need, up to this, or what the open-file limit allows. */
#define OPEN_LOOP_CEILING 10000

static void note(tc_measure_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(tc_measure_plan *p, const char *fmt, ...)
{
    if (p->n_notes >= TC_MEASURE_PLAN_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->notes[p->n_notes++], sizeof p->notes[0], fmt, ap);
    va_end(ap);
}

/* Room for a socket per request in flight. */
static tc_err enough_files(const tc_measure_ask *a, tc_measure_plan *p, char *err, size_t errlen)
{
    unsigned long long need, limit;
    long long c = a->rate > 0 ? (a->max_concurrency ? a->max_concurrency : OPEN_LOOP_CEILING)
                              : a->concurrency;
    tc_err rc = tc_measure_open_files(c, &need, &limit);
    if (rc == TC_ERR_INVALID && a->rate > 0 && !a->max_concurrency && limit > 64 + 16) {
        c = (long long)limit - 64;
        rc = tc_measure_open_files(c, &need, &limit);
    }
    p->concurrency = c;
    if (rc != TC_ERR_INVALID)
        return TC_OK;
    if (a->rate > 0)
        return tc_fail(err, errlen, rc,
                       "--max-concurrency %lld needs about %llu open files, but the limit is "
                       "%llu; raise it (ulimit -n) or lower --max-concurrency",
                       c, need, limit);
    return tc_fail(err, errlen, rc,
                   "-c %lld needs about %llu open files, but the limit is %llu; raise it "
                   "(ulimit -n) or lower -c",
                   c, need, limit);
}

static tc_err find_endpoint(const tc_measure_ask *a, tc_measure_plan *p, char *err, size_t errlen)
{
    if (!a->url)
        return tc_probe_find_local(&p->ep, err, errlen) == TC_OK ? TC_OK : TC_ERR_NOTFOUND;
    return tc_endpoint_parse(a->url, &p->ep, err, errlen) == TC_OK ? TC_OK : TC_ERR_INVALID;
}

/* The API key (tc_measure_api_key decides which may be sent where). */
static tc_err api_key(const tc_measure_ask *a, tc_measure_plan *p, char *err, size_t errlen)
{
    tc_measure_key how;
    if (tc_measure_api_key(a->key_env, &p->ep, &p->key, &how) != TC_OK)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--api-key-env %s: the variable is not set or empty", a->key_env);
    if (how == TC_MEASURE_KEY_WITHHELD)
        note(p,
             "not sending $OPENAI_API_KEY to %s over plain http; pass --api-key-env "
             "OPENAI_API_KEY to send it anyway",
             p->ep.stored);
    else if (how == TC_MEASURE_KEY_DEFAULT)
        note(p, "sending $OPENAI_API_KEY as a Bearer token to %s", p->ep.stored);
    return TC_OK;
}

static tc_err load_prompts(const tc_measure_ask *a, tc_measure_plan *p, char *err, size_t errlen)
{
    if (a->isl) /* synthetic: made once the server is known */
        return TC_OK;
    tc_err rc = a->prompts_file
                    ? tc_prompts_load(a->prompts_file, &p->prompts, err, errlen)
                    : tc_prompts_single(a->prompt ? a->prompt : TC_DEFAULT_PROMPT, &p->prompts);
    if (rc == TC_ERR_NOMEM)
        return tc_fail(err, errlen, rc, "out of memory");
    if (rc == TC_OK && a->shard_n > 1)
        tc_prompts_stride(&p->prompts, (size_t)(a->shard_i - 1), (size_t)a->shard_n);
    return rc == TC_OK ? TC_OK : TC_ERR_INVALID;
}

/* The server behind the endpoint, the API to speak and the model. */
static tc_err find_server(const tc_measure_ask *a, tc_measure_plan *p, char *err, size_t errlen)
{
    tc_err rc = tc_probe_server(&p->ep, p->key, 5.0, &p->probe, err, errlen);
    if (rc != TC_OK)
        return rc == TC_ERR_INVALID ? TC_ERR_IO : rc;
    if (!a->url)
        note(p, "no URL given; found %s at %s", tc_server_kind_name(p->probe.kind), p->ep.stored);
    tc_api want;
    if (!a->api || strcmp(a->api, "auto") == 0 || tc_api_parse(a->api, &want) < 0)
        p->api = tc_server_default_api(p->probe.kind);
    else if (tc_probe_speaks(&p->probe, want))
        p->api = want;
    else
        return tc_fail(err, errlen, TC_ERR_IO,
                       "--api %s: the server at %s (%s) does not serve that API; try --api %s or "
                       "--api auto",
                       a->api, p->ep.stored, tc_server_kind_name(p->probe.kind),
                       tc_api_name(tc_server_default_api(p->probe.kind)));
    if (tc_probe_pick_model(&p->probe, a->model, p->model, sizeof p->model, err, errlen) != TC_OK)
        return TC_ERR_INVALID;
    return TC_OK;
}

/* Synthetic prompts: calibrated against the server, then made. */
static tc_err synthetic(const tc_measure_ask *a, tc_measure_plan *p, char *err, size_t errlen)
{
    if (!a->isl)
        return TC_OK;
    tc_workload_ask ask = {.preset = a->workload,
                           .seed = a->seed,
                           .isl = a->isl,
                           .osl = a->osl,
                           .isl_range = a->isl_range};
    tc_workload_server srv = {.endpoint = p->ep,
                              .api = p->api,
                              .model = p->model,
                              .api_key = p->key,
                              .timeout_s = a->timeout_s,
                              .probe = &p->probe};
    tc_calib_result cal;
    tc_err rc = tc_measure_workload(&ask, &srv, &p->prompts, &p->shape, &cal, err, errlen);
    if (rc != TC_OK)
        return rc == TC_ERR_INVALID ? TC_ERR_IO : rc;
    const tc_run_workload *w = &p->shape;
    snprintf(p->calibration, sizeof p->calibration,
             "prompts of %lld-%lld tokens: %.3f tokens per word + %.1f per prompt (the server's "
             "%s for %lld and %lld words: %lld and %lld)",
             (long long)w->isl_min, (long long)w->isl, w->tokens_per_word, w->overhead_tokens,
             w->calibration, (long long)cal.words[0], (long long)cal.words[1],
             (long long)cal.tokens[0], (long long)cal.tokens[1]);
    if (w->eos_note[0])
        note(p, "%s", w->eos_note);
    return TC_OK;
}

tc_err tc_measure_plan_open(const tc_measure_ask *a, tc_measure_plan *p, char *err, size_t errlen)
{
    memset(p, 0, sizeof *p);
    tc_err rc = enough_files(a, p, err, errlen);
    if (rc == TC_OK)
        rc = find_endpoint(a, p, err, errlen);
    if (rc == TC_OK)
        rc = api_key(a, p, err, errlen);
    if (rc == TC_OK)
        rc = load_prompts(a, p, err, errlen);
    if (rc == TC_OK)
        rc = find_server(a, p, err, errlen);
    if (rc == TC_OK)
        rc = synthetic(a, p, err, errlen);
    return rc;
}

void tc_measure_plan_close(tc_measure_plan *p)
{
    if (!p)
        return;
    tc_prompts_free(&p->prompts);
    tc_probe_free(&p->probe);
}

tc_err tc_measure_plan_group(tc_store *st, const char *label, int repeat, char *group, size_t len,
                             char *err, size_t errlen)
{
    size_t n;
    tc_err rc = tc_measure_group(st, label, repeat, group, len, &n, err, errlen);
    if (rc != TC_OK || n == 0)
        return rc == TC_ERR_INVALID ? TC_ERR_IO : rc; /* the store's: not the options' */
    if (group[0])
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "group '%s' already has %zu run(s); choose another --label", group, n);
    return tc_fail(err, errlen, TC_ERR_INVALID,
                   "--label '%s' names a group of %zu repeated runs; commands would take the name "
                   "for the group: choose another label",
                   label, n);
}

tc_err tc_measure_plan_shard_group(tc_store *st, const char *label, int n, char *err, size_t errlen)
{
    tc_run_info *runs = NULL;
    size_t have = 0;
    tc_err rc = tc_store_find_group(st, label, &runs, &have, err, errlen);
    if (rc == TC_ERR_INVALID)
        rc = TC_ERR_IO; /* the store's: not the options' */
    for (size_t k = 0; rc == TC_OK && k < have; k++)
        if (strcmp(runs[k].group_kind, "shard") != 0)
            rc = tc_fail(err, errlen, TC_ERR_INVALID,
                         "--label '%s' names a group that is not sharded; choose another --label "
                         "for the shards",
                         label);
    if (rc == TC_OK && have >= (size_t)n)
        rc = tc_fail(err, errlen, TC_ERR_INVALID,
                     "group '%s' already has %zu shard run(s) of %d: choose another --label for a "
                     "new sharded run",
                     label, have, n);
    free(runs);
    return rc;
}
