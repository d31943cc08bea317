/* Unit tests of the bandwidth ceiling: arithmetic checked by hand, the
 * quantisation and parameter-count readers, device-name matching, the spec
 * CSV parser and the built-in table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/roofline.h"
#include "analysis/roofline_run.h"

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-9 * (fabs(b) + 1))
        fail_msg("%.12g != %.12g", a, b);
}

static const char HEADER[] = TC_ROOF_COLUMNS "\n";

/* A table of the built-in rows. */
static tc_roofline_table builtin(void)
{
    tc_roofline_table t = {0};
    char err[512] = "";
    if (tc_roofline_table_add_builtin(&t, err, sizeof err) != TC_OK)
        fail_msg("built-in table: %s", err);
    return t;
}

/* Adds `text` as user rows; expects TC_OK. */
static void add_ok(tc_roofline_table *t, const char *text)
{
    char err[512] = "";
    if (tc_roofline_table_add_csv(t, "u.csv", text, strlen(text), 0, err, sizeof err) != TC_OK)
        fail_msg("parse failed: %s", err);
}

/* Parses `text`, expects TC_ERR_PARSE with `want` in the message, and no
 * row kept. */
static void csv_fails(const char *text, const char *want)
{
    tc_roofline_table t = {0};
    char err[512] = "";
    assert_int_equal(tc_roofline_table_add_csv(&t, "u.csv", text, strlen(text), 0, err, sizeof err),
                     TC_ERR_PARSE);
    if (!strstr(err, want))
        fail_msg("'%s' not in '%s'", want, err);
    assert_int_equal(t.n, 0);
    tc_roofline_table_free(&t);
}

static void arithmetic_by_hand(void **state)
{
    (void)state;
    /* RTX 4090: 1008 GB/s. 7B at Q4_K_M (4.84 bits): 7e9 * 4.84 / 8 =
     * 4.235e9 bytes per token -> 1008e9 / 4.235e9 = 238.0165 tokens/s. */
    near(tc_roofline_decode_tps(1008, 4.235e9), 1008e9 / 4.235e9);
    assert_true(fabs(tc_roofline_decode_tps(1008, 4.235e9) - 238.0165) < 1e-4);
    /* Plus 0.265 GB of KV cache read per token: 1008 / 4.5 = 224. */
    near(tc_roofline_decode_tps(1008, 4.5e9), 224);
    /* Prefill: 165.2 TFLOPS / (2 * 7e9) = 11800 tokens/s. */
    near(tc_roofline_prefill_tps(165.2, 7e9), 11800);
    near(tc_roofline_decode_tps(0, 1e9), 0);
    near(tc_roofline_prefill_tps(100, 0), 0);
}

static void quantisation_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *level;
        double bits;
    } cases[] = {{"F32", 32},    {"F16", 16},      {"BF16", 16},     {"Q8_0", 8.5},
                 {"Q6_K", 6.56}, {"Q5_K_M", 5.68}, {"Q4_K_M", 4.84}, {"q4_k_m", 4.84},
                 {"Q4_0", 4.5},  {"Q3_K_M", 3.91}, {"Q2_K", 3.35},   {"IQ4_XS", 4.25},
                 {"MXFP4", 4.25}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double bits = 0;
        if (tc_roofline_quant_bits(cases[i].level, &bits) != TC_OK)
            fail_msg("%s not known", cases[i].level);
        near(bits, cases[i].bits);
    }
    double bits = 0;
    assert_int_equal(tc_roofline_quant_bits("Q9_X", &bits), TC_ERR_NOTFOUND);
    assert_int_equal(tc_roofline_quant_bits("", &bits), TC_ERR_NOTFOUND);
}

