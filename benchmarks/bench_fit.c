/* bench_fit: `truecost fit` reads a model file's header, never its data, so
 * a big file answers at once. Writes a GGUF of 10,000 tensors (Q4_K, Q8_0
 * and F16 matrices of 4096 x 1024: a 50 GB file, its data a hole, so
 * nothing but the header is on disk), then times tc_modelfile_read on it
 * against a floor measured in the same run: reading the same bytes once
 * (one open, one read of as many bytes as the reader's first read, one
 * close). Medians of 7; target: under 50 ms. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tc_time.h"
#include "modelfile/modelfile.h"

#define TENSORS 10000
#define RUNS 7
#define FIRST_READ (1u << 20) /* modelfile.c's first read */

typedef struct out {
    unsigned char *b;
    size_t n, cap;
} out;

static void put(out *o, const void *p, size_t n)
{
    if (o->n + n > o->cap) {
        o->cap = (o->n + n) * 2;
        o->b = realloc(o->b, o->cap);
        if (!o->b)
            exit(1);
    }
    memcpy(o->b + o->n, p, n);
    o->n += n;
}

static void u32(out *o, uint32_t v)
{
    unsigned char b[4] = {v, v >> 8, v >> 16, v >> 24};
    put(o, b, 4);
}

static void u64(out *o, uint64_t v)
{
    u32(o, (uint32_t)v);
    u32(o, (uint32_t)(v >> 32));
}

static void str(out *o, const char *s)
{
    u64(o, strlen(s));
    put(o, s, strlen(s));
}

/* The header of the file; *data its data bytes. */
static out header(uint64_t *data)
{
    static const struct {
        uint32_t id, block, bytes;
    } T[] = {{12, 256, 144}, {8, 32, 34}, {1, 1, 2}}; /* Q4_K, Q8_0, F16 */
    out o = {0};
    put(&o, "GGUF", 4);
    u32(&o, 3);
    u64(&o, TENSORS);
    u64(&o, 2);
    str(&o, "general.architecture");
    u32(&o, 8);
    str(&o, "llama");
    str(&o, "llama.block_count");
    u32(&o, 4);
    u32(&o, TENSORS / 10);
    uint64_t off = 0;
    char name[64];
    for (int i = 0; i < TENSORS; i++) {
        snprintf(name, sizeof name, "blk.%d.w%d.weight", i / 10, i % 10);
        str(&o, name);
        u32(&o, 2);
        u64(&o, 4096);
        u64(&o, 1024);
        u32(&o, T[i % 3].id);
        u64(&o, off);
        off += (uint64_t)4096 * 1024 / T[i % 3].block * T[i % 3].bytes;
        off = (off + 31) / 32 * 32;
    }
    while (o.n % 32)
        put(&o, "", 1);
    *data = off;
    return o;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median seconds of RUNS reads: the reader, or the floor. */
static double measure(const char *path, size_t floor_bytes, int floor)
{
    double t[RUNS];
    unsigned char *buf = malloc(floor_bytes);
    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = tc_mono_ns();
        if (floor) {
            int fd = open(path, O_RDONLY);
            if (fd < 0 || read(fd, buf, floor_bytes) != (ssize_t)floor_bytes)
                exit(1);
            close(fd);
        } else {
            tc_model_shape m;
            char err[512];
            if (tc_modelfile_read(path, &m, err, sizeof err) != TC_OK || m.tensors != TENSORS) {
                fprintf(stderr, "bench_fit: %s\n", err);
                exit(1);
            }
        }
        t[r] = (double)(tc_mono_ns() - t0) / 1e9;
    }
    free(buf);
    qsort(t, RUNS, sizeof t[0], cmp);
    return t[RUNS / 2];
}

int main(void)
{
    char path[] = "/tmp/bench_fit-XXXXXX";
    int fd = mkstemp(path);
    uint64_t data;
    out h = header(&data);
    if (fd < 0 || write(fd, h.b, h.n) != (ssize_t)h.n || ftruncate(fd, (off_t)(h.n + data)) != 0) {
        fprintf(stderr, "bench_fit: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    close(fd);
    size_t size = h.n + data, first = size < FIRST_READ ? size : FIRST_READ;
    double floor = measure(path, first, 1), full = measure(path, first, 0);
    printf("fit bench: a GGUF of %d tensors (%.1f GB, its header %zu KB), medians of %d\n", TENSORS,
           (double)size / 1e9, h.n / 1000, RUNS);
    printf("  header read and checked  %.2f ms (reading its first %zu KB alone %.2f ms, x%.1f)"
           "  target < 50 ms: %s\n",
           full * 1e3, first / 1000, floor * 1e3, floor > 0 ? full / floor : 0,
           full < 0.05 ? "PASS" : "FAIL");
    unlink(path);
    free(h.b);
    return 0;
}
