/* nvidia-smi and rocm-smi backends: run the vendor's command, parse what it
 * prints. Used only where the vendor library cannot be loaded; a command
 * run costs tens of milliseconds (nvidia-smi) to about a second (rocm-smi,
 * a Python program), so one run serves every device of a tick. */
/* memmem, pipe2 */
#define _GNU_SOURCE
#include "telem_smi.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/tc_time.h"
#include "telem_sysfs.h"

extern char **environ;

#define ERR_CAP 4096 /* bytes of stderr kept */

/* ---- small text helpers ---- */

/* Copies s[n] into dst[len] (truncated, NUL-terminated), control bytes
 * replaced by '?': the text is shown and stored as it is. */
static void copy_clean(char *dst, size_t len, const char *s, size_t n)
{
    if (n > len - 1)
        n = len - 1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        dst[i] = c < 0x20 || c == 0x7F ? '?' : (char)c;
    }
    dst[n] = '\0';
}

/* Whether needle occurs in hay[n], ignoring ASCII case. */
static int contains_ci(const char *hay, size_t n, const char *needle)
{
    size_t m = strlen(needle);
    for (size_t i = 0; m <= n && i <= n - m; i++)
        if (strncasecmp(hay + i, needle, m) == 0)
            return 1;
    return 0;
}

static void trim(const char **s, size_t *n)
{
    while (*n && isspace((unsigned char)**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && isspace((unsigned char)(*s)[*n - 1]))
        (*n)--;
}

/* A value the tool gives when it has none: "", "N/A", "[N/A]", "[Not
 * Supported]" or any other "[...]". */
static int not_available(const char *s, size_t n)
{
    return n == 0 || (n == 3 && strncasecmp(s, "N/A", 3) == 0) || (s[0] == '[' && s[n - 1] == ']');
}

/* Parses all of s[n] as [-]digits[.digits] times 10^scale (scale 0..3;
 * fraction digits past it are dropped). 0 when it is anything else or
 * does not fit an int64. */
static int parse_scaled(const char *s, size_t n, int allow_neg, int scale, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (i < n && s[i] == '-' && allow_neg) {
        neg = 1;
        i++;
    }
    int64_t v = 0;
    size_t digits = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, digits++) {
        if (v > (INT64_MAX - (s[i] - '0')) / 10)
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    if (digits == 0)
        return 0;
    int frac = 0;
    if (i < n && s[i] == '.') {
        i++;
        size_t fd = 0;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, fd++)
            if (frac < scale) {
                if (v > (INT64_MAX - (s[i] - '0')) / 10)
                    return 0;
                v = v * 10 + (s[i] - '0');
                frac++;
            }
        if (fd == 0)
            return 0;
    }
    if (i != n)
        return 0;
    for (; frac < scale; frac++) {
        if (v > INT64_MAX / 10)
            return 0;
        v *= 10;
    }
    *out = neg ? -v : v;
    return 1;
}

/* ---- nvidia-smi ---- */

static const char *const col_names[TC_SMI_NCOL] = {"index",           "name",
                                                   "driver_version",  "power.draw",
                                                   "utilization.gpu", "utilization.memory",
                                                   "memory.used",     "memory.total",
                                                   "temperature.gpu", "clocks.sm",
                                                   "clocks.mem",      "power.limit",
                                                   "pci.bus_id"};

const char *tc_smi_col_name(int col)
{
    return col >= 0 && col < TC_SMI_NCOL ? col_names[col] : NULL;
}

unsigned tc_smi_nvidia_columns(const char *text, size_t len)
{
    unsigned cols = TC_SMI_REQUIRED_COLS;
    for (int c = 0; c < TC_SMI_NCOL; c++) {
        char quoted[64];
        int qn = snprintf(quoted, sizeof quoted, "\"%s\"", col_names[c]);
        if (text && memmem(text, len, quoted, (size_t)qn))
            cols |= 1u << c;
    }
    return cols;
}

/* Sets the field of column col from the trimmed value v[n]. 0 when v is
 * neither "not available" nor a number of the column's kind. */
