/* PLplot's SVG device driven for the report's charts (report_chart.h). */
#include "page/page_chart.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <plplot/plplot.h>

#include "core/tc_buf.h"
#include "core/tc_file.h"
#include "page/page_chart_internal.h"

/* Okabe & Ito (2008): told apart with every common colour-vision
 * deficiency. A is blue, B orange, in every chart. */
const unsigned char tc_chart_palette[TC_CHART_N_COLOURS][3] = {
    {0x00, 0x72, 0xB2}, {0xE6, 0x9F, 0x00}, {0x00, 0x9E, 0x73},
    {0xCC, 0x79, 0xA7}, {0x56, 0xB4, 0xE9}, {0xD5, 0x5E, 0x00},
};
static const char *palette_hex[TC_CHART_N_COLOURS] = {"#0072B2", "#E69F00", "#009E73",
                                                      "#CC79A7", "#56B4E9", "#D55E00"};

/* cmap0 slots: 0 background, 1 axes and text, 2 grid, 3 shade, then the
 * palette solid from COL and translucent (bands, bars' parts) from BAND. */

const char *tc_chart_colour(int i)
{
    return palette_hex[(i < 0 ? 0 : i) % TC_CHART_N_COLOURS];
}

/* PLplot reads '#' as its escape character. */
void tc_chart_pl_text(char *out, size_t len, const char *s)
{
    size_t o = 0;
    for (; s && *s && o + 2 < len; s++) {
        if (*s == '#')
            out[o++] = '#';
        out[o++] = *s;
    }
    out[o] = 0;
}

void tc_chart_mtex(const char *side, double disp, double pos, double just, const char *s)
{
    char t[512];
    tc_chart_pl_text(t, sizeof t, s);
    plmtex(side, disp, pos, just, t);
}

static void colours(void)
{
    plscmap0n(BAND + TC_CHART_N_COLOURS);
    plscol0(BG, 255, 255, 255);
    plscol0(FG, 0x1A, 0x1A, 0x1A);
    plscol0(GRID, 0xBB, 0xBB, 0xBB);
    plscol0a(SHADE, 0x88, 0x88, 0x88, 0.25);
    for (int i = 0; i < TC_CHART_N_COLOURS; i++) {
        plscol0(COL + i, tc_chart_palette[i][0], tc_chart_palette[i][1], tc_chart_palette[i][2]);
        plscol0a(BAND + i, tc_chart_palette[i][0], tc_chart_palette[i][1], tc_chart_palette[i][2],
                 0.25);
    }
}

/* Starts a page on a new temporary file named in path. */
tc_err tc_chart_begin(char *path, size_t len, char *err, size_t errlen)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, len, "%s/truecost-chart-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return tc_fail(err, errlen, TC_ERR_IO,
                       "%s: cannot make a temporary file for a chart: "
                       "set TMPDIR to a writable folder",
                       path);
    close(fd);
    plsdev("svg");
    plsfnam(path);
    plspage(0, 0, 720, 400, 0, 0);
    colours();
    plinit();
    plfontld(0);
    plschr(0, 0.8);
    pladv(0);
    return TC_OK;
}

typedef struct range {
    double x0, x1, y0, y1;
} range;

static int usable(const tc_chart *c, double x, double y)
{
    return isfinite(x) && isfinite(y) && (!c->logx || x > 0);
}

static double tx(const tc_chart *c, double x)
{
    return c->logx ? log10(x) : x;
}

static void grow(range *r, double x, double y)
{
    r->x0 = fmin(r->x0, x);
    r->x1 = fmax(r->x1, x);
    r->y0 = fmin(r->y0, y);
    r->y1 = fmax(r->y1, y);
}

