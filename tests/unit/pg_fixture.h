/* For the store's tests on PostgreSQL: a new database per test on the
 * server at $TC_TEST_PG_URL (scripts/pg-test.sh starts a throwaway one),
 * dropped after it. Without the variable a test says skipped, unless
 * TC_REQUIRE_PG is set (make check, CI): then it fails. Include after
 * cmocka.h. */
#ifndef TC_TEST_PG_FIXTURE_H
#define TC_TEST_PG_FIXTURE_H

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs one statement on the server at url (CREATE/DROP DATABASE). */
static void pg_admin(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("TC_TEST_PG_URL: %s", PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        fail_msg("%s: %s", sql, PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
}

/* url with its database name (the path after the authority) set to db. */
static void pg_url_with_db(const char *url, const char *db, char *out, size_t len)
{
    const char *auth = strstr(url, "://");
    assert_non_null(auth);
    auth += 3;
    const char *path = auth + strcspn(auth, "/?");
    const char *rest = path + strcspn(path, "?");
    snprintf(out, len, "%.*s/%s%s", (int)(path - url), url, db, rest);
}

/* 1 when a server is given; 0 when not (the caller skips), and a failure
 * when TC_REQUIRE_PG says one must be. */
static int pg_available(void)
{
    const char *url = getenv("TC_TEST_PG_URL");
    if (url && url[0])
        return 1;
    const char *req = getenv("TC_REQUIRE_PG");
    if (req && req[0] && strcmp(req, "0") != 0)
        fail_msg("TC_REQUIRE_PG is set but TC_TEST_PG_URL is not: run under scripts/pg-test.sh");
    return 0;
}

/* Creates a new database (its name into name) and writes its URL. */
static void pg_new_db(char *url_out, size_t len, char *name, size_t name_len)
{
    static int n;
    const char *url = getenv("TC_TEST_PG_URL");
    snprintf(name, name_len, "tc_test_%d_%d", (int)getpid(), ++n);
    char sql[128];
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    pg_admin(url, sql);
    pg_url_with_db(url, name, url_out, len);
}

static void pg_drop_db(const char *name)
{
    char sql[128];
    snprintf(sql, sizeof sql, "DROP DATABASE IF EXISTS %s WITH (FORCE)", name);
    pg_admin(getenv("TC_TEST_PG_URL"), sql);
}

#endif