static int set_nvidia_field(tc_smi_gpu *g, int col, const char *v, size_t n)
{
    tc_telem_sample *s = &g->s;
    int64_t x = 0;
    if (col == TC_SMI_NAME || col == TC_SMI_DRIVER || col == TC_SMI_BUS_ID) {
        if (not_available(v, n))
            return 1;
        char *dst = col == TC_SMI_NAME ? g->name : col == TC_SMI_DRIVER ? g->driver : g->bus_id;
        copy_clean(dst, col == TC_SMI_NAME ? sizeof g->name : sizeof g->driver, v, n);
        return 1;
    }
    if (not_available(v, n))
        return col != TC_SMI_INDEX; /* a line without its index is no GPU */
    /* nvidia-smi prints only watts with decimals; elsewhere a '.' is wrong. */
    if (col != TC_SMI_POWER && col != TC_SMI_POWER_LIMIT && memchr(v, '.', n))
        return 0;
    switch (col) {
    case TC_SMI_INDEX:
        if (!parse_scaled(v, n, 0, 0, &x) || x > 1000000)
            return 0;
        g->index = (int)x;
        return 1;
    case TC_SMI_POWER:
    case TC_SMI_POWER_LIMIT: /* W with decimals -> mW */
        if (!parse_scaled(v, n, 0, 3, &x))
            return 0;
        if (col == TC_SMI_POWER) {
            s->power_mw = x;
            s->power_instant = 0; /* power.draw: 1 s average on Ampere and newer */
            s->valid |= TC_TF_POWER;
        } else {
            s->power_limit_mw = x;
            s->valid |= TC_TF_POWER_LIMIT;
        }
        return 1;
    case TC_SMI_MEM_USED:
    case TC_SMI_MEM_TOTAL: /* MiB -> bytes */
        if (!parse_scaled(v, n, 0, 0, &x) || x > INT64_MAX / 1048576)
            return 0;
        if (col == TC_SMI_MEM_USED) {
            s->mem_used_bytes = x * 1048576;
            s->valid |= TC_TF_MEM_USED;
        } else {
            s->mem_total_bytes = x * 1048576;
            s->valid |= TC_TF_MEM_TOTAL;
        }
        return 1;
    case TC_SMI_TEMP: /* C -> milli-C */
        if (!parse_scaled(v, n, 1, 3, &x) || x > 1000000000 || x < -1000000000)
            return 0;
        s->temp_mc = (int)x;
        s->valid |= TC_TF_TEMP;
        return 1;
    default: /* utilisation %, clocks MHz: plain integers */
        if (!parse_scaled(v, n, 0, 0, &x) || x > 1000000000)
            return 0;
        switch (col) {
        case TC_SMI_UTIL_GPU:
            s->util_pct = (int)x;
            s->valid |= TC_TF_UTIL_GPU;
            break;
        case TC_SMI_UTIL_MEM:
            s->mem_util_pct = (int)x;
            s->valid |= TC_TF_UTIL_MEM;
            break;
        case TC_SMI_CLOCK_SM:
            s->clock_sm_mhz = (int)x;
            s->valid |= TC_TF_CLOCK_SM;
            break;
        default:
            s->clock_mem_mhz = (int)x;
            s->valid |= TC_TF_CLOCK_MEM;
            break;
        }
        return 1;
    }
}

/* Parses one non-blank line into g. */
static tc_err parse_nvidia_line(const char *line, size_t len, int lineno, unsigned cols,
                                tc_smi_gpu *g, char *err, size_t errlen)
{
    int want = 0;
    for (int c = 0; c < TC_SMI_NCOL; c++)
        want += (cols >> c) & 1u;
    int got = 1;
    for (size_t i = 0; i < len; i++)
        got += line[i] == ',';
    if (got != want)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "nvidia-smi output line %d: expected %d comma-separated fields, got %d",
                       lineno, want, got);
    memset(g, 0, sizeof *g);
    size_t pos = 0;
    for (int c = 0; c < TC_SMI_NCOL; c++) {
        if (!(cols & (1u << c)))
            continue;
        const char *v = line + pos;
        const char *comma = memchr(v, ',', len - pos);
        size_t n = comma ? (size_t)(comma - v) : len - pos;
        pos += n + (comma ? 1 : 0);
        trim(&v, &n);
        if (!set_nvidia_field(g, c, v, n)) {
            char shown[48];
            copy_clean(shown, sizeof shown, v, n);
            return tc_fail(err, errlen, TC_ERR_PARSE,
                           "nvidia-smi output line %d, %s: '%s' is not %s", lineno, col_names[c],
                           shown, c == TC_SMI_INDEX ? "a GPU index" : "a number");
        }
    }
    return TC_OK;
}

