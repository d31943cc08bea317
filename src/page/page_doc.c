/* The report's page: its head, stylesheet and section order (report_doc.h). */
#include "page/page_doc.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tc_outfile.h"
#include "tc_version.h"
#include "page/page_chart.h"

/* No web font, no script, no link: the page needs nothing but itself.
 * The charts' axes and text are drawn in TC_CHART_FG_HEX, recoloured here
 * for the dark scheme (CSS wins over SVG presentation attributes). */
static const char css[] =
    ":root{--bg:#ffffff;--fg:#1a1a1a;--muted:#555;--line:#ccc;--warn:#fff3cd;--warnfg:#5c4400}"
    "@media (prefers-color-scheme:dark){:root{--bg:#121212;--fg:#e6e6e6;--muted:#aaa;"
    "--line:#444;--warn:#3d3000;--warnfg:#ffe08a}}"
    "body{background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,sans-serif;"
    "max-width:1100px;margin:0 auto;padding:1em}"
    "h1,h2,h3{line-height:1.2}h2{border-bottom:1px solid var(--line);padding-bottom:.2em}"
    ".banner{background:var(--warn);color:var(--warnfg);padding:.6em 1em;border-radius:4px}"
    ".missing{color:var(--muted);font-style:italic}"
    ".verdict{font-size:1.15em;font-weight:600}"
    ".scroll{overflow-x:auto}table{border-collapse:collapse;margin:.5em 0}"
    "th,td{border:1px solid var(--line);padding:.25em .6em;text-align:left}"
    "td{font-variant-numeric:tabular-nums}"
    "figure{margin:1em 0}figcaption{color:var(--muted);font-size:.9em}"
    "svg.chart{width:100%;max-width:900px;height:auto;display:block}"
    "svg.chart>rect:first-of-type{fill:var(--bg)}"
    "svg.chart [stroke=\"" TC_CHART_FG_HEX "\"]{stroke:var(--fg)}"
    "svg.chart [fill=\"" TC_CHART_FG_HEX "\"]{fill:var(--fg)}"
    "svg.chart [fill=\"#FFFFFF\"]{fill:var(--bg)}"
    "nav ul{columns:2}"
    "@media print{body{max-width:none;font-size:11pt;color:#000;background:#fff}"
    "nav{display:none}figure,table{break-inside:avoid}h2{break-after:avoid}"
    ".banner{border:2px solid #000}}";

static void head(tc_buf *b, const tc_dossier *d, const char *title)
{
    tc_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                   "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                   "<meta name=\"color-scheme\" content=\"light dark\">"
                   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
                   "style-src 'unsafe-inline'; img-src data:\">"
                   "<meta name=\"generator\" content=\"truecost " TC_VERSION "\"><title>");
    tc_buf_puts(b, title); /* built from escaped names */
    tc_buf_printf(b, "</title><style>%s</style></head><body%s>\n", css,
                  d->simulated ? " data-simulated=\"1\"" : "");
    tc_buf_printf(b, "<h1>%s</h1>\n", title);
    tc_buf_puts(b, "<nav aria-label=\"sections\"><ul><li><a href=\"#summary\">Summary</a></li>"
                   "<li><a href=\"#runs\">Runs</a></li><li><a href=\"#sweep\">Sweep</a></li>"
                   "<li><a href=\"#cost\">Cost</a></li><li><a href=\"#lockin\">Lock-in</a></li>"
                   "<li><a href=\"#env\">Environment</a></li>"
                   "<li><a href=\"#method\">How it was measured</a></li></ul></nav>\n");
}

static void title_of(const tc_dossier *d, char *out, size_t len)
{
    char a[160], b[160];
    size_t o = 0;
    /* Names come from the user: keep only what needs no escaping. */
    for (const char *s = d->a.set.name; *s && o + 1 < sizeof a; s++)
        a[o++] = strchr("<>&\"", *s) ? '_' : *s;
    a[o] = 0;
    o = 0;
    for (const char *s = d->two ? d->b.set.name : ""; *s && o + 1 < sizeof b; s++)
        b[o++] = strchr("<>&\"", *s) ? '_' : *s;
    b[o] = 0;
    if (d->two)
        snprintf(out, len, "truecost report: %s (A) vs %s (B)", a, b);
    else
        snprintf(out, len, "truecost report: %s", a);
}

static void sections(tc_rw *w, const tc_dossier *d)
{
    tc_page_sec_summary(w, d);
    tc_page_sec_runs(w, d);
    tc_page_sec_sweep(w, d);
    tc_page_sec_cost(w, d);
    tc_page_sec_lockin(w, d);
    tc_page_sec_train(w, d);
    tc_page_sec_evidence(w, d);
    tc_page_sec_env(w, d);
    tc_page_sec_method(w, d);
}

tc_err tc_page_may_write(const tc_page_out *o, const char *path, char *err, size_t errlen)
{
    tc_err rc =
        tc_output_check(path == o->path ? "-o" : "the chart file", path, o->inputs, err, errlen);
    if (rc == TC_OK && o->fmt == TC_PAGE_MD && !o->force && access(path, F_OK) == 0)
        rc = tc_fail(err, errlen, TC_ERR_INVALID,
                     "%s exists: a Markdown report does not write over the files in its folder; "
                     "give -o another name, or --force",
                     path);
    return rc;
}

tc_err tc_page_write(const tc_dossier *d, const tc_page_out *o, char *err, size_t errlen)
{
    tc_page_format fmt = o->fmt;
    const char *path = o->path;
    tc_err guard = tc_page_may_write(o, path, err, errlen);
    if (guard != TC_OK)
        return guard;
    tc_buf b = {0};
    char title[400], dirbuf[1024], basebuf[1024];
    snprintf(dirbuf, sizeof dirbuf, "%s", path);
    snprintf(basebuf, sizeof basebuf, "%s", path);
    char *base = basename(basebuf), *dot = strrchr(base, '.');
    if (dot && dot != base)
        *dot = 0;
    tc_rw w = {.fmt = fmt, .b = &b, .dir = dirname(dirbuf), .stem = base, .out = o};
    title_of(d, title, sizeof title);
    if (fmt == TC_PAGE_HTML)
        head(&b, d, title);
    else
        tc_buf_printf(&b, "# %s\n\n", title);
    sections(&w, d);
    if (fmt == TC_PAGE_HTML)
        tc_buf_puts(&b, "<footer><p>Written by truecost " TC_VERSION
                        ". Every chart has its numbers in the tables beside it.</p></footer>"
                        "</body></html>\n");
    tc_err rc = w.rc;
    if (rc != TC_OK)
        snprintf(err, errlen, "%s", w.err);
    else if (tc_buf_status(&b) != TC_OK)
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    else
        rc = tc_outfile_write(path, b.data, err, errlen);
    tc_buf_free(&b);
    return rc;
}
