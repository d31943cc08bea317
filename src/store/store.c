/* Opening and closing the store: where the file lives, its directories,
 * and the errors a user can act on. */
#include "store_internal.h"

#include <errno.h>
#include <pwd.h>
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
    const char *msg = s->db ? sqlite3_errmsg(s->db) : sqlite3_errstr(rc);
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return tc_fail(err, errlen, TC_ERR_BUSY,
                       "%s: %s: the database is locked by another process (another `truecost "
                       "run`?) for over %d ms: wait for it to finish or choose another path "
                       "with --db",
                       s->path, what, s->busy_ms);
    case SQLITE_READONLY:
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
    case SQLITE_FULL:
        return tc_fail(err, errlen, TC_ERR_IO, "%s: %s: the disk is full: free some space", s->path,
                       what);
    case SQLITE_CANTOPEN:
        return tc_fail(err, errlen, TC_ERR_IO,
                       "%s: %s: cannot open the file (%s): check that it and its directory "
                       "exist and are writable",
                       s->path, what, msg);
    }
    return tc_fail(err, errlen, TC_ERR_IO, "%s: %s: %s", s->path, what, msg);
}

tc_err tc_store_open(const char *path, tc_store_mode mode, tc_store **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!path || !path[0] || strlen(path) >= TC_STORE_PATH_MAX)
        return tc_fail(err, errlen, TC_ERR_INVALID, "the database path is empty or too long");
    tc_err e = check_path(path, mode, err, errlen);
    if (e != TC_OK)
        return e;
    tc_store *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        e = tc_fail(err, errlen, TC_ERR_NOMEM, "opening %s", path);
        goto fail;
    }
    s->mode = mode;
    s->busy_ms = TC_STORE_BUSY_TIMEOUT_MS;
    int flags =
        mode == TC_STORE_WRITE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    int rc = sqlite3_open_v2(path, &s->db, flags, NULL);
    if (rc != SQLITE_OK) {
        e = tc_store_sql_fail(s, rc, "opening", err, errlen);
        goto fail;
    }
    sqlite3_extended_result_codes(s->db, 1);
    tc_store_set_busy_timeout(s, TC_STORE_BUSY_TIMEOUT_MS);
    e = tc_store_schema_prepare(s, err, errlen);
    if (e != TC_OK)
        goto fail;
    *out = s;
    return TC_OK;
fail:
    tc_store_close(s);
    return e;
}

void tc_store_close(tc_store *s)
{
    if (!s)
        return;
    for (int i = 0; i < ST_COUNT; i++)
        sqlite3_finalize(s->stmt[i]);
    /* WAL is for while a run writes. Back in rollback mode a reader needs
     * no -shm file, so `truecost runs` creates nothing and works where it
     * may not write. Busy (another connection open) leaves WAL on, which
     * is just as correct. */
    if (s->wal)
        sqlite3_exec(s->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
    /* Every statement is finalized, so close cannot be refused as busy. */
    sqlite3_close(s->db);
    free(s->blob);
    free(s->path);
    free(s);
}

const char *tc_store_path(const tc_store *s)
{
    return s->path;
}

void tc_store_set_busy_timeout(tc_store *s, int ms)
{
    s->busy_ms = ms;
    sqlite3_busy_timeout(s->db, ms);
}

tc_err tc_store_stmt(tc_store *s, store_stmt id, const char *sql, sqlite3_stmt **out, char *err,
                     size_t errlen)
{
    sqlite3_stmt *st = s->stmt[id];
    if (st) {
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
    } else {
        int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
        if (rc != SQLITE_OK)
            return tc_store_sql_fail(s, rc, "preparing a statement", err, errlen);
        s->stmt[id] = st;
    }
    *out = st;
    return TC_OK;
}

tc_err tc_store_step_done(tc_store *s, sqlite3_stmt *st, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_step(st);
    tc_err e = rc == SQLITE_DONE ? TC_OK : tc_store_sql_fail(s, rc, what, err, errlen);
    sqlite3_reset(st);
    return e;
}

tc_err tc_store_begin(tc_store *s, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_BEGIN, "BEGIN IMMEDIATE", &st, err, errlen);
    return e != TC_OK ? e : tc_store_step_done(s, st, "locking for writing", err, errlen);
}

tc_err tc_store_commit(tc_store *s, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_COMMIT, "COMMIT", &st, err, errlen);
    return e != TC_OK ? e : tc_store_step_done(s, st, "committing", err, errlen);
}

tc_err tc_store_insert_batch(tc_store *s, int64_t run_id, const void *items, size_t n,
                             tc_store_insert_fn insert, char *err, size_t errlen)
{
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    if (n == 0)
        return TC_OK;
    tc_err e = tc_store_begin(s, err, errlen);
    for (size_t i = 0; e == TC_OK && i < n; i++)
        e = insert(s, run_id, i, items, err, errlen);
    if (e == TC_OK)
        e = tc_store_commit(s, err, errlen);
    if (e != TC_OK)
        tc_store_rollback(s);
    return e;
}

void tc_store_rollback(tc_store *s)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_get_autocommit(s->db))
        return;
    /* The caller reports the error that made it roll back; a rollback that
     * fails too leaves the transaction open, and the next begin says so. */
    if (tc_store_stmt(s, ST_ROLLBACK, "ROLLBACK", &st, NULL, 0) == TC_OK) {
        tc_err rc = tc_store_step_done(s, st, "rolling back", NULL, 0);
        (void)rc;
    }
}

void tc_store_col_text(sqlite3_stmt *st, int col, char *buf, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    size_t n = (size_t)sqlite3_column_bytes(st, col);
    if (n >= len)
        n = len - 1;
    if (t)
        memcpy(buf, t, n);
    else
        n = 0;
    buf[n] = '\0';
}

int tc_store_bind_field(sqlite3_stmt *st, int col, const char *field, size_t size)
{
    return sqlite3_bind_text(st, col, field, (int)strnlen(field, size), SQLITE_STATIC);
}
