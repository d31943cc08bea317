/* A run for the store tests: test_run_info fills the least a run needs
 * (the caller adds labels or groups), test_begin_run stores it and gives
 * its id; test_records_free clears n records and frees the array.
 * Include after cmocka.h. */
#ifndef TC_TEST_RUN_H
#define TC_TEST_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

static inline void test_run_info(tc_run_info *r)
{
    memset(r, 0, sizeof *r);
    r->api = TC_API_OPENAI;
    r->concurrency = 1;
    snprintf(r->model, sizeof r->model, "m");
    snprintf(r->endpoint, sizeof r->endpoint, "http://127.0.0.1:1");
}

static inline int64_t test_begin_run(tc_store *s, tc_run_info *r)
{
    char err[512] = "";
    if (tc_store_run_begin(s, r, err, sizeof err) != TC_OK)
        fail_msg("run_begin: %s", err);
    return r->id;
}

static inline void test_records_free(tc_req_record *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tc_req_record_clear(&r[i]);
    free(r);
}

#endif
