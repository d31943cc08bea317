/* Unit tests of the migration decision: every checklist item from its
 * evidence, and every verdict rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assess/decide.h"
#include "assess/evidence.h"
#include "assess/gaps_doc.h"

/* Everything measured, ticked and favourable: the migrate case. */
static tc_decide_input good(void)
{
    tc_decide_input in = {
        .has_gaps = 1,
        .gaps_missing = 2,
        .has_target_run = 1,
        .target_completed = 20,
        .has_perf = 1,
        .perf_ratio = 0.9,
        .soak_passed = 1,
        .profiler_skill = 1,
        .fallback_path = 1,
        .has_economics = 1,
        .p_net_positive = 0.9,
        .lockin_p50 = 10000,
        .saving = 30000,
        .has_fit = 1,
        .fit_verdict = 0,
        .fit_need_bytes = 18.0 * (1 << 30),
        .fit_budget_bytes = 21.6 * (1 << 30),
        .fit_spare_share = 1 - 18.0 / 21.6,
    };
    in.target_status = TC_RUN_COMPLETE;
    snprintf(in.fit_card, sizeof in.fit_card, "RX 7900 XTX");
    return in;
}

static const tc_decide_item *find(const tc_decide_result *r, const char *id)
{
    for (int i = 0; i < TC_DECIDE_ITEMS; i++)
        if (strcmp(r->items[i].id, id) == 0)
            return &r->items[i];
    fail_msg("no item %s", id);
    return NULL;
}

static int has_reason(const tc_decide_result *r, const char *frag)
{
    for (int i = 0; i < r->n_reasons; i++)
        if (strstr(r->reasons[i], frag))
            return 1;
    return 0;
}

static void all_ticked_and_paying_off_migrates(void **state)
{
    (void)state;
    tc_decide_input in = good();
    tc_decide_result r;
    tc_decide(&in, &r);
    assert_int_equal(r.verdict, TC_DECIDE_MIGRATE);
    for (int i = 0; i < TC_DECIDE_ITEMS; i++)
        assert_int_equal(r.items[i].state, TC_ITEM_TICKED);
    assert_true(find(&r, "soak")->declared);
    assert_false(find(&r, "target_run")->declared);
    assert_true(has_reason(&r, "every checklist item is ticked"));
    assert_true(has_reason(&r, "six months")); /* the re-test rule, always */
    assert_string_equal(tc_decide_verdict_name(r.verdict), "migrate");
}

static void checklist_items_follow_their_evidence(void **state)
{
    (void)state;
    tc_decide_input in = good();
    in.has_gaps = 0;
    in.has_target_run = 0;
    in.has_perf = 0;
    in.soak_passed = -1;
    tc_decide_result r;
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "gaps")->state, TC_ITEM_MISSING);
    assert_non_null(strstr(find(&r, "gaps")->evidence, "truecost gaps"));
    assert_int_equal(find(&r, "target_run")->state, TC_ITEM_MISSING);
    assert_int_equal(find(&r, "perf_gap")->state, TC_ITEM_MISSING);
    assert_int_equal(find(&r, "soak")->state, TC_ITEM_MISSING);
    assert_string_equal(tc_decide_state_name(TC_ITEM_MISSING), "not yet measured");
    assert_int_equal(r.verdict, TC_DECIDE_PILOT); /* good economics, missing evidence */

    in = good();
    in.target_failed = 1; /* an error on the target: not clean */
    in.gaps_key_without_alternative = 1;
    in.profiler_skill = 0;
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "target_run")->state, TC_ITEM_FAILED);
    assert_int_equal(find(&r, "gaps")->state, TC_ITEM_FAILED);
    assert_int_equal(find(&r, "profiler")->state, TC_ITEM_FAILED);
    in = good();
    in.target_status = TC_RUN_INTERRUPTED;
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "target_run")->state, TC_ITEM_FAILED);
}

/* A key operator the support list does not cover: the table is not done. */
static void unchecked_key_operators_keep_gaps_open(void **state)
{
    (void)state;
    tc_decide_input in = good();
    in.gaps_key_unchecked = 1;
    tc_decide_result r;
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "gaps")->state, TC_ITEM_MISSING);
    assert_non_null(strstr(find(&r, "gaps")->evidence, "1 key operator(s) not in the support"));
    assert_int_equal(r.verdict, TC_DECIDE_PILOT); /* not migrate */
}

