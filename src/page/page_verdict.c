/* The summary's verdict sentence (page_doc.h). */
#include <stdio.h>

#include "page/page_doc.h"

/* Two sweeps: the claim at each target and where it holds, as `compare
 * SWEEP_A SWEEP_B --claim X` judges it. */
static void frontier_verdict(const tc_dossier *d, char *out, size_t len)
{
    if (!d->has_frontier) {
        snprintf(out, len, "No verdict: two sweeps are compared at equal interactivity, and %s.",
                 d->frontier_missing);
        return;
    }
    const tc_frontier_result *r = d->fr;
    size_t n;
    if (r->has_claim)
        n = (size_t)snprintf(out, len,
                             "The claim \"A is %.3g times as cost-efficient as B\", judged at "
                             "equal interactivity: %s (cost B/A",
                             r->claim, r->overall);
    else
        n = (size_t)snprintf(out, len,
                             "No claim given (--claim X); at equal interactivity, "
                             "cost B/A is");
    for (size_t i = 0; i < r->n_targets && n < len; i++) {
        const tc_frontier_target *t = &r->t[i];
        const char *sep = i ? ";" : "";
        if (t->has_ratio)
            n += (size_t)snprintf(out + n, len - n, "%s %.3g at %g tokens/s per user%s%s", sep,
                                  t->ratio, t->x, t->verdict ? ", " : "",
                                  t->verdict ? t->verdict : "");
        else {
            char why[64];
            n += (size_t)snprintf(out + n, len - n, "%s not known at %g (%s)", sep, t->x,
                                  tc_frontier_unjudged(t, why, sizeof why));
        }
    }
    if (n < len)
        snprintf(out + n, len - n, "%s", r->has_claim ? ")." : ".");
}

void tc_page_verdict(const tc_dossier *d, char *out, size_t len)
{
    if (d->by_frontier) {
        frontier_verdict(d, out, len);
        return;
    }
    if (!d->has_compare) {
        snprintf(out, len, "No verdict: %s.",
                 d->two ? d->compare_missing : "one platform, nothing to compare");
        return;
    }
    const tc_compare_result *r = &d->cmp;
    if (r->claim.given) {
        snprintf(out, len,
                 "The claim \"A is %.3g times as %s as B\" is %s: measured %.3g (95%% CI "
                 "%.3g to %.3g).",
                 r->claim.x, r->claim.on_cost ? "cost-efficient" : "fast",
                 tc_claim_verdict_name(r->claim.verdict), r->claim.ci.point, r->claim.ci.lo,
                 r->claim.ci.hi);
        return;
    }
    snprintf(out, len,
             "No claim given (--claim X): B's throughput is %.3g times A's (95%% CI %.3g to "
             "%.3g).",
             r->tps_ratio.point, r->tps_ratio.lo, r->tps_ratio.hi);
}
