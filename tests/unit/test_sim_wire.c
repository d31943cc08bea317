/* Unit tests of the simulator's serializers: exact bytes of each protocol. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <string.h>

#include "sim/sim_wire.h"

#define WALL 1795966314123456789LL /* 2026-11-29T15:31:54.123456789Z */

static const tc_sim_metrics metrics = {
    .prompt_tokens = 6,
    .completion_tokens = 4,
    .total_ns = 100000000,
    .load_ns = 1000,
    .prompt_eval_ns = 3000000,
    .eval_ns = 80000000,
    .done_reason = "length",
};

static tc_sim_wire_ctx ctx(tc_sim_route r, int usage)
{
    return (tc_sim_wire_ctx){r, "sim-\"q\"", 7, 1795966314, usage};
}

/* Parses the JSON after an optional "data: " prefix; fails the test if it
 * is not valid. */
static json_t *parse_payload(const char *text)
{
    if (strncmp(text, "data: ", 6) == 0)
        text += 6;
    json_error_t e;
    json_t *v = json_loads(text, JSON_DISABLE_EOF_CHECK, &e);
    if (!v)
        fail_msg("invalid JSON: %s in %s", e.text, text);
    return v;
}

static void ollama_generate_chunk_and_done(void **state)
{
    (void)state;
    tc_sim_wire_ctx c = ctx(TC_ROUTE_OLLAMA_GENERATE, 0);
    tc_buf b = {0};
    tc_sim_wire_token(&c, " hi", 3, 1, WALL, 0, NULL, &b);
    assert_string_equal(b.data, "{\"model\":\"sim-\\\"q\\\"\",\"created_at\":"
                                "\"2026-11-29T15:31:54.123456789Z\",\"response\":\" hi\","
                                "\"done\":false}\n");
    tc_buf_reset(&b);
    tc_sim_wire_stream_end(&c, WALL, &metrics, &b);
    assert_string_equal(b.data,
                        "{\"model\":\"sim-\\\"q\\\"\",\"created_at\":"
                        "\"2026-11-29T15:31:54.123456789Z\",\"response\":\"\",\"done\":true,"
                        "\"done_reason\":\"length\",\"total_duration\":100000000,"
                        "\"load_duration\":1000,\"prompt_eval_count\":6,"
                        "\"prompt_eval_duration\":3000000,\"eval_count\":4,"
                        "\"eval_duration\":80000000}\n");
    tc_buf_free(&b);
}

static void ollama_omits_zero_metrics_and_chat_uses_message(void **state)
{
    (void)state;
    tc_sim_wire_ctx c = ctx(TC_ROUTE_OLLAMA_CHAT, 0);
    tc_sim_metrics load = {.done_reason = "load", .total_ns = 5, .load_ns = 5};
    tc_buf b = {0};
    tc_sim_wire_full(&c, "", 0, WALL, &load, &b);
    json_t *v = parse_payload(b.data);
    assert_string_equal(json_string_value(json_object_get(v, "done_reason")), "load");
    assert_null(json_object_get(v, "eval_count"));
    assert_null(json_object_get(v, "prompt_eval_duration"));
    assert_string_equal(json_string_value(json_object_get(json_object_get(v, "message"), "role")),
                        "assistant");
    assert_true(json_is_true(json_object_get(v, "done")));
    json_decref(v);
    tc_buf_free(&b);
}

