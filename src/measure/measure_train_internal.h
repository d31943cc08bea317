/* Private to measure/measure_train*.c: a training run's state while it is
 * measured, shared by the run (measure_train.c), its lines
 * (measure_train_lines.c) and its process (measure_train_proc.c). */
#ifndef TC_MEASURE_TRAIN_INTERNAL_H
#define TC_MEASURE_TRAIN_INTERNAL_H

#include <sys/types.h>

#include "measure_internal.h"
#include "measure_train.h"

/* One source of lines: the child's stdout or stderr, or the --metrics file. */
typedef struct train_src {
    int fd; /* -1: closed (or the file not there yet) */
    int is_metrics;
    char *buf; /* the line so far, max_line + 1 bytes */
    size_t len;
    int dropping; /* past max_line: the rest of this line is dropped */
    off_t off;    /* the file: bytes read so far */
    ino_t ino;
    dev_t dev;
} train_src;

typedef struct train_ctx {
    const tc_measure_train_config *cfg;
    const tc_measure_train_callbacks *cb;
    tc_measure_train_outcome *out;
    tc_store *store;
    size_t max_line;
    tc_train_info info;
    tc_trainer *reader;  /* the output's lines */
    tc_trainer *mreader; /* the --metrics file's (NULL without one) */
    tc_trainer_tally tally;
    tc_train_step *pending; /* steps read, not yet stored */
    size_t n_pending, cap_pending;
    int64_t stored; /* steps stored: the idx of the next */
    int has_step;
    int64_t last_step; /* the trainer's number of the last step */
    int64_t last_save_ns;
    int save_said;
    char save_err[512];
    train_src src[3]; /* stdout, stderr, metrics */
    pid_t pid;
    int pass_sig; /* the signal passed on to the child (0: none yet) */
    int64_t passed_ns;
    int escalated;
    /* Telemetry through measure/'s run context. */
    tc_measure_config tcfg;
    tc_measure_callbacks tcb;
    tc_measure_ctx tctx;
} train_ctx;

/* Reads one whole line (NUL-terminated at line[len]) stamped t_ns. */
void tc_measure_train_line(train_ctx *c, int is_metrics, const char *line, size_t len,
                           int64_t t_ns);

/* Bytes of a source as read: split into lines, each read; a line longer
 * than max_line is read cut and the rest dropped (counted). */
void tc_measure_train_feed(train_ctx *c, train_src *s, const char *buf, size_t n, int64_t t_ns);

/* The last line of a source without its newline, at its end. */
void tc_measure_train_flush_src(train_ctx *c, train_src *s, int64_t t_ns);

/* Stores the steps and warnings read since the last save (every
 * `every_ns` at most, 0: now); a refused save keeps them for the next. */
void tc_measure_train_save(train_ctx *c, int64_t every_ns);

/* Says text through the notice callback (printf-like). */
void tc_measure_train_say(train_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Runs the child to its end: the output and metrics read, stops passed
 * on, telemetry drained, saves as it goes. Fills c->info's end. */
void tc_measure_train_proc(train_ctx *c);

#endif
