/* Unit tests of the nvidia-smi and rocm-smi fallbacks: the parsers on the
 * fixtures under tests/fixtures/smi, the command runner (timeouts, output
 * caps, missing commands), and the backends through the real spawn path
 * with fake commands (tests/fixtures/smi/bin*) that print those fixtures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tc_time.h"
#include "telemetry/telem.h"
#include "telemetry/telem_smi.h"
#include "telemetry/telem_sysfs.h"

#include "slurp.h"

#define FIX TC_FIXTURES_DIR "/smi/"
#define NV_FAKE FIX "bin/nvidia-smi"
#define NV_OLD FIX "bin-old/nvidia-smi"
#define NV_BROKEN FIX "bin-broken/nvidia-smi"
#define ROCM_FAKE FIX "bin/rocm-smi"
#define MIB 1048576LL
#define OLD_COLS (TC_SMI_ALL_COLS & ~((1u << TC_SMI_CLOCK_MEM) | (1u << TC_SMI_POWER_LIMIT)))

/* ---- helpers ---- */

static char *slurp(const char *name, size_t *len)
{
    return slurp_in(FIX, name, len);
}

static tc_err parse_nv(const char *text, unsigned cols, tc_smi_gpu *g, int max, int *n, char *err)
{
    return tc_smi_parse_nvidia_csv(text, strlen(text), cols, g, max, n, err, 256);
}

/* A parse that must fail with rc and a message containing `want`. */
static void nv_fails(const char *text, tc_err rc, const char *want)
{
    tc_smi_gpu g[4];
    int n = -1;
    char err[256] = "";
    tc_err got = parse_nv(text, TC_SMI_ALL_COLS, g, 4, &n, err);
    if (got != rc)
        fail_msg("%s: got %d (%s), want %d", text, got, err, rc);
    assert_int_equal(n, 0);
    if (!strstr(err, want))
        fail_msg("error '%s' lacks '%s'", err, want);
}

static int64_t fake_now;

static int64_t fake_clock(void)
{
    return fake_now;
}

static int setup(void **state)
{
    (void)state;
    fake_now = 5 * TC_NS_PER_S;
    tc_telem_sysfs_set_clock(fake_clock);
    unsetenv("TC_FAKE_NVIDIA_CSV");
    unsetenv("TC_FAKE_ROCM_JSON");
    unsetenv("TC_FAKE_SMI_LOG");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tc_telem_sysfs_set_clock(NULL);
    unsetenv("TC_FAKE_NVIDIA_CSV");
    unsetenv("TC_FAKE_ROCM_JSON");
    unsetenv("TC_FAKE_SMI_LOG");
    return 0;
}

static void *init_ok(const tc_telem_backend *b, const tc_telem_config *cfg)
{
    char err[512] = "";
    void *st = NULL;
    tc_err e = b->init(cfg, &st, err, sizeof err);
    if (e != TC_OK)
        fail_msg("%s init: %s (%s)", b->name, tc_strerror(e), err);
    assert_non_null(st);
    return st;
}

static tc_telem_sample sample_ok(const tc_telem_backend *b, void *st, int dev)
{
    tc_telem_sample s;
    tc_err e = b->sample(st, dev, &s);
    if (e != TC_OK)
        fail_msg("%s sample %d: %s (%s)", b->name, dev, tc_strerror(e), b->last_error(st));
    return s;
}

/* Lines in the fake commands' run log. */
static int count_runs(const char *log)
{
    FILE *f = fopen(log, "r");
    if (!f)
        return 0;
    int n = 0, c;
    while ((c = fgetc(f)) != EOF)
        n += c == '\n';
    fclose(f);
    return n;
}

/* ---- nvidia-smi parser ---- */

static void check_h100_0(const tc_smi_gpu *g)
{
    const tc_telem_sample *s = &g->s;
    assert_int_equal(g->index, 0);
    assert_string_equal(g->name, "NVIDIA H100 80GB HBM3");
    assert_string_equal(g->driver, "550.54.15");
    assert_string_equal(g->bus_id, "00000000:18:00.0");
    assert_int_equal(s->valid, TC_TF_POWER | TC_TF_UTIL_GPU | TC_TF_UTIL_MEM | TC_TF_MEM_USED |
                                   TC_TF_MEM_TOTAL | TC_TF_TEMP | TC_TF_CLOCK_SM | TC_TF_CLOCK_MEM |
                                   TC_TF_POWER_LIMIT);
    assert_int_equal(s->power_mw, 312450);
    assert_int_equal(s->power_instant, 0);
    assert_int_equal(s->util_pct, 87);
    assert_int_equal(s->mem_util_pct, 41);
    assert_int_equal(s->mem_used_bytes, 61234 * MIB);
    assert_int_equal(s->mem_total_bytes, 81559 * MIB);
    assert_int_equal(s->temp_mc, 58000);
    assert_int_equal(s->clock_sm_mhz, 1980);
    assert_int_equal(s->clock_mem_mhz, 2619);
    assert_int_equal(s->power_limit_mw, 700000);
    assert_int_equal(s->energy_uj, 0);
    assert_int_equal(s->temp_hot_mc, 0);
}

