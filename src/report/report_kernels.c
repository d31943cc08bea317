/* truecost kernels: the text for people (figures to 4 significant
 * digits) and the caveats shared with the JSON document. */
#include "report/report_kernels.h"

#include <stdio.h>
#include <string.h>

#include "core/tc_number.h"

/* Unclassified time above this share gets a warning. */
#define OTHER_WARN_SHARE 0.25

static const char *role(const tc_kernels_doc *d, size_t i)
{
    return d->n == 1 ? "" : i == 0 ? "incumbent " : "alternative ";
}

int tc_report_kernels_warnings(const tc_kernels_doc *d, char out[TC_KERNELS_MAX_WARNINGS][512])
{
    int n = 0;
    for (size_t i = 0; i < d->n && n + 2 <= TC_KERNELS_MAX_WARNINGS; i++) {
        const tc_kernel_profile *p = d->p[i];
        if (p->t->cut_names)
            snprintf(out[n++], 512,
                     "%s%s: PyTorch cut some kernel names to '...': classes and matches use "
                     "what is left (print the table with a larger max_name_column_width)",
                     role(d, i), d->files[i]);
        double other = p->cls[TC_KCLASS_OTHER].share;
        const tc_kernel *top = NULL;
        for (size_t k = 0; k < p->n && !top; k++)
            if (p->by_time[k]->klass == TC_KCLASS_OTHER)
                top = p->by_time[k];
        if (other > OTHER_WARN_SHARE && top) {
            char pct[32];
            tc_number_sig(pct, sizeof pct, 100 * other, 4);
            snprintf(out[n++], 512,
                     "%s%s: %s%% of the kernel time is in kernels no rule classifies (the "
                     "largest: %.160s): give --rules FILE to classify them",
                     role(d, i), d->files[i], pct, top->name);
        }
    }
    return n;
}

static const char *ms(char *buf, size_t len, int64_t ns)
{
    return tc_number_sig(buf, len, (double)ns / 1e6, 4);
}

static const char *pct(char *buf, size_t len, double share)
{
    char v[24];
    tc_number_sig(v, sizeof v, 100 * share, 4);
    snprintf(buf, len, "%s%%", v);
    return buf;
}

/* At most `width` bytes of s, cut with "..." when longer. */
static const char *clip(const char *s, int width, char *out, size_t outlen)
{
    if ((int)strlen(s) <= width)
        snprintf(out, outlen, "%s", s);
    else
        snprintf(out, outlen, "%.*s...", width - 3, s);
    return out;
}

static void title(FILE *out, const tc_kernels_doc *d)
{
    char t[32];
    for (size_t i = 0; i < d->n; i++) {
        const tc_kernel_table *k = d->p[i]->t;
        fprintf(out, "%s%s%s (%s): %zu kernel%s, %s ms of kernel time\n",
                i == 0 ? "Kernels of " : "        vs ", role(d, i), d->files[i],
                tc_kernels_format_name(k->format), k->n, k->n == 1 ? "" : "s",
                ms(t, sizeof t, k->total_ns));
    }
}

static void classes_one(FILE *out, const tc_kernel_profile *p)
{
    fprintf(out, "Time by class:\n  %-14s %12s %9s %8s\n", "class", "time ms", "share", "kernels");
    for (int c = 0; c < TC_KCLASS_N; c++) {
        const tc_kernel_class_sum *s = &p->cls[c];
        if (!s->kernels)
            continue;
        char t[32], sh[32];
        fprintf(out, "  %-14s %12s %9s %8zu\n", tc_kernels_class_name((tc_kernel_class)c),
                ms(t, sizeof t, s->time_ns), pct(sh, sizeof sh, s->share), s->kernels);
    }
}

