#include "record.h"

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

static int find_name(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *tc_api_name(tc_api api)
{
    return (unsigned)api < TC_API_COUNT ? api_names[api] : "?";
}

int tc_api_parse(const char *name, tc_api *out)
{
    int i = find_name(api_names, TC_API_COUNT, name);
    if (i < 0)
        return -1;
    *out = (tc_api)i;
    return 0;
}

const char *tc_req_error_name(tc_req_error e)
{
    return (unsigned)e < TC_REQ_ERROR_COUNT ? error_names[e] : "?";
}

int tc_req_error_parse(const char *name, tc_req_error *out)
{
    int i = find_name(error_names, TC_REQ_ERROR_COUNT, name);
    if (i < 0)
        return -1;
    *out = (tc_req_error)i;
    return 0;
}

const char *tc_token_source_name(tc_token_source s)
{
    return (unsigned)s < 4 ? source_names[s] : "?";
}

int tc_token_source_parse(const char *name, tc_token_source *out)
{
    int i = find_name(source_names, 4, name);
    if (i < 0)
        return -1;
    *out = (tc_token_source)i;
    return 0;
}

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

int tc_req_record_add_chunk(tc_req_record *r, int64_t t_ns)
{
    if (r->n_chunks == r->cap_chunks) {
        size_t cap = r->cap_chunks ? r->cap_chunks * 2 : 256;
        int64_t *p = realloc(r->chunk_ns, cap * sizeof *p);
        if (!p)
            return -1;
        r->chunk_ns = p;
        r->cap_chunks = cap;
    }
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

const char *tc_arrival_name(tc_arrival a)
{
    return (unsigned)a < TC_ARRIVAL_COUNT ? arrival_names[a] : "?";
}

int tc_arrival_parse(const char *name, tc_arrival *out)
{
    int i = find_name(arrival_names, TC_ARRIVAL_COUNT, name);
    if (i < 0)
        return -1;
    *out = (tc_arrival)i;
    return 0;
}

const char *tc_run_status_name(tc_run_status s)
{
    return (unsigned)s < TC_RUN_STATUS_COUNT ? status_names[s] : "?";
}

int tc_run_status_parse(const char *name, tc_run_status *out)
{
    int i = find_name(status_names, TC_RUN_STATUS_COUNT, name);
    if (i < 0)
        return -1;
    *out = (tc_run_status)i;
    return 0;
}
