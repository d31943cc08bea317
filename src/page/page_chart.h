/* Charts of `truecost report` drawn by PLplot's SVG device (DESIGN.md:
 * real axes and legends from a plotting library, not hand-drawn SVG),
 * read back into memory and made fit to sit inline in one HTML file:
 * no XML prologue or DOCTYPE (the only URL PLplot writes), ids made
 * unique per chart, a <title> and <desc> with role="img", and whitespace
 * squeezed (a 10-point sweep stays well under 2 MB).
 *
 * Colours: one Okabe-Ito (colour-blind-safe) colour per platform, the
 * same in every chart (TC_CHART_A, TC_CHART_B); the axes and text use
 * TC_CHART_FG_HEX, which the page's stylesheet recolours for the dark
 * scheme. */
#ifndef TC_PAGE_CHART_H
#define TC_PAGE_CHART_H

#include <stddef.h>

#include "core/tc_error.h"

#define TC_CHART_FG_HEX "#1A1A1A"
#define TC_CHART_MAX_SERIES 12

/* Palette indices: A and B are the platforms; the others are further
 * series of one platform's chart. */
enum {
    TC_CHART_A = 0,
    TC_CHART_B,
    TC_CHART_C3,
    TC_CHART_C4,
    TC_CHART_C5,
    TC_CHART_C6,
    TC_CHART_N_COLOURS
};

typedef enum tc_chart_style {
    TC_CHART_LINE = 0,
    TC_CHART_LINEPOINTS, /* a line with a mark at each point */
    TC_CHART_POINTS,
    TC_CHART_HIST, /* x: n + 1 bin edges; y: n heights (filled bars) */
    TC_CHART_DASHED
} tc_chart_style;

typedef struct tc_chart_series {
    const char *label;
    const double *x, *y; /* borrowed */
    size_t n;
    int colour; /* palette index */
    tc_chart_style style;
    const double *lo, *hi; /* optional band around y (same n), shaded */
} tc_chart_series;

typedef struct tc_chart {
    const char *title, *xlabel, *ylabel; /* axis labels carry their units */
    int logx;
    int simulated; /* marks the chart SIMULATED */
    tc_chart_series s[TC_CHART_MAX_SERIES];
    int n;
    int has_span; /* a shaded stretch of x (the steady-state window) */
    double span_from, span_to;
    const char *span_label;
    double vline[4]; /* marked x values (the knee) */
    const char *vline_label[4];
    int n_vline;
    double hline[4]; /* marked y values (target lines) */
    int n_hline;
    double ymin_floor; /* y axis starts at 0 unless data go below it */
} tc_chart;

/* Stacked bars: one bar per group, one segment per part; a part of a
 * bar is its colour shaded lighter, or with colour_by_part each part its
 * own colour (bars of the same parts: kernel classes, memory terms). A
 * mark is a level drawn across its bar (a card's memory budget). */
#define TC_CHART_MAX_BARS 4
#define TC_CHART_MAX_PARTS 10
typedef struct tc_chart_bars {
    const char *title, *ylabel;
    int simulated;
    const char *bar_label[TC_CHART_MAX_BARS];
    int bar_colour[TC_CHART_MAX_BARS];
    int n_bars;
    const char *part_label[TC_CHART_MAX_PARTS];
    int n_parts;
    int colour_by_part;
    double v[TC_CHART_MAX_BARS][TC_CHART_MAX_PARTS];
    double mark[TC_CHART_MAX_BARS]; /* > 0: drawn */
    const char *mark_label;
} tc_chart_bars;

/* A tornado: one horizontal bar per input from the total at its low end
 * to the total at its high end, largest first, around the point total. */
#define TC_CHART_MAX_ROWS 12
typedef struct tc_chart_tornado {
    const char *title, *xlabel;
    int simulated;
    int colour;
    const char *label[TC_CHART_MAX_ROWS];
    double low[TC_CHART_MAX_ROWS], high[TC_CHART_MAX_ROWS];
    int n;
    double centre;
} tc_chart_tornado;

/* The palette colour i as "#RRGGBB" (static). */
const char *tc_chart_colour(int i);

/* Draws c as an SVG document in a new NUL-terminated string *svg (the
 * caller frees it): id (unique in the page) prefixes its ids; alt is the
 * text alternative. TC_ERR_INVALID when no series has a finite point;
 * TC_ERR_IO when PLplot's file cannot be written or read; TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_chart_svg(const tc_chart *c, int id, const char *alt, char **svg, char *err,
                                  size_t errlen);

/* The same for stacked bars (each part shaded lighter, labelled). */
TC_MUST_CHECK tc_err tc_chart_bars_svg(const tc_chart_bars *c, int id, const char *alt, char **svg,
                                       char *err, size_t errlen);

/* The same for a tornado. */
TC_MUST_CHECK tc_err tc_chart_tornado_svg(const tc_chart_tornado *c, int id, const char *alt,
                                          char **svg, char *err, size_t errlen);

/* PLplot's SVG text made inline: see the header comment. A new string or
 * NULL when memory ran out. Exposed for the tests. */
char *tc_chart_svg_clean(const char *raw, int id, const char *title, const char *alt);

#endif
