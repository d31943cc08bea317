/* truecost report: the numbers its tables print are those of the JSON
 * documents of compare, cost and frontier for the same inputs, computed
 * here as those commands compute them; and the chart SVG is made inline
 * (no prologue, unique ids, a title). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/run_series.h"
#include "core/tc_file.h"
#include "page/page_chart.h"
#include "report/report_compare.h"
#include "report/report_cost.h"
#include "page/page_doc.h"
#include "report/report_frontier.h"
#include "views/view_figures.h"
#include "views/view_sweep.h"
#include "views/view_compare.h"
#include "views/view_frontier.h"

#define MS(x) ((int64_t)(x)*1000000LL)

static const char profile_ini[] = "currency = USD\n[hardware]\nprice = 3200\namortize_months = "
                                  "36\n[power]\nprice_per_kwh = 0.30\npue = 1.1\nidle_watts = "
                                  "80\nbusy_watts = 420\n[operations]\nhours_per_month = "
                                  "4\nhourly_rate = 80\n[workload]\nutilization = 0.4\n";

typedef struct fixture {
    char dir[64], db[128], md[160];
    tc_store *st;
    tc_cost_profile p;
} fixture;

/* One sweep point: c requests in flight, 24 requests of 20 chunks `gap`
 * ms apart (a little slower with more in flight, with a jitter). */
static void add_point(tc_store *st, const char *group, int k, int c, double gap)
{
    char err[512] = "";
    tc_run_info run;
    memset(&run, 0, sizeof run);
    snprintf(run.label, sizeof run.label, "%s", group);
    snprintf(run.group, sizeof run.group, "%s", group);
    snprintf(run.group_kind, sizeof run.group_kind, "sweep");
    snprintf(run.model, sizeof run.model, "m");
    run.api = TC_API_OPENAI;
    run.concurrency = c;
    run.simulated = 1;
    assert_int_equal(tc_store_run_begin_group(st, &run, (size_t)k, err, sizeof err), TC_OK);
    tc_req_record r[24];
    uint64_t j = 7 + (uint64_t)k;
    for (int i = 0; i < 24; i++) {
        tc_req_record_init(&r[i]);
        r[i].seq = i;
        int64_t t = r[i].send_ns = MS(1000) + MS(40 * gap) * (i / c) + MS(1) * (i % c);
        t += MS(8);
        for (int n = 0; n < 20; n++) {
            j = j * 6364136223846793005ULL + 1442695040888963407ULL;
            t += (int64_t)(MS(gap) * (1 + 0.05 * c) * (0.9 + 0.2 * (double)(j >> 40) / (1 << 24)));
            assert_int_equal(tc_req_record_add_chunk(&r[i], t), 0);
        }
        r[i].end_ns = t + 1000;
        r[i].http_status = 200;
        r[i].output_tokens = 20;
        r[i].output_source = TC_TOKENS_SERVER;
        r[i].prompt_tokens = 50;
        r[i].prompt_source = TC_TOKENS_SERVER;
    }
    assert_int_equal(tc_store_add_requests(st, run.id, r, 24, err, sizeof err), TC_OK);
    for (int i = 0; i < 24; i++)
        tc_req_record_clear(&r[i]);
    assert_int_equal(tc_store_run_finish(st, run.id, TC_RUN_COMPLETE, err, sizeof err), TC_OK);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    char err[512] = "";
    strcpy(f->dir, "/tmp/tc_report_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->db, sizeof f->db, "%s/t.db", f->dir);
    snprintf(f->md, sizeof f->md, "%s/r.md", f->dir);
    assert_int_equal(tc_store_open(f->db, TC_STORE_WRITE, &f->st, err, sizeof err), TC_OK);
    const int conc[3] = {1, 2, 4};
    for (int k = 0; k < 3; k++)
        add_point(f->st, "A", k, conc[k], 5);
    for (int k = 0; k < 3; k++)
        add_point(f->st, "B", k, 2 * conc[k], 9);
    assert_int_equal(
        tc_cost_profile_parse("p.ini", profile_ini, strlen(profile_ini), &f->p, err, sizeof err),
        TC_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tc_store_close(f->st);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    assert_int_equal(system(cmd), 0);
    free(f);
    return 0;
}

/* The cell `col` of the Markdown row whose first cell is `first`, as a
 * string in out. */
static int md_cell(const char *md, const char *first, int col, char *out, size_t len)
{
    char key[128];
    snprintf(key, sizeof key, "\n| %s |", first);
    const char *row = strstr(md, key);
    if (!row)
        return -1;
    row += 1;
    for (int i = 0; i <= col; i++) {
        row = strchr(row, '|');
        if (!row)
            return -1;
        row++;
    }
    while (*row == ' ')
        row++;
    size_t n = strcspn(row, "|");
    while (n && row[n - 1] == ' ')
        n--;
    snprintf(out, len, "%.*s", (int)n, row);
    return 0;
}

static void near(const char *cell, double want)
{
    /* The table has 4 significant digits: within half a unit of the 4th. */
    double got = strtod(cell, NULL);
    if (!(want == 0 ? got == 0 : fabs(got - want) / fabs(want) <= 5e-4))
        fail_msg("table says %s, JSON %.17g", cell, want);
}

static double jnum(json_t *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save))
        o = json_is_array(o) ? json_array_get(o, (size_t)atoi(k)) : json_object_get(o, k);
    assert_true(json_is_number(o));
    return json_number_value(o);
}

