/* Opening and closing the store: where the file lives, its directories,
 * and the errors a user can act on. */
#include "store_internal.h"

#include "core/tc_grow.h"

#include <errno.h>
#include <pwd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

tc_err tc_store_default_path(char *buf, size_t len, char *err, size_t errlen)
{
    const char *db = env("TRUECOST_DB");
    const char *xdg = env("XDG_DATA_HOME");
    const char *home = env("HOME");
    int n;
    if (db)
        n = snprintf(buf, len, "%s", db);
    else if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/truecost/truecost.db", xdg);
    else if (home)
        n = snprintf(buf, len, "%s/.local/share/truecost/truecost.db", home);
    else
        return tc_fail(err, errlen, TC_ERR_NOTFOUND,
                       "no place for the database: HOME is not set; pass --db PATH or set "
                       "TRUECOST_DB");
    if (n < 0 || (size_t)n >= len)
        return tc_fail(err, errlen, TC_ERR_INVALID, "the database path is too long (%d bytes)", n);
    return TC_OK;
}

/* The directory part of path ("." when there is none) into dir. */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, len, ".");
    else if (slash == path)
        snprintf(dir, len, "/");
    else
        snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* mkdir -p of dir, each new one private to the user (mode 0700): a fresh
 * machine has no ~/.local/share yet. */
static tc_err make_dirs(char *dir, char *err, size_t errlen)
{
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        int rc = mkdir(dir, 0700);
        int e = errno;
        struct stat st;
        if (rc != 0 && !(e == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))) {
            tc_err r = tc_fail(err, errlen, TC_ERR_IO, "cannot create the directory %s: %s", dir,
                               e == EEXIST ? "a file is in the way" : strerror(e));
            *p = c;
            return r;
        }
        *p = c;
        if (c == '\0')
            return TC_OK;
    }
}

tc_err tc_store_access_fail(const char *path, const tc_store_access *a, char *err, size_t errlen)
{
    char owner[64];
    if (a->owner_name && a->owner_name[0])
        snprintf(owner, sizeof owner, "%s", a->owner_name);
    else
        snprintf(owner, sizeof owner, "uid %u", a->owner_uid);
    int mine = a->owner_uid == a->my_uid;
    /* Reading comes first: a file the user cannot read cannot be helped
     * by making it writable. */
    if (a->read_errno == EACCES && mine)
        return tc_fail(err, errlen, TC_ERR_IO,
                       "cannot read %s: permission denied; it is yours: make it readable (chmod "
                       "%s %s) or choose another path with --db",
                       path, a->write_errno == EACCES ? "u+rw" : "u+r", path);
    if (a->read_errno == EACCES)
        return tc_fail(err, errlen, TC_ERR_IO,
                       "cannot read %s: permission denied; it belongs to %s: ask its owner for "
                       "access or choose another path with --db",
                       path, owner);
    if (a->read_errno != 0)
        return tc_fail(err, errlen, TC_ERR_IO, "cannot read %s: %s", path, strerror(a->read_errno));
    if (a->write_errno == EROFS) /* chmod cannot help there */
        return tc_fail(err, errlen, TC_ERR_IO,
                       "%s is on a read-only file system: choose another path with --db", path);
    if (a->write_errno != 0 && mine)
        return tc_fail(err, errlen, TC_ERR_IO,
                       "%s is read-only: make it writable (chmod u+w %s) or choose another path "
                       "with --db",
                       path, path);
    if (a->write_errno != 0)
        return tc_fail(err, errlen, TC_ERR_IO,
                       "%s is read-only to you (it belongs to %s): ask its owner for write access "
                       "or choose another path with --db",
                       path, owner);
    return TC_OK;
}

/* The name of the user uid into buf, "" when it has none. */
static void user_name(uid_t uid, char *buf, size_t len)
{
    struct passwd pw, *found = NULL;
    char scratch[1024];
    buf[0] = '\0';
    if (getpwuid_r(uid, &pw, scratch, sizeof scratch, &found) == 0 && found)
        snprintf(buf, len, "%s", found->pw_name);
}

/* Checks what SQLite would otherwise report vaguely: the file must be
 * readable, and for writing the file and its directory (where the -wal
 * and -shm files go) writable; for reading, the file must exist. access()
 * asks as the real user, and root passes it: SQLite's own read-only check
 * backs it up. */
