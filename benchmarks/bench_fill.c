#include "bench_fill.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_runner.h"
#include "core/tc_time.h"
#include "measure/measure_saver.h"

static int64_t send_ns(const bench_fill *f, long long seq)
{
    if (f->in_flight <= 0)
        return 1000000000LL + seq * 1000000LL;
    return 1000000000LL + (seq / f->in_flight) * 200000000LL + (seq % f->in_flight) * 10000LL;
}

static int fill_record(const bench_fill *f, long long seq, uint64_t *jitter, tc_req_record *r)
{
    tc_req_record_clear(r);
    r->seq = seq;
    r->send_ns = send_ns(f, seq);
    int64_t t = r->send_ns + 20000000LL;
    for (int k = 0; k < f->per_request; k++) {
        *jitter = *jitter * 6364136223846793005ULL + 1442695040888963407ULL;
        t += 8000000LL + (int64_t)((*jitter >> 33) % 4000000ULL);
        if (tc_req_record_add_chunk(r, t) != 0)
            return -1;
    }
    r->end_ns = r->chunk_ns[f->per_request - 1] + 1000;
    r->http_status = 200;
    r->output_tokens = f->per_request;
    r->output_source = TC_TOKENS_USAGE;
    r->prompt_tokens = 10;
    r->prompt_source = TC_TOKENS_USAGE;
    return 0;
}

int bench_fill_run(tc_store *s, const bench_fill *f, const char *who, tc_run_info *run,
                   int64_t *save_ns)
{
    char err[512] = "out of memory";
    memset(run, 0, sizeof *run);
    run->api = TC_API_OPENAI;
    run->concurrency = 64;
    snprintf(run->model, sizeof run->model, "bench-model");
    snprintf(run->label, sizeof run->label, "%s", f->label ? f->label : "");
    snprintf(run->endpoint, sizeof run->endpoint, "http://127.0.0.1:1");
    tc_req_record *recs = calloc((size_t)f->batch, sizeof *recs);
    int64_t t0 = tc_mono_ns();
    int ok = recs && tc_store_run_begin(s, run, err, sizeof err) == TC_OK;
    tc_saver *saver = NULL;
    ok = ok && (!f->saver || tc_saver_start(s, run->id, TC_RUNNER_SAVE_PATIENCE_S, &saver, err,
                                            sizeof err) == TC_OK);
    uint64_t jitter = 1;
    for (long long seq = 0; ok && seq < f->requests;) {
        size_t n = 0;
        for (; ok && n < (size_t)f->batch && seq < f->requests; n++, seq++)
            ok = fill_record(f, seq, &jitter, &recs[n]) == 0;
        ok = ok && (saver ? tc_saver_add_requests(saver, recs, n, err, sizeof err) == 0
                          : tc_store_add_requests(s, run->id, recs, n, err, sizeof err) == TC_OK);
    }
    ok = tc_saver_stop(saver, err, sizeof err) == 0 && ok;
    ok = ok && tc_store_run_finish(s, run->id, TC_RUN_COMPLETE, err, sizeof err) == TC_OK;
    if (ok && save_ns)
        *save_ns = tc_mono_ns() - t0;
    for (int i = 0; recs && i < f->batch; i++)
        tc_req_record_clear(&recs[i]);
    free(recs);
    if (!ok)
        fprintf(stderr, "%s: %s\n", who, err);
    return ok ? 0 : -1;
}
