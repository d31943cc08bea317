/* bench_loopback: what the kernel alone charges for one streamed chunk.
 *
 * Every token the simulator streams is one writev() of about 150 bytes to a
 * loopback TCP socket whose reader sits on another CPU. On bare metal the
 * kernel does that in 2-3 us; on a virtual machine, where waking the reader
 * is an inter-processor interrupt through the hypervisor, it can take 6-7
 * us. That floor bounds any server on the machine, so the benchmarks print
 * it beside their own cost per token. */
#ifndef TC_BENCH_LOOPBACK_H
#define TC_BENCH_LOOPBACK_H

typedef struct bench_loopback {
    long writes;     /* writev() calls timed */
    double write_us; /* mean wall time inside one writev() */
    double write_p50_us;
} bench_loopback;

/* Times `chunk_bytes`-byte writev()s, round robin over `conns` loopback TCP
 * connections, from a thread on `writer_cpu` (-1: unpinned) to a reader
 * thread on the other CPUs, for about `seconds` (0.1 to 10). Returns 0,
 * or -1 when sockets or threads could not be made (*out is then zeroed). */
int bench_loopback_measure(int writer_cpu, int conns, int chunk_bytes, double seconds,
                           bench_loopback *out);

#endif
