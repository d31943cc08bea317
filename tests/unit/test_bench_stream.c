/* Unit tests of the response parser: real-shaped streams of every API,
 * sliced every way, checking what lands in the record. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_assert.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench_stream.h"
#include "sim/sim_wire.h"

/* ---- Fixtures, in the exact shapes the servers send ---- */

#define OAI_HEAD                                                                                   \
    "data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1718345013,"    \
    "\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":[{\"index\":0,"
#define OAI_TAIL "\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n"

/* vLLM chat with include_usage: role-only chunk, a chunk of several
 * tokens, an empty delta with finish_reason, the usage chunk, [DONE]. */
static const char OAI_CHAT[] = OAI_HEAD
    "\"delta\":{\"role\":\"assistant\",\"content\":\"\"}," OAI_TAIL OAI_HEAD
    "\"delta\":{\"content\":\"Hello\"}," OAI_TAIL OAI_HEAD
    "\"delta\":{\"content\":\" world, how are\"}," OAI_TAIL OAI_HEAD
    "\"delta\":{},\"logprobs\":null,\"finish_reason\":\"length\"}],\"usage\":null}\n\n"
    "data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1718345013,"
    "\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":6,\"completion_tokens\":5,"
    "\"total_tokens\":11}}\n\n"
    "data: [DONE]\n\n";
static const char OAI_CHAT_TEXT[] = "FTTFFF"; /* per event: does it carry text? */

/* Completions from llama.cpp's /v1: no usage asked, timings on the last. */
static const char OAI_COMPLETIONS[] =
    "data: {\"choices\":[{\"text\":\" The\",\"index\":0,\"logprobs\":null,\"finish_reason\":null}],"
    "\"created\":1,\"model\":\"q\",\"object\":\"text_completion\",\"id\":\"cmpl-1\"}\n\n"
    ": ping\n\n"
    "data: {\"choices\":[{\"text\":\" sky\",\"index\":0,\"logprobs\":null,\"finish_reason\":"
    "\"length\"}],\"created\":1,\"model\":\"q\",\"object\":\"text_completion\",\"id\":\"cmpl-1\","
    "\"timings\":{\"prompt_n\":4,\"prompt_ms\":12.5,\"prompt_per_token_ms\":3.125,"
    "\"prompt_per_second\":320.0,\"predicted_n\":2,\"predicted_ms\":30.25,"
    "\"predicted_per_token_ms\":15.125,\"predicted_per_second\":66.115702}}\n\n"
    "data: [DONE]\n\n";

#define OLLAMA_HEAD "{\"model\":\"llama3.2:1b\",\"created_at\":\"2026-11-29T15:31:54.123456789Z\","

static const char OLLAMA_GENERATE[] = OLLAMA_HEAD
    "\"response\":\"The\",\"done\":false}\n" OLLAMA_HEAD
    "\"response\":\" sky\",\"done\":false}\n" OLLAMA_HEAD
    "\"response\":\"\\n\",\"done\":false}\n" OLLAMA_HEAD
    "\"response\":\"\",\"done\":true,\"done_reason\":\"length\",\"total_duration\":"
    "100000000,\"load_duration\":1000,\"prompt_eval_count\":6,\"prompt_eval_duration\":3000000,"
    "\"eval_count\":3,\"eval_duration\":80000000}\n";
static const char OLLAMA_GENERATE_TEXT[] = "TTTF";

static const char OLLAMA_CHAT[] = OLLAMA_HEAD
    "\"message\":{\"role\":\"assistant\",\"content\":\"\",\"thinking\":\"Hm\"},"
    "\"done\":false}\n" OLLAMA_HEAD
    "\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":false}\r\n" OLLAMA_HEAD
    "\"message\":{\"role\":\"assistant\",\"content\":\"\"},\"done\":true,"
    "\"done_reason\":\"stop\",\"eval_count\":2}\n";

static const char LLAMA[] =
    "data: {\"index\":0,\"content\":\" Hi\",\"tokens\":[],\"stop\":false,\"id_slot\":0,"
    "\"tokens_predicted\":1,\"tokens_evaluated\":5}\n\n"
    "data: {\"index\":0,\"content\":\" there\",\"tokens\":[],\"stop\":false,\"id_slot\":0,"
    "\"tokens_predicted\":2,\"tokens_evaluated\":5}\n\n"
    "data: {\"index\":0,\"content\":\"\",\"id_slot\":0,\"stop\":true,\"model\":\"q\","
    "\"tokens_predicted\":3,\"tokens_evaluated\":5,\"stop_type\":\"limit\",\"truncated\":false,"
    "\"timings\":{\"prompt_n\":4,\"prompt_ms\":1.5,\"predicted_n\":2,\"predicted_ms\":20.0,"
    "\"predicted_per_second\":100.0}}\n\n";
static const char LLAMA_TEXT[] = "TTF";

/* ---- Helpers ---- */

/* Fails showing the detail when the record has an error. */
static void expect_ok(const tc_req_record *r)
{
    if (r->error != TC_REQ_OK)
        fail_msg("error %s: %s", tc_req_error_name(r->error), r->error_detail);
}

static tc_stream_parser *parser(tc_api api, int streaming)
{
    tc_stream_parser *p = tc_stream_new(api, streaming);
    assert_non_null(p);
    return p;
}

static void feed(tc_stream_parser *p, tc_req_record *r, const char *s, size_t n, int64_t t)
{
    assert_int_equal(tc_stream_feed(p, s, n, t, r), TC_OK);
}

/* Parses a whole response fed in one slice at t=100, finished at t=200. */
static void parse(tc_api api, int streaming, const char *body, tc_req_record *r)
{
    tc_stream_parser *p = parser(api, streaming);
    tc_req_record_init(r);
    feed(p, r, body, strlen(body), 100);
    assert_int_equal(tc_stream_finish(p, 200, r), TC_OK);
    tc_stream_free(p);
}

/* Index of the byte that completes each document of a stream: the '\n'
 * of an NDJSON line, the second '\n' of "\n\n" in SSE. */
static size_t doc_ends(const char *s, int ndjson, size_t *ends, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; s[i] && n < max; i++)
        if (s[i] == '\n' && (ndjson || (i > 0 && s[i - 1] == '\n')))
            ends[n++] = i;
    return n;
}