static void parameter_counts(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        double v;
    } ok[] = {{"7.6B", 7.6e9}, {"8B", 8e9},   {"70.6B", 70.6e9}, {"135M", 135e6},
              {"8.0b", 8e9},   {" 3B ", 3e9}, {"1.5T", 1.5e12},  {"8030261248", 8030261248.0},
              {"500K", 5e5}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        double v = 0;
        if (tc_roofline_parse_params(ok[i].text, &v) != TC_OK)
            fail_msg("'%s' rejected", ok[i].text);
        near(v, ok[i].v);
    }
    static const char *const bad[] = {"",    "B", "7..6B", "7.6X",      "-7B", "7.6BB",
                                      "inf", "0", "0x10B", "7 B extra", "1e9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double v = 0;
        if (tc_roofline_parse_params(bad[i], &v) != TC_ERR_PARSE)
            fail_msg("'%s' accepted as %g", bad[i], v);
    }
}

static void expect_row(const tc_roofline_table *t, const char *device, const char *row)
{
    const tc_gpu_spec *s = tc_roofline_lookup(t, device);
    if (!row && s)
        fail_msg("'%s' matched '%s', expected none", device, s->name);
    if (row && (!s || strcmp(s->name, row) != 0))
        fail_msg("'%s' matched '%s', expected '%s'", device, s ? s->name : "nothing", row);
}

static void names_as_drivers_report_them(void **state)
{
    (void)state;
    tc_roofline_table t = builtin();
    expect_row(&t, "NVIDIA GeForce RTX 4090", "RTX 4090");
    expect_row(&t, "NVIDIA GeForce RTX 4090 D", NULL);
    expect_row(&t, "NVIDIA GeForce RTX 4090 Laptop GPU", NULL);
    expect_row(&t, "NVIDIA GeForce RTX 3090 Ti", NULL);
    expect_row(&t, "NVIDIA GeForce RTX 4060 Ti", NULL);
    expect_row(&t, "NVIDIA GeForce RTX 4060", "RTX 4060");
    expect_row(&t, "NVIDIA H100 80GB HBM3", "H100 SXM");
    expect_row(&t, "H100 SXM5 80GB", "H100 SXM");
    expect_row(&t, "NVIDIA H100 PCIe", NULL);
    expect_row(&t, "NVIDIA H200", "H200 SXM");
    expect_row(&t, "NVIDIA H200 NVL", NULL);
    expect_row(&t, "NVIDIA GH200 480GB", NULL); /* "H200" is not a whole word there */
    expect_row(&t, "NVIDIA A100-SXM4-80GB", "A100 80GB SXM");
    expect_row(&t, "NVIDIA A100 80GB PCIe", NULL);
    expect_row(&t, "NVIDIA L40S", "L40S");
    expect_row(&t, "NVIDIA L40", NULL);
    expect_row(&t, "AMD Instinct MI300X OAM", "MI300X");
    expect_row(&t, "AMD Instinct MI250X", "MI250X");
    expect_row(&t, "AMD Radeon RX 7900 XTX", "RX 7900 XTX");
    expect_row(&t, "AMD Radeon RX 7900 XT", NULL);
    expect_row(&t, "AMD Radeon PRO W7900", "Radeon PRO W7900");
    expect_row(&t, "AMD Radeon RX 7600", "RX 7600");
    expect_row(&t, "AMD Radeon RX 7600 XT", NULL);
    expect_row(&t, "rtx 4090", "RTX 4090"); /* a row's own name, case aside */
    expect_row(&t, "", NULL);
    tc_roofline_table_free(&t);
}

static void longest_pattern_wins(void **state)
{
    (void)state;
    tc_roofline_table t = {0};
    /* The longer pattern wins whichever row comes first. */
    add_ok(&t, "# comment\n"
               "name,vendor,memory_gb,bandwidth_gb_s,fp16_dense_tflops,board_power_w,"
               "launch_price_usd,match,source\n"
               "Any RTX,NVIDIA,,500,,,,RTX,\n"
               "Overclocked,NVIDIA,24,1100,,,,RTX 4090 OC,https://example.com\n"
               "Plain A100,NVIDIA,40,1555,,,,A100,\n"
               "Also RTX,NVIDIA,,400,,,,RTX,\n");
    expect_row(&t, "Vendor RTX 4090 OC Edition", "Overclocked");
    expect_row(&t, "Vendor RTX 3060", "Any RTX");  /* equal length: the earlier row */
    expect_row(&t, "NVIDIA RTX A1000", "Any RTX"); /* "A100" is not in "A1000" */
    expect_row(&t, "NVIDIA A100-PCIE-40GB", "Plain A100");
    tc_roofline_table_free(&t);
}

