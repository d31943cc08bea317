/* truecost train's work: run a trainer's command, measure it, store it,
 * print its document, map how it ended to the exit status. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app/app.h"
#include "app/app_train.h"
#include "report/report_train.h"

static volatile sig_atomic_t hurry;

typedef struct echo_ctx {
    int json, quiet;
} echo_ctx;

/* The trainer's output as it comes: its stdout on ours (on stderr with
 * --json, so stdout holds the document alone), its stderr on ours. */
static void echo(void *vctx, int fd, const char *buf, size_t len)
{
    echo_ctx *e = vctx;
    if (e->quiet)
        return;
    int to = fd == 1 && !e->json ? STDOUT_FILENO : STDERR_FILENO;
    while (len > 0) {
        ssize_t n = write(to, buf, len);
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

static void notice(void *vctx, const char *text)
{
    (void)vctx;
    tc_app_error("train: %s", text);
}

/* The sim's own trainer is labelled SIMULATED wherever shown. */
static int is_sim(char *const *cmd)
{
    const char *base = strrchr(cmd[0], '/');
    base = base ? base + 1 : cmd[0];
    return strcmp(base, "truecost") == 0 && cmd[1] && strcmp(cmd[1], "sim") == 0 && cmd[2] &&
           strcmp(cmd[2], "train") == 0;
}

/* The exit status for how the run ended (train's help lists them). */
static int exit_status(const tc_measure_train_outcome *o)
{
    const tc_train_info *t = &o->info;
    switch (t->end) {
    case TC_TRAIN_NOT_STARTED:
        return TC_EXIT_RUNTIME;
    case TC_TRAIN_INTERRUPTED:
    case TC_TRAIN_KILLED:
        return tc_app_signal_exit();
    case TC_TRAIN_EXITED:
        return t->exit_code == 0 && t->steps > 0 ? TC_EXIT_OK : TC_EXIT_CHECK;
    default:
        return TC_EXIT_CHECK;
    }
}

static int report(tc_store *st, const tc_measure_train_outcome *o, int json)
{
    tc_show s = {.out = stdout, .form = json ? TC_SHOW_JSON : TC_SHOW_TABLE};
    int found = 0;
    char err[512];
    if (!json)
        fputc('\n', stdout);
    tc_err rc = tc_report_show_train(st, &o->run, &s, &found, err, sizeof err);
    if (rc != TC_OK) {
        tc_app_error("train: %s", err);
        return TC_EXIT_RUNTIME;
    }
    return TC_EXIT_OK;
}

/* What the end means, said on stderr. */
static void say_end(const tc_measure_train_outcome *o)
{
    const tc_train_info *t = &o->info;
    if (t->end == TC_TRAIN_NOT_STARTED)
        tc_app_error("train: %s (run %lld stored as failed)", t->note, (long long)o->run.id);
    else if (o->err[0])
        tc_app_error("train: %s", o->err);
    if (t->end == TC_TRAIN_EXITED && t->exit_code != 0)
        tc_app_error("train: the trainer exited with status %d after %lld steps (run %lld, kept "
                     "with every step)",
                     t->exit_code, (long long)t->steps, (long long)o->run.id);
    else if (t->end == TC_TRAIN_SIGNALED)
        tc_app_error("train: the trainer was killed by signal %d (%s) after %lld steps (run %lld, "
                     "kept with every step)",
                     t->signal, strsignal(t->signal), (long long)t->steps, (long long)o->run.id);
    else if (t->end == TC_TRAIN_INTERRUPTED || t->end == TC_TRAIN_KILLED)
        tc_app_error("train: interrupted after %lld steps; run %lld kept as interrupted%s",
                     (long long)t->steps, (long long)o->run.id,
                     o->escalated ? " (the trainer was killed with SIGKILL)" : "");
}

int tc_app_train(tc_measure_train_config *cfg, const char *db, int json, int quiet)
{
    cfg->simulated = is_sim(cfg->argv);
    tc_store *st;
    int code = tc_app_open_store(db, TC_STORE_WRITE, &st);
    if (code)
        return code;
    tc_app_install_stop_signals_then(&hurry);
    signal(SIGPIPE, SIG_IGN);
    echo_ctx e = {.json = json, .quiet = quiet};
    tc_measure_train_callbacks cb = {.stop = &tc_app_stop_requested,
                                     .hurry = &hurry,
                                     .output = echo,
                                     .notice = notice,
                                     .ctx = &e};
    tc_measure_train_outcome o;
    char err[1100];
    if (tc_measure_train(cfg, st, &cb, &o, err, sizeof err) != TC_OK) {
        tc_app_error("train: %s", err);
        tc_store_close(st);
        return TC_EXIT_RUNTIME;
    }
    code = exit_status(&o);
    if (o.info.steps == 0 && code == TC_EXIT_OK)
        code = TC_EXIT_CHECK;
    int rcode = o.info.end == TC_TRAIN_NOT_STARTED ? TC_EXIT_OK : report(st, &o, json);
    say_end(&o);
    tc_store_close(st);
    return rcode ? rcode : code;
}
