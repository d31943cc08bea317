/* The results store: one SQLite file (or, given a postgresql:// URL, a
 * PostgreSQL database with the same tables: store_db.h) that keeps every run and every raw
 * request record, written as the run goes (one transaction per batch) and
 * read back by `runs`, `show` and `export`. The records are the truth: a
 * run's figures are computed from them, once when the run ends, and kept
 * beside them (run_figures) so that a run of hundreds of millions of
 * chunks is shown without reading its chunks again.
 *
 * A writer turns on WAL mode, so `truecost runs` can read while a run
 * writes, and turns it back to rollback mode when it closes, so a reader
 * of a finished database needs no -shm file: it creates nothing and works
 * in a directory it may not write to.
 *
 * The file is marked as truecost's with PRAGMA application_id and carries
 * its schema version in PRAGMA user_version; a file that is not SQLite, or
 * is another program's database, or was written by a newer truecost is
 * refused and left untouched.
 *
 * Chunk arrival times are kept compactly in requests.chunks, a BLOB of
 * unsigned LEB128 varints (7 bits a byte, least significant group first,
 * high bit set on every byte but the last; at most 10 bytes a value): the
 * first is chunk[0] - send_ns, each next one chunk[i] - chunk[i-1]. Times
 * never go backwards (CLOCK_MONOTONIC), so a negative delta is refused
 * when writing. requests.n_chunks holds the count, so a BLOB that decodes
 * to another count is reported as corrupt. A typical 10-50 ms gap takes
 * 4 bytes instead of 8. */
#ifndef TC_STORE_H
#define TC_STORE_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"
#include "record/record_soak.h"
#include "record/record_train.h"
#include "record/record_sample.h"
#include "core/tc_error.h"

/* PRAGMA application_id of a truecost database: "TCst". */
#define TC_STORE_APPLICATION_ID 0x54437374
/* How long a statement waits for another writer before giving up. */
#define TC_STORE_BUSY_TIMEOUT_MS 3000
/* Longest path tc_store_default_path writes, with its NUL. */
#define TC_STORE_PATH_MAX 4096

typedef struct tc_store tc_store;

typedef enum tc_store_mode {
    TC_STORE_READ = 0, /* `runs`, `show`, `export`: never creates or changes anything */
    TC_STORE_WRITE     /* `run`: creates the file and its directories, migrates the schema */
} tc_store_mode;

/* Writes the database path into buf: $TRUECOST_DB, else
 * $XDG_DATA_HOME/truecost/truecost.db (an absolute XDG_DATA_HOME only, as
 * the XDG spec says), else $HOME/.local/share/truecost/truecost.db. Empty
 * variables count as unset. Returns TC_OK; TC_ERR_NOTFOUND when none is
 * set; TC_ERR_INVALID when buf is too small. */
TC_MUST_CHECK tc_err tc_store_default_path(char *buf, size_t len, char *err, size_t errlen);

/* Opens the database at path. WRITE creates missing parent directories
 * (mode 0700) and the file, turns on WAL mode and brings the schema up to
 * date; READ opens read-only and fails with TC_ERR_NOTFOUND ("no database
 * at PATH yet") when the file is missing, creating nothing. Both refuse a
 * file that is not truecost's or is from a newer truecost (TC_ERR_INVALID),
 * and WRITE refuses a read-only file (TC_ERR_IO) or one another process
 * keeps locked past the busy timeout (TC_ERR_BUSY); each message
 * names the path and the fix. On success *out is the store, freed with
 * tc_store_close; on failure *out is NULL. */
TC_MUST_CHECK tc_err tc_store_open(const char *path, tc_store_mode mode, tc_store **out, char *err,
                                   size_t errlen);

/* Closes the store (a writer leaves WAL mode if no one else has the file
 * open) and frees everything it holds; accepts NULL. */
void tc_store_close(tc_store *s);

/* The path the store was opened with (owned by the store). */
const char *tc_store_path(const tc_store *s);

/* Changes how long statements wait for a lock held by another connection
 * (TC_STORE_BUSY_TIMEOUT_MS after open). */
void tc_store_set_busy_timeout(tc_store *s, int ms);

/* 1 when target names a PostgreSQL database (postgresql:// or
 * postgres://), 0 for an SQLite file. */
int tc_store_is_url(const char *target);

/* target as it may be shown: a URL's password (user:PASSWORD@ or
 * password=...) replaced by "***". */
