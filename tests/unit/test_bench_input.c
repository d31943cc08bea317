/* Unit tests of the client's inputs: endpoint URLs, prompts files and the
 * request bodies built from them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_body.h"
#include "bench/bench_prompts.h"
#include "bench/bench_url.h"

static void urls_are_parsed_and_stripped_of_secrets(void **state)
{
    (void)state;
    tc_endpoint ep;
    char err[256], buf[640];
    assert_int_equal(tc_endpoint_parse("http://user:pw@10.0.0.5:8000/v1/chat/completions?key=s3",
                                       &ep, err, sizeof err),
                     TC_OK);
    assert_string_equal(ep.base, "http://user:pw@10.0.0.5:8000");
    assert_string_equal(ep.stored, "http://10.0.0.5:8000");
    assert_null(strstr(ep.stored, "pw"));
    assert_null(strstr(ep.stored, "s3"));
    assert_string_equal(ep.host, "10.0.0.5");
    assert_int_equal(ep.local, 0);
    assert_string_equal(tc_endpoint_url(&ep, "/v1/models", buf, sizeof buf),
                        "http://user:pw@10.0.0.5:8000/v1/models");

    assert_int_equal(tc_endpoint_parse("localhost:11434", &ep, err, sizeof err), TC_OK);
    assert_string_equal(ep.base, "http://localhost:11434");
    assert_int_equal(ep.local, 1);
    assert_int_equal(tc_endpoint_parse("https://[::1]:8443/proxy/", &ep, err, sizeof err), TC_OK);
    assert_string_equal(ep.base, "https://[::1]:8443/proxy");
    assert_string_equal(ep.host, "::1");
    assert_int_equal(ep.local, 1);

    assert_int_equal(tc_endpoint_parse("ftp://x", &ep, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "http://"));
    assert_int_equal(tc_endpoint_parse("http://", &ep, err, sizeof err), TC_ERR_INVALID);
    assert_int_equal(tc_endpoint_parse("http://user@:80", &ep, err, sizeof err), TC_ERR_INVALID);
    const char *bad_ports[] = {"http://127.0.0.1:99999", "http://127.0.0.1:abc", "http://h:0",
                               "http://h:"};
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(tc_endpoint_parse(bad_ports[i], &ep, err, sizeof err), TC_ERR_INVALID);
        assert_non_null(strstr(err, "1 to 65535"));
    }
    /* a password never appears in an error */
    assert_int_equal(tc_endpoint_parse("ftp://u:SECRETPW@x", &ep, err, sizeof err), TC_ERR_INVALID);
    assert_null(strstr(err, "SECRETPW"));
    assert_non_null(strstr(err, "ftp://***@x"));
    /* ...nor the tail of one that holds an unescaped '@' */
    assert_int_equal(tc_endpoint_parse("ftp://u:SECRET@TAILPW@x:1", &ep, err, sizeof err),
                     TC_ERR_INVALID);
    assert_null(strstr(err, "TAILPW"));
    assert_non_null(strstr(err, "ftp://***@x:1"));
    assert_int_equal(tc_endpoint_parse("http://u:SECRET@TAILPW@x:0", &ep, err, sizeof err),
                     TC_ERR_INVALID);
    assert_null(strstr(err, "TAILPW"));
    assert_int_equal(tc_endpoint_parse("http://u:p@ss@x:8000", &ep, err, sizeof err), TC_OK);
    assert_string_equal(ep.stored, "http://x:8000");
    /* a "://" after the authority is not a scheme */
    assert_int_equal(tc_endpoint_parse("u:pw@h:8000/a?next=http://e", &ep, err, sizeof err), TC_OK);
    assert_string_equal(ep.stored, "http://h:8000/a");
    /* nor a query or fragment, which may hold a token */
    assert_int_equal(
        tc_endpoint_parse("http://h:99999/v1?token=SECRETQ#SECRETF", &ep, err, sizeof err),
        TC_ERR_INVALID);
    assert_null(strstr(err, "SECRET"));
    assert_non_null(strstr(err, "'http://h:99999/v1'"));
    /* a space is refused up front, naming where (curl would fail later) */
    assert_int_equal(tc_endpoint_parse("http://h:1/a b", &ep, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "a space at character 13"));
    /* a URL too long for the endpoint says so, not "no host" */
    char longurl[700];
    snprintf(longurl, sizeof longurl, "http://%0600d.example/?token=SECRET", 0);
    assert_int_equal(tc_endpoint_parse(longurl, &ep, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "too long (at most 511 characters)"));
    assert_null(strstr(err, "SECRET"));
}

static void text_prompts_skip_blank_lines(void **state)
{
    (void)state;
    tc_prompts p;
    char err[256];
    const char data[] = "first prompt\r\n\n  second one  \n\t\nthird";
    assert_int_equal(tc_prompts_parse("p.txt", data, sizeof data - 1, &p, err, sizeof err), TC_OK);
    assert_int_equal(p.n, 3);
    assert_string_equal(p.items[0].text, "first prompt");
    assert_string_equal(p.items[1].text, "second one");
    assert_string_equal(p.items[2].text, "third");
    tc_prompts_free(&p);
    tc_prompts_free(NULL);
}

