/* bench_machine: how steady the machine under a benchmark is.
 *
 * A latency target at p99 is a claim about the program only on a core that
 * is there whenever the program runs. A shared virtual machine's host lends
 * the vCPU out for milliseconds at a time, and the guest cannot see it: the
 * guest's clocks run on, its CPU accounting charges the time to whatever
 * was running, and /proc/stat's steal column stays near zero; between such
 * stalls the host's other tenants slow the vCPU down by two to four times
 * for tens of milliseconds. The probe sees both from inside: a thread doing
 * a fixed piece of work over and over, reading the clock between pieces,
 * finds a gap wherever the CPU vanished and a slow piece wherever it
 * slowed. It runs on the CPU the benchmark uses,
 * before and after the load (not during, when it would be the load's
 * competitor), so a report can say whether a missed p99 target is the
 * program's or the machine's. */
#ifndef TC_BENCH_MACHINE_H
#define TC_BENCH_MACHINE_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

/* A CPU that vanishes for longer than this, with nothing else to run, is
 * not steady enough to judge a 1 ms p99 target on... */
#define BENCH_MACHINE_STALL_LIMIT_MS 1.0
/* ...nor one where a fixed 0.5 ms piece of work takes this many times
 * longer at p99 than at p50 (a dedicated core: about 1.05)... */
#define BENCH_MACHINE_SPEED_LIMIT 1.3
/* ...nor is one where an idle 200 us sleeper wakes later than this at p99. */
#define BENCH_MACHINE_WAKE_LIMIT_MS 0.2

typedef struct bench_machine {
    int cpu;            /* the CPU probed; -1 when not pinned */
    double spun_s;      /* how long the work ran */
    double work_p50_us; /* one piece of the fixed work: its duration */
    double work_p99_us;
    double work_max_us;
    double slowdown;    /* work p99 / p50 */
    long stalls;        /* gaps longer than BENCH_MACHINE_STALL_LIMIT_MS */
    double longest_ms;  /* the longest gap of all */
    double stalled_ms;  /* the time lost in those stalls */
    double wake_p50_ms; /* how late an idle 200 us sleep wakes */
    double wake_p99_ms;
    int steady; /* 1: no stall, slowdown and wake p99 within limits */
} bench_machine;

/* Probes on `cpu` (-1: wherever the scheduler puts it) for about `seconds`
 * (0.2 to 60), in a thread of its own so that the caller's affinity stays
 * as it is. Returns 0, or -1 when out of memory or no thread could be made
 * (*out then says cpu -1, nothing measured, not steady). */
int bench_machine_probe(int cpu, double seconds, bench_machine *out);

/* Merges `b` into `a` (the worse of each; stalls and time add up). */
void bench_machine_merge(bench_machine *a, const bench_machine *b);

/* How late a thread on `to_cpu`, asleep in read() on an eventfd, wakes
 * when a thread on `from_cpu` writes to it: the path by which a server's
 * socket write wakes a client on another CPU. Writes about 2,000 a second
 * for `seconds` (0.1 to 10); *p50_ms and *p99_ms get the delay from the
 * write to the reader running. Returns 0, or -1 when the threads or the
 * eventfd could not be made. */
int bench_machine_wake_across(int from_cpu, int to_cpu, double seconds, double *p50_ms,
                              double *p99_ms);

/* qsort comparison of int64_t values, ascending (shared by the probes). */
int bench_cmp_i64(const void *a, const void *b);

/* Pins `server` to the first CPU this process may use and the calling
 * thread to the others. Unpinned, the scheduler's wake-affine placement
 * pulls the client, woken by the server's socket writes, onto the server's
 * CPU, where it preempts the timer loop: a bench would measure its own
 * client. Returns the server's CPU, or -1 when not pinned (one CPU, or
 * pinning refused). */
int bench_machine_pin_apart(pthread_t server);

/* The calling thread's CPU time, ns (CLOCK_THREAD_CPUTIME_ID). */
int64_t bench_thread_cpu_ns(void);

/* One line, "machine  <when>: STEADY|UNSTEADY ...", with the figures. */
void bench_machine_print(const bench_machine *m, const char *when, FILE *out);

#endif