/* A measured soak wins over the declaration, by one rule
 * (tc_decide_soak_state): a PASS of 24 h ticks, a FAIL of any length is
 * not met, a PASS too short or a soak stopped early is not yet evidence. */
static void soak_from_a_run(void **state)
{
    (void)state;
    tc_decide_input in = good();
    in.soak_passed = 0; /* declared "no" ... */
    in.has_soak = 1;    /* ... but a 25 h soak passed */
    in.soak_outcome = TC_SOAK_PASS;
    in.soak_hours = 25;
    in.soak_measured = 90000;
    tc_decide_result r;
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "soak")->state, TC_ITEM_TICKED);
    assert_false(find(&r, "soak")->declared);
    assert_int_equal(r.verdict, TC_DECIDE_MIGRATE);
    in.soak_outcome = TC_SOAK_FAIL;
    in.soak_failed = 3;
    snprintf(in.soak_reason, sizeof in.soak_reason, "error rate 0.02 exceeds 0.01");
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "soak")->state, TC_ITEM_FAILED);
    assert_non_null(strstr(find(&r, "soak")->evidence, "soak FAIL over 25 h"));
    assert_non_null(strstr(find(&r, "soak")->evidence, "3 of 90000 requests failed"));
    in.soak_hours = 15.0 / 3600; /* a 15 s soak that failed on drift: not met, not unknown */
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "soak")->state, TC_ITEM_FAILED);
    in.soak_outcome = TC_SOAK_PASS;
    in.soak_hours = 2; /* too short to say */
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "soak")->state, TC_ITEM_MISSING);
    assert_non_null(strstr(find(&r, "soak")->evidence, "soak PASS over 2 h (24 h needed)"));
    in.soak_outcome = TC_SOAK_INCOMPLETE;
    in.soak_hours = 30; /* long, but stopped before its plan */
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "soak")->state, TC_ITEM_MISSING);
    assert_int_equal(tc_decide_soak_state(TC_SOAK_PASS, 24), TC_ITEM_TICKED);
    assert_int_equal(tc_decide_soak_state(TC_SOAK_PASS, 23.99), TC_ITEM_MISSING);
    assert_int_equal(tc_decide_soak_state(TC_SOAK_FAIL, 0.001), TC_ITEM_FAILED);
    assert_int_equal(tc_decide_soak_state(TC_SOAK_INCOMPLETE, 100), TC_ITEM_MISSING);
}

static void perf_gap_edges(void **state)
{
    (void)state;
    tc_decide_input in = good();
    tc_decide_result r;
    in.perf_ratio = 0.8; /* exactly 20%: within */
    tc_decide(&in, &r);
    assert_int_equal(r.verdict, TC_DECIDE_MIGRATE);
    in.perf_ratio = 0.79; /* 21%: tuning needed; fallback designed: hybrid */
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "perf_gap")->state, TC_ITEM_TICKED);
    assert_int_equal(r.verdict, TC_DECIDE_HYBRID);
    assert_true(has_reason(&r, "20-50%"));
    in.perf_ratio = 0.5; /* exactly 50%: still tuning */
    tc_decide(&in, &r);
    assert_int_equal(r.verdict, TC_DECIDE_HYBRID);
    in.perf_ratio = 0.49; /* over 50%: stay, find the fallback first */
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "perf_gap")->state, TC_ITEM_FAILED);
    assert_int_equal(r.verdict, TC_DECIDE_STAY);
    assert_true(has_reason(&r, "operator fallback"));
    in.perf_ratio = 0; /* the target completed nothing */
    in.target_completed = 0;
    in.target_failed = 5;
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "perf_gap")->state, TC_ITEM_FAILED);
    assert_int_equal(find(&r, "target_run")->state, TC_ITEM_FAILED);
    assert_int_equal(r.verdict, TC_DECIDE_STAY);
    assert_true(has_reason(&r, "completed no request"));
}

