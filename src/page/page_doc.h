/* The document of `truecost report`: one self-contained HTML file (inline
 * SVG charts, no request to any address, readable without JavaScript,
 * light and dark schemes, a print stylesheet) or Markdown with its charts
 * as SVG files beside it. The sections are written once against a small
 * writer (tc_rw) that has an HTML and a Markdown form. */
#ifndef TC_PAGE_DOC_H
#define TC_PAGE_DOC_H

#include <stddef.h>

#include "core/tc_buf.h"
#include "page/page_chart.h"
#include "core/tc_outfile.h"
#include "assess/dossier.h"

typedef enum tc_page_format { TC_PAGE_HTML = 0, TC_PAGE_MD } tc_page_format;

/* How the report's files are written: never over an input (the guard of
 * core/tc_outfile.h), and in Markdown never over an existing file but
 * with force. */
typedef struct tc_page_out {
    tc_page_format fmt;
    const char *path;
    const tc_inputs *inputs; /* may be NULL */
    int force;
} tc_page_out;

/* Writes the report of d to o->path (HTML, or Markdown and its SVG files
 * named PATH-STEM-N.svg beside it). TC_OK, TC_ERR_IO naming the file,
 * TC_ERR_INVALID for a file it may not write (an input; in Markdown one
 * that exists, without force), or a chart's error. */
TC_MUST_CHECK tc_err tc_page_write(const tc_dossier *d, const tc_page_out *o, char *err,
                                   size_t errlen);

/* TC_OK when the report may write path (o->path or a chart file beside
 * it), else TC_ERR_INVALID saying why (see tc_page_out). */
TC_MUST_CHECK tc_err tc_page_may_write(const tc_page_out *o, const char *path, char *err,
                                       size_t errlen);

/* The summary sentence of the verdict into out: the claim's verdict as
 * `compare --json` gives it ("supported", ...), else the ratios. */
void tc_page_verdict(const tc_dossier *d, char *out, size_t len);

/* ---- the writer the sections use (report_writer.c) ----------------------- */

typedef struct tc_rw {
    tc_page_format fmt;
    tc_buf *b;
    const char *dir, *stem; /* Markdown: where the chart files go, and their prefix */
    const tc_page_out *out;
    int next_id;
    int n_charts;
    tc_err rc; /* the first failure; later calls do nothing */
    char err[512];
} tc_rw;

void tc_rw_heading(tc_rw *w, int level, const char *id, const char *text);
void tc_rw_para(tc_rw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A paragraph marked as a missing input ("what is missing"). */
void tc_rw_missing(tc_rw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tc_rw_banner(tc_rw *w, const char *text);
/* A table: head of n cells, then rows of n cells, then the end. The cell
 * texts are escaped. */
void tc_rw_table(tc_rw *w, const char *id, const char *const *head, int n);
void tc_rw_row(tc_rw *w, const char *const *cells, int n);
void tc_rw_table_end(tc_rw *w);
/* A chart (an SVG document, taken: freed here) with its text alternative. */
void tc_rw_chart(tc_rw *w, char *svg, const char *alt);
/* The next chart id. */
int tc_rw_id(tc_rw *w);
/* Records a chart that could not be drawn (the reason, not an error). */
void tc_rw_chart_failed(tc_rw *w, const char *why);
/* A part shown on demand (HTML <details>, readable with JavaScript off;
 * Markdown: a bold line before it), closed by tc_rw_details_end. */
void tc_rw_details(tc_rw *w, const char *summary);
void tc_rw_details_end(tc_rw *w);

/* The sections (report_sections.c, report_sections_charts.c). */
void tc_page_sec_summary(tc_rw *w, const tc_dossier *d);
void tc_page_sec_runs(tc_rw *w, const tc_dossier *d);
void tc_page_sec_sweep(tc_rw *w, const tc_dossier *d);
void tc_page_sec_cost(tc_rw *w, const tc_dossier *d);
void tc_page_sec_lockin(tc_rw *w, const tc_dossier *d);
/* Memory (--fit) and kernels (--kernels), when given (page_sections_evidence.c). */
void tc_page_sec_evidence(tc_rw *w, const tc_dossier *d);
/* Fine-tuning (--train A B), when given (page_sections_train.c). */
void tc_page_sec_train(tc_rw *w, const tc_dossier *d);
void tc_page_sec_env(tc_rw *w, const tc_dossier *d);
void tc_page_sec_method(tc_rw *w, const tc_dossier *d);

/* The charts (report_sections_charts.c): A and B overlaid, one side's
 * timeline, the sweep's, the cost bars. */
/* Chart c drawn into the document, or the reason it could not be. */
void tc_page_draw(tc_rw *w, const tc_chart *c, const char *alt);
/* The same for stacked bars. */
void tc_page_draw_bars(tc_rw *w, const tc_chart_bars *c, const char *alt);
/* The empirical CDF of every value that c counted, as a line into x and y
 * (TC_SERIES_CDF_BINS + 1 each): the share at or below each bin's upper
 * edge, in %, from the share of zeros at the smallest edge. The number of
 * points (0: nothing counted). */
size_t tc_page_cdf_line(const tc_series_cdf *c, double *x, double *y);
/* Marks where the zeros of the CDFs stand (the left edge, which a log
 * axis cannot put at 0) and says how many there are in alt. */
void tc_page_cdf_zeros(tc_chart *c, const tc_series_cdf *const *cdfs, int n, char *alt, size_t len);
void tc_page_pair_charts(tc_rw *w, const tc_dossier *d);
void tc_page_side_charts(tc_rw *w, const tc_dossier *d, const tc_dossier_side *s);
/* Run i of side s: its failed requests by kind, or that none failed. */
void tc_page_errors(tc_rw *w, const tc_dossier_side *s, size_t i);
/* Every other sweep point's timeline and errors, each shown on demand. */
void tc_page_point_timelines(tc_rw *w, const tc_dossier *d, const tc_dossier_side *s);
void tc_page_cost_chart(tc_rw *w, const tc_dossier *d);

/* A number as the tables print it ("%.6g"; "n/a" when not finite). */
const char *tc_page_num(char *buf, size_t len, double v);

#endif
