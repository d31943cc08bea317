/* The PostgreSQL back end's bulk load: COPY ... FROM STDIN in binary,
 * rows gathered in a buffer and sent 64 KiB at a time. */
#include <stdlib.h>
#include <string.h>

#include "store_db_pg.h"

/* ---- COPY ... FROM STDIN (FORMAT binary) ---------------------------------- */

/* Appends n bytes to the copy buffer, sending it on when it is full. */
static int copy_put(pg_db *db, const void *p, size_t n)
{
    if (n == 0) /* an empty blob may come as NULL */
        return TC_DB_OK;
    if (db->copy_len + n > db->copy_cap) {
        if (db->copy_len &&
            PQputCopyData(db->conn, (const char *)db->copy_buf, (int)db->copy_len) != 1)
            return tc_pg_fail_res(db, NULL);
        db->copy_len = 0;
        if (n > db->copy_cap) {
            size_t cap = n > 65536 ? n : 65536;
            uint8_t *b = realloc(db->copy_buf, cap);
            if (!b) {
                tc_pg_keep_msg(db, "out of memory");
                return TC_DB_ERROR;
            }
            db->copy_buf = b;
            db->copy_cap = cap;
        }
    }
    memcpy(db->copy_buf + db->copy_len, p, n);
    db->copy_len += n;
    return TC_DB_OK;
}

static int copy_be(pg_db *db, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    return copy_put(db, b, (size_t)bytes);
}

int tc_pg_copy_begin(tc_db *d, const char *sql)
{
    pg_db *db = (pg_db *)d;
    int rc = tc_pg_pipe_end(db);
    if (rc != TC_DB_OK)
        return rc;
    PGresult *res = PQexec(db->conn, sql);
    if (PQresultStatus(res) != PGRES_COPY_IN) {
        rc = tc_pg_fail_res(db, res);
        PQclear(res);
        return rc == TC_DB_OK ? TC_DB_ERROR : rc;
    }
    PQclear(res);
    db->copy_len = 0;
    static const uint8_t header[] = {
        'P', 'G', 'C', 'O', 'P', 'Y', '\n', 0xff, '\r', '\n',
        0,   0,   0,   0,   0,   0,   0,    0,    0}; /* flags, no extension */
    return copy_put(db, header, sizeof header);
}

int tc_pg_copy_row(tc_db *d, int fields)
{
    return copy_be((pg_db *)d, (uint64_t)fields, 2);
}

int tc_pg_copy_int64(tc_db *d, int64_t v)
{
    int rc = copy_be((pg_db *)d, 8, 4);
    return rc != TC_DB_OK ? rc : copy_be((pg_db *)d, (uint64_t)v, 8);
}

int tc_pg_copy_double(tc_db *d, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int rc = copy_be((pg_db *)d, 8, 4);
    return rc != TC_DB_OK ? rc : copy_be((pg_db *)d, bits, 8);
}

int tc_pg_copy_null(tc_db *d)
{
    return copy_be((pg_db *)d, 0xffffffffu, 4);
}

int tc_pg_copy_blob(tc_db *d, const void *v, size_t n)
{
    int rc = copy_be((pg_db *)d, n, 4);
    return rc != TC_DB_OK ? rc : copy_put((pg_db *)d, v, n);
}

int tc_pg_copy_text(tc_db *d, const char *v, size_t n)
{
    const unsigned char *u = (const unsigned char *)v;
    if (!tc_pg_needs_map(u, n))
        return tc_pg_copy_blob(d, v, n);
    size_t m = tc_pg_map_text(u, n, NULL);
    char *out = malloc(m ? m : 1);
    if (!out) {
        tc_pg_keep_msg((pg_db *)d, "out of memory");
        return TC_DB_ERROR;
    }
    tc_pg_map_text(u, n, out);
    int rc = tc_pg_copy_blob(d, out, m);
    free(out);
    return rc;
}

/* ok 0: abandons the copy (nothing of it is stored). */
int tc_pg_copy_end(tc_db *d, int ok)
{
    pg_db *db = (pg_db *)d;
    int rc = ok ? copy_be(db, 0xffff, 2) : TC_DB_OK; /* the trailer: -1 fields */
    if (ok && rc == TC_DB_OK && db->copy_len &&
        PQputCopyData(db->conn, (const char *)db->copy_buf, (int)db->copy_len) != 1)
        rc = tc_pg_fail_res(db, NULL);
    db->copy_len = 0;
    int end = PQputCopyEnd(db->conn, ok && rc == TC_DB_OK ? NULL : "abandoned by truecost");
    PGresult *res;
    int first = TC_DB_OK;
    while ((res = PQgetResult(db->conn)) != NULL) {
        /* After a failed send, the server's "abandoned" must not hide why. */
        if (PQresultStatus(res) != PGRES_COMMAND_OK && first == TC_DB_OK && rc == TC_DB_OK)
            first = tc_pg_fail_res(db, res);
        PQclear(res);
    }
    if (rc == TC_DB_OK && end != 1)
        rc = tc_pg_fail_res(db, NULL);
    return rc != TC_DB_OK ? rc : ok ? first : TC_DB_ERROR;
}