static void check_h100_1(const tc_smi_gpu *g)
{
    const tc_telem_sample *s = &g->s;
    assert_int_equal(g->index, 1);
    assert_string_equal(g->bus_id, "00000000:2A:00.0");
    /* "[N/A]" power: not available, never 0 W read as a value */
    assert_int_equal(s->valid & TC_TF_POWER, 0);
    assert_int_equal(s->power_mw, 0);
    assert_int_equal(s->valid, TC_TF_UTIL_GPU | TC_TF_UTIL_MEM | TC_TF_MEM_USED | TC_TF_MEM_TOTAL |
                                   TC_TF_TEMP | TC_TF_CLOCK_SM | TC_TF_CLOCK_MEM |
                                   TC_TF_POWER_LIMIT);
    assert_int_equal(s->util_pct, 0);
    assert_int_equal(s->mem_used_bytes, 1 * MIB);
    assert_int_equal(s->temp_mc, 31000);
    assert_int_equal(s->clock_sm_mhz, 345);
}

static void nvidia_csv_h100(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("nvidia-smi-h100.csv", &len);
    tc_smi_gpu g[4];
    int n = 0;
    char err[256] = "";
    assert_int_equal(tc_smi_parse_nvidia_csv(text, len, TC_SMI_ALL_COLS, g, 4, &n, err, 256),
                     TC_OK);
    assert_int_equal(n, 2);
    check_h100_0(&g[0]);
    check_h100_1(&g[1]);
    free(text);
}

static void nvidia_csv_old_driver(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("nvidia-smi-old.csv", &len);
    tc_smi_gpu g[4];
    int n = 0;
    char err[256] = "";
    assert_int_equal(tc_smi_parse_nvidia_csv(text, len, OLD_COLS, g, 4, &n, err, 256), TC_OK);
    assert_int_equal(n, 2);
    assert_string_equal(g[0].name, "Tesla K80");
    assert_string_equal(g[0].driver, "367.48");
    assert_string_equal(g[0].bus_id, "0000:05:00.0");
    assert_int_equal(g[0].s.power_mw, 58730);
    assert_int_equal(g[0].s.mem_used_bytes, 1105 * MIB);
    assert_int_equal(g[0].s.valid & (TC_TF_CLOCK_MEM | TC_TF_POWER_LIMIT), 0);
    assert_int_equal(g[0].s.clock_sm_mhz, 823);
    assert_int_equal(g[1].s.valid & TC_TF_UTIL_MEM, 0); /* [Not Supported] */
    assert_int_equal(g[1].s.mem_util_pct, 0);
    assert_int_equal(g[1].s.valid & TC_TF_UTIL_GPU, TC_TF_UTIL_GPU);
    free(text);
}

static void nvidia_columns_probe(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("nvidia-smi-help.txt", &len);
    assert_int_equal(tc_smi_nvidia_columns(text, len), TC_SMI_ALL_COLS);
    free(text);
    text = slurp("nvidia-smi-help-old.txt", &len);
    /* "enforced.power.limit" and "clocks.max.mem" are other fields */
    assert_int_equal(tc_smi_nvidia_columns(text, len), OLD_COLS);
    free(text);
    assert_int_equal(tc_smi_nvidia_columns("", 0), TC_SMI_REQUIRED_COLS);
    assert_int_equal(tc_smi_nvidia_columns(NULL, 0), TC_SMI_REQUIRED_COLS);
    assert_string_equal(tc_smi_col_name(TC_SMI_CLOCK_MEM), "clocks.mem");
    assert_null(tc_smi_col_name(TC_SMI_NCOL));
}

static void nvidia_csv_not_available(void **state)
{
    (void)state;
    const unsigned cols = TC_SMI_REQUIRED_COLS | (1u << TC_SMI_POWER) | (1u << TC_SMI_TEMP) |
                          (1u << TC_SMI_UTIL_GPU) | (1u << TC_SMI_BUS_ID);
    static const char *const na[] = {"[N/A]", "[Not Supported]", "N/A",          "",
                                     "  ",    "[Unknown Error]", "[GPU is lost]"};
    for (size_t i = 0; i < sizeof na / sizeof na[0]; i++) {
        char line[128];
        snprintf(line, sizeof line, "3, GPU, %s, %s, %s, %s\n", na[i], na[i], na[i], na[i]);
        tc_smi_gpu g[1];
        int n = 0;
        char err[256] = "";
        assert_int_equal(parse_nv(line, cols, g, 1, &n, err), TC_OK);
        assert_int_equal(n, 1);
        assert_int_equal(g[0].index, 3);
        assert_int_equal(g[0].s.valid, 0);
        assert_int_equal(g[0].s.power_mw, 0);
        assert_string_equal(g[0].bus_id, "");
    }
}

