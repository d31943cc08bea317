/* What report_chart.c shares with the other chart files: the palette's
 * slots in PLplot's cmap0 and the page's start, frame and end. */
#ifndef TC_PAGE_CHART_INTERNAL_H
#define TC_PAGE_CHART_INTERNAL_H

#include <stddef.h>

#include "core/tc_error.h"
#include "page/page_chart.h"

/* cmap0 slots: 0 background, 1 axes and text, 2 grid, 3 shade, then the
 * palette solid from COL and translucent (bands, bars' parts) from BAND. */
enum { BG = 0, FG = 1, GRID = 2, SHADE = 3, COL = 4, BAND = COL + TC_CHART_N_COLOURS };

extern const unsigned char tc_chart_palette[TC_CHART_N_COLOURS][3];

/* s with PLplot's escape character doubled, into out. */
void tc_chart_pl_text(char *out, size_t len, const char *s);
/* plmtex of s, escaped. */
void tc_chart_mtex(const char *side, double disp, double pos, double just, const char *s);
/* Starts a page on a new temporary file, named in path. */
TC_MUST_CHECK tc_err tc_chart_begin(char *path, size_t len, char *err, size_t errlen);
/* The grid, the box (xopt, yopt: PLplot's plbox options), the title and
 * the labels (xl, yl may be NULL). */
void tc_chart_frame(const char *title, const char *xl, const char *yl, int simulated,
                    const char *xopt, const char *yopt);
/* Ends nothing: reads the finished page at path back as an inline SVG
 * (report_chart_svg.c) and removes the file. */
TC_MUST_CHECK tc_err tc_chart_read_back(const char *path, int id, const char *title, int simulated,
                                        const char *alt, char **svg, char *err, size_t errlen);

#endif
