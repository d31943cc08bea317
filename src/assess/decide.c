/* The migration decision from the checklist and the economics. */
#include "assess/decide.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "core/tc_number.h"

const char *tc_decide_verdict_name(tc_decide_verdict v)
{
    static const char *const names[] = {"stay", "pilot", "hybrid", "migrate"};
    return (unsigned)v < 4 ? names[v] : "?";
}

const char *tc_decide_state_name(tc_decide_state s)
{
    return s == TC_ITEM_TICKED ? "ticked" : s == TC_ITEM_FAILED ? "not met" : "not yet measured";
}

static void reason(tc_decide_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason(tc_decide_result *r, const char *fmt, ...)
{
    if (r->n_reasons >= TC_DECIDE_MAX_REASONS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->reasons[r->n_reasons++], sizeof r->reasons[0], fmt, ap);
    va_end(ap);
}

static tc_decide_item *item(tc_decide_result *r, int i, const char *id, const char *text)
{
    tc_decide_item *it = &r->items[i];
    it->id = id;
    it->text = text;
    return it;
}

static void tick_gaps(const tc_decide_input *in, tc_decide_item *it)
{
    if (!in->has_gaps) {
        snprintf(it->evidence, sizeof it->evidence,
                 "no gap table: run 'truecost gaps --ops FILE --support FILE --json' and pass "
                 "it with --gaps");
        return;
    }
    if (in->gaps_key_without_alternative > 0)
        it->state = TC_ITEM_FAILED;
    else
        it->state = in->gaps_key_unchecked > 0 ? TC_ITEM_MISSING : TC_ITEM_TICKED;
    snprintf(it->evidence, sizeof it->evidence,
             "%d missing, %d key gap(s) without an alternative (%.1f%% of time), %d key "
             "operator(s) not in the support list",
             in->gaps_missing, in->gaps_key_without_alternative,
             in->gaps_share_without_alternative * 100, in->gaps_key_unchecked);
}

static void tick_run(const tc_decide_input *in, tc_decide_item *it)
{
    if (!in->has_target_run && !in->has_train) {
        snprintf(it->evidence, sizeof it->evidence,
                 "no run on the target: measure one with 'truecost run' (--runs A B) or "
                 "'truecost train' (--train A B)");
        return;
    }
    int clean = 1;
    size_t n = 0;
    if (in->has_target_run) {
        clean = in->target_status == TC_RUN_COMPLETE && in->target_failed == 0 &&
                in->target_completed > 0;
        n = (size_t)snprintf(it->evidence, sizeof it->evidence,
                             "target run %s: %lld completed, %lld failed",
                             tc_status_name(in->target_status), (long long)in->target_completed,
                             (long long)in->target_failed);
    }
    if (in->has_train && n < sizeof it->evidence) {
        clean = clean && in->train_clean;
        snprintf(it->evidence + n, sizeof it->evidence - n, "%s%s", n ? "; " : "",
                 in->train_target);
    }
    it->state = clean ? TC_ITEM_TICKED : TC_ITEM_FAILED;
}

static void tick_perf(const tc_decide_input *in, tc_decide_item *it)
{
    if (!in->has_perf) {
        snprintf(it->evidence, sizeof it->evidence,
                 "not measured: pass --runs INCUMBENT ALTERNATIVE (same workload)");
        return;
    }
    if (!(in->perf_ratio > 0)) {
        it->state = TC_ITEM_FAILED;
        snprintf(it->evidence, sizeof it->evidence,
                 "the alternative completed no request: no performance to compare");
        return;
    }
    double gap = 1 - in->perf_ratio;
    it->state = in->perf_ratio >= 0.5 ? TC_ITEM_TICKED : TC_ITEM_FAILED;
    snprintf(it->evidence, sizeof it->evidence,
             "alternative at %.0f%% of the incumbent's throughput%s%s%s (%s)", in->perf_ratio * 100,
             in->perf_basis[0] ? " [" : "", in->perf_basis, in->perf_basis[0] ? "]" : "",
             gap <= 0     ? "as fast or faster"
             : gap <= 0.2 ? "within 20%: acceptable"
             : gap <= 0.5 ? "20-50%: acceptable with a tuning budget"
                          : "over 50%: suspect operator fallback before blaming the hardware");
}

static void tick_declared(int answer, tc_decide_item *it, const char *key)
{
    it->declared = 1;
    it->state = answer == 1 ? TC_ITEM_TICKED : answer == 0 ? TC_ITEM_FAILED : TC_ITEM_MISSING;
    if (answer == 1 || answer == 0)
        snprintf(it->evidence, sizeof it->evidence, "%s = %s in [decision]", key,
                 answer ? "yes" : "no");
    else
        snprintf(it->evidence, sizeof it->evidence,
                 "%s not given or unknown in [decision]: not yet measured", key);
}

tc_decide_state tc_decide_soak_state(tc_soak_outcome outcome, double hours)
{
    if (outcome == TC_SOAK_FAIL)
        return TC_ITEM_FAILED;
    return outcome == TC_SOAK_PASS && hours >= TC_DECIDE_SOAK_HOURS ? TC_ITEM_TICKED
                                                                    : TC_ITEM_MISSING;
}

/* A measured soak, by its verdict (tc_decide_soak_state). */
static void tick_soak(const tc_decide_input *in, tc_decide_item *it)
{
    /* Without a soak, a training run of 24 h with checkpoints saved is the
     * long run: clean, ticked; with an error, not met. */
    if (!in->has_soak && in->has_train && in->train_hours >= TC_DECIDE_SOAK_HOURS &&
        in->train_checkpoints > 0) {
        it->state = in->train_clean ? TC_ITEM_TICKED : TC_ITEM_FAILED;
        snprintf(it->evidence, sizeof it->evidence,
                 "training on the target for %.3g h with %lld checkpoint(s): %s", in->train_hours,
                 (long long)in->train_checkpoints, in->train_target);
        return;
    }
    if (!in->has_soak) {
        tick_declared(in->soak_passed, it, "soak_passed");
        return;
    }
    it->state = tc_decide_soak_state(in->soak_outcome, in->soak_hours);
    snprintf(it->evidence, sizeof it->evidence,
             "soak %s over %.3g h (%.0f h needed): %d outage(s), %.0f s down, %d restart(s), "
             "%lld of %lld requests failed%s%s",
             tc_soak_outcome_name(in->soak_outcome), in->soak_hours, TC_DECIDE_SOAK_HOURS,
             in->soak_outages, in->soak_downtime_s, in->soak_restarts, (long long)in->soak_failed,
             (long long)in->soak_measured, in->soak_reason[0] ? "; " : "", in->soak_reason);
}

static const char *gib(char *buf, size_t len, double bytes)
{
    char n[32];
    snprintf(buf, len, "%s GiB", tc_number_sig(n, sizeof n, bytes / (1024.0 * 1024 * 1024), 3));
    return buf;
}

/* The worst card of a fit document: ticked with 10% of its budget to
 * spare; tight or short is not met, with the largest setting that fits. */
static void tick_fit(const tc_decide_input *in, tc_decide_item *it)
{
    if (!in->has_fit || in->fit_verdict < 0) {
        snprintf(it->evidence, sizeof it->evidence, "%s",
                 in->has_fit ? "the fit document names no card: run 'truecost fit MODEL --gpu "
                               "CARD --json' and pass it with --fit"
                             : "not measured: run 'truecost fit MODEL --gpu CARD [workload] "
                               "--json' and pass it with --fit");
        return;
    }
    static const char *const words[] = {"fits", "tight (under 10% of the budget to spare)",
                                        "does not fit"};
    it->state = in->fit_verdict == 0 ? TC_ITEM_TICKED : TC_ITEM_FAILED;
    char need[32], budget[32], spare[48], gap[32];
    double left = in->fit_budget_bytes - in->fit_need_bytes;
    if (left >= 0)
        snprintf(spare, sizeof spare, "%.0f%% to spare", in->fit_spare_share * 100);
    else
        snprintf(spare, sizeof spare, "short by %s", gib(gap, sizeof gap, -left));
    int n = snprintf(
        it->evidence, sizeof it->evidence, "%s: needs %s of a %s budget per card, %s (%s)",
        in->fit_card, gib(need, sizeof need, in->fit_need_bytes),
        gib(budget, sizeof budget, in->fit_budget_bytes), words[in->fit_verdict % 3], spare);
    if (in->fit_verdict != 0 && n > 0 && (size_t)n < sizeof it->evidence)
        snprintf(it->evidence + n, sizeof it->evidence - (size_t)n, "; the largest that fits: %s",
                 in->fit_largest[0] ? in->fit_largest : "not said");
}

static void checklist(const tc_decide_input *in, tc_decide_result *r)
{
    tick_gaps(in, item(r, 0, "gaps", "operator gap table done; key gaps have alternatives"));
    tick_run(in, item(r, 1, "target_run", "a minimal run on the target completed without errors"));
    tick_perf(in,
              item(r, 2, "perf_gap", "performance gap measured; acceptable or with a tuning path"));
    tick_soak(in, item(r, 3, "soak", "a long (24 h) stability run passed; crash rate acceptable"));
    tick_declared(in->profiler_skill,
                  item(r, 4, "profiler", "someone can read a profiler and change kernels"),
                  "profiler_skill");
    tick_declared(in->fallback_path,
                  item(r, 5, "fallback", "hybrid deployment and fallback path designed"),
                  "fallback_path");
    tick_fit(in, item(r, 6, "fit", "the model and workload fit the target card with margin"));
}

static int count(const tc_decide_result *r, tc_decide_state s)
{
    int n = 0;
    for (int i = 0; i < TC_DECIDE_ITEMS; i++)
        n += r->items[i].state == s;
    return n;
}

/* 003, 6.3: the incumbent less than 2x faster but 2x or more dearer per
 * unit; and a lock-in cost above the saving: cheaper hardware is dearer. */
static void selection_rules(const tc_decide_input *in, tc_decide_result *r)
{
    if (in->has_perf && in->price_ratio >= 2 && in->perf_ratio > 0.5)
        reason(r,
               "the incumbent is less than 2x faster (%.2fx) but costs %.1fx as much per unit: "
               "its cost efficiency needs re-examining",
               1 / in->perf_ratio, in->price_ratio);
    char cost[32], saving[32];
    if (in->has_economics && in->lockin_p50 > in->saving)
        reason(r,
               "the median lock-in cost (%s) exceeds the saving (%s): the cheaper "
               "hardware costs more once the move is paid for",
               tc_number_sig(cost, sizeof cost, in->lockin_p50, 4),
               tc_number_sig(saving, sizeof saving, in->saving, 4));
}

/* A gap over 50%, whichever rule decided: where the profiler says the
 * time went, or how to find out. */
static void suspects(const tc_decide_input *in, tc_decide_result *r)
{
    if (!in->has_perf || !(in->perf_ratio > 0 && in->perf_ratio < 0.5))
        return;
    if (in->has_kernels && in->suspects[0])
        reason(r, "the profiler's top suspects on the alternative: %s%s", in->suspects,
               in->attention_fell_back
                   ? "; its attention fell back from a fused kernel to GEMM + softmax"
                   : "");
    else if (!in->has_kernels)
        reason(r, "profile both platforms and pass 'truecost kernels A B --json' with "
                  "--kernels to name the suspects");
}

static tc_decide_verdict verdict(const tc_decide_input *in, tc_decide_result *r)
{
    int key_gaps = in->has_gaps && in->gaps_key_without_alternative > 0;
    int fallback = in->fallback_path == 1;
    double p = in->p_net_positive;
    if (in->has_perf && !(in->perf_ratio > 0)) {
        reason(r, "the alternative completed no request on the target: make it run first");
        return TC_DECIDE_STAY;
    }
    if (in->has_economics && p < 0.2) {
        reason(r, "the move pays off in only %.0f%% of outcomes", p * 100);
        return TC_DECIDE_STAY;
    }
    if (in->has_perf && in->perf_ratio < 0.5) {
        reason(r, "the alternative is over 50%% slower: find the operator fallback (gap table, "
                  "profiler) before deciding on the hardware");
        return TC_DECIDE_STAY;
    }
    if (key_gaps && !fallback) {
        reason(r, "%d key operator gap(s) have no alternative and no fallback path is designed",
               in->gaps_key_without_alternative);
        return TC_DECIDE_STAY;
    }
    if (!in->has_economics) {
        reason(r, "no lock-in distribution: give an assessment to weigh the move");
        return TC_DECIDE_PILOT;
    }
    int all = count(r, TC_ITEM_TICKED) == TC_DECIDE_ITEMS;
    int within20 = in->has_perf && in->perf_ratio >= 0.8;
    if (all && within20 && p >= 0.8) {
        reason(r, "every checklist item is ticked and the move pays off in %.0f%% of outcomes",
               p * 100);
        return TC_DECIDE_MIGRATE;
    }
    if (fallback && p >= 0.5 && in->has_perf && count(r, TC_ITEM_MISSING) == 0) {
        char unmet[160] = "";
        for (int i = 0; i < TC_DECIDE_ITEMS; i++)
            if (r->items[i].state == TC_ITEM_FAILED)
                snprintf(unmet + strlen(unmet), sizeof unmet - strlen(unmet), "%s%s",
                         unmet[0] ? ", " : "", r->items[i].id);
        reason(r,
               "the move pays off in %.0f%% of outcomes, but %s%s%s: keep that part on the "
               "incumbent behind the fallback path",
               p * 100,
               key_gaps    ? "key operator gaps have no alternative"
               : !within20 ? "the performance gap is 20-50%"
               : p < 0.8   ? "the economics are not yet clear-cut"
                           : "a checklist item is not met",
               unmet[0] ? "; not met: " : "", unmet);
        return TC_DECIDE_HYBRID;
    }
    reason(r,
           "the move pays off in %.0f%% of outcomes, but the evidence is incomplete: a small "
           "pilot collects it before money is committed",
           p * 100);
    return TC_DECIDE_PILOT;
}

void tc_decide(const tc_decide_input *in, tc_decide_result *out)
{
    memset(out, 0, sizeof *out);
    checklist(in, out);
    out->verdict = verdict(in, out);
    suspects(in, out);
    selection_rules(in, out);
    reason(out, "re-measure after every major driver, ROCm/CUDA or framework release, or every "
                "six months: one benchmark is not a permanent answer");
}