/* The Markdown report of a against b (claim 0.9, 1000 resamples) read
 * back; *d stays loaded for the caller to free, pointing at *ask. */
static char *md_report(fixture *f, const char *a, const char *b, const double *targets,
                       size_t n_targets, tc_dossier_ask *ask, tc_dossier *d)
{
    char err[1024] = "";
    *ask = (tc_dossier_ask){.which = {a, b},
                            .profile = {&f->p, &f->p},
                            .targets = targets,
                            .n_targets = n_targets,
                            .has_claim = 1,
                            .claim = 0.9,
                            .resamples_compare = 1000,
                            .resamples_frontier = 1000,
                            .seed = TC_BOOT_SEED};
    assert_int_equal(tc_dossier_load(f->st, ask, d, err, sizeof err), TC_OK);
    tc_page_out out = {.fmt = TC_PAGE_MD, .path = f->md, .force = 1}; /* written twice */
    assert_int_equal(tc_page_write(d, &out, err, sizeof err), TC_OK);
    char *md = NULL;
    size_t len = 0;
    assert_int_equal(tc_read_file(f->md, 1 << 24, "the report", &md, &len, err, sizeof err), TC_OK);
    return md;
}

static void report_tables_equal_the_json(void **state)
{
    fixture *f = *state;
    char err[1024] = "", cell[200];
    const double targets[2] = {60, 90};
    tc_dossier_ask ask;
    tc_dossier d;
    char *md = md_report(f, "A", "B", targets, 2, &ask, &d);

    /* cost PEAK --profile P: a sweep is priced at its peak, the point of
     * most tokens/s per GPU, as `cost` prices that run. */
    for (int k = 0; k < 2; k++) {
        tc_runset set, one = {0};
        tc_figures *fig = NULL;
        tc_sweep_point *pts = NULL;
        tc_set_summary s;
        tc_cost_result r;
        assert_int_equal(tc_view_runset(f->st, k ? "B" : "A", &set, err, sizeof err), TC_OK);
        assert_int_equal(tc_view_sweep(f->st, &set, &pts, err, sizeof err), TC_OK);
        size_t peak = 0;
        for (size_t i = 1; i < set.n; i++)
            if (pts[i].tokens_per_s_per_gpu > pts[peak].tokens_per_s_per_gpu)
                peak = i;
        char id[24];
        snprintf(id, sizeof id, "%lld", (long long)pts[peak].run_id);
        free(pts);
        assert_int_equal(tc_view_runset(f->st, id, &one, err, sizeof err), TC_OK);
        assert_int_equal(
            tc_view_runset_figures(f->st, &one, TC_FIGURES_SUMMARY, &fig, err, sizeof err), TC_OK);
        tc_figures_summarise("the run", &one, fig, &s);
        assert_int_equal(tc_cost_compute(&f->p, &s.mean, &r), TC_OK);
        json_t *j = tc_report_cost_json(&one, &f->p, &s, &r);
        assert_int_equal(md_cell(md, k ? "B (p.ini)" : "A (p.ini)", 4, cell, sizeof cell), 0);
        near(cell, jnum(j, "cost_per_million_tokens"));
        json_decref(j);
        tc_runset_figures_free(fig, one.n);
        tc_runset_free(&one);
        tc_runset_free(&set);
    }

    /* frontier A B --profile P --at 60,90 --claim 0.9. */
    tc_frontier_side fa, fb;
    memset(&fa, 0, sizeof fa);
    memset(&fb, 0, sizeof fb);
    tc_frontier_result *fr = calloc(1, sizeof *fr);
    assert_int_equal(tc_view_frontier_side(f->st, "A", "A", &f->p, NULL, &fa, err, sizeof err),
                     TC_OK);
    assert_int_equal(tc_view_frontier_side(f->st, "B", "B", &f->p, NULL, &fb, err, sizeof err),
                     TC_OK);
    tc_frontier_ask fask = {.targets = targets,
                            .n_targets = 2,
                            .resamples = 1000,
                            .seed = TC_BOOT_SEED,
                            .has_claim = 1,
                            .claim = 0.9};
    assert_int_equal(tc_frontier_compute(&fa, &fb, &fask, fr, err, sizeof err), TC_OK);
    json_t *fj = tc_report_frontier_json(&fa, &fb, fr);
    const char *rows[2] = {"60", "90"};
    for (int i = 0; i < 2; i++) {
        char p[64];
        json_t *t = json_array_get(json_object_get(fj, "targets"), (size_t)i);
        assert_int_equal(md_cell(md, rows[i], 2, cell, sizeof cell), 0);
        near(cell, jnum(t, "a.cost_per_million_tokens"));
        assert_int_equal(md_cell(md, rows[i], 5, cell, sizeof cell), 0);
        near(cell, jnum(t, "b.cost_per_million_tokens"));
        assert_int_equal(md_cell(md, rows[i], 7, cell, sizeof cell), 0);
        near(cell, jnum(t, "ratio.value"));
        assert_int_equal(md_cell(md, rows[i], 8, cell, sizeof cell), 0);
        snprintf(p, sizeof p, "%s", json_string_value(json_object_get(t, "verdict")));
        assert_string_equal(cell, p);
    }
    /* Two sweeps: the summary is compare SWEEP_A SWEEP_B's, on the frontiers. */
    assert_int_equal(md_cell(md, "verdict", 1, cell, sizeof cell), 0);
    assert_string_equal(
        cell, json_string_value(json_object_get(json_object_get(fj, "claim"), "overall")));
    for (int i = 0; i < 2; i++) {
        char key[64];
        json_t *t = json_array_get(json_object_get(fj, "targets"), (size_t)i);
        snprintf(key, sizeof key, "cost B/A at %s tokens/s per user", rows[i]);
        assert_int_equal(md_cell(md, key, 1, cell, sizeof cell), 0);
        near(cell, jnum(t, "ratio.value"));
        assert_non_null(strstr(cell, json_string_value(json_object_get(t, "verdict"))));
    }
    assert_null(strstr(md, "| throughput B/A |")); /* pooled sweep points compare nothing */
    assert_non_null(strstr(md, "> **SIMULATED"));
    json_decref(fj);
    free(fr);
    tc_frontier_side_free(&fa);
    tc_frontier_side_free(&fb);
    tc_dossier_free(&d);
    free(md);
}

