/* Unit tests of the store's telemetry (v2) and fingerprint (v3) tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/store.h"
#include "pg_fixture.h"

/* Each test runs on SQLite (state NULL) and on PostgreSQL (state &on_pg),
 * where dir holds the name of the test's database. */
static int on_pg = 1;

static tc_store *fresh(void **state, char *dir, size_t len, int64_t *run_id)
{
    char path[1024], err[512];
    if (*state) {
        if (!pg_available())
            skip();
        pg_new_db(path, sizeof path, dir, len);
    } else {
        snprintf(dir, len, "/tmp/truecost-st-XXXXXX");
        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof path, "%s/t.db", dir);
    }
    tc_store *s;
    assert_int_equal(tc_store_open(path, TC_STORE_WRITE, &s, err, sizeof err), TC_OK);
    tc_run_info info = {.api = TC_API_OLLAMA, .concurrency = 1};
    snprintf(info.endpoint, sizeof info.endpoint, "http://127.0.0.1:1");
    snprintf(info.model, sizeof info.model, "m");
    assert_int_equal(tc_store_run_begin(s, &info, err, sizeof err), TC_OK);
    *run_id = info.id;
    return s;
}

static void cleanup(tc_store *s, const char *dir)
{
    char path[512];
    tc_store_close(s);
    if (strncmp(dir, "tc_test_", 8) == 0) {
        pg_drop_db(dir);
        return;
    }
    snprintf(path, sizeof path, "%s/t.db", dir);
    unlink(path);
    rmdir(dir);
}

static void devices_and_samples_round_trip(void **state)
{
    char dir[64], err[512];
    int64_t id;
    tc_store *s = fresh(state, dir, sizeof dir, &id);
    tc_run_device devs[2] = {
        {.info = {.kind = TC_TELEM_GPU,
                  .name = "G \"0\"",
                  .id = "0000:01:00.0",
                  .driver = "550.1",
                  .runtime = "CUDA 12.4",
                  .energy_what = "GPU board energy"},
         .backend = "nvml"},
        {.info = {.kind = TC_TELEM_CPU, .name = "package-0"}, .backend = "rapl"}};
    assert_int_equal(tc_store_add_devices(s, id, devs, 2, err, sizeof err), TC_OK);
    tc_run_sample in[3] = {
        {0,
         {.mono_ns = 10,
          .valid = TC_TF_POWER | TC_TF_ENERGY,
          .power_mw = 1,
          .energy_uj = 1ull << 40}},
        {1, {.mono_ns = 11, .valid = 0}},
        {0, {.mono_ns = 20, .valid = TC_TF_MEM_USED, .mem_used_bytes = 80ll << 30, .temp_mc = -5}},
    };
    assert_int_equal(tc_store_add_samples(s, id, in, 3, err, sizeof err), TC_OK);
    tc_run_device *d;
    tc_run_sample *out;
    int nd;
    size_t ns;
    assert_int_equal(tc_store_load_telemetry(s, id, &d, &nd, &out, &ns, err, sizeof err), TC_OK);
    assert_int_equal(nd, 2);
    assert_string_equal(d[0].info.name, "G \"0\"");
    assert_string_equal(d[0].info.runtime, "CUDA 12.4");
    assert_int_equal(d[1].info.kind, TC_TELEM_CPU);
    assert_string_equal(d[1].backend, "rapl");
    assert_int_equal(ns, 3);
    /* by device, then time */
    assert_int_equal(out[0].s.mono_ns, 10);
    assert_true(out[0].s.energy_uj == 1ull << 40);
    assert_int_equal(out[1].s.mono_ns, 20);
    assert_int_equal(out[1].s.mem_used_bytes, 80ll << 30);
    assert_int_equal(out[1].s.temp_mc, -5);
    assert_int_equal(out[2].device, 1);
    assert_int_equal(out[2].s.valid, 0);
    free(d);
    free(out);
    cleanup(s, dir);
}

static void fingerprints_round_trip(void **state)
{
    char dir[64], err[512];
    int64_t id;
    tc_store *s = fresh(state, dir, sizeof dir, &id);
    char *json = (char *)1;
    assert_int_equal(tc_store_get_fingerprint(s, id, &json, err, sizeof err), TC_OK);
    assert_null(json); /* none yet */
    assert_int_equal(
        tc_store_set_fingerprint(s, id, "{\"os\":{\"name\":\"Debian\"}}", err, sizeof err), TC_OK);
    assert_int_equal(
        tc_store_set_fingerprint(s, id, "{\"os\":{\"name\":\"Ubuntu\"}}", err, sizeof err),
        TC_OK); /* replaced */
    assert_int_equal(tc_store_get_fingerprint(s, id, &json, err, sizeof err), TC_OK);
    assert_string_equal(json, "{\"os\":{\"name\":\"Ubuntu\"}}");
    free(json);
    cleanup(s, dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(devices_and_samples_round_trip),
        cmocka_unit_test(fingerprints_round_trip),
        {"devices_and_samples_round_trip (PostgreSQL)", devices_and_samples_round_trip, NULL, NULL,
         &on_pg},
        {"fingerprints_round_trip (PostgreSQL)", fingerprints_round_trip, NULL, NULL, &on_pg},
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