void tc_store_redact(const char *target, char *buf, size_t len);

/* 1 when the store is a PostgreSQL database (opened from a postgresql://
 * URL), 0 for an SQLite file. */
int tc_store_is_pg(const tc_store *s);

/* Stores a new run with status "running" and fills info->id and
 * info->status; a created_wall_ns of 0 is set to now. Returns TC_OK or an
 * error (TC_ERR_INVALID for an api out of range, TC_ERR_BUSY when the file
 * stayed locked, TC_ERR_IO for other SQLite failures; the same holds for
 * every writing call below). */
TC_MUST_CHECK tc_err tc_store_run_begin(tc_store *s, tc_run_info *info, char *err, size_t errlen);

/* Stores n finished requests of run run_id in one transaction: all of
 * them or, on any error (a seq already stored, an unknown run, a chunk
 * time before the one it follows), none. Statements are prepared once
 * and reused across calls. */
TC_MUST_CHECK tc_err tc_store_add_requests(tc_store *s, int64_t run_id, const tc_req_record *recs,
                                           size_t n, char *err, size_t errlen);

/* tc_store_run_begin for a run of group info->group that has runs_before
 * runs already (0 for its first): the count is checked and the run stored
 * in one write transaction, so two processes given the same --label at
 * once cannot both start it. TC_ERR_INVALID (and nothing stored) when the
 * group holds another number of runs. */
TC_MUST_CHECK tc_err tc_store_run_begin_group(tc_store *s, tc_run_info *info, size_t runs_before,
                                              char *err, size_t errlen);

/* Ends a running run with status "complete", "failed" or "interrupted"
 * and records when. TC_ERR_NOTFOUND for an unknown run, TC_ERR_INVALID
 * for another status or a run that has already ended. */
TC_MUST_CHECK tc_err tc_store_run_finish(tc_store *s, int64_t run_id, tc_run_status status,
                                         char *err, size_t errlen);

/* Every run, newest first, into a malloc'ed array the caller frees with
 * free() (*runs is NULL when there are none). */
TC_MUST_CHECK tc_err tc_store_list_runs(tc_store *s, tc_run_info **runs, size_t *n, char *err,
                                        size_t errlen);

/* Finds a run by "id or label": an all-digits string is an id, anything
 * else a label, of which the newest run is taken. TC_ERR_NOTFOUND with a
 * message that points to `truecost runs` when there is none. */
TC_MUST_CHECK tc_err tc_store_find_run(tc_store *s, const char *id_or_label, tc_run_info *out,
                                       char *err, size_t errlen);

/* The runs of group `group` (`run --repeat`), oldest first, into a
 * malloc'ed array the caller frees with free(); *n is 0 and *runs NULL
 * (TC_OK) when there is no such group, and for "". */
TC_MUST_CHECK tc_err tc_store_find_group(tc_store *s, const char *group, tc_run_info **runs,
                                         size_t *n, char *err, size_t errlen);

/* The requests of run run_id in seq order, chunk times decoded, into a
 * malloc'ed array (NULL when there are none); free it with
 * tc_store_free_requests. TC_ERR_NOTFOUND for an unknown run,
 * TC_ERR_PARSE for a corrupt row. */
TC_MUST_CHECK tc_err tc_store_load_requests(tc_store *s, int64_t run_id, tc_req_record **recs,
                                            size_t *n, char *err, size_t errlen);

/* Clears each of the n records (tc_req_record_clear) and frees the array;
 * accepts NULL. */
void tc_store_free_requests(tc_req_record *recs, size_t n);

/* ---- chunk-time codec (see the top of this file) ---- */

/* Longest encoding of one value. */
#define TC_VARINT_MAX 10

/* Writes v as unsigned LEB128 into out (TC_VARINT_MAX bytes of room);
 * returns the bytes written (1..10). */
size_t tc_store_varint_put(uint64_t v, uint8_t *out);

/* Reads one varint from in[0..len); returns the bytes read, or 0 when it
 * is truncated, longer than 10 bytes or over 64 bits. */
size_t tc_store_varint_get(const uint8_t *in, size_t len, uint64_t *v);

/* Bytes needed to encode n chunk times at most: n * TC_VARINT_MAX. */
size_t tc_store_chunks_bound(size_t n);

