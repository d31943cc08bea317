/* Stacked bars and the tornado of the report (report_chart.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <plplot/plplot.h>

#include "page/page_chart.h"
#include "page/page_chart_internal.h"

static void bar_part(const tc_chart_bars *c, int bar, double y0, double y1, int part)
{
    PLFLT px[4] = {bar + 0.2, bar + 0.2, bar + 0.8, bar + 0.8}, py[4] = {y0, y1, y1, y0};
    /* one colour lighter part by part, or a colour a part (two rounds of
     * the palette, the second lighter) */
    static const double shade[] = {1.0, 0.6, 0.3, 0.15};
    int colour = c->colour_by_part ? part : c->bar_colour[bar];
    double alpha =
        c->colour_by_part ? (part < TC_CHART_N_COLOURS ? 0.85 : 0.35) : shade[part < 4 ? part : 3];
    const unsigned char *p = tc_chart_palette[colour % TC_CHART_N_COLOURS];
    plscol0a(SHADE, p[0], p[1], p[2], alpha);
    plcol0(SHADE);
    plfill(4, px, py);
    plcol0(FG);
    plline(4, px, py);
}

static double bars_top(const tc_chart_bars *c)
{
    double top = 0;
    for (int b = 0; b < c->n_bars; b++) {
        double sum = 0;
        for (int p = 0; p < c->n_parts; p++)
            sum += isfinite(c->v[b][p]) ? c->v[b][p] : 0;
        top = fmax(top, fmax(sum, isfinite(c->mark[b]) ? c->mark[b] : 0));
    }
    return top;
}

static void bar_mark(const tc_chart_bars *c, int b)
{
    if (!(c->mark[b] > 0) || !isfinite(c->mark[b]))
        return;
    PLFLT mx[2] = {b + 0.1, b + 0.9}, my[2] = {c->mark[b], c->mark[b]};
    plcol0(FG);
    plwidth(2);
    pllsty(2);
    plline(2, mx, my);
    pllsty(1);
    plwidth(1);
    if (c->mark_label) {
        char t[96];
        tc_chart_pl_text(t, sizeof t, c->mark_label);
        plptex(b + 0.9, c->mark[b], 1, 0, 1.0, t);
    }
}

tc_err tc_chart_bars_svg(const tc_chart_bars *c, int id, const char *alt, char **svg, char *err,
                         size_t errlen)
{
    *svg = NULL;
    double top = bars_top(c);
    if (!c->n_bars || !(top > 0))
        return tc_fail(err, errlen, TC_ERR_INVALID, "chart '%s': nothing to draw", c->title);
    char path[512];
    tc_err rc = tc_chart_begin(path, sizeof path, err, errlen);
    if (rc != TC_OK)
        return rc;
    plvpor(0.12, 0.95, 0.14, 0.88);
    plwind(0, c->n_bars, 0, top * 1.12);
    tc_chart_frame(c->title, NULL, c->ylabel, c->simulated, "bc", "bcnstv");
    for (int b = 0; b < c->n_bars; b++) {
        double y = 0;
        for (int p = 0; p < c->n_parts; p++) {
            double v = isfinite(c->v[b][p]) ? c->v[b][p] : 0;
            bar_part(c, b, y, y + v, p);
            char t[160], s[96];
            tc_chart_pl_text(s, sizeof s, c->part_label[p]);
            snprintf(t, sizeof t, "%s %.3g", s, v);
            if (v > top * 0.05) {
                plcol0(FG);
                plptex(b + 0.5, y + v / 2, 1, 0, 0.5, t);
            }
            y += v;
        }
        bar_mark(c, b);
        tc_chart_mtex("b", 1.4, (b + 0.5) / c->n_bars, 0.5, c->bar_label[b]);
    }
    plend();
    return tc_chart_read_back(path, id, c->title, c->simulated, alt, svg, err, errlen);
}

tc_err tc_chart_tornado_svg(const tc_chart_tornado *c, int id, const char *alt, char **svg,
                            char *err, size_t errlen)
{
    *svg = NULL;
    double x0 = c->centre, x1 = c->centre;
    for (int i = 0; i < c->n; i++) {
        x0 = fmin(x0, fmin(c->low[i], c->high[i]));
        x1 = fmax(x1, fmax(c->low[i], c->high[i]));
    }
    if (!c->n || !(x1 > x0) || !isfinite(x0) || !isfinite(x1))
        return tc_fail(err, errlen, TC_ERR_INVALID, "chart '%s': nothing to draw", c->title);
    double pad = (x1 - x0) * 0.05;
    char path[512];
    tc_err rc = tc_chart_begin(path, sizeof path, err, errlen);
    if (rc != TC_OK)
        return rc;
    plvpor(0.2, 0.95, 0.14, 0.88);
    plwind(x0 - pad, x1 + pad, 0, c->n);
    tc_chart_frame(c->title, c->xlabel, NULL, c->simulated, "bcnst", "bc");
    for (int i = 0; i < c->n; i++) {
        double y = c->n - 1 - i; /* the largest swing on top */
        double a = fmin(c->low[i], c->high[i]), b = fmax(c->low[i], c->high[i]);
        PLFLT px[4] = {a, a, b, b}, py[4] = {y + 0.2, y + 0.8, y + 0.8, y + 0.2};
        plcol0(COL + c->colour % TC_CHART_N_COLOURS);
        plfill(4, px, py);
        plcol0(FG);
        plline(4, px, py);
        tc_chart_mtex("lv", 0.5, (y + 0.5) / c->n, 1.0, c->label[i]);
    }
    PLFLT lx[2] = {c->centre, c->centre}, ly[2] = {0, c->n};
    pllsty(2);
    plline(2, lx, ly);
    pllsty(1);
    plend();
    return tc_chart_read_back(path, id, c->title, c->simulated, alt, svg, err, errlen);
}