static tc_err check_path(const char *path, tc_store_mode mode, char *err, size_t errlen)
{
    char dir[TC_STORE_PATH_MAX];
    dir_of(path, dir, sizeof dir);
    if (mode == TC_STORE_WRITE && strcmp(dir, ".") != 0) {
        tc_err e = make_dirs(dir, err, errlen);
        if (e != TC_OK)
            return e;
    }
    struct stat st;
    int exists = stat(path, &st) == 0;
    if (!exists && errno != ENOENT)
        return tc_fail(err, errlen, TC_ERR_IO, "%s: %s", path, strerror(errno));
    if (exists && S_ISDIR(st.st_mode))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s is a directory; pass the database file's path with --db", path);
    if (mode == TC_STORE_READ && !exists)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND,
                       "no database at %s yet: run `truecost run` first", path);
    if (exists) {
        char name[64];
        tc_store_access a = {.owner_uid = st.st_uid, .my_uid = getuid(), .owner_name = name};
        if (access(path, R_OK) != 0)
            a.read_errno = errno;
        if (mode == TC_STORE_WRITE && access(path, W_OK) != 0)
            a.write_errno = errno;
        if (a.read_errno || a.write_errno) {
            user_name(st.st_uid, name, sizeof name);
            return tc_store_access_fail(path, &a, err, errlen);
        }
    }
    if (mode == TC_STORE_READ)
        return TC_OK;
    if (access(dir, W_OK) != 0)
        return tc_fail(err, errlen, TC_ERR_IO,
                       "the directory %s is not writable (SQLite keeps %s-wal and %s-shm beside "
                       "the database): make it writable or choose another path with --db",
                       dir, path, path);
    return TC_OK;
}

tc_err tc_store_sql_fail(tc_store *s, int rc, const char *what, char *err, size_t errlen)
{
    const char *msg = tc_db_errmsg(s->db);
    int pg = s->db && tc_db_kind_of(s->db) == TC_DB_PG;
    switch (rc) {
    case TC_DB_BUSY:
        return tc_fail(err, errlen, TC_ERR_BUSY,
                       "%s: %s: the database is locked by another process (another `truecost "
                       "run`?) for over %d ms: wait for it to finish or choose another path "
                       "with --db",
                       s->path, what, s->busy_ms);
    case TC_DB_READONLY:
        if (pg)
            return tc_fail(err, errlen, TC_ERR_IO,
                           "%s: %s: %s: grant the user write access or use another --db", s->path,
                           what, msg);
        if (s->mode == TC_STORE_READ)
            return tc_fail(err, errlen, TC_ERR_IO,
                           "%s: %s: a run is writing it (or ended without closing it) and "
                           "reading it then needs %s-shm, which cannot be created: make the "
                           "directory writable or wait for the run to end",
                           s->path, what, s->path);
        return tc_fail(err, errlen, TC_ERR_IO,
                       "%s: %s: the database is read-only: make the file and its directory "
                       "writable (chmod u+w) or choose another path with --db",
                       s->path, what);
    case TC_DB_FULL:
        return tc_fail(err, errlen, TC_ERR_IO, "%s: %s: the disk is full: free some space", s->path,
                       what);
    case TC_DB_CANTOPEN:
        if (pg)
            return tc_fail(err, errlen, TC_ERR_IO,
                           "%s: %s: cannot reach the PostgreSQL server (%s): check the URL, that "
                           "the server runs and that it lets this user in",
                           s->path, what, msg);
        return tc_fail(err, errlen, TC_ERR_IO,
                       "%s: %s: cannot open the file (%s): check that it and its directory "
                       "exist and are writable",
                       s->path, what, msg);
    }
    return tc_fail(err, errlen, TC_ERR_IO, "%s: %s: %s", s->path, what, msg);
}

/* A postgresql:// URL: no file to check; the password stays out of
 * s->path, which every message shows. */
