/* Running nvidia-smi or rocm-smi: posix_spawnp with the output on pipes,
 * a deadline, and a kill when it passes. */
#define _GNU_SOURCE /* pipe2 */
#include "telem_smi.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/tc_time.h"

extern char **environ;

#define ERR_CAP 4096 /* bytes of stderr kept */

/* ---- running a command ---- */

void tc_smi_output_free(tc_smi_output *o)
{
    if (!o)
        return;
    free(o->out);
    free(o->err);
    memset(o, 0, sizeof *o);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* Waits for pid until deadline_ns, then kills it; returns the wait status
 * (-1 when it could not be reaped). */
static int reap(pid_t pid, int64_t deadline_ns, int *killed)
{
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return -1;
        if (tc_mono_ns() >= deadline_ns)
            break;
        sleep_ms(2);
    }
    /* The whole group: a wrapper script's children (the real tool under
     * it) would otherwise outlive it, one more per hung round. */
    kill(-pid, SIGKILL);
    *killed = 1;
    /* A command stuck in the kernel (a GPU off the bus) survives SIGKILL
     * until it leaves the driver: wait a second at most, never forever, or
     * the sampler thread and the run would hang with it. */
    for (int64_t give_up = tc_mono_ns() + 1000 * 1000000LL; tc_mono_ns() < give_up;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0 && errno != EINTR)
            return -1;
        sleep_ms(5);
    }
    return -1;
}

/* Reads what fd has into buf (len used of cap); beyond cap, bytes are
 * counted in *over and dropped. 0 at EOF or error, 1 otherwise. */
static int drain(int fd, char *buf, size_t *len, size_t cap, int *over)
{
    char scratch[4096];
    ssize_t r;
    do {
        if (*len < cap)
            r = read(fd, buf + *len, cap - *len);
        else
            r = read(fd, scratch, sizeof scratch);
    } while (r < 0 && errno == EINTR);
    if (r < 0)
        return errno == EAGAIN;
    if (r == 0)
        return 0;
    if (*len < cap)
        *len += (size_t)r;
    else
        *over = 1;
    return 1;
}

static tc_err spawn(const char *const argv[], pid_t *pid, int outfd, int errfd, char *err,
                    size_t errlen)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    if (posix_spawn_file_actions_init(&fa) != 0)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", argv[0]);
    if (posix_spawnattr_init(&at) != 0) {
        posix_spawn_file_actions_destroy(&fa);
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", argv[0]);
    }
    sigset_t none, dflt;
    sigemptyset(&none);
    sigemptyset(&dflt);
    sigaddset(&dflt, SIGPIPE);
    sigaddset(&dflt, SIGINT);
    sigaddset(&dflt, SIGTERM);
    int e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!e)
        e = posix_spawn_file_actions_adddup2(&fa, outfd, 1);
    if (!e)
        e = posix_spawn_file_actions_adddup2(&fa, errfd, 2);
    /* After the dup2s: the child must not inherit the load generator's HTTP
     * sockets (libcurl does not set close-on-exec on them). */
    if (!e)
        e = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
    if (!e)
        e = posix_spawnattr_setsigmask(&at, &none);
    if (!e)
        e = posix_spawnattr_setsigdefault(&at, &dflt);
    if (!e) /* its own process group (pgid = its pid), so a timeout kills them all */
        e = posix_spawnattr_setpgroup(&at, 0);
    if (!e)
        e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                              POSIX_SPAWN_SETPGROUP);
    if (!e)
        e = posix_spawnp(pid, argv[0], &fa, &at, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (e == ENOENT || e == EACCES || e == ENOTDIR)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s: %s", argv[0], strerror(e));
    if (e)
        return tc_fail(err, errlen, TC_ERR_IO, "%s: cannot start: %s", argv[0], strerror(e));
    return TC_OK;
}

tc_err tc_smi_run(const char *const argv[], int timeout_ms, tc_smi_output *o, char *err,
                  size_t errlen)
{
    memset(o, 0, sizeof *o);
    int outp[2] = {-1, -1}, errp[2] = {-1, -1};
    pid_t pid = -1;
    tc_err rc = TC_OK;
    o->out = malloc(TC_SMI_MAX_OUTPUT + 1);
    o->err = malloc(ERR_CAP + 1);
    if (!o->out || !o->err) {
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", argv[0]);
        goto done;
    }
    if (pipe2(outp, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0) {
        rc = tc_fail(err, errlen, TC_ERR_IO, "%s: pipe: %s", argv[0], strerror(errno));
        goto done;
    }
    if ((rc = spawn(argv, &pid, outp[1], errp[1], err, errlen)) != TC_OK) {
        pid = -1;
        goto done;
    }
    close_fd(&outp[1]);
    close_fd(&errp[1]);

    int64_t deadline = tc_mono_ns() + (int64_t)timeout_ms * TC_NS_PER_MS;
    int over = 0, err_over = 0, timed_out = 0;
    while ((outp[0] >= 0 || errp[0] >= 0) && !over) {
        int64_t left_ns = deadline - tc_mono_ns();
        if (left_ns <= 0) {
            timed_out = 1;
            break;
        }
        struct pollfd pf[2] = {{outp[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
        int pr = poll(pf, 2, (int)((left_ns + TC_NS_PER_MS - 1) / TC_NS_PER_MS));
        if (pr < 0 && errno != EINTR) {
            rc = tc_fail(err, errlen, TC_ERR_IO, "%s: poll: %s", argv[0], strerror(errno));
            goto done;
        }
        if (pr <= 0)
            continue;
        /* One byte past the cap tells an oversized output. */
        if (pf[0].revents && !drain(outp[0], o->out, &o->out_len, TC_SMI_MAX_OUTPUT + 1, &over))
            close_fd(&outp[0]);
        if (o->out_len > TC_SMI_MAX_OUTPUT)
            over = 1;
        if (pf[1].revents && !drain(errp[0], o->err, &o->err_len, ERR_CAP, &err_over))
            close_fd(&errp[0]);
    }
    close_fd(&outp[0]);
    close_fd(&errp[0]);
    int killed = 0;
    int status = reap(pid, timed_out || over ? 0 : deadline, &killed);
    pid = -1;
    if (timed_out || (killed && !over)) {
        rc = tc_fail(err, errlen, TC_ERR_IO, "%s: no answer within %d ms; killed", argv[0],
                     timeout_ms);
        goto done;
    }
    if (over) {
        rc = tc_fail(err, errlen, TC_ERR_IO, "%s: printed more than %d bytes; killed", argv[0],
                     TC_SMI_MAX_OUTPUT);
        goto done;
    }
    if (status == -1) {
        rc = tc_fail(err, errlen, TC_ERR_IO, "%s: waitpid: %s", argv[0], strerror(errno));
        goto done;
    }
    o->out[o->out_len] = '\0';
    o->err[o->err_len] = '\0';
    o->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
done:
    if (pid > 0) {
        int k = 0;
        reap(pid, 0, &k);
    }
    close_fd(&outp[0]);
    close_fd(&outp[1]);
    close_fd(&errp[0]);
    close_fd(&errp[1]);
    if (rc != TC_OK)
        tc_smi_output_free(o);
    return rc;
}
