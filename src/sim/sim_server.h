/* `truecost sim`: a simulated inference server on libevent's evhttp. It
 * speaks the Ollama native API, the OpenAI-compatible API and llama.cpp's
 * extras, streams tokens on the timing model of sim_model.h, injects the
 * faults of sim_fault.h and can write the ground truth of every chunk it
 * sent. Everything it serves is labelled SIMULATED. One event loop, one
 * thread; no function here may be called from another thread except
 * tc_sim_server_stop. */
#ifndef TC_SIM_SERVER_H
#define TC_SIM_SERVER_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "core/tc_error.h"
#include "sim_fault.h"
#include "sim_model.h"

#define TC_SIM_DEFAULT_MODEL "sim-llama-8b"
#define TC_SIM_MAX_MODELS 32

typedef struct tc_sim_config {
    const char *host; /* listen address; default "127.0.0.1" */
    uint16_t port;    /* 0 = pick a free port */
    const char *models[TC_SIM_MAX_MODELS];
    int n_models; /* 0 = one model, TC_SIM_DEFAULT_MODEL */
    tc_sim_timing timing;
    tc_sim_fault_plan faults;
    uint64_t seed;
    double tokens_per_word;  /* prompt tokens per word of prompt text (default 1) */
    int eos_after;           /* the model's answer ends (EOS) after this many tokens unless the
                                request asks to ignore EOS; 0 = never: every reply fills its limit */
    const char *truth_path;  /* NULL = no ground-truth file */
    int leak_kb_per_request; /* memory kept per finished request (a leaking server); 0 = none */
    size_t max_body_bytes;   /* larger request bodies get 413 */
    /* A connection that has answered this many requests is closed when the
     * next one arrives on it, with no response byte: a server that closes
     * kept-alive connections (llama.cpp's) as a client reuses one. 0 =
     * never. */
    int close_after;
    /* The share of the model's bytes /api/ps reports outside device
     * memory (size - size_vram), as Ollama reports a model that did not
     * fit the card; 0 = all on the card. */
    double cpu_offload;
    int handle_signals; /* 1: SIGINT/SIGTERM stop the loop cleanly */
    /* Called (from the loop) with a one-line message the first time the
     * server runs into trouble it survives, e.g. no file descriptor left to
     * accept a connection. NULL: nobody is told; the stats still count it. */
    void (*warn)(void *arg, const char *message);
    void *warn_arg;
} tc_sim_config;

/* Fills defaults: 127.0.0.1:0, the default model, default timing, seed 1,
 * one token per word, no EOS, 1 MiB bodies, no faults, no truth file,
 * signals handled. */
void tc_sim_config_defaults(tc_sim_config *cfg);

typedef struct tc_sim_server tc_sim_server;

/* Lateness of the token timer: how long after its due time each token
 * was produced. Percentiles are exact to 1 us (histogram of 1 us bins up
 * to 100 ms; later ones count in the top bin). */
typedef struct tc_sim_stats {
    uint64_t requests; /* inference requests received */
    uint64_t tokens;   /* tokens produced */
    uint64_t ticks;    /* timer firings measured */
    int64_t late_p50_ns;
    int64_t late_p99_ns;
    int64_t late_max_ns;
    uint64_t wakeups;       /* times the loop woke for the token timers */
    uint64_t timer_arms;    /* timer syscalls that armed or disarmed the wake-ups */
    uint64_t accept_pauses; /* times accepting paused for 100 ms (e.g. out of fds) */
    int accept_errno;       /* the errno of the last of them, 0 if none */
    uint64_t closed_reused; /* requests met by closing their connection (close_after) */
} tc_sim_stats;

/* Binds and prepares the server. It sets SIGPIPE to ignored for the whole
 * process: a client hanging up mid-stream must not kill the server (the
 * write then fails with EPIPE instead). On failure returns the error and writes
 * the reason (address, errno text, what to do) into err; *out is NULL.
 * The config's strings are copied. Free with tc_sim_server_free.
 * Limits it enforces: request heads over 64 KiB are refused (400, connection
 * closed); a body over max_body_bytes gets the route's JSON 413 before it is
 * read. When accept() fails (EMFILE...), accepting pauses for 100 ms instead
 * of spinning; it does not change RLIMIT_NOFILE (the caller may). */
TC_MUST_CHECK tc_err tc_sim_server_new(const tc_sim_config *cfg, tc_sim_server **out, char *err,
                                       size_t errlen);

/* The port actually bound (useful with port 0). */
uint16_t tc_sim_server_port(const tc_sim_server *s);

/* Runs the event loop until tc_sim_server_stop, a handled signal, or the
 * crash-after fault. Returns 0 after a clean stop, 1 when crash-after was
 * reached (the caller should then exit abruptly, as a crash would), -1 on
 * a loop error. */
int tc_sim_server_run(tc_sim_server *s);

/* Asks the loop to stop; safe from another thread or a signal handler. */
void tc_sim_server_stop(tc_sim_server *s);

/* Copies the counters and lateness percentiles so far into out. */
void tc_sim_server_stats(const tc_sim_server *s, tc_sim_stats *out);

/* Writes a truth line with `outcome` (a plain word, e.g. "crashed") for
 * every stream still in flight, flushes the truth file and forgets those
 * streams, without running the loop: for a caller about to exit abruptly.
 * Their connections are left as they are; the server can still be freed.
 * Returns the number of lines written (0 without a truth file). */
int tc_sim_server_write_inflight_truth(tc_sim_server *s, const char *outcome);

/* Ends every open stream, closes the socket and the truth file, frees.
 * Accepts NULL. */
void tc_sim_server_free(tc_sim_server *s);

/* The banner `truecost sim` prints on out when it listens: its URL (every
 * line says SIMULATED or is the plan's), models, timing, degradation,
 * prompt token counting, EOS and faults. */
void tc_sim_banner(FILE *out, const tc_sim_server *srv, const tc_sim_config *c);

/* What it served, said on out when it stops; and the accept pauses and
 * kept-alive connections closed, when there were. */
void tc_sim_stop_report(FILE *out, const tc_sim_stats *st);

#endif
