/* bench_gaps: the operator gap table of a large inventory. A profiler
 * export of a big model, or many merged, has tens of thousands of rows;
 * reading and matching them must stay near-linear. Prints the time to read
 * and match N operators against a support list of 2,000 rows, for N = 16k
 * and 200k, beside the time to merely split the same CSV (the floor).
 * Target: 200k rows in under 1 s. Medians of 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assess/gaps.h"
#include "core/tc_csv.h"
#include "core/tc_time.h"

#define SUPPORT_ROWS 2000

static char *ops_csv(size_t n, size_t *len)
{
    size_t cap = 64 + n * 64, o = 0;
    char *s = malloc(cap);
    o += (size_t)snprintf(s + o, cap - o, "op,dtype,count\n");
    for (size_t i = 0; i < n; i++) /* every third name is in the support list */
        o += (size_t)snprintf(s + o, cap - o, "aten::op_%zu,%s,%zu\n", i * 3 % (n + 7),
                              i % 2 ? "fp16" : "bf16", i % 97 + 1);
    *len = o;
    return s;
}

static char *support_csv(size_t *len)
{
    size_t cap = SUPPORT_ROWS * 64 + 64, o = 0;
    char *s = malloc(cap);
    o += (size_t)snprintf(s + o, cap - o, "op,dtype,status,alternative\n");
    for (size_t i = 0; i < SUPPORT_ROWS; i++)
        o += (size_t)snprintf(s + o, cap - o, "aten::op_%zu,%s,%s,\n", i * 9, i % 3 ? "fp16" : "*",
                              i % 5 ? "native" : "fallback");
    *len = o;
    return s;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median seconds of 3 runs of reading and matching n operators (or, with
 * floor, of splitting the CSV alone). */
static double measure(size_t n, int floor, const tc_gap_support *sup)
{
    size_t len;
    char *text = ops_csv(n, &len), err[256];
    double t[3];
    for (int r = 0; r < 3; r++) {
        int64_t t0 = tc_mono_ns();
        if (floor) {
            tc_csv csv;
            if (tc_csv_parse("ops.csv", text, len, 0, &csv, err, sizeof err) == TC_OK)
                tc_csv_free(&csv);
        } else {
            tc_gap_inventory inv;
            tc_gap_table tab;
            if (tc_gaps_inventory_parse("ops.csv", text, len, NULL, &inv, err, sizeof err) !=
                    TC_OK ||
                tc_gaps_build(&inv, sup, NULL, &tab) != TC_OK) {
                fprintf(stderr, "bench_gaps: %s\n", err);
                exit(1);
            }
            tc_gaps_table_free(&tab);
            tc_gaps_inventory_free(&inv);
        }
        t[r] = (double)(tc_mono_ns() - t0) / 1e9;
    }
    free(text);
    qsort(t, 3, sizeof t[0], cmp_double);
    return t[1];
}

int main(void)
{
    size_t len;
    char *text = support_csv(&len), err[256];
    tc_gap_support sup;
    if (tc_gaps_support_parse("support.csv", text, len, &sup, err, sizeof err) != TC_OK) {
        fprintf(stderr, "bench_gaps: %s\n", err);
        return 1;
    }
    printf("gaps bench: N operators (plain CSV) read and matched against %d support rows, "
           "medians of 3\n",
           SUPPORT_ROWS);
    static const size_t sizes[] = {16000, 200000};
    for (size_t i = 0; i < 2; i++) {
        double floor = measure(sizes[i], 1, &sup), full = measure(sizes[i], 0, &sup);
        printf("  %6zu rows        %.3f s (CSV split alone %.3f s, x%.1f)%s\n", sizes[i], full,
               floor, floor > 0 ? full / floor : 0,
               sizes[i] == 200000 ? (full < 1 ? "  target < 1 s: PASS" : "  target < 1 s: FAIL")
                                  : "");
    }
    tc_gaps_support_free(&sup);
    free(text);
    return 0;
}