static void user_rows_override_builtin(void **state)
{
    (void)state;
    tc_roofline_table t = {0};
    add_ok(&t, "name,vendor,memory_gb,bandwidth_gb_s,fp16_dense_tflops,board_power_w,"
               "launch_price_usd,match,source\n"
               "My 4090,NVIDIA,24,900,150,400,1800,4090,my own measurement\n");
    char err[256];
    assert_int_equal(tc_roofline_table_add_builtin(&t, err, sizeof err), TC_OK);
    /* "4090" is shorter than the built-in "RTX 4090", and still wins. */
    const tc_gpu_spec *s = tc_roofline_lookup(&t, "NVIDIA GeForce RTX 4090");
    assert_non_null(s);
    assert_string_equal(s->name, "My 4090");
    assert_false(s->builtin);
    near(s->bandwidth_gb_s, 900);
    expect_row(&t, "NVIDIA H100 80GB HBM3", "H100 SXM");
    tc_roofline_table_free(&t);
}

static void csv_details(void **state)
{
    (void)state;
    tc_roofline_table t = {0};
    add_ok(&t, "\xEF\xBB\xBF# a spreadsheet's BOM and CRLF\r\n"
               "\r\n"
               "name,vendor,memory_gb,bandwidth_gb_s,fp16_dense_tflops,board_power_w,"
               "launch_price_usd,match,source\r\n"
               "  \"Card, \"\"X\"\"\" , V ,1.5,2.5e2,,,,\"a|b\",\"https://x/?a=1,2\"\r\n"
               "Last,V,,100,,,,c|!c d,"); /* no final newline, empty last field */
    assert_int_equal(t.n, 2);
    assert_string_equal(t.rows[0].name, "Card, \"X\"");
    assert_string_equal(t.rows[0].vendor, "V");
    near(t.rows[0].memory_gb, 1.5);
    near(t.rows[0].bandwidth_gb_s, 250);
    near(t.rows[0].fp16_dense_tflops, 0);
    assert_string_equal(t.rows[0].match, "a|b");
    assert_string_equal(t.rows[0].source, "https://x/?a=1,2");
    assert_int_equal(t.rows[0].line, 4);
    assert_int_equal(t.rows[1].line, 5);
    assert_string_equal(t.rows[1].source, "");
    expect_row(&t, "c", "Last");
    expect_row(&t, "c d", NULL);
    tc_roofline_table_free(&t);
}