/* Two single runs: the summary is compare RUN_A RUN_B's, side by side. */
static void report_of_two_runs_has_compare_summary(void **state)
{
    fixture *f = *state;
    char err[1024] = "", cell[200];
    const double targets[1] = {60};
    tc_dossier_ask ask;
    tc_dossier d;
    char *md = md_report(f, "3", "6", targets, 1, &ask, &d);
    assert_false(d.by_frontier);
    /* compare 3 6 --profile-a P --profile-b P --claim 0.9, as cli_compare does it. */
    tc_compare_result c;
    memset(&c, 0, sizeof c);
    tc_compare_opts o = {1000, TC_BOOT_SEED, 1, 0.9};
    assert_int_equal(tc_view_compare_platform(f->st, "3", "A", &f->p, &c.a, err, sizeof err),
                     TC_OK);
    assert_int_equal(tc_view_compare_platform(f->st, "6", "B", &f->p, &c.b, err, sizeof err),
                     TC_OK);
    assert_int_equal(tc_compare_prepare(&c, err, sizeof err), TC_OK);
    assert_int_equal(tc_compare_finish(&c, &o, err, sizeof err), TC_OK);
    json_t *cj = tc_report_compare_json(&c);
    assert_int_equal(md_cell(md, "verdict", 1, cell, sizeof cell), 0);
    assert_string_equal(
        cell, json_string_value(json_object_get(json_object_get(cj, "claim"), "verdict")));
    assert_int_equal(md_cell(md, "throughput B/A", 1, cell, sizeof cell), 0);
    near(cell, jnum(cj, "confidence.throughput_ratio.point"));
    assert_int_equal(md_cell(md, "cost per million tokens B/A", 1, cell, sizeof cell), 0);
    near(cell, jnum(cj, "confidence.cost_ratio.point"));

    json_decref(cj);
    tc_compare_result_free(&c);
    tc_dossier_free(&d);
    free(md);
}

