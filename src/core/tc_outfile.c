#include "tc_outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void clear(tc_outfile *o)
{
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

tc_err tc_outfile_open(const char *path, tc_outfile *o, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    struct stat st;
    int in_place = stat(path, &st) == 0 && !S_ISREG(st.st_mode);
    o->path = strdup(path);
    if (!o->path)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    if (in_place) {
        o->f = fopen(path, "w");
    } else {
        size_t n = strlen(path) + 16;
        o->tmp = malloc(n);
        if (!o->tmp) {
            clear(o);
            return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
        }
        snprintf(o->tmp, n, "%s.tmpXXXXXX", path);
        int fd = mkstemp(o->tmp);
        /* mkstemp makes it 0600; an output file gets the usual mode. */
        mode_t mask = umask(0);
        umask(mask);
        if (fd >= 0 && fchmod(fd, 0666 & ~mask) == 0)
            o->f = fdopen(fd, "w");
        else if (fd >= 0)
            close(fd);
        if (!o->f && fd >= 0)
            unlink(o->tmp);
    }
    if (!o->f) {
        int e = errno;
        tc_fail(err, errlen, TC_ERR_IO, "%s: cannot write: %s", path, strerror(e));
        clear(o);
        return TC_ERR_IO;
    }
    return TC_OK;
}

tc_err tc_outfile_commit(tc_outfile *o, char *err, size_t errlen)
{
    errno = 0;
    int ok = fflush(o->f) == 0 && (!o->tmp || fsync(fileno(o->f)) == 0);
    int e = errno;
    if (fclose(o->f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    o->f = NULL;
    if (ok && o->tmp && rename(o->tmp, o->path) != 0) {
        ok = 0;
        e = errno;
    }
    tc_err rc = TC_OK;
    if (!ok) {
        rc = tc_fail(err, errlen, TC_ERR_IO, "%s: write failed: %s", o->path,
                     e ? strerror(e) : "unknown error");
        if (o->tmp)
            unlink(o->tmp);
    }
    clear(o);
    return rc;
}

void tc_outfile_abort(tc_outfile *o)
{
    if (o->f)
        fclose(o->f);
    if (o->tmp)
        unlink(o->tmp);
    clear(o);
}

tc_err tc_outfile_write(const char *path, const char *text, char *err, size_t errlen)
{
    tc_outfile o;
    tc_err rc = tc_outfile_open(path, &o, err, errlen);
    if (rc != TC_OK)
        return rc;
    if (fputs(text, o.f) < 0) {
        int e = errno;
        tc_outfile_abort(&o);
        return tc_fail(err, errlen, TC_ERR_IO, "%s: write failed: %s", path, strerror(e));
    }
    return tc_outfile_commit(&o, err, errlen);
}

int tc_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

void tc_inputs_add(tc_inputs *in, const char *what, const char *path)
{
    if (!path || in->n >= TC_INPUTS_MAX)
        return;
    in->what[in->n] = what;
    in->path[in->n++] = path;
}

tc_err tc_output_check(const char *option, const char *out, const tc_inputs *in, char *err,
                       size_t errlen)
{
    for (size_t i = 0; out && in && i < in->n; i++)
        if (strcmp(out, in->path[i]) == 0 || tc_same_file(out, in->path[i]))
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "%s %s is the same file as %s %s, an input: give another output file",
                           option, out, in->what[i], in->path[i]);
    return TC_OK;
}