/* Feeds `s` one byte at a time, byte i at time i: each text chunk must
 * be timed by the byte that completed it; and in two slices at every
 * split, each text chunk timed by its slice. Returns nothing; asserts. */
static void check_slicing(tc_api api, const char *s, const char *text_mask)
{
    size_t n = strlen(s), ends[16], want[16], nw = 0;
    size_t nd = doc_ends(s, api <= TC_API_OLLAMA_CHAT, ends, 16);
    assert_int_equal(nd, strlen(text_mask));
    for (size_t d = 0; d < nd; d++)
        if (text_mask[d] == 'T')
            want[nw++] = ends[d];
    tc_req_record r;
    tc_stream_parser *p = parser(api, 1);
    for (size_t k = 0; k <= n; k++) { /* k == n: one byte at a time */
        tc_req_record_init(&r);
        assert_int_equal(tc_stream_reset(p, api, 1), TC_OK);
        if (k < n) {
            feed(p, &r, s, k, 1);
            feed(p, &r, s + k, n - k, 2);
        } else {
            for (size_t i = 0; i < n; i++)
                feed(p, &r, s + i, 1, (int64_t)i);
        }
        assert_int_equal(tc_stream_finish(p, 1000, &r), TC_OK);
        expect_ok(&r);
        assert_int_equal(r.n_chunks, nw);
        for (size_t c = 0; c < nw; c++)
            assert_int_equal(r.chunk_ns[c], k == n ? (int64_t)want[c] : want[c] < k ? 1 : 2);
        tc_req_record_clear(&r);
    }
    tc_stream_free(p);
}