static void classes_two(FILE *out, const tc_kernel_compare *c)
{
    fprintf(out, "Time by class:  %23s  %23s\n  %-14s %12s %9s  %12s %9s  %8s\n", "incumbent",
            "alternative", "class", "time ms", "share", "time ms", "share", "B/A");
    for (int k = 0; k < TC_KCLASS_N; k++) {
        const tc_kernel_class_sum *a = &c->a->cls[k], *b = &c->b->cls[k];
        if (!a->kernels && !b->kernels)
            continue;
        char ta[32], sa[32], tb[32], sb[32], r[32] = "-";
        if (a->time_ns > 0)
            tc_number_sig(r, sizeof r, (double)b->time_ns / (double)a->time_ns, 4);
        fprintf(out, "  %-14s %12s %9s  %12s %9s  %8s\n", tc_kernels_class_name((tc_kernel_class)k),
                ms(ta, sizeof ta, a->time_ns), pct(sa, sizeof sa, a->share),
                ms(tb, sizeof tb, b->time_ns), pct(sb, sizeof sb, b->share), r);
    }
    char ta[32], tb[32], r[32];
    fprintf(out, "  %-14s %12s %9s  %12s %9s  %8s\n", "total", ms(ta, sizeof ta, c->a->t->total_ns),
            "100%", ms(tb, sizeof tb, c->b->t->total_ns), "100%",
            tc_number_sig(r, sizeof r, (double)c->b->t->total_ns / (double)c->a->t->total_ns, 4));
    if (!c->n_grew)
        return;
    fputs("Share grew most:", out);
    for (size_t i = 0; i < c->n_grew && i < 3; i++) {
        char v[32];
        tc_number_sig(v, sizeof v, 100 * c->share_change[c->grew[i]], 4);
        fprintf(out, "%s %s +%s points", i ? "," : "", tc_kernels_class_name(c->grew[i]), v);
    }
    fputc('\n', out);
}

static void kernel_line(FILE *out, const tc_kernel *k, int64_t total)
{
    char sh[32], t[32], calls[32] = "-", mean[32] = "-", name[80];
    if (k->has_calls)
        snprintf(calls, sizeof calls, "%llu", (unsigned long long)k->calls);
    if (k->has_calls && k->calls)
        tc_number_sig(mean, sizeof mean, (double)k->time_ns / (double)k->calls / 1e3, 4);
    fprintf(out, "  %9s %10s %10s %10s  %-13s %s\n",
            pct(sh, sizeof sh, (double)k->time_ns / (double)total), ms(t, sizeof t, k->time_ns),
            calls, mean, tc_kernels_class_name(k->klass), clip(k->name, 70, name, sizeof name));
}

static void suspects(FILE *out, const tc_kernel_profile *p, const char *whose)
{
    if (!p->n_suspects)
        return;
    fprintf(out, "Largest non-GEMM kernels%s (where a fallback usually sits):\n", whose);
    fprintf(out, "  %9s %10s %10s %10s  %-13s %s\n", "share", "time ms", "calls", "mean us",
            "class", "kernel");
    for (size_t i = 0; i < p->n_suspects; i++)
        kernel_line(out, p->suspects[i], p->t->total_ns);
}

static void fallback(FILE *out, const tc_kernel_profile *p, const char *whose, int fell_back)
{
    const tc_kernel_fallback *f = &p->fallback;
    if (!f->probable)
        return;
    char s[32], sh[32], g[32], name[80];
    fprintf(out,
            "Probable fallback%s: no fused attention kernel%s,\n  while softmax takes %s ms "
            "(%s) beside %s ms of GEMM",
            whose, fell_back ? " (the incumbent runs one)" : "", ms(s, sizeof s, f->softmax_ns),
            pct(sh, sizeof sh, (double)f->softmax_ns / (double)p->t->total_ns),
            ms(g, sizeof g, f->gemm_ns));
    if (f->batched)
        fprintf(out, " (batched: %s)", clip(f->batched->name, 50, name, sizeof name));
    fputs(": attention runs as batched GEMM + softmax,\n  the math path. Check that flash or "
          "memory-efficient attention is built and enabled for this GPU and dtype.\n",
          out);
}

