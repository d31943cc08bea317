/* The records that flow between the layers: one request as measured (bench/
 * fills it, store/ keeps it, analysis/ computes figures from it) and one
 * run. Times are CLOCK_MONOTONIC nanoseconds unless named _wall_ns. */
#ifndef TC_RECORD_H
#define TC_RECORD_H

#include <stddef.h>
#include <stdint.h>

/* The API a run speaks. */
typedef enum tc_api {
    TC_API_OLLAMA = 0,  /* POST /api/generate, NDJSON */
    TC_API_OLLAMA_CHAT, /* POST /api/chat, NDJSON */
    TC_API_OPENAI,      /* POST /v1/completions, SSE */
    TC_API_OPENAI_CHAT, /* POST /v1/chat/completions, SSE */
    TC_API_LLAMACPP,    /* POST /completion (llama.cpp native), SSE without [DONE] */
    TC_API_COUNT
} tc_api;

/* "ollama", "ollama-chat", "openai", "openai-chat", "llamacpp". */
const char *tc_api_name(tc_api api);

/* Parses a name above; returns 0, or -1 when unknown. */
int tc_api_parse(const char *name, tc_api *out);

/* Why a request failed. */
typedef enum tc_req_error {
    TC_REQ_OK = 0,
    TC_REQ_CONNECT,     /* could not connect */
    TC_REQ_TIMEOUT,     /* --timeout passed */
    TC_REQ_HTTP,        /* HTTP status >= 400 */
    TC_REQ_MALFORMED,   /* a chunk that is not valid JSON, or broken framing */
    TC_REQ_DISCONNECT,  /* the connection ended before the stream's end */
    TC_REQ_SERVER,      /* an error object inside the stream */
    TC_REQ_INTERRUPTED, /* cut off by Ctrl-C after the grace period; kept as measured */
    TC_REQ_ERROR_COUNT
} tc_req_error;

/* "ok", "connect", "timeout", "http", "malformed", "disconnect", "server",
 * "interrupted". */
const char *tc_req_error_name(tc_req_error e);
int tc_req_error_parse(const char *name, tc_req_error *out);

/* Where a token count came from, best first. */
typedef enum tc_token_source {
    TC_TOKENS_NONE = 0, /* unknown */
    TC_TOKENS_USAGE,    /* OpenAI usage object */
    TC_TOKENS_SERVER,   /* server's own count: Ollama eval_count, llama.cpp tokens_predicted/timings
                         */
    TC_TOKENS_CHUNKS    /* counted chunks carrying text (a lower bound when chunks hold several) */
} tc_token_source;

/* "none", "usage", "server", "chunks". */
const char *tc_token_source_name(tc_token_source s);
int tc_token_source_parse(const char *name, tc_token_source *out);

/* What the server reported about itself, each group with a validity bit. */
typedef struct tc_server_report {
    int has_ollama; /* Ollama's final object; a missing field means 0 */
    int64_t total_ns, load_ns, prompt_eval_ns, eval_ns;
    int64_t prompt_eval_count, eval_count;

    int has_timings; /* llama.cpp's timings object */
    int64_t prompt_n, predicted_n;
    double prompt_ms, predicted_ms, predicted_per_second;
} tc_server_report;

typedef struct tc_req_record {
    int64_t seq;     /* order of sending within the run, from 0 */
    int warmup;      /* 1: a warm-up request, stored but left out of every figure */
    int64_t send_ns; /* when the request was handed to its connection (after connect or reuse) */
    int64_t send_wall_ns;
    /* When it was meant to go out: its time on an open loop's arrival
     * schedule, the send time in a closed loop; 0 reads as send_ns. TTFT
     * and E2E count from here, so a request sent late (the client behind,
     * or --max-concurrency full) is charged its wait (wrk2's correction
     * for coordinated omission). */
    int64_t sched_ns;
    int64_t end_ns;  /* last byte (or failure) time */
    int http_status; /* 0 when no response */
    /* 1: its first attempt went out on a kept-alive connection the server
     * had closed, and died before any response byte; it was sent once more
     * on a fresh connection (a server that closes reused connections, as
     * llama.cpp's does). Latency still counts from the first intended send. */
    int retried;
    tc_req_error error;
    char error_detail[200]; /* human-readable, empty when ok */

    /* Arrival time of every chunk that carried generated text. The first
     * one is the TTFT's end; the gaps between them are the ITLs. */
    int64_t *chunk_ns;
    size_t n_chunks, cap_chunks;

    int64_t output_tokens;
    tc_token_source output_source;
    int64_t prompt_tokens;
    tc_token_source prompt_source;
    tc_server_report server;
} tc_req_record;

/* Zeroes a record. */
void tc_req_record_init(tc_req_record *r);

/* Frees the chunk array and zeroes the record; accepts NULL. */
void tc_req_record_clear(tc_req_record *r);

/* Clears each of n records and frees the array; accepts NULL. */
void tc_req_records_free(tc_req_record *recs, size_t n);

/* Appends one chunk arrival time. Returns 0, or -1 on allocation failure. */
int tc_req_record_add_chunk(tc_req_record *r, int64_t t_ns);

