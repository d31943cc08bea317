/* libFuzzer target: the response parser (and under it the SSE framer and
 * the JSON scanner) on every API, streamed and not.
 *
 * Byte 0 picks the API (its low 3 bits, modulo the API count) and the mode
 * (bit 3 set: not streamed); byte 1 bounds the slice sizes (0: one
 * slice); the rest is the response body, fed in slices whose sizes come
 * from a generator seeded by the data. Seeds are "\x03\x00" + a real
 * stream. Besides the record's invariants it checks that slicing changes
 * nothing: the same body fed whole gives the same record but for times. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bench/bench_stream.h"
#include "core/tc_rng.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define T0 1000

static void check(int ok)
{
    if (!ok)
        __builtin_trap();
}

/* Well-formed UTF-8 and no control characters: the detail is shown,
 * stored and written into JSON reports as it is. */
static int clean_text(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        int n = *u < 0x80                  ? 0
                : *u >= 0xC2 && *u <= 0xDF ? 1
                : *u >= 0xE0 && *u <= 0xEF ? 2
                : *u >= 0xF0 && *u <= 0xF4 ? 3
                                           : -1;
        if (n < 0 || *u < 0x20 || *u == 0x7F)
            return 0;
        for (int i = 1; i <= n; i++)
            if ((u[i] & 0xC0) != 0x80)
                return 0;
        u += n + 1;
    }
    return 1;
}

static void check_record(const tc_req_record *r, int64_t end_ns)
{
    for (size_t i = 0; i < r->n_chunks; i++)
        check(r->chunk_ns[i] >= T0 && r->chunk_ns[i] <= end_ns &&
              (i == 0 || r->chunk_ns[i] >= r->chunk_ns[i - 1]));
    check(r->n_chunks <= r->cap_chunks);
    check(r->output_tokens >= 0 && r->prompt_tokens >= 0);
    check(r->output_source != TC_TOKENS_NONE && r->output_source <= TC_TOKENS_CHUNKS);
    check(r->output_source != TC_TOKENS_CHUNKS || r->output_tokens == (int64_t)r->n_chunks);
    check(r->prompt_source != TC_TOKENS_CHUNKS);
    check(r->prompt_source != TC_TOKENS_NONE || r->prompt_tokens == 0);
    check((unsigned)r->error < TC_REQ_ERROR_COUNT);
    check(memchr(r->error_detail, '\0', sizeof r->error_detail) != NULL);
    check((r->error == TC_REQ_OK) == (r->error_detail[0] == '\0'));
    check(clean_text(r->error_detail));
    const tc_server_report *s = &r->server;
    check(s->total_ns >= 0 && s->load_ns >= 0 && s->prompt_eval_ns >= 0 && s->eval_ns >= 0);
    check(s->prompt_eval_count >= 0 && s->eval_count >= 0);
    check(s->prompt_n >= 0 && s->predicted_n >= 0);
    check(s->prompt_ms == s->prompt_ms && s->predicted_ms == s->predicted_ms); /* not NaN */
}

/* Feeds body in slices of 1..max bytes (max 0: whole), then finishes. */
static void run(tc_stream_parser *p, const char *body, size_t len, unsigned max, tc_req_record *r,
                int64_t *end_ns)
{
    tc_rng rng;
    int64_t t = T0;
    tc_rng_seed(&rng, tc_hash_bytes(body, len, max));
    tc_req_record_init(r);
    for (size_t i = 0; i < len;) {
        size_t n = max ? 1 + tc_rng_next(&rng) % max : len;
        n = n < len - i ? n : len - i;
        check(tc_stream_feed(p, body + i, n, t, r) == TC_OK);
        t += (int64_t)(tc_rng_next(&rng) % 1000);
        i += n;
    }
    check(tc_stream_finish(p, t, r) == TC_OK);
    *end_ns = t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tc_stream_parser *whole; /* reused through reset, as the client does */
    if (size < 2)
        return 0;
    tc_api api = (tc_api)((data[0] & 7u) % TC_API_COUNT);
    int streaming = !(data[0] & 8u);
    const char *body = (const char *)data + 2;
    size_t len = size - 2;

    tc_stream_parser *sliced = tc_stream_new(api, streaming);
    check(sliced != NULL);
    if (!whole)
        whole = tc_stream_new(api, streaming);
    else
        check(tc_stream_reset(whole, api, streaming) == TC_OK);

    tc_req_record a, b;
    int64_t end_a, end_b;
    run(sliced, body, len, data[1], &a, &end_a);
    run(whole, body, len, 0, &b, &end_b);
    check_record(&a, end_a);
    check_record(&b, end_b);

    check(a.error == b.error && strcmp(a.error_detail, b.error_detail) == 0);
    check(a.n_chunks == b.n_chunks);
    check(a.output_tokens == b.output_tokens && a.output_source == b.output_source);
    check(a.prompt_tokens == b.prompt_tokens && a.prompt_source == b.prompt_source);
    check(memcmp(&a.server, &b.server, sizeof a.server) == 0);

    tc_req_record_clear(&a);
    tc_req_record_clear(&b);
    tc_stream_free(sliced);
    return 0;
}