static void matched(FILE *out, const tc_kernel_compare *c, size_t top)
{
    if (c->n_matched) {
        fputs("Same kernels on both (normalised name), largest excess first:\n", out);
        fprintf(out, "  %12s %14s %8s  %-13s %s\n", "incumbent ms", "alternative ms", "B/A",
                "class", "kernel");
    }
    for (size_t i = 0; i < c->n_matched && i < top; i++) {
        const tc_kernel_match *m = &c->matched[i];
        char a[32], b[32], r[32] = "-", name[80];
        if (m->a_ns > 0)
            tc_number_sig(r, sizeof r, (double)m->b_ns / (double)m->a_ns, 4);
        fprintf(out, "  %12s %14s %8s  %-13s %s\n", ms(a, sizeof a, m->a_ns),
                ms(b, sizeof b, m->b_ns), r, tc_kernels_class_name(m->klass),
                clip(m->name, 60, name, sizeof name));
    }
    if (c->n_b_only) {
        fputs("Only on the alternative, largest first:\n", out);
        fprintf(out, "  %9s %10s %10s %10s  %-13s %s\n", "share", "time ms", "calls", "mean us",
                "class", "kernel");
    }
    for (size_t i = 0; i < c->n_b_only && i < top; i++)
        kernel_line(out, c->b_only[i], c->b->t->total_ns);
}

static const char *days(char *buf, size_t len, const tc_kernel_effort *e)
{
    char l[32], m[32], h[32];
    snprintf(buf, len, "%s..%s..%s", tc_number_sig(l, sizeof l, e->low, 4),
             tc_number_sig(m, sizeof m, e->mode, 4), tc_number_sig(h, sizeof h, e->high, 4));
    return buf;
}

static void tuning(FILE *out, const tc_kernel_compare *c)
{
    char per[96], d[96];
    days(per, sizeof per, &c->per_kernel);
    if (!c->n_tune) {
        fputs("Suggested tuning: none (no class takes at least 1% of the alternative's kernel "
              "time more than on the incumbent)\n",
              out);
        return;
    }
    fputs("Suggested tuning (the time saved if the alternative's class took the incumbent's "
          "time):\n",
          out);
    for (size_t i = 0; i < c->n_tune; i++) {
        const tc_kernel_tune *e = &c->tune[i];
        char s[32], sh[32], name[80];
        fprintf(out, "  %zu. %s: saves %s ms, %s of the alternative's kernel time%s\n", i + 1,
                tc_kernels_class_name(e->klass), ms(s, sizeof s, e->saving_ns),
                pct(sh, sizeof sh, (double)e->saving_ns / (double)c->b->t->total_ns),
                e->suspect_fallback ? " [attention fallback]" : "");
        fprintf(out, "     %zu kernel%s x %s = %s person-days:\n", e->n_kernels,
                e->n_kernels == 1 ? "" : "s", per, days(d, sizeof d, &e->days));
        for (size_t k = 0; k < e->n_kernels; k++)
            fprintf(out, "       %s\n", clip(e->kernels[k]->name, 74, name, sizeof name));
    }
    fprintf(out, "T_perf from this list: %s person-days (low..mode..high), %s per kernel\n",
            days(d, sizeof d, &c->t_perf), per);
}

void tc_report_kernels_print(FILE *out, const tc_kernels_doc *d)
{
    title(out, d);
    if (d->c)
        classes_two(out, d->c);
    else
        classes_one(out, d->p[0]);
    if (d->c)
        matched(out, d->c, d->top);
    size_t last = d->n - 1;
    suspects(out, d->p[last], d->n == 2 ? " of the alternative" : "");
    fallback(out, d->p[0], d->n == 2 ? " on the incumbent" : "", 0);
    if (d->n == 2)
        fallback(out, d->p[1], " on the alternative", d->c->attention_fell_back);
    if (d->c)
        tuning(out, d->c);
    char lines[TC_KERNELS_MAX_WARNINGS][512];
    int n = tc_report_kernels_warnings(d, lines);
    for (int i = 0; i < n; i++)
        fprintf(out, "Warning: %s\n", lines[i]);
    fprintf(out, "Note: %s.\n", TC_KERNELS_NOTE);
}