/* When the request's latency starts: sched_ns, or send_ns when unset. */
int64_t tc_req_start_ns(const tc_req_record *r);

/* Derived per-request figures (ns), from tc_req_start_ns; -1 when not
 * defined (failed request, no text chunk, fewer than two tokens for TPOT). */
int64_t tc_req_ttft_ns(const tc_req_record *r);
int64_t tc_req_e2e_ns(const tc_req_record *r);
/* TPOT = (E2E - TTFT) / (output tokens - 1), in ns (as a double). */
double tc_req_tpot_ns(const tc_req_record *r);

/* How a run sent its requests: a closed loop (a fixed number in flight,
 * each one replaced as it ends) or an open loop whose arrivals follow a
 * process at a given rate: exponential gaps (Poisson), equal gaps
 * (constant) or gamma gaps of shape `burstiness` (1: Poisson; lower:
 * burstier), as vLLM's benchmark draws them. */
typedef enum tc_arrival {
    TC_ARRIVAL_CLOSED = 0,
    TC_ARRIVAL_POISSON,
    TC_ARRIVAL_CONSTANT,
    TC_ARRIVAL_GAMMA,
    TC_ARRIVAL_COUNT
} tc_arrival;

/* "closed", "poisson", "constant", "gamma". */
const char *tc_arrival_name(tc_arrival a);
int tc_arrival_parse(const char *name, tc_arrival *out);

/* Where a run stands: running while measured, then one of the ends. */
typedef enum tc_run_status {
    TC_RUN_RUNNING = 0,
    TC_RUN_COMPLETE,
    TC_RUN_FAILED,
    TC_RUN_INTERRUPTED,
    TC_RUN_STATUS_COUNT
} tc_run_status;

/* "running", "complete", "failed", "interrupted" (as stored and shown). */
const char *tc_status_name(tc_run_status s);
int tc_status_parse(const char *name, tc_run_status *out);

/* One run: what was asked and of whom. Figures are computed on read from
 * its requests (analysis/), so none are kept here. */
typedef struct tc_run_info {
    int64_t id;      /* assigned by the store */
    char label[128]; /* user's name for the run; "" = none */
    tc_run_status status;
    int64_t created_wall_ns; /* when the run started */
    char endpoint[512];      /* base URL, credentials and query stripped */
    tc_api api;
    char model[256];
    int simulated;           /* 1 when the server is truecost sim */
    char server_version[64]; /* as the server reported it; "" = unknown */
    int concurrency;
    int warmup;        /* warm-up requests asked for */
    int64_t requests;  /* measured requests asked for; 0 with a duration */
    double duration_s; /* --duration; 0 with a request count */
    int64_t max_tokens;
    /* Schema 4: the group of a `run --repeat K` ("" = not in one) and the
     * fingerprint of the prompts sent ("" = not recorded, older runs). */
    char group[128];
    char prompt_set[64];
    /* Schema 6: the run's service-level objectives as `--slo` took them
     * ("" = none; analysis/slo.h reads them). */
    char slo[96];
    /* Schema 8: the load's shape. A closed loop (arrival CLOSED, the rest
     * 0) keeps `concurrency` in flight; an open loop sends at `rate`
     * requests/s on a schedule drawn from `seed`, with at most
     * `max_concurrency` in flight (0: no cap given; `concurrency` is then
     * the client's own ceiling). */
    tc_arrival arrival;
    double rate;
    double burstiness; /* the gamma shape; 0 unless arrival is GAMMA */
    uint64_t seed;
    int max_concurrency;
    /* Schema 9: what kind of group the run belongs to ("sweep"; "" for a
     * --repeat group or none) and the GPUs its throughput is shared by
     * (sweep --gpus; 0 = not given: the GPUs its telemetry saw, else 1). */
    char group_kind[16];
    int gpus;
    /* Schema 10: the run's identity across stores (32 hex digits; set by
     * the store when a run begins with ""), so `truecost import` copies
     * each run once. */
    char uuid[40];
    /* The command line that made it (a URL's password as "***"); ""
     * unknown (an older truecost, or a library caller). */
    char command[512];
} tc_run_info;

/* Schema 5: the workload shape of a run made of synthetic prompts (run
 * --isl/--osl/--workload); runs of given prompts have none. */
typedef struct tc_run_workload {
    char preset[16];    /* "chat", "reasoning", "summarize"; "" = none */
    int64_t seed;       /* the generator's */
    int64_t isl_min;    /* target prompt tokens: uniform from isl_min ... */
    int64_t isl;        /* ... to isl */
    double isl_range;   /* isl_min as a fraction of isl, as asked */
    int64_t osl;        /* target output tokens (each request's token limit) */
    int ignore_eos;     /* 1: the requests asked the server to ignore EOS */
    char eos_note[200]; /* why they did not, when not; "" when they did */
    /* The calibration: the server counts overhead + tokens_per_word * words
     * for a prompt of generated words; calibration names the count used
     * ("usage.prompt_tokens", "prompt_eval_count", "tokens_evaluated",
     * "/tokenize"). */
    double tokens_per_word, overhead_tokens;
    char calibration[32];
} tc_run_workload;

#endif