static int find_range(const tc_chart *c, range *r)
{
    *r = (range){INFINITY, -INFINITY, c->ymin_floor, -INFINITY};
    int any = 0;
    for (int i = 0; i < c->n; i++)
        for (size_t k = 0; k < c->s[i].n; k++) {
            const tc_chart_series *s = &c->s[i];
            size_t kx = k; /* a histogram's heights sit between its edges */
            if (!usable(c, s->x[kx], s->y[k]))
                continue;
            grow(r, tx(c, s->x[kx]), s->y[k]);
            if (s->style == TC_CHART_HIST && usable(c, s->x[k + 1], s->y[k]))
                grow(r, tx(c, s->x[k + 1]), s->y[k]);
            if (s->hi && isfinite(s->hi[k]))
                grow(r, tx(c, s->x[kx]), s->hi[k]);
            any = 1;
        }
    if (!any)
        return 0;
    /* The shaded window and the marks stay inside the frame (a fill that
     * PLplot must clip may vanish from its SVG). */
    if (c->has_span && usable(c, c->span_from, 0) && usable(c, c->span_to, 0)) {
        r->x0 = fmin(r->x0, tx(c, c->span_from));
        r->x1 = fmax(r->x1, tx(c, c->span_to));
    }
    for (int i = 0; i < c->n_vline; i++)
        if (usable(c, c->vline[i], 0)) {
            r->x0 = fmin(r->x0, tx(c, c->vline[i]));
            r->x1 = fmax(r->x1, tx(c, c->vline[i]));
        }
    for (int i = 0; i < c->n_hline; i++)
        if (isfinite(c->hline[i]))
            r->y1 = fmax(r->y1, c->hline[i]);
    if (r->x1 <= r->x0) {
        r->x0 -= 0.5;
        r->x1 += 0.5;
    }
    double pad = (r->x1 - r->x0) * 0.04; /* marks at the ends stay whole */
    r->x0 -= pad;
    r->x1 += pad;
    if (r->y1 <= r->y0)
        r->y1 = r->y0 + 1;
    r->y1 += (r->y1 - r->y0) * 0.08;
    return 1;
}

static void draw_band(const tc_chart *c, const tc_chart_series *s)
{
    PLFLT px[2 * 256], py[2 * 256];
    size_t m = 0;
    for (size_t k = 0; k < s->n && m < 256; k++)
        if (usable(c, s->x[k], s->lo[k]) && isfinite(s->hi[k])) {
            px[m] = tx(c, s->x[k]);
            py[m++] = s->lo[k];
        }
    for (size_t k = s->n; k-- > 0 && m < 2 * 256;)
        if (usable(c, s->x[k], s->lo[k]) && isfinite(s->hi[k])) {
            px[m] = tx(c, s->x[k]);
            py[m++] = s->hi[k];
        }
    if (m >= 3) {
        plcol0(BAND + s->colour % TC_CHART_N_COLOURS);
        plfill((PLINT)m, px, py);
    }
}

static void draw_hist(const tc_chart *c, const tc_chart_series *s)
{
    for (size_t k = 0; k < s->n; k++) {
        if (!usable(c, s->x[k], s->y[k]) || !usable(c, s->x[k + 1], s->y[k]))
            continue;
        PLFLT x0 = tx(c, s->x[k]), x1 = tx(c, s->x[k + 1]);
        PLFLT px[4] = {x0, x0, x1, x1}, py[4] = {0, s->y[k], s->y[k], 0};
        plcol0(BAND + s->colour % TC_CHART_N_COLOURS);
        plfill(4, px, py);
        plcol0(COL + s->colour % TC_CHART_N_COLOURS);
        plline(4, px, py);
    }
}

static void draw_series(const tc_chart *c, const tc_chart_series *s)
{
    if (s->style == TC_CHART_HIST) {
        draw_hist(c, s);
        return;
    }
    if (s->lo && s->hi)
        draw_band(c, s);
    PLFLT *px = malloc((s->n + 1) * sizeof *px), *py = malloc((s->n + 1) * sizeof *py);
    size_t m = 0;
    for (size_t k = 0; px && py && k < s->n; k++)
        if (usable(c, s->x[k], s->y[k])) {
            px[m] = tx(c, s->x[k]);
            py[m++] = s->y[k];
        }
    plcol0(COL + s->colour % TC_CHART_N_COLOURS);
    plwidth(2);
    pllsty(s->style == TC_CHART_DASHED ? 2 : 1);
    if (m >= 2 && s->style != TC_CHART_POINTS)
        plline((PLINT)m, px, py);
    if (m && (s->style == TC_CHART_POINTS || s->style == TC_CHART_LINEPOINTS || m == 1)) {
        plssym(0, 1.3);
        plpoin((PLINT)m, px, py, 4);
    }
    pllsty(1);
    plwidth(1);
    free(px);
    free(py);
}