/* Calls fn(ctx, r) for each request of run_id in order of seq, one at a
 * time in a record that is reused (fn copies what it keeps), so memory does
 * not grow with the run. With first_chunk_only, r holds only its first
 * chunk time (enough for TTFT; not for ITL). Stops at the first error, fn's
 * included. TC_ERR_NOTFOUND for an unknown run. fn must not use the
 * store s itself (on PostgreSQL the rows are being streamed on its
 * connection); another store is fine. */
TC_MUST_CHECK tc_err tc_store_each_request(tc_store *s, int64_t run_id, int first_chunk_only,
                                           tc_err (*fn)(void *ctx, const tc_req_record *r),
                                           void *ctx, char *err, size_t errlen);

/* Encodes n chunk times after send_ns into out (tc_store_chunks_bound(n)
 * bytes of room) and sets *out_len. TC_ERR_INVALID when a time is before
 * the one it follows. */
TC_MUST_CHECK tc_err tc_store_chunks_encode(int64_t send_ns, const int64_t *chunk_ns, size_t n,
                                            uint8_t *out, size_t *out_len, char *err,
                                            size_t errlen);

/* Decodes exactly n chunk times from blob into a malloc'ed array *chunk_ns
 * (NULL when n is 0) that the caller frees. TC_ERR_PARSE when the blob is
 * malformed, holds another count, or a time would pass INT64_MAX. */
TC_MUST_CHECK tc_err tc_store_chunks_decode(int64_t send_ns, const uint8_t *blob, size_t len,
                                            size_t n, int64_t **chunk_ns, char *err, size_t errlen);

/* ---- telemetry (schema version 2) -------------------------------------- */

/* Stores the run's devices, numbered 0..n-1 in the given order. */
TC_MUST_CHECK tc_err tc_store_add_devices(tc_store *s, int64_t run_id, const tc_run_device *devs,
                                          int n, char *err, size_t errlen);

/* Stores a batch of samples in one transaction. */
TC_MUST_CHECK tc_err tc_store_add_samples(tc_store *s, int64_t run_id, const tc_run_sample *samples,
                                          size_t n, char *err, size_t errlen);

/* Loads the run's devices and samples (samples by device, then time).
 * The caller frees both arrays with free(). A run without telemetry gives
 * zero of each. */
TC_MUST_CHECK tc_err tc_store_load_telemetry(tc_store *s, int64_t run_id, tc_run_device **devs,
                                             int *n_devs, tc_run_sample **samples,
                                             size_t *n_samples, char *err, size_t errlen);

/* ---- environment fingerprint (schema version 3) ------------------------- */

/* Stores (or replaces) the run's fingerprint, a JSON text. */
TC_MUST_CHECK tc_err tc_store_set_fingerprint(tc_store *s, int64_t run_id, const char *json,
                                              char *err, size_t errlen);

/* The run's fingerprint as a malloc()ed JSON text the caller frees, or
 * NULL in *json when the run has none (TC_OK). */
TC_MUST_CHECK tc_err tc_store_get_fingerprint(tc_store *s, int64_t run_id, char **json, char *err,
                                              size_t errlen);

/* ---- a finished run's figures (schema version 5) ------------------------ */

/* Stores (or replaces) the run's figures, a JSON text made by the analysis
 * layer, with the version of their definition. */
TC_MUST_CHECK tc_err tc_store_set_figures(tc_store *s, int64_t run_id, int version,
                                          const char *json, char *err, size_t errlen);

/* The run's figures of definition `version` as a malloc()ed JSON text the
 * caller frees, or NULL in *json when there are none of that version
 * (TC_OK): the caller then computes them from the records. */
TC_MUST_CHECK tc_err tc_store_get_figures(tc_store *s, int64_t run_id, int version, char **json,
                                          char *err, size_t errlen);

/* The ids of the finished runs (not 'running') without figures of
 * `version`, ascending, malloc()ed (free() it; NULL when *n is 0). */
TC_MUST_CHECK tc_err tc_store_runs_without_figures(tc_store *s, int version, int64_t **ids,
                                                   size_t *n, char *err, size_t errlen);

/* ---- workload shape (schema version 7) --------------------------------- */

/* Stores (or replaces) the workload shape of a run of synthetic prompts. */
TC_MUST_CHECK tc_err tc_store_set_workload(tc_store *s, int64_t run_id, const tc_run_workload *w,
                                           char *err, size_t errlen);

/* The run's workload shape into *w, *found = 1; *found = 0 (TC_OK) when
 * the run has none (given prompts, or a run from before schema 7). */
