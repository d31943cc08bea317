/* Reading a trainer's output: each line of its stdout/stderr (or of a
 * --metrics file) is tried as a step record of one format (Hugging Face
 * Trainer dicts, torchtune's "Step N |" lines, Lightning's
 * ThroughputMonitor keys, JSON lines, or a regex with named groups), as a
 * checkpoint saved, and as a warning or error (trainer_classify.h). Pure:
 * bytes in, records out; no clock, no I/O (measure/ stamps the steps). */
#ifndef TC_TRAINER_H
#define TC_TRAINER_H

#include <stddef.h>

#include "core/tc_error.h"
#include "record/record_train.h"

typedef struct tc_trainer tc_trainer;

typedef struct tc_trainer_config {
    tc_train_format format;       /* AUTO: the first format a line matches, then that one */
    const char *step_regex;       /* REGEX: ERE with (?<name>...) groups; NULL otherwise */
    const char *checkpoint_regex; /* NULL: "Saving model checkpoint" and the like */
} tc_trainer_config;

/* What one line held; any of the parts may be set. */
typedef struct tc_trainer_line {
    int is_step; /* a step record in step (t_ns, wall_ns left 0) */
    tc_train_step step;
    int is_final;   /* Hugging Face's final summary: its fields were set in the info */
    int checkpoint; /* a checkpoint was saved */
    int is_warning; /* a warning or error: cls, category, message */
    tc_train_class cls;
    char category[64];
    char message[256];
} tc_trainer_line;

/* A reader for cfg. TC_ERR_INVALID with the reason (naming the option and
 * the fix) for a regex that does not compile, has no named group truecost
 * knows, or names one it does not; *out NULL then. Free with
 * tc_trainer_free. */
TC_MUST_CHECK tc_err tc_trainer_new(const tc_trainer_config *cfg, tc_trainer **out, char *err,
                                    size_t errlen);
void tc_trainer_free(tc_trainer *t);

/* Reads one line (without its newline; NUL-terminated at line[len], and
 * text after an embedded NUL is not read) into *out; Hugging Face's final
 * summary goes into info's train_* fields. Step numbers a format lacks are
 * counted on from the last. Returns 1 when the line held anything, else 0. */
int tc_trainer_read_line(tc_trainer *t, const char *line, size_t len, tc_trainer_line *out,
                         tc_train_info *info);

/* The format in use: the one given, or the one detected (AUTO until a line
 * matched). */
tc_train_format tc_trainer_format(const tc_trainer *t);

/* The named groups --step-regex may use, comma-separated, for messages. */
extern const char tc_trainer_regex_groups[];

/* ---- internal to trainer/, exposed for the tests and fuzzers ---------- */

/* Calls fn(ctx, key, key_len, value) for each `key: number`, `key=number`,
 * `'key': number` or `"key": number` in line. */
void tc_trainer_kv_scan(const char *line, void (*fn)(void *, const char *, size_t, double),
                        void *ctx);

/* The formats, each on one line: 1 when it is a step or summary of theirs. */
int tc_trainer_hf(const char *line, tc_train_step *s, int *is_final, tc_train_info *info,
                  double *tokens_seen);
int tc_trainer_torchtune(const char *line, tc_train_step *s);
int tc_trainer_lightning(const char *line, tc_train_step *s);

/* Lightning's CSVLogger (metrics.csv): a header of column names, then rows
 * of values; a row whose samples_per_sec or batches_per_sec cell is filled
 * is a step. The header is kept here (tc_trainer_csv_free). */
#define TC_TRAINER_CSV_MAX_COLS 256
typedef struct tc_trainer_csv {
    char *names; /* the header line, its commas turned to NULs */
    const char *col[TC_TRAINER_CSV_MAX_COLS];
    size_t n;
} tc_trainer_csv;
int tc_trainer_lightning_csv(tc_trainer_csv *h, const char *line, tc_train_step *s);
void tc_trainer_csv_free(tc_trainer_csv *h);
int tc_trainer_jsonl(const char *line, size_t len, tc_train_step *s);

#endif

/* ---- warnings and errors (trainer_classify.c) ---------------------------- */

/* Classifies one line: 1 with its class, category (a Python warning's
 * "UserWarning" and the like; else "") and message (the line from the
 * keyword on, trimmed, cut to fit) when it is a warning or error line;
 * 0 when it is neither. */
int tc_trainer_classify(const char *line, tc_train_class *cls, char *category, size_t catlen,
                        char *message, size_t msglen);

/* The distinct warnings and errors of a run, counted. */
#define TC_TRAINER_MAX_DISTINCT 500
typedef struct tc_trainer_tally {
    tc_train_warning *w; /* malloc'ed; n of them */
    size_t n, cap;
    int64_t beyond; /* lines of messages past TC_TRAINER_MAX_DISTINCT distinct ones */
    int changed;    /* set on every add; the caller clears it once saved */
} tc_trainer_tally;

/* Counts one line of (cls, category, message) seen after step `step`:
 * a message seen before gets one more, a new one is appended. 0, or -1
 * when memory ran out (nothing counted). */
int tc_trainer_tally_add(tc_trainer_tally *t, tc_train_class cls, const char *category,
                         const char *message, int64_t step);
void tc_trainer_tally_free(tc_trainer_tally *t);