tc_err tc_smi_parse_nvidia_csv(const char *text, size_t len, unsigned cols, tc_smi_gpu *out,
                               int max, int *n, char *err, size_t errlen)
{
    *n = 0;
    if ((cols & TC_SMI_REQUIRED_COLS) != TC_SMI_REQUIRED_COLS || (cols & ~TC_SMI_ALL_COLS))
        return tc_fail(err, errlen, TC_ERR_INVALID, "nvidia-smi: the query lacks index or name");
    size_t pos = 0;
    int lineno = 0;
    while (pos < len) {
        const char *line = text + pos;
        const char *nl = memchr(line, '\n', len - pos);
        size_t ll = nl ? (size_t)(nl - line) : len - pos;
        pos += ll + (nl ? 1 : 0);
        lineno++;
        const char *t = line;
        size_t tl = ll;
        trim(&t, &tl);
        if (tl == 0)
            continue;
        tc_err rc = *n >= max ? tc_fail(err, errlen, TC_ERR_INVALID,
                                        "nvidia-smi output line %d: more than %d GPUs", lineno, max)
                              : parse_nvidia_line(t, tl, lineno, cols, &out[*n], err, errlen);
        if (rc != TC_OK) {
            *n = 0;
            return rc;
        }
        (*n)++;
    }
    return TC_OK;
}

/* ---- rocm-smi ---- */

/* "cardN" (N without leading zeros, at most 6 digits): N, else -1. */
static int card_index(const char *key)
{
    if (strncmp(key, "card", 4) != 0)
        return -1;
    const char *d = key + 4;
    size_t nd = strlen(d);
    if (nd == 0 || nd > 6 || (d[0] == '0' && nd > 1) || strspn(d, "0123456789") != nd)
        return -1;
    return atoi(d);
}

/* A JSON value as a number times 10^scale: strings "35.0" and numbers. */
static int json_scaled(json_t *v, int allow_neg, int scale, int64_t *out)
{
    static const double pow10[] = {1, 10, 100, 1000};
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        trim(&s, &n);
        return parse_scaled(s, n, allow_neg, scale, out);
    }
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if ((!allow_neg && x < 0) || x > INT64_MAX / 1000 || x < -(INT64_MAX / 1000))
            return 0;
        *out = (int64_t)x * (int64_t)pow10[scale];
        return 1;
    }
    if (json_is_real(v)) {
        double x = json_real_value(v) * pow10[scale];
        if (!isfinite(x) || (!allow_neg && x < 0) || fabs(x) >= 9.2e18)
            return 0;
        *out = (int64_t)x;
        return 1;
    }
    return 0;
}

static int fits_int(int64_t x)
{
    return x >= -2000000000 && x <= 2000000000;
}

/* Sets the field a rocm-smi key names, when its value is a number. */
static void set_rocm_field(tc_smi_gpu *g, const char *key, json_t *v, int *power_is_current)
{
    tc_telem_sample *s = &g->s;
    size_t kl = strlen(key);
    int64_t x = 0;
    if (contains_ci(key, kl, "card series") || contains_ci(key, kl, "card model")) {
        int series = contains_ci(key, kl, "card series");
        const char *t = json_string_value(v);
        size_t tn = t ? json_string_length(v) : 0;
        trim(&t, &tn);
        if (t && !not_available(t, tn) && (series || g->name[0] == '\0'))
            copy_clean(g->name, sizeof g->name, t, tn);
    } else if (contains_ci(key, kl, "power") && contains_ci(key, kl, "(w)") &&
               !contains_ci(key, kl, "max") && !contains_ci(key, kl, "cap") &&
               !contains_ci(key, kl, "limit")) {
        int current = contains_ci(key, kl, "current");
        if ((current || !*power_is_current) && json_scaled(v, 0, 3, &x)) {
            s->power_mw = x;
            s->power_instant = current;
            s->valid |= TC_TF_POWER;
            *power_is_current = current;
        }
    } else if (strncasecmp(key, "gpu use", 7) == 0) {
        if (json_scaled(v, 0, 0, &x) && fits_int(x)) {
            s->util_pct = (int)x;
            s->valid |= TC_TF_UTIL_GPU;
        }
    } else if (contains_ci(key, kl, "vram")) {
        if (!json_scaled(v, 0, 0, &x))
            return;
        if (contains_ci(key, kl, "used")) {
            s->mem_used_bytes = x;
            s->valid |= TC_TF_MEM_USED;
        } else if (contains_ci(key, kl, "total")) {
            s->mem_total_bytes = x;
            s->valid |= TC_TF_MEM_TOTAL;
        }
    } else if (contains_ci(key, kl, "memory") &&
               (contains_ci(key, kl, "use (%)") || contains_ci(key, kl, "activity"))) {
        if (json_scaled(v, 0, 0, &x) && fits_int(x)) {
            s->mem_util_pct = (int)x;
            s->valid |= TC_TF_UTIL_MEM;
        }
    } else if (contains_ci(key, kl, "temperature")) {
        if (!json_scaled(v, 1, 3, &x) || !fits_int(x))
            return;
        if (contains_ci(key, kl, "edge")) {
            s->temp_mc = (int)x;
            s->valid |= TC_TF_TEMP;
        } else if (contains_ci(key, kl, "junction") || contains_ci(key, kl, "hotspot")) {
            s->temp_hot_mc = (int)x;
            s->valid |= TC_TF_TEMP_HOT;
        }
    } else if (contains_ci(key, kl, "accumulated energy")) {
        if (json_scaled(v, 0, 0, &x)) {
            s->energy_uj = (uint64_t)x;
            s->valid |= TC_TF_ENERGY;
        }
    }
}

