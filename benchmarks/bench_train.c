/* bench_train: the CPU cost of reading a trainer's output, per line, as
 * `truecost train` reads it (lines split as measure/ splits them, each
 * tried as a step of the format, a checkpoint, a warning or error, and the
 * distinct messages counted), against a bare loop that read()s the same
 * output and finds its newlines. The output is a realistic mix written to
 * a temporary file: step records, tqdm progress, INFO logs and a warning
 * now and then. Per format (auto detection included); medians of 3 runs.
 * The figure is the ratio: what truecost adds over reading the bytes. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "trainer/trainer.h"

#define LINES 400000
#define ROUNDS 3

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void step_line(FILE *f, const char *format, long k)
{
    if (strcmp(format, "hf") == 0)
        fprintf(f,
                "{'loss': %.4f, 'grad_norm': 1.234, 'learning_rate': 1.9e-05, 'epoch': %.4f, "
                "'num_input_tokens_seen': %ld}\n",
                1.0 + 1.0 / (double)(k + 1), (double)k / LINES, k * 4096);
    else if (strcmp(format, "torchtune") == 0)
        fprintf(f,
                "Step %ld | loss:%.6f lr:2e-05 tokens_per_second_per_gpu:1834.52 "
                "peak_memory_alloc:21.50\n",
                k, 1.0 + 1.0 / (double)(k + 1));
    else
        fprintf(f,
                "{\"step\": %ld, \"loss\": %.4f, \"samples\": 8, \"tokens\": 4096, \"lr\": 2e-05, "
                "\"peak_memory_bytes\": 21474836480}\n",
                k, 1.0 + 1.0 / (double)(k + 1));
}

/* Half step records, half other lines; returns the bytes written. */
static long write_output(const char *path, const char *format)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    for (long i = 0, k = 1; i < LINES; i++) {
        if (i % 2 == 0)
            step_line(f, format, k++);
        else if (i % 50 == 1)
            fputs("/usr/lib/python3/dist-packages/torch/utils/checkpoint.py:460: UserWarning: "
                  "torch.utils.checkpoint: please pass in use_reentrant=True or False\n",
                  f);
        else if (i % 10 == 3)
            fputs("INFO:torchtune.utils._logging:Memory stats after model init: GPU peak memory "
                  "allocation: 15.07 GiB\n",
                  f);
        else
            fprintf(f, " %2ld%%|####      | %ld/%d [01:02<03:04,  1.23it/s]\n", i * 100 / LINES,
                    i / 2, LINES / 2);
    }
    long size = ftell(f);
    fclose(f);
    return size;
}

/* The floor: read() and find the newlines. */
static double bare(const char *path, long *lines)
{
    static char buf[65536];
    int fd = open(path, O_RDONLY);
    double t0 = cpu_s();
    ssize_t n;
    *lines = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        for (const char *p = buf; (p = memchr(p, '\n', (size_t)(buf + n - p))); p++)
            (*lines)++;
    double t = cpu_s() - t0;
    close(fd);
    return t;
}

/* truecost's reading: lines assembled into a buffer, each read. */
static double reader(const char *path, tc_train_format format, long *steps)
{
    static char buf[65536], line[1 << 20];
    tc_trainer_config cfg = {.format = format};
    tc_trainer *t;
    char err[256];
    if (tc_trainer_new(&cfg, &t, err, sizeof err) != TC_OK)
        return -1;
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_tally tally = {0};
    int fd = open(path, O_RDONLY);
    size_t len = 0;
    *steps = 0;
    double t0 = cpu_s();
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0) {
        const char *p = buf, *end = buf + n;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t take = nl ? (size_t)(nl - p) : (size_t)(end - p);
            memcpy(line + len, p, take);
            len += take;
            if (!nl)
                break;
            line[len] = '\0';
            tc_trainer_line l;
            tc_trainer_read_line(t, line, len, &l, &info);
            *steps += l.is_step;
            if (l.is_warning)
                tc_trainer_tally_add(&tally, l.cls, l.category, l.message, *steps);
            len = 0;
            p = nl + 1;
        }
    }
    double s = cpu_s() - t0;
    close(fd);
    tc_trainer_tally_free(&tally);
    tc_trainer_free(t);
    return s;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    static const char *const formats[] = {"hf", "torchtune", "jsonl"};
    char path[] = "/tmp/bench-train-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 2;
    close(fd);
    printf("bench_train: reading a trainer's output, %d lines (half step records), CPU per "
           "line, median of %d\n",
           LINES, ROUNDS);
    for (size_t i = 0; i < 3; i++) {
        long size = write_output(path, formats[i]);
        tc_train_format f;
        tc_train_format_parse(formats[i], &f);
        for (int detect = 0; detect < 2; detect++) {
            double b[ROUNDS], r[ROUNDS];
            long lines = 0, steps = 0;
            for (int k = 0; k < ROUNDS; k++) {
                b[k] = bare(path, &lines);
                r[k] = reader(path, detect ? TC_TRAIN_AUTO : f, &steps);
            }
            qsort(b, ROUNDS, sizeof *b, cmp);
            qsort(r, ROUNDS, sizeof *r, cmp);
            double bn = b[ROUNDS / 2] / (double)lines * 1e9,
                   rn = r[ROUNDS / 2] / (double)lines * 1e9;
            printf("  %-9s %-6s %6.1f MB  truecost %7.0f ns/line, bare read %5.0f ns/line, ratio "
                   "%5.1fx  (%ld steps)\n",
                   formats[i], detect ? "auto" : "given", (double)size / 1e6, rn, bn, rn / bn,
                   steps);
        }
    }
    unlink(path);
    return 0;
}