static void svg_made_inline(void **state)
{
    (void)state;
    const char raw[] =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"x\"\n \"http://www.w3.org/"
        "Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg\n  xmlns=\"http://www.w3.org/2000/"
        "svg\"\n  xmlns:xlink=\"http://www.w3.org/1999/xlink\"\n  width=\"720pt\"\n"
        "  height=\"400pt\"\n  >\n <clipPath\n id=\"text-clipping0\"/>\n <g "
        "clip-path=\"url(#text-clipping0)\"\n stroke-opacity=\"1.000000\"/>\n</svg>\n";
    char *s = tc_chart_svg_clean(raw, 7, "A <b>", "alt & text");
    assert_non_null(s);
    assert_string_equal(
        s, "<svg role=\"img\" aria-labelledby=\"c7-title c7-desc\" class=\"chart\" "
           "xmlns=\"http://www.w3.org/2000/svg\" width=\"720\" height=\"400\"><title "
           "id=\"c7-title\">A &lt;b&gt;</title><desc id=\"c7-desc\">alt &amp; text</desc> "
           "<clipPath id=\"c7-text-clipping0\"/> <g clip-path=\"url(#c7-text-clipping0)\"/> "
           "</svg> ");
    free(s);
}

/* The CDF is drawn from every value: here 100 gaps, 10 of them 0 ms (two
 * chunks read in one go), 10 at 2 ms and 80 from 2 to 3 ms. The line
 * starts at the zeros' share and ends at 100%, never falling; the zeros
 * are marked where they stand, not dropped. */