static int by_index(const void *a, const void *b)
{
    const tc_smi_gpu *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

tc_err tc_smi_parse_rocm_json(const char *text, size_t len, tc_smi_gpu *out, int max, int *n,
                              char *err, size_t errlen)
{
    *n = 0;
    /* rocm-smi may print warnings before its JSON. */
    size_t start = 0;
    int skipped = 0;
    while (start < len && text[start] != '{') {
        const char *nl = memchr(text + start, '\n', len - start);
        if (!nl) {
            start = len;
            break;
        }
        start = (size_t)(nl - text) + 1;
        skipped++;
    }
    if (start >= len)
        return tc_fail(err, errlen, TC_ERR_PARSE, "rocm-smi output: no JSON object");
    json_error_t je;
    json_t *root = json_loadb(text + start, len - start, JSON_DISABLE_EOF_CHECK, &je);
    if (!root)
        return tc_fail(err, errlen, TC_ERR_PARSE, "rocm-smi output line %d, column %d: %s",
                       je.line + skipped, je.column, je.text);
    tc_err rc = TC_OK;
    if (!json_is_object(root)) {
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "rocm-smi output: not a JSON object");
        goto done;
    }
    const char *key;
    json_t *card;
    json_object_foreach(root, key, card)
    {
        int idx = card_index(key);
        if (idx < 0 || !json_is_object(card))
            continue;
        if (*n >= max) {
            rc = tc_fail(err, errlen, TC_ERR_INVALID, "rocm-smi output: more than %d cards", max);
            goto done;
        }
        tc_smi_gpu *g = &out[(*n)++];
        memset(g, 0, sizeof *g);
        g->index = idx;
        int power_is_current = 0;
        const char *fk;
        json_t *fv;
        json_object_foreach(card, fk, fv)
        {
            set_rocm_field(g, fk, fv, &power_is_current);
        }
    }
    if (*n == 0) {
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "rocm-smi output: no \"cardN\" object");
        goto done;
    }
    qsort(out, (size_t)*n, sizeof *out, by_index);
done:
    json_decref(root);
    if (rc != TC_OK)
        *n = 0;
    return rc;
}

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
    kill(pid, SIGKILL);
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
    if (!e)
        e = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
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

/* ---- the backends ---- */

typedef enum { VENDOR_NVIDIA, VENDOR_AMD } vendor;

typedef struct smi_gpu_state {
    tc_smi_gpu first; /* as init saw it: identifies the GPU in later runs */
    tc_telem_device info;
    int fresh;            /* the cached reading has not been handed out yet */
    uint64_t energy_last; /* rocm-smi: raw counter of the last sample */
    uint64_t energy_base; /* what earlier counter resets added */
} smi_gpu_state;

typedef struct smi_state {
    vendor v;
    char *cmd;
    char query[512];
    unsigned cols;
    int ngpu;
    smi_gpu_state *gpu;
    tc_smi_gpu *cur; /* the last run's reading, TC_SMI_MAX_GPUS of them */
    int ncur;
    int64_t cur_ns;
    int failures; /* command runs failed in a row */
    char last_error[512];
} smi_state;