static void draw_marks(const tc_chart *c, const range *r)
{
    if (c->has_span && usable(c, c->span_from, 0) && usable(c, c->span_to, 0)) {
        PLFLT a = tx(c, c->span_from), b = tx(c, c->span_to);
        PLFLT px[4] = {a, a, b, b}, py[4] = {r->y0, r->y1, r->y1, r->y0};
        plcol0(SHADE);
        plfill(4, px, py);
        if (c->span_label) {
            char t[128];
            tc_chart_pl_text(t, sizeof t, c->span_label);
            plcol0(FG);
            plptex((a + b) / 2, r->y1 - (r->y1 - r->y0) * 0.04, 1, 0, 0.5, t);
        }
    }
    plcol0(FG);
    pllsty(3);
    for (int i = 0; i < c->n_vline; i++) {
        if (!usable(c, c->vline[i], 0))
            continue;
        PLFLT x = tx(c, c->vline[i]);
        PLFLT px[2] = {x, x}, py[2] = {r->y0, r->y1};
        plline(2, px, py);
        if (c->vline_label[i]) {
            char t[128];
            tc_chart_pl_text(t, sizeof t, c->vline_label[i]);
            plptex(x, r->y1 - (r->y1 - r->y0) * 0.1, 0, 1, 0, t);
        }
    }
    for (int i = 0; i < c->n_hline; i++) {
        PLFLT px[2] = {r->x0, r->x1}, py[2] = {c->hline[i], c->hline[i]};
        plline(2, px, py);
    }
    pllsty(1);
}

/* Legend entries in columns below the plot: a legend beside it took a
 * quarter of the page's width from every chart. */
#define LEGEND_COLUMNS 4

static int legend_entries(const tc_chart *c)
{
    int n = 0;
    for (int i = 0; i < c->n; i++)
        n += c->s[i].label != NULL;
    return n;
}

static int legend_rows(const tc_chart *c)
{
    return (legend_entries(c) + LEGEND_COLUMNS - 1) / LEGEND_COLUMNS;
}

static void legend(const tc_chart *c)
{
    PLINT opt[TC_CHART_MAX_SERIES], tcol[TC_CHART_MAX_SERIES], lcol[TC_CHART_MAX_SERIES];
    PLINT lsty[TC_CHART_MAX_SERIES], bcol[TC_CHART_MAX_SERIES], bpat[TC_CHART_MAX_SERIES];
    PLFLT lw[TC_CHART_MAX_SERIES], bsc[TC_CHART_MAX_SERIES], blw[TC_CHART_MAX_SERIES];
    char names[TC_CHART_MAX_SERIES][96];
    const char *text[TC_CHART_MAX_SERIES];
    int n = 0;
    for (int i = 0; i < c->n; i++) {
        if (!c->s[i].label)
            continue;
        int hist = c->s[i].style == TC_CHART_HIST;
        opt[n] = hist ? PL_LEGEND_COLOR_BOX : PL_LEGEND_LINE;
        tcol[n] = FG;
        lcol[n] = COL + c->s[i].colour % TC_CHART_N_COLOURS;
        bcol[n] = BAND + c->s[i].colour % TC_CHART_N_COLOURS;
        lsty[n] = c->s[i].style == TC_CHART_DASHED ? 2 : 1;
        lw[n] = 2;
        bpat[n] = 0;
        bsc[n] = 0.8;
        blw[n] = 1;
        tc_chart_pl_text(names[n], sizeof names[n], c->s[i].label);
        text[n] = names[n];
        n++;
    }
    if (!n)
        return;
    PLFLT w, h;
    int cols = n < LEGEND_COLUMNS ? n : LEGEND_COLUMNS, rows = (n + cols - 1) / cols;
    /* Below the x axis's title, which sits 3 lines under the axis. */
    pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_ROW_MAJOR,
             PL_POSITION_OUTSIDE | PL_POSITION_BOTTOM, 0, 0.16, 0.06, BG, FG, 1, rows, cols, n, opt,
             0.6, 0.8, 1.8, 0, tcol, text, bcol, bpat, bsc, blw, lcol, lsty, lw, NULL, NULL, NULL,
             NULL);
}