static void nvidia_csv_formats(void **state)
{
    (void)state;
    const unsigned cols =
        TC_SMI_REQUIRED_COLS | (1u << TC_SMI_POWER) | (1u << TC_SMI_TEMP) | (1u << TC_SMI_UTIL_GPU);
    tc_smi_gpu g[3];
    int n = 0;
    char err[256] = "";
    /* CRLF, blank lines, no final newline, no spaces, a negative temperature,
     * power with 1 and 4 decimals (the 4th is dropped) */
    assert_int_equal(
        parse_nv("\r\n0,A,7.5,12,-5\r\n\n  \n1 , B , 100.1239 , 0 , 3", cols, g, 3, &n, err),
        TC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(g[0].s.power_mw, 7500);
    assert_int_equal(g[0].s.util_pct, 12);
    assert_int_equal(g[0].s.temp_mc, -5000);
    assert_string_equal(g[1].name, "B");
    assert_int_equal(g[1].s.power_mw, 100123);
    assert_int_equal(g[1].s.temp_mc, 3000);
    assert_int_equal(parse_nv("", cols, g, 3, &n, err), TC_OK);
    assert_int_equal(n, 0);
    /* without index and name the query makes no sense */
    assert_int_equal(parse_nv("0", 1u << TC_SMI_INDEX, g, 3, &n, err), TC_ERR_INVALID);
}

static void nvidia_csv_bad_lines(void **state)
{
    (void)state;
    static const char ok[] = "0, G, 1, 1.0, 0, 0, 1, 2, 3, 4, 5, 6.0, 0000:01:00.0\n";
    char text[512];
    /* too few fields on line 2 */
    snprintf(text, sizeof text, "%s1, G, 1.0\n", ok);
    nv_fails(text, TC_ERR_PARSE, "line 2: expected 13 comma-separated fields, got 3");
    /* a comma inside a name is one field too many */
    nv_fails("0, A, B, 1, 1.0, 0, 0, 1, 2, 3, 4, 5, 6.0, x\n", TC_ERR_PARSE, "got 14");
    nv_fails("0, G, 1, abc, 0, 0, 1, 2, 3, 4, 5, 6.0, x\n", TC_ERR_PARSE,
             "line 1, power.draw: 'abc' is not a number");
    nv_fails("0, G, 1, 1.0, -3, 0, 1, 2, 3, 4, 5, 6.0, x\n", TC_ERR_PARSE,
             "utilization.gpu: '-3' is not a number");
    nv_fails("0, G, 1, 1.0, 3, 0, 1.5, 2, 3, 4, 5, 6.0, x\n", TC_ERR_PARSE, "memory.used: '1.5'");
    nv_fails("0, G, 1, 1., 3, 0, 1, 2, 3, 4, 5, 6.0, x\n", TC_ERR_PARSE, "power.draw: '1.'");
    nv_fails("[N/A], G, 1, 1.0, 3, 0, 1, 2, 3, 4, 5, 6.0, x\n", TC_ERR_PARSE,
             "index: '[N/A]' is not a GPU index");
    nv_fails("0, G, 1, 1.0, 3, 0, 99999999999999999, 2, 3, 4, 5, 6.0, x\n", TC_ERR_PARSE,
             "memory.used");
    nv_fails("0, G, 1, 99999999999999999999, 3, 0, 1, 2, 3, 4, 5, 6.0, x\n", TC_ERR_PARSE,
             "power.draw");
    /* control bytes in the echoed value are masked */
    nv_fails("0, G, 1, 1\x01, 3, 0, 1, 2, 3, 4, 5, 6.0, x\n", TC_ERR_PARSE, "'1?'");
    /* more GPUs than room */
    snprintf(text, sizeof text, "%s%s%s%s%s", ok, ok, ok, ok, ok);
    nv_fails(text, TC_ERR_INVALID, "line 5: more than 4 GPUs");
}

/* ---- rocm-smi parser ---- */

static void rocm_json_mi300(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("rocm-smi-mi300.json", &len);
    tc_smi_gpu g[4];
    int n = 0;
    char err[256] = "";
    assert_int_equal(tc_smi_parse_rocm_json(text, len, g, 4, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 2);
    const tc_telem_sample *s = &g[0].s;
    assert_int_equal(g[0].index, 0);
    assert_string_equal(g[0].name, "AMD Instinct MI300X OAM");
    assert_string_equal(g[0].driver, "");
    assert_string_equal(g[0].bus_id, "");
    /* no edge sensor on MI300 ("N/A"); Allocated (VRAM%) is not activity */
    assert_int_equal(s->valid, TC_TF_POWER | TC_TF_ENERGY | TC_TF_UTIL_GPU | TC_TF_UTIL_MEM |
                                   TC_TF_MEM_USED | TC_TF_MEM_TOTAL | TC_TF_TEMP_HOT);
    assert_int_equal(s->power_mw, 512300);
    assert_int_equal(s->power_instant, 1); /* "Current Socket ... Power" */
    assert_int_equal(s->energy_uj, 2731409073297ULL);
    assert_int_equal(s->util_pct, 97);
    assert_int_equal(s->mem_util_pct, 41);
    assert_int_equal(s->mem_used_bytes, 160872624128LL);
    assert_int_equal(s->mem_total_bytes, 205822885888LL);
    assert_int_equal(s->temp_hot_mc, 52000);
    assert_int_equal(s->temp_mc, 0);
    s = &g[1].s;
    assert_int_equal(g[1].index, 1);
    assert_int_equal(s->power_mw, 141000);
    assert_int_equal(s->energy_uj, 2721887177784ULL);
    assert_int_equal(s->util_pct, 0);
    assert_int_equal(s->valid & TC_TF_UTIL_GPU, TC_TF_UTIL_GPU);
    assert_int_equal(s->mem_used_bytes, 297365504LL);
    assert_int_equal(s->temp_hot_mc, 44000);
    free(text);
}

static void rocm_json_old_names(void **state)
{
    (void)state;
    size_t len;
    char *text = slurp("rocm-smi-old.json", &len);
    tc_smi_gpu g[4];
    int n = 0;
    char err[256] = "";
    assert_int_equal(tc_smi_parse_rocm_json(text, len, g, 4, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 2);
    const tc_telem_sample *s = &g[0].s;
    assert_string_equal(g[0].name, "Instinct MI210");
    assert_int_equal(s->valid, TC_TF_POWER | TC_TF_ENERGY | TC_TF_UTIL_GPU | TC_TF_UTIL_MEM |
                                   TC_TF_MEM_USED | TC_TF_MEM_TOTAL | TC_TF_TEMP | TC_TF_TEMP_HOT);
    assert_int_equal(s->power_mw, 87000);
    assert_int_equal(s->power_instant, 0); /* "Average ... Power" */
    assert_int_equal(s->energy_uj, 721214764929ULL);
    assert_int_equal(s->util_pct, 3);
    assert_int_equal(s->mem_util_pct, 1);
    assert_int_equal(s->mem_used_bytes, 10960896LL);
    assert_int_equal(s->mem_total_bytes, 68702699520LL);
    assert_int_equal(s->temp_mc, 38000);
    assert_int_equal(s->temp_hot_mc, 41000);
    s = &g[1].s;
    assert_string_equal(g[1].name, "Vega 20");
    /* power "N/A" and no energy keys at all */
    assert_int_equal(s->valid, TC_TF_UTIL_GPU | TC_TF_UTIL_MEM | TC_TF_MEM_USED | TC_TF_MEM_TOTAL |
                                   TC_TF_TEMP | TC_TF_TEMP_HOT);
    assert_int_equal(s->power_mw, 0);
    assert_int_equal(s->energy_uj, 0);
    assert_int_equal(s->mem_used_bytes, 12288);
    free(text);
}

static void rocm_json_shapes(void **state)
{
    (void)state;
    tc_smi_gpu g[3];
    int n = 0;
    char err[256] = "";
    /* warnings before the JSON, keys in any order and case, JSON numbers,
     * "system" and non-card keys ignored, cards sorted by number, average
     * power not overriding the current one */
    static const char text[] =
        "WARNING: Unlocked monitor_devices lock; it should have been locked\n"
        "{\"system\": {\"Driver version\": \"6.7.0\"},"
        " \"card10\": {\"gpu USE (%)\": 5, \"Current Socket Graphics Package Power (W)\": 90.5,"
        " \"Average Graphics Package Power (W)\": \"80\","
        " \"TEMPERATURE (Sensor Edge) (C)\": -2.5, \"Card model\": \"0x74a1\"},"
        " \"card2\": {\"Max Graphics Package Power (W)\": \"300\", \"GPU use (%)\": \"junk\","
        " \"Card model\": \"0x66a1\", \"Card series\": \"Vega 20\"},"
        " \"card02\": {\"GPU use (%)\": \"1\"}, \"card\": {}, \"cardX\": {}, \"card3\": 7}\n"
        "trailing text";
    assert_int_equal(tc_smi_parse_rocm_json(text, sizeof text - 1, g, 3, &n, err, sizeof err),
                     TC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(g[0].index, 2);
    assert_string_equal(g[0].name, "Vega 20"); /* series beats model */
    assert_int_equal(g[0].s.valid, 0);         /* Max power is not power; "junk" is no value */
    assert_int_equal(g[1].index, 10);
    assert_string_equal(g[1].name, "0x74a1");
    assert_int_equal(g[1].s.valid, TC_TF_UTIL_GPU | TC_TF_POWER | TC_TF_TEMP);
    assert_int_equal(g[1].s.util_pct, 5);
    assert_int_equal(g[1].s.power_mw, 90500);
    assert_int_equal(g[1].s.power_instant, 1);
    assert_int_equal(g[1].s.temp_mc, -2500);
}

static void rocm_json_errors(void **state)
{
    (void)state;
    tc_smi_gpu g[1];
    int n = 7;
    char err[256] = "";
    assert_int_equal(tc_smi_parse_rocm_json("", 0, g, 1, &n, err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err, "no JSON object"));
    static const char broken[] = "note\n{\"card0\": {\"GPU use (%)\": }";
    assert_int_equal(tc_smi_parse_rocm_json(broken, sizeof broken - 1, g, 1, &n, err, sizeof err),
                     TC_ERR_PARSE);
    if (!strstr(err, "rocm-smi output line 2, column"))
        fail_msg("%s", err);
    static const char nocard[] = "{\"system\": {}}";
    assert_int_equal(tc_smi_parse_rocm_json(nocard, sizeof nocard - 1, g, 1, &n, err, sizeof err),
                     TC_ERR_PARSE);
    assert_non_null(strstr(err, "no \"cardN\" object"));
    static const char two[] = "{\"card0\": {}, \"card1\": {}}";
    assert_int_equal(tc_smi_parse_rocm_json(two, sizeof two - 1, g, 1, &n, err, sizeof err),
                     TC_ERR_INVALID);
    assert_int_equal(n, 0);
    assert_non_null(strstr(err, "more than 1 cards"));
}

/* ---- the command runner ---- */

static void run_collects_output_and_status(void **state)
{
    (void)state;
    const char *argv[] = {"sh", "-c", "printf 'out\\n'; printf 'err' >&2; exit 3", NULL};
    tc_smi_output o;
    char err[256] = "";
    assert_int_equal(tc_smi_run(argv, 5000, &o, err, sizeof err), TC_OK);
    assert_string_equal(o.out, "out\n");
    assert_int_equal(o.out_len, 4);
    assert_string_equal(o.err, "err");
    assert_int_equal(o.status, 3);
    tc_smi_output_free(&o);
    assert_null(o.out);
    tc_smi_output_free(NULL);
    /* stdin is /dev/null: a reader of stdin ends at once */
    const char *cat[] = {"cat", NULL};
    assert_int_equal(tc_smi_run(cat, 5000, &o, err, sizeof err), TC_OK);
    assert_int_equal(o.out_len, 0);
    assert_int_equal(o.status, 0);
    tc_smi_output_free(&o);
}

static void run_kills_at_timeout(void **state)
{
    (void)state;
    const char *argv[] = {"sleep", "30", NULL};
    tc_smi_output o;
    char err[256] = "";
    int64_t t0 = tc_mono_ns();
    assert_int_equal(tc_smi_run(argv, 200, &o, err, sizeof err), TC_ERR_IO);
    int64_t took = tc_mono_ns() - t0;
    assert_true(took >= 200 * TC_NS_PER_MS && took < 5 * TC_NS_PER_S);
    assert_non_null(strstr(err, "no answer within 200 ms; killed"));
    assert_null(o.out);
    /* a child that closes its output but keeps running is killed too */
    const char *quiet[] = {"sh", "-c", "exec >/dev/null 2>&1; sleep 30", NULL};
    t0 = tc_mono_ns();
    assert_int_equal(tc_smi_run(quiet, 200, &o, err, sizeof err), TC_ERR_IO);
    assert_true(tc_mono_ns() - t0 < 5 * TC_NS_PER_S);
}

/* 1 when process pid still runs (a zombie has finished: no PID 1 reaps
 * here in a container, so /proc says Z rather than nothing). */
static int still_running(pid_t pid)
{
    char path[64], stat[512] = "";
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *paren = strrchr(stat, ')');
    return paren && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* A hung wrapper (as nvidia-smi behind a script) leaves no child behind
 * after the timeout: the whole process group is killed. */
static void run_kills_the_children_at_timeout(void **state)
{
    (void)state;
    char pidfile[] = "/tmp/truecost-smi-child-XXXXXX";
    int fd = mkstemp(pidfile);
    assert_true(fd >= 0);
    close(fd);
    char script[256];
    snprintf(script, sizeof script, "sleep 30 & echo $! > %s; wait", pidfile);
    const char *argv[] = {"sh", "-c", script, NULL};
    tc_smi_output o;
    char err[256] = "";
    assert_int_equal(tc_smi_run(argv, 300, &o, err, sizeof err), TC_ERR_IO);
    FILE *f = fopen(pidfile, "r");
    assert_non_null(f);
    int child = 0;
    assert_int_equal(fscanf(f, "%d", &child), 1);
    fclose(f);
    unlink(pidfile);
    for (int i = 0; i < 100 && still_running(child); i++)
        usleep(10000);
    int alive = still_running(child);
    if (alive)
        kill(child, SIGKILL);
    assert_false(alive);
}

static void run_caps_output(void **state)
{
    (void)state;
    const char *argv[] = {"head", "-c", "1000000", "/dev/zero", NULL};
    tc_smi_output o;
    char err[256] = "";
    assert_int_equal(tc_smi_run(argv, 5000, &o, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "printed more than 262144 bytes; killed"));
    /* exactly the cap is fine */
    const char *fits[] = {"head", "-c", "262144", "/dev/zero", NULL};
    assert_int_equal(tc_smi_run(fits, 5000, &o, err, sizeof err), TC_OK);
    assert_int_equal(o.out_len, TC_SMI_MAX_OUTPUT);
    tc_smi_output_free(&o);
}

static void run_missing_command(void **state)
{
    (void)state;
    tc_smi_output o;
    char err[256] = "";
    const char *abs[] = {"/nonexistent/truecost-nothing", NULL};
    assert_int_equal(tc_smi_run(abs, 1000, &o, err, sizeof err), TC_ERR_NOTFOUND);
    const char *onpath[] = {"truecost-no-such-command-xyz", NULL};
    assert_int_equal(tc_smi_run(onpath, 1000, &o, err, sizeof err), TC_ERR_NOTFOUND);
    /* a file that is not executable */
    const char *noexec[] = {FIX "nvidia-smi-h100.csv", NULL};
    assert_int_equal(tc_smi_run(noexec, 1000, &o, err, sizeof err), TC_ERR_NOTFOUND);
}

/* ---- nvidia-smi backend through the fake command ---- */

static void nvidia_backend_reads_fake(void **state)
{
    (void)state;
    const tc_telem_backend *b = &tc_telem_nvidia_smi;
    assert_string_equal(b->name, "nvidia-smi");
    char log[] = "/tmp/tc_smi_log_XXXXXX";
    int fd = mkstemp(log);
    assert_true(fd >= 0);
    close(fd);
    setenv("TC_FAKE_SMI_LOG", log, 1);
    tc_telem_config cfg = {.nvidia_smi = NV_FAKE};
    void *st = init_ok(b, &cfg);
    assert_string_equal(b->last_error(st), "");
    assert_int_equal(b->device_count(st), 2);
    tc_telem_device d;
    b->device_info(st, 0, &d);
    assert_int_equal(d.kind, TC_TELEM_GPU);
    assert_string_equal(d.name, "NVIDIA H100 80GB HBM3");
    assert_string_equal(d.id, "00000000:18:00.0");
    assert_string_equal(d.driver, "550.54.15");
    assert_string_equal(d.runtime, "");
    assert_string_equal(d.energy_what, "GPU energy integrated from power");
    b->device_info(st, 1, &d);
    assert_string_equal(d.id, "00000000:2A:00.0");
    b->device_info(st, 2, &d);
    assert_string_equal(d.name, "");
    assert_int_equal(count_runs(log), 1);

    /* one run per tick serves both GPUs */
    fake_now = 7 * TC_NS_PER_S;
    tc_telem_sample s0 = sample_ok(b, st, 0);
    fake_now += TC_NS_PER_MS;
    tc_telem_sample s1 = sample_ok(b, st, 1);
    assert_int_equal(count_runs(log), 2);
    assert_int_equal(s0.mono_ns, 7 * TC_NS_PER_S);
    assert_int_equal(s1.mono_ns, 7 * TC_NS_PER_S); /* when the command read it */
    tc_smi_gpu g;
    memset(&g, 0, sizeof g);
    g.s = s0;
    g.s.mono_ns = 0;
    strcpy(g.name, "NVIDIA H100 80GB HBM3");
    strcpy(g.driver, "550.54.15");
    strcpy(g.bus_id, "00000000:18:00.0");
    check_h100_0(&g);
    g.s = s1;
    g.index = 1;
    strcpy(g.bus_id, "00000000:2A:00.0");
    check_h100_1(&g);

    /* the next tick runs it again; so does a stale reading */
    sample_ok(b, st, 0);
    assert_int_equal(count_runs(log), 3);
    fake_now += 2 * TC_NS_PER_S;
    s1 = sample_ok(b, st, 1);
    assert_int_equal(count_runs(log), 4);
    assert_int_equal(s1.mono_ns, fake_now);

    tc_telem_sample s;
    assert_int_equal(b->sample(st, 2, &s), TC_ERR_INVALID);
    assert_int_equal(s.valid, 0);
    b->shutdown(st);
    b->shutdown(NULL);
    unlink(log);
}

static void nvidia_backend_old_driver(void **state)
{
    (void)state;
    const tc_telem_backend *b = &tc_telem_nvidia_smi;
    tc_telem_config cfg = {.nvidia_smi = NV_OLD};
    void *st = init_ok(b, &cfg); /* the fake refuses any query with clocks.mem */
    assert_string_equal(b->last_error(st), NV_OLD " does not offer: clocks.mem power.limit");
    assert_int_equal(b->device_count(st), 2);
    tc_telem_sample s = sample_ok(b, st, 1);
    assert_int_equal(s.valid, TC_TF_POWER | TC_TF_UTIL_GPU | TC_TF_MEM_USED | TC_TF_MEM_TOTAL |
                                  TC_TF_TEMP | TC_TF_CLOCK_SM);
    assert_int_equal(s.power_mw, 26120);
    assert_int_equal(s.clock_sm_mhz, 324);
    b->shutdown(st);
}

static void nvidia_backend_driver_not_loaded(void **state)
{
    (void)state;
    const tc_telem_backend *b = &tc_telem_nvidia_smi;
    tc_telem_config cfg = {.nvidia_smi = NV_BROKEN};
    char err[512] = "";
    void *st = (void *)1;
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_NOTFOUND);
    assert_null(st);
    if (!strstr(err, "the NVIDIA driver is not loaded: check `lsmod | grep nvidia`, Secure Boot "
                     "(`mokutil --sb-state`), nouveau (`lsmod | grep nouveau`), or reboot after "
                     "installing the driver"))
        fail_msg("%s", err);
}

static void nvidia_backend_not_on_path(void **state)
{
    (void)state;
    const tc_telem_backend *b = &tc_telem_nvidia_smi;
    tc_telem_config cfg = {.nvidia_smi = "truecost-no-such-nvidia-smi"};
    char err[512] = "";
    void *st = (void *)1;
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_NOTFOUND);
    assert_null(st);
    assert_string_equal(err, "truecost-no-such-nvidia-smi not found on PATH");
    cfg.nvidia_smi = "/nonexistent/nvidia-smi";
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "/nonexistent/nvidia-smi not found or not executable"));
    /* the default is looked up on PATH; an empty PATH finds nothing */
    char *path = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", "/nonexistent", 1);
    assert_int_equal(b->init(NULL, &st, err, sizeof err), TC_ERR_NOTFOUND);
    assert_string_equal(err, "nvidia-smi not found on PATH");
    if (path)
        setenv("PATH", path, 1);
    free(path);
}

static void nvidia_backend_gpu_gone_and_failures(void **state)
{
    (void)state;
    const tc_telem_backend *b = &tc_telem_nvidia_smi;
    tc_telem_config cfg = {.nvidia_smi = NV_FAKE};
    char log[] = "/tmp/tc_smi_log_XXXXXX";
    int lfd = mkstemp(log);
    assert_true(lfd >= 0);
    close(lfd);
    setenv("TC_FAKE_SMI_LOG", log, 1);
    void *st = init_ok(b, &cfg);
    int runs = count_runs(log);
    /* a run that fails costs that round's samples: the other GPU answers
     * "not available" without a second run (a hung nvidia-smi would cost
     * the whole timeout again) ... */
    setenv("TC_FAKE_NVIDIA_CSV", FIX "does-not-exist.csv", 1);
    tc_telem_sample s;
    for (int round = 1; round <= 2; round++) {
        assert_int_equal(b->sample(st, 0, &s), TC_OK);
        assert_int_equal(s.valid, 0);
        assert_non_null(strstr(b->last_error(st), "exited with status 1"));
        assert_int_equal(b->sample(st, 1, &s), TC_OK);
        assert_int_equal(s.valid, 0);
        assert_int_equal(count_runs(log), runs + round);
    }
    /* ... until the third bad round, which ends both GPUs at one run */
    assert_int_equal(b->sample(st, 0, &s), TC_ERR_IO);
    assert_int_equal(s.valid, 0);
    assert_int_equal(b->sample(st, 1, &s), TC_ERR_IO);
    assert_int_equal(count_runs(log), runs + 3);
    b->shutdown(st);

    /* a good round resets the count; output of the wrong shape is a failed run */
    unsetenv("TC_FAKE_NVIDIA_CSV");
    st = init_ok(b, &cfg);
    setenv("TC_FAKE_NVIDIA_CSV", FIX "does-not-exist.csv", 1);
    assert_int_equal(b->sample(st, 0, &s), TC_OK);
    assert_int_equal(s.valid, 0);
    assert_int_equal(b->sample(st, 1, &s), TC_OK);
    unsetenv("TC_FAKE_NVIDIA_CSV");
    runs = count_runs(log);
    s = sample_ok(b, st, 0);
    assert_int_equal(s.temp_mc, 58000);
    s = sample_ok(b, st, 1); /* the same round: one run serves both */
    assert_int_equal(s.temp_mc, 31000);
    assert_int_equal(count_runs(log), runs + 1);
    setenv("TC_FAKE_NVIDIA_CSV", FIX "nvidia-smi-old.csv", 1);
    assert_int_equal(b->sample(st, 1, &s), TC_OK); /* GPU 1 was served: a new run */
    assert_int_equal(s.valid, 0);
    assert_non_null(
        strstr(b->last_error(st), "line 1: expected 13 comma-separated fields, got 11"));
    unsetenv("TC_FAKE_NVIDIA_CSV");
    assert_int_equal(b->sample(st, 0, &s), TC_OK); /* the failed round's skip */
    assert_int_equal(s.valid, 0);
    s = sample_ok(b, st, 0);
    assert_int_equal(s.temp_mc, 58000);
    b->shutdown(st);
    unsetenv("TC_FAKE_SMI_LOG");
    unlink(log);

    char one[] = "/tmp/tc_smi_one_XXXXXX";
    int fd = mkstemp(one);
    assert_true(fd >= 0);
    static const char line[] =
        "0, NVIDIA H100 80GB HBM3, 550.54.15, 100.00, 1, 1, 1, 81559, 40, 1, 1, 700.00, "
        "00000000:18:00.0\n";
    assert_int_equal(write(fd, line, sizeof line - 1), (ssize_t)(sizeof line - 1));
    close(fd);
    st = init_ok(b, &cfg);
    setenv("TC_FAKE_NVIDIA_CSV", one, 1);
    s = sample_ok(b, st, 0);
    assert_int_equal(s.power_mw, 100000);
    assert_int_equal(b->sample(st, 1, &s), TC_ERR_IO);
    assert_string_equal(b->last_error(st), "GPU lost: nvidia-smi no longer lists NVIDIA H100 80GB "
                                           "HBM3 (00000000:2A:00.0)");
    b->shutdown(st);
    unlink(one);
}

/* ---- rocm-smi backend through the fake command ---- */

static void rocm_backend_reads_fake(void **state)
{
    (void)state;
    const tc_telem_backend *b = &tc_telem_rocm_smi;
    assert_string_equal(b->name, "rocm-smi");
    tc_telem_config cfg = {.rocm_smi = ROCM_FAKE};
    void *st = init_ok(b, &cfg);
    assert_int_equal(b->device_count(st), 2);
    tc_telem_device d;
    b->device_info(st, 1, &d);
    assert_int_equal(d.kind, TC_TELEM_GPU);
    assert_string_equal(d.name, "AMD Instinct MI300X OAM");
    assert_string_equal(d.id, "card1");
    assert_string_equal(d.driver, "");
    assert_string_equal(d.energy_what, "GPU energy counter");
    tc_telem_sample s = sample_ok(b, st, 0);
    assert_int_equal(s.power_mw, 512300);
    assert_int_equal(s.energy_uj, 2731409073297ULL);
    assert_int_equal(s.mem_used_bytes, 160872624128LL);
    s = sample_ok(b, st, 1);
    assert_int_equal(s.util_pct, 0);
    assert_int_equal(s.temp_hot_mc, 44000);
    b->shutdown(st);

    /* old names: card1 has no energy counter */
    setenv("TC_FAKE_ROCM_JSON", FIX "rocm-smi-old.json", 1);
    st = init_ok(b, &cfg);
    b->device_info(st, 0, &d);
    assert_string_equal(d.name, "Instinct MI210");
    assert_string_equal(d.energy_what, "GPU energy counter");
    b->device_info(st, 1, &d);
    assert_string_equal(d.name, "Vega 20");
    assert_string_equal(d.energy_what, "GPU energy integrated from power");
    s = sample_ok(b, st, 0);
    assert_int_equal(s.temp_mc, 38000);

    /* a counter that goes back (a driver reload) is folded in */
    setenv("TC_FAKE_ROCM_JSON", FIX "rocm-smi-mi300.json", 1);
    s = sample_ok(b, st, 0);
    assert_int_equal(s.energy_uj, 2731409073297ULL);
    setenv("TC_FAKE_ROCM_JSON", FIX "rocm-smi-old.json", 1);
    s = sample_ok(b, st, 0);
    assert_int_equal(s.energy_uj, 2731409073297ULL + 721214764929ULL);
    b->shutdown(st);
}

static void rocm_backend_errors(void **state)
{
    (void)state;
    const tc_telem_backend *b = &tc_telem_rocm_smi;
    char err[512] = "";
    void *st = (void *)1;
    tc_telem_config cfg = {.rocm_smi = "truecost-no-such-rocm-smi"};
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_NOTFOUND);
    assert_null(st);
    assert_string_equal(err, "truecost-no-such-rocm-smi not found on PATH");
    /* the nvidia fake as rocm-smi: argparse-style refusal, said plainly */
    cfg.rocm_smi = NV_FAKE;
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_IO);
    if (!strstr(err, "exited with status 2: Field \"--showproductname\" is not a valid field"))
        fail_msg("%s", err);
    /* output that is no JSON */
    setenv("TC_FAKE_ROCM_JSON", FIX "nvidia-smi-h100.csv", 1);
    cfg.rocm_smi = ROCM_FAKE;
    assert_int_equal(b->init(&cfg, &st, err, sizeof err), TC_ERR_PARSE);
    assert_non_null(strstr(err, "rocm-smi output: no JSON object"));
    /* the real error text when the fake is given options it does not know
     * is checked through the runner: */
    const char *argv[] = {ROCM_FAKE, "--bogus", NULL};
    tc_smi_output o;
    assert_int_equal(tc_smi_run(argv, 5000, &o, err, sizeof err), TC_OK);
    assert_int_equal(o.status, 2);
    assert_non_null(strstr(o.err, "unrecognized arguments: --bogus"));
    tc_smi_output_free(&o);
}