static tc_err open_pg(tc_store *s, const char *url, char *err, size_t errlen)
{
    char shown[TC_STORE_PATH_MAX];
    tc_db_redact(url, shown, sizeof shown);
    if (!(s->path = strdup(shown)))
        return tc_fail(err, errlen, TC_ERR_NOMEM, "opening %s", shown);
    int rc = tc_db_open_pg(url, s->mode == TC_STORE_WRITE, s->busy_ms, &s->db);
    if (rc != TC_DB_OK)
        return tc_store_sql_fail(s, rc, "connecting", err, errlen);
    return tc_store_schema_prepare_pg(s, err, errlen);
}

static tc_err open_sqlite(tc_store *s, const char *path, char *err, size_t errlen)
{
    tc_err e = check_path(path, s->mode, err, errlen);
    if (e != TC_OK)
        return e;
    if (!(s->path = strdup(path)))
        return tc_fail(err, errlen, TC_ERR_NOMEM, "opening %s", path);
    int rc = tc_db_open_sqlite(path, s->mode == TC_STORE_WRITE, s->busy_ms, &s->db);
    if (rc != TC_DB_OK)
        return tc_store_sql_fail(s, rc, "opening", err, errlen);
    return tc_store_schema_prepare(s, err, errlen);
}

tc_err tc_store_open(const char *path, tc_store_mode mode, tc_store **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!path || !path[0] || strlen(path) >= TC_STORE_PATH_MAX)
        return tc_fail(err, errlen, TC_ERR_INVALID, "the database path is empty or too long");
    tc_store *s = calloc(1, sizeof *s);
    if (!s)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "opening the database");
    s->mode = mode;
    s->busy_ms = TC_STORE_BUSY_TIMEOUT_MS;
    tc_err e =
        tc_db_is_url(path) ? open_pg(s, path, err, errlen) : open_sqlite(s, path, err, errlen);
    if (e != TC_OK) {
        tc_store_close(s);
        return e;
    }
    *out = s;
    return TC_OK;
}

void tc_store_close(tc_store *s)
{
    if (!s)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        tc_db_finalize(s->stmt[i]);
    /* WAL is for while a run writes. Back in rollback mode a reader needs
     * no -shm file, so `truecost runs` creates nothing and works where it
     * may not write. Busy (another connection open) leaves WAL on, which
     * is just as correct. */
    if (s->wal)
        (void)tc_db_exec(s->db, "PRAGMA journal_mode = DELETE");
    /* Every statement is finalized, so close cannot be refused as busy. */
    tc_db_close(s->db);
    free(s->blob);
    free(s->path);
    free(s);
}

const char *tc_store_path(const tc_store *s)
{
    return s->path;
}

int tc_store_is_url(const char *target)
{
    return tc_db_is_url(target);
}

void tc_store_redact(const char *target, char *buf, size_t len)
{
    tc_db_redact(target, buf, len);
}

int tc_store_is_pg(const tc_store *s)
{
    return tc_db_kind_of(s->db) == TC_DB_PG;
}

void tc_store_set_busy_timeout(tc_store *s, int ms)
{
    s->busy_ms = ms;
    tc_db_set_busy_timeout(s->db, ms);
}

tc_err tc_store_stmt(tc_store *s, store_stmt id, const char *sql, tc_db_stmt **out, char *err,
                     size_t errlen)
{
    tc_db_stmt *st = s->stmt[id];
    if (st) {
        tc_db_reset(st);
    } else {
        int rc = tc_db_prepare(s->db, sql, &st);
        if (rc != TC_DB_OK)
            return tc_store_sql_fail(s, rc, "preparing a statement", err, errlen);
        s->stmt[id] = st;
    }
    *out = st;
    return TC_OK;
}

tc_err tc_store_step_done(tc_store *s, tc_db_stmt *st, const char *what, char *err, size_t errlen)
{
    int rc = tc_db_step(st);
    tc_err e = rc == TC_DB_DONE ? TC_OK : tc_store_sql_fail(s, rc, what, err, errlen);
    tc_db_reset(st);
    return e;
}

tc_err tc_store_prepare(tc_store *s, const char *sql, tc_db_stmt **st, const char *what, char *err,
                        size_t errlen)
{
    int rc = tc_db_prepare(s->db, sql, st);
    return rc == TC_DB_OK ? TC_OK : tc_store_sql_fail(s, rc, what, err, errlen);
}