#define NVIDIA_DRIVER_HINT                                                                         \
    "the NVIDIA driver is not loaded: check `lsmod | grep nvidia`, Secure Boot (`mokutil "         \
    "--sb-state`), nouveau (`lsmod | grep nouveau`), or reboot after installing the driver"
#define AMD_DRIVER_HINT                                                                            \
    "the amdgpu driver is not initialised: check `lsmod | grep amdgpu` and that you are in the "   \
    "render and video groups"

static const char *tool(const smi_state *st)
{
    return st->v == VENDOR_NVIDIA ? "nvidia-smi" : "rocm-smi";
}

/* The first non-blank line of text, for an error message. */
static void first_line(const char *text, size_t len, char *out, size_t outlen)
{
    const char *s = text;
    size_t n = len;
    trim(&s, &n);
    const char *nl = memchr(s, '\n', n);
    if (nl)
        n = (size_t)(nl - s);
    trim(&s, &n);
    copy_clean(out, outlen, s, n);
}

/* Runs argv and turns a failure into the reason the user can act on. */
static tc_err run_checked(smi_state *st, const char *const argv[], tc_smi_output *o, char *err,
                          size_t errlen)
{
    char why[256];
    tc_err rc = tc_smi_run(argv, TC_SMI_TIMEOUT_MS, o, why, sizeof why);
    if (rc == TC_ERR_NOTFOUND) {
        if (strchr(st->cmd, '/'))
            return tc_fail(err, errlen, rc, "%s not found or not executable (%s)", st->cmd, why);
        return tc_fail(err, errlen, rc, "%s not found on PATH", st->cmd);
    }
    if (rc != TC_OK)
        return tc_fail(err, errlen, rc, "%s", why);
    if (o->status == 0)
        return TC_OK;
    if (st->v == VENDOR_NVIDIA &&
        (contains_ci(o->out, o->out_len, "communicate with the NVIDIA driver") ||
         contains_ci(o->err, o->err_len, "communicate with the NVIDIA driver")))
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s: %s", st->cmd, NVIDIA_DRIVER_HINT);
    else if (st->v == VENDOR_NVIDIA && contains_ci(o->out, o->out_len, "No devices were found"))
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s: no NVIDIA GPU found", st->cmd);
    else if (st->v == VENDOR_AMD && (contains_ci(o->out, o->out_len, "driver not initialized") ||
                                     contains_ci(o->err, o->err_len, "driver not initialized")))
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s: %s", st->cmd, AMD_DRIVER_HINT);
    else {
        char line[160];
        first_line(o->err_len ? o->err : o->out, o->err_len ? o->err_len : o->out_len, line,
                   sizeof line);
        rc = tc_fail(err, errlen, TC_ERR_IO, "%s exited with status %d%s%s%s", st->cmd, o->status,
                     line[0] ? ": " : "", line,
                     contains_ci(o->err, o->err_len, "unrecognized arguments")
                         ? " (rocm-smi too old for these options: upgrade ROCm)"
                         : "");
    }
    tc_smi_output_free(o);
    return rc;
}

/* Runs the query and parses it into st->cur. */
static tc_err refresh(smi_state *st, char *err, size_t errlen)
{
    static const char *const rocm_args[] = {
        "--showproductname", "--showpower", "--showuse",           "--showmemuse", "--showtemp",
        "--showmeminfo",     "vram",        "--showenergycounter", "--json",       NULL};
    const char *argv[16] = {st->cmd};
    if (st->v == VENDOR_NVIDIA) {
        argv[1] = st->query;
        argv[2] = "--format=csv,noheader,nounits";
    } else {
        for (int i = 0; rocm_args[i]; i++)
            argv[i + 1] = rocm_args[i];
    }
    st->ncur = 0;
    tc_smi_output o;
    tc_err rc = run_checked(st, argv, &o, err, errlen);
    if (rc != TC_OK)
        return rc;
    st->cur_ns = tc_telem_now_ns();
    if (st->v == VENDOR_NVIDIA)
        rc = tc_smi_parse_nvidia_csv(o.out, o.out_len, st->cols, st->cur, TC_SMI_MAX_GPUS,
                                     &st->ncur, err, errlen);
    else
        rc = tc_smi_parse_rocm_json(o.out, o.out_len, st->cur, TC_SMI_MAX_GPUS, &st->ncur, err,
                                    errlen);
    tc_smi_output_free(&o);
    for (int i = 0; i < st->ngpu; i++)
        st->gpu[i].fresh = rc == TC_OK;
    return rc;
}