static void csv_errors_name_file_and_line(void **state)
{
    (void)state;
    char text[1024];
    csv_fails("name,vendor\n", "u.csv:1: the header must be 'name,vendor,memory_gb,");
    csv_fails("# only a comment\n\n", "u.csv: no header line");
    csv_fails("", "u.csv: no header line");
#define ROW(r) (snprintf(text, sizeof text, "# c\n%s%s\n", HEADER, r), text)
    csv_fails(ROW("A,V,1,fast,,,,A,"), "u.csv:3: column bandwidth_gb_s: 'fast' is not a positive");
    csv_fails(ROW("A,V,1,,,,,A,"), "u.csv:3: column bandwidth_gb_s: empty");
    csv_fails(ROW("A,V,-1,100,,,,A,"), "u.csv:3: column memory_gb: '-1'");
    csv_fails(ROW("A,V,0,100,,,,A,"), "u.csv:3: column memory_gb: '0'");
    csv_fails(ROW("A,V,nan,100,,,,A,"), "column memory_gb: 'nan'");
    csv_fails(ROW("A,V,0x10,100,,,,A,"), "column memory_gb: '0x10'");
    csv_fails(ROW("A,V,1,100,1e99,,,A,"), "column fp16_dense_tflops: '1e99'");
    csv_fails(ROW("A,V,1,100,,,,A"), "u.csv:3: 8 fields, expected 9");
    csv_fails(ROW("A,V,1,100,,,,A,,"), "u.csv:3: too many fields");
    csv_fails(ROW(",V,1,100,,,,A,"), "u.csv:3: column name: empty");
    csv_fails(ROW("A,V,1,100,,,,,"), "u.csv:3: column match: empty");
    csv_fails(ROW("A,V,1,100,,,,!A,"), "column match: no pattern to match");
    csv_fails(ROW("A,V,1,100,,,,A||B,"), "column match: an empty pattern");
    csv_fails(ROW("A,V,1,100,,,,A|!,"), "column match: an empty pattern");
    csv_fails(ROW("\"A,V,1,100,,,,A,"), "u.csv:3: column name: a quoted field does not end");
    csv_fails(ROW("A\"B,V,1,100,,,,A,"), "column name: a quote inside an unquoted field");
    csv_fails(ROW("\"A\"x,V,1,100,,,,A,"), "column name: text after a closing quote");
    csv_fails(ROW("A,A vendor name that is long,1,100,,,,A,"), "column vendor: longer than 15");
#undef ROW
    /* A good row, then a bad one: neither is kept. */
    snprintf(text, sizeof text, "%sGood,V,1,100,,,,G,\nBad,V,1,x,,,,B,\n", HEADER);
    csv_fails(text, "u.csv:3: column bandwidth_gb_s: 'x'");
    static const char nul[] = "name\0,vendor\n";
    tc_roofline_table t = {0};
    char err[256] = "";
    assert_int_equal(
        tc_roofline_table_add_csv(&t, "u.csv", nul, sizeof nul - 1, 0, err, sizeof err),
        TC_ERR_PARSE);
    assert_non_null(strstr(err, "u.csv:1: a NUL byte"));
    assert_int_equal(tc_roofline_table_add_file(&t, "/nonexistent/specs.csv", err, sizeof err),
                     TC_ERR_IO);
    assert_non_null(strstr(err, "/nonexistent/specs.csv"));
    tc_roofline_table_free(&t);
}

/* The rows the issue lists, with the vendors' figures. */
static void builtin_table_has_every_row(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double mem, bw, fp16, watts, price;
    } want[] = {
        {"H100 SXM", 80, 3350, 989.4, 700, 0},
        {"H200 SXM", 141, 4800, 989.4, 700, 0},
        {"A100 80GB SXM", 80, 2039, 312, 400, 0},
        {"L40S", 48, 864, 362.05, 350, 0},
        {"RTX 4090", 24, 1008, 165.2, 450, 1599},
        {"RTX 3090", 24, 936, 71, 350, 1499},
        {"RTX 4060", 8, 272, 0, 115, 299},
        {"MI300X", 192, 5300, 1307.4, 750, 0},
        {"MI250X", 128, 3200, 383, 500, 0},
        {"RX 7900 XTX", 24, 960, 122.8, 355, 999},
        {"Radeon PRO W7900", 48, 864, 122.64, 295, 3999},
        {"RX 7600", 8, 288, 43.5, 165, 269},
    };
    tc_roofline_table t = builtin();
    assert_int_equal(t.n, (int)(sizeof want / sizeof want[0]));
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const tc_gpu_spec *s = tc_roofline_lookup(&t, want[i].name);
        if (!s || strcmp(s->name, want[i].name) != 0)
            fail_msg("no row '%s'", want[i].name);
        near(s->memory_gb, want[i].mem);
        near(s->bandwidth_gb_s, want[i].bw);
        near(s->fp16_dense_tflops, want[i].fp16);
        near(s->board_power_w, want[i].watts);
        near(s->launch_price_usd, want[i].price);
        assert_true(s->builtin);
        if (strncmp(s->source, "https://", 8) != 0)
            fail_msg("row '%s' cites no source", s->name);
    }
    /* a name the table does not know gets the row that holds it */
    assert_null(tc_roofline_lookup(&t, "7900 XTX"));
    assert_string_equal(tc_roofline_closest(&t, "7900 XTX"), "RX 7900 XTX");
    assert_string_equal(tc_roofline_closest(&t, "4090"), "RTX 4090");
    assert_null(tc_roofline_closest(&t, "Banana 9000"));
    assert_null(tc_roofline_closest(&t, "90")); /* whole words only */
    tc_roofline_table_free(&t);
}