/* ---- Streams of each API ---- */

static void openai_chat_stream(void **state)
{
    (void)state;
    tc_req_record r;
    parse(TC_API_OPENAI_CHAT, 1, OAI_CHAT, &r);
    expect_ok(&r);
    assert_int_equal(r.n_chunks, 2); /* the role-only chunk is no token */
    assert_int_equal(r.output_tokens, 5);
    assert_int_equal(r.output_source, TC_TOKENS_USAGE);
    assert_int_equal(r.prompt_tokens, 6);
    assert_int_equal(r.prompt_source, TC_TOKENS_USAGE);
    assert_int_equal(r.server.has_ollama + r.server.has_timings, 0);
    tc_req_record_clear(&r);
    check_slicing(TC_API_OPENAI_CHAT, OAI_CHAT, OAI_CHAT_TEXT);
}

static void openai_completions_timings_and_chunk_count(void **state)
{
    (void)state;
    tc_req_record r;
    parse(TC_API_OPENAI, 1, OAI_COMPLETIONS, &r);
    expect_ok(&r);
    assert_int_equal(r.n_chunks, 2);
    assert_true(r.server.has_timings);
    assert_int_equal(r.server.prompt_n, 4);
    assert_int_equal(r.server.predicted_n, 2);
    assert_near(r.server.prompt_ms, 12.5, 1e-9);
    assert_near(r.server.predicted_ms, 30.25, 1e-9);
    assert_near(r.server.predicted_per_second, 66.115702, 1e-9);
    assert_int_equal(r.output_source, TC_TOKENS_SERVER); /* timings.predicted_n */
    assert_int_equal(r.prompt_source, TC_TOKENS_SERVER);
    tc_req_record_clear(&r);

    /* With no usage and no timings, the text chunks are the count. */
    const char *bare = "data: {\"choices\":[{\"text\":\"a b\"}]}\n\n"
                       "data: {\"choices\":[{\"text\":\"c\"},{\"text\":\"\"}]}\n\ndata: [DONE]\n\n";
    parse(TC_API_OPENAI, 1, bare, &r);
    assert_int_equal(r.output_tokens, 2);
    assert_int_equal(r.output_source, TC_TOKENS_CHUNKS);
    assert_int_equal(r.prompt_tokens, 0);
    assert_int_equal(r.prompt_source, TC_TOKENS_NONE);
    tc_req_record_clear(&r);
}

static void token_source_priority(void **state)
{
    (void)state;
    tc_req_record r;
    /* usage beats timings beats chunks */
    const char *both = "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}],\"timings\":"
                       "{\"predicted_n\":7,\"prompt_n\":8}}\n\n"
                       "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,"
                       "\"completion_tokens\":9}}\n\ndata: [DONE]\n\n";
    parse(TC_API_OPENAI_CHAT, 1, both, &r);
    assert_int_equal(r.output_tokens, 9);
    assert_int_equal(r.prompt_tokens, 3);
    assert_int_equal(r.server.predicted_n, 7);
    tc_req_record_clear(&r);
    /* llama.cpp: tokens_predicted beats timings.predicted_n */
    parse(TC_API_LLAMACPP, 1, LLAMA, &r);
    assert_int_equal(r.output_tokens, 3);
    assert_int_equal(r.output_source, TC_TOKENS_SERVER);
    assert_int_equal(r.prompt_tokens, 5);
    assert_int_equal(r.server.predicted_n, 2);
    tc_req_record_clear(&r);
}