TC_MUST_CHECK tc_err tc_store_get_workload(tc_store *s, int64_t run_id, tc_run_workload *w,
                                           int *found, char *err, size_t errlen);

/* ---- import (truecost import) ----------------------------------------- */

typedef struct tc_store_import_stats {
    size_t seen;      /* runs in the source */
    size_t copied;    /* copied now */
    size_t present;   /* already in the target (same uuid): left alone */
    size_t running;   /* still running in the source: left for a later import */
    int64_t requests; /* request records copied */
    int64_t samples;  /* telemetry samples copied */
    int interrupted;  /* *stop was set: the runs after the last copied were left */
} tc_store_import_stats;

/* Copies every finished run of src that dst lacks (runs are known by their
 * uuid, so importing twice adds nothing) with its requests, chunks,
 * devices, samples, fingerprint, workload and stored figures, its label,
 * group and status. Each run is one transaction of dst and gets a new id
 * there. Runs still running are left for a later import. src may be
 * opened read-only; dst must be writable. */
TC_MUST_CHECK tc_err tc_store_import(tc_store *dst, tc_store *src, tc_store_import_stats *stats,
                                     char *err, size_t errlen);

/* tc_store_import that stops before the next run once *stop is set
 * (stats->interrupted): every run copied so far is whole. stop may be
 * NULL. */
TC_MUST_CHECK tc_err tc_store_import_until(tc_store *dst, tc_store *src,
                                           const volatile sig_atomic_t *stop,
                                           tc_store_import_stats *stats, char *err, size_t errlen);

/* ---- soaks (schema 11) ------------------------------------------------------ */

/* Stores (or replaces) a soak's plan and where it stands. */
TC_MUST_CHECK tc_err tc_store_soak_set_plan(tc_store *s, const tc_soak_plan *plan, char *err,
                                            size_t errlen);

/* The soak plan of run_id into *plan, *found = 1; *found = 0 (TC_OK) when
 * the run is no soak (or the file is older than soaks). */
TC_MUST_CHECK tc_err tc_store_soak_get_plan(tc_store *s, int64_t run_id, tc_soak_plan *plan,
                                            int *found, char *err, size_t errlen);

/* One closed window, the plan as it now stands and the outages that
 * changed (replaced by their start), in one transaction. */
TC_MUST_CHECK tc_err tc_store_soak_save(tc_store *s, const tc_soak_plan *plan,
                                        const tc_soak_window *w, const tc_soak_outage *o,
                                        size_t n_outages, char *err, size_t errlen);

/* A stopped run measured again (soak --resume): its status back to
 * "running", its end cleared; *next_seq gets the number its next request
 * takes (one past the highest stored). */
TC_MUST_CHECK tc_err tc_store_run_reopen(tc_store *s, int64_t run_id, int64_t *next_seq, char *err,
                                         size_t errlen);

/* Every window (by idx) and outage (by start) of a soak; the caller frees
 * both arrays (free()). */
TC_MUST_CHECK tc_err tc_store_soak_load(tc_store *s, int64_t run_id, tc_soak_window **w,
                                        size_t *n_windows, tc_soak_outage **o, size_t *n_outages,
                                        char *err, size_t errlen);

/* ---- training runs (schema 17) ------------------------------------------- */

/* Stores a training run as it stands, in one transaction: its plan and
 * end (info, replaced), n_steps more steps numbered first_idx,
 * first_idx + 1, ... (a step already stored under an idx is refused), and
 * when w is not NULL its distinct warnings, replacing those stored. */
TC_MUST_CHECK tc_err tc_store_train_save(tc_store *s, const tc_train_info *info,
                                         const tc_train_step *steps, int64_t first_idx,
                                         size_t n_steps, const tc_train_warning *w, size_t n_w,
                                         char *err, size_t errlen);

/* The training run run_id: its info (*found = 0 and TC_OK when the run is
 * no training run, or the file is older than schema 17), its steps in
 * order and its warnings in the order first seen, malloc'ed arrays the
 * caller frees with free() (NULL when none); steps and w may be NULL when
 * not wanted. */
TC_MUST_CHECK tc_err tc_store_train_load(tc_store *s, int64_t run_id, tc_train_info *info,
                                         int *found, tc_train_step **steps, size_t *n_steps,
                                         tc_train_warning **w, size_t *n_w, char *err,
                                         size_t errlen);

#endif