static void openai_chat_stream_shape(void **state)
{
    (void)state;
    tc_sim_wire_ctx c = ctx(TC_ROUTE_OAI_CHAT, 1);
    tc_buf b = {0};
    tc_sim_wire_stream_start(&c, WALL, &b);
    assert_string_equal(b.data,
                        "data: {\"id\":\"chatcmpl-sim-7\",\"object\":\"chat.completion.chunk\","
                        "\"created\":1795966314,\"model\":\"sim-\\\"q\\\"\",\"choices\":[{"
                        "\"index\":0,\"delta\":{\"role\":\"assistant\"},\"logprobs\":null,"
                        "\"finish_reason\":null}],\"usage\":null}\n\n");
    tc_buf_reset(&b);
    tc_sim_wire_token(&c, "x\n", 2, 0, WALL, 1, &metrics, &b);
    json_t *v = parse_payload(b.data);
    json_t *ch = json_array_get(json_object_get(v, "choices"), 0);
    assert_string_equal(json_string_value(json_object_get(json_object_get(ch, "delta"), "content")),
                        "x\n");
    assert_string_equal(json_string_value(json_object_get(ch, "finish_reason")), "length");
    json_t *t = json_object_get(v, "timings");
    assert_int_equal(json_integer_value(json_object_get(t, "predicted_n")), 4);
    assert_true(json_real_value(json_object_get(t, "predicted_per_second")) == 50.0);
    assert_true(json_real_value(json_object_get(t, "prompt_ms")) == 3.0);
    json_decref(v);
    assert_string_equal(b.data + b.len - 2, "\n\n");
    tc_buf_reset(&b);
    tc_sim_wire_stream_end(&c, WALL, &metrics, &b);
    assert_string_equal(b.data,
                        "data: {\"id\":\"chatcmpl-sim-7\",\"object\":\"chat.completion.chunk\","
                        "\"created\":1795966314,\"model\":\"sim-\\\"q\\\"\",\"choices\":[],"
                        "\"usage\":{\"prompt_tokens\":6,\"completion_tokens\":4,"
                        "\"total_tokens\":10}}\n\ndata: [DONE]\n\n");
    tc_buf_free(&b);
}

static void openai_completion_without_usage(void **state)
{
    (void)state;
    tc_sim_wire_ctx c = ctx(TC_ROUTE_OAI_COMPLETIONS, 0);
    tc_buf b = {0};
    tc_sim_wire_stream_start(&c, WALL, &b);
    assert_int_equal(b.len, 0); /* no role chunk outside chat */
    tc_sim_wire_token(&c, " a", 2, 3, WALL, 0, NULL, &b);
    assert_string_equal(b.data, "data: {\"id\":\"cmpl-sim-7\",\"object\":\"text_completion\","
                                "\"created\":1795966314,\"model\":\"sim-\\\"q\\\"\",\"choices\":[{"
                                "\"index\":0,\"text\":\" a\",\"logprobs\":null,"
                                "\"finish_reason\":null}]}\n\n");
    tc_buf_reset(&b);
    tc_sim_wire_stream_end(&c, WALL, &metrics, &b);
    assert_string_equal(b.data, "data: [DONE]\n\n");
    tc_buf_reset(&b);
    tc_sim_wire_full(&c, "a b", 3, WALL, &metrics, &b);
    json_t *v = parse_payload(b.data);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(v, "usage"), "completion_tokens")), 4);
    assert_string_equal(json_string_value(json_object_get(
                            json_array_get(json_object_get(v, "choices"), 0), "text")),
                        "a b");
    json_decref(v);
    tc_buf_free(&b);
}

static void llama_native_chunks(void **state)
{
    (void)state;
    tc_sim_wire_ctx c = ctx(TC_ROUTE_LLAMA_COMPLETION, 0);
    tc_buf b = {0};
    tc_sim_wire_token(&c, " w", 2, 0, WALL, 0, NULL, &b);
    assert_string_equal(b.data, "data: {\"index\":0,\"content\":\" w\",\"tokens\":[],"
                                "\"stop\":false,\"id_slot\":0,\"tokens_predicted\":1}\n\n");
    tc_buf_reset(&b);
    tc_sim_wire_stream_end(&c, WALL, &metrics, &b);
    assert_null(strstr(b.data, "[DONE]"));
    json_t *v = parse_payload(b.data);
    assert_true(json_is_true(json_object_get(v, "stop")));
    assert_string_equal(json_string_value(json_object_get(v, "stop_type")), "limit");
    assert_int_equal(json_integer_value(json_object_get(v, "tokens_predicted")), 4);
    assert_int_equal(json_integer_value(json_object_get(v, "tokens_evaluated")), 6);
    assert_non_null(json_object_get(v, "timings"));
    json_decref(v);
    tc_buf_free(&b);
}

static void malformed_chunk_keeps_framing_but_not_json(void **state)
{
    (void)state;
    tc_sim_route routes[] = {TC_ROUTE_OLLAMA_GENERATE, TC_ROUTE_OAI_CHAT};
    for (int i = 0; i < 2; i++) {
        tc_sim_wire_ctx c = ctx(routes[i], 0);
        tc_buf b = {0};
        tc_sim_wire_malformed(&c, &b);
        const char *end = i == 0 ? "\n" : "\n\n";
        assert_string_equal(b.data + b.len - strlen(end), end);
        const char *p = b.data + (i == 0 ? 0 : 6);
        assert_null(json_loads(p, 0, NULL));
        tc_buf_free(&b);
    }
}