/* The child gets stdin, stdout and stderr only: never the parent's other
 * descriptors (the load generator's sockets lack close-on-exec). */
static void children_inherit_no_other_descriptors(void **state)
{
    (void)state;
    /* deliberately without close-on-exec, and high, so it cannot be
     * mistaken for the child's own descriptors (ls opens the listed dir) */
    int tmp = open("/dev/null", O_RDONLY);
    int leak = fcntl(tmp, F_DUPFD, 57);
    close(tmp);
    assert_true(leak >= 57);
    const char *argv[] = {"ls", "/proc/self/fd", NULL};
    tc_smi_output o;
    char err[256];
    assert_int_equal(tc_smi_run(argv, 5000, &o, err, sizeof err), TC_OK);
    assert_int_equal(o.status, 0);
    char name[16];
    snprintf(name, sizeof name, "\n%d\n", leak);
    char *listing = malloc(o.out_len + 2);
    assert_non_null(listing);
    listing[0] = '\n';
    memcpy(listing + 1, o.out, o.out_len + 1);
    if (strstr(listing, name))
        fail_msg("fd %d reached the child: %s", leak, o.out);
    free(listing);
    tc_smi_output_free(&o);
    close(leak);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(children_inherit_no_other_descriptors),
        cmocka_unit_test(nvidia_csv_h100),
        cmocka_unit_test(nvidia_csv_old_driver),
        cmocka_unit_test(nvidia_columns_probe),
        cmocka_unit_test(nvidia_csv_not_available),
        cmocka_unit_test(nvidia_csv_formats),
        cmocka_unit_test(nvidia_csv_bad_lines),
        cmocka_unit_test(rocm_json_mi300),
        cmocka_unit_test(rocm_json_old_names),
        cmocka_unit_test(rocm_json_shapes),
        cmocka_unit_test(rocm_json_errors),
        cmocka_unit_test(run_collects_output_and_status),
        cmocka_unit_test(run_kills_at_timeout),
        cmocka_unit_test(run_kills_the_children_at_timeout),
        cmocka_unit_test(run_caps_output),
        cmocka_unit_test(run_missing_command),
        cmocka_unit_test_setup_teardown(nvidia_backend_reads_fake, setup, teardown),
        cmocka_unit_test_setup_teardown(nvidia_backend_old_driver, setup, teardown),
        cmocka_unit_test_setup_teardown(nvidia_backend_driver_not_loaded, setup, teardown),
        cmocka_unit_test_setup_teardown(nvidia_backend_not_on_path, setup, teardown),
        cmocka_unit_test_setup_teardown(nvidia_backend_gpu_gone_and_failures, setup, teardown),
        cmocka_unit_test_setup_teardown(rocm_backend_reads_fake, setup, teardown),
        cmocka_unit_test_setup_teardown(rocm_backend_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
