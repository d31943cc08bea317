/* Soak --resume goes on with the load it started with: each field that
 * defines the load, changed, is named; the same load is not. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "measure/measure_internal.h"

static tc_run_info base(void)
{
    tc_run_info r;
    memset(&r, 0, sizeof r);
    snprintf(r.endpoint, sizeof r.endpoint, "http://gpu-box:8000");
    r.api = TC_API_OPENAI;
    snprintf(r.model, sizeof r.model, "llama3:8b");
    r.concurrency = 16;
    r.max_tokens = 256;
    snprintf(r.prompt_set, sizeof r.prompt_set, "4 prompts, fnv1a 0123456789abcdef");
    return r;
}

static void same_load_is_the_same(void **state)
{
    (void)state;
    tc_run_info was = base(), now = base();
    char what[256] = "";
    /* what the resume does not change: label, status, times, command */
    snprintf(now.label, sizeof now.label, "other");
    now.status = TC_RUN_RUNNING;
    now.created_wall_ns = 42;
    snprintf(now.command, sizeof now.command, "truecost soak ...");
    assert_int_equal(tc_measure_load_differs(&was, &now, what, sizeof what), 0);
    /* an older run without a prompt fingerprint cannot be checked on it */
    was.prompt_set[0] = '\0';
    snprintf(now.prompt_set, sizeof now.prompt_set, "9 prompts, fnv1a 1");
    assert_int_equal(tc_measure_load_differs(&was, &now, what, sizeof what), 0);
}

typedef struct change {
    void (*apply)(tc_run_info *r);
    const char *said;
} change;

static void url(tc_run_info *r)
{
    snprintf(r->endpoint, sizeof r->endpoint, "http://other:8000");
}
static void api(tc_run_info *r)
{
    r->api = TC_API_OLLAMA;
}
static void model(tc_run_info *r)
{
    snprintf(r->model, sizeof r->model, "qwen2:7b");
}
static void conc(tc_run_info *r)
{
    r->concurrency = 8;
}
static void tokens(tc_run_info *r)
{
    r->max_tokens = 128;
}
static void prompts(tc_run_info *r)
{
    snprintf(r->prompt_set, sizeof r->prompt_set, "5 prompts");
}
static void open_loop(tc_run_info *r)
{
    r->arrival = TC_ARRIVAL_POISSON;
    r->rate = 4;
}

static void each_field_is_named(void **state)
{
    (void)state;
    const change changes[] = {
        {url, "the URL was http://gpu-box:8000, now http://other:8000"},
        {api, "the API was openai, now ollama"},
        {model, "the model was 'llama3:8b', now 'qwen2:7b'"},
        {conc, "-c was 16, now 8"},
        {tokens, "--max-tokens was 256, now 128"},
        {prompts, "the prompts were 4 prompts, fnv1a 0123456789abcdef, now 5 prompts"},
        {open_loop, "the arrivals were closed, now poisson"},
    };
    for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
        tc_run_info was = base(), now = base();
        char what[256] = "";
        changes[i].apply(&now);
        assert_int_equal(tc_measure_load_differs(&was, &now, what, sizeof what), 1);
        assert_string_equal(what, changes[i].said);
    }
    /* an open loop's rate, burstiness and cap; its -c is only a ceiling */
    tc_run_info was = base(), now = base();
    char what[256] = "";
    open_loop(&was);
    open_loop(&now);
    now.concurrency = 64;
    assert_int_equal(tc_measure_load_differs(&was, &now, what, sizeof what), 0);
    now.rate = 8;
    assert_int_equal(tc_measure_load_differs(&was, &now, what, sizeof what), 1);
    assert_string_equal(what, "--rate was 4, now 8");
    now.rate = 4;
    now.max_concurrency = 32;
    assert_int_equal(tc_measure_load_differs(&was, &now, what, sizeof what), 1);
    assert_string_equal(what, "--max-concurrency was 0, now 32");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_load_is_the_same),
        cmocka_unit_test(each_field_is_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