static const char FINGERPRINT[] =
    "{\"gpus\":[{\"name\":\"NVIDIA GeForce RTX 4090\"}],\"server\":{\"model\":{"
    "\"parameter_size\":\"8.0B\",\"quantization_level\":\"Q4_K_M\",\"size_bytes\":4920753328}}}";

/* A mixture-of-experts model is recognised by name or family and said. */
static void moe_models_are_flagged(void **state)
{
    (void)state;
    tc_roofline_table t = builtin();
    static const char *const fps[] = {
        "{\"server\":{\"model\":{\"name\":\"qwen3:30b-a3b\",\"parameter_size\":\"30.5B\"}}}",
        "{\"server\":{\"model\":{\"name\":\"gpt-oss:20b\",\"family\":\"gptoss\"}}}",
        "{\"server\":{\"model\":{\"name\":\"m\",\"family\":\"qwen3moe\"}}}"};
    tc_roofline_result r;
    char err[256];
    for (size_t i = 0; i < sizeof fps / sizeof fps[0]; i++) {
        tc_roofline_inputs in = {.gpu_name = "RTX 4090", .fingerprint_json = fps[i]};
        assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_OK);
        if (!r.moe_suspected)
            fail_msg("not flagged: %s", fps[i]);
    }
    tc_roofline_inputs dense = {.gpu_name = "RTX 4090", .fingerprint_json = FINGERPRINT};
    assert_int_equal(tc_roofline_for_run(&t, &dense, &r, err, sizeof err), TC_OK);
    assert_false(r.moe_suspected);
    tc_roofline_table_free(&t);
}

static void a_run_from_its_fingerprint(void **state)
{
    (void)state;
    tc_roofline_table t = builtin();
    tc_roofline_result r;
    char err[256] = "";
    tc_roofline_inputs in = {.fingerprint_json = FINGERPRINT, .measured_decode_tps = 150};
    assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_OK);
    assert_string_equal(r.gpu_name, "NVIDIA GeForce RTX 4090");
    assert_true(r.has_spec);
    assert_string_equal(r.spec.name, "RTX 4090");
    /* 8.0e9 * 4.84 / 8 = 4.84e9 bytes; 1008e9 / 4.84e9 = 208.26 tokens/s. */
    near(r.params, 8e9);
    assert_string_equal(r.params_source, "server parameter_size");
    assert_string_equal(r.quant, "Q4_K_M");
    near(r.weight_bytes, 4.84e9);
    assert_int_equal(r.bytes_source, TC_ROOF_BYTES_ESTIMATE);
    near(r.loaded_bytes, 4920753328.0);
    assert_true(r.has_decode);
    near(r.decode_ceiling_tps, 1008e9 / 4.84e9);
    assert_true(r.has_prefill);
    near(r.prefill_ceiling_tps, 165.2e12 / 16e9); /* 10325 */
    assert_true(r.has_measured);
    near(r.percent_of_ceiling, 100 * 150 / (1008e9 / 4.84e9)); /* 72.0% */
    assert_int_equal(r.reading, TC_ROOF_READING_TUNED);
    assert_int_equal(r.missing, 0);

    /* --gpu, --model-bytes, --params and a KV cache override the server's. */
    in = (tc_roofline_inputs){.gpu_name = "MI300X",
                              .fingerprint_json = FINGERPRINT,
                              .model_bytes = 5e9,
                              .params = 7e9,
                              .kv_bytes_per_token = 0.3e9,
                              .measured_decode_tps = 1100};
    assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_OK);
    assert_string_equal(r.spec.name, "MI300X");
    assert_int_equal(r.bytes_source, TC_ROOF_BYTES_GIVEN);
    near(r.decode_ceiling_tps, 5300e9 / 5.3e9); /* 1000 */
    near(r.prefill_ceiling_tps, 1307.4e12 / 14e9);
    near(r.percent_of_ceiling, 110);
    assert_int_equal(r.reading, TC_ROOF_READING_ABOVE);
    assert_string_equal(r.params_source, "given");
    /* 90% is near the bound, not "in the range well-tuned engines reach". */
    in.measured_decode_tps = 900;
    assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_OK);
    assert_int_equal(r.reading, TC_ROOF_READING_NEAR);
    assert_non_null(strstr(tc_roofline_reading_text(r.reading), "check"));
    in.measured_decode_tps = 850; /* exactly 85%: still the tuned range */
    assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_OK);
    assert_int_equal(r.reading, TC_ROOF_READING_TUNED);
    tc_roofline_table_free(&t);
}