static void economics_rules(void **state)
{
    (void)state;
    tc_decide_input in = good();
    tc_decide_result r;
    in.p_net_positive = 0.1; /* pays off rarely: stay, whatever the checklist */
    in.lockin_p50 = 50000;
    tc_decide(&in, &r);
    assert_int_equal(r.verdict, TC_DECIDE_STAY);
    assert_true(has_reason(&r, "only 10% of outcomes"));
    assert_true(has_reason(&r, "exceeds the saving")); /* 003 6.3 */
    in = good();
    in.p_net_positive = 0.6; /* favourable, not clear-cut: hybrid with a fallback */
    tc_decide(&in, &r);
    assert_int_equal(r.verdict, TC_DECIDE_HYBRID);
    in.fallback_path = 0; /* no fallback: a pilot first */
    tc_decide(&in, &r);
    assert_int_equal(r.verdict, TC_DECIDE_PILOT);
    in = good();
    in.has_economics = 0; /* no assessment: at most a pilot */
    tc_decide(&in, &r);
    assert_int_equal(r.verdict, TC_DECIDE_PILOT);
}

static void key_gaps_rules(void **state)
{
    (void)state;
    tc_decide_input in = good();
    tc_decide_result r;
    in.gaps_key_without_alternative = 2;
    in.fallback_path = 0;
    tc_decide(&in, &r);
    assert_int_equal(r.verdict, TC_DECIDE_STAY);
    assert_true(has_reason(&r, "2 key operator gap(s)"));
    in.fallback_path = 1; /* keep those on the incumbent */
    tc_decide(&in, &r);
    assert_int_equal(r.verdict, TC_DECIDE_HYBRID);
    assert_true(has_reason(&r, "no alternative"));
    assert_true(has_reason(&r, "not met: gaps")); /* the unmet items are named */
}

static void price_rule_of_003(void **state)
{
    (void)state;
    tc_decide_input in = good();
    tc_decide_result r;
    in.price_ratio = 2.5;
    in.perf_ratio = 0.7; /* incumbent 1.43x faster at 2.5x the price */
    tc_decide(&in, &r);
    assert_true(has_reason(&r, "less than 2x faster"));
    in.price_ratio = 1.5;
    tc_decide(&in, &r);
    assert_false(has_reason(&r, "less than 2x faster"));
}

static const char GAPS[] =
    "{\"t_op_days\": {\"low\": 2.25, \"mode\": 4.5, \"high\": 7},\n"
    " \"ops\": [\n"
    "  {\"name\": \"gptq_gemm\", \"status\": \"missing\", \"risk\": \"high\", \"share\": 0.001,"
    "   \"alternative\": null},\n"
    "  {\"name\": \"rope\", \"status\": \"missing\", \"risk\": \"medium\", \"share\": 0.005,"
    "   \"alternative\": null},\n"
    "  {\"name\": \"big\", \"status\": \"missing\", \"risk\": \"low\", \"share\": 0.2,"
    "   \"alternative\": \"use torch.mm\"},\n"
    "  {\"name\": \"heavy\", \"status\": \"missing\", \"risk\": \"medium\", \"share\": 0.03,"
    "   \"alternative\": \"\"},\n"
    "  {\"name\": \"sdpa\", \"status\": \"fallback\", \"risk\": \"medium-high\", \"share\": 0.1,"
    "   \"alternative\": null},\n"
    "  {\"name\": \"marlin\", \"status\": \"unknown\", \"risk\": \"high\", \"share\": 0},\n"
    "  {\"name\": \"view\", \"status\": \"unknown\", \"risk\": \"medium\", \"share\": 0},\n"
    "  {\"name\": \"mm\", \"status\": \"native\", \"risk\": \"low\", \"share\": 0.6}\n"
    "]}\n";

/* Key gaps: missing and high-risk or >= 1% of time; covered only by a
 * named alternative (an empty one is none). */
static void gaps_summary_counts_key_gaps(void **state)
{
    (void)state;
    tc_gaps_summary g;
    char err[512] = "";
    assert_int_equal(tc_gaps_summary_parse("g.json", GAPS, strlen(GAPS), &g, err, sizeof err),
                     TC_OK);
    assert_int_equal(g.ops, 8);
    assert_int_equal(g.unknown, 2);
    assert_int_equal(g.key_unchecked, 1); /* marlin: high risk, not in the list */
    assert_int_equal(g.missing, 4);
    assert_int_equal(g.fallback, 1);
    assert_int_equal(g.key_gaps, 3);                /* gptq (high), big, heavy (share) */
    assert_int_equal(g.key_without_alternative, 2); /* gptq, heavy */
    assert_true(g.share_without_alternative > 0.0309 && g.share_without_alternative < 0.0311);
    assert_true(g.t_low == 2.25 && g.t_mode == 4.5 && g.t_high == 7);
}

