/* Unit tests of synthetic prompts (run --isl): the generator is fixed by
 * its seed, sizes each prompt into its range under a calibration, gives
 * every request its own first words; the request bodies carry ignore_eos
 * where the API reads it; the calibration against the simulator (run
 * in-process, counting 1.3 tokens per word) finds its rule; and the
 * achieved lengths are summarised against the targets. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "analysis/workload.h"
#include "bench/bench_body.h"
#include "bench/bench_calib.h"
#include "bench/bench_prompts.h"
#include "bench/bench_synth.h"
#include "sim/sim_server.h"

static int64_t count_words(const char *s)
{
    int64_t n = 0;
    for (const char *p = s; *p; p++)
        n += (p == s || p[-1] == ' ') && *p != ' ';
    return n;
}

static void text_is_fixed_by_seed_and_number(void **state)
{
    (void)state;
    tc_buf a = {0}, b = {0};
    assert_int_equal(tc_synth_text(7, 3, 50, &a), TC_OK);
    assert_int_equal(tc_synth_text(7, 3, 50, &b), TC_OK);
    assert_string_equal(a.data, b.data);
    assert_int_equal(count_words(a.data), 50);
    for (const char *p = a.data; *p; p++)
        assert_true((*p >= 'a' && *p <= 'z') || (*p == ' ' && p[1] != ' ' && p[1]));
    assert_int_equal(tc_synth_text(8, 3, 50, &b), TC_OK); /* another seed */
    assert_string_not_equal(a.data, b.data);
    assert_int_equal(tc_synth_text(7, 4, 50, &b), TC_OK); /* another request */
    assert_string_not_equal(a.data, b.data);
    /* a longer text of the same request starts with the shorter one */
    assert_int_equal(tc_synth_text(7, 3, 80, &b), TC_OK);
    assert_memory_equal(a.data, b.data, a.len);
    assert_int_equal(tc_synth_text(7, 3, 0, &b), TC_OK);
    assert_int_equal(b.len, 0);
    assert_int_equal(tc_synth_vocab_size(), 256);
    tc_buf_free(&a);
    tc_buf_free(&b);
}

/* Under the simulator's rule (round(1.3 * words) + 1) and its calibration,
 * every prompt lands on its target, and the targets fill the range. */
