/* Unit tests of the operator gap table: the CSV reader, the inventory
 * formats, matching, risk classes, T_op and the saved-T_op reader. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_assert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assess/gaps.h"
#include "assess/gaps_internal.h"
#include "assess/gaps_doc.h"
#include "core/tc_csv.h"

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-9 * (fabs(b) + 1))
        fail_msg("%.12g != %.12g", a, b);
}

/* Fails unless every NULL-ended fragment is in err. */
static void has_all(const char *err, ...)
{
    va_list ap;
    va_start(ap, err);
    for (const char *frag; (frag = va_arg(ap, const char *));)
        if (!strstr(err, frag))
            fail_msg("'%s' not in '%s'", frag, err);
    va_end(ap);
}

static tc_csv csv_ok(const char *text, size_t len, int flags)
{
    tc_csv c;
    char err[512] = "";
    if (tc_csv_parse("t.csv", text, len, flags, &c, err, sizeof err) != TC_OK)
        fail_msg("csv: %s", err);
    return c;
}

static void csv_reader(void **state)
{
    (void)state;
    static const char text[] = "\xEF\xBB\xBFop , dtype,\"a, \"\"quoted\"\"\"\r\n"
                               "\n"
                               "# a comment\r\n"
                               "  mm,fp16,\"two\nlines\"\r\n"
                               "last,,\n";
    tc_csv c = csv_ok(text, sizeof text - 1, TC_CSV_COMMENTS);
    assert_int_equal(c.n, 3);
    assert_int_equal(c.rows[0].n, 3);
    assert_string_equal(c.rows[0].fields[0], "op"); /* BOM gone, trimmed */
    assert_string_equal(c.rows[0].fields[1], "dtype");
    assert_string_equal(c.rows[0].fields[2], "a, \"quoted\"");
    assert_int_equal(c.rows[1].line, 4);
    assert_string_equal(c.rows[1].fields[0], "mm");
    assert_string_equal(c.rows[1].fields[2], "two\nlines");
    assert_int_equal(c.rows[2].line, 6); /* the quoted line break counts */
    assert_int_equal(c.rows[2].n, 3);
    assert_string_equal(c.rows[2].fields[2], "");
    tc_csv_free(&c);
    tc_csv_free(&c); /* idempotent */

    /* Without the flag a '#' line is data; a lone CR ends a line; no final
     * line end is fine. */
    c = csv_ok("#x,y\ra,b", 8, 0);
    assert_int_equal(c.n, 2);
    assert_string_equal(c.rows[0].fields[0], "#x");
    assert_int_equal(c.rows[1].line, 2);
    tc_csv_free(&c);
    c = csv_ok("", 0, 0);
    assert_int_equal(c.n, 0);

    char err[512];
    assert_int_equal(tc_csv_parse("t.csv", "a\nb,\"open\nmore", 14, 0, &c, err, sizeof err),
                     TC_ERR_PARSE);
    has_all(err, "t.csv:2:", "never closed", NULL);
    assert_int_equal(tc_csv_parse("t.csv", "\"a\"b,c", 6, 0, &c, err, sizeof err), TC_ERR_PARSE);
    has_all(err, "t.csv:1:", "after a closing quote", NULL);
    assert_int_equal(tc_csv_parse("t.csv", "x\nab\"c", 6, 0, &c, err, sizeof err), TC_ERR_PARSE);
    has_all(err, "t.csv:2:", "quote inside an unquoted", NULL);
    assert_int_equal(tc_csv_parse("t.csv", "a\0b", 3, 0, &c, err, sizeof err), TC_ERR_PARSE);
    has_all(err, "NUL", NULL);

    char key[64];
    tc_csv_header_key("# of Calls", key, sizeof key);
    assert_string_equal(key, "of_calls");
    tc_csv_header_key("Self CUDA %", key, sizeof key);
    assert_string_equal(key, "self_cuda_pct");
    tc_csv_header_key(" Self-CPU time (total) ", key, sizeof key);
    assert_string_equal(key, "self_cpu_time_total");
}

/* ---- inventories ---- */

static tc_gap_inventory inv_ok(const char *text, const char *dtype)
{
    tc_gap_inventory inv;
    char err[512] = "";
    if (tc_gaps_inventory_parse("ops", text, strlen(text), dtype, &inv, err, sizeof err) != TC_OK)
        fail_msg("inventory: %s", err);
    return inv;
}

static void inv_fails(const char *text, ...)
{
    tc_gap_inventory inv;
    char err[512] = "";
    assert_int_equal(
        tc_gaps_inventory_parse("ops", text, strlen(text), NULL, &inv, err, sizeof err),
        TC_ERR_PARSE);
    assert_null(inv.ops);
    va_list ap;
    va_start(ap, text);
    assert_says_v(err, ap);
    va_end(ap);
}

static const tc_gap_op *op_named(const tc_gap_inventory *inv, const char *name)
{
    for (size_t i = 0; i < inv->n; i++)
        if (strcmp(inv->ops[i].name, name) == 0)
            return &inv->ops[i];
    fail_msg("no operator %s", name);
    return NULL;
}

#define RULE "-------------------  ------------  ------------  ------------  ------------\n"
static const char TABLE_HEAD[] =
    "STAGE:2024-05-01 12:00:00 ActivityProfilerController.cpp:314] Completed Stage\n" RULE
    "               Name      Self CPU     CPU total     Self CUDA    # of Calls\n" RULE;
static const char TABLE_ROWS[] =
    "           aten::mm       1.000ms       2.000ms       6.000ms            10\n"
    "      aten::my_norm     500.000us     600.000us       2.000ms             4\n"
    "   cudaLaunchKernel       2.000ms       2.000ms       0.000us            14\n"
    "  sm80_gemm_kernel_        0.000us       0.000us       5.000ms            10\n"
    "        aten::linear    200.000us       1.500ms       0.000us            10\n"
    "           aten::mm       0.000us       1.000us       0.000us             2\n";

