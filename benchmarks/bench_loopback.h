/* bench_loopback: what the kernel alone charges for one streamed chunk.
 *
 * Every token the simulator streams is one write() of about 180 bytes to a
 * loopback TCP socket whose reader sits on another CPU. On bare metal the
 * kernel does that in 2-3 us; on a virtual machine, where waking the reader
 * is an inter-processor interrupt through the hypervisor, it can take 4-7
 * us. That floor bounds any server on the machine, so the benchmarks print
 * it beside their own cost per token. */
#ifndef TC_BENCH_LOOPBACK_H
#define TC_BENCH_LOOPBACK_H

typedef struct bench_loopback {
    long writes;     /* write() calls timed */
    double write_us; /* mean wall time inside one write() */
    double write_p50_us;
} bench_loopback;

/* Times `chunk_bytes`-byte write()s, round robin over `conns` loopback TCP
 * connections, from a thread on `writer_cpu` (-1: unpinned) to a reader
 * thread on the other CPUs, for about `seconds` (0.1 to 10). Returns 0,
 * or -1 when sockets or threads could not be made (*out is then zeroed). */
int bench_loopback_measure(int writer_cpu, int conns, int chunk_bytes, double seconds,
                           bench_loopback *out);

#endif