static void what_is_missing_is_said(void **state)
{
    (void)state;
    tc_roofline_table t = builtin();
    tc_roofline_result r;
    char err[256] = "";
    /* No GPU anywhere. */
    tc_roofline_inputs in = {.params = 8e9, .model_bytes = 4e9, .measured_decode_tps = 10};
    assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_OK);
    assert_true(r.missing & TC_ROOF_NEED_GPU);
    assert_false(r.has_decode || r.has_measured || r.has_prefill);
    /* A GPU the table does not know. */
    in.gpu_name = "Some Future GPU";
    assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_OK);
    assert_true(r.missing & TC_ROOF_NEED_SPEC);
    assert_false(r.has_decode);
    /* RTX 4060: no FP16 figure, so no prefill ceiling; 10 tok/s is low. */
    in.gpu_name = "NVIDIA GeForce RTX 4060";
    assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_OK);
    assert_true(r.has_decode);
    near(r.decode_ceiling_tps, 68);
    assert_false(r.has_prefill);
    assert_true(r.missing & TC_ROOF_NEED_FLOPS);
    assert_int_equal(r.reading, TC_ROOF_READING_LOW);
    assert_non_null(strstr(tc_roofline_reading_text(r.reading), "look at the software"));
    /* Only the loaded size: used, and said to be one. */
    in = (tc_roofline_inputs){.gpu_name = "RTX 4090",
                              .fingerprint_json =
                                  "{\"server\":{\"model\":{\"parameter_size\":\"lots\","
                                  "\"quantization_level\":\"Q9_X\",\"size_bytes\":6000000000}}}"};
    assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_OK);
    assert_int_equal(r.bytes_source, TC_ROOF_BYTES_LOADED);
    near(r.decode_ceiling_tps, 168);
    assert_true(r.missing & TC_ROOF_BAD_PARAMS);
    assert_true(r.missing & TC_ROOF_BAD_QUANT);
    assert_true(r.missing & TC_ROOF_NEED_PARAMS);
    assert_false(r.has_measured);
    /* Nothing about the model. */
    in = (tc_roofline_inputs){.gpu_name = "RTX 4090", .fingerprint_json = "{}"};
    assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_OK);
    assert_true(r.missing & TC_ROOF_NEED_BYTES);
    assert_false(r.has_decode);
    /* A broken fingerprint is an error, and the rest is still computed. */
    in = (tc_roofline_inputs){
        .gpu_name = "RTX 4090", .fingerprint_json = "{nope", .model_bytes = 1.008e9};
    assert_int_equal(tc_roofline_for_run(&t, &in, &r, err, sizeof err), TC_ERR_PARSE);
    assert_non_null(strstr(err, "fingerprint"));
    near(r.decode_ceiling_tps, 1000);
    assert_int_equal(tc_roofline_for_run(NULL, &in, &r, err, sizeof err), TC_ERR_INVALID);
    tc_roofline_table_free(&t);
}