static void profiler_table(void **state)
{
    (void)state;
    char text[2048];
    /* With the footer: shares of 10 ms; the kernel and the runtime call are
     * not operators; the second aten::mm row (another input shape) merges. */
    snprintf(text, sizeof text,
             "%s%s%sSelf CPU time total: 3.700ms\nSelf CUDA time total: 10.000ms\n", TABLE_HEAD,
             TABLE_ROWS, RULE);
    tc_gap_inventory inv = inv_ok(text, NULL);
    assert_int_equal(inv.format, TC_GAPS_PROFILER_TABLE);
    assert_int_equal(inv.source, TC_SHARE_DEVICE_TIME);
    assert_true(inv.total_from_footer);
    near(inv.total_us, 10000);
    assert_int_equal(inv.n, 3);
    assert_int_equal(inv.n_skipped, 2);
    near(op_named(&inv, "aten::mm")->share, 0.6);
    near(op_named(&inv, "aten::mm")->calls, 12);
    near(op_named(&inv, "aten::my_norm")->share, 0.2);
    near(op_named(&inv, "aten::linear")->share, 0);
    assert_string_equal(op_named(&inv, "aten::mm")->dtype, "unknown");
    tc_gaps_inventory_free(&inv);

    /* Without the footer: the sum over rows that are not device-only
     * (6 + 2 ms), and --dtype fills the dtype. */
    snprintf(text, sizeof text, "%s%s%s", TABLE_HEAD, TABLE_ROWS, RULE);
    inv = inv_ok(text, "bf16");
    assert_false(inv.total_from_footer);
    near(op_named(&inv, "aten::mm")->share, 0.75);
    near(op_named(&inv, "aten::my_norm")->share, 0.25);
    assert_string_equal(op_named(&inv, "aten::my_norm")->dtype, "bf16");
    tc_gaps_inventory_free(&inv);
}

static void profiler_table_cpu_only(void **state)
{
    (void)state;
    /* A CPU-only profile, names left-aligned, no trailing spaces: shares of
     * self CPU over every row (the runtime call is in the whole, not an op). */
    static const char text[] = "------------------  ----------  ----------\n"
                               "Name                  Self CPU  # of Calls\n"
                               "------------------  ----------  ----------\n"
                               "aten::mm               1.000ms          10\n"
                               "aten::my_norm        500.000us           4\n"
                               "cudaLaunchKernel       2.000ms          14\n"
                               "aten::linear         200.000us          10\n"
                               "------------------  ----------  ----------\n";
    tc_gap_inventory inv = inv_ok(text, NULL);
    assert_int_equal(inv.source, TC_SHARE_CPU_TIME);
    near(inv.total_us, 3700);
    near(op_named(&inv, "aten::mm")->share, 1000.0 / 3700);
    near(op_named(&inv, "aten::linear")->share, 200.0 / 3700);
    assert_int_equal(inv.n_skipped, 1);
    tc_gaps_inventory_free(&inv);

    /* A name with a double space: cut at the rule's columns instead. */
    static const char spaced[] = "------------------  ----------  ----------\n"
                                 "Name                  Self CPU  # of Calls\n"
                                 "------------------  ----------  ----------\n"
                                 "my  op                 3.000ms           2\n"
                                 "aten::mm               1.000ms          10\n";
    inv = inv_ok(spaced, NULL);
    near(op_named(&inv, "my  op")->share, 0.75);
    near(op_named(&inv, "my  op")->calls, 2);
    tc_gaps_inventory_free(&inv);

    inv_fails("----------  ----------\n"
              "      Name    Self CPU\n"
              "----------  ----------\n"
              "  aten::mm      1.0xs\n",
              "ops:4:", "Self CPU of aten::mm", "'1.0xs' is not a time", NULL);
    inv_fails("----------  ----------\n"
              "      Name       Calls\n"
              "----------  ----------\n"
              "  aten::mm          1\n",
              "ops:2:", "no Self CPU or Self CUDA column", NULL);
}

static void profiler_csv(void **state)
{
    (void)state;
    static const char text[] = "name,self_cpu_time_total,cpu_time_total,self_device_time_total,"
                               "count\n"
                               "aten::mm,1000,2000,6000,10\n"
                               "aten::bmm,50,60,2ms,2\n"
                               "sm80_gemm,0,0,5000,10\n"
                               "ProfilerStep#1,300,9000,0,1\n";
    tc_gap_inventory inv = inv_ok(text, NULL);
    assert_int_equal(inv.format, TC_GAPS_PROFILER_CSV);
    assert_int_equal(inv.source, TC_SHARE_DEVICE_TIME);
    assert_int_equal(inv.n, 2);
    assert_int_equal(inv.n_skipped, 2);
    near(op_named(&inv, "aten::mm")->share, 0.75);
    near(op_named(&inv, "aten::bmm")->share, 0.25);
    near(op_named(&inv, "aten::bmm")->time_us, 2000);
    tc_gaps_inventory_free(&inv);

    /* The table's spellings as CSV headers, a dtype column, CUDA naming. */
    inv = inv_ok("Key,Self CPU,Self CUDA,# of Calls,dtype\naten::mm,1ms,3ms,4,fp16\n"
                 "aten::add,1ms,1ms,4,\n",
                 "bf16");
    near(op_named(&inv, "aten::mm")->share, 0.75);
    assert_string_equal(op_named(&inv, "aten::mm")->dtype, "fp16");
    assert_string_equal(op_named(&inv, "aten::add")->dtype, "bf16");
    tc_gaps_inventory_free(&inv);

    inv_fails("name,self_cuda_time_total\naten::mm,1000\naten::add,-5\n",
              "ops:3:", "'-5' is not a time", NULL);
    inv_fails("name,self_cuda_time_total\naten::mm,0\n", "no operator has any self time", NULL);
}

