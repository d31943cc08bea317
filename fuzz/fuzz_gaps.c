/* libFuzzer target: every reader of the gap table's user files (operator
 * inventory in its three formats, support list, risk patterns, the saved
 * T_op JSON), fed any bytes. The first byte picks the reader; whatever the
 * readers accept must build a table whose shares and days are sane. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "assess/gaps.h"
#include "core/tc_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_err(tc_err rc, const char *err, size_t errlen)
{
    if (rc != TC_OK && rc != TC_ERR_NOMEM && (err[0] == '\0' || !memchr(err, 0, errlen)))
        __builtin_trap(); /* every rejection explains itself */
}

/* Builds the table of what was accepted and checks its invariants. */
static void build(const tc_gap_inventory *inv, const tc_gap_support *sup, const tc_gap_risks *r)
{
    tc_gap_table t;
    if (tc_gaps_build(inv, sup, r, &t) != TC_OK)
        return;
    double lo, mo, hi, shares = t.share_other;
    tc_gaps_t_op(&t, &lo, &mo, &hi);
    if (!(lo >= 0 && lo <= mo && mo <= hi))
        __builtin_trap();
    for (int s = 0; s < TC_GAP_N_STATUS; s++)
        shares += t.share[s];
    if (!isfinite(shares) || shares < 1 - 1e-6 || (t.share_other > 0 && shares > 1 + 1e-6))
        __builtin_trap();
    for (size_t i = 0; i < t.n; i++)
        if (!(t.rows[i].op->share >= 0 && t.rows[i].op->share <= 1.005 + 1e-9))
            __builtin_trap();
    tc_gaps_table_free(&t);
}

static const char SUPPORT[] = "op,dtype,status\naten::mm,*,native\nflash,fp16,missing\n";
static const char INVENTORY[] = "op,dtype,count\naten::mm,fp16,3\nflash,,1\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    char err[512] = "";
    tc_gap_inventory inv = {0};
    tc_gap_support sup = {0};
    tc_gap_risks risks = {0};
    tc_csv csv;
    double lo, mo, hi;
    tc_err rc;
    switch (data[0] % 5) {
    case 0:
        rc = tc_gaps_inventory_parse("fuzz", text, len, NULL, &inv, err, sizeof err);
        if (rc == TC_OK &&
            tc_gaps_support_parse("s", SUPPORT, sizeof SUPPORT - 1, &sup, err, sizeof err) == TC_OK)
            build(&inv, &sup, NULL);
        break;
    case 1:
        rc = tc_gaps_support_parse("fuzz", text, len, &sup, err, sizeof err);
        if (rc == TC_OK && tc_gaps_inventory_parse("i", INVENTORY, sizeof INVENTORY - 1, "int8",
                                                   &inv, err, sizeof err) == TC_OK)
            build(&inv, &sup, NULL);
        break;
    case 2:
        rc = tc_gaps_risks_parse("fuzz", text, len, &risks, err, sizeof err);
        if (rc == TC_OK &&
            tc_gaps_support_parse("s", SUPPORT, sizeof SUPPORT - 1, &sup, err, sizeof err) ==
                TC_OK &&
            tc_gaps_inventory_parse("i", INVENTORY, sizeof INVENTORY - 1, NULL, &inv, err,
                                    sizeof err) == TC_OK)
            build(&inv, &sup, &risks);
        break;
    case 3:
        rc = tc_gaps_read_t_op_json("fuzz", text, len, &lo, &mo, &hi, err, sizeof err);
        if (rc == TC_OK && !(lo >= 0 && lo <= mo && mo <= hi && isfinite(hi)))
            __builtin_trap();
        break;
    default:
        rc = tc_csv_parse("fuzz", text, len, TC_CSV_COMMENTS, &csv, err, sizeof err);
        if (rc == TC_OK)
            tc_csv_free(&csv);
        break;
    }
    check_err(rc, err, sizeof err);
    tc_gaps_inventory_free(&inv);
    tc_gaps_support_free(&sup);
    tc_gaps_risks_free(&risks);
    return 0;
}