static void tables_as_commands_load_them(void **state)
{
    (void)state;
    tc_roofline_table t = {0}, b = builtin();
    char err[512] = "";
    assert_int_equal(tc_roofline_table_load(&t, NULL, err, sizeof err), TC_OK);
    assert_int_equal(t.n, b.n);
    tc_roofline_table_free(&t);

    char path[] = "/tmp/tc_roof_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "%sRTX 4090,NVIDIA,24,2000,,,,RTX 4090,mine\n", HEADER);
    fclose(f);
    assert_int_equal(tc_roofline_table_load(&t, path, err, sizeof err), TC_OK);
    assert_int_equal(t.n, b.n + 1);
    assert_false(t.rows[0].builtin); /* the user's rows first: they win */
    assert_true(tc_roofline_lookup(&t, "NVIDIA GeForce RTX 4090")->bandwidth_gb_s == 2000);
    tc_roofline_table_free(&t);

    f = fopen(path, "w");
    fputs("name,nonsense\n", f);
    fclose(f);
    assert_int_equal(tc_roofline_table_load(&t, path, err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(t.n, 0);
    tc_roofline_table_free(&t);
    remove(path);
    assert_int_equal(tc_roofline_table_load(&t, path, err, sizeof err), TC_ERR_IO);
    tc_roofline_table_free(&t);
    tc_roofline_table_free(&b);
}

static void a_brief_from_figures(void **state)
{
    (void)state;
    tc_run_energy_dev devs[2];
    memset(devs, 0, sizeof devs);
    devs[0].dev.info.kind = TC_TELEM_CPU;
    snprintf(devs[0].dev.info.name, sizeof devs[0].dev.info.name, "package-0");
    devs[1].dev.info.kind = TC_TELEM_GPU;
    snprintf(devs[1].dev.info.name, sizeof devs[1].dev.info.name, "NVIDIA GeForce RTX 4090");
    tc_run_energy e = {.n = 1, .dev = devs};
    assert_null(tc_roofline_first_gpu(&e)); /* a CPU only */
    e.n = 2;
    assert_string_equal(tc_roofline_first_gpu(&e), "NVIDIA GeForce RTX 4090");

    json_t *fp = json_loads("{\"server\": {\"model\": {\"parameter_size\": \"7B\","
                            " \"quantization_level\": \"Q4_K_M\"}}}",
                            0, NULL);
    tc_roofline_table t = builtin();
    tc_roofline_result r;
    assert_int_equal(tc_roofline_brief(&t, tc_roofline_first_gpu(&e), fp, 119, &r), TC_OK);
    near(r.decode_ceiling_tps, 1008e9 / (7e9 * 4.84 / 8));
    assert_true(r.has_measured);
    tc_roofline_table_free(&t);

    tc_figures f;
    memset(&f, 0, sizeof f);
    f.e = e;
    f.m.decode_tps.n = 3;
    f.m.decode_tps.p50 = 119;
    char err[256] = "";
    assert_int_equal(tc_roofline_of_figures(&f, fp, &r, err, sizeof err), TC_OK);
    assert_string_equal(r.spec.name, "RTX 4090");
    near(r.measured_decode_tps, 119);
    f.e.n = 0; /* no GPU sampled, none in the fingerprint */
    assert_int_equal(tc_roofline_of_figures(&f, fp, &r, err, sizeof err), TC_OK);
    assert_true(r.missing & TC_ROOF_NEED_GPU);
    json_decref(fp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arithmetic_by_hand),
        cmocka_unit_test(quantisation_sizes),
        cmocka_unit_test(parameter_counts),
        cmocka_unit_test(names_as_drivers_report_them),
        cmocka_unit_test(longest_pattern_wins),
        cmocka_unit_test(user_rows_override_builtin),
        cmocka_unit_test(csv_details),
        cmocka_unit_test(csv_errors_name_file_and_line),
        cmocka_unit_test(builtin_table_has_every_row),
        cmocka_unit_test(a_run_from_its_fingerprint),
        cmocka_unit_test(moe_models_are_flagged),
        cmocka_unit_test(what_is_missing_is_said),
        cmocka_unit_test(tables_as_commands_load_them),
        cmocka_unit_test(a_brief_from_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