static void plain_csv(void **state)
{
    (void)state;
    tc_gap_inventory inv =
        inv_ok("# counts\nop,dtype,count\naten::mm,fp16,30\nflash,fp16,10\n", NULL);
    assert_int_equal(inv.format, TC_GAPS_PLAIN_CSV);
    assert_int_equal(inv.source, TC_SHARE_COUNT);
    near(op_named(&inv, "aten::mm")->share, 0.75);
    near(op_named(&inv, "flash")->share, 0.25);
    assert_int_equal(op_named(&inv, "flash")->line, 4);
    tc_gaps_inventory_free(&inv);

    /* Shares as a fraction or a percentage; the rest is "other". */
    inv = inv_ok("op,dtype,share,count\nmm,fp16,0.5,\nflash,,25%,3\n", "int8");
    assert_int_equal(inv.source, TC_SHARE_GIVEN);
    near(op_named(&inv, "mm")->share, 0.5);
    near(op_named(&inv, "flash")->share, 0.25);
    assert_false(op_named(&inv, "mm")->has_calls);
    assert_string_equal(op_named(&inv, "flash")->dtype, "int8");
    tc_gaps_inventory_free(&inv);
    inv = inv_ok("op,percent\nmm,60\nadd,40\n", NULL);
    near(op_named(&inv, "add")->share, 0.4);
    tc_gaps_inventory_free(&inv);

    inv_fails("op,dtype,count\nmm,fp16,abc\n", "ops:2:", "count 'abc' of mm", NULL);
    inv_fails("op,dtype\nmm,fp16\n", "ops:1:", "no count or share column", NULL);
    inv_fails("op,share\nmm,1.5\n", "ops:2:", "share '1.5'", NULL);
    inv_fails("op,share\nmm,60%\nadd,50%\n", "add up to 1.1", NULL);
    inv_fails("op,dtype,count\n,fp16,3\n", "ops:2:", "empty op", NULL);
    inv_fails("", "empty", NULL);
    inv_fails("op,count\n", "no operator rows", NULL);
}

/* ---- support list, matching, risk ---- */

static const char SUPPORT[] = "# EXAMPLE\n"
                              "op,dtype,status,alternative,notes\n"
                              "aten::mm,fp16,native,,\n"
                              "MM,bf16,missing,\"use fp16\",case row\n"
                              "addmm,*,fallback,rocBLAS,\n"
                              "flash,fp16,native,,\n"
                              "flash,int8,missing,\"none, yet\",\n";

static tc_gap_support support_ok(const char *text)
{
    tc_gap_support sup;
    char err[512] = "";
    if (tc_gaps_support_parse("s.csv", text, strlen(text), &sup, err, sizeof err) != TC_OK)
        fail_msg("support: %s", err);
    return sup;
}

static void support_fails(const char *text, ...)
{
    tc_gap_support sup;
    char err[512] = "";
    assert_int_equal(tc_gaps_support_parse("s.csv", text, strlen(text), &sup, err, sizeof err),
                     TC_ERR_PARSE);
    va_list ap;
    va_start(ap, text);
    assert_says_v(err, ap);
    va_end(ap);
}

static void support_list(void **state)
{
    (void)state;
    tc_gap_support sup = support_ok(SUPPORT);
    assert_int_equal(sup.n, 5);
    assert_int_equal(sup.rows[1].status, TC_GAP_MISSING);
    assert_string_equal(sup.rows[4].alternative, "none, yet");
    assert_int_equal(sup.rows[4].line, 7);
    tc_gaps_support_free(&sup);
    /* Columns in any order, dtype optional (then "*"), status in any case. */
    sup = support_ok("Status,Op\nNATIVE,aten::mm\n");
    assert_string_equal(sup.rows[0].dtype, "*");
    tc_gaps_support_free(&sup);

    support_fails("op,dtype,alternative\nmm,fp16,x\n", "s.csv:1:", "no 'status' column", NULL);
    support_fails("op,dtype,status\nmm,fp16,native\nadd,fp16,maybe\n", "s.csv:3:", "'maybe'",
                  "native, fallback or missing", NULL);
    support_fails("op,dtype,status\nmm,float16,native\nmm,fp16,missing\n",
                  "s.csv:3:", "given twice", "line 2", NULL);
    support_fails("op,status\n", "no operator rows", NULL);
}

static tc_gap_op op(const char *name, const char *dtype, double share)
{
    return (tc_gap_op){(char *)name, (char *)dtype, share, 0, 0, 0, 1, 0};
}

static const tc_gap_entry *entry(const tc_gap_table *t, const char *name, const char *dtype)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->rows[i].op->name, name) == 0 && strcmp(t->rows[i].op->dtype, dtype) == 0)
            return &t->rows[i];
    fail_msg("no entry %s %s", name, dtype);
    return NULL;
}

/* Rows of one (name, dtype) are summed, whatever spelling of the dtype,
 * across an inventory large enough to grow the index many times. */
static void inventory_sums_rows_by_name_and_dtype(void **state)
{
    (void)state;
    tc_gap_inventory inv;
    memset(&inv, 0, sizeof inv);
    char name[32];
    for (int rep = 0; rep < 3; rep++)
        for (int i = 0; i < 5000; i++) {
            snprintf(name, sizeof name, "aten::op_%d", i);
            assert_int_equal(
                tc_gaps_inventory_add(&inv, name, rep == 1 ? "half" : "fp16", 1.0, 0, 2, 1, i + 1),
                TC_OK);
        }
    assert_int_equal(tc_gaps_inventory_add(&inv, "aten::op_7", "bf16", 5, 0, 1, 1, 9), TC_OK);
    assert_int_equal(inv.n, 5001);
    for (size_t i = 0; i < 5000; i++) {
        assert_true(inv.ops[i].time_us == 3.0 && inv.ops[i].calls == 6);
        assert_int_equal(inv.ops[i].line, (int)i + 1); /* where it first appeared */
    }
    assert_string_equal(inv.ops[5000].dtype, "bf16");
    tc_gaps_inventory_free(&inv);
}

