/* The disk that holds the model store: found through the mount table
 * (<root>/proc/self/mountinfo) and the block device's sysfs node, which
 * says whether it spins. Best effort: what cannot be told is null. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "env_internal.h"

typedef struct mount_match {
    char mount[1024];
    char fstype[64];
    char source[256];
    unsigned major, minor;
    size_t len; /* of mount; 0: no match yet */
} mount_match;

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
            r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = '\0';
}

/* 1 when mount point m holds path p ("/" holds all; "/home" holds "/home/x"
 * but not "/homer"). */
static int holds(const char *m, const char *p)
{
    size_t n = strlen(m);
    if (n == 1 && m[0] == '/')
        return 1;
    return strncmp(m, p, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

/* One mountinfo line: "ID PARENT M:m ROOT MOUNT OPTS [OPTIONAL...] - FSTYPE
 * SOURCE SUPER"; keeps it when its mount point is the longest holding p. */
static void consider(char *line, const char *p, mount_match *best)
{
    unsigned major, minor;
    char mnt[1024];
    if (sscanf(line, "%*s %*s %u:%u %*s %1023s", &major, &minor, mnt) != 3)
        return;
    unescape(mnt);
    char *dash = strstr(line, " - ");
    if (!dash || !holds(mnt, p) || strlen(mnt) < best->len)
        return;
    char fstype[64] = "", source[256] = "";
    if (sscanf(dash + 3, "%63s %255s", fstype, source) < 1)
        return;
    unescape(source);
    snprintf(best->mount, sizeof best->mount, "%s", mnt);
    snprintf(best->fstype, sizeof best->fstype, "%s", fstype);
    snprintf(best->source, sizeof best->source, "%s", source);
    best->major = major;
    best->minor = minor;
    best->len = strlen(mnt); /* later lines win ties: they mount over earlier ones */
}

static void find_mount(const char *root, const char *p, mount_match *best)
{
    FILE *f = tc_root_open(root, "/proc/self/mountinfo", "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) > 0)
        consider(line, p, best);
    free(line);
    fclose(f);
}

/* The block device's name from its sysfs link, or the mount source when it
 * is a /dev node; NULL (json null) otherwise (overlay, tmpfs, network). */
static json_t *device_name(const char *root, const char *devdir, const mount_match *m)
{
    char path[4096], target[4096];
    if (tc_root_join(path, sizeof path, root, devdir) == TC_OK) {
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 0) {
            target[n] = '\0';
            const char *slash = strrchr(target, '/');
            return json_string(slash ? slash + 1 : target);
        }
    }
    if (strncmp(m->source, "/dev/", 5) == 0 && m->source[5])
        return json_string(m->source + 5);
    return json_null();
}

/* queue/rotational of the device, or of its parent disk for a partition. */
static json_t *rotational(const char *root, const char *devdir)
{
    static const char *const where[] = {"queue/rotational", "../queue/rotational"};
    for (size_t i = 0; i < 2; i++) {
        char rel[512], v[16];
        snprintf(rel, sizeof rel, "%s/%s", devdir, where[i]);
        if (tc_env_read(root, rel, v, sizeof v) == 0 && (v[0] == '0' || v[0] == '1') && !v[1])
            return json_boolean(v[0] == '1');
    }
    return json_null();
}

json_t *tc_env_disk(const char *root, const char *path)
{
    mount_match m;
    memset(&m, 0, sizeof m);
    char real[PATH_MAX];
    const char *p = path;
    struct stat st;
    int live = strcmp(root, "/") == 0 && stat(path, &st) == 0;
    if (live && realpath(path, real)) /* the mount table names resolved paths */
        p = real;
    find_mount(root, p, &m);
    if (live) { /* the file's own device beats a guess from the table */
        m.major = major(st.st_dev);
        m.minor = minor(st.st_dev);
    }
    if (!m.len && !live)
        return json_pack("{s:s, s:n, s:n, s:n, s:n}", "path", path, "mount", "fstype", "device",
                         "rotational");
    char devdir[64];
    snprintf(devdir, sizeof devdir, "/sys/dev/block/%u:%u", m.major, m.minor);
    return json_pack("{s:s, s:o, s:o, s:o, s:o}", "path", path, "mount", tc_env_str(m.mount),
                     "fstype", tc_env_str(m.fstype), "device", device_name(root, devdir, &m),
                     "rotational", rotational(root, devdir));
}
