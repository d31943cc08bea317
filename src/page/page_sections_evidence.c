/* The report's sections of the fine-tuning user's documents: memory (a
 * `fit --json`: per card, the terms stacked against its budget) and
 * kernels (a `kernels A B --json`: each platform's time by class, stacked,
 * and the tuning list's first entries). Drawn only when given. */
#include <stdio.h>

#include "page/page_chart.h"
#include "page/page_doc.h"

#define GIB (1024.0 * 1024 * 1024)

static void fit_table(tc_rw *w, const tc_evidence *ev)
{
    const char *head[] = {"card", "capacity GiB", "budget GiB", "need GiB", "verdict"};
    tc_rw_table(w, "memory-table", head, 5);
    for (int i = 0; i < ev->n_fit_cards; i++) {
        const tc_evidence_fit_card *c = &ev->fit_cards[i];
        char cap[32], bud[32], need[32];
        const char *row[5] = {c->name, tc_page_num(cap, sizeof cap, c->capacity_bytes / GIB),
                              tc_page_num(bud, sizeof bud, c->budget_bytes / GIB),
                              tc_page_num(need, sizeof need, c->need_bytes / GIB), c->verdict};
        tc_rw_row(w, row, 5);
    }
    tc_rw_table_end(w);
}

static void terms_table(tc_rw *w, const tc_evidence *ev)
{
    const char *head[] = {"term", "GiB per card"};
    tc_rw_table(w, "memory-terms", head, 2);
    for (int t = 0; t < ev->n_fit_terms; t++) {
        char v[32];
        const char *row[2] = {ev->fit_terms[t].name,
                              tc_page_num(v, sizeof v, ev->fit_terms[t].bytes / GIB)};
        tc_rw_row(w, row, 2);
    }
    tc_rw_table_end(w);
}

static void fit_bars(tc_rw *w, const tc_evidence *ev)
{
    tc_chart_bars c = {.title = "Memory per card: the terms against the budget",
                       .ylabel = "GiB per card",
                       .colour_by_part = 1,
                       .mark_label = "budget"};
    for (int t = 0; t < ev->n_fit_terms && t < TC_CHART_MAX_PARTS; t++)
        c.part_label[c.n_parts++] = ev->fit_terms[t].name;
    for (int i = 0; i < ev->n_fit_cards && i < TC_CHART_MAX_BARS; i++) {
        int b = c.n_bars++;
        c.bar_label[b] = ev->fit_cards[i].name;
        for (int t = 0; t < c.n_parts; t++)
            c.v[b][t] = ev->fit_terms[t].bytes / GIB;
        c.mark[b] = ev->fit_cards[i].budget_bytes / GIB;
    }
    tc_page_draw_bars(w, &c,
                      "Stacked bars per card: each memory term of the model and workload in GiB "
                      "per card, with the card's budget (capacity x utilization) marked.");
}

static void sec_memory(tc_rw *w, const tc_dossier *d)
{
    const tc_evidence *ev = &d->ev;
    tc_rw_heading(w, 2, "memory", "Memory: does the model fit the card");
    tc_rw_para(w,
               "From %s (truecost fit): the model's memory terms per card against each "
               "card's budget. A card fits with 10%% of its budget to spare; tight with less.",
               d->ask->fit);
    if (!ev->n_fit_cards) {
        tc_rw_missing(w, "The fit document names no card: run truecost fit with --gpu CARD.");
        return;
    }
    fit_table(w, ev);
    fit_bars(w, ev);
    terms_table(w, ev);
}

static void kernel_bars(tc_rw *w, const tc_evidence *ev)
{
    tc_chart_bars c = {.title = "Kernel time by class, each platform",
                       .ylabel = "% of the platform's kernel time",
                       .colour_by_part = 1,
                       .n_bars = 2,
                       .bar_label = {"incumbent", "alternative"}};
    for (int k = 0; k < ev->n_kernel_classes && k < TC_CHART_MAX_PARTS; k++) {
        c.part_label[c.n_parts++] = ev->kernel_classes[k].name;
        c.v[0][k] = 100 * ev->kernel_classes[k].share_a;
        c.v[1][k] = 100 * ev->kernel_classes[k].share_b;
    }
    tc_page_draw_bars(w, &c,
                      "Two stacked bars, incumbent and alternative: the share of each kernel class "
                      "(GEMM, attention, softmax, ...) in the platform's kernel time.");
}

static void classes_table(tc_rw *w, const tc_evidence *ev)
{
    const char *head[] = {"class", "incumbent %", "alternative %"};
    tc_rw_table(w, "kernel-classes", head, 3);
    for (int k = 0; k < ev->n_kernel_classes; k++) {
        const tc_evidence_kernel_class *c = &ev->kernel_classes[k];
        char a[32], b[32];
        const char *row[3] = {c->name, tc_page_num(a, sizeof a, 100 * c->share_a),
                              tc_page_num(b, sizeof b, 100 * c->share_b)};
        tc_rw_row(w, row, 3);
    }
    tc_rw_table_end(w);
}

static void suspects_table(tc_rw *w, const tc_evidence *ev)
{
    const char *head[] = {"class", "largest kernel", "kernels", "a fix saves (% of time)"};
    tc_rw_table(w, "kernels-table", head, 4);
    for (int i = 0; i < ev->n_suspects; i++) {
        const tc_evidence_suspect *s = &ev->suspects[i];
        char n[16], share[32];
        snprintf(n, sizeof n, "%d", s->kernels);
        const char *row[4] = {s->kernel_class, s->kernel, n,
                              tc_page_num(share, sizeof share, 100 * s->saving_share)};
        tc_rw_row(w, row, 4);
    }
    tc_rw_table_end(w);
}

static void sec_kernels(tc_rw *w, const tc_dossier *d)
{
    const tc_evidence *ev = &d->ev;
    char days[3][32];
    tc_rw_heading(w, 2, "kernels", "Kernels: where the profiler says the time goes");
    tc_rw_para(w,
               "From %s (truecost kernels): each platform's kernel time by class, the same "
               "work profiled on each. The tuning list's %d kernel(s) price T_perf at %s..%s..%s "
               "person-days%s.",
               d->ask->kernels, ev->kernel_count,
               tc_page_num(days[0], sizeof days[0], ev->kernel_days_low),
               tc_page_num(days[1], sizeof days[1], ev->kernel_days_mode),
               tc_page_num(days[2], sizeof days[2], ev->kernel_days_high),
               ev->attention_fell_back ? "; the alternative's attention fell back from a fused "
                                         "kernel to GEMM + softmax"
                                       : "");
    kernel_bars(w, ev);
    classes_table(w, ev);
    if (ev->n_suspects)
        suspects_table(w, ev);
}

void tc_page_sec_evidence(tc_rw *w, const tc_dossier *d)
{
    if (d->ev.has_fit)
        sec_memory(w, d);
    if (d->ev.has_kernels)
        sec_kernels(w, d);
}
