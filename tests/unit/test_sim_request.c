/* Unit tests of request parsing for every inference route. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim/sim_request.h"
#include "sim/sim_text.h"

static int parse(tc_sim_route r, const char *body, tc_sim_request *rq, char *err)
{
    return tc_sim_request_parse(r, body, strlen(body), rq, err, 256);
}

static void ollama_generate_defaults_to_streaming(void **state)
{
    (void)state;
    tc_sim_request rq;
    char err[256];
    assert_int_equal(
        parse(TC_ROUTE_OLLAMA_GENERATE, "{\"model\":\"m\",\"prompt\":\"a b c\"}", &rq, err), 0);
    assert_string_equal(rq.model, "m");
    assert_int_equal(rq.stream, 1);
    assert_int_equal(rq.max_tokens, TC_SIM_DEFAULT_MAX_TOKENS);
    assert_int_equal(rq.prompt_tokens, 4);
    assert_int_equal(rq.load_only, 0);
    assert_int_equal(parse(TC_ROUTE_OLLAMA_GENERATE,
                           "{\"model\":\"m\",\"prompt\":\"x\",\"stream\":false,"
                           "\"options\":{\"num_predict\":7,\"temperature\":0}}",
                           &rq, err),
                     0);
    assert_int_equal(rq.stream, 0);
    assert_int_equal(rq.max_tokens, 7);
    /* an empty prompt only loads the model, as Ollama does */
    assert_int_equal(parse(TC_ROUTE_OLLAMA_GENERATE, "{\"model\":\"m\"}", &rq, err), 0);
    assert_int_equal(rq.load_only, 1);
}

static void openai_streams_only_when_asked(void **state)
{
    (void)state;
    tc_sim_request rq;
    char err[256];
    assert_int_equal(
        parse(TC_ROUTE_OAI_COMPLETIONS, "{\"model\":\"m\",\"prompt\":\"hi\"}", &rq, err), 0);
    assert_int_equal(rq.stream, 0);
    assert_int_equal(parse(TC_ROUTE_OAI_COMPLETIONS,
                           "{\"model\":\"m\",\"prompt\":[\"one two\"],\"max_tokens\":5,"
                           "\"stream\":true,\"stream_options\":{\"include_usage\":true},"
                           "\"ignore_eos\":true}",
                           &rq, err),
                     0);
    assert_int_equal(rq.stream, 1);
    assert_int_equal(rq.include_usage, 1);
    assert_int_equal(rq.max_tokens, 5);
    assert_int_equal(rq.prompt_tokens, 3);
}

static void chat_counts_messages_and_hashes_roles(void **state)
{
    (void)state;
    tc_sim_request a, b;
    char err[256];
    assert_int_equal(parse(TC_ROUTE_OAI_CHAT,
                           "{\"model\":\"m\",\"max_completion_tokens\":9,\"messages\":["
                           "{\"role\":\"system\",\"content\":\"be brief\"},"
                           "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"why "
                           "blue\"}]}]}",
                           &a, err),
                     0);
    assert_int_equal(a.prompt_tokens, 1 + 4 + 2 * 4);
    assert_int_equal(a.max_tokens, 9);
    assert_int_equal(parse(TC_ROUTE_OAI_CHAT,
                           "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"be "
                           "brief\"},{\"role\":\"user\",\"content\":\"why blue\"}]}",
                           &b, err),
                     0);
    assert_true(a.prompt_hash != b.prompt_hash);
    assert_int_equal(parse(TC_ROUTE_OLLAMA_CHAT, "{\"model\":\"m\",\"messages\":[]}", &a, err), 0);
    assert_int_equal(a.load_only, 1);
}

/* max_tokens is deprecated on chat: max_completion_tokens wins when both
 * are sent, whatever their order in the body. */