static void gaps_summary_refuses_bad_files(void **state)
{
    (void)state;
    tc_gaps_summary g;
    char err[512] = "";
    const char *notjson = "{\"t_op_days\": ";
    assert_int_equal(tc_gaps_summary_parse("g.json", notjson, strlen(notjson), &g, err, sizeof err),
                     TC_ERR_PARSE);
    assert_non_null(strstr(err, "g.json"));
    const char *noops = "{\"t_op_days\": {\"low\": 1, \"mode\": 2, \"high\": 3}}";
    assert_int_equal(tc_gaps_summary_parse("g.json", noops, strlen(noops), &g, err, sizeof err),
                     TC_ERR_PARSE);
    assert_non_null(strstr(err, "\"ops\""));
    const char *badop = "{\"t_op_days\": {\"low\": 1, \"mode\": 2, \"high\": 3},"
                        " \"ops\": [{\"status\": \"missing\", \"risk\": \"high\", \"share\": 2}]}";
    assert_int_equal(tc_gaps_summary_parse("g.json", badop, strlen(badop), &g, err, sizeof err),
                     TC_ERR_PARSE);
    assert_non_null(strstr(err, "ops[0]"));
    assert_int_equal(g.ops, 0); /* nothing half-read */
}

/* A file under /tmp holding text; its path in path. */
static void temp_file(char *path, size_t len, const char *text)
{
    snprintf(path, len, "/tmp/tc-test-evidence-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* --gaps FILE: T_op into the overrides; a file that does not parse is the
 * user's to fix (TC_ERR_INVALID), one that cannot be read is not. */
static void evidence_from_a_gap_table(void **state)
{
    (void)state;
    char path[64], err[1024] = "";
    temp_file(path, sizeof path, GAPS);
    tc_evidence ev;
    tc_lockin_overrides ov;
    memset(&ev, 0, sizeof ev);
    memset(&ov, 0, sizeof ov);
    assert_int_equal(tc_evidence_read_gaps(path, &ev, &ov, err, sizeof err), TC_OK);
    assert_true(ev.has_gaps);
    assert_int_equal(ev.gaps.key_without_alternative, 2);
    assert_true(ov.has_operators && ov.op_low == 2.25 && ov.op_mode == 4.5 && ov.op_high == 7);
    char label[128];
    snprintf(label, sizeof label, "gap table %s", path);
    assert_string_equal(ov.op_source, label);
    unlink(path);

    temp_file(path, sizeof path, "{\"t_op_days\": ");
    memset(&ev, 0, sizeof ev);
    assert_int_equal(tc_evidence_read_gaps(path, &ev, &ov, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, path));
    assert_false(ev.has_gaps);
    unlink(path);
    tc_err rc = tc_evidence_read_gaps("/nonexistent/gaps.json", &ev, &ov, err, sizeof err);
    assert_int_equal(rc, TC_ERR_IO);
}

/* The one gatherer: only what is given is read, the store only when
 * stored evidence is named, and a failure names its kind and option. */
static void gatherer_reads_what_is_given(void **state)
{
    (void)state;
    char path[64], err[1024] = "";
    temp_file(path, sizeof path, GAPS);
    tc_evidence ev;
    tc_lockin_overrides ov;
    memset(&ov, 0, sizeof ov);
    tc_lockin as;
    memset(&as, 0, sizeof as);
    tc_evidence_sources none = {0}, gaps = {.gaps_file = path};
    assert_false(tc_evidence_needs_store(&none));
    assert_false(tc_evidence_needs_store(&gaps));
    tc_evidence_sources soak = {.soak = "7"}, runs = {.run_a = "a", .run_b = "b"};
    assert_true(tc_evidence_needs_store(&soak));
    assert_true(tc_evidence_needs_store(&runs));

    ev.n_notes = 3; /* zeroed by the gatherer */
    assert_int_equal(tc_evidence_gather(NULL, &none, &as, &ev, &ov, NULL, err, sizeof err), TC_OK);
    assert_false(ev.has_gaps || ev.has_runs || ev.has_soak || ev.n_notes);
    assert_false(ov.has_operators);
    assert_int_equal(tc_evidence_gather(NULL, &gaps, &as, &ev, &ov, NULL, err, sizeof err), TC_OK);
    assert_true(ev.has_gaps && ov.has_operators);
    unlink(path);

    tc_evidence_kind failed = TC_EVIDENCE_KINDS;
    temp_file(path, sizeof path, "{\"t_op_days\": ");
    assert_int_equal(tc_evidence_gather(NULL, &gaps, &as, &ev, &ov, &failed, err, sizeof err),
                     TC_ERR_INVALID);
    assert_int_equal(failed, TC_EVIDENCE_GAPS);
    assert_true(strncmp(err, "--gaps: ", 8) == 0);
    unlink(path);
    /* Stored evidence with no store is refused, not a crash. */
    failed = TC_EVIDENCE_KINDS;
    assert_int_equal(tc_evidence_gather(NULL, &soak, &as, &ev, &ov, &failed, err, sizeof err),
                     TC_ERR_INVALID);
    assert_int_equal(failed, TC_EVIDENCE_SOAK);
}

/* The memory item: the worst card's verdict, with margin; what is short
 * is said in GiB with the largest setting that fits. */
static void fit_item_needs_a_margin(void **state)
{
    (void)state;
    tc_decide_input in = good();
    tc_decide_result r;
    tc_decide(&in, &r);
    const tc_decide_item *it = find(&r, "fit");
    assert_int_equal(it->state, TC_ITEM_TICKED);
    /* 18 of 21.6 GiB: 16.7% to spare */
    assert_string_equal(it->evidence, "RX 7900 XTX: needs 18 GiB of a 21.6 GiB budget per card, "
                                      "fits (17% to spare)");

    in.fit_verdict = 1; /* tight: fits, but not with margin */
    in.fit_need_bytes = 20.0 * (1 << 30);
    in.fit_spare_share = 1 - 20.0 / 21.6;
    snprintf(in.fit_largest, sizeof in.fit_largest, "micro-batch 1 at seq 512");
    tc_decide(&in, &r);
    it = find(&r, "fit");
    assert_int_equal(it->state, TC_ITEM_FAILED);
    assert_non_null(strstr(it->evidence, "tight (under 10% of the budget to spare) (7% to spare); "
                                         "the largest that fits: micro-batch 1 at seq 512"));
    assert_int_not_equal(r.verdict, TC_DECIDE_MIGRATE);

    in.fit_verdict = 2; /* 26.1 of 21.6: short by 4.5 GiB */
    in.fit_need_bytes = 26.1 * (1 << 30);
    tc_decide(&in, &r);
    assert_non_null(strstr(find(&r, "fit")->evidence, "does not fit (short by 4.5 GiB)"));

    in.has_fit = 0; /* not measured: how to measure it */
    tc_decide(&in, &r);
    it = find(&r, "fit");
    assert_int_equal(it->state, TC_ITEM_MISSING);
    assert_non_null(strstr(it->evidence, "pass it with --fit"));
    assert_int_equal(r.verdict, TC_DECIDE_PILOT); /* every other item ticked: not migrate */
}

/* Over 50% slower: the profiler's suspects are named, or how to get them. */
static void slow_alternative_names_the_suspects(void **state)
{
    (void)state;
    tc_decide_input in = good();
    in.perf_ratio = 0.4;
    tc_decide_result r;
    tc_decide(&in, &r);
    assert_int_equal(r.verdict, TC_DECIDE_STAY);
    assert_true(has_reason(&r, "with --kernels to name the suspects"));

    in.has_kernels = 1;
    in.attention_fell_back = 1;
    snprintf(in.suspects, sizeof in.suspects,
             "softmax (cunn_SoftMaxForward, 11%% of its kernel "
             "time)");
    tc_decide(&in, &r);
    assert_true(has_reason(&r, "the profiler's top suspects on the alternative: softmax "
                               "(cunn_SoftMaxForward, 11% of its kernel time); its attention "
                               "fell back from a fused kernel to GEMM + softmax"));
    in.perf_ratio = 0.6; /* within 50%: no suspects in the reasons */
    tc_decide(&in, &r);
    assert_false(has_reason(&r, "suspects"));
}

/* --kernels FILE: T_perf is the tuning list's days, or its kernels x the
 * assessment's per-kernel effort; the first entries are the suspects. */
static const char KERNELS[] =
    "{\"profiles\": [{}, {}], \"comparison\": {\"attention_fell_back\": true},\n"
    " \"tuning\": {\"entries\": [\n"
    "  {\"class\": \"softmax\", \"kernel_count\": 2, \"saving_share\": 0.111,\n"
    "   \"kernels\": [\"void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, "
    "c10::Half>(float*)\", \"b\"]},\n"
    "  {\"class\": \"gemm\", \"kernel_count\": 1, \"saving_share\": 0.05, \"kernels\": "
    "[\"Cijk_Alik\"]}],\n"
    " \"t_perf_days\": {\"low\": 6, \"mode\": 9, \"high\": 15}}}\n";

static void evidence_from_a_kernels_document(void **state)
{
    (void)state;
    char path[64], err[1024] = "";
    temp_file(path, sizeof path, KERNELS);
    tc_lockin as;
    memset(&as, 0, sizeof as);
    tc_evidence ev;
    tc_lockin_overrides ov;
    memset(&ev, 0, sizeof ev);
    memset(&ov, 0, sizeof ov);
    assert_int_equal(tc_evidence_read_kernels(path, &as, &ev, &ov, err, sizeof err), TC_OK);
    assert_true(ev.has_kernels && ev.attention_fell_back);
    assert_int_equal(ev.kernel_count, 3);
    assert_true(ov.has_perf_days && ov.perf_low == 6 && ov.perf_mode == 9 && ov.perf_high == 15);
    assert_int_equal(ev.n_suspects, 2);
    assert_string_equal(ev.suspects[0].kernel_class, "softmax");
    assert_string_equal(ev.suspects[0].kernel, "cunn_SoftMaxForward");
    assert_string_equal(ev.suspects[1].kernel, "Cijk_Alik");
    /* the assessment's own effort per kernel: 3 kernels x 1..2..4 */
    as.kernel_effort = (tc_lockin_range){.valid = 1, .low = 1, .mode = 2, .high = 4, .has_mode = 1};
    memset(&ev, 0, sizeof ev);
    assert_int_equal(tc_evidence_read_kernels(path, &as, &ev, &ov, err, sizeof err), TC_OK);
    assert_true(ov.perf_low == 3 && ov.perf_mode == 6 && ov.perf_high == 12);
    assert_non_null(strstr(ov.perf_days_source, "[effort] performance_per_kernel"));
    unlink(path);

    /* one profile: no tuning list, and how to get one */
    temp_file(path, sizeof path, "{\"profiles\": [{}], \"tuning\": null}");
    assert_int_equal(tc_evidence_read_kernels(path, &as, &ev, &ov, err, sizeof err),
                     TC_ERR_INVALID);
    assert_non_null(strstr(err, "holds one profile, no tuning list"));
    unlink(path);
    temp_file(path, sizeof path,
              "{\"profiles\": [], \"tuning\": {\"entries\": [], "
              "\"t_perf_days\": {\"low\": 5, \"mode\": 1, \"high\": 9}}}");
    assert_int_equal(tc_evidence_read_kernels(path, &as, &ev, &ov, err, sizeof err),
                     TC_ERR_INVALID);
    assert_non_null(strstr(err, "in order"));
    unlink(path);
    temp_file(path, sizeof path, "not json");
    assert_int_equal(tc_evidence_read_kernels(path, &as, &ev, &ov, err, sizeof err),
                     TC_ERR_INVALID);
    assert_true(strncmp(err, path, strlen(path)) == 0);
    unlink(path);
    assert_int_equal(tc_evidence_read_kernels(path, &as, &ev, &ov, err, sizeof err), TC_ERR_IO);
}

/* --fit FILE: the worst card, by verdict and then by what it has to spare. */
static void evidence_from_a_fit_document(void **state)
{
    (void)state;
    char path[64], err[1024] = "";
    temp_file(path, sizeof path,
              "{\"terms\": [], \"workload\": {\"ctx\": 4096, \"seq\": null},\n"
              " \"cards\": [{\"name\": \"A\", \"verdict\": \"fits\", \"need_bytes\": 10, "
              "\"budget_bytes\": 20, \"spare_share\": 0.5, \"largest\": {}},\n"
              " {\"name\": \"B\", \"verdict\": \"does not fit\", \"need_bytes\": 30, "
              "\"budget_bytes\": 20, \"spare_share\": -0.5,\n"
              "  \"largest\": {\"concurrency\": 3, \"gpus_needed\": 2}},\n"
              " {\"name\": \"C\", \"verdict\": \"fits\", \"need_bytes\": 10, "
              "\"budget_bytes\": 12, \"spare_share\": 0.17, \"largest\": {}}]}");
    tc_evidence ev;
    memset(&ev, 0, sizeof ev);
    assert_int_equal(tc_evidence_read_fit(path, &ev, err, sizeof err), TC_OK);
    assert_true(ev.has_fit);
    assert_int_equal(ev.fit_verdict, TC_FIT_DOES_NOT_FIT);
    assert_string_equal(ev.fit_card, "B");
    assert_true(ev.fit_need_bytes == 30 && ev.fit_budget_bytes == 20);
    assert_string_equal(ev.fit_largest,
                        "3 sequence(s) at ctx 4096; 2 cards hold the workload as given");
    unlink(path);
    temp_file(path, sizeof path,
              "{\"terms\": [], \"cards\": [{\"name\": \"A\", \"verdict\": \"fits\", "
              "\"spare_share\": 0.5}, {\"name\": \"C\", \"verdict\": \"fits\", \"spare_share\": "
              "0.17}]}");
    memset(&ev, 0, sizeof ev);
    assert_int_equal(tc_evidence_read_fit(path, &ev, err, sizeof err), TC_OK);
    assert_string_equal(ev.fit_card, "C"); /* the least to spare */
    unlink(path);
    temp_file(path, sizeof path, "{\"terms\": [], \"cards\": []}");
    memset(&ev, 0, sizeof ev);
    assert_int_equal(tc_evidence_read_fit(path, &ev, err, sizeof err), TC_OK);
    assert_int_equal(ev.fit_verdict, TC_FIT_NO_CARD);
    unlink(path);
    temp_file(path, sizeof path, "{\"ops\": []}");
    assert_int_equal(tc_evidence_read_fit(path, &ev, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "is it 'truecost fit --json' output?"));
    unlink(path);
}

/* Training runs: the target's cleanliness joins the target run's, the
 * worse of the serving and training gaps is the gap, and a clean 24 h
 * training run with checkpoints is the long run when no soak is given. */
static void training_runs_are_evidence(void **state)
{
    (void)state;
    tc_evidence ev;
    memset(&ev, 0, sizeof ev);
    ev.has_runs = 1;
    ev.ratio = 0.9;
    ev.target_status = TC_RUN_COMPLETE;
    ev.target_completed = 10;
    ev.has_train = 1;
    ev.train_ratio = 0.6;
    snprintf(ev.train_basis, sizeof ev.train_basis, "tokens/s");
    ev.train_clean = 1;
    ev.train_hours = 25;
    ev.train_checkpoints = 4;
    snprintf(ev.train_target, sizeof ev.train_target, "training run 7 complete (exited)");
    tc_lockin_result lr;
    memset(&lr, 0, sizeof lr);
    tc_decide_input in;
    tc_evidence_decide_input(&ev, &lr, &in);
    assert_true(in.has_perf && in.perf_ratio == 0.6); /* the worse gap */
    assert_string_equal(in.perf_basis, "training tokens/s");
    tc_decide_result r;
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "target_run")->state, TC_ITEM_TICKED);
    assert_string_equal(find(&r, "target_run")->evidence,
                        "target run complete: 10 completed, 0 failed; training run 7 complete "
                        "(exited)");
    assert_non_null(strstr(find(&r, "perf_gap")->evidence,
                           "at 60% of the incumbent's throughput [training tokens/s]"));
    const tc_decide_item *soak = find(&r, "soak");
    assert_int_equal(soak->state, TC_ITEM_TICKED);
    assert_false(soak->declared);
    assert_non_null(strstr(soak->evidence, "training on the target for 25 h with 4 checkpoint(s)"));

    ev.train_clean = 0; /* an error line on the target: both items not met */
    tc_evidence_decide_input(&ev, &lr, &in);
    tc_decide(&in, &r);
    assert_int_equal(find(&r, "target_run")->state, TC_ITEM_FAILED);
    assert_int_equal(find(&r, "soak")->state, TC_ITEM_FAILED);
    ev.train_hours = 2; /* too short to be the long run: declared */
    tc_evidence_decide_input(&ev, &lr, &in);
    tc_decide(&in, &r);
    assert_true(find(&r, "soak")->declared);
    ev.train_ratio = 0.95; /* serving is now the worse gap */
    tc_evidence_decide_input(&ev, &lr, &in);
    assert_true(in.perf_ratio == 0.9);
    assert_string_equal(in.perf_basis, "serving; training at 95%");
}