void tc_chart_frame(const char *title, const char *xl, const char *yl, int simulated,
                    const char *xopt, const char *yopt)
{
    plcol0(GRID);
    plbox(strchr(xopt, 'l') ? "gl" : "g", 0, 0, strchr(yopt, 'n') ? "g" : "", 0, 0);
    plcol0(FG);
    plbox(xopt, 0, 0, yopt, 0, 0);
    char t[512];
    snprintf(t, sizeof t, "%s%s", title, simulated ? " (SIMULATED)" : "");
    tc_chart_mtex("t", 1.5, 0.5, 0.5, t);
    /* Clear of the tick labels: a log axis's are 10^k, taller than a
     * number; the y axis's are written across, up to 6 characters. */
    if (xl)
        tc_chart_mtex("b", strchr(xopt, 'l') ? 3.4 : 3.0, 0.5, 0.5, xl);
    if (yl)
        tc_chart_mtex("l", 5.4, 0.5, 0.5, yl);
}

tc_err tc_chart_read_back(const char *path, int id, const char *title, int simulated,
                          const char *alt, char **svg, char *err, size_t errlen)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", title, simulated ? " (SIMULATED)" : "");
    char *raw = NULL;
    size_t len = 0;
    tc_err rc = tc_read_file(path, 64u << 20, "a chart", &raw, &len, err, errlen);
    unlink(path);
    if (rc != TC_OK)
        return rc;
    *svg = tc_chart_svg_clean(raw, id, full, alt);
    free(raw);
    return *svg ? TC_OK : tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
}

/* The x axis's title says its scale: "latency (ms)" on a log axis reads
 * "latency (ms, log scale)". */
static void x_title(const tc_chart *c, char *out, size_t len)
{
    const char *l = c->xlabel ? c->xlabel : "";
    size_t n = strlen(l);
    if (!c->logx)
        snprintf(out, len, "%s", l);
    else if (n && l[n - 1] == ')')
        snprintf(out, len, "%.*s, log scale)", (int)(n - 1), l);
    else
        snprintf(out, len, "%s (log scale)", l);
}

tc_err tc_chart_svg(const tc_chart *in, int id, const char *alt, char **svg, char *err,
                    size_t errlen)
{
    *svg = NULL;
    tc_chart lc = *in, *c = &lc;
    range r;
    if (!find_range(c, &r))
        return tc_fail(err, errlen, TC_ERR_INVALID, "chart '%s': nothing to draw", c->title);
    /* Less than a decade on a log axis gets no label at all (PLplot labels
     * decades): such a span reads as well on a linear one. */
    if (c->logx && r.x1 - r.x0 < 1.2) {
        c->logx = 0;
        find_range(c, &r);
    }
    char path[512], xl[256];
    x_title(c, xl, sizeof xl);
    tc_err rc = tc_chart_begin(path, sizeof path, err, errlen);
    if (rc != TC_OK)
        return rc;
    plvpor(0.11, 0.97, 0.17 + 0.055 * legend_rows(c), 0.88);
    plwind(r.x0, r.x1, r.y0, r.y1);
    draw_marks(c, &r);
    tc_chart_frame(c->title, xl, c->ylabel, c->simulated, c->logx ? "bcnstl" : "bcnst", "bcnstv");
    for (int i = 0; i < c->n; i++)
        draw_series(c, &c->s[i]);
    legend(c);
    plend();
    return tc_chart_read_back(path, id, c->title, c->simulated, alt, svg, err, errlen);
}