static void jsonl_prompts_and_their_errors(void **state)
{
    (void)state;
    tc_prompts p;
    char err[256];
    const char ok[] = "{\"prompt\":\"a\",\"max_tokens\":5}\n"
                      "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}\n";
    assert_int_equal(tc_prompts_parse("p.jsonl", ok, sizeof ok - 1, &p, err, sizeof err), TC_OK);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.items[0].max_tokens, 5);
    assert_non_null(p.items[1].messages_json);
    tc_prompts_free(&p);

    const struct {
        const char *data, *want;
    } bad[] = {
        {"{\"prompt\":\"a\"}\n{\"prompt\":\"b\"}\n{\"prompt\":", "p.jsonl:3: not valid JSON"},
        {"{\"prompt\":\"\"}", "p.jsonl:1: \"prompt\" must be a non-empty string"},
        {"{\"messages\":[]}", "p.jsonl:1: \"messages\" must be"},
        {"{\"prompt\":\"a\",\"messages\":[]}", "not both"},
        {"{\"text\":\"a\"}", "no \"prompt\" or \"messages\""},
        {"{\"prompt\":\"a\",\"max_tokens\":0}", "\"max_tokens\" must be"},
        {"\n\n  \n", "p.jsonl: no prompt (every line is blank)"},
        {"", "p.jsonl: no prompt (the file is empty)"},
        {"{\"messages\":[{\"role\":\"user\",\"content\":42}]}", "\"messages\" must be"},
        {"{\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"image\"}]}]}",
         "\"messages\" must be"},
        {"plain\ncaf\xe9 latin-1\n", "p.jsonl:2: not valid UTF-8"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(
            tc_prompts_parse("p.jsonl", bad[i].data, strlen(bad[i].data), &p, err, sizeof err),
            TC_ERR_PARSE);
        if (!strstr(err, bad[i].want))
            fail_msg("'%s': '%s' lacks '%s'", bad[i].data, err, bad[i].want);
    }
    assert_int_equal(tc_prompts_load("/nonexistent/prompts.txt", &p, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "/nonexistent/prompts.txt"));
}

static json_t *body_of(tc_api api, const tc_prompt *pr)
{
    tc_buf b = {0};
    assert_int_equal(tc_body_build(api, "m", pr, 16, &b), TC_OK);
    json_t *doc = json_loads(b.data, 0, NULL);
    assert_non_null(doc);
    tc_buf_free(&b);
    return doc;
}

static void bodies_use_each_api_fields(void **state)
{
    (void)state;
    tc_prompt text = {.text = "why", .max_tokens = 0};
    json_t *d = body_of(TC_API_OLLAMA, &text);
    assert_int_equal(
        json_integer_value(json_object_get(json_object_get(d, "options"), "num_predict")), 16);
    assert_true(json_is_true(json_object_get(d, "stream")));
    assert_string_equal(json_string_value(json_object_get(d, "prompt")), "why");
    json_decref(d);

    d = body_of(TC_API_OPENAI_CHAT, &text);
    json_t *m0 = json_array_get(json_object_get(d, "messages"), 0);
    assert_string_equal(json_string_value(json_object_get(m0, "role")), "user");
    assert_int_equal(json_integer_value(json_object_get(d, "max_tokens")), 16);
    assert_true(
        json_is_true(json_object_get(json_object_get(d, "stream_options"), "include_usage")));
    assert_int_equal(json_integer_value(json_object_get(d, "temperature")), 0);
    json_decref(d);

    tc_prompt chat = {.messages_json = "[{\"role\":\"system\",\"content\":\"be brief\"},"
                                       "{\"role\":\"user\",\"content\":\"why\"}]",
                      .max_tokens = 3};
    d = body_of(TC_API_LLAMACPP, &chat);
    assert_string_equal(json_string_value(json_object_get(d, "prompt")),
                        "system: be brief\nuser: why");
    assert_int_equal(json_integer_value(json_object_get(d, "n_predict")), 3);
    json_decref(d);
    tc_prompt parts = {.messages_json =
                           "[{\"role\":\"user\",\"content\":[{\"type\":\"text\","
                           "\"text\":\"one two\"},{\"type\":\"text\",\"text\":\"three\"}]}]"};
    d = body_of(TC_API_OPENAI, &parts); /* OpenAI text parts keep their text */
    assert_string_equal(json_string_value(json_object_get(d, "prompt")), "user: one two three");
    json_decref(d);
    assert_string_equal(tc_body_route(TC_API_OLLAMA_CHAT), "/api/chat");
    assert_string_equal(tc_body_route(TC_API_LLAMACPP), "/completion");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(urls_are_parsed_and_stripped_of_secrets),
        cmocka_unit_test(text_prompts_skip_blank_lines),
        cmocka_unit_test(jsonl_prompts_and_their_errors),
        cmocka_unit_test(bodies_use_each_api_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