tc_err tc_store_step_once(tc_store *s, tc_db_stmt *st, int bind_rc, const char *what, char *err,
                          size_t errlen)
{
    int rc = bind_rc == TC_DB_OK ? tc_db_step(st) : bind_rc;
    tc_err e = rc == TC_DB_DONE ? TC_OK : tc_store_sql_fail(s, rc, what, err, errlen);
    tc_db_finalize(st);
    return e;
}

int tc_store_bind_real(tc_db_stmt *st, int col, double v)
{
    return isfinite(v) ? tc_db_bind_double(st, col, v) : tc_db_bind_null(st, col);
}

tc_err tc_store_load_rows(tc_store *s, const char *sql, int64_t run_id, size_t size,
                          void (*row)(tc_db_stmt *, void *), void **out, size_t *n,
                          const char *what, char *err, size_t errlen)
{
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_prepare(s, sql, &st, what, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    size_t cap = 0;
    int rc;
    while ((rc = tc_db_step(st)) == TC_DB_ROW) {
        if (tc_grow(out, &cap, *n, size, 64) < 0) {
            tc_db_finalize(st);
            return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory %s", what);
        }
        row(st, (char *)*out + (*n)++ * size);
    }
    if (rc != TC_DB_DONE)
        e = tc_store_sql_fail(s, rc, what, err, errlen);
    tc_db_finalize(st);
    return e;
}

tc_err tc_store_begin(tc_store *s, char *err, size_t errlen)
{
    int rc = tc_db_begin(s->db);
    return rc == TC_DB_OK ? TC_OK : tc_store_sql_fail(s, rc, "locking for writing", err, errlen);
}

tc_err tc_store_begin_exclusive(tc_store *s, char *err, size_t errlen)
{
    tc_err e = tc_store_begin(s, err, errlen);
    if (e != TC_OK || tc_db_kind_of(s->db) != TC_DB_PG)
        return e;
    char sql[64];
    snprintf(sql, sizeof sql, "SELECT pg_advisory_xact_lock(%d)", TC_STORE_APPLICATION_ID);
    int rc = tc_db_exec(s->db, sql);
    if (rc != TC_DB_OK) {
        e = tc_store_sql_fail(s, rc, "locking for writing", err, errlen);
        tc_store_rollback(s);
    }
    return e;
}

tc_err tc_store_commit(tc_store *s, char *err, size_t errlen)
{
    int rc = tc_db_commit(s->db);
    return rc == TC_DB_OK ? TC_OK : tc_store_sql_fail(s, rc, "committing", err, errlen);
}

tc_err tc_store_insert_batch(tc_store *s, int64_t run_id, const void *items, size_t n,
                             tc_store_insert_fn insert, char *err, size_t errlen)
{
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    if (n == 0)
        return TC_OK;
    /* PostgreSQL: the inserts go as one pipeline, a round trip a batch; a
     * batch refused there is tried once more row by row, so the message
     * names the request at fault as SQLite's does. */
    int pipelined = tc_db_kind_of(s->db) == TC_DB_PG;
    for (;;) {
        if (pipelined)
            tc_db_defer_writes(s->db);
        tc_err e = tc_store_begin(s, err, errlen);
        for (size_t i = 0; e == TC_OK && i < n; i++)
            e = insert(s, run_id, i, items, err, errlen);
        if (e == TC_OK)
            e = tc_store_commit(s, err, errlen);
        if (e != TC_OK)
            tc_store_rollback(s);
        if (e == TC_OK || !pipelined)
            return e;
        pipelined = 0;
    }
}

void tc_store_rollback(tc_store *s)
{
    /* The caller reports the error that made it roll back. */
    tc_db_rollback(s->db);
}

void tc_store_col_text(tc_db_stmt *st, int col, char *buf, size_t len)
{
    const char *t = tc_db_col_text(st, col);
    size_t n = t ? tc_db_col_bytes(st, col) : 0;
    if (n >= len)
        n = len - 1;
    if (t)
        memcpy(buf, t, n);
    buf[n] = '\0';
}

int tc_store_bind_field(tc_db_stmt *st, int col, const char *field, size_t size)
{
    return tc_db_bind_text(st, col, field, (int)strnlen(field, size));
}
