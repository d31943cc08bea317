/* PLplot's SVG file made fit to sit inline in the report (report_chart.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "core/tc_buf.h"
#include "page/page_chart.h"

static void xml_escape(tc_buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<':
            tc_buf_puts(b, "&lt;");
            break;
        case '>':
            tc_buf_puts(b, "&gt;");
            break;
        case '&':
            tc_buf_puts(b, "&amp;");
            break;
        case '"':
            tc_buf_puts(b, "&quot;");
            break;
        default:
            tc_buf_append(b, s, 1);
        }
    }
}

/* What the clean copy drops: the link namespace (nothing links) and
 * opacities of 1, the default. */
static const char *const dropped[] = {" xmlns:xlink=\"http://www.w3.org/1999/xlink\"",
                                      " stroke-opacity=\"1.000000\"",
                                      " fill-opacity=\"1.000000\"",
                                      " font-style=\"normal\"",
                                      " font-weight=\"normal\"",
                                      " dominant-baseline=\"no-change\""};

static size_t starts_dropped(const char *p)
{
    for (size_t i = 0; i < sizeof dropped / sizeof *dropped; i++) {
        size_t n = strlen(dropped[i]);
        if (strncmp(p, dropped[i], n) == 0)
            return n;
    }
    return 0;
}

/* Whitespace squeezed to one space, dropped attributes gone, ids
 * prefixed. */
static void squeeze(tc_buf *b, const char *p, int id)
{
    while (*p) {
        if (isspace((unsigned char)*p)) {
            const char *q = p;
            while (isspace((unsigned char)*q))
                q++;
            size_t d = starts_dropped(q - 1);
            if (d && q[-1] == ' ') {
                p = q - 1 + d;
                continue;
            }
            if (*q != '>' && *q != '/')
                tc_buf_puts(b, " ");
            p = q;
            continue;
        }
        if (strncmp(p, "id=\"", 4) == 0) {
            tc_buf_printf(b, "id=\"c%d-", id);
            p += 4;
            continue;
        }
        if (strncmp(p, "url(#", 5) == 0) {
            tc_buf_printf(b, "url(#c%d-", id);
            p += 5;
            continue;
        }
        tc_buf_append(b, p, 1);
        p++;
    }
}

char *tc_chart_svg_clean(const char *raw, int id, const char *title, const char *alt)
{
    const char *svg = strstr(raw, "<svg");
    if (!svg)
        return NULL;
    const char *open_end = strchr(svg, '>');
    if (!open_end)
        return NULL;
    tc_buf b = {0};
    tc_buf_printf(&b, "<svg role=\"img\" aria-labelledby=\"c%d-title c%d-desc\" class=\"chart\"",
                  id, id);
    /* The root's attributes, sizes in user units (pt would scale them). */
    tc_buf root = {0};
    squeeze(&root, svg + 4, id);
    tc_buf_append(&root, "", 0);
    const char *r = root.data ? root.data : "";
    const char *gt = strchr(r, '>');
    for (const char *q = r; gt && q < gt; q++) {
        if (q[0] == 'p' && q[1] == 't' && q[2] == '"' && q > r && isdigit((unsigned char)q[-1])) {
            q++;
            continue;
        }
        tc_buf_append(&b, q, 1);
    }
    tc_buf_printf(&b, "><title id=\"c%d-title\">", id);
    xml_escape(&b, title);
    tc_buf_printf(&b, "</title><desc id=\"c%d-desc\">", id);
    xml_escape(&b, alt);
    tc_buf_puts(&b, "</desc>");
    if (gt)
        tc_buf_puts(&b, gt + 1);
    tc_buf_free(&root);
    if (tc_buf_status(&b) != TC_OK) {
        tc_buf_free(&b);
        return NULL;
    }
    return b.data;
}