static void matching(void **state)
{
    (void)state;
    tc_gap_support sup = support_ok(SUPPORT);
    tc_gap_op ops[] = {op("aten::mm", "fp16", 0.4),
                       op("aten::mm", "bf16", 0.2),
                       op("ATEN::ADDMM_", "float32", 0.1),
                       op("aten::foo", "fp16", 0.05),
                       op("flash", "unknown", 0.1),
                       op("flash", "fp32", 0.05),
                       op("torch.ops.aten.mm.default", "half", 0.0)};
    tc_gap_inventory inv = {.ops = ops, .n = sizeof ops / sizeof ops[0]};
    tc_gap_table t;
    assert_int_equal(tc_gaps_build(&inv, &sup, NULL, &t), TC_OK);
    const tc_gap_entry *e = entry(&t, "aten::mm", "fp16");
    assert_int_equal(e->status, TC_GAP_NATIVE);
    assert_int_equal(e->match, TC_MATCH_EXACT);
    e = entry(&t, "aten::mm", "bf16"); /* exact name lacks bf16; normalised "MM" has it */
    assert_int_equal(e->status, TC_GAP_MISSING);
    assert_int_equal(e->match, TC_MATCH_NORMALISED);
    assert_string_equal(e->support->alternative, "use fp16");
    e = entry(&t, "ATEN::ADDMM_", "float32"); /* normalised, through the '*' row */
    assert_int_equal(e->status, TC_GAP_FALLBACK);
    e = entry(&t, "aten::foo", "fp16");
    assert_int_equal(e->status, TC_GAP_UNKNOWN);
    assert_null(e->support);
    assert_non_null(strstr(e->why, "not in the support list"));
    e = entry(&t, "flash", "unknown"); /* the worst of its two rows */
    assert_int_equal(e->status, TC_GAP_MISSING);
    assert_non_null(strstr(e->why, "worst of 2 rows"));
    e = entry(&t, "flash", "fp32");
    assert_int_equal(e->status, TC_GAP_UNKNOWN);
    assert_non_null(strstr(e->why, "not for this dtype"));
    e = entry(&t, "torch.ops.aten.mm.default", "half");
    assert_int_equal(e->status, TC_GAP_NATIVE);
    /* Case stage: exact fails, case-insensitive hits before normalising. */
    tc_gap_op upper[] = {op("mm", "bf16", 1)};
    tc_gap_inventory inv2 = {.ops = upper, .n = 1};
    tc_gap_table t2;
    assert_int_equal(tc_gaps_build(&inv2, &sup, NULL, &t2), TC_OK);
    assert_int_equal(t2.rows[0].match, TC_MATCH_CASE);
    tc_gaps_table_free(&t2);

    /* Sorted by share; totals by status; the rest is "other". */
    assert_string_equal(t.rows[0].op->name, "aten::mm");
    assert_string_equal(t.rows[0].op->dtype, "fp16");
    near(t.share[TC_GAP_NATIVE], 0.4);
    near(t.share[TC_GAP_MISSING], 0.3);
    near(t.share[TC_GAP_FALLBACK], 0.1);
    near(t.share[TC_GAP_UNKNOWN], 0.1);
    near(t.share_other, 0.1);
    assert_int_equal(t.count[TC_GAP_UNKNOWN], 2);
    /* T_op: 2 missing (1..2..3), 1 fallback (0.25..0.5..1), 2 unknown
     * (0..1..3), 2 native (0). */
    double lo, mo, hi;
    tc_gaps_t_op(&t, &lo, &mo, &hi);
    near(lo, 2 * 1 + 0.25 + 0);
    near(mo, 2 * 2 + 0.5 + 2 * 1);
    near(hi, 2 * 3 + 1 + 2 * 3);
    tc_gaps_table_free(&t);
    tc_gaps_support_free(&sup);
}

static void names_and_globs(void **state)
{
    (void)state;
    char n[64];
    tc_gaps_normalise_name("aten::add_", n, sizeof n);
    assert_string_equal(n, "add");
    tc_gaps_normalise_name("torch.ops.aten.add.Tensor", n, sizeof n);
    assert_string_equal(n, "add");
    tc_gaps_normalise_name("aten::_fused_adamw_", n, sizeof n);
    assert_string_equal(n, "_fused_adamw");
    tc_gaps_normalise_name("vllm::rms_norm", n, sizeof n); /* other namespaces stay */
    assert_string_equal(n, "vllm::rms_norm");
    tc_gaps_normalise_name("_", n, sizeof n);
    assert_string_equal(n, "_");
    assert_true(tc_gaps_glob("*INT4*", "aten::_weight_int4pack_mm"));
    assert_true(tc_gaps_glob("a?c*", "abc"));
    assert_true(tc_gaps_glob("*", ""));
    assert_false(tc_gaps_glob("mm", "addmm"));
    assert_false(tc_gaps_glob("a*b", "aXbY"));
    assert_true(tc_gaps_glob("*a*a*a*b", "aaaaaaaaaaaaaaaaaaaab"));
}

static void risk_classes(void **state)
{
    (void)state;
    const char *cat, *pat;
    int user;
    assert_int_equal(tc_gaps_classify(NULL, "aten::_weight_int4pack_mm", &cat, &pat, &user),
                     TC_RISK_HIGH);
    assert_string_equal(cat, "quantised GEMM");
    assert_false(user);
    assert_int_equal(tc_gaps_classify(NULL, "_C::gptq_marlin_gemm", NULL, NULL, NULL),
                     TC_RISK_HIGH);
    assert_int_equal(
        tc_gaps_classify(NULL, "aten::_scaled_dot_product_flash_attention", &cat, NULL, NULL),
        TC_RISK_MEDIUM_HIGH);
    assert_string_equal(cat, "fused attention");
    assert_int_equal(tc_gaps_classify(NULL, "aten::native_layer_norm", &cat, NULL, NULL),
                     TC_RISK_MEDIUM);
    assert_string_equal(cat, "normalisation"); /* standard layer_norm is not "custom" */
    assert_int_equal(tc_gaps_classify(NULL, "aten::addmm", &cat, NULL, NULL), TC_RISK_LOW);
    assert_string_equal(cat, "basic GEMM");
    assert_int_equal(tc_gaps_classify(NULL, "aten::mm", NULL, NULL, NULL), TC_RISK_LOW);
    assert_int_equal(tc_gaps_classify(NULL, "aten::gelu", &cat, &pat, NULL), TC_RISK_MEDIUM);
    assert_null(pat);
    assert_string_equal(cat, "other (default)");

    /* User patterns come first. */
    static const char text[] = "pattern,class,category\n*mm*,high,my GEMMs\naten::gelu,low,\n";
    tc_gap_risks risks;
    char err[512] = "";
    assert_int_equal(tc_gaps_risks_parse("r.csv", text, strlen(text), &risks, err, sizeof err),
                     TC_OK);
    assert_int_equal(tc_gaps_classify(&risks, "aten::addmm", &cat, &pat, &user), TC_RISK_HIGH);
    assert_string_equal(cat, "my GEMMs");
    assert_string_equal(pat, "*mm*");
    assert_true(user);
    assert_int_equal(tc_gaps_classify(&risks, "ATEN::GELU", &cat, NULL, NULL), TC_RISK_LOW);
    assert_string_equal(cat, "user pattern");
    assert_int_equal(tc_gaps_classify(&risks, "aten::flash_x", NULL, NULL, &user),
                     TC_RISK_MEDIUM_HIGH);
    assert_false(user);
    tc_gaps_risks_free(&risks);

    static const char severe[] = "pattern,class\n*x*,severe\n";
    assert_int_equal(tc_gaps_risks_parse("r.csv", severe, strlen(severe), &risks, err, sizeof err),
                     TC_ERR_PARSE);
    has_all(err, "r.csv:2:", "'severe'", NULL);
    assert_int_equal(tc_gaps_risks_parse("r.csv", "glob\n*x*\n", 9, &risks, err, sizeof err),
                     TC_ERR_PARSE);
    has_all(err, "r.csv:1:", "no 'class' column", NULL);
}