/* Picks the columns this nvidia-smi knows and builds the query. */
static tc_err probe_nvidia(smi_state *st, char *err, size_t errlen)
{
    const char *argv[] = {st->cmd, "--help-query-gpu", NULL};
    tc_smi_output o;
    tc_err rc = run_checked(st, argv, &o, err, errlen);
    if (rc != TC_OK)
        return rc;
    st->cols = tc_smi_nvidia_columns(o.out, o.out_len);
    tc_smi_output_free(&o);
    size_t used = (size_t)snprintf(st->query, sizeof st->query, "--query-gpu=");
    for (int c = 0; c < TC_SMI_NCOL; c++)
        if (st->cols & (1u << c))
            used += (size_t)snprintf(st->query + used, sizeof st->query - used, "%s%s",
                                     c ? "," : "", col_names[c]);
    if (st->cols != TC_SMI_ALL_COLS) {
        size_t n =
            (size_t)snprintf(st->last_error, sizeof st->last_error, "%s does not offer:", st->cmd);
        for (int c = 0; c < TC_SMI_NCOL && n < sizeof st->last_error; c++)
            if (!(st->cols & (1u << c)))
                n += (size_t)snprintf(st->last_error + n, sizeof st->last_error - n, " %s",
                                      col_names[c]);
    }
    return TC_OK;
}

static void describe(smi_state *st, int i)
{
    const tc_smi_gpu *g = &st->gpu[i].first;
    tc_telem_device *d = &st->gpu[i].info;
    d->kind = TC_TELEM_GPU;
    if (st->v == VENDOR_NVIDIA) {
        if (g->name[0])
            tc_telem_fmt(d->name, sizeof d->name, "%s", g->name);
        else
            tc_telem_fmt(d->name, sizeof d->name, "NVIDIA GPU %d", g->index);
        if (g->bus_id[0])
            tc_telem_fmt(d->id, sizeof d->id, "%s", g->bus_id);
        else
            tc_telem_fmt(d->id, sizeof d->id, "nvidia-smi:%d", g->index);
        tc_telem_fmt(d->driver, sizeof d->driver, "%s", g->driver);
        tc_telem_fmt(d->energy_what, sizeof d->energy_what, "GPU energy integrated from power");
    } else {
        if (g->name[0])
            tc_telem_fmt(d->name, sizeof d->name, "%s", g->name);
        else
            tc_telem_fmt(d->name, sizeof d->name, "AMD GPU card%d", g->index);
        tc_telem_fmt(d->id, sizeof d->id, "card%d", g->index);
        tc_telem_fmt(d->energy_what, sizeof d->energy_what, "%s",
                     g->s.valid & TC_TF_ENERGY ? "GPU energy counter"
                                               : "GPU energy integrated from power");
    }
}

static void smi_shutdown(void *state)
{
    smi_state *st = state;
    if (!st)
        return;
    free(st->cmd);
    free(st->gpu);
    free(st->cur);
    free(st);
}

static tc_err smi_init(vendor v, const char *cmd, void **state, char *err, size_t errlen)
{
    *state = NULL;
    smi_state *st = calloc(1, sizeof *st);
    tc_err rc = TC_ERR_NOMEM;
    if (!st)
        return tc_fail(err, errlen, rc, "%s: out of memory", cmd);
    st->v = v;
    st->cmd = strdup(cmd);
    st->cur = calloc(TC_SMI_MAX_GPUS, sizeof *st->cur);
    if (!st->cmd || !st->cur) {
        rc = tc_fail(err, errlen, rc, "%s: out of memory", cmd);
        goto fail;
    }
    if (v == VENDOR_NVIDIA && (rc = probe_nvidia(st, err, errlen)) != TC_OK)
        goto fail;
    if ((rc = refresh(st, err, errlen)) != TC_OK)
        goto fail;
    if (st->ncur == 0) {
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s lists no GPU", cmd);
        goto fail;
    }
    st->gpu = calloc((size_t)st->ncur, sizeof *st->gpu);
    if (!st->gpu) {
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", cmd);
        goto fail;
    }
    st->ngpu = st->ncur;
    for (int i = 0; i < st->ngpu; i++) {
        st->gpu[i].first = st->cur[i];
        st->gpu[i].energy_last = st->cur[i].s.energy_uj;
        describe(st, i);
    }
    st->ncur = 0; /* the first sample runs the command afresh */
    *state = st;
    return TC_OK;
fail:
    smi_shutdown(st);
    return rc;
}