static void chat_prefers_max_completion_tokens(void **state)
{
    (void)state;
    tc_sim_request rq;
    char err[256];
    const char *both[] = {
        "{\"model\":\"m\",\"max_tokens\":3,\"max_completion_tokens\":9,"
        "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
        "{\"model\":\"m\",\"max_completion_tokens\":9,\"max_tokens\":3,"
        "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
    };
    for (size_t i = 0; i < sizeof both / sizeof both[0]; i++) {
        assert_int_equal(parse(TC_ROUTE_OAI_CHAT, both[i], &rq, err), 0);
        assert_int_equal(rq.max_tokens, 9);
    }
    /* either alone still counts; a null max_completion_tokens is absent */
    assert_int_equal(parse(TC_ROUTE_OAI_CHAT,
                           "{\"model\":\"m\",\"max_tokens\":3,\"max_completion_tokens\":null,"
                           "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                           &rq, err),
                     0);
    assert_int_equal(rq.max_tokens, 3);
    /* both are still checked */
    assert_int_equal(parse(TC_ROUTE_OAI_CHAT,
                           "{\"model\":\"m\",\"max_tokens\":\"x\",\"max_completion_tokens\":9,"
                           "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
                           &rq, err),
                     400);
    assert_non_null(strstr(err, "'max_tokens'"));
}

static void llama_native_needs_no_model(void **state)
{
    (void)state;
    tc_sim_request rq;
    char err[256];
    assert_int_equal(
        parse(TC_ROUTE_LLAMA_COMPLETION, "{\"prompt\":\"x\",\"n_predict\":-1}", &rq, err), 0);
    assert_string_equal(rq.model, "");
    assert_int_equal(rq.max_tokens, TC_SIM_DEFAULT_MAX_TOKENS);
    assert_int_equal(rq.stream, 0);
}

static void bad_bodies_name_the_field(void **state)
{
    (void)state;
    const struct {
        tc_sim_route r;
        const char *body, *why;
    } bad[] = {
        {TC_ROUTE_OAI_COMPLETIONS, "{\"model\":\"m\",", "not valid JSON"},
        {TC_ROUTE_OAI_COMPLETIONS, "[1]", "JSON object"},
        {TC_ROUTE_OAI_COMPLETIONS, "{\"prompt\":\"x\"}", "'model' is required"},
        {TC_ROUTE_OAI_COMPLETIONS, "{\"model\":3,\"prompt\":\"x\"}", "'model' must be a string"},
        {TC_ROUTE_OAI_COMPLETIONS, "{\"model\":\"m\"}", "'prompt' is required"},
        {TC_ROUTE_OAI_COMPLETIONS, "{\"model\":\"m\",\"prompt\":7}", "'prompt' must be"},
        {TC_ROUTE_OAI_CHAT, "{\"model\":\"m\"}", "'messages' is required"},
        {TC_ROUTE_OAI_CHAT, "{\"model\":\"m\",\"messages\":[{}]}", "'role'"},
        {TC_ROUTE_OAI_CHAT, "{\"model\":\"m\",\"messages\":{}}", "'messages' must be"},
        {TC_ROUTE_OAI_COMPLETIONS, "{\"model\":\"m\",\"prompt\":\"x\",\"max_tokens\":\"5\"}",
         "'max_tokens' must be an integer"},
        {TC_ROUTE_OAI_COMPLETIONS, "{\"model\":\"m\",\"prompt\":\"x\",\"max_tokens\":9999999}",
         "'max_tokens' is larger"},
        {TC_ROUTE_OAI_COMPLETIONS, "{\"model\":\"m\",\"prompt\":\"x\",\"stream\":1}",
         "'stream' must be true or false"},
        {TC_ROUTE_OLLAMA_GENERATE, "{\"model\":\"m\",\"prompt\":\"x\",\"options\":3}",
         "'options' must be"},
        {TC_ROUTE_OAI_COMPLETIONS, "{\"model\":\"m\",\"model\":\"n\",\"prompt\":\"x\"}",
         "duplicate"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tc_sim_request rq;
        char err[256] = "";
        assert_int_equal(parse(bad[i].r, bad[i].body, &rq, err), 400);
        if (!strstr(err, bad[i].why))
            fail_msg("%s: '%s' lacks '%s'", bad[i].body, err, bad[i].why);
    }
}

static void route_paths(void **state)
{
    (void)state;
    assert_string_equal(tc_sim_route_path(TC_ROUTE_OAI_CHAT), "/v1/chat/completions");
    assert_string_equal(tc_sim_route_path(TC_ROUTE_LLAMA_COMPLETION), "/completion");
}

/* The simulated tokeniser scales the words of the text, not the
 * template's tokens; ignore_eos is read (and must be a boolean). */
static void prompt_scaling_and_ignore_eos(void **state)
{
    (void)state;
    tc_sim_request rq;
    char err[256];
    assert_int_equal(parse(TC_ROUTE_OAI_COMPLETIONS,
                           "{\"model\":\"m\",\"prompt\":\"a b c d e f g h i j\","
                           "\"ignore_eos\":true}",
                           &rq, err),
                     0);
    assert_int_equal(rq.prompt_words, 10);
    assert_int_equal(rq.prompt_tokens, 11);
    assert_int_equal(rq.ignore_eos, 1);
    tc_sim_scale_prompt(&rq, 1.3);
    assert_int_equal(rq.prompt_tokens, 14); /* round(13) + BOS */
    assert_int_equal(parse(TC_ROUTE_OAI_CHAT,
                           "{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
                           "\"content\":\"a b c d e f g\"}]}",
                           &rq, err),
                     0);
    assert_int_equal(rq.ignore_eos, 0);
    assert_int_equal(rq.prompt_words, 7);
    tc_sim_scale_prompt(&rq, 1.5);
    assert_int_equal(rq.prompt_tokens, 1 + 11 + TC_SIM_CHAT_MESSAGE_OVERHEAD); /* round(10.5) */
    assert_int_equal(
        parse(TC_ROUTE_LLAMA_COMPLETION, "{\"prompt\":\"x\",\"ignore_eos\":1}", &rq, err), 400);
    assert_non_null(strstr(err, "'ignore_eos' must be true or false"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ollama_generate_defaults_to_streaming),
        cmocka_unit_test(openai_streams_only_when_asked),
        cmocka_unit_test(chat_counts_messages_and_hashes_roles),
        cmocka_unit_test(chat_prefers_max_completion_tokens),
        cmocka_unit_test(llama_native_needs_no_model),
        cmocka_unit_test(bad_bodies_name_the_field),
        cmocka_unit_test(route_paths),
        cmocka_unit_test(prompt_scaling_and_ignore_eos),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