static void status_days(void **state)
{
    (void)state;
    double lo, mo, hi;
    tc_gaps_status_days(TC_GAP_MISSING, &lo, &mo, &hi);
    near(lo, 1), near(mo, 2), near(hi, 3);
    tc_gaps_status_days(TC_GAP_FALLBACK, &lo, &mo, &hi);
    near(lo, 0.25), near(mo, 0.5), near(hi, 1);
    tc_gaps_status_days(TC_GAP_NATIVE, &lo, &mo, &hi);
    near(lo + mo + hi, 0);
    tc_gaps_status_days(TC_GAP_UNKNOWN, &lo, &mo, &hi);
    near(lo, 0), near(mo, 1), near(hi, 3);
    tc_gap_table empty;
    tc_gap_inventory none = {0};
    tc_gap_support sup = {0};
    assert_int_equal(tc_gaps_build(&none, &sup, NULL, &empty), TC_OK);
    tc_gaps_t_op(&empty, &lo, &mo, &hi);
    near(lo + mo + hi, 0);
    tc_gaps_table_free(&empty);
}

/* ---- T_op JSON ---- */

static void t_op_json(void **state)
{
    (void)state;
    double lo, mo, hi;
    char err[512];
    const char *ok = "{\"t_op_days\": {\"low\": 1.5, \"mode\": 2, \"high\": 6.25}, \"ops\": []}";
    assert_int_equal(
        tc_gaps_read_t_op_json("g.json", ok, strlen(ok), &lo, &mo, &hi, err, sizeof err), TC_OK);
    near(lo, 1.5), near(mo, 2), near(hi, 6.25);

    static const struct {
        const char *text, *frag;
    } bad[] = {
        {"{\n\"t_op_days\": {\"low\": 1,\n}", "g.json:3:"},
        {"{\"ops\": []}", "no object \"t_op_days\""},
        {"{\"t_op_days\": {\"low\": 1, \"mode\": 2}}", "t_op_days.high is missing"},
        {"{\"t_op_days\": {\"low\": 1, \"mode\": \"2\", \"high\": 3}}",
         "t_op_days.mode is not a number"},
        {"{\"t_op_days\": {\"low\": 3, \"mode\": 2, \"high\": 4}}", "not ordered"},
        {"{\"t_op_days\": {\"low\": -1, \"mode\": 2, \"high\": 4}}", "expected person-days >= 0"},
        {"{\"t_op_days\": {\"low\": 1, \"low\": 1, \"mode\": 2, \"high\": 4}}", "g.json:1:"},
        {"", "g.json:1:"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        lo = -7;
        err[0] = '\0';
        assert_int_equal(tc_gaps_read_t_op_json("g.json", bad[i].text, strlen(bad[i].text), &lo,
                                                &mo, &hi, err, sizeof err),
                         TC_ERR_PARSE);
        has_all(err, bad[i].frag, NULL);
        near(lo, -7); /* untouched on error */
    }
}

/* The gaps --json document round-trips through the reader lockin uses. */
static void json_round_trip(void **state)
{
    (void)state;
    tc_gap_support sup = support_ok(SUPPORT);
    tc_gap_op ops[] = {op("aten::mm", "fp16", 0.5), op("flash", "int8", 0.3),
                       op("addmm", "fp16", 0.1), op("weird\xff", "fp16", 0.05)};
    tc_gap_inventory inv = {.ops = ops, .n = 4, .source = TC_SHARE_GIVEN};
    tc_gap_table t;
    assert_int_equal(tc_gaps_build(&inv, &sup, NULL, &t), TC_OK);
    json_t *doc = tc_gaps_json(&inv, &t, "ops.csv", "s.csv", NULL);
    assert_non_null(doc);
    char *text = json_dumps(doc, 0);
    assert_non_null(text);
    double lo, mo, hi;
    char err[512];
    assert_int_equal(
        tc_gaps_read_t_op_json("g.json", text, strlen(text), &lo, &mo, &hi, err, sizeof err),
        TC_OK);
    /* missing 1..2..3 + fallback 0.25..0.5..1 + unknown 0..1..3 */
    near(lo, 1.25), near(mo, 3.5), near(hi, 7);
    json_t *first = json_array_get(json_object_get(doc, "ops"), 0);
    assert_string_equal(json_string_value(json_object_get(first, "status")), "native");
    assert_string_equal(json_string_value(json_object_get(doc, "share_source")), "share");
    assert_true(json_is_null(json_object_get(doc, "risk_patterns_file")));
    assert_int_equal(json_array_size(json_object_get(doc, "warnings")), 1);
    free(text);
    json_decref(doc);
    tc_gaps_table_free(&t);
    tc_gaps_support_free(&sup);
}

/* ---- review findings ---- */

/* A row as PyTorch's _build_table prints it: Name right-aligned in 55,
 * numbers right-aligned in 12, two spaces after each column, and with
 * group_by_stack_n a left-aligned Source Location. */
static void stack_row(char *buf, size_t len, const char *name, const char *cpu, const char *total,
                      const char *cuda, const char *calls, const char *src)
{
    size_t used = strlen(buf);
    snprintf(buf + used, len - used, "%55s  %12s  %12s  %12s  %12s  %-40s  \n", name, cpu, total,
             cuda, calls, src);
}

#define WIDE_RULE                                                                                  \
    "-------------------------------------------------------  ------------  ------------  "        \
    "------------  ------------  ----------------------------------------  \n"

/* Finding 1: a name the profiler cut to 55 characters ("...") matches the
 * one support operator that starts with it; several: unknown + warning. */
static void cut_names_match_by_prefix(void **state)
{
    (void)state;
    tc_gap_support sup =
        support_ok("op,dtype,status,alternative,notes\n"
                   "aten::_scaled_dot_product_efficient_attention_backward,*,missing,math "
                   "path,\n"
                   "aten::_scaled_dot_product_efficient_attention,*,native,,\n"
                   "aten::some_very_long_operator_name_that_pytorch_cuts_a,bf16,native,,\n"
                   "aten::some_very_long_operator_name_that_pytorch_cuts_b,bf16,missing,,\n"
                   "_fused_rotary_embedding_with_a_long_name_for_the_table_fwd,fp16,fallback,,\n"
                   "_fused_rotary_embedding_with_a_long_name_for_the_table_bwd,bf16,native,,\n");
    tc_gap_op ops[] = {
        op("aten::_scaled_dot_product_efficient_attention_backwa...", "bf16", 0.3),
        op("aten::some_very_long_operator_name_that_pytorch_cuts...", "bf16", 0.2),
        /* normalised: the support rows have no aten::; the dtype leaves one */
        op("aten::_fused_rotary_embedding_with_a_long_name_for_t...", "bf16", 0.1),
        op("aten::nothing_in_the_support_list_starts_like_this_n...", "bf16", 0.1),
    };
    assert_int_equal(strlen(ops[0].name), 55);
    tc_gap_inventory inv = {.ops = ops, .n = 4, .source = TC_SHARE_DEVICE_TIME};
    tc_gap_table t;
    assert_int_equal(tc_gaps_build(&inv, &sup, NULL, &t), TC_OK);
    const tc_gap_entry *e = entry(&t, ops[0].name, "bf16");
    assert_int_equal(e->status, TC_GAP_MISSING);
    assert_int_equal(e->match, TC_MATCH_PREFIX);
    assert_string_equal(e->support->op, "aten::_scaled_dot_product_efficient_attention_backward");
    has_all(e->why, "matched by prefix", NULL);
    assert_string_equal(e->risk_category, "fused attention");
    assert_string_equal(tc_gaps_match_name(e->match), "prefix");
    e = entry(&t, ops[1].name, "bf16");
    assert_int_equal(e->status, TC_GAP_UNKNOWN);
    assert_true(e->ambiguous);
    assert_null(e->support);
    has_all(e->why, "2 support operators", "max_name_column_width", NULL);
    e = entry(&t, ops[2].name, "bf16");
    assert_int_equal(e->status, TC_GAP_NATIVE);
    assert_int_equal(e->match, TC_MATCH_PREFIX);
    assert_string_equal(e->support->op,
                        "_fused_rotary_embedding_with_a_long_name_for_the_table_bwd");
    e = entry(&t, ops[3].name, "bf16");
    assert_int_equal(e->status, TC_GAP_UNKNOWN);
    assert_false(e->ambiguous);
    assert_int_equal(t.n_ambiguous, 1);
    json_t *doc = tc_gaps_json(&inv, &t, "ops.txt", "s.csv", NULL);
    char *text = json_dumps(doc, 0);
    has_all(text, "max_name_column_width=", "\"match\": \"prefix\"", NULL);
    free(text);
    json_decref(doc);
    tc_gaps_table_free(&t);

    /* With the dtype unknown every row of the one name counts, worst wins;
     * a profiler table with such a cut name reads and matches end to end. */
    char table[1024];
    snprintf(
        table, sizeof table,
        "----------------------------------------------------------  ----------  ----------\n"
        "                                                      Name    Self CPU   Self CUDA\n"
        "----------------------------------------------------------  ----------  ----------\n"
        "   aten::_scaled_dot_product_efficient_attention_backwa...     1.000ms     3.000ms\n"
        "                                                  aten::mm     1.000ms     1.000ms\n");
    tc_gap_inventory real = inv_ok(table, NULL);
    assert_int_equal(tc_gaps_build(&real, &sup, NULL, &t), TC_OK);
    e = entry(&t, "aten::_scaled_dot_product_efficient_attention_backwa...", "unknown");
    assert_int_equal(e->status, TC_GAP_MISSING);
    assert_int_equal(e->match, TC_MATCH_PREFIX);
    near(e->op->share, 0.75);
    tc_gaps_table_free(&t);
    tc_gaps_inventory_free(&real);
    tc_gaps_support_free(&sup);
}

/* Finding 2: PyTorch <= 2.4 prints negative Self CPU values; they read as
 * 0 and are counted; a negative device time is still an error. */
static void negative_cpu_times(void **state)
{
    (void)state;
    char text[4096] = WIDE_RULE;
    strcat(text, "                                                   Name      Self CPU     CPU "
                 "total     Self CUDA    # of Calls  Source Location                           "
                 "  \n" WIDE_RULE);
    stack_row(text, sizeof text, "aten::mm", "-16028.000us", "2.000ms", "6.000ms", "10", "");
    stack_row(text, sizeof text, "aten::add", "1.000ms", "1.500ms", "2.000ms", "4", "");
    tc_gap_inventory inv = inv_ok(text, NULL);
    assert_int_equal(inv.n_negative_cpu, 1);
    assert_int_equal(inv.n, 2);
    near(op_named(&inv, "aten::mm")->share, 0.75);
    tc_gap_support sup = support_ok("op,status\naten::mm,native\naten::add,native\n");
    tc_gap_table t;
    assert_int_equal(tc_gaps_build(&inv, &sup, NULL, &t), TC_OK);
    json_t *doc = tc_gaps_json(&inv, &t, "ops.txt", "s.csv", NULL);
    char *dump = json_dumps(doc, 0);
    has_all(dump, "1 negative CPU time (a PyTorch <= 2.4 profiler bug) was taken as 0",
            "\"negative_cpu_times\": 1", NULL);
    free(dump);
    json_decref(doc);
    tc_gaps_table_free(&t);
    tc_gaps_inventory_free(&inv);
    tc_gaps_support_free(&sup);

    /* Self CPU without CPU total: a row with a negative CPU time ran on
     * the CPU, so it is not a device-only kernel. */
    inv = inv_ok("----------  ----------  ----------\n"
                 "      Name    Self CPU   Self CUDA\n"
                 "----------  ----------  ----------\n"
                 "  aten::mm    -3.000ms     1.000ms\n"
                 " aten::add    -1.000ms     1.000ms\n"
                 " aten::cat     2.000ms     2.000ms\n",
                 NULL);
    assert_int_equal(inv.n_negative_cpu, 2);
    assert_int_equal(inv.n, 3);
    assert_int_equal(inv.n_skipped, 0);
    near(op_named(&inv, "aten::mm")->share, 0.25);
    tc_gaps_inventory_free(&inv);

    /* The key_averages CSV: self_cpu_time_total may be negative too. */
    inv = inv_ok("name,self_cpu_time_total,cpu_time_total,self_device_time_total,count\n"
                 "aten::mm,-16028,-3,3000,10\naten::add,5,5,1000,1\n",
                 NULL);
    assert_int_equal(inv.n_negative_cpu, 2);
    near(op_named(&inv, "aten::mm")->share, 0.75);
    tc_gaps_inventory_free(&inv);

    /* Device times stay strict, in both formats; "--" is no number. */
    inv_fails("----------  ----------  ----------\n"
              "      Name    Self CPU   Self CUDA\n"
              "----------  ----------  ----------\n"
              "  aten::mm     1.000ms    -1.000ms\n",
              "ops:4:", "Self CUDA of aten::mm", "'-1.000ms' is not a time", NULL);
    inv_fails("name,self_cpu_time_total,self_cuda_time_total\naten::mm,1,-5\n",
              "ops:2:", "'-5' is not a time", NULL);
    inv_fails("name,self_cpu_time_total\naten::mm,--5\n", "ops:2:", "'--5' is not a time", NULL);
}

/* Finding 3: record_function labels (no "::", CPU only in a table with
 * device time) are left out of the table unless the support list names
 * them; the plain CSV and CPU-only profiles keep every name. */
static void record_function_labels(void **state)
{
    (void)state;
    static const char text[] = "-----------------  ----------  ----------  ----------\n"
                               "             Name    Self CPU   Self CUDA  # of Calls\n"
                               "-----------------  ----------  ----------  ----------\n"
                               "  model_inference     5.000ms     0.000us           1\n"
                               "       my_forward     1.000ms     0.000us           1\n"
                               "         aten::mm     1.000ms     3.000ms          10\n"
                               "     aten::linear   200.000us     0.000us          10\n"
                               "    fused_gelu_op   100.000us     1.000ms           2\n";
    tc_gap_inventory inv = inv_ok(text, NULL);
    assert_int_equal(inv.n, 5);
    assert_true(op_named(&inv, "model_inference")->label);
    assert_true(op_named(&inv, "my_forward")->label);
    assert_false(op_named(&inv, "aten::linear")->label);  /* a namespace: an operator */
    assert_false(op_named(&inv, "fused_gelu_op")->label); /* it has device time */
    tc_gap_support sup = support_ok("op,status\naten::mm,native\naten::linear,native\n"
                                    "fused_gelu_op,native\nMy_Forward,fallback\n");
    tc_gap_table t;
    assert_int_equal(tc_gaps_build(&inv, &sup, NULL, &t), TC_OK);
    assert_int_equal(t.n, 4); /* my_forward is named by the list (ignoring case) */
    assert_int_equal(t.n_labels, 1);
    assert_int_equal(t.count[TC_GAP_UNKNOWN], 0);
    assert_int_equal(entry(&t, "my_forward", "unknown")->status, TC_GAP_FALLBACK);
    double lo, mo, hi;
    tc_gaps_t_op(&t, &lo, &mo, &hi);
    near(lo, 0.25), near(mo, 0.5), near(hi, 1); /* no unknown 0..1..3 for the label */
    json_t *doc = tc_gaps_json(&inv, &t, "ops.txt", "s.csv", NULL);
    json_t *totals = json_object_get(doc, "totals");
    assert_int_equal(json_integer_value(json_object_get(totals, "skipped_labels")), 1);
    assert_int_equal(json_integer_value(json_object_get(totals, "skipped_rows")), 1);
    char *dump = json_dumps(doc, 0);
    has_all(dump, "1 record_function label was left out", "model_inference", NULL);
    free(dump);
    json_decref(doc);
    tc_gaps_table_free(&t);
    tc_gaps_inventory_free(&inv);

    /* The plain CSV and a CPU-only table have no labels. */
    inv = inv_ok("op,dtype,count\nmodel_inference,fp16,1\naten::mm,fp16,3\n", NULL);
    assert_false(op_named(&inv, "model_inference")->label);
    tc_gaps_inventory_free(&inv);
    inv = inv_ok("---------------  ----------\n"
                 "           Name    Self CPU\n"
                 "---------------  ----------\n"
                 "model_inference     5.000ms\n"
                 "       aten::mm     1.000ms\n",
                 NULL);
    assert_false(op_named(&inv, "model_inference")->label);
    tc_gaps_inventory_free(&inv);
    tc_gaps_support_free(&sup);
}

/* Finding 4: group_by_stack_n adds a Source Location column and lines
 * that hold only stack text, and a spacer line after each row. */
static void stack_continuation_lines(void **state)
{
    (void)state;
    char text[8192] = WIDE_RULE;
    strcat(text, "                                                   Name      Self CPU     CPU "
                 "total     Self CUDA    # of Calls  Source Location                           "
                 "  \n" WIDE_RULE);
    stack_row(text, sizeof text, "aten::mm", "1.000ms", "2.000ms", "6.000ms", "10",
              "torch/nn/modules/linear.py(125): forward");
    stack_row(text, sizeof text, "", "", "", "", "", "torch/nn/modules/module.py(1747): _call");
    stack_row(text, sizeof text, "", "", "", "", "", "train.py(42): step");
    stack_row(text, sizeof text, "", "", "", "", "", "");
    stack_row(text, sizeof text, "aten::add", "500.000us", "600.000us", "2.000ms", "4",
              "<built-in method add of type object>");
    stack_row(text, sizeof text, "", "", "", "", "", "");
    strcat(text, WIDE_RULE "Self CPU time total: 1.500ms\nSelf CUDA time total: 8.000ms\n");
    tc_gap_inventory inv = inv_ok(text, NULL);
    assert_int_equal(inv.n, 2);
    assert_true(inv.total_from_footer);
    near(op_named(&inv, "aten::mm")->share, 0.75);
    near(op_named(&inv, "aten::add")->calls, 4);
    assert_int_equal(op_named(&inv, "aten::add")->line, 8);
    tc_gaps_inventory_free(&inv);

    /* A line with numbers but no name is still an error. */
    char bad[4096] = WIDE_RULE;
    strcat(bad, "                                                   Name      Self CPU     CPU "
                "total     Self CUDA    # of Calls  Source Location                           "
                "  \n" WIDE_RULE);
    stack_row(bad, sizeof bad, "aten::mm", "1.000ms", "2.000ms", "6.000ms", "10", "x.py(1): f");
    stack_row(bad, sizeof bad, "", "1.000ms", "", "", "", "");
    inv_fails(bad, "ops:5:", "a row without an operator name", NULL);
}

/* Finding 5: the dtype warning counts only operators that had several
 * candidate rows; the normalisation class is not called "custom". */
static void dtype_warning_and_normalisation(void **state)
{
    (void)state;
    tc_gap_support sup = support_ok("op,dtype,status\naten::mm,*,native\n"
                                    "flash,fp16,native\nflash,int8,missing\n");
    tc_gap_op ops[] = {op("aten::mm", "unknown", 0.5), op("flash", "unknown", 0.3),
                       op("aten::gelu", "unknown", 0.1)};
    tc_gap_inventory inv = {.ops = ops, .n = 3, .source = TC_SHARE_GIVEN};
    tc_gap_table t;
    assert_int_equal(tc_gaps_build(&inv, &sup, NULL, &t), TC_OK);
    assert_int_equal(entry(&t, "aten::mm", "unknown")->n_candidates, 1);
    assert_int_equal(entry(&t, "flash", "unknown")->n_candidates, 2);
    json_t *doc = tc_gaps_json(&inv, &t, "ops.csv", "s.csv", NULL);
    char *dump = json_dumps(doc, 0);
    has_all(dump, "1 operator has no dtype: each took the worst status of its rows", NULL);
    free(dump);
    json_decref(doc);
    tc_gaps_table_free(&t);

    /* No operator with two candidate rows: no dtype warning at all. */
    inv.n = 1;
    assert_int_equal(tc_gaps_build(&inv, &sup, NULL, &t), TC_OK);
    doc = tc_gaps_json(&inv, &t, "ops.csv", "s.csv", NULL);
    dump = json_dumps(doc, 0);
    if (strstr(dump, "no dtype"))
        fail_msg("a dtype warning with one candidate row: %s", dump);
    free(dump);
    json_decref(doc);
    tc_gaps_table_free(&t);
    tc_gaps_support_free(&sup);

    static const char *const norms[] = {"aten::native_layer_norm", "aten::rms_norm",
                                        "aten::native_group_norm", "vllm::rms_norm"};
    for (size_t i = 0; i < sizeof norms / sizeof norms[0]; i++) {
        const char *cat;
        assert_int_equal(tc_gaps_classify(NULL, norms[i], &cat, NULL, NULL), TC_RISK_MEDIUM);
        assert_string_equal(cat, "normalisation");
    }
}

/* ---- the shipped examples ---- */

static char *example(const char *file, size_t *len)
{
    char path[1024], err[512];
    char *text;
    snprintf(path, sizeof path, "%s/../../examples/%s", TC_FIXTURES_DIR, file);
    if (tc_gaps_read_file(path, &text, len, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    return text;
}

static void examples(void **state)
{
    (void)state;
    size_t len;
    char err[512] = "";
    char *text = example("ops-llama7b-lora-profiler.txt", &len);
    tc_gap_inventory inv;
    assert_int_equal(tc_gaps_inventory_parse("lora", text, len, "bf16", &inv, err, sizeof err),
                     TC_OK);
    free(text);
    assert_int_equal(inv.source, TC_SHARE_DEVICE_TIME);
    assert_true(inv.total_from_footer);
    near(inv.total_us, 630975);
    near(op_named(&inv, "aten::mm")->share, 401870.0 / 630975);
    assert_int_equal(inv.n_skipped, 8);

    text = example("support-rocm-example.csv", &len);
    tc_gap_support sup;
    assert_int_equal(tc_gaps_support_parse("rocm", text, len, &sup, err, sizeof err), TC_OK);
    free(text);
    tc_gap_table t;
    assert_int_equal(tc_gaps_build(&inv, &sup, NULL, &t), TC_OK);
    /* 3 fallbacks (flash forward, backward, SDPA flash) and index_select
     * left out of the list on purpose. */
    assert_int_equal(t.count[TC_GAP_FALLBACK], 3);
    assert_int_equal(t.count[TC_GAP_UNKNOWN], 1);
    assert_int_equal(t.count[TC_GAP_MISSING], 0);
    near(t.share[TC_GAP_FALLBACK], (91240.0 + 38410) / 630975);
    double lo, mo, hi;
    tc_gaps_t_op(&t, &lo, &mo, &hi);
    near(lo, 0.75), near(mo, 2.5), near(hi, 6);
    tc_gaps_table_free(&t);
    tc_gaps_support_free(&sup);
    tc_gaps_inventory_free(&inv);

    text = example("support-cuda-example.csv", &len);
    assert_int_equal(tc_gaps_support_parse("cuda", text, len, &sup, err, sizeof err), TC_OK);
    free(text);
    tc_gaps_support_free(&sup);
    text = example("ops-fp16-inference.csv", &len);
    assert_int_equal(tc_gaps_inventory_parse("fp16", text, len, NULL, &inv, err, sizeof err),
                     TC_OK);
    free(text);
    near(op_named(&inv, "aten::mm")->share, 0.714);
    tc_gaps_inventory_free(&inv);

    assert_int_equal(tc_gaps_read_file("/nonexistent/x.csv", &text, &len, err, sizeof err),
                     TC_ERR_IO);
    has_all(err, "/nonexistent/x.csv", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(csv_reader),
        cmocka_unit_test(profiler_table),
        cmocka_unit_test(profiler_table_cpu_only),
        cmocka_unit_test(profiler_csv),
        cmocka_unit_test(plain_csv),
        cmocka_unit_test(support_list),
        cmocka_unit_test(matching),
        cmocka_unit_test(inventory_sums_rows_by_name_and_dtype),
        cmocka_unit_test(names_and_globs),
        cmocka_unit_test(risk_classes),
        cmocka_unit_test(status_days),
        cmocka_unit_test(t_op_json),
        cmocka_unit_test(json_round_trip),
        cmocka_unit_test(examples),
        cmocka_unit_test(cut_names_match_by_prefix),
        cmocka_unit_test(negative_cpu_times),
        cmocka_unit_test(record_function_labels),
        cmocka_unit_test(stack_continuation_lines),
        cmocka_unit_test(dtype_warning_and_normalisation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
