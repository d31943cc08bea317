/* The writer of the report's two forms, HTML and Markdown (report_doc.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_outfile.h"
#include "page/page_chart.h"
#include "page/page_doc.h"
#include "report/report_table.h"

const char *tc_page_num(char *buf, size_t len, double v)
{
    return tc_report_sig(buf, len, v);
}

static void esc(tc_rw *w, const char *s)
{
    for (; s && *s; s++) {
        if (w->fmt == TC_PAGE_MD) {
            if (*s == '|' || *s == '*' || *s == '_' || *s == '`' || *s == '<')
                tc_buf_puts(w->b, "\\");
            tc_buf_append(w->b, *s == '\n' ? " " : s, 1);
            continue;
        }
        switch (*s) {
        case '<':
            tc_buf_puts(w->b, "&lt;");
            break;
        case '>':
            tc_buf_puts(w->b, "&gt;");
            break;
        case '&':
            tc_buf_puts(w->b, "&amp;");
            break;
        case '"':
            tc_buf_puts(w->b, "&quot;");
            break;
        default:
            tc_buf_append(w->b, s, 1);
        }
    }
}

int tc_rw_id(tc_rw *w)
{
    return ++w->next_id;
}

void tc_rw_heading(tc_rw *w, int level, const char *id, const char *text)
{
    if (w->fmt == TC_PAGE_MD) {
        tc_buf_printf(w->b, "\n%.*s ", level, "######");
        esc(w, text);
        tc_buf_puts(w->b, "\n\n");
        return;
    }
    tc_buf_printf(w->b, "<h%d id=\"%s\">", level, id);
    esc(w, text);
    tc_buf_printf(w->b, "</h%d>\n", level);
}

static void vpara(tc_rw *w, const char *cls, const char *fmt, va_list ap)
{
    char text[2048];
    vsnprintf(text, sizeof text, fmt, ap);
    if (w->fmt == TC_PAGE_MD) {
        tc_buf_puts(w->b, cls ? "> " : "");
        esc(w, text);
        tc_buf_puts(w->b, "\n\n");
        return;
    }
    tc_buf_printf(w->b, "<p%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
    esc(w, text);
    tc_buf_puts(w->b, "</p>\n");
}

void tc_rw_para(tc_rw *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vpara(w, NULL, fmt, ap);
    va_end(ap);
}

void tc_rw_missing(tc_rw *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vpara(w, "missing", fmt, ap);
    va_end(ap);
}

void tc_rw_banner(tc_rw *w, const char *text)
{
    if (w->fmt == TC_PAGE_MD) {
        tc_buf_puts(w->b, "> **");
        esc(w, text);
        tc_buf_puts(w->b, "**\n\n");
        return;
    }
    tc_buf_puts(w->b, "<p class=\"banner\" role=\"note\"><strong>");
    esc(w, text);
    tc_buf_puts(w->b, "</strong></p>\n");
}

static void cells(tc_rw *w, const char *const *c, int n, const char *tag)
{
    if (w->fmt == TC_PAGE_MD) {
        tc_buf_puts(w->b, "|");
        for (int i = 0; i < n; i++) {
            tc_buf_puts(w->b, " ");
            esc(w, c[i] ? c[i] : "");
            tc_buf_puts(w->b, " |");
        }
        tc_buf_puts(w->b, "\n");
        return;
    }
    tc_buf_puts(w->b, "<tr>");
    for (int i = 0; i < n; i++) {
        tc_buf_printf(w->b, "<%s>", tag);
        esc(w, c[i] ? c[i] : "");
        tc_buf_printf(w->b, "</%s>", tag);
    }
    tc_buf_puts(w->b, "</tr>\n");
}

void tc_rw_table(tc_rw *w, const char *id, const char *const *head, int n)
{
    if (w->fmt == TC_PAGE_MD) {
        cells(w, head, n, "th");
        tc_buf_puts(w->b, "|");
        for (int i = 0; i < n; i++)
            tc_buf_puts(w->b, " --- |");
        tc_buf_puts(w->b, "\n");
        return;
    }
    tc_buf_printf(w->b, "<div class=\"scroll\"><table id=\"%s\"><thead>", id);
    cells(w, head, n, "th");
    tc_buf_puts(w->b, "</thead><tbody>\n");
}

void tc_rw_row(tc_rw *w, const char *const *c, int n)
{
    cells(w, c, n, "td");
}

void tc_rw_table_end(tc_rw *w)
{
    tc_buf_puts(w->b, w->fmt == TC_PAGE_MD ? "\n" : "</tbody></table></div>\n");
}

void tc_rw_details(tc_rw *w, const char *summary)
{
    if (w->fmt == TC_PAGE_MD) {
        tc_buf_puts(w->b, "**");
        esc(w, summary);
        tc_buf_puts(w->b, "**\n\n");
        return;
    }
    tc_buf_puts(w->b, "<details><summary>");
    esc(w, summary);
    tc_buf_puts(w->b, "</summary>\n");
}

void tc_rw_details_end(tc_rw *w)
{
    if (w->fmt == TC_PAGE_HTML)
        tc_buf_puts(w->b, "</details>\n");
}

void tc_rw_chart_failed(tc_rw *w, const char *why)
{
    tc_rw_missing(w, "Chart not drawn: %s", why);
}

void tc_rw_chart(tc_rw *w, char *svg, const char *alt)
{
    if (!svg)
        return;
    w->n_charts++;
    if (w->fmt == TC_PAGE_HTML) {
        tc_buf_puts(w->b, "<figure>");
        tc_buf_puts(w->b, svg);
        tc_buf_puts(w->b, "<figcaption>");
        esc(w, alt);
        tc_buf_puts(w->b, "</figcaption></figure>\n");
        free(svg);
        return;
    }
    char name[512], path[1024];
    snprintf(name, sizeof name, "%s-%d.svg", w->stem, w->n_charts);
    snprintf(path, sizeof path, "%s/%s", w->dir, name);
    /* A file on its own needs the XML prologue back. */
    tc_buf f = {0};
    tc_buf_puts(&f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    tc_buf_puts(&f, svg);
    free(svg);
    if (w->rc == TC_OK && w->out)
        w->rc = tc_page_may_write(w->out, path, w->err, sizeof w->err);
    if (w->rc == TC_OK && tc_buf_status(&f) == TC_OK)
        w->rc = tc_outfile_write(path, f.data, w->err, sizeof w->err);
    tc_buf_free(&f);
    tc_buf_puts(w->b, "![");
    esc(w, alt);
    tc_buf_printf(w->b, "](%s)\n\n", name);
}