/* The decision's inputs: measured facts from the evidence, declared
 * answers and the economics from the lock-in result. */
static void decide_input_from_evidence(void **state)
{
    (void)state;
    tc_evidence ev;
    memset(&ev, 0, sizeof ev);
    ev.has_gaps = 1;
    ev.gaps.missing = 3;
    ev.gaps.key_without_alternative = 1;
    ev.gaps.share_without_alternative = 0.05;
    ev.has_runs = 1;
    ev.ratio = 0.7;
    ev.target_completed = 9;
    ev.target_failed = 1;
    ev.target_status = TC_RUN_INTERRUPTED;
    ev.has_soak = 1;
    ev.soak_hours = 25;
    ev.soak_outcome = TC_SOAK_PASS;
    tc_lockin_result r;
    memset(&r, 0, sizeof r);
    r.inputs.profiler_skill = TC_LOCKIN_YES;
    r.inputs.fallback_path = TC_LOCKIN_NO;
    r.inputs.soak_passed = TC_LOCKIN_UNKNOWN;
    r.inputs.months.value = 12;
    r.inputs.price_incumbent.value = 3000;
    r.inputs.price_alternative.value = 1000;
    r.hardware_saving = 500;
    r.has_running_saving = 1;
    r.running_saving_per_month = 10;
    r.probability_net_positive = 0.6;
    r.total.p50 = 4000;
    tc_decide_input in;
    tc_evidence_decide_input(&ev, &r, &in);
    assert_true(in.has_gaps && in.gaps_missing == 3 && in.gaps_key_without_alternative == 1);
    assert_true(in.has_target_run && in.has_perf && in.perf_ratio == 0.7);
    assert_int_equal(in.target_status, TC_RUN_INTERRUPTED);
    assert_true(in.target_completed == 9 && in.target_failed == 1);
    assert_true(in.has_soak && in.soak_hours == 25 && in.soak_outcome == TC_SOAK_PASS);
    assert_int_equal(in.profiler_skill, 1);
    assert_int_equal(in.fallback_path, 0);
    assert_int_equal(in.soak_passed, -1);
    assert_true(in.has_economics && in.p_net_positive == 0.6 && in.lockin_p50 == 4000);
    assert_true(in.saving == 500 + 10 * 12);
    assert_true(in.price_ratio == 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(all_ticked_and_paying_off_migrates),
        cmocka_unit_test(checklist_items_follow_their_evidence),
        cmocka_unit_test(fit_item_needs_a_margin),
        cmocka_unit_test(slow_alternative_names_the_suspects),
        cmocka_unit_test(unchecked_key_operators_keep_gaps_open),
        cmocka_unit_test(soak_from_a_run),
        cmocka_unit_test(perf_gap_edges),
        cmocka_unit_test(economics_rules),
        cmocka_unit_test(key_gaps_rules),
        cmocka_unit_test(price_rule_of_003),
        cmocka_unit_test(gaps_summary_counts_key_gaps),
        cmocka_unit_test(gaps_summary_refuses_bad_files),
        cmocka_unit_test(evidence_from_a_gap_table),
        cmocka_unit_test(gatherer_reads_what_is_given),
        cmocka_unit_test(evidence_from_a_kernels_document),
        cmocka_unit_test(evidence_from_a_fit_document),
        cmocka_unit_test(training_runs_are_evidence),
        cmocka_unit_test(decide_input_from_evidence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