static void ollama_generate_stream(void **state)
{
    (void)state;
    tc_req_record r;
    parse(TC_API_OLLAMA, 1, OLLAMA_GENERATE, &r);
    expect_ok(&r);
    assert_int_equal(r.n_chunks, 3); /* "\n" is text; the final "" is not */
    assert_true(r.server.has_ollama);
    assert_int_equal(r.server.total_ns, 100000000);
    assert_int_equal(r.server.load_ns, 1000);
    assert_int_equal(r.server.prompt_eval_ns, 3000000);
    assert_int_equal(r.server.eval_ns, 80000000);
    assert_int_equal(r.server.prompt_eval_count, 6);
    assert_int_equal(r.server.eval_count, 3);
    assert_int_equal(r.output_tokens, 3);
    assert_int_equal(r.output_source, TC_TOKENS_SERVER);
    assert_int_equal(r.prompt_tokens, 6);
    assert_int_equal(r.prompt_source, TC_TOKENS_SERVER);
    assert_false(r.server.has_timings);
    tc_req_record_clear(&r);
    check_slicing(TC_API_OLLAMA, OLLAMA_GENERATE, OLLAMA_GENERATE_TEXT);
}

static void ollama_chat_missing_metrics_are_zero(void **state)
{
    (void)state;
    tc_req_record r;
    parse(TC_API_OLLAMA_CHAT, 1, OLLAMA_CHAT, &r);
    expect_ok(&r);
    assert_int_equal(r.n_chunks, 2); /* thinking counts; CRLF line ends too */
    assert_true(r.server.has_ollama);
    assert_int_equal(r.server.eval_count, 2);
    assert_int_equal(r.server.total_ns + r.server.prompt_eval_count + r.server.load_ns, 0);
    /* prompt_eval_count was absent: the prompt size is unknown, not 0 */
    assert_int_equal(r.prompt_tokens, 0);
    assert_int_equal(r.prompt_source, TC_TOKENS_NONE);
    tc_req_record_clear(&r);
}

/* Ollama omits a count that is zero, and older versions omit
 * prompt_eval_count when the prompt was cached: an absent count is not
 * the server saying 0. */
static void ollama_absent_counts_are_not_server_zero(void **state)
{
    (void)state;
    tc_req_record r;
    /* no eval_count: the text chunks are the output count */
    const char *no_eval = "{\"response\":\"a\",\"done\":false}\n"
                          "{\"response\":\"b\",\"done\":false}\n"
                          "{\"response\":\"\",\"done\":true,\"prompt_eval_count\":7}\n";
    parse(TC_API_OLLAMA, 1, no_eval, &r);
    expect_ok(&r);
    assert_int_equal(r.output_tokens, 2);
    assert_int_equal(r.output_source, TC_TOKENS_CHUNKS);
    assert_int_equal(r.prompt_tokens, 7);
    assert_int_equal(r.prompt_source, TC_TOKENS_SERVER);
    tc_req_record_clear(&r);

    /* a cached prompt: no prompt_eval_count, so no prompt count at all */
    const char *cached = "{\"message\":{\"role\":\"assistant\",\"content\":\"x\"},"
                         "\"done\":false}\n"
                         "{\"message\":{\"role\":\"assistant\",\"content\":\"\"},"
                         "\"done\":true,\"total_duration\":5,\"eval_count\":4}\n";
    parse(TC_API_OLLAMA_CHAT, 1, cached, &r);
    expect_ok(&r);
    assert_int_equal(r.output_tokens, 4);
    assert_int_equal(r.output_source, TC_TOKENS_SERVER);
    assert_int_equal(r.prompt_tokens, 0);
    assert_int_equal(r.prompt_source, TC_TOKENS_NONE);
    tc_req_record_clear(&r);

    /* neither, not streamed: one text chunk, prompt unknown */
    parse(TC_API_OLLAMA, 0, "{\"response\":\"hello there\",\"done\":true}", &r);
    expect_ok(&r);
    assert_int_equal(r.output_tokens, 1);
    assert_int_equal(r.output_source, TC_TOKENS_CHUNKS);
    assert_int_equal(r.prompt_source, TC_TOKENS_NONE);
    tc_req_record_clear(&r);

    /* present and zero is the server's 0 */
    parse(TC_API_OLLAMA, 1,
          "{\"response\":\"\",\"done\":true,\"eval_count\":0,"
          "\"prompt_eval_count\":0}\n",
          &r);
    expect_ok(&r);
    assert_int_equal(r.output_tokens, 0);
    assert_int_equal(r.output_source, TC_TOKENS_SERVER);
    assert_int_equal(r.prompt_source, TC_TOKENS_SERVER);
    tc_req_record_clear(&r);
}