static tc_err nvidia_init(const tc_telem_config *cfg, void **state, char *err, size_t errlen)
{
    return smi_init(VENDOR_NVIDIA, cfg && cfg->nvidia_smi ? cfg->nvidia_smi : "nvidia-smi", state,
                    err, errlen);
}

static tc_err rocm_init(const tc_telem_config *cfg, void **state, char *err, size_t errlen)
{
    return smi_init(VENDOR_AMD, cfg && cfg->rocm_smi ? cfg->rocm_smi : "rocm-smi", state, err,
                    errlen);
}

static int smi_device_count(void *state)
{
    return state ? ((smi_state *)state)->ngpu : 0;
}

static void smi_device_info(void *state, int dev, tc_telem_device *out)
{
    smi_state *st = state;
    if (st && dev >= 0 && dev < st->ngpu)
        *out = st->gpu[dev].info;
    else
        memset(out, 0, sizeof *out);
}

/* The current reading of the GPU init saw as g: same index and, where
 * nvidia-smi gave one, same bus id. */
static const tc_smi_gpu *find_current(const smi_state *st, const tc_smi_gpu *g)
{
    for (int i = 0; i < st->ncur; i++)
        if (st->cur[i].index == g->index && strcmp(st->cur[i].bus_id, g->bus_id) == 0)
            return &st->cur[i];
    return NULL;
}

/* Folds counter resets into a monotonic count. */
static uint64_t monotonic_energy(smi_gpu_state *g, uint64_t raw)
{
    if (raw < g->energy_last)
        g->energy_base += g->energy_last;
    g->energy_last = raw;
    return g->energy_base + raw;
}

/* A failed run costs that sample; three in a row, or a driver that went
 * away, end the device (TC_ERR_IO). */
#define MAX_FAILURES 3

static tc_err smi_sample(void *state, int dev, tc_telem_sample *out)
{
    smi_state *st = state;
    memset(out, 0, sizeof *out);
    out->mono_ns = tc_telem_now_ns();
    if (!st || dev < 0 || dev >= st->ngpu)
        return TC_ERR_INVALID;
    smi_gpu_state *g = &st->gpu[dev];
    if (!g->fresh || st->ncur == 0 || out->mono_ns - st->cur_ns > TC_NS_PER_S) {
        char why[400];
        tc_err rc = refresh(st, why, sizeof why);
        if (rc != TC_OK) {
            st->failures++;
            snprintf(st->last_error, sizeof st->last_error, "%s", why);
            return rc == TC_ERR_NOTFOUND || st->failures >= MAX_FAILURES ? TC_ERR_IO : TC_OK;
        }
        st->failures = 0;
    }
    const tc_smi_gpu *cur = find_current(st, &g->first);
    if (!cur) {
        snprintf(st->last_error, sizeof st->last_error, "GPU lost: %s no longer lists %s (%s)",
                 tool(st), g->info.name, g->info.id);
        return TC_ERR_IO;
    }
    *out = cur->s;
    out->mono_ns = st->cur_ns;
    if (out->valid & TC_TF_ENERGY)
        out->energy_uj = monotonic_energy(g, cur->s.energy_uj);
    g->fresh = 0;
    return TC_OK;
}

static const char *smi_last_error(void *state)
{
    return state ? ((smi_state *)state)->last_error : "";
}

const tc_telem_backend tc_telem_nvidia_smi = {
    .name = "nvidia-smi",
    .init = nvidia_init,
    .device_count = smi_device_count,
    .device_info = smi_device_info,
    .sample = smi_sample,
    .shutdown = smi_shutdown,
    .last_error = smi_last_error,
};

const tc_telem_backend tc_telem_rocm_smi = {
    .name = "rocm-smi",
    .init = rocm_init,
    .device_count = smi_device_count,
    .device_info = smi_device_info,
    .sample = smi_sample,
    .shutdown = smi_shutdown,
    .last_error = smi_last_error,
};