static void error_shapes(void **state)
{
    (void)state;
    tc_buf b = {0};
    tc_sim_wire_error(TC_ROUTE_OLLAMA_CHAT, 404, "model \"x\" not found", &b);
    assert_string_equal(b.data, "{\"error\":\"model \\\"x\\\" not found\"}\n");
    tc_buf_reset(&b);
    tc_sim_wire_error(TC_ROUTE_OAI_COMPLETIONS, 503, "busy", &b);
    assert_string_equal(b.data, "{\"error\":{\"message\":\"busy\",\"type\":\"unavailable_error\","
                                "\"param\":null,\"code\":503}}\n");
    tc_buf_reset(&b);
    tc_sim_wire_error(TC_ROUTE_LLAMA_COMPLETION, 400, "bad", &b);
    json_t *v = parse_payload(b.data);
    assert_string_equal(json_string_value(json_object_get(json_object_get(v, "error"), "type")),
                        "invalid_request_error");
    json_decref(v);
    assert_string_equal(tc_sim_wire_stream_type(TC_ROUTE_OLLAMA_CHAT), "application/x-ndjson");
    assert_string_equal(tc_sim_wire_stream_type(TC_ROUTE_OAI_CHAT), "text/event-stream");
    tc_buf_free(&b);
}

/* The template's chunks are tc_sim_wire_token's, byte for byte: every route,
 * with and without usage, short and long model names (inline and heap
 * templates), texts that need escapes, counts across digit
 * boundaries and times across second (and day) boundaries. */
static void token_template_matches_token(void **state)
{
    (void)state;
    static const tc_sim_route routes[] = {TC_ROUTE_OLLAMA_GENERATE, TC_ROUTE_OLLAMA_CHAT,
                                          TC_ROUTE_OAI_COMPLETIONS, TC_ROUTE_OAI_CHAT,
                                          TC_ROUTE_LLAMA_COMPLETION};
    static const char *const texts[] = {"", " ka", "\"q\\\n\t\x01", "\xc3\xa9 \xe2\x82\xac"};
    static const int indexes[] = {0, 1, 8, 9, 99, 12345, 2147483646};
    static const int64_t walls[] = {
        WALL, WALL + 876543210, 1795967999999999999LL, 1795968000000000001LL, 5, 0, -1};
    char long_model[201]; /* a template too long to sit inline */
    memset(long_model, 'm', sizeof long_model - 1);
    long_model[sizeof long_model - 1] = '\0';
    for (size_t r = 0; r < sizeof routes / sizeof routes[0]; r++)
        for (int variant = 0; variant < 3; variant++) {
            tc_sim_wire_ctx c = ctx(routes[r], variant == 1);
            if (variant == 2)
                c.model = long_model;
            tc_sim_wire_tmpl t;
            assert_int_equal(tc_sim_wire_tmpl_init(&c, &t), TC_OK);
            assert_int_equal(tc_sim_wire_tmpl_needs_time(&t),
                             routes[r] == TC_ROUTE_OLLAMA_GENERATE ||
                                 routes[r] == TC_ROUTE_OLLAMA_CHAT);
            for (size_t x = 0; x < sizeof texts / sizeof texts[0]; x++)
                for (size_t i = 0; i < sizeof indexes / sizeof indexes[0]; i++)
                    for (size_t w = 0; w < sizeof walls / sizeof walls[0]; w++) {
                        tc_buf want = {0}, got = {0};
                        size_t len = strlen(texts[x]);
                        tc_sim_wire_token(&c, texts[x], len, indexes[i], walls[w], 0, NULL, &want);
                        tc_buf_append(&got, "prefix", 6); /* it appends */
                        tc_sim_wire_token_fast(&t, texts[x], len, indexes[i], walls[w], &got);
                        assert_string_equal(got.data + 6, want.data);
                        tc_buf_free(&want);
                        tc_buf_free(&got);
                    }
            tc_sim_wire_tmpl_free(&t);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ollama_generate_chunk_and_done),
        cmocka_unit_test(ollama_omits_zero_metrics_and_chat_uses_message),
        cmocka_unit_test(openai_chat_stream_shape),
        cmocka_unit_test(openai_completion_without_usage),
        cmocka_unit_test(llama_native_chunks),
        cmocka_unit_test(malformed_chunk_keeps_framing_but_not_json),
        cmocka_unit_test(error_shapes),
        cmocka_unit_test(token_template_matches_token),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
