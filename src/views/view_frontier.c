/* One platform's sweep loaded for the frontier: its points, each point's (view_frontier.h). */
#include "views/view_frontier.h"

#include <stdlib.h>
#include <string.h>
#include "views/view_figures.h"

static tc_err keep_requests(const tc_figures *f, const tc_slo *slo, tc_frontier_req **out,
                            size_t *n)
{
    *out = calloc(f->n_recs ? f->n_recs : 1, sizeof **out);
    *n = 0;
    if (!*out)
        return TC_ERR_NOMEM;
    for (size_t i = 0; i < f->n_recs; i++) {
        const tc_req_record *r = &f->recs[i];
        int64_t e2e = tc_req_e2e_ns(r);
        if (r->warmup || r->error != TC_REQ_OK || r->output_tokens <= 0 || e2e <= 0)
            continue;
        double tpot = tc_req_tpot_ns(r);
        (*out)[(*n)++] =
            (tc_frontier_req){(double)r->output_tokens, (double)e2e / 1e9,
                              tpot >= 0 ? tpot / 1e6 : -1, slo ? tc_slo_good(slo, r) : 0};
    }
    return TC_OK;
}

/* A point's good-token share and attainment under the side's SLO. */
static void judge(tc_frontier_side *s, size_t i)
{
    double good = 0, all = 0;
    size_t n_good = 0;
    for (size_t k = 0; k < s->n_reqs[i]; k++) {
        all += s->reqs[i][k].tokens;
        good += s->reqs[i][k].good ? s->reqs[i][k].tokens : 0;
        n_good += (size_t)s->reqs[i][k].good;
    }
    s->good_share[i] = all > 0 ? good / all : 0;
    s->attainment[i] = s->pts[i].measured > 0 ? (double)n_good / (double)s->pts[i].measured : 0;
}

tc_err tc_view_frontier_side(tc_store *st, const char *which, const char *label,
                             const tc_cost_profile *profile, const tc_slo *slo,
                             tc_frontier_side *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->label = label;
    out->profile = profile;
    tc_err rc = tc_view_runset(st, which, &out->set, err, errlen);
    if (rc != TC_OK)
        return rc;
    size_t n = out->set.n;
    if (n > TC_FRONTIER_MAX_POINTS)
        return tc_fail(err, errlen, TC_ERR_INVALID, "'%s' has %zu runs: at most %d points a side",
                       which, n, TC_FRONTIER_MAX_POINTS);
    out->pts = calloc(n, sizeof *out->pts);
    out->reqs = calloc(n, sizeof *out->reqs);
    out->n_reqs = calloc(n, sizeof *out->n_reqs);
    out->good_share = calloc(n ? n : 1, sizeof *out->good_share);
    out->attainment = calloc(n ? n : 1, sizeof *out->attainment);
    out->has_slo = slo != NULL;
    if (!out->pts || !out->reqs || !out->n_reqs || !out->good_share || !out->attainment)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < n; k++) {
        tc_figures f;
        size_t i = out->n;
        rc = tc_view_figures(st, &out->set.runs[k], TC_FIGURES_REQUESTS, &f, err, errlen);
        if (rc != TC_OK)
            return rc;
        tc_sweep_point_of(&f, &out->pts[i]);
        if (!out->pts[i].complete) { /* partial figures: named, not read */
            if (out->n_left_out++ == 0)
                tc_sweep_incomplete_text(&out->pts[i], 1, out->left_out, sizeof out->left_out);
            tc_figures_free(&f);
            continue;
        }
        out->simulated |= out->pts[i].simulated;
        rc = keep_requests(&f, slo, &out->reqs[i], &out->n_reqs[i]);
        tc_figures_free(&f);
        if (rc != TC_OK)
            return tc_fail(err, errlen, rc, "out of memory");
        out->n++;
        judge(out, i);
    }
    if (out->n == 0)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "'%s': no run of it completed (%s): nothing to read a frontier from", which,
                       out->left_out);
    return TC_OK;
}
