/* The trainer's process: spawned in its own process group with its
 * stdout and stderr on pipes, read as they come with the --metrics file
 * followed beside them, a stop passed on to the group and SIGKILL after
 * the grace period, waited for. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/tc_time.h"
#include "measure_train_internal.h"

#define SAVE_EVERY_NS 250000000LL   /* steps reach the store within a quarter second ... */
#define SAVE_LATEST_NS 2000000000LL /* ... after the step that follows them, or 2 s */
#define POLL_MS 50
#define DRAIN_AFTER_EXIT_NS 2000000000LL /* a grandchild holding the pipes open */

/* The child: its own process group, the pipes as stdout and stderr, the
 * signals as a fresh process has them; exec's errno back on errpipe. */
static void child(char *const *argv, int out, int errfd, int errpipe)
{
    setpgid(0, 0);
    int null = open("/dev/null", O_RDONLY);
    if (null >= 0)
        dup2(null, 0); /* not the terminal: a background group reading it would stop */
    dup2(out, 1);
    dup2(errfd, 2);
    struct sigaction sa = {.sa_handler = SIG_DFL};
    sigemptyset(&sa.sa_mask);
    for (int s = 1; s < NSIG; s++)
        sigaction(s, &sa, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    /* Python block-buffers a pipe: its step lines would arrive together at
     * exit, each stamped then. Unbuffered unless the caller says otherwise. */
    setenv("PYTHONUNBUFFERED", "1", 0);
    execvp(argv[0], argv);
    int e = errno;
    ssize_t w = write(errpipe, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* Starts the child; 0, or -1 with the reason in info.note (not started). */
static int spawn(train_ctx *c)
{
    int out[2], errp[2], ep[2];
    if (pipe(out) < 0 || pipe(errp) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
        snprintf(c->info.note, sizeof c->info.note, "cannot make pipes: %s", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        close(errp[0]);
        close(ep[0]);
        child(c->cfg->argv, out[1], errp[1], ep[1]);
    }
    close(out[1]);
    close(errp[1]);
    close(ep[1]);
    int e = 0;
    ssize_t got = pid > 0 ? read(ep[0], &e, sizeof e) : 0;
    close(ep[0]);
    if (pid < 0 || got == (ssize_t)sizeof e) {
        if (pid > 0)
            waitpid(pid, NULL, 0);
        snprintf(c->info.note, sizeof c->info.note, "cannot run '%s': %s%s", c->cfg->argv[0],
                 strerror(pid < 0 ? errno : e),
                 e == ENOENT ? " (is it installed and on PATH? give its path)" : "");
        close(out[0]);
        close(errp[0]);
        return -1;
    }
    setpgid(pid, pid); /* also here: whichever runs first */
    c->pid = pid;
    c->src[0].fd = out[0];
    c->src[1].fd = errp[0];
    fcntl(out[0], F_SETFL, O_NONBLOCK);
    fcntl(errp[0], F_SETFL, O_NONBLOCK);
    return 0;
}

/* Reads what a pipe has; 0 at its end (closed), else 1. */
static int read_pipe(train_ctx *c, train_src *s, int fd_no)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(s->fd, buf, sizeof buf);
        if (n > 0) {
            int64_t t = tc_mono_ns();
            if (c->cb->output)
                c->cb->output(c->cb->ctx, fd_no, buf, (size_t)n);
            tc_measure_train_feed(c, s, buf, (size_t)n, t);
            continue;
        }
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 1;
        if (n < 0 && errno == EINTR)
            continue;
        tc_measure_train_flush_src(c, s, tc_mono_ns());
        close(s->fd);
        s->fd = -1;
        return 0;
    }
}

static void read_metrics(train_ctx *c, train_src *s)
{
    char buf[65536];
    ssize_t n;
    while ((n = read(s->fd, buf, sizeof buf)) > 0) {
        s->off += n;
        tc_measure_train_feed(c, s, buf, (size_t)n, tc_mono_ns());
    }
}

/* The --metrics file: opened once it is there, read as it grows, and read
 * again from its start when it shrank or was replaced (steps already read
 * are not counted twice). */
static void follow_metrics(train_ctx *c)
{
    train_src *s = &c->src[2];
    const char *path = c->cfg->metrics;
    struct stat st;
    if (!path || stat(path, &st) != 0)
        return;
    int replaced = s->fd >= 0 && (st.st_ino != s->ino || st.st_dev != s->dev);
    if (s->fd >= 0 && !replaced && st.st_size < s->off) {
        tc_measure_train_say(c,
                             "--metrics %s was truncated after step %lld: read again from its "
                             "start (steps already read are kept, not counted twice)",
                             path, (long long)c->last_step);
        snprintf(c->info.note, sizeof c->info.note, "--metrics file truncated during the run");
        lseek(s->fd, 0, SEEK_SET);
        s->off = 0;
        s->len = 0;
    }
    if (replaced) {
        read_metrics(c, s); /* what the old file still holds, first */
        tc_measure_train_flush_src(c, s, tc_mono_ns());
        tc_measure_train_say(c, "--metrics %s was replaced after step %lld: reading the new file",
                             path, (long long)c->last_step);
        snprintf(c->info.note, sizeof c->info.note, "--metrics file rewritten during the run");
        close(s->fd);
        s->fd = -1;
    }
    if (s->fd < 0) {
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
        if (s->fd < 0)
            return;
        s->off = 0;
        s->len = 0;
        s->ino = st.st_ino;
        s->dev = st.st_dev;
    }
    read_metrics(c, s);
}

/* A stop asked for: passed on once; SIGKILL once the grace period is over. */
static void pass_stop(train_ctx *c)
{
    volatile sig_atomic_t *stop = c->cb->stop;
    if (!c->pid)
        return;
    if (!c->pass_sig && stop && *stop) {
        c->pass_sig = *stop == SIGINT || *stop == SIGTERM ? (int)*stop : SIGTERM;
        c->passed_ns = tc_mono_ns();
        kill(-c->pid, c->pass_sig);
        return;
    }
    double grace = c->cfg->grace_s > 0 ? c->cfg->grace_s : 10;
    int hurry = c->cb->hurry && *c->cb->hurry;
    if (c->pass_sig && !c->escalated &&
        (hurry || tc_mono_ns() - c->passed_ns > (int64_t)(grace * 1e9))) {
        if (hurry)
            tc_measure_train_say(c, "a second stop: sending SIGKILL to the trainer's process "
                                    "group");
        else
            tc_measure_train_say(c,
                                 "the trainer did not stop %g s after %s: sending SIGKILL to "
                                 "its process group",
                                 grace, c->pass_sig == SIGINT ? "SIGINT" : "SIGTERM");
        kill(-c->pid, SIGKILL);
        c->escalated = 1;
    }
}

static void ended(train_ctx *c, int status)
{
    c->info.end_ns = tc_mono_ns();
    if (WIFEXITED(status)) {
        c->info.end = TC_TRAIN_EXITED;
        c->info.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        c->info.signal = WTERMSIG(status);
        c->info.end = c->escalated && c->info.signal == SIGKILL ? TC_TRAIN_KILLED
                      : c->pass_sig                             ? TC_TRAIN_INTERRUPTED
                                                                : TC_TRAIN_SIGNALED;
    }
    /* exited by itself after the stop was passed on: interrupted, exit code kept */
    if (c->pass_sig && c->info.end == TC_TRAIN_EXITED)
        c->info.end = TC_TRAIN_INTERRUPTED;
}

/* Reads what the pipes have within POLL_MS; 1 when something was read. */
static int poll_once(train_ctx *c)
{
    struct pollfd p[2];
    int n = 0, which[2];
    for (int i = 0; i < 2; i++)
        if (c->src[i].fd >= 0) {
            p[n] = (struct pollfd){.fd = c->src[i].fd, .events = POLLIN};
            which[n++] = i;
        }
    if (n == 0) {
        struct timespec ts = {0, POLL_MS * 1000000L};
        nanosleep(&ts, NULL);
        return 0;
    }
    if (poll(p, (nfds_t)n, POLL_MS) <= 0)
        return 0;
    for (int k = 0; k < n; k++)
        if (p[k].revents)
            read_pipe(c, &c->src[which[k]], which[k] + 1);
    return 1;
}

void tc_measure_train_proc(train_ctx *c)
{
    c->info.start_ns = tc_mono_ns();
    if (spawn(c) < 0) {
        c->info.end = TC_TRAIN_NOT_STARTED;
        c->info.end_ns = tc_mono_ns();
        return;
    }
    c->info.end = TC_TRAIN_RUNNING;
    tc_measure_train_save(c, 0);
    int status = 0, done = 0;
    int64_t exit_ns = 0;
    for (;;) {
        pass_stop(c);
        int64_t steps_before = c->info.steps;
        poll_once(c);
        follow_metrics(c);
        /* Saved just after a step came, when the next one is furthest
         * away: a save (a commit) in the way of a line would stamp it late. */
        int fresh = c->info.steps > steps_before;
        if (c->tctx.sampler || c->tctx.rsampler)
            tc_measure_drain(&c->tctx);
        if (!done && waitpid(c->pid, &status, WNOHANG) == c->pid) {
            done = 1;
            exit_ns = tc_mono_ns();
            ended(c, status);
        }
        if (!done && (fresh || tc_mono_ns() - c->last_save_ns > SAVE_LATEST_NS))
            tc_measure_train_save(c, SAVE_EVERY_NS);
        int open = c->src[0].fd >= 0 || c->src[1].fd >= 0;
        if (done && (!open || tc_mono_ns() - exit_ns > DRAIN_AFTER_EXIT_NS))
            break;
    }
    for (int i = 0; i < 2; i++)
        if (c->src[i].fd >= 0) {
            tc_measure_train_flush_src(c, &c->src[i], tc_mono_ns());
            close(c->src[i].fd);
            c->src[i].fd = -1;
        }
    follow_metrics(c);
    tc_measure_train_flush_src(c, &c->src[2], tc_mono_ns());
    if (c->src[2].fd >= 0)
        close(c->src[2].fd);
    c->src[2].fd = -1;
}