static void prompts_land_in_their_range(void **state)
{
    (void)state;
    tc_synth s = {.seed = 42, .isl = 1000, .isl_range = 0.8, .osl = 64};
    s.calib = (tc_synth_calib){.tokens_per_word = 1.3, .overhead = 1};
    assert_int_equal(tc_synth_isl_min(&s), 800);
    tc_buf t = {0};
    int64_t lo = 1000, hi = 0;
    for (int64_t seq = 0; seq < 500; seq++) {
        int64_t target = tc_synth_target(&s, seq);
        assert_true(target >= 800 && target <= 1000);
        lo = target < lo ? target : lo;
        hi = target > hi ? target : hi;
        assert_int_equal(tc_synth_target(&s, seq), target);
        assert_int_equal(tc_synth_prompt(&s, seq, &t), TC_OK);
        int64_t tokens = (int64_t)llround(1.3 * (double)count_words(t.data)) + 1;
        assert_true(tokens >= target - 1 && tokens <= target + 1);
    }
    assert_true(lo < 810 && hi > 990);
    /* without the calibration (one token per word) they would be 30% over:
     * nearly every one beyond 5% over the top of the range */
    s.calib = (tc_synth_calib){.tokens_per_word = 1, .overhead = 1};
    int missed = 0;
    for (int64_t seq = 0; seq < 500; seq++) {
        assert_int_equal(tc_synth_prompt(&s, seq, &t), TC_OK);
        missed += llround(1.3 * (double)count_words(t.data)) + 1 > 1050;
    }
    assert_true(missed > 450);
    tc_buf_free(&t);

    tc_synth one = {.isl = 1000, .isl_range = 1};
    assert_int_equal(tc_synth_isl_min(&one), 1000);
    assert_int_equal(tc_synth_target(&one, 5), 1000);
    one.isl_range = 1e-9;
    assert_int_equal(tc_synth_isl_min(&one), 1);
    tc_synth_calib c = {.tokens_per_word = 2, .overhead = 50};
    assert_int_equal(tc_synth_words(&c, 10), 1); /* never fewer than one word */
    assert_int_equal(tc_synth_words(&c, 250), 100);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A prefix cache must not hit: no two requests share their first 8
 * words, nor does a request share them with a calibration probe. */
static void every_request_starts_differently(void **state)
{
    (void)state;
    enum { N = 2000 };
    char **heads = calloc(N + 2, sizeof *heads);
    tc_buf t = {0};
    for (int64_t i = 0; i < N + 2; i++) {
        assert_int_equal(tc_synth_text(1, i < N ? i : -1 - (i - N), 8, &t), TC_OK);
        heads[i] = strdup(t.data);
    }
    qsort(heads, N + 2, sizeof *heads, cmp_str);
    for (int i = 1; i < N + 2; i++)
        assert_string_not_equal(heads[i - 1], heads[i]);
    for (int i = 0; i < N + 2; i++)
        free(heads[i]);
    free(heads);
    tc_buf_free(&t);
}

static void presets_are_inferencex_shapes(void **state)
{
    (void)state;
    const tc_synth_preset *p = tc_synth_preset_find("chat");
    assert_non_null(p);
    assert_int_equal(p->isl, 1024);
    assert_int_equal(p->osl, 1024);
    assert_int_equal(tc_synth_preset_find("reasoning")->osl, 8192);
    assert_int_equal(tc_synth_preset_find("summarize")->isl, 8192);
    assert_null(tc_synth_preset_find("Chat"));
    assert_null(tc_synth_preset_find(NULL));
}

/* The synthetic prompt of each request, and its body: the token limit is
 * the OSL, and ignore_eos goes where the API reads it. */
static void synthetic_bodies_carry_osl_and_ignore_eos(void **state)
{
    (void)state;
    tc_synth s = {.seed = 3, .isl = 200, .isl_range = 0.5, .osl = 77, .ignore_eos = 1};
    s.calib = (tc_synth_calib){.tokens_per_word = 1, .overhead = 0};
    tc_prompts ps;
    tc_prompts_synthetic(&s, &ps);
    assert_false(tc_prompts_empty(&ps));
    assert_true(tc_prompts_empty(&(tc_prompts){0}));
    assert_true(tc_prompts_empty(NULL));
    tc_prompt scratch;
    tc_buf text = {0}, want = {0}, body = {0};
    const tc_prompt *p = tc_prompts_at(&ps, 9, &scratch, &text);
    assert_non_null(p);
    assert_int_equal(tc_synth_prompt(&s, 9, &want), TC_OK);
    assert_string_equal(p->text, want.data);
    assert_int_equal(p->max_tokens, 77);
    for (int api = 0; api < TC_API_COUNT; api++) {
        assert_int_equal(tc_body_build((tc_api)api, "m", p, 128, &body), TC_OK);
        json_t *doc = json_loads(body.data, 0, NULL);
        assert_non_null(doc);
        int ollama = api == TC_API_OLLAMA || api == TC_API_OLLAMA_CHAT;
        json_t *eos = json_object_get(doc, "ignore_eos");
        if (ollama)
            assert_null(eos);
        else
            assert_true(json_is_true(eos));
        json_t *limit = ollama ? json_object_get(json_object_get(doc, "options"), "num_predict")
                        : api == TC_API_LLAMACPP ? json_object_get(doc, "n_predict")
                                                 : json_object_get(doc, "max_tokens");
        assert_int_equal(json_integer_value(limit), 77);
        json_decref(doc);
    }
    /* a given prompt carries no ignore_eos */
    tc_prompt plain = {.text = (char *)"hi"};
    assert_int_equal(tc_body_build(TC_API_OPENAI, "m", &plain, 8, &body), TC_OK);
    assert_null(strstr(body.data, "ignore_eos"));
    tc_buf_free(&text);
    tc_buf_free(&want);
    tc_buf_free(&body);
    tc_prompts_free(&ps);
}

static void eos_support_by_server_and_api(void **state)
{
    (void)state;
    char note[256];
    tc_probe p = {.kind = TC_SERVER_OLLAMA};
    assert_int_equal(tc_calib_eos_supported(&p, TC_API_OLLAMA, note, sizeof note), 0);
    assert_string_equal(note, "Ollama: ignore_eos not supported; output length is the model's "
                              "choice, achieved OSL shown");
    assert_int_equal(tc_calib_eos_supported(&p, TC_API_OPENAI_CHAT, note, sizeof note), 0);
    assert_non_null(strstr(note, "Ollama's OpenAI API"));
    p.simulated = 1; /* the simulator reads it on its OpenAI routes */
    assert_int_equal(tc_calib_eos_supported(&p, TC_API_OPENAI, note, sizeof note), 1);
    assert_string_equal(note, "");
    assert_int_equal(tc_calib_eos_supported(&p, TC_API_OLLAMA_CHAT, note, sizeof note), 0);
    p = (tc_probe){.kind = TC_SERVER_LLAMACPP};
    assert_int_equal(tc_calib_eos_supported(&p, TC_API_LLAMACPP, note, sizeof note), 1);
    p.kind = TC_SERVER_OPENAI;
    assert_int_equal(tc_calib_eos_supported(&p, TC_API_OPENAI_CHAT, note, sizeof note), 1);
    int64_t w[2];
    tc_calib_probe_words(1000, w);
    assert_int_equal(w[1], 1000);
    assert_int_equal(w[0], 125);
    tc_calib_probe_words(8192, w);
    assert_int_equal(w[1], 4096);
    tc_calib_probe_words(5, w);
    assert_int_equal(w[1], 32);
    assert_int_equal(w[0], 8);
}

/* ---- calibration against the simulator ------------------------------------ */

static void *serve(void *arg)
{
    tc_sim_server_run(arg);
    return NULL;
}

static void calibrates_against_the_simulator(void **state)
{
    (void)state;
    tc_sim_config sc;
    tc_sim_config_defaults(&sc);
    sc.handle_signals = 0;
    sc.timing.ttft_ms = 1;
    sc.timing.prefill_tps = 1e9;
    sc.tokens_per_word = 1.3;
    tc_sim_server *srv = NULL;
    char err[512];
    assert_int_equal(tc_sim_server_new(&sc, &srv, err, sizeof err), TC_OK);
    pthread_t th;
    pthread_create(&th, NULL, serve, srv);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u", (unsigned)tc_sim_server_port(srv));
    tc_calib_config cc = {.model = TC_SIM_DEFAULT_MODEL, .timeout_s = 10, .ignore_eos = 1};
    assert_int_equal(tc_endpoint_parse(url, &cc.endpoint, NULL, 0), TC_OK);
    tc_calib_probe_words(1000, cc.words);
    const struct {
        tc_api api;
        int tokenize;
        double overhead; /* the simulator's: BOS, plus 4 for a chat message */
        const char *source;
    } cases[] = {
        {TC_API_OPENAI, 0, 1, "usage.prompt_tokens"},
        {TC_API_OPENAI_CHAT, 0, 5, "usage.prompt_tokens"},
        {TC_API_OLLAMA, 0, 1, "prompt_eval_count"},
        {TC_API_LLAMACPP, 0, 1, "tokens_evaluated"},
        {TC_API_LLAMACPP, 1, 1, "/tokenize"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cc.api = cases[i].api;
        cc.tokenize = cases[i].tokenize;
        tc_calib_result r;
        tc_err rc = tc_calib_run(&cc, &r, err, sizeof err);
        if (rc != TC_OK)
            fail_msg("calibration %zu: %s", i, err);
        assert_string_equal(r.source, cases[i].source);
        assert_true(r.calib.tokens_per_word > 1.29 && r.calib.tokens_per_word < 1.31);
        assert_true(r.calib.overhead > cases[i].overhead - 1 &&
                    r.calib.overhead < cases[i].overhead + 1);
        assert_int_equal(r.eos_refused, 0);
        /* sized by it, a prompt of 900 tokens is 900 as the simulator counts */
        tc_synth_calib c = r.calib;
        int64_t words = tc_synth_words(&c, 900);
        double counted = llround(1.3 * (double)words) + cases[i].overhead;
        assert_true(counted >= 898 && counted <= 902);
    }
    /* an unknown model: the probe's refusal is the error */
    cc.api = TC_API_OPENAI;
    cc.tokenize = 0;
    cc.model = "nope";
    tc_calib_result r;
    assert_int_equal(tc_calib_run(&cc, &r, err, sizeof err), TC_ERR_NET);
    assert_non_null(strstr(err, "cannot calibrate the prompt length: /v1/completions answered "
                                "HTTP 404"));
    tc_sim_server_stop(srv);
    pthread_join(th, NULL);
    tc_sim_server_free(srv);
}

/* ---- achieved lengths ------------------------------------------------------ */

static void achieved_lengths_against_targets(void **state)
{
    (void)state;
    tc_req_record recs[6];
    memset(recs, 0, sizeof recs);
    const int64_t isl[] = {900, 1000, 700, 950, 5000, 880};
    for (int i = 0; i < 6; i++) {
        recs[i].prompt_tokens = isl[i];
        recs[i].prompt_source = TC_TOKENS_USAGE;
        recs[i].output_tokens = 64;
        recs[i].output_source = TC_TOKENS_USAGE;
    }
    recs[4].warmup = 1;                     /* left out */
    recs[5].error = TC_REQ_HTTP;            /* left out */
    recs[3].prompt_source = TC_TOKENS_NONE; /* no ISL; its OSL counts */
    tc_run_workload t = {.isl_min = 800, .isl = 1000, .osl = 64, .ignore_eos = 1};
    tc_workload_figures w;
    assert_int_equal(tc_workload_figures_compute(&t, recs, 6, &w), TC_OK);
    assert_true(w.has_target);
    assert_int_equal(w.isl.n, 3);
    assert_true(w.isl.mean > 866.6 && w.isl.mean < 866.7);
    assert_true(w.isl.p50 == 900);
    assert_int_equal(w.isl_in_range, 2); /* 700 is under 800 * 0.95 */
    assert_int_equal(w.osl.n, 4);
    assert_true(w.osl.mean == 64);
    assert_int_equal(w.isl_off, 0);
    assert_int_equal(w.osl_short, 0);
    t.osl = 128;
    t.isl_min = 1000;
    t.isl = 1200;
    assert_int_equal(tc_workload_figures_compute(&t, recs, 6, &w), TC_OK);
    assert_int_equal(w.osl_short, 1);
    assert_int_equal(w.isl_off, 1);
    assert_int_equal(tc_workload_figures_compute(NULL, recs, 0, &w), TC_OK);
    assert_false(w.has_target);
    assert_int_equal(w.isl.n, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_is_fixed_by_seed_and_number),
        cmocka_unit_test(prompts_land_in_their_range),
        cmocka_unit_test(every_request_starts_differently),
        cmocka_unit_test(presets_are_inferencex_shapes),
        cmocka_unit_test(synthetic_bodies_carry_osl_and_ignore_eos),
        cmocka_unit_test(eos_support_by_server_and_api),
        cmocka_unit_test(calibrates_against_the_simulator),
        cmocka_unit_test(achieved_lengths_against_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