static void cdf_from_every_value_with_zeros_placed(void **state)
{
    (void)state;
    static tc_series_cdf c;
    tc_series_cdf_begin(&c, 0, 3);
    for (int i = 0; i < 10; i++)
        tc_series_cdf_add(&c, 0);
    for (int i = 0; i < 10; i++)
        tc_series_cdf_add(&c, 2);
    for (int i = 0; i < 80; i++)
        tc_series_cdf_add(&c, 2 + i / 80.0);
    assert_int_equal(c.total, 100);
    assert_int_equal(c.zero, 10);
    static double x[TC_SERIES_CDF_BINS + 1], y[TC_SERIES_CDF_BINS + 1];
    size_t n = tc_page_cdf_line(&c, x, y);
    assert_true(n >= 50); /* far more than the six quantiles it drew before */
    assert_true(fabs(y[0] - 10) < 1e-9);
    assert_true(x[0] > 1.9 && x[0] <= 2); /* from the smallest gap above 0, not 3 decades below */
    assert_true(fabs(y[n - 1] - 100) < 1e-9);
    assert_true(fabs(x[n - 1] - 3) < 1e-9);
    for (size_t i = 1; i < n; i++)
        assert_true(y[i] >= y[i - 1] && x[i] > x[i - 1]);
    /* Just past 2 ms (one bin, 0.7% wide, short of the next value, 2.0125
     * ms): the zeros, the ten gaps of 2 ms and the first of the rest. */
    assert_true(x[1] > 2 && x[1] < 2.0125);
    if (!(fabs(y[1] - 21) < 1e-9))
        fail_msg("y[1] = %g at %g ms, x[0] = %g", y[1], x[1], x[0]);
    tc_chart ch = {.title = "t", .xlabel = "latency (ms)", .logx = 1};
    ch.s[ch.n++] = (tc_chart_series){"a", x, y, n, TC_CHART_A, TC_CHART_LINE, NULL, NULL};
    const tc_series_cdf *cdfs[1] = {&c};
    char alt[400] = "";
    tc_page_cdf_zeros(&ch, cdfs, 1, alt, sizeof alt);
    assert_int_equal(ch.n_vline, 1);
    assert_true(ch.vline[0] == x[0]);
    assert_string_equal(ch.vline_label[0], "0 ms");
    assert_non_null(strstr(alt, "Up to 10% of the values are 0 ms"));
}

/* 1 when PLplot's SVG holds the text (it writes each character as an
 * entity: "25" is &#x32;&#x35;). */
static int has_text(const char *svg, const char *text)
{
    char want[512] = ">";
    for (const char *p = text; *p && strlen(want) + 8 < sizeof want; p++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "&#x%x;", (unsigned char)*p);
    strcat(want, "<");
    return strstr(svg, want) != NULL;
}

/* A log axis of less than a decade (TTFT 24.6 to 27.7 ms) had no tick
 * label at all: it is drawn linear, labelled, and its title says so. */
static void short_log_axis_gets_labels(void **state)
{
    (void)state;
    double x[4] = {24.6, 25.5, 26.8, 27.7}, y[4] = {0, 30, 70, 100};
    tc_chart ch = {.title = "TTFT", .xlabel = "latency (ms)", .ylabel = "%", .logx = 1};
    ch.s[ch.n++] = (tc_chart_series){"a", x, y, 4, TC_CHART_A, TC_CHART_LINE, NULL, NULL};
    char *svg = NULL, err[256];
    assert_int_equal(tc_chart_svg(&ch, 1, "alt", &svg, err, sizeof err), TC_OK);
    assert_true(has_text(svg, "25") && has_text(svg, "26") && has_text(svg, "27"));
    assert_true(has_text(svg, "latency (ms)"));
    free(svg);
    /* Over decades it stays logarithmic, and says so. */
    double wide[4] = {1, 10, 100, 1000};
    ch.s[0].x = wide;
    assert_int_equal(tc_chart_svg(&ch, 2, "alt", &svg, err, sizeof err), TC_OK);
    assert_true(has_text(svg, "latency (ms, log scale)"));
    free(svg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cdf_from_every_value_with_zeros_placed),
        cmocka_unit_test(short_log_axis_gets_labels),
        cmocka_unit_test_setup_teardown(report_tables_equal_the_json, setup, teardown),
        cmocka_unit_test_setup_teardown(report_of_two_runs_has_compare_summary, setup, teardown),
        cmocka_unit_test(svg_made_inline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
