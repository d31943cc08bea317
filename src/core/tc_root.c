#include "tc_root.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Room for any path the kernel opens (PATH_MAX). */
#define ROOT_PATH_MAX 4096

tc_err tc_root_join(char *out, size_t len, const char *root, const char *path)
{
    int w;
    if (!root) {
        w = snprintf(out, len, "%s", path);
    } else {
        size_t n = strlen(root);
        while (n > 0 && root[n - 1] == '/')
            n--; /* "/" and "tree/" both join as prefix + "/proc/..." */
        while (*path == '/')
            path++;
        w = snprintf(out, len, "%.*s/%s", (int)n, root, path);
    }
    if (w >= 0 && (size_t)w < len)
        return TC_OK;
    if (len > 0)
        out[0] = '\0'; /* an empty path, which nothing opens */
    return TC_ERR_INVALID;
}

/* Reads fd whole into buf; TC_ERR_INVALID when it does not fit in len - 1. */
static tc_err read_all(int fd, char *buf, size_t len, size_t *n, int *eno)
{
    for (;;) {
        /* One byte past the buffer tells "fits exactly" from "too long". */
        char extra;
        char *dst = *n < len - 1 ? buf + *n : &extra;
        size_t room = *n < len - 1 ? len - 1 - *n : 1;
        ssize_t got = read(fd, dst, room);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            *eno = errno;
            return TC_ERR_IO;
        }
        if (got == 0)
            return TC_OK;
        if (dst == &extra)
            return TC_ERR_INVALID;
        *n += (size_t)got;
    }
}

tc_err tc_root_read(const char *root, const char *path, char *buf, size_t len, int *sys_errno)
{
    char full[ROOT_PATH_MAX];
    int dummy;
    int *eno = sys_errno ? sys_errno : &dummy;
    *eno = 0;
    if (len == 0)
        return TC_ERR_INVALID;
    buf[0] = '\0';
    if (tc_root_join(full, sizeof full, root, path) != TC_OK) {
        *eno = ENAMETOOLONG;
        return TC_ERR_IO;
    }
    int fd = open(full, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *eno = errno;
        return TC_ERR_IO;
    }
    size_t n = 0;
    tc_err rc = read_all(fd, buf, len, &n, eno);
    close(fd);
    while (rc == TC_OK && n > 0 && buf[n - 1] && strchr(" \t\n\r\v\f", buf[n - 1]))
        n--;
    buf[rc == TC_OK ? n : 0] = '\0';
    return rc;
}

FILE *tc_root_open(const char *root, const char *path, const char *mode)
{
    char full[ROOT_PATH_MAX];
    if (tc_root_join(full, sizeof full, root, path) != TC_OK) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    return fopen(full, mode);
}

int tc_root_exists(const char *root, const char *path)
{
    char full[ROOT_PATH_MAX];
    struct stat st;
    return tc_root_join(full, sizeof full, root, path) == TC_OK && stat(full, &st) == 0;
}
