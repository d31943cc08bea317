/* A synthetic workload: EOS, calibration, prompts. */
#include "measure_workload.h"

#include <stdio.h>
#include <string.h>

#include "bench/bench_body.h"

tc_err tc_measure_workload(const tc_workload_ask *ask, const tc_workload_server *srv,
                           tc_prompts *prompts, tc_run_workload *w, tc_calib_result *calib,
                           char *err, size_t errlen)
{
    memset(w, 0, sizeof *w);
    memset(prompts, 0, sizeof *prompts);
    tc_synth s = {.seed = ask->seed, .isl = ask->isl, .isl_range = ask->isl_range, .osl = ask->osl};
    s.ignore_eos = tc_calib_eos_supported(srv->probe, srv->api, w->eos_note, sizeof w->eos_note);
    tc_calib_config cc = {.endpoint = srv->endpoint,
                          .api = srv->api,
                          .model = srv->model,
                          .api_key = srv->api_key,
                          .timeout_s = srv->timeout_s,
                          .seed = ask->seed,
                          /* /tokenize counts the text alone: no chat template */
                          .tokenize =
                              srv->probe->kind == TC_SERVER_LLAMACPP && !tc_body_is_chat(srv->api),
                          .ignore_eos = s.ignore_eos};
    tc_calib_probe_words(ask->isl, cc.words);
    tc_err rc = tc_calib_run(&cc, calib, err, errlen);
    if (rc != TC_OK)
        return rc;
    if (calib->eos_refused) {
        s.ignore_eos = 0;
        snprintf(w->eos_note, sizeof w->eos_note,
                 "the server refused ignore_eos (%.100s); output length is the model's choice, "
                 "achieved OSL shown",
                 calib->refusal);
    }
    s.calib = calib->calib;
    tc_prompts_synthetic(&s, prompts);
    snprintf(w->preset, sizeof w->preset, "%s", ask->preset ? ask->preset : "");
    w->seed = (int64_t)ask->seed;
    w->isl_min = tc_synth_isl_min(&s);
    w->isl = ask->isl;
    w->isl_range = ask->isl_range;
    w->osl = ask->osl;
    w->ignore_eos = s.ignore_eos;
    w->tokens_per_word = s.calib.tokens_per_word;
    w->overhead_tokens = s.calib.overhead;
    snprintf(w->calibration, sizeof w->calibration, "%s", calib->source);
    return TC_OK;
}
