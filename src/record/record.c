#include "record.h"
#include "record_enum.h"
#include "core/tc_grow.h"

#include <stdlib.h>
#include <string.h>

static const char *const api_names[TC_API_COUNT] = {"ollama", "ollama-chat", "openai",
                                                    "openai-chat", "llamacpp"};
static const char *const error_names[TC_REQ_ERROR_COUNT] = {
    "ok", "connect", "timeout", "http", "malformed", "disconnect", "server", "interrupted"};
static const char *const source_names[] = {"none", "usage", "server", "chunks"};
static const char *const arrival_names[TC_ARRIVAL_COUNT] = {"closed", "poisson", "constant",
                                                            "gamma"};
static const char *const status_names[TC_RUN_STATUS_COUNT] = {"running", "complete", "failed",
                                                              "interrupted"};

TC_ENUM_NAMES(tc_api, tc_api, api_names, TC_API_COUNT, "?")
TC_ENUM_NAMES(tc_req_error, tc_req_error, error_names, TC_REQ_ERROR_COUNT, "?")
TC_ENUM_NAMES(tc_token_source, tc_token_source, source_names,
              (int)(sizeof source_names / sizeof source_names[0]), "?")
TC_ENUM_NAMES(tc_arrival, tc_arrival, arrival_names, TC_ARRIVAL_COUNT, "?")
TC_ENUM_NAMES(tc_run_status, tc_status, status_names, TC_RUN_STATUS_COUNT, "?")

void tc_req_record_init(tc_req_record *r)
{
    memset(r, 0, sizeof *r);
}

void tc_req_record_clear(tc_req_record *r)
{
    if (!r)
        return;
    free(r->chunk_ns);
    memset(r, 0, sizeof *r);
}

void tc_req_records_free(tc_req_record *recs, size_t n)
{
    if (!recs)
        return;
    for (size_t i = 0; i < n; i++)
        tc_req_record_clear(&recs[i]);
    free(recs);
}

int tc_req_record_add_chunk(tc_req_record *r, int64_t t_ns)
{
    if (tc_grow(&r->chunk_ns, &r->cap_chunks, r->n_chunks, sizeof *r->chunk_ns, 256) < 0)
        return -1;
    r->chunk_ns[r->n_chunks++] = t_ns;
    return 0;
}

int64_t tc_req_start_ns(const tc_req_record *r)
{
    return r->sched_ns > 0 ? r->sched_ns : r->send_ns;
}

int64_t tc_req_ttft_ns(const tc_req_record *r)
{
    if (r->error != TC_REQ_OK || r->n_chunks == 0)
        return -1;
    return r->chunk_ns[0] - tc_req_start_ns(r);
}

int64_t tc_req_e2e_ns(const tc_req_record *r)
{
    if (r->error != TC_REQ_OK || r->end_ns <= 0)
        return -1;
    return r->end_ns - tc_req_start_ns(r);
}

double tc_req_tpot_ns(const tc_req_record *r)
{
    int64_t ttft = tc_req_ttft_ns(r), e2e = tc_req_e2e_ns(r);
    if (ttft < 0 || e2e < 0 || r->output_tokens < 2)
        return -1;
    return (double)(e2e - ttft) / (double)(r->output_tokens - 1);
}