static void llamacpp_native_stream(void **state)
{
    (void)state;
    tc_req_record r;
    parse(TC_API_LLAMACPP, 1, LLAMA, &r);
    expect_ok(&r);
    assert_int_equal(r.n_chunks, 2);
    assert_true(r.server.has_timings);
    assert_near(r.server.predicted_per_second, 100.0, 1e-9);
    tc_req_record_clear(&r);
    check_slicing(TC_API_LLAMACPP, LLAMA, LLAMA_TEXT);
}

/* ---- Non-streamed bodies ---- */

static void non_streamed_bodies(void **state)
{
    (void)state;
    static const struct {
        tc_api api;
        const char *body;
        int64_t out;
        tc_token_source src;
    } cases[] = {
        {TC_API_OLLAMA, OLLAMA_HEAD "\"response\":\"The sky\",\"done\":true,\"eval_count\":2}\n", 2,
         TC_TOKENS_SERVER},
        {TC_API_OLLAMA_CHAT,
         OLLAMA_HEAD "\"message\":{\"role\":\"assistant\",\"content\":\"Hi\"},\"done\":true}", 1,
         TC_TOKENS_CHUNKS}, /* no eval_count: the chunk count, not the server's 0 */
        {TC_API_OPENAI,
         "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":"
         "\"a b c\",\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":2,"
         "\"completion_tokens\":3,\"total_tokens\":5}}",
         3, TC_TOKENS_USAGE},
        {TC_API_OPENAI_CHAT,
         "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
         "\"assistant\",\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}",
         1, TC_TOKENS_CHUNKS},
        {TC_API_LLAMACPP,
         "{\"content\":\"Hi there\",\"stop\":true,\"tokens_predicted\":2,\"tokens_evaluated\":4}\n",
         2, TC_TOKENS_SERVER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_req_record r;
        tc_req_record_init(&r);
        tc_stream_parser *p = parser(cases[i].api, 0);
        size_t n = strlen(cases[i].body);
        feed(p, &r, cases[i].body, n / 2, 10); /* nothing is parsed before the end */
        assert_int_equal(r.n_chunks, 0);
        feed(p, &r, cases[i].body + n / 2, n - n / 2, 20);
        assert_int_equal(tc_stream_finish(p, 30, &r), TC_OK);
        expect_ok(&r);
        assert_int_equal(r.n_chunks, 1);
        assert_int_equal(r.chunk_ns[0], 30); /* the text arrives at finish */
        assert_int_equal(r.output_tokens, cases[i].out);
        assert_int_equal(r.output_source, cases[i].src);
        tc_stream_free(p);
        tc_req_record_clear(&r);
    }
}

static void non_streamed_cut_empty_and_junk(void **state)
{
    (void)state;
    tc_req_record r;
    parse(TC_API_OPENAI, 0, "{\"choices\":[{\"text\":\"a", &r);
    assert_int_equal(r.error, TC_REQ_DISCONNECT);
    assert_non_null(strstr(r.error_detail, "before its JSON document was complete (22 bytes"));
    tc_req_record_clear(&r);
    parse(TC_API_OLLAMA, 0, "", &r);
    assert_int_equal(r.error, TC_REQ_DISCONNECT);
    assert_string_equal(r.error_detail, "the response ended with an empty body");
    tc_req_record_clear(&r);
    parse(TC_API_LLAMACPP, 0, "<html>502 Bad Gateway</html>", &r);
    assert_int_equal(r.error, TC_REQ_MALFORMED);
    assert_string_equal(r.error_detail, "the response body is not valid JSON (an unexpected "
                                        "character at byte 0): <html>502 Bad Gateway</html>");
    tc_req_record_clear(&r);
}

/* ---- Errors ---- */

static void malformed_chunk_keeps_parsing(void **state)
{
    (void)state;
    tc_req_record r;
    /* The simulator's malformed fault: valid framing, a cut \u escape. */
    const char *s = "data: {\"choices\":[{\"text\":\"a\"}]}\n\n"
                    "data: {\"choices\":[{\"index\":0,\"text\":\"\\u12\n\n"
                    "data: {\"choices\":[{\"text\":\"b\"}]}\n\ndata: [DONE]\n\n";
    parse(TC_API_OPENAI, 1, s, &r);
    assert_int_equal(r.error, TC_REQ_MALFORMED);
    assert_string_equal(r.error_detail,
                        "event 2 of the stream is not valid JSON (an unexpected end at byte 35): "
                        "...[{\"index\":0,\"text\":\"\\u12");
    assert_int_equal(r.n_chunks, 2); /* the chunk after it still counted */
    tc_req_record_clear(&r);

    const char *o = "{\"response\":\"a\",\"done\":false}\n{\"model\":\"m\",\"response\":\"\\u12\n"
                    "{\"response\":\"b\",\"done\":false}\n{\"done\":true,\"eval_count\":2}\n";
    parse(TC_API_OLLAMA, 1, o, &r);
    assert_int_equal(r.error, TC_REQ_MALFORMED);
    assert_non_null(strstr(r.error_detail, "line 2 of the stream is not valid JSON"));
    assert_int_equal(r.n_chunks, 2);
    assert_true(r.server.has_ollama); /* the final object still read */
    tc_req_record_clear(&r);

    parse(TC_API_LLAMACPP, 1, "data: 42\n\ndata: {\"stop\":true}\n\n", &r);
    assert_string_equal(r.error_detail,
                        "event 1 of the stream is valid JSON but not an object: 42");
    tc_req_record_clear(&r);
}

static void json_strictness(void **state)
{
    (void)state;
    static const char *const bad[] = {"{\"a\":01}",
                                      "{\"a\":1,}",
                                      "{\"a\":tru}",
                                      "{'a':1}",
                                      "{\"a\":\"\\x\"}",
                                      "{\"a\":\"\x01\"}",
                                      "{\"a\":1}}",
                                      "{\"a\":-}",
                                      "{\"a\":1.}",
                                      "{\"a\":1e}",
                                      "{\"a\" 1}",
                                      "{\"a\":1 \"b\":2}",
                                      "{\"a\":\"\xC3\"}",
                                      "{\"a\":\"\xC0\xAF\"}",
                                      "{\"a\":\"\xED\xA0\x80\"}",
                                      "{\"a\":[1,]}",
                                      "{\"a\":nul}",
                                      "{\"a\":+1}",
                                      "{\"a\":.5}",
                                      "{\"a\":\"\\u12G4\"}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char body[64];
        tc_req_record r;
        snprintf(body, sizeof body, "%s\n", bad[i]);
        parse(TC_API_OLLAMA, 1, body, &r);
        if (r.error != TC_REQ_MALFORMED)
            fail_msg("accepted invalid JSON: %s", bad[i]);
        tc_req_record_clear(&r);
    }
    /* Valid, if unusual: whitespace, numbers, nesting, escapes, UTF-8. */
    tc_req_record r;
    parse(
        TC_API_OLLAMA, 1,
        " { \"x\" : [ 1 , -0.5e+3 , 0 , 2E-2, true , false , null , { } , [ ] , \"\\ud800\" ] ,"
        "\"response\":\"\\u00e9\\ud83d\\ude00 \xC3\xA9\xF0\x9F\x98\x80\\\"\\\\\\/\\b\\f\\n\\r\\t\","
        " \"done\" : true , \"eval_count\" : 1.0 } \r\n",
        &r);
    expect_ok(&r);
    assert_int_equal(r.output_tokens, 1);
    tc_req_record_clear(&r);
    /* Nesting is bounded, not recursed without end. */
    char deep[300];
    memset(deep, '[', 200);
    snprintf(deep + 200, 100, "]\n");
    parse(TC_API_OLLAMA, 1, deep, &r);
    assert_non_null(strstr(r.error_detail, "nesting deeper than 64 levels"));
    tc_req_record_clear(&r);
}

static void in_stream_errors(void **state)
{
    (void)state;
    static const struct {
        tc_api api;
        const char *s;
        const char *detail;
    } cases[] = {
        {TC_API_OLLAMA,
         "{\"response\":\"a\",\"done\":false}\n{\"error\":\"model runner crashed\"}\n",
         "the server reported an error in the stream: model runner crashed"},
        {TC_API_OPENAI_CHAT,
         "data: {\"error\":{\"message\":\"CUDA out of memory\",\"type\":\"server_error\","
         "\"param\":null,\"code\":500}}\n\ndata: [DONE]\n\n",
         "the server reported an error in the stream: CUDA out of memory"},
        {TC_API_OPENAI, /* older vLLM */
         "data: {\"object\":\"error\",\"message\":\"bad "
         "\\\"n\\\"\\n\",\"type\":\"BadRequestError\","
         "\"param\":null,\"code\":400}\n\n",
         "the server reported an error in the stream: bad \"n\" "},
        {TC_API_LLAMACPP, "data: {\"error\":{\"code\":500,\"type\":\"server_error\"}}\n\n",
         "the server reported an error in the stream: server_error"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_req_record r;
        parse(cases[i].api, 1, cases[i].s, &r);
        assert_int_equal(r.error, TC_REQ_SERVER); /* not replaced by the disconnect */
        assert_string_equal(r.error_detail, cases[i].detail);
        tc_req_record_clear(&r);
    }
    tc_req_record r; /* "error": null is no error */
    parse(TC_API_OPENAI, 1,
          "data: {\"choices\":[{\"text\":\"a\"}],\"error\":null}\n\ndata: [DONE]\n\n", &r);
    expect_ok(&r);
    tc_req_record_clear(&r);
    /* A long message is cut on a character boundary. */
    char s[600] = "{\"error\":\"";
    for (int i = 0; i < 150; i++)
        strcat(s, "\xC3\xA9");
    strcat(s, "\"}\n");
    parse(TC_API_OLLAMA, 1, s, &r);
    size_t n = strlen(r.error_detail);
    assert_true(n < sizeof r.error_detail);
    assert_int_equal((n - strlen("the server reported an error in the stream: ")) % 2, 0);
    tc_req_record_clear(&r);
}

static void truncated_streams_are_disconnects(void **state)
{
    (void)state;
    static const struct {
        tc_api api;
        const char *s;
        const char *detail;
    } cases[] = {
        {TC_API_OPENAI_CHAT, OAI_HEAD "\"delta\":{\"content\":\"Hi\"}," OAI_TAIL,
         "the stream ended before its end marker (data: [DONE])"},
        {TC_API_OPENAI, "data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: {\"choi",
         "the stream ended before its end marker (data: [DONE])"},
        {TC_API_OLLAMA, "{\"response\":\"a\",\"done\":false}\n{\"response\":\"b\",\"do",
         "the stream ended before Ollama's final object (\"done\": true)"},
        {TC_API_LLAMACPP, "data: {\"content\":\"a\",\"stop\":false}\n\n",
         "the stream ended before llama.cpp's final chunk (\"stop\": true)"},
        {TC_API_OLLAMA_CHAT, "", "the stream ended before Ollama's final object (\"done\": true)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_req_record r;
        parse(cases[i].api, 1, cases[i].s, &r);
        assert_int_equal(r.error, TC_REQ_DISCONNECT);
        assert_string_equal(r.error_detail, cases[i].detail);
        assert_int_equal(r.n_chunks, cases[i].s[0] ? 1 : 0);
        tc_req_record_clear(&r);
    }
}

static void end_markers_without_final_newline(void **state)
{
    (void)state;
    tc_req_record r;
    /* Servers that close right after the last line still ended well. */
    parse(TC_API_OLLAMA, 1, "{\"response\":\"a\",\"done\":false}\n{\"done\":true}", &r);
    expect_ok(&r);
    tc_req_record_clear(&r);
    parse(TC_API_OPENAI, 1, "data: {\"choices\":[{\"text\":\"a\"}]}\r\n\r\ndata: [DONE]\r\n", &r);
    expect_ok(&r);
    tc_req_record_clear(&r);
    parse(TC_API_LLAMACPP, 1, "data: {\"content\":\"\",\"stop\":true}\n", &r);
    expect_ok(&r);
    tc_req_record_clear(&r);
}

static void first_error_wins(void **state)
{
    (void)state;
    tc_req_record r;
    tc_req_record_init(&r);
    r.error = TC_REQ_HTTP; /* the client saw the status first */
    strcpy(r.error_detail, "HTTP 500");
    tc_stream_parser *p = parser(TC_API_OLLAMA, 1);
    feed(p, &r, "{\"error\":\"boom\"}\n", 17, 1);
    assert_int_equal(tc_stream_finish(p, 2, &r), TC_OK);
    assert_int_equal(r.error, TC_REQ_HTTP);
    assert_string_equal(r.error_detail, "HTTP 500");
    tc_stream_free(p);
    tc_stream_free(NULL);
    assert_null(tc_stream_new(TC_API_COUNT, 1));
    tc_req_record_clear(&r);
}

/* What our own simulator sends, on every route, parses clean. */
static void simulator_wire_round_trip(void **state)
{
    (void)state;
    tc_sim_metrics m = {6, 3, 100000000, 1000, 3000000, 80000000, "length"};
    for (int route = 0; route < 5; route++) {
        tc_sim_wire_ctx c = {(tc_sim_route)route, "sim", 1, 1795966314, 1};
        tc_buf b = {0};
        tc_sim_wire_stream_start(&c, 0, &b);
        for (int i = 0; i < 3; i++)
            tc_sim_wire_token(&c, " tok", 4, i, 0, i == 2, &m, &b);
        tc_sim_wire_stream_end(&c, 0, &m, &b);
        tc_req_record r;
        parse((tc_api)route, 1, b.data, &r);
        expect_ok(&r);
        assert_int_equal(r.n_chunks, 3);
        assert_int_equal(r.output_tokens, 3);
        assert_int_equal(r.prompt_tokens, 6);
        assert_true(r.output_source == TC_TOKENS_USAGE || r.output_source == TC_TOKENS_SERVER);
        tc_req_record_clear(&r);
        tc_buf_reset(&b);
        tc_sim_wire_full(&c, "a b c", 5, 0, &m, &b);
        parse((tc_api)route, 0, b.data, &r);
        expect_ok(&r);
        assert_int_equal(r.n_chunks, 1);
        assert_int_equal(r.output_tokens, 3);
        tc_req_record_clear(&r);
        tc_buf_free(&b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(openai_chat_stream),
        cmocka_unit_test(openai_completions_timings_and_chunk_count),
        cmocka_unit_test(token_source_priority),
        cmocka_unit_test(ollama_generate_stream),
        cmocka_unit_test(ollama_chat_missing_metrics_are_zero),
        cmocka_unit_test(ollama_absent_counts_are_not_server_zero),
        cmocka_unit_test(llamacpp_native_stream),
        cmocka_unit_test(non_streamed_bodies),
        cmocka_unit_test(non_streamed_cut_empty_and_junk),
        cmocka_unit_test(malformed_chunk_keeps_parsing),
        cmocka_unit_test(json_strictness),
        cmocka_unit_test(in_stream_errors),
        cmocka_unit_test(truncated_streams_are_disconnects),
        cmocka_unit_test(end_markers_without_final_newline),
        cmocka_unit_test(first_error_wins),
        cmocka_unit_test(simulator_wire_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
